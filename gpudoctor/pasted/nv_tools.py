"""NVIDIA's own tools, in the shapes they print (each found by its own literal first):

- `nvidia-smi --version` (drivers since R535): "DRIVER version : 550.54.15", "CUDA Version : 12.4".
- `nvidia-container-cli info`: "NVRM version:   535.129.03", "CUDA version:   12.2", then one
  "Device Index: / Model: / Bus Location: / Architecture: 8.0" block per GPU.
- `dcgmi discovery -l`: a table whose rows say "| 0 | Name: NVIDIA A100-SXM4-40GB" and, under
  it, "| | PCI Bus ID: 00000000:07:00.0".
- `dcgmi diag`: its Metadata rows "| DCGM Version | 3.3.5 |", "| Driver Version Detected | ...".
- `nvidia-smi topo -m`: the header row names each GPU (GPU0 GPU1 ...): their number, and the
  kinds of link between them (NV#, PIX, PXB, PHB, NODE, SYS).
- `nvidia-ctk cdi list`: one "nvidia.com/gpu=0" line per CDI device it generated.
- `nvidia-smi -q -d COMPUTE`: "Compute Mode : Exclusive_Process" (no GpuFacts field: a note).
- `nvidia-smi vgpu` on a vGPU host: each physical GPU's row ("|   0  NVIDIA A100-PCIE-40GB
  | 00000000:3B:00.0 |") under the "vGPU ID     Name" heading: that GPU hosts vGPUs.
- `cat /proc/driver/nvidia/gpus/<bus>/information`: "Model:", "Bus Location:", "Device Minor:".
- `nvidia-container-cli -k -d /dev/tty info`'s debug log: "initializing library context
  (version=1.14.3, ...)" and "selecting .../libnvidia-ml.so.535.129.03" (the NVML library file,
  whose name the live probe reads the library version from).
- `nvidia-smi nvlink -s`: under each "GPU 0: ... (UUID: GPU-...)" line, "Link 0: 25 GB/s" (an
  active link) or "Link 2: <inactive>", as NVML's link state the live probe records.
- `/usr/local/cuda/version.json`: `"cuda" : { "name" : "CUDA SDK", "version" : "12.2.2" }`, and
  the `version.txt` toolkits before 11.1 shipped instead: the one line "CUDA Version 10.2.89".
- `nvidia-smi mig -lgi` on a GPU in MIG mode with no GPU instance: "No GPU instances found: Not
  Found" (where no GPU has MIG mode on, nvidia-smi mig says "No MIG-enabled devices found."
  instead): on a paste of one GPU, that GPU is in MIG mode and has no instance.
- `nvidia-smi -i N -mig 1|0` whose change waits for a GPU reset (MIG user guide): "Warning: MIG
  mode is in pending enable state for GPU 00000000:07:00.0:...": that GPU's MIG mode is off and
  pending on (or on and pending off).
"""

from __future__ import annotations

import re
from typing import Any

from gpudoctor.facts_multigpu import NvLinkFacts
from gpudoctor.pasted.clean import bus_id
from gpudoctor.pasted.draft import Draft, put
from gpudoctor.pasted.scan import ascii_lower, iter_lines, lines_with

NAME = "NVIDIA tools"
DESCRIPTION = (
    "`nvidia-smi --version`, `nvidia-smi topo -m`, `nvidia-container-cli info`, "
    "`nvidia-ctk cdi list`, `dcgmi discovery -l` and `dcgmi diag`"
)

