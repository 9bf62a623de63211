"""Reading a package index's files through the bounded reader (gpudoctor/netread.py): whole
small files (pages, METADATA), and a seekable file over HTTP range requests so that `zipfile`
reads a wheel's few small members without the rest.

A server that ignores `Range` (answers 200) is read in full once into a temporary file (at
most `WHEEL_CAP`). Every read is bounded: a range reply is at most the size asked for, a file
claims at most `WHEEL_CAP`, and no single read asks for more than `READ_CAP` (a zip directory
that claims gigabytes is refused, not allocated).
"""

from __future__ import annotations

import io
import os
import tempfile
from typing import IO

from gpudoctor.netread import PAGE_CAP, Client, FetchError

IndexUnreachable = FetchError  # the name callers and tests know
WHEEL_CAP = 8 << 30  # the largest wheel believed (torch CUDA wheels are 1 to 3 GiB)
READ_CAP = 32 << 20  # the largest single read of a wheel (a zip directory: torch's is ~2 MiB)
_CHUNK = 1 << 20  # read-ahead per range request


def get(
    client: Client, url: str, accept: str | None = None, cap: int = PAGE_CAP
) -> tuple[bytes, str, str]:
    """(body, content type, final URL) of a GET of at most `cap` bytes; FetchError otherwise."""
    reply = client.get(url, cap=cap, accept=accept)
    return reply.body, reply.content_type, reply.url


class RangeFile(io.RawIOBase):
    """A read-only, seekable view of a remote file through HTTP range requests."""

    def __init__(self, client: Client, url: str) -> None:
        super().__init__()
        self.client = client
        self.url = url
        self._pos = 0
        self._size = -1
        self._buffer = b""
        self._buffer_at = 0
        self._whole: IO[bytes] | None = None
        self._probe()

    def _probe(self) -> None:
        if self.url.lower().startswith("file:"):  # a local wheel: read in place, no copy
            self._whole = self.client.open_file(self.url)
            self._size = os.fstat(self._whole.fileno()).st_size
            if self._size > WHEEL_CAP:
                self._whole.close()
                raise FetchError(self.url, "larger than any wheel")
            return
        whole = tempfile.TemporaryFile()  # noqa: SIM115 (closed here or in close())
        try:
            reply = self.client.get(self.url, cap=WHEEL_CAP, byte_range=(0, 0), spill=whole)
        except BaseException:
            whole.close()
            raise
        total = reply.headers.get("content-range", "").rpartition("/")[2]
        if reply.status == 206:
            whole.close()
            if not total.isdecimal() or int(total) > WHEEL_CAP:
                raise FetchError(self.url, f"a range reply with an unusable size ({total[:20]!r})")
            self._size = int(total)
            return
        self._whole = whole  # no range support: the whole file, once
        self._size = whole.tell()

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

    def read(self, size: int | None = -1) -> bytes:
        # RawIOBase.read allocates `size` bytes before reading: a zip directory claiming
        # gigabytes would be allocated whole. Refuse first.
        left = max(0, self._size - self._pos)
        wanted = left if size is None or size < 0 else min(size, left)
        if wanted > READ_CAP:
            raise FetchError(
                self.url, f"a read of {wanted} bytes at once (more than a wheel needs)"
            )
        return super().read(wanted) or b""

    def readall(self) -> bytes:
        return self.read(-1)

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
        reply = self.client.get(self.url, cap=end - pos + 1, byte_range=(pos, end))
        if reply.status != 206 or not reply.body:
            raise FetchError(self.url, "the server stopped answering range requests")
        self._buffer = reply.body
        self._buffer_at = pos
        return self._buffer[:count]

    def close(self) -> None:
        if self._whole is not None:
            self._whole.close()
        super().close()
