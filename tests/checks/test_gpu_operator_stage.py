"""`kubectl get pods -n gpu-operator` and `kubectl describe pod` of the GPU Operator's pods: the
stage that holds the rest (Init:N/M: the (N+1)th init container of the DaemonSet's order), what
it checks and its fix; a listing where every pod runs raises nothing."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.dispatch import read_report
from tests.support.pasted_findings import findings_of, warn_or_error

Read = Callable[[str], HostFacts]
CODE = "gpu-operator-stage"


@pytest.fixture
def read(matrix: Matrix) -> Read:
    return lambda text: read_report(text, "paste.txt", matrix.architectures)


def _rows(*rows: str, namespace: bool = False) -> str:
    """A `kubectl get pods` listing: its header, then each "NAME READY STATUS RESTARTS AGE"."""
    head = ("NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE")
    lines = [head if namespace else head[1:]] + [tuple(r.split("|")) for r in rows]
    width = (14, 44, 8, 24, 14, 6)[0 if namespace else 1 :]
    return "".join(
        "".join(f"{c:<{w}}" for c, w in zip(line, width)).rstrip() + "\n" for line in lines
    )


def _stage(read: Read, matrix: Matrix, text: str) -> Finding:
    (found,) = [f for f in findings_of(read, matrix, text) if f.code == CODE]
    return found


def test_init_n_of_m_names_the_next_init_container(read: Read, matrix: Matrix) -> None:
    text = _rows(
        "gpu-feature-discovery-7xq2d|0/1|Init:0/2|0|25m",
        "nvidia-container-toolkit-daemonset-l7mxp|1/1|Running|0|25m",
        "nvidia-device-plugin-daemonset-vz4hx|0/1|Init:0/2|0|25m",
        "nvidia-driver-daemonset-r8c9k|1/1|Running|0|25m",
        "nvidia-operator-validator-p8s2f|0/1|Init:1/4|0|25m",
    )
    found = _stage(read, matrix, text)
    assert found.severity is Severity.WARN  # held, not failing: Init:N/M waits
    assert "nvidia-operator-validator-p8s2f" in found.title
    assert "toolkit-validation" in found.title
    assert "Init:1/4: 1 of 4 init containers completed" in found.detail
    # the pods that only wait on it are named as such, the fix is the toolkit's
    assert "nvidia-device-plugin-daemonset-vz4hx" in found.detail
    assert "CONTAINERD_CONFIG" in found.fix
    # Init:0/4 is driver-validation, Init:2/4 cuda-validation, Init:3/4 plugin-validation
    for n, stage, words in (
        (0, "driver-validation", "nvidia-driver-ctr"),
        (2, "cuda-validation", "nvidia-cuda-validator"),
        (3, "plugin-validation", "nvidia-device-plugin-daemonset"),
    ):
        found = _stage(read, matrix, _rows(f"nvidia-operator-validator-p8s2f|0/1|Init:{n}/4|0|25m"))
        assert stage in found.title
        assert words in found.fix


def test_a_failing_driver_pod_holds_every_later_stage(read: Read, matrix: Matrix) -> None:
    text = _rows(
        "nvidia-container-toolkit-daemonset-f6b8j|0/1|Init:0/1|0|40m",
        "nvidia-device-plugin-daemonset-h4w7q|0/1|Init:0/1|0|40m",
        "nvidia-driver-daemonset-x7p5r|0/1|CrashLoopBackOff|11 (3m ago)|40m",
        "nvidia-operator-validator-6v8zn|0/1|Init:0/4|0|40m",
    )
    found = _stage(read, matrix, text)
    assert found.severity is Severity.ERROR
    assert "nvidia-driver-daemonset-x7p5r (CrashLoopBackOff)" in found.title
    assert "nvidia-operator-validator-6v8zn" in found.detail
    assert "kernel headers" in found.fix


def test_a_failing_workload_pod_is_its_stage(read: Read, matrix: Matrix) -> None:
    text = _rows(
        "gpu-operator|nvidia-container-toolkit-daemonset-9w7tn|1/1|Running|0|3h",
        "gpu-operator|nvidia-cuda-validator-8xk2p|0/1|Init:Error|4|12m",
        "gpu-operator|nvidia-operator-validator-2pq6m|0/1|Init:2/4|3|3h",
        namespace=True,
    )
    found = _stage(read, matrix, text)
    assert found.severity is Severity.ERROR
    assert "nvidia-cuda-validator-8xk2p, init container cuda-validation" in found.title
    assert "vectorAdd" in found.detail


def test_an_operand_waiting_for_the_toolkit_points_at_the_validator(
    read: Read, matrix: Matrix
) -> None:
    """Near miss: the device plugin's toolkit-validation only waits for the validator's file;
    it is not the validator's toolkit check."""
    found = _stage(read, matrix, _rows("nvidia-device-plugin-daemonset-vz4hx|0/1|Init:0/2|0|25m"))
    assert found.severity is Severity.WARN
    assert "toolkit-ready" in found.detail
    assert "nvidia-operator-validator" in found.fix
    assert "runs nvidia-smi" not in found.detail


