"""The GPU code compiled into an ELF shared library, read with `struct` (nothing is loaded).

nvcc stores device code in the `.nv_fatbin` section as a run of fat binaries. Each starts with a
16-byte header (magic 0xBA55ED50, version 1, header size, payload size) and holds entries whose
header gives the kind (1 = PTX, 2 = cubin/SASS), the SM number (`arch`, 90 for sm_90) and flags.
The entry layout and the flag bits for `a` (arch-specific, 0x100000) and `f` (family, 0x200000)
targets were read from libraries built by nvcc 13.0 (`-gencode arch=compute_90a,code=sm_90a`,
`code=sm_100f`, `code=compute_90`); tests/wheels builds such a library and checks them.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import BinaryIO

FATBIN_MAGIC = 0xBA55ED50
_FATBIN_HEADER = struct.Struct("<IHHQ")
# kind, version, header size, payload size, compressed size, ?, minor, major, arch, ...flags
_ENTRY_HEADER = struct.Struct("<HHIQIIHHIIIQ")
KIND_PTX = 1
KIND_CUBIN = 2
FLAG_ARCH_SPECIFIC = 0x100000
FLAG_FAMILY = 0x200000
_SECTION = ".nv_fatbin"


class NotAnElf(ValueError):
    """The bytes are not a 64-bit little-endian ELF file (the only kind CUDA wheels ship)."""


@dataclass(frozen=True, order=True)
class FatbinEntry:
    sm: int  # 90 for sm_90
    suffix: str  # "", "a" or "f"
    kind: str  # "sass" or "ptx"

    @property
    def name(self) -> str:
        prefix = "sm" if self.kind == "sass" else "compute"
        return f"{prefix}_{self.sm}{self.suffix}"


def read_section(stream: BinaryIO, name: str = _SECTION) -> bytes | None:
    """The bytes of one ELF section, or None when the file has no such section."""
    stream.seek(0)
    ident = stream.read(64)
    if len(ident) < 64 or ident[:4] != b"\x7fELF":
        raise NotAnElf("not an ELF file")
    if ident[4] != 2 or ident[5] != 1:
        raise NotAnElf("not a 64-bit little-endian ELF file")
    (shoff,) = struct.unpack_from("<Q", ident, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", ident, 0x3A)
    if shoff == 0 or shnum == 0:
        return None
    stream.seek(shoff)
    table = stream.read(shentsize * shnum)
    if len(table) < shentsize * shnum:
        raise NotAnElf("section header table runs past the end of the file")

    def section(index: int) -> tuple[int, int, int]:
        name_off, _type, _flags, _addr, offset, size = struct.unpack_from(
            "<IIQQQQ", table, index * shentsize
        )
        return name_off, offset, size

    _n, str_off, str_size = section(shstrndx)
    stream.seek(str_off)
    strtab = stream.read(str_size)
    wanted = name.encode()
    for index in range(shnum):
        name_off, offset, size = section(index)
        end = strtab.find(b"\0", name_off)
        if strtab[name_off:end] == wanted:
            stream.seek(offset)
            return stream.read(size)
    return None


def parse_fatbins(data: bytes) -> list[frozenset[FatbinEntry]]:
    """The targets of each fat binary in a `.nv_fatbin` section, in file order."""
    fatbins: list[frozenset[FatbinEntry]] = []
    pos = 0
    while pos + _FATBIN_HEADER.size <= len(data):
        magic, _version, header_size, fat_size = _FATBIN_HEADER.unpack_from(data, pos)
        if magic != FATBIN_MAGIC:
            # Fat binaries are 8-byte aligned; padding between them is zeros.
            pos += 8
            continue
        entry = pos + header_size
        end = min(entry + fat_size, len(data))
        targets: set[FatbinEntry] = set()
        while entry + _ENTRY_HEADER.size <= end:
            kind, _v, entry_header, size, *_rest, arch, _no, _nl, flags = _ENTRY_HEADER.unpack_from(
                data, entry
            )
            if kind in (KIND_PTX, KIND_CUBIN):
                suffix = "a" if flags & FLAG_ARCH_SPECIFIC else "f" if flags & FLAG_FAMILY else ""
                targets.add(FatbinEntry(arch, suffix, "ptx" if kind == KIND_PTX else "sass"))
            if entry_header == 0:
                break
            entry += entry_header + size
        fatbins.append(frozenset(targets))
        pos = max(end, pos + 8)
    return fatbins


def _census(fatbins: list[frozenset[FatbinEntry]]) -> dict[FatbinEntry, int]:
    counts: dict[FatbinEntry, int] = {}
    for targets in fatbins:
        for target in targets:
            counts[target] = counts.get(target, 0) + 1
    return counts


def build_targets(fatbins: list[frozenset[FatbinEntry]]) -> set[FatbinEntry]:
    """The targets of the library's own build: those in at least half of its fat binaries.

    Every translation unit is compiled for the build's architecture list, so its targets are in
    (nearly) every fat binary; a few kernels compiled for extra targets (sm_90a GEMMs, an sm_89
    kernel) appear in a handful only and say nothing about the other kernels."""
    return {t for t, n in _census(fatbins).items() if 2 * n >= len(fatbins)}


def occasional(fatbins: list[frozenset[FatbinEntry]]) -> list[tuple[str, int]]:
    """Targets found in fewer than half of the fat binaries, with their counts."""
    common = build_targets(fatbins)
    counts = _census(fatbins)
    return [(t.name, counts[t]) for t in sorted(counts) if t not in common]


def _targets(entries: set[FatbinEntry]) -> dict[tuple[int, str], set[str]]:
    by_target: dict[tuple[int, str], set[str]] = {}
    for e in entries:
        by_target.setdefault((e.sm, e.suffix), set()).add(e.kind)
    return by_target


def arch_list(fatbins: list[frozenset[FatbinEntry]]) -> list[str]:
    """TORCH_CUDA_ARCH_LIST form of the build's SASS targets: "8.6", "9.0a", and "9.0+PTX" when
    PTX of the same target is embedded too. PTX-only targets have no such form: see `ptx_only`."""
    out = []
    for (sm, suffix), kinds in sorted(_targets(build_targets(fatbins)).items()):
        if "sass" in kinds:
            out.append(f"{sm // 10}.{sm % 10}{suffix}" + ("+PTX" if "ptx" in kinds else ""))
    return out


def ptx_only(fatbins: list[frozenset[FatbinEntry]]) -> list[str]:
    """Build targets embedded as PTX with no SASS of their own, as "compute_90"."""
    return [
        f"compute_{sm}{suffix}"
        for (sm, suffix), kinds in sorted(_targets(build_targets(fatbins)).items())
        if "sass" not in kinds
    ]
