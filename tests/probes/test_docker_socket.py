"""The probe's own Engine API client: one HTTP/1.0 GET over the Unix socket, bounded in time
and size, against a stand-in daemon on a real socket."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Optional

import pytest

from gpudoctor.probes.runtime import DockerUnavailable, UnixSocketDocker

Answer = Callable[[bytes], Optional[bytes]]


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[Callable[[Answer], str]]:
    """Start a one-thread server on a Unix socket answering each request with answer(request)."""
    servers: list[socket.socket] = []

    def start(answer: Answer) -> str:
        path = str(tmp_path / "docker.sock")
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(path)
        server.listen()
        servers.append(server)

        def serve() -> None:
            while True:
                try:
                    conn, _ = server.accept()
                except OSError:
                    return
                with conn:
                    request = conn.recv(65536)
                    reply = answer(request)
                    if reply is not None:
                        conn.sendall(reply)

        threading.Thread(target=serve, daemon=True).start()
        return path

    yield start
    for server in servers:
        server.close()


def _ok(body: bytes) -> Answer:
    return lambda request: b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n" + body


def test_get_reads_the_json_answer(daemon: Callable[[Answer], str]) -> None:
    seen: list[bytes] = []

    def answer(request: bytes) -> bytes:
        seen.append(request)
        return _ok(b'{"Version": "27.1.1"}')(request)

    client = UnixSocketDocker(daemon(answer))
    assert client.version() == {"Version": "27.1.1"}
    assert seen[0].startswith(b"GET /version HTTP/1.0\r\n")


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (b"HTTP/1.0 404 Not Found\r\n\r\n{}", "answered HTTP 404"),
        (b"garbage", "not an HTTP answer"),
        (b"HTTP/1.0 200 OK\r\n\r\n{not json", "not JSON"),
        (b"HTTP/1.0 200 OK\r\n\r\n[1, 2]", "not an object"),
    ],
)
def test_bad_answers_are_unavailable_not_crashes(
    daemon: Callable[[Answer], str], reply: bytes, message: str
) -> None:
    client = UnixSocketDocker(daemon(lambda request: reply))
    with pytest.raises(DockerUnavailable, match=message):
        client.info()


def test_a_daemon_that_never_answers_is_bounded(daemon: Callable[[Answer], str]) -> None:
    def hang(request: bytes) -> None:
        time.sleep(3)

    client = UnixSocketDocker(daemon(hang), timeout_s=0.3)
    started = time.monotonic()
    with pytest.raises(DockerUnavailable, match="timed out"):
        client.info()
    assert time.monotonic() - started < 2


def test_no_socket_is_unavailable(tmp_path: Path) -> None:
    with pytest.raises(DockerUnavailable):
        UnixSocketDocker(str(tmp_path / "missing.sock")).version()


def test_check_imports_no_http_or_ssl_library() -> None:
    """http.client and ssl cost ~45 ms at start-up; probing the local socket needs neither."""
    code = (
        "import contextlib, io, sys\n"
        "from gpudoctor.cli.app import run\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    run(['check'])\n"
        "print(sorted(m for m in ('http.client', 'ssl', 'requests', 'docker') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout
    assert out.strip() == "[]"
