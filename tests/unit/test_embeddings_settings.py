"""Which local runtime a process gets, from the environment alone."""

from __future__ import annotations

import pytest

from citeproof.embeddings.factory import build_embedder
from citeproof.embeddings.local_onnx import OnnxEmbedder
from citeproof.embeddings.local_torch import TorchEmbedder
from citeproof.embeddings.settings import EmbeddingSettings
from citeproof.settings import SettingsError, describe, load


def test_default_local_backend_is_onnx_int8_on_one_thread() -> None:
    settings = load(EmbeddingSettings, {})
    embedder = build_embedder(settings)
    assert isinstance(embedder, OnnxEmbedder)
    assert embedder.model == "all-MiniLM-L6-v2@onnx-int8"
    assert settings.threads == 1


def test_torch_runtime_and_fp32_precision_are_selectable() -> None:
    torch_embedder = build_embedder(
        load(EmbeddingSettings, {"CITEPROOF_EMBEDDINGS_RUNTIME": "torch"})
    )
    assert isinstance(torch_embedder, TorchEmbedder)
    assert torch_embedder.model == "all-MiniLM-L6-v2@torch-fp32"
    fp32 = build_embedder(load(EmbeddingSettings, {"CITEPROOF_EMBEDDINGS_PRECISION": "fp32"}))
    assert fp32.model == "all-MiniLM-L6-v2@onnx-fp32"


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("CITEPROOF_EMBEDDINGS_RUNTIME", "tensorflow"),
        ("CITEPROOF_EMBEDDINGS_PRECISION", "int4"),
        ("CITEPROOF_EMBEDDINGS_THREADS", "-1"),
    ],
)
def test_unknown_runtime_values_are_refused(variable: str, value: str) -> None:
    with pytest.raises(SettingsError):
        load(EmbeddingSettings, {variable: value})


def test_every_embedding_setting_is_documented() -> None:
    rows = describe(EmbeddingSettings)
    assert {name for name, _, _ in rows} >= {
        "CITEPROOF_EMBEDDINGS_RUNTIME",
        "CITEPROOF_EMBEDDINGS_PRECISION",
        "CITEPROOF_EMBEDDINGS_THREADS",
        "CITEPROOF_EMBEDDINGS_CACHE_DIR",
    }
    assert all(description for _, _, description in rows)
