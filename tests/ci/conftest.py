"""CI test fixtures: the gate for a host with a GPU (the tests judge this host as CPU-only)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def no_gpu_here() -> None:
    """Skip on a host with an NVIDIA GPU: the test judges this host as a CPU-only runner."""
    vendors = Path("/sys/bus/pci/devices").glob("*/vendor")
    if Path("/proc/driver/nvidia").exists() or any(
        v.read_text(encoding="ascii").strip() == "0x10de" for v in vendors
    ):
        pytest.skip("this host has an NVIDIA GPU; the test needs a CPU-only one")
