"""Hostile and broken input through the real stack: each file gets its documented error, and
nothing else in the same job or session is lost.

Refusals the API can make from the request alone (size caps, malformed multipart, wrong
content types, oversized JSON) are HTTP errors with a stable `code`. Everything that needs the
file's content to judge (corrupt, encrypted, scanned, bombs, renamed binaries) is accepted,
then fails in the parser with a stable `error_code` on its job item, while the good files of
the same upload parse and a run over the session completes.
"""

from __future__ import annotations

import json
import unicodedata
import uuid

import httpx
import pytest

from citeproof.devkit.journey import client, outcome, report, wait_for_run
from tests.e2e.badinput import corpus, files
from tests.e2e.badinput.api import (
    assert_error,
    chunk_text,
    db_fetch,
    file_part,
    kind_part,
    multipart_body,
    new_session,
    start_run,
    upload_files,
    wait_for_job,
)

pytestmark = pytest.mark.slow

PDF = "application/pdf"
MIB = 1024 * 1024
# The stack runs with the documented defaults (docs/api.md, parser settings).
MAX_FILE_BYTES = 50 * MIB
MAX_JSON_BODY_BYTES = 64 * 1024
MAX_FILES_PER_UPLOAD = 100
MAX_PAGES = 500
MAX_FILENAME_CHARS = 180
VISIBLE_JS_SENTENCE = "Cool roofs reduced attic temperatures in the Seville trial of 2019."
VISIBLE_HTML_SENTENCE = "Shaded courtyards stayed four degrees cooler than open plazas at noon."
# Markup in a thesis title (from the PDF's metadata) must reach the reports as inert text.
HOSTILE_TITLE = 'Cooling <img src=x onerror=alert(1)> Cities & "Streets"'
# Names a hostile client may send; each must be shown sanitised and the file still parsed.
TRAVERSAL_NAME = "../../etc/passwd"
CONTROL_NAME = "ctrl\x01\x1b[31m\x7fname\u202egpj.pdf"
MIXED_SCRIPTS = "תזה-أطروحة-论文-тезис-😀🌡️-"


def _long_mixed_name() -> str:
    stem = (MIXED_SCRIPTS * 40)[:996]
    return stem + ".pdf"


def _bad_files(good_pdf: bytes) -> list[tuple[str, bytes, str, str]]:
    """(filename, bytes, declared type, the parser's documented error_code)."""
    return [
        ("corrupt.pdf", files.corrupt_pdf(), PDF, "corrupt_file"),
        ("truncated.pdf", files.truncated_pdf(good_pdf), PDF, "corrupt_file"),
        ("locked.pdf", files.encrypted_pdf(good_pdf), PDF, "encrypted"),
        ("empty.pdf", b"", PDF, "empty_document"),
        ("scan.pdf", files.scanned_pdf(), PDF, "no_text_layer"),
        ("book.pdf", files.many_pages_pdf(MAX_PAGES + 1), PDF, "too_many_pages"),
        ("report.pdf", files.elf_binary(), PDF, "unsupported_type"),
        ("figure.pdf", files.png_image(), PDF, "unsupported_type"),
        ("chapter.docx", files.docx_bomb(), "application/octet-stream", "archive_bomb"),
    ]


def _hostile_good_files(good_pdf: bytes) -> list[tuple[str, bytes, str]]:
    """Files that must parse: the thesis' real sources under hostile names, text under names
    that sanitise to nothing, a PDF with JavaScript and an HTML page with scripts."""
    sources = [corpus.source_pdf(label) for label in ("1", "2", "3")]
    names = [TRAVERSAL_NAME, CONTROL_NAME, _long_mixed_name()]
    return [
        *[(name, data, PDF) for name, data in zip(names, sources, strict=True)],
        ("..", b"Plain notes on shade and wind in narrow streets.", "text/plain"),
        ("smith\\..\\2020.txt", b"More notes, on fountains and misting systems.", "text/plain"),
        ("scripted.pdf", files.javascript_pdf(good_pdf), PDF),
        ("notes.html", files.html_with_scripts(VISIBLE_HTML_SENTENCE), "text/html"),
    ]


