"""The fatbin reader against libraries nvcc builds (skipped where nvcc is absent) and against
the synthetic layout the other wheel tests use."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import pytest

from gpudoctor.wheels.fatbin import (
    NotAnElf,
    arch_list,
    occasional,
    parse_fatbins,
    ptx_only,
    read_section,
)
from tests.support.wheels import elf, fatbin

KERNEL = """
__global__ void twice(float *x) { x[threadIdx.x] *= 2.0f; }
extern "C" void launch(float *x) { twice<<<1, 32>>>(x); }
"""


def _nvcc() -> str | None:
    found = shutil.which("nvcc")
    if found:
        return found
    candidates = sorted(Path("/usr/local").glob("cuda*/bin/nvcc"))
    return str(candidates[-1]) if candidates else None


def _build(tmp_path: Path, gencodes: list[str]) -> Path:
    nvcc = _nvcc()
    if nvcc is None:
        pytest.skip("nvcc not found (CUDA toolkit not installed)")
    source = tmp_path / "k.cu"
    source.write_text(KERNEL)
    library = tmp_path / "libk.so"
    args = [nvcc, "-shared", "-Xcompiler", "-fPIC", "-o", str(library), str(source)]
    for gencode in gencodes:
        args += ["-gencode", gencode]
    done = subprocess.run(args, capture_output=True, text=True, timeout=300, check=False)
    if done.returncode != 0 and "Unsupported gpu architecture" in done.stderr:
        pytest.skip(f"this nvcc cannot build {gencodes}: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    return library


def _entries(library: Path) -> list[str]:
    with library.open("rb") as stream:
        section = read_section(stream)
    assert section is not None, "nvcc output has no .nv_fatbin section"
    return sorted({e.name for targets in parse_fatbins(section) for e in targets})


def test_nvcc_sass_ptx_and_arch_specific(tmp_path: Path) -> None:
    library = _build(
        tmp_path,
        [
            "arch=compute_75,code=sm_75",
            "arch=compute_90a,code=sm_90a",
            "arch=compute_90,code=compute_90",
        ],
    )
    assert _entries(library) == ["compute_90", "sm_75", "sm_90a"]
    with library.open("rb") as stream:
        entries = parse_fatbins(read_section(stream) or b"")
    assert arch_list(entries) == ["7.5", "9.0a"]
    assert ptx_only(entries) == ["compute_90"]


def test_nvcc_family_targets_and_sass_with_ptx(tmp_path: Path) -> None:
    library = _build(
        tmp_path,
        [
            "arch=compute_100f,code=sm_100f",
            "arch=compute_120,code=[sm_120,compute_120]",
        ],
    )
    with library.open("rb") as stream:
        entries = parse_fatbins(read_section(stream) or b"")
    assert arch_list(entries) == ["10.0f", "12.0+PTX"]
    assert ptx_only(entries) == []


def test_synthetic_layout_reads_like_nvcc_output() -> None:
    data = elf(
        {
            ".text": b"\x90" * 8,
            ".nv_fatbin": fatbin([("sass", 80, ""), ("sass", 120, ""), ("ptx", 120, "")])
            + b"\0" * 8
            + fatbin([("sass", 80, ""), ("ptx", 120, ""), ("sass", 120, "")]),
        }
    )
    section = read_section(io.BytesIO(data))
    assert section is not None
    fatbins = parse_fatbins(section)
    assert len(fatbins) == 2
    assert arch_list(fatbins) == ["8.0", "12.0+PTX"]


def test_targets_of_a_few_kernels_are_not_the_build_arch_list() -> None:
    # 2.15.0's libtorch_cuda.so: sm_75..sm_120 in all 476 fat binaries, sm_90a in 4, sm_89 in 1.
    common = [("sass", 80, ""), ("sass", 90, "")]
    blobs = [fatbin(common) for _ in range(5)]
    blobs[0] = fatbin([*common, ("sass", 90, "a")])
    blobs[1] = fatbin([*common, ("sass", 89, "")])
    section = read_section(io.BytesIO(elf({".nv_fatbin": b"".join(blobs)})))
    fatbins = parse_fatbins(section or b"")
    assert arch_list(fatbins) == ["8.0", "9.0"]
    assert occasional(fatbins) == [("sm_89", 1), ("sm_90a", 1)]


def test_an_elf_without_device_code_has_no_section() -> None:
    assert read_section(io.BytesIO(elf({".text": b"\x90"}))) is None


def test_not_an_elf_is_refused() -> None:
    with pytest.raises(NotAnElf):
        read_section(io.BytesIO(b"PK\x03\x04" + b"\0" * 100))
