"""Parsing one reference entry into authors, year, title, venue, DOI and arXiv id.

Handles the layouts that cover most theses: name-year-title (ACL, APA, Harvard, ACM:
``Authors. 2020a. Title. Venue.`` / ``Authors (2020). Title. Venue.``) and name-title-venue-year
(IEEE, Vancouver, Springer: ``A. Smith, B. Jones. Title. Venue, 2020.``).
"""

from __future__ import annotations

import re

import msgspec

from citeproof.text.names import (
    NAME_SUFFIXES,
    SURNAME_PARTICLES,
    is_initial,
    is_organisation,
    surname_of,
)
from citeproof.text.normalize import fold_diacritics

_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>]+)", re.IGNORECASE)
_ARXIV = re.compile(
    r"(?:arxiv[:\s]*(?:abs/)?|arxiv\.org/(?:abs|pdf)/|\babs/)"
    r"(?P<id>\d{4}\.\d{4,5}|[a-z\-]+(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?",
    re.IGNORECASE,
)
# Inside a run of spaces only its first two positions can start the leftmost match; the others
# are not tried, so a long run is scanned once, not once per space.
_YEAR_AFTER_AUTHORS = re.compile(
    r"(?:(?<=[.,])|(?<=\s)(?<!\s\s))\s*+"
    r"\(?(?P<year>(?:1[6-9]|20)\d\d)(?P<suffix>[a-z])?\)?(?=[.,:;]|\s|$)"
)
_ANY_YEAR = re.compile(r"(?<![\d/.\-:])(?P<year>(?:1[6-9]|20)\d\d)(?P<suffix>[a-z])?(?![\d])")
_SENTENCE_END = re.compile(r"(?<=[^\s.]{2})[.?!](?=\s|$)|(?<=[)\]])\.(?=\s|$)")
# Leading spaces only from the start of their run, each run of spaces read one way (linear).
_AUTHOR_SPLIT = re.compile(
    r"(?:(?<!\s)\s++)?(?:;|,\s*+(?:and|&)\s++|,)\s*+|(?<!\s)\s++(?:and|&|und)\s++"
)
_SENTENCE_INSIDE = re.compile(r"(?<!\bal)(?<!\bJr)(?<!\bSr)[^\W\d_]{2}\.\s+\S")
# Not tried after a space or comma the match could have started at instead (linear).
_TRAILING_YEAR = re.compile(r"(?:,|(?<![,\s]))\s*+\(?(?:1[6-9]|20)\d\d[a-z]?\)?\.?$")
_ET_AL = re.compile(r"\bet\s+al\.?|\bothers\b", re.IGNORECASE)
_IN_PREFIX = re.compile(r"^(?:In:?|in:)\s+")


class ParsedFields(msgspec.Struct, frozen=True, kw_only=True):
    authors: list[str]
    year: int | None
    year_suffix: str | None
    title: str | None
    venue: str | None
    doi: str | None
    arxiv_id: str | None


def find_doi(text: str) -> str | None:
    match = _DOI.search(text.replace(" ", "") if "10. " in text else text)
    if match is None:
        return None
    return match.group(1).rstrip(".,;)]}").lower()


def find_arxiv_id(text: str) -> str | None:
    match = _ARXIV.search(text)
    return match.group("id") if match else None


def split_authors(block: str) -> list[str]:
    """Surnames in an author block such as "Smith, J., & Jones, K." or "J. Smith and K. Jones"."""
    block = _ET_AL.sub("", block).strip(" ,.;")
    if not block:
        return []
    if is_organisation(block) and "," not in block and " and " not in block:
        return [block]
    pieces = [piece.strip(" .") for piece in _AUTHOR_SPLIT.split(block) if piece.strip(" .")]
    # "Smith, J., Jones, K." and "Ammar, Waleed, Dirk Groeneveld" split into surname and given
    # name pieces: glue a given name back onto the bare surname before it.
    people: list[str] = []
    bare = False
    for piece in pieces:
        tokens = piece.split()
        initials = bool(tokens) and all(is_initial(token) for token in tokens)
        if people and tokens and (initials or (bare and _is_given_name(tokens))):
            people[-1] = f"{people[-1]}, {piece}"
            bare = False
        else:
            people.append(piece)
            bare = _is_bare_surname(tokens)
    surnames = [surname_of(person) for person in people]
    return [surname for surname in surnames if surname]


