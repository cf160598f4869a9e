"""The ONNX runtime of the local embedder: offline, shape, agreement with torch, shared cache.

These load the real packaged model. The agreement tests use the default cache directory (built
once, then reused like a service would); the concurrency test builds a fresh cache in a
temporary directory from two processes at once.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from citeproof.embeddings.factory import build_embedder
from citeproof.embeddings.settings import EmbeddingSettings

pytest.importorskip("onnxruntime")

SENTENCES = [
    "Dexamethasone reduced 28-day mortality among patients receiving invasive mechanical "
    "ventilation.",
    "We fine-tune BERT on 1.14M papers from Semantic Scholar (Ammar et al., 2018) and report F1.",
    "The attention weights in Fig. 3 show that the model attends to citation markers.",
    "Bats' ability to detect cytosolic DNA helps them coexist with viruses.",
    "Table 2: results on the test set; e.g. 92.4% accuracy for the base model.",
]

# Runs in a child process: no network at all (every socket connect fails), then builds or
# loads the cache and embeds.
CHILD = textwrap.dedent(
    """
    import json, socket, sys
    from pathlib import Path

    def refuse(*args, **kwargs):
        raise OSError("network disabled in this test")

    socket.socket.connect = refuse
    socket.create_connection = refuse

    from citeproof.embeddings.factory import build_embedder
    from citeproof.embeddings.settings import EmbeddingSettings

    embedder = build_embedder(
        EmbeddingSettings(cache_dir=sys.argv[1], precision=sys.argv[2], batch_size=2)
    )
    vectors = embedder.embed(json.loads(sys.argv[3]))
    print(json.dumps(vectors.tolist()))
    """
)


@pytest.fixture(scope="module")
def torch_vectors() -> np.ndarray:
    return build_embedder(EmbeddingSettings(runtime="torch")).embed(SENTENCES)


@pytest.mark.parametrize(("precision", "min_cosine"), [("fp32", 0.9999), ("int8", 0.98)])
def test_onnx_agrees_with_torch_fp32(
    precision: str, min_cosine: float, torch_vectors: np.ndarray
) -> None:
    vectors = build_embedder(EmbeddingSettings(precision=precision)).embed(SENTENCES)
    assert vectors.shape == (len(SENTENCES), 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    cosines = np.sum(vectors * torch_vectors, axis=1)
    assert cosines.min() > min_cosine, cosines


@pytest.mark.parametrize("precision", ["fp32", "int8"])
def test_a_vector_depends_on_its_text_alone_not_on_its_batch(precision: str) -> None:
    # Dynamic int8 quantisation scales activations per input tensor: in a padded batch a text's
    # vector would move with its neighbours, and two runs of the same thesis would disagree.
    embedder = build_embedder(EmbeddingSettings(precision=precision, batch_size=2))
    together = embedder.embed(SENTENCES)
    one_by_one = np.vstack([embedder.embed([sentence]) for sentence in SENTENCES])
    reversed_order = embedder.embed(SENTENCES[::-1])[::-1]
    np.testing.assert_array_equal(together, one_by_one)
    np.testing.assert_array_equal(together, reversed_order)
    assert embedder.embed([]).shape == (0, 384)


def test_long_text_is_truncated_like_sentence_transformers(torch_vectors: np.ndarray) -> None:
    long_text = " ".join(SENTENCES * 20)  # far over 256 word pieces
    onnx_vector = build_embedder(EmbeddingSettings(precision="fp32")).embed([long_text])
    torch_vector = build_embedder(EmbeddingSettings(runtime="torch")).embed([long_text])
    assert float(onnx_vector[0] @ torch_vector[0]) > 0.9999


def test_two_processes_building_the_cache_at_once_both_succeed(tmp_path: Path) -> None:
    cache = tmp_path / "onnx-cache"
    texts = json.dumps(SENTENCES[:2])
    children = [
        subprocess.Popen(
            [sys.executable, "-c", CHILD, str(cache), "fp32", texts],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outputs = [child.communicate(timeout=280) for child in children]
    for child, (_, stderr) in zip(children, outputs, strict=True):
        assert child.returncode == 0, stderr[-2000:]
    first, second = (np.asarray(json.loads(stdout)) for stdout, _ in outputs)
    np.testing.assert_allclose(first, second, atol=1e-6)
    built = sorted(p.name for p in cache.rglob("*") if p.is_file())
    # One complete model, its lock file, and no temporary leftovers.
    assert built == [".lock", "model-fp32.onnx"], built


def test_queries_run_in_full_precision_and_documents_in_int8_by_default() -> None:
    from citeproof.embeddings import factory

    saved = dict(factory._instances)
    factory._instances.clear()
    try:
        documents = factory.get_embedder(EmbeddingSettings())
        queries = factory.get_embedder(EmbeddingSettings(), role="queries")
        assert documents.model.endswith("onnx-int8") and queries.model.endswith("onnx-fp32")
        assert factory.get_embedder(role="queries") is queries
        # Mixed precisions still rank alike: int8 chunk vectors against fp32 query vectors.
        cosines = np.sum(documents.embed(SENTENCES) * queries.embed(SENTENCES), axis=1)
        assert cosines.min() > 0.98
        factory._instances.clear()
        torch_settings = EmbeddingSettings(runtime="torch")
        shared = factory.get_embedder(torch_settings)
        assert factory.get_embedder(torch_settings, role="queries") is shared
    finally:
        factory._instances.clear()
        factory._instances.update(saved)
