"""GPU feature discovery's nvidia.com/cuda.* labels said to be missing on a node: GFD writes them
from NVML, so the line names GFD's NVML as the cause; a pasted label with its value, or a
sentence about another label, is not named."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.dispatch import read_report
from tests.support.pasted_findings import named_lines

Read = Callable[[str], HostFacts]
CODE = "gfd-cuda-labels-missing"


@pytest.fixture
def read(matrix: Matrix) -> Read:
    return lambda text: read_report(text, "paste.txt", matrix.architectures)


@pytest.mark.parametrize(
    "text",
    [
        "all gpu-operator pods run, but nvidia.com/cuda.driver.major is missing on node gpu-3\n",
        "GFD does not add the nvidia.com/cuda.runtime.major label: it is not generated\n",
        "No nvidia.com/cuda.* labels on the new node\n",
    ],
)
def test_missing_cuda_labels_name_gfds_nvml(read: Read, matrix: Matrix, text: str) -> None:
    (found,) = named_lines(read, matrix, text, CODE)
    assert found.severity is Severity.ERROR  # alone, the line is the report's one problem
    assert "NVML" in found.detail


@pytest.mark.parametrize(
    "text",
    [
        # the labels themselves, as `kubectl describe node` prints them
        "Labels:             nvidia.com/cuda.driver.major=12\n"
        "                    nvidia.com/cuda.driver.minor=2\n"
        "                    nvidia.com/gpu.product=NVIDIA-A100-SXM4-80GB\n",
        # another label missing is not GFD's NVML
        "the nvidia.com/gpu.deploy.driver label is missing on node gpu-3\n"
        "nvidia.com/cuda.driver.major=12\n",
        # a host name that ends in "no" before the label
        "kubernetes.io/hostname=gpu-nano,nvidia.com/cuda.driver.major=12\n",
    ],
)
def test_cuda_labels_shown_are_not_named(read: Read, matrix: Matrix, text: str) -> None:
    assert not named_lines(read, matrix, text, CODE)
