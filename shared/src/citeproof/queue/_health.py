"""A worker's tiny HTTP server: /healthz (claim loop alive) and /metrics.

asyncio streams instead of a web framework: workers must not carry the API's stack, and
two GET routes do not need one.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from citeproof.obs.loop_lag import process_loop_lag


class HealthServer:
    def __init__(self, host: str, port: int, is_alive: Callable[[], bool]) -> None:
        self._host = host
        self._port = port
        self._is_alive = is_alive
        self._server: asyncio.base_events.Server | None = None

    @property
    def port(self) -> int:
        assert self._server is not None
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, self._host, self._port)
        # The event-loop lag goes out with the other metrics this server exports.
        process_loop_lag().start()

    async def stop(self) -> None:
        await process_loop_lag().stop()
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), timeout=2)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await asyncio.wait_for(reader.readline(), timeout=5)
            # Drain the headers; we answer every request the same way regardless.
            while True:
                header = await asyncio.wait_for(reader.readline(), timeout=5)
                if header in (b"\r\n", b"\n", b""):
                    break
            parts = line.decode("latin-1", "replace").split()
            path = parts[1].split("?")[0] if len(parts) >= 2 else "/"
            if path == "/healthz":
                alive = self._is_alive()
                status = "200 OK" if alive else "503 Service Unavailable"
                body = b'{"status":"ok"}' if alive else b'{"status":"stalled"}'
                content_type = "application/json"
            elif path == "/metrics":
                status, body, content_type = "200 OK", generate_latest(), CONTENT_TYPE_LATEST
            else:
                status, body, content_type = "404 Not Found", b"not found", "text/plain"
            head = (
                f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
            )
            writer.write(head.encode() + body)
            await writer.drain()
        except (TimeoutError, ConnectionError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()
