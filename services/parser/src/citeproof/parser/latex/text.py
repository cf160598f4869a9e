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
# biblatex's multicite commands: `\cites(pre)(post)[pre][post]{k1}[post]{k2}...`.
MULTICITE_COMMANDS = r"(?:[Pp]aren|[Tt]ext|[Aa]uto|[Ff]oot|[Ss]mart|[Ss]uper)?cites"
# Every repetition is bounded: an unclosed "[" or "{" in hostile text must cost a bounded look
# ahead, not a scan to the end of the document from every position (quadratic).
_NOTE = r"\[[^\]]{0,300}\]"
_GAP = r"\s{0,20}"
_MULTICITE_GROUP = re.compile(
    rf"{_GAP}(?:\[(?P<first>[^\]]{{0,300}})\]{_GAP})?(?:\[(?P<second>[^\]]{{0,300}})\]{_GAP})?"
    r"\{(?P<keys>[^}]{0,2000})\}"
)
_TOKEN = re.compile(
    rf"""
    (?P<multicite>\\{MULTICITE_COMMANDS}\*?(?:{_GAP}\([^)]{{0,300}}\)){{0,2}}
        (?:{_GAP}(?:{_NOTE}{_GAP}){{0,2}}\{{[^}}]{{0,2000}}\}}){{1,50}})
  | (?P<cite>\\(?:{CITE_COMMANDS})\*?{_GAP}
        (?:\[(?P<first>[^\]]{{0,300}})\]{_GAP})?(?:\[(?P<second>[^\]]{{0,300}})\]{_GAP})?
        \{{(?P<keys>[^}}]{{0,2000}})\}})
  | (?P<dropenv>\\begin{_GAP}\{{(?P<env>{_DROPPED_ENVIRONMENTS})(?P<star>\*?)\}})
  | (?P<mathopen>\\\[|\$\$)
  | (?P<heading>\\(?:{_HEADINGS})\*?{_GAP}(?:{_NOTE}{_GAP})?\{{)
  | (?P<drop>\\(?:{_DROPPED_COMMANDS})\*?{_GAP}(?:{_NOTE})?(?:\{{[^{{}}]{{0,2000}}\}})?)
  | (?P<envcmd>\\(?:begin|end){_GAP}\{{[^}}]{{0,100}}\}}(?:{_NOTE})?)
  | (?P<item>\\item\b{_GAP}(?:{_NOTE})?)
  | (?P<escaped>\\[%&$\#_{{}}])
  | (?P<linebreak>\\\\(?:\[[^\]]{{0,50}}\])?)
  | (?P<space>\\[,;:!\ ]|~)
  | (?P<command>\\[A-Za-z@]+\*?)
  | (?P<open>\{{)
  | (?P<close>\}})
  | (?P<dollar>\$)
  | (?P<quote>``|'')
  | (?P<dashes>---|--)
    """,
    re.VERBOSE,
)
_MATH_CLOSERS = {"\\[": "\\]", "$$": "$$"}
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
        self.missing_closers: set[str] = set()

    def _emit(self, piece: str) -> None:
        # At most one blank line between paragraphs, and none opening a paragraph.
        if self.out and self.out[-1].endswith("\n\n"):
            piece = piece.lstrip()
        if piece:
            self.out.append(piece)
            self.length += len(piece)

    def _origin(self, offset: int) -> SourceLine:
        return self.lines[max(0, bisect.bisect_right(self.line_starts, offset) - 1)]

    def _cite(self, match: re.Match[str], groups: list[re.Match[str]]) -> None:
        """One marker for a citation command; `groups` are its (notes, keys) argument groups."""
        keys: list[str] = []
        pinpoints: dict[str, str] = {}
        for group in groups:
            group_keys = [k.strip() for k in group.group("keys").split(",") if k.strip()]
            first, second = group.group("first"), group.group("second")
            # One optional argument is the postnote; two are prenote then postnote.
            pinpoint = _pinpoint(second if second is not None else first)
            keys += group_keys
            if pinpoint:
                pinpoints.update(dict.fromkeys(group_keys, pinpoint))
        if not keys:
            return
        marker = "[" + "; ".join(keys) + "]"
        if self.out and not self.out[-1].endswith((" ", "\n", "(")):
            self._emit(" ")
        origin = self._origin(match.start())
        self.markers.append(
            ExplicitMarker(
                start=self.length,
                end=self.length + len(marker),
                labels=keys,
                pinpoints=pinpoints,
                source_file=origin.file,
                source_line=origin.line,
            )
        )
        self._emit(marker)

    def _skip_to(self, closer: str, position: int, end: int) -> int:
        """Where text resumes after a dropped block: past its closer, or (no closer) right
        after the opening command. A closer once missing after some position is missing after
        every later one, so each closer is searched to the end at most once (linear)."""
        if closer in self.missing_closers:
            return position
        found = re.compile(closer).search(self.source, position, end)
        if found is None:
            self.missing_closers.add(closer)
            return position
        return found.end()

    def convert(self) -> str:
        body = _DOCUMENT_BODY.search(self.source)
        start, end = (body.start(1), body.end(1)) if body else (0, len(self.source))
        cursor = start
        while (match := _TOKEN.search(self.source, cursor, end)) is not None:
            self._emit(_plain(self.source[cursor : match.start()]))
            cursor = match.end()
            kind = match.lastgroup
            if match.group("dropenv") is not None:
                closer = rf"\\end{_GAP}\{{{match.group('env')}{re.escape(match.group('star'))}\}}"
                cursor = self._skip_to(closer, cursor, end)
            elif match.group("mathopen") is not None:
                cursor = self._skip_to(
                    re.escape(_MATH_CLOSERS[match.group("mathopen")]), cursor, end
                )
            elif match.group("multicite") is not None:
                arguments = match.group("multicite")
                # The (pre)(post) notes of the whole list come before the first [ or {.
                first_group = min(
                    (i for i in (arguments.find("["), arguments.find("{")) if i >= 0), default=0
                )
                self._cite(match, list(_MULTICITE_GROUP.finditer(arguments, first_group)))
            elif match.group("cite") is not None:
                self._cite(match, [match])
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
            # drop, dollar: nothing is shown.
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
