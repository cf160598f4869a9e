"""Finding citation markers in body text.

Three forms, all matched on the text view:
- numeric ``[3]``, ``[3, 7]``, ``[3–5, 9]``, ``[1, p. 45]``;
- parenthetical author-year ``(Smith, 2020)``, ``(see Smith et al., 2020a; Jones & Lee, 2019,
  p. 45)``;
- narrative author-year ``Smith et al. (2020)``, ``Smith and Jones (2019a, p. 3)``.

A marker is a candidate here; whether it is kept is decided against the reference list (see
``resolve``), because prose is full of bracketed numbers and parenthesised years.
"""

from __future__ import annotations

import re

import msgspec

from citeproof.text.names import ORGANISATION_WORDS, name_key

# A numeric range longer than this is not a citation ("[1-1000]" is an interval).
MAX_RANGE_SPAN = 40

_DASHES = "-–—‒−"
_BRACKET_RANGE_GAP = re.compile(rf"\s*[{_DASHES}]\s*")
_NUMERIC = re.compile(r"\[(?P<body>[^\[\]]{1,160})\]")
_PAREN_NUMERIC = re.compile(r"\((?P<body>\d[\d\s,;–—‒−\-]{0,60}(?:,\s*pp?\.\s*\d[\d–\-]*)?)\)")
# "Eq. (3)", "equation (2)", "Figure (1)": references to numbered things, not citations.
_EQUATION_BEFORE = re.compile(
    r"(?:eqs?\.?|equations?|figs?\.?|figures?|tables?|steps?|sections?|chapters?|and|or|to)\s*$",
    re.IGNORECASE,
)
_NUMBER_ITEM = re.compile(rf"^(?P<first>\d{{1,4}})(?:\s*[{_DASHES}]\s*(?P<last>\d{{1,4}}))?$")
_PINPOINT = re.compile(
    r"^(?P<pin>(?:p|pp|pg|page|pages|s|ss|ch|chap|chapter|sec|sect|section|§|§§|fig|figs|figure|"
    r"table|tab|eq|eqs|l|ll|line|lines|para|n|fn|col|vol|art|thm|theorem|def|lemma|prop|"
    r"appendix|app)\.?\s*[\dIVXLCivxlc]+[a-z]?(?:\s*(?:[" + _DASHES + r"]|,|and|&|f\.|ff\.)\s*"
    r"[\dIVXLCivxlc]+[a-z]?)*\.?)$",
    re.IGNORECASE,
)
_COLON_PINPOINT = re.compile(
    rf"(?P<number>\d{{1,4}})\s*:\s*(?P<pin>\d{{1,4}}(?:\s*[{_DASHES}]\s*\d{{1,4}})?|"
    rf"(?:p|pp|ch|sec|fig|table)\.?\s*\d(?:\d|\s|[{_DASHES}])*)"
)
_BARE_PAGE_PINPOINT = re.compile(rf"^(?P<pin>\d{{1,4}}(?:\s*[{_DASHES}]\s*\d{{1,4}})?)$")
_PARTICLE = (
    r"(?:(?:van|von|der|den|de|del|della|di|da|du|dos|das|la|le|ten|ter|zu|al|el|bin|ibn|"
    r"Van|Von|De|Del|Della|Di|Da|Du|La|Le|Ten|Ter)\s+)"
)
_UPPER = r"[A-Z\u00c0-\u00de\u0100-\u024f\u0400-\u042f]"
_NAME_CHAR = r"[\w'’\u00c0-\u024f\u0400-\u04ff]"
# One surname: "Smith", "Jimeno-Yepes", "O'Neil", "van Zuylen", "Daumé", "McDonald".
_SURNAME = rf"{_PARTICLE}*{_UPPER}{_NAME_CHAR}*(?:-{_UPPER}?{_NAME_CHAR}+)*"
# An organisation or multi-word name, only inside parentheses: "World Health Organization".
# Words of an organisation name may wrap onto the next line, but never across a blank line.
# Between words: spaces with at most one line break. Possessive throughout (a word is followed
# by a space or by what closes the name, never by a word character), so a long run of spaces
# is read one way only: linear.
_GAP = r"(?:[ \t]++(?:\n[ \t]*+)?+|\n[ \t]*+)"
_ORGANISATION = (
    rf"{_UPPER}[\w\-]*+{_GAP}(?:(?:of|for|the|on|de|des|für)(?:[ \t]*+\n)?+[ \t]++)?"
    rf"{_UPPER}[\w\-]*+(?:{_GAP}(?:(?:of|for|the|on|de|des|für)[ \t]++)?"
    rf"{_UPPER}[\w\-]*+){{0,5}}"
)
_ET_AL = r"\s+et\s*al\.?"
_NAME_LIST_BODY = (
    rf"{_SURNAME}(?:{_ET_AL}|(?:,\s*{_SURNAME})*,?\s+(?:and|&|und|y|et)\s+{_SURNAME}"
    rf"(?:{_ET_AL})?)?"
)
_NAME_LIST = rf"(?P<names>{_NAME_LIST_BODY})"
_YEAR = r"(?:1[6-9]|20)\d\d"
_YEAR_LIST = (
    rf"(?P<years>(?:{_YEAR}|n\.\s?d\.|in\s+press|forthcoming)(?:[a-z](?![a-z]))?"
    rf"(?:\s*,\s*(?:[a-z](?![a-z\.])|{_YEAR}[a-z]?(?![a-z])))*)"
)
_PREFIX = re.compile(
    r"^(?:(?:see\s+also|see,?\s+e\.\s?g\.,?|see,?\s+for\s+example,?|see|e\.\s?g\.,?|i\.\s?e\.,?|"
    r"cf\.,?|for\s+example,?|for\s+instance,?|for\s+a\s+review,?\s+see|reviewed\s+in|as\s+in|"
    r"as\s+reviewed\s+by|but\s+see|compare|also|and|originally|following|after|like|"
    r"including|such\s+as|among\s+others,?|adapted\s+from|from|in|by)\s+)+",
    re.IGNORECASE,
)
# Inside parentheses a surname may be two capitalised words: a compound printed without its
# hyphen ("Sánchez Vidal and Dubois", "García Márquez et al."). The second word follows a single
# space and opens with a capital, so a name list is read one way.
_COMPOUND_SURNAME = rf"{_SURNAME}(?:[ ]{_UPPER}{_NAME_CHAR}*+(?:-{_UPPER}?{_NAME_CHAR}++)*+)?"
_PAREN_NAME_LIST_BODY = (
    rf"{_COMPOUND_SURNAME}(?:{_ET_AL}|(?:,\s*{_COMPOUND_SURNAME})*,?\s+(?:and|&|und|y|et)\s+"
    rf"{_COMPOUND_SURNAME}(?:{_ET_AL})?)?"
)
_PAREN_ITEM = re.compile(
    rf"^(?P<names_all>{_NAME_LIST_BODY}|{_ORGANISATION})"
    rf"(?:(?P<comma>\s*,)\s*|\s+){_YEAR_LIST}(?P<rest>.*)$",
    re.DOTALL,
)
# The same with compound surnames: tried when the reading above finds no name list, and kept
# as the marker's alternative when it finds another one ("(Sánchez Vidal, Dubois and Lee,
# 2021)" reads as prose and "Dubois and Lee" above; the reference list decides).
_COMPOUND_PAREN_ITEM = re.compile(
    rf"^(?P<names_all>{_PAREN_NAME_LIST_BODY})"
    rf"(?:(?P<comma>\s*,)\s*|\s+){_YEAR_LIST}(?P<rest>.*)$",
    re.DOTALL,
)
_PARENTHETICAL = re.compile(r"\((?P<body>[^()]{4,500})\)")
# Group "skip" (callers drop it): where no marker starts at a list of names or of particles,
# the list is consumed but for its last name (a marker can start there) or its last 14
# particles (an organisation of 7 words and 6 connectors can), so no search starts again
# inside it - one scan of the list, not one per name.
_NARRATIVE = re.compile(
    rf"(?<![\w\-])(?:{_NAME_LIST}|(?P<org>{_ORGANISATION}))(?:['’]s)?\s*\(\s*{_YEAR_LIST}"
    rf"(?P<rest>[^()]{{0,60}})\)"
    rf"|(?<![\w\-])(?P<skip>(?:{_SURNAME},\s*)+(?={_SURNAME})|{_PARTICLE}+(?={_PARTICLE}{{14}}))"
)
_YEAR_TOKEN = re.compile(
    rf"(?P<year>{_YEAR})(?P<suffix>[a-z])?|(?P<nd>n\.\s?d\.|in\s+press|forthcoming)|(?P<letter>\b[a-z]\b)"
)
_PIN_IN_REST = re.compile(
    # Possessive: no run of spaces or numerals is tried split in two ways (linear).
    # "S. 3f." (German Seite, "and the next page"): the page forms of other languages too.
    r"^\s*+[,:]?+\s*+(?P<pin>(?:p|pp|pg|page|pages|s|ss|ch|chap|chapter|sec|sect|section|§|fig|"
    r"table|para|n|fn|col|vol)\.?\s*+[\dIVXLCivxlc]++(?:\s*+[" + _DASHES + r",]\s*+"
    r"[\dIVXLCivxlc]++)*+(?:\s*+ff?\.)?+|"
    r"\d{1,4}(?:\s*[" + _DASHES + r"]\s*\d{1,4})?)\s*+$",
    re.IGNORECASE,
)
# Leading spaces only from the start of their run: a long run is scanned once, not per space.
_NAME_SPLIT = re.compile(r"(?:(?<!\s)\s++)?(?:,|\band\b|&|\bund\b|\by\b|\bet\b(?!\s*al))\s*+")

