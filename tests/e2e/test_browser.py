"""The web UI in headless Chromium, against a running stack: sign in, create a session, upload the
demo thesis and its sources, start a run, watch it complete, and read the report.

Uses the e2e fixtures `stack_url`, `api_token` and `demo_pdfs` (tests/e2e/conftest.py), or,
to point the test at a stack you started yourself (`citeproof dev`), the environment variables
CITEPROOF_E2E_URL and CITEPROOF_E2E_TOKEN. Screenshots go to artifacts/; with
CITEPROOF_UPDATE_DOCS_SCREENSHOT=1 the report screenshot also replaces docs/img/report.png.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import uuid
from pathlib import Path

import pytest

from citeproof.pipeline import VERDICT_LABELS
from tests.e2e.browser.chromium import browser_context, missing_requirement

expect = pytest.importorskip("playwright.sync_api").expect

# The overall ceiling sits above the sum of the step timeouts below, so a stuck step fails with
# Playwright's message naming it rather than with a bare pytest-timeout.
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(900)]

REPO_ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO_ROOT / "artifacts"
DOCS_SCREENSHOT = REPO_ROOT / "docs" / "img" / "report.png"
UPDATE_DOCS_ENV = "CITEPROOF_UPDATE_DOCS_SCREENSHOT"

# Parsing, retrieval and judging of the demo corpus on two cores; generous so a busy CI machine
# does not fail the UI test for pipeline speed (speed is measured in bench/, not here).
RUN_TIMEOUT_MS = 240_000
PARSE_TIMEOUT_MS = 180_000
UI_TIMEOUT_MS = 15_000
SCREENSHOT_VIEWPORT = {"width": 1280, "height": 1600}
# GET /v1/runs/{id} — what the run page polls when it has no event stream.
RUN_STATUS_URL = re.compile(r"/v1/runs/[^/?]+$")
RUN_PAGE_URL = re.compile(r"#/runs/([0-9a-f-]{36})")
CSP_LISTENER = """
document.addEventListener("securitypolicyviolation", (e) =>
  window.citeproofCspViolation(
    `${e.violatedDirective}: ${e.blockedURI || "inline"} in ${e.documentURI}`
  )
);
"""


def wait_until_parsed(page, documents: int) -> None:
    """Wait until the session page lists `documents` rows and none is still parsing; none may
    have failed."""
    page.wait_for_function(
        """n => {
            const rows = document.querySelectorAll('#documents tbody tr');
            return rows.length === n && !document.querySelector('#documents .pill-state-busy');
        }""",
        arg=documents,
        timeout=PARSE_TIMEOUT_MS,
    )
    failed = page.locator("#documents tr:has(.pill-state-failed) .doc-name").all_inner_texts()
    assert failed == [], f"documents failed to parse: {failed}"


@pytest.fixture(scope="module")
def ui_stack(request: pytest.FixtureRequest) -> tuple[str, str]:
    """(base URL, API token) of the stack under test."""
    url, token = os.environ.get("CITEPROOF_E2E_URL"), os.environ.get("CITEPROOF_E2E_TOKEN")
    if url and token:
        return url.rstrip("/"), token
    return request.getfixturevalue("stack_url").rstrip("/"), request.getfixturevalue("api_token")


@pytest.fixture(scope="module")
def expected(demo_pdfs: dict) -> dict:
    return json.loads(Path(demo_pdfs["expected"]).read_text(encoding="utf-8"))


@pytest.fixture
def page():
    reason = missing_requirement()
    if reason:
        pytest.skip(reason)
    with browser_context() as context:
        page = context.new_page()
        page.set_default_timeout(UI_TIMEOUT_MS)
        page.errors = []
        page.on("pageerror", lambda error: page.errors.append(str(error)))
        # Every Content-Security-Policy violation fails the test: Chromium reports each one on
        # the console ("Refused to ...") and as a securitypolicyviolation event.
        page.csp_violations = []
        page.on(
            "console",
            lambda message: (
                "Content Security Policy" in message.text
                and page.csp_violations.append(message.text)
            ),
        )
        page.expose_function("citeproofCspViolation", lambda text: page.csp_violations.append(text))
        page.add_init_script(CSP_LISTENER)
        yield page


def test_upload_run_and_report_in_the_browser(page, ui_stack, demo_pdfs, expected, tmp_path):
    base_url, token = ui_stack
    event_streams = []  # (status, content type) of every run-events response
    page.on(
        "response",
        lambda r: (
            "/events?" in r.url
            and event_streams.append((r.status, r.headers.get("content-type", "")))
        ),
    )

    # Sign in: a wrong token is refused with a message, the right one opens the sessions page.
    page.goto(base_url + "/")
    page.fill("#token", "cp_not_a_real_token")
    page.click("form button[type=submit]")
    page.wait_for_selector(".signin .alert-error:not([hidden])")
    page.fill("#token", token)
    page.click("form button[type=submit]")
    page.wait_for_selector("#session-name")
    assert page.locator("#user-chip").inner_text().strip()

    # A new session, then the thesis and the sources through the two drop zones' file pickers.
    session_name = f"Browser test {uuid.uuid4().hex[:6]}"
    page.fill("#session-name", session_name)
    page.click("form.new-session button")
    page.wait_for_selector("[data-testid=thesis-input]", state="attached")
    assert page.locator("h1").inner_text() == session_name
    page.set_input_files("[data-testid=thesis-input]", demo_pdfs["thesis"])
    page.set_input_files("[data-testid=sources-input]", demo_pdfs["sources"])

    documents = len(demo_pdfs["sources"]) + 1
    wait_until_parsed(page, documents)
    page.screenshot(path=str(_artifact("session.png")), full_page=True)

    # A file that is not a PDF: its row says it failed and why; deleting it removes the row.
    broken = tmp_path / "broken-source.pdf"
    broken.write_bytes(b"%PDF-1.4\nthis is not really a PDF\n")
    page.set_input_files("[data-testid=sources-input]", str(broken))
    broken_row = page.locator("#documents tr", has_text=broken.name)
    broken_row.locator(".pill-state-failed").wait_for(timeout=PARSE_TIMEOUT_MS)
    assert broken_row.locator(".doc-error").inner_text().strip()
    page.screenshot(path=str(_artifact("session-parse-error.png")), full_page=True)
    page.once("dialog", lambda dialog: dialog.accept())
    broken_row.locator(".icon-btn").click()
    broken_row.wait_for(state="detached")
    assert page.locator("#documents tbody tr").count() == documents

    # Drag-and-drop: dropping a file already in the session reuses it instead of adding a row.
    dropped = Path(demo_pdfs["sources"][0])
    page.evaluate(
        """([name, b64]) => {
            const bytes = Uint8Array.from(atob(b64), c => c.charCodeAt(0));
            const data = new DataTransfer();
            data.items.add(new File([bytes], name, { type: "application/pdf" }));
            const zone = document.querySelector("[data-zone=sources-input]");
            zone.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true }));
        }""",
        [dropped.name, base64.b64encode(dropped.read_bytes()).decode()],
    )
    expect(page.locator(f'#upload-status .alert[title="{dropped.name}"]')).to_contain_text("reused")
    assert page.locator("#documents tbody tr").count() == documents

    # Start the run and follow it to the end on the live progress page.
    page.click("#start-run-button")
    page.wait_for_selector("#run-status-badge")
    if page.get_attribute("#run-status-badge", "data-status") != "completed":
        assert page.locator(".stages .stage").count() == 3  # parse, retrieve, judge bars
    page.wait_for_selector(
        "#run-status-badge[data-status=completed], #run-status-badge[data-status=failed]",
        timeout=RUN_TIMEOUT_MS,
    )
    assert page.get_attribute("#run-status-badge", "data-status") == "completed"
    assert event_streams, "the run page never opened the server-sent-events stream"
    assert event_streams[0][0] == 200 and "text/event-stream" in event_streams[0][1]

    # The report: one card per citation, each with a verdict badge.
    page.wait_for_selector("#citations .citation")
    cards = page.locator("#citations .citation")
    total = cards.count()
    expected_citations = sum(len(row["citations"]) for row in expected["sentences"])
    assert total >= expected_citations - 2, f"{total} citations shown, {expected_citations} in text"
    labels = page.locator("#citations .citation .badge").evaluate_all(
        "badges => badges.map(b => b.dataset.label)"
    )
    assert len(labels) == total
    assert set(labels) <= set(VERDICT_LABELS), f"cards without a verdict: {labels}"
    summary_total = page.locator(".summary-tile .n").first.inner_text()
    assert int(summary_total) == total
    # The headline, a tile per band (and the unjudged), a band on every card, most doubtful
    # first: a card with an error or warning finding never follows one without.
    assert page.locator("#headline").inner_text().strip()
    assert page.locator(".summary-tile[data-band]").count() == 4
    assert page.locator("#citations .citation .band").count() == total
    severities = page.locator("#citations .citation").evaluate_all(
        "cards => cards.map(c => c.dataset.severity)"
    )
    doubtful = [severity in ("error", "warning") for severity in severities]
    assert doubtful == sorted(doubtful, reverse=True), severities

    # References without an uploaded source must read "Source missing" on their claim's card.
    for row in expected["sentences"]:
        for citation in row["citations"]:
            if citation["robust"] and citation["label"] == "source_missing":
                card = cards.filter(has_text=row["sentence"][:60])
                assert card.count() >= 1, f"no card for {row['sentence'][:60]!r}"
                assert card.first.locator(".badge").get_attribute("data-label") == "source_missing"
                assert card.first.locator("mark.marker").inner_text() == row["marker"]

    # A tall viewport so the screenshot shows the summary and several verdict cards.
    page.set_viewport_size(SCREENSHOT_VIEWPORT)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(_artifact("report.png")))
    page.screenshot(path=str(_artifact("report-full.png")), full_page=True)
    if os.environ.get(UPDATE_DOCS_ENV) == "1":
        DOCS_SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(_artifact("report.png"), DOCS_SCREENSHOT)

    # Filtering by a verdict shows exactly the cards with that verdict.
    page.click("[data-filter=source_missing]")
    shown = page.locator("#citations .citation .badge").evaluate_all(
        "badges => badges.map(b => b.dataset.label)"
    )
    assert shown and set(shown) == {"source_missing"}
    assert len(shown) == labels.count("source_missing")
    page.click(".filters .chip >> text=All")
    assert page.locator("#citations .citation").count() == total

    # The JSON download is the same report the page shows.
    with page.expect_download() as download_info:
        page.click("[data-download=json]")
    downloaded = json.loads(Path(download_info.value.path()).read_text(encoding="utf-8"))
    assert len(downloaded["citations"]) == total

    # Correcting a link: point reference [6] (no uploaded source) at an uploaded paper, re-run,
    # and the citation is judged against that paper instead of being reported missing.
    missing = next(
        row for row in expected["sentences"] if row["citations"][0]["label"] == "source_missing"
    )
    card = page.locator("#citations .citation").filter(has_text=missing["sentence"][:60]).first
    card.locator(".source-picker .link-btn").click()
    picker = card.locator(".source-picker select")
    picker.select_option(index=1)
    card.locator(".source-picker button", has_text="Save").click()
    page.wait_for_selector(".rerun:not([hidden])")
    first_run = page.url
    # With the event stream unavailable (a proxy that buffers or drops it), progress must still
    # arrive by polling GET /v1/runs/{id}.
    streams_before = len(event_streams)
    polls = []
    page.on("request", lambda r: RUN_STATUS_URL.search(r.url) and polls.append(r.url))
    page.route("**/events?*", lambda route: route.abort())
    page.click(".rerun button")
    page.wait_for_function("url => location.href !== url", arg=first_run)
    page.wait_for_selector("#run-status-badge[data-status=completed]", timeout=RUN_TIMEOUT_MS)
    page.wait_for_selector("#citations .citation")
    assert len(event_streams) == streams_before, "the aborted stream should not have answered"
    assert len(polls) >= 2, f"the run page did not fall back to polling: {polls}"
    relinked = page.locator("#citations .citation").filter(has_text=missing["sentence"][:60]).first
    assert relinked.locator(".badge").get_attribute("data-label") != "source_missing"
    assert "No uploaded source" not in relinked.locator(".source-line").inner_text()

    assert page.errors == [], f"JavaScript errors on the page: {page.errors}"

    # The standalone HTML report under the API's policy: its inline filter script (allowed by
    # hash) runs — a click on a band card (one that counts citations) hides the other bands.
    run_id = RUN_PAGE_URL.search(page.url).group(1)
    page.set_extra_http_headers({"Authorization": f"Bearer {token}"})
    page.goto(f"{base_url}/v1/runs/{run_id}/report?format=html")
    page.wait_for_selector("article.citation")
    band_card = next(
        card
        for card in page.locator(".card.band-card").all()
        if int(card.locator("b").inner_text()) > 0
    )
    chosen = band_card.get_attribute("data-filter").split(":", 1)[1]
    band_card.click()
    visible = page.locator("article.citation:visible").evaluate_all(
        "items => items.map(i => i.dataset.band)"
    )
    assert visible and set(visible) == {chosen}
    assert page.csp_violations == [], f"Content-Security-Policy violations: {page.csp_violations}"


def _artifact(name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS / name
