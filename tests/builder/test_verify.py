"""Verify compares the in-image probe's report with the row, one Finding per promise."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from gpudoctor.builder.spec import BuildOptions, make_spec
from gpudoctor.builder.verify import (
    compare_labels,
    compare_report,
    raise_on_mismatch,
    torch_arch_names,
    verify_image,
)
from gpudoctor.errors import VerifyFailed
from gpudoctor.findings import Severity
from gpudoctor.resources import templates_dir
from gpudoctor.verify_report import MARKER
from tests.support.builder import ROW, TF_ROW, FakeEngine, make_fake_torch
from tests.support.verify_script import verify_report

SPEC = make_spec(ROW, BuildOptions())
GOOD: dict[str, Any] = {
    "python_version": "3.11.9",
    "framework": "pytorch",
    "framework_version": "2.5.1+cu124",
    "built_cuda": "12.4",
    "built_cudnn": "9.1.0",
    "cuda_available": False,
    "device_count": 0,
    "errors": [],
    "cuda_library_duplicates": {},
}


def _severities(report: dict[str, Any], gpu: bool = False) -> dict[str, Severity]:
    return {f.code: f.severity for f in compare_report(report, SPEC, gpu=gpu)}


def test_a_matching_image_passes_and_cuda_at_run_time_is_na_without_gpu() -> None:
    assert _severities(GOOD) == {
        "verify-python": Severity.OK,
        "verify-framework-version": Severity.OK,
        "verify-built-cuda": Severity.OK,
        "verify-built-cudnn": Severity.OK,
        "verify-arch-list": Severity.NA,  # torch reports none without a GPU
        "verify-cuda-once": Severity.OK,
        "verify-cuda-available": Severity.NA,
    }


def test_an_unread_fact_that_differs_in_the_image_fails_naming_field_and_both_values() -> None:
    """What the row did not read from the wheel (cuDNN pin, arch list) build checks inside the
    image: a mismatch is exit 4, naming the field and both values."""
    assert ROW.arch_list  # the test row promises one
    names = sorted(torch_arch_names(ROW.arch_list))
    good = {**GOOD, "arch_list": names}
    assert _severities(good)["verify-arch-list"] is Severity.OK
    bad = {**GOOD, "arch_list": [*names[:-1]], "built_cudnn": "9.5.1"}
    findings = compare_report(bad, SPEC, gpu=False)
    with pytest.raises(VerifyFailed) as info:
        raise_on_mismatch(findings, "t:1")
    message = info.value.message
    assert info.value.exit_code == 4
    assert f"cuDNN 9.5.1 in the image, the row promises {ROW.cudnn}" in message
    assert "arch list " + " ".join(names[:-1]) + " in the image, the row promises" in message
    assert torch_arch_names(["8.0", "9.0a", "9.0+PTX"]) == {
        "sm_80",
        "sm_90a",
        "sm_90",
        "compute_90",
    }


def test_a_cuda_library_present_twice_fails_naming_both_folders() -> None:
    wheels = "/opt/venv/lib/python3.11/site-packages/nvidia/cublas/lib"
    twice = {"libcublas": ["/usr/local/cuda-12.4/lib64", wheels]}
    findings = compare_report({**GOOD, "cuda_library_duplicates": twice}, SPEC, gpu=False)
    once = next(f for f in findings if f.code == "verify-cuda-once")
    assert once.severity is Severity.ERROR
    assert once.title == "CUDA libraries twice: libcublas"
    assert "/usr/local/cuda-12.4/lib64 and " + wheels in once.detail
    with pytest.raises(VerifyFailed, match="libcublas"):
        raise_on_mismatch(findings, "t:1")
    older = {k: v for k, v in GOOD.items() if k != "cuda_library_duplicates"}
    assert _severities(older)["verify-cuda-once"] is Severity.NA


def test_the_script_finds_a_library_in_the_system_and_in_the_wheels(tmp_path: Path) -> None:
    """cuda_library_copies on a real folder tree: a symlinked folder counts once."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "verify_image", templates_dir() / "verify_image.py"
    )
    assert spec is not None
    assert spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    system = tmp_path / "usr/local/cuda-12.4/lib64"
    wheels = tmp_path / "site/nvidia/cublas/lib"
    for folder, names in (
        (system, ("libcublas.so.12", "libcudart.so.12")),
        (wheels, ("libcublas.so.12", "libcublasLt.so.12")),
    ):
        folder.mkdir(parents=True)
        for name in names:
            (folder / name).write_bytes(b"")
    (tmp_path / "cuda").symlink_to(system)
    copies = script.cuda_library_copies([str(system), str(tmp_path / "cuda"), str(wheels)])
    assert copies == {
        "libcublas": sorted([str(system), str(wheels)]),
        "libcublasLt": [str(wheels)],
        "libcudart": [str(system)],
    }
    assert str(wheels) in script.library_folders([str(tmp_path / "site")])