_VER3 = r"\d{3}\.\d{1,3}(?:\.\d{1,3})?"
_SMI_VERSION = re.compile(
    rf"^\s{{0,4}}(?P<key>DRIVER version|NVIDIA-SMI version|CUDA Version)\s{{1,20}}:\s{{0,4}}"
    rf"(?P<v>{_VER3}|\d{{1,2}}\.\d{{1,2}})\s{{0,4}}$"
)
_NVRM = re.compile(rf"^NVRM version:\s{{1,8}}(?P<v>{_VER3})\s{{0,4}}$")
_NVCLI_CUDA = re.compile(r"^CUDA version:\s{1,8}(?P<v>\d{1,2}\.\d{1,2})\s{0,4}$")
_NVCLI_KEY = re.compile(
    r"^(?P<key>Device Index|Model|Bus Location|Architecture):\s{1,12}(?P<v>[^\n]{1,80}?)\s{0,4}$"
)
_DCGMI_ROW = re.compile(
    r"^\|\s{0,4}(?P<i>\d{1,3})\s{1,12}\|\s{0,4}Name:\s{0,4}(?P<name>[^|\n]{2,80}?)\s{0,80}\|\s{0,4}\n"
    r"\|\s{1,12}\|\s{0,4}PCI Bus ID:\s{0,4}(?P<bus>[0-9a-fA-F:.]{7,20})\s{0,80}\|",
    re.MULTILINE,
)
_DCGMI_META = re.compile(
    r"^\|\s{0,4}(?P<key>DCGM Version|Driver Version Detected)\s{1,40}\|\s{0,4}"
    r"(?P<v>\d{1,3}\.\d{1,3}(?:\.\d{1,3})?)\s{0,60}\|"
)
_TOPO_ROW = re.compile(r"^GPU(?P<i>\d{1,2})[ \t]{1,8}(?P<cells>[^\n]{1,800})$")
_LINK = re.compile(r"^(?:NV\d{1,2}|PIX|PXB|PHB|NODE|SYS|SOC)$")
_CDI_DEVICE = re.compile(
    r"^\s{0,4}nvidia\.com/gpu=(?P<name>all|\d{1,3}(?::\d{1,3})?|GPU-[0-9a-f-]{8,40}|MIG-[0-9a-f-]{8,40})\s{0,4}$"
)
_NO_GPU_INSTANCES = re.compile(r"^\W{0,4}No GPU instances found: Not Found\s{0,4}$")
_MIG_PENDING = re.compile(
    r"MIG mode is in pending (?P<state>enable|disable) state for GPU "
    r"(?P<bus>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d)"
)
_COMPUTE_MODE = re.compile(
    r"^\s{0,12}Compute Mode\s{1,40}:\s{0,4}(?P<mode>Exclusive_Process|Exclusive_Thread|Prohibited)"
    r"\s{0,4}$"
)


_VGPU_GPU = re.compile(
    r"^\|\s{1,4}(?P<i>\d{1,3})\s{1,4}(?P<name>(?:NVIDIA|Tesla|Quadro)[^|\n]{1,60}?)\s{1,40}\|"
    r"\s{1,4}(?P<bus>[0-9A-Fa-f]{8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d)\s{1,40}\|"
)
_PROC_KEY = re.compile(
    r"^(?P<key>Model|Bus Location|Device Minor):\s{1,12}(?P<v>[^\n]{1,80}?)\s{0,4}$"
)
_NVC_CONTEXT = re.compile(
    r"\bnvc\.c:\d{1,5}\] initializing library context \(version=(?P<v>1\.\d{1,2}\.\d{1,3})\b"
)
_NVC_NVML = re.compile(
    rf"\bnvc_info\.c:\d{{1,5}}\] selecting \S{{0,200}}/libnvidia-ml\.so\.(?P<v>{_VER3})\s{{0,4}}$"
)
_GPU_LINE = re.compile(r"^GPU (?P<i>\d{1,3}): [^\n]{1,120}\(UUID: GPU-[0-9a-fA-F-]{8,40}\)")
_LINK_LINE = re.compile(
    r"^\s{1,12}Link (?P<n>\d{1,2}): (?:(?P<speed>\d{1,4}(?:\.\d{1,3})? GB/s)|(?P<off><inactive>))"
    r"\s{0,4}$"
)
_VERSION_JSON = re.compile(
    r"\"cuda\"\s{0,4}:\s{0,4}\{\s{0,40}\"name\"\s{0,4}:\s{0,4}\"CUDA SDK\",\s{0,40}"
    r"\"version\"\s{0,4}:\s{0,4}\"(?P<v>\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)\""
)
_VERSION_TXT = re.compile(r"^CUDA Version (?P<v>\d{1,2}\.\d{1,2}\.\d{1,3})\s{0,4}$")


