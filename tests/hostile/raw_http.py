"""A minimal HTTP/1.1 client over a raw socket, for the attacks ordinary clients do not make.

httpx sends a whole body before it reads the answer and cannot pause mid-body; an attacker's
client can. This one streams a generated multipart body (nothing held in memory, whatever its
size), stops sending as soon as the server answers, can stall after N body bytes until told to
go on (slowloris, a slot held open), and can declare any Content-Length.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit

# Body bytes per write; also the piece a generated file is made of.
WRITE_BYTES = 256 * 1024


@dataclass
class RawResponse:
    status: int
    headers: dict[str, str]
    body: bytes
    # Body bytes the client got to send before the answer came (or all of them).
    sent: int

    def json(self) -> dict:
        return json.loads(self.body)


@dataclass
class GeneratedFile:
    """A file of `size` bytes produced piece by piece: a random head, so its sha256 is unique,
    then filler."""

    name: str
    size: int
    content_type: str = "application/pdf"

    def __post_init__(self) -> None:
        self._head = b"%PDF-1.4\n% " + os.urandom(16).hex().encode() + b"\n"

    def pieces(self) -> Iterator[bytes]:
        left = self.size
        head = self._head[:left]
        yield head
        left -= len(head)
        filler = b"x" * WRITE_BYTES
        while left > 0:
            piece = filler[: min(left, WRITE_BYTES)]
            left -= len(piece)
            yield piece


def _multipart(files: list[GeneratedFile], kind: str, boundary: str) -> list[bytes | GeneratedFile]:
    parts: list[bytes | GeneratedFile] = [
        (f'--{boundary}\r\nContent-Disposition: form-data; name="kind"\r\n\r\n{kind}\r\n').encode()
    ]
    for file in files:
        parts.append(
            (
                f'--{boundary}\r\nContent-Disposition: form-data; name="files"; '
                f'filename="{file.name}"\r\nContent-Type: {file.content_type}\r\n\r\n'
            ).encode()
        )
        parts.append(file)
        parts.append(b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return parts


def _length(parts: list[bytes | GeneratedFile]) -> int:
    return sum(p.size if isinstance(p, GeneratedFile) else len(p) for p in parts)


def _pieces(parts: list[bytes | GeneratedFile]) -> Iterator[bytes]:
    for part in parts:
        if isinstance(part, GeneratedFile):
            yield from part.pieces()
        else:
            yield part


async def _read_response(reader: asyncio.StreamReader) -> tuple[int, dict[str, str], bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    body = await reader.readexactly(length) if length else b""
    return status, headers, body


async def upload(
    base_url: str,
    token: str,
    session_id: str,
    files: list[GeneratedFile],
    kind: str = "source",
    *,
    content_length: int | None = None,
    stall_after: int | None = None,
    resume: asyncio.Event | None = None,
    trickle_after: int | None = None,
    trickle_every_s: float = 1.0,
    timeout_s: float = 300.0,
) -> RawResponse:
    """POST the files as multipart. With `stall_after`, stop after that many body bytes until
    `resume` is set (or forever, when it is None) — unless the server answers first. With
    `trickle_after`, send one byte every `trickle_every_s` after that many (never silent long
    enough for an idle timeout)."""
    url = urlsplit(base_url)
    boundary = uuid.uuid4().hex
    parts = _multipart(files, kind, boundary)
    declared = _length(parts) if content_length is None else content_length
    reader, writer = await asyncio.open_connection(url.hostname, url.port)
    sent = 0
    try:
        writer.write(
            (
                f"POST /v1/sessions/{session_id}/documents HTTP/1.1\r\n"
                f"Host: {url.hostname}:{url.port}\r\n"
                f"Authorization: Bearer {token}\r\n"
                f"Content-Type: multipart/form-data; boundary={boundary}\r\n"
                f"Content-Length: {declared}\r\n\r\n"
            ).encode()
        )
        answer = asyncio.ensure_future(_read_response(reader))
        # A server that answers early (a refusal before reading) ends the sending.
        with contextlib.suppress(ConnectionError):
            for piece in _pieces(parts):
                if answer.done():
                    break
                if stall_after is not None and sent + len(piece) > stall_after:
                    before, piece = piece[: stall_after - sent], piece[stall_after - sent :]
                    writer.write(before)
                    sent += len(before)
                    await writer.drain()
                    waits = [answer] + ([asyncio.ensure_future(resume.wait())] if resume else [])
                    await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
                    if answer.done():
                        break
                    stall_after = None
                if trickle_after is not None and sent + len(piece) > trickle_after:
                    for byte in (piece[i : i + 1] for i in range(len(piece))):
                        if answer.done():
                            break
                        writer.write(byte)
                        sent += 1
                        await writer.drain()
                        if sent > trickle_after:
                            await asyncio.wait([answer], timeout=trickle_every_s)
                    continue
                writer.write(piece)
                sent += len(piece)
                await writer.drain()
        status, headers, body = await asyncio.wait_for(answer, timeout_s)
        return RawResponse(status=status, headers=headers, body=body, sent=sent)
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()
