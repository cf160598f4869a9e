"""One thesis, many citation styles: the content of the extraction benchmark's style matrix.

A `ThesisContent` is a list of cited works and of claims citing them. `styled(content, style)`
prints it in one citation style: the body paragraphs (as runs, so that superscript markers stay
markup rather than text) and the reference list, plus the answer key - which entry each marker
names. The same claims and works in every style, so a parser's results can be compared across
styles and with the key, and so a verdict for (claim, source) must not depend on the style.

Styles (`STYLES`):
- ``numeric``: "[3]", "[3, 7]"; entries "[n] A. Surname, B. Other. Title. Venue, 2020." in order
  of first citation.
- ``superscript``: the same list, markers as superscript numbers after the word.
- ``author_year``: Harvard/ACL, "(Surname et al., 2020a)" and "Surname and Other (2020)";
  entries "Surname, A., Other, B. and Third, C. 2020a. Title. Venue 3(2), 1-9." alphabetical.
- ``author_year_bare``: as the issue reports it from real theses: one entry per line with a gap
  after it, no full stop after the title (it runs into the venue after a comma), titles ending
  in "?" and web references without a journal.
- ``apa``: "(Surname et al., 2020)", "Surname, A., Other, B., & Third, C. (2020a). Title.
  Venue, 3(2), 1-9. https://doi.org/..." alphabetical.
- ``chicago_notes``: notes-bibliography; a superscript note number after the claim, the notes
  (full, shortened, "Ibid.") as a numbered list under "Notes" before the bibliography.
- ``chicago_footnotes``: the same notes printed where Chicago theses usually have them: at the
  foot of the page in PDF, as Word footnotes (word/footnotes.xml) in DOCX.

Beyond the matrix, ``author_year_random`` prints an author–year list in an `EntryFormat` drawn
at random (`citeproof.devkit.pdfgen.reference_formats`): the lists nobody wrote a style for.
"""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict
from collections.abc import Iterable

import msgspec

from citeproof.devkit.pdfgen.reference_formats import EntryFormat, format_entry, varied_title

STYLE_NUMERIC = "numeric"
STYLE_SUPERSCRIPT = "superscript"
STYLE_AUTHOR_YEAR = "author_year"
STYLE_AUTHOR_YEAR_BARE = "author_year_bare"
STYLE_APA = "apa"
STYLE_CHICAGO_NOTES = "chicago_notes"
STYLE_CHICAGO_FOOTNOTES = "chicago_footnotes"
# Not in the matrix: an author-year list in a randomly drawn `EntryFormat`.
STYLE_AUTHOR_YEAR_RANDOM = "author_year_random"
STYLES = (
    STYLE_NUMERIC,
    STYLE_SUPERSCRIPT,
    STYLE_AUTHOR_YEAR,
    STYLE_AUTHOR_YEAR_BARE,
    STYLE_APA,
    STYLE_CHICAGO_NOTES,
    STYLE_CHICAGO_FOOTNOTES,
)
NUMBERED_STYLES = frozenset({STYLE_NUMERIC, STYLE_SUPERSCRIPT})
# Notes-bibliography styles: the same notes and bibliography, printed as endnotes or footnotes.
NOTE_STYLES = frozenset({STYLE_CHICAGO_NOTES, STYLE_CHICAGO_FOOTNOTES})

# Run kinds of a body paragraph.
RUN_TEXT = "text"
RUN_SUPERSCRIPT = "superscript"

# Surnames with the features that break naive matching: diacritics, particles, apostrophes,
# hyphens, letters outside Latin-1's plain range.
SURNAMES = (
    "García", "Müller", "van Dijk", "O'Brien", "de la Cruz", "Nguyen", "Kowalski", "Novak",
    "Tanaka", "Øberg", "Lindqvist", "Hofer", "Moreau", "Okafor", "Jimeno-Yepes", "Schmidt",
    "Rossi", "Dubois", "Kim", "Chen", "Silva", "Andersen", "Papadopoulos", "Fischer", "Costa",
    "Nowak", "Yilmaz", "Ivanova", "Haddad", "McDonald", "Brennan", "Weber", "Sato", "Kaur",
    "Mensah", "Horvath", "Larsen", "Ferreira", "Bianchi", "Janssen",
)  # fmt: skip
GIVEN_NAMES = (
    "Ana", "Jonas", "Pieter", "Siobhan", "María", "Linh", "Piotr", "Petra", "Hiroshi", "Ingrid",
    "Sofia", "Markus", "Claire", "Chidi", "Antonio", "Eva", "Luca", "Élodie", "Jean-Paul", "Wei",
)  # fmt: skip
ORGANISATIONS = ("World Health Organization", "European Centre for Disease Prevention")
VENUES = (
    "Journal of Infection", "The Lancet Respiratory Medicine", "Clinical Microbiology Reviews",
    "Emerging Infectious Diseases", "Nature Medicine", "BMJ Open", "Vaccine",
    "Journal of Hospital Infection",
)  # fmt: skip
# Share of works that are web pages without a journal (in every style).
WEB_SHARE = 0.12
# Share of claims that cite a second work besides their own.
SECOND_CITATION_SHARE = 0.15
# Claims per body paragraph.
CLAIMS_PER_PARAGRAPH = 4


