"""Reference verification against the stub Crossref and OpenAlex servers on 127.0.0.1 (real HTTP,
real-shaped JSON, nearest-title search; nothing touches the internet) and a real PostgreSQL for
the shared answer cache and the imported Retraction Watch data.

Each test builds the entries as the parser and the library give them and runs the verify
stage's Verifier over them, exactly as the stage does."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import pytest

from citeproof.contracts.thesis import Reference
from citeproof.contracts.verification import NOT_FOUND_STATUS, NOT_LOOKED_UP, VERIFIED
from citeproof.devkit.scholarly_stub import Fault, Person, ScholarlyStub, StubNotice, Work
from citeproof.pipeline import (
    CORRECTION,
    EXPRESSION_OF_CONCERN,
    IDENTIFIER_MISMATCH,
    METADATA_DIFFERS,
    NOT_FOUND,
    PREPRINT_PUBLISHED,
    RETRACTED,
)
from citeproof.retractions import import_file
from citeproof.retriever.verify.check import Verifier
from citeproof.retriever.verify.client import ScholarlyClient
from citeproof.retriever.verify.entries import entry_from
from citeproof.retriever.verify.lookups import Lookups
from citeproof.retriever.verify.settings import VerifySettings

EMAIL = "verify-tests@example.org"


def _works() -> list[Work]:
    smith = [Person("Anna", "Smith"), Person("Jürgen", "Müller"), Person("Wei", "Zhang")]
    return [
        Work(
            "Attention is all you need",
            [Person("Ashish", "Vaswani"), Person("Noam", "Shazeer")],
            2017,
            "Advances in Neural Information Processing Systems",
            doi="10.5555/nips.2017.7181",
            arxiv_id="1706.03762",
        ),
        Work(
            "Ileal-lymphoid-nodular hyperplasia, non-specific colitis, and pervasive "
            "developmental disorder in children",
            [Person("AJ", "Wakefield"), Person("SH", "Murch"), Person("A", "Anthony")],
            1998,
            "The Lancet",
            doi="10.1016/s0140-6736(97)11096-0",
            pmid="9500320",
            title_prefix="RETRACTED: ",
            notices=[
                StubNotice(
                    "correction",
                    "10.1016/s0140-6736(04)15715-2",
                    (2004, 3, 6),
                    "retraction-watch",
                    "Correction",
                    "17269",
                ),
                StubNotice(
                    "retraction",
                    "10.1016/s0140-6736(10)60175-4",
                    (2010, 2, 6),
                    "retraction-watch",
                    "Retraction",
                    "4036",
                ),
            ],
        ),
        Work(
            "Soil microbial diversity under long-term nitrogen fertilisation",
            smith,
            2019,
            "Soil Biology and Biochemistry",
            doi="10.5555/sbb.2019.0042",
            notices=[StubNotice("expression_of_concern", "10.5555/sbb.2021.eoc1", (2021, 5, 2))],
        ),
        Work(
            "Glacier retreat and meltwater chemistry in the Alps",
            [Person("Lucia", "Ferrer")],
            2015,
            "Journal of Glaciology",
            doi="10.5555/jog.2015.17",
            notices=[StubNotice("correction", "10.5555/jog.2016.corr", (2016, 1, 9))],
        ),
        Work(
            "Effect of a transitional care programme on readmissions in chronic lung disease",
            [Person("Hanan", "Aboumatar"), Person("Peter", "Naqibuddin")],
            2018,
            "JAMA",
            doi="10.5555/jama.2018.17933",
            notices=[
                StubNotice(
                    "retraction",
                    "10.5555/jama.2019.replace",
                    (2019, 5, 1),
                    "publisher",
                    "Retraction and Replacement",
                )
            ],
        ),
        Work(
            "Deep residual learning for image recognition",
            [Person("Kaiming", "He"), Person("Xiangyu", "Zhang")],
            2016,
            "IEEE Conference on Computer Vision and Pattern Recognition",
            doi="10.5555/cvpr.2016.90",
        ),
        Work(
            "Stochastic gradient methods for sparse regression",
            [Person("Maria", "García Márquez")],
            2020,
            "Journal of Machine Learning Research",
            doi=None,
            in_crossref=False,
        ),
        Work(
            "A preprint about protein folding kinetics",
            [Person("Tom", "Okafor")],
            2021,
            "bioRxiv",
            doi="10.1101/2021.03.01.433",
            work_type="posted-content",
            published_doi="10.5555/cell.2022.88",
        ),
        Work(
            "Protein folding kinetics measured in single molecules",
            [Person("Tom", "Okafor")],
            2022,
            "Cell",
            doi="10.5555/cell.2022.88",
            preprint_doi="10.1101/2021.03.01.433",
        ),
        Work(
            "Photosynthetic efficiency of maize under drought stress",
            [Person("Kofi", "Mensah"), Person("Ines", "van der Berg")],
            2012,
            "Plant Physiology",
            doi="10.5555/pp.2012.301",
        ),
    ]


def _reference(raw: str, **fields) -> Reference:
    return Reference(ordinal=1, label="1", raw=raw, char_start=0, char_end=len(raw), **fields)


@pytest.fixture(scope="module")
def stub() -> Iterator[ScholarlyStub]:
    stub = ScholarlyStub(_works())
    yield stub
    stub.stop()


@pytest.fixture
async def clean_pool(pool: asyncpg.Pool) -> AsyncIterator[asyncpg.Pool]:
    """The session database, without earlier tests' cached answers and retraction data."""
    await pool.execute("DELETE FROM scholarly_lookups")
    await pool.execute("DELETE FROM retraction_notices")
    yield pool


