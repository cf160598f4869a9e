"""Reference -> uploaded source document linking (runs when a run is planned).

A reference list is linked one-to-one (`assign_sources`): a source links at most one reference
by heuristics, so a file that prints other references' DOIs or titles cannot claim them.
Evidence is tried strongest first: DOI, arXiv id, title similarity, then first author + year
(never to a PDF whose title shows it is another work: `attachment.titles_differ`). A
link below `ACCEPT_THRESHOLD` is no link: the reference's citations are reported `source_missing`.
An explicit user mapping (reference label -> document) overrides all of this (see
`link_references`).
"""

from citeproof.contracts.thesis import LinkResult, SourceMeta
from citeproof.retriever.linking.match import (
    ACCEPT_THRESHOLD,
    LinkingConfig,
    assign_sources,
    link_reference,
    link_references,
)

__all__ = [
    "ACCEPT_THRESHOLD",
    "LinkResult",
    "LinkingConfig",
    "SourceMeta",
    "assign_sources",
    "link_reference",
    "link_references",
]
