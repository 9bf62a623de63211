"""The start-time requirement of a build: the oldest driver the model says runs it, and the
`NVIDIA_REQUIRE_CUDA` clause that admits exactly those drivers.

The NVIDIA Container Toolkit refuses to start a container whose `NVIDIA_REQUIRE_CUDA` the
driver does not meet; space-separated constraints are ORed, comma-separated ones ANDed
(docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/docker-specialized.html).
`cuda>=X.Y` compares with the CUDA version the driver reports, so the model's rule (every driver
at or above the major's minor-version floor runs the build) is `cuda>=` the major's first
release: `cuda>=12.0` for any cu12x build (525.60.13 reports 12.0).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpudoctor import versions
from gpudoctor.matrix.queries import min_driver_for_cuda, minor_compat_floor
from gpudoctor.versions import numeric

if TYPE_CHECKING:
    from gpudoctor.compat.builds import Build
    from gpudoctor.matrix.model import Matrix


@dataclass(frozen=True)
class StartRequirement:
    min_driver: str  # the oldest driver that runs the build (minor-version floor of its major)
    native_driver: str | None  # the build's CUDA release's own minimum
    require_cuda: str  # "cuda>=12.0"


def start_requirement(matrix: Matrix, build: Build) -> StartRequirement | None:
    """None when the matrix knows neither the build's CUDA release nor its major."""
    major = versions.major(build.cuda)
    native = min_driver_for_cuda(matrix, build.cuda)
    floor = minor_compat_floor(matrix, major)
    oldest = floor or native
    if oldest is None:
        return None
    releases = [r for r in matrix.cuda if numeric(r.version)[0] == major]
    first = min(releases, key=lambda r: numeric(r.version)).major_minor if floor else build.cuda
    return StartRequirement(oldest, native, f"cuda>={first}")
