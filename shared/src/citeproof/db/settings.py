"""Database settings."""

from __future__ import annotations

from typing import Annotated, ClassVar

from citeproof.settings import Settings, doc

DEFAULT_EMBEDDED_DIR = ".citeproof/pg"
DEFAULT_POOL_MIN = 1
DEFAULT_POOL_MAX = 10
DEFAULT_STATEMENT_TIMEOUT_MS = 60_000
# asyncpg's own default: prepared statements cached per connection.
DEFAULT_STATEMENT_CACHE_SIZE = 100


class DatabaseSettings(Settings, frozen=True, kw_only=True):
    ENV_NAMES: ClassVar[dict[str, str]] = {
        "url": "DATABASE_URL",
        "listen_url": "LISTEN_DATABASE_URL",
        "environment": "CITEPROOF_ENV",
    }
    # URLs carry the password.
    SECRET_FIELDS: ClassVar[frozenset[str]] = frozenset({"url", "listen_url"})

    url: Annotated[
        str | None,
        doc(
            "PostgreSQL URL (TCP or managed). Unset: an embedded PostgreSQL 18 + pgvector is "
            "started in CITEPROOF_EMBEDDED_PG_DIR."
        ),
    ] = None
    listen_url: Annotated[
        str | None,
        doc(
            "Direct (non-pooled) URL for the LISTEN connection, for deployments where "
            "DATABASE_URL goes through PgBouncer in transaction mode. Default: DATABASE_URL."
        ),
    ] = None
    environment: Annotated[
        str,
        doc("`production` makes every process refuse the embedded PostgreSQL (set "
            "DATABASE_URL); anything else allows it."),
    ] = "development"  # fmt: skip
    embedded_pg_dir: Annotated[
        str, doc("Data directory of the embedded PostgreSQL (used only without DATABASE_URL).")
    ] = DEFAULT_EMBEDDED_DIR
    embedded_pg_fast: Annotated[
        bool,
        doc(
            "Run the embedded PostgreSQL with fsync, synchronous_commit and full_page_writes "
            "off: faster, but a crash can lose the data. For tests and `make demo` only."
        ),
    ] = False
    pool_min: Annotated[int, doc("Minimum connections in each process's pool.", ge=0)] = (
        DEFAULT_POOL_MIN
    )
    pool_max: Annotated[int, doc("Maximum connections in each process's pool.", ge=1)] = (
        DEFAULT_POOL_MAX
    )
    statement_timeout_ms: Annotated[
        int, doc("Server-side statement_timeout for pooled connections (0 = none).", ge=0)
    ] = DEFAULT_STATEMENT_TIMEOUT_MS
    statement_cache_size: Annotated[
        int,
        doc(
            "Prepared statements each pooled connection caches. 0 when DATABASE_URL goes "
            "through PgBouncer in transaction mode older than 1.21 (Debian 12 ships 1.18), "
            "which cannot follow named prepared statements across server connections.",
            ge=0,
        ),
    ] = DEFAULT_STATEMENT_CACHE_SIZE
    migrations_dir: Annotated[
        str | None,
        doc("Folder of the SQL migrations. Default: the repository's migrations/ folder."),
    ] = None
