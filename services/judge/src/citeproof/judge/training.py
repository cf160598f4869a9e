"""Train the local judge on Check-COVID train and write its model file.

Run through ``bench/train_local_judge.py`` (``make train-judge``). scikit-learn is needed here only.

1. Examples: every train row at evidence level (3 labels) plus the document-level situation the
   pipeline creates (each unique claim against the top passages of its own abstract, and a
   fixed-seed share of claims against an abstract that is not theirs -> ``unsupported``).
2. Model selection: 5-fold cross-validation grouped by abstract (a claim and its edited twin never
   sit on both sides of a fold); the regularisation with the best out-of-fold macro-F1 wins.
3. Calibration: a temperature fitted to the out-of-fold logits (minimum negative log-likelihood), so
   a confidence of 0.7 is right about 70% of the time on data the model did not see.
4. The final model is refitted on all examples and saved with its out-of-fold metrics.
"""

from __future__ import annotations

import datetime as dt
import platform
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import numpy as np

from citeproof.contracts.judging import CONTRADICTED, SUPPORTED, UNSUPPORTED
from citeproof.judge.checkcovid import (
    Example,
    abstract_chunks,
    document_examples,
    evidence_examples,
    files_sha256,
    load_claims,
    load_corpus,
)
from citeproof.judge.embedding import EMBEDDING_MODEL_NAME, CachedEmbedder, embed_texts
from citeproof.judge.features import FEATURE_NAMES, evidence_sentences, texts_to_embed
from citeproof.judge.local import featurise
from citeproof.judge.local_model import MODEL_FORMAT_VERSION, LocalJudgeModel
from citeproof.judge.metrics_eval import classification_report, expected_calibration_error

LABELS: Final = (SUPPORTED, UNSUPPORTED, CONTRADICTED)
SEED: Final = 20260529
FOLDS: Final = 5
C_GRID: Final = (0.03, 0.1, 0.3, 1.0, 3.0)
# Share of the unique train claims that also appear as a mis-citation.
TRAIN_MISCITE_SHARE: Final = 0.5
# Of those, the share citing the topically closest other abstract (the rest: a random one).
TRAIN_NEAREST_SHARE: Final = 0.25
# Abstain below this calibrated top probability: calibrated, it means "the label we would give is
# right less than 40% of the time" -- barely better than the 33% of a blind guess among three.
ABSTAIN_BELOW: Final = 0.40
_TEMPERATURES: Final = np.exp(np.linspace(np.log(0.25), np.log(8.0), 200))


def build_examples(claims_path: Path, corpus_path: Path, embed: CachedEmbedder) -> list[Example]:
    rows = load_claims(claims_path)
    corpus = load_corpus(corpus_path)
    embed.warm(
        [row.claim.strip() for row in rows]
        + [chunk for abstract in corpus.values() for chunk in abstract_chunks(abstract)]
    )
    return evidence_examples(rows, corpus) + document_examples(
        rows,
        corpus,
        embed,
        seed=SEED,
        miscite_share=TRAIN_MISCITE_SHARE,
        keep_true_pairs=True,
        nearest_share=TRAIN_NEAREST_SHARE,
    )


def feature_matrix(examples: Sequence[Example], embed: CachedEmbedder) -> np.ndarray:
    # One bulk embedding pass first: per-example calls are dominated by per-call overhead.
    texts = []
    for example in examples:
        sentences = [s.text for s in evidence_sentences(example.passages)]
        if sentences:
            texts += texts_to_embed(example.claim, sentences)
    embed.warm(texts)
    return np.array([featurise(e.claim, e.passages, embed)[0].values for e in examples])


def _softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    return exp / exp.sum(axis=1, keepdims=True)


def fit_temperature(logits: np.ndarray, y: np.ndarray) -> float:
    """The temperature minimising the negative log-likelihood of held-out logits."""
    losses = [
        -np.mean(np.log(_softmax(logits / t)[np.arange(len(y)), y] + 1e-12)) for t in _TEMPERATURES
    ]
    return float(_TEMPERATURES[int(np.argmin(losses))])


def _pipeline(c: float):
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=5000))


