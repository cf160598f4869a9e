"""Streaming multipart parsing of document uploads, with the size caps enforced while reading.

We parse the body ourselves (with the `multipart` package Litestar itself uses) instead of
`request.form()` so that an oversized file is refused as soon as it crosses the cap — not after
buffering it — and so that each refusal gets its own stable error code.

File bytes never accumulate in memory: each piece the parser yields is written to one spool
file per request (an unlinked temporary file, gone when closed or when the process dies) and
hashed on the way; the staging step copies them into PostgreSQL in bounded chunks.
"""

from __future__ import annotations

import asyncio
import hashlib
import tempfile
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from litestar import Request
from multipart import MultipartSegment, ParserError, ParserLimitReached, PushMultipartParser

from citeproof.api.errors import ApiError
from citeproof.api.filenames import sanitize_filename

FILES_FIELD = "files"
KIND_FIELD = "kind"
# `bibliography`: a reference-manager export (.bib, .ris, CSL .json) whose entries become
# references with their citation keys and attached files.
KINDS = ("thesis", "source", "bibliography")
# Long (1,000-character, multi-byte) file names must still parse; they are shortened later.
MAX_PART_HEADER_BYTES = 16 * 1024
MAX_TEXT_FIELD_BYTES = 1024


# Pieces read back from the spool per database statement: bounds the memory of staging.
SPOOL_READ_BYTES = 1024 * 1024


@dataclass
class UploadedFile:
    filename: str
    content_type: str | None
    # Where this file's bytes sit in the request's spool file.
    offset: int = 0
    size: int = 0
    sha256: bytes = b""


@dataclass
class UploadForm:
    kind: str
    files: list[UploadedFile]
    spool: IO[bytes] = field(repr=False)

    @property
    def total_bytes(self) -> int:
        return sum(f.size for f in self.files)

    def chunks(self, upload: UploadedFile) -> Iterator[bytes]:
        """The file's bytes, SPOOL_READ_BYTES at a time."""
        self.spool.seek(upload.offset)
        left = upload.size
        while left > 0:
            piece = self.spool.read(min(SPOOL_READ_BYTES, left))
            if not piece:
                raise OSError("the upload spool file is shorter than what was written to it")
            left -= len(piece)
            yield piece

    def close(self) -> None:
        self.spool.close()


def _boundary(request: Request[Any, Any, Any]) -> bytes:
    content_type, options = request.content_type
    if content_type != "multipart/form-data":
        raise ApiError(
            415,
            "unsupported_media_type",
            "Uploads must be sent as multipart/form-data with one or more 'files' parts "
            "and a 'kind' field.",
        )
    boundary = options.get("boundary")
    if not boundary:
        raise ApiError(400, "malformed_multipart", "The multipart boundary is missing.")
    return boundary.encode("latin-1", errors="replace")


def _malformed(reason: str) -> ApiError:
    return ApiError(400, "malformed_multipart", f"The multipart body is malformed: {reason}.")


async def _chunks_with_idle_timeout(
    request: Request[Any, Any, Any], idle_timeout_s: float, min_bytes_per_s: int = 0
) -> AsyncIterator[bytes]:
    """The body's chunks; a client that sends nothing for `idle_timeout_s` (slowloris) is cut
    off with 408 instead of holding an upload slot forever — and so is one that trickles a
    byte now and then: every window of `idle_timeout_s` must bring `min_bytes_per_s` on
    average (0: no minimum)."""
    stream = request.stream().__aiter__()
    loop = asyncio.get_running_loop()
    window_start, window_bytes = loop.time(), 0
    while True:
        try:
            chunk = await asyncio.wait_for(stream.__anext__(), idle_timeout_s)
        except StopAsyncIteration:
            return
        except TimeoutError:
            raise ApiError(
                408,
                "upload_timeout",
                f"The upload sent no data for {idle_timeout_s:g} s and was abandoned; send the "
                "body without pauses.",
            ) from None
        window_bytes += len(chunk)
        if min_bytes_per_s and loop.time() - window_start >= idle_timeout_s:
            if window_bytes < min_bytes_per_s * idle_timeout_s:
                raise ApiError(
                    408,
                    "upload_too_slow",
                    f"The upload arrived at under {min_bytes_per_s // 1024} KiB/s for "
                    f"{idle_timeout_s:g} s and was abandoned; retry on a faster connection.",
                )
            window_start, window_bytes = loop.time(), 0
        yield chunk


async def read_upload(
    request: Request[Any, Any, Any],
    *,
    max_file_bytes: int,
    max_total_bytes: int,
    max_files: int,
    spool_dir: str | None = None,
    idle_timeout_s: float = 30.0,
    staged_cap_bytes: int | None = None,
    min_bytes_per_s: int = 0,
) -> UploadForm:
    """Parse the multipart body into a spool file. The caller must close() the form.

    `max_total_bytes` is the room this user has left; `staged_cap_bytes` the overall cap,
    named in the refusal."""
    boundary = _boundary(request)
    # Unlinked at once: nothing is left on disk when the form is closed or the process dies.
    spool = tempfile.TemporaryFile(dir=spool_dir or None)
    try:
        return await _read_into(
            request,
            boundary,
            spool,
            (max_file_bytes, max_total_bytes, staged_cap_bytes, max_files),
            (idle_timeout_s, min_bytes_per_s),
        )
    except BaseException:
        spool.close()
        raise


