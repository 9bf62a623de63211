"""The `gpudoctor` typer app, its global options, and the one place errors become exit codes."""

# No `from __future__ import annotations` here: typer reads these signatures at run time, and
# before Python 3.10 it cannot see the `Annotated` options inside string annotations.

import importlib
import os
import sys
from pathlib import Path
from typing import Annotated, Optional, Union

import typer

from gpudoctor import __version__, children
from gpudoctor.cli.common import CliState
from gpudoctor.cli.errors_out import ClickException, click_error, report, wants_json
from gpudoctor.errors import GpuDoctorError, UsageError
from gpudoctor.exitcodes import EXIT_CODES_HELP

HELP = f"""Make NVIDIA GPU hosts and GPU framework images work the first time.

\b
  gpudoctor check                  what is wrong with this host, and the fix
  gpudoctor check --format json    the same, for machines
  gpudoctor snapshot -o host.json  record this host; `check --from host.json`
                                   judges it anywhere
  gpudoctor matrix resolve --framework pytorch --cuda 12.1
  gpudoctor build --framework pytorch --cuda 12.1
  gpudoctor serve                  the checks on a schedule, for Prometheus

{EXIT_CODES_HELP}
"""

# command name -> the module whose `register(app)` adds it (commands import their work lazily).
_COMMAND_MODULES = {
    "check": "check_cmd",
    "snapshot": "snapshot_cmd",
    "matrix": "matrix_cmd",
    "render": "render_cmd",
    "build": "build_cmd",
    "serve": "serve_cmd",
}
_GLOBAL_WITH_VALUE = ("--matrix",)


def make_app(command: Optional[str] = None) -> typer.Typer:
    """The typer app with every command, or only `command` when the command line names one:
    typer turns each command's signature into click options on every start, so building only
    the one that runs saves start-up time (`--help`, typos and the bare program get them all)."""
    app = typer.Typer(
        name="gpudoctor",
        help=HELP,
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,  # errors are ours to print; --debug shows a traceback
        context_settings={"help_option_names": ["-h", "--help"]},
        rich_markup_mode=None,
    )
    app.callback()(_root)
    names = [command] if command in _COMMAND_MODULES else list(_COMMAND_MODULES)
    for name in names:
        importlib.import_module(f"gpudoctor.cli.{_COMMAND_MODULES[name]}").register(app)
    return app


def command_named(args: list[str]) -> Optional[str]:
    """The command a command line runs: its first word after the global options."""
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in _GLOBAL_WITH_VALUE:
            skip = True
        elif not arg.startswith("-"):
            return arg
    return None


def global_debug_first(args: list[str]) -> list[str]:
    """`--debug` is a global option, but the bug-report line asks for `gpudoctor check --debug`
    (where people add a flag): move it before the command, never past a `--`."""
    end = args.index("--") if "--" in args else len(args)
    if "--debug" not in args[:end]:
        return args
    return ["--debug", *(a for a in args[:end] if a != "--debug"), *args[end:]]


def _version(value: bool) -> None:
    if value:
        typer.echo(f"gpudoctor {__version__}")
        raise typer.Exit()


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
        Optional[Path],
        typer.Option(
            "--matrix",
            metavar="PATH",
            help="Use this compatibility matrix instead of the shipped one.",
        ),
    ] = None,
) -> None:
    ctx.obj = CliState(debug=debug, verbose=verbose, matrix_path=matrix)


def run(argv: Optional[list[str]] = None) -> int:
    """Run the command line and return its exit code (tests call this; `main` exits with it)."""
    args = global_debug_first(list(sys.argv[1:] if argv is None else argv))
    debug = "--debug" in args or bool(os.environ.get("GPUDOCTOR_DEBUG"))
    try:
        return _run(args, debug=debug)
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
    except children.Terminated:
        sys.stderr.write("terminated\n")
        return 143
    except Exception:  # a bug of gpudoctor: one line saying how to report it, never a pass
        return _report_bug(command_named(args), as_json=wants_json(args), debug=debug)
    finally:
        # Every way out (a result, an error, Ctrl-C, SIGTERM): no tool gpudoctor started may
        # outlive it (probe threads may still wait on one).
        children.kill_all()


