"""The NCCL release in use against the matrix's [[nccl]] rows (from NCCL's own source): the
architectures its build compiles, a GPU architecture the release is known to fail on (and the
release that fixes it), and whether it finds GPUDirect RDMA through nvidia-peermem. One home
for "which NCCL runs here" and "what the matrix says of it", used by the live check and by a
pasted NCCL log alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpudoctor import versions
from gpudoctor.checks.base import Intent, finding
from gpudoctor.facts import NAMED_IN_REPORT
from gpudoctor.facts_view import live_gpus
from gpudoctor.findings import ERROR, INFO, NA, OK, Finding
from gpudoctor.matrix.queries import arch_list_covers

if TYPE_CHECKING:
    from gpudoctor.facts import GpuFacts, HostFacts
    from gpudoctor.matrix.model import Matrix, NcclRelease

CODE = "nccl-gpu-support"
REPORTED = NAMED_IN_REPORT  # LibraryFact.path of a version a pasted log states


@dataclass(frozen=True)
class NcclInUse:
    version: str  # "2.25.1"
    build_cuda: str | None  # "12.8" when the version line says "+cuda12.8"
    where: str  # "the report's NCCL log", "torch's nvidia-nccl-cu12 wheel", a library path


def nccl_in_use(facts: HostFacts) -> NcclInUse | None:
    """What NCCL runs: a version a pasted log states (it ran), else the NCCL wheel the
    framework pins (what it loads), else a system libnccl."""
    libs = facts.cuda_libs.nccl
    logged = next((lib for lib in libs if lib.path == REPORTED and lib.version), None)
    if logged is not None and logged.version:
        return _split(logged.version, "the report's NCCL log")
    for fw in facts.frameworks:
        for b in fw.bundled:
            if b.package.startswith("nvidia-nccl"):
                return _split(b.version, f"{fw.name}'s {b.package} wheel")
    system = next((lib for lib in libs if lib.version), None)
    return _split(system.version, system.path) if system and system.version else None


def _split(text: str, where: str) -> NcclInUse:
    public, _, local = text.partition("+")
    cuda = local[4:] if local.startswith("cuda") else None
    return NcclInUse(public, cuda or None, where)


def rows_for(matrix: Matrix, nccl: NcclInUse) -> list[NcclRelease]:
    """The [[nccl]] rows whose releases (and build CUDA, where a row names one) hold it."""
    from packaging.specifiers import SpecifierSet

    try:
        version = versions.pep440(nccl.version)
        cuda = versions.pep440(nccl.build_cuda) if nccl.build_cuda else None
    except ValueError:  # not a version packaging reads: nothing is judged
        return []
    out = []
    for row in matrix.nccl:
        if not SpecifierSet(row.versions).contains(version, prereleases=True):
            continue
        if row.build_cuda and (cuda is None or not SpecifierSet(row.build_cuda).contains(cuda)):
            continue
        out.append(row)
    return out


def check_nccl_gpu_support(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    nccl = nccl_in_use(facts)
    gpus = [g for g in live_gpus(facts) if g.compute_capability]
    if nccl is None or not gpus:
        why = "no NCCL version known" if nccl is None else "no GPU compute capability known"
        return [finding(CODE, NA, why)]
    rows = rows_for(matrix, nccl)
    ev: list[tuple[str, object]] = [
        ("nccl", nccl.version),
        ("build_cuda", nccl.build_cuda),
        ("from", nccl.where),
    ]
    label = f"NCCL {nccl.version}" + (f"+cuda{nccl.build_cuda}" if nccl.build_cuda else "")
    for row in (r for r in rows if r.bad_compute_capabilities):
        bad = [g for g in gpus if g.compute_capability in row.bad_compute_capabilities]
        if bad:
            names = ", ".join(f"GPU {g.index} {g.name} ({g.compute_capability})" for g in bad)
            return [
                finding(
                    CODE,
                    ERROR,
                    f"{label} fails on {names}",
                    detail=f"{row.problem}; fixed in NCCL {row.fixed_in} ({row.source})",
                    fix=f"use NCCL {row.fixed_in} or newer: a framework release that pins a "
                    f"newer nvidia-nccl wheel, and no older libnccl on LD_LIBRARY_PATH",
                    evidence=[*ev, ("gpus", names)],
                )
            ]
    arch_rows = [r for r in rows if r.architectures]
    if not arch_rows:
        return [finding(CODE, OK, f"{label}: no known problem with these GPUs", evidence=ev)]
    return [_arch(label, arch_rows[0], gpus, ev)]


def _arch(
    label: str, row: NcclRelease, gpus: list[GpuFacts], ev: list[tuple[str, object]]
) -> Finding:
    for gpu in gpus:
        verdict = arch_list_covers(row.architectures, gpu.compute_capability or "")
        if not verdict.ok:
            return finding(
                CODE,
                ERROR,
                f"{label} has no kernels for GPU {gpu.index} {gpu.name} ({gpu.compute_capability})",
                detail=f"{verdict.reason} ({row.source})",
                fix="use an NCCL built for this GPU: a newer release built with a newer CUDA",
                evidence=ev,
            )
        if verdict.how == "ptx-jit":
            return finding(
                CODE,
                INFO,
                f"{label} runs on GPU {gpu.index} ({gpu.compute_capability}) through PTX JIT",
                detail=verdict.reason,
                evidence=ev,
            )
    return finding(CODE, OK, f"{label} has kernels for every GPU here", evidence=ev)


def peermem_blind(facts: HostFacts, matrix: Matrix) -> NcclRelease | None:
    """The [[nccl]] row saying the NCCL in use does not see nvidia-peermem, when nvidia-peermem
    is what provides GPUDirect RDMA here (no nv_mem peer-memory client registered)."""
    nccl = nccl_in_use(facts)
    clients = facts.kernel.peer_memory_clients
    if nccl is None or clients is None or {"nv_mem", "nv_mem_nc"} & set(clients):
        return None
    return next((r for r in rows_for(matrix, nccl) if r.peermem_detected is False), None)


CHECKS = (check_nccl_gpu_support,)