def _assert_display_name(name: str) -> None:
    assert "/" not in name and "\\" not in name and not name.startswith("."), name
    assert not any(unicodedata.category(ch) in ("Cc", "Cf") for ch in name), repr(name)
    assert 0 < len(name) <= MAX_FILENAME_CHARS, len(name)


def test_bad_files_fail_alone_and_the_run_over_their_session_completes(
    stack_url: str, new_api_token, database_url: str
) -> None:
    good_pdf = files.text_pdf(
        "Roof cooling trial", (VISIBLE_JS_SENTENCE,) * 4
    )  # shared base for truncated / encrypted / scripted variants
    bad = _bad_files(good_pdf)
    good = _hostile_good_files(good_pdf)
    with client(stack_url, new_api_token(), timeout=120) as http:
        session_id = new_session(http, "hostile uploads")
        thesis = upload_files(
            http,
            session_id,
            "thesis",
            [("thesis.pdf", corpus.thesis_pdf(title=HOSTILE_TITLE), PDF)],
        )
        # Bad and good files in ONE upload: one parse job, one transaction.
        mixed = upload_files(http, session_id, "source", [(n, d, t) for n, d, t, _ in bad] + good)
        documents = mixed["documents"]
        assert len(documents) == len(bad) + len(good)
        bad_ids = {doc["id"]: code for doc, (*_, code) in zip(documents, bad, strict=False)}
        good_docs = documents[len(bad) :]

        job = wait_for_job(http, mixed["job_id"])
        thesis_job = wait_for_job(http, thesis["job_id"])
        items = {item["document_id"]: item for item in job["items"]}
        for document_id, code in bad_ids.items():
            item = items[document_id]
            assert item["state"] == "failed", item
            assert item["error_code"] == code, item
            assert item["error_detail"] and len(item["error_detail"]) > 20, item
        for doc in good_docs:
            assert items[doc["id"]]["state"] == "succeeded", items[doc["id"]]
            assert items[doc["id"]]["error_code"] is None
            _assert_display_name(doc["filename"])
        assert job["failed"] == len(bad) and job["succeeded"] == len(good), job
        assert thesis_job["succeeded"] == 1, thesis_job

        names = [doc["filename"] for doc in good_docs]
        assert names[0] == "passwd"  # only the last path component survives
        assert "ctrl" in names[1] and "\u202e" not in names[1] and "\x1b" not in names[1]
        assert names[2].endswith(".pdf") and "论文" in names[2] and "תזה" in names[2]
        assert "😀" in names[2]

        # The session lists every document, the failed ones with their code.
        listed = http.get(f"/v1/sessions/{session_id}/documents").json()["items"]
        by_id = {doc["id"]: doc for doc in listed}
        assert len(listed) == 1 + len(bad) + len(good)
        for document_id, code in bad_ids.items():
            assert by_id[document_id]["state"] == "failed"
            assert by_id[document_id]["error_code"] == code
        assert all(by_id[doc["id"]]["state"] == "parsed" for doc in good_docs)

        run_id = start_run(http, session_id, thesis["documents"][0]["id"])
        status = wait_for_run(http, run_id, timeout=240)
        assert status["status"] == "completed", status
        body = report(http, run_id).json()
        html = report(http, run_id, "html").text
        markdown = report(http, run_id, "markdown").text

    # The title arrives intact in JSON and inert in HTML and Markdown.
    assert body["thesis"]["title"] == HOSTILE_TITLE
    for rendered in (html, markdown):
        assert "<img" not in rendered and "&lt;img src=x onerror=alert(1)&gt;" in rendered

    # The thesis' own sources were found under their hostile names: only [4] has no source.
    missing = {
        c["reference"]["label"] for c in body["citations"] if outcome(c)[0] == "source_missing"
    }
    assert missing == {"4"}, missing
    assert body["summary"]["total"] == len(body["citations"]) > 0

    # Every item of the job let go of its bytes, failed or not.
    staged = db_fetch(
        database_url,
        "SELECT count(*) AS n FROM parse_items WHERE job_id = $1 AND file_bytes IS NOT NULL",
        uuid.UUID(mixed["job_id"]),
    )
    assert staged[0]["n"] == 0

    # Active content was read as text and never indexed.
    scripted_id, html_id = good_docs[-2]["id"], good_docs[-1]["id"]
    scripted_text = chunk_text(database_url, scripted_id)
    assert "Seville trial" in scripted_text and files.JS_CANARY not in scripted_text
    html_text = chunk_text(database_url, html_id)
    assert "Shaded courtyards" in html_text and files.SCRIPT_CANARY not in html_text


