"""A scripted fake of the OpenAI chat-completions API on a real 127.0.0.1 socket.

Each incoming request takes the next scripted ``Reply`` (the last one repeats). The server records
every request body and the highest number of requests it saw in flight at once.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int = 200
    # A string is sent as the assistant's message content in a completion envelope; a dict as the
    # whole JSON body; bytes as a raw body.
    content: str | dict | bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    usage: tuple[int, int] = (50, 10)


def completion_body(content: str, usage: tuple[int, int]) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "model": "fake",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": usage[0],
            "completion_tokens": usage[1],
            "total_tokens": sum(usage),
        },
    }


class FakeOpenAI:
    def __init__(self, script: list[Reply] | Callable[[dict], Reply], port: int = 0) -> None:
        self.script = script
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.headers: list[dict[str, str]] = []
        self.max_in_flight = 0
        self._in_flight = 0
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return None

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length))
                with fake._lock:
                    index = len(fake.requests)
                    fake.requests.append(body)
                    fake.paths.append(self.path)
                    fake.headers.append(dict(self.headers))
                    fake._in_flight += 1
                    fake.max_in_flight = max(fake.max_in_flight, fake._in_flight)
                try:
                    reply = fake._reply_for(index, body)
                    if reply.delay_s:
                        time.sleep(reply.delay_s)
                    if isinstance(reply.content, bytes):
                        payload = reply.content
                    elif isinstance(reply.content, dict):
                        payload = json.dumps(reply.content).encode()
                    elif reply.status == 200:
                        payload = json.dumps(
                            completion_body(reply.content or "", reply.usage)
                        ).encode()
                    else:
                        payload = json.dumps(
                            {"error": {"message": reply.content or "error"}}
                        ).encode()
                    try:
                        self.send_response(reply.status)
                        self.send_header("Content-Type", "application/json")
                        self.send_header("Content-Length", str(len(payload)))
                        for name, value in reply.headers.items():
                            self.send_header(name, value)
                        self.end_headers()
                        self.wfile.write(payload)
                    except (BrokenPipeError, ConnectionResetError):
                        pass  # the client gave up (a timeout test)
                finally:
                    with fake._lock:
                        fake._in_flight -= 1

        # A fixed `port` lets a test stop the server and start another where it was.
        self._server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def _reply_for(self, index: int, body: dict) -> Reply:
        if callable(self.script):
            return self.script(body)
        return self.script[min(index, len(self.script) - 1)]

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
