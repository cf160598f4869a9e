"""Benchmark the entry-vs-source checks at planning: CP311 wrong-attachment, CP312 metadata-differs.

    .venv/bin/python -m bench.attachment_checks [--seed S] [--sources N]

Sources are Check-COVID train abstracts rendered as PDFs with invented authors (diacritics,
particles, compound and hyphenated surnames), year, venue and DOI (`citeproof.devkit.pdfgen`),
then parsed by the parser's own path, so each check sees exactly what planning sees: the
document's metadata and its first page's text. Beside them the real papers of the data set, with
their entries written as a thesis would cite them.

Cases, per source:
- untouched: the correct entry of the attached PDF (half of them without a DOI);
- normal variations of that entry - must be neither error nor warning: diacritics dropped, LaTeX
  escapes, "et al.", initials, particles dropped or capitalised, one part of a compound surname,
  hyphens as spaces, en/em dashes, a subtitle left out or added, title case, upper and lower case,
  a preprint year one off either way;
- injected: another entry's PDF attached (wrong-attachment), the year off by 2-6, another first
  author (metadata-differs).

Reported per kind: cases, errors, warnings; per rule: injected, detected, recall, flagged,
precision. The committed results are from a seed not looked at while building.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import msgspec

from bench import common
from citeproof.contracts.thesis import Reference, SourceMeta
from citeproof.devkit.pdfgen import DocumentSpec, Section, render_pdf
from citeproof.devkit.pdfgen.citestyles import GIVEN_NAMES, SURNAMES, VENUES
from citeproof.pipeline import METADATA_DIFFERS, WRONG_ATTACHMENT
from citeproof.retriever.linking.attachment import attachment_findings
from citeproof.text.normalize import fold_diacritics

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "attachment_checks.json"
CORPUS = common.CHECKCOVID_DIR / "corpus.json"
PAPERS = common.PAPERS_DIR
DEFAULT_SOURCES = 150
# The seed the committed results come from (not looked at while building).
REPORT_SEED = 20261202
# Characters of text handed to the checks when a document has no page boundaries (planning's).
FIRST_PAGE_CHARS = 3000
# Compound surnames (one part of which an entry may keep) beside the style matrix's names.
COMPOUND_SURNAMES = ("García Márquez", "Jimeno Yepes", "Sánchez-Vicario", "Müller-Lüdenscheidt")
# Share of correct entries that carry the work's DOI.
DOI_SHARE = 0.5

# The real papers of the data set as a thesis would list them (the answer key, by hand from the
# papers' own first pages and proceedings).
REAL_ENTRIES = {
    "1706.09498v1.pdf": Reference(
        ordinal=1, label="Abouelnaga2017", raw="Abouelnaga, Y., Eraqi, H. M., & Moustafa, M. N. "
        "(2017). Real-time distracted driver posture classification. arXiv:1706.09498.",
        authors=["Abouelnaga", "Eraqi", "Moustafa"], year=2017,
        title="Real-time distracted driver posture classification", arxiv_id="1706.09498",
        char_start=0, char_end=0,
    ),
    "2020.acl-main.447.pdf": Reference(
        ordinal=2, label="Lo2020", raw="Lo, K., Wang, L. L., Neumann, M., Kinney, R., & Weld, D. "
        "(2020). S2ORC: The Semantic Scholar Open Research Corpus. In Proceedings of ACL "
        "(pp. 4969-4983).", authors=["Lo", "Wang", "Neumann", "Kinney", "Weld"], year=2020,
        title="S2ORC: The Semantic Scholar Open Research Corpus",
        venue="Proceedings of ACL", doi="10.18653/v1/2020.acl-main.447", char_start=0, char_end=0,
    ),
    "2302.07302v1.pdf": Reference(
        ordinal=3, label="Chang2023", raw="Chang, J. C., Zhang, A. X., Bragg, J., Head, A., "
        "Lo, K., Downey, D., & Weld, D. S. (2023). CiteSee: Augmenting citations in scientific "
        "papers with persistent and personalized historical context. In CHI '23.",
        authors=["Chang", "Zhang", "Bragg", "Head", "Lo", "Downey", "Weld"], year=2023,
        title="CiteSee: Augmenting citations in scientific papers with persistent and "
        "personalized historical context", venue="CHI '23", doi="10.1145/3544548.3580847",
        char_start=0, char_end=0,
    ),
    "N18-3011.pdf": Reference(
        ordinal=4, label="Ammar2018", raw="Ammar, W., Groeneveld, D., Bhagavatula, C., et al. "
        "(2018). Construction of the literature graph in Semantic Scholar. In Proceedings of "
        "NAACL-HLT (pp. 84-91).", authors=["Ammar", "Groeneveld", "Bhagavatula"], year=2018,
        title="Construction of the literature graph in Semantic Scholar",
        venue="Proceedings of NAACL-HLT", doi="10.18653/v1/N18-3011", char_start=0, char_end=0,
    ),
}  # fmt: skip


class Source(msgspec.Struct, frozen=True):
    """One attached PDF as planning sees it, and the entry that correctly cites it."""

    name: str
    meta: SourceMeta
    entry: Reference
    # Full names as printed on the PDF.
    people: tuple[str, ...]


def _parsed(data: bytes, name: str) -> SourceMeta:
    from citeproof.parser.extract import parse_bytes
    from citeproof.parser.settings import ParserSettings

    parsed = parse_bytes(data, name, None, ParserSettings(), kind="source")
    starts = parsed.page_starts
    first_page = parsed.text[: starts[1]] if len(starts) > 1 else parsed.text[:FIRST_PAGE_CHARS]
    return SourceMeta(
        document_id=uuid.uuid5(uuid.NAMESPACE_URL, name),
        title=parsed.meta.title,
        authors=list(parsed.meta.authors),
        year=parsed.meta.year,
        doi=parsed.meta.doi,
        first_page_text=first_page,
    )


def _surname(person: str) -> str:
    return person.split(" ", 1)[1]


def generated_sources(seed: int, count: int) -> list[Source]:
    rows = [json.loads(line) for line in CORPUS.read_text().splitlines()]
    rng = random.Random(f"attachment-sources/{seed}")
    chosen = rng.sample(rows, min(count, len(rows)))
    pool = (*SURNAMES, *COMPOUND_SURNAMES)
    sources: list[Source] = []
    for row in chosen:
        surnames = rng.sample(pool, rng.choice((1, 2, 2, 3, 4, 5)))
        people = tuple(f"{rng.choice(GIVEN_NAMES)} {surname}" for surname in surnames)
        year = rng.randint(2012, 2022)
        title = " ".join(row["title"].split()).rstrip(".")
        doi = f"10.5555/{row['cord_id'].lower()}"
        spec = DocumentSpec(
            title=title,
            authors=people,
            year=year,
            doi=doi,
            # Printed "Journal 12(3), 101–118, 2019" under the authors (render adds the year);
            # a share without pages, whose year the parser then may not find.
            venue=f"{rng.choice(VENUES)} {rng.randint(3, 60)}({rng.randint(1, 12)})"
            + (f", {rng.randint(1, 400)}–{rng.randint(401, 900)}" if rng.random() < 0.8 else ""),
            abstract=" ".join(row["abstract"]),
            sections=(Section(heading="1 Introduction", paragraphs=(" ".join(row["abstract"]),)),),
        )
        name = f"{row['cord_id']}.pdf"
        entry = Reference(
            ordinal=len(sources) + 1,
            label=f"{fold_diacritics(surnames[0]).split()[-1]}{year}",
            raw=f"{', '.join(surnames)} ({year}). {title}.",
            authors=list(surnames),
            year=year,
            title=title,
            doi=doi if rng.random() < DOI_SHARE else None,
            char_start=0,
            char_end=0,
        )
        sources.append(Source(name, _parsed(render_pdf(spec), name), entry, people))
    return sources


def real_sources() -> list[Source]:
    sources = []
    for name, entry in REAL_ENTRIES.items():
        path = PAPERS / name
        if path.exists():
            meta = _parsed(path.read_bytes(), name)
            sources.append(Source(name, meta, entry, tuple(meta.authors)))
    return sources


# --- normal variations of a correct entry: (entry, source, rng) -> entry, or None --------------
Variation = Callable[[Reference, Source, random.Random], Reference | None]
_LATEX = {"ü": r"{\"u}", "é": r"{\'e}", "á": r"{\'a}", "í": r"{\'i}", "ø": r"{\o}",
          "Ø": r"{\O}", "ö": r"{\"o}", "ñ": r"{\~n}", "É": r"{\'E}", "ç": r"{\c c}"}  # fmt: skip
_PARTICLES = ("van ", "de la ", "de ", "von ", "van der ")
SUBTITLES = ("review", "cohort study", "preprint")


def _replace(entry: Reference, **changes) -> Reference:
    return msgspec.structs.replace(entry, **changes)


def _latex(text: str) -> str:
    return "".join(_LATEX.get(char, char) for char in text).replace("–", "--")


def _without_particle(surname: str) -> str | None:
    for particle in _PARTICLES:
        if surname.startswith(particle):
            return surname[len(particle) :]
    return None


def _first_author(entry: Reference, change: Callable[[str], str | None]) -> Reference | None:
    if not entry.authors:
        return None
    changed = change(entry.authors[0])
    if changed is None or changed == entry.authors[0]:
        return None
    return _replace(entry, authors=[changed, *entry.authors[1:]])


def _title(entry: Reference, change: Callable[[str], str | None]) -> Reference | None:
    if not entry.title:
        return None
    changed = change(entry.title)
    return None if changed is None or changed == entry.title else _replace(entry, title=changed)


VARIATIONS: dict[str, Variation] = {
    "diacritics dropped": lambda e, s, r: _replace(
        e, authors=[fold_diacritics(a) for a in e.authors], title=fold_diacritics(e.title or "")
    ) if any(fold_diacritics(a) != a for a in e.authors) else None,
    "latex escapes": lambda e, s, r: _replace(
        e, authors=[_latex(a) for a in e.authors], title=_latex(e.title or "")
    ) if any(_latex(a) != a for a in e.authors) or "–" in (e.title or "") else None,
    "latex case protection": lambda e, s, r: _title(
        e, lambda t: " ".join(f"{{{w}}}" if w.isupper() and len(w) > 1 else w for w in t.split())
    ),
    "et al.": lambda e, s, r: _replace(e, authors=[f"{e.authors[0]} et al."])
    if len(e.authors) > 2 else None,
    "first author only": lambda e, s, r: _replace(e, authors=e.authors[:1])
    if len(e.authors) > 1 else None,
    "initials": lambda e, s, r: _replace(
        e, authors=[f"{_surname(p)}, {p[0]}." for p in s.people if " " in p]
    ) if s.people and all(" " in p for p in s.people) else None,
    "particle dropped": lambda e, s, r: _first_author(e, _without_particle),
    "particle capitalised": lambda e, s, r: _first_author(
        e, lambda a: a[:1].upper() + a[1:] if a[:1].islower() else None
    ),
    "one part of a compound surname": lambda e, s, r: _first_author(
        e, lambda a: a.replace("-", " ").split()[0] if a in COMPOUND_SURNAMES else None
    ),
    "hyphen as space": lambda e, s, r: _first_author(
        e, lambda a: a.replace("-", " ") if "-" in a else None
    ),
    "en dash": lambda e, s, r: _title(e, lambda t: t.replace("-", "–") if "-" in t else None),
    "em dash subtitle": lambda e, s, r: _title(
        e, lambda t: t.replace(": ", " — ", 1) if ": " in t else None
    ),
    "subtitle left out": lambda e, s, r: _title(
        e, lambda t: t.split(": ", 1)[0] if ": " in t and len(t.split(": ")[0].split()) >= 2
        else None
    ),
    "subtitle added": lambda e, s, r: _title(e, lambda t: f"{t}: a {r.choice(SUBTITLES)}"),
    "title case": lambda e, s, r: _title(e, lambda t: t.title()),
    "upper case": lambda e, s, r: _title(e, lambda t: t.upper()),
    "lower case": lambda e, s, r: _title(e, lambda t: t.lower()),
    "preprint a year earlier": lambda e, s, r: _replace(e, year=e.year - 1) if e.year else None,
    "published a year later": lambda e, s, r: _replace(e, year=e.year + 1) if e.year else None,
    "doi as url": lambda e, s, r: _replace(e, doi=f"https://doi.org/{e.doi}") if e.doi else None,
}  # fmt: skip


def _rules(findings) -> set[str]:
    return {finding.rule for finding in findings}


def _tally() -> dict[str, int]:
    return {"cases": 0, "errors": 0, "warnings": 0}


def _count(tally: dict[str, int], rules: set[str]) -> None:
    tally["cases"] += 1
    tally["errors"] += WRONG_ATTACHMENT.code in rules
    tally["warnings"] += METADATA_DIFFERS.code in rules


def _other_surname(source: Source, rng: random.Random) -> str:
    taken = {fold_diacritics(p).lower() for p in source.people}
    while True:
        surname = rng.choice(SURNAMES)
        if not any(fold_diacritics(surname).lower() in person for person in taken):
            return surname


def evaluate(sources: list[Source], seed: int) -> dict[str, object]:
    rng = random.Random(f"attachment-cases/{seed}")
    untouched = _tally()
    variations: dict[str, dict[str, int]] = {name: _tally() for name in VARIATIONS}
    injected = {
        "wrong-attachment": {"injected": 0, "detected": 0, "as_warning": 0},
        "year": {"injected": 0, "detected": 0, "as_error": 0},
        "first_author": {"injected": 0, "detected": 0, "as_error": 0},
    }
    flagged = {WRONG_ATTACHMENT.code: 0, METADATA_DIFFERS.code: 0}
    true_flags = {WRONG_ATTACHMENT.code: 0, METADATA_DIFFERS.code: 0}
    examples: list[dict[str, str]] = []

    def check(entry: Reference, source: Source, expected: str | None, kind: str) -> set[str]:
        rules = _rules(attachment_findings(entry, source.meta))
        for rule in rules:
            flagged[rule] += 1
            true_flags[rule] += rule == expected
        if rules - ({expected} if expected else set()) and len(examples) < 25:
            found = ",".join(sorted(rules))
            examples.append({"kind": kind, "source": source.name, "entry": entry.raw,
                             "title": entry.title or "", "found": found})  # fmt: skip
        return rules

    for index, source in enumerate(sources):
        _count(untouched, check(source.entry, source, None, "untouched"))
        for name, vary in VARIATIONS.items():
            varied = vary(source.entry, source, rng)
            if varied is not None:
                _count(variations[name], check(varied, source, None, name))
        other = sources[(index + rng.randint(1, len(sources) - 1)) % len(sources)]
        rules = check(source.entry, other, WRONG_ATTACHMENT.code, "swap")
        injected["wrong-attachment"]["injected"] += 1
        injected["wrong-attachment"]["detected"] += WRONG_ATTACHMENT.code in rules
        injected["wrong-attachment"]["as_warning"] += METADATA_DIFFERS.code in rules
        if source.entry.year is not None:
            shifted = source.entry.year + rng.choice((-6, -4, -3, -2, 2, 3, 4))
            rules = check(_replace(source.entry, year=shifted), source, METADATA_DIFFERS.code,
                          "year")  # fmt: skip
            injected["year"]["injected"] += 1
            injected["year"]["detected"] += METADATA_DIFFERS.code in rules
            injected["year"]["as_error"] += WRONG_ATTACHMENT.code in rules
        if source.entry.authors:
            renamed = _replace(source.entry, authors=[_other_surname(source, rng),
                                                      *source.entry.authors[1:]])  # fmt: skip
            rules = check(renamed, source, METADATA_DIFFERS.code, "first_author")
            injected["first_author"]["injected"] += 1
            injected["first_author"]["detected"] += METADATA_DIFFERS.code in rules
            injected["first_author"]["as_error"] += WRONG_ATTACHMENT.code in rules
    for row in injected.values():
        row["recall"] = round(row["detected"] / row["injected"], 3) if row["injected"] else None
    cases = sum(v["cases"] for v in variations.values())
    return {
        "untouched": untouched,
        "variations": {
            "cases": cases,
            "errors": sum(v["errors"] for v in variations.values()),
            "warnings": sum(v["warnings"] for v in variations.values()),
            "by_variation": variations,
        },
        "injected": injected,
        "rules": {
            rule.slug: {
                "id": rule.code,
                "flagged": flagged[rule.code],
                "precision": round(true_flags[rule.code] / flagged[rule.code], 3)
                if flagged[rule.code]
                else None,
            }
            for rule in (WRONG_ATTACHMENT, METADATA_DIFFERS)
        },
        "examples": examples,
    }


def print_results(results: dict) -> None:
    for part in ("generated", "real_papers"):
        if part not in results:
            continue
        result = results[part]
        print(f"{part}: {result['sources']} sources")
        print(f"  untouched: {result['untouched']}")
        variations = result["variations"]
        print(f"  normal variations: {variations['cases']} cases, {variations['errors']} errors, "
              f"{variations['warnings']} warnings")  # fmt: skip
        for name, row in variations["by_variation"].items():
            if row["errors"] or row["warnings"]:
                print(f"    {name}: {row}")
        for kind, row in result["injected"].items():
            print(f"  injected {kind}: {row}")
        for slug, row in result["rules"].items():
            print(f"  {slug}: flagged {row['flagged']}, precision {row['precision']}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.attachment_checks", description=__doc__)
    parser.add_argument("--seed", type=int, default=REPORT_SEED)
    parser.add_argument("--sources", type=int, default=DEFAULT_SOURCES)
    parser.add_argument("--no-write", action="store_true")
    arguments = parser.parse_args(argv[1:])
    if not CORPUS.exists():
        print(f"no Check-COVID data in {CORPUS.parent}: nothing to measure")
        return 1
    started = time.perf_counter()
    generated = generated_sources(arguments.seed, arguments.sources)
    results: dict[str, object] = {"seed": arguments.seed}
    results["generated"] = {"sources": len(generated), **evaluate(generated, arguments.seed)}
    real = real_sources()
    if len(real) >= 2:
        results["real_papers"] = {"sources": len(real), **evaluate(real, arguments.seed)}
    results["seconds"] = round(time.perf_counter() - started, 1)
    print_results(results)
    if not arguments.no_write:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(results, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
        print(f"written {RESULTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
