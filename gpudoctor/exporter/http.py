"""The HTTP side of `gpudoctor serve`: `/metrics`, `/readyz`, `/healthz`, nothing else.

Built on the standard library's `ThreadingHTTPServer`, with the limits an exporter on every node
needs: GET only (405 with `Allow: GET` for any other method, HEAD included), a request line and
headers capped in size (431) and in time (408; each socket operation also times out), a bounded
number of connections served at once (more are closed at once), one request per connection, and
no access log (a scrape every 15 s would flood it). Every answer is built from the schedule's
last state: a handler never runs a check and never waits for one.
"""

from __future__ import annotations

import io
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

from gpudoctor.exporter.live import live_metrics, ready_now

if TYPE_CHECKING:
    from gpudoctor.exporter.schedule import Schedule

# The request line and headers together; a scrape sends well under 1 KiB.
MAX_REQUEST_BYTES = 8192
# Each socket read or write, and the whole request head, must arrive within these.
SOCKET_TIMEOUT_S = 5.0
REQUEST_DEADLINE_S = 10.0
MAX_CONNECTIONS = 16
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"  # the text exposition format
INDEX = (
    b"gpudoctor serve\n"
    b"  /metrics  the last check run and the exporter's own state (Prometheus text format)\n"
    b"  /readyz   200 when the node passes, 503 before the first run, when it fails or is stale\n"
    b"  /healthz  200 while the exporter answers\n"
)


class _RequestRefused(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class _CappedReader:
    """The request's input with a byte budget and a deadline for everything read through it."""

    def __init__(self, raw: io.BufferedIOBase, limit: int, deadline: float) -> None:
        self._raw = raw
        self._left = limit
        self._deadline = deadline

    def readline(self, size: int = -1) -> bytes:
        if time.monotonic() > self._deadline:
            raise _RequestRefused(408, "Request Timeout")
        want = self._left + 1 if size < 0 else min(size, self._left + 1)
        line = self._raw.readline(want)
        self._left -= len(line)
        if self._left < 0:
            raise _RequestRefused(431, "Request Header Fields Too Large")
        return line

    def read(self, size: int = -1) -> bytes:  # GET has no body: nothing is read past the head
        return b""

    def close(self) -> None:
        self._raw.close()


class Handler(BaseHTTPRequestHandler):
    server: ExporterServer
    server_version = "gpudoctor"
    sys_version = ""
    timeout = SOCKET_TIMEOUT_S  # StreamRequestHandler sets it on the socket
    protocol_version = "HTTP/1.0"  # one request per connection: no idle keep-alive threads

    def setup(self) -> None:
        super().setup()
        deadline = time.monotonic() + REQUEST_DEADLINE_S
        self.rfile = _CappedReader(self.rfile, MAX_REQUEST_BYTES, deadline)  # type: ignore[assignment]

    def handle_one_request(self) -> None:
        self.request_version = self.default_request_version
        self.requestline = ""
        self.command = ""
        try:
            super().handle_one_request()
        except _RequestRefused as refused:
            self.close_connection = True
            self.request_version = "HTTP/1.0"  # refused before the version was read: answer 1.0
            self.send_error(refused.status, str(refused))

    def parse_request(self) -> bool:
        if not super().parse_request():
            return False
        self.close_connection = True
        if self.command != "GET":
            body = b"only GET is served\n"
            self.send_response(405)
            self.send_header("Allow", "GET")
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return False
        return True

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        schedule = self.server.schedule
        state, now = schedule.state(), schedule.now()
        if path == "/metrics":
            text = live_metrics(state, now)
            if state.outcome is not None:
                text += state.outcome.metrics
            self._send(200, text.encode("utf-8"), CONTENT_TYPE)
        elif path == "/readyz":
            ready, reason = ready_now(state, now)
            self._send(200 if ready else 503, f"{reason}\n".encode(), "text/plain; charset=utf-8")
        elif path == "/healthz":
            self._send(200, b"ok\n", "text/plain; charset=utf-8")
        elif path == "/":
            self._send(200, INDEX, "text/plain; charset=utf-8")
        else:
            self._send(404, b"not found: try /metrics, /readyz or /healthz\n", "text/plain")

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """No access log: scrapes come every few seconds from every Prometheus."""


class ExporterServer(ThreadingHTTPServer):
    """ThreadingHTTPServer serving one schedule, with a cap on connections served at once."""

    daemon_threads = True
    request_queue_size = 64

    def __init__(
        self,
        address: tuple[str, int],
        schedule: Schedule,
        *,
        max_connections: int = MAX_CONNECTIONS,
    ) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.schedule = schedule
        self._slots = threading.BoundedSemaphore(max_connections)
        super().__init__(address, Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            self.shutdown_request(request)  # too many at once: close rather than queue
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()


class Running:
    """A started exporter: the schedule ticking and the server answering on `address`."""

    def __init__(self, server: ExporterServer, schedule: Schedule) -> None:
        self.server = server
        self.schedule = schedule
        self._thread: threading.Thread | None = None

    @property
    def address(self) -> tuple[str, int]:
        host, port = self.server.server_address[:2]
        return str(host), int(port)

    def start(self) -> Running:
        self.schedule.start()
        self._thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.2}, name="gpudoctor-http"
        )
        self._thread.daemon = True
        self._thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.schedule.stop()
        if self._thread is not None:
            self._thread.join(timeout=5)


def serve(schedule: Schedule, address: tuple[str, int]) -> Running:
    """Bind `address` (port 0: any free port) and start the schedule and the server."""
    return Running(ExporterServer(address, schedule), schedule).start()
