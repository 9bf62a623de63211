"""How a failed command is shown: one `error:` line and a `hint:` line on stderr, the same for
gpudoctor's own errors and for the command-line parser's (a mistyped option or command gets a
did-you-mean, not a usage block); with `--format json` also a JSON error object on stdout. The
exit code never depends on the format."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from typing import Any, Optional

from gpudoctor.exitcodes import ExitCode

# Newer typer vendors its own copy of click (typer._click); older ones use click itself.
try:
    click_exceptions: Any = importlib.import_module("typer._click.exceptions")
except ImportError:  # pragma: no cover - depends on the installed typer
    click_exceptions = importlib.import_module("click.exceptions")

ClickException: type[Exception] = click_exceptions.ClickException


def wants_json(args: Sequence[str]) -> bool:
    """`--format json` (or `--format=json`) anywhere on the command line."""
    return any(
        a == "--format=json" or (a == "--format" and args[i + 1 : i + 2] == ["json"])
        for i, a in enumerate(args)
    )


def report(
    message: str,
    hint: Optional[str],
    *,
    exit_code: int,
    reference: str,
    as_json: bool,
    extra: Optional[dict[str, object]] = None,
) -> int:
    from gpudoctor.redaction import secrets_removed
    from gpudoctor.safe_text import printable_lines

    # Every error line passes here: a URL the user or a config gave (an --index-url, a
    # DOCKER_HOST) is shown without its credentials, and a quoted input without the secrets it
    # states, whichever code worded the message; a file name that holds terminal escapes
    # (a hostile download, `--from *`) is shown, never acted on by the terminal.
    message = printable_lines(secrets_removed(message))
    hint = printable_lines(secrets_removed(hint)) if hint else hint
    sys.stderr.write(f"error: {message}\n")
    if hint:
        sys.stderr.write(f"hint: {hint}\n")
    if as_json:
        import json

        error: dict[str, object] = {
            "message": message,
            "hint": hint or "",
            "reference": reference,
            "exit_code": exit_code,
            **(extra or {}),
        }
        sys.stdout.write(json.dumps({"error": error}, indent=2) + "\n")
    return exit_code


def click_error(exc: Exception) -> tuple[str, str, int]:
    """(message, hint, exit code) for an error of the command-line parser."""
    from gpudoctor.matrix.inputs import did_you_mean

    ctx = getattr(exc, "ctx", None)
    path = ctx.command_path if ctx is not None else "gpudoctor"
    help_hint = f"`{path} --help` lists what it takes"
    code = int(getattr(exc, "exit_code", 2))
    code = ExitCode.USAGE if code == 2 else code
    if isinstance(exc, click_exceptions.NoSuchOption):
        name = exc.option_name
        options = _option_names(ctx)
        guess = _format_flag(name, ctx) or (exc.possibilities or [None])[0]
        guess = guess or did_you_mean(name, options)
        hint = f"did you mean {guess}? {help_hint}" if guess else help_hint
        return f"{path}: no such option {name}", hint, code
    text = exc.format_message() if hasattr(exc, "format_message") else str(exc)
    if text.startswith("No such command") and ctx is not None:
        wanted = text.split("'")[1] if "'" in text else ""
        commands = ctx.command.list_commands(ctx) if hasattr(ctx.command, "list_commands") else []
        guess = did_you_mean(wanted, commands)
        hint = f"did you mean {guess}? " if guess else ""
        return (
            f"{path}: no such command {wanted!r}",
            f"{hint}`{path} --help` lists the commands",
            code,
        )
    first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    return f"{path}: {first[0].lower()}{first[1:].rstrip('.')}", help_hint, code


def _format_flag(name: str, ctx: Any) -> str | None:
    """`--json` -> `--format json`, where the command's --format takes that value (its help
    names every value it takes: "text, json, junit, ...")."""
    import re

    word = name.lstrip("-").lower()
    params = ctx.command.params if ctx is not None else []
    helps = [p.help or "" for p in params if "--format" in getattr(p, "opts", ())]
    if word and any(re.search(rf"\b{re.escape(word)}\b", h) for h in helps):
        return f"--format {word}"
    return None


def _option_names(ctx: Any) -> list[str]:
    if ctx is None:
        return []
    return [o for p in ctx.command.params for o in (*p.opts, *p.secondary_opts)]