DESCRIBE = """Name:             nvidia-operator-validator-7l9nq
Namespace:        gpu-operator
Status:           Pending
Init Containers:
  driver-validation:
    Image:         nvcr.io/nvidia/cloud-native/gpu-operator-validator:v24.3.0
    State:          Terminated
      Reason:       Completed
      Exit Code:    0
    Ready:          True
    Restart Count:  0
  toolkit-validation:
    Image:         nvcr.io/nvidia/cloud-native/gpu-operator-validator:v24.3.0
    State:          Waiting
      Reason:       CrashLoopBackOff
    Last State:     Terminated
      Reason:       Error
      Exit Code:    1
    Ready:          False
    Restart Count:  9
  cuda-validation:
    State:          Waiting
      Reason:       PodInitializing
    Ready:          False
Containers:
  nvidia-operator-validator:
    State:          Waiting
      Reason:       PodInitializing
Events:
  Type     Reason   Age                 From     Message
  ----     ------   ----                ----     -------
  Warning  BackOff  2m (x160 over 40m)  kubelet  Back-off restarting failed container \
toolkit-validation in pod nvidia-operator-validator-7l9nq_gpu-operator(5c1f)
"""


def test_describe_pod_names_the_init_container_that_fails(read: Read, matrix: Matrix) -> None:
    (pod,) = read(DESCRIBE).report.stack_pods  # type: ignore[union-attr]
    assert (pod.init_failed, pod.init_reason, pod.init_exit_code) == (
        "toolkit-validation",
        "CrashLoopBackOff",
        1,
    )
    found = _stage(read, matrix, DESCRIBE)
    assert found.severity is Severity.ERROR
    assert "toolkit-validation" in found.title
    assert "CrashLoopBackOff, exit code 1" in found.detail


def test_near_miss_describe_pods_that_are_through_or_not_nvidias(
    read: Read, matrix: Matrix
) -> None:
    through = DESCRIBE.replace(
        "State:          Waiting\n      Reason:       CrashLoopBackOff",
        "State:          Terminated\n      Reason:       Completed",
    ).replace("Exit Code:    1", "Exit Code:    0")
    through = through.replace(
        "  cuda-validation:\n    State:          Waiting\n      Reason:       PodInitializing\n",
        "",
    )
    assert not read(through).report.stack_pods  # type: ignore[union-attr]
    other = DESCRIBE.replace("nvidia-operator-validator-7l9nq", "web-frontend-7l9nq")
    assert not read(other).report.stack_pods  # type: ignore[union-attr]


def test_benign_every_pod_running_or_completed(read: Read, matrix: Matrix) -> None:
    text = "$ kubectl get pods -n gpu-operator\n" + _rows(
        "gpu-feature-discovery-crrsq|1/1|Running|0|60s",
        "gpu-operator-7fb75556c7-x8spj|1/1|Running|0|5m48s",
        "gpu-operator-node-feature-discovery-worker-wn79l|1/1|Running|0|5m48s",
        "nvidia-container-toolkit-daemonset-fjhdj|1/1|Running|0|5m20s",
        "nvidia-cuda-validator-jwdbb|0/1|Completed|0|60s",
        "nvidia-dcgm-exporter-dvz4r|1/1|Running|0|60s",
        "nvidia-device-plugin-daemonset-bw2xh|1/1|Running|0|60s",
        "nvidia-driver-daemonset-8tbcz|1/1|Running|0|5m27s",
        "nvidia-operator-validator-w8b2m|1/1|Running|0|60s",
    )
    findings = findings_of(read, matrix, text)
    assert not warn_or_error(findings)
    (found,) = [f for f in findings if f.code == CODE]
    assert found.severity is Severity.OK


