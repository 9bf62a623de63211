"""Judge one build on one host: the driver tier and, per GPU, whether the build has kernels.

Tiers (NVIDIA CUDA Compatibility guide, docs.nvidia.com/deploy/cuda-compatibility):
- `native`: the driver meets this CUDA release's own minimum ([[cuda]].min_driver_linux);
- `minor-version`: same major, driver >= the major's floor ([[cuda_major]]
  .minor_compat_min_driver_linux); it runs, with limits: PTX newer than the driver cannot be
  JIT-compiled, and features that need a newer driver are missing;
- `forward-compat`: below the floor, but Linux with data-center GPUs only, where NVIDIA's
  cuda-compat package lets a newer CUDA run on an older driver; never GeForce;
- `no`: none of these; the verdict names the nearest way out;
- `unknown`: the driver version, or the CUDA release, is not known.

Kernels (CUDA C++ Programming Guide, "Binary Compatibility"): matrix/queries.arch_list_covers
(cubin of the same major with an equal or lower minor, PTX JIT at or above its version, `a`
targets on that exact GPU, `f` within the family). PTX JIT under minor-version compatibility is
not counted: the driver cannot JIT PTX of a newer CUDA than its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpudoctor import versions
from gpudoctor.compat.builds import Build
from gpudoctor.matrix.platforms import available_on
from gpudoctor.matrix.queries import (
    MINOR_LIMITS,
    RUNS,
    DriverTier,
    Tier,
    arch_list_covers,
    architecture_for,
    driver_supports_cuda,
    min_driver_for_cuda,
    minor_compat_floor,
)
from gpudoctor.versions import numeric
from gpudoctor.wording import gpu_label

__all__ = [
    "MINOR_LIMITS",
    "RUNS",
    "Coverage",
    "DriverTier",
    "Tier",
    "Verdict",
    "driver_tier",
    "judge",
]

if TYPE_CHECKING:
    from gpudoctor.compat.host import Gpu, Host
    from gpudoctor.matrix.model import Matrix


@dataclass(frozen=True)
class Coverage:
    gpu: int
    compute_capability: str
    ok: bool
    how: str | None  # native, binary-compatible, ptx-jit, toolkit (no arch list: CUDA knows it)
    reason: str


@dataclass(frozen=True)
class Verdict:
    build: Build
    driver: DriverTier
    coverage: tuple[Coverage, ...]
    platform_problem: str = ""
    # Where pip installs the build on this host's machine (None: PyPI); x86_64: the row's index.
    index_url: str | None = None
    # Provenance of the build on this machine: a primary source settles that it exists, and
    # which facts were not read from the wheel (the row's, plus the machine's wheel row's).
    exists: bool = True
    machine_unread: tuple[str, ...] = ()

    @property
    def runtime(self) -> str:
        """The GPU runtime the verdict is about ("cuda"; "rocm" next), the build's."""
        return self.build.runtime

    @property
    def unread(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys((*self.build.unread, *self.machine_unread)))

    @property
    def tier(self) -> Tier:
        return self.driver.tier

    @property
    def runs(self) -> bool:
        """Runs on every GPU of the host (minor-version compatibility counts as running)."""
        return self.tier in RUNS and all(c.ok for c in self.coverage) and not self.platform_problem

    @property
    def native(self) -> bool:
        return self.runs and self.tier is Tier.NATIVE

    def problems(self) -> list[str]:
        """Why it does not run here, GPUs failing alike grouped ("GPU 0-7: ...")."""
        out = [self.platform_problem] if self.platform_problem else []
        if self.tier not in RUNS:
            out.append(self.driver.reason)
        by_reason: dict[str, list[int]] = {}
        for c in self.coverage:
            if not c.ok:
                by_reason.setdefault(c.reason, []).append(c.gpu)
        out += [f"{gpu_label(gpus)}: {reason}" for reason, gpus in by_reason.items()]
        return out


def driver_tier(matrix: Matrix, host: Host, cuda: str) -> DriverTier:
    """The tier at which `host`'s driver runs applications built with `cuda` ("12.4")."""
    if host.driver is None and host.driver_cuda and not host.wsl:
        # nvidia-smi's "CUDA Version" (or a framework's "found version 11040") without the
        # driver's own version: the newest CUDA the driver supports settles the tier alike
        wanted = versions.release(cuda)
        floor = minor_compat_floor(matrix, wanted[0]) if wanted else None
        required = min_driver_for_cuda(matrix, cuda) if wanted else None
        return _by_driver_cuda(
            host,
            cuda,
            required,
            floor,
            "the driver version is unknown",
            minor_compat=floor is not None,
        )
    if host.driver is None:
        return DriverTier(Tier.UNKNOWN, "the driver version is unknown")
    verdict = driver_supports_cuda(matrix, host.driver, cuda)
    required, floor = verdict.required, verdict.floor
    if host.wsl or (required is None and floor is None):
        release = versions.release(cuda)
        minor_compat = release is not None and minor_compat_floor(matrix, release[0]) is not None
        return _by_driver_cuda(
            host, cuda, required, floor, verdict.reason, minor_compat=minor_compat
        )
    if verdict.ok:  # the matrix's rule is the answer: native or minor-version
        return verdict
    need = floor or required
    upgrade = f"upgrade the driver to >= {need}"
    major = int(cuda.split(".", maxsplit=1)[0])
    package = _compat_package(matrix, cuda)
    if host.all_datacenter:  # Linux (WSL was handled above), data-center GPUs only
        installed = "installed" if host.forward_compat_libs else "not installed"
        return DriverTier(
            Tier.FORWARD_COMPAT,
            f"driver {host.driver} is below {need}, the {major}.x floor; these data-center GPUs "
            f"can run CUDA {cuda} through forward compatibility ({package}, {installed})",
            required,
            floor,
            limits="forward compatibility needs a driver branch that the cuda-compat package "
            "supports, and the compat libcuda first on the loader path",
            way_out=f"{upgrade}, or install {package} and put its libcuda first",
        )
    consumer = any(g.datacenter is False for g in host.gpus)
    why = " (forward compatibility is for data-center GPUs only)" if consumer else ""
    return DriverTier(
        Tier.NO,
        f"driver {host.driver} is older than {need}, the oldest that runs CUDA {cuda}{why}",
        required,
        floor,
        way_out=upgrade + (f" ({required} for native CUDA {cuda})" if required != need else ""),
    )


