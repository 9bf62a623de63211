"""Typed rows of the compatibility matrix (docs/matrix-format.md). Pure data, no I/O.

Versions stay strings as written in the TOML (so JSON output shows them verbatim); read and
compare them through `gpudoctor.versions`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gpudoctor.frozen import Frozen
from gpudoctor.versions import major_minor


@dataclass(frozen=True, eq=False, repr=False)
class CudaRelease(Frozen):
    version: str  # "12.1.1"
    label: str
    # The release's own minimum Linux driver; None where no source gives it (from 13.4 NVIDIA
    # no longer bundles a Linux driver): such a release is judged by its major's
    # minor-version floor only, never as native.
    min_driver_linux: str | None
    source: str
    min_driver_windows: str | None = None
    released: str | None = None
    sources: tuple[str, ...] = ()  # further pages, when one `source` does not cover the row
    verified: bool = True
    notes: str = ""
    evidence: str = ""  # what was read, from which artifact, to verify the row

    @property
    def major_minor(self) -> str:
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
    nccl: str | None = None  # the nvidia-nccl wheel the build pins ("2.21.5")
    sources: tuple[str, ...] = ()  # further pages, when one `source` does not cover the row
    verified: bool = True
    # Provenance (docs/matrix-format.md, "Provenance"): the primary source that says the build
    # exists (a release build matrix at a named commit, an index listing, an install page), and
    # which of its facts were read from the artifact itself (wheel METADATA, torch/version.py,
    # fat binaries). `verified = true` means every fact was read from the artifact.
    exists: str = ""
    read: tuple[str, ...] = ()
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
    exists: str = ""  # provenance of the release row (see PytorchVariant)
    read: tuple[str, ...] = ()
    # Kept to judge hosts that have it installed (check); never offered, resolved, built or
    # rendered (torch 1.0-1.12: no image gpudoctor builds should hold them).
    judge_only: bool = False
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
    # Provenance (docs/matrix-format.md, "Provenance"): the primary source that says the build
    # exists (a release build matrix at a named commit, an index listing, an install page), and
    # which of its facts were read from the artifact itself (wheel METADATA, torch/version.py,
    # fat binaries). `verified = true` means every fact was read from the artifact.
    exists: str = ""
    read: tuple[str, ...] = ()
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
    end_of_life: str | None = None  # "YYYY-MM", or "ended" (passed; NVIDIA gives no month)
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
    # Provenance (docs/matrix-format.md, "Provenance"): the primary source that says the build
    # exists (a release build matrix at a named commit, an index listing, an install page), and
    # which of its facts were read from the artifact itself (wheel METADATA, torch/version.py,
    # fat binaries). `verified = true` means every fact was read from the artifact.
    exists: str = ""
    read: tuple[str, ...] = ()
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
class ProgramMinimum(Frozen):
    """The documented minimum compute capability of a program people run on GPUs (vLLM,
    flash-attention, bitsandbytes, ollama), for the releases `versions` names."""

    name: str  # distribution (pip) name, or the program's own name where `pip` is false
    min_compute_capability: str
    source: str
    versions: str = ""  # a PEP 440 specifier ("<=0.14.0"); "" for every release
    pip: bool = True  # found as an installed distribution of that name (ollama is not)
    sources: tuple[str, ...] = ()
    verified: bool = True
    notes: str = ""
    evidence: str = ""


@dataclass(frozen=True, eq=False, repr=False)
class RocmRelease(Frozen):
    """A ROCm release series ("6.3"): the GPU (LLVM) targets AMD supports with it on Linux and
    the kernel-mode driver (KMD) release series its user space is tested with."""

    version: str  # "6.3"
    gfx: tuple[str, ...]  # "gfx942", ...
    source: str
    kmd: tuple[str, ...] = ()  # "6.1", "6.2", ...; () = not recorded
    sources: tuple[str, ...] = ()
    verified: bool = True
    notes: str = ""
    evidence: str = ""


@dataclass(frozen=True, eq=False, repr=False)
class NcclRelease(Frozen):
    """One fact about a range of NCCL releases, from NCCL's own source: the architectures its
    default build compiles (by the CUDA it is built with), a GPU architecture a release fails
    on and the release that fixes it, or whether it detects the nvidia-peermem module."""

    versions: str  # PEP 440 specifier over NCCL versions: ">=2.18.1,<2.25.1"
    source: str
    build_cuda: str = ""  # PEP 440 specifier over the CUDA NCCL was built with; "" any
    architectures: tuple[str, ...] = ()  # arch list entries: "9.0", "12.0+PTX"
    bad_compute_capabilities: tuple[str, ...] = ()
    fixed_in: str | None = None
    problem: str = ""
    peermem_detected: bool | None = None  # finds GPUDirect RDMA through nvidia-peermem
    sources: tuple[str, ...] = ()
    verified: bool = True
    notes: str = ""
    evidence: str = ""


@dataclass(frozen=True, eq=False, repr=False)
class AmdGpu(Frozen):
    """An AMD GPU model, its LLVM target and the PCI device ids it shows on the bus."""

    name: str  # "AMD Instinct MI300X"
    gfx: str  # "gfx942"
    kind: str  # "instinct" (data centre) or "radeon" (Radeon and Radeon PRO)
    source: str
    pci_ids: tuple[str, ...] = ()  # "0x74a1"
    sources: tuple[str, ...] = ()
    verified: bool = True
    notes: str = ""
    evidence: str = ""


@dataclass(frozen=True, eq=False, repr=False)
class PytorchRocmVariant(Frozen):
    """A torch +rocmX.Y wheel set of one release on download.pytorch.org."""

    pytorch: str  # "2.5.1"
    rocm: str  # "6.2" or "6.2.4", as the index and the local version tag spell it
    index_url: str
    source: str
    gfx: tuple[str, ...] = ()  # PYTORCH_ROCM_ARCH of the build; () = not recorded
    sources: tuple[str, ...] = ()
    verified: bool = True
    notes: str = ""
    evidence: str = ""

    @property
    def tag(self) -> str:
        return f"rocm{self.rocm}"

    @property
    def series(self) -> str:
        """The ROCm release series ("6.2" for rocm6.2.4)."""
        return ".".join(self.rocm.split(".")[:2])


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
    programs: tuple[ProgramMinimum, ...] = ()
    nccl: tuple[NcclRelease, ...] = ()
    rocm: tuple[RocmRelease, ...] = ()
    amd_gpus: tuple[AmdGpu, ...] = ()
    pytorch_rocm: tuple[PytorchRocmVariant, ...] = ()
