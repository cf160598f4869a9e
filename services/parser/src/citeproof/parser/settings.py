"""Parser settings. The size and page caps come from the pipeline contract, like the API's."""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from citeproof.pipeline import MAX_FILE_BYTES, MAX_PAGES
from citeproof.settings import Settings, doc

# The upload caps are part of the pipeline contract: the API enforces the same ones.
DEFAULT_MAX_FILE_BYTES = MAX_FILE_BYTES
DEFAULT_MAX_PAGES = MAX_PAGES
# A 500-page PDF extracts in ~10 s on one core; three times that is a wedged or hostile file.
DEFAULT_ITEM_TIMEOUT_S = 120.0
# all-MiniLM-L6-v2 truncates at 256 word pieces; longer chunks would be embedded partially.
DEFAULT_CHUNK_MAX_TOKENS = 256
# Chunks shorter than this are merged with their neighbour under the same heading when possible.
DEFAULT_CHUNK_MIN_TOKENS = 48
# Uncompressed size allowed for all members of a DOCX together (zip-bomb guard).
DEFAULT_MAX_UNZIPPED_BYTES = 200 * 1024 * 1024
# Compression ratio above which a DOCX member is treated as a bomb (real XML is ~5-20x).
DEFAULT_MAX_ZIP_RATIO = 200
# Fewer visible characters per page than this on average: the PDF has no usable text layer.
DEFAULT_MIN_CHARS_PER_PAGE = 20
# Address space of a parsing child when the container has no memory limit to derive it from:
# a hostile file hits MemoryError instead of the OOM killer.
DEFAULT_CHILD_MEMORY_MB = 4096
# The unprivileged user a parsing child becomes when the worker runs as root.
DEFAULT_CHILD_USER = "nobody"
# Passages (chunks) one document may have: a dense 500-page book makes ~2,000. Text formats have
# no pages to cap, and embedding (outside the parse time limit) costs per chunk.
DEFAULT_MAX_CHUNKS_PER_DOCUMENT = 4000
# Characters of text one document may hold: a dense 500-page book has ~3 million (5,700 a
# page). Counted before the text is cut into passages, which costs seconds per megabyte.
DEFAULT_MAX_CHARS_PER_DOCUMENT = 4_000_000
# Formats without pages (text, Markdown, HTML, DOCX) count this many characters as one page
# against max_pages: a paperback page holds ~2,000, a dense journal page ~5,000.
DEFAULT_PAGE_EQUIVALENT_CHARS = 3000
# Embedding one document's passages: a dense 500-page book (~2,000 passages) takes ~50 s at the
# measured 42.8 passages/s on one core; the passage cap ~95 s.
DEFAULT_EMBED_BUDGET_S = 180.0
# Staged bytes older than this are NULLed by the safety-net sweep, whatever the item's state.
DEFAULT_STAGED_TTL_S = 6 * 3600
DEFAULT_STAGED_TTL_INTERVAL_S = 600


class ParserSettings(Settings, frozen=True, kw_only=True):
    ENV_PREFIX: ClassVar[str] = "CITEPROOF_PARSER_"

    max_file_bytes: Annotated[
        int, doc("Largest accepted upload per file, in bytes (the API enforces it too).", ge=1)
    ] = DEFAULT_MAX_FILE_BYTES
    max_pages: Annotated[
        int, doc("Most pages a document may have (the API enforces the same cap).", ge=1)
    ] = DEFAULT_MAX_PAGES
    item_timeout_s: Annotated[
        float,
        doc("Wall-clock limit for parsing one file; the parsing child is killed beyond it.", gt=0),
    ] = DEFAULT_ITEM_TIMEOUT_S
    chunk_max_tokens: Annotated[
        int,
        doc("Largest chunk in embedding-model word pieces (special tokens included).", ge=32),
    ] = DEFAULT_CHUNK_MAX_TOKENS
    chunk_min_tokens: Annotated[
        int, doc("Chunks below this size are merged with the next one under the same heading.")
    ] = DEFAULT_CHUNK_MIN_TOKENS
    max_unzipped_bytes: Annotated[
        int, doc("Largest total uncompressed size of a DOCX archive (zip-bomb guard).", ge=1)
    ] = DEFAULT_MAX_UNZIPPED_BYTES
    max_zip_ratio: Annotated[
        int, doc("Largest compression ratio of one DOCX member (zip-bomb guard).", ge=1)
    ] = DEFAULT_MAX_ZIP_RATIO
    min_chars_per_page: Annotated[
        int, doc("Average visible characters per page below which a PDF counts as scanned.")
    ] = DEFAULT_MIN_CHARS_PER_PAGE
    child_memory_mb: Annotated[
        int | None,
        doc(
            "Address-space limit of a parsing child process in MiB (0 = no limit). Unset: "
            "derived from the container's memory limit (cgroup) and the parse concurrency, "
            f"{DEFAULT_CHILD_MEMORY_MB} MiB when the container has no limit.",
        ),
    ] = None
    child_isolation: Annotated[
        bool,
        doc(
            "Give each parsing child its own empty network namespace and, when the worker "
            "runs as root, another uid, where the process may (see docs/security.md)."
        ),
    ] = True
    child_user: Annotated[
        str, doc("User (name or uid) a parsing child becomes when the worker runs as root.")
    ] = DEFAULT_CHILD_USER
    pdf_engine: Annotated[
        Literal["pdfium", "unstructured"],
        doc(
            "`pdfium`: pypdfium2 text + citeproof's layout rules (fast, see ADR 0003). "
            "`unstructured`: unstructured's partition_pdf(strategy='fast')."
        ),
    ] = "pdfium"
    embed_thesis_chunks: Annotated[
        bool,
        doc(
            "Also embed the chunks of theses. Off: a thesis is the query side (its claims are "
            "embedded at retrieval time), never searched as evidence, and embedding is ~95% of "
            "the parse cost (ADR 0003)."
        ),
    ] = False
    max_chunks_per_document: Annotated[
        int,
        doc("Most passages (chunks) one document may have; more is refused (too_large) before "
            "anything is embedded.", ge=1),
    ] = DEFAULT_MAX_CHUNKS_PER_DOCUMENT  # fmt: skip
    max_chars_per_document: Annotated[
        int,
        doc("Most characters of text one document may hold, any format; more is refused "
            "(too_large) before it is cut into passages or embedded.", ge=1),
    ] = DEFAULT_MAX_CHARS_PER_DOCUMENT  # fmt: skip
    page_equivalent_chars: Annotated[
        int,
        doc("Characters that count as one page in formats without pages (text, Markdown, "
            "HTML, DOCX): such a document may hold max_pages times this many (more: "
            "too_many_pages).", ge=1),
    ] = DEFAULT_PAGE_EQUIVALENT_CHARS  # fmt: skip
    embed_budget_s: Annotated[
        float,
        doc("Wall-clock budget for embedding one document's passages (after parsing, which "
            "has item_timeout_s); past it the item fails (timeout) and nothing is stored.",
            gt=0),
    ] = DEFAULT_EMBED_BUDGET_S  # fmt: skip
    staged_ttl_s: Annotated[
        int, doc("Staged upload bytes older than this are NULLed by the safety-net sweep.", ge=60)
    ] = DEFAULT_STAGED_TTL_S
    staged_ttl_interval_s: Annotated[int, doc("How often the staged-bytes sweep runs.", ge=1)] = (
        DEFAULT_STAGED_TTL_INTERVAL_S
    )

    def __post_init__(self) -> None:
        if self.child_memory_mb is not None and self.child_memory_mb < 0:
            raise ValueError("child_memory_mb must be 0 (no limit) or more")
