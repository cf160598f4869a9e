"""`make bench-accuracy-judge` against an LLM endpoint: one citation whose reply stays malformed
after the repair request is that citation's failure (``judge_error``, wrong in every figure), not
the end of the run. Before, the whole run died on Gemma 3 270M's first truncated reply.

The endpoint is a scripted fake of the OpenAI API (a third party we do not run) on 127.0.0.1.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from bench.accuracy.citint_score import Scored
from bench.accuracy.judge import judge_remote
from citeproof.contracts.judging import JudgeRequest, Passage
from citeproof.devkit.citint import SUPPORT
from citeproof.devkit.llm_stub import completion
from citeproof.judge.backend import build_backend
from citeproof.judge.settings import load_judge_settings
from citeproof.pipeline import JUDGE_ERROR, SUPPORTED

SOURCE = "Higher ultraviolet light levels were associated with lower COVID-19 growth rates."
GOOD_REPLY = {
    "label": SUPPORTED,
    "confidence": 0.8,
    "rationale": "The source says so.",
    "quote": SOURCE,
    "passage": 1,
}
# A reply cut off by max_tokens, as Gemma 3 270M sent it (the repair gets the same).
TRUNCATED_REPLY = '{ "label": "supported", "confidence": 0.5, "rationale": "12 −24 month'


@pytest.fixture
def endpoint() -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return None

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            asked = json.dumps(body["messages"])
            content = TRUNCATED_REPLY if "BROKEN" in asked else json.dumps(GOOD_REPLY)
            reply = json.dumps(completion(content)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    # Served on a daemon thread, one thread per request, for the test's duration.
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/v1"
    finally:
        server.shutdown()
        server.server_close()


def _request(claim: str, key: str) -> JudgeRequest:
    return JudgeRequest(
        claim=claim, context=None, citation_key=key, passages=[Passage(rank=1, text=SOURCE)]
    )


def test_a_citation_without_a_verdict_counts_wrong_and_the_run_goes_on(endpoint: str) -> None:
    settings = load_judge_settings(
        {
            "CITEPROOF_JUDGE_BACKEND": "llm",
            "CITEPROOF_JUDGE_LLM_BASE_URL": endpoint,
            "CITEPROOF_JUDGE_LLM_MODEL": "scripted",
            "CITEPROOF_JUDGE_LLM_RESPONSE_FORMAT": "json_object",
            "CITEPROOF_JUDGE_LLM_MAX_RETRIES": "0",
        }
    )
    requests = [
        _request("Ultraviolet light is associated with lower COVID-19 growth.", "a"),
        _request("BROKEN: ultraviolet light raises COVID-19 growth.", "b"),
        _request("Ultraviolet light levels relate to lower COVID-19 growth rates.", "c"),
    ]
    judged = judge_remote(build_backend(settings), requests, concurrency=2)
    # In request order: the failure sits where its citation is.
    assert judged.labels == [SUPPORTED, JUDGE_ERROR, SUPPORTED]
    assert len(judged.failures) == 1 and judged.failures[0].startswith("LlmReplyError")
    assert judged.p_supported[1] == 0.5 and judged.bands[1] is None
    # Scored like needs_review: not answered, wrong for its gold class.
    figures = Scored(
        [SUPPORT] * 3, judged.labels, judged.p_supported, judged.top, judged.top_confidence
    ).figures()
    assert figures["answered"] == pytest.approx(2 / 3)
    assert figures["macro_f1_binary"] < 1.0
