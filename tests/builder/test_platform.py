"""Images for arm64: the platform comes from --platform, the target host or the daemon; the
wheels and label follow it; a daemon that cannot build it (its /info Architecture, no QEMU
binfmt handler) is refused with exit 3. The engine is a fake at the edge (its /info answer)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from gpudoctor.builder.binfmt import emulated_machines
from gpudoctor.builder.pipeline import BuildRequest, build_image, build_row, render_row
from gpudoctor.builder.spec import BuildOptions, make_spec
from gpudoctor.cli.app import run as main
from gpudoctor.compat.request import ResolvedRow, ResolveRequest
from gpudoctor.compat.resolve import resolve
from gpudoctor.docker.sdk_engine import DockerSdkEngine
from gpudoctor.errors import EnvironmentUnavailable
from gpudoctor.matrix.load import load_matrix
from gpudoctor.resources import templates_dir
from gpudoctor.verify_report import MARKER
from tests.support.builder import OK_EVENTS, PROBE, FakeEngine, RecordingProgress, hadolint

HOSTS = Path(__file__).resolve().parents[1] / "data" / "hosts"
ARM = ResolveRequest("pytorch", machine="aarch64", compute_capabilities=("12.1",))


def _arm_row() -> ResolvedRow:
    return resolve(load_matrix(), ARM)


def _engine(row: ResolvedRow, architecture: str) -> FakeEngine:
    labels = dict(make_spec(row, BuildOptions(tag="t/x:1")).labels)
    probe = {
        **PROBE,
        "python_version": f"{row.python}.1",
        "framework_version": row.version,
        "built_cuda": row.cuda,
        "built_cudnn": row.cudnn,
    }
    stdout = MARKER + json.dumps(probe) + "\n"
    return FakeEngine(
        build_events=OK_EVENTS, probe_stdout=stdout, labels=labels, architecture=architecture
    )


def test_arm64_row_takes_aarch64_wheels_and_labels_its_platform() -> None:
    row = _arm_row()
    assert row.platform == "linux/arm64"
    assert row.index_url is None  # PyPI's aarch64 wheel brings CUDA 13 (2.11.0 and later)
    spec, dockerfile = render_row(row, BuildOptions(), templates_dir())
    assert dict(spec.labels)["io.gpudoctor.platform"] == "linux/arm64"
    assert 'io.gpudoctor.platform="linux/arm64"' in dockerfile
    hadolint(dockerfile)


def test_the_x86_row_of_the_same_request_is_amd64_on_its_cu_index() -> None:
    row = resolve(load_matrix(), replace(ARM, machine=None))
    assert row.platform == "linux/amd64"
    assert row.index_url is not None
    assert row.index_url.startswith("https://download.pytorch.org/whl/cu")


def test_a_daemon_of_another_architecture_is_refused_without_emulation() -> None:
    row = _arm_row()
    engine = _engine(row, "x86_64")
    request = BuildRequest(ARM, BuildOptions(tag="t/x:1"))
    with pytest.raises(EnvironmentUnavailable) as exc:
        build_row(row, request, engine, RecordingProgress(), templates_dir())
    assert "runs on x86_64 (linux/amd64) and cannot build linux/arm64" in exc.value.message
    assert "--platform linux/amd64" in exc.value.hint
    assert [name for name, _ in engine.calls] == ["ping"]  # nothing was built


def test_a_registered_binfmt_handler_lets_it_build_with_a_warning() -> None:
    row = _arm_row()
    engine, progress = _engine(row, "x86_64"), RecordingProgress()
    request = BuildRequest(ARM, BuildOptions(tag="t/x:1"), emulated=("aarch64",))
    build_row(row, request, engine, progress, templates_dir())
    build = next(args for name, args in engine.calls if name == "build")
    assert isinstance(build, dict)
    assert build["platform"] == "linux/arm64"
    assert any("QEMU emulation" in p for p in progress.phases)


def test_without_platform_or_target_host_the_daemons_architecture_decides() -> None:
    matrix = load_matrix()
    row = _arm_row()
    engine = _engine(row, "aarch64")
    request = BuildRequest(
        ResolveRequest("pytorch", compute_capabilities=("12.1",)), BuildOptions(tag="t/x:1")
    )
    report = build_image(request, matrix, engine, RecordingProgress(), templates_dir())
    assert report.spec.platform == "linux/arm64"
    assert report.spec.row.id == row.id


def test_docker_sdk_engine_reads_architecture_from_info() -> None:
    class Client:  # the Docker SDK client's /info answer, nothing else
        def info(self) -> dict[str, object]:
            return {"ServerVersion": "27.3.1", "Runtimes": {"runc": {}}, "Architecture": "aarch64"}

    assert DockerSdkEngine(Client(), "unix:///x").ping().architecture == "aarch64"


def test_binfmt_handlers_read_under_a_root(tmp_path: Path) -> None:
    base = tmp_path / "proc/sys/fs/binfmt_misc"
    base.mkdir(parents=True)
    (base / "qemu-aarch64").write_text("enabled\ninterpreter /usr/bin/qemu-aarch64\n")
    (base / "qemu-x86_64").write_text("disabled\n")
    assert emulated_machines(tmp_path) == ("aarch64",)
    assert emulated_machines(tmp_path / "none") == ()


def test_cli_renders_for_the_target_hosts_platform_and_checks_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "Dockerfile"
    spark = str(HOSTS / "dgx-spark.json")
    assert main(["render", "--framework", "pytorch", "--from", spark, "-o", str(out)]) == 0
    text = out.read_text()
    assert 'io.gpudoctor.platform="linux/arm64"' in text
    hadolint(text)
    assert main(["render", "--framework", "pytorch", "--platform", "linux/s390x"]) == 2
    clash = ["render", "--framework", "pytorch", "--from", spark, "--platform", "linux/amd64"]
    assert main(clash) == 2
    assert "contradicts the target host's machine aarch64" in capsys.readouterr().err


def test_check_image_reads_the_platform_label_else_the_image_architecture() -> None:
    from gpudoctor.docker.engine import ImageInfo
    from gpudoctor.probes.image import probe_image

    labelled = FakeEngine(labels={"io.gpudoctor.framework": "pytorch", **PLATFORM_LABEL})
    assert probe_image(labelled, "t/x:1").platform == "linux/arm64"

    class Unlabelled(FakeEngine):  # an image config's "Architecture", no gpudoctor labels
        def inspect(self, image: str) -> ImageInfo | None:
            return ImageInfo(id="sha256:" + "cd" * 32, tags=(image,), size=1, architecture="arm64")

    plain = Unlabelled(probe_stdout='GPUDOCTOR-IMAGE {"framework": "pytorch", "version": "2.11.0"}')
    assert probe_image(plain, "t/y:1").platform == "linux/arm64"


PLATFORM_LABEL = {"io.gpudoctor.platform": "linux/arm64"}
