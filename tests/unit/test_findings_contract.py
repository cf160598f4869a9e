"""The finding payload and its fingerprint (what a baseline remembers)."""

from __future__ import annotations

import msgspec
import pytest

from citeproof.contracts.findings import (
    FROM_SOURCE_TEXT,
    Difference,
    Evidence,
    Finding,
    fingerprint,
    rule_for,
)
from citeproof.pipeline import ERROR, NUMBER_CONFLICT, QUOTE_NOT_FOUND, WARNING


def test_a_finding_round_trips_and_knows_its_rule():
    finding = Finding(
        rule=NUMBER_CONFLICT.code,
        message="The claim says 43%, the source 34%.",
        expected="43%",
        found="34%",
        differences=[Difference(field="number", expected="43%", found="34%")],
        evidence=[Evidence(origin=FROM_SOURCE_TEXT, text="Growth fell by 34%.", page=4,
                           printed_page="112")],
        claim_span=(15, 18),
        key="43%",
    )  # fmt: skip
    again = msgspec.json.decode(msgspec.json.encode(finding), type=Finding)
    assert again == finding
    assert again.slug == "number-conflict" and again.level == ERROR
    assert msgspec.structs.replace(again, severity=WARNING).level == WARNING


def test_rules_are_found_by_code_or_slug_and_nothing_else():
    assert rule_for("CP101") is QUOTE_NOT_FOUND
    assert rule_for("cp101") is QUOTE_NOT_FOUND
    assert rule_for("quote-not-found") is QUOTE_NOT_FOUND
    with pytest.raises(KeyError):
        rule_for("quote-missing")


def test_fingerprints_ignore_spacing_case_and_unicode_form_but_not_content():
    base = fingerprint("CP201", "Growth fell by 43% [12].", "43%")
    assert fingerprint("CP201", "  growth  fell by\n43% [12]. ", "43%") == base
    assert fingerprint("CP201", "Growth fell by 43%\u00a0[12].", "43%") == base  # NFKC
    assert fingerprint("CP201", "Growth fell by 44% [12].", "44%") != base
    assert fingerprint("CP101", "Growth fell by 43% [12].", "43%") != base
    assert fingerprint("contradicted", "Growth fell by 43% [12].") != base
    assert len(base) == 16