# Given names after an inverted surname are at most this many words ("Smith, John Paul").
MAX_GIVEN_NAME_WORDS = 3


def _is_bare_surname(tokens: list[str]) -> bool:
    """ "Ammar", "van Zuylen", "Daumé III": a surname with no given name or initial beside it."""
    if not tokens or is_initial(tokens[0]):
        return False
    core = [
        token
        for token in tokens
        if token.lower() not in SURNAME_PARTICLES and token.lower().strip(".") not in NAME_SUFFIXES
    ]
    return len(core) == 1 and core[0][:1].isupper() and not is_initial(core[0])


def _is_given_name(tokens: list[str]) -> bool:
    """ "Waleed", "John Paul", "Hal": capitalised words that follow "Surname," as given names."""
    return len(tokens) <= MAX_GIVEN_NAME_WORDS and all(
        token[:1].isupper() and token.replace("-", "").replace(".", "").isalpha()
        for token in tokens
    )


def _first_sentence(text: str) -> tuple[str, str]:
    """Split at the first sentence end that is not an initial: (sentence, rest)."""
    for match in _SENTENCE_END.finditer(text):
        before = text[: match.start()]
        words = before.split()
        last_word = words[-1] if words else ""
        if is_initial(last_word) and len(last_word) <= 2 and not _is_acronym(words):
            continue
        return before.strip(), text[match.end() :].strip()
    return text.strip(), ""


def _is_acronym(words: list[str]) -> bool:
    """ "... in Europe and the US." ends a title: two capitals after a lower-case word (or a
    number) are an acronym; after a name ("Jones KL.") they are its initials."""
    if len(words) < 2 or len(words[-1]) < 2 or not words[-1].isupper():
        return False
    before = words[-2]
    return before[:1].islower() or before[:1].isdigit()


# Matched without diacritics ("Øberg C", "Quispe É"); a surname may open with particles
# ("de la Cruz P") and initials may be hyphenated ("Nguyen J-P").
_VANCOUVER_AUTHORS = re.compile(
    r"^(?:(?:[a-z]+\s)*[A-Z][\w'’\-]+(?:\s[a-z]+)*(?:\s[A-Z][\w'’\-]+)*\s[A-Z]{1,3}(?:-[A-Z])?"
    r"(?:,\s*|$))+(?:et al)?$"
)


_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?"
# Vancouver imprint after the journal: "2020;36(4):543-556", "2020 Mar 14;395(10227):...".
_VANCOUVER_IMPRINT_YEAR = re.compile(
    rf"(?<![\d/.\-:])(?P<year>(?:1[6-9]|20)\d\d)(?=\s*;\s*\S|\s+{_MONTH}(?:[\s;.]|$))"
)


def _is_vancouver_author_list(text: str) -> bool:
    return bool(_VANCOUVER_AUTHORS.match(fold_diacritics(text.strip())))


# Lower-case words that occur in author lists: connectives and surname particles.
_LOWER_CASE_NAME_WORDS = frozenset(
    "and et al. van von de der den du da di la le del dos others".split()
)


def _lower_case_words(text: str) -> list[str]:
    """Lower-case words of ``text`` that cannot be part of a list of names."""
    return [
        word
        for word in text.split()
        if word[:1].islower() and word.lower() not in _LOWER_CASE_NAME_WORDS
    ]


def _starts_with_vancouver_authors(block: str) -> bool:
    """ "Yilmaz P, Iqbal P. Neurologic ...": a Vancouver author list closed by a full stop and
    followed by more words, so the title (not the year) comes after the authors.

    "Nelson F. Liu, Matt Gardner" starts the same way: a single "Surname I" counts only when
    what follows has a lower-case word that no list of names has ("of", "with").
    """
    stop = re.search(r"\.\s+(?=\S)", block)
    if stop is None or not _is_vancouver_author_list(block[: stop.start()]):
        return False
    if "," in block[: stop.start()]:
        return True
    return bool(_lower_case_words(block[stop.end() :]))


