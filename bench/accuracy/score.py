"""Map a run report's citations back to the benchmark's claims, score them, and find where the
pipeline loses what it loses.

Matching: a claim is found when one of the report's citations of the same thesis carries the
expected reference label and its claim text is (fuzzily) the claim; failing that, a citation
with the claim's text under another label (a marker linked to the wrong entry). Each report
citation is used once.

Scores use three labels (`partially_supported` counts as `supported`). ``needs_review`` (the judge
abstained) is its own confusion column and counts as a wrong prediction. Anything else, or no
citation at all, is a pipeline failure: it counts as a wrong prediction (column
``pipeline_failure`` of the confusion matrix) and separately in ``pipeline_failures``.
Precisions and macro-F1 come with 95% bootstrap intervals (resampling citations): dev has ~140
citations, so a precision over 40 predictions moves by about +-0.12.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Final

import msgspec
from rapidfuzz import fuzz

from bench.accuracy.dataset import BenchClaim, ThesisCase
from bench.accuracy.documents import source_filename
from bench.accuracy.stack import Passage
from citeproof.contracts.judging import CONTRADICTED, PARTIALLY_SUPPORTED, SUPPORTED, UNSUPPORTED
from citeproof.devkit.evaluation import classification_report
from citeproof.pipeline import NEEDS_REVIEW

# Same order as `bench.accuracy.judge`, so both confusion matrices of the result read alike.
LABELS: Final = (SUPPORTED, UNSUPPORTED, CONTRADICTED)
FAILURE: Final = "pipeline_failure"
COLUMNS: Final = (*LABELS, NEEDS_REVIEW, FAILURE)
BOOTSTRAP_SAMPLES: Final = 2000
BOOTSTRAP_SEED: Final = 7
NOT_FOUND: Final = "not_found"
# Claim text similarity (rapidfuzz ratio on normalised text, 0-100) that identifies a citation.
MATCH_SAME_LABEL: Final = 80
MATCH_OTHER_LABEL: Final = 92
# Shorter/longer claim text below this ratio is a fragment, not the claim.
MIN_LENGTH_RATIO: Final = 0.5
# A citation whose claim text was lost (e.g. just "[3].") is matched by its context instead.
MATCH_CONTEXT: Final = 90
# A gold evidence sentence counts as retrieved when it appears in a passage at least this well
# (partial ratio on normalised text: line breaks and hyphenation of the PDF text layer differ).
EVIDENCE_FOUND: Final = 90


class Outcome(msgspec.Struct, frozen=True, kw_only=True):
    """What the pipeline did with one benchmark claim."""

    claim: BenchClaim
    thesis: int
    expected_label: str
    predicted: str
    """A scored label, a non-verdict (source_missing, ...), or `not_found`."""
    citation_id: int | None = None
    reference_label: str | None = None
    linked_source: str | None = None
    """File name of the linked source, None for no link."""
    confidence: float | None = None

    @property
    def scored(self) -> str:
        label = SUPPORTED if self.predicted == PARTIALLY_SUPPORTED else self.predicted
        return label if label in (*LABELS, NEEDS_REVIEW) else FAILURE


def _normal(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def _similarity(claim: str, text: str, field: str) -> float:
    """0-100. A claim is compared with the citation's claim text, which may drop or keep a clause
    around the marker, so over the shorter of the two; but a fragment (e.g. "[3].") identifies
    nothing. Against the citation's context it must be contained in it."""
    a, b = _normal(claim), _normal(text)
    if not a or not b:
        return 0.0
    if field == "claim" and min(len(a), len(b)) < MIN_LENGTH_RATIO * max(len(a), len(b)):
        return 0.0
    return fuzz.partial_ratio(a, b)


