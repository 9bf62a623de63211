"""`python -m torch.utils.collect_env` (torch 1.13 and later): `Key: value` lines from
`PyTorch version:` on. The GPU list and the driver version come from nvidia-smi on the reporting
host; "CUDA runtime version" is the nvcc on its PATH (not torch's own CUDA); "cuDNN version"
lists system cuDNN files. The "Versions of relevant libraries" pip/conda lines are read by
packages.py, like any pip list.
"""

from __future__ import annotations

import re

from gpudoctor.pasted.clean import version_text
from gpudoctor.pasted.draft import Draft, put, unknown_value
from gpudoctor.pasted.scan import line_starts_with

NAME = "collect_env"
DESCRIPTION = "`python -m torch.utils.collect_env`"
# torch 2.8+ (and vLLM's copy) align the keys: "PyTorch version              : 2.7.0+cu126".
# Copied by hand (from a rendered issue page or a spreadsheet) the colon may be gone, the key
# and value split by a tab or spaces: "PyTorch version\t2.1.0+cu121", "PyTorch version 2.1.0".
_START = re.compile(r"PyTorch version(?:[ \t]{0,40}:|\t|[ \t]{1,40}\d)")


def starts(text: str) -> list[int]:
    return [p for p in line_starts_with(text, "PyTorch version") if _START.match(text, p)]


_KEY = re.compile(r"^([A-Za-z][A-Za-z _/()-]{1,60}?):[ \t]*(.*)$")
_GPU = re.compile(r"^GPU (\d+): (.+?)(?: \(UUID: [^)]*\))?$")
_PLATFORM = re.compile(r"^Linux-(\S+?)-(x86_64|aarch64|ppc64le|s390x)-with")
_CUDNN_FILE = re.compile(r"^(?:[A-Za-z]:\\|/)\S*cudnn\S*$")
# The keys collect_env prints, for the colon-less copy: only these split a line into key and
# value there, so that prose or a library line is not taken for a key.
_BARE_KEYS = (
    "pytorch version|is debug build|cuda used to build pytorch|rocm used to build pytorch|os|"
    "gcc version|clang version|cmake version|libc version|python version|python platform|"
    "is cuda available|cuda runtime version|cuda_module_loading set to|"
    "gpu models and configuration|nvidia driver version|cudnn version|hip runtime version|"
    "miopen runtime version|is xnnpack available"
)
_BARE_KEY = re.compile(rf"^({_BARE_KEYS})(?:[ \t]*:|\t|[ \t]{{1,40}}(?=\S))[ \t]*(.*)$", re.I)
_MAX_LINES = 600  # the longest real output (lscpu flags, many libraries) is under 300 lines


def parse(block: str, draft: Draft) -> None:
    draft.section(NAME)
    lines = block.splitlines()[:_MAX_LINES]
    keyed = _KEY if lines and ":" in lines[0] else _BARE_KEY
    key = ""
    for raw in lines:
        line = raw.strip()
        found = keyed.match(line) if len(line) < 2000 else None
        if found and not _GPU.match(line) and not _CUDNN_FILE.match(line):
            key, value = found.group(1).strip().lower(), found.group(2).strip()
            _value(key, value, draft)
        elif key == "gpu models and configuration":
            _gpu(line, draft)
        elif key == "cudnn version" and _CUDNN_FILE.match(line):
            draft.cudnn_files.append(line)
        elif line.startswith("Versions of relevant libraries"):
            key = ""


# A ROCm build prints each GPU as torch sees it: "AMD Instinct MI300X (gfx942:sramecc+:xnack-)".
_AMD_GPU = re.compile(r"^(.{1,120}?) \((gfx[0-9a-f]{3,4})(?::[^)]{0,40})?\)$")


def _gpu(line: str, draft: Draft) -> None:
    found = _GPU.match(line)
    if found and not _amd_gpu(int(found.group(1)), found.group(2).strip(), draft):
        put(draft.gpu(int(found.group(1))), "name", found.group(2).strip())