def _authors_end_without_year(text: str) -> int:
    """Where an IEEE/Vancouver author list ends: the first full stop after a full word, or
    after the initials of "Smith J, Jones KL."."""
    for match in re.finditer(r"\.(?=\s)", text):
        before = text[: match.start()]
        words = before.split()
        if not words:
            continue
        if _is_vancouver_author_list(before):
            return match.start()
        last = words[-1]
        if is_initial(last + ".") or len(last.strip(".")) < 2:
            continue
        return match.start()
    return -1


_SEGMENT_END = re.compile(r"[.?!]\s+")
# "Proc. Natl. Acad. Sci.": pieces of a dotted journal abbreviation are short capitalised words.
_ABBREVIATED_SEGMENT = re.compile(r"(?:[A-Z][A-Za-z]{0,4}\s*)+")


def _title_and_journal(head: str) -> tuple[str, str]:
    """Split "Title. Journal. " (Vancouver, before the imprint year) at the journal.

    The journal is the last full-stop-separated segment, with the pieces of a dotted
    abbreviation in front of it; everything before is the title, which may itself hold full
    stops or question marks ("Can a toilet spread the virus? A fluid dynamics view").
    """
    head = head.rstrip(" .")
    ends = list(_SEGMENT_END.finditer(head))
    if not ends:
        return head, ""
    split = len(ends) - 1
    while split > 0:
        previous = head[ends[split - 1].end() : ends[split].start()]
        if not _ABBREVIATED_SEGMENT.fullmatch(previous.strip()):
            break
        split -= 1
    return head[: ends[split].start() + 1], head[ends[split].end() :]


# Numbered styles that separate the authors from the title by a comma only, the authors
# given-name initials first: Elsevier's "A. Rossi, P. Lindqvist, Title, Vaccine 49 (2007)
# 2372–2375." and IEEE's "A. Rossi, P. Lindqvist, and K. Ng, “Title,” Vaccine, vol. 49, no. 3,
# pp. 2372–2375, 2007." One person: initials ("A.", "A. B.", "J.-P."), then a surname that may
# open with particles and have a second word ("Sánchez Vidal"). Separators are distinct (", ",
# " and "), each piece bounded: every start is read one way.
_GIVEN_INITIALS = r"[A-Z\u00c0-\u00de]\.(?:[ ]?-?[A-Z\u00c0-\u00de]\.){0,3}"
_SURNAME_WORD = r"[A-Z\u00c0-\u024f][\w'’\u00c0-\u024f]*+(?:-[\w'’\u00c0-\u024f]++)*+"
# Particles, the first one capitalised or not ("J. van Dijk", "S. Van der Berg").
_PARTICLES = (
    r"(?:(?:[Vv]an|[Vv]on|der|den|[Dd]e|[Dd]el|[Dd]ella|[Dd]i|[Dd]a|dos|[Dd]u|[Ll]a|[Ll]e|ten|"
    r"ter)[ ])"
)
_GIVEN_FIRST_PERSON = (
    rf"{_GIVEN_INITIALS}[ ]{_PARTICLES}{{0,3}}{_SURNAME_WORD}(?:[ ]{_SURNAME_WORD})?"
)
_GIVEN_FIRST_AUTHORS = re.compile(
    rf"(?P<authors>{_GIVEN_FIRST_PERSON}(?:,[ ](?:and[ ])?{_GIVEN_FIRST_PERSON}){{0,40}}"
    rf"(?:,?[ ](?:and|&)[ ]{_GIVEN_FIRST_PERSON})?(?:,?[ ]et[ ]al\.?)?)"
    r"(?P<close>,[ ]*(?P<quote>[“\"])?)"
)
# IEEE's title in quotation marks, the comma or full stop that follows it inside them.
_QUOTED_TITLE = re.compile(r"(?P<title>[^”\"]{3,500}?)[,.]?[”\"]")
# Elsevier's imprint after the journal: "Vaccine 49 (2007) 2372–2375", "J. Infect. 12 (3)
# (2020) e123". The journal is the comma-free piece before the volume.
_ELSEVIER_IMPRINT = re.compile(
    r",[ ](?P<venue>[^,]{2,120}?)[ ]\d{1,5}(?:[ ]?\([^()]{1,12}\))?[ ]?"
    r"\((?P<year>(?:1[6-9]|20)\d\d)\)"
)
_EXTRAS_AFTER_IMPRINT = re.compile(r"(?i)\b(?:doi:|https?://|available)")