def test_near_miss_a_pod_whose_sandbox_fails_is_not_held_by_its_first_stage(
    read: Read, matrix: Matrix
) -> None:
    """Init:0/4 while the events say the sandbox could not be created: no init container ran,
    so the driver is not what holds it."""
    text = _rows("nvidia-operator-validator-6v8zn|0/1|Init:0/4|0|40m") + (
        "  Warning  FailedCreatePodSandBox  2m (x20 over 40m)  kubelet  Failed to create pod "
        "sandbox: rpc error: code = Unknown desc = failed to get sandbox runtime: no runtime "
        'for "nvidia" is configured\n'
    )
    found = _stage(read, matrix, text)
    assert found.severity is Severity.WARN
    assert "has not started its first init container" in found.title
    assert "containerd-no-nvidia-runtime" in found.detail
    assert "driver-validation" not in found.title


def test_near_miss_an_image_not_pulled_is_no_stage(read: Read, matrix: Matrix) -> None:
    """Init:ImagePullBackOff: the init container never ran, so its stage says nothing (the
    row is the nvidia-pod-failing line's)."""
    text = _rows(
        "nvidia-dcgm-exporter-c6b7q|0/1|Init:ImagePullBackOff|0|25m",
        "nvidia-driver-daemonset-r8c9k|1/1|Running|0|25m",
    )
    found = _stage(read, matrix, text)
    assert found.severity is Severity.NA
    report = read(text).report
    assert report is not None
    assert [e.code for e in report.errors] == ["nvidia-pod-failing"]


def test_the_failing_pods_own_line_is_explained_by_the_stage(read: Read, matrix: Matrix) -> None:
    # one cause, one fault: the pod line (nvidia-pod-failing) stays, as information that the
    # stage finding explains, so that the report shows one error for the stuck stack
    text = _rows(
        "nvidia-driver-daemonset-x7k2p|0/1|CrashLoopBackOff|12|40m",
        "nvidia-device-plugin-daemonset-fghij|0/1|Init:0/1|0|40m",
    )
    found = findings_of(read, matrix, text)
    (line,) = [f for f in found if f.subject == "nvidia-pod-failing"]
    assert line.severity is Severity.INFO
    assert "explained by gpu-operator-stage" in line.detail
    assert [code for code, _ in warn_or_error(found)] == [CODE]


def test_a_validator_failing_in_an_unnamed_init_container_holds_the_waiting_pods(
    read: Read, matrix: Matrix
) -> None:
    # `get pods` shows Init:CrashLoopBackOff for a pod with four init containers: which one
    # fails is not shown, but it fails, and the operands that only wait must not be named
    text = _rows(
        "gpu-feature-discovery-bmrgf|0/1|Init:0/1|0|22m",
        "nvidia-container-toolkit-daemonset-ktrv6|1/1|Running|0|22m",
        "nvidia-dcgm-exporter-bxj8q|0/1|Init:0/1|0|22m",
        "nvidia-device-plugin-daemonset-4ghzp|0/1|Init:0/1|0|22m",
        "nvidia-operator-validator-qpv7s|0/1|Init:CrashLoopBackOff|9|22m",
    )
    found = _stage(read, matrix, text)
    assert found.severity is Severity.ERROR
    assert "nvidia-operator-validator-qpv7s" in found.title
    assert "nvidia-dcgm-exporter-bxj8q" not in found.title
    assert "kubectl describe pod nvidia-operator-validator-qpv7s" in found.fix


def test_near_miss_a_failing_workload_pod_outranks_the_validator_that_waits_on_it(
    read: Read, matrix: Matrix
) -> None:
    # the CUDA workload pod names its stage: the validator's own Init:CrashLoopBackOff (its
    # cuda-validation waiting on that pod) stays behind it
    text = _rows(
        "nvidia-container-toolkit-daemonset-lh5k8|1/1|Running|0|110m",
        "nvidia-cuda-validator-kg6mn|0/1|Init:CrashLoopBackOff|6|6m",
        "nvidia-device-plugin-daemonset-l2c24|1/1|Running|0|110m",
        "nvidia-operator-validator-pjhbf|0/1|Init:CrashLoopBackOff|17|110m",
    )
    found = _stage(read, matrix, text)
    assert "nvidia-cuda-validator-kg6mn" in found.title
    assert "cuda-validation" in found.title
