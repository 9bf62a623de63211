"""Fixtures of the check tests: the shipped matrix, and the frozen one the goldens use."""

from __future__ import annotations

import pytest

from gpudoctor.matrix.load import load_matrix
from gpudoctor.matrix.model import Matrix
from tests.support.hosts import GOLDEN_MATRIX


@pytest.fixture(scope="session")
def matrix() -> Matrix:
    return load_matrix()


@pytest.fixture(scope="session")
def golden_matrix() -> Matrix:
    """The frozen matrix the golden reports are judged against (not the shipped one)."""
    return load_matrix(GOLDEN_MATRIX)
