"""Matrix fields, each with its evidence, from what a release's wheels say about themselves.

Shared by `scripts/read_wheel.py` (a maintainer reads one release) and `gpudoctor matrix update`
(every release the matrix lacks), so both read the same facts the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpudoctor.wheels.fatbin import arch_list, ptx_only
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
    version_py = facts.torch_version_py
    if "cuda" in version_py:
        cuda = version_py["cuda"]
        out.append(
            Field(
                "cuda",
                ".".join(cuda.split(".")[:2]) if cuda else "",
                f"{facts.filename} torch/version.py: cuda = {cuda or None!r}",
            )
        )
    if version_py.get("git_version"):
        out.append(
            Field(
                "git_version",
                version_py["git_version"],
                f"{facts.filename} torch/version.py",
            )
        )
    pins = facts.pins()
    floors = facts.floors()
    # TensorFlow's matrix rows name cuDNN as MAJOR.MINOR (its tested-configurations table does).
    short = facts.name.lower() == "tensorflow"
    for package, version in sorted(pins.items()):
        if _CUDNN.match(package):
            line = facts.pin_line(package)
            value = ".".join(version.split(".")[:2]) if short else version
            out.append(Field("cudnn", value, f"{facts.filename} METADATA Requires-Dist: {line}"))
    if not any(f.key == "cudnn" for f in out):
        # TensorFlow's [and-cuda] extra gives ranges; its floor is the version it was built with.
        for package, version in sorted(floors.items()):
            if _CUDNN.match(package):
                line = facts.pin_line(package)
                major_minor = ".".join(version.split(".")[:2])
                out.append(
                    Field("cudnn", major_minor, f"{facts.filename} METADATA Requires-Dist: {line}")
                )
    if "cuda" not in version_py:
        for package, version in sorted({**floors, **pins}.items()):
            if _CUDA_RUNTIME.match(package):
                line = facts.pin_line(package)
                major_minor = ".".join(version.split(".")[:2])
                out.append(
                    Field("cuda", major_minor, f"{facts.filename} METADATA Requires-Dist: {line}")
                )
    if facts.fatbin_libraries:
        entries = list(facts.fatbin_entries)
        sass = sorted({e.name for e in entries if e.kind == "sass"})
        ptx = sorted({e.name for e in entries if e.kind == "ptx"})
        where = ", ".join(facts.fatbin_libraries)
        out.append(
            Field(
                "arch_list",
                tuple(arch_list(entries)),
                f"{facts.filename} .nv_fatbin of {where}: SASS {' '.join(sass) or 'none'}; "
                f"PTX {' '.join(ptx) or 'none'}"
                + (f" (PTX only: {' '.join(ptx_only(entries))})" if ptx_only(entries) else ""),
            )
        )
    return out


def companion_pin(facts: WheelFacts, project: str) -> str | None:
    """The exact version of `project` (torch) a companion wheel (torchvision) pins."""
    return facts.pins().get(project)
