"""Typed rows of the compatibility matrix (docs/matrix-format.md). Pure data, no I/O.

Versions stay strings as written in the TOML (so JSON output shows them verbatim); read and
compare them through `gpudoctor.versions`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gpudoctor.frozen import Frozen

if TYPE_CHECKING:
    from gpudoctor.compat.host import Host


@dataclass(frozen=True, eq=False, repr=False)
class CudaRelease(Frozen):
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
        from gpudoctor.versions import major_minor

        return major_minor(self.version, pad=False) or self.version


@dataclass(frozen=True, eq=False, repr=False)
class CudaMajor(Frozen):
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


@dataclass(frozen=True, eq=False, repr=False)
class Architecture(Frozen):
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


@dataclass(frozen=True, eq=False, repr=False)
class PytorchVariant(Frozen):
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


@dataclass(frozen=True, eq=False, repr=False)
class PytorchRelease(Frozen):
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


@dataclass(frozen=True, eq=False, repr=False)
class TensorflowRelease(Frozen):
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


@dataclass(frozen=True, eq=False, repr=False)
class BaseImage(Frozen):
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


@dataclass(frozen=True, eq=False, repr=False)
class MigGpu(Frozen):
    name: str
    compute_capability: str
    max_instances: int
    min_driver_linux: str
    source: str
    sources: tuple[str, ...] = ()  # further pages, when one `source` does not cover the row
    verified: bool = True
    notes: str = ""
    evidence: str = ""  # what was read, from which artifact, to verify the row


@dataclass(frozen=True, eq=False, repr=False)
class Distro(Frozen):
    """A base-image distribution and the Pythons its own package archive installs (with venv).

    The Dockerfile template installs Python from the distribution, so a row may only promise a
    Python its distro packages (nvidia/cuda images ship none)."""

    name: str  # "ubuntu22.04", as in base image tags
    package_manager: str  # "apt": the only one the template drives
    pythons: tuple[str, ...]
    source: str
    # The plain distribution image ("ubuntu:22.04", no CUDA libraries): the runtime base of
    # builds whose CUDA comes with their pip wheels. None: such builds get no runtime image.
    image: str | None = None
    sources: tuple[str, ...] = ()
    verified: bool = True
    notes: str = ""
    evidence: str = ""  # what was read, from which artifact, to verify the row


@dataclass(frozen=True, eq=False, repr=False)
class DriverBranch(Frozen):
    """An NVIDIA driver branch (R580): its designation, end of life, and the GPU architectures
    for which it is the last branch."""

    branch: str  # "580"
    designation: str  # "long-term support", "production", "new feature", ...
    source: str
    end_of_life: str | None = None  # "YYYY-MM"
    max_cuda_major: int | None = None  # newest CUDA major without the forward-compat package
    last_for: tuple[str, ...] = ()  # architecture names: ("Maxwell", "Pascal", "Volta")
    # The NVIDIA vGPU software release built on this branch (19 for R580), and where it is said.
    vgpu_release: int | None = None
    vgpu_source: str = ""
    sources: tuple[str, ...] = ()
    verified: bool = True
    notes: str = ""
    evidence: str = ""  # what was read, from which artifact, to verify the row


@dataclass(frozen=True, eq=False, repr=False)
class PlatformWheel(Frozen):
    """Where one framework release exists for one machine other than x86_64, read from the
    wheels an index serves: `[[wheel]]` rows. Every `[[pytorch.variants]]` and `[[tensorflow]]`
    row describes an x86_64 Linux build; a release reaches another machine only through these
    rows (see gpudoctor/matrix/platforms.py)."""

    framework: str  # "pytorch", "tensorflow"
    version: str  # the release row's version: "2.2.2"
    machine: str  # "aarch64"
    index: str  # "pypi" or an index URL: "https://download.pytorch.org/whl/cu128"
    cuda: str  # the CUDA the wheel brings ("13.0"), or "none" for a CPU-only wheel
    source: str
    wheel: str | None = None  # the file whose METADATA was read
    sources: tuple[str, ...] = ()
    verified: bool = True
    notes: str = ""
    evidence: str = ""  # what was read, from which artifact, to verify the row

    @property
    def cpu_only(self) -> bool:
        return self.cuda == "none"


@dataclass(frozen=True, eq=False, repr=False)
class ImagePlatform(Frozen):
    """A platform other than linux/amd64 that a base image repository's tags carry, from a CUDA
    release on: `[[image_platform]]` rows. Every `[[base_image]]` row is linux/amd64."""

    repository: str  # "nvidia/cuda"
    platform: str  # "linux/arm64"
    min_cuda: str  # first CUDA release ("11.8.0") whose tags are multi-arch with it
    source: str
    sources: tuple[str, ...] = ()
    verified: bool = True
    notes: str = ""
    evidence: str = ""  # what was read, from which artifact, to verify the row


@dataclass(frozen=True, eq=False, repr=False)
class Matrix(Frozen):
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
    wheels: tuple[PlatformWheel, ...] = ()
    image_platforms: tuple[ImagePlatform, ...] = ()


@dataclass(frozen=True, eq=False, repr=False)
class ResolveRequest(Frozen):
    """Constraints for `resolve`; every field None means "any". Specs are PEP 440 specifiers or
    bare versions (`"12.1"` means `==12.1.*` for CUDA, `"2.5"` means `==2.5.*` for frameworks)."""

    framework: str  # "pytorch" or "tensorflow"
    version: str | None = None
    cuda: str | None = None
    python: str | None = None  # "3.11"
    driver: str | None = None  # the target host's driver: only CUDA it runs
    compute_capabilities: tuple[str, ...] = ()  # the target host's GPUs: wheels must have kernels
    flavor: str | None = None  # runtime | devel (base images)
    machine: str | None = None  # the target host's machine ("aarch64"); None: x86_64
    distro: str | None = None  # "ubuntu22.04"
    allow_unverified: bool = False
    native_only: bool = False  # minor-version compatibility does not count as running
    # The target host as the compatibility model sees it (`--for-host`, `--from`); when None,
    # `driver` and `compute_capabilities` describe it.
    host: Host | None = None


@dataclass(frozen=True, eq=False, repr=False)
class ResolvedRow(Frozen):
    """One known-good image: a framework release x CUDA variant x Python x base image."""

    id: str  # "pytorch-2.5.1-cu124-py3.11-ubuntu22.04-runtime"
    framework: str
    version: str
    cuda: str  # "12.4", the framework build's CUDA
    # "12.4.1", the CUDA release of an nvidia/cuda base; None: a plain distribution base (the
    # build's CUDA comes with its pip wheels)
    cuda_release: str | None
    cudnn: str | None
    python: str
    # The oldest driver that runs the build (the compatibility model: its major's minor-version
    # floor, 525.60.13 for 12.x)
    min_driver_linux: str
    base_image: str  # "ubuntu:22.04", "nvidia/cuda:12.4.1-cudnn-runtime-ubuntu22.04"
    base_digest: str | None
    flavor: str
    distro: str
    requirements: tuple[
        str, ...
    ]  # pinned pip requirements, e.g. ("torch==2.5.1", "torchvision==0.20.1")
    index_url: str | None  # pip --index-url for the framework, None = PyPI
    arch_list: tuple[str, ...]  # compiled architectures (empty when the matrix does not say)
    sources: tuple[str, ...]
    cuda_from: str = "wheels"  # where its CUDA libraries come from: "wheels" or "system"
    native_driver_linux: str | None = None  # the build's CUDA release's own minimum driver
    # The start-time requirement (NVIDIA_REQUIRE_CUDA's clause) the model gives the build:
    # "cuda>=12.0" admits every driver of the minor-version floor and newer.
    require_cuda: str = ""
    # On a target host: "native" or "minor-version", and what that means; None without a host.
    tier: str | None = None
    tier_note: str = ""
    warnings: tuple[str, ...] = ()  # e.g. the base image's tags are end-of-life
    platform: str = "linux/amd64"  # the OCI platform the row's wheels are for


@dataclass(frozen=True, eq=False, repr=False)
class Rejection(Frozen):
    """A candidate row `resolve` rejected, and why (shown when nothing matches)."""

    candidate: str
    reasons: tuple[str, ...]
