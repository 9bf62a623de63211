"""Shapes that are single lines, found anywhere in a paste: `nvidia-smi -L`,
/proc/driver/nvidia/version and TensorFlow's GPU log lines (gpu_device.cc): "Created device ...
compute capability: 8.6"; TF 2.1-2.4's "Found device 0 with properties:" followed by "pciBusID:
0000:01:00.0 name: GeForce GTX 1080 Ti computeCapability: 6.1"; TF 1.x's "name: GeForce GTX 1080
Ti major: 6 minor: 1 memoryClockRate(GHz): 1.582" and "pciBusID: 0000:01:00.0" under it; and
"Ignoring visible gpu device (device: 0, name: ..., compute capability: 3.5) with Cuda compute
capability 3.5. The minimum required Cuda capability is 3.7." (TensorFlow will not use that GPU).
"""

from __future__ import annotations

import re
from typing import Any

from gpudoctor.facts import MigDevice
from gpudoctor.pasted.clean import bus_id, integer
from gpudoctor.pasted.draft import Draft, put
from gpudoctor.pasted.scan import iter_lines

SMI_L = "nvidia-smi -L"
SMI_L_DESCRIPTION = "`nvidia-smi -L`"
_SMI_L = re.compile(r"GPU (\d{1,3}): ([^\n(]{1,120}?) \(UUID: GPU-[0-9a-fA-F-]{8,40}\)")
_SMI_L_MIG = re.compile(
    r"^\s{1,8}MIG (?P<profile>\d{1,2}g\.\d{1,3}gb(?:\+[a-z]{1,8})?)\s{1,8}Device\s{1,3}"
    r"(?P<i>\d{1,2}): \(UUID: (?P<uuid>MIG-[0-9A-Za-z/-]{8,80})\)"
)

PROC = "/proc/driver/nvidia/version"
NVML_LIBRARY = "nvidia-smi NVML library version"
PROC_DESCRIPTION = "`cat /proc/driver/nvidia/version`"
_PROC = re.compile(
    r"NVRM version: NVIDIA UNIX (Open Kernel Module for \S{1,20}|[^\n]{0,40}?Kernel Module)"
    r"[ \t]+(\d{2,4}\.\d{1,3}(?:\.\d{1,3})?)"
)

_MODULE_MACHINE = re.compile(r"\b(?:x86_64|aarch64)\b")

# nvidia-smi's second line after "Driver/library version mismatch" (major.minor only).
_NVML_LIBRARY = re.compile(r"NVML library version: (\d{2,4}\.\d{1,3}(?:\.\d{1,3})?)[ \t]*$")

TF_LOG = "TensorFlow GPU log"
TF_LOG_DESCRIPTION = (
    "TensorFlow's GPU log lines (`Created device ...`, `Found device 0 with properties`, "
    "`Ignoring visible gpu device`, `Successfully opened dynamic library ...`)"
)
_TF_DEVICE = re.compile(
    r"Created (?:TensorFlow )?device \S{0,80}GPU:(\d{1,3})[^\n]{0,80}?-> device: \d{1,3}, "
    r"name: ([^,\n]{1,120}), pci bus id: ([0-9a-fA-F:.]{7,20}), compute capability: (\d{1,2}\.\d)"
)

_TF_FOUND = re.compile(r"\bFound device (?P<i>\d{1,3}) with properties:")
_TF2_PROPS = re.compile(
    r"^pciBusID: (?P<bus>[0-9a-fA-F:.]{7,20}) name: (?P<name>[^\n]{2,80}?) "
    r"computeCapability: (?P<cc>\d{1,2}\.\d)\s{0,4}$"
)
_TF1_PROPS = re.compile(
    r"^name: (?P<name>[^\n]{2,80}?) major: (?P<major>\d{1,2}) minor: (?P<minor>\d{1,2}) "
    r"memoryClockRate"
)
_TF1_BUS = re.compile(r"^pciBusID:? (?P<bus>[0-9a-fA-F:.]{7,20})\s{0,4}$")
_TF_IGNORED = re.compile(
    r"Ignoring visible gpu device \(device: (?P<i>\d{1,3}), name: (?P<name>[^,\n]{1,120}), "
    r"pci bus id: (?P<bus>[0-9a-fA-F:.]{7,20}), compute capability: (?P<cc>\d{1,2}\.\d)\)"
    r"[^\n]{0,80}?The minimum required Cuda capability is (?P<min>\d{1,2}\.\d)"
)