Refusal = tuple[str, httpx.Response, int, str]


def test_refusals_at_upload_time_keep_the_session_intact(
    stack_url: str, new_api_token, database_url: str
) -> None:
    with client(stack_url, new_api_token(), timeout=120) as http:
        session_id = new_session(http, "refusals")
        first = upload_files(
            http, session_id, "source", [("kept.txt", b"A source that must survive.", "text/plain")]
        )
        refusals = _upload_refusals(http, f"/v1/sessions/{session_id}/documents")
        refusals += _json_refusals(http, session_id)
        for name, response, status, code in refusals:
            try:
                assert_error(response, status, code)
            except AssertionError as exc:
                raise AssertionError(f"{name}: {exc}") from None

        # Nothing the refused requests carried was stored; the earlier upload is untouched.
        job = wait_for_job(http, first["job_id"])
        assert job["succeeded"] == 1, job
        listed = http.get(f"/v1/sessions/{session_id}").json()
        assert [doc["filename"] for doc in listed["documents"]] == ["kept.txt"]
        assert listed["documents"][0]["state"] == "parsed"
    jobs = db_fetch(
        database_url,
        "SELECT count(*) AS n FROM parse_jobs WHERE session_id = $1",
        uuid.UUID(session_id),
    )
    assert jobs[0]["n"] == 1


def _raw(http: httpx.Client, url: str, body: bytes, content_type: str) -> httpx.Response:
    return http.post(url, content=body, headers={"Content-Type": content_type})


