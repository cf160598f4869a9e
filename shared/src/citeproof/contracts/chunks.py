"""What a stored chunk is for: the `chunks.role` values the parser writes and the retriever reads.

Only `BODY` chunks are evidence. A `FRONT_MATTER` chunk holds the lines that say what a document
is rather than what it found (title, author list, affiliations, venue, DOI): its words are the
very words a citing claim repeats, so it ranks high for any claim about the paper while
supporting none. It is stored so the document's chunks still cover its text, and never retrieved.
(Running headers and page numbers are dropped from the text altogether; a document's own
reference list is kept in the text but not chunked, see ADR 0011.)
"""

from __future__ import annotations

from typing import Final

BODY: Final = "body"
FRONT_MATTER: Final = "front_matter"
CHUNK_ROLES: Final = (BODY, FRONT_MATTER)
# The roles the retriever searches.
EVIDENCE_ROLES: Final = (BODY,)
