"""TOML parsing on every supported Python: the standard library's `tomllib` from 3.11, else
`tomli`, the same parser published separately for older Pythons (a dependency there only).

The parser is imported on the first parse, not with this module: a cached matrix load and a
`check` that reads no TOML file never pay for it.
"""

from __future__ import annotations

import sys
from typing import Any


class TOMLDecodeError(ValueError):
    """Text that is not TOML; the parser's message, which ends "(at line L, column C)"."""


def loads(text: str) -> dict[str, Any]:
    """Parse TOML text; raises `TOMLDecodeError` with the line and column in its message."""
    if sys.version_info >= (3, 11):
        import tomllib as toml
    else:  # Python 3.9 and 3.10: RHEL 9 and Ubuntu 22.04 ship them
        import tomli as toml
    try:
        return toml.loads(text)
    except toml.TOMLDecodeError as exc:
        raise TOMLDecodeError(str(exc)) from exc
