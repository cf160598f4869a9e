"""The local judge's model file: a standardised multinomial logistic regression, temperature-scaled.

Stored as JSON in the repository (a few kilobytes) and evaluated with numpy alone; scikit-learn is
used only by the training script.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

import msgspec
import numpy as np

from citeproof.judge.features import FEATURE_NAMES

MODEL_FORMAT_VERSION: Final = 1


class LocalJudgeModel(msgspec.Struct, frozen=True, kw_only=True):
    """Everything needed to score features, plus how the model was made and how well it did."""

    format_version: int
    # Class order of the weight rows, as verdict labels.
    labels: list[str]
    feature_names: list[str]
    # Standardisation: x' = (x - mean) / scale.
    mean: list[float]
    scale: list[float]
    # Logits = x' @ weights.T + bias; weights has one row per label.
    weights: list[list[float]]
    bias: list[float]
    # Calibration: probabilities = softmax(logits / temperature), fitted on held-out predictions.
    temperature: float
    # Below this calibrated top probability the judge abstains.
    abstain_below: float
    embedding_model: str
    # Free-form provenance and measurements written by the training script.
    training: dict[str, Any]

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """Calibrated class probabilities for rows of features, shape (n, len(labels))."""
        x = np.atleast_2d(np.asarray(features, dtype=np.float64))
        standardised = (x - np.asarray(self.mean)) / np.asarray(self.scale)
        logits = standardised @ np.asarray(self.weights).T + np.asarray(self.bias)
        scaled = logits / self.temperature
        scaled -= scaled.max(axis=1, keepdims=True)
        exp = np.exp(scaled)
        return exp / exp.sum(axis=1, keepdims=True)


class ModelFileError(ValueError):
    """The model file is missing, malformed or made for other features."""


def load_model(path: Path) -> LocalJudgeModel:
    try:
        model = msgspec.json.decode(path.read_bytes(), type=LocalJudgeModel)
    except FileNotFoundError as exc:
        raise ModelFileError(
            f"local judge model not found at {path}; train it with `make train-judge`"
        ) from exc
    except msgspec.DecodeError as exc:
        raise ModelFileError(f"local judge model {path} is malformed: {exc}") from exc
    if model.format_version != MODEL_FORMAT_VERSION:
        raise ModelFileError(
            f"{path} has format {model.format_version}, this code reads {MODEL_FORMAT_VERSION}"
        )
    if tuple(model.feature_names) != FEATURE_NAMES:
        raise ModelFileError(
            f"{path} was trained on other features than this code computes; retrain it"
        )
    return model


def save_model(model: LocalJudgeModel, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(msgspec.json.format(msgspec.json.encode(model), indent=1) + b"\n")
