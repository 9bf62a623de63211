"""Pure decoding rules, binding detection, and the probe over stand-in `pynvml` modules."""

from __future__ import annotations

import threading
import types
from importlib import metadata
from typing import Any

import pynvml
import pytest

from gpudoctor.probes.nvml import describe_bindings, probe_nvml
from gpudoctor.probes.nvml_decode import (
    architecture_name,
    brand_name,
    clock_event_reason_names,
    cuda_version_text,
    library_from_maps,
    library_version_from_path,
    normalize_bus_id,
    pci_device_id_text,
    text,
    virtualization_name,
)


@pytest.mark.parametrize(
    ("raw", "sysfs"),
    [
        ("00000000:3B:00.0", "0000:3b:00.0"),
        ("00000001:AF:1F.7", "0001:af:1f.7"),
        ("0000:3b:00.0", "0000:3b:00.0"),
        ("00010000:01:00.0", "10000:01:00.0"),  # Hyper-V style domains keep all digits
        (" 00000000:DB:00.0 ", "0000:db:00.0"),
        ("NOT-A-BUS-ID", "not-a-bus-id"),
    ],
)
def test_normalize_bus_id(raw: str, sysfs: str) -> None:
    assert normalize_bus_id(raw) == sysfs


@pytest.mark.parametrize(
    ("value", "version"),
    [(12040, "12.4"), (11080, "11.8"), (13000, "13.0"), (12090, "12.9"), (10020, "10.2")],
)
def test_cuda_version_text(value: int, version: str) -> None:
    assert cuda_version_text(value) == version


def test_clock_event_reason_names() -> None:
    assert clock_event_reason_names(0) == ()
    assert clock_event_reason_names(0x28) == ("hw_slowdown", "sw_thermal_slowdown")
    assert clock_event_reason_names(0x1FF) == (
        "gpu_idle",
        "applications_clocks_setting",
        "sw_power_cap",
        "hw_slowdown",
        "sync_boost",
        "sw_thermal_slowdown",
        "hw_thermal_slowdown",
        "hw_power_brake_slowdown",
        "display_clock_setting",
    )
    assert clock_event_reason_names(0x801) == ("gpu_idle", "unknown_0x800")


def test_reason_bits_match_the_binding() -> None:
    for bit, name in [
        (0x4, "SwPowerCap"),
        (0x40, "HwThermalSlowdown"),
        (0x100, "DisplayClockSetting"),
    ]:
        assert getattr(pynvml, f"nvmlClocksEventReason{name}") == bit


def test_architecture_brand_virtualization_names() -> None:
    assert architecture_name(pynvml.NVML_DEVICE_ARCH_HOPPER) == "hopper"
    assert architecture_name(pynvml.NVML_DEVICE_ARCH_BLACKWELL) == "blackwell"
    assert architecture_name(pynvml.NVML_DEVICE_ARCH_KEPLER) == "kepler"
    assert architecture_name(pynvml.NVML_DEVICE_ARCH_UNKNOWN) is None
    assert architecture_name(14) == "arch_14"  # newer than the table: keep the number
    assert brand_name(pynvml.NVML_BRAND_GEFORCE) == "geforce"
    assert brand_name(99) == "brand_99"
    assert virtualization_name(pynvml.NVML_GPU_VIRTUALIZATION_MODE_VGPU) == "vgpu"
    assert virtualization_name(pynvml.NVML_GPU_VIRTUALIZATION_MODE_HOST_VSGA) == "host_vsga"


def test_pci_device_id_and_text() -> None:
    assert pci_device_id_text(0x233010DE) == "0x2330"
    assert text(b"NVIDIA A100") == "NVIDIA A100"  # old bindings return bytes
    assert text(None) is None


def test_library_from_maps_and_version() -> None:
    maps = (
        "7f1c00000000-7f1c00001000 r--p 00000000 08:01 1234 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
        "7f1c10000000-7f1c10100000 r-xp 00000000 08:01 5678 "
        "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.90.07\n"
        "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]\n"
    )
    path = library_from_maps(maps)
    assert path == "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.90.07"
    assert library_version_from_path(path) == "550.90.07"
    assert library_from_maps("7ffd0-7ffd1 rw-p 00000000 00:00 0 [stack]\n") is None
    assert library_version_from_path("/usr/lib/libnvidia-ml.so.1") is None  # unresolved link


