"""LaTeX source -> the plain text a reader sees, with every `\\cite` as a marker at a known offset.

One pass of one tokenizer over the flattened source, so each marker's offset in the output and
its line in the source are both exact. Commands are dropped and their braced arguments kept
(`\\emph{x}` -> x); floats, maths displays and verbatim blocks are dropped whole; headings become
paragraphs of their own; a blank line ends a paragraph.
"""

from __future__ import annotations

import bisect
import re

from citeproof.parser.latex.project import SourceLine
from citeproof.parser.libraries.claims import ExplicitMarker

# The citation commands of natbib and biblatex (`\cite`, `\citep`, `\citet`, `\parencite`,
# `\textcite`, `\autocite`, `\footcite`, `\smartcite`, `\supercite`, capitalised forms).
CITE_COMMANDS = (
    r"[Pp]arencite|[Tt]extcite|[Aa]utocite|[Ff]ootcite|[Ss]martcite|[Ss]upercite|"
    r"[Cc]ite[pt]?|citealp|citealt|citeyearpar|citeyear|citeauthor|footcitetext"
)
_DROPPED_ENVIRONMENTS = (
    "figure|table|equation|align|alignat|gather|multline|eqnarray|displaymath|math|tabular|"
    "tabularx|longtable|tikzpicture|lstlisting|verbatim|minted|algorithm|algorithmic|thebibliography"
)
_HEADINGS = "part|chapter|section|subsection|subsubsection|paragraph|subparagraph"
# Commands whose arguments are not text: dropped with their (optional and first) argument.
_DROPPED_COMMANDS = (
    "label|ref|eqref|cref|Cref|autoref|pageref|includegraphics|bibliography|bibliographystyle|"
    "addbibresource|printbibliography|nocite|url|vspace|hspace|usepackage|documentclass|"
    "setlength|newcommand|renewcommand|input|include|cleardoublepage|maketitle|tableofcontents|"
    "listoffigures|listoftables|newpage|clearpage|noindent|centering|small|footnotesize|"
    "begingroup|endgroup|title|author|date|date|pagestyle|thispagestyle|bibitem"
)
_TOKEN = re.compile(
    rf"""
    (?P<cite>\\(?:{CITE_COMMANDS})\*?\s*
        (?:\[(?P<first>[^\]]*)\]\s*)?(?:\[(?P<second>[^\]]*)\]\s*)?\{{(?P<keys>[^}}]*)\}})
  | (?P<skipenv>\\begin\s*\{{(?P<env>{_DROPPED_ENVIRONMENTS})(?P<star>\*?)\}}
        .*?\\end\s*\{{(?P=env)(?P=star)\}})
  | (?P<displaymath>\\\[.*?\\\]|\$\$.*?\$\$)
  | (?P<heading>\\(?:{_HEADINGS})\*?\s*(?:\[[^\]]*\])?\s*\{{)
  | (?P<drop>\\(?:{_DROPPED_COMMANDS})\*?\s*(?:\[[^\]]*\])?(?:\{{[^{{}}]*\}})?)
  | (?P<envcmd>\\(?:begin|end)\s*\{{[^}}]*\}}(?:\[[^\]]*\])?)
  | (?P<item>\\item\b\s*(?:\[[^\]]*\])?)
  | (?P<escaped>\\[%&$\#_{{}}])
  | (?P<linebreak>\\\\(?:\[[^\]]*\])?)
  | (?P<space>\\[,;:!\ ]|~)
  | (?P<command>\\[A-Za-z@]+\*?)
  | (?P<open>\{{)
  | (?P<close>\}})
  | (?P<dollar>\$)
  | (?P<quote>``|'')
  | (?P<dashes>---|--)
    """,
    re.DOTALL | re.VERBOSE,
)
# Commands that print a character.
_SYMBOLS = {
    "textdegree": "°",
    "ldots": "…",
    "dots": "…",
    "textendash": "–",
    "textemdash": "—",
    "S": "§",
    "LaTeX": "LaTeX",
    "TeX": "TeX",
    "textpercent": "%",
}
_BLANK_LINES = re.compile(r"\n[ \t]*\n\s*")
_SPACES = re.compile(r"[ \t\n]+")
_DOCUMENT_BODY = re.compile(r"\\begin\s*\{document\}(.*?)(?:\\end\s*\{document\}|\Z)", re.DOTALL)
_PINPOINT_SPACES = re.compile(r"[~\s]+")


