"""Probe test fixtures: the recorded sysfs/procfs trees under tests/data/sysfs/<scenario>/."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

SYSFS_DATA = Path(__file__).resolve().parent.parent / "data" / "sysfs"


@pytest.fixture
def scenario() -> Callable[[str], Path]:
    def get(name: str) -> Path:
        path = SYSFS_DATA / name
        assert path.is_dir(), f"no recorded tree {path}"
        return path

    return get
