"""Calibrate the reading judge on the calibration part of Citation-Integrity train (never on dev).

1. Export the fine-tuned cross-encoder to ONNX fp32 and int8.
2. Calibration examples: every citation of the citing papers the reader never saw
   (``citint.calibration_groups``), as the judge meets them:
   * pair level: the citation against all sentences of its cited document (the judge protocol);
   * document level: the document rendered into a longer source and the passages closest to the
     claim handed over (``devkit.citint.document_requests``), as the pipeline hands them over;
   and Check-COVID's held-out training abstracts at document level with a third mis-cited
   (``checkcovid_requests``), which teach the aggregator what a wrong source looks like (figures
   and band limits come from the Citation-Integrity examples alone).
3. The aggregator (``reading.AGGREGATE_FEATURES`` -> 3 labels): logistic regression, C chosen by
   out-of-fold log-loss (5 folds grouped by citing paper), then a temperature on the out-of-fold
   logits.
4. Undecided below ``UNDECIDED_BELOW`` (no label more likely than not), the same for every label.
5. Risk bands, on the out-of-fold problem probabilities: ``likely_problem`` from the lowest
   threshold whose flagged citations are not accurate at least ``PROBLEM_PRECISION`` of the time
   (most recall at that precision); ``likely_fine`` below the highest threshold whose citations
   are accurate at least ``FINE_PRECISION`` of the time.
6. int8 is shipped if its out-of-fold binary macro-F1 is within ``INT8_TOLERANCE`` of fp32's.
Writes the aggregator to the judge package (models/reading_judge.json) with every figure.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import platform
import shutil
from pathlib import Path
from typing import Final

import numpy as np

from bench.accuracy.citint_score import Scored
from bench.train_judge.export import copy_tokenizer, export_onnx, quantise_int8

LABELS: Final = ("supported", "unsupported", "contradicted")
GOLD_LABEL: Final = {"SUPPORT": "supported", "NO_EVIDENCE": "unsupported", "REFUTE": "contradicted"}
CHECKCOVID_GOLD: Final = {v: k for k, v in GOLD_LABEL.items()}
FOLDS: Final = 5
C_GRID: Final = (0.01, 0.03, 0.1, 0.3, 1.0)
UNDECIDED_BELOW: Final = 0.5
# The `likely-problem` band (and `--fail-on likely-problem`): at least this share of what it
# flags must really be a problem (issue 27).
PROBLEM_PRECISION: Final = 0.6
# The `likely-fine` band: at least this share of what it clears must really be accurate.
FINE_PRECISION: Final = 0.85
# A band limit is only trusted on at least this many cases on its side.
MIN_BAND_CASES: Final = 30
THRESHOLD_GRID: Final = np.round(np.arange(0.05, 0.96, 0.01), 2)
INT8_TOLERANCE: Final = 0.01
SIMULATION_SEED: Final = 20261202
_TEMPERATURES: Final = np.exp(np.linspace(np.log(0.25), np.log(4.0), 120))


def _softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    return exp / exp.sum(axis=1, keepdims=True)


def _fit(x: np.ndarray, y: np.ndarray, c: float):
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=5000)).fit(x, y)


def out_of_fold_logits(x, y, groups, c) -> np.ndarray:
    from sklearn.model_selection import GroupKFold

    logits = np.zeros((len(y), len(LABELS)))
    for train_idx, test_idx in GroupKFold(n_splits=FOLDS).split(x, y, groups):
        logits[test_idx] = _fit(x[train_idx], y[train_idx], c).decision_function(x[test_idx])
    return logits


def band_limits(problem: np.ndarray, accurate: np.ndarray) -> tuple[float, float, dict]:
    """(problem_at, fine_below, figures) on out-of-fold problem probabilities."""
    problem_at = 1.0
    for t in THRESHOLD_GRID:
        flagged = problem >= t
        if flagged.sum() >= MIN_BAND_CASES and np.mean(~accurate[flagged]) >= PROBLEM_PRECISION:
            problem_at = float(t)
            break
    fine_below = 0.0
    for t in THRESHOLD_GRID:
        cleared = problem < t
        if cleared.sum() >= MIN_BAND_CASES and np.mean(accurate[cleared]) >= FINE_PRECISION:
            fine_below = float(t)
    fine_below = min(fine_below, problem_at)
    flagged, cleared = problem >= problem_at, problem < fine_below
    figures = {
        "likely_problem": {
            "share": round(float(flagged.mean()), 4),
            "precision": round(float(np.mean(~accurate[flagged])), 4) if flagged.any() else None,
            "recall": round(float(np.sum(flagged & ~accurate) / max((~accurate).sum(), 1)), 4),
        },
        "likely_fine": {
            "share": round(float(cleared.mean()), 4),
            "accurate": round(float(np.mean(accurate[cleared])), 4) if cleared.any() else None,
        },
        "uncertain": {"share": round(float(1 - flagged.mean() - cleared.mean()), 4)},
    }
    return problem_at, fine_below, figures


def scored(probs: np.ndarray, gold: list[str], undecided_below: float) -> Scored:
    top = probs.argmax(axis=1)
    labels = [
        LABELS[t] if probs[i, t] >= undecided_below else "needs_review" for i, t in enumerate(top)
    ]
    return Scored(
        gold,
        labels,
        probs[:, LABELS.index("supported")],
        [LABELS[t] for t in top],
        probs.max(axis=1),
    )


def calibration_requests(data: Path, seed: int, cache: Path | None = None):
    """(requests, gold labels, citing-paper groups, level) of the calibration citations."""
    from bench.train_judge.citint import calibration_groups, group_of, train_citations
    from citeproof.devkit.citint import document_requests
    from citeproof.devkit.minilm import CachedEmbedder, embed_texts

    citations = train_citations(data)
    held = calibration_groups(citations, seed)
    chosen = [c for c in citations if group_of(c) in held]
    pair = [c.request() for c in chosen]
    embed = CachedEmbedder(embed_texts, cache)
    document = document_requests(chosen, citations, embed, seed=SIMULATION_SEED)
    embed.persist()
    gold = [c.label for c in chosen]
    groups = [f"citint-{group_of(c)}" for c in chosen]
    return (
        pair + document,
        gold + gold,
        groups + groups,
        ["pair"] * len(pair) + ["document"] * len(document),
    )


def checkcovid_requests(data: Path, held: set[str], seed: int):
    """Check-COVID's held-out training abstracts at document level, as the pipeline benchmark
    builds its cases (a third of the claims cite a topical neighbour: real mis-citations, which
    Citation-Integrity hardly has): the aggregator also learns what a wrong source looks like."""
    from bench.accuracy.dataset import build_claims
    from citeproof.contracts.judging import JudgeRequest
    from citeproof.devkit.checkcovid import load_claims, load_corpus, retrieved_passages
    from citeproof.devkit.minilm import CachedEmbedder, embed_texts

    claims_file = data / "checkcovid" / "covidCheck_train_composed+extracted.json"
    rows = [r for r in load_claims(claims_file) if r.cord_id in held]
    corpus = load_corpus(data / "checkcovid" / "corpus.json")
    embed = CachedEmbedder(embed_texts)
    requests, gold, groups = [], [], []
    for case in build_claims(rows, corpus, seed=seed):
        passages = retrieved_passages(case.claim, corpus[case.cited_cord_id], embed)
        requests.append(
            JudgeRequest(
                claim=case.claim, context=None, passages=passages, citation_key=f"cc-{case.key}"
            )
        )
        gold.append(CHECKCOVID_GOLD[case.gold])
        groups.append(f"checkcovid-{case.own_cord_id}")
    return requests, gold, groups


def _features(cross_encoder, requests) -> np.ndarray:
    from citeproof.judge.reading import read

    rows = []
    for request in requests:
        reading = read(
            cross_encoder,
            request.claim,
            request.passages,
            marker_works=request.marker_works,
            other_markers=request.other_markers,
        )
        assert reading is not None  # every calibration citation has evidence text
        rows.append(reading.features)
    return np.array(rows)


def last_checkpoint(work_dir: Path) -> Path:
    found = sorted(
        (p for p in work_dir.glob("epoch*") if p.name[5:].isdigit()), key=lambda p: int(p.name[5:])
    )
    if not found:
        raise FileNotFoundError(f"no checkpoint in {work_dir}; run --stage finetune first")
    return found[-1]


def calibrate(
    data: Path,
    work_dir: Path,
    checkcovid_held: set[str],
    *,
    seed: int,
    threads: int = 2,
    target_dir: Path | None = None,
    precisions: tuple[str, ...] = ("int8", "fp32"),
    log=print,
) -> dict:
    """``target_dir``: where the shipped files go (default: the judge package);
    ``precisions``: which exports to measure (int8 is always shipped unless fp32 measures
    clearly better)."""
    from citeproof.judge.bands import BandLimits
    from citeproof.judge.cross_encoder import DEFAULT_MODEL_PATH, MODELS_DIR, CrossEncoder
    from citeproof.judge.reading import (
        AGGREGATE_FEATURES,
        MODEL_FORMAT_VERSION,
        ReadingJudgeModel,
        save_reading_model,
    )

    checkpoint = last_checkpoint(work_dir)
    # Exports and features are kept per checkpoint (a rerun of this stage reuses them).
    fp32 = work_dir / f"{checkpoint.name}_fp32.onnx"
    int8 = work_dir / f"{checkpoint.name}_int8.onnx"
    if not int8.exists():
        export_onnx(checkpoint, fp32)
        quantise_int8(fp32, int8)
    copy_tokenizer(checkpoint, work_dir)
    tokenizer = work_dir / "cross_encoder_tokenizer.json"
    requests, gold, groups, level = calibration_requests(
        data, seed, work_dir.parent / "judge-embeddings.npz"
    )
    cc_requests, cc_gold, cc_groups = checkcovid_requests(data, checkcovid_held, seed)
    requests, gold = requests + cc_requests, gold + cc_gold
    groups = np.array(groups + cc_groups)
    level = np.array(level + ["checkcovid"] * len(cc_requests))
    citint = level != "checkcovid"
    y = np.array([LABELS.index(GOLD_LABEL[g]) for g in gold])
    accurate = np.array([g == "SUPPORT" for g in gold])
    results = {}
    for precision, path in (("int8", int8), ("fp32", fp32)):
        if precision not in precisions:
            continue
        cache = work_dir / f"{checkpoint.name}_features_{precision}.npy"
        if cache.exists() and len(np.load(cache)) == len(requests):
            x = np.load(cache)
        else:
            x = _features(CrossEncoder(path, tokenizer, threads=threads), requests)
            np.save(cache, x)
        best = None
        for c in C_GRID:
            logits = out_of_fold_logits(x, y, groups, c)
            loss = -np.mean(np.log(_softmax(logits)[np.arange(len(y)), y] + 1e-12))
            if best is None or loss < best[0]:
                best = (loss, c, logits)
        assert best is not None
        loss, c, logits = best
        citint_gold = [g for g, keep in zip(gold, citint, strict=True) if keep]
        figures = scored(_softmax(logits[citint]), citint_gold, UNDECIDED_BELOW).figures()
        results[precision] = {"x": x, "c": c, "logits": logits, "figures": figures}
        log(f"{precision}: C={c} log-loss {loss:.4f} out of fold {figures}")
    chosen = "int8"
    if "fp32" in results and (
        results["int8"]["figures"]["macro_f1_binary"]
        < results["fp32"]["figures"]["macro_f1_binary"] - INT8_TOLERANCE
    ):
        chosen = "fp32"
    x, c, logits = results[chosen]["x"], results[chosen]["c"], results[chosen]["logits"]
    losses = [
        -np.mean(np.log(_softmax(logits / t)[np.arange(len(y)), y] + 1e-12)) for t in _TEMPERATURES
    ]
    temperature = float(_TEMPERATURES[int(np.argmin(losses))])
    probs = _softmax(logits / temperature)
    problem = 1.0 - probs[:, LABELS.index("supported")]
    # Bands from real citations only (Check-COVID's claims only teach the aggregator).
    problem_at, fine_below, band_figures = band_limits(problem[citint], accurate[citint])
    np.savez(
        work_dir / f"{checkpoint.name}_calibration.npz",
        x=x,
        y=y,
        probs=probs,
        level=level,
        groups=groups,
    )
    out_of_fold = {
        lvl: scored(probs[level == lvl], [g for g, v in zip(gold, level, strict=True) if v == lvl],
                    UNDECIDED_BELOW).report(rounds=200)
        for lvl in ("pair", "document", "checkcovid")
    }  # fmt: skip
    for lvl, report in out_of_fold.items():
        log(f"out of fold, {lvl} level: " + ", ".join(
            f"{k} {report[k]}" for k in ("macro_f1_3class", "macro_f1_binary", "roc_auc",
                                         "answered", "ece_top_label")))  # fmt: skip
    log(f"bands: likely problem from {problem_at}, likely fine below {fine_below}: {band_figures}")
    final = _fit(x, y, c)
    scaler, logreg = final[0], final[1]
    target = target_dir or MODELS_DIR
    target.mkdir(parents=True, exist_ok=True)
    shipped = target / DEFAULT_MODEL_PATH.name
    shutil.copyfile(int8 if chosen == "int8" else fp32, shipped)
    shutil.copyfile(tokenizer, target / tokenizer.name)
    model = ReadingJudgeModel(
        format_version=MODEL_FORMAT_VERSION,
        labels=[LABELS[int(k)] for k in logreg.classes_],
        feature_names=list(AGGREGATE_FEATURES),
        mean=[float(v) for v in scaler.mean_],
        scale=[float(v) for v in scaler.scale_],
        weights=[[round(float(w), 6) for w in row] for row in logreg.coef_],
        bias=[round(float(b), 6) for b in logreg.intercept_],
        temperature=round(temperature, 4),
        undecided_below=UNDECIDED_BELOW,
        bands=BandLimits(problem_at=problem_at, fine_below=fine_below),
        cross_encoder_sha256=hashlib.sha256(shipped.read_bytes()).hexdigest(),
        training={
            "seed": seed,
            "data": "Citation-Integrity train: reader on the citing papers outside the "
            "calibration part; aggregator, temperature and bands on the calibration part",
            "calibration_citations": int((level == "pair").sum()),
            "calibration_papers": len({g for g in groups.tolist() if g.startswith("citint")}),
            "checkcovid_cases": int((~citint).sum()),
            "cross_encoder_precision": chosen,
            "checkpoint": checkpoint.name,
            "out_of_fold_by_precision": {k: v["figures"] for k, v in results.items()},
            "C": c,
            "out_of_fold": out_of_fold,
            "bands": band_figures,
            "band_rule": {
                "problem_precision": PROBLEM_PRECISION,
                "fine_precision": FINE_PRECISION,
                "min_cases": MIN_BAND_CASES,
            },
            "trained_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "python": platform.python_version(),
        },
    )
    save_reading_model(model, target / "reading_judge.json")
    log(f"wrote {target / 'reading_judge.json'} and {shipped}")
    return {"out_of_fold": out_of_fold, "bands": band_figures}
