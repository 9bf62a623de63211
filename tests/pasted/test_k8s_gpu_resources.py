"""Kubernetes GPU resources as the scheduler and the API print them: any GPU extended resource
the scheduler finds no room for (nvidia.com/gpu, its time-sliced .shared name, a vGPU
scheduler's volcano.sh/vgpu-number) is named with the resource it states; a MIG profile keeps
its own signature."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of

Read = Callable[[str], HostFacts]


@pytest.mark.parametrize(
    ("line", "resource"),
    [
        (
            "  Warning  FailedScheduling  36m   volcano  0/3 nodes are unavailable: 1 no enough "
            "gpu cards on node node-1, 2 Insufficient volcano.sh/vgpu-number.",
            "volcano.sh/vgpu-number",
        ),
        (
            "0/4 nodes are available: 4 Insufficient nvidia.com/gpu.shared. preemption: 0/4 "
            "nodes are available: 4 No preemption victims found for incoming pod.",
            "nvidia.com/gpu.shared",
        ),
        (
            "Warning  FailedScheduling  26m (x150 over 12h)  default-scheduler  0/1 nodes are "
            "available: 1 Insufficient nvidia.com/gpu. preemption: 0/1 nodes are available",
            "nvidia.com/gpu",
        ),
    ],
)
def test_an_insufficient_gpu_resource_is_named_with_its_name(
    read: Read, matrix: Matrix, line: str, resource: str
) -> None:
    (found,) = error_lines(findings_of(read, matrix, line + "\n"), "k8s-insufficient-gpu")
    assert f"no node advertises a free {resource}:" in found.detail


@pytest.mark.parametrize(
    "line",
    [
        # a MIG profile: its own signature
        "0/1 nodes are available: 1 Insufficient nvidia.com/mig-1g.5gb.",
        # not a GPU resource
        "0/3 nodes are available: 3 Insufficient cpu, 3 Insufficient memory.",
        "0/2 nodes are available: 2 Insufficient example.com/fpga.",
    ],
)
def test_other_resources_are_not_the_gpu_line(read: Read, matrix: Matrix, line: str) -> None:
    text = "$ kubectl describe pod gpu-pod\n" + line + "\n"
    assert error_lines(findings_of(read, matrix, text), "k8s-insufficient-gpu") == []
