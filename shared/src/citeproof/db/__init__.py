"""Database access: settings, the embedded server, pools, migrations."""

from citeproof.db.pool import create_pool, resolve_database_url, resolve_listen_url
from citeproof.db.settings import DatabaseSettings

__all__ = ["DatabaseSettings", "create_pool", "resolve_database_url", "resolve_listen_url"]
