"""The report v2 (notes/REPORT_SHAPE.md): findings per citation and per entry from the findings
table, the pipeline labels that are findings reported once, risk ranks, band and severity
counts, the headline, and rule overrides in the query string (and their 400s) — in JSON,
Markdown and HTML."""

from __future__ import annotations

import uuid

from citeproof.contracts.findings import (
    FROM_REFERENCE_LIST,
    FROM_SOURCE_METADATA,
    FROM_SOURCE_TEXT,
    Difference,
    Evidence,
    Finding,
    fingerprint,
)
from citeproof.findings import PRODUCER_PLAN, PRODUCER_RETRIEVE, Found, replace_findings
from citeproof.pipeline import (
    AMBIGUOUS_SUFFIX,
    BANDS,
    ERROR,
    INFO,
    LIKELY_FINE,
    LIKELY_PROBLEM,
    METADATA_DIFFERS,
    NUMBER_NOT_IN_SOURCE,
    QUOTE_NOT_FOUND,
    QUOTE_VERIFIED,
    REFERENCE_MISSING,
    REFERENCE_MISSING_RULE,
    RULES,
    SEVERITIES,
    SOURCE_MISSING_RULE,
    SOURCE_UNREADABLE,
    SOURCE_UNREADABLE_RULE,
    UNCERTAIN,
    UNJUDGED,
    WARNING,
    WRONG_ATTACHMENT,
)
from tests.integration.api_support import (
    api_client,
    assert_error,
    new_user,
    seed_results,
    thesis_with_sources,
)
from tests.integration.test_api_runs import start_run

# seed_results writes, by ordinal: 0 supported [1], 1 contradicted [2], 2 source_missing [3],
# 3 unsupported [1]; entries "1", "2", "3".
QUOTE = Finding(
    rule=QUOTE_NOT_FOUND.code,
    message="The quotation is not in the source; the closest passage differs in 1 word.",
    expected="trees cooled streets by 3 °C",
    found="trees cooled streets by 2 °C",
    differences=[Difference(field="quote", expected="3", found="2")],
    evidence=[Evidence(origin=FROM_SOURCE_TEXT, text="Trees cooled streets by 2 °C.", page=4)],
    claim_span=(0, 12),
    key="trees cooled streets by 3 °c",
)
NUMBER = Finding(
    rule=NUMBER_NOT_IN_SOURCE.code,
    message="The number 17% appears nowhere in the source.",
    expected="17%",
    key="17%",
)
ATTACHMENT = Finding(
    rule=WRONG_ATTACHMENT.code,
    message="The PDF attached to entry [2] is another work.",
    differences=[Difference(field="title", expected="Asphalt albedo", found="Heat & trees")],
    evidence=[
        Evidence(origin=FROM_REFERENCE_LIST, text="Doe, A. (2019). Asphalt albedo."),
        Evidence(origin=FROM_SOURCE_METADATA, text="Heat & trees", page=1),
    ],
)
METADATA = Finding(
    rule=METADATA_DIFFERS.code,
    message="The entry's year differs from the source's (2019 vs 2017).",
    differences=[Difference(field="year", expected="2019", found="2017")],
)


async def _ids(pool, ids: dict[str, str]) -> tuple[list[int], dict[str, int], dict[int, str]]:
    thesis = uuid.UUID(ids["thesis_id"])
    rows = await pool.fetch(
        "SELECT id, claim_text, marker_text FROM citations WHERE document_id = $1 ORDER BY ordinal",
        thesis,
    )
    refs = await pool.fetch('SELECT id, label FROM "references" WHERE document_id = $1', thesis)
    subjects = {row["id"]: f"{row['claim_text']} {row['marker_text']}" for row in rows}
    return [row["id"] for row in rows], {r["label"]: r["id"] for r in refs}, subjects


