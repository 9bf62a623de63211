"""k8s-gpu-unhealthy: a pasted `kubectl describe node` whose Allocatable nvidia.com/gpu is below
its Capacity (the device plugin marked GPUs unhealthy), read and judged."""

from __future__ import annotations

from gpudoctor.checks import run_checks
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.dispatch import read_report

_NODE = """\
Name:               gpu-node-7
Roles:              <none>
Capacity:
  cpu:                96
  ephemeral-storage:  1844244028Ki
  memory:             1056466808Ki
  nvidia.com/gpu:     8
  pods:               110
Allocatable:
  cpu:                96
  ephemeral-storage:  1699648779509
  memory:             1056364408Ki
  nvidia.com/gpu:     {allocatable}
  pods:               110
System Info:
  Kernel Version:             5.15.0-105-generic
  Kubelet Version:            v1.29.4
"""


def _finding(text: str, matrix: Matrix) -> Finding:
    facts = read_report(text, "node.txt", matrix.architectures)
    (found,) = [f for f in run_checks(facts, matrix).findings if f.code == "k8s-gpu-unhealthy"]
    return found


def test_fewer_allocatable_than_capacity_is_a_warning_naming_both(matrix: Matrix) -> None:
    facts = read_report(_NODE.format(allocatable=6), "node.txt", matrix.architectures)
    assert (facts.platform.k8s_gpu_capacity, facts.platform.k8s_gpu_allocatable) == (8, 6)
    found = _finding(_NODE.format(allocatable=6), matrix)
    assert found.severity is Severity.WARN
    assert "6 of its 8" in found.title
    assert "2 unhealthy" in found.title
    assert "DP_DISABLE_HEALTHCHECKS" in found.fix


def test_all_allocatable_is_ok_and_no_node_is_na(matrix: Matrix) -> None:
    assert _finding(_NODE.format(allocatable=8), matrix).severity is Severity.OK
    # near miss: a pod's resource request names nvidia.com/gpu without a Capacity block
    pod = "Containers:\n  cuda:\n    Limits:\n      nvidia.com/gpu:  1\n"
    lost = pod + "dmesg: NVRM: Xid (PCI:0000:3b:00): 79, pid=0, GPU has fallen off the bus.\n"
    assert _finding(lost, matrix).severity is Severity.NA


NODE = """\
$ kubectl describe node gpu-1
Capacity:
  cpu:             8
  nvidia.com/gpu:  1
Allocatable:
  cpu:             8
  nvidia.com/gpu:  1
"""
POD_ASKS_TWO = """\
$ kubectl describe pod train
Containers:
  train:
    Limits:
      nvidia.com/gpu:  2
Events:
  Warning  FailedScheduling  10s  default-scheduler  0/1 nodes are available: 1 Insufficient nvidia.com/gpu.
"""  # noqa: E501


def _by_code(text: str, matrix: Matrix) -> dict[str, list[Finding]]:
    facts = read_report(text, "paste.txt", matrix.architectures)
    out: dict[str, list[Finding]] = {}
    for f in run_checks(facts, matrix).findings:
        out.setdefault(f.subject if f.code == "report-error" else f.code, []).append(f)
    return out


def test_a_pod_asking_more_than_the_node_allocates(matrix: Matrix) -> None:
    found = _by_code(NODE + POD_ASKS_TWO, matrix)
    (request,) = found["k8s-gpu-request"]
    assert request.severity is Severity.ERROR
    assert "asks for 2 nvidia.com/gpu, the node allocates 1" in request.title
    # the scheduler's line is what that finding predicts: it keeps the verdict
    (line,) = found["k8s-insufficient-gpu"]
    assert line.severity is Severity.INFO


def test_a_request_within_the_node_or_without_a_node_is_no_error(matrix: Matrix) -> None:
    within = _by_code(NODE + POD_ASKS_TWO.replace("gpu:  2", "gpu:  1"), matrix)
    assert within["k8s-gpu-request"][0].severity is Severity.OK
    alone = _by_code(POD_ASKS_TWO, matrix)
    assert alone["k8s-gpu-request"][0].severity is Severity.NA
    assert alone["k8s-insufficient-gpu"][0].severity is Severity.ERROR


def test_zero_allocatable_of_unhealthy_gpus_is_not_a_node_without_gpus(matrix: Matrix) -> None:
    text = NODE.replace("gpu:  1", "gpu:  8", 1).replace("gpu:  1", "gpu:  0")
    found = _by_code(text, matrix)
    assert found["k8s-gpu-unhealthy"][0].severity is Severity.WARN
    (zero,) = found["k8s-node-zero-gpus"]
    assert zero.severity is Severity.INFO
