from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from citeproof.embeddings.base import EMBEDDING_DIM
from citeproof.settings import Settings, doc

DEFAULT_BATCH_SIZE = 64
DEFAULT_TIMEOUT_S = 30.0
DEFAULT_OPENAI_MODEL = "text-embedding-3-small"


class EmbeddingSettings(Settings, frozen=True, kw_only=True):
    ENV_PREFIX: ClassVar[str] = "CITEPROOF_EMBEDDINGS_"

    backend: Annotated[
        Literal["local", "openai"],
        doc(
            "`local`: all-MiniLM-L6-v2 on CPU, offline. "
            "`openai`: an OpenAI-compatible /v1/embeddings."
        ),
    ] = "local"
    url: Annotated[
        str | None, doc("Base URL of the OpenAI-compatible API (e.g. https://api.openai.com/v1).")
    ] = None
    api_key: Annotated[str | None, doc("API key for the embeddings endpoint.")] = None
    model: Annotated[str, doc("Model name for the `openai` backend.")] = DEFAULT_OPENAI_MODEL
    dimension: Annotated[
        int,
        doc("Vector size requested from the `openai` backend; must equal the schema's 384."),
    ] = EMBEDDING_DIM
    batch_size: Annotated[int, doc("Texts per embedding batch.", ge=1)] = DEFAULT_BATCH_SIZE
    timeout_s: Annotated[float, doc("HTTP timeout for the `openai` backend.", gt=0)] = (
        DEFAULT_TIMEOUT_S
    )
