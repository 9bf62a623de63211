"""The verify-report protocol: the one line templates/verify_image.py prints, and its reader.

The script runs inside a built image (`gpudoctor build` verifies with it) and on the host
(`check --deep`). It prints its report as one line, `MARKER` followed by a JSON object, so that
banners or library chatter on stdout cannot be mistaken for it; the last such line counts. The
script is standard library only and cannot import this module, so it spells the marker itself;
tests/deep/test_verify_script.py runs it and reads its line with `read`.

`read` never raises: a missing, truncated or garbled line comes back as a `Report` without
data and with the reason, which `build` turns into a verify failure and `--deep` into an
outcome ("no_report" or "crashed").
"""

from __future__ import annotations

import json
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
