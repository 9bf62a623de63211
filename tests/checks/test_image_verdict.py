"""check --image without a daemon: NVIDIA_REQUIRE_CUDA as the toolkit reads it, the verdict on
recorded hosts from image facts, and exit 3 when the daemon is unreachable."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.checks import Intent, run_checks
from gpudoctor.cli.app import run
from gpudoctor.compat.image import ImageFacts, admits
from gpudoctor.facts_json import load
from gpudoctor.matrix.load import load_matrix
from gpudoctor.resources import default_matrix_path

HOSTS = Path(__file__).resolve().parents[1] / "data" / "hosts"
# nvidia/cuda:12.4.1 sets this (shortened); the brand clauses admit R470/R535 data-center GPUs
NVIDIA_12_4 = (
    "cuda>=12.4 brand=tesla,driver>=470,driver<471 brand=nvidia,driver>=535,driver<536 "
    "brand=geforce,driver>=535,driver<536"
)


@pytest.mark.parametrize(
    ("require", "driver", "cuda", "brands", "expected"),
    [
        ("cuda>=12.0", "535.104.05", "12.2", {"nvidia"}, True),
        ("cuda>=12.4", "535.104.05", "12.2", {"nvidia"}, False),
        (NVIDIA_12_4, "535.104.05", "12.2", {"nvidia"}, True),  # a brand clause admits it
        (NVIDIA_12_4, "550.90.07", "12.4", {"geforce"}, True),
        (NVIDIA_12_4, "470.256.02", "11.4", {"geforce"}, False),
        ("cuda>=12.0 " + NVIDIA_12_4, "525.60.13", "12.0", {"quadro"}, True),
        ("cuda>=13.0", None, None, set(), None),  # nothing known: cannot tell
        ("", "470.256.02", "11.4", set(), True),
    ],
)
def test_nvidia_require_cuda_ors_clauses_and_ands_constraints(
    require: str, driver: str | None, cuda: str | None, brands: set[str], expected: bool | None
) -> None:
    assert admits(require, driver, cuda, brands) is expected


def _verdict(host: str, image: ImageFacts) -> tuple[str, str, str]:
    facts = load(HOSTS / f"{host}.json")
    matrix = load_matrix(default_matrix_path())
    found = run_checks(facts, matrix, Intent(image=image), only=frozenset({"image-runs-here"}))
    (one,) = found.findings
    return one.severity.value, one.title, one.detail


def test_an_old_base_requirement_refuses_a_host_the_build_runs_on() -> None:
    """The issue's case: NVIDIA_REQUIRE_CUDA replaced by cuda>=12.4 refuses R535 GeForce."""
    strict = ImageFacts("old:1", "labels", "pytorch", "2.5.1", "12.4", require_cuda="cuda>=12.4")
    severity, _, detail = _verdict("pascal-geforce-r535", strict)
    assert severity == "error"
    assert "refuses to start it" in detail
    relaxed = ImageFacts("new:1", "labels", "pytorch", "2.5.1", "12.4", require_cuda="cuda>=12.0")
    severity, title, _ = _verdict("pascal-geforce-r535", relaxed)
    assert (severity, title.split(" (")[0]) == ("info", "new:1 runs here: pytorch 2.5.1 cu124")


def test_kernels_are_judged_from_the_image_arch_list() -> None:
    image = ImageFacts("b:1", "labels", "pytorch", "2.5.1", "12.4", ("8.0", "9.0"), "cuda>=12.0")
    severity, title, detail = _verdict("rtx5090-r570-86", image)
    assert severity == "error"
    assert "no kernels for 12.0" in detail
    assert "will not run here" in title


def test_an_unreachable_daemon_exits_3_with_a_hint(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-daemon.sock")
    code = run(["check", "--image", "registry.example/team/torch:1"])
    err = capsys.readouterr().err
    assert code == 3
    assert "hint:" in err


def test_an_amd64_image_does_not_run_on_an_aarch64_host() -> None:
    image = ImageFacts(
        "x86:1", "labels", "pytorch", "2.11.0", "13.0", require_cuda="cuda>=13.0",
        platform="linux/amd64",
    )  # fmt: skip
    severity, title, detail = _verdict("dgx-spark", image)
    assert severity == "error"
    assert title.startswith("x86:1 will not run here")
    assert "the image is for linux/amd64, this host is aarch64 (linux/arm64)" in detail
    arm = ImageFacts(
        "arm:1", "labels", "pytorch", "2.11.0", "13.0", require_cuda="cuda>=13.0",
        platform="linux/arm64",
    )  # fmt: skip
    severity, title, _ = _verdict("dgx-spark", arm)
    assert severity == "ok", title


IMAGE_SHAPES = (
    ImageFacts("labelled:1", "labels", "pytorch", "2.5.1", "12.4", require_cuda="cuda>=12.0"),
    ImageFacts("no-framework:1", "run"),
    ImageFacts("cpu-torch:1", "run", "pytorch", "2.5.1", None),
    ImageFacts("tf:1", "run", "tensorflow", "2.16.1"),
    ImageFacts("unknown-tf:1", "run", "tensorflow", None),
    ImageFacts("no-python:1", "run", error="the image has no python3 to read it with"),
    ImageFacts("odd:1", "labels", "pytorch", "9.9.9", "99.9", require_cuda="cuda>=99.9"),
)


@pytest.mark.parametrize("host", sorted(p.stem for p in HOSTS.glob("*.json")))
def test_every_image_shape_on_every_recorded_host_is_judged_never_crashes(host: str) -> None:
    """The issue's crashes: a host without a GPU (an error finding without a fix) and an image
    without a framework. Every shape of image facts, on every kind of host, gives one finding
    whose words carry no Python exception name, and problems carry a fix."""
    facts = load(HOSTS / f"{host}.json")
    matrix = load_matrix(default_matrix_path())
    for image in IMAGE_SHAPES:
        found = run_checks(facts, matrix, Intent(image=image), only=frozenset({"image-runs-here"}))
        assert not found.crashes, (image.reference, found.crashes)
        (one,) = found.findings
        assert "Error" not in one.title + one.detail
        if one.severity.value in ("error", "warn"):
            assert one.fix


def test_no_gpu_is_an_error_with_a_fix_that_names_a_gpu_host() -> None:
    severity, title, _ = _verdict("no-gpu-toolkit-only", IMAGE_SHAPES[0])
    assert (severity, title) == ("error", "labelled:1 cannot use a GPU here: no NVIDIA GPU")
    facts = load(HOSTS / "no-gpu-toolkit-only.json")
    run_ = run_checks(facts, load_matrix(default_matrix_path()), Intent(image=IMAGE_SHAPES[0]))
    (one,) = [f for f in run_.findings if f.code == "image-runs-here"]
    assert "gpudoctor check --from host.json --image labelled:1" in one.fix
    assert run_.exit_code == 1


def test_an_image_without_a_framework_is_unknown_in_words() -> None:
    severity, title, _ = _verdict("h100-8x-healthy", IMAGE_SHAPES[1])
    assert severity == "unknown"
    assert "holds no GPU framework gpudoctor knows (neither torch nor tensorflow" in title
    severity, title, _ = _verdict("h100-8x-healthy", IMAGE_SHAPES[2])
    assert "CPU-only torch 2.5.1" in title
