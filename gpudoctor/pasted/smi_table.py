"""`nvidia-smi` (the table): the header's driver and CUDA versions, and per GPU its name,
persistence mode, bus id, temperature, power, memory and MIG mode. Both layouts are read: up to
R470 (`|   0  GeForce RTX 3090    Off  | 00000000:01:00.0 Off |`) and from R525 on (wider
columns, `NVIDIA ` in the name), whose header from R610 says "KMD Version" and "CUDA UMD
Version". Cells are split on `|`, so column widths do not matter. The `MIG devices:` block below
the GPUs lists each MIG device (GPU, GPU instance, compute instance, device index, memory) or
says `No MIG devices found`: either way the table shows the GPUs' MIG instances, which a table
cut off above the block does not (the `mig-listing` word). On Windows the column after the name
is the driver model (`TCC/WDDM`, `Driver-Model`: "WDDM" or "TCC") instead of the persistence
mode; a table quoted with an indent (text-generation-launcher's `--env` dump) is read as well.
"""

from __future__ import annotations

import re

from gpudoctor.facts import MigDevice
from gpudoctor.pasted.clean import bus_id, integer, mib_bytes, number, on_off, version_text
from gpudoctor.pasted.draft import Draft, failed_reading, mark_failed_readings, put
from gpudoctor.pasted.scan import line_starts_with

NAME = "nvidia-smi"
DESCRIPTION = "`nvidia-smi` table"


def starts(text: str) -> list[int]:
    """The header line `| NVIDIA-SMI 550.54.15   Driver Version: ...` of each table."""
    return line_starts_with(text, "NVIDIA-SMI ", " \t|")


# From R610 the header names the driver "KMD Version" and the CUDA "CUDA UMD Version" (nvidia-smi's
# documentation: Driver Version and CUDA Version deprecated in their favor).
_HEADER = re.compile(
    r"NVIDIA-SMI\s+(\S+)\s+(?:Driver|KMD) Version:\s*(\S+)"
    r"(?:\s+CUDA (?:UMD )?Version:\s*([\w.,/]+))?"
)
_GPU_ROW = re.compile(r"^\s*(\d+)\s+(.*?)\s+(On|Off|WDDM|TCC)?\s*$")
_TEMP = re.compile(r"(-?\d+)C\b")
_POWER = re.compile(r"([\d.,]+|N/A)\s*W?\s*/\s*([\d.,]+|N/A)\s*W")
_MEMORY = re.compile(r"(\d+)\s*MiB\s*/\s*(\d+)\s*MiB")
_NO_DEVICES = re.compile(r"^No devices were found", re.MULTILINE)
_MIG_ROW = re.compile(r"^(\d{1,2})\s+(\d{1,2})\s+(\d{1,2})\s+(\d{1,2})$")  # GPU GI CI MIG-Dev


def parse(block: str, draft: Draft) -> None:
    header = _HEADER.search(block)
    if header is None:
        return
    draft.section(NAME)
    put(draft.nvml, "driver_version", header.group(2))
    if header.group(3) and version_text(header.group(3)):
        put(draft.nvml, "cuda_driver_version", version_text(header.group(3)))
    put(draft.nvml, "status", "ok")  # nvidia-smi printed its table, so NVML initialised
    if _NO_DEVICES.search(block):
        put(draft.nvml, "device_count", 0)
    # Table rows only, and of table width: a stray megabyte-long line is not a row.
    rows = [
        _cells(line)
        for line in block.splitlines()
        if line.lstrip(" \t").startswith("|") and len(line) < 400
    ]
    current: int | None = None
    mig: dict[int, list[MigDevice]] | None = None  # set once the `MIG devices:` block starts
    for i, cells in enumerate(rows):
        if cells and cells[0].startswith("MIG devices"):
            mig = {}
            draft.named.append(("mig-listing", 0))  # the table shows the MIG instances
        elif mig is not None and cells:
            _mig_row(cells, mig)
        elif len(cells) >= 3 and bus_id(cells[1].split()[0] if cells[1].split() else ""):
            current = _gpu_row(cells, draft)
            ecc = [("uncorrected ECC count", cells[2])] if failed_reading(cells[2]) else []
            if current is not None:
                _second_row(rows[i + 1] if i + 1 < len(rows) else [], draft.gpu(current), ecc)
            third = rows[i + 2] if i + 2 < len(rows) else []
            if current is not None and len(third) >= 3 and not third[0] and not third[1]:
                put(draft.gpu(current), "mig_mode_current", on_off(third[2]))  # "MIG M." row
        if cells and cells[0].startswith("Processes"):
            break  # the process list below the GPUs holds nothing the checks read
    for index, devices in (mig or {}).items():
        put(draft.gpu(index), "mig_mode_current", True)
        put(draft.gpu(index), "mig_devices", tuple(devices))
    if draft.gpus:
        put(draft.nvml, "device_count", len(draft.gpus))


