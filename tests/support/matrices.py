"""The test matrices under tests/data/matrix/: a small valid one and the invalid cases."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data" / "matrix"
SMALL = DATA / "small.toml"
INVALID = DATA / "invalid"