async def seed_findings(pool, run_id: str, ids: dict[str, str]) -> tuple[list[int], dict]:
    """Findings as the planner and the retriever would store them, and the judge's bands."""
    citations, refs, _ = await _ids(pool, ids)
    run = uuid.UUID(run_id)
    user = await pool.fetchval("SELECT user_id FROM runs WHERE id = $1", run)
    async with pool.acquire() as conn:
        await replace_findings(
            conn,
            run_id=run,
            user_id=user,
            producer=PRODUCER_RETRIEVE,
            found=[Found(QUOTE, citations[0]), Found(NUMBER, citations[3])],
            citation_ids=[citations[0], citations[3]],
        )
        await replace_findings(
            conn,
            run_id=run,
            user_id=user,
            producer=PRODUCER_PLAN,
            found=[
                Found(ATTACHMENT, reference_id=refs["2"]),
                # An entry's finding shown at the citation that led to it, too.
                Found(METADATA, citation_id=citations[1], reference_id=refs["2"]),
            ],
            whole_run=True,
        )
    for citation_id, probability, band in (
        (citations[0], 0.12, LIKELY_FINE),
        (citations[1], 0.91, LIKELY_PROBLEM),
        (citations[3], 0.47, UNCERTAIN),
    ):
        await pool.execute(
            "UPDATE verdicts SET problem_probability = $3, band = $4 "
            "WHERE run_id = $1 AND citation_id = $2",
            run,
            citation_id,
            probability,
            band,
        )
    return citations, refs


async def _seeded(client, pool, user):
    ids = await thesis_with_sources(client, user)
    run_id = await start_run(client, user, ids)
    await seed_results(pool, run_id, ids)
    citations, refs = await seed_findings(pool, run_id, ids)
    return ids, run_id, citations, refs