class Work(msgspec.Struct, frozen=True, kw_only=True):
    """A cited work. ``authors`` are (given, surname) pairs; an organisation has given ''."""

    key: str
    authors: tuple[tuple[str, str], ...]
    year: int
    title: str
    venue: str | None = None
    volume: int | None = None
    pages: str | None = None
    doi: str | None = None
    url: str | None = None


class Claim(msgspec.Struct, frozen=True):
    text: str
    work_keys: tuple[str, ...]


class ThesisContent(msgspec.Struct, frozen=True):
    title: str
    author: str
    works: tuple[Work, ...]
    claims: tuple[Claim, ...]


class Run(msgspec.Struct, frozen=True):
    text: str
    kind: str = RUN_TEXT


class KeyCitation(msgspec.Struct, frozen=True):
    """One cited work of one claim: the claim's position, the work and the marker printed."""

    claim: int
    work_key: str
    marker: str


class StyledThesis(msgspec.Struct, frozen=True):
    style: str
    title: str
    author: str
    paragraphs: tuple[tuple[Run, ...], ...]
    # Entries as printed, with their label ("[3]") or None, and the work each one is.
    entries: tuple[tuple[str | None, str], ...]
    entry_work_keys: tuple[str, ...]
    claims: tuple[str, ...]
    # Each claim's sentence as printed, markers included (superscripts as plain digits).
    sentences: tuple[str, ...]
    citations: tuple[KeyCitation, ...]
    # Chicago notes-bibliography: the notes, numbered from 1, printed before the bibliography.
    notes: tuple[str, ...] = ()
    # The notes are printed as footnotes (page foot, Word footnotes) rather than as a list.
    footnotes: bool = False


def _rng(*parts: object) -> random.Random:
    seed = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return random.Random(int.from_bytes(seed[:8], "big"))


def content_from_checkcovid(
    claims: Iterable[dict],
    corpus: dict[str, dict],
    *,
    works: int = 48,
    per_work: int = 3,
    seed: int | str | None = None,
    varied_titles_share: float = 0.0,
) -> ThesisContent:
    """A thesis from Check-COVID rows: ``per_work`` claims for each of ``works`` abstracts.

    Authors, years and venues are invented deterministically from the abstract's id (the corpus
    has none); some works share first author and year so that suffixes "a"/"b" are needed, one
    is by an organisation, and a few are web pages. With a ``seed`` the abstracts are a random
    draw and the invented metadata differ per seed; ``varied_titles_share`` of the titles get a
    date, a date range, a count or a dash (`reference_formats.varied_title`).
    """
    by_cord: dict[str, list[str]] = defaultdict(list)
    for row in claims:
        text = " ".join(row["claim"].split())
        cord = row["cord_id"]
        if cord in corpus and text not in by_cord[cord]:
            by_cord[cord].append(text)
    eligible = sorted(cord for cord, texts in by_cord.items() if len(texts) >= 2)
    if seed is None:
        chosen = eligible[:works]
    else:
        chosen = sorted(_rng("works", seed).sample(eligible, min(works, len(eligible))))
    made: list[Work] = []
    for index, cord in enumerate(chosen):
        rng = _rng("work", cord) if seed is None else _rng("work", seed, cord)
        count = rng.choice((1, 1, 2, 2, 3, 4, 5))
        surnames = rng.sample(SURNAMES, count)
        authors = tuple((rng.choice(GIVEN_NAMES), surname) for surname in surnames)
        year = rng.randint(2019, 2022)
        if index % 11 == 5 and made:
            # Same first author and year as the previous work: "2020a" and "2020b".
            previous = made[-1]
            authors = (previous.authors[0], *authors[1:])
            year = previous.year
        if index == 7:
            authors = ((("", ORGANISATIONS[0])),)
        title = " ".join(corpus[cord]["title"].split()).rstrip(".")
        if index % 9 == 4 and not title.endswith("?"):
            title = _as_question(title)
        if varied_titles_share and rng.random() < varied_titles_share:
            title = varied_title(title, rng)
        web = rng.random() < WEB_SHARE
        made.append(
            Work(
                key=cord,
                authors=authors,
                year=year,
                title=title,
                venue=None if web else rng.choice(VENUES),
                volume=None if web else rng.randint(3, 60),
                pages=None if web else f"{rng.randint(1, 400)}–{rng.randint(401, 900)}",
                doi=None if web else f"10.5555/{cord.lower()}",
                url=f"https://www.example.org/reports/{cord.lower()}" if web else None,
            )
        )
    claim_rows: list[Claim] = []
    for index, cord in enumerate(chosen):
        for text in by_cord[cord][:per_work]:
            keys: tuple[str, ...] = (cord,)
            rng = _rng("claim", text)
            if rng.random() < SECOND_CITATION_SHARE:
                other = chosen[(index + rng.randint(1, len(chosen) - 1)) % len(chosen)]
                keys = (cord, other)
            claim_rows.append(Claim(text=text.rstrip(". "), work_keys=keys))
    order = _rng("order", len(claim_rows))
    order.shuffle(claim_rows)
    return ThesisContent(
        title="Transmission, testing and treatment of COVID-19: a literature review",
        author="Generated Thesis Author",
        works=tuple(made),
        claims=tuple(claim_rows),
    )


