"""Attackers for the attack tests: a raw TCP server on 127.0.0.1 that answers each request with
whatever a test scripts (not HTTP, a lying Content-Length, an endless or dripping body), and a
bound on the time and memory a call may take."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

# What a scripted server does with one connection: (the socket, the request head) -> None.
Behaviour = Callable[[socket.socket, bytes], None]
SERVER_LIFETIME_S = 30.0  # no scripted connection outlives this, whatever the client does


@dataclass
class Served:
    url: str  # http://127.0.0.1:PORT
    requests: list[bytes] = field(default_factory=list)  # each request head, as received

    def headers_of(self, index: int) -> dict[str, str]:
        lines = self.requests[index].decode("latin-1").split("\r\n")[1:]
        return {k.strip().lower(): v.strip() for k, _, v in (x.partition(":") for x in lines) if k}


@contextmanager
def raw_server(behaviour: Behaviour) -> Iterator[Served]:
    """Accept connections on 127.0.0.1 and hand each to `behaviour` in its own thread."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.settimeout(0.2)
    served = Served(f"http://127.0.0.1:{listener.getsockname()[1]}")
    stop = threading.Event()

    def handle(conn: socket.socket) -> None:
        with conn:
            conn.settimeout(SERVER_LIFETIME_S)
            head = b""
            with contextlib.suppress(OSError):
                while b"\r\n\r\n" not in head and len(head) < 65536:
                    data = conn.recv(4096)
                    if not data:
                        break
                    head += data
                served.requests.append(head.partition(b"\r\n\r\n")[0])
                behaviour(conn, head)

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            threading.Thread(target=handle, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield served
    finally:
        stop.set()
        thread.join(timeout=2)
        listener.close()


def reply(status: str, headers: dict[str, str], body: bytes = b"") -> bytes:
    lines = [f"HTTP/1.1 {status}", *(f"{k}: {v}" for k, v in headers.items()), "", ""]
    return "\r\n".join(lines).encode("latin-1") + body


def drip(conn: socket.socket, data: bytes, every_s: float) -> None:
    """Send `data` one byte at a time, until the client goes away or the lifetime ends."""
    end = time.monotonic() + SERVER_LIFETIME_S
    with contextlib.suppress(OSError):
        for byte in data:
            if time.monotonic() > end:
                return
            conn.sendall(bytes([byte]))
            time.sleep(every_s)


def endless(conn: socket.socket, head: bytes, chunk: bytes = b"<a>x</a>" * 8192) -> None:
    """Send `head`, then `chunk` again and again until the client goes away."""
    end = time.monotonic() + SERVER_LIFETIME_S
    with contextlib.suppress(OSError):
        conn.sendall(head)
        while time.monotonic() < end:
            conn.sendall(chunk)


@dataclass
class Bound:
    seconds: float = 0.0
    peak_mib: float = 0.0


@contextmanager
def bounded(max_seconds: float, max_mib: float) -> Iterator[Bound]:
    """Run the block under tracemalloc; fail when it took longer or allocated more at its peak
    than allowed (the guard under test must stop a hostile input within both)."""
    measured = Bound()
    started = time.monotonic()
    tracemalloc.start()
    try:
        yield measured
    finally:
        _current, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        measured.seconds = time.monotonic() - started
        measured.peak_mib = peak / (1 << 20)
    assert measured.seconds <= max_seconds, f"took {measured.seconds:.1f} s"
    assert measured.peak_mib <= max_mib, f"peaked at {measured.peak_mib:.0f} MiB"