def _upload_refusals(http: httpx.Client, url: str) -> list[Refusal]:
    big = b"%PDF-1.7\n" + b"0" * (MAX_FILE_BYTES + 1)
    whole, multipart = multipart_body(
        [kind_part(b"source"), file_part(b"cut.txt", b"the body stops here")]
    )
    unclosed, _ = multipart_body([kind_part(b"source")])
    # A CR LF inside the file name would start a new part header if it were honoured.
    injected, _ = multipart_body(
        [kind_part(b"source"), file_part(b"a.txt\r\nX-Injected: 1", b"text")]
    )
    not_utf8, _ = multipart_body([kind_part(b"source"), file_part(b"\xff\xfe.txt", b"text")])
    text = ("files", ("a.txt", b"a", "text/plain"))
    many = [("files", (f"f{i}.txt", f"file {i}".encode(), "text/plain")) for i in range(101)]
    return [
        (
            "oversized file",
            http.post(url, data={"kind": "source"}, files=[("files", ("big.pdf", big, PDF))]),
            413,
            "file_too_large",
        ),
        ("101 files", http.post(url, data={"kind": "source"}, files=many), 413, "too_many_files"),
        (
            "truncated",
            _raw(http, url, whole[: len(whole) // 2], multipart),
            400,
            "malformed_multipart",
        ),
        ("no closing", _raw(http, url, unclosed[:-4], multipart), 400, "malformed_multipart"),
        ("no boundary", _raw(http, url, b"x", "multipart/form-data"), 400, "malformed_multipart"),
        ("not utf-8 name", _raw(http, url, not_utf8, multipart), 400, "malformed_multipart"),
        ("CRLF in name", _raw(http, url, injected, multipart), 422, "no_files"),
        ("JSON upload", http.post(url, json={"kind": "source"}), 415, "unsupported_media_type"),
        ("bare PDF body", _raw(http, url, b"%PDF-1.7", PDF), 415, "unsupported_media_type"),
        (
            "urlencoded form",
            http.post(url, data={"kind": "thesis", "files": "x"}),
            415,
            "unsupported_media_type",
        ),
        ("bad kind", http.post(url, data={"kind": "chapter"}, files=[text]), 422, "invalid_kind"),
        ("no kind", http.post(url, files=[text]), 422, "invalid_kind"),
        (
            "no files part",
            http.post(url, data={"kind": "source"}, files=[("other", text[1])]),
            422,
            "no_files",
        ),
    ]


def _json_refusals(http: httpx.Client, session_id: str) -> list[Refusal]:
    huge = json.dumps({"name": "x" * (MAX_JSON_BODY_BYTES * 4)}).encode()
    deep_and_huge = b"[" * MAX_JSON_BODY_BYTES + b"]" * MAX_JSON_BODY_BYTES
    runs = f"/v1/sessions/{session_id}/runs"
    json_type = "application/json"
    return [
        ("huge JSON", _raw(http, "/v1/sessions", huge, json_type), 413, "body_too_large"),
        ("huge JSON (runs)", _raw(http, runs, huge, json_type), 413, "body_too_large"),
        (
            "deep, huge JSON",
            _raw(http, "/v1/sessions", deep_and_huge, json_type),
            413,
            "body_too_large",
        ),
        ("not JSON", _raw(http, "/v1/sessions", b"name=x", json_type), 400, "malformed_json"),
        (
            "urlencoded",
            _raw(http, "/v1/sessions", b"name=x", "application/x-www-form-urlencoded"),
            415,
            "unsupported_media_type",
        ),
        (
            "JSON as text/plain",
            _raw(http, "/v1/sessions", b'{"name": "x"}', "text/plain"),
            415,
            "unsupported_media_type",
        ),
        (
            "JSON as multipart",
            http.post("/v1/sessions", files=[("name", ("n.json", b'{"name": "x"}', "text/plain"))]),
            415,
            "unsupported_media_type",
        ),
        (
            "long name",
            http.post("/v1/sessions", json={"name": "y" * 1000}),
            400,
            "validation_error",
        ),
        (
            "unknown field",
            http.post("/v1/sessions", json={"name": "ok", "admin": True}),
            400,
            "validation_error",
        ),
        (
            "path as id",
            http.post(runs, json={"thesis_document_id": "../../etc/passwd"}),
            400,
            "validation_error",
        ),
    ]


def test_hostile_json_and_part_headers_are_refused_not_crashed(
    stack_url: str, new_api_token
) -> None:
    """Findings of this suite (each a 500 or an undocumented code before the fix)."""
    with client(stack_url, new_api_token(), timeout=60) as http:
        session_id = new_session(http, "findings")
        url = f"/v1/sessions/{session_id}/documents"
        nul_type, multipart = multipart_body(
            [kind_part(b"source"), file_part(b"n.txt", b"text", b"text/pl\x00ain")]
        )
        deep = b"[" * 20_000 + b"]" * 20_000  # under the body cap, over msgspec's depth
        findings = [
            (
                "NUL in a name",
                http.post("/v1/sessions", json={"name": "a\u0000b"}),
                400,
                "validation_error",
            ),
            (
                "deeply nested JSON",
                _raw(http, "/v1/sessions", deep, "application/json"),
                400,
                "malformed_json",
            ),
            (
                "truncated JSON",
                _raw(http, "/v1/sessions", b'{"name": "x', "application/json"),
                400,
                "malformed_json",
            ),
            (
                "non-UTF-8 JSON",
                _raw(http, "/v1/sessions", b'{"name": "\xff"}', "application/json"),
                400,
                "malformed_json",
            ),
        ]
        thesis = upload_files(
            http, session_id, "thesis", [("t.txt", b"A claim [1].", "text/plain")]
        )
        override = {
            "thesis_document_id": thesis["documents"][0]["id"],
            "label": "1\u0000",
            "document_id": None,
        }
        findings.append(
            (
                "NUL in a label",
                http.put(f"/v1/sessions/{session_id}/reference-overrides", json=override),
                400,
                "validation_error",
            )
        )
        # A NUL in a part's Content-Type is only a bad hint: the file is still accepted.
        findings.append(("NUL in a part's type", _raw(http, url, nul_type, multipart), 202, ""))
    problems = []
    for name, response, status, code in findings:
        try:
            if code:
                assert_error(response, status, code)
            else:
                assert response.status_code == status, (response.status_code, response.text)
        except AssertionError as exc:
            problems.append(f"{name}: {exc}")
    assert not problems, "\n".join(problems)
