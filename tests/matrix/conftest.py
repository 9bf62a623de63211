"""Fixtures for the matrix tests: the small valid matrix under tests/data/matrix/."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.matrix.load import load_matrix
from gpudoctor.matrix.model import Matrix

DATA = Path(__file__).resolve().parent.parent / "data" / "matrix"
SMALL = DATA / "small.toml"
INVALID = DATA / "invalid"


@pytest.fixture(scope="session")
def small() -> Matrix:
    return load_matrix(SMALL)