# Capitalised words that precede "(2019)" in prose without being an author.
NOT_AUTHOR_WORDS = frozenset(
    """january february march april may june july august september october november december
    jan feb mar apr jun jul aug sep sept oct nov dec table figure fig section chapter appendix
    version release see in the this that these those since from until before after during
    spring summer fall autumn winter accessed retrieved updated published volume vol no issue
    page edition eq equation step phase wave year years census act law as and or but also
    however thus here there we our it its their his her when where which while between
    although both each for with without by on at to of an a is are was were has have had
    semeval conll trec""".split()
)


class MarkerItem(msgspec.Struct, frozen=True, kw_only=True):
    """One cited work inside a marker: a number, or names + year (+ suffix)."""

    number: int | None = None
    # Surnames as printed in the marker ("Smith", "van Zuylen"), first author first.
    names: list[str] = []
    et_al: bool = False
    year: int | None = None
    year_suffix: str | None = None
    # "n.d.", "in press": a reference without a year.
    undated: bool = False
    pinpoint: str | None = None


class Marker(msgspec.Struct, frozen=True, kw_only=True):
    """A candidate citation marker; offsets index the text view."""

    start: int
    end: int
    kind: str  # "numeric", "parenthetical" or "narrative"
    items: list[MarkerItem]
    # The author-year form had a comma or "et al." - an unmistakable citation even if unlinked.
    strong: bool = False
    # Another reading of the names (a compound surname or prose before them): the reference
    # list decides which one the marker names.
    alternative: list[MarkerItem] = []


