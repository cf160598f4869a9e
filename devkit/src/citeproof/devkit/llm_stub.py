"""An OpenAI-compatible chat-completions endpoint on 127.0.0.1 that answers every request with
one fixed verdict, in the real reply shape (a completion whose message content is the judge's
JSON reply).

For benchmarks that run the whole stack but do not score the judge's verdicts (the citation
linter's findings come from the parser and the retriever): pointing the judge at this stub is
the cheapest backend that still runs the judge stage as a process, its queue and its storage.
It is a fake of a third party we do not run (an LLM API), never of our own services.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Final

STUB_MODEL: Final = "benchmark-stub"
STUB_REPLY: Final = {
    "label": "unsupported",
    "confidence": 0.5,
    "rationale": "Benchmark stub: this run does not score verdicts.",
    "quote": None,
    "passage": None,
}
COMPLETIONS_PATH: Final = "/v1/chat/completions"


def completion(content: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "model": STUB_MODEL,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content},
             "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }  # fmt: skip


class LlmStub:
    """`with LlmStub() as stub:` serves on `stub.base_url` until the block ends."""

    def __init__(self) -> None:
        self.requests = 0
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return None

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                self.rfile.read(length)
                if self.path != COMPLETIONS_PATH:
                    self.send_response(404)
                    self.end_headers()
                    return
                with stub._lock:
                    stub.requests += 1
                body = json.dumps(completion(json.dumps(STUB_REPLY))).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        # The server answers on its own daemon thread; each request on a thread of its own
        # (ThreadingHTTPServer), so the judge's concurrent requests never queue behind another.
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}/v1"

    def judge_env(self) -> dict[str, str]:
        """The judge's settings that point it at this stub."""
        return {
            "CITEPROOF_JUDGE_BACKEND": "llm",
            "CITEPROOF_JUDGE_LLM_BASE_URL": self.base_url,
            "CITEPROOF_JUDGE_LLM_MODEL": STUB_MODEL,
            "CITEPROOF_JUDGE_LLM_RESPONSE_FORMAT": "json_object",
        }

    def __enter__(self) -> LlmStub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