async def test_report_v2_findings_entries_ranks_bands_and_headline(pool, db_settings):
    alice = await new_user(pool)
    async with api_client(db_settings) as client:
        ids, run_id, citation_ids, refs = await _seeded(client, pool, alice)
        # The content rules ran on citation 0 (its retrieve task succeeded), not on 1 (failed).
        for citation_id, state in ((citation_ids[0], "succeeded"), (citation_ids[1], "failed")):
            await pool.execute(
                "INSERT INTO retrieve_tasks (run_id, citation_id, user_id, source_document_id, "
                "state) VALUES ($1, $2, $3, $4, $5)",
                uuid.UUID(run_id),
                citation_id,
                alice.user_id,
                uuid.UUID(ids["smith_id"]),
                state,
            )
        response = await client.get(f"/v1/runs/{run_id}/report", headers=alice.headers)
    assert response.status_code == 200, response.text
    report = response.json()
    _, _, subjects = await _ids(pool, ids)
    by_ordinal = {c["ordinal"]: c for c in report["citations"]}
    assert [c["ordinal"] for c in report["citations"]] == [0, 1, 2, 3]  # thesis order
    assert [c["content_checked"] for c in report["citations"]] == [True, False, False, False]

    # A stored finding: the payload, its rule's names, resolved severity and fingerprint.
    (quote,) = by_ordinal[0]["findings"]
    assert quote == {
        "rule": QUOTE_NOT_FOUND.code,
        "slug": QUOTE_NOT_FOUND.slug,
        "name": QUOTE_NOT_FOUND.name,
        "severity": ERROR,
        "message": QUOTE.message,
        "expected": QUOTE.expected,
        "found": QUOTE.found,
        "differences": [{"field": "quote", "expected": "3", "found": "2"}],
        "evidence": [
            {"origin": FROM_SOURCE_TEXT, "text": "Trees cooled streets by 2 °C.", "page": 4}
        ],
        "claim_span": [0, 12],
        "key": QUOTE.key,
        "fingerprint": fingerprint(QUOTE_NOT_FOUND.code, subjects[citation_ids[0]], QUOTE.key),
    }
    # The verdict keeps its fields and gains the judge's probability and band.
    assert by_ordinal[1]["verdict"]["problem_probability"] == 0.91
    assert by_ordinal[1]["verdict"]["band"] == LIKELY_PROBLEM
    # source_missing: no verdict, one synthesised CP402 naming the entry as evidence.
    missing = by_ordinal[2]
    assert missing["verdict"] is None
    (synthesised,) = missing["findings"]
    assert (synthesised["rule"], synthesised["severity"], synthesised["message"]) == (
        SOURCE_MISSING_RULE.code,
        INFO,
        "because",  # the planner's rationale
    )
    assert synthesised["evidence"] == [
        {"origin": FROM_REFERENCE_LIST, "text": "Roe, B. (2018). Missing paper."}
    ]
    # An entry finding stored with its citation shows at both, fingerprinted by the entry.
    (at_citation,) = by_ordinal[1]["findings"]
    entries = {e["label"]: e for e in report["entries"]}
    assert [e["label"] for e in report["entries"]] == ["1", "2", "3"]
    assert [f["rule"] for f in entries["2"]["findings"]] == [
        WRONG_ATTACHMENT.code,
        METADATA_DIFFERS.code,
    ]
    assert entries["2"]["findings"][1] == at_citation
    assert at_citation["fingerprint"] == fingerprint(
        METADATA_DIFFERS.code, "Doe, A. (2019). Asphalt albedo.", ""
    )
    assert entries["2"]["reference_id"] == refs["2"] and entries["2"]["cited_by"] == [
        citation_ids[1]
    ]
    assert entries["1"]["cited_by"] == [citation_ids[0], citation_ids[3]]
    assert entries["1"]["findings"] == [] and entries["3"]["source"] is None
    assert entries["2"]["source"]["filename"] == "doe2019.pdf"
    assert by_ordinal[0]["reference_id"] == refs["1"]

    # Risk: errors first, then warnings (by band), then the rest; ranks 1..n.
    ranks = {c["ordinal"]: c["risk"] for c in report["citations"]}
    assert ranks[0] == {"rank": 1, "band": LIKELY_FINE, "problem_probability": 0.12}
    assert ranks[1] == {"rank": 2, "band": LIKELY_PROBLEM, "problem_probability": 0.91}
    assert ranks[3] == {"rank": 3, "band": UNCERTAIN, "problem_probability": 0.47}
    assert ranks[2] == {"rank": 4, "band": None, "problem_probability": None}

    summary = report["summary"]
    assert summary["total"] == 4
    assert summary["counts"]["source_missing"] == 1  # the stored labels still add up
    # The entry finding shown twice is counted once.
    assert summary["findings"] == {ERROR: 2, WARNING: 2, INFO: 1}
    assert list(summary["findings"]) == list(SEVERITIES)
    assert summary["by_rule"] == {
        QUOTE_NOT_FOUND.code: 1,
        NUMBER_NOT_IN_SOURCE.code: 1,
        WRONG_ATTACHMENT.code: 1,
        METADATA_DIFFERS.code: 1,
        SOURCE_MISSING_RULE.code: 1,
    }
    assert summary["bands"] == {LIKELY_PROBLEM: 1, UNCERTAIN: 1, LIKELY_FINE: 1, UNJUDGED: 1}
    assert summary["headline"] == (
        "2 errors and 2 warnings found; of 3 citations the judge read, 1 is a likely problem, "
        "1 uncertain and 1 likely fine; 1 of 4 could not be checked (1 without an uploaded "
        "source)."
    )


async def test_bands_come_from_labels_when_a_verdict_has_none(pool, db_settings):
    """A backend without probabilities: supported is likely fine, unsupported and contradicted
    are likely problems, needs_review uncertain; the probability stays null."""
    alice = await new_user(pool)
    async with api_client(db_settings) as client:
        ids = await thesis_with_sources(client, alice)
        run_id = await start_run(client, alice, ids)
        await seed_results(pool, run_id, ids)
        report = (await client.get(f"/v1/runs/{run_id}/report", headers=alice.headers)).json()
    risks = {c["ordinal"]: c["risk"] for c in report["citations"]}
    assert {o: r["band"] for o, r in risks.items()} == {
        0: LIKELY_FINE,
        1: LIKELY_PROBLEM,
        2: None,
        3: LIKELY_PROBLEM,
    }
    assert all(r["problem_probability"] is None for r in risks.values())
    # Likely problems by ordinal, then the unjudged one, then the likely fine one.
    assert [o for o, r in sorted(risks.items(), key=lambda kv: kv[1]["rank"])] == [1, 3, 2, 0]
    assert report["summary"]["bands"] == {
        LIKELY_PROBLEM: 2,
        UNCERTAIN: 0,
        LIKELY_FINE: 1,
        UNJUDGED: 1,
    }


