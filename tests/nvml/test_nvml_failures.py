"""NVML failing: init errors, missing library, hangs, forbidden or failing queries."""

from __future__ import annotations

import ctypes.util
from pathlib import Path

import pytest

from tests.support.nvml_rig import FakeNvml


@pytest.mark.parametrize(
    ("code", "status", "issue_code"),
    [
        (9, "driver_not_loaded", "nvml-driver-not-loaded"),
        (18, "lib_rm_version_mismatch", "nvml-lib-rm-version-mismatch"),
        (4, "no_permission", "nvml-no-permission"),
        (999, "unknown", "nvml-init-failed"),
        (17, "unknown", "nvml-init-failed"),  # OperatingSystem: no class of its own
    ],
)
def test_init_failure_is_classified(
    fake_nvml: FakeNvml, code: int, status: str, issue_code: str
) -> None:
    run = fake_nvml.run("healthy_8x_h100", extra=f"init = !{code}")
    facts = run.facts
    assert facts.status == status
    assert facts.error is not None
    assert facts.error.endswith(f"(NVML error {code})")
    assert run.issue_codes() == [("nvml", issue_code)]
    assert (facts.driver_version, facts.device_count, facts.gpus) == (None, None, ())
    # the library did load, so its version is known: the evidence for a mismatch
    assert facts.library_version == "550.90.07"
    assert run.calls == ["nvmlInitWithFlags"]  # no queries, no shutdown after a failed init


def test_library_not_found(fake_nvml: FakeNvml, tmp_path: Path) -> None:
    if ctypes.util.find_library("nvidia-ml"):
        pytest.skip("a real libnvidia-ml is installed on this host")
    run = fake_nvml.run("healthy_8x_h100", lib_dir=tmp_path)  # an empty library path
    facts = run.facts
    assert facts.status == "library_not_found"
    assert facts.error == "NVML Shared Library Not Found (NVML error 12)"
    assert (facts.library_path, facts.library_version) == (None, None)
    assert run.issue_codes() == [("nvml", "nvml-library-not-found")]
    assert facts.bindings_package == "nvidia-ml-py"  # known even without a driver


def test_hang_in_init_is_bounded(fake_nvml: FakeNvml) -> None:
    run = fake_nvml.run("healthy_8x_h100", extra="init_sleep_ms = 20000", timeout=0.3)
    facts = run.facts
    assert facts.status == "unknown"
    assert facts.error == "NVML did not answer within 0.3 s (in nvmlInit)"
    assert run.issue_codes() == [("nvml", "nvml-timeout")]
    assert facts.gpus == ()
    assert run.seconds < 10  # the probe process did not wait for the 20 s init


def test_hang_on_one_gpu_keeps_what_was_collected(fake_nvml: FakeNvml) -> None:
    run = fake_nvml.run("healthy_8x_h100", extra="gpu.1.sleep_ms = 20000", timeout=1.0)
    facts = run.facts
    assert facts.status == "unknown"
    assert facts.driver_version == "550.90.07"
    assert facts.device_count == 8
    assert len(facts.gpus) == 2  # GPU 0 complete, GPU 1 partial, the rest never reached
    assert not facts.gpus[0].lost
    assert facts.gpus[0].temperature_c == 31
    hung = facts.gpus[1]
    assert hung.lost
    assert hung.error == ("NVML did not answer within 1 s (in nvmlDeviceGetTemperature (GPU 1))")
    assert hung.pci_bus_id == "0000:2a:00.0"  # read before the hang
    assert hung.ecc_mode_current is True
    assert hung.temperature_c is None
    assert run.issue_codes() == [("nvml", "nvml-timeout")]
    assert run.seconds < 10


def test_forbidden_and_failing_queries_become_issues(fake_nvml: FakeNvml) -> None:
    extra = "\n".join(
        [
            "gpu.0.serial = !4",  # NoPermission
            "gpu.1.power_usage_mw = !17",  # OperatingSystem: any other error
            "nvml_version = !4",
        ]
    )
    run = fake_nvml.run("healthy_8x_h100", extra=extra, redact=False)
    facts = run.facts
    assert facts.status == "ok"
    assert (facts.nvml_version, facts.gpus[0].serial, facts.gpus[1].power_usage_w) == (
        None,
        None,
        None,
    )
    assert facts.gpus[1].serial == "1654220001001"
    assert facts.gpus[0].power_usage_w == 69.512
    assert not any(g.lost for g in facts.gpus)
    assert run.issue_codes() == [
        ("nvml.nvml_version", "nvml-no-permission"),
        ("nvml.gpus[0].serial", "nvml-no-permission"),
        ("nvml.gpus[1].power_usage_w", "nvml-query-failed"),
    ]
    assert run.issues[2].reason == (
        "nvmlDeviceGetPowerUsage: The operating system has blocked the request. (NVML error 17)"
    )


def test_device_count_failure_leaves_no_gpus(fake_nvml: FakeNvml) -> None:
    run = fake_nvml.run("healthy_8x_h100", extra="count = !999")
    assert run.facts.status == "ok"
    assert (run.facts.device_count, run.facts.gpus) == (None, ())
    assert run.facts.driver_version == "550.90.07"
    assert run.issue_codes() == [("nvml.device_count", "nvml-query-failed")]
    assert run.calls[-1] == "nvmlShutdown"
