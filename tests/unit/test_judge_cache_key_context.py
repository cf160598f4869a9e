"""The verdict cache key leaves out the context sentence for a backend that never reads it
(issue 28): editing the sentence before an unchanged claim must not send that claim to the
local judge again, while an LLM judge, which reads the context, judges it afresh."""

from __future__ import annotations

from citeproof.contracts.judging import JudgeRequest, Passage
from citeproof.judge.llm import LlmBackend
from citeproof.judge.local import LocalBackend
from citeproof.judge.service import cache_key


class Backend:
    def __init__(self, reads_context: bool | None) -> None:
        self.name, self.model, self.prompt_version = "fake", "m", "v1"
        if reads_context is not None:
            self.reads_context = reads_context


def request(context: str) -> JudgeRequest:
    return JudgeRequest(
        claim="Street trees cool the blocks they shade.",
        context=context,
        passages=[Passage(rank=1, page=2, text="Blocks with canopy were 5 degrees cooler.")],
        citation_key="run:1",
    )


def test_a_backend_that_does_not_read_the_context_keeps_its_key_when_it_changes() -> None:
    local = Backend(reads_context=False)
    assert cache_key(request("Cities are hot."), local) == cache_key(
        request("Cities are hot, as the authors report."), local
    )
    assert LocalBackend.reads_context is False


def test_a_backend_that_reads_the_context_or_does_not_say_gets_a_new_key() -> None:
    for backend in (Backend(reads_context=True), Backend(reads_context=None)):
        assert cache_key(request("Cities are hot."), backend) != cache_key(
            request("Cities are hot, as the authors report."), backend
        )
    assert getattr(LlmBackend, "reads_context", True) is True