def _settings(stub: ScholarlyStub, **extra) -> VerifySettings:
    values = dict(
        enabled=True,
        crossref_url=stub.crossref.url,
        openalex_url=stub.openalex.url,
        email=EMAIL,
        requests_per_s=200.0,
        backoff_base_s=0.05,
        backoff_max_s=2.0,
        timeout_s=5.0,
        max_wait_s=30.0,
    )
    values.update(extra)
    return VerifySettings(**values)


async def _verify(pool, settings, references, wait_s: float | None = None):
    client = ScholarlyClient(settings) if settings.index_order else None
    try:
        lookups = Lookups(
            pool=pool,
            client=client,
            deadline=time.monotonic() + (wait_s or settings.max_wait_s),
            ttl_s=3600,
        )
        entries = [entry_from(i + 1, ref, None) for i, ref in enumerate(references)]
        results = await Verifier(lookups, settings.index_order, pool).verify_all(entries)
        return results, client
    finally:
        if client is not None:
            await client.aclose()


def _rules(result) -> set[str]:
    return {finding.rule for finding in result.findings}


async def test_real_entries_verify_cleanly_through_normal_variation(clean_pool, stub) -> None:
    references = [
        # By DOI, printed right.
        _reference(
            "He, K., Zhang, X. (2016). Deep residual learning for image recognition. "
            "In CVPR. doi:10.5555/cvpr.2016.90",
            authors=["He", "Zhang"],
            year=2016,
            title="Deep residual learning for image recognition",
            doi="10.5555/cvpr.2016.90",
        ),
        # No identifier: LaTeX accents, a particle, the year, initials only.
        _reference(
            r"Garc{\'\i}a M{\'a}rquez, M. (2020). Stochastic gradient methods for sparse "
            r"regression. J. Mach. Learn. Res.",
            authors=["García Márquez"],
            year=2020,
            title="Stochastic gradient methods for sparse regression",
        ),
        # Title case changed, en dash, "et al.", second author with a particle.
        _reference(
            "Mensah K et al. 2012. PHOTOSYNTHETIC EFFICIENCY OF MAIZE UNDER DROUGHT "
            "STRESS. Plant Physiol.",
            authors=["Mensah"],
            year=2012,
            title="PHOTOSYNTHETIC EFFICIENCY OF MAIZE UNDER DROUGHT STRESS",
        ),
        # A parser that took the venue for the title: the printed entry still names the work.
        _reference(
            "Vaswani, A., Shazeer, N. 2017. Attention is all you need. Advances in Neural "
            "Information Processing Systems.",
            authors=["Vaswani", "Shazeer"],
            year=2017,
            title="Advances in Neural Information Processing Systems",
        ),
    ]
    results, _client = await _verify(clean_pool, _settings(stub), references)
    for result in results:
        assert result.status == VERIFIED, (result.entry.raw, result.detail, result.asked)
        assert result.findings == [], (result.entry.raw, result.findings)
    # The polite pool: every request carried the e-mail.
    for server in stub.servers():
        assert server.requests and all(q.get("mailto") == [EMAIL] for _, q in server.requests)


