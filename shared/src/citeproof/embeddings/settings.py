from __future__ import annotations

from typing import Annotated, ClassVar, Final, Literal

from citeproof.embeddings.base import EMBEDDING_DIM
from citeproof.settings import Settings, doc

DEFAULT_BATCH_SIZE = 64
DEFAULT_TIMEOUT_S = 30.0
DEFAULT_OPENAI_MODEL = "text-embedding-3-small"
# Two parser processes share the reference machine's two cores: one thread each, no
# oversubscription (measured in bench/embed.py; docs/adr/0010-embedding-runtime.md).
DEFAULT_THREADS = 1
# When a source's passages (chunks) get their vectors (ADR 0022). `on_demand`: the retriever
# embeds a chunk the first time a claim needs it and stores it for every later claim and user;
# `at_parse`: the parser embeds every chunk of every source (the path before ADR 0022).
CHUNKS_ON_DEMAND: Final = "on_demand"
CHUNKS_AT_PARSE: Final = "at_parse"
ChunkEmbeddings = Literal["on_demand", "at_parse"]


class EmbeddingSettings(Settings, frozen=True, kw_only=True):
    ENV_PREFIX: ClassVar[str] = "CITEPROOF_EMBEDDINGS_"
    SECRET_FIELDS: ClassVar[frozenset[str]] = frozenset({"api_key"})

    backend: Annotated[
        Literal["local", "openai"],
        doc(
            "`local`: all-MiniLM-L6-v2 on CPU, offline (runtime chosen by "
            "CITEPROOF_EMBEDDINGS_RUNTIME). `openai`: an OpenAI-compatible /v1/embeddings."
        ),
    ] = "local"
    runtime: Annotated[
        Literal["onnx", "torch"],
        doc(
            "Runtime of the `local` backend. `onnx`: ONNX Runtime on a graph exported once from "
            "the packaged model and cached (CITEPROOF_EMBEDDINGS_CACHE_DIR). `torch`: "
            "sentence-transformers on torch fp32 (the reference; slower). Every service that "
            "shares a database must use the same runtime and precision: stored chunk vectors "
            "and query vectors are compared with each other."
        ),
    ] = "onnx"
    precision: Annotated[
        Literal["int8", "fp32"],
        doc(
            "Weights of the `onnx` runtime for document chunks (the parser's bulk work). "
            "`int8`: dynamic int8 quantisation (per-channel weights), ~2-3x faster than fp32 on "
            "CPU, cosine > 0.98 to torch fp32. `fp32`: same numbers as torch."
        ),
    ] = "int8"
    query_precision: Annotated[
        Literal["int8", "fp32"],
        doc(
            "Weights of the `onnx` runtime for query-time embeddings: the retriever's claims and "
            "the evidence sentences it ranks with CITEPROOF_EMBEDDINGS_CHUNKS=at_parse (on "
            "demand it uses `precision`, ADR 0022), the local judge's features. A few texts "
            "per citation, so full precision by default (ADR 0010)."
        ),
    ] = "fp32"
    chunks: Annotated[
        ChunkEmbeddings,
        doc(
            "When source passages are embedded. `on_demand`: by the retriever, the first time "
            "a claim needs them (its candidates within the cited source, or a whole small "
            "source), stored in PostgreSQL and reused by every later claim and user; the "
            "retriever then embeds claims and evidence sentences with `precision` too. "
            "`at_parse`: the parser embeds every passage of every source before the first "
            "verdict, and the retriever uses `query_precision`. Parser and retriever must use "
            "the same value."
        ),
    ] = CHUNKS_ON_DEMAND
    threads: Annotated[
        int,
        doc(
            "Intra-op CPU threads per process for the `local` backend (0 = the runtime's "
            "default, all cores). Keep processes x threads <= cores.",
            ge=0,
        ),
    ] = DEFAULT_THREADS
    cache_dir: Annotated[
        str | None,
        doc(
            "Where the `onnx` runtime keeps its exported models (one subdirectory per model "
            "hash; built on first use, atomically, safe with concurrent processes). Default: "
            "$XDG_CACHE_HOME/citeproof/onnx or ~/.cache/citeproof/onnx. Must be writable, or "
            "pre-built with `python -m citeproof.embeddings.onnx_build`."
        ),
    ] = None
    url: Annotated[
        str | None, doc("Base URL of the OpenAI-compatible API (e.g. https://api.openai.com/v1).")
    ] = None
    api_key: Annotated[str | None, doc("API key for the embeddings endpoint.")] = None
    model: Annotated[str, doc("Model name for the `openai` backend.")] = DEFAULT_OPENAI_MODEL
    dimension: Annotated[
        int,
        doc("Vector size requested from the `openai` backend; must equal the schema's 384."),
    ] = EMBEDDING_DIM
    batch_size: Annotated[
        int,
        doc(
            "Texts per embedding batch for the torch runtime and the `openai` backend (the onnx "
            "runtime embeds one text per call, so a vector never depends on its batch).",
            ge=1,
        ),
    ] = DEFAULT_BATCH_SIZE
    timeout_s: Annotated[float, doc("HTTP timeout for the `openai` backend.", gt=0)] = (
        DEFAULT_TIMEOUT_S
    )
