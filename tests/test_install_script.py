"""The README's install-and-run command (`bash scripts/install.sh`) in a fresh copy of the
repository: it makes its own virtual environment, installs gpudoctor there and runs it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import gpudoctor

ROOT = Path(__file__).resolve().parents[1]


def _copy_tracked(target: Path) -> None:
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    for name in filter(None, tracked):
        source = ROOT / os.fsdecode(name)
        if source.is_file() and not source.is_symlink():
            (target / os.fsdecode(name)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / os.fsdecode(name))


def test_install_script_makes_its_own_venv_and_runs_gpudoctor(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    _copy_tracked(clone)
    # The Python running the tests stands in for the machine's python3; the script must not
    # install into it, only into clone/.venv.
    env = {**os.environ, "PYTHON": sys.executable}
    env.pop("VIRTUAL_ENV", None)
    env.pop("GPUDOCTOR_VENV", None)
    done = subprocess.run(
        ["bash", "scripts/install.sh", "--version"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert gpudoctor.__version__ in done.stdout
    assert (clone / ".venv" / "bin" / "gpudoctor").is_file()
    assert "installing gpudoctor: pip install -e '.'" in done.stderr
    # A second run reuses the venv without reinstalling.
    again = subprocess.run(
        ["bash", "scripts/install.sh", "--version"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert again.returncode == 0
    assert "installing" not in again.stderr
