"""The one bounded reader for everything gpudoctor fetches (the package index, its wheels).

An index is someone else's server, so nothing it sends is trusted:

- every request has one overall deadline (default 60 s) that covers connecting, the headers and
  the whole body: each socket read waits only for what is left of it, so a reply that arrives one
  byte a second ends at the deadline, not never;
- every body has a size cap given by the caller (an index page 16 MiB, a METADATA 4 MiB, a
  range reply the size it asked for); a Content-Length over the cap is refused before reading,
  and a body that goes past it (a lying or missing Content-Length, an endless page) is cut off;
- every protocol error (a reply that is not HTTP, a header line without end, a broken chunk,
  a connection cut short, TLS) is one `FetchError`, exit 3, with one line;
- credentials in an index URL (`https://user:password@host/simple`) are taken out of the URL and
  sent as HTTP Basic auth, as pip does, only to that scheme, host and port; a redirect to
  another host or port gets no Authorization header, and no URL is ever shown with them;
- redirects are followed (at most 5) only to http and https; a `file:` URL is read only when
  the client was made for a `file:` index, and only when it names a regular file (never a FIFO
  or a device, which would block or never end).

HTTP goes through `http.client` directly (not urllib) to hold the socket that the deadline needs;
proxies are honoured from the environment (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`).
"""

from __future__ import annotations

import base64
import contextlib
import errno
import http.client
import os
import socket
import stat
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import IO

from gpudoctor.errors import EnvironmentUnavailable
from gpudoctor.redaction import split_credentials, url_without_credentials

DEFAULT_DEADLINE_S = 60.0
PAGE_CAP = 16 << 20  # an index page (PyPI's torch page is about 1 MiB as JSON)
METADATA_CAP = 4 << 20  # a METADATA file (torch's is about 40 KiB)
SMALL_FILE_CAP = 64 << 10  # a generated source file such as torch/version.py
MAX_REDIRECTS = 5
_CHUNK = 1 << 16
_USER_AGENT = "gpudoctor"
_HINT = (
    "check the index URL (--index-url, or pip's index-url setting), the network and any proxy "
    "(HTTPS_PROXY); `pip download --no-deps torch` should work from here"
)


class FetchError(EnvironmentUnavailable):
    """A URL could not be fetched, or its server answered with something that is not a usable
    HTTP reply. `status` is the HTTP status when the server answered with an error one."""

    default_reference = "index-unreachable"

    def __init__(self, url: str, why: str, *, status: int | None = None) -> None:
        super().__init__(f"cannot fetch {url_without_credentials(url)}: {why}", hint=_HINT)
        self.url = url_without_credentials(url)
        self.status = status


