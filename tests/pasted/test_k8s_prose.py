"""Kubernetes facts said in prose rather than shown by kubectl. A node that advertises no
nvidia.com/gpu: read as the reading `kubectl describe node` gives (Allocatable without
nvidia.com/gpu, on a node said to have GPUs) and judged by k8s-gpu-unhealthy; a node short of
free GPUs, a pod's own request and a node that does advertise GPUs are not read so. A pod that
asks for no GPU: the reading of a pod's Limits without a GPU resource, judged against what
nvidia-smi lists inside it (k8s-pod-extra-gpus); a pod that sees no GPU is not read so."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import findings_of

Read = Callable[[str], HostFacts]


@pytest.mark.parametrize(
    "prose",
    [
        "After installing the operator the node does not show any nvidia.com/gpu resource.",
        "My GPU nodes don't advertise nvidia.com/gpu at all.",
        "nvidia.com/gpu is not listed in the node's Allocatable section.",
        "kubectl describe node: Allocatable nvidia.com/gpu is 0 although nvidia-smi works",
        "the node reports nvidia.com/gpu: 0 after the upgrade",
        "There are no GPU resources on the node after a reboot.",
        "GPU resources are not showing up on my worker",
    ],
)
def test_a_node_said_to_advertise_no_gpu_is_judged(read: Read, matrix: Matrix, prose: str) -> None:
    facts = read(prose + "\n")
    assert facts.platform.k8s_gpu_allocatable == 0
    (found,) = [f for f in findings_of(read, matrix, prose + "\n") if f.code == "k8s-gpu-unhealthy"]
    assert found.severity is Severity.WARN
    assert "as the report says" in found.title
    assert "plugin pod" in found.fix


@pytest.mark.parametrize(
    "prose",
    [
        # all GPUs in use: a pending pod's scheduling, not a node without the resource
        "The node does not have enough GPU resources for the second pod.",
        "the pod does not request nvidia.com/gpu, yet it sees every GPU",
        "the node shows nvidia.com/gpu: 8 and all of them are allocated",
        "nvidia.com/gpu: 1 but the pod is not showing any GPU",
        "There is no nvidia.com/gpu limit on this pod.",
    ],
)
def test_other_sentences_are_no_such_reading(read: Read, prose: str) -> None:
    facts = read("NVIDIA-SMI 550.54.15 Driver Version: 550.54.15 CUDA Version: 12.4\n" + prose)
    assert facts.platform.k8s_gpu_allocatable != 0


def test_a_describe_block_wins_over_the_words(read: Read) -> None:
    paste = (
        "the node does not show any nvidia.com/gpu\n"
        "Capacity:\n  cpu:  8\n  nvidia.com/gpu:  2\n  pods:  110\n"
        "Allocatable:\n  cpu:  8\n  nvidia.com/gpu:  2\n  pods:  110\n"
    )
    facts = read(paste)
    assert facts.platform.k8s_gpu_allocatable == 2


_EXEC = (
    "kubectl exec -it web-0 -- nvidia-smi -L\n"
    "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-1a2b3c4d-0000-0000-0000-000000000001)\n"
    "GPU 1: NVIDIA A100-SXM4-80GB (UUID: GPU-1a2b3c4d-0000-0000-0000-000000000002)\n"
)


@pytest.mark.parametrize(
    "prose",
    [
        "# a pod without any GPU request",
        "Containers that don't request nvidia.com/gpu can still use every GPU:",
        "Our CPU-only pods see the GPUs of the node",
        "the deployment has no GPU limits (w/o nvidia.com/gpu) and still:",
    ],
)
def test_a_pod_said_to_ask_for_no_gpu_is_judged(read: Read, matrix: Matrix, prose: str) -> None:
    paste = prose + "\n" + _EXEC
    assert read(paste).platform.k8s_gpu_requested == 0
    (found,) = [f for f in findings_of(read, matrix, paste) if f.code == "k8s-pod-extra-gpus"]
    assert found.severity is Severity.WARN
    assert "lists 2 GPUs" in found.title


@pytest.mark.parametrize(
    "prose",
    [
        "the pod with no GPU visible fails to start",
        "the container does not see any GPU",
        "a pod without access to the GPU",
    ],
)
def test_a_pod_that_sees_no_gpu_is_no_request(read: Read, prose: str) -> None:
    assert read(prose + "\n" + _EXEC).platform.k8s_gpu_requested is None