def _amd_gpu(index: int, text: str, draft: Draft) -> bool:
    """An AMD GPU line goes to the AMD part, not NVML's: one with its gfx target in parentheses,
    or any line of a ROCm build's list. collect_env prints "ROCM used to build PyTorch" before
    the GPUs, and its get_gpu_info asks a ROCm torch (HIP) for them, never nvidia-smi: before
    torch 2.0 by name alone, like "Device 66a1"."""
    found = _AMD_GPU.match(text)
    if found is None and not draft.torch.get("hip"):
        return False
    gpu = draft.amd_gpu(index)
    put(gpu, "name", (found.group(1) if found else text).strip())
    if found:
        put(gpu, "gfx", found.group(2))
    unnamed = _UNNAMED.match(text)
    if unnamed:  # a GPU the name table lacks is named by its PCI device id, as lspci does
        put(gpu, "device_id", unnamed.group(1).lower())
    return True


_UNNAMED = re.compile(r"^Device ([0-9a-fA-F]{4})$")


def _value(key: str, value: str, draft: Draft) -> None:  # noqa: PLR0912 - one branch per key
    if value.lower() == "no cuda":
        # where torch has no CUDA, collect_env writes "No CUDA" for the CUDA runtime, the GPU
        # models, the driver and cuDNN (its all_cuda_fields): no GPU, driver or version
        return
    if key == "gpu models and configuration":
        if unknown_value(value):
            return
        _gpu(value, draft)
        if not value.startswith("GPU") and not _amd_gpu(0, value, draft):
            put(draft.gpu(0), "name", value)  # a single GPU is printed as its bare name
        if draft.gpus:
            put(draft.nvml, "status", "ok")  # the list comes from nvidia-smi, which worked
        return
    if key == "hip runtime version" and not unknown_value(value):
        put(draft.amd, "hip_runtime_version", value)
        return
    if key == "miopen runtime version" and not unknown_value(value):
        put(draft.amd, "miopen_version", value)
        return
    if key == "cuda used to build pytorch" and value.lower() in ("none", "could not collect"):
        # collect_env prints torch.version.cuda; its replace_nones writes None as "Could not
        # collect" (and "N/A" when torch did not import): a CPU-only (or ROCm) build.
        draft.torch["cuda_none"] = True
    if unknown_value(value):
        return
    if key == "pytorch version":
        put(draft.torch, "version", value)
    elif key == "cuda used to build pytorch":
        put(draft.torch, "cuda", version_text(value))
    elif key == "rocm used to build pytorch":
        put(draft.torch, "hip", value)
    elif key == "is cuda available":
        draft.torch_cuda_available = value.lower() in ("true", "yes")
    elif key == "cuda runtime version":
        draft.nvcc_version = version_text(value)
    elif key == "nvidia driver version":
        put(draft.nvml, "driver_version", value)
        put(draft.nvml, "status", "ok")
    elif key == "cudnn version" and _CUDNN_FILE.match(value):
        draft.cudnn_files.append(value)
    elif key == "os":
        put(draft.platform, "os_pretty", value)
    elif key == "python version":
        put(draft.platform, "python_version", version_text(value))
    elif key == "python platform":
        _python_platform(value, draft)
    elif key == "hypervisor vendor":
        put(draft.platform, "virtualization", value.lower())
        put(draft.platform, "hypervisor_flag", True)


def key_line(key: str, value: str, draft: Draft) -> None:
    """One collect_env `Key: value` line read outside its block (a paste cut above "PyTorch
    version:"), as the block reads it."""
    _value(key.strip().lower(), value.strip(), draft)


def _python_platform(value: str, draft: Draft) -> None:
    found = _PLATFORM.match(value)
    if found:
        release = found.group(1)
        put(draft.kernel, "release", release)
        put(draft.platform, "machine", found.group(2))
        put(draft.platform, "wsl", "microsoft-standard-wsl" in release.lower())
