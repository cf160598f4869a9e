"""The citation linter's content rules: a citation's quotations, numbers and pinpoint page
checked against the text of its linked source (rules CP101-CP103, CP201-CP202, CP301 of
`citeproof.pipeline`).

Pure: `check_citation(source, citation)` takes a `SourceText` (built once per source, from the
stored text or from page texts) and a `CitationInput`, and returns `Finding`s. The retrieve
stage runs it for every citation with a readable linked source; benchmarks call it directly.
"""

from citeproof.retriever.content_rules.check import DEFAULT_CONFIG, CitationInput, check_citation
from citeproof.retriever.content_rules.config import ContentRulesConfig, ContentRulesConfigError
from citeproof.retriever.content_rules.source import SourceText

__all__ = [
    "DEFAULT_CONFIG",
    "CitationInput",
    "ContentRulesConfig",
    "ContentRulesConfigError",
    "SourceText",
    "check_citation",
]
