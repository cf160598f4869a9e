"""Is this the same work? Comparing two descriptions of one publication, forgiving normal variation.

A reference entry of a thesis is compared with another description of the work it names: the
linked PDF's own metadata and first page (at planning: wrong-attachment, metadata-differs), or a
scholarly index's record (reference verification). Both must forgive what differs between two
correct descriptions of the same work - the false alarms users of reference checkers complain
about most - and nothing more:

- diacritics and LaTeX escapes ("Müller", "Muller", ``M{\\"u}ller``; ``\\'e``, ``{\\o}``);
- "et al." and initials ("Smith, J. A." is "John A. Smith");
- compound and particle surnames ("van der Berg" is "Berg", "García Márquez" is "García");
- en and em dashes, "&" and "and", case, punctuation;
- a subtitle left out ("Deep learning" is "Deep learning: a review");
- a preprint and its published version a year apart.

Everything here is comparison only: never store a normalised form.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Final

from rapidfuzz import fuzz

from citeproof.text.names import NAME_SUFFIXES, SURNAME_PARTICLES, is_organisation, name_key
from citeproof.text.normalize import comparison_key, fold_diacritics

# A preprint (arXiv, medRxiv) and its published version are often dated a year apart.
PREPRINT_YEAR_SLACK: Final = 1
# A main title shorter than this (words) is too generic to stand for the whole title
# ("Attention" is not "Attention: a survey").
MIN_MAIN_TITLE_WORDS: Final = 2
# Title words shorter than this carry no identity ("of", "in", "a").
MIN_CONTENT_WORD_CHARS: Final = 3
# Pages remembered by the comparisons (a run links a few hundred sources).
PAGE_CACHE_SIZE: Final = 512
# Names and name pairs remembered by the comparisons (a thesis has a few hundred authors).
NAME_CACHE_SIZE: Final = 16384
# A person-name token this short is an initial, not a name.
MAX_INITIAL_CHARS: Final = 1

_LATEX_MARK = re.compile(r"[\\{}$]|--")
# Where a subtitle starts: a colon, a question or exclamation mark, a full stop, or a spaced dash.
_SUBTITLE_BREAK = re.compile(r"\s*(?::|[?!.](?=\s)|\s[-–—]{1,2}(?=\s))\s+")
_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
# A DOI as printed in running text (its end is where punctuation or a space starts).
DOI_IN_TEXT: Final = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>{}|\\^`]+)", re.IGNORECASE)
_DOI_TRAILING = ".,;:)]}'\""
_NAME_SPLIT = re.compile(r"[\s,.;\-‐‑–—]+")
_AMPERSAND = re.compile(r"\s*&\s*")
# Title words that identify nothing (besides the short ones).
_STOPWORDS: Final = frozenset(
    """the and for with from into onto over under about among between through during
    without within via than that this these those are was were has have had its their our
    your not but can may how what when where which who why does did study""".split()
)
_NOT_NAMES: Final = frozenset({"et", "al", "others", "and", "und"})


@lru_cache(maxsize=4096)
def latex_to_text(value: str) -> str:
    """LaTeX escapes as the characters they print (``M{\\"u}ller`` -> "Müller", "--" -> "–");
    text without LaTeX markup is returned as it is."""
    if not _LATEX_MARK.search(value):
        return value
    # Imported here: pylatexenc builds its tables on first use, which plain text never needs.
    from pylatexenc.latex2text import LatexNodes2Text

    try:
        decoded: str = LatexNodes2Text(math_mode="text", strict_latex_spaces=True).latex_to_text(
            value
        )
    except Exception:  # pylatexenc raises assorted errors on unbalanced input: keep the raw text
        return value
    return decoded


# --- titles ------------------------------------------------------------------------------------
def title_key(title: str | None) -> str:
    """Lower-case ASCII words: LaTeX decoded, accents folded, dashes, case and punctuation gone,
    "&" read as "and"."""
    if not title:
        return ""
    return comparison_key(_AMPERSAND.sub(" and ", latex_to_text(title)))


def main_title(title: str | None) -> str:
    """The title without its subtitle ("Deep learning: a review" -> "Deep learning"); the whole
    title when it has none."""
    if not title:
        return ""
    decoded = latex_to_text(title).strip()
    head = _SUBTITLE_BREAK.split(decoded, maxsplit=1)[0]
    return head if head.strip() else decoded


def title_similarity(left: str | None, right: str | None) -> float:
    """0..1 similarity of two titles, robust to case, accents, punctuation and subtitles.

    The linker's measure (reference -> source linking accepts a title at 0.9 alone, 0.8 with
    author or year support)."""
    if not left or not right:
        return 0.0
    a, b = comparison_key(left), comparison_key(right)
    if not a or not b:
        return 0.0
    plain = fuzz.ratio(a, b)
    shorter, longer = sorted((len(a), len(b)))
    # Token-set similarity forgives a dropped subtitle, but only when most of the title remains
    # ("Attention" must not match "Attention is all you need").
    subset = fuzz.token_set_ratio(a, b) if shorter / longer >= 0.6 else 0.0
    return max(plain, subset) / 100.0


def title_agreement(left: str | None, right: str | None) -> float:
    """0..1: how surely two titles name the same work, forgiving LaTeX, "&", and a subtitle one
    side leaves out (when the main title that remains has at least MIN_MAIN_TITLE_WORDS words)."""
    a, b = title_key(left), title_key(right)
    if not a or not b:
        return 0.0
    best = title_similarity(a, b)
    for whole, other in ((left, b), (right, a)):
        head = title_key(main_title(whole))
        if head != title_key(whole) and len(head.split()) >= MIN_MAIN_TITLE_WORDS:
            best = max(best, fuzz.ratio(head, other) / 100.0)
    heads = title_key(main_title(left)), title_key(main_title(right))
    if all(len(head.split()) >= MIN_MAIN_TITLE_WORDS for head in heads):
        # Both kept a subtitle, a different one (a version's subtitle changed).
        best = max(best, fuzz.ratio(*heads) / 100.0 * 0.95)
    return best


def content_words(text: str | None) -> list[str]:
    """The words of a title that identify it (folded, lower case, no stopwords, no short words)."""
    return [
        word
        for word in title_key(text).split()
        if len(word) >= MIN_CONTENT_WORD_CHARS and word not in _STOPWORDS
    ]


def title_coverage(title: str | None, text: str | None) -> float:
    """Share of the title's content words that ``text`` contains (0..1; 0 without words).

    ``text`` is a page, not a title: a PDF's first page prints its title (perhaps split over
    lines, hyphenated, in capitals), so all its words are there; another work's title shares a
    few topic words at most."""
    words = content_words(title)
    if not words or not text:
        return 0.0
    page = _page_words(text)
    return sum(1 for word in words if word in page) / len(words)


# A hyphen at a line end between letters of any case: "VENTILA-\nTION", "Jimeno-\nYepes".
_BROKEN_WORD = re.compile(r"(?<=\w)-[ \t]*\n\s*(?=\w)")


# Cached: every entry linked to a source reads the same first page several times.
@lru_cache(maxsize=PAGE_CACHE_SIZE)
def _page_words(text: str) -> frozenset[str]:
    """The words of a page, with words broken at a line end read both joined and apart (a
    compound's own hyphen may fall at the line end too)."""
    decoded = latex_to_text(text)
    return frozenset(comparison_key(decoded).split()) | frozenset(
        comparison_key(_BROKEN_WORD.sub("", decoded)).split()
    )


# --- people --------------------------------------------------------------------------------------
def name_tokens(name: str | None) -> list[str]:
    """The words of a person's name that identify them, as comparison keys: LaTeX decoded,
    accents folded, split at spaces and hyphens; particles ("van", "de"), generational suffixes,
    initials, "et al." dropped. "van der Berg, J.-P." -> ["berg"]."""
    return list(_name_tokens(name)) if name else []


# Cached: a reference list compares the same few hundred names thousands of times.
@lru_cache(maxsize=NAME_CACHE_SIZE)
def _name_tokens(name: str) -> tuple[str, ...]:
    tokens: list[str] = []
    decoded = fold_diacritics(latex_to_text(name))
    words = _NAME_SPLIT.split(decoded)
    # A particle precedes the surname it belongs to ("van der Berg"); a particle-word with no
    # name after it in its part of the name is the surname itself ("Nikhil Das", "Das, N.",
    # "Thanh Le", "Du").
    family_end = len(_NAME_SPLIT.split(decoded.split(",", 1)[0])) if "," in decoded else len(words)
    for position, raw in enumerate(words):
        lowered = raw.lower()
        if not raw or lowered in NAME_SUFFIXES:
            continue
        if lowered in SURNAME_PARTICLES and _name_follows(words, position, family_end):
            continue
        if lowered in _NOT_NAMES:
            continue
        key = name_key(raw)
        if len(key) <= MAX_INITIAL_CHARS:
            continue
        tokens.append(key)
    return tuple(tokens)


def _name_follows(words: list[str], position: int, end: int) -> bool:
    """Is there a name word (not a particle, suffix or initial) after ``position`` before
    ``end``?"""
    return any(
        word.lower() not in SURNAME_PARTICLES
        and word.lower() not in NAME_SUFFIXES
        and len(name_key(word)) > MAX_INITIAL_CHARS
        for word in words[position + 1 : end]
    )


def _pieces(name: str) -> list[str]:
    """Every word of a name as a comparison key, particles included."""
    keys = (name_key(raw) for raw in _NAME_SPLIT.split(fold_diacritics(latex_to_text(name))))
    return [key for key in keys if key]


def _acronym(name: str) -> str:
    return "".join(word[0] for word in name_tokens(name) if word).lower()


@lru_cache(maxsize=NAME_CACHE_SIZE)
def surname_matches(surname: str | None, person: str | None) -> bool:
    """Does ``person`` (a full name as a PDF or an index gives it, or a surname) carry the
    surname ``surname`` (as the entry prints it)?

    Forgiving: accents and LaTeX, particles ("van Dijk" / "Dijk" / "Pieter van Dijk"), compound
    surnames one part of which is kept ("García Márquez" / "Gabriel García"), hyphens ("Jimeno-
    Yepes" / "Jimeno Yepes"), names written together ("Vandijk"), given-name order ("Wei Zhang" /
    "Zhang Wei"), organisations and their acronyms ("WHO")."""
    if not surname or not person:
        return False
    wanted, given = name_tokens(surname), name_tokens(person)
    if not wanted or not given:
        return False
    if set(wanted) & set(given):
        return True
    # Written together or apart: "Vandijk" is "van Dijk", "JimenoYepes" is "Jimeno-Yepes".
    whole = "".join(_pieces(surname))
    pieces = _pieces(person)
    runs = {"".join(pieces[i:j]) for i in range(len(pieces)) for j in range(i + 2, len(pieces) + 1)}
    if whole and whole in runs:
        return True
    if is_organisation(surname) or is_organisation(person):
        short, long = sorted((surname, person), key=len)
        return len(name_key(short)) >= 2 and name_key(short) == _acronym(long)
    return False


def surname_in_text(surname: str | None, text: str | None) -> bool:
    """Does the surname appear in ``text`` (a first page) as whole words?"""
    if not surname or not text:
        return False
    wanted = name_tokens(surname)
    if not wanted:
        return False
    words = _page_words(text)
    return all(token in words for token in wanted) or any(
        len(token) >= 4 and token in words for token in wanted
    )


# --- years and identifiers -----------------------------------------------------------------------
def years_compatible(left: int | None, right: int | None) -> bool:
    """Unknown years never disagree; known ones may be a preprint's year apart."""
    return left is None or right is None or abs(left - right) <= PREPRINT_YEAR_SLACK


def normalise_doi(doi: str | None) -> str | None:
    """Lower case, without "https://doi.org/" or "doi:" and trailing punctuation."""
    if not doi:
        return None
    return _DOI_PREFIX.sub("", doi.strip()).rstrip(".,;").lower() or None


def dois_in_text(text: str | None) -> list[str]:
    """Every DOI printed in ``text`` (normalised, in order, once each)."""
    if not text:
        return []
    found: list[str] = []
    for match in DOI_IN_TEXT.finditer(text):
        doi = normalise_doi(match.group(1).rstrip(_DOI_TRAILING))
        if doi and doi not in found:
            found.append(doi)
    return found


def doi_in_text(doi: str | None, text: str | None) -> bool:
    """Is the DOI printed in ``text``, perhaps broken over lines?"""
    wanted = normalise_doi(doi)
    if not wanted or not text:
        return False
    return wanted in "".join(text.split()).lower()