def _as_question(title: str) -> str:
    return f"Does {title[:1].lower()}{title[1:]} hold?"


# --- names in markers and entries -----------------------------------------------------------
def _surname(work: Work, position: int = 0) -> str:
    return work.authors[position][1]


def _is_organisation(work: Work) -> bool:
    return len(work.authors) == 1 and not work.authors[0][0]


def _initials(given: str) -> str:
    """ "Ana" -> "A.", "Jean-Paul" -> "J.-P.", "Ana Maria" -> "A. M." """
    return " ".join("-".join(f"{part[0]}." for part in word.split("-")) for word in given.split())


def _suffixes(works: tuple[Work, ...]) -> dict[str, str]:
    """Year suffix per work key for works sharing the whole author list and year."""
    groups: dict[tuple, list[Work]] = defaultdict(list)
    for work in works:
        groups[(tuple(a[1] for a in work.authors), work.year)].append(work)
    first_author_year: dict[tuple, list[Work]] = defaultdict(list)
    for work in works:
        first_author_year[(work.authors[0][1], work.year, min(len(work.authors), 3))].append(work)
    suffixes: dict[str, str] = {}
    # Markers print "Surname et al., 2020" for every work of three or more authors: works that
    # look the same in a marker need suffixes too (APA's rule).
    for group in [*groups.values(), *first_author_year.values()]:
        if len(group) > 1:
            for letter, work in zip("abcdefgh", sorted(group, key=lambda w: w.title), strict=False):
                suffixes.setdefault(work.key, letter)
    return suffixes


def _marker_names(work: Work, apa: bool) -> str:
    if _is_organisation(work):
        return _surname(work)
    if len(work.authors) == 1:
        return _surname(work)
    if len(work.authors) == 2:
        joiner = " & " if apa else " and "
        return _surname(work) + joiner + _surname(work, 1)
    return f"{_surname(work)} et al."


def _entry_authors(work: Work, style: str) -> str:
    if _is_organisation(work):
        return _surname(work)
    if style in NUMBERED_STYLES:
        names = [f"{_initials(given)} {surname}" for given, surname in work.authors]
        return ", ".join(names)
    inverted = [f"{surname}, {_initials(given)}" for given, surname in work.authors]
    if len(inverted) == 1:
        return inverted[0]
    joiner = ", & " if style == STYLE_APA else " and "
    return ", ".join(inverted[:-1]) + joiner + inverted[-1]