def _first(text: str, needle: str, pattern: re.Pattern[str]) -> re.Match[str] | None:
    """The first line holding `needle` that `pattern` matches: anywhere in the line, as prose
    quotes the line ("/proc/driver/nvidia/version reports `NVRM version: ...`")."""
    for _, line in iter_lines(text, text, needle):
        found = pattern.search(line.strip())
        if found:
            return found
    return None


def smi_list(text: str, draft: Draft) -> None:
    for _, line in iter_lines(text, text, "(UUID: GPU-"):
        found = _SMI_L.match(line.strip())
        if found:
            draft.section(SMI_L)
            put(draft.gpu(int(found.group(1))), "name", found.group(2).strip())
            put(draft.nvml, "status", "ok")
    if SMI_L in draft.sections:
        draft.named.append(("mig-listing", 0))  # -L names each GPU's MIG devices, if any
    if SMI_L in draft.sections and text.find("(UUID: MIG-") != -1:
        draft.notes.append("nvidia-smi -L lists MIG devices: MIG is on for at least one GPU")
        _mig_devices(text, draft)


def _mig_devices(text: str, draft: Draft) -> None:
    """The MIG devices `nvidia-smi -L` lists under each GPU ("  MIG 3g.20gb  Device  0: (UUID:
    MIG-...)"): that GPU has MIG on, with those devices (named as NVML names them: the GPU's
    name and the profile)."""
    gpu: dict[str, Any] | None = None
    devices: dict[int, list[MigDevice]] = {}
    for _, line in iter_lines(text, text, "(UUID: "):
        parent = _SMI_L.match(line.strip())
        if parent:
            gpu = draft.gpu(int(parent.group(1)))
            continue
        found = _SMI_L_MIG.match(line)
        if found is None or gpu is None:
            continue
        profile = f"MIG {found.group('profile')}"
        name = f"{gpu['name']} {profile}" if gpu.get("name") else profile
        device = MigDevice(index=int(found.group("i")), uuid=found.group("uuid"), name=name)
        devices.setdefault(gpu["index"], []).append(device)
    for index, found_devices in devices.items():
        target = draft.gpu(index)
        put(target, "mig_mode_current", True)
        put(target, "mig_devices", tuple(found_devices))


def proc_version(text: str, draft: Draft) -> None:
    found = _first(text, "NVRM version:", _PROC)
    library = _first(text, "NVML library version:", _NVML_LIBRARY)
    if library:
        # a fact on its own: a paste of just these lines is read, not "no report recognised"
        draft.read_at(NVML_LIBRARY, text, text.find("NVML library version:"))
        # nvidia-smi prints only major.minor: "570.124" says nothing against a 570.124.06 module
        module = found.group(2) if found else ""
        if not module.startswith(library.group(1) + "."):
            put(draft.nvml, "library_version", library.group(1))
    if found is None:
        return
    draft.section(PROC)
    put(draft.kernel, "nvidia_module_version", found.group(2))
    flavor = "open" if found.group(1).startswith("Open") else "proprietary"
    put(draft.kernel, "nvidia_module_flavor", flavor)
    # the module is built for the machine it runs on: "NVIDIA UNIX x86_64 Kernel Module",
    # "NVIDIA UNIX Open Kernel Module for aarch64"
    machine = _MODULE_MACHINE.search(found.group(1))
    if machine is not None:
        put(draft.platform, "machine", machine.group(0))
    draft.module_loaded("nvidia")


