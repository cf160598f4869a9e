"""The ``llm`` backend: any OpenAI-compatible ``/v1/chat/completions`` endpoint.

Temperature 0 and a JSON-schema response format; the reply is parsed strictly, and a server that
ignored the format gets exactly one repair request. Transient failures (timeouts, connection errors,
429, 5xx) are retried with exponential backoff and jitter, waiting at least what ``Retry-After``
asks. A semaphore bounds the requests in flight per process.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any, Final

import httpx
import msgspec
import structlog

from citeproof.contracts.judging import UNSUPPORTED, JudgeRequest, Passage, Verdict
from citeproof.judge import metrics
from citeproof.judge.bands import banded_by_label
from citeproof.judge.errors import LlmReplyError, LlmRequestError, LlmUnavailableError
from citeproof.judge.passages import prepare_passages
from citeproof.judge.prompt import (
    PROMPT_VERSION,
    LlmReply,
    ReplyFormatError,
    parse_reply,
    render_messages,
    repair_messages,
    response_format,
)
from citeproof.judge.quotes import verify_quote
from citeproof.judge.settings import JudgeSettings

BACKEND_NAME: Final = "llm"
# Statuses worth another try: the server is overloaded, restarting or rate-limiting us.
RETRY_STATUSES: Final = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
# The part of an error body kept in an exception message.
ERROR_BODY_CHARS: Final = 300

Sleep = Callable[[float], Awaitable[None]]
log = structlog.get_logger(__name__)


class Usage(msgspec.Struct):
    prompt_tokens: int = 0
    completion_tokens: int = 0


class _Message(msgspec.Struct):
    content: str | None = None


class _Choice(msgspec.Struct):
    message: _Message


class _Completion(msgspec.Struct):
    choices: list[_Choice]
    usage: Usage | None = None


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - (time.time() if now is None else now), 0.0)


class LlmBackend:
    """Judge through an OpenAI-compatible chat-completions API."""

    name = BACKEND_NAME
    prompt_version = PROMPT_VERSION

    def __init__(
        self,
        settings: JudgeSettings,
        *,
        sleep: Sleep = asyncio.sleep,
        rng: random.Random | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        """``sleep`` and ``rng`` are seams for tests: waits can be recorded instead of slept."""
        self._settings = settings
        self.model = settings.llm_model
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._semaphore = asyncio.Semaphore(settings.llm_concurrency)
        headers = {"Accept": "application/json"}
        if settings.llm_api_key:
            headers["Authorization"] = f"Bearer {settings.llm_api_key}"
        self._client = httpx.AsyncClient(
            base_url=settings.llm_base_url.rstrip("/") + "/",
            headers=headers,
            timeout=httpx.Timeout(settings.llm_timeout_s),
            transport=transport,
        )

    async def aclose(self) -> None:
        await self._client.aclose()

    async def judge(self, request: JudgeRequest) -> Verdict:
        started = time.perf_counter()
        passages = prepare_passages(
            request.passages, self._settings.max_passages, self._settings.max_passage_chars
        )
        if not passages:
            return self._verdict_without_evidence(started)
        messages = render_messages(
            request, passages, system_in_user=self._settings.llm_system_in_user
        )
        usage = Usage()
        async with self._semaphore:
            content = await self._complete(messages, usage)
            try:
                reply = parse_reply(content)
            except ReplyFormatError as first_error:
                log.info(
                    "judge.llm.repair", citation_key=request.citation_key, error=str(first_error)
                )
                repair = repair_messages(messages, content or "", str(first_error))
                content = await self._complete(repair, usage)
                try:
                    reply = parse_reply(content)
                except ReplyFormatError as second_error:
                    metrics.REQUESTS.labels(self.name, "bad_reply").inc()
                    raise LlmReplyError(
                        "the model's reply did not match the verdict schema, even after a repair "
                        f"request: {second_error}; reply started {(content or '')[:120]!r}"
                    ) from second_error
        return self._verdict(reply, passages, usage, started)

    def _verdict(
        self, reply: LlmReply, passages: list[Passage], usage: Usage, started: float
    ) -> Verdict:
        # The model numbers passages 1..n in the order shown; map back to retriever ranks.
        preferred_rank = None
        if reply.passage is not None and 1 <= reply.passage <= len(passages):
            preferred_rank = passages[reply.passage - 1].rank
        verdict = Verdict(
            label=reply.label,
            confidence=reply.confidence,
            rationale=reply.rationale.strip(),
            quote=reply.quote,
            quote_page=None,
            backend=self.name,
            model=self.model,
            prompt_version=self.prompt_version,
            latency_ms=round((time.perf_counter() - started) * 1000, 2),
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
        )
        # Banded after verification: a downgraded verdict (needs_review) says nothing either way.
        return banded_by_label(verify_quote(verdict, passages, preferred_rank))

    def _verdict_without_evidence(self, started: float) -> Verdict:
        return banded_by_label(
            Verdict(
                label=UNSUPPORTED,
                confidence=0.9,
                rationale=(
                    "No evidence text was retrieved from the cited source; no model was asked."
                ),
                quote=None,
                quote_page=None,
                backend=self.name,
                model=self.model,
                prompt_version=self.prompt_version,
                latency_ms=round((time.perf_counter() - started) * 1000, 2),
                prompt_tokens=0,
                completion_tokens=0,
            )
        )

    def _body(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self._settings.llm_model,
            "messages": messages,
            "temperature": 0,
            "max_tokens": self._settings.llm_max_tokens,
        }
        fmt = response_format(self._settings.llm_response_format)
        if fmt is not None:
            body["response_format"] = fmt
        return body

    def _backoff(self, attempt: int) -> float:
        """Exponential backoff with "equal jitter": half fixed, half random, capped."""
        ceiling = min(
            self._settings.llm_backoff_max_s, self._settings.llm_backoff_base_s * 2**attempt
        )
        return ceiling / 2 + self._rng.uniform(0, ceiling / 2)

    async def _complete(self, messages: list[dict[str, str]], usage: Usage) -> str | None:
        """One completion's text, retrying transient failures; adds the tokens to ``usage``."""
        body = self._body(messages)
        retries = self._settings.llm_max_retries
        for attempt in range(retries + 1):
            started = time.perf_counter()
            retry_after: float | None = None
            try:
                response = await self._client.post("chat/completions", json=body)
            except httpx.TimeoutException as exc:
                outcome, problem = "timeout", f"timed out after {self._settings.llm_timeout_s} s"
                cause: Exception = exc
            except httpx.TransportError as exc:
                outcome, problem = "connection_error", f"connection failed: {exc!r}"
                cause = exc
            else:
                metrics.REQUEST_SECONDS.labels(self.name).observe(time.perf_counter() - started)
                if response.status_code == 200:
                    metrics.REQUESTS.labels(self.name, "ok").inc()
                    return self._read_completion(response, usage)
                excerpt = response.text[:ERROR_BODY_CHARS]
                if response.status_code not in RETRY_STATUSES:
                    metrics.REQUESTS.labels(self.name, "http_error").inc()
                    raise LlmRequestError(f"LLM API answered {response.status_code}: {excerpt}")
                outcome = "rate_limited" if response.status_code == 429 else "server_error"
                problem = f"LLM API answered {response.status_code}: {excerpt}"
                retry_after = parse_retry_after(response.headers.get("retry-after"))
                cause = LlmUnavailableError(problem)
            metrics.REQUESTS.labels(self.name, outcome).inc()
            if attempt == retries:
                raise LlmUnavailableError(f"{problem} (after {retries + 1} attempts)") from cause
            if retry_after is not None and retry_after > self._settings.llm_max_retry_after_s:
                raise LlmUnavailableError(
                    f"{problem}; Retry-After asks for {retry_after:.0f} s, more than "
                    f"CITEPROOF_JUDGE_LLM_MAX_RETRY_AFTER_S={self._settings.llm_max_retry_after_s}"
                ) from cause
            wait = self._backoff(attempt)
            if retry_after is not None:
                wait = max(wait, retry_after)
            log.info("judge.llm.retry", problem=problem, attempt=attempt + 1, wait_s=round(wait, 3))
            await self._sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover

    def _read_completion(self, response: httpx.Response, usage: Usage) -> str | None:
        """The message text of a 200 reply; an unusable envelope yields None (-> repair)."""
        try:
            completion = msgspec.json.decode(response.content, type=_Completion)
        except msgspec.DecodeError:
            log.warning("judge.llm.bad_envelope", body=response.text[:ERROR_BODY_CHARS])
            return None
        if completion.usage is not None:
            usage.prompt_tokens += completion.usage.prompt_tokens
            usage.completion_tokens += completion.usage.completion_tokens
            metrics.TOKENS.labels(self.name, "prompt").inc(completion.usage.prompt_tokens)
            metrics.TOKENS.labels(self.name, "completion").inc(completion.usage.completion_tokens)
        if not completion.choices:
            return None
        return completion.choices[0].message.content
