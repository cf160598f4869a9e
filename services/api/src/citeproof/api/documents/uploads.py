"""Streaming multipart parsing of document uploads, with the size caps enforced while reading.

We parse the body ourselves (with the `multipart` package Litestar itself uses) instead of
`request.form()` so that an oversized file is refused as soon as it crosses the cap — not after
buffering it — and so that each refusal gets its own stable error code.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

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


@dataclass
class UploadedFile:
    filename: str
    content_type: str | None
    data: bytearray = field(default_factory=bytearray)
    sha256: bytes = b""


@dataclass
class UploadForm:
    kind: str
    files: list[UploadedFile]

    @property
    def total_bytes(self) -> int:
        return sum(len(f.data) for f in self.files)


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


async def read_upload(
    request: Request[Any, Any, Any],
    *,
    max_file_bytes: int,
    max_total_bytes: int,
    max_files: int,
) -> UploadForm:
    boundary = _boundary(request)
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
            stream = request.stream()
            async for chunk in stream:
                for part in parser.parse(chunk):
                    if isinstance(part, MultipartSegment):
                        current, hasher = _start_part(part, files, kind_parts, max_files)
                    elif part:  # a piece of the current part's body
                        if isinstance(current, UploadedFile):
                            current.data += part
                            hasher.update(part)
                            total += len(part)
                            _check_sizes(current, total, max_file_bytes, max_total_bytes)
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
    return UploadForm(kind=_kind(kind_parts), files=_checked_files(files))


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
    current: UploadedFile, total: int, max_file_bytes: int, max_total_bytes: int
) -> None:
    if len(current.data) > max_file_bytes:
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
            f"This upload is larger than the {max_total_bytes // (1024 * 1024)} MiB a user may "
            "have waiting to be parsed. Upload fewer files at once.",
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
