"""What the renderer printed outside a document's body, and a check that no quote is one of it.

A verdict that quotes a source's title line, author list or running header as evidence proves
nothing about the claim. This check reads the titles and authors as they were written into the
PDFs (a `DocumentSpec`, or a title and authors from a data set's corpus file), never the parser's
own front-matter marks, so it also catches the parser missing one. The accuracy benchmark and the
demo test call `assert_no_front_matter_quotes` on every quote of their reports.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import msgspec

from citeproof.devkit.pdfgen.render import running_header
from citeproof.devkit.pdfgen.spec import DocumentSpec
from citeproof.text.normalize import comparison_key

# A quote must have this many words to be judged: "COVID-19" is in many titles and in as many
# findings.
MIN_QUOTE_WORDS = 3
# A quote that opens with a title this long runs on from the title line into what follows (a
# shorter one, "Face masks", may open a body sentence; the body may also name the paper's own
# title mid-sentence, "Please cite this paper as: ... <title>", which is not front matter).
MIN_EMBEDDED_TITLE_WORDS = 5


class FrontMatter(msgspec.Struct, frozen=True):
    """One source's printed front matter: its title, its authors and every line printed
    outside the body (title, author line, venue line, DOI line, running header)."""

    title: str
    authors: tuple[str, ...] = ()
    lines: tuple[str, ...] = ()


def front_matter_of(source: DocumentSpec | FrontMatter | tuple[str, Sequence[str]]) -> FrontMatter:
    """The front matter of a rendered spec, or of a (title, authors) pair from a corpus file
    rendered with the default layout (title line, then the authors joined by commas)."""
    if isinstance(source, FrontMatter):
        return source
    if isinstance(source, DocumentSpec):
        venue = ", ".join(part for part in (source.venue, str(source.year or "")) if part)
        lines = [source.title, ", ".join(source.authors), venue, running_header(source)]
        if source.doi:
            lines.append(f"DOI: {source.doi}")
        return FrontMatter(
            title=source.title,
            authors=tuple(source.authors),
            lines=tuple(line for line in lines if line),
        )
    title, authors = source
    spec = DocumentSpec(title=title, authors=tuple(authors))
    return FrontMatter(
        title=title,
        authors=tuple(authors),
        lines=(title, ", ".join(authors), running_header(spec)),
    )


def _contains(haystack: str, needle: str) -> bool:
    return bool(needle) and f" {needle} " in f" {haystack} "


def front_matter_reason(quote: str, front: FrontMatter) -> str | None:
    """Why `quote` is front matter of this source (None when it is not)."""
    key = comparison_key(quote)
    if len(key.split()) < MIN_QUOTE_WORDS:
        return None
    line_keys = [comparison_key(line) for line in front.lines]
    # Consecutive printed lines may reach the parser as one text: the title block is one run.
    printed = " ".join(line_keys)
    if _contains(printed, key) or any(_contains(line, key) for line in line_keys):
        return "the quote is front matter only (title, authors, venue, DOI or running header)"
    title = comparison_key(front.title)
    if len(title.split()) >= MIN_EMBEDDED_TITLE_WORDS and f"{key} ".startswith(f"{title} "):
        return "the quote opens with the title line"
    names = [name for name in (comparison_key(a) for a in front.authors) if len(name.split()) > 1]
    named = [name for name in names if _contains(key, name)]
    if named and (len(named) >= 2 or len(names) == 1):
        return f"the quote names the source's authors ({', '.join(named)})"
    header = comparison_key(running_header_text(front))
    if header and _contains(key, header):
        return "the quote contains the running header"
    return None


def running_header_text(front: FrontMatter) -> str:
    """The running header among the printed lines (the one with the header's dash), if any."""
    headers = [line for line in front.lines if " — " in line]
    return headers[-1].rstrip("…") if headers else ""


def front_matter_quotes(
    quotes: Iterable[str],
    titles_and_authors: Iterable[DocumentSpec | FrontMatter | tuple[str, Sequence[str]]],
) -> list[tuple[str, str, str]]:
    """(quote, source title, reason) for every quote that is any listed source's front matter."""
    fronts = [front_matter_of(source) for source in titles_and_authors]
    found = []
    for quote in quotes:
        if not quote:
            continue
        for front in fronts:
            reason = front_matter_reason(quote, front)
            if reason is not None:
                found.append((quote, front.title, reason))
                break
    return found


def assert_no_front_matter_quotes(
    quotes: Iterable[str],
    titles_and_authors: Iterable[DocumentSpec | FrontMatter | tuple[str, Sequence[str]]],
) -> None:
    """Fail, listing each offender, when a quote is a title, author, venue or header line of
    one of the sources (given as their specs, or as (title, authors) pairs)."""
    quotes = [quote for quote in quotes if quote]
    offenders = front_matter_quotes(quotes, titles_and_authors)
    assert not offenders, (
        f"{len(offenders)} of {len(quotes)} quotes are front matter of their source:\n"
        + "\n".join(f"- {quote!r} ({reason}; {title!r})" for quote, title, reason in offenders)
    )
