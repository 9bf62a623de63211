"""NVML's return codes that classify a failed nvmlInit, and the names programs print them by.

The numbers are nvml.h's `nvmlReturn_t` (NVML_ERROR_NO_PERMISSION = 4, _DRIVER_NOT_LOADED = 9,
_LIBRARY_NOT_FOUND = 12, _LIB_RM_VERSION_MISMATCH = 18; NVML API reference, "Device Enums").
A program prints one of them as the enum's name (C, go-nvml: "NVML_ERROR_DRIVER_NOT_LOADED",
"ERROR_DRIVER_NOT_LOADED"), as nvidia-ml-py's exception class ("NVMLError_DriverNotLoaded"), as
the Rust nvml-wrapper's error variant ("DriverNotLoaded"), or as the bare number a call returned
("nvmlInit returned 9"). Every spelling is the same status: the probe's (probes/nvml.py) and a
pasted report's (pasted/facts_scan/drivers.py).
"""

from __future__ import annotations

# code -> (the enum's suffix after NVML_ERROR_, NvmlFacts.status)
INIT_STATUS: dict[int, tuple[str, str]] = {
    4: ("NO_PERMISSION", "no_permission"),
    9: ("DRIVER_NOT_LOADED", "driver_not_loaded"),
    12: ("LIBRARY_NOT_FOUND", "library_not_found"),
    18: ("LIB_RM_VERSION_MISMATCH", "lib_rm_version_mismatch"),
}


def _camel(suffix: str) -> str:
    """NVML_ERROR_DRIVER_NOT_LOADED's suffix as nvidia-ml-py and nvml-wrapper spell it."""
    return "".join(part.capitalize() for part in suffix.split("_"))


# every spelling, in lower case -> the status
_BY_NAME: dict[str, str] = {
    spelled.lower(): status
    for suffix, status in INIT_STATUS.values()
    for spelled in (suffix, _camel(suffix))
}


def status_of_code(code: int) -> str | None:
    found = INIT_STATUS.get(code)
    return found[1] if found else None


def status_of_name(name: str) -> str | None:
    """The status an error name stands for ("DRIVER_NOT_LOADED", "DriverNotLoaded"), else None."""
    return _BY_NAME.get(name.lower())