def parse(text: str, draft: Draft) -> None:
    lower = ascii_lower(text)
    _vgpu_host(text, draft)
    _proc_gpu_information(text, draft)
    _nvc_debug(text, draft)
    _version_json(text, draft)
    _nvlink_status(text, draft)
    _smi_version(text, lower, draft)
    _nvcli_info(text, draft)
    _dcgmi(text, draft)
    _topology(text, draft)
    _cdi_list(text, draft)
    _compute_mode(text, lower, draft)
    _mig_without_instances(text, draft)
    _mig_pending(text, draft)


def _smi_version(text: str, lower: str, draft: Draft) -> None:
    for start, line in iter_lines(lower, text, "version "):
        found = _SMI_VERSION.match(line)
        if found is None:
            continue
        key, value = found.group("key").lower(), found.group("v")
        if key == "driver version":
            put(draft.nvml, "driver_version", value)
        elif key == "cuda version":
            put(draft.nvml, "cuda_driver_version", value)
        else:  # nvidia-smi itself runs against NVML: it printed, so NVML loaded
            put(draft.nvml, "status", "ok")
            continue
        draft.read_at(NAME, text, start)


def _nvcli_info(text: str, draft: Draft) -> None:
    if "NVRM version:" not in text and "Device Index:" not in text:
        return
    for start, line in iter_lines(text, text, "NVRM version:"):
        found = _NVRM.match(line.strip())
        if found:
            put(draft.nvml, "driver_version", found.group("v"))
            draft.read_at(NAME, text, start)
            break
    for start, line in iter_lines(text, text, "CUDA version:"):
        found = _NVCLI_CUDA.match(line.strip())
        if found:
            put(draft.nvml, "cuda_driver_version", found.group("v"))
            draft.read_at(NAME, text, start)
            break
    for start, _line in iter_lines(text, text, "Device Index:"):
        _nvcli_device(text, start, draft)


def _nvcli_device(text: str, start: int, draft: Draft) -> None:
    """One GPU's block: "Device Index: 0", then Model, Bus Location, Architecture lines."""
    rows = text[start:].split("\n", 12)[:12]
    values: dict[str, str] = {}
    used = 0
    for row in rows:
        found = _NVCLI_KEY.match(row.strip())
        if not row.strip() or (found and found.group("key") == "Device Index" and values):
            break  # the block's end, or the next GPU
        used += 1
        if found:
            values.setdefault(found.group("key"), found.group("v"))
    index = values.get("Device Index", "")
    if not index.isdecimal() or "Model" not in values:
        return
    gpu = draft.gpu(int(index))
    put(gpu, "name", values["Model"])
    put(gpu, "pci_bus_id", bus_id(values.get("Bus Location")))
    arch = values.get("Architecture", "")
    if re.fullmatch(r"\d{1,2}\.\d", arch):
        put(gpu, "compute_capability", arch)
    draft.read_at(NAME, text, start, used)


def _dcgmi(text: str, draft: Draft) -> None:
    if "PCI Bus ID:" in text:
        for row in _DCGMI_ROW.finditer(text):
            gpu = draft.gpu(int(row.group("i")))
            put(gpu, "name", row.group("name").strip())
            put(gpu, "pci_bus_id", bus_id(row.group("bus")))
            draft.read_at(NAME, text, row.start(), 2)
    if "Version" not in text:
        return
    for start, line in iter_lines(text, text, "Version"):
        found = _DCGMI_META.match(line.strip())
        if found is None:
            continue
        if found.group("key") == "DCGM Version":
            draft.notes.append(f"DCGM {found.group('v')} ran the diagnostic (dcgmi diag)")
        else:
            put(draft.nvml, "driver_version", found.group("v"))
        draft.read_at(NAME, text, start)