def _plain(run: str) -> str:
    """A run of ordinary source text: blank lines end paragraphs, other whitespace is a space."""
    parts = _BLANK_LINES.split(run)
    return "\n\n".join(_SPACES.sub(" ", part) for part in parts)


def _pinpoint(note: str | None) -> str | None:
    if note is None:
        return None
    cleaned = _PINPOINT_SPACES.sub(" ", note.replace("\\,", " ")).strip()
    return cleaned or None


class LatexText:
    def __init__(self, lines: list[SourceLine]) -> None:
        self.lines = lines
        self.source = "\n".join(line.text for line in lines)
        self.line_starts: list[int] = []
        offset = 0
        for line in lines:
            self.line_starts.append(offset)
            offset += len(line.text) + 1
        self.out: list[str] = []
        self.length = 0
        self.markers: list[ExplicitMarker] = []
        self.closers: list[str] = []

    def _emit(self, piece: str) -> None:
        # At most one blank line between paragraphs, and none opening a paragraph.
        if self.out and self.out[-1].endswith("\n\n"):
            piece = piece.lstrip()
        if piece:
            self.out.append(piece)
            self.length += len(piece)

    def _origin(self, offset: int) -> SourceLine:
        return self.lines[max(0, bisect.bisect_right(self.line_starts, offset) - 1)]

    def _cite(self, match: re.Match[str]) -> None:
        keys = [k.strip() for k in match.group("keys").split(",") if k.strip()]
        if not keys:
            return
        first, second = match.group("first"), match.group("second")
        # One optional argument is the postnote; two are prenote then postnote.
        post = second if second is not None else first
        pinpoint = _pinpoint(post)
        marker = "[" + "; ".join(keys) + "]"
        if self.out and not self.out[-1].endswith((" ", "\n", "(")):
            self._emit(" ")
        origin = self._origin(match.start())
        self.markers.append(
            ExplicitMarker(
                start=self.length,
                end=self.length + len(marker),
                labels=keys,
                pinpoints=dict.fromkeys(keys, pinpoint) if pinpoint else {},
                source_file=origin.file,
                source_line=origin.line,
            )
        )
        self._emit(marker)

    def convert(self) -> str:
        body = _DOCUMENT_BODY.search(self.source)
        start, end = (body.start(1), body.end(1)) if body else (0, len(self.source))
        cursor = start
        for match in _TOKEN.finditer(self.source, start, end):
            self._emit(_plain(self.source[cursor : match.start()]))
            cursor = match.end()
            kind = match.lastgroup
            if match.group("cite") is not None:
                self._cite(match)
            elif match.group("heading") is not None:
                self._emit("\n\n")
                self.closers.append("\n\n")
            elif match.group("item") is not None or kind == "linebreak":
                self._emit("\n\n" if match.group("item") is not None else " ")
            elif match.group("escaped") is not None:
                self._emit(match.group("escaped")[1])
            elif match.group("space") is not None:
                self._emit(" ")
            elif match.group("open") is not None:
                self.closers.append("")
            elif match.group("close") is not None:
                self._emit(self.closers.pop() if self.closers else "")
            elif match.group("quote") is not None:
                self._emit("“" if match.group("quote") == "``" else "”")
            elif match.group("dashes") is not None:
                self._emit("—" if match.group("dashes") == "---" else "–")
            elif match.group("envcmd") is not None:
                self._emit("\n\n")
            elif match.group("command") is not None:
                self._emit(_SYMBOLS.get(match.group("command")[1:], ""))
            # skipenv, displaymath, drop, dollar: nothing is shown.
        self._emit(_plain(self.source[cursor:end]))
        return "".join(self.out)


def latex_text(lines: list[SourceLine]) -> tuple[str, list[ExplicitMarker]]:
    """The plain text and its citation markers; the text is trimmed of leading whitespace with
    the marker offsets shifted to match."""
    converter = LatexText(lines)
    text = converter.convert()
    stripped = text.lstrip()
    shift = len(text) - len(stripped)
    markers = [
        ExplicitMarker(
            start=m.start - shift,
            end=m.end - shift,
            labels=m.labels,
            pinpoints=m.pinpoints,
            source_file=m.source_file,
            source_line=m.source_line,
        )
        for m in converter.markers
    ]
    return stripped.rstrip(), markers
