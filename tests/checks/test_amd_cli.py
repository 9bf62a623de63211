"""AMD hosts end to end: `check --from` replays them, `check --framework pytorch` names the ROCm
build, and resolve/build/render refuse an AMD target in one line with exit 2."""

from __future__ import annotations

import pytest

from gpudoctor.cli.app import run
from tests.support.hosts import HOSTS_DIR


def snap(name: str) -> str:
    return str(HOSTS_DIR / f"{name}.json")


def test_check_from_an_amd_snapshot_judges_its_gpus(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["check", "--from", snap("amd-mi300x-8x")]) == 0
    out = capsys.readouterr().out
    assert "AMD GPUs and ROCm: 8 × gfx942, ROCm 6.3.1-48" in out  # noqa: RUF001
    assert "skipped without an NVIDIA GPU" in out
    assert run(["check", "--from", snap("amd-rx7900xtx-workstation")]) == 1
    assert "sudo usermod -aG render,video $USER" in capsys.readouterr().out


def test_check_framework_on_amd_host_names_the_rocm_build(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run(["check", "--from", snap("amd-mi250x-torch-cuda"), "--framework", "pytorch"]) == 1
    out = capsys.readouterr().out
    assert "no NVIDIA GPU" not in out.split("Will it run here")[1]
    assert run(["-v", "check", "--from", snap("amd-mi300x-8x"), "--framework", "pytorch"]) == 0
    out = capsys.readouterr().out
    assert "torch 2.10.0+rocm7.1" in out
    line = "pip install torch==2.10.0 torchvision==0.25.0 torchaudio==2.10.0 --index-url "
    assert line + "https://download.pytorch.org/whl/rocm7.1" in out  # with its release's companions
    assert "runtime=rocm" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["matrix", "resolve", "--framework", "pytorch==2.5.1+rocm6.2"],
        ["matrix", "resolve", "--framework", "pytorch", "--cuda", "rocm6.2"],
        ["matrix", "resolve", "--framework", "pytorch", "--from", snap("amd-mi300x-8x")],
        ["build", "--framework", "pytorch", "--from", snap("amd-mi300x-8x"), "--dry-run"],
        ["render", "--framework", "pytorch", "--version", "2.7.1+rocm6.3"],
    ],
)
def test_amd_targets_are_refused_in_one_line(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(argv) == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert lines[0].startswith("error: ROCm images are not built yet: ")
    assert lines[1].startswith("hint: ")
    assert len(lines) == 2
    assert "Traceback" not in err


def test_a_mixed_host_still_resolves_for_its_nvidia_gpu() -> None:
    argv = ["matrix", "resolve", "--framework", "pytorch", "--from", snap("nvidia-and-amd")]
    assert run(argv) == 0
