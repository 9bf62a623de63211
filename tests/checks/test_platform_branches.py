"""Branches of the platform checks that no recorded host reaches: each returns its finding (and
a severity its catalogue entry lists) instead of crashing as `check-crashed`."""

from __future__ import annotations

from dataclasses import replace

from gpudoctor.checks import Intent, run_checks
from gpudoctor.checks.summary import headlines
from gpudoctor.facts import HostFacts, ReportFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.hosts import host


def _only(facts: HostFacts, matrix: Matrix, code: str) -> list[tuple[Severity, str]]:
    run = run_checks(facts, matrix, Intent())
    assert [f.title for f in run.findings if f.code == "check-crashed"] == []
    return [(f.severity, f.title) for f in run.findings if f.code == code]


def test_a_linux_nvidia_module_inside_wsl_is_a_warning(matrix: Matrix) -> None:
    wsl = host("wsl2")
    inside = replace(wsl, kernel=replace(wsl.kernel, nvidia_module_version="550.54.15"))
    assert _only(inside, matrix, "wsl") == [
        (Severity.WARN, "a Linux NVIDIA kernel module is present inside WSL")
    ]
    assert [s for s, _ in _only(wsl, matrix, "wsl")] == [Severity.INFO]  # near miss


def test_a_pasted_container_without_its_environment_is_unknown(matrix: Matrix) -> None:
    live = host("container-without-gpus")
    assert live.platform.container
    platform = replace(live.platform, nvidia_visible_devices=None)
    pasted = replace(live, platform=platform, report=ReportFacts(source="paste.txt"))
    assert [s for s, _ in _only(pasted, matrix, "container-gpus")] == [Severity.UNKNOWN]
    # near miss: the live host, which states the variable, is judged on it
    assert Severity.UNKNOWN not in [s for s, _ in _only(live, matrix, "container-gpus")]


def test_the_runtime_headline_names_the_container_stack_a_paste_shows(matrix: Matrix) -> None:
    base = host("no-gpu-toolkit-only")
    runtime = replace(
        base.container_runtime, docker_reachable=None, runtimes=(), daemon_json_runtimes=()
    )
    pasted = replace(base, report=ReportFacts(source="paste.txt"))
    known = replace(pasted, container_runtime=replace(runtime, toolkit_version="1.14.3"))
    assert headlines(known, Intent())["runtime"] == (
        "NVIDIA Container Toolkit 1.14.3; Docker not in the report"
    )
    # near miss: a paste that shows none of it
    bare = replace(pasted, container_runtime=replace(runtime, toolkit_version=None))
    assert headlines(bare, Intent())["runtime"] == "not in the report"


def test_nvml_unprobed_reads_not_in_the_report_for_a_paste(matrix: Matrix) -> None:
    live = host("pci-no-driver")
    unprobed = replace(live, nvml=replace(live.nvml, status="not_run"))
    pasted = replace(unprobed, report=ReportFacts(source="paste.txt"))
    assert _only(pasted, matrix, "nvml-library-missing") == [
        (Severity.UNKNOWN, "NVML: not in the report")
    ]
    # near miss: a snapshot whose NVML probe did not run says so
    assert _only(unprobed, matrix, "nvml-library-missing") == [
        (Severity.UNKNOWN, "NVML was not probed")
    ]


def test_platform_facts_a_paste_does_not_show_read_not_in_the_report(matrix: Matrix) -> None:
    live = host("pci-no-driver")
    platform = replace(live.platform, virtualization=None, wsl=False, machine=None)
    platform = replace(platform, cpu=replace(platform.cpu, model=None))
    unread = replace(live, platform=platform)
    pasted = replace(unread, report=ReportFacts(source="paste.txt"))
    assert _only(pasted, matrix, "virtualization") == [
        (Severity.UNKNOWN, "bare metal or VM: not in the report")
    ]
    assert _only(pasted, matrix, "cpu-memory") == [
        (Severity.UNKNOWN, "CPU model and machine: not in the report")
    ]
    # near miss: a host whose probes could not tell says so
    assert _only(unread, matrix, "virtualization") == [
        (Severity.UNKNOWN, "could not tell bare metal from VM")
    ]
    assert _only(unread, matrix, "cpu-memory") == [
        (Severity.UNKNOWN, "CPU model and machine unknown")
    ]
