"""The seeded findings benchmark's generator, answer key and scoring (citeproof.devkit.seeded):
theses are reproducible from their seed, untouched citations are correct by construction (their
quotations are in their source, on the page they cite), injected ones are not, and the score of
a report that finds exactly the injected errors is perfect (and drops when one is missed)."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import msgspec
import pypdfium2 as pdfium
import pytest

from citeproof.devkit.llm_stub import STUB_REPLY, LlmStub
from citeproof.devkit.seeded import key as k
from citeproof.devkit.seeded.bearing import bears_on
from citeproof.devkit.seeded.compose import BuiltThesis, Composer, GeneratorConfig
from citeproof.devkit.seeded.material import (
    Document,
    citint_claim,
    filler_sentences,
    load_checkcovid,
    load_citint,
    made_up_title,
)
from citeproof.devkit.seeded.score import Scores, score_thesis
from citeproof.pipeline import PAGE_MISMATCH, QUOTE_VERIFIED, RULES

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
pytestmark = pytest.mark.skipif(
    not (DATA / "checkcovid").is_dir() or not (DATA / "citint").is_dir(),
    reason="needs ../shared/data/checkcovid and ../shared/data/citint",
)
SMALL = GeneratorConfig(theses=2, min_works=5, max_works=6)
_WORDS = re.compile(r"\w+")


@pytest.fixture(scope="module")
def material() -> tuple[list[Document], list[str]]:
    documents = load_checkcovid(DATA / "checkcovid") + load_citint(DATA / "citint")
    return documents, filler_sentences(DATA / "citint", {d.key for d in documents})


@pytest.fixture(scope="module")
def theses(material: tuple[list[Document], list[str]]) -> list[BuiltThesis]:
    documents, filler = material
    composer = Composer(documents, filler, 5, SMALL)
    return [composer.thesis(index) for index in range(SMALL.theses)]


def _words(text: str) -> list[str]:
    return _WORDS.findall(text.casefold())


def _page_words(pdf: bytes) -> list[list[str]]:
    document = pdfium.PdfDocument(pdf)
    try:
        return [_words(document[i].get_textpage().get_text_range()) for i in range(len(document))]
    finally:
        document.close()


def _contains(haystack: list[str], needle: list[str]) -> bool:
    return any(haystack[i : i + len(needle)] == needle for i in range(len(haystack)))


def test_the_same_seed_gives_the_same_theses(
    material: tuple[list[Document], list[str]], theses: list[BuiltThesis]
) -> None:
    documents, filler = material
    again = Composer(documents, filler, 5, SMALL).thesis(0)
    assert msgspec.json.encode(again.key) == msgspec.json.encode(theses[0].key)
    assert again.library == theses[0].library
    assert again.sources == theses[0].sources
    other = Composer(documents, filler, 6, SMALL).thesis(0)
    assert msgspec.json.encode(other.key) != msgspec.json.encode(theses[0].key)


def test_untouched_quotations_are_in_their_source_on_the_cited_page(
    theses: list[BuiltThesis],
) -> None:
    checked = 0
    for built in theses:
        for citation in built.key.citations:
            if citation.form != k.FORM_QUOTE or citation.kind not in (None, k.MISQUOTE):
                continue
            inner = re.search(r"[“\"‘«„](.+)[”\"’»“]", citation.sentence)
            assert inner is not None, citation.sentence
            # The writer's conventions are no part of the source's words.
            text = re.sub(r"\[sic\]|\[…\]|\.\.\.|…", " | ", inner.group(1))
            parts = [_words(part) for part in text.split("|") if _words(part)]
            # The work's own PDF (a swapped entry attaches another one).
            pdf = next(data for name, data in built.sources.items() if citation.work in name)
            pages = _page_words(pdf)
            everywhere = [word for page in pages for word in page]
            found = all(_contains(everywhere, part) for part in parts)
            if citation.kind == k.MISQUOTE:
                assert not found, citation
                continue
            assert found, citation
            on_pages = {i for i, page in enumerate(pages) if _contains(page, parts[0])}
            assert set(citation.source_pages) <= on_pages, citation
            if citation.pinpoint:
                assert citation.cited_pages == citation.source_pages, citation
            checked += 1
    assert checked >= 5


def test_a_quotation_cited_elsewhere_is_not_on_the_page_it_cites(
    theses: list[BuiltThesis],
) -> None:
    for built in theses:
        for citation in built.key.citations:
            if citation.kind in (k.QUOTE_ELSEWHERE, k.WRONG_PINPOINT):
                assert citation.cited_pages and citation.source_pages
                assert not set(citation.cited_pages) & set(citation.source_pages), citation


def test_injected_kinds_and_the_key_agree(theses: list[BuiltThesis]) -> None:
    for built in theses:
        for citation in built.key.citations:
            assert citation.kind is None or citation.kind in k.CITATION_KINDS
            if citation.kind is not None:
                assert citation.detail, citation
            if citation.kind == k.BEYOND_LIST:
                number = int(re.sub(r"\D", "", citation.marker.split(",")[0]))
                assert citation.entry is None and number > len(built.key.entries)
        swapped = [e for e in built.key.entries if e.kind == k.SWAPPED]
        assert len(swapped) % 2 == 0
        for entry in swapped:
            own = next(name for name in built.sources if entry.work in name)
            assert entry.attachment != own
        for entry in built.key.entries:
            if entry.kind not in (k.UNCITED,) and entry.attachment:
                assert entry.attachment in built.sources
            if entry.attachment and entry.kind != k.UNCITED:
                assert f"file = {{files/{entry.index + 1}/{entry.attachment}}}" in built.library


def _perfect_report(key: k.ThesisKey) -> dict:
    """The report of a linter that finds exactly the injected errors."""
    swapped = {entry.work for entry in key.entries if entry.kind == k.SWAPPED}
    citations = []
    for item in key.citations:
        rule = k.expected_rule(item.kind)
        findings = [{"rule": rule.code, "severity": rule.severity}] if rule else []
        checked = item.work not in swapped  # a wrongly attached file is not checked against
        if checked and item.kind is None and item.form in (k.FORM_QUOTE, k.FORM_BLOCK):
            findings.append({"rule": QUOTE_VERIFIED.code, "severity": QUOTE_VERIFIED.severity})
        citations.append({"claim": item.sentence, "marker": item.marker, "findings": findings})
    entries = []
    for entry in key.entries:
        rule = k.expected_rule(entry.kind)
        findings = [{"rule": rule.code, "severity": rule.severity}] if rule else []
        entries.append({"raw": entry.text, "label": entry.label, "findings": findings})
    return {"citations": citations, "entries": entries}


def test_a_report_finding_exactly_the_injected_errors_scores_perfectly(
    theses: list[BuiltThesis],
) -> None:
    scores = Scores()
    for built in theses:
        score_thesis(scores, built.key, _perfect_report(built.key))
    records = scores.rules()
    injected = [r for r in records.values() if r["injected"]]
    assert injected, records
    for record in injected:
        assert record["recall"] == 1.0 and record["precision"] == 1.0, record
        assert record["false_alarms"] == 0, record
    assert scores.citations_matched == scores.citations
    assert scores.variations.errors == 0 and scores.variations.warnings == 0
    assert set(records) == {rule.slug for rule in RULES if int(rule.code[2:]) < 500}


def test_a_missed_error_and_a_false_alarm_count_against_the_rule(
    theses: list[BuiltThesis],
) -> None:
    built = theses[0]
    report = _perfect_report(built.key)
    missed = next(i for i, c in enumerate(built.key.citations) if c.kind is not None)
    untouched = next(
        i
        for i, c in enumerate(built.key.citations)
        if c.kind is None
        and all(e.kind != k.SWAPPED for e in built.key.entries if e.work == c.work)
    )
    rule = k.expected_rule(built.key.citations[missed].kind)
    assert rule is not None
    changed = copy.deepcopy(report)
    changed["citations"][missed]["findings"] = []
    changed["citations"][untouched]["findings"].append({"rule": rule.code, "severity": "x"})
    scores = Scores()
    score_thesis(scores, built.key, changed)
    record = scores.rules()[rule.slug]
    assert record["detected"] == record["injected"] - 1
    assert record["false_alarms"] == 1 and record["flagged"] == record["detected"] + 1


def test_titles_and_citing_sentences_from_the_data_sets() -> None:
    assert made_up_title("Moreover, hepatic natural killer cells develop memory, which lasts.") == (
        "Hepatic natural killer cells develop memory"
    )
    claim = citint_claim("Such loci regulate miR-211 [<|cit|>], and others [<|other_cit|>].")
    assert claim is not None and claim.text == "Such loci regulate miR-211, and others."
    assert claim.text[: claim.marker_at] == "Such loci regulate miR-211"
    assert citint_claim("Several studies show it [<|multi_cit|>].") is None
    assert citint_claim("It was shown before.<|cit|> Another sentence follows here.") is None


def test_the_llm_stub_answers_in_the_judges_reply_shape() -> None:
    import httpx

    from citeproof.judge.prompt import parse_reply

    with LlmStub() as stub:
        response = httpx.post(f"{stub.base_url}/chat/completions", json={"messages": []})
        assert stub.requests == 1
    content = response.json()["choices"][0]["message"]["content"]
    assert json.loads(content) == STUB_REPLY
    assert parse_reply(content).label == STUB_REPLY["label"]


# Theses with every kind active and most citations pinpointed: enough wrong pinpoints that a
# page picked at random would, now and then, be one that bears on the claim.
PINPOINTED = GeneratorConfig(
    theses=8, min_works=6, max_works=8, pinpoint_share=1.0, kind_active_share=1.0,
    wrong_pinpoint_active_share=1.0,
)  # fmt: skip
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")


def _page_sentences(pdf: bytes) -> list[list[str]]:
    document = pdfium.PdfDocument(pdf)
    try:
        pages = [document[i].get_textpage().get_text_range() for i in range(len(document))]
    finally:
        document.close()
    # The text layer's line ends, hyphenated ones joined.
    joined = [
        re.sub(r"-\s*\n\s*", "", page).replace("\r", " ").replace("\n", " ") for page in pages
    ]
    return [[s for s in _SENTENCE_END.split(page) if s.strip()] for page in joined]


def test_a_wrong_pinpoint_cites_a_page_that_holds_nothing_bearing_on_the_claim(
    material: tuple[list[Document], list[str]],
) -> None:
    """Issue 25, rule 3: a page-mismatch is a page holding nothing that bears on the claim. A
    wrong page holding the claim's numbers or a sentence restating it (an abstract's conclusion)
    is not one, and the rule that stays silent there is right: the generator must not pick it.
    Read back from the source PDF's text layer, not from the generator's own layout."""
    documents, filler = material
    by_key = {document.key: document for document in documents}
    composer = Composer(documents, filler, 424, PINPOINTED)
    checked = 0
    for index in range(PINPOINTED.theses):
        built = composer.thesis(index)
        for citation in built.key.citations:
            if citation.kind != k.WRONG_PINPOINT:
                continue
            document = by_key[citation.work]
            words = set(_words(citation.sentence))
            claim = max(document.claims, key=lambda c: len(words & set(_words(c.text))))
            evidence = [document.sentences[i] for i in claim.evidence]
            attached = next(
                e.attachment for e in built.key.entries if e.work == citation.work and e.attachment
            )
            pages = _page_sentences(built.sources[attached])
            everything = [sentence for page in pages for sentence in page]
            for page in citation.cited_pages:
                assert not bears_on(claim.text, evidence, pages[page], everything), citation
            checked += 1
    assert checked >= 20


def test_wrong_pinpoints_go_into_more_theses_than_the_other_kinds(
    material: tuple[list[Document], list[str]],
) -> None:
    """Issue 25 asks for 100 cases per rule: only pinpointed paraphrases with a page holding
    nothing that bears on them can take a wrong pinpoint, so at the common share 60 theses gave
    91 (seed 424242). The kind has a share of its own: here every thesis that prints pinpoints
    may get wrong pinpoints while (nearly) no thesis gets the other optional kinds (a thesis
    whose few pinpointed paraphrases have no such page gets none)."""
    documents, filler = material
    config = GeneratorConfig(
        theses=6, min_works=5, max_works=6, kind_active_share=1e-9,
        wrong_pinpoint_active_share=1.0,
    )  # fmt: skip
    composer = Composer(documents, filler, 3, config)
    built = [composer.thesis(index) for index in range(config.theses)]
    optional = (k.MISQUOTE, k.QUOTE_ELSEWHERE)
    assert not any(c.kind in optional for b in built for c in b.key.citations)
    pinpointing = [b for b in built if any(c.pinpoint for c in b.key.citations)]
    wrong = [b for b in pinpointing if any(c.kind == k.WRONG_PINPOINT for c in b.key.citations)]
    assert len(pinpointing) >= 3 and len(wrong) >= len(pinpointing) - 1


def test_a_page_mismatch_on_a_quotation_cited_to_another_page_is_no_false_alarm() -> None:
    """A verbatim quotation cited to another page, which the quotation rule does not check (a
    quotation in Title Case, "Experience from China, Italy, and the United States"): the page
    rule says rightly that the cited page holds nothing about it (seed 3: 2 of the 5 page-rule
    flags on other kinds counted against it)."""
    quoted = k.CitationKey(
        id="t-c000", sentence="One study put it as “Experience from China, Italy, and the United "
        "States” [1, p. 3].", marker="[1, p. 3]", work="w1", entry=0, form=k.FORM_QUOTE,
        origin="checkcovid", pinpoint="p. 3", source_pages=(1,), cited_pages=(2,),
        kind=k.QUOTE_ELSEWHERE, detail="printed on 2, cited to 3",
    )  # fmt: skip
    paraphrase = k.CitationKey(
        id="t-c001", sentence="Masks lowered transmission in schools by a third [1, p. 1].",
        marker="[1, p. 1]", work="w1", entry=0, form=k.FORM_CLAIM, origin="checkcovid",
        pinpoint="p. 1", source_pages=(3,), cited_pages=(0,), kind=k.WRONG_PINPOINT,
        detail="evidence on 4, cited to 1",
    )  # fmt: skip
    key = k.ThesisKey(id="t", style="numeric", citations=(quoted, paraphrase), entries=(),
                      sources=(), library="library.bib")  # fmt: skip
    flag = {"rule": PAGE_MISMATCH.code, "severity": PAGE_MISMATCH.severity}
    report = {
        "citations": [
            {"claim": c.sentence, "marker": c.marker, "findings": [flag]} for c in key.citations
        ],
        "entries": [],
    }
    scores = Scores()
    score_thesis(scores, key, report)
    record = scores.rules()[PAGE_MISMATCH.slug]
    assert (record["injected"], record["detected"], record["flagged"]) == (1, 1, 1)