async def test_wrong_identifier_wrong_metadata_and_made_up_entries(clean_pool, stub) -> None:
    references = [
        # A real DOI printed beside another work.
        _reference(
            "Ferrer, L. (2015). Soil erosion in vineyards. Geoderma. "
            "https://doi.org/10.5555/cvpr.2016.90",
            authors=["Ferrer"],
            year=2015,
            title="Soil erosion in vineyards",
            doi="10.5555/cvpr.2016.90",
        ),
        # The right work, the year off by three.
        _reference(
            "Mensah, K., van der Berg, I. (2009). Photosynthetic efficiency of maize under "
            "drought stress. Plant Physiology.",
            authors=["Mensah", "van der Berg"],
            year=2009,
            title="Photosynthetic efficiency of maize under drought stress",
        ),
        # Made up: plausible title, no identifier.
        _reference(
            "Okonkwo, B. (2019). Quantum entanglement in migratory songbird navigation "
            "circuits. Journal of Avian Physics, 4, 1-9.",
            authors=["Okonkwo"],
            year=2019,
            title="Quantum entanglement in migratory songbird navigation circuits",
        ),
        # Made up, with a DOI that resolves nowhere.
        _reference(
            "Lindqvist, E. (2021). Microplastic uptake in deep-sea sponges. Marine "
            "Pollution Bulletin. doi:10.5555/mpb.2021.99999",
            authors=["Lindqvist"],
            year=2021,
            title="Microplastic uptake in deep-sea sponges",
            doi="10.5555/mpb.2021.99999",
        ),
    ]
    results, _ = await _verify(clean_pool, _settings(stub), references)
    mismatch, year_off, made_up, no_doi = results
    assert _rules(mismatch) == {IDENTIFIER_MISMATCH.code}, mismatch.findings
    assert "Deep residual learning" in mismatch.findings[0].message
    assert _rules(year_off) == {METADATA_DIFFERS.code}
    differences = {d.field: (d.expected, d.found) for d in year_off.findings[0].differences}
    assert differences == {"year": ("2009", "2012")}
    for result in (made_up, no_doi):
        assert result.status == NOT_FOUND_STATUS and _rules(result) == {NOT_FOUND.code}
        message = result.findings[0].message
        assert "fabricat" not in message.lower() and "crossref" in message and "openalex" in message
    assert "doi:10.5555/mpb.2021.99999 is registered in neither" in no_doi.findings[0].message