def match_report(case: ThesisCase, report: dict) -> list[Outcome]:
    citations = list(report.get("citations", []))
    used: set[int] = set()
    outcomes = []
    for claim in case.claims:
        expected = case.label_of(claim.cited_cord_id)
        best, best_score = None, 0.0
        passes = (
            (True, "claim", MATCH_SAME_LABEL),
            (False, "claim", MATCH_OTHER_LABEL),
            (True, "context", MATCH_CONTEXT),
        )
        for same_label, field, threshold in passes:
            for citation in citations:
                if citation["citation_id"] in used:
                    continue
                if same_label != (citation["reference"]["label"] == expected):
                    continue
                similarity = _similarity(claim.claim, citation[field] or "", field)
                if similarity >= threshold and similarity > best_score:
                    best, best_score = citation, similarity
            if best is not None:
                break
        if best is None:
            outcomes.append(
                Outcome(
                    claim=claim, thesis=case.number, expected_label=expected, predicted=NOT_FOUND
                )
            )
            continue
        used.add(best["citation_id"])
        verdict = best.get("verdict") or {}
        source = best.get("source")
        outcomes.append(
            Outcome(
                claim=claim,
                thesis=case.number,
                expected_label=expected,
                predicted=verdict.get("label", "no_verdict"),
                citation_id=best["citation_id"],
                reference_label=best["reference"]["label"],
                linked_source=source["filename"] if source else None,
                confidence=verdict.get("confidence"),
            )
        )
    return outcomes


def _point_scores(golds: Sequence[str], predictions: Sequence[str]) -> dict[str, float]:
    """Macro-F1 (needs_review and failures wrong) and the precision of each definite label."""
    f1s, values = [], {}
    for label in LABELS:
        said = sum(p == label for p in predictions)
        right = sum(p == label and g == label for g, p in zip(golds, predictions, strict=True))
        gold = sum(g == label for g in golds)
        precision = right / said if said else 0.0
        recall = right / gold if gold else 0.0
        f1s.append(2 * precision * recall / (precision + recall) if precision + recall else 0.0)
        values[f"precision_{label}"] = precision
    values["macro_f1"] = sum(f1s) / len(f1s)
    return values


def bootstrap_intervals(golds: Sequence[str], predictions: Sequence[str]) -> dict[str, list]:
    """95% percentile intervals of macro-F1 and per-label precision over resampled citations."""
    rng = random.Random(BOOTSTRAP_SEED)
    n = len(golds)
    samples: dict[str, list[float]] = {}
    for _ in range(BOOTSTRAP_SAMPLES):
        picks = [rng.randrange(n) for _ in range(n)]
        point = _point_scores([golds[i] for i in picks], [predictions[i] for i in picks])
        for key, value in point.items():
            samples.setdefault(key, []).append(value)
    intervals = {}
    for key, values in samples.items():
        values.sort()
        low = values[int(0.025 * len(values))]
        high = values[min(len(values) - 1, int(0.975 * len(values)))]
        intervals[key] = [round(low, 3), round(high, 3)]
    return intervals


def score(golds: Sequence[str], predictions: Sequence[str], *, intervals: bool = False) -> dict:
    """Macro-F1 over the three labels; needs_review and failures are wrong predictions in their
    own columns. Definite = one of the three labels."""
    columns = COLUMNS
    report = classification_report(
        [columns.index(g) for g in golds], [columns.index(p) for p in predictions], columns
    )
    per_class = {label: report["per_class"][label] for label in LABELS}
    definite = [p in LABELS for p in predictions]
    result = {
        "macro_f1": round(sum(row["f1"] for row in per_class.values()) / len(LABELS), 4),
        "accuracy": report["accuracy"],
        "per_class": per_class,
        "labels": list(LABELS),
        "confusion": report["confusion"][: len(LABELS)],
        "confusion_columns": list(columns),
        "n": len(golds),
        "pipeline_failures": sum(p == FAILURE for p in predictions),
        "needs_review": sum(p == NEEDS_REVIEW for p in predictions),
        "definite_share": round(sum(definite) / max(len(golds), 1), 4),
        "definite_share_by_class": {
            label: round(
                sum(d for g, d in zip(golds, definite, strict=True) if g == label)
                / max(sum(g == label for g in golds), 1),
                4,
            )
            for label in LABELS
        },
    }
    if intervals:
        result["ci95"] = bootstrap_intervals(golds, predictions)
    return result


