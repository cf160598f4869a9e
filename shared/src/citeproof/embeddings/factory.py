"""Building embedders, and the process-wide ones per role.

Two roles: `documents` (the parser embedding every chunk: bulk, int8 by default) and `queries`
(the retriever and the local judge: a few texts per citation, fp32 by default). With the torch
runtime or the `openai` backend the roles share one embedder.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Literal

import msgspec

from citeproof.embeddings.base import Embedder
from citeproof.embeddings.settings import EmbeddingSettings
from citeproof.settings import load

_lock = threading.Lock()
# role -> (the settings it was built from, the embedder); roles resolving to equal settings
# share the embedder, so a process holds the model once per precision it actually uses.
_instances: dict[str, tuple[EmbeddingSettings, Embedder]] = {}

Role = Literal["documents", "queries"]


def build_embedder(settings: EmbeddingSettings) -> Embedder:
    """A new embedder for `settings` (services use the process-wide `get_embedder`)."""
    if settings.backend == "openai":
        from citeproof.embeddings.openai import OpenAIEmbedder

        return OpenAIEmbedder(settings)
    if settings.runtime == "torch":
        from citeproof.embeddings.local_torch import TorchEmbedder

        return TorchEmbedder(settings.batch_size, settings.threads)
    from citeproof.embeddings.local_onnx import OnnxEmbedder

    cache_dir = Path(settings.cache_dir) if settings.cache_dir else None
    return OnnxEmbedder(settings.threads, settings.precision, cache_dir)


def _effective(settings: EmbeddingSettings, role: Role) -> EmbeddingSettings:
    """The settings the embedder of `role` is built from; roles with equal ones share it.

    Only the onnx runtime has a precision per role; elsewhere both roles resolve alike.
    """
    onnx = settings.backend == "local" and settings.runtime == "onnx"
    precision = settings.query_precision if onnx and role == "queries" else settings.precision
    return msgspec.structs.replace(settings, precision=precision, query_precision=precision)


def get_embedder(settings: EmbeddingSettings | None = None, role: Role = "documents") -> Embedder:
    """The process-wide embedder of `role`, built on first use from `settings` or the
    environment; later calls return it whatever they pass."""
    built = _instances.get(role)
    if built is not None:
        return built[1]
    with _lock:
        if role not in _instances:
            effective = _effective(settings or load(EmbeddingSettings), role)
            shared = next((e for s, e in _instances.values() if s == effective), None)
            _instances[role] = (effective, shared or build_embedder(effective))
        return _instances[role][1]
