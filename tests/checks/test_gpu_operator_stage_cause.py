"""A GPU Operator pod held in its stage next to a known line of that stage's own component (its
pod's log): the line names why, so its finding carries the verdict and the stage finding is
info that points to it; a line of another component leaves the stage its own severity."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.dispatch import read_report
from tests.support.pasted_findings import error_lines, findings_of, warn_or_error

Read = Callable[[str], HostFacts]
CODE = "gpu-operator-stage"

_PODS = (
    "NAME                                       READY   STATUS             RESTARTS   AGE\n"
    "nvidia-dcgm-exporter-k2m9q                 1/1     Running            0          40m\n"
    "{failing:<42} 0/1     CrashLoopBackOff   11         40m\n"
)
_PLUGIN_LOG = "2017/11/29 01:54:30 Loading NVML\n2017/11/29 01:54:30 could not load NVML library\n"
_DRIVER_LOG = (
    "ERROR: Failed to update package cache. Ensure that the cluster can access the proper "
    "networks.\n"
)


@pytest.fixture
def read(matrix: Matrix) -> Read:
    return lambda text: read_report(text, "paste.txt", matrix.architectures)


def _stage(findings: list[Finding]) -> Finding:
    (found,) = [f for f in findings if f.code == CODE]
    return found


@pytest.mark.parametrize(
    ("pod", "log", "line_code"),
    [
        ("nvidia-device-plugin-daemonset-zb8xn", _PLUGIN_LOG, "device-plugin-no-nvml"),
        ("nvidia-driver-daemonset-x7p5r", _DRIVER_LOG, "gpu-operator-driver-package-cache"),
    ],
)
def test_the_components_own_line_carries_the_verdict(
    read: Read, matrix: Matrix, pod: str, log: str, line_code: str
) -> None:
    findings = findings_of(read, matrix, _PODS.format(failing=pod) + log)
    stage = _stage(findings)
    assert stage.severity is Severity.INFO
    assert pod in stage.title
    assert f"({line_code}) is that component's own" in stage.detail
    (line,) = error_lines(findings, line_code)
    assert line.severity is Severity.ERROR
    # the cause is the one alarm: the pod's row and the stage only say where the stack stands
    assert [code for code, _ in warn_or_error(findings)] == ["report-error"]


def test_a_line_of_another_component_leaves_the_stage_its_severity(
    read: Read, matrix: Matrix
) -> None:
    # the driver pod fails; the device plugin's NVML line says nothing of why the driver does
    text = _PODS.format(failing="nvidia-driver-daemonset-x7p5r") + _PLUGIN_LOG
    stage = _stage(findings_of(read, matrix, text))
    assert stage.severity is Severity.ERROR
    assert "is that component's own" not in stage.detail
    # and without any log line the failing pod is the error it was
    alone = _stage(findings_of(read, matrix, _PODS.format(failing="nvidia-driver-daemonset-x7p5r")))
    assert alone.severity is Severity.ERROR