def baselines(golds: Sequence[str]) -> dict[str, dict]:
    """Predictors that look at nothing, scored on the same gold labels."""
    counts = Counter(golds)
    majority = max(LABELS, key=lambda label: (counts[label], -LABELS.index(label)))
    return {
        f"baseline: majority ({majority})": score(golds, [majority] * len(golds)),
        "baseline: always supported": score(golds, [SUPPORTED] * len(golds)),
    }


def evidence_coverage(claim: BenchClaim, sentences: list[str], passages: list[Passage]) -> float:
    """Share of the claim's gold evidence sentences found in the passages the judge saw."""
    if not claim.evidence_sentences:
        return 0.0
    joined = _normal(" ".join(p.text for p in passages))
    found = sum(
        fuzz.partial_ratio(_normal(sentences[i]), joined) >= EVIDENCE_FOUND
        for i in claim.evidence_sentences
        if i < len(sentences)
    )
    return found / len(claim.evidence_sentences)


class Diagnosis(msgspec.Struct, frozen=True, kw_only=True):
    """Where each wrong verdict was lost, first failing stage first."""

    stage_counts: dict[str, int]
    """Wrong predictions by the first stage that went wrong."""
    extraction_recall: float
    """Claims found as citations in the report (any label)."""
    reference_accuracy: float
    """Found claims whose marker resolved to the expected reference entry."""
    linking_accuracy: float
    """Found claims linked to the source of the abstract they cite."""
    source_missing: int
    evidence_coverage_mean: float
    """Own-abstract claims: mean share of gold evidence sentences among the judged passages."""
    evidence_fully_retrieved: float
    """Own-abstract claims whose every gold evidence sentence was among the judged passages."""
    passages_per_citation: float
    downgraded: int
    """Verdicts downgraded because their quote was not verbatim in the evidence."""
    non_verdicts: dict[str, int]
    pipeline_right_judge_wrong_on_gold: int | None
    """Own-abstract claims the pipeline got right although the judge is wrong on the gold
    sentences alone (more context helps the judge): the other side of the retrieval bucket."""
    mean_confidence_right: float
    mean_confidence_wrong: float
    """Mean verdict confidence of right and of wrong (non-failure) pipeline verdicts."""
    twin_pairs: int
    """Pairs of a supported claim and its edited, contradicted twin citing the same abstract."""
    twin_pairs_same_verdict: int
    """Twin pairs whose two claims got the same verdict: the judge did not see the edit."""
    examples: list[dict]
    """A few wrong cases per stage, for reading."""


EXAMPLES_PER_STAGE: Final = 3
# Check-COVID writes a REFUTE claim by editing a SUPPORT claim (negation, antonym, number): the
# two are twins when they cite the same abstract and their texts are at least this similar.
TWIN_SIMILARITY: Final = 70


def twin_pairs(outcomes: Sequence[Outcome]) -> list[tuple[Outcome, Outcome]]:
    """(supported, contradicted) twins, both citing their own abstract."""
    supported = [o for o in outcomes if o.claim.gold == SUPPORTED]
    pairs = []
    for refuted in (o for o in outcomes if o.claim.gold == CONTRADICTED):
        candidates = [
            (fuzz.ratio(_normal(s.claim.claim), _normal(refuted.claim.claim)), s)
            for s in supported
            if s.claim.own_cord_id == refuted.claim.own_cord_id
        ]
        if candidates:
            similarity, twin = max(candidates, key=lambda c: c[0])
            if similarity >= TWIN_SIMILARITY:
                pairs.append((twin, refuted))
    return pairs


def _mean_confidence(outcomes: Iterable[Outcome]) -> float:
    values = [o.confidence for o in outcomes if o.confidence is not None]
    return round(sum(values) / len(values), 3) if values else float("nan")


