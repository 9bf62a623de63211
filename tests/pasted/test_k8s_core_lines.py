"""Kubernetes' own refusals of a GPU pod, pasted as `kubectl describe pod` Events, kubelet journal
lines and `kubectl apply` errors: the kubelet's device manager and admission check, the API
server's validation of extended resources, containerd's and CRI-O's runtime-handler lookup, and
`nvidia-ctk cdi list`. Each line is named with its numbers in the cause, a near miss is not, and
a normal Events block raises nothing."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of, warn_or_error

Read = Callable[[str], HostFacts]


@pytest.mark.parametrize(
    ("line", "code", "words"),
    [
        (
            "  Warning  UnexpectedAdmissionError  12s   kubelet  Allocate failed due to no healthy "
            "devices present; cannot allocate unhealthy devices nvidia.com/gpu, which is "
            "unexpected",
            "kubelet-device-unhealthy",
            ("refused to allocate nvidia.com/gpu: no healthy devices present", "DP_DISABLE"),
        ),
        (
            "Message:          Pod was rejected: Allocate failed due to previously allocated "
            "devices are no longer healthy; cannot allocate unhealthy devices "
            "nvidia.com/mig-1g.10gb, which is unexpected",
            "kubelet-device-unhealthy",
            ("nvidia.com/mig-1g.10gb: previously allocated devices", "Xid"),
        ),
        (
            "  Warning  UnexpectedAdmissionError  3m    kubelet  Allocate failed due to cannot "
            "allocate unregistered device nvidia.com/gpu, which is unexpected",
            "kubelet-device-unregistered",
            ("no device plugin registered for nvidia.com/gpu", "device plugin pod"),
        ),
        (
            "  Warning  UnexpectedAdmissionError  8s    kubelet  Allocate failed due to unknown "
            "Device Plugin nvidia.com/gpu, which is unexpected",
            "kubelet-device-unregistered",
            ("registered for nvidia.com/gpu", "register"),
        ),
        (
            'E0312 08:14:22.512301    2211 kubelet.go:2050] "Error syncing pod, skipping" '
            'err="endpoint not found in cache for a registered resource: nvidia.com/gpu" '
            'pod="default/cuda-vectoradd"',
            "kubelet-device-unregistered",
            ("registered for nvidia.com/gpu when", "Allocatable"),
        ),
        (
            "  Warning  OutOfnvidia.com/gpu  10s   kubelet  Node didn't have enough resource: "
            "nvidia.com/gpu, requested: 2, used: 1, capacity: 2",
            "kubelet-out-of-gpu",
            ("2 nvidia.com/gpu requested with 1 in use of 2 allocatable", "nodeSelector"),
        ),
        (
            'The Pod "gpu-pod" is invalid: spec.containers[0].resources.limits[nvidia.com/gpu]: '
            'Invalid value: "500m": must be an integer',
            "k8s-gpu-fraction",
            ("asks for 500m of nvidia.com/gpu", "time-slicing"),
        ),
        (
            'The Pod "cuda-test" is invalid: spec.containers[0].resources.requests: Invalid '
            'value: "1": must be equal to nvidia.com/gpu limit of 2',
            "k8s-extended-resource-request",
            ("request 1 of nvidia.com/gpu differs from its limit", "resources.limits"),
        ),
        (
            'The Pod "gpu-pod" is invalid: spec.containers[0].resources.limits: Required '
            "value: Limit must be set for non overcommitable resources",
            "k8s-extended-resource-no-limit",
            ("needs a limit", "resources.limits"),
        ),
        (
            "  Warning  FailedCreatePodSandBox  5s    kubelet  Failed to create pod sandbox: rpc "
            "error: code = Unknown desc = failed to find runtime handler nvidia from runtime list "
            "map[crun:0xc000412a80 runc:0xc000412b00]",
            "containerd-no-nvidia-runtime",
            ("no runtime of that handler's name", "--runtime=crio"),
        ),
        (
            "  Warning  FailedCreatePodSandBox  4s    kubelet  Failed to create pod sandbox: rpc "
            "error: code = Unknown desc = failed to get sandbox runtime: no runtime for "
            '"nvidia-cdi" is configured',
            "containerd-no-nvidia-runtime",
            ("K3s", "config.toml.tmpl"),
        ),
        (
            "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to create "
            "containerd task: failed to create shim task: OCI runtime create failed: unable to "
            "retrieve OCI runtime error (open /run/containerd/io.containerd.runtime.v2.task/k8s.io/"
            "9c0e/log.json: no such file or directory): fork/exec /usr/local/nvidia/toolkit/"
            "nvidia-container-runtime: no such file or directory: unknown",
            "container-hook-missing",
            ("GPU Operator's toolkit container", "nvidia-container-toolkit-daemonset"),
        ),
    ],
)
def test_kubernetes_refusals_are_named_with_their_numbers(
    read: Read, matrix: Matrix, line: str, code: str, words: tuple[str, str]
) -> None:
    in_cause, in_fix = words
    (found,) = error_lines(findings_of(read, matrix, line + "\n"), code)
    assert found.severity is Severity.ERROR
    assert in_cause in found.detail
    assert in_fix in found.fix


def test_no_cdi_device_listed_is_a_warning(read: Read, matrix: Matrix) -> None:
    (found,) = error_lines(
        findings_of(read, matrix, "INFO[0000] Found 0 CDI devices\n"), "cdi-no-devices"
    )
    assert found.severity is Severity.WARN
    assert "nvidia-ctk cdi generate" in found.fix


_SMI_HEADER = "| NVIDIA-SMI 550.54.15    Driver Version: 550.54.15    CUDA Version: 12.4     |\n"


@pytest.mark.parametrize(
    "line",
    [
        # the kubelet's admission check for cpu or memory is not a GPU's
        "  Warning  OutOfcpu  10s   kubelet  Node didn't have enough resource: cpu, requested: "
        "2000, used: 3000, capacity: 4000",
        # a handler of another runtime (Kata) is not the NVIDIA runtime's
        "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to find runtime "
        "handler kata from runtime list map[runc:0xc000412b00]",
        # an integer that is not a resource quantity, a cpu quantity
        'spec.containers[0].resources.limits[cpu]: Invalid value: "0.5": must be an integer',
        # requests above the limit of cpu, which may be overcommitted, are not the GPU's rule
        'spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal '
        "to cpu limit of 1",
        # a listing that found devices
        "INFO[0000] Found 9 CDI devices",
        # another program's exec of a missing file
        "fork/exec /usr/bin/runc: no such file or directory: unknown",
    ],
)
def test_near_misses_are_not_named(read: Read, matrix: Matrix, line: str) -> None:
    # after a line that gives a fact, so that the paste is read even when nothing in it is named
    findings = findings_of(read, matrix, _SMI_HEADER + line + "\n")
    for code in (
        "kubelet-out-of-gpu",
        "containerd-no-nvidia-runtime",
        "k8s-gpu-fraction",
        "k8s-extended-resource-request",
        "cdi-no-devices",
        "container-hook-missing",
    ):
        assert error_lines(findings, code) == []


_NORMAL_EVENTS = """\
Events:
  Type    Reason     Age   From               Message
  ----    ------     ----  ----               -------
  Normal  Scheduled  12s   default-scheduler  Successfully assigned default/cuda-vectoradd to gpu-node-1
  Normal  Pulled     11s   kubelet            Container image "nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0" already present on machine
  Normal  Created    11s   kubelet            Created container cuda-vectoradd
  Normal  Started    10s   kubelet            Started container cuda-vectoradd
