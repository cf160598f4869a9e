"""Every process boots its database the same way (`citeproof.db.boot.migrate_at_boot`): the
API, the workers, `citeproof dev` and the CLI all honour CITEPROOF_MIGRATIONS_DIR."""

from __future__ import annotations

import ast
from pathlib import Path

import asyncpg

from citeproof.db.boot import migrate_at_boot
from citeproof.db.migrate import default_migrations_dir
from citeproof.db.settings import DatabaseSettings
from tests.integration.queue_support import empty_database

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [ROOT / "shared" / "src", *sorted((ROOT / "services").glob("*/src"))]
# Only the boot helper and the explicit `citeproof migrate --dir` call the runner themselves.
ALLOWED_CALLERS = {"citeproof/db/boot.py", "citeproof/cli/_migrate.py"}


async def test_boot_applies_the_configured_migrations_folder(database_url, tmp_path):
    url = await empty_database(database_url, "citeproof_boot")
    for path in default_migrations_dir().glob("*.sql"):
        (tmp_path / path.name).write_text(path.read_text())
    (tmp_path / "9000_boot_probe.sql").write_text("CREATE TABLE boot_probe (id int);\n")
    applied = await migrate_at_boot(DatabaseSettings(url=url, migrations_dir=str(tmp_path)))
    assert applied[-1] == 9000
    conn = await asyncpg.connect(url)
    try:
        assert await conn.fetchval("SELECT to_regclass('boot_probe') IS NOT NULL")
    finally:
        await conn.close()


def test_no_process_applies_migrations_its_own_way():
    callers = set()
    for source in SOURCES:
        for path in source.rglob("*.py"):
            tree = ast.parse(path.read_text(), filename=str(path))
            for node in ast.walk(tree):
                if (
                    isinstance(node, ast.Call)
                    and getattr(node.func, "id", getattr(node.func, "attr", None))
                    == "apply_migrations"
                ):
                    callers.add(path.relative_to(source).as_posix())
    assert callers <= ALLOWED_CALLERS, sorted(callers - ALLOWED_CALLERS)
