"""Real builds of the real template on a real Docker Engine (marker `docker`), offline.

The base is the stand-in (Debian bookworm + Python 3.11, see conftest.py), the framework a fake
torch wheel from a wheelhouse: no registry and no index is reached.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from gpudoctor.builder.docker_engine import DockerSdkEngine
from gpudoctor.builder.engine import BuildOutcome
from gpudoctor.builder.pipeline import BuildRequest, build_row
from gpudoctor.builder.spec import BuildOptions
from gpudoctor.cli.app import run
from gpudoctor.compat.request import ResolveRequest
from gpudoctor.errors import VerifyFailed
from gpudoctor.resources import templates_dir
from tests.support.builder import TORCH_ONLY_ROW, RecordingProgress, make_fake_torch, make_wheel

pytestmark = pytest.mark.docker
MATRIX = str(Path(__file__).resolve().parents[1] / "data" / "build" / "matrix.toml")


def _cli_build(base: str, house: Path, tag: str, *extra: str) -> int:
    return run(
        [
            "--matrix",
            MATRIX,
            "build",
            "--framework",
            "pytorch",
            "--base-image",
            base,
            "--wheelhouse",
            str(house),
            "--tag",
            tag,
            *extra,
        ]
    )


def test_build_verify_and_labels_read_back(
    standin_base: str,
    wheelhouse: Path,
    test_tag: str,
    engine: DockerSdkEngine,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _cli_build(standin_base, wheelhouse, test_tag, "--format", "json") == 0
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert "Step 1/" in captured.err  # live progress went to stderr
    assert "\x1b" not in captured.err  # stderr is no terminal here
    assert report["image"]["tags"] == [test_tag]
    stage = report["install_stage"]  # kept as layer cache, named with its size and removal
    assert stage["size"] > 0
    assert stage["remove"].startswith("docker image rm ")
    assert engine.inspect(stage["id"]) is not None
    assert report["row"]["id"] == "pytorch-2.5.1-cu124-py3.11-ubuntu22.04-runtime"
    verdicts = {v["code"]: v["severity"] for v in report["verify"]}
    assert verdicts == {
        "verify-python": "ok",
        "verify-framework-version": "ok",
        "verify-built-cuda": "ok",
        "verify-built-cudnn": "ok",
        "verify-arch-list": "n/a",  # this stand-in torch names no arch list at all
        "verify-cuda-once": "ok",
        "verify-cuda-available": "n/a",
        "verify-labels": "ok",
    }
    info = engine.inspect(test_tag)
    assert info is not None
    assert info.labels["io.gpudoctor.row-id"] == report["row"]["id"]
    assert info.labels["io.gpudoctor.cudnn"] == "9.1.0.70"
    assert info.labels["io.gpudoctor.base-image"] == standin_base
    assert info.user == "10001:10001"
    # the model's rule: every driver of the 12.x minor-version floor, as `cuda>=` the major's
    # first release in this test matrix (12.2); the stand-in base sets none to keep
    assert "NVIDIA_REQUIRE_CUDA=cuda>=12.2" in info.env
    assert info.labels["io.gpudoctor.require-cuda"] == "cuda>=12.2"
    assert "NVIDIA_VISIBLE_DEVICES=all" in info.env
    # Wheels and requirement files stayed in the install stage.
    probe = engine.run(
        test_tag, ["sh", "-c", "id -u; ls /tmp/gpudoctor || echo none"], gpus=False, timeout=60
    )
    assert probe.stdout.split() == ["10001", "none"]
    _check_image_against_recorded_hosts(test_tag, capsys)


def _image_verdict(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> tuple[int, dict[str, str]]:
    capsys.readouterr()
    code = run(["check", *args, "--only", "image-runs-here", "--format", "json"])
    (found,) = json.loads(capsys.readouterr().out)["findings"]
    return code, found


def _check_image_against_recorded_hosts(tag: str, capsys: pytest.CaptureFixture[str]) -> None:
    """check --image reads the labels of the image just built and judges it by the model."""
    hosts = Path(__file__).resolve().parents[1] / "data" / "hosts"
    code, found = _image_verdict(
        ["--image", tag, "--from", str(hosts / "h100-8x-healthy.json")], capsys
    )
    assert (code, found["severity"]) == (0, "ok")
    assert found["title"] == f"{tag} runs here: pytorch 2.5.1 cu124"
    # R535 runs cu124 by minor-version compatibility, and NVIDIA_REQUIRE_CUDA admits it
    code, found = _image_verdict(
        ["--image", tag, "--from", str(hosts / "a100-8x-r535.json")], capsys
    )
    assert (code, found["severity"]) == (0, "info")
    assert "minor-version" in found["title"]
    # R470 reports CUDA 11.4: the toolkit refuses to start it, and the driver is too old
    code, found = _image_verdict(
        ["--image", tag, "--from", str(hosts / "driver-too-old.json")], capsys
    )
    assert (code, found["severity"]) == (1, "error")
    assert "refuses to start it" in found["detail"]
    assert found["fix"].startswith("an image that runs here: gpudoctor build --framework pytorch")


def test_a_cpu_only_wheel_fails_verification_with_exit_4(
    standin_base: str,
    cpu_wheelhouse: Path,
    test_tag: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _cli_build(standin_base, cpu_wheelhouse, test_tag) == 4
    err = capsys.readouterr().err
    assert "does not hold what its row promises" in err
    assert "CPU-only pytorch build" in err
    assert "CUDA 12.4" in err


# The row promises 5.0-9.0; this build stops at 8.6 (no Hopper kernels) and adds 8.9.
_BUILT = ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_89"]


@pytest.mark.parametrize(
    "stand_in",
    [
        (_BUILT, None),  # torch 2.14.1: get_arch_list() answers without a GPU
        ([], " ".join(_BUILT)),  # older torch: [] without a GPU; the build's own flags answer
    ],
    ids=["get_arch_list", "arch_flags"],
)
def test_an_arch_list_other_than_the_rows_fails_verification_with_exit_4(
    standin_base: str,
    tmp_path: Path,
    test_tag: str,
    capsys: pytest.CaptureFixture[str],
    stand_in: tuple[list[str], str | None],
) -> None:
    """The arch list is a fact the row may not have read from the wheel: build reads it inside
    the image, without a GPU, and a torch compiled for other GPUs fails the build, naming both
    lists."""
    house = tmp_path / "arch-wheels"
    house.mkdir()
    built = _BUILT
    arch_list, arch_flags = stand_in
    make_fake_torch(house, arch_list=arch_list, arch_flags=arch_flags)
    make_wheel(
        house,
        "torchvision",
        "0.20.1+cu124",
        {"torchvision/__init__.py": "__version__ = '0.20.1+cu124'\n"},
        requires=("torch==2.5.1",),
    )
    assert _cli_build(standin_base, house, test_tag) == 4
    err = capsys.readouterr().err
    assert "does not hold what its row promises" in err
    image = " ".join(sorted(built))
    row = " ".join(sorted(["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"]))
    assert f"arch list {image} in the image, the row promises {row}" in err
    # the one broken promise is named: the rest of the image holds
    assert "cuDNN" not in err.split("does not hold what its row promises")[1].split("hint:")[0]


def _wrong_torch(tmp_path: Path) -> Path:
    house = tmp_path / "wrong"
    house.mkdir()
    make_fake_torch(house, version="2.5.0+cu124")
    make_wheel(house, "torchvision", "0.20.1", {}, requires=("torch==2.5.1",))
    return house


def test_a_failing_step_exits_4_with_its_log_once_and_the_option_that_fixes_it(
    standin_base: str, tmp_path: Path, test_tag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A wheelhouse holding torch, but not the pinned release: the check before the build
    passes (the project is there), pip fails inside the step."""
    house = _wrong_torch(tmp_path)
    assert _cli_build(standin_base, house, test_tag) == 4
    err = capsys.readouterr().err
    assert "error: image build failed at Step" in err
    assert "pip install" in err.split("error: image build failed at ")[1].splitlines()[0]
    assert err.count("No matching distribution found for torch==2.5.1") == 1  # the live log
    assert f"hint: the wheelhouse {house} has no wheel for torch==2.5.1" in err
    assert "--download-wheels" in err
    assert "\x1b" not in err  # not a terminal: no escape sequences


