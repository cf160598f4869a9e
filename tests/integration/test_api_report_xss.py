"""Script payloads in every user- or document-supplied string stay inert in all three report
formats and in the session API.

Claims, quotes, rationales, reference entries and labels, titles, file names (thesis and
source) and the session name each carry the usual XSS vectors. JSON returns them as data
(served as JSON, never sniffed); the HTML report, parsed as a browser would, contains no element,
attribute or URL that came from them (its one script is the hashed inline filter); Markdown
rendered with raw HTML allowed has no tag from them either. The web UI builds its DOM with
`textContent` only, so a session name cannot become markup there (checked on the sources).
"""

from __future__ import annotations

import re
import uuid
from html.parser import HTMLParser
from pathlib import Path

import msgspec
from markdown_it import MarkdownIt

from citeproof.contracts.findings import FROM_SOURCE_TEXT, Difference, Evidence, Finding
from citeproof.findings import PRODUCER_RETRIEVE, Found, replace_findings
from citeproof.pipeline import QUOTE_NOT_FOUND, WRONG_ATTACHMENT
from tests.integration.api_support import api_client, new_user, seed_results, thesis_with_sources
from tests.integration.test_api_report_injection import INJECTION as MARKDOWN_INJECTION
from tests.integration.test_api_runs import start_run

PAYLOADS = (
    "<script>alert('xss-1')</script>",
    "<img src=x onerror=alert('xss-2')>",
    "<svg/onload=alert('xss-3')>",
    '"><iframe src="javascript:alert(\'xss-4\')"></iframe>',
    "<a href=\"javascript:alert('xss-5')\">click</a>",
    "</textarea></title></style><script>alert('xss-6')</script>",
    "{{constructor.constructor('alert(7)')()}}",
)
XSS = " ".join(PAYLOADS)
STATIC = Path(__file__).resolve().parents[2] / "services/api/src/citeproof/api/static"