def _comma_separated(body: str) -> ParsedFields | None:
    """Elsevier's and IEEE's entries (the authors closed by a comma, not a full stop), or None
    when ``body`` is not one of them."""
    head = _GIVEN_FIRST_AUTHORS.match(body)
    if head is None:
        return None
    after = body[head.end() :]
    year: int | None = None
    if head.group("quote"):
        quoted = _QUOTED_TITLE.match(after)
        if quoted is None:
            return None
        title = quoted.group("title")
        rest = after[quoted.end() :].lstrip(" ,")
        # The year closes the imprint; a DOI or URL after it has digits of its own.
        extras = _EXTRAS_AFTER_IMPRINT.search(rest)
        years = list(_ANY_YEAR.finditer(rest[: extras.start()] if extras else rest))
        year = int(years[-1].group("year")) if years else None
        venue = _venue(rest)
    else:
        imprint_match = _ELSEVIER_IMPRINT.search(after)
        if imprint_match is None:
            return None
        title = after[: imprint_match.start()]
        year = int(imprint_match.group("year"))
        venue = imprint_match.group("venue").strip(" .,") or None
    title = title.strip(' .,"“”')
    if not title:
        return None
    return ParsedFields(
        authors=split_authors(head.group("authors")),
        year=year,
        year_suffix=None,
        title=title,
        venue=venue,
        doi=find_doi(body),
        arxiv_id=find_arxiv_id(body),
    )


def parse_entry(body: str) -> ParsedFields:
    """Fields of one entry; ``body`` is its text without the label, on one line."""
    comma_separated = _comma_separated(body)
    if comma_separated is not None:
        return comma_separated
    doi = find_doi(body)
    arxiv_id = find_arxiv_id(body)
    year: int | None = None
    suffix: str | None = None
    authors_block = ""
    after_year = ""
    # A year closing the title is the imprint ("Tool, 2017") unless the imprint comes later.
    title_keeps_year = False
    head = _YEAR_AFTER_AUTHORS.search(body)
    if head is not None and head.start() <= 600 and _plausible_author_block(body[: head.start()]):
        year = int(head.group("year"))
        suffix = head.group("suffix")
        authors_block = body[: head.start()]
        after_year = body[head.end() :].lstrip(" .,:)")
        title, rest = _first_sentence(after_year)
    else:
        authors_end = _authors_end_without_year(body)
        authors_block = body[:authors_end] if authors_end > 0 else ""
        rest_all = body[authors_end + 1 :] if authors_end > 0 else body
        title, rest = _first_sentence(rest_all)
        years = list(_ANY_YEAR.finditer(body))
        imprint = _VANCOUVER_IMPRINT_YEAR.search(rest_all, rest_all.rfind(rest)) if rest else None
        if imprint is not None:
            # The journal's "2020;36(4)" dates the entry; a year in the title or an "Epub"
            # date after it does not.
            year = int(imprint.group("year"))
            title_keeps_year = True
            title, journal = _title_and_journal(rest_all[: imprint.start()])
            rest = journal
        elif years:
            year = int(years[-1].group("year"))
            suffix = years[-1].group("suffix")
            if suffix and not re.match(r"[a-z](?:[.,;)\s]|$)", body[years[-1].start("suffix") :]):
                suffix = None
    venue = (rest.strip() or None) if title_keeps_year else _venue(rest)
    # "Action Annotation Tool, 2017": a trailing year belongs to the imprint, not the title.
    if not title_keeps_year:
        title = _TRAILING_YEAR.sub("", title)
        title, run_into = _without_trailing_imprint(title)
        venue = venue or run_into
    if venue is not None and _TRAILING_YEAR.fullmatch(", " + venue):
        venue = None
    return ParsedFields(
        authors=split_authors(authors_block),
        year=year,
        year_suffix=suffix,
        title=title.strip(' .,"“”') or None,
        venue=venue,
        doi=doi,
        arxiv_id=arxiv_id,
    )