async def _read_into(
    request: Request[Any, Any, Any],
    boundary: bytes,
    spool: IO[bytes],
    caps: tuple[int, int, int | None, int],
    pace: tuple[float, int],
) -> UploadForm:
    max_file_bytes, max_total_bytes, staged_cap_bytes, max_files = caps
    idle_timeout_s, min_bytes_per_s = pace
    files: list[UploadedFile] = []
    kind_parts: list[bytearray] = []
    current: UploadedFile | bytearray | None = None
    hasher: Any = None
    total = 0
    try:
        with PushMultipartParser(
            boundary,
            max_header_size=MAX_PART_HEADER_BYTES,
            max_segment_count=max_files + 8,
        ) as parser:
            async for chunk in _chunks_with_idle_timeout(request, idle_timeout_s, min_bytes_per_s):
                for part in parser.parse(chunk):
                    if isinstance(part, MultipartSegment):
                        current, hasher = _start_part(part, files, kind_parts, max_files)
                        if isinstance(current, UploadedFile):
                            current.offset = total
                    elif part:  # a piece of the current part's body
                        if isinstance(current, UploadedFile):
                            # A blocking write, on purpose: it lands in the page cache in
                            # microseconds, less than a hop to a thread would cost.
                            spool.write(part)
                            hasher.update(part)
                            current.size += len(part)
                            total += len(part)
                            _check_sizes(
                                current, total, max_file_bytes, max_total_bytes, staged_cap_bytes
                            )
                        elif current is not None:
                            current += part
                            if len(current) > MAX_TEXT_FIELD_BYTES:
                                raise _malformed("a form field is too long")
                    else:  # end of the current part
                        if isinstance(current, UploadedFile):
                            current.sha256 = hasher.digest()
                        current = None
                if parser.closed:
                    break
    except ParserLimitReached:
        raise _malformed("too many parts or an oversized part header") from None
    except ParserError as exc:
        raise _malformed(str(exc).rstrip(".") or "unreadable") from None
    spool.flush()
    return UploadForm(kind=_kind(kind_parts), files=_checked_files(files), spool=spool)


def _start_part(
    segment: MultipartSegment,
    files: list[UploadedFile],
    kind_parts: list[bytearray],
    max_files: int,
) -> tuple[UploadedFile | bytearray | None, Any]:
    # A browser form with an empty file input sends a part with filename="": not a file.
    if segment.name == FILES_FIELD and segment.filename:
        if len(files) >= max_files:
            raise ApiError(
                413, "too_many_files", f"At most {max_files} files can be sent in one upload."
            )
        upload = UploadedFile(
            filename=sanitize_filename(segment.filename),
            content_type=_declared_type(segment.content_type),
        )
        files.append(upload)
        return upload, hashlib.sha256()
    if segment.name == KIND_FIELD:
        buffer = bytearray()
        kind_parts.append(buffer)
        return buffer, None
    # Unknown parts are read and ignored rather than rejected: browsers add their own.
    return bytearray(), None


def _check_sizes(
    current: UploadedFile,
    total: int,
    max_file_bytes: int,
    max_total_bytes: int,
    staged_cap_bytes: int | None,
) -> None:
    if current.size > max_file_bytes:
        raise ApiError(
            413,
            "file_too_large",
            f"{current.filename} is larger than the per-file limit of "
            f"{max_file_bytes // (1024 * 1024)} MiB.",
        )
    if total > max_total_bytes:
        raise ApiError(
            413,
            "staged_bytes_limit",
            f"This upload is larger than the {max_total_bytes / (1024 * 1024):.1f} MiB you may "
            "still stage: at most "
            f"{(staged_cap_bytes or max_total_bytes) // (1024 * 1024)} MiB may wait to be "
            "parsed. Upload fewer files at once, or wait for parsing to finish.",
        )


def _kind(kind_parts: list[bytearray]) -> str:
    values = {bytes(p).decode("utf-8", errors="replace").strip() for p in kind_parts}
    if len(values) != 1 or (kind := values.pop()) not in KINDS:
        raise ApiError(
            422,
            "invalid_kind",
            "Send exactly one 'kind' field: 'thesis', 'source' or 'bibliography'.",
        )
    return kind


def _checked_files(files: list[UploadedFile]) -> list[UploadedFile]:
    if not files:
        raise ApiError(422, "no_files", "Send at least one file in a 'files' part.")
    return files


MAX_DECLARED_TYPE_CHARS = 255


def _declared_type(raw: str | None) -> str | None:
    """A part's Content-Type is only a hint for the parser: keep it only when it is sane."""
    if not raw or len(raw) > MAX_DECLARED_TYPE_CHARS:
        return None
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in raw):
        return None
    return raw
