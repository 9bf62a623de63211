"""Typed rows of the compatibility matrix (docs/matrix-format.md). Pure data, no I/O.

Versions stay strings as written in the TOML (so JSON output shows them verbatim); compare them
with `packaging.version.Version` (see queries.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class CudaRelease:
    version: str  # "12.1.1"
    label: str
    min_driver_linux: str
    source: str
    min_driver_windows: str | None = None
    released: str | None = None
    sources: tuple[str, ...] = ()  # further pages, when one `source` does not cover the row
    verified: bool = True
    notes: str = ""
    evidence: str = ""  # what was read, from which artifact, to verify the row

    @property
    def major_minor(self) -> str:
        major, minor = self.version.split(".")[:2]
        return f"{major}.{minor}"


@dataclass(frozen=True)
class CudaMajor:
    major: int
    minor_compat_min_driver_linux: str
    source: str
    minor_compat_min_driver_windows: str | None = None
    forward_compat_package: str | None = None
    dropped_compute_capabilities: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()  # further pages, when one `source` does not cover the row
    verified: bool = True
    notes: str = ""
    evidence: str = ""  # what was read, from which artifact, to verify the row


@dataclass(frozen=True)
class Architecture:
    compute_capability: str  # "8.0"
    name: str
    sm: str
    min_cuda: str  # "11.0"
    source: str
    max_cuda: str | None = None
    datacenter_gpus: tuple[str, ...] = ()
    consumer_gpus: tuple[str, ...] = ()
    # Reduced-precision tensor-core modes among tf32, bf16, fp8, fp4; None = not recorded.
    precisions: tuple[str, ...] | None = None
    precision_source: str | None = None
    sources: tuple[str, ...] = ()  # further pages, when one `source` does not cover the row
    verified: bool = True
    notes: str = ""
    evidence: str = ""  # what was read, from which artifact, to verify the row


@dataclass(frozen=True)
class PytorchVariant:
    cuda: str  # "12.4"
    tag: str  # "cu124"
    index_url: str
    cudnn: str
    arch_list: tuple[str, ...]  # TORCH_CUDA_ARCH_LIST form: "8.0", "9.0+PTX"
    source: str
    sources: tuple[str, ...] = ()  # further pages, when one `source` does not cover the row
    verified: bool = True
    notes: str = ""
    evidence: str = ""  # what was read, from which artifact, to verify the row


@dataclass(frozen=True)
class PytorchRelease:
    version: str
    python: tuple[str, ...]
    torchvision: str
    source: str
    variants: tuple[PytorchVariant, ...]
    torchaudio: str | None = None
    pypi_default_cuda: str | None = None
    released: str | None = None
    sources: tuple[str, ...] = ()  # further pages, when one `source` does not cover the row
    verified: bool = True
    notes: str = ""
    evidence: str = ""  # what was read, from which artifact, to verify the row


@dataclass(frozen=True)
class TensorflowRelease:
    version: str
    python: tuple[str, ...]
    cuda: str
    cudnn: str
    pip: str
    source: str
    sources: tuple[str, ...] = ()  # further pages, when one `source` does not cover the row
    verified: bool = True
    notes: str = ""
    evidence: str = ""  # what was read, from which artifact, to verify the row


@dataclass(frozen=True)
class BaseImage:
    cuda: str  # full release "12.1.1"
    repository: str
    flavors: tuple[str, ...]
    distros: tuple[str, ...]
    source: str
    cudnn_tag: str | None = None
    cudnn: str | None = None
    digests: tuple[tuple[str, str], ...] = ()  # (tag, "sha256:...")
    # NVIDIA moved the tags to end-of-life: no more updates, deleted six months later.
    end_of_life: bool = False
    sources: tuple[str, ...] = ()  # further pages, when one `source` does not cover the row
    verified: bool = True
    notes: str = ""
    evidence: str = ""  # what was read, from which artifact, to verify the row


@dataclass(frozen=True)
class MigGpu:
    name: str
    compute_capability: str
    max_instances: int
    min_driver_linux: str
    source: str
    sources: tuple[str, ...] = ()  # further pages, when one `source` does not cover the row
    verified: bool = True
    notes: str = ""
    evidence: str = ""  # what was read, from which artifact, to verify the row


@dataclass(frozen=True)
class Distro:
    """A base-image distribution and the Pythons its own package archive installs (with venv).

    The Dockerfile template installs Python from the distribution, so a row may only promise a
    Python its distro packages (nvidia/cuda images ship none)."""

    name: str  # "ubuntu22.04", as in base image tags
    package_manager: str  # "apt": the only one the template drives
    pythons: tuple[str, ...]
    source: str
    sources: tuple[str, ...] = ()
    verified: bool = True
    notes: str = ""
    evidence: str = ""  # what was read, from which artifact, to verify the row


@dataclass(frozen=True)
class DriverBranch:
    """An NVIDIA driver branch (R580): its designation, end of life, and the GPU architectures
    for which it is the last branch."""

    branch: str  # "580"
    designation: str  # "long-term support", "production", "new feature", ...
    source: str
    end_of_life: str | None = None  # "YYYY-MM"
    max_cuda_major: int | None = None  # newest CUDA major without the forward-compat package
    last_for: tuple[str, ...] = ()  # architecture names: ("Maxwell", "Pascal", "Volta")
    sources: tuple[str, ...] = ()
    verified: bool = True
    notes: str = ""
    evidence: str = ""  # what was read, from which artifact, to verify the row


@dataclass(frozen=True)
class Matrix:
    path: Path
    schema_version: int
    cuda: tuple[CudaRelease, ...]
    cuda_majors: tuple[CudaMajor, ...]
    architectures: tuple[Architecture, ...]
    pytorch: tuple[PytorchRelease, ...]
    tensorflow: tuple[TensorflowRelease, ...]
    base_images: tuple[BaseImage, ...]
    mig_gpus: tuple[MigGpu, ...]
    distros: tuple[Distro, ...] = ()
    driver_branches: tuple[DriverBranch, ...] = ()


@dataclass(frozen=True)
class ResolveRequest:
    """Constraints for `resolve`; every field None means "any". Specs are PEP 440 specifiers or
    bare versions (`"12.1"` means `==12.1.*` for CUDA, `"2.5"` means `==2.5.*` for frameworks)."""

    framework: str  # "pytorch" or "tensorflow"
    version: str | None = None
    cuda: str | None = None
    python: str | None = None  # "3.11"
    driver: str | None = None  # the target host's driver: only CUDA it runs
    compute_capabilities: tuple[str, ...] = ()  # the target host's GPUs: wheels must have kernels
    flavor: str | None = None  # runtime | devel (base images)
    distro: str | None = None  # "ubuntu22.04"
    allow_unverified: bool = False


@dataclass(frozen=True)
class ResolvedRow:
    """One known-good image: a framework release x CUDA variant x Python x base image."""

    id: str  # "pytorch-2.5.1-cu124-py3.11-ubuntu22.04-runtime"
    framework: str
    version: str
    cuda: str  # "12.4", the framework build's CUDA
    cuda_release: str  # "12.4.1", the base image's full CUDA release
    cudnn: str | None
    python: str
    min_driver_linux: str  # minimum driver for cuda_release (per-release rule)
    base_image: str  # "nvidia/cuda:12.4.1-cudnn-runtime-ubuntu22.04"
    base_digest: str | None
    flavor: str
    distro: str
    requirements: tuple[
        str, ...
    ]  # pinned pip requirements, e.g. ("torch==2.5.1", "torchvision==0.20.1")
    index_url: str | None  # pip --index-url for the framework, None = PyPI
    arch_list: tuple[str, ...]  # compiled architectures (empty when the matrix does not say)
    sources: tuple[str, ...]
    warnings: tuple[str, ...] = ()  # e.g. the base image's tags are end-of-life


@dataclass(frozen=True)
class Rejection:
    """A candidate row `resolve` rejected, and why (shown when nothing matches)."""

    candidate: str
    reasons: tuple[str, ...]
