"""API settings (environment variables `CITEPROOF_API_*`)."""

from __future__ import annotations

from typing import Annotated, ClassVar

from citeproof.pipeline import MAX_FILE_BYTES, MIB
from citeproof.settings import Settings, doc

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
DEFAULT_MAX_ACTIVE_PARSE_JOBS = 3
DEFAULT_MAX_STAGED_BYTES = 120 * MIB
# The parser enforces the same cap; both take it from the pipeline contract.
DEFAULT_MAX_FILE_BYTES = MAX_FILE_BYTES
DEFAULT_MAX_FILES_PER_UPLOAD = 100
DEFAULT_MAX_JSON_BODY_BYTES = 64 * 1024
DEFAULT_RATE_LIMIT_WINDOW_S = 60
DEFAULT_RATE_LIMIT_REQUESTS = 120
DEFAULT_RATE_LIMIT_UPLOADS = 20
DEFAULT_ACTIVE_JOBS_RETRY_AFTER_S = 30
# A run holds planning, retrieval and judging slots for every citation of its thesis: a few at
# once per user (the accuracy benchmark starts three) keeps one user from queueing hundreds.
DEFAULT_MAX_ACTIVE_RUNS_PER_USER = 5
# A run checks every document of its session; long theses cite 300-600 works.
DEFAULT_MAX_DOCUMENTS_PER_SESSION = 500
DEFAULT_SSE_SLOW_POLL_S = 3.0
DEFAULT_SSE_MAX_DURATION_S = 3600
# A browser tab following a run holds one stream; a few tabs per user, a few hundred per process.
DEFAULT_SSE_MAX_STREAMS = 256
DEFAULT_SSE_MAX_STREAMS_PER_USER = 8
DEFAULT_SSE_TOKEN_RECHECK_S = 5.0
# Upload bodies are spooled to disk while read, so these bound disk, not memory: at most
# max_concurrent_uploads x max_staged_bytes of spool per process (size the emptyDir for it).
DEFAULT_MAX_CONCURRENT_UPLOADS = 8
DEFAULT_MAX_CONCURRENT_UPLOADS_PER_USER = 2
DEFAULT_UPLOAD_SLOT_WAIT_S = 30.0
DEFAULT_UPLOAD_IDLE_TIMEOUT_S = 30.0
# 64 kbit/s: a slow link passes; a client trickling bytes to hold a slot does not.
DEFAULT_UPLOAD_MIN_BYTES_PER_S = 8 * 1024


