"""Where the shipped matrix, templates and docs live: the one place that knows both layouts.

In a source checkout they sit at the top level of the repository (`matrices/`, `templates/`,
`docs/`); in an installed wheel the build copies them to `gpudoctor/_data/` (pyproject's
force-include). A finding's `docs` field ("docs/findings.md#CODE") and the error hints that name
docs/*.md are relative to the folder holding `docs/`: `data_root()`.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def _first_existing(name: str) -> Path:
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    # Neither exists only in a broken install; say where we looked.
    raise FileNotFoundError(f"gpudoctor data folder {name!r} not found next to {_PACKAGE}")


def matrices_dir() -> Path:
    return _first_existing("matrices")


def default_matrix_path() -> Path:
    return matrices_dir() / "compat.toml"


def templates_dir() -> Path:
    return _first_existing("templates")


def docs_dir() -> Path:
    return _first_existing("docs")


def data_root() -> Path:
    """The folder a `docs/...` reference is relative to (the checkout, or gpudoctor/_data)."""
    return docs_dir().parent
