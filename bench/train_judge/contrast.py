"""Twin training: the same evidence with a supported claim and its minimally edited, refuted twin.

Check-COVID writes its refuted claims by editing supported ones (a negation, an opposite
direction, another number), so a judge that reads claim and evidence "about right" confuses the
twins. Plain classification sees each twin alone; this phase shows them together and adds a margin
loss: the supported claim must score higher on `supported`, the refuted one higher on
`contradicted`, by ``MARGIN`` logits. Twins come from Check-COVID train (the training part), the
rule-based counterfactuals of supported pairs, and COVID-Fact (entailed and counterfactual claims
of one evidence text). The classification loss stays on, so the scores remain probabilities.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import msgspec

from bench.train_judge.data import CONTRADICTED_ID, SUPPORTED_ID, UNSUPPORTED_ID, Pair
from bench.train_judge.finetune import (
    BATCH,
    MAX_TOKENS,
    TrainingLog,
    apply_gradients,
    save_checkpoint,
)

MARGIN: Final = 1.0
# The twins that teach Check-COVID's kind of edit are kept whole; the larger sources are sampled
# down so they do not drown them (and the phase stays ~15 minutes on two cores).
MAX_TWINS_PER_ORIGIN: Final = {"covidfact": 600, "cf-healthver": 300}
# Each batch holds six twins (two sequences each) and four pairs whose evidence does not settle
# the claim: without them the phase forgets the `unsupported` class it does not show.
TWINS_PER_BATCH: Final = 6
NEUTRALS_PER_BATCH: Final = BATCH - 2 * TWINS_PER_BATCH


class Twin(msgspec.Struct, frozen=True):
    supported: str
    refuted: str
    evidence: str
    origin: str


def twins_from_pairs(pairs: Sequence[Pair], rng: random.Random) -> list[Twin]:
    """Every (supported, refuted) claim combination that shares one evidence text, at most
    three refuted claims per supported one (COVID-Fact has many counterfactuals per claim)."""
    by_evidence: dict[str, dict[int, list[Pair]]] = defaultdict(lambda: defaultdict(list))
    for pair in pairs:
        if pair.label in (SUPPORTED_ID, CONTRADICTED_ID):
            by_evidence[pair.evidence][pair.label].append(pair)
    twins = []
    for evidence, groups in by_evidence.items():
        for supported in groups[SUPPORTED_ID]:
            refuted = list(groups[CONTRADICTED_ID])
            rng.shuffle(refuted)
            for other in refuted[:3]:
                if other.claim != supported.claim:
                    twins.append(Twin(supported.claim, other.claim, evidence, other.origin))
    rng.shuffle(twins)
    kept: list[Twin] = []
    per_origin: dict[str, int] = defaultdict(int)
    for twin in twins:
        if per_origin[twin.origin] < MAX_TWINS_PER_ORIGIN.get(twin.origin, len(twins)):
            per_origin[twin.origin] += 1
            kept.append(twin)
    return kept


def train_twins(
    checkpoint: Path,
    twins: Sequence[Twin],
    neutrals: Sequence[Pair],
    out_dir: Path,
    *,
    epochs: int,
    lr: float,
    seed: int,
    threads: int,
    log=print,
) -> Path:
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    rng = random.Random(seed)
    tokenizer = AutoTokenizer.from_pretrained(checkpoint)
    model = AutoModelForSequenceClassification.from_pretrained(checkpoint)
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    steps_per_epoch = -(-len(twins) // TWINS_PER_BATCH)
    total = steps_per_epoch * epochs
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda step: max(0.0, (total - step) / total)
    )
    ranking = torch.nn.MarginRankingLoss(margin=MARGIN)
    classify = torch.nn.CrossEntropyLoss()
    log(f"{len(twins)} twins, {total} steps")
    progress = TrainingLog("twin phase", total, log)
    order = list(range(len(twins)))
    for epoch in range(1, epochs + 1):
        model.train()
        rng.shuffle(order)
        for start in range(0, len(order), TWINS_PER_BATCH):
            batch = [twins[i] for i in order[start : start + TWINS_PER_BATCH]]
            neutral = rng.sample(list(neutrals), NEUTRALS_PER_BATCH)
            claims = [t.supported for t in batch] + [t.refuted for t in batch]
            claims += [n.claim for n in neutral]
            evidence = [t.evidence for t in batch] * 2 + [n.evidence for n in neutral]
            encoded = tokenizer(
                claims,
                evidence,
                truncation="only_second",
                max_length=MAX_TOKENS,
                padding=True,
                return_tensors="pt",
            )
            logits = model(**encoded).logits
            half = len(batch)
            labels = torch.tensor(
                [SUPPORTED_ID] * half + [CONTRADICTED_ID] * half + [UNSUPPORTED_ID] * len(neutral)
            )
            ones = torch.ones(half)
            loss = (
                classify(logits, labels)
                + ranking(logits[:half, SUPPORTED_ID], logits[half : 2 * half, SUPPORTED_ID], ones)
                + ranking(
                    logits[half : 2 * half, CONTRADICTED_ID], logits[:half, CONTRADICTED_ID], ones
                )
            )
            progress.record(apply_gradients(model, loss, optimiser, scheduler))
        save_checkpoint(model, tokenizer, out_dir / f"twins{epoch}", log)
    return out_dir / f"twins{epochs}"
