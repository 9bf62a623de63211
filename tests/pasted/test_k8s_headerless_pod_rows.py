"""Rows grepped out of `kubectl get pods` (`kubectl get pods -A | grep validator`) lose the
header; a stack pod's row is still read when its STATUS is one `kubectl get pods` prints, and the
kubelet's back-off line ("back-off 5m0s restarting failed container=C pod=P_NS(uid)", or the
BackOff event "Back-off restarting failed container C in pod P_NS(uid)") names the init
container a stack pod is held in: gpu-operator-stage names that stage."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import findings_of

Read = Callable[[str], HostFacts]

_ROWS = (
    "nvidia-device-plugin-validator-whr6m   0/1   Init:CrashLoopBackOff   5 (2m18s ago)   5m25s\n"
    "nvidia-operator-validator-d5c26        0/1   Init:CrashLoopBackOff   4 (24s ago)     25m\n"
)
_KUBELET = (
    "Dec 12 16:05:01 node002 kubelet[25231]: E1212 16:05:01.543282 25231 pod_workers.go:190] "
    '"Error syncing pod, skipping" err="failed to \\"StartContainer\\" for \\"toolkit-validation\\"'
    ' with CrashLoopBackOff: \\"back-off 5m0s restarting failed container=toolkit-validation '
    'pod=nvidia-operator-validator-c9wp2_default(9e0a951e-acb2)\\""\n'
)
_EVENT = (
    "  Warning  BackOff  2m (x40 over 12m)  kubelet  Back-off restarting failed container "
    "cuda-validation in pod nvidia-cuda-validator-q6m4x_gpu-operator(5d1c-77aa)\n"
)


def _stage(read: Read, matrix: Matrix, text: str) -> list[str]:
    return [
        f.title
        for f in findings_of(read, matrix, text)
        if f.code == "gpu-operator-stage" and f.severity is Severity.ERROR
    ]


def test_headerless_rows_are_read_as_the_stacks_pods(read: Read, matrix: Matrix) -> None:
    pods = read(_ROWS).report.stack_pods
    assert [(p.name, p.status) for p in pods] == [
        ("nvidia-device-plugin-validator-whr6m", "Init:CrashLoopBackOff"),
        ("nvidia-operator-validator-d5c26", "Init:CrashLoopBackOff"),
    ]
    (title,) = _stage(read, matrix, _ROWS)
    assert "init container plugin-validation" in title


def test_near_miss_a_headerless_line_that_is_no_pod_row_is_not_read(read: Read) -> None:
    # no STATUS a pod has after its READY column: not a `kubectl get pods` row
    text = "nvidia-smi-test   1/2   passed   ok\nnvidia-driver 3/4 steps done\n"
    assert not read(text).report.stack_pods
    # a headerless stack all Running stays quiet
    quiet = "nvidia-device-plugin-daemonset-qd9sd   1/1   Running   0   5h48m\n"
    (pod,) = read(quiet).report.stack_pods
    assert pod.status == "Running"


def test_the_kubelet_backoff_line_names_the_init_container(read: Read, matrix: Matrix) -> None:
    (pod,) = read(_KUBELET).report.stack_pods
    assert (pod.name, pod.init_failed) == ("nvidia-operator-validator-c9wp2", "toolkit-validation")
    (title,) = _stage(read, matrix, _KUBELET)
    assert "nvidia-operator-validator-c9wp2, init container toolkit-validation" in title
    (event,) = _stage(read, matrix, _EVENT)
    assert "nvidia-cuda-validator-q6m4x, init container cuda-validation" in event


def test_backoff_keeps_a_rows_status_and_skips_other_pods(read: Read) -> None:
    row = "nvidia-operator-validator-c9wp2   0/1   Init:CrashLoopBackOff   55   47h\n"
    (pod,) = read(row + _KUBELET).report.stack_pods
    assert (pod.status, pod.init_failed) == ("Init:CrashLoopBackOff", "toolkit-validation")
    # near miss: a workload's back-off is no stack pod's, and the bare event names no container
    other = (
        "back-off 10s restarting failed container=app pod=my-trainer-7f9c_default(1a2b)\n"
        "  Warning  BackOff  3m  kubelet  Back-off restarting failed container\n"
    )
    assert not read(other).report.stack_pods
