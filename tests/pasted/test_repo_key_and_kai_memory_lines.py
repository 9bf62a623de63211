"""NVIDIA's package repositories refused for their signing key (the CUDA repository's key
rotation of April 2022, the container toolkit repository's key) and KAI Scheduler's GPU memory
requests that no node's GPUs hold (a node without the nvidia.com/gpu.memory label counts 100 MiB).
Each line is named by its entry with the line's values; another vendor's key and KAI's other
resources are not."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.matrix.signatures import load_signatures
from gpudoctor.pasted.dispatch import read_report
from tests.support.pasted_findings import findings_of, named_lines

Read = Callable[[str], HostFacts]


@pytest.fixture
def read(matrix: Matrix) -> Read:
    return lambda text: read_report(text, "paste.txt", matrix.architectures)


def _subjects(read: Read, matrix: Matrix, text: str) -> set[str]:
    return {f.subject for f in findings_of(read, matrix, text) if f.code == "report-error"}


@pytest.mark.parametrize(
    "line",
    [
        "W: GPG error: https://developer.download.nvidia.com/compute/cuda/repos/ubuntu1804/x86_64"
        "  InRelease: The following signatures couldn't be verified because the public key is "
        "not available: NO_PUBKEY A4B469963BF863CC",
        "Err:5 https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64  "
        "InRelease\n  The following signatures couldn't be verified because the public key is "
        "not available: NO_PUBKEY A4B469963BF863CC",
        "E: The repository 'https://nvidia.github.io/libnvidia-container/stable/ubuntu18.04/amd64"
        "  InRelease' is not signed. The following signatures were invalid: EXPKEYSIG "
        "6ED91CA3AC1160CD NVIDIA CORPORATION (Open Source Projects) <cudatools@nvidia.com>",
        'The GPG keys listed for the "cuda-rhel9-x86_64" repository are already installed but '
        "they are not correct for this package.",
    ],
)
def test_nvidia_repository_key_lines_are_named(read: Read, matrix: Matrix, line: str) -> None:
    (found,) = named_lines(read, matrix, line + "\n", "nvidia-repo-key")
    assert found.severity is Severity.ERROR
    assert "April 2022" in found.detail
    assert "cuda-keyring" in found.fix
    assert "libnvidia-container/gpgkey" in found.fix


def test_another_vendors_repository_key_is_not_nvidias(read: Read, matrix: Matrix) -> None:
    for line in (
        "W: GPG error: https://download.docker.com/linux/ubuntu jammy InRelease: The following "
        "signatures couldn't be verified because the public key is not available: NO_PUBKEY "
        "7EA0A9C3F273FCD8",
        "The following signatures were invalid: EXPKEYSIG 34EF51520DCB6543 ArrayFire "
        "<technical@arrayfire.com>",
    ):
        assert not load_signatures().by_code["nvidia-repo-key"].compiled.search(line)


def test_a_gpu_memory_request_on_a_node_without_the_memory_label(
    read: Read, matrix: Matrix
) -> None:
    line = (
        "Node didn't have enough resources: Each gpu on the node has a gpu memory capacity of "
        "100 Mib. 4096 Mib of gpu memory has been requested."
    )
    (found,) = named_lines(read, matrix, line + "\n", "kai-gpu-memory-label-missing")
    assert found.severity is Severity.ERROR
    assert "4096 MiB" in found.detail
    assert "nvidia.com/gpu.memory" in found.fix
    # Near miss: a node that has the label and less memory than asked is the generic entry's
    line = line.replace(" 100 Mib", " 24500 Mib")
    assert _subjects(read, matrix, line + "\n") == {"kai-gpu-memory-insufficient"}


def test_kai_scheduler_event_for_gpu_memory(read: Read, matrix: Matrix) -> None:
    event = (
        "  Warning  FailedScheduling  12s  kai-scheduler  no nodes with enough resources were "
        "found: 1 node(s) didn't have enough resources: GPU memory."
    )
    (found,) = named_lines(read, matrix, event + "\n", "kai-gpu-memory-insufficient")
    assert found.severity is Severity.ERROR
    assert "nvidia.com/gpu.memory" in found.detail
    # Near miss: whole GPUs (or CPU) that no node has free are not a GPU memory request
    other = event.replace("GPU memory.", "GPUs.")
    subjects = _subjects(read, matrix, other + "\n")
    assert not subjects & {"kai-gpu-memory-insufficient", "kai-gpu-memory-label-missing"}
