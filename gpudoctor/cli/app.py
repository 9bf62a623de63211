"""The `gpudoctor` typer app, its global options, and the one place errors become exit codes."""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

try:  # newer typer vendors its own copy of click; older ones use click itself
    from typer._click.exceptions import ClickException
except ImportError:  # pragma: no cover - depends on the installed typer
    from click.exceptions import ClickException  # type: ignore[assignment,import-not-found,no-redef,unused-ignore]

from gpudoctor import __version__
from gpudoctor.cli.common import CliState
from gpudoctor.errors import GpuDoctorError
from gpudoctor.exitcodes import EXIT_CODES_HELP, ExitCode

HELP = f"""Make NVIDIA GPU hosts and GPU framework images work the first time.

\b
  gpudoctor check                      what is wrong with this host, and the fix
  gpudoctor check --format json        the same, for machines
  gpudoctor snapshot -o host.json      record this host; `check --from host.json` judges it anywhere
  gpudoctor matrix resolve --framework pytorch --cuda 12.1
  gpudoctor build --framework pytorch --cuda 12.1

{EXIT_CODES_HELP}
"""

app = typer.Typer(
    name="gpudoctor",
    help=HELP,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,  # errors are ours to print; --debug shows a plain traceback
    context_settings={"help_option_names": ["-h", "--help"]},
    rich_markup_mode=None,
)

# Each module defines `register(app)`; listed here so `--help` shows every command without
# importing anything heavy (commands import their work lazily).
_COMMAND_MODULES = ("check_cmd", "snapshot_cmd", "matrix_cmd", "render_cmd", "build_cmd")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"gpudoctor {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
    verbose: Annotated[
        bool, typer.Option("-v", "--verbose", help="Show everything, passing checks too.")
    ] = False,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks for errors.")] = False,
    matrix: Annotated[
        Path | None,
        typer.Option(
            "--matrix",
            metavar="PATH",
            help="Use this compatibility matrix instead of the shipped one.",
        ),
    ] = None,
) -> None:
    ctx.obj = CliState(debug=debug, verbose=verbose, matrix_path=matrix)


for _name in _COMMAND_MODULES:
    importlib.import_module(f"gpudoctor.cli.{_name}").register(app)


def run(argv: list[str] | None = None) -> int:
    """Run the command line and return its exit code (tests call this; `main` exits with it)."""
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args or bool(os.environ.get("GPUDOCTOR_DEBUG"))
    command = typer.main.get_command(app)
    try:
        result = command.main(args, prog_name="gpudoctor", standalone_mode=False)
    except typer.Exit as exc:
        return int(exc.exit_code)
    except ClickException as exc:
        exc.show()
        return ExitCode.USAGE if exc.exit_code == 2 else int(exc.exit_code)
    except typer.Abort:
        sys.stderr.write("aborted\n")
        return 130
    except GpuDoctorError as exc:
        if debug:
            raise
        sys.stderr.write(f"error: {exc.message}\n")
        if exc.hint:
            sys.stderr.write(f"hint: {exc.hint}\n")
        return int(exc.exit_code)
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
    return int(result) if isinstance(result, int) else 0


def main() -> None:
    sys.exit(run())