"""  # noqa: E501


def test_a_normal_events_block_raises_nothing(read: Read, matrix: Matrix) -> None:
    assert warn_or_error(findings_of(read, matrix, _NORMAL_EVENTS)) == []


@pytest.mark.parametrize(
    ("line", "code", "words"),
    [
        (
            "  Warning  TopologyAffinityError  10m   kubelet  Resources cannot be allocated with "
            "Topology locality",
            "kubelet-topology-affinity",
            ("single-numa-node", "nvidia-smi topo -m"),
        ),
        (
            "  Warning  FailedScheduling  30s   default-scheduler  0/3 nodes are available: 3 "
            "cannot allocate all claims. preemption: 0/3 nodes are available: 3 Preemption is not "
            "helpful for scheduling.",
            "k8s-dra-claims-unallocatable",
            ("ResourceSlices", "kubectl get resourceslices"),
        ),
    ],
)
def test_topology_and_dra_refusals_are_named(
    read: Read, matrix: Matrix, line: str, code: str, words: tuple[str, str]
) -> None:
    in_cause, in_fix = words
    findings = findings_of(read, matrix, line + "\n")
    (found,) = error_lines(findings, code)
    assert found.severity is Severity.ERROR
    assert in_cause in found.detail
    assert in_fix in found.fix
    # named by its own entry, not also by the scheduler's other entries
    assert error_lines(findings, "k8s-insufficient-gpu") == []
