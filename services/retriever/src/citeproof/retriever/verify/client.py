"""HTTP to the scholarly indexes, as a polite and suspicious client.

Polite: every request carries the contact e-mail (`mailto`, the indexes' polite pools) and a
User-Agent naming citeproof; each index has its own gate - at most `requests_per_s` requests a
second and `in_flight` at once per process - and a `429` pauses the whole gate for the time its
`Retry-After` names (or an exponential backoff), after which the request is asked again.

Suspicious: an index is a third party. Its answer is read as a stream and refused past
`max_response_bytes`; it must be JSON (anything else, or JSON nested beyond reason, is "not an
answer"); a request that takes longer than its timeout in total (a server that drips bytes) is
abandoned; redirects are followed by hand, and one leaving the configured host must point to a
public address (the resolve-then-connect check of ADR 0020, with its DNS-rebinding caveat).
After `host_failures` requests in a row without an answer the index counts as unreachable for
`host_down_s`: its remaining questions are answered "not looked up" at once.

Nothing here raises for a server's behaviour except `Unanswered`, whose message is the sentence
the report shows ("crossref did not answer: connection refused").
"""

from __future__ import annotations

import asyncio
import ipaddress
import random
import socket
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, Final
from urllib.parse import urljoin, urlsplit

import httpx
import msgspec
import structlog

from citeproof.retriever.verify.settings import VerifySettings
from citeproof.version import version

log = structlog.get_logger("citeproof.retriever.verify")

MAX_REDIRECTS: Final = 5
# Status codes after which a request is asked again (besides 429, which pauses the gate).
RETRIED_STATUSES: Final = frozenset({500, 502, 503, 504})
NOT_FOUND_STATUSES: Final = frozenset({404, 410})


class Unanswered(Exception):
    """The index could not be asked, or gave no usable answer; the message says why, for people."""


@dataclass
class IndexGate:
    """One index's limits within this process (all runs and entries share it).

    Concurrency: tasks of many runs wait here at once; the rate lock serialises only the
    moment each request is spaced from the last, the semaphore bounds requests in flight, and
    `paused_until` (set by a 429) is read by every waiter before it asks, so one 429 slows
    every request to that index, not just the one that met it."""

    name: str
    interval_s: float
    in_flight: asyncio.Semaphore
    rate_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    next_at: float = 0.0
    paused_until: float = 0.0
    failures_in_a_row: int = 0
    down_until: float = 0.0
    down_reason: str = ""


def _public_address(host: str) -> bool:
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except OSError:
        return False
    return all(ipaddress.ip_address(info[4][0]).is_global for info in infos)