def _mig_row(cells: list[str], mig: dict[int, list[MigDevice]]) -> None:
    """One MIG device row ("0    1   0   0  |  13MiB / 40192MiB | 42  0 | ..."); the second row
    of each device (BAR1 usage) and the "No MIG devices found" row add none."""
    found = _MIG_ROW.match(cells[0])
    if found is None:
        return
    gpu, gi, ci, dev = (int(g) for g in found.groups())
    memory = _MEMORY.search(cells[1]) if len(cells) > 1 else None
    mig.setdefault(gpu, []).append(
        MigDevice(
            index=dev,
            gpu_instance_id=gi,
            compute_instance_id=ci,
            memory_total_bytes=mib_bytes(memory.group(2) + " MiB") if memory else None,
        )
    )


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _gpu_row(cells: list[str], draft: Draft) -> int | None:
    found = _GPU_ROW.match(cells[0])
    if not found:
        return None
    index = int(found.group(1))
    gpu = draft.gpu(index)
    name = found.group(2).rstrip(".").strip()  # long names are cut with "..."
    put(gpu, "name", name or None)
    mode = found.group(3)
    if mode in ("WDDM", "TCC"):  # Windows: the driver model, not the persistence mode
        note = f"nvidia-smi on Windows: GPU {index} runs under the {mode} driver model"
        if note not in draft.notes:
            draft.notes.append(note)
    else:
        put(gpu, "persistence_mode", on_off(mode))
    put(gpu, "pci_bus_id", bus_id(cells[1].split()[0]))
    ecc = cells[2].strip()
    if ecc.isdecimal():
        put(gpu, "ecc_uncorrected_volatile", int(ecc))
        put(gpu, "ecc_mode_current", True)
    elif ecc == "Off":
        put(gpu, "ecc_mode_current", False)
    return index


# The second row's first cell: "30%   45C    P2    120W / 350W" (fan, temperature, performance
# state, power draw, "/", power cap).
_READINGS = ("fan speed", "temperature", "performance state", "power draw", "/", "power cap")


def _second_row(cells: list[str], gpu: dict[str, object], ecc: list[tuple[str, str]]) -> None:
    """The GPU's second row; `ecc` is the first row's ECC count where NVML failed to read it."""
    line = " | ".join(cells)
    # fan, temperature, performance state, power draw and cap: "ERR!" where NVML failed
    tokens = cells[0].split() if cells else []
    names = _READINGS if len(tokens) == len(_READINGS) else ("reading",) * len(tokens)
    failed = [(n, t) for n, t in zip(names, tokens) if failed_reading(t)]
    mark_failed_readings(gpu, ecc + failed, "nvidia-smi's table")
    temp = _TEMP.search(line)
    if temp:
        put(gpu, "temperature_c", integer(temp.group(1)))
    power = _POWER.search(line)
    if power:
        put(gpu, "power_usage_w", number(power.group(1)))
        put(gpu, "power_limit_w", number(power.group(2)))
    memory = _MEMORY.search(line)
    if memory:
        put(gpu, "memory_total_bytes", mib_bytes(memory.group(2) + " MiB"))
