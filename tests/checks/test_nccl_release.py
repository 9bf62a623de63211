"""The NCCL release in use against the matrix's [[nccl]] rows (read from NCCL's source): a
known-bad release/architecture pair and its fixing release, the architectures a build of known
CUDA compiles, and nvidia-peermem that NCCL before 2.23.4 does not see."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpudoctor.checks.base import Intent
from gpudoctor.checks.nccl import check_gpudirect_rdma
from gpudoctor.checks.nccl_release import check_nccl_gpu_support, nccl_in_use
from gpudoctor.facts import BundledLib, FrameworkFacts, HostFacts, LibraryFact
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.hosts import host


def _with_nccl(name: str, version: str, *, logged: bool = False) -> HostFacts:
    facts = host(name)
    if logged:
        lib = LibraryFact("libnccl", "(named in the report)", version)
        return replace(facts, cuda_libs=replace(facts.cuda_libs, nccl=(lib,)))
    torch = FrameworkFacts(
        "torch", "2.7.0+cu128", cuda="12.8", cpu_only=False,
        bundled=(BundledLib("nvidia-nccl-cu12", version),),
    )  # fmt: skip
    return replace(facts, frameworks=(torch,))


def _judge(facts: HostFacts, matrix: Matrix) -> tuple[Severity, str, str]:
    (f,) = check_nccl_gpu_support(facts, matrix, Intent())
    return f.severity, f.title, f.fix


@pytest.mark.parametrize(
    ("fixture", "version", "logged", "severity"),
    [
        ("rtx5090-r570-86", "2.25.1", False, Severity.ERROR),  # known bad on 12.0
        ("rtx5090-r570-86", "2.26.2", False, Severity.OK),  # the fixing release
        ("h100-r580", "2.25.1", False, Severity.OK),  # bad only on 12.0
        ("rtx5090-r570-86", "2.21.5+cuda12.4", True, Severity.INFO),  # compute_90 PTX JIT
        ("rtx5090-r570-86", "2.27.3+cuda12.8", True, Severity.OK),  # sm_120 compiled
        ("h100-r580", "2.21.5+cuda12.2", True, Severity.OK),
    ],
)
def test_nccl_against_the_gpus(
    fixture: str, version: str, logged: bool, severity: Severity, matrix: Matrix
) -> None:
    found, title, fix = _judge(_with_nccl(fixture, version, logged=logged), matrix)
    assert found is severity, title
    if severity is Severity.ERROR:
        assert "fails on GPU 0" in title
        assert "NCCL 2.26.2 or newer" in fix


def test_what_runs_is_a_logged_version_before_the_wheel_pin(matrix: Matrix) -> None:
    facts = _with_nccl("h100-r580", "2.21.5")
    logged = LibraryFact("libnccl", "(named in the report)", "2.18.1+cuda12.1")
    facts = replace(facts, cuda_libs=replace(facts.cuda_libs, nccl=(logged,)))
    nccl = nccl_in_use(facts)
    assert nccl is not None
    assert (nccl.version, nccl.build_cuda) == ("2.18.1", "12.1")
    assert nccl_in_use(host("h100-r580")) is None


def test_nothing_known_is_not_judged(matrix: Matrix) -> None:
    (f,) = check_nccl_gpu_support(host("h100-r580"), matrix, Intent())
    assert f.severity is Severity.NA


def test_peermem_unseen_by_an_old_nccl(matrix: Matrix) -> None:
    base = host("hgx-h100-healthy")
    assert "nvidia_peermem" in base.kernel.modules_loaded

    def rdma(version: str, clients: tuple[str, ...] | None) -> Severity:
        facts = _with_nccl("hgx-h100-healthy", version)
        facts = replace(facts, kernel=replace(facts.kernel, peer_memory_clients=clients))
        (f,) = check_gpudirect_rdma(facts, matrix, Intent())
        return f.severity

    assert rdma("2.21.5", ()) is Severity.WARN  # looks only for nv_peer_mem's nv_mem
    assert rdma("2.21.5", ("nv_mem",)) is Severity.OK  # registered through peer memory
    assert rdma("2.23.4", ()) is Severity.OK  # checks /sys/module/nvidia_peermem
    assert rdma("2.21.5", None) is Severity.OK  # not probed: not judged


def test_a_pasted_nccl_log_is_judged(matrix: Matrix) -> None:
    from gpudoctor.pasted.dispatch import read_report

    facts = read_report(
        "#  Rank  0 Group  0 Pid 4766 on GENOA-06 device  0 [0x21] NVIDIA GeForce RTX 5090\n"
        "GENOA-06:4766:4766 [0] NCCL INFO NCCL version 2.25.1+cuda12.8\n",
        "p.txt",
        matrix.architectures,
    )
    found, title, _ = _judge(facts, matrix)
    assert found is Severity.ERROR
    assert "NCCL 2.25.1+cuda12.8 fails on GPU 0" in title