@dataclass(frozen=True)
class Reply:
    status: int
    body: bytes
    content_type: str
    url: str  # the final URL, after redirects, without credentials
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass
class Client:
    """Fetches with one deadline per request and the credentials of the index it was made for.

    `for_index(url)` makes the client an index's links are read with: it remembers the index's
    credentials (for its own scheme, host and port only) and whether `file:` links may be read.
    """

    deadline_s: float = DEFAULT_DEADLINE_S
    allow_files: bool = False
    _auth: dict[tuple[str, str], str] = field(default_factory=dict)  # origin -> header value

    @classmethod
    def for_index(cls, index_url: str, deadline_s: float = DEFAULT_DEADLINE_S) -> Client:
        client = cls(deadline_s=deadline_s)
        client.allow_files = index_url.lower().startswith("file:")
        client.add_credentials(index_url)
        return client

    def add_credentials(self, url: str) -> str:
        """Remember the credentials `url` holds for its origin; the URL without them."""
        clean, user, password = split_credentials(url)
        if user is not None:
            token = f"{user}:{password or ''}".encode()
            self._auth[_origin(clean)] = "Basic " + base64.b64encode(token).decode("ascii")
        return clean

    # -- the reads -------------------------------------------------------------------------

    def get(
        self,
        url: str,
        *,
        cap: int,
        accept: str | None = None,
        byte_range: tuple[int, int] | None = None,
        spill: IO[bytes] | None = None,
    ) -> Reply:
        """GET `url` (at most `cap` bytes) into memory, or into `spill` (a temporary file).

        With `byte_range` (first, last) a 206 reply must be that range and at most its size;
        a server that ignores ranges answers 200 with the whole file, which goes to `spill`
        when given. The deadline of a whole file in `spill` grows with the size the server
        declares (1 MiB/s), so a large wheel from a mirror without range requests still
        arrives while a reply that drips still ends."""
        url = self.add_credentials(url)
        if url.lower().startswith("file:"):
            return self._file(url, cap)
        start = time.monotonic()
        headers = {"Accept": accept} if accept else {}
        if byte_range is not None:
            headers["Range"] = f"bytes={byte_range[0]}-{byte_range[1]}"
        with self._exchange(url, headers, start + self.deadline_s) as (response, final, sock):
            content_type = response.getheader("Content-Type", "") or ""
            found = {k.lower(): v for k, v in response.getheaders()}
            if response.status == 206 and byte_range is not None:
                first, last = byte_range
                if not found.get("content-range", "").startswith(f"bytes {first}-"):
                    raise FetchError(final, "the range reply is not the range asked for")
                body = b"".join(_chunks(response, sock, last - first + 1, final))
                return Reply(206, body, content_type, final, found)
            if spill is None:
                body = b"".join(_chunks(response, sock, cap, final))
                return Reply(response.status, body, content_type, final, found)
            declared = _content_length(response, final)
            if declared is not None:
                sock.extend(start + self.deadline_s + min(declared, cap) / float(1 << 20))
            for chunk in _chunks(response, sock, cap, final):
                spill.write(chunk)
            return Reply(response.status, b"", content_type, final, found)

    # -- HTTP ------------------------------------------------------------------------------

    @contextmanager
    def _exchange(
        self, url: str, headers: dict[str, str], deadline: float
    ) -> Iterator[tuple[http.client.HTTPResponse, str, _Socket]]:
        """The response to a GET of `url` after redirects, with 2xx status; FetchError else."""
        current = url
        for _hop in range(MAX_REDIRECTS + 1):
            parts = urllib.parse.urlsplit(current)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise FetchError(url, f"a {parts.scheme or 'relative'} URL is not fetched")
            route = _Route.to(parts)
            conn = route.connection(_remaining(deadline, url))
            sock = _Socket(deadline)
            try:
                sent = {"User-Agent": _USER_AGENT, "Accept-Encoding": "identity", **headers}
                sent.update(route.headers)
                auth = self._auth.get(_origin(current))
                if auth:
                    sent["Authorization"] = auth
                conn.connect()
                sock.hold(conn.sock)
                conn.request("GET", current if route.absolute else _path_of(parts), headers=sent)
                sock.set()
                response = conn.getresponse()
                if response.status in (301, 302, 303, 307, 308):
                    location = response.getheader("Location")
                    if not location:
                        raise FetchError(current, f"HTTP {response.status} without a Location")
                    current = self.add_credentials(urllib.parse.urljoin(current, location))
                    continue
                if not 200 <= response.status < 300:
                    reason = " ".join(str(response.reason).split())[:80]
                    raise FetchError(
                        current, f"HTTP {response.status} {reason}".strip(), status=response.status
                    )
                yield response, url_without_credentials(current), sock
                return
            except (OSError, http.client.HTTPException, ValueError, UnicodeError) as exc:
                raise FetchError(current, _why(exc, deadline)) from None
            finally:
                sock.release()
                conn.close()
        raise FetchError(url, f"more than {MAX_REDIRECTS} redirects")

    # -- file: -----------------------------------------------------------------------------

    def open_file(self, url: str) -> IO[bytes]:
        """A `file:` URL opened for reading: only from a `file:` index, only a regular file
        (a directory means its index.html, as pip reads a local simple index)."""
        if not self.allow_files:
            raise FetchError(url, "a file: link is only followed from a file: index")
        parts = urllib.parse.urlsplit(url)
        if parts.netloc not in ("", "localhost"):
            raise FetchError(url, "a file: URL on another host is not read")
        path = urllib.request.url2pathname(parts.path)
        if os.path.isdir(path):
            path = os.path.join(path, "index.html")
        try:
            # Non-blocking: opening a FIFO for reading would wait for a writer forever.
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as exc:
            raise FetchError(url, exc.strerror or str(exc)) from None
        stream = os.fdopen(fd, "rb")
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            stream.close()
            raise FetchError(url, "not a regular file")
        return stream

    def _file(self, url: str, cap: int) -> Reply:
        with self.open_file(url) as stream:
            data = stream.read(cap + 1)
        if len(data) > cap:
            raise FetchError(url, f"larger than the {_size(cap)} it may be")
        return Reply(200, data, "text/html", url)  # a local simple index is HTML (PEP 503)


