"""Export all-MiniLM-L6-v2 to ONNX once, quantise it, and cache the result on disk.

The graph is the packaged HF BertModel plus sentence-transformers' mean pooling and L2
normalisation, so ONNX Runtime returns finished sentence embeddings. Exporting needs torch and
takes ~10-30 s, so it happens once per model hash into the cache directory; afterwards a process
needs only onnxruntime and tokenizers.

Two processes starting at once (two parser workers) must not corrupt the cache: the builder
holds an exclusive flock on `<dir>/.lock` while it builds, and every file is written under a
temporary name in the same directory and `os.replace`d into place, so a reader sees either no
file or a complete one — also on file systems where flock is a no-op.

Pre-build (e.g. in a container image whose home is read-only):
    python -m citeproof.embeddings.onnx_build [--cache-dir DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import importlib.metadata
import logging
import os
import re
import tempfile
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

from citeproof.embeddings.base import EmbeddingError
from citeproof.embeddings.model_files import model_path

# Bump when the export or quantisation recipe changes: old cache entries are then ignored.
RECIPE_VERSION = "2"
# The files whose bytes define the model; any change gives a new cache entry.
MODEL_FILES = ("config.json", "model.safetensors", "tokenizer.json", "1_Pooling/config.json")
# Opset 17 is supported by every onnxruntime this project can install and by the legacy exporter.
OPSET = 17
INPUT_NAMES = ("input_ids", "attention_mask")
OUTPUT_NAME = "sentence_embedding"
PRECISIONS = ("fp32", "int8")
# Feed-forward output projections (GELU output -> hidden) kept in fp32 in the int8 model. Their
# inputs carry outlier activations that per-tensor dynamic quantisation rounds away; layers 0 and
# 2 are the most sensitive (bench/embed.py, ADR 0010): keeping them costs ~8 % of the speed-up
# and recovers retrieval within a point of fp32.
FP32_FFN_OUTPUT_LAYERS = (0, 2)
_FFN_OUTPUT_MATMUL = re.compile(r"/encoder/layer\.(\d+)/output/dense/MatMul$")


def default_cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "citeproof" / "onnx"


def model_hash() -> str:
    """Model bytes + recipe + onnxruntime version (the quantiser's output may change with it)."""
    digest = hashlib.sha256()
    root = model_path()
    for name in MODEL_FILES:
        path = root / name
        if path.is_file():
            digest.update(name.encode())
            with path.open("rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
    digest.update(f"recipe={RECIPE_VERSION}".encode())
    digest.update(f"onnxruntime={importlib.metadata.version('onnxruntime')}".encode())
    return digest.hexdigest()[:16]


def model_file(directory: Path, precision: str) -> Path:
    return directory / f"model-{precision}.onnx"


def ensure_model(precision: str, cache_root: Path | None = None) -> Path:
    """The cached ONNX model of `precision`, exported and quantised first if missing."""
    if precision not in PRECISIONS:
        raise EmbeddingError(f"unknown ONNX precision {precision!r}; use one of {PRECISIONS}")
    directory = (cache_root or default_cache_root()) / model_hash()
    target = model_file(directory, precision)
    if target.is_file():
        return target
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise EmbeddingError(
            f"cannot create the ONNX model cache {directory}: {exc}; set "
            "CITEPROOF_EMBEDDINGS_CACHE_DIR to a writable directory or pre-build it with "
            "`python -m citeproof.embeddings.onnx_build`"
        ) from exc
    with _exclusive(directory / ".lock"):
        # Another process may have built it while this one waited for the lock.
        fp32 = model_file(directory, "fp32")
        if not fp32.is_file():
            _atomic_write(fp32, _export_fp32)
        if precision == "int8" and not target.is_file():
            _atomic_write(target, lambda path: _quantise_int8(fp32, path))
    return target


@contextlib.contextmanager
def _exclusive(lock_path: Path) -> Iterator[None]:
    with lock_path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _atomic_write(target: Path, write: Callable[[Path], None]) -> None:
    handle, temp_name = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"
    )
    os.close(handle)
    temp = Path(temp_name)
    try:
        write(temp)
        # mkstemp creates 0600; other users of a shared cache volume must be able to read it.
        temp.chmod(0o644)
        os.replace(temp, target)
    finally:
        temp.unlink(missing_ok=True)


def _export_fp32(path: Path) -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import torch
        from transformers import AutoModel
        from transformers.utils import logging as transformers_logging
    except ImportError as exc:  # pragma: no cover - depends on install
        raise EmbeddingError(
            "exporting the ONNX model needs torch and transformers (once per model hash); "
            "pre-build the cache where they are installed"
        ) from exc

    # Eager attention exports as plain MatMul/Softmax, which every ONNX Runtime fuses and
    # quantises; SDPA would export as a larger, less optimisable subgraph.
    transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]  # no bar in logs
    bert = AutoModel.from_pretrained(str(model_path()), attn_implementation="eager").eval()

    class PooledBert(torch.nn.Module):
        """BertModel + sentence-transformers' mean pooling and Normalize modules."""

        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
            hidden = self.bert(
                input_ids=input_ids,
                attention_mask=attention_mask,
                token_type_ids=torch.zeros_like(input_ids),
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            mean = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
            return torch.nn.functional.normalize(mean, p=2.0, dim=1)

    example = torch.ones((2, 8), dtype=torch.int64)
    axes = {0: "batch", 1: "sequence"}
    with torch.inference_mode(), warnings.catch_warnings():
        # The TorchScript exporter (dynamo=False) is deprecated but needs no onnxscript and
        # traces this static-control-flow model exactly; its deprecation warning is expected.
        warnings.simplefilter("ignore")
        torch.onnx.export(
            PooledBert(),
            (example, example),
            str(path),
            dynamo=False,
            input_names=list(INPUT_NAMES),
            output_names=[OUTPUT_NAME],
            dynamic_axes={**dict.fromkeys(INPUT_NAMES, axes), OUTPUT_NAME: {0: "batch"}},
            opset_version=OPSET,
        )


def _quantise_int8(source: Path, path: Path) -> None:
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    graph = onnx.load(str(source), load_external_data=False).graph
    keep_fp32 = [
        node.name
        for node in graph.node
        if (match := _FFN_OUTPUT_MATMUL.search(node.name))
        and int(match.group(1)) in FP32_FFN_OUTPUT_LAYERS
    ]
    if len(keep_fp32) != len(FP32_FFN_OUTPUT_LAYERS):
        raise EmbeddingError(f"unexpected exported graph: fp32 MatMuls found {keep_fp32}")
    # Per-channel int8 weights: per-tensor scales cost ~5 points of cosine to torch fp32
    # (min 0.87), per-channel keeps it > 0.98 at the same speed (bench/embed.py).
    quantiser_log = logging.getLogger()
    level = quantiser_log.level
    quantiser_log.setLevel(logging.ERROR)  # "consider pre-processing" is advice, not a fault
    try:
        quantize_dynamic(
            str(source),
            str(path),
            weight_type=QuantType.QInt8,
            per_channel=True,
            nodes_to_exclude=keep_fp32,
        )
    finally:
        quantiser_log.setLevel(level)


def main() -> None:
    parser = argparse.ArgumentParser(description="Pre-build the cached ONNX embedding models.")
    parser.add_argument("--cache-dir", type=Path, default=None)
    args = parser.parse_args()
    from citeproof.embeddings.settings import EmbeddingSettings
    from citeproof.settings import load

    root = args.cache_dir or Path(load(EmbeddingSettings).cache_dir or default_cache_root())
    for precision in PRECISIONS:
        print(ensure_model(precision, root))


if __name__ == "__main__":
    main()
