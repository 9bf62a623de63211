"""Lines from multi-GPU hosts read on unseen threads (round 16): an NCCL 'Cuda failure' that says
peer access is not supported is the P2P topology's error, not the NCCL build's, and it explains
the generic 'unhandled cuda error'; NCCL's queue-pair failure is the pinned-memory limit's message
as much as ibv_reg_mr's (NCCL's troubleshooting page names both), with or without the NCCL word
older releases left out; and "k8s" as a folder of an image path is no Kubernetes cluster."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.checks import run_checks
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix

Read = Callable[[str], HostFacts]


def _lines(read: Read, matrix: Matrix, text: str) -> dict[str, Severity]:
    findings = run_checks(read(text + "\n"), matrix).findings
    return {f.subject: f.severity for f in findings if f.code == "report-error"}


def test_an_nccl_cuda_failure_of_peer_access_names_the_p2p_cause(
    read: Read, matrix: Matrix
) -> None:
    text = (
        "[2025-09-09 23:51:24] 9b405963aa12:774:854 [0] transport/shm.cc:590 NCCL WARN Cuda "
        "failure 217 'peer access is not supported between these two devices'"
    )
    assert _lines(read, matrix, text) == {"cuda-peer-access-unsupported": Severity.ERROR}
    # near miss: another CUDA error inside NCCL stays NCCL's generic line
    other = (
        "node1:1234:1234 [0] enqueue.cc:1556 NCCL WARN Cuda failure 209 'no kernel image is "
        "available for execution on the device'"
    )
    assert _lines(read, matrix, other) == {"nccl-cuda-failure": Severity.ERROR}


def test_peer_access_explains_nccls_unhandled_cuda_error(read: Read, matrix: Matrix) -> None:
    unhandled = (
        "RuntimeError: NCCL error in: /opt/conda/conda-bld/pytorch/work/torch/lib/c10d/"
        "ProcessGroupNCCL.cpp:784, unhandled cuda error, NCCL version 2.7.8"
    )
    warn = (
        "z-pc:909608:910337 [0] transport/p2p.cc:238 NCCL WARN failed to open CUDA IPC handle : "
        "217 peer access is not supported between these two devices"
    )
    assert _lines(read, matrix, unhandled + "\n" + warn) == {
        "nccl-unhandled-cuda-error": Severity.INFO,
        "cuda-peer-access-unsupported": Severity.ERROR,
    }
    # alone, the generic line stays the error
    assert _lines(read, matrix, unhandled) == {"nccl-unhandled-cuda-error": Severity.ERROR}


def test_a_queue_pair_that_cannot_be_created_is_the_memlock_limit(
    read: Read, matrix: Matrix
) -> None:
    for line in (
        "node08:6561:6620 [0] misc/ibvwrap.cc:280 NCCL WARN Call to ibv_create_qp failed",
        "machine [0] misc/ibvwrap.cu:269 WARN Call to ibv_create_qp failed",
    ):
        findings = run_checks(read(line + "\n"), matrix).findings
        (error,) = [f for f in findings if f.code == "report-error"]
        assert error.subject == "nccl-ib-register-failed"
        assert "ulimit -l" in error.detail
        assert "memlock" in error.fix
    # it names why NCCL's 'unhandled system error' came
    text = (
        "machine [0] misc/ibvwrap.cu:269 WARN Call to ibv_create_qp failed\n"
        "Failed, NCCL error test_nccl.c:99 'unhandled system error'"
    )
    assert _lines(read, matrix, text) == {
        "nccl-ib-register-failed": Severity.ERROR,
        "nccl-unhandled-system-error": Severity.INFO,
    }
    # near misses: bringing a queue pair up is the fabric's (nccl-ib-qp-failed), and NCCL's
    # InfiniBand info line is no failure
    modify = (
        "node1:1 [0] misc/ibvwrap.cc:284 NCCL WARN Call to ibv_modify_qp failed with error "
        "Invalid argument"
    )
    assert _lines(read, matrix, modify) == {"nccl-ib-qp-failed": Severity.ERROR}
    assert "nccl-ib-register-failed" not in _lines(
        read, matrix, "node08:6561:6561 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ibs3"
    )


def test_k8s_in_an_image_path_is_no_cluster(read: Read) -> None:
    run = (
        "# docker run --rm --gpus all nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0\n"
        "Failed to allocate device vector A (error code CUDA driver version is insufficient for "
        "CUDA runtime version)!"
    )
    assert read(run + "\n").platform.kubernetes is not True
    # near miss: the word itself still names the cluster
    said = "I run the same sample on k8s and get\n" + run.splitlines()[1]
    assert read(said + "\n").platform.kubernetes is True
