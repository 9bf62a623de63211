"""Typed rows of the compatibility matrix, and the schema of matrices/compat.toml: each field's
metadata declares its TOML key (matrix/schema.py), from which matrix/reader.py reads the file and
docs/matrix-format.md's key tables are generated. Pure data, no I/O.

Versions stay strings as written in the TOML (so JSON output shows them verbatim); read and
compare them through `gpudoctor.versions`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from gpudoctor.frozen import Frozen
from gpudoctor.matrix import kinds as k
from gpudoctor.matrix.schema import array, digests, flag, integer, rows, table, text
from gpudoctor.versions import major_minor


@dataclass(frozen=True, eq=False, repr=False)
class Provenance(Frozen):
    """The keys every row carries: where its facts come from and whether they were confirmed
    (docs/matrix-format.md, "Conventions")."""

    source: str = field(
        metadata=text(
            k.URL,
            "the URL of the official page or repository file the row's facts come from, "
            "optionally followed by a short note on what was read there",
        )
    )
    sources: tuple[str, ...] = field(
        metadata=array(
            k.URL, "further pages, when one `source` does not cover the row", optional=True
        )
    )
    verified: bool = field(
        metadata=flag(
            "`false` marks a row whose facts could not all be confirmed from a source "
            "(then `notes` must say why); absent means `true`",
            absent=True,
        )
    )
    notes: str = field(
        metadata=text(
            k.ANY_TEXT, "free text shown by `gpudoctor matrix show`", optional=True, absent=""
        )
    )
    evidence: str = field(
        metadata=text(
            k.TEXT,
            "what was read, from which artifact, to verify the row",
            optional=True,
            absent="",
        )
    )


@dataclass(frozen=True, eq=False, repr=False)
class BuildProvenance(Provenance):
    """A framework build's provenance (docs/matrix-format.md, "Provenance"): the primary source
    that says the build exists (a release build matrix at a named commit, an index listing, an
    install page), and which of its facts were read from the artifact itself (wheel METADATA,
    torch/version.py, fat binaries). `verified = true` means every fact was read from the
    artifact."""

    exists: str = field(
        metadata=text(
            k.URL,
            "the primary source that says the build exists",
            optional=True,
            absent="",
        )
    )
    read: tuple[str, ...] = field(
        metadata=array(
            k.ARTIFACT_FACT,
            "the facts read from the artifact itself",
            optional=True,
            non_empty=False,
        )
    )


@dataclass(frozen=True, eq=False, repr=False)
class CudaRelease(Provenance):
    version: str = field(
        metadata=text(k.CUDA_RELEASE, 'full release, `"12.1.0"` for GA, `"12.1.1"` for Update 1')
    )
    label: str = field(metadata=text(k.TEXT, "as NVIDIA names it", example="CUDA 12.1 Update 1"))
    # The release's own minimum Linux driver; None where no source gives it (from 13.4 NVIDIA
    # no longer bundles a Linux driver): such a release is judged by its major's
    # minor-version floor only, never as native.
    min_driver_linux: str | None = field(
        metadata=text(
            k.DRIVER,
            'minimum Linux x86_64 driver for this release ("Toolkit Driver Version", release '
            "notes table 3). Absent only with `notes` saying why its own floor is unsourced "
            "(13.4.1 and 13.4.2 ship no Linux driver): such a release is judged by its major's "
            "minor-version rule only, never as `native`",
            optional=True,
        )
    )
    min_driver_windows: str | None = field(
        default=None,
        metadata=text(k.DRIVER, "same, Windows (absent where NVIDIA lists none)", optional=True),
    )
    released: str | None = field(
        default=None, metadata=text(k.YEAR_MONTH, "release month", optional=True)
    )

    @property
    def major_minor(self) -> str:
        return major_minor(self.version, pad=False) or self.version


@dataclass(frozen=True, eq=False, repr=False)
class CudaMajor(Provenance):
    major: int = field(metadata=integer(k.POSITIVE_INT, "the major release", example="12"))
    minor_compat_min_driver_linux: str = field(
        metadata=text(
            k.DRIVER,
            "driver floor for minor-version compatibility within this major",
            example="525.60.13",
        )
    )
    minor_compat_min_driver_windows: str | None = field(
        default=None, metadata=text(k.DRIVER, "same, Windows", optional=True)
    )
    forward_compat_package: str | None = field(
        default=None,
        metadata=text(
            k.TEXT,
            "name of the forward-compatibility package",
            example="cuda-compat-12-x",
            optional=True,
        ),
    )
    dropped_compute_capabilities: tuple[str, ...] = field(
        default=(),
        metadata=array(
            k.COMPUTE_CAPABILITY,
            "compute capabilities this major no longer builds for",
            optional=True,
            non_empty=False,
        ),
    )


@dataclass(frozen=True, eq=False, repr=False)
class Architecture(Provenance):
    compute_capability: str = field(metadata=text(k.COMPUTE_CAPABILITY, "", example="8.0"))
    name: str = field(metadata=text(k.TEXT, "the architecture's name", example="Ampere"))
    sm: str = field(
        metadata=text(k.TEXT, "`sm_` and the compute capability's digits", example="sm_80")
    )
    min_cuda: str = field(
        metadata=text(k.MAJOR_MINOR, 'first CUDA release (`"MAJOR.MINOR"`) that supports it')
    )
    max_cuda: str | None = field(
        default=None,
        metadata=text(
            k.MAJOR_MINOR,
            "last CUDA release that still supports it; absent while supported",
            optional=True,
        ),
    )
    datacenter_gpus: tuple[str, ...] = field(
        default=(),
        metadata=array(
            k.TEXT, "data-center GPUs", example='["A100", "A30"]', optional=True, non_empty=False
        ),
    )
    consumer_gpus: tuple[str, ...] = field(
        default=(),
        metadata=array(
            k.TEXT, "consumer GPUs", example='["RTX 3090"]', optional=True, non_empty=False
        ),
    )
    # Reduced-precision tensor-core modes among tf32, bf16, fp8, fp4; None = not recorded.
    precisions: tuple[str, ...] | None = field(
        default=None,
        metadata=array(
            k.PRECISION,
            "reduced-precision tensor-core modes (may be empty; absent = not recorded); shown "
            "by the `precision-modes` check",
            optional=True,
            non_empty=False,
            absent=None,
        ),
    )
    precision_source: str | None = field(
        default=None,
        metadata=text(
            k.URL,
            "URL the precisions come from (required when `precisions` is not empty)",
            optional=True,
        ),
    )
    open_module_only: bool = field(
        default=False,
        metadata=flag(
            "only the open flavor of NVIDIA's kernel modules drives its GPUs (Blackwell and "
            "later, per the driver README's Open Linux Kernel Modules chapter); the "
            "`open-module-required` check",
            absent=False,
        ),
    )
    open_module_unsupported: bool = field(
        default=False,
        metadata=flag(
            "the open flavor of NVIDIA's kernel modules does not drive its GPUs: they have no GPU "
            "System Processor (GSP), which the open modules need (before Turing, per NVIDIA's "
            "driver installation guide, Kernel Modules); the `open-module-unsupported` check",
            absent=False,
        ),
    )


@dataclass(frozen=True, eq=False, repr=False)
class PytorchVariant(BuildProvenance):
    cuda: str = field(metadata=text(k.MAJOR_MINOR, "the CUDA of the build", example="12.4"))
    tag: str = field(
        metadata=text(k.CUDA_TAG, "local version tag and index name, `cu` + the CUDA's digits")
    )
    index_url: str = field(
        metadata=text(k.URL, "", example="https://download.pytorch.org/whl/cu124")
    )
    # None only in a judge-only release whose cuDNN no source states (torch before 1.8)
    cudnn: str | None = field(
        metadata=text(
            k.DOTTED,
            "cuDNN bundled with the wheel. Absent only in a `judge_only` release whose cuDNN no "
            "source states (torch before 1.8: pytorch/builder has no release branch for it); "
            "`check` then says the expected cuDNN is unknown",
            example="9.1.0.70",
            optional=True,
        )
    )
    arch_list: tuple[str, ...] = field(
        metadata=array(
            k.ARCH_ENTRY,
            "compiled architectures in `TORCH_CUDA_ARCH_LIST` form; `+PTX` marks embedded PTX. "
            "Absent where no source gives it (judge-only torch before 1.8): `framework-arch` "
            'then says `unknown`, never "no kernels"',
            example='["7.0", "8.0", "9.0+PTX"]',
            optional=True,
        )
    )
    nccl: str | None = field(
        default=None,
        metadata=text(
            k.DOTTED,
            "the `nvidia-nccl-cu1x` wheel the build pins (absent when unknown or when NCCL is "
            "linked statically)",
            example="2.21.5",
            optional=True,
        ),
    )


@dataclass(frozen=True, eq=False, repr=False)
class PytorchRelease(BuildProvenance):
    version: str = field(metadata=text(k.PEP440, "", example="2.5.1"))
    python: tuple[str, ...] = field(
        metadata=array(k.PYTHON, "supported Python versions", example='["3.9", "3.10"]')
    )
    torchvision: str = field(metadata=text(k.PEP440, "matching torchvision"))
    variants: tuple[PytorchVariant, ...] = field(
        metadata=rows(
            "pytorch.variants", PytorchVariant, "cuda", "each CUDA variant of the official wheels"
        )
    )
    torchaudio: str | None = field(
        default=None,
        metadata=text(
            k.PEP440, "matching torchaudio (absent where none was released)", optional=True
        ),
    )
    pypi_default_cuda: str | None = field(
        default=None,
        metadata=text(
            k.MAJOR_MINOR,
            "CUDA of the plain `pip install torch` wheel on PyPI (Linux x86_64)",
            optional=True,
        ),
    )
    released: str | None = field(
        default=None, metadata=text(k.YEAR_MONTH, "release month", optional=True)
    )
    # Kept to judge hosts that have it installed (check); never offered, resolved, built or
    # rendered (torch 1.0-1.12: no image gpudoctor builds should hold them).
    judge_only: bool = field(
        default=False,
        metadata=flag(
            "`true` for releases kept only so that `check` judges hosts that have them "
            "installed (torch 1.0 to 1.12; the previous-versions page lists no 1.3): never "
            "offered by a fix, `resolve`, `build`, `render --all` or `images/`",
            absent=False,
        ),
    )


@dataclass(frozen=True, eq=False, repr=False)
class TensorflowRelease(BuildProvenance):
    version: str = field(metadata=text(k.PEP440, "", example="2.15.0"))
    python: tuple[str, ...] = field(
        metadata=array(k.PYTHON, "supported Python versions", example='["3.9", "3.10", "3.11"]')
    )
    cuda: str = field(
        metadata=text(k.MAJOR_MINOR, "CUDA it was built and tested with", example="12.2")
    )
    cudnn: str = field(metadata=text(k.DOTTED, "", example="8.9"))
    pip: str = field(
        metadata=text(
            k.REQUIREMENT,
            "PEP 508 requirement of the GPU build",
            example="tensorflow[and-cuda]==2.15.0",
        )
    )


@dataclass(frozen=True, eq=False, repr=False)
class BaseImage(Provenance):
    cuda: str = field(metadata=text(k.CUDA_RELEASE, "full release", example="12.1.1"))
    repository: str = field(metadata=text(k.TEXT, "", example="nvidia/cuda"))
    flavors: tuple[str, ...] = field(
        metadata=array(k.FLAVOR, "", example='["base", "runtime", "devel"]')
    )
    distros: tuple[str, ...] = field(
        metadata=array(k.DISTRO, "", example='["ubuntu22.04", "rockylinux8"]')
    )
    cudnn_tag: str | None = field(
        default=None,
        metadata=text(
            k.CUDNN_TAG,
            'the cuDNN part of the tag for this release: `"cudnn8"` (older scheme) or '
            '`"cudnn"` (newer scheme, cuDNN 9); absent when no cuDNN images exist',
            optional=True,
        ),
    )
    cudnn: str | None = field(
        default=None,
        metadata=text(k.DOTTED, "the cuDNN version inside the cuDNN images", optional=True),
    )
    digests: tuple[tuple[str, str], ...] = field(  # (tag, "sha256:...")
        default=(),
        metadata=digests(k.DIGEST, 'optional `"TAG" = "sha256:..."` pins'),
    )
    # NVIDIA moved the tags to end-of-life: no more updates, deleted six months later.
    end_of_life: bool = field(
        default=False,
        metadata=flag(
            "NVIDIA moved these tags to end-of-life (no more updates; deleted six months "
            "later). Absent means `false`",
            absent=False,
        ),
    )


@dataclass(frozen=True, eq=False, repr=False)
class MigGpu(Provenance):
    name: str = field(metadata=text(k.TEXT, "", example="A100"))
    compute_capability: str = field(metadata=text(k.COMPUTE_CAPABILITY, ""))
    max_instances: int = field(metadata=integer(k.POSITIVE_INT, "most GPU instances"))
    min_driver_linux: str = field(metadata=text(k.DRIVER, "first Linux driver with MIG on it"))


@dataclass(frozen=True, eq=False, repr=False)
class Distro(Provenance):
    """A base-image distribution and the Pythons its own package archive installs (with venv).

    The Dockerfile template installs Python from the distribution, so a row may only promise a
    Python its distro packages (nvidia/cuda images ship none)."""

    name: str = field(metadata=text(k.DISTRO, "as in base image tags", example="ubuntu22.04"))
    package_manager: str = field(
        metadata=text(k.PACKAGE_MANAGER, "the only one `templates/Dockerfile.j2` drives")
    )
    pythons: tuple[str, ...] = field(
        metadata=array(
            k.PYTHON,
            "Pythons the distribution's own archive installs with venv support",
            example='["3.10", "3.11"]',
        )
    )
    # The plain distribution image ("ubuntu:22.04", no CUDA libraries): the runtime base of
    # builds whose CUDA comes with their pip wheels. None: such builds get no runtime image.
    image: str | None = field(
        default=None,
        metadata=text(
            k.TEXT,
            "the distribution's plain image (no CUDA libraries): the runtime base of builds "
            "whose CUDA comes with their wheels",
            example="ubuntu:22.04",
            optional=True,
        ),
    )


@dataclass(frozen=True, eq=False, repr=False)
class DriverBranch(Provenance):
    """An NVIDIA driver branch (R580): its designation, end of life, and the GPU architectures
    for which it is the last branch."""

    branch: str = field(metadata=text(k.BRANCH, "", example="580"))
    designation: str = field(metadata=text(k.BRANCH_SUPPORT, "NVIDIA's designation of the branch"))
    end_of_life: str | None = field(
        default=None,
        metadata=text(
            k.END_OF_LIFE,
            'from NVIDIA\'s data-center driver lifecycle table, or `"ended"` where NVIDIA '
            "states the branch is end of life without the month (new feature branches have "
            "none)",
            optional=True,
        ),
    )
    max_cuda_major: int | None = field(
        default=None,
        metadata=integer(
            k.POSITIVE_INT,
            "newest CUDA major the branch runs without the forward-compatibility package",
            optional=True,
        ),
    )
    last_for: tuple[str, ...] = field(
        default=(),
        metadata=array(
            k.TEXT,
            "GPU architectures for which this is the last branch: R470 for Kepler, R580 for "
            "Maxwell, Pascal and Volta",
            example='["Maxwell", "Pascal", "Volta"]',
            optional=True,
        ),
    )
    # The NVIDIA vGPU software release built on this branch (19 for R580), and where it is said.
    vgpu_release: int | None = field(
        default=None,
        metadata=integer(
            k.POSITIVE_INT,
            "the NVIDIA vGPU software release (major) built on this branch: 16 for R535, 19 for "
            "R580 (the `vgpu-release` check reads it)",
            optional=True,
        ),
    )
    vgpu_source: str = field(
        default="",
        metadata=text(
            k.TEXT, "where `vgpu_release` is stated (required with it)", optional=True, absent=""
        ),
    )


@dataclass(frozen=True, eq=False, repr=False)
class PlatformWheel(BuildProvenance):
    """Where one framework release exists for one machine other than x86_64, read from the
    wheels an index serves: `[[wheel]]` rows. Every `[[pytorch.variants]]` and `[[tensorflow]]`
    row describes an x86_64 Linux build; a release reaches another machine only through these
    rows (see gpudoctor/matrix/platforms.py)."""

    framework: str = field(
        metadata=text(k.FRAMEWORK, "`version` names a row of that framework's table")
    )
    version: str = field(metadata=text(k.PEP440, "the release row's version", example="2.2.2"))
    machine: str = field(metadata=text(k.MACHINE, "Docker's `arm64` is `aarch64`"))
    index: str = field(
        metadata=text(
            k.WHEEL_INDEX,
            '`"pypi"` (plain `pip install`) or the index URL',
            example="https://download.pytorch.org/whl/cu128",
        )
    )
    cuda: str = field(
        metadata=text(
            k.WHEEL_CUDA,
            "the CUDA the wheel brings; a PyTorch CUDA wheel must equal one of the release's "
            "variants",
        )
    )
    wheel: str | None = field(
        default=None,
        metadata=text(k.TEXT, "the file whose METADATA was read", optional=True),
    )

    @property
    def cpu_only(self) -> bool:
        return self.cuda == "none"


@dataclass(frozen=True, eq=False, repr=False)
class ImagePlatform(Provenance):
    """A platform other than linux/amd64 that a base image repository's tags carry, from a CUDA
    release on: `[[image_platform]]` rows. Every `[[base_image]]` row is linux/amd64."""

    repository: str = field(metadata=text(k.TEXT, "", example="nvidia/cuda"))
    platform: str = field(metadata=text(k.OCI_PLATFORM, ""))
    min_cuda: str = field(
        metadata=text(
            k.CUDA_RELEASE,
            "the first CUDA release whose tags carry that platform",
            example="11.8.0",
        )
    )


@dataclass(frozen=True, eq=False, repr=False)
class ProgramMinimum(Provenance):
    """The documented minimum compute capability of a program people run on GPUs (vLLM,
    flash-attention, bitsandbytes, ollama), for the releases `versions` names."""

    name: str = field(
        metadata=text(
            k.TEXT,
            "the pip distribution's name, or the program's own name where `pip` is false",
        )
    )
    min_compute_capability: str = field(metadata=text(k.COMPUTE_CAPABILITY, ""))
    versions: str = field(
        default="",
        metadata=text(
            k.SPECIFIER,
            "the releases the row covers; absent: every release",
            optional=True,
            absent="",
        ),
    )
    pip: bool = field(
        default=True,
        metadata=flag(
            "found as an installed distribution of that name (`false` for ollama)", absent=True
        ),
    )


@dataclass(frozen=True, eq=False, repr=False)
class RocmRelease(Provenance):
    """A ROCm release series ("6.3"): the GPU (LLVM) targets AMD supports with it on Linux and
    the kernel-mode driver (KMD) release series its user space is tested with."""

    version: str = field(
        metadata=text(k.MAJOR_MINOR, "the series (patch releases share it)", example="6.3")
    )
    gfx: tuple[str, ...] = field(
        metadata=array(
            k.GFX,
            "the GPU (LLVM) targets AMD supports with it on Linux, from AMD's compatibility matrix",
        )
    )
    kmd: tuple[str, ...] = field(
        default=(),
        metadata=array(
            k.MAJOR_MINOR,
            "the kernel-mode driver (amdgpu/KFD) release series its user space is supported on: "
            'ROCm numbers up to 6.4 (`"6.1"`), the AMD GPU Driver\'s own numbers from ROCm 7.0 '
            '(`"30.10"`)',
            optional=True,
        ),
    )


@dataclass(frozen=True, eq=False, repr=False)
class NcclRelease(Provenance):
    """One fact about a range of NCCL releases, from NCCL's own source: the architectures its
    default build compiles (by the CUDA it is built with), a GPU architecture a release fails
    on and the release that fixes it, or whether it detects the nvidia-peermem module."""

    versions: str = field(
        metadata=text(k.SPECIFIER, "the NCCL releases the row covers", example=">=2.18.1,<2.25.1")
    )
    build_cuda: str = field(
        default="",
        metadata=text(
            k.SPECIFIER,
            "the CUDA NCCL was built with, for `architectures`; absent: any",
            optional=True,
            absent="",
        ),
    )
    architectures: tuple[str, ...] = field(
        default=(),
        metadata=array(
            k.ARCH_ENTRY, "the arch list entries its default build compiles", optional=True
        ),
    )
    bad_compute_capabilities: tuple[str, ...] = field(
        default=(),
        metadata=array(
            k.COMPUTE_CAPABILITY, "GPU architectures the releases fail on", optional=True
        ),
    )
    fixed_in: str | None = field(
        default=None, metadata=text(k.PEP440, "the release that fixes it", optional=True)
    )
    problem: str = field(
        default="",
        metadata=text(
            k.TEXT, "what fails (with `bad_compute_capabilities`)", optional=True, absent=""
        ),
    )
    peermem_detected: bool | None = field(  # finds GPUDirect RDMA through nvidia-peermem
        default=None,
        metadata=flag("whether the releases find GPUDirect RDMA through nvidia-peermem"),
    )


@dataclass(frozen=True, eq=False, repr=False)
class JetpackRelease(Provenance):
    """A JetPack release for Jetson: the Jetson Linux (L4T) releases it ships (the BSP, which
    holds the CUDA driver of the integrated GPU) and the CUDA, cuDNN and TensorRT it packages,
    each from NVIDIA's own JetPack or Jetson Linux page."""

    version: str = field(metadata=text(k.DOTTED, "the JetPack release", example="5.1.2"))
    l4t: tuple[str, ...] = field(
        metadata=array(
            k.DOTTED,
            "the Jetson Linux (L4T) releases it ships, as /etc/nv_tegra_release numbers them",
            example='["35.4.1"]',
        )
    )
    cuda: str | None = field(
        default=None,
        metadata=text(
            k.MAJOR_MINOR,
            "the CUDA it packages; absent where its page does not say",
            optional=True,
        ),
    )
    cudnn: str | None = field(
        default=None,
        metadata=text(k.DOTTED, "the cuDNN it packages, where its page says", optional=True),
    )
    tensorrt: str | None = field(
        default=None,
        metadata=text(k.DOTTED, "the TensorRT it packages, where its page says", optional=True),
    )
    sbsa: bool = field(
        default=False,
        metadata=flag(
            "its CUDA is the one of server Arm (SBSA), so the aarch64 CUDA wheels of PyPI and "
            "download.pytorch.org are built for it (JetPack 7 on Jetson Thor)",
            absent=False,
        ),
    )


