"""What `resolve` is asked (`ResolveRequest`) and what it answers: a known-good image row
(`ResolvedRow`) or, per rejected candidate, why not (`Rejection`). Pure data."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpudoctor.frozen import Frozen
from gpudoctor.matrix.platforms import X86_64, machine_of

if TYPE_CHECKING:
    from gpudoctor.compat.host import Host


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
    # Facts of the build not read from its wheel (cudnn, arch_list, nccl, ...): `build` verifies
    # them inside the image.
    unread: tuple[str, ...] = ()
    runtime: str = "cuda"  # the GPU runtime of the build ("cuda"; next: "rocm")
    nccl: str | None = None  # the NCCL wheel the build pins, when the matrix knows it


class Unsettled(str):
    """A reason `--allow-unverified` lifts (a row whose existence no primary source settles):
    typed, so that ranking the nearest rejections never reads the wording."""

    __slots__ = ()


@dataclass(frozen=True, eq=False, repr=False)
class Rejection(Frozen):
    """A candidate row `resolve` rejected, and why (shown when nothing matches)."""

    candidate: str
    reasons: tuple[str, ...]
    framework: str = ""
    version: str = ""  # the framework release ("2.5.1")
    cuda: str = ""  # the build's CUDA ("12.4")

    @property
    def unsettled(self) -> int:
        """How many of its reasons `--allow-unverified` lifts."""
        return sum(isinstance(r, Unsettled) for r in self.reasons)


def target_machine(request: ResolveRequest) -> str:
    """The machine the row is for: --machine/--platform, else the target host's; x86_64 when
    neither says (the matrix's own rows)."""
    host = request.host.machine if request.host is not None else None
    return machine_of(request.machine) or machine_of(host) or X86_64
