"""Will this image run on this host: the facts of a built image (from its io.gpudoctor.* labels,
or read by running it) judged by the same model as everything else, plus the start-time
requirement (`NVIDIA_REQUIRE_CUDA`) the NVIDIA Container Toolkit enforces. Pure; no I/O (the
probe is gpudoctor/probes/image.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from gpudoctor import framework_names, versions
from gpudoctor.compat.builds import installed

if TYPE_CHECKING:
    from gpudoctor.compat.builds import Build
    from gpudoctor.facts import HostFacts
    from gpudoctor.matrix.model import Matrix


@dataclass(frozen=True)
class ImageFacts:
    reference: str
    source: str  # "labels" (io.gpudoctor.*) or "run" (read inside the image)
    framework: str | None = None  # "pytorch", "tensorflow"
    version: str | None = None  # "2.5.1"
    cuda: str | None = None  # "12.4"; None: a CPU-only build, or unknown
    arch_list: tuple[str, ...] | None = None
    require_cuda: str | None = None  # the image's NVIDIA_REQUIRE_CUDA
    error: str | None = None  # why the framework could not be read
    platform: str | None = None  # "linux/arm64": its io.gpudoctor.platform label, else its config


def build_of(matrix: Matrix, image: ImageFacts) -> Build | None:
    """The enumerated build the image holds; its own arch list (a label) wins."""
    if image.framework not in framework_names.MATRIX or not image.version:
        return None
    # a CPU-only torch has no variant; TensorFlow read without importing it: its release's one
    # CUDA, from the matrix (the one lookup of an installed build)
    found = installed(matrix, image.framework, image.version, image.cuda or None)
    if found is None:
        return None
    build = replace(found, version=image.version)
    return replace(build, arch_list=image.arch_list) if image.arch_list else build


# One NVIDIA_REQUIRE_CUDA constraint: cuda>=12.4, driver<536, brand=tesla.
_CONSTRAINT = re.compile(r"^(cuda|driver|brand|arch)(>=|<=|==|=|>|<)(.+)$")


def admits(
    require: str, driver: str | None, driver_cuda: str | None, brands: set[str]
) -> bool | None:
    """Does NVIDIA_REQUIRE_CUDA admit this host? Space-separated clauses are ORed,
    comma-separated constraints ANDed (NVIDIA Container Toolkit). None: cannot tell."""

    clauses = [c for c in require.split() if c]
    if not clauses:
        return True
    unknown = False
    for clause in clauses:
        results: list[bool | None] = []
        for part in clause.split(","):
            match = _CONSTRAINT.match(part)
            if match is None:
                results.append(None)
                continue
            key, op, value = match.groups()
            if key == "brand":
                results.append(value.lower() in brands if brands else None)
                continue
            have = versions.release(driver_cuda if key == "cuda" else driver)
            want = versions.release(value)
            if have is None or want is None or key == "arch":
                results.append(None)
                continue
            results.append(versions.compare(have, op, want))
        if all(r is True for r in results):
            return True
        unknown = unknown or (None in results and False not in results)
    return None if unknown else False


def host_brands(facts: HostFacts) -> set[str]:
    """NVML brands as NVIDIA_REQUIRE_CUDA names them (tesla, geforce, nvidiartx, ...)."""
    return {g.brand.lower().replace("_", "") for g in facts.nvml.gpus if g.brand}
