"""The README's configuration table is `citeproof config`'s output: every setting, current text."""

from __future__ import annotations

import argparse
import contextlib
import io
from pathlib import Path

from citeproof.cli import _config

README = Path(__file__).resolve().parents[2] / "README.md"


def test_every_setting_appears_in_the_readme_as_citeproof_config_prints_it() -> None:
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert _config.run(argparse.Namespace()) == 0
    rows = [line for line in printed.getvalue().splitlines() if line.startswith("| `")]
    readme = README.read_text(encoding="utf-8")
    stale = [row for row in rows if row not in readme]
    assert len(rows) > 50
    assert not stale, "README configuration table is out of date; paste `citeproof config`:\n" + (
        "\n".join(stale)
    )
