"""What a wheel says about itself, read from its zip without installing or importing it.

`read_wheel` takes any seekable binary file: a downloaded wheel, or `remote.RangeFile` over HTTP
range requests, so that METADATA and torch/version.py cost a few kilobytes of a 500 MB wheel.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import zipfile
from dataclasses import dataclass, field
from email.parser import HeaderParser
from typing import BinaryIO

from gpudoctor import versions
from gpudoctor.assignments import MAX_BYTES, read_assignments
from gpudoctor.netread import METADATA_CAP
from gpudoctor.wheels.fatbin import FatbinEntry, parse_fatbins, read_section

# Wheels whose fatbins tell a framework's compiled architectures (torch keeps nearly all its
# kernels in libtorch_cuda.so; older releases split it into _cu and _cpp parts).
CUDA_LIBRARIES = re.compile(r"(^|/)torch/lib/libtorch_cuda(_cu|_cpp)?\.so$")
LIBRARY_CAP = 8 << 30  # a CUDA library unpacked to a temporary file (libtorch_cuda.so: ~1.5 GB)
_WHEEL_NAME = re.compile(r"^(?P<name>[^-]+)-(?P<version>[^-]+)(-\d[^-]*)?-(?P<py>[^-]+)-")


@dataclass(frozen=True)
class WheelFacts:
    filename: str
    name: str
    version: str
    requires_python: str | None
    requires_dist: tuple[str, ...]
    torch_version_py: dict[str, str] = field(default_factory=dict)  # cuda, git_version, ...
    fatbins: tuple[frozenset[FatbinEntry], ...] = ()  # each fat binary's targets
    fatbin_libraries: tuple[str, ...] = ()  # members whose fatbins were read

    def _bounds(self, operator: str) -> dict[str, str]:
        from packaging.requirements import InvalidRequirement, Requirement

        out: dict[str, str] = {}
        for line in self.requires_dist:
            try:
                requirement = Requirement(line)
            except InvalidRequirement:
                continue
            for spec in requirement.specifier:
                if spec.operator == operator and "*" not in spec.version:
                    out[_normal(requirement.name)] = spec.version
        return out

    def pins(self) -> dict[str, str]:
        """`name==version` pins of Requires-Dist (markers ignored): {"nvidia-cudnn-cu12": "9.1"}"""
        return self._bounds("==")

    def floors(self) -> dict[str, str]:
        """`name>=version` lower bounds of Requires-Dist (TensorFlow's [and-cuda] ranges)."""
        return self._bounds(">=")

    def pin_line(self, package: str) -> str | None:
        """The Requires-Dist line that names `package`, verbatim (evidence)."""
        for requirement in self.requires_dist:
            match = re.match(r"[A-Za-z0-9._-]+", requirement)
            if match and _normal(match[0]) == package:
                return requirement
        return None


def _normal(name: str) -> str:
    return versions.canonical_name(name)


def python_tag(filename: str) -> str | None:
    """ "3.12" for a cp312 wheel (None for py3-none and the like)."""
    match = _WHEEL_NAME.match(filename)
    if not match:
        return None
    tag = match["py"].split(".")[0]
    digits = re.fullmatch(r"cp3(\d+)", tag)
    return f"3.{digits[1]}" if digits else None


def parse_metadata(text: str) -> tuple[str, str, str | None, tuple[str, ...]]:
    """(name, version, Requires-Python, Requires-Dist lines) of a METADATA or .metadata file."""
    message = HeaderParser().parsestr(text)
    return (
        message.get("Name", ""),
        message.get("Version", ""),
        message.get("Requires-Python"),
        tuple(message.get_all("Requires-Dist") or ()),
    )


def parse_version_py(text: str) -> dict[str, str]:
    """The string (or None, as "") assignments of torch/version.py, read by the same bounded
    line rule as the live frameworks probe (gpudoctor/assignments.py): never executed, never
    given to the Python parser (a hostile file could exhaust it)."""
    return {k: "" if v is None else v for k, v in read_assignments(text).items()}


def read_member(archive: zipfile.ZipFile, name: str, cap: int) -> bytes:
    """A zip member of at most `cap` bytes: its declared size is checked before reading, and
    the read stops past `cap` whatever the declared size said (zipfile also stops at it)."""
    info = archive.getinfo(name)
    if info.file_size > cap:
        raise ValueError(f"{name} is {info.file_size} bytes unpacked, more than {cap} allowed")
    with archive.open(info) as member:
        data = member.read(cap + 1)
    if len(data) > cap:
        raise ValueError(f"{name} unpacks to more than {cap} bytes")
    return data


def read_wheel(stream: BinaryIO, filename: str, *, fatbins: bool = False) -> WheelFacts:
    """Read METADATA, torch/version.py and (with `fatbins`) the CUDA libraries' fatbins."""
    with zipfile.ZipFile(stream) as archive:
        names = archive.namelist()
        metadata_name = next(
            (n for n in names if re.fullmatch(r"[^/]+\.dist-info/METADATA", n)), None
        )
        if metadata_name is None:
            raise zipfile.BadZipFile(f"{filename}: no *.dist-info/METADATA")
        name, version, requires_python, requires_dist = parse_metadata(
            read_member(archive, metadata_name, METADATA_CAP).decode("utf-8", "replace")
        )
        version_py: dict[str, str] = {}
        if "torch/version.py" in names:
            version_py = parse_version_py(
                read_member(archive, "torch/version.py", MAX_BYTES).decode("utf-8", "replace")
            )
        found: list[frozenset[FatbinEntry]] = []
        libraries: list[str] = []
        if fatbins:
            for member in names:
                if CUDA_LIBRARIES.search(member):
                    libraries.append(member)
                    found.extend(_member_fatbins(archive, member))
    return WheelFacts(
        filename=filename,
        name=name,
        version=version,
        requires_python=requires_python,
        requires_dist=requires_dist,
        torch_version_py=version_py,
        fatbins=tuple(found),
        fatbin_libraries=tuple(libraries),
    )


def _member_fatbins(archive: zipfile.ZipFile, member: str) -> list[frozenset[FatbinEntry]]:
    # The ELF needs random access; a deflated member has none, so it is unpacked to a temporary
    # file first (libtorch_cuda.so is over a gigabyte: never held in memory).
    info = archive.getinfo(member)
    if info.file_size > LIBRARY_CAP:
        raise ValueError(f"{member} is {info.file_size} bytes unpacked, more than {LIBRARY_CAP}")
    with tempfile.TemporaryFile() as scratch:
        with archive.open(info) as source:  # stops at the declared size
            shutil.copyfileobj(source, scratch, 1 << 22)
        section = read_section(scratch)
    return parse_fatbins(section) if section else []
