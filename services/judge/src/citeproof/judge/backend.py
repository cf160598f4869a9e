"""Choose the judge backend from settings."""

from __future__ import annotations

from citeproof.contracts.judging import JudgeBackend
from citeproof.judge.settings import JudgeSettings


def build_backend(settings: JudgeSettings) -> JudgeBackend:
    """The configured backend; every verdict it returns has its quote verified already."""
    if settings.backend == "llm":
        from citeproof.judge.llm import LlmBackend

        return LlmBackend(settings)
    # Imported lazily: the local backend loads ONNX Runtime and its model.
    from citeproof.judge.local import LocalBackend

    return LocalBackend(
        settings.resolved_local_model_path(),
        abstain_below=settings.local_abstain_below,
        max_passages=settings.max_passages,
        max_passage_chars=settings.max_passage_chars,
        threads=settings.local_threads,
    )
