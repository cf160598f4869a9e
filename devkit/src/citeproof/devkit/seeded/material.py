"""The real text the seeded theses are made of: cited documents and claims that they support.

Two data sets, train splits only (their dev splits are for reporting elsewhere):

- Check-COVID: each abstract is a cited document; its SUPPORT claims (never REFUTE or
  NOTENOUGHINFO) cite it, each with the sentences the annotators marked as its evidence.
- Citation-Integrity: each cited document is the set of sentences annotators picked from the
  cited paper; its SUPPORT citations (the experts' ACCURATE) cite it. Only citing sentences with
  one marker of their own are used (no `<|multi_cit|>`: a marker naming several works backs
  only part of the sentence with this document; `<|other_cit|>` markers are taken out), and
  the citing sentence must be one sentence with the marker inside or at its end.

A document without a title (Citation-Integrity's) gets one made from its first sentence's
opening words here; the composer gives it a real Check-COVID title instead (a title that opens a
line of the body word for word is taken for a running header by the parser).
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Final

import msgspec

CHECKCOVID: Final = "checkcovid"
CITINT: Final = "citint"
SUPPORT: Final = "SUPPORT"
CHECKCOVID_TRAIN: Final = "covidCheck_train_composed+extracted.json"
CHECKCOVID_CORPUS: Final = "corpus.json"
CITINT_TRAIN: Final = "claims_train.jsonl"
CITINT_CORPUS: Final = "corpus_train_dev.jsonl"
# A claim shorter than this says too little to be a thesis sentence; a longer one is usually
# several sentences run together.
MIN_CLAIM_WORDS: Final = 6
MAX_CLAIM_WORDS: Final = 60
# A made-up title: the first sentence's words up to a clause break, within these bounds.
MIN_TITLE_WORDS: Final = 5
MAX_TITLE_WORDS: Final = 13

_CITINT_MARKER: Final = re.compile(r"\s*[\[(]?\s*<\|cit\|>\s*[\])]?")
_OTHER_MARKERS: Final = re.compile(r"\s*[\[(]?\s*<\|(?:other_cit|multi_cit)\|>\s*[\])]?")
_SPACE_BEFORE_PUNCT: Final = re.compile(r"\s+([.,;:)])")
# A sentence end inside a claim: the claim is several sentences.
_INNER_SENTENCE_END: Final = re.compile(r"[.!?]\s+[A-Z(]")
# Remains of another work's citation once its marker is taken out ("(Hsiao et al., " or a
# bracketed number the data set did not mark).
_LEFTOVER_CITATION: Final = re.compile(r"et al\.?,|\[\s*\d")
_QUOTATION_MARKS: Final = re.compile(r"[“”„«»\"]|(?:^|\s)[‘'](?=\w)")
_ABSTRACT_LEAD: Final = re.compile(r"^(?:abstract|background|summary)\s*[:.]?\s+", re.IGNORECASE)
_CLAUSE_BREAK: Final = re.compile(r"[,;:()]")
_TITLE_STOP_WORDS: Final = frozenset(
    "a an the of in on for to and or with by from at as that which is are was were be been has "
    "have had should would could may might can will must not this these those its their".split()
)
# Discourse words a sentence opens with that no title does ("Moreover, ...").
_OPENER: Final = re.compile(
    r"^(?:still|moreover|however|therefore|thus|hence|furthermore|in addition|in summary|"
    r"in conclusion|finally|overall|here|importantly|notably|conversely|similarly|consequently|"
    r"taken together|together|in contrast|indeed|interestingly|accordingly|additionally|first|"
    r"second|third|lastly|briefly|also)\b,?\s*",
    re.IGNORECASE,
)


class Claim(msgspec.Struct, frozen=True):
    """A citing sentence its document supports, without its marker."""

    text: str
    # Where the marker stood (a character offset into `text`); the sentence's end when None.
    marker_at: int | None
    # The document's sentences the annotators gave as the claim's evidence.
    evidence: tuple[int, ...]


class Document(msgspec.Struct, frozen=True):
    """A cited document: its title, its own sentences and the claims it supports."""

    key: str
    origin: str
    title: str
    sentences: tuple[str, ...]
    claims: tuple[Claim, ...]


def _clean_sentence(text: str) -> str:
    # Check-COVID's corpus keeps some characters as raw HTML entities ("&#8805;85 years"),
    # which a printed abstract never shows.
    return " ".join(_ABSTRACT_LEAD.sub("", " ".join(html.unescape(text).split())).split())


def made_up_title(sentence: str) -> str:
    """A title from a sentence's opening words: up to the first clause break (at least
    `MIN_TITLE_WORDS` words, at most `MAX_TITLE_WORDS`), without trailing function words."""
    words: list[str] = []
    for word in _OPENER.sub("", sentence).split():
        bare = word.strip("“”\"'")
        if len(words) >= MIN_TITLE_WORDS and (_CLAUSE_BREAK.search(word) or bare.endswith(".")):
            words.append(_CLAUSE_BREAK.sub("", bare).rstrip("."))
            break
        words.append(bare)
        if len(words) >= MAX_TITLE_WORDS:
            break
    while len(words) > MIN_TITLE_WORDS and (
        words[-1].lower() in _TITLE_STOP_WORDS or not any(c.isalpha() for c in words[-1])
    ):
        words.pop()
    # A footnote number glued to the last word ("glucocorticoids3") is no part of a title.
    title = re.sub(r"(?<=[a-z])\d+$", "", " ".join(word for word in words if word).rstrip(".,;:"))
    return title[:1].upper() + title[1:]


def load_checkcovid(directory: Path) -> list[Document]:
    corpus = {}
    for line in (directory / CHECKCOVID_CORPUS).read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            corpus[row["cord_id"]] = row
    claims: dict[str, list[Claim]] = {}
    seen: set[tuple[str, str]] = set()
    for line in (directory / CHECKCOVID_TRAIN).read_text().splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        text = " ".join(row["claim"].split()).rstrip(". ")
        if row["label"] != SUPPORT or row["cord_id"] not in corpus:
            continue
        if (text, row["cord_id"]) in seen or not _usable_claim(text):
            continue
        seen.add((text, row["cord_id"]))
        evidence = tuple(sorted({int(e["sent_index"]) for e in row["evidence_set"]}))
        claims.setdefault(row["cord_id"], []).append(Claim(text + ".", None, evidence))
    documents = []
    for cord, found in sorted(claims.items()):
        abstract = corpus[cord]
        sentences = tuple(_clean_sentence(s) for s in abstract["abstract"])
        title = " ".join(html.unescape(abstract["title"]).split()).rstrip(".")
        documents.append(
            Document(
                key=f"cc-{cord}",
                origin=CHECKCOVID,
                title=title,
                sentences=sentences,
                claims=tuple(found),
            )
        )
    return documents


def _usable_claim(text: str) -> bool:
    """One sentence of a thesis's length, quoting nothing: a citing sentence of the data sets
    that quotes its source is accurate as a citation but not always verbatim as a quotation
    ("a minority consider intermediate-dose" for the source's "an intermediate dose"), so it is
    no untouched quotation by construction."""
    words = len(text.split())
    return (
        MIN_CLAIM_WORDS <= words <= MAX_CLAIM_WORDS
        and not _INNER_SENTENCE_END.search(text)
        and not _QUOTATION_MARKS.search(text)
    )


def citint_claim(raw: str) -> Claim | None:
    """The citing sentence without its markers and where its own marker stood; None when the
    sentence is not one sentence with one marker of its own inside or at its end."""
    if raw.count("<|cit|>") != 1 or "<|multi_cit|>" in raw:
        return None
    text = _OTHER_MARKERS.sub("", raw)
    match = _CITINT_MARKER.search(text)
    if match is None:
        return None
    before, after = text[: match.start()].rstrip(), text[match.end() :]
    if before.endswith((".", "!", "?")):
        return None  # a marker after the sentence's full stop: the next sentence may be another
    after = _SPACE_BEFORE_PUNCT.sub(r"\1", after)
    joined = f"{before}{'' if after[:1] in ',.;:)' else ' '}{after.lstrip()}".strip()
    joined = " ".join(joined.split())
    if not joined.endswith((".", "!", "?")):
        joined += "."
    if not _usable_claim(joined.rstrip(".")) or _LEFTOVER_CITATION.search(joined):
        return None
    if joined.count("(") != joined.count(")") or joined.count("[") != joined.count("]"):
        return None  # what an other marker left behind ("(Hsiao et al., ...")
    return Claim(joined, len(before), ())


def load_citint(directory: Path) -> list[Document]:
    corpus: dict[int, list[str]] = {}
    for line in (directory / CITINT_CORPUS).read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            corpus[int(row["doc_id"])] = [" ".join(s.split()) for s in row["abstract"]]
    claims: dict[int, list[Claim]] = {}
    for line in (directory / CITINT_TRAIN).read_text().splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        for doc_id in row["cited_doc_ids"]:
            labels = row["evidence"].get(str(doc_id)) or []
            if not labels or labels[0]["label"] != SUPPORT or not corpus.get(int(doc_id)):
                continue
            claim = citint_claim(row["claim"])
            if claim is None:
                continue
            evidence = tuple(sorted({int(i) for i in labels[0]["sentences"]}))
            claims.setdefault(int(doc_id), []).append(Claim(claim.text, claim.marker_at, evidence))
    # Several citations of one paper come as several document ids, each with the sentences
    # picked for it (the same first sentence: the same paper): one work, its sentences joined,
    # cited several times.
    merged: dict[str, tuple[int, list[str], list[Claim]]] = {}
    for doc_id, found in sorted(claims.items()):
        own = corpus[doc_id]
        _, sentences, together = merged.setdefault(own[0], (doc_id, [], []))
        for sentence in own:
            if sentence not in sentences:
                sentences.append(sentence)
        for claim in found:
            evidence = tuple(
                sorted(sentences.index(own[i]) for i in claim.evidence if i < len(own))
            )
            moved = Claim(claim.text, claim.marker_at, evidence)
            if moved not in together:
                together.append(moved)
    return [
        Document(
            key=f"ci-{doc_id}",
            origin=CITINT,
            title=made_up_title(sentences[0]),
            sentences=tuple(sentences),
            claims=tuple(found),
        )
        for doc_id, sentences, found in merged.values()
    ]


def filler_sentences(directory: Path, used: set[str]) -> list[str]:
    """Sentences of Citation-Integrity train documents that no claim of the benchmark cites: the
    rest of a source's text (other findings, methods, discussion), so that a cited passage sits
    among unrelated ones."""
    train: set[int] = set()
    for line in (directory / CITINT_TRAIN).read_text().splitlines():
        if line.strip():
            train.update(int(doc_id) for doc_id in json.loads(line)["cited_doc_ids"])
    pool: list[str] = []
    for line in (directory / CITINT_CORPUS).read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            if int(row["doc_id"]) in train and f"ci-{row['doc_id']}" not in used:
                pool.extend(" ".join(s.split()) for s in row["abstract"])
    return [sentence for sentence in pool if MIN_CLAIM_WORDS <= len(sentence.split()) <= 60]