def tf_devices(text: str, draft: Draft) -> None:
    for found in _TF_DEVICE.finditer(text):
        draft.section(TF_LOG)
        # TF numbers the GPUs it can see; with CUDA_VISIBLE_DEVICES they may not be nvidia-smi's.
        index = integer(found.group(1)) or 0
        gpu = draft.gpu(index)
        put(gpu, "name", found.group(2).strip())
        put(gpu, "pci_bus_id", bus_id(found.group(3)))
        put(gpu, "compute_capability", found.group(4))
        draft.tensorflow.setdefault("cuda_available", True)
    if "with properties:" in text:
        _tf_found(text, draft)
    if "Ignoring visible gpu device" in text:
        _tf_ignored(text, draft)
    if "Successfully opened dynamic library " in text:
        _tf_opened(text, draft)


# TensorFlow's (and XLA's) loader names each library it opened (dso_loader.cc: LOG(INFO) up to
# TF 2.5, VLOG(1) since): "Successfully opened dynamic library libcudart.so.11.0", "...
# cudart64_110.dll". Which CUDA libraries the process found is a fact of the host.
_TF_OPENED = re.compile(
    r"Successfully opened dynamic library (?P<lib>lib[\w+-]{1,40}\.so[\d.]{0,20}"
    r"|[\w+-]{1,40}\.dll|lib[\w+-]{1,40}[\d.]{0,20}\.dylib)\b"
)
_TF_OPENED_MAX = 16  # a log repeats them per process: the first few name them all


def _tf_opened(text: str, draft: Draft) -> None:
    libraries: list[str] = []
    for start, line in iter_lines(text, text, "Successfully opened dynamic library "):
        found = _TF_OPENED.search(line) if len(line) <= 2000 else None
        if found is None:
            continue
        draft.read_at(TF_LOG, text, start)
        library = found.group("lib")
        if library not in libraries:
            libraries.append(library)
        if len(libraries) >= _TF_OPENED_MAX:
            break
    if libraries:
        draft.note(f"TensorFlow opened {', '.join(libraries)}")


def _tf_ignored(text: str, draft: Draft) -> None:
    """TensorFlow's refusal of a GPU below the compute capability its build needs."""
    for _, line in iter_lines(text, text, "Ignoring visible gpu device"):
        found = _TF_IGNORED.search(line)
        if found is None:
            continue
        draft.section(TF_LOG)
        gpu = draft.gpu(int(found.group("i")))
        put(gpu, "name", found.group("name").strip())
        put(gpu, "pci_bus_id", bus_id(found.group("bus")))
        put(gpu, "compute_capability", found.group("cc"))
        note = (
            f"TensorFlow ignores GPU {found.group('i')} (compute capability {found.group('cc')}):"
            f" this build needs {found.group('min')} or newer"
        )
        if note not in draft.notes:
            draft.notes.append(note)


def _tf_found(text: str, draft: Draft) -> None:
    """The properties TensorFlow 1.x-2.4 logs under "Found device N with properties:"."""
    for start, line in iter_lines(text, text, "with properties:"):
        head = _TF_FOUND.search(line)
        if head is None:
            continue
        below = text[start + len(line) + 1 : start + len(line) + 600].split("\n", 3)[:2]
        props = _TF2_PROPS.match(below[0].strip()) if below else None
        if props:
            gpu = draft.gpu(int(head.group("i")))
            put(gpu, "name", props.group("name").strip())
            put(gpu, "pci_bus_id", bus_id(props.group("bus")))
            put(gpu, "compute_capability", props.group("cc"))
            draft.section(TF_LOG)
            continue
        old = _TF1_PROPS.match(below[0].strip()) if below else None
        if old:
            gpu = draft.gpu(int(head.group("i")))
            put(gpu, "name", old.group("name").strip())
            put(gpu, "compute_capability", f"{old.group('major')}.{old.group('minor')}")
            bus = _TF1_BUS.match(below[1].strip()) if len(below) > 1 else None
            if bus:
                put(gpu, "pci_bus_id", bus_id(bus.group("bus")))
            draft.section(TF_LOG)