def _run(args: list[str], *, debug: bool) -> int:
    command = typer.main.get_command(make_app(command_named(args)))
    as_json = wants_json(args)
    try:
        refuse_bad_arguments(args)
        result = command.main(args, prog_name="gpudoctor", standalone_mode=False)
    except typer.Exit as exc:
        return int(exc.exit_code)
    except ClickException as exc:
        message, hint, code = click_error(exc)
        return report(message, hint, exit_code=code, reference="bad-usage", as_json=as_json)
    except typer.Abort:
        sys.stderr.write("aborted\n")
        return 130
    except (GpuDoctorError, RecursionError) as exc:
        return _report_error(exc, as_json=as_json, debug=debug)
    return int(result) if isinstance(result, int) else 0


def _report_bug(command: Optional[str], *, as_json: bool, debug: bool) -> int:
    """gpudoctor itself failed: exit 5; the exception's name and text only under --debug (with
    the traceback), since they mean nothing to a user and the hint asks for them anyway."""
    from gpudoctor.exitcodes import REPORT_BUG, ExitCode

    if debug:
        import traceback

        traceback.print_exc()
    where = f"`gpudoctor {command}`" if command else "gpudoctor"
    return report(
        f"{where} failed: an internal error of gpudoctor (a bug, not a problem of this host)",
        REPORT_BUG,
        exit_code=int(ExitCode.INTERNAL),
        reference="internal-error",
        as_json=as_json,
    )


def _report_error(exc: Union[GpuDoctorError, RecursionError], *, as_json: bool, debug: bool) -> int:
    """One error line and a hint (and the JSON error object with --format json)."""
    if debug:  # the traceback too, but the same exit code: scripts must not see a change
        import traceback

        traceback.print_exc()
    if isinstance(exc, RecursionError):
        # A safety net: every reader turns over-deep input into its own error naming the
        # file; this catches any path that missed it, so no user sees a traceback.
        exc = UsageError(
            "the input is nested too deeply to read",
            hint="pass a file written by gpudoctor, or flatten the input",
        )
    extra: dict[str, object] = {}
    rejections = getattr(exc, "rejections", None)
    if rejections is not None:  # no matching row: the nearest, for machines too
        extra["nearest"] = [{"row": r.candidate, "reasons": [*r.reasons]} for r in rejections]
    if getattr(exc, "step", None):  # a failed build step, and the end of its log
        extra["step"] = getattr(exc, "step", None)
        extra["log_tail"] = [*getattr(exc, "log_tail", ())]
    return report(
        exc.message,
        exc.hint,
        exit_code=int(exc.exit_code),
        reference=exc.reference,
        as_json=as_json,
        extra=extra,
    )


# Longer than any path (PATH_MAX), version or expression a user types; it also keeps every
# number in an argument below Python's 4300-digit int conversion limit.
MAX_ARGUMENT_CHARS = 4096


def refuse_bad_arguments(args: list[str]) -> None:
    """An empty value (`--cuda ''`, `-o ''`, `--from=`) is a mistake, never "the default" or
    "the current folder" (click would accept it silently); an absurdly long one is refused
    before anything parses it."""
    for index, arg in enumerate(args):
        if len(arg) > MAX_ARGUMENT_CHARS:
            raise UsageError(
                f"an argument of {len(arg)} characters is longer than gpudoctor accepts "
                f"({MAX_ARGUMENT_CHARS}): {arg[:40]}...",
                hint="check the command line",
            )
        if arg == "--":
            return
        if arg.startswith("--") and arg.endswith("=") and len(arg) > 3:
            option = arg[:-1]
        elif arg == "" and index > 0 and args[index - 1].startswith("-"):
            option = args[index - 1]
        elif arg == "":
            option = None
        else:
            continue
        what = f"{option} has an empty value" if option else "an argument is empty"
        raise UsageError(what, hint="give it a value, or leave the option out")


def main() -> None:
    from gpudoctor.cli import streams

    children.install_signal_handlers()
    streams.guard_stdout()
    try:
        code = run()
    finally:
        children.kill_all(closing=True)  # and a probe thread may start no tool after this
    try:
        sys.stdout.flush()
    except streams.OutputFailed as exc:
        code = report(
            exc.message,
            exc.hint,
            exit_code=int(exc.exit_code),
            reference=exc.reference,
            as_json=False,
        )
    sys.exit(code)
