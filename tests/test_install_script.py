"""The README's install-and-run command (`bash scripts/install.sh`) in a fresh copy of the
repository: it picks a Python 3.9 or newer (a python3.X beside an older default python3), makes
its own virtual environment, installs gpudoctor there, links `gpudoctor` into ~/.local/bin and
runs it; with no suitable Python it says what to install."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import gpudoctor
from tests.support.pythons import SUPPORTED_MINORS, find_old_python, find_python
from tests.support.repo import copy_tracked

BASH = shutil.which("bash") or "/bin/bash"  # found here: the tests give the script a bare PATH


def _fits(python: str) -> bool:
    done = subprocess.run(
        [python, "-c", "import sys; sys.exit(sys.version_info < (3, 9))"],
        capture_output=True,
        timeout=30,
        check=False,
    )
    return done.returncode == 0


def _install(clone: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [BASH, "scripts/install.sh", *args],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.fixture
def old_python() -> Path:
    old = find_old_python()
    if old is None:
        pytest.skip("no CPython older than 3.9 here to stand in for an old default python3")
    return old


def _bin_with(tmp: Path, links: dict[str, Path]) -> Path:
    folder = tmp / "bin"
    folder.mkdir(exist_ok=True)
    for name, target in links.items():
        (folder / name).symlink_to(target)
    return folder


@pytest.mark.slow  # a venv and a pip install of gpudoctor
def test_install_beside_an_old_python3_links_gpudoctor_into_local_bin(
    tmp_path: Path, old_python: Path
) -> None:
    """The default python3 is too old (3.8 here): the newest python3.X on PATH makes the venv."""
    newer = next(((m, p) for m in (13, 12, 10) if (p := find_python(m)) is not None), None)
    if newer is None:
        pytest.skip("no CPython 3.10 to 3.13 here to stand beside the old python3")
    clone, home = tmp_path / "clone", tmp_path / "home"
    copy_tracked(clone)
    home.mkdir()
    name, newer_python = f"python3.{newer[0]}", newer[1]
    folder = _bin_with(tmp_path, {"python3": old_python, name: newer_python})
    path = os.pathsep.join((str(folder), "/usr/bin", "/bin"))
    expected = next(
        found
        for minor in sorted(SUPPORTED_MINORS, reverse=True)
        if (found := shutil.which(f"python3.{minor}", path=path)) and _fits(found)
    )
    env = {"PATH": path, "HOME": str(home), "LANG": "C.UTF-8"}
    done = _install(clone, env, "--version")
    assert done.returncode == 0, done.stderr[-3000:]
    assert gpudoctor.__version__ in done.stdout
    assert "python3 is Python 3." in done.stderr
    assert f"(gpudoctor needs 3.9 or newer): using {Path(expected).name}" in done.stderr
    assert "installing gpudoctor: pip install -e '.'" in done.stderr
    venv_python = clone / ".venv" / "bin" / "python"
    version = subprocess.run(
        [str(venv_python), "-c", "import os, sys; print(os.path.realpath(sys._base_executable))"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(version.stdout.strip()) == Path(expected).resolve()
    link = home / ".local" / "bin" / "gpudoctor"
    assert link.is_symlink()
    assert Path(os.readlink(link)) == clone / ".venv" / "bin" / "gpudoctor"
    assert f"gpudoctor is on PATH as {link}" in done.stderr
    assert f'export PATH="{home}/.local/bin:$PATH"' in done.stderr
    linked = subprocess.run([str(link), "--version"], capture_output=True, text=True, check=False)
    assert gpudoctor.__version__ in linked.stdout

    # Again, with ~/.local/bin on PATH and a gpudoctor there that is not this clone's: no
    # reinstall, the foreign command left alone, and said so.
    link.unlink()
    link.write_text("#!/bin/sh\necho other\n", encoding="utf-8")
    again = _install(clone, {**env, "PATH": f"{link.parent}{os.pathsep}{path}"}, "--version")
    assert again.returncode == 0, again.stderr[-3000:]
    assert "installing" not in again.stderr
    assert "already exists and is not a link to this clone's gpudoctor" in again.stderr
    assert "not on your PATH" not in again.stderr
    assert link.read_text(encoding="utf-8") == "#!/bin/sh\necho other\n"


def test_no_suitable_python_says_what_to_install(tmp_path: Path, old_python: Path) -> None:
    clone = tmp_path / "clone"
    copy_tracked(clone)
    # Only the old python3 and what the script needs besides bash: no python3.X to fall back on.
    folder = _bin_with(
        tmp_path, {"python3": old_python, "dirname": Path(shutil.which("dirname") or "")}
    )
    done = _install(clone, {"PATH": str(folder), "HOME": str(tmp_path)})
    assert done.returncode == 1
    assert "gpudoctor needs Python 3.9 or newer; python3 here is Python 3." in done.stderr
    assert "sudo apt-get install python3.9 python3.9-venv" in done.stderr
    assert "sudo dnf install python3.11" in done.stderr
    assert "gpudoctor.pyz" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (clone / ".venv").exists()


def test_a_python_named_by_PYTHON_that_is_too_old_is_refused(
    tmp_path: Path, old_python: Path
) -> None:
    clone = tmp_path / "clone"
    copy_tracked(clone)
    env = {**os.environ, "PYTHON": str(old_python), "HOME": str(tmp_path)}
    env.pop("VIRTUAL_ENV", None)
    env.pop("GPUDOCTOR_VENV", None)
    done = _install(clone, env)
    assert done.returncode == 1
    assert f"PYTHON={old_python} is Python 3." in done.stderr
    assert "gpudoctor needs Python 3.9 or newer" in done.stderr
    assert not (clone / ".venv").exists()
