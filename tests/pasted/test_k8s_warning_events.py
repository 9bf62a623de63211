"""Kubernetes Warning events no known line names: read from `kubectl describe`'s Events table
and `kubectl get events`, a warning with their reasons; info next to an error that names a
cause; left to the catalogue where it knows the message; the kubelet's harmless reasons and
Normal events are not counted."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import findings_of, warn_or_error

Read = Callable[[str], HostFacts]

# kubernetes pkg/volume/hostpath: "hostPath type check failed: %s is not a directory"; the GPU
# Operator's driver-install-dir volume is the hostPath /run/nvidia/driver
DESCRIBED = (
    "Events:\n"
    "  Type     Reason       Age                  From     Message\n"
    "  ----     ------       ----                 ----     -------\n"
    "  Normal   Scheduled    29m                  default-scheduler  Successfully assigned "
    "gpu-operator/nvidia-container-toolkit-daemonset-zb7mv to gpu-worker-1\n"
    "  Warning  FailedMount  2m8s (x21 over 28m)  kubelet  MountVolume.SetUp failed for volume "
    '"driver-install-dir" : hostPath type check failed: /run/nvidia/driver is not a directory\n'
    "  Warning  FailedMount  1m (x22 over 28m)    kubelet  MountVolume.SetUp failed for volume "
    '"driver-install-dir" : hostPath type check failed: /run/nvidia/driver is not a directory\n'
)
# kubectl get events -A: NAMESPACE, LAST SEEN, TYPE, REASON, OBJECT, MESSAGE
LISTED = (
    "NAMESPACE      LAST SEEN   TYPE      REASON         OBJECT                              "
    "MESSAGE\n"
    "gpu-operator   4m          Warning   FailedCreate   daemonset/nvidia-driver-daemonset   "
    'Error creating: pods "nvidia-driver-daemonset-x7" is forbidden: exceeded quota: compute, '
    "requested: pods=1, used: pods=10, limited: pods=10\n"
    "gpu-operator   2m          Warning   Unhealthy      pod/nvidia-dcgm-exporter-9hf8c      "
    'Liveness probe failed: Get "http://10.244.1.17:9400/health": connect: connection refused\n'
)


def test_a_describe_warning_event_is_read_and_warned(read: Read, matrix: Matrix) -> None:
    facts = read(DESCRIBED)
    assert facts.report is not None
    # the repeat is read, not quoted again; the Normal event is not a warning
    assert [(e.code, e.line) for e in facts.report.warning_events] == [("FailedMount", 5)]
    found = [f for f in findings_of(read, matrix, DESCRIBED) if f.code == "k8s-warning-event"]
    assert len(found) == 1
    assert found[0].severity == Severity.WARN
    assert "/run/nvidia/driver is not a directory" in found[0].title
    assert "could not mount one of the pod's volumes" in found[0].detail


def test_get_events_rows_are_read_with_their_reasons(read: Read, matrix: Matrix) -> None:
    facts = read(LISTED)
    assert facts.report is not None
    assert [e.code for e in facts.report.warning_events] == ["FailedCreate", "Unhealthy"]
    (found,) = [f for f in findings_of(read, matrix, LISTED) if f.code == "k8s-warning-event"]
    assert ("reasons", "FailedCreate, Unhealthy") in found.evidence
    assert "probe of a container failed" in found.detail


def test_an_event_the_catalogue_names_is_left_to_its_entry(read: Read, matrix: Matrix) -> None:
    text = (
        "  Warning  FailedScheduling  2m (x3 over 12m)  default-scheduler  0/3 nodes are "
        "available: 3 Insufficient nvidia.com/gpu. preemption: 0/3 nodes are available: 3 No "
        "preemption victims found for incoming pod.\n"
    )
    facts = read(text)
    assert facts.report is not None
    assert facts.report.warning_events == ()
    codes = [f.code for f in findings_of(read, matrix, text)]
    assert "k8s-warning-event" not in codes
    assert "report-error" in codes


def test_next_to_an_error_with_a_cause_the_event_is_info(read: Read, matrix: Matrix) -> None:
    text = DESCRIBED + (
        "  Warning  FailedCreatePodSandBox  3s (x12 over 2m)  kubelet  Failed to create pod "
        "sandbox: rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime "
        'for "nvidia" is configured\n'
    )
    found = findings_of(read, matrix, text)
    (event,) = [f for f in found if f.code == "k8s-warning-event"]
    assert event.severity == Severity.INFO
    assert "containerd-no-nvidia-runtime" in event.detail


def test_harmless_reasons_normal_events_and_log_levels_are_not_warnings(
    read: Read, matrix: Matrix
) -> None:
    text = (
        "Events:\n"
        "  Type     Reason               Age   From     Message\n"
        "  ----     ------               ----  ----     -------\n"
        "  Warning  InvalidDiskCapacity  41d   kubelet  invalid capacity 0 on image filesystem\n"
        "  Normal   Started              22m   kubelet  Started container nvidia-driver-ctr\n"
        "WARNING  Something   happened  here and  there\n"
        "Allocatable:\n"
        "  nvidia.com/gpu:     1\n"
    )
    facts = read(text)
    assert facts.report is not None
    assert facts.report.warning_events == ()
    assert [c for c, _ in warn_or_error(findings_of(read, matrix, text))] == []
