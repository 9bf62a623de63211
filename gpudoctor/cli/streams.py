"""Standard output as gpudoctor writes it: every write checked, whoever writes (typer.echo,
`write_output`, a reporter).

- A reader that goes away (`gpudoctor check | head`, EPIPE) ends the output quietly: the rest
  is dropped and the run ends with its own exit code, as a Unix filter does.
- A stdout that cannot be written (closed with `>&-`, a full disk, an I/O error) is one line on
  stderr and exit 2 (`OutputFailed`), never a traceback and never a report silently lost.
- A closed descriptor 0, 1 or 2 is held on /dev/null first, so that no file gpudoctor opens
  later takes its number and receives what was meant for the terminal.
"""

from __future__ import annotations

import errno
import io
import os
import sys

from gpudoctor.errors import UsageError


class OutputFailed(UsageError):
    """Standard output cannot be written (exit 2)."""

    default_reference = "output-failed"


class _Guard(io.RawIOBase):
    """File descriptor 1 with every failure turned into EPIPE-silence or OutputFailed."""

    def __init__(self, fd: int, closed: bool) -> None:
        super().__init__()
        self._fd = fd
        self._closed_at_start = closed
        self.reader_gone = False
        self.failed = False

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return not self._closed_at_start and os.isatty(self._fd)

    def write(self, data: bytes | bytearray | memoryview) -> int:  # type: ignore[override]
        size = len(data)
        if self.reader_gone or self.failed:
            return size  # already said (or nobody listens): drop the rest
        if self._closed_at_start:
            self.failed = True
            raise OutputFailed(
                "cannot write the output: standard output is closed",
                hint="run it with stdout open, or write to a file with -o FILE",
            )
        try:
            return os.write(self._fd, bytes(data))
        except BrokenPipeError:
            self.reader_gone = True  # `| head` read what it wanted
            return size
        except OSError as exc:
            self.failed = True
            raise OutputFailed(
                f"cannot write the output: {exc.strerror or exc}",
                hint="free space or fix the output device, or write to a file with -o FILE",
            ) from None


def _hold(fd: int) -> bool:
    """Whether `fd` was closed; if so it is now /dev/null (and stays reserved)."""
    try:
        os.fstat(fd)
    except OSError:
        held = os.open(os.devnull, os.O_RDWR)
        if held != fd:  # a lower descriptor was also closed: keep this one reserved too
            os.dup2(held, fd)
        return True
    return False


def guard_stdout() -> _Guard:
    """Replace sys.stdout with a checked writer over descriptor 1 (same encoding)."""
    closed = {fd: _hold(fd) for fd in (0, 1, 2)}
    old = sys.stdout
    encoding = getattr(old, "encoding", None) or "utf-8"
    # "replace", not the locale's surrogateescape: a lone surrogate (an undecodable host name
    # that reached a message) is written as "?", never as the raw bytes it stood for.
    errors = "replace"
    line_buffering = bool(getattr(old, "line_buffering", False))
    guard = _Guard(1, closed[1])
    sys.stdout = io.TextIOWrapper(
        io.BufferedWriter(guard),
        encoding=encoding,
        errors=errors,
        line_buffering=line_buffering,
        write_through=False,
    )
    if closed[2] and sys.stderr is None:
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 (lives as long as the process)
    return guard


def is_broken_pipe(exc: BaseException) -> bool:
    return isinstance(exc, OSError) and exc.errno == errno.EPIPE
