"""The built wheel carries the shipped matrix: build it, install it into a fresh virtual
environment outside the checkout, and run `gpudoctor matrix list` from an empty directory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gpudoctor.matrix.load import load_matrix

ROOT = Path(__file__).resolve().parents[2]


def _run(args: list[str], cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    # A PYTHONPATH naming a checkout would put that checkout's gpudoctor before the installed one
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, f"{' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.mark.slow  # builds the wheel and installs it into a fresh venv
def test_installed_wheel_lists_the_shipped_matrix(tmp_path: Path) -> None:
    pytest.importorskip("hatchling", reason="hatchling builds the wheel (pip install '.[test]')")
    dist = tmp_path / "dist"
    # --no-isolation: the build backend (hatchling) comes from the test extras, no download.
    _run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist)], ROOT)
    (wheel,) = dist.glob("gpudoctor-*.whl")
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], tmp_path)
    _run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)], tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    gpudoctor = str(venv / "bin" / "gpudoctor")

    listed = _run([gpudoctor, "matrix", "list", "--framework", "pytorch"], elsewhere).stdout
    shipped = load_matrix(ROOT / "matrices" / "compat.toml")
    builds = sum(len(release.variants) for release in shipped.pytorch)
    assert listed.startswith(f"PyTorch builds ({builds})\n")
    for release in shipped.pytorch:
        for variant in release.variants:
            assert f"{variant.tag}" in listed
            assert release.version in listed

    validated = _run([gpudoctor, "matrix", "validate"], elsewhere).stdout
    assert validated.startswith("ok: ")
    # the matrix comes from inside the installed package, not from this checkout
    assert str(venv) in validated
    assert "gpudoctor/_data/matrices/compat.toml" in validated
    assert f"{len(shipped.pytorch)} PyTorch releases" in validated

    # The `docs` field of findings and the error hints point into docs/: shipped in the wheel,
    # found through resources.data_root() from the installed package.
    script = (
        "from gpudoctor.resources import data_root; from gpudoctor.checks.catalogue import "
        "CATALOGUE; root = data_root(); doc = (root / 'docs/findings.md').read_text(); "
        "missing = [c for c in CATALOGUE if f'id=\"{c}\"' not in doc]; "
        "print(root, (root / 'docs/matrix-format.md').is_file(), missing)"
    )
    shown = _run([str(venv / "bin" / "python"), "-c", script], elsewhere).stdout.split()
    assert shown[0].startswith(str(venv))
    assert shown[0].endswith("gpudoctor/_data")
    assert shown[1:] == ["True", "[]"]
