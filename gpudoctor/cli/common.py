"""State shared by every command (global options) and small helpers for commands."""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional, TextIO

import typer

from gpudoctor.errors import UsageError

if TYPE_CHECKING:
    from gpudoctor.matrix.model import Matrix


# The `--deep` options of `check` and `snapshot`.
DeepOpt = Annotated[
    bool,
    typer.Option(
        "--deep",
        help="Also import each framework in a subprocess, check CUDA and run one small "
        "kernel (creates a CUDA context; takes seconds).",
    ),
]
DEEP_TIMEOUT_MAX_S = 3600.0


def _deep_timeout(value: float) -> float:
    # click's range check lets nan through (every comparison with nan is false), and inf or
    # 1e308 overflow the timeout arithmetic after the child started.
    if not math.isfinite(value) or not 1.0 <= value <= DEEP_TIMEOUT_MAX_S:
        raise typer.BadParameter(
            f"{value} is not a number of seconds from 1 to {DEEP_TIMEOUT_MAX_S:.0f}"
        )
    return value


DeepTimeoutOpt = Annotated[
    float,
    typer.Option(
        "--deep-timeout",
        metavar="S",
        callback=_deep_timeout,
        help=f"Time limit per framework for --deep (1 to {DEEP_TIMEOUT_MAX_S:.0f}).",
    ),
]


@dataclass
class CliState:
    debug: bool = False
    verbose: bool = False
    matrix_path: Optional[Path] = None


def state(ctx: typer.Context) -> CliState:
    obj = ctx.find_root().obj
    return obj if isinstance(obj, CliState) else CliState()


def load_matrix(ctx: typer.Context) -> Matrix:
    """The matrix named by --matrix, or the shipped one."""
    from gpudoctor.matrix.load import load_matrix as _load

    matrix: Matrix = _load(state(ctx).matrix_path)
    return matrix


def check_choice(option: str, value: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise UsageError(
            f"{option} {value!r} is not one of: {', '.join(choices)}",
            hint=f"use {option} {choices[0]}",
        )
    return value


def write_output(text: str, output: Optional[Path], *, private: bool = False) -> None:
    """Write `text` to FILE atomically (gpudoctor/safe_write.py), or to stdout (None or `-`).

    `private` makes the file 0600 (an unredacted snapshot); otherwise a replaced file keeps its
    mode."""
    from gpudoctor.facts_json import valid_text

    text = valid_text(text)  # the last guard: no lone surrogate (raw bytes) reaches a reader
    if output is None or str(output) == "-":
        _write_stdout(text)
        return
    try:
        if _is_device(output):
            # A device or FIFO (-o /dev/stdout, /dev/null): write through it; renaming a temp
            # file over it would replace the device node with a regular file.
            with _open_special(output) as stream:
                stream.write(text)
            return
        from gpudoctor.safe_write import write_atomic

        write_atomic(output, text.encode("utf-8", "replace"), private=private)
    except OSError as exc:
        raise UsageError(
            f"cannot write {output}: {exc.strerror or exc}",
            hint="choose a writable path with -o, or -o - for stdout",
        ) from None


# How long `-o FIFO` waits for a process to open the FIFO for reading.
FIFO_READER_WAIT_S = 10.0


def _open_special(path: Path) -> TextIO:
    """Open a device or FIFO for writing without blocking: a FIFO nobody reads would block
    open() for ever, so wait a bounded time for its reader, then say so."""
    import errno
    import fcntl
    import time

    deadline = time.monotonic() + FIFO_READER_WAIT_S
    while True:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
            break
        except OSError as exc:
            if exc.errno != errno.ENXIO:  # ENXIO: a FIFO without a reader (yet)
                raise
            if time.monotonic() >= deadline:
                raise UsageError(
                    f"cannot write {path}: no process opened this FIFO for reading within "
                    f"{FIFO_READER_WAIT_S:.0f} s",
                    hint="start its reader first (e.g. `cat FIFO &`), or write to a file",
                ) from None
            time.sleep(0.1)
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    return open(fd, "w", encoding="utf-8", errors="replace")  # the caller closes it


def _is_device(path: Path) -> bool:
    if path.is_absolute() and path.parts[1:2] in (("dev",), ("proc",)):
        return path.exists()  # /dev/stdout is a symlink to whatever stdout is: write through it
    return path.exists() and not path.is_symlink() and not path.is_file()


def _write_stdout(text: str) -> None:
    if sys.stdout is None:  # descriptor 1 closed (`>&-`) and no guard installed (tests)
        from gpudoctor.cli.streams import OutputFailed

        raise OutputFailed(
            "cannot write the output: standard output is closed",
            hint="run it with stdout open, or write to a file with -o FILE",
        )
    try:
        sys.stdout.write(text)
    except UnicodeEncodeError:
        # PYTHONIOENCODING=ascii or a C locale: replace what the terminal cannot show.
        encoding = sys.stdout.encoding or "ascii"
        sys.stdout.write(text.encode(encoding, "replace").decode(encoding))
    # Now, not at exit: a full disk or a closed stdout is reported as one error line.
    sys.stdout.flush()


def refuse_output_over_input(output: Optional[Path], inputs: Iterable[Optional[Path]]) -> None:
    """-o naming a file the command reads (a snapshot, the matrix) would destroy that input."""
    if output is None or str(output) == "-":
        return
    for source in inputs:
        if source is not None and _same_file(output, source):
            raise UsageError(
                f"-o {output} is also an input of this command ({source}): writing it would "
                "replace what is being read",
                hint="write the output to another file",
            )


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def wrote(output: Optional[Path], what: str) -> None:
    """The one line every command prints (on stderr) after `-o FILE`: what went where
    (nothing for `-o -`: that is standard output)."""
    if output is not None and str(output) != "-":
        err(f"wrote {what} to {output}")


def err(message: str) -> None:
    sys.stderr.write(message + "\n")
