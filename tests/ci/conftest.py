"""CI test fixtures: gates for a `check` command not registered and for a host with a GPU."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def _command_exists(name: str) -> bool:
    done = subprocess.run(
        [sys.executable, "-m", "gpudoctor", name, "--help"],
        capture_output=True,
        timeout=60,
        check=False,
    )
    return done.returncode == 0


@pytest.fixture(scope="session")
def check_command() -> None:
    """Skip where `gpudoctor check` is not registered yet (it lands in a parallel change)."""
    if not _command_exists("check"):
        pytest.skip("`gpudoctor check` is not registered yet")


@pytest.fixture(scope="session")
def no_gpu_here() -> None:
    """Skip on a host with an NVIDIA GPU: the test judges this host as a CPU-only runner."""
    vendors = Path("/sys/bus/pci/devices").glob("*/vendor")
    if Path("/proc/driver/nvidia").exists() or any(
        v.read_text(encoding="ascii").strip() == "0x10de" for v in vendors
    ):
        pytest.skip("this host has an NVIDIA GPU; the test needs a CPU-only one")