def test_a_rebuild_takes_every_step_from_the_cache(
    standin_base: str, wheelhouse: Path, test_tag: str, engine: DockerSdkEngine
) -> None:
    request = BuildRequest(
        ResolveRequest("pytorch"),
        BuildOptions(base_image=standin_base, wheelhouse=wheelhouse, tag=test_tag),
        verify=False,
    )
    first = build_row(TORCH_ONLY_ROW, request, engine, RecordingProgress(), templates_dir())
    progress = RecordingProgress()
    second = build_row(TORCH_ONLY_ROW, request, engine, progress, templates_dir())
    assert second.outcome.all_cached
    assert second.outcome.cached == second.outcome.steps - second.outcome.from_steps > 8
    assert second.image_id == first.image_id
    assert sum(e.kind == "cache" for e in progress.events) == second.outcome.cached
    assert not [n for n in second.context_files if n.startswith("wheels/")]  # served, not sent


@pytest.mark.slow  # three image builds
def test_a_served_wheelhouse_whose_wheels_changed_misses_the_cache(
    standin_base: str,
    wheelhouse: Path,
    cpu_wheelhouse: Path,
    test_tag: str,
    engine: DockerSdkEngine,
) -> None:
    """The pip step names the same URL for both wheelhouses (same row): only the manifest of
    the wheels' digests, copied before it, tells the builder the wheels are not the same."""

    def build(house: Path) -> BuildOutcome:
        options = BuildOptions(base_image=standin_base, wheelhouse=house, tag=test_tag)
        request = BuildRequest(ResolveRequest("pytorch"), options, verify=False)
        report = build_row(TORCH_ONLY_ROW, request, engine, RecordingProgress(), templates_dir())
        return report.outcome

    build(wheelhouse)
    assert not build(cpu_wheelhouse).all_cached
    assert build(cpu_wheelhouse).all_cached


