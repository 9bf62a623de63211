"""Fixtures for the matrix tests: the small valid matrix under tests/data/matrix/."""

from __future__ import annotations

import pytest

from gpudoctor.matrix.load import load_matrix
from gpudoctor.matrix.model import Matrix
from tests.support.matrices import SMALL


@pytest.fixture(scope="session")
def small() -> Matrix:
    return load_matrix(SMALL)
