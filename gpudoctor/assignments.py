"""Reading `name = 'value'` lines of a generated Python file (torch/version.py,
TensorFlow's build_info.py) without the Python parser: one regular expression per line.

Neutral: the live frameworks probe reads installed files with it, and `matrix update` reads the
version.py inside a wheel a package index serves. Both files can be hostile or huge, so the rule
is linear in the text (nothing in the pattern crosses a line) and never executes or parses
Python; callers cap the text they pass (`MAX_BYTES`).
"""

from __future__ import annotations

import re

MAX_BYTES = 64 << 10  # a real torch/version.py is under 1 KiB
# name, an optional annotation on the same line, '=', the rest of the line.
_ASSIGN = re.compile(r"^(\w+)[ \t]*(?::[^=\n]*)?=([^\n]*)$", re.MULTILINE)


def read_assignments(text: str) -> dict[str, str | None]:
    """Top-level `name = 'value'` / `name: Optional[str] = None` lines: the string, or None for
    `None`; other values are left out."""
    values: dict[str, str | None] = {}
    for name, rest in _ASSIGN.findall(text):
        raw = rest.strip()
        if raw == "None":
            values[name] = None
        elif len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
            values[name] = raw[1:-1]
    return values
