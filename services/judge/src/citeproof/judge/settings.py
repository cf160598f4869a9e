"""Judge settings, from ``CITEPROOF_JUDGE_*`` environment variables."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, ClassVar, Final, Literal

from citeproof.settings import Settings, SettingsError, doc, load

DEFAULT_BACKEND: Final = "local"
DEFAULT_LLM_BASE_URL: Final = "http://127.0.0.1:8080/v1"
DEFAULT_LLM_MODEL: Final = "gpt-4o-mini"
DEFAULT_LLM_TIMEOUT_S: Final = 60.0
DEFAULT_LLM_MAX_RETRIES: Final = 4
DEFAULT_LLM_CONCURRENCY: Final = 4
DEFAULT_LLM_MAX_TOKENS: Final = 400
DEFAULT_LLM_RESPONSE_FORMAT: Final = "json_schema"
DEFAULT_LLM_BACKOFF_BASE_S: Final = 1.0
DEFAULT_LLM_BACKOFF_MAX_S: Final = 30.0
DEFAULT_LLM_MAX_RETRY_AFTER_S: Final = 120.0
DEFAULT_MAX_PASSAGES: Final = 8
DEFAULT_MAX_PASSAGE_CHARS: Final = 2000
DEFAULT_LOCAL_MODEL_PATH: Final = Path(__file__).parent / "models" / "reading_judge.json"
DEFAULT_LOCAL_THREADS: Final = 1


class JudgeSettings(Settings, frozen=True, kw_only=True):
    """How verdicts are decided. Every field is ``CITEPROOF_JUDGE_<FIELD>``."""

    ENV_PREFIX: ClassVar[str] = "CITEPROOF_JUDGE_"
    SECRET_FIELDS: ClassVar[frozenset[str]] = frozenset({"llm_api_key"})

    backend: Annotated[
        Literal["local", "llm"],
        doc(
            "Judge backend: `local` (offline: a cross-encoder fine-tuned here reads claim and "
            "evidence sentences, docs/judge.md) or `llm` (OpenAI-compatible)."
        ),
    ] = DEFAULT_BACKEND
    max_passages: Annotated[
        int, doc("At most this many retrieved passages (best ranked) are shown to a judge.", ge=1)
    ] = DEFAULT_MAX_PASSAGES
    max_passage_chars: Annotated[
        int, doc("Each passage is cut to this many characters before judging.", ge=200)
    ] = DEFAULT_MAX_PASSAGE_CHARS
    local_model_path: Annotated[
        str,
        doc(
            "Aggregator file of the local judge (reading_judge.json); empty means the one shipped "
            "with the package."
        ),
    ] = ""
    local_threads: Annotated[
        int,
        doc("Intra-op CPU threads of the local judge's cross-encoder per process.", ge=1),
    ] = DEFAULT_LOCAL_THREADS
    local_abstain_below: Annotated[
        float | None,
        doc(
            "Local judge: when its decided label's share of the decision-weighted "
            "probabilities (0..1) is below this it says `needs_review`; empty means the model's "
            "own (0.5: no label leads); 0 never."
        ),
    ] = None
    llm_base_url: Annotated[
        str, doc("Base URL of the OpenAI-compatible API, up to and including `/v1`.")
    ] = DEFAULT_LLM_BASE_URL
    llm_api_key: Annotated[
        str, doc("Bearer token for the LLM API (empty: no Authorization header, e.g. llama.cpp).")
    ] = ""
    llm_model: Annotated[str, doc("Model name sent to the LLM API.")] = DEFAULT_LLM_MODEL
    llm_timeout_s: Annotated[
        float, doc("Timeout of one HTTP request to the LLM API, in seconds.", gt=0)
    ] = DEFAULT_LLM_TIMEOUT_S
    llm_max_retries: Annotated[
        int, doc("Retries after a timeout, connection error, 429 or 5xx (0 = no retry).", ge=0)
    ] = DEFAULT_LLM_MAX_RETRIES
    llm_concurrency: Annotated[
        int, doc("At most this many LLM requests in flight per process.", ge=1)
    ] = DEFAULT_LLM_CONCURRENCY
    llm_max_tokens: Annotated[
        int, doc("`max_tokens` of each completion (the verdict JSON is short).", ge=32)
    ] = DEFAULT_LLM_MAX_TOKENS
    llm_response_format: Annotated[
        Literal["json_schema", "json_object", "none"],
        doc(
            "How the reply format is requested: `json_schema` (strict schema: OpenAI, vLLM),"
            " `json_object` (llama-cpp-python, older servers), `none` (prompt only). The reply "
            "is parsed strictly either way."
        ),
    ] = DEFAULT_LLM_RESPONSE_FORMAT
    llm_system_in_user: Annotated[
        bool,
        doc(
            "Send the judge's instructions inside the user message instead of a system message, "
            "for chat templates that drop system messages (Gemma on llama-cpp-python)."
        ),
    ] = False
    llm_backoff_base_s: Annotated[
        float, doc("First retry waits up to this long; doubles each retry (full jitter).", ge=0)
    ] = DEFAULT_LLM_BACKOFF_BASE_S
    llm_backoff_max_s: Annotated[
        float, doc("Upper bound of one backoff wait, in seconds.", ge=0)
    ] = DEFAULT_LLM_BACKOFF_MAX_S
    llm_max_retry_after_s: Annotated[
        float,
        doc(
            "A 429/5xx whose Retry-After asks for longer than this is not waited for: the request "
            "fails so the task can be retried later by the queue.",
            ge=0,
        ),
    ] = DEFAULT_LLM_MAX_RETRY_AFTER_S

    def resolved_local_model_path(self) -> Path:
        return Path(self.local_model_path) if self.local_model_path else DEFAULT_LOCAL_MODEL_PATH


def load_judge_settings(env: Mapping[str, str] | None = None) -> JudgeSettings:
    """Read and validate the judge settings; errors name the offending variable."""
    settings = load(JudgeSettings, env)
    if settings.backend == "llm":
        if not settings.llm_base_url.startswith(("http://", "https://")):
            raise SettingsError(
                "CITEPROOF_JUDGE_LLM_BASE_URL must start with http:// or https://, got "
                f"{settings.llm_base_url!r}"
            )
        if not settings.llm_model.strip():
            raise SettingsError("CITEPROOF_JUDGE_LLM_MODEL must name a model")
    if settings.local_abstain_below is not None and not 0.0 <= settings.local_abstain_below <= 1:
        raise SettingsError(
            "CITEPROOF_JUDGE_LOCAL_ABSTAIN_BELOW must be between 0 and 1, got "
            f"{settings.local_abstain_below}"
        )
    if settings.llm_backoff_max_s < settings.llm_backoff_base_s:
        raise SettingsError(
            "CITEPROOF_JUDGE_LLM_BACKOFF_MAX_S must be at least CITEPROOF_JUDGE_LLM_BACKOFF_BASE_S"
        )
    return settings