class ApiSettings(Settings, frozen=True, kw_only=True):
    ENV_PREFIX: ClassVar[str] = "CITEPROOF_API_"

    host: Annotated[str, doc("Interface the API listens on (0.0.0.0 in containers).")] = (
        DEFAULT_HOST
    )
    port: Annotated[int, doc("TCP port of the API.", ge=0, le=65535)] = DEFAULT_PORT
    max_active_parse_jobs: Annotated[
        int, doc("Parse jobs a user may have queued or running at once (more: 429).", ge=1)
    ] = DEFAULT_MAX_ACTIVE_PARSE_JOBS
    max_staged_bytes: Annotated[
        int,
        doc("Upload bytes a user may have staged and not yet parsed, this upload included "
            "(more: 413).", ge=1),
    ] = DEFAULT_MAX_STAGED_BYTES  # fmt: skip
    max_file_bytes: Annotated[int, doc("Largest single uploaded file (more: 413).", ge=1)] = (
        DEFAULT_MAX_FILE_BYTES
    )
    max_files_per_upload: Annotated[int, doc("Files in one upload request.", ge=1)] = (
        DEFAULT_MAX_FILES_PER_UPLOAD
    )
    max_json_body_bytes: Annotated[int, doc("Largest JSON request body (more: 413).", ge=1)] = (
        DEFAULT_MAX_JSON_BODY_BYTES
    )
    rate_limit_window_s: Annotated[
        int, doc("Length of the sliding rate-limit window in seconds.", ge=1)
    ] = DEFAULT_RATE_LIMIT_WINDOW_S
    rate_limit_requests: Annotated[
        int, doc("Requests per user per window (all endpoints except uploads).", ge=1)
    ] = DEFAULT_RATE_LIMIT_REQUESTS
    rate_limit_uploads: Annotated[int, doc("Upload requests per user per window.", ge=1)] = (
        DEFAULT_RATE_LIMIT_UPLOADS
    )
    active_jobs_retry_after_s: Annotated[
        int, doc("Retry-After sent with 429 too_many_active_jobs and too_many_active_runs.", ge=1)
    ] = DEFAULT_ACTIVE_JOBS_RETRY_AFTER_S
    max_active_runs_per_user: Annotated[
        int,
        doc("Runs a user may have unfinished at once, all sessions (more: 429 "
            "too_many_active_runs).", ge=1),
    ] = DEFAULT_MAX_ACTIVE_RUNS_PER_USER  # fmt: skip
    max_documents_per_session: Annotated[
        int,
        doc("Documents (thesis and sources) one session may hold; a run checks all of them "
            "(more: 413 too_many_documents on upload, 422 on a run).", ge=1),
    ] = DEFAULT_MAX_DOCUMENTS_PER_SESSION  # fmt: skip
    sse_slow_poll_s: Annotated[
        float, doc("Run-progress streams re-read the run at least this often (seconds).", gt=0)
    ] = DEFAULT_SSE_SLOW_POLL_S
    sse_max_duration_s: Annotated[
        int, doc("A progress stream closes after this long; EventSource reconnects.", ge=1)
    ] = DEFAULT_SSE_MAX_DURATION_S
    sse_max_streams: Annotated[
        int,
        doc("Progress streams one API process keeps open at once, all users (more: 503).", ge=1),
    ] = DEFAULT_SSE_MAX_STREAMS
    sse_max_streams_per_user: Annotated[
        int, doc("Progress streams one user may have open on one API process (more: 429).", ge=1)
    ] = DEFAULT_SSE_MAX_STREAMS_PER_USER
    sse_token_recheck_s: Annotated[
        float,
        doc("An open progress stream re-checks its token this often and ends once the token "
            "is revoked or expired (seconds; a revocation also ends it at once).", gt=0),
    ] = DEFAULT_SSE_TOKEN_RECHECK_S  # fmt: skip
    max_concurrent_uploads: Annotated[
        int,
        doc("Upload bodies one API process reads at a time; others wait for a slot "
            "(up to upload_slot_wait_s, then 503).", ge=1),
    ] = DEFAULT_MAX_CONCURRENT_UPLOADS  # fmt: skip
    max_concurrent_uploads_per_user: Annotated[
        int, doc("Uploads one user may have in flight on one API process (more: 429).", ge=1)
    ] = DEFAULT_MAX_CONCURRENT_UPLOADS_PER_USER
    upload_slot_wait_s: Annotated[
        float, doc("How long an upload waits for a free slot before 503 (seconds).", ge=0)
    ] = DEFAULT_UPLOAD_SLOT_WAIT_S
    upload_idle_timeout_s: Annotated[
        float,
        doc("An upload whose body sends nothing for this long is refused with 408 (seconds).",
            gt=0),
    ] = DEFAULT_UPLOAD_IDLE_TIMEOUT_S  # fmt: skip
    upload_min_bytes_per_s: Annotated[
        int,
        doc("An upload body must bring at least this many bytes per second over every "
            "upload_idle_timeout_s window, else 408 upload_too_slow (0: no minimum).", ge=0),
    ] = DEFAULT_UPLOAD_MIN_BYTES_PER_S  # fmt: skip
    upload_spool_dir: Annotated[
        str,
        doc("Directory for upload bodies on their way into PostgreSQL (empty: the system "
            "temporary directory). Needs max_concurrent_uploads x max_staged_bytes free."),
    ] = ""  # fmt: skip

    def validate(self) -> ApiSettings:
        """Refuse combinations that cannot work."""
        if self.max_concurrent_uploads_per_user > self.max_concurrent_uploads:
            raise ValueError("max_concurrent_uploads_per_user cannot exceed max_concurrent_uploads")
        if self.sse_max_streams_per_user > self.sse_max_streams:
            raise ValueError("sse_max_streams_per_user cannot exceed sse_max_streams")
        if self.max_file_bytes > self.max_staged_bytes:
            raise ValueError("max_file_bytes cannot exceed max_staged_bytes")
        return self
