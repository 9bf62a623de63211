"""--require: parsing (errors name the bad part) and evaluation against recorded hosts."""

from __future__ import annotations

import pytest

from gpudoctor.checks import Intent, run_checks
from gpudoctor.checks.base import Requirement
from gpudoctor.checks.requirements import parse_requirement
from gpudoctor.errors import UsageError
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.hosts import host


@pytest.mark.parametrize(
    ("text", "key", "op", "value"),
    [
        ("driver>=550", "driver", ">=", (550,)),
        (" driver >= 550.90.07 ", "driver", ">=", (550, 90, 7)),
        ("cuda=12.1", "cuda", "==", (12, 1)),
        ("gpus>=8", "gpus", ">=", (8,)),
        ("memory>=40GiB", "memory", ">=", 40 * 2**30),
        ("memory>40GB", "memory", ">", 40e9),
        ("memory<=512MiB", "memory", "<=", 512 * 2**20),
        ("compute_capability>=8.0", "compute_capability", ">=", (8, 0)),
        ("compute-capability!=9.0", "compute_capability", "!=", (9, 0)),
        ("mig=off", "mig", "==", "off"),
        ("iommu==ON", "iommu", "==", "on"),
        ("runtime=nvidia", "runtime", "==", "nvidia"),
    ],
)
def test_parse(text: str, key: str, op: str, value: object) -> None:
    assert parse_requirement(text) == Requirement(text, key, op, value)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("drivr>=550", "unknown key 'drivr' in 'drivr>=550'; keys: driver, cuda, gpus"),
        ("driver>=55x", "'55x' is not a version in 'driver>=55x'"),
        ("driver", "'driver' is not a requirement: expected KEY OP VALUE"),
        ("memory>=40", "'40' is not a memory size in 'memory>=40'"),
        ("gpus>=two", "'two' is not a whole number in 'gpus>=two'"),
        ("mig>=on", "mig takes = or != only, not '>=' in 'mig>=on'"),
        ("iommu=maybe", "'maybe' is not on or off in 'iommu=maybe'"),
    ],
)
def test_parse_errors_name_the_bad_part(text: str, message: str) -> None:
    with pytest.raises(UsageError) as info:
        parse_requirement(text)
    assert info.value.message.startswith(message)
    assert info.value.exit_code == 2


def judge(name: str, matrix: Matrix, *texts: str) -> dict[str, Severity]:
    intent = Intent(requirements=tuple(parse_requirement(t) for t in texts))
    run = run_checks(host(name), matrix, intent)
    return {f.subject: f.severity for f in run.findings if f.area == "requirements"}


OK, ERR, UNK = Severity.OK, Severity.ERROR, Severity.UNKNOWN


def test_healthy_h100_host(matrix: Matrix) -> None:
    got = judge(
        "h100-8x-healthy", matrix,
        "driver>=550", "driver==550", "driver>550", "driver<560", "cuda>=12.1", "cuda>12.4",
        "gpus>=8", "gpus>8", "memory>=79GiB", "memory>=80GiB", "memory>=80GB",
        "compute_capability>=8.0", "compute_capability>9.0", "mig=off", "mig=on", "iommu=on",
        "runtime=nvidia", "runtime=cdi", "runtime!=nvidia",
    )  # fmt: skip
    assert got == {
        "driver>=550": OK, "driver==550": OK, "driver>550": ERR, "driver<560": OK,
        "cuda>=12.1": OK, "cuda>12.4": ERR, "gpus>=8": OK, "gpus>8": ERR,
        "memory>=79GiB": OK, "memory>=80GiB": ERR, "memory>=80GB": OK,
        "compute_capability>=8.0": OK, "compute_capability>9.0": ERR, "mig=off": OK,
        "mig=on": ERR, "iommu=on": OK, "runtime=nvidia": OK, "runtime=cdi": OK,
        "runtime!=nvidia": ERR,
    }  # fmt: skip


def test_mig_on_one_gpu_fails_mig_off(matrix: Matrix) -> None:
    assert judge("a100-mig-pending", matrix, "mig=off") == {"mig=off": ERR}


def test_no_gpu_host_fails_gpu_requirements(matrix: Matrix) -> None:
    got = judge("no-gpu-toolkit-only", matrix, "gpus>=1", "memory>=1GiB", "driver>=550")
    assert got == {"gpus>=1": ERR, "memory>=1GiB": ERR, "driver>=550": UNK}


def test_unknown_facts_give_unknown_and_fail_the_run(matrix: Matrix) -> None:
    """A broken driver: the GPU count cannot be known; an unjudgeable requirement fails."""
    intent = Intent(requirements=(parse_requirement("gpus>=2"), parse_requirement("iommu=on")))
    run = run_checks(host("driver-library-mismatch"), matrix, intent)
    req = [f for f in run.findings if f.area == "requirements"]
    assert [(f.code, f.severity) for f in req] == [
        ("requirement-gpus", UNK),
        ("requirement-iommu", OK),
    ]
    codes = {f.code for f in req}
    assert "requirement-gpus" in codes
    assert "requirement-iommu" in codes
    assert run.exit_code == 1


def test_wsl_iommu_unknown(matrix: Matrix) -> None:
    assert judge("wsl2", matrix, "iommu=off") == {"iommu=off": UNK}


def test_runtime_without_docker_is_unknown(matrix: Matrix) -> None:
    assert judge("wsl2", matrix, "runtime=nvidia") == {"runtime=nvidia": UNK}


def test_cuda_from_matrix_when_nvml_gives_none(matrix: Matrix) -> None:
    """The driver-library-mismatch host has a module version but no NVML CUDA version: the
    matrix's per-release table answers (550.90.07 runs up to CUDA 12.4)."""
    got = judge("driver-library-mismatch", matrix, "cuda>=12.4", "cuda>=12.5")
    assert got == {"cuda>=12.4": OK, "cuda>=12.5": ERR}


CODES = ("requirement-driver", "requirement-cuda", "requirement-gpus", "requirement-memory",
         "requirement-compute-capability", "requirement-mig", "requirement-iommu",
         "requirement-runtime")  # fmt: skip


def test_codes_per_key(matrix: Matrix) -> None:
    texts = ("driver>=1", "cuda>=1", "gpus>=1", "memory>=1GiB", "compute_capability>=1.0",
             "mig=off", "iommu=on", "runtime=nvidia")  # fmt: skip
    intent = Intent(requirements=tuple(parse_requirement(t) for t in texts))
    run = run_checks(host("h100-8x-healthy"), matrix, intent)
    assert tuple(f.code for f in run.findings if f.area == "requirements") == CODES
