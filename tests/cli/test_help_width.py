"""Every command's --help fits an 80-column terminal."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

COMMANDS = [
    [], ["check"], ["snapshot"], ["matrix"], ["matrix", "list"], ["matrix", "show"],
    ["matrix", "resolve"], ["matrix", "validate"], ["render"], ["build"],
]  # fmt: skip


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "gpudoctor")
def test_help_fits_80_columns(command: list[str]) -> None:
    env = {**os.environ, "COLUMNS": "80", "TERM": "dumb"}
    done = subprocess.run(
        [sys.executable, "-m", "gpudoctor", *command, "--help"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=60,
    )
    wide = [line for line in done.stdout.splitlines() if len(line) > 80]
    assert not wide, "\n".join(wide)