# The imprint a title without a full stop runs into: "... Journal of Infection 3(2), 1–9",
# "... Frontiers in Immunology 65, e43807", "..., Vaccine, 3, 12-19" (volume, issue, pages or
# an article number). Bounded pieces anchored at the end: each start is read a few characters.
_TRAILING_IMPRINT = re.compile(
    r",?+\s++(?P<volume>\d{1,4})(?:\s*+\(\s*+\d{1,4}\s*+\))?+\s*+,\s*+"
    r"e?\d{1,6}(?:\s*+[–\-]\s*+e?\d{1,6})?+\.?+$"
)
_IMPRINT_VOLUME_YEAR = re.compile(r"(?:1[6-9]|20)\d\d")
# Words of a journal's name: capitalised, or the connectors inside one ("Journal of Infection").
_VENUE_WORD = re.compile(r"[A-Z\u00c0-\u00de][\w'’&.\-]*|of|in|and|the|for|on|&|de|la|für")


def _without_trailing_imprint(title: str) -> tuple[str, str | None]:
    """(title, venue) for a title that ran into its journal's imprint without a full stop: the
    volume and pages go, and the journal with them when a comma sets it apart ("...: a cohort
    study, Journal of Infection 3(2), 1–9"); without one, its words cannot be told from the
    title's and stay. "Masks in 2019, 2020" keeps its years (no volume looks like a year)."""
    imprint = _TRAILING_IMPRINT.search(title)
    if imprint is None or _IMPRINT_VOLUME_YEAR.fullmatch(imprint.group("volume")):
        return title, None
    head = title[: imprint.start()].rstrip(" ,")
    before, comma, last = head.rpartition(", ")
    words = last.split()
    if comma and before.strip() and words and all(_VENUE_WORD.fullmatch(w) for w in words):
        if words[0][:1].isupper():
            return before.strip(), last.strip()
    return head, None


def _plausible_author_block(block: str) -> bool:
    block = block.strip()
    if not block or len(block) > 600:
        return False
    # "Y. Abouelnaga. Action Annotation Tool, 2017": a full stop after a word inside the block
    # means the title came before the year (IEEE style), so this is not an author block.
    if _SENTENCE_INSIDE.search(block):
        return False
    if re.search(r"\d", block):
        return False
    if _starts_with_vancouver_authors(block):
        return False
    # A title or venue before the year has lower-case content words; names do not.
    lower_words = _lower_case_words(block)
    return len(lower_words) <= 1


def _venue(rest: str) -> str | None:
    rest = _IN_PREFIX.sub("", rest.strip())
    if not rest:
        return None
    venue = re.split(r"[,.](?=\s)|\s\(|:\d", rest, maxsplit=1)[0]
    # "Scientometrics 117" / "Nature 476 7358" / "Vaccine 3(2)": volume and issue numbers are
    # not the venue. Trailing numbers go; a run of numbers that does not end the venue is kept
    # whole (\1) so the search does not start again inside it (linear).
    venue = re.sub(
        r"(?<!\s)(?:\s++\d[\d\-–]*+(?:\(\d{1,6}\))?+)++$"
        r"|((?<!\s)(?:\s++\d[\d\-–]*+(?:\(\d{1,6}\))?+)++)",
        r"\1",
        venue,
    ).strip(" .,")
    return venue or None
