"""A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions protocol, for tests.

Replies are queued with `enqueue(...)`: a chat reply text, or a raw (status, body, delay) tuple.
Every request body is recorded in `requests`.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class ChatServer:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._queue: deque[tuple[int, str, float]] = deque()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (stdlib name)
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                server.requests.append({"path": self.path, **body})
                server.headers.append({k.lower(): v for k, v in self.headers.items()})
                status, payload, delay = server._queue.popleft() if server._queue else (500, "empty queue", 0)
                if delay:
                    time.sleep(delay)
                data = payload.encode("utf-8")
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

            def log_message(self, *args: Any) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def enqueue(self, content: str | None = None, *, status: int = 200, body: str | None = None,
                delay: float = 0.0, model: str = "test-model") -> None:
        if body is None:
            body = json.dumps({
                "id": "chatcmpl-test", "object": "chat.completion", "model": model,
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": content}}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
            })
        self._queue.append((status, body, delay))

    def __enter__(self) -> ChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