@dataclass(frozen=True, eq=False, repr=False)
class AmdGpu(Provenance):
    """An AMD GPU model, its LLVM target and the PCI device ids it shows on the bus."""

    name: str = field(metadata=text(k.TEXT, "", example="AMD Instinct MI300X"))
    gfx: str = field(metadata=text(k.GFX, "its LLVM target (AMD's GPU specifications)"))
    kind: str = field(
        metadata=text(k.AMD_KIND, "`instinct`: data centre; `radeon`: Radeon and Radeon PRO")
    )
    pci_ids: tuple[str, ...] = field(
        default=(),
        metadata=array(k.PCI_ID, "PCI device ids as sysfs shows them, from pci.ids", optional=True),
    )


@dataclass(frozen=True, eq=False, repr=False)
class CloudInstance(Provenance):
    """A cloud provider's GPU instance family: the GPU model its instance types hold, and how
    many each holds, as the provider's own size tables list them."""

    family: str = field(metadata=text(k.TEXT, "the family as the provider names it", example="p4d"))
    provider: str = field(metadata=text(k.CLOUD, "", example="aws"))
    gpu: str = field(
        metadata=text(k.TEXT, "the GPU model, as the matrix's model lists name it", example="A100")
    )
    instances: tuple[str, ...] = field(
        metadata=array(
            k.INSTANCE_GPUS,
            "each instance type of the family with its GPU count",
            example='["p4d.24xlarge=8"]',
        )
    )

    def gpu_counts(self) -> dict[str, int]:
        """Instance type (lower case) -> the GPUs it holds."""
        out: dict[str, int] = {}
        for entry in self.instances:
            name, _, count = entry.rpartition("=")
            out[name.lower()] = int(count)
        return out


