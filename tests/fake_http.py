"""What the fake provider servers share: a real HTTP server on 127.0.0.1 in a thread, a
request log, and answers that can be late, dropped or carry headers.

A fake subclasses :class:`FakeServer` and implements :meth:`FakeServer.handle`, answering with
:meth:`FakeServer.send` (or :meth:`FakeServer.drop`).
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        pass  # dropped and timed-out connections are what the tests inject


class FakeServer:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.server = QuietServer(("127.0.0.1", 0), self.handler_class())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    # --- life cycle ---------------------------------------------------------------------------

    def start(self) -> Self:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # --- answering ----------------------------------------------------------------------------

    def handler_class(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                fake.handle(self)

            do_POST = do_DELETE = do_GET

            def log_message(self, *args):
                pass

        return Handler

    def handle(self, http: BaseHTTPRequestHandler) -> None:
        raise NotImplementedError

    @staticmethod
    def read_body(http: BaseHTTPRequestHandler) -> bytes:
        length = int(http.headers.get("Content-Length") or 0)
        return http.rfile.read(length) if length else b""

    @staticmethod
    def drop(http: BaseHTTPRequestHandler) -> None:
        """Close the connection without an answer."""
        http.close_connection = True
        http.connection.shutdown(socket.SHUT_RDWR)

    @staticmethod
    def send(
        http: BaseHTTPRequestHandler,
        status: int,
        payload: Any,
        headers: dict[str, str] | None = None,
    ) -> None:
        """Answer ``payload``: bytes as tab-separated values, anything else as JSON."""
        body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        http.send_response(status)
        http.send_header(
            "Content-Type",
            "text/tab-separated-values" if isinstance(payload, bytes) else "application/json",
        )
        http.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            http.send_header(name, value)
        http.end_headers()
        with contextlib.suppress(OSError):  # the client gave up (timeout)
            http.wfile.write(body)
