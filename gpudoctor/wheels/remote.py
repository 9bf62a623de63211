"""HTTP for the package index: one GET helper with a timeout and clear errors, and a seekable
file over range requests so that `zipfile` reads a wheel's few small members without the rest.

A server that ignores `Range` (answers 200) is read in full once into a temporary file.
"""

from __future__ import annotations

import io
import shutil
import tempfile
import urllib.error
import urllib.request
from typing import IO

from gpudoctor.errors import EnvironmentUnavailable

TIMEOUT_S = 60.0
_USER_AGENT = "gpudoctor-matrix-update"
_CHUNK = 1 << 20  # read-ahead per range request


class IndexUnreachable(EnvironmentUnavailable):
    """The package index (or a file it links to) could not be fetched."""

    default_reference = "index-unreachable"


def _request(url: str, headers: dict[str, str]) -> urllib.request.Request:
    return urllib.request.Request(url, headers={"User-Agent": _USER_AGENT, **headers})


class NotFound(IndexUnreachable):
    """HTTP 404: on a simple index's project page, PEP 503's answer for an unknown project."""


def _unreachable(url: str, exc: BaseException) -> IndexUnreachable:
    if isinstance(exc, urllib.error.HTTPError):
        why = f"HTTP {exc.code} {exc.reason}"
        if exc.code == 404:
            return NotFound(f"cannot fetch {url}: {why}", hint="the index does not have it")
    elif isinstance(exc, urllib.error.URLError):
        why = str(exc.reason)
    else:
        why = str(exc) or type(exc).__name__
    return IndexUnreachable(
        f"cannot fetch {url}: {why}",
        hint="check the index URL (--index-url, or pip's index-url setting), the network and "
        "any proxy (HTTPS_PROXY); `pip download --no-deps torch` should work from here",
    )


def get(url: str, accept: str | None = None) -> tuple[bytes, str, str]:
    """(body, content type, final URL) of a GET; IndexUnreachable on any failure."""
    headers = {"Accept": accept} if accept else {}
    try:
        with urllib.request.urlopen(_request(url, headers), timeout=TIMEOUT_S) as response:
            body: bytes = response.read()
            return body, response.headers.get("Content-Type", ""), response.geturl()
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise _unreachable(url, exc) from exc


def exists(url: str) -> bool:
    """Whether a GET of `url` answers 2xx (PEP 658 metadata files are optional)."""
    try:
        with urllib.request.urlopen(_request(url, {}), timeout=TIMEOUT_S) as response:
            return 200 <= int(response.status) < 300
    except (urllib.error.URLError, OSError, ValueError):
        return False


class RangeFile(io.RawIOBase):
    """A read-only, seekable view of a remote file through HTTP range requests."""

    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url
        self._pos = 0
        self._size = -1
        self._buffer = b""
        self._buffer_at = 0
        self._whole: IO[bytes] | None = None
        self._probe()

    def _probe(self) -> None:
        try:
            request = _request(self.url, {"Range": "bytes=0-0"})
            with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
                total = response.headers.get("Content-Range", "").rpartition("/")[2]
                if response.status == 206 and total.isdigit():
                    self._size = int(total)
                    return
                # No range support: keep the whole file, once.
                self._whole = tempfile.TemporaryFile()  # noqa: SIM115 (closed in close())
                shutil.copyfileobj(response, self._whole, _CHUNK)
                self._size = self._whole.tell()
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise _unreachable(self.url, exc) from exc

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: self._size}[whence]
        self._pos = max(0, base + offset)
        return self._pos

    def readinto(self, target: memoryview | bytearray) -> int:  # type: ignore[override]
        wanted = min(len(target), max(0, self._size - self._pos))
        if wanted == 0:
            return 0
        data = self._read_at(self._pos, wanted)
        target[: len(data)] = data
        self._pos += len(data)
        return len(data)

    def _read_at(self, pos: int, count: int) -> bytes:
        if self._whole is not None:
            self._whole.seek(pos)
            return self._whole.read(count)
        start = pos - self._buffer_at
        if start >= 0 and pos + count <= self._buffer_at + len(self._buffer):
            return self._buffer[start : start + count]
        end = min(self._size, pos + max(count, _CHUNK)) - 1
        try:
            request = _request(self.url, {"Range": f"bytes={pos}-{end}"})
            with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
                self._buffer = response.read()
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise _unreachable(self.url, exc) from exc
        self._buffer_at = pos
        return self._buffer[:count]

    def close(self) -> None:
        if self._whole is not None:
            self._whole.close()
        super().close()