def _numeric_items(body: str) -> list[MarkerItem] | None:
    colon = _COLON_PINPOINT.fullmatch(body.strip())
    if colon is not None:
        # "[12: 5–7]", "[3:12]": the pages of one work after a colon.
        return [MarkerItem(number=int(colon.group("number")), pinpoint=colon.group("pin").strip())]
    parts = [part.strip() for part in re.split(r"[,;]", body)]
    numbers: list[int] = []
    pinpoint: str | None = None
    for position, part in enumerate(parts):
        if not part:
            return None
        number_match = _NUMBER_ITEM.match(part)
        if number_match is not None and pinpoint is None:
            first = int(number_match.group("first"))
            last = int(number_match.group("last") or first)
            if last < first or last - first > MAX_RANGE_SPAN:
                return None
            numbers.extend(range(first, last + 1))
            continue
        pin_match = _PINPOINT.match(part)
        if pin_match is not None and numbers and position > 0:
            # "[1, p. 45]" and "[1, pp. 3, 7]": everything after the first pinpoint belongs to it.
            pinpoint = ", ".join(parts[position:]) if pinpoint is None else pinpoint
            break
        return None
    if not numbers:
        return None
    return [MarkerItem(number=number, pinpoint=pinpoint) for number in numbers]


_SUPERSCRIPT_VALUES = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
# Superscript digits glued to a word or its closing punctuation: "spread¹", "risk,²⁻⁴", "(ref).³".
_SUPERSCRIPT = re.compile(r"(?<=[^\s⁰¹²³⁴⁵⁶⁷⁸⁹⁻])[⁰¹²³⁴⁵⁶⁷⁸⁹]{1,3}(?:[,⁻][⁰¹²³⁴⁵⁶⁷⁸⁹]{1,3})*")
# Words a superscript is a power of, not a citation: "m²", "km²", "x³", "10⁻³" (a bare number that
# is not a year; "COVID-19⁷" and "in 2020¹⁵" are citations).
_UNIT_BEFORE = re.compile(
    r"(?:\b(?:[a-zA-Z]|[cmkdµμ]?m|ft|in|s|g|kg|l|r|R)|(?<![\w\-])(?!(?:19|20)\d\d$)\d+)$"
)


