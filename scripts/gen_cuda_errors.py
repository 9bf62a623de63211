"""Write matrices/cuda_errors.toml from an installed CUDA toolkit: every error code of the runtime
API (cudaError_t, driver_types.h) and of the driver API (CUresult, cuda.h), with the toolkit's own
words: the doc comment above each enumerator, and for the runtime API the string
cudaGetErrorString returns (read from the toolkit's libcudart, which needs no GPU or driver).

    python scripts/gen_cuda_errors.py [--cuda /usr/local/cuda] > matrices/cuda_errors.toml

The one thing written here rather than read is each code's part (PARTS): which part of the
system the code points at, so that its finding's fix says where to look. Codes not listed are
"program" codes: errors of the calling program or a library, not of the host's set-up.
`tests/matrix/test_cuda_errors.py` regenerates the file from the toolkit when one is installed
and fails when the committed file differs.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import re
import sys
from pathlib import Path

RUNTIME_DOC = "https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html"
DRIVER_DOC = "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TYPES.html"

# The fix of each part: where to look when a program prints a code of that class.
FIXES = {
    "driver": (
        "check the driver install: `nvidia-smi` must list the GPU, and the driver's CUDA version "
        "(its header) must be at least the CUDA the program was built with; `gpudoctor check` on "
        "that host judges both"
    ),
    "device": (
        "look in the kernel log at that time (`sudo dmesg -T | grep -i -E 'xid|nvrm'`; "
        "`gpudoctor check` reads it): an Xid names the GPU fault, and an uncorrectable ECC or "
        "NVLink error needs the GPU reset (`sudo nvidia-smi -r -i <gpu>`) or the node drained"
    ),
    "busy": (
        "another process holds the GPU, or its compute mode forbids sharing: `nvidia-smi` shows "
        "the processes and the compute mode (`sudo nvidia-smi -i <gpu> -c DEFAULT` allows "
        "several)"
    ),
    "memory": (
        "the GPU has too little free memory for the request: other processes hold it "
        "(`nvidia-smi` lists them) or the work is too large for the GPU (a smaller batch or "
        "model)"
    ),
    "mps": (
        "the program runs under MPS: check that the MPS control daemon runs for this user "
        "(`echo get_server_list | nvidia-cuda-mps-control`) and that its client limits allow "
        "one more"
    ),
    "unknown": (
        "an error the driver did not classify: look in the kernel log at that time for NVRM and "
        "Xid lines (`gpudoctor check` reads them); after a suspend and resume, reloading the "
        "nvidia_uvm module (`sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm`) restores CUDA"
    ),
    "program": (
        "an error of the program or a library it calls, not of the host's set-up: run it with "
        "CUDA_LAUNCH_BLOCKING=1 (or under compute-sanitizer) to find the failing call; an Xid in "
        "the kernel log at the same time points at the GPU or driver instead"
    ),
}

# Codes of the runtime API, by the part of the system they point at; the driver API's code with
# the same number and meaning takes the same part (DRIVER_PARTS).
PARTS = {
    "driver": (
        "cudaErrorInitializationError",
        "cudaErrorCudartUnloading",
        "cudaErrorStubLibrary",
        "cudaErrorInsufficientDriver",
        "cudaErrorCallRequiresNewerDriver",
        "cudaErrorNoDevice",
        "cudaErrorDeviceNotLicensed",
        "cudaErrorStartupFailure",
        "cudaErrorJitCompilerNotFound",
        "cudaErrorUnsupportedPtxVersion",
        "cudaErrorSystemNotReady",
        "cudaErrorSystemDriverMismatch",
        "cudaErrorCompatNotSupportedOnDevice",
        "cudaErrorNoKernelImageForDevice",
        "cudaErrorSharedObjectInitFailed",
        "cudaErrorOperatingSystem",
    ),
    "device": (
        "cudaErrorECCUncorrectable",
        "cudaErrorNvlinkUncorrectable",
        "cudaErrorHardwareStackError",
        "cudaErrorLaunchTimeout",
        "cudaErrorContained",
        "cudaErrorExternalDevice",
    ),
    "busy": ("cudaErrorDevicesUnavailable", "cudaErrorDeviceAlreadyInUse"),
    "memory": ("cudaErrorMemoryAllocation",),
    "mps": (
        "cudaErrorMpsConnectionFailed",
        "cudaErrorMpsRpcFailure",
        "cudaErrorMpsServerNotReady",
        "cudaErrorMpsMaxClientsReached",
        "cudaErrorMpsMaxConnectionsReached",
        "cudaErrorMpsClientTerminated",
        "cudaErrorCdpNotSupported",
    ),
    "unknown": ("cudaErrorUnknown",),
}
DRIVER_PARTS = {
    "driver": (
        "CUDA_ERROR_NOT_INITIALIZED",
        "CUDA_ERROR_DEINITIALIZED",
        "CUDA_ERROR_STUB_LIBRARY",
        "CUDA_ERROR_NO_DEVICE",
        "CUDA_ERROR_DEVICE_NOT_LICENSED",
        "CUDA_ERROR_NO_BINARY_FOR_GPU",
        "CUDA_ERROR_JIT_COMPILER_NOT_FOUND",
        "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
        "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED",
        "CUDA_ERROR_OPERATING_SYSTEM",
        "CUDA_ERROR_SYSTEM_NOT_READY",
        "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
        "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
    ),
    "device": (
        "CUDA_ERROR_ECC_UNCORRECTABLE",
        "CUDA_ERROR_NVLINK_UNCORRECTABLE",
        "CUDA_ERROR_HARDWARE_STACK_ERROR",
        "CUDA_ERROR_LAUNCH_TIMEOUT",
        "CUDA_ERROR_CONTAINED",
        "CUDA_ERROR_EXTERNAL_DEVICE",
    ),
    "busy": ("CUDA_ERROR_CONTEXT_ALREADY_IN_USE",),
    "memory": ("CUDA_ERROR_OUT_OF_MEMORY",),
    "mps": (
        "CUDA_ERROR_MPS_CONNECTION_FAILED",
        "CUDA_ERROR_MPS_RPC_FAILURE",
        "CUDA_ERROR_MPS_SERVER_NOT_READY",
        "CUDA_ERROR_MPS_MAX_CLIENTS_REACHED",
        "CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED",
        "CUDA_ERROR_MPS_CLIENT_TERMINATED",
        "CUDA_ERROR_CDP_NOT_SUPPORTED",
    ),
    "unknown": ("CUDA_ERROR_UNKNOWN",),
}

_ENUMERATOR = re.compile(r"/\*\*(?P<doc>(?:(?!\*/).)*)\*/\s*(?P<name>\w+)\s*=\s*(?P<n>\d+)", re.S)


def _meaning(doc: str) -> str:
    """The doc comment as one line: Doxygen markup dropped, the first two sentences kept."""
    text = re.sub(r"^\s*\*\s?", "", doc, flags=re.M)
    text = re.sub(r"\\(?:ref|p|c|e)\s+", "", text)
    text = re.sub(r"::(\w)", r"\1", text)
    text = re.sub(r"\\(?:deprecated|note)\b", "", text)
    text = " ".join(text.split())
    sentences = re.split(r"(?<=[.!?])\s+(?=[A-Z])", text)
    return " ".join(sentences[:2]).strip()


def enumerators(header: Path, prefix: str) -> list[tuple[str, int, str]]:
    """(name, number, meaning) of every documented enumerator whose name starts with prefix."""
    source = header.read_text(encoding="utf-8", errors="replace")
    out = []
    for m in _ENUMERATOR.finditer(source):
        if m.group("name").startswith(prefix):
            out.append((m.group("name"), int(m.group("n")), _meaning(m.group("doc"))))
    return out


def _class_of(name: str, table: dict[str, tuple[str, ...]]) -> str:
    return next((cls for cls, names in table.items() if name in names), "program")


def _toml(value: object) -> str:
    return json.dumps(value, ensure_ascii=False) if isinstance(value, str) else str(value)


def render(cuda: Path) -> str:
    include = cuda / "include"
    version = re.search(r"#define CUDA_VERSION (\d+)", (include / "cuda.h").read_text())
    release = int(version.group(1)) if version else 0
    label = f"{release // 1000}.{release % 1000 // 10}"
    cudart = ctypes.CDLL(str(next((cuda / "lib64").glob("libcudart.so.*"))))
    cudart.cudaGetErrorString.restype = ctypes.c_char_p
    lines = [
        "# CUDA error codes: every code of the runtime API (cudaError_t) and of the driver API",
        f"# (CUresult) of CUDA {label}, with the toolkit's own words. GENERATED by",
        "# `python scripts/gen_cuda_errors.py > matrices/cuda_errors.toml` from an installed",
        "# toolkit (driver_types.h, cuda.h, libcudart's cudaGetErrorString); do not edit by hand.",
        "# Read by gpudoctor/matrix/cuda_errors.py (format: docs/matrix-format.md). `part` is the",
        "# part of the system a code points at, which picks the fix (scripts/gen_cuda_errors.py);",
        "# codes numbered differently by old CUDA releases are named by the numbers of this one.",
        "schema_version = 1",
        "",
    ]
    for name, fix in FIXES.items():
        lines += ["[[part]]", f"name = {_toml(name)}", f"fix = {_toml(fix)}", ""]
    runtime = enumerators(include / "driver_types.h", "cudaError")
    for name, number, meaning in runtime:
        text = cudart.cudaGetErrorString(number).decode()
        lines += [
            "[[error]]",
            'api = "runtime"',
            f"name = {_toml(name)}",
            f"number = {number}",
            f"text = {_toml(text)}",
            f"meaning = {_toml(meaning or text)}",
            f"part = {_toml(_class_of(name, PARTS))}",
            f'source = "{RUNTIME_DOC} (CUDA {label} driver_types.h, cudaGetErrorString)"',
            "",
        ]
    for name, number, meaning in enumerators(include / "cuda.h", "CUDA_ERROR_"):
        lines += [
            "[[error]]",
            'api = "driver"',
            f"name = {_toml(name)}",
            f"number = {number}",
            f"meaning = {_toml(meaning)}",
            f"part = {_toml(_class_of(name, DRIVER_PARTS))}",
            f'source = "{DRIVER_DOC} (CUDA {label} cuda.h)"',
            "",
        ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuda", type=Path, default=Path("/usr/local/cuda"))
    args = parser.parse_args(argv)
    sys.stdout.write(render(args.cuda))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