async def test_notices_retraction_concern_correction_and_replacement(clean_pool, stub) -> None:
    references = [
        _reference(
            "Wakefield AJ, Murch SH, Anthony A. Ileal-lymphoid-nodular hyperplasia, "
            "non-specific colitis, and pervasive developmental disorder in children. "
            "Lancet. 1998.",
            authors=["Wakefield", "Murch", "Anthony"],
            year=1998,
            title="Ileal-lymphoid-nodular hyperplasia, non-specific colitis, and pervasive "
            "developmental disorder in children",
        ),
        _reference(
            "Smith A, Müller J, Zhang W (2019) Soil microbial diversity under long-term "
            "nitrogen fertilisation. Soil Biol Biochem. doi:10.5555/sbb.2019.0042",
            authors=["Smith"],
            year=2019,
            doi="10.5555/sbb.2019.0042",
            title="Soil microbial diversity under long-term nitrogen fertilisation",
        ),
        _reference(
            "Ferrer L (2015) Glacier retreat and meltwater chemistry in the Alps. J Glaciol.",
            authors=["Ferrer"],
            year=2015,
            title="Glacier retreat and meltwater chemistry in the Alps",
        ),
        _reference(
            "Aboumatar H, Naqibuddin P (2018) Effect of a transitional care programme on "
            "readmissions in chronic lung disease. JAMA. doi:10.5555/jama.2018.17933",
            authors=["Aboumatar"],
            year=2018,
            doi="10.5555/jama.2018.17933",
            title="Effect of a transitional care programme on readmissions in chronic lung disease",
        ),
        _reference(
            "Okafor T (2021) A preprint about protein folding kinetics. bioRxiv. "
            "doi:10.1101/2021.03.01.433",
            authors=["Okafor"],
            year=2021,
            doi="10.1101/2021.03.01.433",
            title="A preprint about protein folding kinetics",
        ),
    ]
    results, _ = await _verify(clean_pool, _settings(stub), references)
    retracted, concern, corrected, replaced, preprint = results
    assert _rules(retracted) == {RETRACTED.code}, retracted.findings
    assert "2010-02-06" in retracted.findings[0].message
    assert _rules(concern) == {EXPRESSION_OF_CONCERN.code}
    assert _rules(corrected) == {CORRECTION.code}
    # Retract-and-replace: the work stands (a correction), never a retraction.
    assert _rules(replaced) == {CORRECTION.code}
    assert "replaced" in replaced.findings[0].message
    assert _rules(preprint) == {PREPRINT_PUBLISHED.code}
    assert "10.5555/cell.2022.88" in preprint.findings[0].message


async def test_a_second_check_asks_nobody(clean_pool, stub) -> None:
    references = [
        _reference(
            "He K (2016) Deep residual learning for image recognition. CVPR.",
            authors=["He"],
            year=2016,
            title="Deep residual learning for image recognition",
        ),
        _reference(
            "Okonkwo B (2019) Quantum entanglement in migratory songbird navigation circuits.",
            authors=["Okonkwo"],
            year=2019,
            title="Quantum entanglement in migratory songbird navigation circuits",
        ),
    ]
    first, _ = await _verify(clean_pool, _settings(stub), references)
    before = stub.request_count()
    second, client = await _verify(clean_pool, _settings(stub), references)
    assert stub.request_count() == before and client is not None and client.requests == {}
    assert [r.status for r in first] == [r.status for r in second] == [VERIFIED, NOT_FOUND_STATUS]
    assert all(a.cached for r in second for a in r.asked)


async def test_a_429_storm_delays_the_run_and_never_fails_it(clean_pool, stub) -> None:
    references = [
        _reference(
            "He K (2016) Deep residual learning for image recognition. CVPR.",
            authors=["He"],
            year=2016,
            title="Deep residual learning for image recognition",
        ),
    ]
    storm_s = 1.5
    for server in stub.servers():
        server.fail(Fault("429", until=time.monotonic() + storm_s, retry_after="1"))
    started = time.monotonic()
    try:
        results, _client = await _verify(clean_pool, _settings(stub), references)
    finally:
        for server in stub.servers():
            server.heal()
    assert time.monotonic() - started >= 1.0
    assert results[0].status == VERIFIED and results[0].findings == []


async def test_index_down_means_not_looked_up_never_not_found(clean_pool, stub) -> None:
    settings = _settings(
        stub, crossref_url="http://127.0.0.1:9", openalex_url="http://127.0.0.1:9", max_retries=1
    )
    references = [
        _reference(
            "Okonkwo B (2019) Quantum entanglement in migratory songbird navigation circuits.",
            authors=["Okonkwo"],
            year=2019,
            title="Quantum entanglement in migratory songbird navigation circuits",
        ),
        _reference(
            "He K (2016) Deep residual learning for image recognition. CVPR. "
            "doi:10.5555/cvpr.2016.90",
            authors=["He"],
            year=2016,
            title="Deep residual learning for image recognition",
            doi="10.5555/cvpr.2016.90",
        ),
    ]
    results, _ = await _verify(clean_pool, settings, references)
    for result in results:
        assert result.status == NOT_LOOKED_UP and result.findings == []
        assert result.detail.startswith("not looked up: ")
        assert "did not answer" in result.detail or "unreachable" in result.detail


