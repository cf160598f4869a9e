"""Reference -> uploaded source document linking (runs when a run is planned).

Evidence is tried strongest first: DOI, arXiv id, title similarity, then first author + year. A
link below `ACCEPT_THRESHOLD` is no link: the reference's citations are reported `source_missing`.
An explicit user mapping (reference label -> document) overrides all of this (see
`link_references`).
"""

from citeproof.contracts.thesis import LinkResult, SourceMeta
from citeproof.linking.match import (
    ACCEPT_THRESHOLD,
    LinkingConfig,
    link_reference,
    link_references,
)

__all__ = [
    "ACCEPT_THRESHOLD",
    "LinkResult",
    "LinkingConfig",
    "SourceMeta",
    "link_reference",
    "link_references",
]
