"""The evidence a judge is shown: the best-ranked passages, each cut to a bounded length."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from citeproof.contracts.judging import Passage


def prepare_passages(
    passages: Sequence[Passage], max_passages: int, max_chars: int
) -> list[Passage]:
    """The ``max_passages`` best-ranked passages, each cut at a word boundary to ``max_chars``.

    Cutting keeps a verbatim prefix, so quotes found in the shown text are in the source too.
    """
    shown = sorted(passages, key=lambda p: p.rank)[:max_passages]
    prepared = []
    for passage in shown:
        text = passage.text
        if len(text) > max_chars:
            cut = text.rfind(" ", 0, max_chars)
            text = text[: cut if cut > max_chars // 2 else max_chars]
        prepared.append(
            msgspec.structs.replace(passage, text=text) if text != passage.text else passage
        )
    return prepared