async def test_pipeline_labels_are_reported_once_under_their_rule(pool, db_settings):
    """CP401/402/403: synthesised from the verdict unless a producer stored the same rule (or,
    for a missing reference, CP413/CP415, which say more precisely why)."""
    alice = await new_user(pool)
    async with api_client(db_settings) as client:
        ids = await thesis_with_sources(client, alice)
        run_id = await start_run(client, alice, ids)
        await seed_results(pool, run_id, ids)
        citations, _, _ = await _ids(pool, ids)
        run = uuid.UUID(run_id)
        # ordinal 0 -> source_unreadable, 1 -> reference_missing with a stored CP413,
        # 3 -> reference_missing alone; ordinal 2 (source_missing) also has a stored CP402.
        for citation_id, label in (
            (citations[0], SOURCE_UNREADABLE),
            (citations[1], REFERENCE_MISSING),
            (citations[3], REFERENCE_MISSING),
        ):
            await pool.execute(
                "UPDATE verdicts SET label = $3, rationale = 'unreadable: encrypted' "
                "WHERE run_id = $1 AND citation_id = $2",
                run,
                citation_id,
                label,
            )
        user = await pool.fetchval("SELECT user_id FROM runs WHERE id = $1", run)
        stored_missing = Finding(rule=SOURCE_MISSING_RULE.code, message="stored by the planner")
        suffix = Finding(rule=AMBIGUOUS_SUFFIX.code, message="2020b is not in the list")
        async with pool.acquire() as conn:
            await replace_findings(
                conn,
                run_id=run,
                user_id=user,
                producer=PRODUCER_PLAN,
                found=[Found(stored_missing, citations[2]), Found(suffix, citations[1])],
                whole_run=True,
            )
        report = (await client.get(f"/v1/runs/{run_id}/report", headers=alice.headers)).json()
    rules = {c["ordinal"]: [f["rule"] for f in c["findings"]] for c in report["citations"]}
    assert rules == {
        0: [SOURCE_UNREADABLE_RULE.code],
        1: [AMBIGUOUS_SUFFIX.code],
        2: [SOURCE_MISSING_RULE.code],
        3: [REFERENCE_MISSING_RULE.code],
    }
    assert all(c["verdict"] is None for c in report["citations"])
    (stored,) = report["citations"][2]["findings"]
    assert stored["message"] == "stored by the planner"
    (unreadable,) = report["citations"][0]["findings"]
    assert unreadable["found"] == "smith2020.pdf"  # the file that could not be read
    assert report["summary"]["by_rule"] == {
        SOURCE_MISSING_RULE.code: 1,
        SOURCE_UNREADABLE_RULE.code: 1,
        AMBIGUOUS_SUFFIX.code: 1,
        REFERENCE_MISSING_RULE.code: 1,
    }
    # None of them was judged: the headline says so and claims nothing about them.
    assert report["summary"]["headline"] == (
        "2 errors and 1 warning found; the judge read none of the 4 citations (2 without a "
        "reference-list entry, 1 with an unreadable source and 1 without an uploaded source)."
    )


async def test_rule_overrides_disable_and_relevel_in_every_format(pool, db_settings):
    alice = await new_user(pool)
    async with api_client(db_settings) as client:
        _, run_id, _, _ = await _seeded(client, pool, alice)
        base = f"/v1/runs/{run_id}/report"
        query = (
            f"disable={QUOTE_NOT_FOUND.code},{SOURCE_MISSING_RULE.slug}"
            f"&level={NUMBER_NOT_IN_SOURCE.slug.upper()}:ERROR&disable={QUOTE_VERIFIED.code}"
        )
        report = (await client.get(f"{base}?{query}", headers=alice.headers)).json()
        markdown = (await client.get(f"{base}?format=markdown&{query}", headers=alice.headers)).text
        page = (await client.get(f"{base}?format=html&{query}", headers=alice.headers)).text
    by_ordinal = {c["ordinal"]: c for c in report["citations"]}
    assert by_ordinal[0]["findings"] == [] and by_ordinal[2]["findings"] == []
    (number,) = by_ordinal[3]["findings"]
    assert number["severity"] == ERROR
    # The re-levelled citation now leads; the disabled error no longer counts.
    assert by_ordinal[3]["risk"]["rank"] == 1
    assert report["summary"]["findings"] == {ERROR: 2, WARNING: 1, INFO: 0}
    assert QUOTE_NOT_FOUND.code not in report["summary"]["by_rule"]
    assert QUOTE_NOT_FOUND.code not in markdown and QUOTE_NOT_FOUND.code not in page
    assert f"**Error {NUMBER_NOT_IN_SOURCE.code}**" in markdown
    assert f'data-rule="{NUMBER_NOT_IN_SOURCE.code}" data-severity="error"' in page


