"""The rules registry, severities and risk bands as the reports show them: names, help texts,
colours. The HTML report uses them directly; the web UI reads them from `GET /rules` (public, no
user data), so a rule added to the pipeline contract shows up there with its name and help."""

from __future__ import annotations

from typing import Final

import msgspec

from citeproof.api.reports.view import ORIGIN_NAMES
from citeproof.contracts.findings import rule_anchor
from citeproof.pipeline import (
    BAND_NAMES,
    BANDS,
    ERROR,
    INFO,
    LABEL_FINDINGS,
    LIKELY_FINE,
    LIKELY_PROBLEM,
    RULES,
    SEVERITIES,
    UNCERTAIN,
    UNJUDGED,
    WARNING,
)

# Where each rule is documented (one entry per rule; tests/unit/test_rules_doc.py).
RULES_DOC: Final = "docs/rules.md"

SEVERITY_NAMES: Final = {ERROR: "Error", WARNING: "Warning", INFO: "Info"}
# (text colour, background), chosen for contrast on white.
SEVERITY_COLOURS: Final = {
    ERROR: ("#ffffff", "#b02a37"),
    WARNING: ("#7a3e00", "#ffe3c2"),
    INFO: ("#0b4a6f", "#dbeefe"),
}
BAND_DESCRIPTIONS: Final = {
    LIKELY_PROBLEM: "The judge thinks the source probably does not back the claim as written.",
    UNCERTAIN: "The judge could not tell; read the source yourself.",
    LIKELY_FINE: "The judge thinks the source backs the claim (it can still be wrong).",
}
BAND_COLOURS: Final = {
    LIKELY_PROBLEM: ("#ffffff", "#b02a37"),
    UNCERTAIN: ("#7a3e00", "#ffe3c2"),
    LIKELY_FINE: ("#0f5132", "#d1f2e0"),
}
# A strong colour of each band on white (the web UI's counts), where the badge colours are a
# text/background pair.
BAND_ACCENTS: Final = {
    LIKELY_PROBLEM: "#b02a37",
    UNCERTAIN: "#b25e00",
    LIKELY_FINE: "#0f7a4a",
}
UNJUDGED_ACCENT: Final = "#5b6478"
UNJUDGED_NAME: Final = "Not judged"
UNJUDGED_DESCRIPTION: Final = (
    "No judge read this citation: no source, no claim, a judge failure, or not yet."
)
UNJUDGED_COLOURS: Final = ("#41464b", "#e2e3e5")
# The pipeline label each label-finding rule stands for.
_LABEL_OF_RULE: Final = {rule.code: label for label, rule in LABEL_FINDINGS.items()}


class RuleInfo(msgspec.Struct, frozen=True):
    code: str
    slug: str
    severity: str  # the default
    subject: str  # "citation" or "entry"
    name: str
    summary: str
    fix: str
    # The pipeline label the rule reports (reference_missing for CP401, ...), else null.
    label: str | None
    # docs/rules.md's anchor for the rule.
    doc: str


class SeverityInfo(msgspec.Struct, frozen=True):
    severity: str
    name: str
    text_colour: str
    background: str


class BandInfo(msgspec.Struct, frozen=True):
    band: str  # a pipeline band, or "unjudged"
    name: str
    description: str
    text_colour: str
    background: str
    accent: str


class RuleCatalogue(msgspec.Struct, frozen=True):
    rules: list[RuleInfo]  # in code order
    severities: list[SeverityInfo]  # worst first
    bands: list[BandInfo]  # worst first, then "not judged"
    # Evidence origin -> a person's name for it ("reference-list" -> "Reference list").
    origins: dict[str, str]


def band_name(band: str | None) -> str:
    return BAND_NAMES.get(band or "", UNJUDGED_NAME)


def band_colours(band: str | None) -> tuple[str, str]:
    return BAND_COLOURS.get(band or "", UNJUDGED_COLOURS)


def rule_catalogue() -> RuleCatalogue:
    return RuleCatalogue(
        rules=[
            RuleInfo(
                code=rule.code,
                slug=rule.slug,
                severity=rule.severity,
                subject=rule.subject,
                name=rule.name,
                summary=rule.summary,
                fix=rule.fix,
                label=_LABEL_OF_RULE.get(rule.code),
                doc=f"{RULES_DOC}#{rule_anchor(rule)}",
            )
            for rule in RULES
        ],
        severities=[
            SeverityInfo(
                severity=severity,
                name=SEVERITY_NAMES[severity],
                text_colour=SEVERITY_COLOURS[severity][0],
                background=SEVERITY_COLOURS[severity][1],
            )
            for severity in SEVERITIES
        ],
        bands=[
            BandInfo(
                band=band,
                name=BAND_NAMES[band],
                description=BAND_DESCRIPTIONS[band],
                text_colour=BAND_COLOURS[band][0],
                background=BAND_COLOURS[band][1],
                accent=BAND_ACCENTS[band],
            )
            for band in BANDS
        ]
        + [
            BandInfo(
                band=UNJUDGED,
                name=UNJUDGED_NAME,
                description=UNJUDGED_DESCRIPTION,
                text_colour=UNJUDGED_COLOURS[0],
                background=UNJUDGED_COLOURS[1],
                accent=UNJUDGED_ACCENT,
            )
        ],
        origins=dict(ORIGIN_NAMES),
    )
