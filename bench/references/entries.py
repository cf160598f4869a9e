"""The entries under test and their answer key.

Groups (the issue's): `real` - every entry of the real papers as our parser reads them from the
PDFs, and more real works printed as a thesis would; `real_varied` - real works printed with
normal variation (diacritics stripped or LaTeX-escaped, "et al.", initials only, particles,
subtitle dropped, preprint year, dashes, title case); `fabricated` - real authors with altered
real titles, invented works, DOIs of other works, DOIs of nothing; `real_errors` - real works
with real errors (year off by two or more, wrong first author, words swapped); `retracted`;
`concern_or_correction` (expressions of concern, corrections, retract-and-replace).

Each entry's key: `required` (rules that must fire), `required_one_of` (at least one of them),
`allowed` (true findings that may fire); anything else is a false alarm.
"""

from __future__ import annotations

import random
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.references.world import SURNAMES, World
from citeproof.contracts.thesis import Reference
from citeproof.devkit.scholarly_stub import Person, Work
from citeproof.parser.thesis.fields import parse_entry
from citeproof.pipeline import (
    CORRECTION,
    EXPRESSION_OF_CONCERN,
    IDENTIFIER_MISMATCH,
    METADATA_DIFFERS,
    NOT_FOUND,
    PREPRINT_PUBLISHED,
    RETRACTED,
)

GROUPS = ("real", "real_varied", "fabricated", "real_errors", "retracted", "concern_or_correction")
SIZES = {"real_extra": 120, "real_varied": 160, "fabricated": 120, "real_errors": 60}
_LATEX = {
    "á": r"{\'a}",
    "é": r"{\'e}",
    "í": r"{\'\i}",
    "ó": r"{\'o}",
    "ú": r"{\'u}",
    "ä": r"{\"a}",
    "ö": r"{\"o}",
    "ü": r"{\"u}",
    "ñ": r"{\~n}",
    "ç": r"{\c{c}}",
    "è": r"{\`e}",
    "ø": r"{\o}",
    "ł": r"{\l}",
    "ß": r"{\ss}",
    "š": r"{\v{s}}",
    "ř": r"{\v{r}}",
    "å": r"{\aa}",
}
_STOP = {"a", "an", "the", "of", "in", "on", "for", "and", "to", "with", "by", "from", "at", "via"}


@dataclass
class TestEntry:
    id: str
    group: str
    kind: str  # what made it: "paper", "clean", "varied:<how>", "fabricated:<type>", ...
    reference: Reference
    required: list[str] = field(default_factory=list)
    required_one_of: list[str] = field(default_factory=list)
    allowed: list[str] = field(default_factory=list)

    def key(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "group": self.group,
            "kind": self.kind,
            "raw": self.reference.raw,
            "required": self.required,
            "required_one_of": self.required_one_of,
            "allowed": self.allowed,
        }


