"""A workload pod in a state it does not leave by waiting (CrashLoopBackOff, Error, OOMKilled):
the state is an error while nothing else in the paste names a cause, and becomes that cause's
symptom (info) next to an error line that does."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.facts import HostFacts
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of, warn_or_error

Read = Callable[[str], HostFacts]

LISTING = (
    "$ kubectl get pods\n"
    "NAME                        READY   STATUS             RESTARTS      AGE\n"
    "gpu-test-7d9f8b6c5-x2x9k    0/1     CrashLoopBackOff   5 (32s ago)   4m\n"
)
EVENT = (
    "Events:\n"
    "  Type     Reason   Age               From     Message\n"
    "  ----     ------   ----              ----     -------\n"
    "  Warning  BackOff  2m (x10 over 4m)  kubelet  Back-off restarting failed container cuda "
    "in pod gpu-test_default(3f2a)\n"
)
DESCRIBED = (
    "Name:         gpu-test\n"
    "Containers:\n"
    "  cuda:\n"
    "    State:          Waiting\n"
    "      Reason:       CrashLoopBackOff\n"
    "    Last State:     Terminated\n"
    "      Reason:       Error\n"
    "      Exit Code:    1\n"
)
CAUSE = (
    "Failed to allocate device vector A (error code CUDA driver version is insufficient for "
    "CUDA runtime version)!\n"
)


def test_a_crash_looping_workload_alone_is_an_error_naming_its_pod(
    read: Read, matrix: Matrix
) -> None:
    (found,) = error_lines(findings_of(read, matrix, LISTING), "k8s-pod-failing")
    assert found.severity.value == "error"
    assert "gpu-test-7d9f8b6c5-x2x9k is in CrashLoopBackOff" in found.detail
    assert "kubectl logs gpu-test-7d9f8b6c5-x2x9k --previous" in found.fix
    # the workload is not taken for one of the NVIDIA stack's pods
    report = read(LISTING).report
    assert report is not None
    assert report.stack_pods == ()


def test_the_kubelet_back_off_event_and_the_described_state_are_named(
    read: Read, matrix: Matrix
) -> None:
    (event,) = error_lines(findings_of(read, matrix, EVENT), "k8s-container-backoff")
    assert event.severity.value == "error"
    (waiting,) = error_lines(findings_of(read, matrix, DESCRIBED), "k8s-container-waiting")
    assert "waiting in CrashLoopBackOff" in waiting.detail


def test_the_state_becomes_the_symptom_of_a_cause_the_paste_names(
    read: Read, matrix: Matrix
) -> None:
    findings = findings_of(read, matrix, LISTING + EVENT + CAUSE)
    (cause,) = error_lines(findings, "driver-insufficient")
    assert cause.severity.value == "error"
    assert len(warn_or_error(findings)) == 1  # the cause alone leads the report
    for code in ("k8s-pod-failing", "k8s-container-backoff"):
        (state,) = error_lines(findings, code)
        assert state.severity.value == "info"
        assert "driver-insufficient" in state.detail


def test_a_pod_pending_for_minutes_is_named_with_its_age(read: Read, matrix: Matrix) -> None:
    row = "gpu-pod                                0/1     Pending   0          8m\n"
    (found,) = error_lines(
        findings_of(read, matrix, LISTING.splitlines()[1] + "\n" + row), "k8s-pod-pending"
    )
    assert "gpu-pod has been Pending for 8m" in found.detail
    assert "Insufficient nvidia.com/gpu" in found.fix
    # next to the scheduler's own reason, the row is its symptom
    event = (
        "$ kubectl describe pod gpu-pod\n"
        "Events:\n"
        "  Warning  FailedScheduling  3m  default-scheduler  0/3 nodes are available: 3 "
        "Insufficient nvidia.com/gpu.\n"
    )
    (symptom,) = error_lines(findings_of(read, matrix, row + event), "k8s-pod-pending")
    assert symptom.severity.value == "info"


def test_oomkilled_is_a_cause_of_its_own_not_a_symptom(read: Read, matrix: Matrix) -> None:
    row = "trainer-0                   0/1     OOMKilled   3 (45s ago)   6m\n"
    (found,) = error_lines(findings_of(read, matrix, row + CAUSE), "k8s-container-oomkilled")
    assert found.severity.value == "error"  # not demoted next to another error
    assert "resources.limits.memory" in found.fix


def test_near_misses_are_not_pod_states(read: Read, matrix: Matrix) -> None:
    calm = (
        "NAME                                  READY   STATUS      RESTARTS   AGE\n"
        "nvidia-device-plugin-daemonset-4kq9z  1/1     Running     0          10m\n"
        "gpu-test-7d9f8b6c5-x2x9k    1/1     Running     0          4m\n"
        "cuda-vectoradd              0/1     Completed   0          1m\n"
        "trainer-0                   0/1     Pending     0          9s\n"
        "    State:          Terminated\n"
        "      Reason:       Completed\n"
    )
    findings = findings_of(read, matrix, calm)
    for code in ("k8s-pod-failing", "k8s-container-waiting", "k8s-container-oomkilled"):
        assert error_lines(findings, code) == []
    assert warn_or_error(findings) == []
