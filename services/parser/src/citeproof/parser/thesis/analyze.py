"""Thesis analysis end to end: reference list, markers, claims, marker -> reference links."""

from __future__ import annotations

import bisect
import re

import msgspec

from citeproof.contracts.thesis import (
    STYLE_AUTHOR_YEAR,
    STYLE_NUMERIC,
    Citation,
    CitedWork,
    Reference,
    ThesisAnalysis,
)
from citeproof.parser.block_quotes import block_quote_before
from citeproof.parser.thesis.markers import (
    Marker,
    MarkerItem,
    find_markers,
    find_numeric_markers,
    find_superscript_markers,
    narrower_narrative_markers,
)
from citeproof.parser.thesis.notes import Notes, find_notes, resolve_note
from citeproof.parser.thesis.references import (
    author_year_label,
    extract_references,
    unique_label,
)
from citeproof.parser.thesis.resolve import ReferenceIndex, Resolution
from citeproof.parser.thesis.sections import (
    Section,
    find_reference_section,
    find_reference_sections,
)
from citeproof.parser.thesis.textview import TextView, build_view
from citeproof.text.claims import checked_claim
from citeproof.text.names import name_key, opens_with_particle_surname
from citeproof.text.pinpoints import pinpoint_pages
from citeproof.text.sentences import sentence_index_at, split_sentences

# Without a reference list, numeric markers above this are more likely numbers than citations.
MAX_UNLISTED_NUMBER = 300

# A reference list has at least this many entries, and this share of them carry a year.
MIN_LIST_ENTRIES = 3
MIN_DATED_SHARE = 0.5
# Text between two reference lists shorter than this is not a chapter body.
MIN_CHAPTER_BODY_CHARS = 500
# Markers of the other style needed before entries are relabelled to match the body.
MIN_MARKERS_TO_RELABEL = 3
# A numeric marker naming a number beyond factor x the highest entry number (+ slack) is a value.
NUMERIC_CEILING_FACTOR = 1.5
NUMERIC_CEILING_SLACK = 5

_FIRST_NUMBERED_ENTRY = re.compile(r"^[ \t]*\[1\][ \t]+\S", re.MULTILINE)