def test_a_cpu_only_wheel_fails_naming_the_cuda_promise() -> None:
    report = {**GOOD, "framework_version": "2.5.1+cpu", "built_cuda": None, "built_cudnn": None}
    findings = compare_report(report, SPEC, gpu=False)
    with pytest.raises(VerifyFailed) as info:
        raise_on_mismatch(findings, "t:1")
    assert "CPU-only" in info.value.message
    assert "CUDA 12.4" in info.value.message
    assert "cuDNN none" in info.value.message
    assert info.value.exit_code == 4


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"python_version": "3.10.12"}, "verify-python"),
        ({"framework_version": "2.4.1+cu124"}, "verify-framework-version"),
        (
            {"framework_version": None, "errors": ["torch: cannot import"]},
            "verify-framework-version",
        ),
        ({"built_cuda": "12.1"}, "verify-built-cuda"),
        ({"built_cudnn": "8.9.2"}, "verify-built-cudnn"),
        ({"built_cudnn": "9.0.0"}, "verify-built-cudnn"),
    ],
)
def test_each_difference_is_an_error_on_its_own_finding(change: dict[str, Any], code: str) -> None:
    severities = _severities({**GOOD, **change})
    assert severities[code] == Severity.ERROR
    assert [c for c, s in severities.items() if s == Severity.ERROR] == [code]


def test_tensorflow_cudnn_major_only_is_compared_on_the_major() -> None:
    spec = make_spec(TF_ROW, BuildOptions())
    report = {**GOOD, "framework_version": "2.15.0", "built_cuda": "12.2", "built_cudnn": "8"}
    assert all(f.severity != Severity.ERROR for f in compare_report(report, spec, gpu=False))
    report["built_cudnn"] = "9"
    bad = [f.code for f in compare_report(report, spec, gpu=False) if f.severity is Severity.ERROR]
    assert bad == ["verify-built-cudnn"]


def test_with_a_gpu_availability_and_the_kernel_are_checked() -> None:
    ok = {**GOOD, "cuda_available": True, "device_count": 1}
    ok |= {"kernel_result": 1047552.0, "kernel_expected": 1047552.0}
    assert _severities(ok, gpu=True)["verify-kernel"] == Severity.OK
    assert _severities(GOOD, gpu=True)["verify-cuda-available"] == Severity.ERROR
    wrong = {**ok, "kernel_result": 0.0}
    assert _severities(wrong, gpu=True)["verify-kernel"] == Severity.ERROR


def test_labels_must_carry_the_row() -> None:
    engine = FakeEngine(labels=dict(SPEC.labels))
    info = engine.inspect("t:1")
    assert info is not None
    assert compare_labels(info, SPEC).severity is Severity.OK
    engine.labels = {**dict(SPEC.labels), "io.gpudoctor.cuda": "11.8"}
    info = engine.inspect("t:1")
    assert info is not None
    finding = compare_labels(info, SPEC)
    assert finding.severity is Severity.ERROR
    assert "io.gpudoctor.cuda" in finding.title


def test_verify_image_passes_the_probe_source_with_the_framework_and_kernel_flag() -> None:
    """The probe is streamed in at verify time (python -c), not read from the image."""
    engine = FakeEngine(
        probe_stdout="banner from an entrypoint\n" + MARKER + json.dumps(GOOD) + "\n",
        labels=dict(SPEC.labels),
    )
    findings = verify_image(engine, "t:1", SPEC, gpu=True)
    run = next(args for name, args in engine.calls if name == "run")
    assert run == {
        "image": "t:1",
        "command": [
            "/opt/venv/bin/python",
            "-c",
            (templates_dir() / "verify_image.py").read_text(encoding="utf-8"),
            "pytorch",
            "--kernel",
        ],
        "gpus": True,
    }
    assert {f.code for f in findings} >= {"verify-labels", "verify-kernel"}


