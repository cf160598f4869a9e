"""docs/rules.md has one entry per rule of the registry, and names no rule that does not exist:
each entry's heading is `## CODE slug` (SARIF's helpUri and GET /rules link to its anchor), and
it states the rule's name and default severity, what triggers it, an example, the fix and how
to disable or re-level it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from citeproof.contracts.findings import rule_anchor
from citeproof.pipeline import ON_CITATION, RULES, RULES_BY_CODE

RULES_DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
HEADING = re.compile(r"^## (\S+) (\S+)\s*$", re.MULTILINE)
# Any rule-like code anywhere in the text (tables, prose, examples).
CODE = re.compile(r"\bCP\d{3}\b")
SECTIONS = (
    "**What triggers it:**",
    "**Example:**",
    "**How to fix it:**",
    "**Disable / re-level:**",
)


def _entries(text: str) -> dict[str, tuple[str, str]]:
    """code -> (slug, body) for every `## CODE slug` heading."""
    found: dict[str, tuple[str, str]] = {}
    headings = list(HEADING.finditer(text))
    for heading, following in zip(headings, [*headings[1:], None], strict=True):
        end = following.start() if following else len(text)
        code, slug = heading.group(1), heading.group(2)
        assert code not in found, f"two entries for {code}"
        found[code] = (slug, text[heading.end() : end])
    return found


@pytest.fixture(scope="module")
def text() -> str:
    return RULES_DOC.read_text(encoding="utf-8")


def test_every_rule_has_one_entry_and_every_entry_is_a_rule(text):
    entries = _entries(text)
    assert set(entries) == {rule.code for rule in RULES}, (
        f"missing: {sorted({r.code for r in RULES} - set(entries))}; "
        f"unknown: {sorted(set(entries) - {r.code for r in RULES})}"
    )
    assert list(entries) == [rule.code for rule in RULES], "entries are in code order"
    for code, (slug, _) in entries.items():
        assert slug == RULES_BY_CODE[code].slug, (code, slug)
    # No other heading or mention names a code the registry does not hold.
    unknown = set(CODE.findall(text)) - set(RULES_BY_CODE)
    assert not unknown, sorted(unknown)


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.code)
def test_each_entry_says_what_the_registry_says_and_how_to_act(text, rule):
    _, body = _entries(text)[rule.code]
    subject = "on a citation" if rule.subject == ON_CITATION else "on a reference entry"
    assert f"**{rule.name}** · default severity **{rule.severity}** · {subject}" in body
    assert " ".join(rule.summary.split()) in " ".join(body.split())
    for section in SECTIONS:
        assert body.count(section) == 1, (rule.code, section)
    configuration = body.split("**Disable / re-level:**", 1)[1]
    assert f'disable = ["{rule.slug}"]' in configuration
    assert f"?disable={rule.code}" in configuration


def test_headings_make_the_anchors_links_point_to(text):
    """GitHub's anchor of `## CP101 quote-not-found` is `cp101-quote-not-found`."""
    for match in HEADING.finditer(text):
        rule = RULES_BY_CODE[match.group(1)]
        anchor = re.sub(r"[^a-z0-9 -]", "", f"{match.group(1)} {match.group(2)}".lower())
        assert anchor.replace(" ", "-") == rule_anchor(rule)


def test_an_unknown_or_missing_rule_is_caught():
    """The checks above would fail on a doc with a stale or a missing entry."""
    stale = "## CP999 gone-rule\n\nbody\n## CP101 quote-not-found\n\nbody\n"
    assert set(_entries(stale)) - set(RULES_BY_CODE) == {"CP999"}
    assert {rule.code for rule in RULES} - set(_entries(stale))
