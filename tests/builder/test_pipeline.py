"""build_row / build_image chain the steps; the engine is a fake at the edge (no daemon)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from gpudoctor.builder.pipeline import BuildRequest, build_image, build_row
from gpudoctor.builder.spec import BuildOptions, make_spec
from gpudoctor.compat.request import ResolvedRow, ResolveRequest
from gpudoctor.compat.resolve import resolve
from gpudoctor.docker.engine import BuildEvent, ImageInfo
from gpudoctor.errors import BuildFailed, NoMatchingRow, VerifyFailed
from gpudoctor.matrix.load import load_matrix
from gpudoctor.resources import templates_dir
from gpudoctor.verify_report import MARKER
from tests.support.builder import OK_EVENTS, PROBE, ROW, FakeEngine, RecordingProgress

DATA = Path(__file__).resolve().parents[1] / "data" / "build"


def _engine(
    probe: dict[str, object] | None = None, row: ResolvedRow = ROW, **kw: object
) -> FakeEngine:
    labels = dict(make_spec(row, BuildOptions(tag="t/x:1")).labels)
    stdout = MARKER + json.dumps(probe or PROBE) + "\n"
    return FakeEngine(build_events=OK_EVENTS, probe_stdout=stdout, labels=labels, **kw)  # type: ignore[arg-type]


def _request(**kw: object) -> BuildRequest:
    return BuildRequest(ResolveRequest("pytorch"), BuildOptions(tag="t/x:1"), **kw)  # type: ignore[arg-type]


def test_build_row_builds_verifies_and_reports() -> None:
    engine, progress = _engine(), RecordingProgress()
    report = build_row(ROW, _request(), engine, progress, templates_dir())
    calls = [name for name, _ in engine.calls]
    assert calls == ["ping", "inspect", "build", "inspect", "inspect", "run"]
    assert engine.context_names == ["Dockerfile", "requirements.txt"]  # no verify script
    assert report.outcome.cached == 1
    assert report.image_id == "sha256:" + "ab" * 32
    assert [f.code for f in progress.findings][-1] == "verify-labels"
    assert not any("mutable" in p for p in progress.phases)  # a base only here: no digest
    data = report.to_dict()
    assert set(data) == {
        "schema_version",
        "image",
        "row",
        "base_image",
        "extra_requirements",
        "build",
        "verify",
        "pushed",
        "notes",
        "install_stage",
    }
    assert data["row"]["id"] == ROW.id
    assert data["build"]["steps"] == 2
    assert "✓ built with CUDA 12.4" in report.to_text()


def test_options_reach_the_engine_and_push_runs_after_verify() -> None:
    gpu_probe = {**PROBE, "cuda_available": True, "device_count": 1}
    gpu_probe |= {"kernel_result": 1047552.0, "kernel_expected": 1047552.0}
    engine = _engine(gpu_probe, runtimes=("nvidia", "runc"))
    request = BuildRequest(
        ResolveRequest("pytorch"),
        BuildOptions(tag="t/x:1", build_args=("HTTPS_PROXY=http://p:3128",)),
        no_cache=True,
        push=True,
    )
    build_row(ROW, request, engine, RecordingProgress(), templates_dir())
    build = next(args for name, args in engine.calls if name == "build")
    assert build == {
        "tag": "t/x:1",
        "nocache": True,
        "args": {"HTTPS_PROXY": "http://p:3128"},
        "platform": None,  # the daemon's own platform: not sent
        "host_network": False,  # no wheelhouse to serve
    }
    run = next(args for name, args in engine.calls if name == "run")
    assert isinstance(run, dict)
    assert run["gpus"] is True
    assert engine.calls[-1] == ("push", "t/x:1")


def test_a_failed_step_stops_before_verify() -> None:
    engine = _engine()
    engine.build_events = (OK_EVENTS[0], BuildEvent("error", "returned a non-zero code: 1"))
    with pytest.raises(BuildFailed) as info:
        build_row(ROW, _request(), engine, RecordingProgress(), templates_dir())
    assert info.value.step == "Step 1/2 : FROM base AS python"
    assert not [c for c in engine.calls if c[0] == "run"]


def test_a_cpu_only_image_fails_verification_and_is_not_pushed() -> None:
    engine = _engine({**PROBE, "built_cuda": None, "built_cudnn": None})
    with pytest.raises(VerifyFailed, match="CPU-only"):
        build_row(ROW, _request(push=True), engine, RecordingProgress(), templates_dir())
    assert not [c for c in engine.calls if c[0] == "push"]


def test_skip_verify_never_runs_the_image() -> None:
    engine = _engine()
    report = build_row(ROW, _request(verify=False), engine, RecordingProgress(), templates_dir())
    assert not report.findings
    assert not [c for c in engine.calls if c[0] == "run"]


def test_build_image_resolves_from_the_matrix_first() -> None:
    matrix = load_matrix(DATA / "matrix.toml")
    engine = _engine(row=resolve(matrix, ResolveRequest("pytorch", cuda="12.4")))
    request = BuildRequest(ResolveRequest("pytorch", cuda="12.4"), BuildOptions(tag="t/x:1"))
    report = build_image(request, matrix, engine, RecordingProgress(), templates_dir())
    assert report.spec.row.id == "pytorch-2.5.1-cu124-py3.11-ubuntu22.04-runtime"
    assert report.spec.base_image == "ubuntu:22.04"  # the wheels bring CUDA: a plain base
    assert not report.spec.base_pinned
    with pytest.raises(NoMatchingRow):
        build_image(
            BuildRequest(ResolveRequest("pytorch", cuda="11.8")),
            matrix,
            _engine(),
            RecordingProgress(),
            templates_dir(),
        )


STAGED_EVENTS = (
    BuildEvent("step", "Step 1/4 : FROM base AS python", 1, 4),
    BuildEvent("log", " ---> 37c51e2d4c29"),
    BuildEvent("step", "Step 2/4 : FROM python AS install", 2, 4),
    BuildEvent("step", "Step 3/4 : RUN pip install", 3, 4),
    BuildEvent("log", " ---> 5e810c7070ce"),
    BuildEvent("step", "Step 4/4 : FROM python", 4, 4),
    BuildEvent("log", " ---> 37c51e2d4c29"),
    BuildEvent("image", "sha256:" + "ab" * 32),
)


@dataclass
class StageEngine(FakeEngine):
    """Knows the install stage's image as the daemon would: labelled, 8.1 GB."""

    def inspect(self, image: str) -> ImageInfo | None:
        if image == "5e810c7070ce":
            stage = {"io.gpudoctor.stage": "install"}
            return ImageInfo(
                id="sha256:5e810c7070ce" + "0" * 52, tags=(), size=8_100_000_000, labels=stage
            )
        return super().inspect(image)


