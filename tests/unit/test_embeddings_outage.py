"""An embeddings endpoint that cannot be reached is an outage of the stage's backend (the
runtime holds the tasks, see citeproof.queue._breaker), not a failure of the document."""

from __future__ import annotations

import socket

import pytest

from citeproof.embeddings.openai import OpenAIEmbedder
from citeproof.embeddings.settings import EmbeddingSettings
from citeproof.queue import DependencyDown


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # nothing listens there once the probe is closed


def test_an_unreachable_embeddings_endpoint_is_reported_as_a_dependency_outage() -> None:
    embedder = OpenAIEmbedder(
        EmbeddingSettings(backend="openai", url=f"http://127.0.0.1:{_closed_port()}/v1")
    )
    with pytest.raises(DependencyDown) as down:
        embedder.embed(["a sentence"])
    assert down.value.dependency == "embeddings backend"