@pytest.mark.parametrize(
    ("fault", "expected"),
    [
        (Fault("redirect"), "not a public address (refused)"),
        (Fault("malformed"), "something other than JSON"),
        (Fault("deep"), "something other than JSON"),
        (Fault("huge"), "more than"),
        (Fault("500"), "HTTP 503"),
        (Fault("drip", delay_s=0.2), "did not answer within"),
    ],
)
async def test_hostile_answers_are_refused_and_reported(clean_pool, stub, fault, expected) -> None:
    settings = _settings(stub, indexes="crossref", max_retries=1, timeout_s=2.0)
    references = [
        _reference(
            "He K (2016) Deep residual learning for image recognition. CVPR. "
            "doi:10.5555/cvpr.2016.90",
            authors=["He"],
            year=2016,
            title="Deep residual learning for image recognition",
            doi="10.5555/cvpr.2016.90",
        ),
    ]
    stub.crossref.fail(fault)
    try:
        results, _ = await _verify(clean_pool, settings, references)
    finally:
        stub.crossref.heal()
    (result,) = results
    assert result.status == NOT_LOOKED_UP, (result.detail, result.asked)
    assert expected in result.detail, result.detail
    assert await clean_pool.fetchval("SELECT count(*) FROM scholarly_lookups") == 0


async def test_the_run_waits_at_most_its_time_limit(clean_pool, stub) -> None:
    settings = _settings(stub, timeout_s=0.5, max_wait_s=1.0)
    references = [
        _reference(
            "He K (2016) Deep residual learning for image recognition. CVPR.",
            authors=["He"],
            year=2016,
            title="Deep residual learning for image recognition",
        ),
    ]
    for server in stub.servers():
        server.fail(Fault("429", retry_after="60"))
    started = time.monotonic()
    try:
        results, _ = await _verify(clean_pool, settings, references, wait_s=1.0)
    finally:
        for server in stub.servers():
            server.heal()
    assert time.monotonic() - started < 3.0
    assert results[0].status == NOT_LOOKED_UP and "time limit" in results[0].detail


RW_HEADER = (
    "Record ID,Title,Subject,Institution,Journal,Publisher,Country,Author,URLS,ArticleType,"
    "RetractionDate,RetractionDOI,RetractionPubMedID,OriginalPaperDate,OriginalPaperDOI,"
    "OriginalPaperPubMedID,RetractionNature,Reason,Paywalled,Notes,"
)