def test_verify_of_a_foreign_image_names_the_differences(
    standin_base: str, engine: DockerSdkEngine
) -> None:
    """An image gpudoctor did not build (the bare base: no venv, no verify script) fails
    verification with exit 4 and the reason, not as an unreachable daemon."""
    from gpudoctor.builder.spec import make_spec
    from gpudoctor.builder.verify import verify_image

    spec = make_spec(TORCH_ONLY_ROW, BuildOptions(base_image=standin_base))
    with pytest.raises(VerifyFailed, match="printed no report") as info:
        verify_image(engine, standin_base, spec, gpu=False)
    assert "exit 127" in info.value.message
    assert "/opt/venv/bin/python" in info.value.message
    assert info.value.exit_code == 4


def test_check_image_without_labels_runs_it_once(
    standin_base: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """An image without io.gpudoctor.* labels is read by one bounded docker run: the bare base
    holds no framework, which the verdict says instead of guessing."""
    hosts = Path(__file__).resolve().parents[1] / "data" / "hosts"
    code, found = _image_verdict(
        ["--image", standin_base, "--from", str(hosts / "h100-8x-healthy.json")], capsys
    )
    assert found["severity"] == "unknown"
    assert "holds no GPU framework gpudoctor knows" in found["title"]
    assert "Error" not in found["title"]
    assert code == 0


def test_check_image_absent_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    code = run(["check", "--image", "gpudoctor-test/absent:never"])
    assert code == 2
    assert "not on this Docker daemon" in capsys.readouterr().err


def test_a_run_that_outlives_its_timeout_is_exit_124_not_an_unreachable_daemon(
    standin_base: str, engine: DockerSdkEngine
) -> None:
    """container.wait's read timeout is the command's result (verify then fails, exit 4), not
    "cannot reach the Docker daemon" (exit 3)."""
    started = time.monotonic()
    result = engine.run(standin_base, ["sh", "-c", "echo started; sleep 60"], gpus=False, timeout=2)
    assert result.exit_code == 124
    assert "timed out after 2 s" in result.stderr
    assert "started" in result.stdout
    assert time.monotonic() - started < 30


def test_a_failing_build_with_format_json_prints_a_json_error_exit_4(
    standin_base: str, tmp_path: Path, test_tag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _cli_build(standin_base, _wrong_torch(tmp_path), test_tag, "--format", "json") == 4
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["exit_code"] == 4
    assert error["reference"] == "build-failed"
    assert error["step"].startswith("Step ")
    assert any("No matching distribution" in line for line in error["log_tail"])


def test_a_missing_base_given_with_base_image_is_pulled_or_loaded_not_given_again(
    tmp_path: Path, wheelhouse: Path, test_tag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """No registry is reachable here: the FROM step fails at once, and the hint names the
    image and how to get it onto the daemon, not the option the user already gave."""
    assert _cli_build("gpudoctor-test/nosuch:1", wheelhouse, test_tag) == 4
    err = capsys.readouterr().err
    assert "error: image build failed at Step 1/" in err
    hint = next(line for line in err.splitlines() if line.startswith("hint: "))
    assert hint.startswith("hint: image gpudoctor-test/nosuch:1 is not on this Docker daemon")
    assert "docker load" in hint
    assert "--base-image" not in hint
