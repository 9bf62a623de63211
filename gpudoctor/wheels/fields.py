"""Matrix fields, each with its evidence, from what a release's wheels say about themselves.

Shared by `scripts/read_wheel.py` (a maintainer reads one release) and `gpudoctor matrix update`
(every release the matrix lacks), so both read the same facts the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpudoctor import versions
from gpudoctor.wheels.fatbin import arch_list, build_targets, occasional, ptx_only
from gpudoctor.wheels.release import ReleaseWheels
from gpudoctor.wheels.wheel import WheelFacts

# The cuDNN wheel a torch or TensorFlow build pins: nvidia-cudnn-cu11/cu12/cu13.
_CUDNN = re.compile(r"^nvidia-cudnn-cu(\d+)$")
_CUDA_RUNTIME = re.compile(r"^nvidia-cuda-runtime(-cu\d+)?$")


@dataclass(frozen=True)
class Field:
    key: str  # matrix key: "python", "cuda", "cudnn", "arch_list", ...
    value: str | tuple[str, ...]
    evidence: str

    def toml(self) -> str:
        if isinstance(self.value, tuple):
            return "[" + ", ".join(f'"{v}"' for v in self.value) + "]"
        return f'"{self.value}"'


def release_fields(release: ReleaseWheels, facts: WheelFacts) -> list[Field]:
    """The fields a release and one of its wheels establish."""
    out = [
        Field(
            "python",
            release.pythons,
            "CPython Linux x86_64 wheels on the index: "
            + " ".join(f"cp3{p.split('.')[1]}" for p in release.pythons),
        )
    ]
    if facts.requires_python:
        out.append(Field("requires_python", facts.requires_python, f"{facts.filename} METADATA"))
    out += _version_py(facts) + _pinned(facts)
    if facts.fatbin_libraries:
        out.append(_arch_list(facts))
    return out


def _version_py(facts: WheelFacts) -> list[Field]:
    version_py = facts.torch_version_py
    out = []
    if "cuda" in version_py:
        cuda = version_py["cuda"]
        major_minor = _minor(cuda) if cuda else ""
        evidence = f"{facts.filename} torch/version.py: cuda = {cuda or None!r}"
        out.append(Field("cuda", major_minor, evidence))
    if version_py.get("git_version"):
        evidence = f"{facts.filename} torch/version.py"
        out.append(Field("git_version", version_py["git_version"], evidence))
    return out


def _pinned(facts: WheelFacts) -> list[Field]:
    """cuDNN from the nvidia-cudnn pin; TensorFlow's CUDA from its runtime wheel's pin.

    TensorFlow's [and-cuda] extra gives ranges whose floor is the version it was built with, and
    its matrix rows name cuDNN as MAJOR.MINOR (as its tested-configurations table does)."""
    short = facts.name.lower() == "tensorflow"
    out: list[Field] = []
    for exact, bounds in ((True, facts.pins()), (False, facts.floors())):
        for package, version in sorted(bounds.items()):
            line = facts.pin_line(package)
            evidence = f"{facts.filename} METADATA Requires-Dist: {line}"
            have = {f.key for f in out}
            if _CUDNN.match(package) and "cudnn" not in have:
                value = version if exact and not short else _minor(version)
                out.append(Field("cudnn", value, evidence))
            runtime = _CUDA_RUNTIME.match(package) and "cuda" not in facts.torch_version_py
            if runtime and "cuda" not in have:
                out.append(Field("cuda", _minor(version), evidence))
    return out


def _arch_list(facts: WheelFacts) -> Field:
    fatbins = list(facts.fatbins)
    build = build_targets(fatbins)
    sass = " ".join(e.name for e in sorted(build) if e.kind == "sass") or "none"
    ptx = " ".join(e.name for e in sorted(build) if e.kind == "ptx") or "none"
    extra = ", ".join(f"{name} ({n})" for name, n in occasional(fatbins))
    where = ", ".join(facts.fatbin_libraries)
    evidence = (
        f"{facts.filename} .nv_fatbin of {where}: {len(fatbins)} fat binaries; "
        f"SASS in at least half: {sass}; PTX: {ptx}"
    )
    if ptx_only(fatbins):
        evidence += f" (PTX only: {' '.join(ptx_only(fatbins))})"
    if extra:
        evidence += f"; in a few kernels only: {extra}"
    return Field("arch_list", tuple(arch_list(fatbins)), evidence)


def companion_pin(facts: WheelFacts, project: str) -> str | None:
    """The exact version of `project` (torch) a companion wheel (torchvision) pins."""
    return facts.pins().get(project)


def _minor(version: str) -> str:
    """ "12.4.127" -> "12.4"; a version of one number ("9") stays as it is."""
    return versions.major_minor(version, pad=False) or version
