"""Serve a wheelhouse to a build on 127.0.0.1, so the wheels never enter the build context.

A multi-GB wheelhouse sent as context costs its full size on every build, even when every
layer is cached (bench/README.md has the figures); served, a cached rebuild reads nothing. pip
in a host-network build (`--no-index --find-links http://127.0.0.1:PORT/`) reads the index page
and downloads what it installs; 127.0.0.1 is a secure origin to pip, and nothing else on the
network can reach the server. Only the files selected for the build are served.
"""

from __future__ import annotations

import html
import shutil
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote, unquote

from gpudoctor.errors import EnvironmentUnavailable

PORT_TRIES = 20  # ports tried after the preferred one (another build may hold it)


@contextmanager
def serve_wheels(files: Sequence[Path], port: int) -> Iterator[int]:
    """Serve `files` (by name) on 127.0.0.1 from `port`, or the next free port; yields the
    port. The server stops when the block ends."""
    by_name = {p.name: p for p in files}
    server = _bind(_handler(by_name), port)
    thread = threading.Thread(target=server.serve_forever, name="gpudoctor-wheels", daemon=True)
    thread.start()
    try:
        yield int(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        return  # a client that hung up (pip retrying) is not our error to print


def _bind(handler: type[BaseHTTPRequestHandler], port: int) -> ThreadingHTTPServer:
    last: OSError | None = None
    for candidate in range(port, port + PORT_TRIES):
        try:
            server = _Server(("127.0.0.1", candidate), handler)
        except OSError as exc:  # taken: a build of the same wheelhouse, or anything else
            last = exc
            continue
        return server

    raise EnvironmentUnavailable(
        f"cannot serve the wheelhouse on 127.0.0.1 (ports {port}-{port + PORT_TRIES - 1}: "
        f"{last.strerror if last else 'in use'})",
        hint="free one of those ports, or build again when the other builds are done",
    )


def _handler(files: dict[str, Path]) -> type[BaseHTTPRequestHandler]:
    page = "".join(
        f'<a href="{quote(name)}">{html.escape(name)}</a><br>\n' for name in sorted(files)
    )
    index = f"<!DOCTYPE html>\n<html><body>\n{page}</body></html>\n".encode()

    class WheelHandler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            name = unquote(self.path.split("?", 1)[0].lstrip("/"))
            if name in ("", "index.html"):
                self._send(200, "text/html; charset=utf-8", len(index))
                self.wfile.write(index)
                return
            path = files.get(name)
            if path is None:
                self._send(404, "text/plain", 0)
                return
            with path.open("rb") as source:
                self._send(200, "application/octet-stream", path.stat().st_size)
                shutil.copyfileobj(source, self.wfile, 1 << 20)

        def _send(self, status: int, kind: str, length: int) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(length))
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            return  # pip's own log says what it fetched

    return WheelHandler
