"""Author–year reference lists drawn at random: the layouts a reference-list parser has not seen.

The style matrix prints each citation style one way. Theses built independently print their
lists in ways nobody wrote down: titles without full stops, years in brackets or not, "and" or
"&", initials with or without dots, titles holding dates, numbers, dashes and date ranges, an
entry's title starting on its own line, the next entry starting on the line right after. An
`EntryFormat` is one such way, drawn from a seed (`random_entry_format`); `format_entry` prints a
work in it, with a share of its entries broken by hand ("\\n": the renderers print a line break
there) right after "(2020)." or before any word of the rest; `varied_title` puts a date, a date
range, a count or a dash into a title.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

import msgspec


class Work(Protocol):
    """What an entry prints of a cited work (`citestyles.Work` has it)."""

    @property
    def authors(self) -> Sequence[tuple[str, str]]: ...
    @property
    def year(self) -> int: ...
    @property
    def title(self) -> str: ...
    @property
    def venue(self) -> str | None: ...
    @property
    def volume(self) -> int | None: ...
    @property
    def pages(self) -> str | None: ...
    @property
    def url(self) -> str | None: ...


# How the authors are printed.
NAMES_INVERTED = "inverted"  # "Smith, J. A."
NAMES_GIVEN_FIRST = "given_first"  # "J. A. Smith" (first author inverted or not)
NAMES_COMPACT = "compact"  # "Smith JA"
NAME_ORDERS = (NAMES_INVERTED, NAMES_GIVEN_FIRST, NAMES_COMPACT)
# How the year follows the authors.
YEAR_BRACKETED_STOP = "(2020)."
YEAR_BRACKETED = "(2020)"
YEAR_STOP = "2020."
YEAR_COMMA = ", 2020,"
YEAR_FORMS = (YEAR_BRACKETED_STOP, YEAR_BRACKETED, YEAR_STOP, YEAR_COMMA)
# How the title ends before the venue.
TITLE_STOP = "."
TITLE_COMMA = ","
TITLE_BARE = ""
TITLE_ENDS = (TITLE_STOP, TITLE_COMMA, TITLE_BARE)

# Things that go into titles: date ranges, months, counts, percentages, dashes.
_TITLE_ADDITIONS = (
    "in {year0}–{year1}",
    "during {month0}–{month1} {year1}",
    "from {month0} to {month1} {year1}",
    "{year0}–{year1}",
    "in {place}, {year1}",
    "a {n}-month follow-up",
    "{n} years on",
    "— {pct}% of cases",
    "– findings from {n} sites",
    "wave {n_small} ({year0}–{year1})",
    "1 January {year1} – 30 June {year1}",
    "COVID-19, {year1}",
)
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "September")
_PLACES = ("Lombardy, Italy", "South Korea", "New York City", "Wuhan, China", "São Paulo, Brazil")
# Where a title addition goes: after a colon, in parentheses, or run into the title.
_JOINS = (": ", " ", " (", ", ")


class EntryFormat(msgspec.Struct, frozen=True, kw_only=True):
    """One way of printing an author–year entry."""

    name_order: str = NAMES_INVERTED
    initial_dots: bool = True
    # Between the last two authors: " and ", " & ", ", & ", ", ".
    last_joiner: str = " and "
    # Three or more authors: all of them, or the first and "et al.".
    et_al_after: int | None = None
    year_form: str = YEAR_BRACKETED_STOP
    title_end: str = TITLE_STOP
    # The venue printed as "Journal 3(2), 1–9" or "Journal, 3, 1–9".
    venue_issue: bool = True
    final_stop: bool = True
    # Web pages: "Available at URL", "Retrieved from URL", the URL alone, or nothing at all.
    web_lead: str = ""
    # The share of entries broken by hand, and where: after the year or anywhere in the title.
    break_share: float = 0.0
    # Parenthetical markers print "&" between two authors (APA) rather than "and".
    marker_ampersand: bool = False
    # Web pages and reports printed without their URL: the entry ends with its title (no full
    # stop when the format has none), and the next entry may start on the very next line.
    reports_without_url: bool = False


def random_entry_format(seed: int | str) -> EntryFormat:
    rng = random.Random(f"entry-format/{seed}")
    return EntryFormat(
        name_order=rng.choice(NAME_ORDERS),
        initial_dots=rng.random() < 0.7,
        last_joiner=rng.choice((" and ", " & ", ", & ", ", ", ", and ")),
        et_al_after=rng.choice((None, None, 3, 6)),
        year_form=rng.choice(YEAR_FORMS),
        title_end=rng.choice((TITLE_STOP, TITLE_COMMA, TITLE_BARE, TITLE_BARE)),
        venue_issue=rng.random() < 0.6,
        final_stop=rng.random() < 0.6,
        web_lead=rng.choice(("", "Available at ", "Retrieved from ", "Online: ")),
        break_share=rng.choice((0.0, 0.15, 0.3)),
        marker_ampersand=rng.random() < 0.5,
        reports_without_url=rng.random() < 0.5,
    )


def _initials(given: str, dots: bool) -> str:
    parts = ["-".join(f"{p[0]}." for p in word.split("-")) for word in given.split()]
    text = " ".join(parts)
    return text if dots else text.replace(".", "").replace(" ", "")


def _person(given: str, surname: str, fmt: EntryFormat, first: bool) -> str:
    initials = _initials(given, fmt.initial_dots)
    if fmt.name_order == NAMES_INVERTED or (fmt.name_order == NAMES_GIVEN_FIRST and first):
        return f"{surname}, {initials}"
    if fmt.name_order == NAMES_COMPACT:
        return f"{surname} {_initials(given, False)}"
    return f"{initials} {surname}"


def format_authors(work: Work, fmt: EntryFormat) -> str:
    if len(work.authors) == 1 and not work.authors[0][0]:
        return work.authors[0][1]  # an organisation
    people = [
        _person(given, surname, fmt, first=index == 0)
        for index, (given, surname) in enumerate(work.authors)
    ]
    if fmt.et_al_after is not None and len(people) > fmt.et_al_after:
        return f"{', '.join(people[: fmt.et_al_after])}, et al."
    if len(people) == 1:
        return people[0]
    return ", ".join(people[:-1]) + fmt.last_joiner + people[-1]


def _year(year: str, fmt: EntryFormat, authors: str) -> str:
    """The authors and the year as the format joins them."""
    closed = authors if authors.endswith(".") else f"{authors}."
    if fmt.year_form == YEAR_BRACKETED_STOP:
        return f"{authors} ({year})."
    if fmt.year_form == YEAR_BRACKETED:
        return f"{authors} ({year})"
    if fmt.year_form == YEAR_STOP:
        return f"{closed} {year}."
    return f"{authors.rstrip('.')}, {year},"


def format_entry(
    work: Work, fmt: EntryFormat, suffix: str, rng: random.Random | None = None
) -> str:
    """The work as an entry of a list printed in ``fmt``; ``rng`` (when given) decides the
    hand-made line breaks ("\\n")."""
    head = _year(f"{work.year}{suffix}", fmt, format_authors(work, fmt))
    title = work.title
    if fmt.title_end and not title.endswith(("?", "!")):
        title = f"{title}{fmt.title_end}"
    if work.venue:
        venue = (
            f"{work.venue} {work.volume}({(work.volume or 1) % 7 + 1}), {work.pages}"
            if fmt.venue_issue
            else f"{work.venue}, {work.volume}, {work.pages}"
        )
        tail = f"{venue}{'.' if fmt.final_stop else ''}"
    elif fmt.reports_without_url:
        tail = ""
    else:
        tail = f"{fmt.web_lead}{work.url}"
    entry = f"{head} {title} {tail}".rstrip()
    if rng is not None and rng.random() < fmt.break_share:
        entry = _broken(entry, head, rng)
    return entry


def _broken(entry: str, head: str, rng: random.Random) -> str:
    """A line break by hand: right after the year (the title on its own line), or before any
    word of the rest."""
    rest = entry[len(head) + 1 :]
    if rng.random() < 0.5:
        return f"{head}\n{rest}"
    words = rest.split(" ")
    if len(words) < 3:
        return f"{head}\n{rest}"
    cut = rng.randint(1, len(words) - 1)
    return f"{head} {' '.join(words[:cut])}\n{' '.join(words[cut:])}"


def varied_title(title: str, rng: random.Random) -> str:
    """``title`` with a date, a date range, a count or a dash put into it."""
    year1 = rng.randint(2019, 2022)
    addition = rng.choice(_TITLE_ADDITIONS).format(
        year0=year1 - 1,
        year1=year1,
        month0=rng.choice(_MONTHS[:4]),
        month1=rng.choice(_MONTHS[4:]),
        place=rng.choice(_PLACES),
        n=rng.randint(2, 48),
        n_small=rng.randint(1, 4),
        pct=rng.randint(5, 95),
    )
    join = rng.choice(_JOINS)
    base = title.rstrip(".?! ")
    if join == " (":
        return f"{base} ({addition})"
    if rng.random() < 0.25:
        # At the front: "2019–2020 influenza season: ...".
        return f"{addition[:1].upper()}{addition[1:]}: {base}"
    return f"{base}{join}{addition}"