def find_superscript_markers(text: str, start: int, end: int) -> list[Marker]:
    """Superscript numbers after a word ("spread¹", "risk²⁻⁴", "shown¹,³"): Vancouver, Nature
    and AMA citations once the PDF or DOCX reader has marked the raised digits as such."""
    markers: list[Marker] = []
    for match in _SUPERSCRIPT.finditer(text, start, end):
        if _UNIT_BEFORE.search(text, max(start, match.start() - 8), match.start()):
            continue
        items = _numeric_items(match.group(0).translate(_SUPERSCRIPT_VALUES).replace(",", ", "))
        if items is not None:
            markers.append(
                Marker(start=match.start(), end=match.end(), kind="numeric", items=items)
            )
    return markers


def find_numeric_markers(
    text: str, start: int, end: int, parenthesized: bool = False
) -> list[Marker]:
    """``[3, 7]``; with ``parenthesized`` the Vancouver form ``(3, 7)`` instead."""
    markers: list[Marker] = []
    pattern = _PAREN_NUMERIC if parenthesized else _NUMERIC
    for match in pattern.finditer(text, start, end):
        if parenthesized and _EQUATION_BEFORE.search(
            text, max(start, match.start() - 12), match.start()
        ):
            continue
        items = _numeric_items(" ".join(match.group("body").split()))
        if items is None:
            continue
        before = text[max(start, match.start() - 24) : match.start()]
        if _is_math_context(before, items):
            continue
        markers.append(Marker(start=match.start(), end=match.end(), kind="numeric", items=items))
    return _merge_bracket_ranges(text, markers)


def _merge_bracket_ranges(text: str, markers: list[Marker]) -> list[Marker]:
    """IEEE writes ranges as "[3]–[5]": one marker citing 3, 4 and 5."""
    merged: list[Marker] = []
    for marker in markers:
        previous = merged[-1] if merged else None
        if (
            previous is not None
            and _BRACKET_RANGE_GAP.fullmatch(text[previous.end : marker.start])
            and len(previous.items) == 1
            and len(marker.items) == 1
        ):
            first, last = previous.items[0].number or 0, marker.items[0].number or 0
            if first < last <= first + MAX_RANGE_SPAN:
                merged[-1] = Marker(
                    start=previous.start,
                    end=marker.end,
                    kind="numeric",
                    items=[MarkerItem(number=number) for number in range(first, last + 1)],
                )
                continue
        merged.append(marker)
    return merged


def _is_math_context(before: str, items: list[MarkerItem]) -> bool:
    """A bracket right after a symbol, or an interval-like pair after prose, is not a citation."""
    stripped = before.rstrip()
    if stripped and stripped[-1] in "=∈∉<>≤≥×⊂⊆∪∩^_":
        return True
    tail = stripped.split()[-1].lower() if stripped.split() else ""
    if tail in ("interval", "intervals", "range", "ranges", "between", "within", "scale"):
        return True
    # "[0, 1]": zero never labels a reference.
    if any(item.number == 0 for item in items):
        return True
    # "x[2]", "a_i[3]": a single letter or a digit glued to "[" is an index ("shown[3]" is not).
    glued = re.search(r"(?<!\w)(\w++)$", before)
    return glued is not None and (len(glued.group(1)) == 1 or glued.group(1)[-1].isdigit())