def _topology(text: str, draft: Draft) -> None:
    """The GPUs of `nvidia-smi topo -m`: its header names them all; each row's cells say how
    two GPUs are linked. The number of GPUs is NVML's device count."""
    for start, line in iter_lines(text, text, "GPU0"):
        words = line.split()
        if not words or words[0] != "GPU0" or "Affinity" not in line:
            continue
        count = 0
        while count < len(words) and words[count] == f"GPU{count}":
            count += 1
        # the GPU columns end at the NICs' (NIC0, mlx5_0) or at "CPU Affinity"
        after = words[count] if count < len(words) else ""
        if not (after in ("CPU", "NIC0") or after.startswith("mlx")):
            continue
        put(draft.nvml, "device_count", count)
        kinds: set[str] = set()
        rows = text[start + len(line) + 1 :].split("\n", count)[:count]
        for row in rows:
            found = _TOPO_ROW.match(row)
            if found:
                cells = found.group("cells").split()[:count]
                kinds.update(c for c in cells if _LINK.match(c))
        if kinds:
            nvlink = sorted(k for k in kinds if k.startswith("NV"))
            links = ("NVLink (" + ", ".join(nvlink) + ")") if nvlink else "no NVLink"
            pcie = sorted(k for k in kinds if not k.startswith("NV"))
            draft.notes.append(
                f"nvidia-smi topo -m: {count} GPUs, linked by {links}"
                + (f"; PCIe/system paths {', '.join(pcie)}" if pcie else "")
            )
        draft.read_at(NAME, text, start, 1 + len(rows))
        return


def _cdi_list(text: str, draft: Draft) -> None:
    names: list[str] = []
    first = -1
    for start, line in iter_lines(text, text, "nvidia.com/gpu="):
        found = _CDI_DEVICE.match(line)
        if found:
            names.append(f"nvidia.com/gpu={found.group('name')}")
            first = start if first < 0 else first
    if names:
        put(draft.runtime, "cdi_nvidia_devices", tuple(dict.fromkeys(names)))
        draft.read_at(NAME, text, first, len(names))


def _vgpu_host(text: str, draft: Draft) -> None:
    at = text.find("vGPU ID")
    if at == -1:
        return
    for start, line in iter_lines(text, text, " | "):
        if start < at:
            continue
        found = _VGPU_GPU.match(line)
        if found is None:
            continue
        gpu = draft.gpu(int(found.group("i")))
        put(gpu, "name", found.group("name").strip())
        put(gpu, "pci_bus_id", bus_id(found.group("bus")))
        put(gpu, "virtualization_mode", "host_vgpu")
        draft.read_at(NAME, text, start)


def _proc_gpu_information(text: str, draft: Draft) -> None:
    if "Bus Location:" not in text or "Device Minor:" not in text:
        return
    for start, line in iter_lines(text, text, "Model:"):
        if not line.startswith("Model:"):
            continue
        values: dict[str, str] = {}
        rows = text[start:].split("\n", 14)[:14]
        for row in rows:
            found = _PROC_KEY.match(row.strip())
            if found:
                values.setdefault(found.group("key"), found.group("v"))
        minor = values.get("Device Minor", "")
        if "Bus Location" not in values or not minor.isdecimal():
            continue  # nvidia-container-cli's blocks (Device Index first) are read above
        if text.rfind("Device Index:", max(0, start - 200), start) != -1:
            continue
        gpu = draft.gpu(int(minor))
        put(gpu, "name", values["Model"])
        put(gpu, "pci_bus_id", bus_id(values["Bus Location"]))
        put(gpu, "minor_number", int(minor))
        draft.read_at(NAME, text, start, len(rows))


def _nvc_debug(text: str, draft: Draft) -> None:
    if "nvc" not in text:
        return
    for start, line in iter_lines(text, text, "initializing library context"):
        found = _NVC_CONTEXT.search(line)
        if found:
            put(draft.runtime, "toolkit_version", found.group("v"))
            draft.read_at(NAME, text, start)
            break
    for start, line in iter_lines(text, text, "/libnvidia-ml.so."):
        found = _NVC_NVML.search(line.rstrip())
        if found:
            put(draft.nvml, "library_version", found.group("v"))
            draft.read_at(NAME, text, start)
            break