def _entry(work: Work, style: str, suffix: str) -> str:
    authors = _entry_authors(work, style)
    year = f"{work.year}{suffix}"
    imprint = ""
    if work.venue:
        imprint = f"{work.venue} {work.volume}, {work.pages}"
    if style in NUMBERED_STYLES:
        tail = f"{imprint}, {work.year}." if imprint else f"{work.url}, {work.year}."
        return f"{authors}. {_sentence(work.title)} {tail}"
    if style == STYLE_AUTHOR_YEAR:
        tail = f"{imprint}." if imprint else f"Available at {work.url}"
        return f"{authors.rstrip('.')}. {year}. {_sentence(work.title)} {tail}"
    if style == STYLE_APA:
        if imprint:
            venue = f"{work.venue}, {work.volume}, {work.pages}."
            return f"{authors} ({year}). {_sentence(work.title)} {venue} https://doi.org/{work.doi}"
        return f"{authors} ({year}). {_sentence(work.title)} {work.url}"
    if style in NOTE_STYLES:
        if _is_organisation(work):
            names = _surname(work)
        else:
            (given, surname), *others = work.authors
            names = f"{surname}, {given}" + "".join(
                f", {'and ' if n == len(others) - 1 and len(others) > 0 else ''}{g} {s}"
                for n, (g, s) in enumerate(others)
            )
        if imprint:
            imprint = f"{work.venue} {work.volume} ({work.year}): {work.pages}"
            return f"{names}. {_sentence(work.title)} {imprint}."
        return f"{names}. {_sentence(work.title)} {work.year}. {work.url}."
    # author_year_bare: no full stop after the title; web pages without a journal end on the URL.
    title = work.title
    if imprint:
        return f"{authors} ({year}) {title}, {imprint}"
    return f"{authors} ({year}) {title} {work.url}"


def _sentence(title: str) -> str:
    return title if title.endswith(("?", "!")) else f"{title}."


# --- styling ---------------------------------------------------------------------------------
def styled(
    content: ThesisContent, style: str, entry_format: EntryFormat | None = None
) -> StyledThesis:
    """``content`` printed in ``style``; ``author_year_random`` needs the ``entry_format``."""
    if style == STYLE_AUTHOR_YEAR_RANDOM:
        if entry_format is None:
            raise ValueError(f"style {style!r} needs an entry_format")
    elif style not in STYLES:
        raise ValueError(f"unknown citation style {style!r}; choose one of {', '.join(STYLES)}")
    works = {work.key: work for work in content.works}
    suffixes = _suffixes(content.works)
    numbers: dict[str, int] = {}
    for claim in content.claims:
        for key in claim.work_keys:
            numbers.setdefault(key, len(numbers) + 1)
    paragraphs: list[tuple[Run, ...]] = []
    citations: list[KeyCitation] = []
    current: list[Run] = []
    sentences: list[str] = []
    notes: list[str] = []
    noted: set[str] = set()
    for index, claim in enumerate(content.claims):
        cited = [works[key] for key in claim.work_keys]
        if style in NOTE_STYLES:
            runs, markers = _note(claim.text, cited, notes, noted)
            current.extend(runs)
            sentences.append("".join(run.text for run in runs))
            for work, marker in zip(cited, markers, strict=True):
                citations.append(KeyCitation(claim=index, work_key=work.key, marker=marker))
            if (index + 1) % CLAIMS_PER_PARAGRAPH == 0:
                paragraphs.append(tuple(_merged(current)))
                current = []
            else:
                current.append(Run(" "))
            continue
        narrative = style not in NUMBERED_STYLES and index % 5 == 2 and len(cited) == 1
        marker_style = style
        if style == STYLE_AUTHOR_YEAR_RANDOM and entry_format is not None:
            marker_style = STYLE_APA if entry_format.marker_ampersand else STYLE_AUTHOR_YEAR
        runs, markers = _cite(claim.text, cited, marker_style, numbers, suffixes, narrative)
        current.extend(runs)
        sentences.append("".join(run.text for run in runs))
        for work, marker in zip(cited, markers, strict=True):
            citations.append(KeyCitation(claim=index, work_key=work.key, marker=marker))
        if len(current) and (index + 1) % CLAIMS_PER_PARAGRAPH == 0:
            paragraphs.append(tuple(_merged(current)))
            current = []
        else:
            current.append(Run(" "))
    if current:
        paragraphs.append(tuple(_merged(current)))
    # (label, entry): numbered styles label their entries, author-year styles do not.
    entries: tuple[tuple[str | None, str], ...]
    if style in NUMBERED_STYLES:
        ordered = sorted(works.values(), key=lambda work: numbers.get(work.key, 10**6))
        ordered = [work for work in ordered if work.key in numbers]
        entries = tuple((f"[{numbers[w.key]}]", _entry(w, style, "")) for w in ordered)
    else:
        ordered = sorted(
            (work for work in works.values() if work.key in numbers),
            key=lambda w: (
                _sort_key(_surname(w)),
                len(w.authors) > 2,
                [_sort_key(a[1]) for a in w.authors[1:]],
                w.year,
                suffixes.get(w.key, ""),
            ),
        )
        if style == STYLE_AUTHOR_YEAR_RANDOM and entry_format is not None:
            breaks = _rng("breaks", content.title, msgspec.json.encode(entry_format))
            entries = tuple(
                (None, format_entry(w, entry_format, suffixes.get(w.key, ""), breaks))
                for w in ordered
            )
        else:
            entries = tuple((None, _entry(w, style, suffixes.get(w.key, ""))) for w in ordered)
    return StyledThesis(
        style=style,
        title=content.title,
        author=content.author,
        paragraphs=tuple(paragraphs),
        entries=entries,
        entry_work_keys=tuple(work.key for work in ordered),
        claims=tuple(claim.text for claim in content.claims),
        sentences=tuple(sentences),
        citations=tuple(citations),
        notes=tuple(note.split("|", 1)[1] for note in notes),
        footnotes=style == STYLE_CHICAGO_FOOTNOTES,
    )


