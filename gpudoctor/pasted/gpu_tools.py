"""The GPU query tools outside nvidia-smi, in the shapes their sources print:

- CUDA samples' `deviceQuery`: `Device 0: "NVIDIA GeForce RTX 3090"`, then "  CUDA Driver
  Version / Runtime Version          12.2 / 12.1", "  CUDA Capability Major/Minor version
  number:    8.6" and "  Device PCI Domain ID / Bus ID / location ID:   0 / 1 / 0" (decimal).
  Its last line sums it up, alone where a paste keeps only the tail: "deviceQuery, CUDA Driver
  = CUDART, CUDA Driver Version = 12.4, CUDA Runtime Version = 12.4, NumDevs = 1" (older
  samples add ", Device0 = Tesla K80" per device), then "Result = PASS".
  Its failure lines ("cudaGetDeviceCount returned 35 -> ...") are the signature catalogue's.
- every other CUDA sample's line for the device it picked (helper_cuda.h's findCudaDevice and
  gpuDeviceInit): `GPU Device 0: "Volta" with compute capability 7.0`, which names the
  architecture (its _ConvertSMVer2ArchName) in current samples and the GPU in older ones.
- `clinfo` on NVIDIA's OpenCL platform ("Platform Name   NVIDIA CUDA"): each device's
  "  Device Name   NVIDIA GeForce RTX 3090" and "  Driver Version   535.129.03" (indented by
  two: its "NULL platform behavior" part repeats the name deeper).
- `vulkaninfo` (`--summary` or full) on NVIDIA's driver ("driverID = DRIVER_ID_NVIDIA_PROPRIETARY"):
  "deviceName = NVIDIA GeForce RTX 3090" and "driverInfo = 535.129.03" (the driver's own
  version string; its packed `driverVersion` is not read).
- Windows' own view of the GPU, `dxdiag` ("Card name: NVIDIA GeForce RTX 3080", "Driver Version:
  31.0.15.3640") and `wmic path win32_VideoController get name,driverversion` ("31.0.15.3640
  NVIDIA GeForce RTX 4090"): the GPU's name, and the driver in Windows' numbering, which is not
  the NVIDIA release number (kept as a note; NVIDIA documents no rule between the two).
"""

from __future__ import annotations

import re

from gpudoctor.pasted.draft import Draft, put
from gpudoctor.pasted.scan import NVIDIA_BRAND, iter_lines

NAME = "GPU query tools"
DESCRIPTION = (
    "CUDA samples' `deviceQuery` (and the device line of the others), `clinfo`, `vulkaninfo`, "
    "`dxdiag`, `wmic`"
)