# --- the binding and stand-in modules (the NVML edge, passed in) ------------------------------


def test_official_binding_is_recognised() -> None:
    assert describe_bindings(pynvml) == ("nvidia-ml-py", metadata.version("nvidia-ml-py"), False)


class _FakeError(Exception):
    def __init__(self, value: int) -> None:
        super().__init__(f"fake NVML error {value}")
        self.value = value


def _module(**functions: Any) -> types.ModuleType:
    module = types.ModuleType("pynvml")
    module.NVMLError = _FakeError  # type: ignore[attr-defined]
    for name, fn in functions.items():
        setattr(module, name, fn)
    return module


def _raise(code: int) -> Any:
    def fail(*_: Any) -> Any:
        raise _FakeError(code)

    return fail


def test_unofficial_pynvml_is_flagged_as_shadowing() -> None:
    # gpuopenanalytics/pynvml's module: the same API, but no _nvmlGetFunctionPointer
    shadow = _module(nvmlInit=_raise(12))
    assert describe_bindings(shadow) == (None, None, True)
    facts, issues = probe_nvml(shadow)
    assert facts.bindings_shadowed is True
    assert facts.status == "library_not_found"
    assert [i.code for i in issues] == ["nvml-library-not-found"]


def test_module_without_nvml_functions_does_not_crash() -> None:
    facts, issues = probe_nvml(types.ModuleType("pynvml"))
    assert facts.status == "unknown"
    assert facts.error is not None
    assert "nvmlInit" in facts.error
    assert [i.code for i in issues] == ["nvml-init-failed"]


def test_unexpected_exceptions_become_issues_and_shutdown_still_runs() -> None:
    shutdowns: list[bool] = []

    def broken(*_: Any) -> Any:
        raise TypeError("binding bug")

    module = _module(
        _nvmlGetFunctionPointer=lambda name: None,
        nvmlInit=lambda: None,
        nvmlShutdown=lambda: shutdowns.append(True),
        nvmlSystemGetDriverVersion=broken,
        nvmlSystemGetCudaDriverVersion=lambda: 12080,
        nvmlSystemGetNVMLVersion=_raise(3),
        nvmlDeviceGetCount=lambda: 0,
    )
    facts, issues = probe_nvml(module)
    assert facts.status == "ok"
    assert (facts.driver_version, facts.cuda_driver_version, facts.nvml_version) == (
        None,
        "12.8",
        None,  # NotSupported: no issue
    )
    assert facts.bindings_shadowed is False
    assert [(i.field, i.code) for i in issues] == [("nvml.driver_version", "nvml-query-failed")]
    assert issues[0].reason == "nvmlSystemGetDriverVersion: TypeError: binding bug"
    assert shutdowns == [True]


def test_timeout_then_late_init_still_shuts_down() -> None:
    release = threading.Event()
    shut_down = threading.Event()
    queried: list[str] = []
    module = _module(
        nvmlInit=lambda: release.wait(10),
        nvmlShutdown=shut_down.set,
        nvmlSystemGetDriverVersion=lambda: queried.append("driver") or "550.90.07",
    )
    facts, issues = probe_nvml(module, timeout_s=0.05)
    assert facts.status == "unknown"
    assert [i.code for i in issues] == ["nvml-timeout"]
    release.set()  # init "succeeds" after the caller gave up
    assert shut_down.wait(5)
    assert queried == []  # the worker stopped before its first query


@pytest.mark.gpu
def test_real_gpu_host() -> None:
    facts, issues = probe_nvml()
    assert facts.status == "ok", issues
    assert facts.driver_version
    assert facts.device_count is not None
    assert facts.device_count >= 1
    assert facts.gpus[0].name
    assert facts.gpus[0].compute_capability
    assert facts.library_path is not None
    assert facts.gpus[0].uuid is None  # redacted by default