class _Socket:
    """The connection's socket under the request's deadline: each read waits only for what is
    left of it, and a watchdog shuts the socket down at the deadline, so that a status line or
    header that arrives one byte at a time (read by http.client in one call) ends too."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self._sock: socket.socket | None = None
        self._timer: threading.Timer | None = None

    def hold(self, sock: socket.socket | None) -> None:
        self._sock = sock
        self._arm()

    def extend(self, deadline: float) -> None:
        self.release()
        self.deadline = deadline
        self._arm()

    def _arm(self) -> None:
        if self._sock is None:
            return
        self._timer = threading.Timer(max(0.0, self.deadline - time.monotonic()), self._cut)
        self._timer.daemon = True
        self._timer.start()

    def _cut(self) -> None:
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.shutdown(socket.SHUT_RDWR)

    def set(self) -> None:
        if self._sock is None:
            return
        try:
            self._sock.settimeout(max(0.001, self.deadline - time.monotonic()))
        except OSError as exc:
            # http.client closes the socket of a will-close reply once its headers are read;
            # from Python 3.13 on, settimeout on it then fails with EBADF. A closed descriptor
            # cannot block (a read on it fails at once), so there is no wait left to bound.
            if exc.errno != errno.EBADF:
                raise
            self._sock = None

    def release(self) -> None:
        if self._timer is not None:
            self._timer.cancel()


@dataclass(frozen=True)
class _Route:
    """How a request reaches its server: directly, or through the environment's proxy."""

    host: str
    port: int | None
    https: bool
    tunnel: tuple[str, int | None] | None = None  # https through a proxy (CONNECT)
    absolute: bool = False  # http through a proxy: the request line holds the whole URL
    headers: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def to(cls, parts: urllib.parse.SplitResult) -> _Route:
        host, port = parts.hostname or "", parts.port  # a port that is no number: ValueError
        https = parts.scheme == "https"
        proxy = _proxy_for(parts.scheme, host)
        if proxy is None:
            return cls(host, port, https)
        proxy_parts = urllib.parse.urlsplit(proxy)
        _clean, user, password = split_credentials(proxy)
        headers = {}
        if user is not None:
            token = base64.b64encode(f"{user}:{password or ''}".encode()).decode("ascii")
            headers["Proxy-Authorization"] = "Basic " + token
        if https:
            return cls(
                proxy_parts.hostname or "", proxy_parts.port, True, (host, port), False, headers
            )
        return cls(proxy_parts.hostname or "", proxy_parts.port, False, None, True, headers)

    def connection(self, timeout: float) -> http.client.HTTPConnection:
        if not self.https:
            return http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        conn = http.client.HTTPSConnection(self.host, self.port, timeout=timeout)
        if self.tunnel is not None:
            conn.set_tunnel(self.tunnel[0], self.tunnel[1], headers=dict(self.headers))
        return conn


def _proxy_for(scheme: str, host: str) -> str | None:
    proxy = urllib.request.getproxies().get(scheme)
    if not proxy or urllib.request.proxy_bypass(host):
        return None
    return proxy if "://" in proxy else f"http://{proxy}"


def _path_of(parts: urllib.parse.SplitResult) -> str:
    return urllib.parse.urlunsplit(("", "", parts.path or "/", parts.query, ""))


def _origin(url: str) -> tuple[str, str]:
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    port = port or {"http": 80, "https": 443}.get(scheme)
    return scheme, f"{(parts.hostname or '').lower()}:{port}"


def _remaining(deadline: float, url: str) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise FetchError(url, "no complete reply within the deadline")
    return left


def _content_length(response: http.client.HTTPResponse, url: str) -> int | None:
    value = response.getheader("Content-Length")
    if value is None:
        return None
    if not value.strip().isdecimal():
        raise FetchError(url, f"a Content-Length that is not a number: {value[:40]!r}")
    return int(value)


def _chunks(
    response: http.client.HTTPResponse, sock: _Socket, cap: int, url: str
) -> Iterator[bytes]:
    declared = _content_length(response, url)
    if declared is not None and declared > cap:
        raise FetchError(
            url, f"the reply says {_size(declared)}, more than the {_size(cap)} it may be"
        )
    total = 0
    while True:
        _remaining(sock.deadline, url)
        sock.set()
        try:
            chunk = response.read1(min(_CHUNK, cap + 1 - total))
        except (OSError, http.client.HTTPException, ValueError) as exc:
            raise FetchError(url, _why(exc, sock.deadline)) from None
        if not chunk:
            if time.monotonic() >= sock.deadline:  # the watchdog cut the connection
                raise FetchError(url, "no complete reply within the deadline")
            if declared is not None and total < declared:
                raise FetchError(
                    url, f"the reply ended early ({total} bytes of the {declared} it promised)"
                )
            return
        total += len(chunk)
        if total > cap:
            raise FetchError(url, f"the reply is larger than the {_size(cap)} it may be")
        yield chunk


def _why(exc: BaseException, deadline: float) -> str:
    if time.monotonic() >= deadline or isinstance(exc, TimeoutError) or "timed out" in str(exc):
        return "no complete reply within the deadline"
    if isinstance(exc, http.client.IncompleteRead):
        return f"the reply ended early ({len(exc.partial)} bytes of the promised length)"
    if isinstance(exc, http.client.HTTPException):
        detail = " ".join(str(exc).split())[:120]
        return f"not a valid HTTP reply ({type(exc).__name__}{': ' + detail if detail else ''})"
    text = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    return " ".join(str(url_without_credentials(text)).split())[:200]


def _size(n: int) -> str:
    if n >= 1 << 20:
        return f"{n / (1 << 20):.0f} MiB"
    if n >= 1 << 10:
        return f"{n / (1 << 10):.0f} KiB"
    return f"{n} bytes"