_VER3 = r"\d{3}\.\d{1,3}(?:\.\d{1,3})?"
_DQ_DEVICE = re.compile(r'^Device (?P<i>\d{1,2}): "(?P<name>[^"\n]{2,80})"\s{0,4}$')
_DQ_VERSIONS = re.compile(
    r"^\s{1,4}CUDA Driver Version / Runtime Version\s{1,40}(?P<d>\d{1,2}\.\d{1,2}) / "
    r"(?P<r>\d{1,2}\.\d{1,2})\s{0,4}$"
)
_DQ_CC = re.compile(
    r"^\s{1,4}CUDA Capability Major/Minor version number:\s{1,20}(?P<cc>\d{1,2}\.\d)\s{0,4}$"
)
_DQ_PCI = re.compile(
    r"^\s{1,4}Device PCI Domain ID / Bus ID / location ID:\s{1,20}(?P<dom>\d{1,5}) / "
    r"(?P<bus>\d{1,3}) / (?P<dev>\d{1,3})\s{0,4}$"
)
_DQ_SUMMARY = re.compile(
    r"^\s{0,8}deviceQuery, CUDA Driver = CUDART, CUDA Driver Version = (?P<d>\d{1,2}\.\d{1,2}), "
    r"CUDA Runtime Version = (?P<r>\d{1,2}\.\d{1,2}), NumDevs = (?P<n>\d{1,2})"
    r"(?P<devices>[^\n]{0,1600})"
)
_DQ_NAMED = re.compile(r", Device(?P<i>\d{1,2}) = (?P<name>[^,\n]{1,80})")
_SAMPLE_DEVICE = re.compile(
    r'^GPU Device (?P<i>\d{1,2}): "(?P<name>[^"\n]{2,80})" with compute capability '
    r"(?P<cc>\d{1,2}\.\d)\b"
)
# The names helper_cuda.h's _ConvertSMVer2ArchName gives (not a GPU's name).
_ARCH_NAMES = frozenset(
    {"Kepler", "Maxwell", "Pascal", "Volta", "Xavier", "Turing", "Ampere", "Ada", "Hopper"}
    | {"Blackwell", "Graphics Device"}
)
_MAX_READ = 64  # lines read per needle: a log that repeats one is read at its first ones
_DEVICE_SPAN = 20_000  # characters: one device's deviceQuery block is about 2 KB
_NVIDIA_NAME = NVIDIA_BRAND + r"\b[^\n]{1,80}?"
_CL_NAME = re.compile(rf"^  Device Name\s{{2,60}}(?P<name>{_NVIDIA_NAME})\s{{0,4}}$")
_CL_DRIVER = re.compile(rf"^  Driver Version\s{{2,60}}(?P<v>{_VER3})\s{{0,4}}$")
_VK_NAME = re.compile(rf"^\s{{0,8}}deviceName\s{{1,60}}= (?P<name>{_NVIDIA_NAME})\s{{0,4}}$")
_VK_DRIVER = re.compile(rf"^\s{{0,8}}driverInfo\s{{1,60}}= (?P<v>{_VER3})\s{{0,4}}$")
_WIN_VERSION = r"\d{1,2}\.\d{1,2}\.\d{2}\.\d{4}"
_DXDIAG_CARD = re.compile(rf"^\s{{0,12}}Card name: (?P<name>{_NVIDIA_NAME})\s{{0,4}}$")
_DXDIAG_DRIVER = re.compile(rf"^\s{{0,12}}Driver Version: (?P<v>{_WIN_VERSION})\s{{0,4}}$")
_WMIC_ROW = re.compile(rf"^(?P<v>{_WIN_VERSION})\s{{2,40}}(?P<name>{_NVIDIA_NAME})\s{{0,4}}$")


def parse(text: str, draft: Draft) -> None:
    if "CUDA Capability Major/Minor" in text:
        _device_query(text, draft)
    if "with compute capability " in text:
        _sample_device(text, draft)
    if "deviceQuery, CUDA Driver = " in text:
        _device_query_summary(text, draft)
    if "NVIDIA CUDA" in text and "Device Name" in text:
        _listing(
            text,
            draft,
            name_needle="Device Name",
            name_pattern=_CL_NAME,
            driver_needle="Driver Version",
            driver_pattern=_CL_DRIVER,
        )
    if "Card name: " in text or "DriverVersion" in text:
        _windows(text, draft)
    if "DRIVER_ID_NVIDIA_PROPRIETARY" in text:
        _listing(
            text,
            draft,
            name_needle="deviceName",
            name_pattern=_VK_NAME,
            driver_needle="driverInfo",
            driver_pattern=_VK_DRIVER,
        )


def _device_query_summary(text: str, draft: Draft) -> None:
    """deviceQuery's last line: the driver's CUDA, the runtime it was built with, how many
    devices it found and, in older samples, their names."""
    for start, line in iter_lines(text, text, "deviceQuery, CUDA Driver = "):
        found = _DQ_SUMMARY.match(line) if len(line) <= 2000 else None
        if found is None:
            continue
        put(draft.nvml, "cuda_driver_version", found.group("d"))
        put(draft.nvml, "device_count", int(found.group("n")))
        draft.note(
            f"deviceQuery found {found.group('n')} CUDA device(s); it was built with the CUDA "
            f"{found.group('r')} runtime"
        )
        if not draft.gpus:
            for named in _DQ_NAMED.finditer(found.group("devices")):
                put(draft.gpu(int(named.group("i"))), "name", named.group("name").strip())
        draft.read_at(NAME, text, start)
        return


def _sample_device(text: str, draft: Draft) -> None:
    for count, (start, line) in enumerate(iter_lines(text, text, "GPU Device ")):
        found = _SAMPLE_DEVICE.match(line.strip()) if len(line) <= 300 else None
        if found is None:
            continue
        gpu = draft.gpu(int(found.group("i")))
        if found.group("name") not in _ARCH_NAMES:
            put(gpu, "name", found.group("name"))
        put(gpu, "compute_capability", found.group("cc"))
        draft.read_at(NAME, text, start)
        if count >= _MAX_READ:
            break