def _compat_package(matrix: Matrix, cuda: str) -> str:
    parts = versions.numeric(cuda)
    row = next((m for m in matrix.cuda_majors if m.major == parts[0]), None)
    name = row.forward_compat_package if row and row.forward_compat_package else None
    minor = str(parts[1]) if len(parts) > 1 else "x"
    if name is None:
        return f"cuda-compat-{parts[0]}-{minor}"
    return f"{name[:-2]}-{minor}" if name.endswith("-x") else name


def _by_driver_cuda(
    host: Host,
    cuda: str,
    required: str | None,
    floor: str | None,
    fallback: str,
    *,
    minor_compat: bool,
) -> DriverTier:
    """Where the driver's own CUDA version is the better witness: under WSL the version is the
    Windows driver's (Linux minimums do not apply), and for a CUDA the matrix does not list.
    Within a major, a newer minor runs on the driver only where that major has minor-version
    compatibility (a `[[cuda_major]]` row: CUDA 11 and later); CUDA 10.2 needs a 10.2 driver."""

    own, wanted = versions.release(host.driver_cuda), versions.release(cuda)
    if own is None and host.wsl:
        reason = (
            f"under WSL driver {host.driver} is the Windows driver, which the Linux minimum "
            "drivers do not apply to, and the CUDA version it supports is not known"
        )
        return DriverTier(Tier.UNKNOWN, reason, required, floor)
    if own is None or wanted is None:
        return DriverTier(Tier.UNKNOWN, fallback, required, floor)
    if wanted[:2] <= own[:2]:
        reason = f"the driver supports CUDA {host.driver_cuda} >= {cuda}"
        return DriverTier(Tier.NATIVE, reason, required, floor)
    if wanted[0] == own[0] and minor_compat:
        reason = (
            f"the driver supports CUDA {host.driver_cuda}; {cuda} runs by minor-version "
            f"compatibility ({MINOR_LIMITS})"
        )
        return DriverTier(Tier.MINOR_VERSION, reason, required, floor, limits=MINOR_LIMITS)
    reason = f"the driver supports CUDA {host.driver_cuda}, older than {cuda}"
    return DriverTier(Tier.NO, reason, required, floor, way_out="upgrade the driver")


def coverage(matrix: Matrix, build: Build, gpu: Gpu, tier: Tier) -> Coverage:
    """Does `build` have kernels `gpu` can run (at this driver tier)?"""
    cc = gpu.compute_capability
    if build.arch_list is None:
        reason = _toolkit_reason(matrix, build, cc)
        return Coverage(
            gpu.index, cc, reason is None, "toolkit", reason or f"CUDA {build.cuda} targets {cc}"
        )
    verdict = arch_list_covers(build.arch_list, cc)
    if verdict.ok and verdict.how == "ptx-jit" and tier is Tier.MINOR_VERSION:
        return Coverage(
            gpu.index,
            cc,
            False,
            None,
            f"only PTX for {cc}, and a driver below CUDA {build.cuda}'s own minimum cannot "
            "JIT-compile it (minor-version compatibility)",
        )
    return Coverage(gpu.index, cc, verdict.ok, verdict.how, verdict.reason)


def _toolkit_reason(matrix: Matrix, build: Build, cc: str) -> str | None:
    """No arch list in the matrix: the toolkit the framework was built with must know the GPU,
    or an architecture of the same major before it (a cubin runs on later minors of its major,
    so a CUDA 11.0 build's sm_80 kernels run on an 8.6 GPU)."""

    arch = architecture_for(matrix, cc)
    if arch is None:
        return f"compute capability {cc} is not in the matrix's [[architecture]] table"
    cuda = numeric(build.cuda)
    if arch.max_cuda and cuda[:2] > numeric(arch.max_cuda):
        return f"CUDA {build.cuda} no longer supports compute capability {cc} (<= {arch.max_cuda})"
    if cuda >= numeric(arch.min_cuda):
        return None
    major, minor = numeric(cc)[:2]
    for other in matrix.architectures:
        o_major, o_minor = numeric(other.compute_capability)[:2]
        if o_major == major and o_minor < minor and cuda >= numeric(other.min_cuda):
            return None
    return f"CUDA {build.cuda} predates compute capability {cc} (needs >= {arch.min_cuda})"


def judge(matrix: Matrix, host: Host, build: Build) -> Verdict:
    """`build` on `host`: driver tier, kernels per GPU, and platform."""
    tier = driver_tier(matrix, host, build.cuda)
    where = available_on(
        matrix,
        build.framework,
        build.version,
        build.cuda,
        machine=host.machine,
        row_index_url=build.index_url,
    )
    # available_on is the rule build.platforms was made from; its reason names the CPU-only
    # PyPI wheel where that is what this machine would get.
    platform = "" if where.ok else where.reason
    kernels = tuple(coverage(matrix, build, g, tier.tier) for g in host.gpus)
    index = where.index_url if where.ok else None
    exists = build.exists and (where.exists or not where.ok)
    return Verdict(build, tier, kernels, platform, index, exists, where.unread if where.ok else ())
