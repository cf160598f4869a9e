"""Calibrate the reading judge on the held-out quarter of Check-COVID train (never on dev).

1. Export the fine-tuned cross-encoder to ONNX fp32 and int8.
2. Held-out examples, as the judge meets them:
   * document level: each unique (claim, abstract) pair of the held-out abstracts, a seeded third
     cited to a topical neighbour instead (-> unsupported), exactly as bench-accuracy builds its
     cases; the judge sees the cited abstract's ``TOP_SENTENCES`` sentences closest to the claim
     (embedding similarity, the retriever's sentence ranking; no title line);
   * evidence level: each held-out row against its gold evidence sentences.
3. The aggregator (``reading.AGGREGATE_FEATURES`` -> 3 labels): logistic regression, C chosen by
   out-of-fold log-loss (folds grouped by abstract), then a temperature on the out-of-fold logits.
4. Abstention thresholds per label, chosen on the out-of-fold document-level probabilities:
   maximising macro-F1 with needs_review counted wrong, among the thresholds whose definite
   verdicts reach ``PRECISION_FLOOR`` per label (a label that cannot is never given).
5. int8 is shipped if its out-of-fold macro-F1 is within ``INT8_TOLERANCE`` of fp32.
Writes the aggregator to the judge package (models/reading_judge.json) with every figure.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import itertools
import platform
import random
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Final

import numpy as np

from bench.train_judge.export import copy_tokenizer, export_onnx, quantise_int8

LABELS: Final = ("supported", "unsupported", "contradicted")
TOP_SENTENCES: Final = 5
FOLDS: Final = 5
C_GRID: Final = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0)
# The precision a definite label must reach on held-out data: the product's trust bar (a wrong
# "supported" is worse than no answer).
PRECISION_FLOOR: Final = {"supported": 0.85, "contradicted": 0.8, "unsupported": 0.7}
# A precision measured on fewer predictions than this is not trusted to meet its floor.
MIN_SAID: Final = 5
# Threshold of a label that is never given.
NEVER: Final = 1.01
INT8_TOLERANCE: Final = 0.01
THRESHOLD_GRID: Final = np.round(np.arange(0.34, 0.96, 0.02), 2)
_TEMPERATURES: Final = np.exp(np.linspace(np.log(0.25), np.log(8.0), 200))


def _softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    return exp / exp.sum(axis=1, keepdims=True)


def held_out_examples(data: Path, held: set[str], seed: int):
    """(claim, passages, gold, level, group) for the held-out abstracts."""
    from bench.accuracy.dataset import build_claims
    from citeproof.contracts.judging import Passage
    from citeproof.devkit.checkcovid import evidence_examples, load_claims, load_corpus
    from citeproof.devkit.minilm import CachedEmbedder, embed_texts

    rows = [
        r
        for r in load_claims(data / "checkcovid" / "covidCheck_train_composed+extracted.json")
        if r.cord_id in held
    ]
    corpus = load_corpus(data / "checkcovid" / "corpus.json")
    embed = CachedEmbedder(embed_texts)
    examples = []
    for case in build_claims(rows, corpus, seed=seed):
        sentences = corpus[case.cited_cord_id].abstract
        vectors = embed([case.claim, *sentences])
        scores = vectors[1:] @ vectors[0]
        order = np.argsort(-scores)[:TOP_SENTENCES]
        passages = [
            Passage(rank=rank, text=sentences[i], page=1, vector_score=float(scores[i]))
            for rank, i in enumerate(order, start=1)
        ]
        examples.append((case.claim, passages, case.gold, "document", case.own_cord_id))
    for example in evidence_examples(rows, corpus):
        examples.append((example.claim, example.passages, example.label, "evidence", example.group))
    return examples


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


def decide(probs: np.ndarray, thresholds: dict[str, float]) -> np.ndarray:
    """Label index per row, or -1 (needs_review) where the top label misses its threshold."""
    top = probs.argmax(axis=1)
    floors = np.array([thresholds[label] for label in LABELS])
    return np.where(probs.max(axis=1) >= floors[top], top, -1)


def abstention_report(y: np.ndarray, predicted: np.ndarray) -> dict:
    """Precision per definite label, definite share overall and per gold class, macro-F1 with
    needs_review counted wrong."""
    report: dict = {"n": len(y)}
    f1s = []
    for i, label in enumerate(LABELS):
        said = predicted == i
        tp = int(np.sum(said & (y == i)))
        precision = tp / said.sum() if said.sum() else 0.0
        recall = tp / max(int(np.sum(y == i)), 1)
        f1s.append(2 * precision * recall / (precision + recall) if precision + recall else 0.0)
        report[label] = {
            "precision": round(float(precision), 4),
            "recall": round(float(recall), 4),
            "said": int(said.sum()),
            "definite_share_of_gold": round(float(np.mean(predicted[y == i] >= 0)), 4)
            if np.any(y == i)
            else None,
        }
    report["macro_f1"] = round(float(np.mean(f1s)), 4)
    report["definite_share"] = round(float(np.mean(predicted >= 0)), 4)
    return report


def choose_thresholds(probs: np.ndarray, y: np.ndarray) -> tuple[dict[str, float], dict]:
    """Per-label thresholds maximising macro-F1 (needs_review wrong) among those whose every
    given label reaches its precision floor on at least ``MIN_SAID`` predictions. A label whose
    floor no threshold reaches is never given (threshold above 1): the judge says needs_review
    rather than a label it cannot back. Definite shares are reported, not traded for precision."""
    best: tuple[float, dict[str, float], dict] | None = None
    grid = [*THRESHOLD_GRID, NEVER]
    for t_sup, t_uns, t_con in itertools.product(grid, repeat=3):
        thresholds = {"supported": t_sup, "unsupported": t_uns, "contradicted": t_con}
        report = abstention_report(y, decide(probs, thresholds))
        if any(
            report[label]["said"]
            and (
                report[label]["precision"] < PRECISION_FLOOR[label]
                or report[label]["said"] < MIN_SAID
            )
            for label in LABELS
        ):
            continue
        key = report["macro_f1"] + 1e-3 * report["definite_share"]
        if best is None or key > best[0]:
            best = (key, thresholds, report)
    assert best is not None  # all-NEVER always qualifies
    _, thresholds, report = best
    # A label no held-out prediction reached is written as never given, not as a threshold that
    # happened to pass unused.
    chosen = {k: float(NEVER if report[k]["said"] == 0 else v) for k, v in thresholds.items()}
    return chosen, report


def reliability_table(probs: np.ndarray, y: np.ndarray, bins: int = 5) -> list[dict]:
    confidence = probs.max(axis=1)
    correct = probs.argmax(axis=1) == y
    rows = []
    edges = np.linspace(1 / 3, 1.0, bins + 1)
    for low, high in itertools.pairwise(edges):
        inside = (confidence >= low) & (confidence <= high if high == 1.0 else confidence < high)
        if inside.any():
            rows.append(
                {
                    "confidence": f"{low:.2f}-{high:.2f}",
                    "n": int(inside.sum()),
                    "mean_confidence": round(float(confidence[inside].mean()), 3),
                    "accuracy": round(float(correct[inside].mean()), 3),
                }
            )
    return rows


def last_checkpoint(work_dir: Path) -> Path:
    """The twin-trained model if that phase ran, else the last fine-tuning epoch."""
    for prefix in ("twins", "epoch"):
        found = sorted(
            (p for p in work_dir.glob(f"{prefix}*") if p.name[len(prefix) :].isdigit()),
            key=lambda p: int(p.name[len(prefix) :]),
        )
        if found:
            return found[-1]
    raise FileNotFoundError(f"no checkpoint in {work_dir}; run --stage finetune first")


def _features(cross_encoder, examples) -> np.ndarray:
    from citeproof.judge.reading import read

    return np.array(
        [read(cross_encoder, claim, passages).features for claim, passages, *_ in examples]
    )


def calibrate(data: Path, work_dir: Path, held_out: Callable[[Path], set[str]], *, seed: int):
    from citeproof.devkit.evaluation import expected_calibration_error
    from citeproof.judge.cross_encoder import DEFAULT_MODEL_PATH, MODELS_DIR, CrossEncoder
    from citeproof.judge.reading import (
        AGGREGATE_FEATURES,
        MODEL_FORMAT_VERSION,
        ReadingJudgeModel,
        save_reading_model,
    )

    random.seed(seed)
    checkpoint = last_checkpoint(work_dir)
    fp32, int8 = work_dir / "cross_encoder_fp32.onnx", work_dir / "cross_encoder_int8.onnx"
    export_onnx(checkpoint, fp32)
    quantise_int8(fp32, int8)
    copy_tokenizer(checkpoint, work_dir)
    tokenizer = work_dir / "cross_encoder_tokenizer.json"
    held = held_out(data / "checkcovid" / "covidCheck_train_composed+extracted.json")
    examples = held_out_examples(data, held, seed)
    y = np.array([LABELS.index(e[2]) for e in examples])
    groups = np.array([e[4] for e in examples])
    document = np.array([e[3] == "document" for e in examples])

    results = {}
    for precision, path in (("fp32", fp32), ("int8", int8)):
        x = _features(CrossEncoder(path, tokenizer, threads=2), examples)
        best = None
        for c in C_GRID:
            logits = out_of_fold_logits(x, y, groups, c)
            loss = -np.mean(np.log(_softmax(logits)[np.arange(len(y)), y] + 1e-12))
            if best is None or loss < best[0]:
                best = (loss, c, logits)
        _, c, logits = best
        argmax = abstention_report(y[document], logits[document].argmax(axis=1))["macro_f1"]
        results[precision] = {"x": x, "c": c, "logits": logits, "argmax_f1": argmax}
        print(f"{precision}: C={c} out-of-fold document-level argmax macro-F1 {argmax}")
    chosen = "int8"
    if results["int8"]["argmax_f1"] < results["fp32"]["argmax_f1"] - INT8_TOLERANCE:
        chosen = "fp32"
    x, c, logits = results[chosen]["x"], results[chosen]["c"], results[chosen]["logits"]
    losses = [
        -np.mean(np.log(_softmax(logits / t)[np.arange(len(y)), y] + 1e-12)) for t in _TEMPERATURES
    ]
    temperature = float(_TEMPERATURES[int(np.argmin(losses))])
    probs = _softmax(logits / temperature)
    np.savez(work_dir / "calibration.npz", x=x, y=y, probs=probs, document=document)
    thresholds, chosen_report = choose_thresholds(probs[document], y[document])
    print(f"thresholds {thresholds}: {chosen_report}")
    final = _fit(x, y, c)
    scaler, logreg = final[0], final[1]
    shipped = MODELS_DIR / DEFAULT_MODEL_PATH.name
    shutil.copyfile(int8 if chosen == "int8" else fp32, shipped)
    shutil.copyfile(tokenizer, MODELS_DIR / tokenizer.name)
    model = ReadingJudgeModel(
        format_version=MODEL_FORMAT_VERSION,
        labels=[LABELS[int(k)] for k in logreg.classes_],
        feature_names=list(AGGREGATE_FEATURES),
        mean=[float(v) for v in scaler.mean_],
        scale=[float(v) for v in scaler.scale_],
        weights=[[round(float(w), 6) for w in row] for row in logreg.coef_],
        bias=[round(float(b), 6) for b in logreg.intercept_],
        temperature=round(temperature, 4),
        thresholds=thresholds,
        cross_encoder_sha256=hashlib.sha256(shipped.read_bytes()).hexdigest(),
        training={
            "seed": seed,
            "held_out_abstracts": len(held),
            "examples": {"document": int(document.sum()), "evidence": int((~document).sum())},
            "cross_encoder_precision": chosen,
            "argmax_macro_f1_out_of_fold": {k: v["argmax_f1"] for k, v in results.items()},
            "C": c,
            "out_of_fold_document_level_with_abstention": chosen_report,
            "out_of_fold_evidence_level_with_abstention": abstention_report(
                y[~document], decide(probs[~document], thresholds)
            ),
            "reliability_out_of_fold": reliability_table(probs, y),
            "ece_before_temperature": expected_calibration_error(_softmax(logits), y),
            "ece_after_temperature": expected_calibration_error(probs, y),
            "trained_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "python": platform.python_version(),
        },
    )
    save_reading_model(model, MODELS_DIR / "reading_judge.json")
    print(f"wrote {MODELS_DIR / 'reading_judge.json'} and {shipped}")