def diagnose(
    outcomes: Sequence[Outcome],
    abstracts: dict[str, list[str]],
    evidence: dict[int, list[Passage]],
    downgrades: dict[int, str | None],
    judge_on_gold: dict[int, str] | None = None,
) -> Diagnosis:
    """``judge_on_gold``: claim key -> the judge's label on the claim's gold evidence sentences
    (own-abstract claims), to tell a retrieval loss from a judge loss."""
    stages: Counter[str] = Counter()
    examples: dict[str, list[dict]] = {}
    coverages: list[float] = []
    found = [o for o in outcomes if o.predicted != NOT_FOUND]
    right_reference = [o for o in found if o.reference_label == o.expected_label]
    right_source = [o for o in found if o.linked_source == source_filename(o.claim.cited_cord_id)]
    for outcome in outcomes:
        claim = outcome.claim
        passages = evidence.get(outcome.citation_id or -1, [])
        coverage = None
        if outcome.predicted != NOT_FOUND and not claim.miscited:
            coverage = evidence_coverage(claim, abstracts[claim.own_cord_id], passages)
            coverages.append(coverage)
        if outcome.scored == claim.gold:
            continue
        if outcome.predicted == NOT_FOUND:
            stage = "extraction: claim not found as a citation"
        elif outcome.reference_label != outcome.expected_label:
            stage = "extraction: marker linked to another reference entry"
        elif outcome.linked_source is None:
            stage = "linking: no source linked (source_missing)"
        elif outcome.linked_source != source_filename(claim.cited_cord_id):
            stage = "linking: wrong source linked"
        elif outcome.predicted == "not_checkable":
            stage = "extraction: claim text lost at the marker (not_checkable)"
        elif outcome.scored == FAILURE:
            stage = f"pipeline: {outcome.predicted}"
        elif claim.miscited:
            stage = "judge: mis-citation judged as " + outcome.scored
        elif judge_on_gold is not None and judge_on_gold.get(claim.key) == claim.gold:
            stage = "retrieval: judge right on gold evidence, wrong on retrieved passages"
        elif coverage is not None and coverage < 1.0 and judge_on_gold is None:
            stage = "retrieval: gold evidence not fully retrieved"
        else:
            stage = "judge: wrong even with the gold evidence"
        stages[stage] += 1
        bucket = examples.setdefault(stage, [])
        if len(bucket) < EXAMPLES_PER_STAGE:
            bucket.append(
                {
                    "claim": claim.claim,
                    "gold": claim.gold,
                    "predicted": outcome.predicted,
                    "confidence": outcome.confidence,
                    "cited": claim.cited_cord_id,
                    "own": claim.own_cord_id,
                    "evidence_coverage": None if coverage is None else round(coverage, 2),
                    "top_passage": passages[0].text[:300] if passages else None,
                }
            )
    twins = twin_pairs(outcomes)
    n_found = max(len(found), 1)
    judged = [o for o in found if o.citation_id in evidence]
    return Diagnosis(
        stage_counts=dict(stages.most_common()),
        extraction_recall=round(len(found) / max(len(outcomes), 1), 4),
        reference_accuracy=round(len(right_reference) / n_found, 4),
        linking_accuracy=round(len(right_source) / n_found, 4),
        source_missing=sum(o.predicted == "source_missing" for o in outcomes),
        evidence_coverage_mean=round(sum(coverages) / max(len(coverages), 1), 4),
        evidence_fully_retrieved=round(
            sum(c == 1.0 for c in coverages) / max(len(coverages), 1), 4
        ),
        passages_per_citation=round(
            sum(len(evidence[o.citation_id]) for o in judged) / max(len(judged), 1), 2
        ),
        downgraded=sum(1 for o in found if downgrades.get(o.citation_id or -1)),
        non_verdicts=dict(Counter(o.predicted for o in outcomes if o.scored == FAILURE)),
        pipeline_right_judge_wrong_on_gold=None
        if judge_on_gold is None
        else sum(
            1
            for o in outcomes
            if o.claim.key in judge_on_gold
            and o.scored == o.claim.gold
            and judge_on_gold[o.claim.key] != o.claim.gold
        ),
        mean_confidence_right=_mean_confidence(o for o in found if o.scored == o.claim.gold),
        mean_confidence_wrong=_mean_confidence(
            o for o in found if o.scored != o.claim.gold and o.scored != FAILURE
        ),
        twin_pairs=len(twins),
        twin_pairs_same_verdict=sum(1 for a, b in twins if a.scored == b.scored),
        examples=[{"stage": s, **e} for s, bucket in examples.items() for e in bucket],
    )