def test_a_probe_without_a_report_is_a_verify_failure() -> None:
    engine = FakeEngine(probe_stdout="python: not found\n")
    with pytest.raises(VerifyFailed, match="printed no report"):
        verify_image(engine, "t:1", SPEC, gpu=False)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"python_version": "3.11.9", "framew', "not valid JSON"),
        ("\x00\x1b[2Kgarbage", "not valid JSON"),
        ("[1, 2, 3]", "a JSON list, not an object"),
        ('"just a string"', "a JSON str, not an object"),
    ],
)
def test_a_truncated_or_garbled_report_is_a_verify_failure(line: str, message: str) -> None:
    engine = FakeEngine(probe_stdout=MARKER + line + "\n", labels=dict(SPEC.labels))
    with pytest.raises(VerifyFailed, match=message) as caught:
        verify_image(engine, "t:1", SPEC, gpu=False)
    assert caught.value.exit_code == 4


def test_odd_field_types_in_a_report_do_not_crash_the_comparison() -> None:
    odd = {**GOOD, "errors": "ImportError: boom", "python_version": 3, "built_cuda": 12.4}
    findings = compare_report(odd, SPEC, gpu=False)
    by_code = {f.code: f for f in findings}
    assert by_code["verify-python"].severity is Severity.ERROR


def test_the_in_image_script_reports_a_fake_torch(tmp_path: Path) -> None:
    """Run templates/verify_image.py for real against the fake torch the docker tests use, as
    in an image that holds only it: this host's own CUDA libraries (a toolkit under
    /usr/local, a real torch's nvidia-* wheels) are not the image's, and would read as
    verify-cuda-once's duplicates (tests/support/verify_script.py)."""
    import zipfile

    wheel = make_fake_torch(tmp_path)
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    cublas = site / "nvidia" / "cublas" / "lib"
    cublas.mkdir(parents=True)
    (cublas / "libcublas.so.12").write_bytes(b"")
    report = verify_report(site, "pytorch")
    assert report["built_cuda"] == "12.4"
    assert report["built_cudnn"] == "9.1.0"
    assert report["framework_version"] == "2.5.1+cu124"
    assert report["cuda_available"] is False
    assert report["cuda_libraries"] == {"libcublas": [os.path.realpath(cublas)]}
    assert report["cuda_library_duplicates"] == {}
    errors = [f.code for f in compare_report(report, SPEC, gpu=False) if f.severity.rank == 5]
    assert set(errors) <= {"verify-python"}  # this interpreter need not be 3.11


def test_an_unreadable_verify_script_is_a_verify_failure(tmp_path: Path) -> None:
    engine = FakeEngine(probe_stdout="", labels=dict(SPEC.labels))
    with pytest.raises(VerifyFailed, match=r"verify script .* unreadable"):
        verify_image(engine, "t:1", SPEC, gpu=False, template_dir=tmp_path)


@pytest.mark.parametrize(
    "change",
    [
        {"cuda_library_duplicates": 5},
        {"cuda_library_duplicates": {"libcudart.so.12": 7, "b": [1, None]}},
        {"cuda_library_duplicates": ["a", "b"]},
        {"errors": {"x": 1}, "framework_version": ["2.5.1"]},
        {"built_cuda": {"v": 12}, "built_cudnn": [9], "python_version": None},
        {"cuda_available": "yes", "device_count": "8", "kernel_result": 10**400},
        {"kernel_result": [1], "kernel_expected": {"a": 1}, "device_name": 5},
        {"python_version": "3" * 5000},
    ],
)
def test_a_report_of_any_shape_is_compared_without_an_exception(change: dict[str, Any]) -> None:
    """The report comes from inside an image someone else may have built: any JSON shape is
    a failed (or unreported) promise, never a crash."""
    for gpu in (False, True):
        findings = compare_report({**GOOD, **change}, SPEC, gpu=gpu)
        assert {f.code for f in findings} >= {"verify-python", "verify-built-cuda"}
        assert all(len(f.title) < 5000 for f in findings)


def test_what_the_image_reports_is_printable_in_every_finding() -> None:
    evil = "3.11\x1b]52;c;aGk=\x07\r\nerror: forged\u202e"
    report = {**GOOD, "python_version": evil, "framework_version": evil, "built_cuda": evil}
    for f in compare_report(report, SPEC, gpu=True):
        for text in (f.title, *(v for _, v in f.evidence)):
            assert text.isprintable(), text
        # A detail keeps its line feeds (reporters indent each line) and nothing else.
        assert all(line.isprintable() for line in f.detail.split("\n")), f.detail