def _version_json(text: str, draft: Draft) -> None:
    at = text.find('"CUDA SDK"')
    if at == -1:
        _version_txt(text, draft)
        return
    found = _VERSION_JSON.search(text, max(0, at - 200), at + 200)
    if found and draft.cuda_toolkit_version is None:
        draft.cuda_toolkit_version = found.group("v")
        draft.read_at(NAME, text, found.start(), found.group(0).count("\n") + 1)


def _nvlink_status(text: str, draft: Draft) -> None:
    if "Link 0: " not in text:
        return
    gpu: dict[str, Any] | None = None
    for start, line in lines_with(text, text, ("(UUID: GPU-", "Link ")):
        parent = _GPU_LINE.match(line.strip())
        if parent:
            gpu = draft.gpu(int(parent.group("i")))
            continue
        found = _LINK_LINE.match(line)
        if found is None or gpu is None:
            continue
        links = gpu.get("nvlinks", ())
        if any(link.link == int(found.group("n")) for link in links):
            continue
        link = NvLinkFacts(link=int(found.group("n")), active=found.group("off") is None)
        gpu["nvlinks"] = (*links, link)
        draft.read_at(NAME, text, start)


def _compute_mode(text: str, lower: str, draft: Draft) -> None:
    for start, line in iter_lines(lower, text, "compute mode"):
        found = _COMPUTE_MODE.match(line)
        if found:
            note = f"a GPU's compute mode is {found.group('mode')}: " + (
                "no CUDA context can be created on it"
                if found.group("mode") == "Prohibited"
                else "one process at a time may hold a CUDA context on it"
            )
            if note not in draft.notes:
                draft.notes.append(note)
            draft.read_at(NAME, text, start)


def _version_txt(text: str, draft: Draft) -> None:
    """The old toolkit's version.txt: a line of its own, "CUDA Version" and three numbers
    (nvidia-smi's "CUDA Version: 12.4" has a colon and two)."""
    for start, line in iter_lines(text, text, "CUDA Version "):
        found = _VERSION_TXT.match(line.strip())
        if found and draft.cuda_toolkit_version is None:
            draft.cuda_toolkit_version = found.group("v")
            draft.read_at(NAME, text, start)
            return


def _mig_without_instances(text: str, draft: Draft) -> None:
    """`nvidia-smi mig -lgi` found no GPU instance on a paste of one GPU (a listing or table
    gave it): that GPU has MIG mode on and nothing on it, as after a reboot (MIG mode persists,
    its instances do not: MIG user guide). Left alone where the paste also creates instances or
    shows them, or where the GPU's MIG mode is known to be off."""
    if len(draft.gpus) != 1 or "Successfully created GPU instance" in text:
        return
    if "GPU instances:" in text:  # the -lgi table of instances that exist
        return
    (gpu,) = draft.gpus.values()
    if gpu.get("mig_mode_current") is False or gpu.get("mig_devices"):
        return
    for start, line in iter_lines(text, text, "No GPU instances found"):
        if _NO_GPU_INSTANCES.match(line):
            put(gpu, "mig_mode_current", True)
            if not any(word == "mig-listing" for word, _ in draft.named):
                draft.named.append(("mig-listing", text.count("\n", 0, start) + 1))
            draft.note("nvidia-smi mig -lgi: MIG mode is on and the GPU has no GPU instance")
            draft.read_at(NAME, text, start)
            return


def _mig_pending(text: str, draft: Draft) -> None:
    """nvidia-smi's warning that a MIG mode change waits for a GPU reset, on a GPU the paste
    lists (by its bus id): its current and pending MIG modes (a shape read earlier wins)."""
    for start, line in iter_lines(text, text, "MIG mode is in pending"):
        found = _MIG_PENDING.search(line)
        if found is None:
            continue
        bus = bus_id(found.group("bus"))
        for gpu in draft.gpus.values():
            if gpu.get("pci_bus_id") == bus:
                enable = found.group("state").lower() == "enable"
                put(gpu, "mig_mode_current", not enable)
                put(gpu, "mig_mode_pending", enable)
                draft.read_at(NAME, text, start)
