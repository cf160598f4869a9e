"""A library through the web UI: a LaTeX project (no .bib of its own) in the thesis drop zone, the
sample PDFs in the sources drop zone and a Zotero RIS export (with L1 attachments) in the library
drop zone; the run links every citation to its entry by cite key and to its PDF by the attached
file, as the report the page offers for download says. The session page's open-access switch
is the account's preference."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from citeproof.devkit.journey import outcome
from citeproof.devkit.library_run import LIBRARY, NUMBERS, expected_links, latex_zip
from citeproof.pipeline import SOURCE_MISSING
from tests.e2e.browser.chromium import browser_context, missing_requirement
from tests.e2e.test_browser import RUN_TIMEOUT_MS, UI_TIMEOUT_MS, wait_until_parsed

expect = pytest.importorskip("playwright.sync_api").expect

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(900)]


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
        yield page


def test_latex_project_with_a_zotero_library_in_the_browser(
    page, stack_url, api_token, demo_pdfs, tmp_path
) -> None:
    thesis = tmp_path / "thesis.zip"
    thesis.write_bytes(latex_zip(with_bib=False))
    library = tmp_path / "library.ris"
    library.write_bytes((LIBRARY / "library.ris").read_bytes())

    page.goto(stack_url.rstrip("/") + "/")
    page.fill("#token", api_token)
    page.click("form button[type=submit]")
    page.wait_for_selector("#session-name")
    page.fill("#session-name", f"Library {uuid.uuid4().hex[:6]}")
    page.click("form.new-session button")
    page.wait_for_selector("[data-testid=library-input]", state="attached")
    # The open-access switch: off by default, kept by the server when ticked, untouched after.
    toggle = page.locator("[data-testid=open-access-lookup]")
    expect(toggle).to_be_enabled()
    assert not toggle.is_checked()
    with page.expect_response(lambda r: r.request.method == "PATCH") as patched:
        toggle.check()
    assert patched.value.json() == {"open_access_lookup": True, "verify_references": False}
    page.reload()
    expect(page.locator("[data-testid=open-access-lookup]")).to_be_checked()
    with page.expect_response(lambda r: r.request.method == "PATCH"):
        page.locator("[data-testid=open-access-lookup]").uncheck()

    page.set_input_files("[data-testid=thesis-input]", str(thesis))
    page.set_input_files("[data-testid=sources-input]", demo_pdfs["sources"])
    page.set_input_files("[data-testid=library-input]", str(library))
    documents = len(demo_pdfs["sources"]) + 2
    wait_until_parsed(page, documents)

    page.click("#start-run-button")
    page.wait_for_selector(
        "#run-status-badge[data-status=completed], #run-status-badge[data-status=failed]",
        timeout=RUN_TIMEOUT_MS,
    )
    assert page.get_attribute("#run-status-badge", "data-status") == "completed"
    page.wait_for_selector("#citations .citation")
    with page.expect_download() as download_info:
        page.click("[data-download=json]")
    report = json.loads(Path(download_info.value.path()).read_text(encoding="utf-8"))

    expected = expected_links()
    found = {
        (c["claim"][:40], NUMBERS.get(c["reference"]["label"])): c for c in report["citations"]
    }
    assert set(found) == set(expected)
    for key, pdf in expected.items():
        source = found[key]["source"]
        if pdf is None:
            assert source is None and outcome(found[key])[0] == SOURCE_MISSING, found[key]
        else:
            assert source["filename"] == pdf, found[key]
            assert source["link_method"] == "library:key+attachment", source
    assert page.errors == [], f"JavaScript errors on the page: {page.errors}"