def _fallback_section(text: str) -> Section | None:
    """No heading: a "[1] ..." list in the second half of the text is the reference list."""
    for match in _FIRST_NUMBERED_ENTRY.finditer(text, len(text) // 2):
        return Section(heading_start=match.start(), start=match.start(), end=len(text))
    return None


def _cites_with_superscripts(text: str, body: list[tuple[int, int]], numbered: bool) -> bool:
    """Superscript numbers are the body's citations (Vancouver, Nature, AMA) only under a list
    printed with numbers and when the body has no "[n]" markers; beside brackets, or above an
    unnumbered bibliography (Chicago notes), they are note marks and would link to the wrong
    entry."""
    if not numbered:
        return False
    bracketed = superscripts = 0
    for body_start, body_end in body:
        bracketed += len(find_numeric_markers(text, body_start, body_end))
        superscripts += len(find_superscript_markers(text, body_start, body_end))
    return bracketed == 0 and superscripts >= MIN_MARKERS_TO_RELABEL


def _labels_for_body_style(
    references: list[Reference], text: str, body: list[tuple[int, int]]
) -> list[Reference]:
    """Give entries the labels the body's markers use.

    Word's automatic list numbering does not survive extraction, so a numbered bibliography may
    arrive as plain paragraphs while the body says "[3]": number them in order. Conversely a
    numbered list cited by author and year gets "Smith2020a" labels.
    """
    if not references:
        return references
    numeric = author_year = 0
    numbered = all(ref.label.isdigit() for ref in references)
    superscripts = _cites_with_superscripts(text, body, numbered)
    for body_start, body_end in body:
        for marker in find_markers(text, body_start, body_end, superscripts=superscripts):
            if marker.kind != "numeric":
                author_year += 1
            elif all(1 <= (item.number or 0) <= len(references) for item in marker.items):
                numeric += 1
    if not numbered and numeric >= MIN_MARKERS_TO_RELABEL and numeric > author_year:
        return [msgspec.structs.replace(ref, label=str(ref.ordinal)) for ref in references]
    if numbered and author_year >= MIN_MARKERS_TO_RELABEL and numeric == 0:
        used: set[str] = set()
        return [
            msgspec.structs.replace(
                ref,
                label=unique_label(
                    author_year_label(ref.authors, ref.year, ref.year_suffix, ref.raw), used
                ),
            )
            for ref in references
        ]
    return references


def _cites_numbers_in_parentheses(
    text: str, body: list[tuple[int, int]], index: ReferenceIndex
) -> bool:
    """A numbered list, no "[n]" in the body, but "(n)" that name entries: Vancouver style."""
    if not index.numeric:
        return False
    bracketed = parenthesized = 0
    for body_start, body_end in body:
        bracketed += sum(
            1
            for marker in find_numeric_markers(text, body_start, body_end)
            if all(index.resolve(item) for item in marker.items)
        )
        parenthesized += sum(
            1
            for marker in find_numeric_markers(text, body_start, body_end, parenthesized=True)
            if all(index.resolve(item) for item in marker.items)
        )
    return bracketed == 0 and parenthesized >= MIN_MARKERS_TO_RELABEL


def _body_ranges(length: int, section: Section | None) -> list[tuple[int, int]]:
    if section is None:
        return [(0, length)]
    return [(0, section.heading_start), (section.end, length)]


class _Part(msgspec.Struct):
    """One reference list and the body text whose markers cite it (view offsets)."""

    references: list[Reference]
    body: list[tuple[int, int]]


def _is_real_list(references: list[Reference]) -> bool:
    """Entries, most of them dated: not a table of contents that happens to say "References"."""
    dated = sum(1 for ref in references if ref.year is not None)
    return len(references) >= MIN_LIST_ENTRIES and dated >= len(references) * MIN_DATED_SHARE


def _chapter_lists(view: TextView) -> list[_Part]:
    """Article-based theses: one reference list per chapter, each cited by the text before it.

    Returns [] unless at least two real lists are found. Labels get the list number as prefix
    ("2/12") so that they stay unique in the document.
    """
    found: list[tuple[Section, list[Reference], int]] = []
    for section in find_reference_sections(view.text):
        references, list_end = extract_references(view, section)
        if _is_real_list(references):
            found.append((section, references, list_end))
    if len(found) < 2:
        return []
    gaps = [found[k + 1][0].heading_start - found[k][2] for k in range(len(found) - 1)]
    if min(gaps) < MIN_CHAPTER_BODY_CHARS:
        # Lists with next to no text between them are one list broken by a repeated heading.
        return []
    parts: list[_Part] = []
    previous_end = 0
    for number, (section, references, list_end) in enumerate(found, start=1):
        body = [(previous_end, section.heading_start)]
        if number == len(found):
            last = find_reference_section(view.text)
            body.append((max(list_end, last.end if last else list_end), len(view.text)))
        parts.append(_Part(references=references, body=body))
        previous_end = list_end
    return parts


def _number_parts(parts: list[_Part]) -> list[_Part]:
    """Unique ordinals across the document; list-number prefixes when there are several."""
    ordinal = 0
    numbered: list[_Part] = []
    for number, part in enumerate(parts, start=1):
        references = []
        for ref in part.references:
            ordinal += 1
            label = f"{number}/{ref.label}" if len(parts) > 1 else ref.label
            references.append(msgspec.structs.replace(ref, ordinal=ordinal, label=label))
        numbered.append(_Part(references=references, body=part.body))
    return numbered


def _keep_marker(marker: Marker, resolutions: list[Resolution], index: ReferenceIndex) -> bool:
    if marker.kind == "numeric" and index.by_number:
        # "[1, 2000]": a number far beyond the list is a value, so the bracket is no citation.
        ceiling = max(index.by_number) * NUMERIC_CEILING_FACTOR + NUMERIC_CEILING_SLACK
        if any((item.number or 0) > ceiling for item in marker.items):
            return False
    if any(resolution.reference is not None for resolution in resolutions):
        return True
    if marker.kind == "numeric" and index.numeric:
        # "[14]" under a list of 12: a citation whose entry is missing, reported as such.
        return True
    if any(resolution.candidates for resolution in resolutions):
        # A name and year that nearly match an entry are a citation, not prose.
        return True
    if not index.references:
        # Nothing to check against: keep the unmistakable forms only.
        if marker.kind == "numeric":
            return all((item.number or 0) <= MAX_UNLISTED_NUMBER for item in marker.items)
        return marker.strong
    # A well-formed author-year citation missing from the list is worth reporting as such;
    # in a numeric document it is far more likely prose ("BERT (2019)").
    return marker.kind != "numeric" and marker.strong and not index.numeric


def _narrowed_to_a_listed_work(
    text: str, marker: Marker, resolutions: list[Resolution], index: ReferenceIndex
) -> tuple[Marker, list[Resolution]]:
    """A narrative marker that caught a prose word ("In Vienna, Hofer and Lindqvist (2020)"),
    cut back to the names whose first is an entry's first author; unchanged when the whole
    list already starts with one, or when no shorter list does."""
    if marker.kind != "narrative" or any(r.reference for r in resolutions):
        return marker, resolutions
    for narrower in narrower_narrative_markers(text, marker):
        narrower_resolutions = [index.resolution(item) for item in narrower.items]
        if any(r.reference for r in narrower_resolutions):
            return narrower, narrower_resolutions
    return marker, resolutions


def _read_the_other_way(
    marker: Marker, resolutions: list[Resolution], index: ReferenceIndex
) -> tuple[Marker, list[Resolution]]:
    """The marker's other reading of its names when it names more listed works: "(Sánchez Vidal,
    Dubois and Lee, 2021)" names Sánchez Vidal's work, "(Deep Learning, Smith and Jones, 2019)"
    Smith's."""
    if not marker.alternative:
        return marker, resolutions
    other = [index.resolution(item) for item in marker.alternative]
    linked = sum(1 for resolution in resolutions if resolution.reference is not None)
    if sum(1 for resolution in other if resolution.reference is not None) > linked:
        return msgspec.structs.replace(marker, items=marker.alternative, alternative=[]), other
    return marker, resolutions


def _with_whole_first_surname(text: str, marker: Marker, resolutions: list[Resolution]) -> Marker:
    """A narrative marker whose first name is the last word of its entry's compound surname
    ("Sánchez Vidal and Dubois (2021)" matched from "Vidal"), widened to the whole surname."""
    first = resolutions[0].reference if resolutions else None
    if marker.kind != "narrative" or first is None or not first.authors or not marker.items:
        return marker
    named = marker.items[0].names[0] if marker.items[0].names else ""
    words = first.authors[0].split()
    if len(words) < 2 or name_key(words[-1]) != name_key(named):
        return marker
    lead = f"{' '.join(words[:-1])} "
    start = marker.start - len(lead)
    if start < 0 or text[start : marker.start] != lead or (start > 0 and text[start - 1].isalnum()):
        return marker
    items = [
        msgspec.structs.replace(item, names=[first.authors[0], *item.names[1:]])
        for item in marker.items
    ]
    return msgspec.structs.replace(marker, start=start, items=items)


def _item_key(item: MarkerItem) -> str:
    if item.number is not None:
        return f"#{item.number}"
    names = "+".join(item.names)
    return f"{names}|{item.year}{item.year_suffix or ''}"


# Longer "sentences" are tables or lists run together; the claim is cut to a window around the
# marker of CLAIM_WINDOW_CHARS on each side.
MAX_CLAIM_CHARS = 600
CLAIM_WINDOW_CHARS = 250


# Markers (brackets or parentheses) with the full stop after them, at the start of a sentence.
_LEADING_MARKERS = re.compile(
    r"(?:\[[^\[\]]*\]|\([^()]*\))(?:\s*(?:\[[^\[\]]*\]|\([^()]*\)))*\s*[.!?]+"
)


def _leading_marker_end(text: str, start: int, end: int) -> int | None:
    """Where "[3]." at the start of ``text[start:end]`` ends: nothing but markers and a full stop
    before it, so they close the sentence before (``... "well tolerated." [3]. Next``)."""
    # Matched on the span alone: one try per span, never searched across the text.
    match = _LEADING_MARKERS.match(text[start:end])
    if match is None:
        return None
    after = start + match.end()
    if after < end and not text[after].isspace():
        return None
    return after


def _with_markers_attached(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sentence spans where markers opening a "sentence" join the sentence before it.

    The splitter ends a sentence at a full stop inside closing quotes when a bracket follows
    (`... "well tolerated." [3]. Next`), leaving "[3]." at the start of the next span; the claim
    is the quoted sentence the marker follows. A blank line in between keeps them apart.
    """
    joined: list[tuple[int, int]] = []
    for start, end in spans:
        marker_end = _leading_marker_end(text, start, end)
        if marker_end is not None and joined and "\n\n" not in text[joined[-1][1] : start]:
            joined[-1] = (joined[-1][0], marker_end)
            while marker_end < end and text[marker_end].isspace():
                marker_end += 1
            if marker_end >= end:
                continue
            start = marker_end
        joined.append((start, end))
    return joined


_SUPERSCRIPT_RUN = re.compile(r"[⁰¹²³⁴⁵⁶⁷⁸⁹][⁰¹²³⁴⁵⁶⁷⁸⁹,⁻]*")
# A marker printed after a sentence's full stop (and its closing quotation mark), the next
# sentence opening after it: `... in T cells. [3, p. 4] However`, `... “well tolerated.”
# (Smith, 2020) The`, `... tolerated.”[3] The`, `... men. (Smith, 2020) van Dijk (2021)`.
# Bounded pieces: each start is read a few characters only.
_MARKER_AFTER_SENTENCE = re.compile(
    r"(?<=[.!?])[\"'”’“‘»«)\]]{0,3}[ \t]{0,3}"
    r"(?P<marker>\[\d[^\[\]\n]{0,80}\]|\([^()\n]{4,200}\))"
    r"(?=[ \t]*+(?:\n[ \t]*+\n|$)|\s++(?P<next>[^\W\d_]|[\d\"“‘„‚«»(\[]))"
)
_YEAR_IN_MARKER = re.compile(r"\b(?:1[6-9]|20)\d\d[a-z]?\b|\bn\.\s?d\.")


def _blank_markers_after_sentences(text: str) -> str:
    """``text`` with the markers printed after a sentence's end blanked (same offsets), so the
    splitter ends the sentence before them and they go with it (`_Claims._sentence_before`),
    not with the sentence after them."""

    def blank(match: re.Match[str]) -> str:
        marker = match.group("marker")
        if marker.startswith("(") and not _YEAR_IN_MARKER.search(marker):
            return match.group(0)  # "(A) Severe ...": a label, not a citation
        following = match.start("next")
        if (
            following >= 0
            and "a" <= match.string[following] <= "z"
            and not opens_with_particle_surname(match.string, following)
        ):
            return match.group(0)  # "... 2020. (Smith, 2020) and ...": the sentence goes on
        keep = match.start("marker") - match.start()
        return match.group(0)[:keep] + " " * len(marker)

    return _MARKER_AFTER_SENTENCE.sub(blank, text)


class _Claims:
    """Sentence spans of the view, and the claim/context for a marker position."""

    def __init__(self, view: TextView, original: str) -> None:
        self.view = view
        self.original = original
        # Superscript markers are split as spaces: "home.¹ Ventilation" ends a sentence after
        # the full stop, as a note number printed after punctuation does (same offsets).
        splittable = _SUPERSCRIPT_RUN.sub(lambda run: " " * len(run.group(0)), view.text)
        splittable = _blank_markers_after_sentences(splittable)
        self.spans = _with_markers_attached(view.text, split_sentences(splittable))

    def around(self, marker: Marker) -> tuple[tuple[int, int], str]:
        index = sentence_index_at(self.spans, marker.start)
        if index is None:
            index = self._sentence_before(marker)
        if index is None:
            return (marker.start, marker.end), ""
        start, end = self.spans[index]
        end = max(end, marker.end)
        if end - start > MAX_CLAIM_CHARS:
            # A "sentence" this long is a table or list run together by extraction: keep the
            # words around the marker only.
            start, end = self._window(start, end, marker)
            return (start, end), ""
        context = ""
        if index > 0:
            previous_start, previous_end = self.spans[index - 1]
            if "\n\n" not in self.view.text[previous_end:start]:
                context_start, context_end = self.view.original_span(previous_start, previous_end)
                context = self.original[context_start:context_end]
        return (start, end), context

    def _sentence_before(self, marker: Marker) -> int | None:
        """The sentence a marker printed after its full stop belongs to ("home.¹")."""
        index = bisect.bisect_right([start for start, _ in self.spans], marker.start) - 1
        if index < 0:
            return None
        if self.view.text[self.spans[index][1] : marker.start].strip():
            return None
        return index

    def _window(self, start: int, end: int, marker: Marker) -> tuple[int, int]:
        text = self.view.text
        window_start = max(start, marker.start - CLAIM_WINDOW_CHARS)
        window_end = min(end, marker.end + CLAIM_WINDOW_CHARS)
        # Snap to whole words.
        while window_start > start and not text[window_start - 1].isspace():
            window_start -= 1
        while window_end < end and not text[window_end].isspace():
            window_end += 1
        return window_start, window_end


def analyze_thesis(
    text: str, page_starts: list[int], file_notes: dict[int, str] | None = None
) -> ThesisAnalysis:
    """Find the reference list and every citing claim of ``text``.

    ``page_starts[i]`` is the offset where page i+1 begins (empty: no page information).
    ``file_notes``: notes the file keeps outside ``text`` (Word footnotes/endnotes, a PDF's notes
    at the page foot) by the number at their mark; they take the place of a notes section.
    """
    notes: list[str] = []
    view = build_view(text)
    parts = _chapter_lists(view)
    note_list: Notes | None = None
    if parts:
        notes.append(
            f"{len(parts)} reference lists (one per chapter); labels carry the list number"
        )
        parts = [
            _Part(_labels_for_body_style(part.references, view.text, part.body), part.body)
            for part in parts
        ]
    else:
        section = find_reference_section(view.text)
        if section is None:
            section = _fallback_section(view.text)
            if section is not None:
                notes.append("no reference heading; used a numbered list found near the end")
        references = extract_references(view, section)[0] if section else []
        if section is None:
            notes.append("no reference section found; markers cannot be checked against a list")
        elif not references:
            notes.append("reference section found but no entries could be split")
        body = _body_ranges(len(view.text), section)
        if section is not None and references and not all(r.label.isdigit() for r in references):
            # Chicago notes-bibliography: the notes are no body text, their numbers cite.
            if file_notes:
                end = len(view.text)
                note_list = Notes(heading_start=end, end=end, texts=dict(file_notes))
                notes.append(f"{len(file_notes)} footnotes or endnotes cite the bibliography")
            else:
                note_list = find_notes(view.text, section.heading_start)
            if note_list is not None and not file_notes:
                body = [(0, note_list.heading_start), (section.end, len(view.text))]
                notes.append(f"{len(note_list.texts)} notes cite the bibliography")
        parts = [_Part(_labels_for_body_style(references, view.text, body), body)]
    parts = _number_parts(parts)
    claims = _Claims(view, text)

    citations: list[Citation] = []
    markers_found = 0
    numeric_markers = 0
    seen_in_claim: set[tuple[int, str]] = set()
    for part in parts:
        index = ReferenceIndex(part.references)
        vancouver = _cites_numbers_in_parentheses(view.text, part.body, index)
        superscripts = _cites_with_superscripts(view.text, part.body, index.numeric)
        for body_start, body_end in part.body:
            for marker in find_markers(
                view.text, body_start, body_end, vancouver, superscripts=superscripts
            ):
                resolutions = [index.resolution(item) for item in marker.items]
                marker, resolutions = _narrowed_to_a_listed_work(
                    view.text, marker, resolutions, index
                )
                marker, resolutions = _read_the_other_way(marker, resolutions, index)
                marker = _with_whole_first_surname(view.text, marker, resolutions)
                if not _keep_marker(marker, resolutions, index):
                    continue
                markers_found += 1
                numeric_markers += marker.kind == "numeric"
                for key, citation in _citations_of(marker, resolutions, claims, text, page_starts):
                    if key in seen_in_claim:
                        continue
                    seen_in_claim.add(key)
                    citations.append(msgspec.structs.replace(citation, ordinal=len(citations) + 1))
        if note_list is not None:
            for marker, resolutions in _note_markers(view.text, part, note_list):
                markers_found += 1
                numeric_markers += 1
                for key, citation in _citations_of(
                    marker, resolutions, claims, text, page_starts, notes=True
                ):
                    if key in seen_in_claim:
                        continue
                    seen_in_claim.add(key)
                    citations.append(msgspec.structs.replace(citation, ordinal=len(citations) + 1))
    citations = sorted(citations, key=lambda citation: citation.marker_start)
    citations = [
        msgspec.structs.replace(citation, ordinal=number)
        for number, citation in enumerate(citations, start=1)
    ]
    citations = _with_checked_claims(citations)
    references = [ref for part in parts for ref in part.references]
    style = None
    if markers_found:
        style = STYLE_NUMERIC if numeric_markers * 2 >= markers_found else STYLE_AUTHOR_YEAR
    unlinked = sum(1 for citation in citations if citation.reference_label is None)
    if unlinked:
        notes.append(f"{unlinked} citation(s) name no entry of the reference list")
    return ThesisAnalysis(
        references=references,
        citations=citations,
        markers_found=markers_found,
        style=style,
        notes=notes,
    )


def _note_markers(
    text: str, part: _Part, note_list: Notes
) -> list[tuple[Marker, list[Resolution]]]:
    """Superscript note numbers of the body, each with the works its note cites (in order, so
    that "Ibid." names the work of the note before)."""
    found: list[tuple[Marker, list[Resolution]]] = []
    previous: Reference | None = None
    for body_start, body_end in part.body:
        for marker in find_superscript_markers(text, body_start, body_end):
            items: list[MarkerItem] = []
            resolutions: list[Resolution] = []
            for item in marker.items:
                note = note_list.texts.get(item.number or 0)
                if note is None:
                    continue
                for resolution, pinpoint in resolve_note(note, part.references, previous):
                    items.append(MarkerItem(number=item.number, pinpoint=pinpoint))
                    resolutions.append(resolution)
                    previous = resolution.reference or previous
            if items:
                found.append((msgspec.structs.replace(marker, items=items), resolutions))
    return found


def _citations_of(
    marker: Marker,
    resolutions: list[Resolution],
    claims: _Claims,
    text: str,
    page_starts: list[int],
    notes: bool = False,
) -> list[tuple[tuple[int, str], Citation]]:
    """One citation per cited item of ``marker``, keyed by (claim, reference) for de-duplication.
    ``notes``: the marker is a note number, which names a note, not an entry."""
    (claim_start, claim_end), context = claims.around(marker)
    original_claim = claims.view.original_span(claim_start, claim_end)
    original_marker = claims.view.original_span(marker.start, marker.end)
    # Verbatim slices of the stored text: consumers locate markers inside the claim by offset
    # (marker_start - claim_start), so the text must be exactly that slice.
    marker_text = text[original_marker[0] : original_marker[1]]
    claim_text = text[original_claim[0] : original_claim[1]]
    page = _page_of(page_starts, original_marker[0])
    block_quote = block_quote_before(text, original_marker[0], original_marker[1])
    result: list[tuple[tuple[int, str], Citation]] = []
    for item, resolution in zip(marker.items, resolutions, strict=True):
        link = resolution.reference
        key = (claim_start, link.label if link is not None else _item_key(item))
        citation = Citation(
            ordinal=0,
            marker_text=marker_text,
            marker_start=original_marker[0],
            marker_end=original_marker[1],
            claim_text=claim_text,
            claim_start=original_claim[0],
            claim_end=original_claim[1],
            context_text=context,
            page=page,
            pinpoint=item.pinpoint,
            pinpoint_pages=pinpoint_pages(item.pinpoint),
            block_quote=block_quote,
            reference_label=link.label if link is not None else None,
            candidates=[candidate.label for candidate in resolution.candidates],
            cited=None if notes else _cited_work(item),
        )
        result.append((key, citation))
    return result


def _cited_work(item: MarkerItem) -> CitedWork:
    return CitedWork(
        number=item.number,
        names=list(item.names),
        et_al=item.et_al,
        year=None if item.undated else item.year,
        year_suffix=item.year_suffix,
    )


def _with_checked_claims(citations: list[Citation]) -> list[Citation]:
    """Each citation with its claim stripped of every marker the analysis found in it."""
    markers: dict[tuple[int, int], set[tuple[int, int]]] = {}
    for citation in citations:
        markers.setdefault((citation.claim_start, citation.claim_end), set()).add(
            (citation.marker_start, citation.marker_end)
        )
    checked: list[Citation] = []
    for citation in citations:
        spans = [
            (start - citation.claim_start, end - citation.claim_start)
            for start, end in markers[(citation.claim_start, citation.claim_end)]
        ]
        claim = checked_claim(citation.claim_text, spans)
        if citation.block_quote:
            # A block quotation's marker stands after its last full stop and goes with its
            # last sentence (or alone): the whole passage is what the citation claims the
            # source says (else planning checks one sentence of it, or nothing).
            claim = citation.block_quote
        checked.append(msgspec.structs.replace(citation, claim_checked=claim))
    return checked


def _page_of(page_starts: list[int], offset: int) -> int | None:
    if not page_starts:
        return None
    return max(1, bisect.bisect_right(page_starts, offset))
