"""Manual (`pytest -m manual`): a real PyTorch CUDA 13.0 image, built offline and verified.

Downloads torch 2.14.1 (+cu130, the PyPI default build) with its nvidia-* wheels and torchvision
through pip's configured index (a local mirror where there is one; about 3 GB) into a wheelhouse
kept between runs (GPUDOCTOR_REAL_TORCH_WHEELHOUSE, default
/tmp/gpudoctor-wheelhouse-torch-2.14.1), then builds the shipped matrix's row on the stand-in
base and verifies it: torch.version.cuda "13.0" and a cuDNN 9 build, against the row. Takes
minutes and ~10 GB of disk.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from gpudoctor.cli.app import run

pytestmark = [pytest.mark.manual, pytest.mark.docker]
REQUIREMENTS = ("torch==2.14.1", "torchvision==0.29.1")


@pytest.fixture(scope="module")
def real_wheelhouse() -> Path:
    # pip picks wheels for this interpreter; the stand-in base runs CPython 3.11 on x86_64.
    if sys.version_info[:2] != (3, 11) or platform.machine() != "x86_64":
        pytest.skip("downloads wheels for this interpreter: needs CPython 3.11 on x86_64")
    house = Path(
        os.environ.get("GPUDOCTOR_REAL_TORCH_WHEELHOUSE", "/tmp/gpudoctor-wheelhouse-torch-2.14.1")
    )
    house.mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--quiet",
        "--dest",
        str(house),
        *REQUIREMENTS,
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=1800, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return house


def test_real_pytorch_cuda13_image_builds_offline_and_verifies(
    standin_base: str, real_wheelhouse: Path, test_tag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["build", "--framework", "pytorch", "--version", "2.14.1", "--cuda", "13.0"]
    args += ["--python", "3.11", "--allow-unverified", "--base-image", standin_base]
    args += ["--wheelhouse", str(real_wheelhouse), "--tag", test_tag, "--format", "json"]
    code = run(args)
    captured = capsys.readouterr()
    assert code == 0, captured.err[-4000:]
    report = json.loads(captured.out)
    assert report["row"]["cuda"] == "13.0"
    assert report["row"]["version"] == "2.14.1"
    verdicts = {v["code"]: (v["severity"], v["evidence"]) for v in report["verify"]}
    assert verdicts["verify-built-cuda"] == ("ok", {"image": "13.0", "row": "13.0"})
    severity, evidence = verdicts["verify-built-cudnn"]
    assert severity == "ok"
    assert evidence["image"].startswith("9.")
    assert verdicts["verify-framework-version"][0] == "ok"
    # the nvidia-* wheels are the image's only CUDA libraries
    assert verdicts["verify-cuda-once"] == ("ok", {"duplicates": "none"})
    sys.stderr.write(f"\nreal torch image: {report['image']['size'] / 1e9:.2f} GB\n")