def retry_after_s(value: str | None, now_wall: float | None = None) -> float | None:
    """Seconds a `Retry-After` header asks for (delta-seconds or an HTTP date); None if absent
    or unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return max(0.0, when - (now_wall if now_wall is not None else time.time()))


class ScholarlyClient:
    """Asks the configured indexes; one instance per process (its gates are shared)."""

    def __init__(
        self,
        settings: VerifySettings,
        transport: httpx.AsyncBaseTransport | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Any] = asyncio.sleep,
    ) -> None:
        self.settings = settings.validate()
        self._clock = clock
        self._sleep = sleep
        contact = f"; mailto:{settings.email}" if settings.email else ""
        self._http = httpx.AsyncClient(
            timeout=settings.timeout_s,
            headers={
                "User-Agent": f"citeproof/{version()} (reference verification{contact})",
                "Accept": "application/json",
            },
            follow_redirects=False,
            transport=transport,
        )
        self._gates: dict[str, IndexGate] = {}
        # Requests sent per index (what the benchmark and the "second check asks nobody" test
        # count), successful or not.
        self.requests: dict[str, int] = {}

    async def aclose(self) -> None:
        await self._http.aclose()

    def _gate(self, index: str) -> IndexGate:
        gate = self._gates.get(index)
        if gate is None:
            # Created lazily, inside the running event loop the semaphore belongs to.
            gate = IndexGate(
                name=index,
                interval_s=1.0 / self.settings.requests_per_s,
                in_flight=asyncio.Semaphore(self.settings.in_flight),
            )
            self._gates[index] = gate
        return gate

    def unreachable(self, index: str) -> str | None:
        """Why the index is not being asked now (it failed too often), or None."""
        gate = self._gate(index)
        if gate.down_until > self._clock():
            return gate.down_reason
        return None

    def _params(self, params: Mapping[str, str]) -> dict[str, str]:
        merged = dict(params)
        if self.settings.email:
            merged.setdefault("mailto", self.settings.email)
        return merged

    async def get_json(
        self, index: str, path: str, params: Mapping[str, str], deadline: float
    ) -> Any | None:
        """The JSON body of `GET {base}{path}`; None when the index says it has no such thing
        (404/410); `Unanswered` when it cannot be asked or gives nothing usable before
        `deadline` (a `clock()` time)."""
        gate = self._gate(index)
        url = self.settings.base_url(index) + path
        failures = 0
        while True:
            reason = self.unreachable(index)
            if reason:
                raise Unanswered(reason)
            await self._wait_turn(gate, deadline)
            try:
                status, headers, body = await self._send(gate, url, self._params(params), deadline)
            except Unanswered as exc:
                failures += 1
                if failures > self.settings.max_retries or not self._retryable(exc):
                    self._failed(gate, str(exc))
                    raise
                await self._backoff(failures, deadline, str(exc))
                continue
            if status == 429:
                # The server asked us to wait: pause every request to it, then ask again.
                # Not charged as a failure: a 429 storm delays a run, it never fails it.
                wait = retry_after_s(headers.get("retry-after"))
                if wait is None:
                    wait = self._backoff_s(max(failures, 1))
                self._pause(gate, min(wait, self.settings.backoff_max_s))
                log.info("verify.rate_limited", index=index, wait_s=round(wait, 1))
                continue
            if status in RETRIED_STATUSES:
                failures += 1
                if failures > self.settings.max_retries:
                    self._failed(gate, f"{index} answered HTTP {status}")
                    raise Unanswered(f"{index} answered HTTP {status}")
                await self._backoff(failures, deadline, f"{index} answered HTTP {status}")
                continue
            if status in NOT_FOUND_STATUSES:
                self._answered(gate)
                return None
            if status != 200:
                # 400/403/...: the question itself is refused; asking again changes nothing.
                self._answered(gate)
                raise Unanswered(f"{index} refused the request (HTTP {status})")
            try:
                decoded = msgspec.json.decode(body)
            except (msgspec.DecodeError, RecursionError, ValueError):
                self._failed(gate, f"{index} answered with something other than JSON")
                raise Unanswered(f"{index} answered with something other than JSON") from None
            self._answered(gate)
            return decoded

    @staticmethod
    def _retryable(exc: Unanswered) -> bool:
        # A refused redirect or an oversized answer is the same on every try.
        text = str(exc)
        return "redirect" not in text and "larger than" not in text

    async def _wait_turn(self, gate: IndexGate, deadline: float) -> None:
        """Honour a pause (429) and the request rate; Unanswered if the turn comes too late."""
        while True:
            now = self._clock()
            if gate.paused_until > now:
                if gate.paused_until >= deadline:
                    raise Unanswered(
                        f"{gate.name} asked us to wait (HTTP 429) beyond the run's time limit"
                    )
                await self._sleep(gate.paused_until - now)
                continue
            async with gate.rate_lock:
                now = self._clock()
                start = max(now, gate.next_at)
                if start >= deadline:
                    raise Unanswered(f"{gate.name} was not asked: the run's time limit passed")
                gate.next_at = start + gate.interval_s
            if start > now:
                await self._sleep(start - now)
            if gate.paused_until <= self._clock():
                return

    def _pause(self, gate: IndexGate, seconds: float) -> None:
        gate.paused_until = max(gate.paused_until, self._clock() + seconds)

    def _backoff_s(self, failures: int) -> float:
        base = self.settings.backoff_base_s * (2.0 ** (failures - 1))
        return float(min(self.settings.backoff_max_s, base) * random.uniform(0.5, 1.0))

    async def _backoff(self, failures: int, deadline: float, reason: str) -> None:
        wait = self._backoff_s(failures)
        if self._clock() + wait >= deadline:
            raise Unanswered(f"{reason}; no time left to ask again")
        await self._sleep(wait)

    def _answered(self, gate: IndexGate) -> None:
        gate.failures_in_a_row = 0
        gate.down_until = 0.0

    def _failed(self, gate: IndexGate, reason: str) -> None:
        gate.failures_in_a_row += 1
        if gate.failures_in_a_row >= self.settings.host_failures:
            gate.down_until = self._clock() + self.settings.host_down_s
            gate.down_reason = f"{gate.name} is unreachable ({reason})"
            log.warning("verify.index_unreachable", index=gate.name, reason=reason)

    async def _send(
        self, gate: IndexGate, url: str, params: dict[str, str], deadline: float
    ) -> tuple[int, httpx.Headers, bytes]:
        """One request (redirects followed by hand), in flight under the gate's semaphore."""
        remaining = deadline - self._clock()
        budget = min(self.settings.timeout_s, remaining)
        if budget <= 0:
            raise Unanswered(f"{gate.name} was not asked: the run's time limit passed")
        async with gate.in_flight:
            self.requests[gate.name] = self.requests.get(gate.name, 0) + 1
            try:
                # The total bound: httpx's timeouts are per read, a server dripping one byte
                # at a time would never trip them.
                return await asyncio.wait_for(self._follow(gate, url, params), budget)
            except TimeoutError:
                raise Unanswered(f"{gate.name} did not answer within {budget:.0f} s") from None
            except httpx.HTTPError as exc:
                raise Unanswered(f"{gate.name} did not answer ({_describe(exc)})") from None

    async def _follow(
        self, gate: IndexGate, url: str, params: dict[str, str]
    ) -> tuple[int, httpx.Headers, bytes]:
        home = urlsplit(url)
        query: dict[str, str] | None = params
        for _ in range(MAX_REDIRECTS + 1):
            parts = urlsplit(url)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise Unanswered(f"{gate.name} redirected to a non-http(s) URL (refused)")
            same_host = (parts.hostname, parts.port) == (home.hostname, home.port)
            if (
                not same_host
                and not self.settings.allow_private_hosts
                and not await asyncio.to_thread(_public_address, parts.hostname)
            ):
                raise Unanswered(
                    f"{gate.name} redirected to {parts.hostname}, not a public address (refused)"
                )
            async with self._http.stream("GET", url, params=query) as response:
                if response.is_redirect and "location" in response.headers:
                    url = urljoin(str(response.url), response.headers["location"])
                    query = None  # the Location carries its own query
                    continue
                body = bytearray()
                if response.status_code == 200:
                    async for chunk in response.aiter_bytes():
                        body += chunk
                        if len(body) > self.settings.max_response_bytes:
                            raise Unanswered(
                                f"{gate.name} answered with more than "
                                f"{self.settings.max_response_bytes} bytes (refused)"
                            )
                return response.status_code, response.headers, bytes(body)
        raise Unanswered(f"{gate.name} redirected more than {MAX_REDIRECTS} times")


def _describe(exc: httpx.HTTPError) -> str:
    if isinstance(exc, httpx.ConnectError):
        return "connection refused or no route"
    if isinstance(exc, httpx.TimeoutException):
        return "timed out"
    if isinstance(exc, httpx.RemoteProtocolError):
        return "broken HTTP"
    return type(exc).__name__