class Elements(HTMLParser):
    """Every start tag with its attributes, as a browser's tokenizer sees them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def _elements(html: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = Elements()
    parser.feed(html)
    parser.close()
    return parser.tags


def _assert_inert(tags: list[tuple[str, dict[str, str | None]]], *, scripts_allowed: int) -> None:
    names = [tag for tag, _ in tags]
    assert names.count("script") == scripts_allowed, names
    assert not {"img", "svg", "iframe", "a", "textarea"} & set(names), names
    for tag, attrs in tags:
        assert not any(name.startswith("on") for name in attrs), (tag, attrs)
        assert not any("javascript:" in (value or "").lower() for value in attrs.values())


async def test_script_payloads_in_every_field_stay_inert_in_every_format(pool, db_settings):
    alice = await new_user(pool)
    async with api_client(db_settings) as client:
        ids = await thesis_with_sources(client, alice)
        renamed = await client.post("/v1/sessions", json={"name": XSS[:200]}, headers=alice.headers)
        assert renamed.status_code == 201, renamed.text
        run_id = await start_run(client, alice, ids)
        await seed_results(pool, run_id, ids)
        thesis, smith = uuid.UUID(ids["thesis_id"]), uuid.UUID(ids["smith_id"])
        await pool.execute(
            "UPDATE citations SET claim_text = $2 || ' [1].' WHERE document_id = $1", thesis, XSS
        )
        await pool.execute(
            'UPDATE "references" SET raw = $2, title = $2 WHERE document_id = $1', thesis, XSS
        )
        await pool.execute(
            "UPDATE verdicts SET quote = $2, rationale = $2 WHERE run_id = $1",
            uuid.UUID(run_id),
            XSS,
        )
        for document_id in (thesis, smith):
            await pool.execute(
                "UPDATE documents SET title = $2, filename = $3 WHERE id = $1",
                document_id,
                XSS,
                PAYLOADS[1] + ".pdf",
            )
        base = f"/v1/runs/{run_id}/report"
        as_json = await client.get(base, headers=alice.headers)
        markdown = await client.get(f"{base}?format=markdown", headers=alice.headers)
        html = await client.get(f"{base}?format=html", headers=alice.headers)
        session = await client.get(f"/v1/sessions/{renamed.json()['id']}", headers=alice.headers)
        sessions = await client.get("/v1/sessions", headers=alice.headers)

    # JSON: the payloads are data, intact, in a JSON response the browser will not sniff.
    for response in (as_json, session, sessions):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("application/json")
        assert response.headers["x-content-type-options"] == "nosniff"
    report = as_json.json()
    assert report["thesis"]["title"] == XSS
    assert all(c["claim"].startswith(XSS) for c in report["citations"])
    assert session.json()["name"] == XSS[:200]
    assert XSS[:200] in [item["name"] for item in sessions.json()["items"]]

    # HTML: the text is there, escaped; no element or attribute came from it.
    assert html.status_code == 200
    page = html.text
    assert "&lt;script&gt;alert(&#39;xss-1&#39;)&lt;/script&gt;" in page
    assert "&lt;script&gt;" in page and "<script>alert" not in page
    _assert_inert(_elements(page), scripts_allowed=1)
    for payload in PAYLOADS:
        assert payload not in page

    # Markdown, rendered with raw HTML allowed (the most permissive viewer): nothing live.
    assert markdown.status_code == 200
    rendered = MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown.text)
    assert "xss-1" in rendered and "xss-5" in rendered
    _assert_inert(_elements(rendered), scripts_allowed=0)


def test_the_web_ui_never_parses_strings_as_html() -> None:
    """Session names, file names and report fields reach the page only as text nodes."""
    sinks = re.compile(
        r"\.innerHTML|\.outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function\("
        r"|createContextualFragment|DOMParser"
    )
    scripts = sorted(STATIC.glob("*.js"))
    assert scripts
    for script in scripts:
        found = sinks.findall(script.read_text(encoding="utf-8"))
        assert not found, (script.name, found)


async def test_payloads_in_finding_evidence_stay_inert_in_html_and_markdown(pool, db_settings):
    """Every string of a finding (message, expected/found, differences, evidence text, printed
    page, URL, origin, key) at a citation and at an entry: escaped text in HTML, no link,
    image or tag in Markdown; a `javascript:` URL is shown, never linked."""
    alice = await new_user(pool)
    hostile_url = "javascript:alert('xss-8')"
    finding = Finding(
        rule=QUOTE_NOT_FOUND.code,
        message=XSS,
        expected=XSS,
        found=MARKDOWN_INJECTION,
        differences=[Difference(field=XSS, expected=XSS, found=MARKDOWN_INJECTION)],
        evidence=[
            Evidence(origin=XSS, text=XSS, page=2, printed_page=PAYLOADS[0], url=hostile_url),
            Evidence(origin=FROM_SOURCE_TEXT, text=MARKDOWN_INJECTION, url=PAYLOADS[4]),
        ],
        key=XSS,
    )
    async with api_client(db_settings) as client:
        ids = await thesis_with_sources(client, alice)
        run_id = await start_run(client, alice, ids)
        await seed_results(pool, run_id, ids)
        run = uuid.UUID(run_id)
        citation_id, reference_id = await pool.fetchrow(
            "SELECT id, reference_id FROM citations WHERE document_id = $1 AND ordinal = 0",
            uuid.UUID(ids["thesis_id"]),
        )
        async with pool.acquire() as conn:
            await replace_findings(
                conn,
                run_id=run,
                user_id=alice.user_id,
                producer=PRODUCER_RETRIEVE,
                found=[
                    Found(finding, citation_id),
                    Found(
                        msgspec.structs.replace(finding, rule=WRONG_ATTACHMENT.code),
                        reference_id=reference_id,
                    ),
                ],
                whole_run=True,
            )
        base = f"/v1/runs/{run_id}/report"
        as_json = (await client.get(base, headers=alice.headers)).json()
        html = await client.get(f"{base}?format=html", headers=alice.headers)
        markdown = await client.get(f"{base}?format=markdown", headers=alice.headers)

    # JSON carries the strings as data.
    (cited,) = [c for c in as_json["citations"] if c["citation_id"] == citation_id]
    assert cited["findings"][0]["evidence"][0]["url"] == hostile_url
    (entry,) = [e for e in as_json["entries"] if e["reference_id"] == reference_id]
    assert entry["findings"][0]["message"] == XSS

    assert html.status_code == 200
    page = html.text
    _assert_inert(_elements(page), scripts_allowed=1)
    for payload in PAYLOADS:
        assert payload not in page
    assert "javascript:alert(&#39;xss-8&#39;)" in page  # shown as text
    assert not any("href" in attrs or "src" in attrs for _, attrs in _elements(page))

    assert markdown.status_code == 200
    rendered = MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown.text)
    assert "xss-8" in rendered and "evil.example" in rendered
    _assert_inert(_elements(rendered), scripts_allowed=0)
    assert "<code>code</code>" not in rendered and "<em>loud</em>" not in rendered
