"""Fixtures for the pasted-report tests: the shipped matrix, and a reader that uses its GPU
architecture table (as `check --from` does)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts
from gpudoctor.matrix.load import load_matrix
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.dispatch import read_report


@pytest.fixture(scope="session")
def matrix() -> Matrix:
    return load_matrix()


@pytest.fixture
def read(matrix: Matrix) -> Callable[[str], HostFacts]:
    return lambda text: read_report(text, "paste.txt", matrix.architectures)