def _split_names(names: str) -> tuple[list[str], bool]:
    et_al = bool(re.search(_ET_AL, " " + names))
    names = re.sub(_ET_AL, "", " " + names).strip()
    parts = [part.strip(" .,") for part in _NAME_SPLIT.split(names) if part.strip(" .,")]
    return parts, et_al


def _year_items(years: str, rest: str) -> list[MarkerItem]:
    """ "2019a, b, 2020" -> items for 2019a, 2019b, 2020 (names filled in by the caller)."""
    items: list[MarkerItem] = []
    last_year: int | None = None
    for token in _YEAR_TOKEN.finditer(years):
        if token.group("year"):
            last_year = int(token.group("year"))
            items.append(MarkerItem(year=last_year, year_suffix=token.group("suffix")))
        elif token.group("nd"):
            items.append(MarkerItem(undated=True))
        elif token.group("letter") and last_year is not None:
            items.append(MarkerItem(year=last_year, year_suffix=token.group("letter")))
    pin_match = _PIN_IN_REST.match(rest) if rest.strip() else None
    if pin_match is not None:
        pin = pin_match.group("pin").strip()
        items = [msgspec.structs.replace(item, pinpoint=pin) for item in items]
    return items


def _with_names(items: list[MarkerItem], names: list[str], et_al: bool) -> list[MarkerItem]:
    return [msgspec.structs.replace(item, names=names, et_al=et_al) for item in items]


def _is_author_like(names: list[str]) -> bool:
    return bool(names) and names[0].split()[-1].lower().strip(".") not in NOT_AUTHOR_WORDS


_FOOTNOTE_URL = re.compile(r"(?<!\s)\s*+\d{0,2}(?:https?://|www\.)\S+")
# A caption line, or else (group "run") the newline and spaces it did not follow: kept as they
# are, and never searched again from inside, so a long run of blank lines is read once.
_CAPTION_LINE = re.compile(
    r"\n\s*+(?:Figure|Fig\.|Table|Tab\.)\s*+\d++[:.][^\n]*+(?=\n)|(?P<run>\n\s*+)"
)


def _read_parenthetical(match: re.Match[str] | None) -> tuple[list[MarkerItem], bool] | None:
    if match is None:
        return None
    names, et_al = _split_names(match.group("names_all"))
    if not _is_author_like(names):
        return None
    rest = match.group("rest")
    items = _year_items(match.group("years"), rest)
    if not items:
        return None
    strong = bool(match.group("comma")) or et_al
    return _with_names(items, names, et_al), strong


def _parenthetical_item(
    part: str,
) -> tuple[list[MarkerItem], bool, list[MarkerItem] | None] | None:
    """(items, strong, the items of another reading or None) of one ";"-separated part."""
    # A figure caption extracted into the middle of the parenthesis is not part of it.
    part = _CAPTION_LINE.sub(lambda match: match.group("run") or " ", part)
    # Footnote text (a glued number and a URL) that layout dropped into the parenthesis.
    part = _FOOTNOTE_URL.sub(" ", part)
    part = _PREFIX.sub("", " ".join(part.split()).strip())
    compound = _read_parenthetical(_COMPOUND_PAREN_ITEM.match(part))
    match = _PAREN_ITEM.match(part)
    while match is None and ", " in part:
        # "(Long Short-Term Memory, Hochreiter and Schmidhuber, 1997)": the name follows prose.
        part = _PREFIX.sub("", part.split(", ", 1)[1])
        match = _PAREN_ITEM.match(part)
    simple = _read_parenthetical(match)
    if simple is None:
        # "(Sánchez Vidal and Dubois, 2021)": no reading but with a compound surname.
        return None if compound is None else (compound[0], compound[1], None)
    alternative = compound[0] if compound is not None and compound[0] != simple[0] else None
    return simple[0], simple[1], alternative