def _short_title(title: str) -> str:
    return " ".join(title.rstrip("?").split()[:4])


def _note(
    text: str, cited: list[Work], notes: list[str], noted: set[str]
) -> tuple[list[Run], list[str]]:
    """Chicago notes: the claim, a superscript note number, and the note (full the first time a
    work is cited, shortened after, "Ibid." right after a note citing only the same work)."""
    number = str(len(notes) + 1)
    parts: list[str] = []
    for work in cited:
        page = str(_rng("page", text, work.key).randint(2, 40))
        previous = notes[-1] if notes else ""
        if len(cited) == 1 and previous.startswith(f"{work.key}|"):
            parts.append(f"Ibid., {page}")
        elif work.key in noted:
            parts.append(f"{_surname(work)}, {_short_title(work.title)}, {page}")
        else:
            names = (
                _surname(work)
                if _is_organisation(work)
                else ", ".join(f"{given} {surname}" for given, surname in work.authors[:3])
            )
            where = f"{work.venue} {work.volume}" if work.venue else work.url
            parts.append(f"{names}, {work.title} ({where}, {work.year}), {page}")
        noted.add(work.key)
    # The work key before "|" lets the next note say "Ibid."; it is cut before printing.
    notes.append(f"{cited[0].key}|" + "; ".join(parts) + ".")
    return [Run(text), Run(number, RUN_SUPERSCRIPT), Run(".")], [number] * len(cited)


def _sort_key(surname: str) -> str:
    import unicodedata

    folded = unicodedata.normalize("NFKD", surname).encode("ascii", "ignore").decode().lower()
    return "".join(char for char in folded if char.isalpha())


def _merged(runs: list[Run]) -> list[Run]:
    merged: list[Run] = []
    for run in runs:
        if merged and merged[-1].kind == run.kind:
            merged[-1] = Run(merged[-1].text + run.text, run.kind)
        else:
            merged.append(run)
    if merged and merged[-1].kind == RUN_TEXT:
        merged[-1] = Run(merged[-1].text.rstrip(), RUN_TEXT)
    return merged


def _cite(
    text: str,
    cited: list[Work],
    style: str,
    numbers: dict[str, int],
    suffixes: dict[str, str],
    narrative: bool,
) -> tuple[list[Run], list[str]]:
    """The claim sentence with its marker(s), and the marker text per cited work."""
    if style == STYLE_NUMERIC:
        marker = "[" + ", ".join(str(numbers[w.key]) for w in cited) + "]"
        return [Run(f"{text} {marker}.")], [marker] * len(cited)
    if style == STYLE_SUPERSCRIPT:
        marker = ",".join(str(numbers[w.key]) for w in cited)
        return [Run(text), Run(marker, RUN_SUPERSCRIPT), Run(".")], [marker] * len(cited)
    apa = style == STYLE_APA
    if narrative:
        (work,) = cited
        year = f"{work.year}{suffixes.get(work.key, '')}"
        marker = f"{_marker_names(work, apa)} ({year})"
        lead = text[:1].lower() + text[1:] if not text[:2].isupper() else text
        return [Run(f"{marker} reported that {lead}.")], [marker]
    items = [f"{_marker_names(w, apa)}, {w.year}{suffixes.get(w.key, '')}" for w in cited]
    marker = "(" + "; ".join(items) + ")"
    return [Run(f"{text} {marker}.")], [marker] * len(cited)
