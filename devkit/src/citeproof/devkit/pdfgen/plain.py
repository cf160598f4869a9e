"""Plain text PDFs for tests and benchmarks: lines typeset top-down with a real text layer, and
synthetic paper pages (running header, wrapped body, bare page number) to fill them.

Used where the real papers are not needed (or not there): the parser's tests and the parse
benchmark's fallback corpus. pikepdf writes the file, so no font files are involved.
"""

from __future__ import annotations

import io

BODY_SENTENCES = [
    "Citation verification checks whether a cited source supports the claim made about it.",
    "Smith et al. reported an accuracy of 3.5 points above the baseline in Fig. 3 of their study.",
    "The corpus contains 1,204 papers, e.g. from computer science and biomedicine.",
    "Retrieval combines dense vectors with BM25 scores before a judge reads the passages.",
    "Errors cluster in long documents where the reference list spans several pages.",
]
# Body lines wrap at this many characters, like a two-column paper's lines.
LINE_CHARS = 80


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def make_pdf(pages: list[list[str]], *, title: str | None = None) -> bytes:
    """A text PDF: each page's lines typeset top-down in Helvetica (real text layer)."""
    import pikepdf  # the parser's dependency; only tests and benchmarks call this

    pdf = pikepdf.new()
    font = pdf.make_indirect(
        pikepdf.Dictionary(
            Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1, BaseFont=pikepdf.Name.Helvetica
        )
    )
    for lines in pages:
        ops = ["BT", "/F1 10 Tf", "12 TL", "60 750 Td"]
        for line in lines:
            ops.append(f"({_escape(line)}) Tj T*")
        ops.append("ET")
        page = pikepdf.Dictionary(
            Type=pikepdf.Name.Page,
            MediaBox=[0, 0, 612, 792],
            Contents=pdf.make_stream("\n".join(ops).encode("latin-1")),
            Resources=pikepdf.Dictionary(Font=pikepdf.Dictionary(F1=font)),
        )
        pdf.pages.append(pikepdf.Page(page))
    if title:
        pdf.docinfo["/Title"] = title
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


def paper_pages(
    count: int, *, header: str = "Journal of Test Studies 12 (2024)"
) -> list[list[str]]:
    """Pages with a running header, body lines wrapped at ~80 chars and a bare page number."""
    pages = []
    for number in range(1, count + 1):
        lines = [header]
        if number == 1:
            lines += ["1 Introduction"]
        words = " ".join(BODY_SENTENCES[(number + i) % len(BODY_SENTENCES)] for i in range(8))
        line = ""
        for word in words.split():
            if len(line) + len(word) > LINE_CHARS:
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}".strip()
        lines.append(line)
        lines.append(str(number))
        pages.append(lines)
    return pages
