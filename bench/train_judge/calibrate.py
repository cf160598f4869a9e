"""Calibrate the reading judge on the calibration part of Citation-Integrity train (never on dev).

1. Export the fine-tuned cross-encoder to ONNX fp32 and int8 (or take the one the package ships).
2. Calibration examples: every citation of the citing papers the reader never saw
   (``citint.calibration_groups``), as the judge meets them:
   * pair level: the citation against all sentences of its cited document (the judge protocol);
   * document level: the document rendered into a longer source and the passages closest to the
     claim handed over (``devkit.citint.document_requests``), as the pipeline hands them over;
   and Check-COVID's held-out training abstracts at document level with a third mis-cited
   (``checkcovid_requests``), which teach the aggregator what a wrong source looks like and
   what a minimally edited claim looks like (band limits come from the Citation-Integrity
   examples alone). Each is read by both readers: the windows reader and the sentence reader.
3. The aggregator (``reading.AGGREGATE_FEATURES`` -> 3 labels): logistic regression over both
   readers' features, with its C and the weight of a Check-COVID example
   (``CHECKCOVID_WEIGHTS``) chosen together out of fold (5 folds grouped by citing paper or
   abstract) by the decision objective below; a temperature and a shift per label fitted on the
   out-of-fold logits (``fitted_calibration``).
4. The decision (``decision_weights``): per-label weights on the calibrated probabilities that
   maximise the mean out-of-fold 3-class macro-F1 over the three situations (pair, document,
   Check-COVID) — the probabilities stay calibrated, only the label chosen from them moves.
   Undecided (``undecided_limit``) below the highest limit on the decided label's weighted share
   (at most ``UNDECIDED_BELOW``) that costs the objective at most ``UNDECIDED_COST``.
5. Risk bands, on the out-of-fold problem probabilities: ``likely_problem`` from the lowest
   threshold whose flagged citations are not accurate at least ``PROBLEM_PRECISION`` of the time
   (most recall at that precision); ``likely_fine`` below the highest threshold whose citations
   are accurate at least ``FINE_PRECISION`` of the time.
6. int8 is shipped unless fp32's objective is higher by more than ``INT8_TOLERANCE``.
Writes the aggregator to the judge package (models/reading_judge.json) with every figure.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import itertools
import platform
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import numpy as np

from bench.accuracy.citint_score import Scored, roc_auc
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
# Natural-log decision weights of `unsupported` and `contradicted` tried (`supported`'s is 0).
DECISION_LOG_WEIGHTS: Final = np.round(np.arange(-1.0, 2.01, 0.1), 2)
# Weight of a Check-COVID example against a Citation-Integrity one when fitting the aggregator
# (chosen out of fold with C): there are 181 of them beside 1,382 real citations, and they
# carry what the sentence reader sees best (minimal edits, wrong sources).
CHECKCOVID_WEIGHTS: Final = (1.0, 3.0, 6.0)
# A fit may give up at most this much of the best out-of-fold ROC-AUC on real citations (pair
# and document level) for the decision objective: Check-COVID is not bought with the ranking
# the bands and the reviewer's order rest on.
RANKING_TOLERANCE: Final = 0.01
# Limits on the decided label's weighted share tried for needs_review, highest first (1/3 is
# the least a label can have of three), and what withholding may cost the objective.
UNDECIDED_GRID: Final = np.round(np.arange(UNDECIDED_BELOW, 0.339, -0.01), 2)
UNDECIDED_COST: Final = 0.01


def _softmax(logits: np.ndarray) -> np.ndarray:
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    return exp / exp.sum(axis=1, keepdims=True)


def _fit(x: np.ndarray, y: np.ndarray, c: float, sample_weight: np.ndarray | None = None):
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=5000)).fit(
        x, y, logisticregression__sample_weight=sample_weight
    )


def out_of_fold_logits(x, y, groups, c, sample_weight: np.ndarray | None = None) -> np.ndarray:
    from sklearn.model_selection import GroupKFold

    weight = np.ones(len(y)) if sample_weight is None else sample_weight
    logits = np.zeros((len(y), len(LABELS)))
    for train_idx, test_idx in GroupKFold(n_splits=FOLDS).split(x, y, groups):
        logits[test_idx] = _fit(x[train_idx], y[train_idx], c, weight[train_idx]).decision_function(
            x[test_idx]
        )
    return logits


def fitted_temperature(logits: np.ndarray, y: np.ndarray) -> float:
    """The temperature minimising the log-loss of out-of-fold logits."""
    losses = [
        -np.mean(np.log(_softmax(logits / t)[np.arange(len(y)), y] + 1e-12)) for t in _TEMPERATURES
    ]
    return float(_TEMPERATURES[int(np.argmin(losses))])


def fitted_calibration(logits: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
    """A temperature and a shift per label (the first label's fixed at 0) minimising the
    log-loss of out-of-fold logits: calibrated = softmax(logits / T + shift). The shift corrects
    a label the aggregator over- or under-states as a whole (a temperature alone cannot), which
    matters once the decision weights pick less probable labels. Starts from the temperature
    alone (``fitted_temperature``)."""
    from scipy.optimize import minimize

    def loss(v: np.ndarray) -> float:
        z = logits / np.exp(v[0]) + np.concatenate(([0.0], v[1:]))
        return float(-np.mean(np.log(_softmax(z)[np.arange(len(y)), y] + 1e-12)))

    start = np.zeros(len(LABELS))
    start[0] = np.log(fitted_temperature(logits, y))
    found = minimize(loss, start, method="Nelder-Mead", options={"xatol": 1e-4, "fatol": 1e-7})
    return float(np.exp(found.x[0])), np.concatenate(([0.0], found.x[1:]))


def calibrated(logits: np.ndarray, temperature: float, shift: np.ndarray) -> np.ndarray:
    return _softmax(logits / temperature + shift)


def decided_macro_f1(
    probs: np.ndarray, y: np.ndarray, weights: Sequence[float], undecided_below: float
) -> float:
    """3-class macro-F1 of the decisions ``scored`` makes, needs_review counted wrong (fast
    path for the grids below)."""
    weighted = probs * np.asarray(weights)
    shares = weighted / weighted.sum(axis=1, keepdims=True)
    decided = np.where(shares.max(axis=1) >= undecided_below, shares.argmax(axis=1), -1)
    f1s = []
    for label in range(len(LABELS)):
        tp = np.sum((decided == label) & (y == label))
        said, actual = np.sum(decided == label), np.sum(y == label)
        precision, recall = tp / max(said, 1), tp / max(actual, 1)
        f1s.append(2 * precision * recall / (precision + recall) if tp else 0.0)
    return float(np.mean(f1s))


def band_limits(problem: np.ndarray, accurate: np.ndarray) -> tuple[float, float, dict]:
    """(problem_at, fine_below, figures) on out-of-fold problem probabilities."""
    problem_at = 1.0
    for t in THRESHOLD_GRID:
        flagged = problem >= t
        if flagged.sum() >= MIN_BAND_CASES and np.mean(~accurate[flagged]) >= PROBLEM_PRECISION:
            problem_at = float(t)
            break
    precision_met = problem_at < 1.0
    if not precision_met:
        # No limit reaches the precision on enough cases: the most precise limit that flags
        # enough of them (the lowest on a tie), rather than a band that never flags anything;
        # the figures below and the model card say what precision it has.
        candidates = [
            (float(np.mean(~accurate[problem >= t])), -float(t))
            for t in THRESHOLD_GRID
            if (problem >= t).sum() >= MIN_BAND_CASES
        ]
        if candidates:
            problem_at = -max(candidates)[1]
    fine_below = 0.0
    for t in THRESHOLD_GRID:
        cleared = problem < t
        if cleared.sum() >= MIN_BAND_CASES and np.mean(accurate[cleared]) >= FINE_PRECISION:
            fine_below = float(t)
    fine_below = min(fine_below, problem_at)
    flagged, cleared = problem >= problem_at, problem < fine_below
    figures = {
        "likely_problem": {
            "precision_target_met": precision_met,
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


def scored(
    probs: np.ndarray,
    gold: list[str],
    undecided_below: float,
    weights: Sequence[float] | None = None,
) -> Scored:
    """The judge's verdicts from probabilities, as ``local.decide`` makes them: the label with
    the largest weighted probability (``weights`` per label, none = the most probable), undecided
    when its share of the weighted probabilities is below ``undecided_below``; the stated
    probability is the decided label's calibrated one (``ece_stated_label``; ``ece_top_label``
    is the most probable label's)."""
    weighted = probs * (np.ones(len(LABELS)) if weights is None else np.asarray(weights))
    shares = weighted / weighted.sum(axis=1, keepdims=True)
    decided = shares.argmax(axis=1)
    labels = [
        LABELS[d] if shares[i, d] >= undecided_below else "needs_review"
        for i, d in enumerate(decided)
    ]
    top = probs.argmax(axis=1)
    return Scored(
        gold,
        labels,
        probs[:, LABELS.index("supported")],
        [LABELS[t] for t in top],
        probs.max(axis=1),
        [LABELS[d] for d in decided],
        probs[np.arange(len(probs)), decided],
    )


def decision_objective(
    probs: np.ndarray,
    y: np.ndarray,
    situations: dict[str, np.ndarray],
    weights: Sequence[float],
    undecided_below: float,
) -> float:
    """The mean 3-class macro-F1 (needs_review counted wrong) over ``situations`` (masks of the
    calibration examples: real citations at pair and at document level, Check-COVID's held
    claims): each situation counts alike, whatever its size."""
    scores = [
        decided_macro_f1(probs[m], y[m], weights, undecided_below) for m in situations.values()
    ]
    return float(np.mean(scores))


def decision_weights(
    probs: np.ndarray, y: np.ndarray, situations: dict[str, np.ndarray]
) -> tuple[list[float], float]:
    """The per-label decision weights (``ReadingJudgeModel.decision_weights``; `supported`'s
    fixed at 1) that maximise ``decision_objective`` on out-of-fold probabilities, every
    verdict decided; on a tie, the weights nearest 1. Returns them and the objective."""
    best: tuple[float, float, tuple[float, ...]] | None = None
    for log_weights in itertools.product(DECISION_LOG_WEIGHTS, repeat=len(LABELS) - 1):
        weights = tuple(float(w) for w in np.exp((0.0, *log_weights)))
        score = round(decision_objective(probs, y, situations, weights, 0.0), 4)
        key = (score, -round(float(np.abs(log_weights).sum()), 4), weights)
        if best is None or key[:2] > best[:2]:
            best = key
    assert best is not None
    return [round(w, 4) for w in best[2]], best[0]


def undecided_limit(
    probs: np.ndarray, y: np.ndarray, situations: dict[str, np.ndarray], weights: Sequence[float]
) -> tuple[float, float]:
    """Where the judge says needs_review: the highest limit on the decided label's weighted
    share (at most ``UNDECIDED_BELOW``, no label more likely than not) whose undecided verdicts
    cost the objective at most ``UNDECIDED_COST`` against deciding every one: only verdicts
    about as often wrong as a guess are withheld. Returns the limit and the objective there."""
    decided_all = decision_objective(probs, y, situations, weights, 0.0)
    for limit in UNDECIDED_GRID:
        score = decision_objective(probs, y, situations, weights, float(limit))
        if score >= decided_all - UNDECIDED_COST:
            return float(limit), round(score, 4)
    return 0.0, round(decided_all, 4)


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


def _features(cross_encoder, sentence_reader, requests) -> np.ndarray:
    from citeproof.judge.reading import read

    rows = []
    for request in requests:
        reading = read(
            cross_encoder,
            sentence_reader,
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


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def calibrate(
    data: Path,
    work_dir: Path,
    checkcovid_held: set[str],
    *,
    seed: int,
    threads: int = 2,
    target_dir: Path | None = None,
    precisions: tuple[str, ...] = ("int8", "fp32"),
    shipped_reader: bool = False,
    log=print,
) -> dict:
    """``target_dir``: where the shipped files go (default: the judge package);
    ``precisions``: which exports to measure (int8 is always shipped unless fp32 measures
    clearly better); ``shipped_reader``: calibrate over the reader the package ships (its int8
    graph) instead of the last fine-tuned checkpoint in ``work_dir``. The second reader is
    always the one the package ships (``cross_encoder.SENTENCE_READER_PATH``)."""
    from citeproof.judge.bands import BandLimits
    from citeproof.judge.cross_encoder import (
        DEFAULT_MODEL_PATH,
        DEFAULT_TOKENIZER_PATH,
        MODELS_DIR,
        SENTENCE_READER_PATH,
        CrossEncoder,
        sentence_reader,
    )
    from citeproof.judge.reading import (
        AGGREGATE_FEATURES,
        MODEL_FORMAT_VERSION,
        ReadingJudgeModel,
        save_reading_model,
    )

    work_dir.mkdir(parents=True, exist_ok=True)
    if shipped_reader:
        exports = {"int8": DEFAULT_MODEL_PATH}
        tokenizer = DEFAULT_TOKENIZER_PATH
        # Features are kept per reader graph (a rerun of this stage reuses them).
        tag = f"shipped-{_sha256(DEFAULT_MODEL_PATH)[:10]}"
    else:
        checkpoint = last_checkpoint(work_dir)
        fp32 = work_dir / f"{checkpoint.name}_fp32.onnx"
        int8 = work_dir / f"{checkpoint.name}_int8.onnx"
        if not int8.exists():
            export_onnx(checkpoint, fp32)
            quantise_int8(fp32, int8)
        copy_tokenizer(checkpoint, work_dir)
        exports = {"int8": int8, "fp32": fp32}
        tokenizer = work_dir / "cross_encoder_tokenizer.json"
        tag = checkpoint.name
    tag += f"+sentences-{_sha256(SENTENCE_READER_PATH)[:10]}"
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
    sentences = sentence_reader(threads=threads)
    situations = {lvl: level == lvl for lvl in ("pair", "document", "checkcovid")}
    results = {}
    for precision, path in exports.items():
        if precision not in precisions:
            continue
        cache = work_dir / f"{tag}_features_{precision}.npy"
        if cache.exists() and len(np.load(cache)) == len(requests):
            x = np.load(cache)
        else:
            x = _features(CrossEncoder(path, tokenizer, threads=threads), sentences, requests)
            np.save(cache, x)
        # C and the Check-COVID weight together, by the decision objective out of fold (each
        # with its own temperature and best decision weights, every verdict decided), among
        # the fits that rank real citations within RANKING_TOLERANCE of the best one.
        fits = []
        for c, checkcovid_weight in itertools.product(C_GRID, CHECKCOVID_WEIGHTS):
            sample_weight = np.where(citint, 1.0, checkcovid_weight)
            logits = out_of_fold_logits(x, y, groups, c, sample_weight)
            temperature, shift = fitted_calibration(logits, y)
            probs = calibrated(logits, temperature, shift)
            weights, objective = decision_weights(probs, y, situations)
            ranking = float(
                np.mean([roc_auc(y[m] == 0, probs[m, 0]) for m in (situations["pair"],
                                                                  situations["document"])])
            )  # fmt: skip
            log(f"{precision}: C={c} Check-COVID weight {checkcovid_weight}: objective "
                f"{objective} with decision weights {weights}; real citations ROC-AUC "
                f"{ranking:.4f}")  # fmt: skip
            fits.append({
                "c": c, "checkcovid_weight": checkcovid_weight, "logits": logits,
                "temperature": temperature, "shift": shift, "probs": probs, "weights": weights,
                "objective": objective, "ranking": ranking,
            })  # fmt: skip
        top_ranking = max(f["ranking"] for f in fits)
        best = max(
            (f for f in fits if f["ranking"] >= top_ranking - RANKING_TOLERANCE),
            key=lambda f: f["objective"],
        )
        results[precision] = {"x": x, **best}
    chosen = "int8"
    if "fp32" in results and (
        results["int8"]["objective"] < results["fp32"]["objective"] - INT8_TOLERANCE
    ):
        chosen = "fp32"
    best = results[chosen]
    x, c, probs, weights = best["x"], best["c"], best["probs"], best["weights"]
    checkcovid_weight, temperature = best["checkcovid_weight"], round(best["temperature"], 4)
    shift = best["shift"]
    undecided_below, undecided_objective = undecided_limit(probs, y, situations, weights)
    decision_figures = {
        "objective": "mean out-of-fold 3-class macro-F1 (needs_review wrong) over "
        + ", ".join(situations),
        "every_verdict_decided": best["objective"],
        "with_needs_review": undecided_objective,
        "undecided_cost_allowed": UNDECIDED_COST,
        "checkcovid_weight": checkcovid_weight,
        "calibration_shift": [round(float(v), 4) for v in shift],
        "real_citations_roc_auc": round(best["ranking"], 4),
        "ranking_tolerance": RANKING_TOLERANCE,
        "objective_by_precision": {k: v["objective"] for k, v in results.items()},
    }
    log(f"decision weights {dict(zip(LABELS, weights, strict=True))}, undecided below "
        f"{undecided_below}: {decision_figures}")  # fmt: skip
    problem = 1.0 - probs[:, LABELS.index("supported")]
    # Bands from real citations only (Check-COVID's claims only teach the aggregator).
    problem_at, fine_below, band_figures = band_limits(problem[citint], accurate[citint])
    np.savez(work_dir / f"{tag}_calibration.npz", x=x, y=y, probs=probs, level=level, groups=groups)
    out_of_fold = {
        lvl: scored(probs[level == lvl], [g for g, v in zip(gold, level, strict=True) if v == lvl],
                    undecided_below, weights).report(rounds=200)
        for lvl in ("pair", "document", "checkcovid")
    }  # fmt: skip
    for lvl, report in out_of_fold.items():
        shown = ("macro_f1_3class", "macro_f1_binary", "roc_auc", "answered", "ece_top_label",
                 "ece_stated_label")  # fmt: skip
        log(f"out of fold, {lvl} level: " + ", ".join(f"{k} {report[k]}" for k in shown))
    log(f"bands: likely problem from {problem_at}, likely fine below {fine_below}: {band_figures}")
    final = _fit(x, y, c, np.where(citint, 1.0, checkcovid_weight))
    scaler, logreg = final[0], final[1]
    target = target_dir or MODELS_DIR
    target.mkdir(parents=True, exist_ok=True)
    shipped = target / DEFAULT_MODEL_PATH.name
    reader = exports[chosen]
    if reader.resolve() != shipped.resolve():
        shutil.copyfile(reader, shipped)
    if tokenizer.resolve() != (target / DEFAULT_TOKENIZER_PATH.name).resolve():
        shutil.copyfile(tokenizer, target / DEFAULT_TOKENIZER_PATH.name)
    if SENTENCE_READER_PATH.resolve() != (target / SENTENCE_READER_PATH.name).resolve():
        shutil.copyfile(SENTENCE_READER_PATH, target / SENTENCE_READER_PATH.name)
    model = ReadingJudgeModel(
        format_version=MODEL_FORMAT_VERSION,
        labels=[LABELS[int(k)] for k in logreg.classes_],
        feature_names=list(AGGREGATE_FEATURES),
        mean=[float(v) for v in scaler.mean_],
        scale=[float(v) for v in scaler.scale_],
        weights=[[round(float(w), 6) for w in row] for row in logreg.coef_],
        # The calibration's shift per label folded into the bias: softmax((Wx + b) / T + s)
        # = softmax((Wx + b + T s) / T).
        bias=[
            round(float(b + temperature * shift[int(k)]), 6)
            for b, k in zip(logreg.intercept_, logreg.classes_, strict=True)
        ],
        temperature=temperature,
        decision_weights=[weights[LABELS.index(LABELS[int(k)])] for k in logreg.classes_],
        undecided_below=undecided_below,
        bands=BandLimits(problem_at=problem_at, fine_below=fine_below),
        cross_encoder_sha256=_sha256(shipped),
        sentence_reader_sha256=_sha256(target / SENTENCE_READER_PATH.name),
        training={
            "seed": seed,
            "data": "Citation-Integrity train: reader on the citing papers outside the "
            "calibration part; aggregator, temperature, decision weights and bands on the "
            "calibration part and Check-COVID's held training abstracts",
            "calibration_citations": int((level == "pair").sum()),
            "calibration_papers": len({g for g in groups.tolist() if g.startswith("citint")}),
            "checkcovid_cases": int((~citint).sum()),
            "cross_encoder_precision": chosen,
            "reader": "shipped" if shipped_reader else tag.split("+")[0],
            "C": c,
            "decision": decision_figures,
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
    return {"out_of_fold": out_of_fold, "bands": band_figures, "decision": decision_figures}
