"""`.env.example` is `citeproof config --env`; every setting reads NAME_FILE for secrets."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeproof.cli._config import env_example
from citeproof.db.settings import DatabaseSettings
from citeproof.settings import SettingsError, load

ENV_EXAMPLE = Path(__file__).resolve().parents[2] / ".env.example"


def test_env_example_lists_every_setting_as_citeproof_config_prints_it() -> None:
    committed = ENV_EXAMPLE.read_text(encoding="utf-8")
    stale = [line for line in env_example().splitlines() if line not in committed.splitlines()]
    fix = "run `citeproof config --env > .env.example`"
    assert not stale, f".env.example is out of date; {fix}:\n" + "\n".join(stale)
    assert "#DATABASE_URL_FILE=/run/secrets/database_url" in committed
    assert "#CITEPROOF_JUDGE_LLM_API_KEY_FILE=" in committed


def test_a_setting_is_read_from_its_file(tmp_path: Path) -> None:
    secret = tmp_path / "database_url"
    secret.write_text("postgresql://app:s3cret@db/citeproof\n")
    settings = load(DatabaseSettings, {"DATABASE_URL_FILE": str(secret)})
    assert settings.url == "postgresql://app:s3cret@db/citeproof"  # the trailing newline is not
    # The variable itself wins over its file.
    both = {"DATABASE_URL": "postgresql://direct/x", "DATABASE_URL_FILE": str(secret)}
    assert load(DatabaseSettings, both).url == "postgresql://direct/x"
    with pytest.raises(SettingsError, match=r"DATABASE_URL_FILE=.*cannot read it"):
        load(DatabaseSettings, {"DATABASE_URL_FILE": str(tmp_path / "missing")})
