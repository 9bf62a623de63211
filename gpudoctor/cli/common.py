"""State shared by every command (global options) and small helpers for commands."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from gpudoctor.errors import UsageError

if TYPE_CHECKING:
    from gpudoctor.matrix.model import Matrix


# probes/deep.py's DEFAULT_TIMEOUT_S (a test pins the two equal), kept here so that building the
# command line (and so `--help`) imports no probe.
DEEP_TIMEOUT_S = 60.0

# The `--deep` options of `check` and `snapshot`.
DeepOpt = Annotated[
    bool,
    typer.Option(
        "--deep",
        help="Also import each framework in a subprocess, check CUDA and run one small "
        "kernel (creates a CUDA context; takes seconds).",
    ),
]
DeepTimeoutOpt = Annotated[
    float,
    typer.Option(
        "--deep-timeout", metavar="S", min=1.0, help="Time limit per framework for --deep."
    ),
]


@dataclass
class CliState:
    debug: bool = False
    verbose: bool = False
    matrix_path: Path | None = None


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


def write_output(text: str, output: Path | None) -> None:
    """Write to FILE atomically (write then rename), or to stdout."""
    if output is None:
        sys.stdout.write(text)
        return
    try:
        if output.exists() and not output.is_file():
            # A device or FIFO (-o /dev/stdout, /dev/null): write through it; renaming a temp
            # file over it would replace the device node with a regular file.
            with output.open("w", encoding="utf-8") as stream:
                stream.write(text)
            return
        # Write then rename: a reader (node-exporter's textfile collector) never sees half a file.
        tmp = output.with_name(f".{output.name}.tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(output)
    except OSError as exc:
        raise UsageError(f"cannot write {output}: {exc.strerror or exc}") from None


def wrote(output: Path | None, what: str) -> None:
    """The one line every command prints (on stderr) after `-o FILE`: what went where."""
    if output is not None:
        err(f"wrote {what} to {output}")


def err(message: str) -> None:
    sys.stderr.write(message + "\n")