def find_parenthetical_markers(text: str, start: int, end: int) -> list[Marker]:
    markers: list[Marker] = []
    for match in _PARENTHETICAL.finditer(text, start, end):
        body = match.group("body")
        if not re.search(_YEAR + r"|n\.\s?d\.", body):
            continue
        items: list[MarkerItem] = []
        alternative: list[MarkerItem] = []
        other_reading = False
        strong = False
        for part in re.split(r";", body):
            parsed = _parenthetical_item(part)
            if parsed is not None:
                items.extend(parsed[0])
                strong = strong or parsed[1]
                alternative.extend(parsed[2] if parsed[2] is not None else parsed[0])
                other_reading = other_reading or parsed[2] is not None
        if items:
            markers.append(
                Marker(
                    start=match.start(),
                    end=match.end(),
                    kind="parenthetical",
                    items=items,
                    strong=strong,
                    alternative=alternative if other_reading else [],
                )
            )
    return markers


def _narrative_marker(match: re.Match[str]) -> Marker | None:
    names_text = match.group("org") or match.group("names")
    names, et_al = _split_names(names_text)
    name_start = match.start()
    if match.group("org"):
        # "In Siegel (2018)" also matches as an organisation; keep only the last word then.
        words = names_text.split()
        if _looks_organisation(words):
            names = [" ".join(words)]
        else:
            names = [words[-1]]
            name_start = match.start("org") + names_text.rindex(words[-1])
    if not _is_author_like(names):
        return None
    items = _year_items(match.group("years"), match.group("rest"))
    if not items or (match.group("rest").strip() and items[0].pinpoint is None):
        return None
    return Marker(
        start=name_start,
        end=match.end(),
        kind="narrative",
        items=_with_names(items, names, et_al),
        strong=et_al,
    )


def find_narrative_markers(text: str, start: int, end: int) -> list[Marker]:
    markers: list[Marker] = []
    for match in _NARRATIVE.finditer(text, start, end):
        if match.group("skip") is not None:
            continue
        marker = _narrative_marker(match)
        if marker is not None:
            markers.append(marker)
    return markers


def narrower_narrative_markers(text: str, marker: Marker) -> list[Marker]:
    """The narrative ``marker`` without its leading names, dropping one more each time.

    "In Vienna, Hofer and Lindqvist (2020)" reads as three authors to the pattern; only the
    reference list can tell that "Vienna" is prose, so the caller tries these when the whole
    name list names no entry.
    """
    if marker.kind != "narrative":
        return []
    names_end = text.find("(", marker.start, marker.end)
    narrower: list[Marker] = []
    cursor = marker.start
    while (comma := text.find(",", cursor, names_end)) >= 0:
        cursor = comma + 1
        while cursor < names_end and text[cursor].isspace():
            cursor += 1
        match = _NARRATIVE.match(text, cursor, marker.end)
        if match is not None and match.group("skip") is not None:
            match = None
        candidate = _narrative_marker(match) if match is not None else None
        if candidate is not None:
            narrower.append(candidate)
    return narrower


def _looks_organisation(words: list[str]) -> bool:
    return any(name_key(word) in ORGANISATION_WORDS for word in words)


def find_markers(
    text: str,
    start: int,
    end: int,
    parenthesized_numbers: bool = False,
    superscripts: bool = False,
) -> list[Marker]:
    """All candidate markers in ``text[start:end]``, in text order, without overlaps.

    ``parenthesized_numbers``: the document cites "(3)" rather than "[3]" (Vancouver).
    ``superscripts``: it cites with superscript numbers ("spread¹"); elsewhere they are
    footnote marks.
    """
    candidates = (
        find_numeric_markers(text, start, end, parenthesized=parenthesized_numbers)
        + (find_superscript_markers(text, start, end) if superscripts else [])
        + find_parenthetical_markers(text, start, end)
        + find_narrative_markers(text, start, end)
    )
    candidates.sort(key=lambda marker: (marker.start, -(marker.end - marker.start)))
    kept: list[Marker] = []
    for marker in candidates:
        if kept and marker.start < kept[-1].end:
            continue
        kept.append(marker)
    return kept
