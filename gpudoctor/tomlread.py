"""TOML parsing on every supported Python: the standard library's `tomllib` from 3.11, else
`tomli`, the same parser published separately for older Pythons (a dependency there only).

Import this module lazily where start-up matters: a cached matrix load needs no parser.
"""

from __future__ import annotations

import sys
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib as _toml
else:  # Python 3.9 and 3.10: RHEL 9 and Ubuntu 22.04 ship them
    import tomli as _toml

TOMLDecodeError = _toml.TOMLDecodeError


def loads(text: str) -> dict[str, Any]:
    """Parse TOML text; raises `TOMLDecodeError` with the line and column in its message."""
    return _toml.loads(text)