async def test_retractions_found_offline_in_the_imported_csv(clean_pool, tmp_path: Path) -> None:
    csv_path = tmp_path / "retraction_watch.csv"
    csv_path.write_text(
        RW_HEADER + "\n"
        '4036,"Ileal-lymphoid-nodular hyperplasia, non-specific colitis, and pervasive '
        'developmental disorder in children",(HSC) Medicine - Pediatrics;,"Royal Free Hospital",'
        "The Lancet,Elsevier,United Kingdom,AJ Wakefield;SH Murch;A Anthony,,Research Article;,"
        "2/6/2010 0:00,10.1016/S0140-6736(10)60175-4,20137807,2/28/1998 0:00,"
        "10.1016/S0140-6736(97)11096-0,9500320,Retraction,+Falsification/Fabrication of Data;,"
        "No,,\n"
        "9001,Stimulus triggered fate conversion of somatic cells into pluripotency,(BLS) "
        "Biology;,RIKEN,Nature,Springer Nature,Japan,Haruko Obokata;Teruhiko Wakayama,,Research "
        "Article;,7/2/2014 0:00,10.1038/nature13598,0,1/29/2014 0:00,unavailable,0,Retraction,"
        "Error in Image;,No,,\n"
        "9002,A study under concern,(BLS) Biology;,X,J Biol,Wiley,US,B Author,,Research "
        "Article;,3/3/2020 0:00,10.5555/notice.2,0,1/1/2018 0:00,10.5555/concern.1,0,"
        "Expression of concern,Concerns/Issues About Data;,No,,\n"
    )
    conn = await clean_pool.acquire()
    try:
        summary = await import_file(conn, csv_path)
    finally:
        await clean_pool.release(conn)
    assert summary.imported == 3 and summary.by_kind == {
        "retraction": 2,
        "expression_of_concern": 1,
    }
    offline = VerifySettings(enabled=True, indexes="")
    references = [
        # By DOI (printed in capitals in the CSV, URL-less here).
        _reference(
            "Wakefield AJ et al. Ileal-lymphoid-nodular hyperplasia. Lancet 1998. "
            "doi:10.1016/S0140-6736(97)11096-0",
            authors=["Wakefield"],
            year=1998,
            doi="10.1016/S0140-6736(97)11096-0",
            title="Ileal-lymphoid-nodular hyperplasia",
        ),
        # By normalised title (hyphen, case) with the first author agreeing: no DOI anywhere.
        _reference(
            "Obokata, H. et al. (2014). Stimulus-triggered fate conversion of somatic "
            "cells into pluripotency. Nature 505, 641-647.",
            authors=["Obokata"],
            year=2014,
            title="Stimulus-triggered fate conversion of somatic cells into pluripotency",
        ),
        _reference(
            "B. Author (2018). A study under concern. J Biol. doi:10.5555/concern.1",
            authors=["Author"],
            year=2018,
            doi="10.5555/concern.1",
            title="A study under concern",
        ),
    ]
    results, _ = await _verify(clean_pool, offline, references)
    by_doi, by_title, concern = results
    assert _rules(by_doi) == {RETRACTED.code} and _rules(by_title) == {RETRACTED.code}
    assert _rules(concern) == {EXPRESSION_OF_CONCERN.code}
    for result in results:
        assert result.status == NOT_LOOKED_UP  # no index asked: still not "not found"
        assert result.findings[0].evidence[0].origin == "retraction-watch"


def test_settings_refuse_bad_combinations() -> None:
    from citeproof.settings import SettingsError

    with pytest.raises(SettingsError, match="unknown indexes"):
        VerifySettings(indexes="crossref,scopus").validate()
    with pytest.raises(SettingsError, match="http"):
        VerifySettings(crossref_url="ftp://example.org").validate()
    with pytest.raises(SettingsError, match="MAX_WAIT"):
        VerifySettings(timeout_s=400.0).validate()
    assert VerifySettings().enabled is False


@pytest.fixture(autouse=True)
def _no_leaked_tasks() -> Iterator[None]:
    yield
    asyncio.get_event_loop_policy()


def test_the_cli_imports_the_csv_and_refuses_other_files(
    database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    from citeproof.cli import main

    monkeypatch.setenv("DATABASE_URL", database_url)
    good = tmp_path / "retraction_watch.csv"
    good.write_text(
        RW_HEADER + "\n"
        "77,A withdrawn paper,(BLS) Biology;,X,J Biol,Wiley,US,C Author,,Research Article;,"
        "3/3/2021 0:00,10.5555/notice.77,0,1/1/2019 0:00,10.5555/withdrawn.77,31000000,"
        "Retraction,+Retract and Replace;,No,,\n"
        "78,,(BLS) Biology;,X,J Biol,Wiley,US,D Author,,Research Article;,3/3/2021 0:00,,0,"
        ",,0,Mystery Notice,,No,,\n"
    )
    assert main(["retractions", "import", str(good)]) == 0
    out = capsys.readouterr()
    assert "imported 1 notices" in out.out and "1 replacement" in out.out
    assert "unknown RetractionNature 'Mystery Notice'" in out.err
    assert main(["retractions", "status"]) == 0
    assert "1 Retraction Watch notices loaded" in capsys.readouterr().out
    bad = tmp_path / "library.bib"
    bad.write_text("@article{x, title={Not a retraction file}}\n")
    assert main(["retractions", "import", str(bad)]) == 2
    assert "not the Retraction Watch CSV" in capsys.readouterr().err
    assert main(["retractions", "import", str(tmp_path / "missing.csv")]) == 2
    assert "gitlab.com/crossref/retraction-watch-data" in capsys.readouterr().err
