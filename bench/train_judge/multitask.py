"""Fine-tune MiniLM-L6 as a two-headed cross-encoder: Citation-Integrity and NLI.

One encoder, six outputs. The first three (``citint``: accurate / irrelevant / not accurate as
written) are learned from real citing sentences against their whole cited document; the last three
(``nli``: supported / not settled / contradicted) from the claim/evidence pairs of the earlier
judge (Check-COVID, mined negatives, counterfactuals, HealthVer, COVID-Fact). The tasks differ —
"not accurate" is mostly overstatement or a wrong detail, rarely a contradiction — so they get
their own heads, and the aggregator reads both. Every batch holds one task; each epoch shows every
Citation-Integrity pair and a fresh seeded sample of ``aux_per_epoch`` NLI pairs.

Seeded, length-bucketed batches; the checkpoint of every epoch is saved.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import numpy as np

from bench.train_judge.data import LABELS, Pair
from bench.train_judge.finetune import (
    BATCH,
    BUCKET_WINDOW,
    TrainingLog,
    apply_gradients,
    base_model_dir,
    save_checkpoint,
)

HEADS: Final = ("citint", "nli")
OUTPUTS: Final = len(HEADS) * len(LABELS)


def claim_cut(tokenizer, claim: str, max_tokens: int, shortened_tokens: int) -> str:
    """The claim as the shipped cross-encoder reads it (``cross_encoder.claim_to_read``)."""
    from citeproof.judge.cross_encoder import cut_claim

    read = cut_claim(tokenizer, claim, max_tokens=max_tokens, shortened_tokens=shortened_tokens)
    return read.text


def _batches(
    pairs: Sequence[tuple[int, Pair]], lengths: dict[int, int], rng: random.Random
) -> list[list[tuple[int, Pair]]]:
    """Length-bucketed batches of one task each, in a seeded order."""
    batches = []
    for head in range(len(HEADS)):
        mine = [p for p in pairs if p[0] == head]
        rng.shuffle(mine)
        window = BATCH * BUCKET_WINDOW
        for start in range(0, len(mine), window):
            chunk = sorted(mine[start : start + window], key=lambda p: lengths[id(p[1])])
            batches += [chunk[i : i + BATCH] for i in range(0, len(chunk), BATCH)]
    rng.shuffle(batches)
    return batches


def _class_weights(pairs: Sequence[Pair], power: float):
    import torch

    counts = np.bincount([p.label for p in pairs], minlength=len(LABELS))
    weights = (counts.sum() / (len(LABELS) * np.maximum(counts, 1))) ** power
    return torch.tensor(weights, dtype=torch.float)


def finetune_multitask(
    citint: Sequence[Pair],
    nli: Sequence[Pair],
    out_dir: Path,
    *,
    epochs: int,
    lr: float,
    aux_per_epoch: int,
    max_tokens: int,
    shortened_tokens: int,
    seed: int,
    threads: int,
    log=print,
) -> Path:
    import torch
    from tokenizers import Tokenizer
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    rng = random.Random(seed)
    tokenizer = AutoTokenizer.from_pretrained(base_model_dir())
    measure = Tokenizer.from_file(str(base_model_dir() / "tokenizer.json"))
    measure.no_padding()
    measure.no_truncation()
    names = [f"{head}:{label}" for head in HEADS for label in LABELS]
    model = AutoModelForSequenceClassification.from_pretrained(
        base_model_dir(),
        num_labels=OUTPUTS,
        id2label=dict(enumerate(names)),
        label2id={name: i for i, name in enumerate(names)},
    )
    # Claims as the shipped judge reads them (a long citing sentence from its start).
    citint = [
        Pair(
            claim_cut(measure, p.claim, max_tokens, shortened_tokens), p.evidence, p.label, p.origin
        )
        for p in citint
    ]
    # Citation-Integrity is 64% accurate, 7% irrelevant: square-root inverse-frequency weights
    # keep the rare classes learned without pretending they are common (the aggregator and its
    # temperature put the real frequencies back).
    losses = [
        torch.nn.CrossEntropyLoss(weight=_class_weights(citint, 0.5)),
        torch.nn.CrossEntropyLoss(weight=_class_weights(nli, 1.0)) if nli else None,
    ]
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    aux = min(aux_per_epoch, len(nli))
    steps_per_epoch = math.ceil(len(citint) / BATCH) + math.ceil(aux / BATCH)
    total = steps_per_epoch * epochs
    warmup = max(1, int(0.06 * total))
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimiser,
        lambda step: min((step + 1) / warmup, max(0.0, (total - step) / (total - warmup))),
    )
    log(f"{len(citint)} citint pairs, {aux} of {len(nli)} NLI pairs per epoch, {total} steps")
    progress = TrainingLog("multi-task", total, log)
    for epoch in range(1, epochs + 1):
        model.train()
        shown = [(0, p) for p in citint] + [(1, p) for p in rng.sample(list(nli), aux)]
        lengths = {
            id(p): len(
                tokenizer(p.claim, p.evidence, truncation=True, max_length=max_tokens)["input_ids"]
            )
            for _, p in shown
        }
        for batch in _batches(shown, lengths, rng):
            head = batch[0][0]
            encoded = tokenizer(
                [p.claim for _, p in batch],
                [p.evidence for _, p in batch],
                truncation="only_second",
                max_length=max_tokens,
                padding=True,
                return_tensors="pt",
            )
            labels = torch.tensor([p.label for _, p in batch])
            logits = model(**encoded).logits[:, head * len(LABELS) : (head + 1) * len(LABELS)]
            loss = losses[head](logits, labels)
            progress.record(apply_gradients(model, loss, optimiser, scheduler))
        save_checkpoint(model, tokenizer, out_dir / f"epoch{epoch}", log)
        log(f"epoch {epoch} done after {progress.minutes():.1f} min")
    return out_dir / f"epoch{epochs}"
