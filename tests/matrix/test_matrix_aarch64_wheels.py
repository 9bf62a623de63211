"""The matrix's PyPI `[[wheel]]` rows against the METADATA PyPI serves for those wheels (manual:
`pytest -m manual`; needs pip's configured index). pip resolves each aarch64 wheel with
`install --dry-run --report` and reads its METADATA only (PEP 658): no wheel is downloaded."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gpudoctor.matrix.load import load_matrix
from gpudoctor.matrix.model import PlatformWheel

_PLATFORMS = ("manylinux_2_28_{m}", "manylinux_2_27_{m}", "manylinux2014_{m}", "manylinux_2_17_{m}")
_PACKAGE = {"pytorch": "torch", "tensorflow": "tensorflow"}


def _rows() -> list[PlatformWheel]:
    return [w for w in load_matrix().wheels if w.index == "pypi" and w.verified]


def _requires(row: PlatformWheel, python: str, tmp: Path) -> tuple[str, list[str]] | None:
    report = tmp / f"{row.framework}-{row.version}-{python}.json"
    platforms = [arg for p in _PLATFORMS for arg in ("--platform", p.format(m=row.machine))]
    done = subprocess.run(
        [
            sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed",
            "--no-deps", "--quiet", "--only-binary=:all:", "--python-version", python,
            *platforms, "--target", str(tmp / "t"), "--report", str(report),
            f"{_PACKAGE[row.framework]}=={row.version}",
        ],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        return None
    item = json.loads(report.read_text())["install"][0]
    return item["download_info"]["url"], list(item["metadata"].get("requires_dist") or [])


@pytest.mark.manual
@pytest.mark.parametrize("row", _rows(), ids=lambda w: f"{w.framework}-{w.version}")
def test_pypi_aarch64_row_matches_the_wheel_metadata(row: PlatformWheel, tmp_path: Path) -> None:
    got = _requires(row, "3.11", tmp_path) or _requires(row, "3.12", tmp_path)
    if got is None:
        pytest.skip("pip's index did not answer for this wheel")
    url, requires = got
    assert row.machine in url
    if row.framework == "tensorflow":
        assert any("tensorflow-cpu-aws" in r for r in requires), requires
        return
    toolkit = [r for r in requires if r.startswith("cuda-toolkit")]
    nvidia = [r for r in requires if r.startswith("nvidia-")]
    if row.cpu_only:
        # Every CUDA requirement is for x86_64 only (or there is none): CPU-only on aarch64.
        assert not toolkit
        assert all('platform_machine == "x86_64"' in r for r in nvidia), nvidia
    else:
        match = re.search(r"==(\d+)\.(\d+)", toolkit[0]) if toolkit else None
        assert match, requires
        assert f"{match[1]}.{match[2]}" == row.cuda
        assert 'platform_machine == "x86_64"' not in toolkit[0]
