"""Word theses written with the Zotero or Mendeley plugin: each citation is a field whose code
carries the cited items as CSL JSON (`ADDIN ZOTERO_ITEM CSL_CITATION {...}`, Mendeley's
`ADDIN CSL_CITATION {...}`), so markers link to their entries exactly."""

from citeproof.parser.wordfields.analyze import field_analysis
from citeproof.parser.wordfields.reader import CitationField, read_citation_fields

__all__ = ["CitationField", "field_analysis", "read_citation_fields"]
