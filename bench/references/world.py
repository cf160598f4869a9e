"""The benchmark's scholarly world: every work the stub Crossref and OpenAlex know, and the
Retraction Watch CSV that describes their notices.

Real works first - every entry of the real papers in ../shared/data/papers, checked by hand
(`data/papers_key.jsonl`), more real works (`data/real_works.jsonl`), real retracted and
replaced works (`data/real_notices.jsonl`), and the Check-COVID corpus's titles - then
generated works with realistic distributions (titles from a word-trigram model of the real
titles, author counts and names, venues, years, DOI shapes, preprints with their published
versions, books with ISBNs), and notices: retractions, expressions of concern, corrections,
retract-and-replace. All from one seed.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import random
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from citeproof.devkit.scholarly_stub import Person, StubNotice, Work
from citeproof.text.bibliographic import title_key

DATA: Final = Path(__file__).resolve().parent / "data"
MIN_INDEX_SIZE: Final = 5000
GENERATED_WORKS: Final = 5200
RW_COLUMNS: Final = (
    "Record ID,Title,Subject,Institution,Journal,Publisher,Country,Author,URLS,ArticleType,"
    "RetractionDate,RetractionDOI,RetractionPubMedID,OriginalPaperDate,OriginalPaperDOI,"
    "OriginalPaperPubMedID,RetractionNature,Reason,Paywalled,Notes"
).split(",")

# Surnames and given names beyond the real papers': the spread of a real reference list
# (diacritics, particles, compound and hyphenated names, East and South Asian names).
SURNAMES: Final = """Müller Schmidt García Martínez Rodríguez López González Hernández Pérez Sánchez
Ramírez Torres Nguyen Tran Le Pham Kim Lee Park Choi Jung Kang Zhang Wang Li Liu Chen Yang Huang
Zhao Wu Zhou Xu Sun Ma Zhu Hu Guo He Lin Luo Tanaka Suzuki Takahashi Watanabe Ito Yamamoto
Nakamura Kobayashi Sato Singh Kumar Sharma Gupta Patel Reddy Iyer Nair Das Banerjee Chatterjee
Mukherjee Rao Khan Ahmed Ali Hussain Rahman Hassan Ibrahim Mahmoud Yilmaz Kaya Demir Şahin Öztürk
Kowalski Nowak Wiśniewski Wójcik Kamiński Novák Dvořák Horváth Nagy Tóth Szabó Popescu Ionescu
Petrov Ivanov Smirnov Kuznetsov Popov Sokolov Lebedev Novikov Andersson Johansson Karlsson
Nilsson Larsson Olsen Hansen Jensen Nielsen Pedersen Kristensen Virtanen Korhonen Mäkinen Nieminen
Rossi Russo Ferrari Esposito Bianchi Romano Colombo Ricci Marino Greco Silva Santos Oliveira Souza
Costa Pereira Almeida Ferreira Carvalho Gomes Martins Rocha Dubois Durand Lefebvre Moreau Laurent
Simon Michel Leroy Roux Fontaine Chevalier Bernard Smith Johnson Williams Brown Jones Miller Davis
Wilson Anderson Taylor Thomas Moore Jackson Martin Thompson White Harris Clark Lewis Robinson Walker
Young Allen King Wright Scott Green Baker Adams Nelson Hill Campbell Mitchell Roberts Carter
Phillips Evans Turner Parker Collins Edwards Stewart Morris Murphy Cook Rogers Morgan Cooper
Peterson Reed Bailey Bell Kelly Howard Ward Cox Richardson Wood Watson Brooks Bennett Gray Hughes
O'Brien O'Connor McCarthy MacDonald Okafor Adeyemi Mensah Owusu Boateng Abebe Tesfaye Mwangi
Otieno Ndlovu Dlamini Cohen Levi Friedman Shapiro Katz Mizrahi Haddad Khoury Nasser Farouk Hosseini
Moradi Karimi Rahimi Jafari Ahmadi""".split()
PARTICLE_SURNAMES: Final = [
    "van der Berg",
    "van Dijk",
    "de Vries",
    "van den Broek",
    "de la Cruz",
    "del Río",
    "da Silva",
    "dos Santos",
    "von Neumann",
    "de Jong",
    "van Leeuwen",
    "di Stefano",
    "Le Roux",
    "ten Brink",
    "García Márquez",
    "Fernández-López",
    "Jimeno-Yepes",
    "Al-Hassan",
    "El-Sayed",
    "Ó Faoláin",
    "Daumé III",
    "Smith Jr.",
]
GIVEN: Final = """Anna Maria Laura Sofia Elena Julia Sara Emma Olivia Lucía Chiara Ingrid Astrid
Marta Agnieszka Katarzyna Eva Petra Zsófia Ioana Natalia Olga Yuki Hana Mei Li Xin Wei Jing Min
Ji-woo Seo-yeon Priya Ananya Divya Fatima Aisha Leila Zeynep Amina Chiamaka Ngozi Ama Wanjiru
Thandiwe Noa Yael Hanna Aino Camille Chloé Manon Beatriz Mariana Ana Isabel John James Robert
Michael David William Thomas Daniel Paul Mark Peter Andrew Jan Piotr Tomasz Pavel Jiří László
Andrei Mihai Sergei Dmitri Alexei Lars Erik Anders Mikko Jukka Marco Luca Giovanni Matteo Pedro
João Carlos Miguel José Juan Pablo Diego Luis Hiroshi Takeshi Kenji Hao Jun Ming Lei Yong Jian
Min-jun Seung Hyun Rahul Arjun Vikram Sanjay Amit Ravi Mohammed Ahmed Omar Yusuf Mehmet Emre
Kwame Kofi Chinedu Emeka Tendai Sipho Yosef Avi Ville Pierre Jean Louis Hugo Rafael Gabriel
Tiago""".split()
VENUES: Final = """PLoS ONE|Scientific Reports|Nature Communications|BMJ Open|Journal of Clinical
Medicine|Frontiers in Psychology|International Journal of Environmental Research and Public
Health|IEEE Access|Sensors|Applied Sciences|Nutrients|Cancers|Journal of Biological
Chemistry|Proceedings of the National Academy of Sciences|The Lancet Infectious Diseases|Clinical
Infectious Diseases|Journal of Infection|Vaccine|Journal of Hydrology|Water Research|Ecological
Indicators|Science of The Total Environment|Journal of Cleaner Production|Energy Policy|Renewable
Energy|Computers & Education|Information Processing & Management|Journal of the Association for
Information Science and Technology|Scientometrics|Journal of Informetrics|Bioinformatics|Nucleic
Acids Research|Genome Research|Cell Reports|eLife|Neuron|NeuroImage|Brain|Journal of
Neuroscience|Psychological Science|Journal of Personality and Social Psychology|American Economic
Review|Journal of Finance|Management Science|Research Policy|Social Science & Medicine|Sociology
of Health & Illness|Journal of Applied Physics|Physical Review B|Optics Express|Advanced
Materials|ACS Nano|Journal of the American Chemical Society|Angewandte Chemie International
Edition|Chemical Engineering Journal|Machine Learning|Pattern Recognition|Neural
Networks|Expert Systems with Applications|Knowledge-Based Systems|Proceedings of the AAAI
Conference on Artificial Intelligence|Proceedings of the ACM on Human-Computer
Interaction|Findings of the Association for Computational Linguistics|Transactions of the
Association for Computational Linguistics|Journal of Medical Internet Research|BMC Public
Health|BMC Medicine|The Journal of Infectious Diseases|Emerging Infectious Diseases|Annals of
Internal Medicine|JAMA Network Open|Diabetes Care|Hypertension|Stroke|Circulation""".replace(
    "\n", " "
).split("|")
# DOI shapes by publisher.
DOI_SHAPES: Final = (
    "10.1016/j.{j}.{y}.{n5}",
    "10.1038/s41{n3}-0{y2}-{n5}-{c}",
    "10.1371/journal.pone.0{n6}",
    "10.1007/s{n5}-0{y2}-{n5}-{c}",
    "10.1145/{n7}.{n7}",
    "10.1109/access.{y}.{n7}",
    "10.3390/{jl}{n6}",
    "10.1186/s{n5}-0{y2}-{n5}-{c}",
    "10.1002/{jl}.{n5}",
    "10.1093/{jl}/{jl}{n3}",
    "10.18653/v1/{y}.{jl}-main.{n3}",
    "10.1080/{n8}.{y}.{n7}",
)
COVID_VENUES: Final = (
    "Journal of Medical Virology",
    "Clinical Infectious Diseases",
    "The Lancet Infectious Diseases",
    "Emerging Infectious Diseases",
    "Journal of Infection",
    "BMJ",
    "JAMA Network Open",
    "Nature Medicine",
    "Cell Host & Microbe",
    "Eurosurveillance",
)
_WORDS = re.compile(r"[\w'’-]+|[:,?]")
# Generated titles copy no run of this many words (start and end marks included) from a real one.
RUN: Final = 4


@dataclass
class World:
    """The index and what the entries are made of."""

    works: list[Work]
    real: list[Work]  # real works the indexes know (entries are printed from them)
    paper_rows: list[dict[str, Any]]  # the papers' key rows, their works attached
    notices: dict[str, list[Work]]  # kind of group -> works
    rw_csv: str
    surnames: list[str]
    title_model: TitleModel
    by_key: dict[str, Work] = field(default_factory=dict)

    @property
    def size(self) -> int:
        return sum(1 for w in self.works if w.in_crossref or w.in_openalex)


def _people(names: list[str]) -> list[Person]:
    people = []
    for name in names:
        if not name:
            continue
        if any(
            word in name.lower()
            for word in (
                "organization",
                "collaborat",
                "group",
                "consortium",
                "ipcc",
                "tensorflow",
                "investigators",
                "services",
                "collaborators",
            )
        ):
            people.append(Person("", name))
            continue
        parts = name.split()
        # Particles and suffixes stay with the surname ("Laurens van der Maaten", "Daumé III").
        cut = len(parts) - 1
        while cut > 1 and parts[cut - 1].lower() in (
            "van",
            "der",
            "den",
            "de",
            "la",
            "von",
            "del",
            "da",
            "dos",
            "di",
            "ten",
            "le",
        ):
            cut -= 1
        if parts[-1] in ("III", "Jr.", "II") and len(parts) > 2:
            cut -= 1
        people.append(Person(" ".join(parts[:cut]), " ".join(parts[cut:])))
    return people


def work_from(record: dict[str, Any]) -> Work:
    index = record.get("index", "both")
    doi = record.get("doi")
    arxiv = record.get("arxiv")
    work_type = record.get("type") or "journal-article"
    if work_type == "posted-content" and arxiv and not doi:
        work_type = "posted-content"
    work = Work(
        title=record["title"] or "",
        authors=_people(record.get("authors") or []),
        year=record.get("year") or 2000,
        venue=record.get("venue") or "",
        doi=doi,
        work_type=work_type,
        pmid=record.get("pmid"),
        arxiv_id=arxiv,
        isbns=[record["isbn"]] if record.get("isbn") else [],
        in_crossref=index == "both" and bool(doi),
        in_openalex=index in ("both", "openalex"),
        title_prefix=record.get("title_prefix", ""),
        preprint_year=record.get("preprint_year"),
    )
    if record.get("published_doi"):
        # An arXiv preprint whose version of record OpenAlex merged with it.
        work.doi = record["published_doi"]
        work.venue = record.get("published_venue") or work.venue
        work.work_type = "proceedings-article"
        work.in_crossref = True
    for kind, notice_doi, date, source, *label in record.get("notices", []):
        work.notices.append(
            StubNotice(kind, notice_doi, tuple(date), source, label[0] if label else "")  # type: ignore[arg-type]
        )
    return work


class TitleModel:
    """Word bigrams of real titles, with no four-word run copied from any one of them: generated
    titles read like real ones, on real topics, without being near-copies of a real title."""

    def __init__(self, titles: list[str]) -> None:
        self.next: dict[str, list[str]] = defaultdict(list)
        self.known = {title_key(t) for t in titles}
        self.runs: set[tuple[str, ...]] = set()
        for title in titles:
            words = ["<s>", *_WORDS.findall(title), "</s>"]
            for a, b in itertools.pairwise(words):
                self.next[a].append(b)
            lowered = [w.lower() for w in words]
            self.runs.update(tuple(lowered[i : i + RUN]) for i in range(len(lowered) - RUN + 1))

    def _copies(self, words: list[str]) -> bool:
        lowered = ["<s>", *(w.lower() for w in words), "</s>"]
        return any(tuple(lowered[i : i + RUN]) in self.runs for i in range(len(lowered) - RUN + 1))

    def title(self, rng: random.Random, min_words: int = 5, max_words: int = 18) -> str:
        for _ in range(400):
            words: list[str] = []
            previous = "<s>"
            while len(words) < max_words + 2:
                choices = self.next.get(previous)
                if not choices:
                    break
                word = rng.choice(choices)
                if word == "</s>":
                    break
                words.append(word)
                previous = word
            count = len([w for w in words if w not in ":,?"])
            if not min_words <= count <= max_words or words[-1] in ":," or self._copies(words):
                continue
            text = " ".join(words).replace(" :", ":").replace(" ,", ",").replace(" ?", "?")
            if title_key(text) not in self.known:
                self.known.add(title_key(text))
                return text[0].upper() + text[1:]
        return f"A study of {rng.choice(SURNAMES).lower()} effects in {rng.choice(VENUES).lower()}"


def _doi(rng: random.Random, year: int, used: set[str]) -> str:
    while True:
        shape = rng.choice(DOI_SHAPES)
        doi = shape.format(
            j=rng.choice(
                [
                    "jclepro",
                    "scitotenv",
                    "envres",
                    "ijid",
                    "jhydrol",
                    "ecolind",
                    "compedu",
                    "ipm",
                    "eswa",
                    "knosys",
                    "cell",
                    "neuron",
                ]
            ),
            jl=rng.choice(
                [
                    "jmv",
                    "ijerph",
                    "nutrients",
                    "cancers",
                    "bioinformatics",
                    "emnlp",
                    "acl",
                    "qje",
                    "jama",
                    "smj",
                ]
            ),
            y=year,
            y2=str(year)[2:],
            n3=rng.randint(100, 999),
            n5=rng.randint(10000, 99999),
            n6=rng.randint(100000, 999999),
            n7=rng.randint(1000000, 9999999),
            n8=rng.randint(10000000, 99999999),
            c=rng.choice("0123456789x"),
        )
        if doi not in used:
            used.add(doi)
            return doi


def _arxiv_id(rng: random.Random, year: int) -> str:
    return f"{str(year)[2:]}{rng.randint(1, 12):02d}.{rng.randint(10000, 29999)}"


def _author_count(rng: random.Random) -> int:
    return rng.choices(
        [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15], weights=[8, 14, 17, 16, 13, 10, 7, 5, 4, 3, 3]
    )[0]


def _person(rng: random.Random, surnames: list[str]) -> Person:
    family = rng.choice(PARTICLE_SURNAMES) if rng.random() < 0.06 else rng.choice(surnames)
    given = rng.choice(GIVEN)
    if rng.random() < 0.25:
        given = f"{given} {rng.choice('ABCDEFGHJKLMNPRSTW')}."
    if rng.random() < 0.15:
        given = "".join(part[0] for part in given.split()) if rng.random() < 0.5 else f"{given[0]}."
    return Person(given, family)


def _year(rng: random.Random) -> int:
    return (
        min(2025, int(2026 - rng.expovariate(1 / 8.0)))
        if rng.random() < 0.95
        else rng.randint(1960, 1999)
    )


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def checkcovid_titles(data_dir: Path) -> list[str]:
    corpus = data_dir / "checkcovid" / "corpus.json"
    if not corpus.exists():
        return []
    titles = []
    for line in corpus.read_text(encoding="utf-8").splitlines():
        if line.strip():
            title = json.loads(line).get("title") or ""
            if len(title.split()) >= 4:
                titles.append(" ".join(title.split()))
    return titles


def build_world(seed: int, data_dir: Path) -> World:
    rng = random.Random(seed)
    paper_rows = read_jsonl(DATA / "papers_key.jsonl")
    extra = read_jsonl(DATA / "real_works.jsonl")
    noticed = read_jsonl(DATA / "real_notices.jsonl")
    works: list[Work] = []
    by_key: dict[str, Work] = {}

    def add(record: dict[str, Any]) -> Work | None:
        if not record.get("title"):
            return None
        key = f"{title_key(record['title'])}|{record.get('year')}"
        if key in by_key:
            return by_key[key]
        work = work_from(record)
        by_key[key] = work
        works.append(work)
        return work

    for row in paper_rows:
        row["_work"] = add(row["work"])
    real = [w for w in (add(r) for r in extra) if w is not None]
    real += [row["_work"] for row in paper_rows if row.get("paper") and row["_work"] is not None]
    noticed_works = [w for w in (add(r) for r in noticed) if w is not None]
    real_titles = [w.title for w in works]
    covid = checkcovid_titles(data_dir)
    model = TitleModel(real_titles + covid)
    surnames = sorted({p.family for w in works for p in w.authors if p.given} | set(SURNAMES))
    used_dois = {w.doi for w in works if w.doi}
    # Check-COVID's real titles, with generated authors (the corpus has none).
    known_titles = {title_key(w.title) for w in works}
    for title in covid:
        year = rng.choice([2020, 2020, 2020, 2021])
        if title_key(title) in known_titles:
            continue  # a real work of the key already (Gautret et al. 2020)
        authors = [_person(rng, surnames) for _ in range(_author_count(rng))]
        works.append(
            Work(
                title,
                authors,
                year,
                rng.choice(COVID_VENUES),
                doi=_doi(rng, year, used_dois),
                pmid=str(rng.randint(32000000, 34999999)),
            )
        )
    # Generated works.
    for _ in range(GENERATED_WORKS):
        year = _year(rng)
        authors = [_person(rng, surnames) for _ in range(_author_count(rng))]
        roll = rng.random()
        if roll < 0.04:  # arXiv-only preprint
            works.append(
                Work(
                    model.title(rng),
                    authors,
                    year,
                    "arXiv",
                    work_type="posted-content",
                    arxiv_id=f"{str(year)[2:]}{rng.randint(1, 12):02d}.{rng.randint(10000, 29999)}",
                    in_crossref=False,
                )
            )
        elif roll < 0.07:  # published, with its arXiv preprint merged in OpenAlex
            works.append(
                Work(
                    model.title(rng),
                    authors,
                    year,
                    rng.choice(VENUES),
                    doi=_doi(rng, year, used_dois),
                    arxiv_id=_arxiv_id(rng, year - 1),
                    preprint_year=year - rng.choice([0, 1, 1, 2]),
                )
            )
        elif roll < 0.09:  # a book with an ISBN
            isbn = f"978{rng.randint(0, 1)}{rng.randint(10000000, 99999999)}{rng.randint(0, 9)}"
            works.append(
                Work(
                    model.title(rng, 3, 10),
                    authors[:3],
                    year,
                    rng.choice(
                        ["Springer", "Routledge", "Oxford University Press", "MIT Press", "Wiley"]
                    ),
                    doi=f"10.1007/978-{isbn[3]}-{isbn[4:7]}-{isbn[7:12]}-{isbn[12]}",
                    work_type="book",
                    isbns=[isbn],
                )
            )
        elif roll < 0.12:  # in OpenAlex only (no DOI)
            works.append(
                Work(model.title(rng), authors, year, rng.choice(VENUES), in_crossref=False)
            )
        else:
            pmid = str(rng.randint(10000000, 38000000)) if rng.random() < 0.3 else None
            works.append(
                Work(
                    model.title(rng),
                    authors,
                    year,
                    rng.choice(VENUES),
                    doi=_doi(rng, year, used_dois),
                    pmid=pmid,
                )
            )
    # bioRxiv/medRxiv preprints with their published version (Crossref relations both ways).
    published = [
        w
        for w in works[-GENERATED_WORKS:]
        if w.doi and w.work_type == "journal-article" and not w.arxiv_id and w.year >= 2015
    ]
    for work in rng.sample(published, 40):
        month, day, number = rng.randint(1, 12), rng.randint(10, 28), rng.randint(100000, 999999)
        preprint_doi = f"10.1101/{work.year - 1}.{month:02d}.{day:02d}.{number}"
        work.preprint_doi = preprint_doi
        works.append(
            Work(
                work.title,
                list(work.authors),
                work.year - rng.choice([0, 1]),
                rng.choice(["bioRxiv", "medRxiv"]),
                doi=preprint_doi,
                work_type="posted-content",
                published_doi=work.doi,
            )
        )
    # Notices on generated works.
    notices: dict[str, list[Work]] = defaultdict(list)
    candidates = [
        w
        for w in works[len(by_key) :]
        if w.doi
        and w.in_crossref
        and w.work_type == "journal-article"
        and not w.notices
        and not w.preprint_doi
    ]
    rng.shuffle(candidates)
    plan = [
        ("retraction", 50),
        ("expression_of_concern", 30),
        ("correction", 60),
        ("replacement", 8),
        ("partial_retraction", 4),
        ("concern_then_retraction", 6),
    ]
    number = 90000
    for kind, count in plan:
        for _ in range(count):
            work = candidates.pop()
            year = min(2025, work.year + rng.randint(1, 4))
            date = (year, rng.randint(1, 12), rng.randint(1, 28))
            source = rng.choice(["publisher", "retraction-watch"])
            number += 1
            if kind == "replacement":
                work.notices.append(
                    StubNotice(
                        "retraction",
                        f"{work.doi}.rr{number}",
                        date,
                        "publisher",
                        "Notice of Retraction and Replacement",
                    )
                )
            elif kind == "concern_then_retraction":
                work.notices.append(
                    StubNotice("expression_of_concern", f"{work.doi}.eoc{number}", date, source)
                )
                later = (min(2025, year + 1), rng.randint(1, 12), rng.randint(1, 28))
                work.notices.append(
                    StubNotice("retraction", f"{work.doi}.ret{number}", later, source)
                )
            else:
                work.notices.append(StubNotice(kind, f"{work.doi}.n{number}", date, source))
            if kind in ("retraction", "concern_then_retraction") and rng.random() < 0.3:
                work.title_prefix = "RETRACTED: "
            group = {
                "replacement": "replacement",
                "partial_retraction": "retraction",
                "concern_then_retraction": "retraction",
            }.get(kind, kind)
            notices[group].append(work)
    for work in noticed_works:
        kinds = {n.kind for n in work.notices}
        replaced = any("replace" in n.label.lower() for n in work.notices)
        notices[
            "replacement"
            if replaced
            else "retraction"
            if "retraction" in kinds
            else "expression_of_concern"
        ].append(work)
    rw_csv = retraction_watch_csv(rng, works, noticed)
    world = World(works, real, paper_rows, dict(notices), rw_csv, surnames, model, by_key)
    if world.size < MIN_INDEX_SIZE:
        raise AssertionError(f"the index has {world.size} works, fewer than {MIN_INDEX_SIZE}")
    return world


def retraction_watch_csv(
    rng: random.Random, works: list[Work], noticed: list[dict[str, Any]]
) -> str:
    """Every notice of the index as a Retraction Watch row, in the published columns."""
    reasons = {title_key(r["title"]): r.get("rw_reasons", "") for r in noticed}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*RW_COLUMNS, ""])  # the published header ends with a comma
    record = 10000
    for work in works:
        for notice in work.notices:
            record += 1
            nature = {
                "retraction": "Retraction",
                "partial_retraction": "Retraction",
                "expression_of_concern": "Expression of concern",
                "correction": "Correction",
            }.get(notice.kind, "Retraction")
            reason = reasons.get(title_key(work.title)) or rng.choice(
                [
                    "Duplication of Image;",
                    "Concerns/Issues About Data;",
                    "Error in Data;",
                    "Plagiarism of Article;",
                    "Paper Mill;",
                    "Error in Results and/or Conclusions;",
                ]
            )
            if "replace" in notice.label.lower():
                reason += "Retract and Replace;"
            reason = (
                ";".join(f"+{r}" for r in reason.split(";") if r) + ";"
                if rng.random() < 0.3
                else reason
            )
            # Some rows carry no DOI: they are matched by PMID or by title.
            original_doi = work.doi if rng.random() < 0.85 else "unavailable"
            writer.writerow(
                [
                    record,
                    work.title,
                    "(BLS) Biology;",
                    "",
                    work.venue,
                    "Publisher",
                    "",
                    ";".join(p.display for p in work.authors[:6]),
                    "",
                    "Research Article;",
                    f"{notice.date[1]}/{notice.date[2]}/{notice.date[0]} 0:00",
                    notice.doi,
                    "0",
                    f"1/15/{work.year} 0:00",
                    original_doi,
                    work.pmid or "0",
                    nature,
                    reason,
                    "No",
                    "",
                    "",
                ]
            )
    return out.getvalue()