def test_the_install_stage_left_as_cache_is_named_with_its_size_and_removal() -> None:
    base = _engine()
    engine = StageEngine(
        build_events=STAGED_EVENTS, probe_stdout=base.probe_stdout, labels=base.labels
    )
    report = build_row(ROW, _request(verify=False), engine, RecordingProgress(), templates_dir())
    text = report.to_text()
    assert "kept the install stage as the layer cache of the next build: image 5e810c7070ce" in text
    assert "(8.1 GB with its base layers)" in text
    assert "`docker image rm 5e810c7070ce`" in text
    assert "docker image prune -f --filter label=io.gpudoctor.stage=install" in text
    stage = report.to_dict()["install_stage"]
    assert stage["remove"] == "docker image rm 5e810c7070ce"
    assert stage["size"] == 8_100_000_000


@pytest.mark.parametrize(
    ("digests", "warned"),
    [
        ((), None),  # loaded or built here: no registry digest can pin it
        (("nvidia/cuda@sha256:" + "cd" * 32,), "@sha256:" + "cd" * 32),  # the one it came with
    ],
)
def test_the_tag_only_warning_only_where_a_digest_can_be_had(
    digests: tuple[str, ...], warned: str | None
) -> None:
    engine = _engine(repo_digests=digests)
    progress = RecordingProgress()
    report = build_row(ROW, _request(verify=False), engine, progress, templates_dir())
    warnings = [p for p in progress.phases if "pinned by tag only" in p]
    if warned is None:
        assert warnings == []
        assert not any("pinned by tag only" in n for n in report.notes)
    else:
        assert len(warnings) == 1  # once
        assert warnings[0].endswith(f"--base-image nvidia/cuda{warned}")
