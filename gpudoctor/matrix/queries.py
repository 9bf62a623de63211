"""Questions asked of a loaded matrix: which driver runs which CUDA, which wheel has kernels for
which GPU, which row describes an installed framework. Pure functions, no I/O.

The driver rules are NVIDIA's (CUDA Compatibility guide, docs.nvidia.com/deploy/cuda-compatibility):
- per release: CUDA X.Y.Z runs on a driver >= that release's minimum ("Toolkit Driver Version",
  release notes table 3); newer drivers always run older CUDA;
- minor-version compatibility: an application built with any X.y runs on a driver >= the major's
  floor (11.x: 450.80.02, 12.x: 525.60.13), with a limited feature set (no PTX JIT of newer PTX);
- forward compatibility (a newer CUDA on an older driver through the `cuda-compat` package) works
  on data-center GPUs only, so it is never "ok" here; the verdict's reason names it as a way out.

The architecture rules (CUDA C++ Programming Guide, "Binary Compatibility"; nvcc `-arch` docs):
- a cubin for X.Y runs on X.Z with Z >= Y (same major only);
- PTX for X.Y is JIT-compiled on any GPU with capability >= X.Y;
- arch-specific `X.Ya` cubins run on X.Y only; family `X.Yf` cubins on X.Z with Z >= Y;
  neither one's PTX is forward compatible beyond that.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from gpudoctor import versions
from gpudoctor.errors import BadValue
from gpudoctor.matrix.model import (
    Architecture,
    CudaMajor,
    CudaRelease,
    DriverBranch,
    Matrix,
    MigGpu,
    PytorchRelease,
    PytorchVariant,
    TensorflowRelease,
)
from gpudoctor.strenum import StrEnum
from gpudoctor.versions import numeric


class Tier(StrEnum):
    """How a driver runs applications built with one CUDA version (gpudoctor.compat.tiers)."""

    NATIVE = "native"
    MINOR_VERSION = "minor-version"
    FORWARD_COMPAT = "forward-compat"
    NO = "no"
    UNKNOWN = "unknown"


RUNS = (Tier.NATIVE, Tier.MINOR_VERSION)
MINOR_LIMITS = (
    "PTX newer than the driver cannot be JIT-compiled, and features that need a newer driver "
    "are unavailable"
)


@dataclass(frozen=True)
class DriverTier:
    """The one driver verdict: the matrix's rule (`driver_supports_cuda`) and the model's
    refinement for a host (compat.tiers.driver_tier: forward compatibility, WSL) return it."""

    tier: Tier
    reason: str
    required: str | None = None  # per-release minimum driver (Linux) of the CUDA asked about
    floor: str | None = None  # minor-version compatibility floor of its major
    limits: str = ""
    way_out: str = ""

    @property
    def ok(self) -> bool:
        """It runs (natively or by minor-version compatibility)."""
        return self.tier in RUNS


@dataclass(frozen=True)
class ArchVerdict:
    ok: bool
    how: Literal["native", "binary-compatible", "ptx-jit"] | None
    reason: str


def _version(text: str, what: str) -> tuple[int, ...]:
    try:
        return numeric(text.strip())
    except ValueError:
        raise BadValue(
            f"{what} {text!r} is not a version", hint=f"give the {what} like 550.54.15 or 12.4"
        ) from None


def cuda_release(matrix: Matrix, version: str) -> CudaRelease | None:
    """The [[cuda]] row for `version`: "12.1.1" exactly, or "12.1" (and "12") the newest 12.1.x."""
    wanted = _version(version, "CUDA version")
    matches = [r for r in matrix.cuda if numeric(r.version)[: len(wanted)] == wanted]
    return max(matches, key=lambda r: numeric(r.version), default=None)


def min_driver_for_cuda(matrix: Matrix, cuda: str, platform: str = "linux") -> str | None:
    """Minimum driver for `cuda` by the per-release rule. "12.4" means the GA release of 12.4
    (the lowest 12.4.x in the matrix); "12.4.1" means that release, or the nearest earlier 12.4.x
    the matrix lists."""
    wanted = _version(cuda, "CUDA version")
    if len(wanted) >= 3:
        # A patch release the matrix does not list ("10.1.243", what older torch builds report)
        # needs at least what the nearest earlier release of its minor needs.
        earlier = [
            r
            for r in matrix.cuda
            if numeric(r.version)[:2] == wanted[:2] and numeric(r.version)[:3] <= wanted[:3]
        ]
        release = max(earlier, key=lambda r: numeric(r.version), default=None)
    else:
        matches = [r for r in matrix.cuda if numeric(r.version)[: len(wanted)] == wanted]
        release = min(matches, key=lambda r: numeric(r.version), default=None)
    if release is None:
        return None
    return release.min_driver_windows if platform == "windows" else release.min_driver_linux


def _major_row(matrix: Matrix, major: int) -> CudaMajor | None:
    return next((m for m in matrix.cuda_majors if m.major == major), None)


def minor_compat_floor(matrix: Matrix, major: int, platform: str = "linux") -> str | None:
    """The lowest driver that runs every CUDA `major`.x by minor-version compatibility."""
    row = _major_row(matrix, major)
    if row is None:
        return None
    if platform == "windows":
        return row.minor_compat_min_driver_windows
    return row.minor_compat_min_driver_linux


def _compat_package(row: CudaMajor | None, cuda: tuple[int, ...]) -> str:
    name = row.forward_compat_package if row and row.forward_compat_package else None
    if name is None:
        return f"cuda-compat-{cuda[0]}-{cuda[1] if len(cuda) > 1 else 'x'}"
    if name.endswith("-x") and len(cuda) > 1:  # "cuda-compat-12-x" names the package family
        return f"{name[:-2]}-{cuda[1]}"
    return name


def driver_supports_cuda(matrix: Matrix, driver: str, cuda: str) -> DriverTier:
    """Does a Linux driver run applications built with `cuda` ("12.4" or "12.4.1")?"""
    have = _version(driver, "driver version")
    wanted = _version(cuda, "CUDA version")
    required = min_driver_for_cuda(matrix, cuda)
    floor = minor_compat_floor(matrix, wanted[0])
    if required is not None and have >= numeric(required):
        return DriverTier(
            Tier.NATIVE, f"driver {driver} >= {required}, CUDA {cuda}'s minimum", required, floor
        )
    if floor is not None and have >= numeric(floor):
        return DriverTier(
            Tier.MINOR_VERSION,
            f"driver {driver} runs CUDA {cuda} by minor-version compatibility (>= {floor} for "
            f"{wanted[0]}.x), with its limits: PTX newer than the driver cannot be JIT-compiled",
            required,
            floor,
            limits=MINOR_LIMITS,
            way_out=f"upgrade the driver to >= {required} for native CUDA {cuda}"
            if required
            else "",
        )
    if required is None and floor is None:
        return DriverTier(
            Tier.UNKNOWN, f"CUDA {cuda} is not in the matrix; cannot judge the driver"
        )
    need = floor or required
    package = _compat_package(_major_row(matrix, wanted[0]), wanted)
    return DriverTier(
        Tier.NO,
        f"driver {driver} is older than {need}, the oldest that runs CUDA {cuda}"
        + (f" (its own minimum is {required})" if required and required != need else "")
        + f"; upgrade the driver to >= {required or need}, or on a data-center GPU use forward "
        f"compatibility ({package})",
        required,
        floor,
        way_out=f"upgrade the driver to >= {required or need}",
    )


def newest_cuda_for_driver(matrix: Matrix, driver: str) -> CudaRelease | None:
    """The newest CUDA release whose own minimum driver is met (per-release rule)."""
    have = _version(driver, "driver version")
    runs = [r for r in matrix.cuda if r.min_driver_linux and numeric(r.min_driver_linux) <= have]
    return max(runs, key=lambda r: numeric(r.version), default=None)


def architecture_for(matrix: Matrix, compute_capability: str) -> Architecture | None:
    wanted = _cc(compute_capability)
    return next((a for a in matrix.architectures if _cc(a.compute_capability) == wanted), None)


def _cc(text: str) -> tuple[int, int]:
    match = re.fullmatch(r"(?:sm_)?(\d+)\.?(\d)", text.strip())
    if match is None:
        raise BadValue(
            f"compute capability {text!r} is not like 8.6", hint="give it as MAJOR.MINOR, e.g. 8.6"
        )
    return int(match[1]), int(match[2])


@dataclass(frozen=True)
class _Entry:
    cc: tuple[int, int]
    suffix: str  # "", "a" (arch-specific) or "f" (family)
    ptx: bool
    text: str


# "8.6", "9.0a", "9.0+PTX" (TORCH_CUDA_ARCH_LIST) and "sm_86", "sm_90a", "compute_90"
# (torch.cuda.get_arch_list()).
_ARCH = re.compile(r"(?:(\d+)\.(\d+)([af]?)(\+PTX)?|(sm|compute)_(\d+)(\d)([af]?))")


def _entry(text: str) -> _Entry:
    match = _ARCH.fullmatch(text.strip())
    if match is None:
        raise BadValue(
            f"arch list entry {text!r} is not like 8.6, 9.0+PTX or sm_86",
            hint="use TORCH_CUDA_ARCH_LIST entries or torch.cuda.get_arch_list() names",
        )
    if match[1] is not None:
        return _Entry((int(match[1]), int(match[2])), match[3], match[4] is not None, text)
    return _Entry((int(match[6]), int(match[7])), match[8], match[5] == "compute", text)


def _cubin_runs_on(entry: _Entry, gpu: tuple[int, int]) -> bool:
    if entry.suffix == "a" or entry.text.startswith("compute"):  # exact arch only / PTX only
        return False
    return entry.cc[0] == gpu[0] and entry.cc[1] <= gpu[1]


def arch_list_covers(arch_list: Sequence[str], compute_capability: str) -> ArchVerdict:
    """Does a build with `arch_list` have kernels a GPU of `compute_capability` can run?"""
    gpu = _cc(compute_capability)
    shown = f"{gpu[0]}.{gpu[1]}"
    entries = [_entry(item) for item in arch_list]
    if not entries:
        return ArchVerdict(False, None, f"no compiled architectures known; cannot judge {shown}")
    native = [e for e in entries if e.cc == gpu and not (e.ptx and e.text.startswith("compute"))]
    if native:
        return ArchVerdict(True, "native", f"{native[0].text} has kernels for {shown}")
    cubins = [e for e in entries if _cubin_runs_on(e, gpu)]
    if cubins:
        best = max(cubins, key=lambda e: e.cc)
        return ArchVerdict(
            True,
            "binary-compatible",
            f"{best.text} kernels run on {shown} (same major {gpu[0]}, binary compatible)",
        )
    ptx = [e for e in entries if e.ptx and e.suffix == "" and e.cc <= gpu]
    if ptx:
        best = max(ptx, key=lambda e: e.cc)
        return ArchVerdict(
            True,
            "ptx-jit",
            f"{best.text} PTX is JIT-compiled for {shown} (slow first start, needs a driver "
            "that knows the GPU)",
        )
    return ArchVerdict(
        False,
        None,
        f"no kernels for {shown}: compiled for {', '.join(e.text for e in entries)}; cubins run "
        f"only on the same major with an equal or higher minor, and no PTX at or below {shown}",
    )


def pytorch_release_for(matrix: Matrix, version: str) -> PytorchRelease | None:
    """The row for an installed torch version ("2.5.1+cu124", "2.5.0a0+git..."), by major.minor."""
    wanted = versions.major_minor(version, pad=False)
    return next(
        (r for r in matrix.pytorch if versions.major_minor(r.version, pad=False) == wanted), None
    )


def pytorch_variant_for(release: PytorchRelease, cuda: str) -> PytorchVariant | None:
    """The variant built with `cuda`: "12.4", "12.4.1" (major.minor compared) or "cu124"."""
    text = cuda.strip()
    if text.startswith("cu"):
        return next((v for v in release.variants if v.tag == text), None)
    wanted = versions.major_minor(text, pad=False)
    return next((v for v in release.variants if v.cuda == wanted), None)


def tensorflow_release_for(matrix: Matrix, version: str) -> TensorflowRelease | None:
    wanted = versions.major_minor(version, pad=False)
    return next(
        (r for r in matrix.tensorflow if versions.major_minor(r.version, pad=False) == wanted), None
    )


def _tokens(name: str) -> list[str]:
    return [t for t in re.split(r"[\s\-_/]+", name.upper()) if t]


def mig_gpu_for(matrix: Matrix, gpu_name: str) -> MigGpu | None:
    """The MIG row for an NVML GPU name ("NVIDIA A100-SXM4-80GB" -> A100): the row's name must
    appear as whole words, so "H100" does not match "GH200"; the longest match wins."""
    tokens = _tokens(gpu_name)
    best: MigGpu | None = None
    for row in matrix.mig_gpus:
        want = _tokens(row.name)
        n = len(want)
        found = any(tokens[i : i + n] == want for i in range(len(tokens) - n + 1))
        if found and (best is None or n > len(_tokens(best.name))):
            best = row
    return best


# --- vGPU releases and branches (`vgpu_release` of [[driver_branch]]) ---------------------------


def driver_branch_of(matrix: Matrix, driver_version: str) -> DriverBranch | None:
    """The `[[driver_branch]]` row of a driver version ("550.54.14" -> R550); None when the
    version is unreadable or the matrix has no row for its branch."""
    parts = versions.release(driver_version)
    if not parts:
        return None
    return next((b for b in matrix.driver_branches if b.branch == str(parts[0])), None)


def vgpu_manager_runs_guest(matrix: Matrix, host: DriverBranch, guest: DriverBranch) -> bool:
    """NVIDIA's rule for a vGPU Manager and a guest driver (vGPU release notes, "Compatibility
    Requirements for the NVIDIA vGPU Manager and Guest VM Driver"): the same release; a manager
    from the next major release branch with a guest from the previous one; or a manager from a
    long-term support branch with a guest from the previous long-term support branch. Both rows
    must carry `vgpu_release`."""
    h, g = host.vgpu_release, guest.vgpu_release
    if h is None or g is None:
        raise ValueError("vgpu_manager_runs_guest needs rows with vgpu_release")
    if h in (g, g + 1):
        return True
    lts = "long-term support"
    if h > g and host.designation == lts and guest.designation == lts:
        between = [
            b
            for b in matrix.driver_branches
            if b.designation == lts and b.vgpu_release is not None and g < b.vgpu_release < h
        ]
        return not between  # the previous LTS: no LTS release in between
    return False
