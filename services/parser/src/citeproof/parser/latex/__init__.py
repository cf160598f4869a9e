"""LaTeX theses: a .tex file or a project (.zip with `\\input`/`\\include` and its .bib files).

Citations come from the `\\cite` family of commands, so every marker names its entries by key,
exactly; claims are the sentences of the text recovered from the source, and each citation keeps
the file and line of its command. One entry point: `parse_latex_thesis`.
"""

from citeproof.parser.latex.analyze import is_latex, parse_latex_thesis

__all__ = ["is_latex", "parse_latex_thesis"]