async def test_bad_rule_overrides_are_refused_with_a_code(pool, db_settings):
    alice = await new_user(pool)
    async with api_client(db_settings) as client:
        ids = await thesis_with_sources(client, alice)
        run_id = await start_run(client, alice, ids)
        base = f"/v1/runs/{run_id}/report"
        cases = [
            ("disable=CP999", "unknown_rule"),
            ("disable=quote-not-fond", "unknown_rule"),
            (f"level=CP000:{ERROR}", "unknown_rule"),
            (f"level={NUMBER_NOT_IN_SOURCE.code}", "invalid_rule_level"),
            (f"level={NUMBER_NOT_IN_SOURCE.code}:fatal", "invalid_rule_level"),
            (
                f"level={NUMBER_NOT_IN_SOURCE.code}:{ERROR},{NUMBER_NOT_IN_SOURCE.slug}:{INFO}",
                "conflicting_rule_settings",
            ),
            (
                f"disable={NUMBER_NOT_IN_SOURCE.slug}&level={NUMBER_NOT_IN_SOURCE.code}:{ERROR}",
                "conflicting_rule_settings",
            ),
        ]
        for query, code in cases:
            for format in ("json", "html"):
                response = await client.get(
                    f"{base}?format={format}&{query}", headers=alice.headers
                )
                body = assert_error(response, 400, code)
                assert "CP" in body["detail"] or "level" in body["detail"], body
        # Empty values are no setting at all.
        assert (
            await client.get(f"{base}?disable=&level=", headers=alice.headers)
        ).status_code == 200


async def test_rules_are_served_without_a_token_from_the_registry(db_settings):
    async with api_client(db_settings) as client:
        response = await client.get("/rules")
    assert response.status_code == 200, response.text
    catalogue = response.json()
    assert [r["code"] for r in catalogue["rules"]] == [r.code for r in RULES]
    served = {r["code"]: r for r in catalogue["rules"]}
    for rule in RULES:
        assert served[rule.code] | {} == {
            "code": rule.code,
            "slug": rule.slug,
            "severity": rule.severity,
            "subject": rule.subject,
            "name": rule.name,
            "summary": rule.summary,
            "fix": rule.fix,
            "label": served[rule.code]["label"],
            "doc": f"docs/rules.md#{rule.code.lower()}-{rule.slug}",
        }
    assert served[REFERENCE_MISSING_RULE.code]["label"] == REFERENCE_MISSING
    assert served[QUOTE_NOT_FOUND.code]["label"] is None
    assert [s["severity"] for s in catalogue["severities"]] == list(SEVERITIES)
    assert [b["band"] for b in catalogue["bands"]] == [*BANDS, UNJUDGED]
    assert all(b["name"] and b["description"] and b["accent"] for b in catalogue["bands"])


async def test_the_web_ui_assets_that_render_findings_are_served(db_settings):
    async with api_client(db_settings) as client:
        for name in ("report.js", "labels.js", "app.css"):
            response = await client.get(f"/static/{name}")
            assert response.status_code == 200, name
            kind = "text/css" if name.endswith(".css") else "javascript"
            assert kind in response.headers["content-type"], (name, response.headers)
        report_js = (await client.get("/static/report.js")).text
        labels_js = (await client.get("/static/labels.js")).text
    # The report view renders findings, bands and the reference list from the report JSON.
    for needle in ("findingBlock", "bandBadge", "entriesSection", "problemsList", "risk?.rank"):
        assert needle in report_js, needle
    assert 'fetch("/rules"' in labels_js
