"""Every int8 ONNX model multiplies exactly, so a verdict does not depend on the CPU: on an
x86-64 CPU without VNNI onnxruntime's default int8 kernel saturates sums of products, and the
judge's readers gave other probabilities there than on a CPU with VNNI (Citation-Integrity dev,
pair level, same model files: ECE of the stated label 0.047 on an AVX2-only AMD EPYC, 0.056 on
a Xeon with AVX-512 VNNI; binary macro-F1 0.678 vs 0.691). Where the CPU lacks VNNI the
sessions ask for the exact kernel; where it has VNNI the default is exact and faster. The
session tests fail before: no session asked for it."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeproof.embeddings import onnx_session
from citeproof.embeddings.onnx_session import EXACT_INTEGER_PRODUCTS, int8_products_saturate
from citeproof.judge.cross_encoder import DEFAULT_MODEL_PATH, CrossEncoder, sentence_reader

AVX2_ONLY = "processor\t: 0\nflags\t\t: fpu sse sse2 ssse3 sse4_1 sse4_2 avx avx2 fma f16c\n"
WITH_VNNI = "processor\t: 0\nflags\t\t: fpu sse2 avx avx2 avx512f avx512bw avx512_vnni\n"
WITH_AVX_VNNI = "processor\t: 0\nflags\t\t: fpu sse2 avx avx2 avx_vnni\n"


def _cpuinfo(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "cpuinfo"
    path.write_text(text)
    return path


@pytest.fixture
def x86_64(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(onnx_session.platform, "machine", lambda: "x86_64")


@pytest.mark.usefixtures("x86_64")
def test_only_a_cpu_without_vnni_saturates(tmp_path: Path) -> None:
    assert int8_products_saturate(_cpuinfo(tmp_path, AVX2_ONLY))
    assert not int8_products_saturate(_cpuinfo(tmp_path, WITH_VNNI))
    assert not int8_products_saturate(_cpuinfo(tmp_path, WITH_AVX_VNNI))
    assert int8_products_saturate(tmp_path / "missing")  # unreadable: exact is never wrong


def test_other_architectures_leave_the_default(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(onnx_session.platform, "machine", lambda: "aarch64")
    assert not int8_products_saturate(_cpuinfo(tmp_path, AVX2_ONLY))


def _exact(session) -> bool:
    return session.get_session_options().get_session_config_entry(EXACT_INTEGER_PRODUCTS) == "1"


@pytest.fixture
def avx2_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(onnx_session, "_saturates", lambda: True)


@pytest.mark.usefixtures("avx2_only")
@pytest.mark.parametrize("reader", [CrossEncoder, sentence_reader], ids=["windows", "sentences"])
def test_the_judges_readers_multiply_exactly_without_vnni(reader) -> None:
    assert _exact(reader()._session)


@pytest.mark.usefixtures("avx2_only")
def test_the_local_embedder_multiplies_exactly_without_vnni() -> None:
    from citeproof.embeddings.local_onnx import OnnxEmbedder

    embedder = OnnxEmbedder(threads=1, precision="int8")
    embedder.embed(["a sentence to load the model"])
    assert _exact(embedder._session)


def test_the_judges_reader_gives_the_exact_kernels_numbers() -> None:
    """The session the reader builds on this CPU gives, to the last bit, what onnxruntime's
    exact kernel gives: with VNNI the default kernel it keeps is exact; without, it asked for
    the exact one."""
    import numpy as np
    import onnxruntime

    reader = CrossEncoder()
    encoding = reader._tokenizer.encode(
        "Masks cut household transmission of the virus by half.",
        "In households, mask use reduced secondary transmission by 50% (OR 0.5).",
    )
    names = {i.name for i in reader._session.get_inputs()}
    feeds = {
        name: np.array([values], dtype=np.int64)
        for name, values in (
            ("input_ids", encoding.ids),
            ("attention_mask", encoding.attention_mask),
            ("token_type_ids", encoding.type_ids),
        )
        if name in names
    }
    exact_options = onnxruntime.SessionOptions()
    exact_options.add_session_config_entry(EXACT_INTEGER_PRODUCTS, "1")
    exact = onnxruntime.InferenceSession(
        str(DEFAULT_MODEL_PATH), exact_options, providers=["CPUExecutionProvider"]
    )
    assert np.array_equal(reader._session.run(None, feeds)[0], exact.run(None, feeds)[0])