def out_of_fold_logits(x: np.ndarray, y: np.ndarray, groups: np.ndarray, c: float) -> np.ndarray:
    from sklearn.model_selection import GroupKFold

    logits = np.zeros((len(y), len(LABELS)))
    for train_idx, test_idx in GroupKFold(n_splits=FOLDS).split(x, y, groups):
        pipe = _pipeline(c).fit(x[train_idx], y[train_idx])
        logits[test_idx] = pipe.decision_function(x[test_idx])
    return logits


def _abstaining(probs: np.ndarray, threshold: float) -> np.ndarray:
    predicted = probs.argmax(axis=1)
    return np.where(probs.max(axis=1) < threshold, LABELS.index(UNSUPPORTED), predicted)


def train(
    claims_path: Path, corpus_path: Path, *, embed: CachedEmbedder | None = None, log=print
) -> LocalJudgeModel:
    """Train, select, calibrate and return the model (``embed`` may come pre-warmed)."""
    embed = embed or CachedEmbedder(embed_texts)
    examples = build_examples(claims_path, corpus_path, embed)
    log(f"{len(examples)} examples; computing features")
    x = feature_matrix(examples, embed)
    y = np.array([LABELS.index(e.label) for e in examples])
    groups = np.array([e.group for e in examples])
    levels = np.array([e.level for e in examples])

    best_c, best_f1, best_logits = C_GRID[0], -1.0, None
    for c in C_GRID:
        logits = out_of_fold_logits(x, y, groups, c)
        f1 = classification_report(y, logits.argmax(axis=1), LABELS)["macro_f1"]
        log(f"C={c}: out-of-fold macro-F1 {f1:.3f}")
        if f1 > best_f1:
            best_c, best_f1, best_logits = c, f1, logits
    assert best_logits is not None
    temperature = fit_temperature(best_logits, y)
    raw_probs = _softmax(best_logits)
    probs = _softmax(best_logits / temperature)
    predicted = _abstaining(probs, ABSTAIN_BELOW)

    metrics: dict[str, object] = {
        "C": best_c,
        "temperature": temperature,
        "abstain_below": ABSTAIN_BELOW,
        "out_of_fold": {
            "all": classification_report(y, probs.argmax(axis=1), LABELS),
            "all_with_abstention": classification_report(y, predicted, LABELS),
            "evidence_level": classification_report(
                y[levels == "evidence"], probs[levels == "evidence"].argmax(axis=1), LABELS
            ),
            "document_level": classification_report(
                y[levels == "document"], probs[levels == "document"].argmax(axis=1), LABELS
            ),
            "ece_before_calibration": expected_calibration_error(raw_probs, y),
            "ece_after_calibration": expected_calibration_error(probs, y),
            "abstention_rate": float(np.mean(probs.max(axis=1) < ABSTAIN_BELOW)),
        },
    }
    final = _pipeline(best_c).fit(x, y)
    scaler, logreg = final[0], final[1]
    import sklearn

    classes = [LABELS[int(k)] for k in logreg.classes_]
    return LocalJudgeModel(
        format_version=MODEL_FORMAT_VERSION,
        labels=classes,
        feature_names=list(FEATURE_NAMES),
        mean=[float(v) for v in scaler.mean_],
        scale=[float(v) for v in scaler.scale_],
        weights=[[round(float(w), 6) for w in row] for row in logreg.coef_],
        bias=[round(float(b), 6) for b in logreg.intercept_],
        temperature=round(temperature, 4),
        abstain_below=ABSTAIN_BELOW,
        embedding_model=EMBEDDING_MODEL_NAME,
        training={
            "data": [claims_path.name, corpus_path.name],
            "data_sha256": files_sha256(claims_path, corpus_path),
            "seed": SEED,
            "examples": {
                "evidence_level": int(np.sum(levels == "evidence")),
                "document_level": int(np.sum(levels == "document")),
                "per_label": {label: int(np.sum(y == i)) for i, label in enumerate(LABELS)},
            },
            "metrics": metrics,
            "trained_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "sklearn": sklearn.__version__,
            "python": platform.python_version(),
        },
    )
