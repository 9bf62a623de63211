"""A GPU the installed driver branch cannot drive: a GPU newer than the branch (an RTX 5090 under
R550), or one whose architecture's last branch is older (a Kepler card under R535).

The matrix holds both facts: each architecture's first CUDA release (`min_cuda`) with each CUDA
release's minimum driver, and each branch that is the last for some architectures
(`last_for`: R470 for Kepler, R580 for Maxwell, Pascal and Volta). A driver lists only the GPUs
it drives, so a GPU the driver itself enumerated (NVML gave its UUID, memory or PCI address) is
never judged here: only one known by name from elsewhere (lspci, a prose environment list) next to
the driver's version.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpudoctor import versions
from gpudoctor.checks.base import Intent, finding
from gpudoctor.facts_view import driver_version
from gpudoctor.findings import ERROR, NA, OK, Finding
from gpudoctor.matrix.queries import (
    architecture_for,
    min_driver_for_cuda,
    newest_cuda_for_driver,
)

if TYPE_CHECKING:
    from gpudoctor.facts import GpuFacts, HostFacts
    from gpudoctor.matrix.model import Architecture, Matrix

CODE = "driver-gpu-unsupported"
_FIRST_BRANCH = 100  # a lone number below it is no driver branch


def listed_by_driver(gpu: GpuFacts) -> bool:
    """The driver enumerated this GPU: only NVML (or nvidia-smi) gives these facts."""
    return bool(gpu.uuid or gpu.memory_total_bytes or gpu.pci_bus_id or gpu.lost) or (
        gpu.minor_number is not None
    )


def driver_release(driver: str) -> str | None:
    """The driver's release as dotted numbers ("550.54.15+open" -> "550.54.15"); a branch told
    alone ("driver 550") as its newest possible release, so a branch is never judged older than
    it is; None for a text that is not one (N/A, a word)."""
    parts = versions.release(driver)
    if parts and len(parts) == 1 and parts[0] >= _FIRST_BRANCH:
        return f"{parts[0]}.999"
    return ".".join(str(p) for p in parts) if parts and len(parts) >= 2 else None


def driver_predates(matrix: Matrix, driver: str, arch: Architecture) -> str | None:
    """Why `driver` cannot drive a GPU of `arch`, or None when it can or the matrix cannot say.

    Newer GPU: the newest CUDA the driver runs natively is older than the CUDA release before
    the architecture's first one. One release of slack, because a branch may drive a GPU
    before the toolkit that generates its code ships (the GPU runs PTX JIT-compiled by that
    driver), so only a branch two releases behind is certain not to know it."""
    dotted = driver_release(driver)
    if dotted is None:
        return None
    parts = versions.numeric(dotted)
    newest = newest_cuda_for_driver(matrix, dotted)
    first = versions.numeric(arch.min_cuda)[:2]
    earlier = sorted({versions.numeric(r.version)[:2] for r in matrix.cuda if r.min_driver_linux})
    earlier = [m for m in earlier if m < first]
    if newest is not None and earlier and versions.numeric(newest.version)[:2] < earlier[-1]:
        need = min_driver_for_cuda(matrix, arch.min_cuda)
        return (
            f"{arch.name} GPUs came with CUDA {arch.min_cuda}"
            + (f", whose drivers start at {need}" if need else "")
            + f"; driver {driver} runs CUDA {versions.major_minor(newest.version)} at most and "
            "predates them"
        )
    for branch in matrix.driver_branches:
        if arch.name in branch.last_for and parts[0] > int(branch.branch):
            return (
                f"R{branch.branch} is the last driver branch for {arch.name} GPUs; driver "
                f"{driver} is of a later branch that no longer drives them"
            )
    return None


def _fix(matrix: Matrix, arch: Architecture) -> str:
    last = next((b.branch for b in matrix.driver_branches if arch.name in b.last_for), None)
    if last is not None:
        return (
            f"install the R{last} driver branch (NVIDIA's legacy driver for {arch.name}), or a "
            "newer GPU; with it, CUDA and frameworks that still support this architecture"
        )
    need = min_driver_for_cuda(matrix, arch.min_cuda)
    flavor = " with the open kernel modules (nvidia-open)" if arch.open_module_only else ""
    return (
        f"install a driver{flavor} of a branch that lists this GPU"
        + (f" (>= {need}, the first for CUDA {arch.min_cuda})" if need else "")
        + ", reboot, and check `nvidia-smi` lists the GPU"
    )


def check_driver_gpu_support(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    version = driver_version(facts)
    named = [g for g in facts.nvml.gpus if g.compute_capability and not listed_by_driver(g)]
    ev = [("driver_version", version), ("gpus_named_not_listed", [g.name for g in named])]
    if version is None or not named:
        why = (
            "no driver version known"
            if version is None
            else "the driver lists the GPUs itself (so it drives them), or none is named"
        )
        return [finding(CODE, NA, why, evidence=ev)]
    dotted = driver_release(version)
    if dotted is None or newest_cuda_for_driver(matrix, dotted) is None:
        why = f"driver {version} is not a release the matrix knows"
        return [finding(CODE, NA, why, evidence=ev)]
    judged = [(g, a) for g in named if (a := architecture_for(matrix, g.compute_capability or ""))]
    if not judged:
        why = "the named GPUs' architectures are not in the matrix"
        return [finding(CODE, NA, why, evidence=ev)]
    for gpu, arch in judged:
        reason = driver_predates(matrix, version, arch)
        if reason is None:
            continue
        return [
            finding(
                CODE,
                ERROR,
                f"driver {version} does not drive {gpu.name or 'this GPU'} ({arch.name}, "
                f"compute capability {gpu.compute_capability})",
                detail=f"{reason}: the module loads but finds no GPU it supports ('NVRM: ... is "
                "not supported by the ... driver release', nvidia-smi 'No devices were found')",
                fix=_fix(matrix, arch),
                evidence=ev,
            )
        ]
    names = ", ".join(sorted({g.name or g.compute_capability or "" for g, _ in judged}))
    return [finding(CODE, OK, f"driver {version} drives {names}", evidence=ev)]


CHECKS = (check_driver_gpu_support,)
