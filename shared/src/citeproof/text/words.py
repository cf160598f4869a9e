"""Word-level primitives of the judge's cues and of quantity extraction
(`citeproof.text.quantities`): stop words, a crude stem, and digit-string numerals. Shared so
that the judge and the retriever's content rules read numbers and words the same way."""

from __future__ import annotations

import re
from typing import Final

STOPWORDS: Final = frozenset(
    """a an the of in on at to for from by with and or as is are was were be been being this that
    these those it its their there here which who whom whose what when where why how than then so
    such into onto over under about after before between during through per via also both each
    other can has have had do does did will would shall should may might could we our they them he
    she his her i you your us one ones only very just more most less least all any some many much
    among within against up down out off new study studies patients patient results result showed
    show shows found find data using used use based""".split()
)

# Not the digits of a name such as COVID-19 or SARS-CoV-2 (a letter, or a letter and a hyphen,
# right before them): those are the same in every abstract and say nothing about agreement.
NUMBER_PATTERN: Final = re.compile(r"(?<![A-Za-z0-9.,])(?<![A-Za-z]-)\d+(?:[.,]\d+)*")
_THOUSANDS = re.compile(r"\d{1,3}(,\d{3})+")


def stem(token: str) -> str:
    """A deliberately crude stem so that plural/verb forms meet ("infections" ~ "infection")."""
    for suffix in ("ing", "edly", "ed", "es", "s"):
        if len(token) > len(suffix) + 3 and token.endswith(suffix):
            return token[: -len(suffix)]
    return token


def parse_numeral(raw: str) -> float | None:
    """The value of a digit string matched by `NUMBER_PATTERN`: "1,840" is a thousands
    separator, "0,5" a decimal comma; None for what is not a number ("1.2.3")."""
    cleaned = raw.replace(",", "") if _THOUSANDS.fullmatch(raw) else raw
    try:
        return float(cleaned.replace(",", "."))
    except ValueError:
        return None
