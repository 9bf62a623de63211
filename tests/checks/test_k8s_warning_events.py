"""The k8s-warning-event check on the facts alone: one warning that quotes the events with their
reasons; nothing without events or outside a pasted report; info beside an error that names a
cause, and still a warning beside a warning (that is no cause)."""

from __future__ import annotations

from dataclasses import replace

from gpudoctor.checks import run_checks
from gpudoctor.checks.base import Intent, finding
from gpudoctor.checks.k8s_events import check_k8s_warning_events
from gpudoctor.checks.pasted_report import link_error_lines
from gpudoctor.facts import HostFacts, ReportError, ReportFacts
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix

EVENTS = (
    ReportError(
        code="Unhealthy",
        text="Warning  Unhealthy  2m (x120 over 21m)  kubelet  Startup probe failed:",
        line=4,
    ),
    ReportError(
        code="FailedMount",
        text='Warning  FailedMount  1m  kubelet  MountVolume.SetUp failed for volume "x"',
        line=9,
    ),
)


def _facts(events: tuple[ReportError, ...]) -> HostFacts:
    return replace(HostFacts(), report=ReportFacts(source="paste.txt", warning_events=events))


def _stage(severity: Severity) -> Finding:
    title = "the NVIDIA GPU stack is held at its driver"
    return finding("gpu-operator-stage", severity, title, fix="read the driver pod's log")


def test_warning_events_are_one_warning_with_their_reasons(matrix: Matrix) -> None:
    (found,) = check_k8s_warning_events(_facts(EVENTS), matrix, Intent())
    assert found.code == "k8s-warning-event"
    assert found.severity == Severity.WARN
    assert "(Unhealthy, FailedMount)" in found.title
    assert "line 4 (Unhealthy), line 9 (FailedMount)" in found.detail
    assert "probe of a container failed" in found.detail
    assert 'MountVolume.SetUp failed for volume "x"' in found.detail  # the second one, quoted


def test_no_events_or_no_report_no_finding(matrix: Matrix) -> None:
    assert check_k8s_warning_events(_facts(()), matrix, Intent()) == []
    assert check_k8s_warning_events(HostFacts(), matrix, Intent()) == []
    live = run_checks(HostFacts(), matrix).findings
    assert "k8s-warning-event" not in [f.code for f in live]


def test_beside_an_error_it_is_info_beside_a_warning_it_stays(matrix: Matrix) -> None:
    (event,) = check_k8s_warning_events(_facts(EVENTS), matrix, Intent())
    cause = _stage(Severity.ERROR)
    linked = link_error_lines([event, cause])
    assert linked[0].severity == Severity.INFO
    assert "gpu-operator-stage" in linked[0].detail
    assert linked[1].severity == Severity.ERROR
    warned = link_error_lines([event, _stage(Severity.WARN)])
    assert warned[0].severity == Severity.WARN