def fold(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def reference_of(raw: str, number: int) -> Reference:
    """The entry as the parser reads it (fields from citeproof.parser.thesis.fields)."""
    fields = parse_entry(raw)
    return Reference(
        ordinal=number,
        label=str(number),
        raw=raw,
        authors=fields.authors,
        year=fields.year,
        year_suffix=fields.year_suffix,
        title=fields.title,
        venue=fields.venue,
        doi=fields.doi,
        arxiv_id=fields.arxiv_id,
        char_start=0,
        char_end=len(raw),
    )


# --- printing ------------------------------------------------------------------------------------
@dataclass
class Printing:
    """How one entry is printed (the normal variation of real lists)."""

    style: str = "apa"
    et_al: bool = False
    initials: bool = True
    fold_accents: bool = False
    latex: bool = False
    particle_after: bool = False
    drop_subtitle: bool = False
    preprint: bool = False
    dashes: str = ""
    case: str = ""
    doi: bool = True
    year: int | None = None
    authors: list[Person] | None = None
    title: str | None = None


def _initials(given: str) -> str:
    parts = re.split(r"[\s]+", given.strip())
    out = []
    for part in parts:
        if not part:
            continue
        if "-" in part:
            out.append("-".join(p[0] + "." for p in part.split("-") if p))
        else:
            out.append(part[0] + ".")
    return " ".join(out)


def _name(person: Person, p: Printing, first: bool) -> str:
    if not person.given:
        return person.family
    family = person.family
    given = _initials(person.given) if p.initials else person.given
    if p.style == "vancouver":
        return f"{family} {given.replace('.', '').replace(' ', '')}"
    if p.style in ("acl",):
        return f"{given} {family}"
    if p.style == "ieee":
        return f"{_initials(person.given)} {family}"
    particles = (
        "van der ",
        "van den ",
        "van ",
        "de la ",
        "de ",
        "von ",
        "del ",
        "da ",
        "dos ",
        "di ",
        "ten ",
        "le ",
    )
    if p.particle_after:
        for particle in particles:
            if family.lower().startswith(particle):
                return f"{family[len(particle) :]}, {given} {family[: len(particle)].strip()}"
    return f"{family}, {given}"


def _authors(people: list[Person], p: Printing) -> str:
    if not people:
        return ""
    if p.et_al and len(people) > 2:
        first = _name(people[0], p, True)
        return f"{first}, et al." if p.style == "vancouver" else f"{first} et al."
    names = [_name(person, p, i == 0) for i, person in enumerate(people[:20])]
    if p.style == "vancouver":
        return ", ".join(names[:6]) + (", et al." if len(names) > 6 else "")
    if len(names) == 1:
        return names[0]
    joiner = (
        ", & "
        if p.style == "apa"
        else ", and "
        if p.style in ("ieee", "acl") and len(names) > 2
        else " and "
    )
    return ", ".join(names[:-1]) + joiner + names[-1]


def _title(work: Work, p: Printing) -> str:
    title = p.title or work.whole_title
    if p.drop_subtitle and ":" in title:
        title = title.split(":", 1)[0]
    if p.dashes == "en":
        title = re.sub(r"(?<=\w)-(?=\w)", "–", title)
    elif p.dashes == "em":
        title = title.replace(" - ", " — ").replace(": ", " — ", 1)
    if p.case == "lower":
        title = title[0] + title[1:].lower()
    elif p.case == "title":
        title = " ".join(
            w if w.lower() in _STOP and i else w[:1].upper() + w[1:]
            for i, w in enumerate(title.split())
        )
    elif p.case == "upper":
        title = title.upper()
    return title.rstrip(".")


def print_entry(work: Work, p: Printing) -> str:
    people = p.authors if p.authors is not None else work.authors
    authors = _authors(people, p)
    year = p.year or (work.preprint_year if p.preprint and work.preprint_year else work.year)
    title = _title(work, p)
    venue = work.venue
    if p.preprint and work.arxiv_id:
        venue = f"arXiv preprint arXiv:{work.arxiv_id}"
    doi = f"https://doi.org/{work.doi}" if (p.doi and work.doi and not p.preprint) else ""
    volume = f"{(work.year % 40) + 1}" if work.work_type == "journal-article" else ""
    if p.style == "vancouver":
        text = (
            f"{authors}. {title}. {venue}. {year}"
            + (f";{volume}" if volume else "")
            + "."
            + (f" doi:{doi.removeprefix('https://doi.org/')}" if doi else "")
        )
    elif p.style == "acl":
        text = (
            f"{authors}. {year}. {title}. "
            + (f"In {venue}." if work.work_type != "journal-article" else f"{venue}, {volume}.")
            + (f" {doi}" if doi else "")
        )
    elif p.style == "ieee":
        text = (
            f"{authors}, “{title},” {venue}, "
            + (f"vol. {volume}, " if volume else "")
            + f"{year}."
            + (f" doi: {doi.removeprefix('https://doi.org/')}." if doi else "")
        )
    else:
        text = (
            f"{authors} ({year}). {title}. {venue}"
            + (f", {volume}" if volume else "")
            + "."
            + (f" {doi}" if doi else "")
        )
    if work.pmid and p.doi and p.style == "vancouver":
        text += f" PMID: {work.pmid}."
    if p.fold_accents:
        text = fold(text)
    elif p.latex:
        text = "".join(_LATEX.get(ch, ch) for ch in text)
    return " ".join(text.split())


def _random_printing(rng: random.Random) -> Printing:
    return Printing(
        style=rng.choice(["apa", "apa", "vancouver", "acl", "ieee"]), doi=rng.random() < 0.6
    )


# --- groups ------------------------------------------------------------------------------------
VARIATIONS = (
    "fold_accents",
    "latex",
    "et_al",
    "initials",
    "particle_after",
    "drop_subtitle",
    "preprint",
    "dashes",
    "case",
    "no_doi",
)


def _vary(work: Work, rng: random.Random) -> tuple[Printing, list[str]]:
    p = _random_printing(rng)
    chosen = rng.sample(VARIATIONS, rng.randint(1, 3))
    applied = []
    for how in chosen:
        if how == "fold_accents":
            p.fold_accents = True
        elif how == "latex" and not p.fold_accents:
            p.latex = True
        elif how == "et_al" and len(work.authors) > 2:
            p.et_al = True
        elif how == "initials":
            p.initials = True
        elif how == "particle_after" and any(" " in a.family for a in work.authors[:1]):
            p.particle_after = True
        elif (
            how == "drop_subtitle"
            and ":" in work.whole_title
            and len(work.whole_title.split(":")[0].split()) >= 3
        ):
            p.drop_subtitle = True
        elif how == "preprint" and work.arxiv_id:
            p.preprint = True
        elif how == "dashes":
            p.dashes = rng.choice(["en", "em"])
        elif how == "case":
            p.case = rng.choice(["lower", "title", "upper"])
        elif how == "no_doi":
            p.doi = False
        else:
            continue
        applied.append(how)
    if not applied:
        p.case = "title"
        applied.append("case")
    return p, applied


def _swap_words(title: str, rng: random.Random) -> str | None:
    words = title.split()
    content = [i for i, w in enumerate(words) if w.lower().strip(",:") not in _STOP and len(w) > 3]
    if len(content) < 3:
        return None
    for _ in range(10):
        i, j = sorted(rng.sample(content, 2))
        if words[i].lower() != words[j].lower():
            swapped = list(words)
            swapped[i], swapped[j] = words[j], words[i]
            return " ".join(swapped)
    return None


def _alter_title(title: str, rng: random.Random, vocabulary: list[str]) -> str:
    words = title.split()
    content = [i for i, w in enumerate(words) if w.lower().strip(",:") not in _STOP and len(w) > 3]
    for i in rng.sample(content, min(len(content), rng.choice([1, 2, 2, 3]))):
        words[i] = rng.choice(vocabulary)
    return " ".join(words)


def build_entries(world: World, seed: int, data_dir: Path) -> list[TestEntry]:
    rng = random.Random(seed * 7919 + 11)
    entries: list[TestEntry] = []
    number = 0

    def add(
        group: str, kind: str, raw: str, reference: Reference | None = None, **expect: list[str]
    ) -> TestEntry:
        nonlocal number
        number += 1
        entry = TestEntry(
            f"{group}-{number}", group, kind, reference or reference_of(raw, number), **expect
        )
        entries.append(entry)
        return entry

    # real: the papers' entries, parsed from the PDFs, with the hand-checked key.
    for row, reference in paper_references(world, data_dir):
        expect = row.get("expect", {})
        work = row.get("_work")
        allowed = list(expect.get("allowed", []))
        if work is not None and work.arxiv_id and work.doi and not work.doi.startswith("10.48550"):
            allowed.append(PREPRINT_PUBLISHED.slug)
        add(
            "real",
            f"paper:{row['paper']}#{row['n']}",
            reference.raw,
            reference,
            required=list(expect.get("required", [])),
            required_one_of=list(expect.get("required_one_of", [])),
            allowed=allowed,
        )
    # real: more real works, printed cleanly.
    extra = [w for w in world.real[: SIZES["real_extra"]]]
    for work in extra:
        p = _random_printing(rng)
        add("real", "clean", print_entry(work, p), allowed=[PREPRINT_PUBLISHED.slug])
    indexed_real = [
        w for w in world.real if (w.in_crossref or w.in_openalex) and not w.notices and w.title
    ]
    # real_varied: real works with normal variation.
    for work in rng.choices(indexed_real, k=SIZES["real_varied"]):
        p, how = _vary(work, rng)
        add(
            "real_varied",
            "varied:" + "+".join(how),
            print_entry(work, p),
            allowed=[PREPRINT_PUBLISHED.slug],
        )
    # real_errors.
    kinds = ["year", "first_author", "swapped"]
    for i in range(SIZES["real_errors"]):
        kind = kinds[i % 3]
        for _ in range(50):
            work = rng.choice(indexed_real)
            p = _random_printing(rng)
            if kind == "year":
                if work.arxiv_id or work.work_type == "posted-content":
                    continue  # a preprint's own year is not an error
                p.year = work.year + rng.choice([-5, -4, -3, -2, 2, 3])
            elif kind == "first_author":
                people = [a for a in work.authors if a.given]
                if len(people) < 1 or not work.authors[0].given:
                    continue
                other = Person(
                    work.authors[0].given,
                    rng.choice([s for s in SURNAMES if s != work.authors[0].family]),
                )
                if len(work.authors) >= 2 and rng.random() < 0.4:
                    p.authors = [work.authors[1], work.authors[0], *work.authors[2:]]
                else:
                    p.authors = [other, *work.authors[1:]]
            else:
                swapped = _swap_words(work.whole_title, rng)
                if swapped is None:
                    continue
                p.title = swapped
            break
        add(
            "real_errors",
            f"error:{kind}",
            print_entry(work, p),
            required=[METADATA_DIFFERS.slug],
            allowed=[PREPRINT_PUBLISHED.slug],
        )
    # fabricated.
    vocabulary = sorted(
        {w for work in world.real for w in work.title.split() if len(w) > 4 and w.isalpha()}
    )
    all_with_doi = [w for w in world.works if w.doi and w.in_crossref]
    for i in range(SIZES["fabricated"]):
        kind = ("altered", "invented", "doi_of_another", "doi_of_nothing")[i % 4]
        p = _random_printing(rng)
        if kind == "altered":
            source = rng.choice(world.real)
            fake = Work(
                _alter_title(source.title, rng, vocabulary),
                source.authors,
                source.year + rng.choice([0, 0, 1, -1]),
                rng.choice([source.venue, world.works[rng.randrange(len(world.works))].venue]),
            )
            add(
                "fabricated",
                "fabricated:altered",
                print_entry(fake, p),
                required_one_of=[NOT_FOUND.slug, METADATA_DIFFERS.slug],
            )
            continue
        authors = [
            Person(
                rng.choice(["Anna", "J.", "Wei", "Maria", "K.", "Lars", "Priya"]),
                rng.choice(world.surnames),
            )
            for _ in range(rng.randint(1, 5))
        ]
        title = world.title_model.title(rng, 6, 16)
        venue = world.works[rng.randrange(len(world.works))].venue or "Journal of Applied Research"
        fake = Work(title, authors, rng.randint(2005, 2024), venue)
        if kind == "invented":
            add(
                "fabricated",
                "fabricated:invented",
                print_entry(fake, p),
                required=[NOT_FOUND.slug],
                allowed=[METADATA_DIFFERS.slug],
            )
        elif kind == "doi_of_another":
            fake.doi = rng.choice(all_with_doi).doi
            p.doi = True
            add(
                "fabricated",
                "fabricated:doi_of_another",
                print_entry(fake, p),
                required=[IDENTIFIER_MISMATCH.slug],
                allowed=[NOT_FOUND.slug],
            )
        else:
            real_doi = rng.choice(all_with_doi).doi or "10.1000/x"
            fake.doi = (
                real_doi[: real_doi.rfind("/") + 1]
                + f"{rng.randint(10**6, 10**7)}.{rng.randint(10, 99)}"
            )
            p.doi = True
            add(
                "fabricated",
                "fabricated:doi_of_nothing",
                print_entry(fake, p),
                required=[NOT_FOUND.slug],
                allowed=[METADATA_DIFFERS.slug],
            )
    # retracted and the notices that are not retractions.
    for work in world.notices.get("retraction", []):
        p = _random_printing(rng)
        add("retracted", "retracted", print_entry(work, p), required=[RETRACTED.slug])
    for kind, rule in (
        ("expression_of_concern", EXPRESSION_OF_CONCERN),
        ("correction", CORRECTION),
        ("replacement", CORRECTION),
    ):
        for work in world.notices.get(kind, []):
            p = _random_printing(rng)
            allowed = [CORRECTION.slug] if kind == "expression_of_concern" else []
            add(
                "concern_or_correction",
                kind,
                print_entry(work, p),
                required=[rule.slug],
                allowed=allowed,
            )
    return entries


def paper_references(world: World, data_dir: Path) -> list[tuple[dict[str, Any], Reference]]:
    """The real papers' entries as the parser reads them from the PDFs, matched to the key."""
    from bench.extraction import extract
    from citeproof.parser.thesis import analyze_thesis

    rows = [row for row in world.paper_rows if row.get("paper")]
    out = []
    for paper in sorted({row["paper"] for row in rows}):
        pdf = data_dir / "papers" / f"{paper}.pdf"
        document = extract(pdf.read_bytes(), pdf.name)
        references = analyze_thesis(document.text, document.page_starts).references
        for row in (r for r in rows if r["paper"] == paper):
            start = " ".join(row["raw_start"].split())
            found = next(
                (ref for ref in references if " ".join(ref.raw.split()).startswith(start)), None
            )
            if found is None:
                raise AssertionError(
                    f"{paper} entry {row['n']} ({row['raw_start']!r}) is no longer parsed"
                )
            out.append((row, found))
    return out
