"""The verify-report protocol: the one line templates/verify_image.py prints, and its reader.

The script runs inside a built image (`gpudoctor build` verifies with it) and on the host
(`check --deep`). It prints its report as one line, `MARKER` followed by a JSON object, so that
banners or library chatter on stdout cannot be mistaken for it; the last such line counts. The
script is standard library only and cannot import this module, so it spells the marker itself;
tests/deep/test_verify_script.py runs it and reads its line with `read`.

`read` never raises: a missing, truncated or garbled line comes back as a `Report` without
data and with the reason, which `build` turns into a verify failure and `--deep` into an
outcome ("no_report" or "crashed").

The line comes from inside an image someone else built, so its JSON may have any shape: every
field is read through the typed accessors below (`text`, `number`, `integer`, `flag`, `texts`,
`text_lists`), which give None (or empty) for a value of the wrong type, never an exception.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

MARKER = "GPUDOCTOR-VERIFY "


@dataclass(frozen=True)
class Report:
    """The report's JSON object (`data`), or None and why (`problem`)."""

    data: dict[str, Any] | None
    problem: str | None = None
    found: bool = False  # a marker line was there (its JSON may still be broken)


def line(report: dict[str, Any]) -> str:
    """The line the script prints for `report` (tests and fakes build it with this)."""
    return MARKER + json.dumps(report, sort_keys=True)


def read(stdout: str) -> Report:
    """The last marker line's JSON object."""
    for text in reversed(stdout.splitlines()):
        if text.startswith(MARKER):
            return _parse(text[len(MARKER) :])
    return Report(None, "no report line")


def _parse(text: str) -> Report:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return Report(
            None,
            f"not valid JSON ({exc.msg} at character {exc.pos} of {len(text)}: truncated or "
            "garbled)",
            found=True,
        )
    except (ValueError, RecursionError):  # a number too long, nesting too deep
        return Report(None, "not valid JSON", found=True)
    if not isinstance(data, dict):
        return Report(None, f"a JSON {type(data).__name__}, not an object", found=True)
    return Report(data, found=True)


# -- typed reading of report fields: a value of the wrong shape is "not reported" -------------

MAX_TEXT = 4096  # characters of one reported string that are kept


def text(value: Any) -> str | None:
    """A reported string (a number is shown as text); None for anything else."""
    if isinstance(value, str):
        return value[:MAX_TEXT]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (
            str(value)[:MAX_TEXT] if not isinstance(value, float) or math.isfinite(value) else None
        )
    return None


def number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        result = float(value)
    except OverflowError:  # an integer of hundreds of digits
        return None
    return result if math.isfinite(result) else None


def integer(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) < 1 << 63:
        return value
    return None


def flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def texts(value: Any) -> tuple[str, ...]:
    """A reported list of strings (its other items left out); () for anything else."""
    if not isinstance(value, list):
        return ()
    return tuple(t for t in (text(v) for v in value) if t is not None)


def text_lists(value: Any) -> dict[str, tuple[str, ...]] | None:
    """A reported {name: [strings]} object; None for anything else."""
    if not isinstance(value, Mapping):
        return None
    return {str(k)[:MAX_TEXT]: texts(v) for k, v in value.items()}