@dataclass(frozen=True, eq=False, repr=False)
class PytorchRocmVariant(Provenance):
    """A torch +rocmX.Y wheel set of one release on download.pytorch.org."""

    pytorch: str = field(metadata=text(k.PEP440, "a `[[pytorch]]` row's version", example="2.5.1"))
    rocm: str = field(
        metadata=text(
            k.ROCM, "the ROCm of the wheels as the index and the local version tag spell it"
        )
    )
    index_url: str = field(
        metadata=text(k.URL, "", example="https://download.pytorch.org/whl/rocm6.2")
    )
    gfx: tuple[str, ...] = field(
        default=(),
        metadata=array(
            k.GFX,
            "the build's `PYTORCH_ROCM_ARCH`; absent where it could not be read",
            optional=True,
        ),
    )

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
    cuda: tuple[CudaRelease, ...] = field(
        metadata=table("cuda", CudaRelease, "version", "CUDA Toolkit releases, GA and each update")
    )
    cuda_majors: tuple[CudaMajor, ...] = field(
        metadata=table("cuda_major", CudaMajor, "major", "per major release")
    )
    architectures: tuple[Architecture, ...] = field(
        metadata=table(
            "architecture",
            Architecture,
            "compute_capability",
            "GPU architectures by compute capability",
        )
    )
    pytorch: tuple[PytorchRelease, ...] = field(
        metadata=table(
            "pytorch", PytorchRelease, "version", "one row per minor release (its newest patch)"
        )
    )
    tensorflow: tuple[TensorflowRelease, ...] = field(
        metadata=table("tensorflow", TensorflowRelease, "version", "one row per minor release")
    )
    base_images: tuple[BaseImage, ...] = field(
        metadata=table("base_image", BaseImage, "cuda", "`nvidia/cuda` images per CUDA release")
    )
    mig_gpus: tuple[MigGpu, ...] = field(
        metadata=table("mig_gpu", MigGpu, "name", "GPUs that support Multi-Instance GPU")
    )
    distros: tuple[Distro, ...] = field(
        default=(),
        metadata=table(
            "distro", Distro, "name", "base-image distributions and the Pythons they package"
        ),
    )
    driver_branches: tuple[DriverBranch, ...] = field(
        default=(),
        metadata=table("driver_branch", DriverBranch, "branch", "NVIDIA driver branches"),
    )
    wheels: tuple[PlatformWheel, ...] = field(
        default=(),
        metadata=table("wheel", PlatformWheel, "version", "where a release exists beyond x86_64"),
    )
    image_platforms: tuple[ImagePlatform, ...] = field(
        default=(),
        metadata=table(
            "image_platform",
            ImagePlatform,
            "platform",
            "base-image platforms beyond linux/amd64",
        ),
    )
    programs: tuple[ProgramMinimum, ...] = field(
        default=(),
        metadata=table(
            "program", ProgramMinimum, "name", "the minimum compute capability of GPU programs"
        ),
    )
    nccl: tuple[NcclRelease, ...] = field(
        default=(),
        metadata=table("nccl", NcclRelease, "versions", "NCCL releases, from NCCL's own source"),
    )
    rocm: tuple[RocmRelease, ...] = field(
        default=(),
        metadata=table("rocm", RocmRelease, "version", "ROCm release series"),
    )
    jetpack: tuple[JetpackRelease, ...] = field(
        default=(),
        metadata=table(
            "jetpack", JetpackRelease, "version", "JetPack releases: their L4T and CUDA (Jetson)"
        ),
    )
    amd_gpus: tuple[AmdGpu, ...] = field(
        default=(),
        metadata=table("amd_gpu", AmdGpu, "name", "AMD GPU models"),
    )
    cloud_instances: tuple[CloudInstance, ...] = field(
        default=(),
        metadata=table(
            "cloud_instance",
            CloudInstance,
            "family",
            "cloud GPU instance families: their GPU model and count",
        ),
    )
    pytorch_rocm: tuple[PytorchRocmVariant, ...] = field(
        default=(),
        metadata=table(
            "pytorch_rocm",
            PytorchRocmVariant,
            "pytorch",
            "torch ROCm wheel sets on download.pytorch.org",
        ),
    )
