"""Reference-manager libraries inside the parser: a bibliography upload becomes a document whose
`references` rows are the library's entries (label = citation key), and library entries become
`Reference`s wherever a thesis brings its own (a LaTeX project's .bib, Word citation fields)."""

from citeproof.parser.libraries.document import parse_bibliography
from citeproof.parser.libraries.references import entry_reference, library_references

__all__ = ["entry_reference", "library_references", "parse_bibliography"]