def _device_query(text: str, draft: Draft) -> None:
    """Each `Device N: "name"` block, up to the next one."""
    gpu: dict[str, object] | None = None
    for count, (start, line) in enumerate(iter_lines(text, text, "Device ")):
        if count >= _MAX_READ * 4:  # a device's block has a few lines starting "Device"
            break
        if len(line) > 300:
            continue
        head = _DQ_DEVICE.match(line)
        if head:
            gpu = draft.gpu(int(head.group("i")))
            put(gpu, "name", head.group("name"))
            draft.read_at(NAME, text, start)
            continue
        if gpu is None:
            continue
        pci = _DQ_PCI.match(line)
        if pci:
            dom, bus, dev = (int(pci.group(k)) for k in ("dom", "bus", "dev"))
            put(gpu, "pci_bus_id", f"{dom:04x}:{bus:02x}:{dev:02x}.0")
    for needle, pattern in (
        ("CUDA Capability Major/Minor", _DQ_CC),
        ("Runtime Version", _DQ_VERSIONS),
    ):
        _per_device(text, draft, needle, pattern)


def _per_device(text: str, draft: Draft, needle: str, pattern: re.Pattern[str]) -> None:
    """A deviceQuery line belongs to the last `Device N:` line above it."""
    for count, (start, line) in enumerate(iter_lines(text, text, needle)):
        if count >= _MAX_READ:
            break
        found = pattern.match(line)
        if found is None:
            continue
        # the line after the last "\nDevice " above (or the paste's first line)
        device = text.rfind("\nDevice ", max(0, start - _DEVICE_SPAN), start) + 1
        head = _DQ_DEVICE.match(text[device : text.find("\n", device)])
        if head is None:
            continue
        if "cc" in found.groupdict():
            put(draft.gpu(int(head.group("i"))), "compute_capability", found.group("cc"))
        else:
            put(draft.nvml, "cuda_driver_version", found.group("d"))
            note = f"deviceQuery was built with the CUDA {found.group('r')} runtime"
            if note not in draft.notes:
                draft.notes.append(note)
        draft.read_at(NAME, text, start)


def _listing(
    text: str,
    draft: Draft,
    *,
    name_needle: str,
    name_pattern: re.Pattern[str],
    driver_needle: str,
    driver_pattern: re.Pattern[str],
) -> None:
    """clinfo's or vulkaninfo's NVIDIA devices, in order, and the driver version they state;
    the GPUs only when no GPU listing came first."""
    if not draft.gpus:
        index = 0
        for start, line in iter_lines(text, text, name_needle):
            if index >= _MAX_READ:
                break
            found = name_pattern.match(line)
            if found:
                put(draft.gpu(index), "name", found.group("name"))
                draft.read_at(NAME, text, start)
                index += 1
    for start, line in iter_lines(text, text, driver_needle):
        found = driver_pattern.match(line)
        if found:
            put(draft.nvml, "driver_version", found.group("v"))
            draft.read_at(NAME, text, start)
            return


def _windows(text: str, draft: Draft) -> None:
    """dxdiag's Display Devices block (the card, then its driver lines) or wmic's table."""
    for count, (start, line) in enumerate(iter_lines(text, text, "Card name: ")):
        if count >= _MAX_READ:
            break
        card = _DXDIAG_CARD.match(line)
        if card is None:
            continue
        if not draft.gpus or count in draft.gpus:
            put(draft.gpu(count), "name", card.group("name"))
        draft.read_at(NAME, text, start)
        block = text[start : start + 2000].split("\n", 20)[1:20]
        driver = next((m for m in map(_DXDIAG_DRIVER.match, block) if m), None)
        if driver:
            _windows_driver(draft, driver.group("v"))
    for start, line in iter_lines(text, text, "DriverVersion"):
        if line.split() not in (["DriverVersion", "Name"], ["Name", "DriverVersion"]):
            continue
        pos, index, listed = start + len(line) + 1, 0, bool(draft.gpus)
        for row_line in text[pos : pos + 4000].split("\n", 17)[:16]:
            row = _WMIC_ROW.match(row_line.strip())
            if row:
                if not listed:  # one row per display adapter, NVIDIA's in order
                    put(draft.gpu(index), "name", row.group("name"))
                    index += 1
                _windows_driver(draft, row.group("v"))
                draft.read_at(NAME, text, pos)
            pos += len(row_line) + 1
        return


def _windows_driver(draft: Draft, version: str) -> None:
    note = (
        f"Windows names the NVIDIA driver {version} (its own numbering, not the NVIDIA release; "
        "`nvidia-smi` shows the release)"
    )
    if note not in draft.notes:
        draft.notes.append(note)
