"""The deep probe through the real subprocess path: this interpreter runs
templates/verify_image.py against a fake torch on PYTHONPATH, one scenario per way a framework
can fail at run time. Nothing here raises: every outcome is facts plus a ProbeIssue."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from gpudoctor import facts_json, verify_report
from gpudoctor.facts import DeepDevice, DeepFrameworkFacts, FrameworkFacts
from gpudoctor.probes import collect_facts
from gpudoctor.probes.deep import (
    ChildResult,
    interpret,
    probe_deep,
)
from gpudoctor.probes.runner import CommandResult
from gpudoctor.wording import exit_text
from tests.support.fake_torch import NO_KERNEL_IMAGE, make_fake_torch

TORCH = FrameworkFacts(name="torch", version="2.5.1+cu124", cuda="12.4", cpu_only=False)


def deep(site: Path, timeout_s: float = 30.0) -> tuple[DeepFrameworkFacts, list[str]]:
    found, issues = probe_deep(
        [TORCH], python=sys.executable, env={"PYTHONPATH": str(site)}, timeout_s=timeout_s
    )
    assert len(found) == 1
    return found[0], [f"{i.code}: {i.reason}" for i in issues]


def test_a_working_cuda_torch_reports_devices_and_the_kernel(tmp_path: Path) -> None:
    site = make_fake_torch(
        tmp_path, devices=(("NVIDIA H100 80GB HBM3", (9, 0)), ("NVIDIA H100 80GB HBM3", (9, 0)))
    )
    facts, issues = deep(site)
    assert issues == []
    assert facts.outcome == "ok"
    assert (facts.import_ok, facts.version, facts.cuda, facts.cudnn) == (
        True,
        "2.5.1+cu124",
        "12.4",
        "9.1.0",
    )
    assert facts.import_seconds is not None
    assert facts.import_seconds >= 0
    assert (facts.cuda_available, facts.device_count) == (True, 2)
    assert facts.devices[1] == DeepDevice(1, "NVIDIA H100 80GB HBM3", "9.0")
    assert facts.arch_list[-1] == "sm_90"
    assert (facts.kernel_ok, facts.kernel_error) == (True, None)
    assert (facts.exit_code, facts.python, facts.timeout_s) == (0, sys.executable, 30.0)


def test_no_kernel_image_is_a_kernel_error_not_a_crash(tmp_path: Path) -> None:
    site = make_fake_torch(
        tmp_path,
        devices=(("NVIDIA B200", (10, 0)),),
        kernel=f"raise RuntimeError({NO_KERNEL_IMAGE!r})",
    )
    facts, issues = deep(site)
    assert facts.outcome == "ok"  # the probe finished; the kernel's failure is a fact
    assert issues == []
    assert facts.kernel_ok is False
    assert facts.kernel_error == f"RuntimeError: {NO_KERNEL_IMAGE}"
    assert facts.devices == (DeepDevice(0, "NVIDIA B200", "10.0"),)


def test_an_import_error_is_recorded_with_its_message(tmp_path: Path) -> None:
    site = make_fake_torch(
        tmp_path,
        init="raise ImportError('libcudnn.so.9: cannot open shared object file: No such file "
        "or directory')",
    )
    facts, issues = deep(site)
    assert facts.outcome == "import_failed"
    assert facts.import_ok is False
    assert facts.error == (
        "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory"
    )
    assert facts.cuda_available is None
    assert issues == [
        "deep-import-failed: import torch failed: ImportError: libcudnn.so.9: cannot open shared "
        "object file: No such file or directory"
    ]


def test_a_hang_is_killed_at_the_timeout_with_its_grandchildren(tmp_path: Path) -> None:
    # A grandchild holding stdout open would keep a plain subprocess.run waiting for 60 s.
    site = make_fake_torch(
        tmp_path,
        init="import subprocess, sys, time\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "time.sleep(60)\n",
    )
    started = time.monotonic()
    facts, issues = deep(site, timeout_s=1.5)
    assert time.monotonic() - started < 15
    assert facts.outcome == "timeout"
    assert facts.exit_code is None
    assert facts.seconds is not None
    assert facts.seconds >= 1.5
    assert issues == ["deep-timeout: importing torch did not finish within 1.5 s"]


def test_an_exit_139_is_a_crash_named_as_such(tmp_path: Path) -> None:
    site = make_fake_torch(
        tmp_path,
        init="import os, sys\nsys.stderr.write('loading libtorch_cuda.so\\n')\nos._exit(139)",
    )
    facts, issues = deep(site)
    assert (facts.outcome, facts.exit_code) == ("crashed", 139)
    assert facts.error == "loading libtorch_cuda.so"
    assert issues == [
        "deep-crashed: the torch probe exited 139 (128 + SIGSEGV): loading libtorch_cuda.so"
    ]


def test_a_real_segfault_leaves_the_python_stack_in_the_error(tmp_path: Path) -> None:
    site = make_fake_torch(tmp_path, init="import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)")
    facts, issues = deep(site)
    assert (facts.outcome, facts.exit_code) == ("crashed", -11)
    assert facts.error is not None
    assert "Segmentation fault" in facts.error  # faulthandler, switched on for the child
    assert issues[0].startswith("deep-crashed: the torch probe was killed by SIGSEGV")


def test_an_exit_without_the_report_line_is_no_report(tmp_path: Path) -> None:
    site = make_fake_torch(tmp_path, init="import sys\nprint('banner')\nsys.exit(0)")
    facts, issues = deep(site)
    assert (facts.outcome, facts.exit_code, facts.error) == ("no_report", 0, "banner")
    assert issues == ["deep-no-report: the torch probe exited 0 without its report line: banner"]


def test_cuda_unavailable_keeps_the_frameworks_warning(tmp_path: Path) -> None:
    site = make_fake_torch(
        tmp_path,
        available="warnings.warn('CUDA initialization: The NVIDIA driver on your system is too "
        "old (found version 11040).')\n    return False",
    )
    facts, issues = deep(site)
    assert (facts.outcome, facts.cuda_available, facts.device_count) == ("ok", False, 0)
    assert facts.cuda_warnings == (
        "CUDA initialization: The NVIDIA driver on your system is too old (found version 11040).",
    )
    assert facts.kernel_ok is None  # no CUDA: no kernel
    assert issues == []


def test_a_failure_after_the_import_is_probe_failed(tmp_path: Path) -> None:
    site = make_fake_torch(tmp_path, available="raise RuntimeError('CUDA driver initialization')")
    facts, issues = deep(site)
    assert (facts.outcome, facts.import_ok, facts.version) == ("probe_failed", True, "2.5.1+cu124")
    assert facts.error is not None
    assert facts.error.splitlines()[-1] == "RuntimeError: CUDA driver initialization"
    assert issues[0].startswith("deep-probe-failed: the torch probe failed after the import")


def test_an_interpreter_that_cannot_start_is_a_crash(tmp_path: Path) -> None:
    found, issues = probe_deep([TORCH], python=str(tmp_path / "no-python"), env={})
    assert found[0].outcome == "crashed"
    assert found[0].exit_code is None
    assert "no-python" in (found[0].error or "")
    assert issues[0].code == "deep-crashed"


def test_frameworks_are_probed_one_by_one_and_unknown_names_skipped(tmp_path: Path) -> None:
    site = make_fake_torch(tmp_path)
    # A tensorflow that fails to import, ahead of any real one this host's site-packages holds.
    (site / "tensorflow").mkdir()
    (site / "tensorflow" / "__init__.py").write_text(
        "raise ImportError('no tensorflow in this test')\n", encoding="utf-8"
    )
    other = FrameworkFacts(name="mxnet", version="1.9")  # nothing the script knows
    tf = FrameworkFacts(name="tensorflow", version="2.15.0")
    found, issues = probe_deep(
        [other, TORCH, tf], python=sys.executable, env={"PYTHONPATH": str(site)}
    )
    assert [(d.name, d.outcome) for d in found] == [
        ("torch", "ok"),
        ("tensorflow", "import_failed"),
    ]
    assert [i.field for i in issues] == ["deep.tensorflow"]


@pytest.mark.parametrize(
    ("stdout", "expected"),
    [
        ('chatter\nGPUDOCTOR-VERIFY {"a": 1}\n', {"a": 1}),
        ("GPUDOCTOR-VERIFY {not json\n", None),
        ('GPUDOCTOR-VERIFY {"python_version": "3.1', None),
        ("GPUDOCTOR-VERIFY [1]\n", None),
        ("GPUDOCTOR-VERIFY " + "[" * 100_000 + "\n", None),
        ("nothing\n", None),
    ],
)
def test_read_report(stdout: str, expected: dict[str, int] | None) -> None:
    """Never raises: a missing, truncated or garbled line is no data plus a reason."""
    report = verify_report.read(stdout)
    assert report.data == expected
    assert (report.problem is None) == (expected is not None)


def test_odd_report_values_read_as_unknown() -> None:
    line = (
        'GPUDOCTOR-VERIFY {"imported": "pytorch", "errors": [], "device_count": true, '
        '"cuda_available": "yes", "devices": [{"name": "X"}, 3], "arch_list": "sm_90"}'
    )
    facts = interpret("torch", ChildResult(0, line, "", 0.1), python="py", timeout_s=5)
    assert facts.outcome == "ok"
    assert (facts.device_count, facts.cuda_available, facts.arch_list) == (None, None, ())
    assert facts.devices == (DeepDevice(0, "X", None),)


@pytest.mark.parametrize(
    ("rc", "text"),
    [
        (None, "could not start"),
        (-9, "was killed by SIGKILL"),
        (134, "exited 134 (128 + SIGABRT)"),
        (1, "exited 1"),
    ],
)
def test_exit_text(rc: int | None, text: str) -> None:
    assert exit_text(rc) == text


def _no_commands(argv, *, timeout_s: float = 5.0) -> CommandResult:  # type: ignore[no-untyped-def]
    return CommandResult(tuple(argv), None, error="not-found")


def test_collect_facts_runs_deep_after_the_frameworks_probe(tmp_path: Path) -> None:
    site = make_fake_torch(tmp_path / "site")
    common = {
        "root": tmp_path,
        "env": {},
        "runner": _no_commands,
        "site_paths": [site],
        "include_docker": False,
        "include_nvml": False,
    }
    plain = collect_facts(**common)  # type: ignore[arg-type]
    assert [f.name for f in plain.frameworks] == ["torch"]
    assert plain.deep == ()
    assert "deep" not in [t.probe for t in plain.timings]
    facts = collect_facts(**common, deep=True, deep_timeout_s=30)  # type: ignore[arg-type]
    assert [(d.name, d.outcome, d.kernel_ok) for d in facts.deep] == [("torch", "ok", True)]
    assert [t.probe for t in facts.timings][-2:] == ["deep", "total"]
    assert facts_json.loads(facts_json.dumps(facts)) == facts
