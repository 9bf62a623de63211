"""`nvidia-smi --query-gpu=name,driver_version,... --format=csv` output, and the GPU lines of
`lspci` (with `-k`, the driver bound to each).

The CSV's header names its columns ("name, driver_version, memory.total [MiB]"); with
`--format=csv,noheader` the columns are read from the command line's `--query-gpu=` list
when the paste shows it. Columns this reader does not know are skipped.

An `lspci` line names an NVIDIA GPU and its PCI address; only `lspci -k` says whether a
driver is bound ("Kernel driver in use: nvidia"), so a plain `lspci` line names the GPU but
records no PCI device: without -k an unbound GPU and a working one look the same.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from gpudoctor.facts import PciDevice
from gpudoctor.pasted.clean import bus_id, mib_bytes
from gpudoctor.pasted.draft import Draft, failed_reading, mark_failed_readings, put

NAME = "nvidia-smi --query-gpu"
DESCRIPTION = "`nvidia-smi --query-gpu=... --format=csv`; `lspci -k` GPU lines"
LSPCI = "lspci"

_ON_OFF = {"enabled": True, "disabled": False}
# --query-gpu field -> (where, key, converter); where is "gpu" or "nvml"
_FIELDS: dict[str, tuple[str, str, Callable[[str], Any]]] = {
    "index": ("gpu", "index", int),
    "name": ("gpu", "name", str.strip),
    "gpu_name": ("gpu", "name", str.strip),
    "uuid": ("gpu", "uuid", str.strip),
    "gpu_uuid": ("gpu", "uuid", str.strip),
    "pci.bus_id": ("gpu", "pci_bus_id", bus_id),
    "gpu_bus_id": ("gpu", "pci_bus_id", bus_id),
    "compute_cap": ("gpu", "compute_capability", str.strip),
    "memory.total": ("gpu", "memory_total_bytes", mib_bytes),
    "persistence_mode": ("gpu", "persistence_mode", lambda v: _ON_OFF.get(v.strip().lower())),
    "mig.mode.current": ("gpu", "mig_mode_current", lambda v: _ON_OFF.get(v.strip().lower())),
    "mig.mode.pending": ("gpu", "mig_mode_pending", lambda v: _ON_OFF.get(v.strip().lower())),
    "driver_version": ("nvml", "driver_version", str.strip),
}
_QUERY = re.compile(r"--query-gpu[= ](?P<fields>[\w.,]{2,400})[^\n]{0,80}\n", re.IGNORECASE)
# a header line: lower-case field names (each maybe with its unit), separated by ", "
_HEADER = re.compile(r"^(?P<header>[a-z_.]{3,30}[a-z_., \[\]A-Za-z%]{2,800}?)[ \t]*$", re.MULTILINE)
_LSPCI = re.compile(
    r"^(?:(?P<domain>[0-9a-f]{4}):)?(?P<bus>[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]) (?:VGA compatible|3D|"
    r"Display) controller(?: \[[0-9a-f]{4}\])?: NVIDIA Corporation (?P<rest>[^\n]{1,160})$",
    re.MULTILINE | re.IGNORECASE,
)
_DEVICE_ID = re.compile(r"\[10de:(?P<id>[0-9a-f]{4})\]", re.IGNORECASE)
_BRACKETED = re.compile(r"\[(?P<name>[^\]\n]{2,60})\]")
_IN_USE = re.compile(r"^\s{1,8}Kernel driver in use: (?P<driver>[\w-]{2,30})\s*$")
_MODULES = re.compile(r"^\s{1,8}Kernel modules: ")


def parse(text: str, draft: Draft) -> None:
    if "nvidia" in text.lower() and "controller" in text:
        _lspci(text, draft)
    asked = _QUERY.search(text) if "-query-gpu" in text else None
    if "," in text:
        for found in _HEADER.finditer(text):
            columns = [_column(c) for c in found.group("header").split(",")]
            if len(columns) >= 2 and sum(c in _FIELDS for c in columns) >= 2:
                _rows(text, found.end() + 1, columns, draft)
                return
    if asked:  # the columns are the command's own list (one alone has no comma)
        columns = [c.strip().lower() for c in asked.group("fields").split(",") if c.strip()]
        if sum(c in _FIELDS for c in columns) >= 1:
            start = asked.end()
            # with a header (--format=csv): the line that names the same columns
            end = text.find("\n", start)
            head = text[start : len(text) if end < 0 else end]
            if [_column(c) for c in head.split(",")] == columns:
                start = len(text) if end < 0 else end + 1
            _rows(text, start, columns, draft)


def _column(cell: str) -> str:
    """A header cell's field: "memory.total [MiB]" is memory.total."""
    return cell.split(" [", maxsplit=1)[0].strip().lower()


def _rows(text: str, start: int, columns: list[str], draft: Draft) -> None:
    first = text.count("\n", 0, start) + 1
    number, read = first, 0
    for line in text[start:].split("\n"):
        cells = [c.strip() for c in line.split(",")]
        if len(cells) != len(columns) or not line.strip():
            break
        index = read
        values = dict(zip(columns, cells))
        if "index" in values and values["index"].isdecimal():
            index = int(values["index"])
        gpu = draft.gpu(index)
        failed = [
            (c, cell) for c, cell in values.items() if failed_reading(cell)
        ]  # "[GPU is lost]"
        mark_failed_readings(gpu, failed, "nvidia-smi --query-gpu")
        if gpu.get("lost") or gpu.get("failed_readings"):
            put(draft.nvml, "status", "ok")  # NVML initialised and answered with those errors
        for column, cell in values.items():
            if column not in _FIELDS or cell in ("", "[N/A]", "N/A", "[Not Supported]"):
                continue
            if failed_reading(cell):
                continue
            where, key, convert = _FIELDS[column]
            try:
                value = convert(cell)
            except ValueError:
                continue
            put(gpu if where == "gpu" else draft.nvml, key, value)
        read += 1
        number += 1
    if read:
        draft.section(NAME)
        draft.ranges.append((NAME, first, first + read - 1))


def _lspci(text: str, draft: Draft) -> None:
    lines = text.split("\n")
    starts = {text.count("\n", 0, m.start()): m for m in _LSPCI.finditer(text)}
    for number, found in sorted(starts.items()):
        rest = found.group("rest")
        names = [n for n in _BRACKETED.findall(rest) if not n.lower().startswith("10de:")]
        if names:
            draft.named_gpus.append((names[-1], 1, number + 1))
        driver, k_seen = None, False
        for below in lines[number + 1 : number + 4]:
            in_use = _IN_USE.match(below)
            if in_use:
                driver, k_seen = in_use.group("driver"), True
                break
            if _MODULES.match(below):
                k_seen = True
        if k_seen:  # lspci -k: the driver bound, or none
            device = _DEVICE_ID.search(rest)
            address = f"{found.group('domain') or '0000'}:{found.group('bus')}".lower()
            devices = draft.kernel.setdefault("pci_devices", [])
            if all(d.address != address for d in devices):
                devices.append(
                    PciDevice(
                        address=address,
                        vendor_id="0x10de",
                        device_id=f"0x{device.group('id').lower()}" if device else None,
                        kind="gpu",
                        driver=driver,
                    )
                )
        draft.section(LSPCI)
        draft.ranges.append((LSPCI, number + 1, number + 1))
