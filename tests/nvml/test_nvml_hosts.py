"""Named host scenarios through the real nvidia-ml-py binding and the stand-in library."""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path

from nvml_rig import FakeNvml

from gpudoctor.facts import GpuFacts, MigDevice

H100_BUS_IDS = [
    "0000:18:00.0",
    "0000:2a:00.0",
    "0000:3a:00.0",
    "0000:5d:00.0",
    "0000:9a:00.0",
    "0000:ab:00.0",
    "0000:ba:00.0",
    "0000:db:00.0",
]


def test_healthy_8x_h100(fake_nvml: FakeNvml) -> None:
    run = fake_nvml.run("healthy_8x_h100")
    facts = run.facts
    assert (facts.status, facts.error) == ("ok", None)
    assert facts.driver_version == "550.90.07"
    assert facts.cuda_driver_version == "12.4"
    assert facts.nvml_version == "12.550.90.07"
    assert facts.device_count == 8
    assert [g.pci_bus_id for g in facts.gpus] == H100_BUS_IDS
    assert [g.minor_number for g in facts.gpus] == list(range(8))
    assert facts.gpus[3] == GpuFacts(
        index=3,
        name="NVIDIA H100 80GB HBM3",
        uuid=None,  # redacted by default
        serial=None,
        pci_bus_id="0000:5d:00.0",
        pci_device_id="0x2330",
        memory_total_bytes=85520809984,
        compute_capability="9.0",
        architecture="hopper",
        brand="nvidia",
        minor_number=3,
        mig_mode_current=False,
        mig_mode_pending=False,
        mig_devices=(),
        ecc_mode_current=True,
        ecc_mode_pending=True,
        ecc_uncorrected_volatile=0,
        retired_pages_pending=None,  # Hopper remaps rows instead: NotSupported, no issue
        retired_pages_count=None,
        remapped_rows_pending=False,
        remapped_rows_failure=False,
        persistence_mode=True,
        pcie_link_gen_current=5,
        pcie_link_gen_max=5,
        pcie_link_width_current=16,
        pcie_link_width_max=16,
        clock_event_reasons=("gpu_idle",),
        virtualization_mode="none",
        temperature_c=31,
        power_usage_w=69.512,
        power_limit_w=700.0,
    )
    assert run.issues == []
    assert facts.functions_not_found == ()


def test_healthy_host_reports_library_and_bindings(fake_nvml: FakeNvml) -> None:
    facts = fake_nvml.run("healthy_8x_h100").facts
    real = fake_nvml.libs["current"] / "libnvidia-ml.so.550.90.07"
    # resolved through the libnvidia-ml.so.1 link the binding opened
    assert facts.library_path == str(real.resolve())
    assert facts.library_version == "550.90.07"
    assert facts.bindings_package == "nvidia-ml-py"
    assert facts.bindings_version == metadata.version("nvidia-ml-py")
    assert facts.bindings_shadowed is False


def test_nvml_is_initialised_once_and_shut_down(fake_nvml: FakeNvml) -> None:
    calls = fake_nvml.run("healthy_8x_h100").calls
    assert calls[0] == "nvmlInitWithFlags"
    assert calls[-1] == "nvmlShutdown"
    assert calls.count("nvmlInitWithFlags") == calls.count("nvmlShutdown") == 1


def test_redaction_keeps_identifiers_out_and_unread(fake_nvml: FakeNvml) -> None:
    redacted = fake_nvml.run("a100_mig")
    assert all(g.uuid is None and g.serial is None for g in redacted.facts.gpus)
    assert all(m.uuid is None for m in redacted.facts.gpus[0].mig_devices)
    assert "nvmlDeviceGetUUID" not in redacted.calls
    assert "nvmlDeviceGetSerial" not in redacted.calls

    shown = fake_nvml.run("healthy_8x_h100", redact=False).facts
    assert shown.gpus[2].uuid == "GPU-5f2b6d1e-8a3c-4e9f-b7d2-000000000002"
    assert shown.gpus[2].serial == "1654220001002"


def test_a100_mig_on_with_pending_changes_and_empty_slot(fake_nvml: FakeNvml) -> None:
    run = fake_nvml.run("a100_mig", redact=False)
    gpu0, gpu1 = run.facts.gpus
    assert (gpu0.mig_mode_current, gpu0.mig_mode_pending) == (True, False)
    assert (gpu1.mig_mode_current, gpu1.mig_mode_pending) == (False, True)
    prefix = "NVIDIA A100-SXM4-40GB MIG"
    assert gpu0.mig_devices == (
        MigDevice(0, "MIG-11111111-2222-3333-4444-555555555500", f"{prefix} 3g.20gb", 1, 0,
                  19968 * 2**20, 42),
        MigDevice(1, "MIG-11111111-2222-3333-4444-555555555501", f"{prefix} 2g.10gb", 5, 0,
                  9856 * 2**20, 28),
        # slot 2 answers NotFound and is skipped; slot 3 is still read
        MigDevice(3, "MIG-11111111-2222-3333-4444-555555555503", f"{prefix} 1g.5gb", 13, 0,
                  4864 * 2**20, 14),
    )  # fmt: skip
    assert gpu1.mig_devices == ()  # MIG not on yet: no instances to list
    assert (gpu0.architecture, gpu0.compute_capability) == ("ampere", "8.0")
    # remapped rows are NotSupported while MIG is on: unknown, and no issue for it
    assert (gpu0.remapped_rows_pending, gpu1.remapped_rows_pending) == (None, False)
    assert run.issues == []


def test_passthrough_guest(fake_nvml: FakeNvml) -> None:
    run = fake_nvml.run("passthrough_guest")
    (gpu,) = run.facts.gpus
    assert gpu.virtualization_mode == "passthrough"
    assert (gpu.name, gpu.architecture, gpu.compute_capability) == ("NVIDIA L4", "ada", "8.9")
    assert gpu.pci_bus_id == "0000:00:03.0"
    assert gpu.persistence_mode is False
    assert run.issues == []


def test_vgpu_guest_unsupported_fields_are_none_without_issues(fake_nvml: FakeNvml) -> None:
    run = fake_nvml.run("vgpu_guest")
    (gpu,) = run.facts.gpus
    assert gpu.virtualization_mode == "vgpu"
    assert gpu.brand == "nvidia_vcs"
    assert gpu.memory_total_bytes == 4 * 2**30
    assert gpu.pcie_link_width_current is None
    assert gpu.pcie_link_gen_max is None
    assert (gpu.power_usage_w, gpu.power_limit_w, gpu.temperature_c) == (None, None, None)
    assert gpu.mig_mode_current is None
    assert gpu.clock_event_reasons == ()  # read, and nothing active
    assert not gpu.lost
    assert run.issues == []


def test_degraded_pcie_link_and_thermal_slowdown(fake_nvml: FakeNvml) -> None:
    gpu0, gpu1 = fake_nvml.run("degraded_pcie").facts.gpus
    assert (gpu0.pcie_link_width_current, gpu0.pcie_link_width_max) == (16, 16)
    assert (gpu1.pcie_link_width_current, gpu1.pcie_link_width_max) == (8, 16)
    assert (gpu1.pcie_link_gen_current, gpu1.pcie_link_gen_max) == (3, 4)
    assert gpu1.clock_event_reasons == ("hw_slowdown", "sw_thermal_slowdown")
    assert gpu0.clock_event_reasons == ()
    assert gpu1.temperature_c == 88
    assert gpu1.pci_bus_id == "0000:ca:00.0"


def test_retired_pages_and_remapped_rows(fake_nvml: FakeNvml) -> None:
    run = fake_nvml.run("memory_errors")
    v100, remap_pending, remap_failed = run.facts.gpus
    assert v100.architecture == "volta"
    assert (v100.retired_pages_pending, v100.retired_pages_count) == (True, 3)
    assert v100.ecc_uncorrected_volatile == 4
    assert v100.remapped_rows_pending is None
    assert (remap_pending.remapped_rows_pending, remap_pending.remapped_rows_failure) == (
        True,
        False,
    )
    assert remap_pending.retired_pages_pending is None
    assert (remap_failed.remapped_rows_pending, remap_failed.remapped_rows_failure) == (
        False,
        True,
    )
    # ECC off (enable pending): the volatile counter is not read at all
    assert (remap_failed.ecc_mode_current, remap_failed.ecc_mode_pending) == (False, True)
    assert remap_failed.ecc_uncorrected_volatile is None
    assert run.issues == []


def test_geforce_has_no_ecc_or_mig_and_that_is_not_an_issue(fake_nvml: FakeNvml) -> None:
    run = fake_nvml.run("geforce")
    (gpu,) = run.facts.gpus
    assert (gpu.brand, gpu.architecture) == ("geforce", "ada")
    assert (gpu.ecc_mode_current, gpu.ecc_mode_pending, gpu.ecc_uncorrected_volatile) == (
        None,
        None,
        None,
    )
    assert (gpu.mig_mode_current, gpu.mig_mode_pending, gpu.mig_devices) == (None, None, ())
    assert (gpu.retired_pages_pending, gpu.remapped_rows_pending) == (None, None)
    assert gpu.pcie_link_gen_current == 1  # idle down-training is recorded as is
    assert run.issues == []
    assert run.facts.functions_not_found == ()


def test_old_driver_missing_functions_fall_back_and_are_recorded(fake_nvml: FakeNvml) -> None:
    run = fake_nvml.run("old_driver", variant="old")
    facts = run.facts
    assert facts.library_version == "470.256.02"
    assert facts.cuda_driver_version == "11.4"
    (gpu,) = facts.gpus
    assert facts.functions_not_found == (
        "nvmlDeviceGetArchitecture",
        "nvmlDeviceGetCurrentClocksEventReasons",
        "nvmlDeviceGetGpuFabricInfo",  # R470 has neither fabric call: fabric stays None
        "nvmlDeviceGetGpuFabricInfoV",
        "nvmlDeviceGetMemoryInfo_v2",
    )
    # fallbacks: the old throttle-reasons call, memory info v1
    assert gpu.clock_event_reasons == ("sw_power_cap",)
    assert "nvmlDeviceGetCurrentClocksThrottleReasons" in run.calls
    assert gpu.memory_total_bytes == 16106127360
    assert "nvmlDeviceGetMemoryInfo" in run.calls
    assert gpu.architecture is None  # no fallback exists
    assert gpu.compute_capability == "7.5"
    assert (gpu.retired_pages_pending, gpu.retired_pages_count) == (False, 0)
    assert run.issues == []


def test_lost_and_forbidden_gpus_become_placeholders(fake_nvml: FakeNvml) -> None:
    run = fake_nvml.run("lost_gpu")
    facts = run.facts
    assert facts.status == "ok"
    assert facts.device_count == 4
    healthy, lost_handle, lost_midway, forbidden = facts.gpus
    assert healthy.name == "NVIDIA H100 80GB HBM3"
    assert not healthy.lost
    assert healthy.temperature_c == 30
    assert lost_handle == GpuFacts(
        index=1,
        lost=True,
        error="nvmlDeviceGetHandleByIndex_v2: GPU is lost (NVML error 15)",
    )
    # what GPU 2 answered before it failed is kept
    assert lost_midway.lost
    assert lost_midway.pci_bus_id == "0000:3a:00.0"
    assert lost_midway.mig_mode_current is False
    assert lost_midway.error == "nvmlDeviceGetEccMode: Unknown Error (NVML error 999)"
    assert lost_midway.temperature_c is None  # never asked after the loss
    assert not forbidden.lost
    assert forbidden.error is not None
    assert "NVML error 4" in forbidden.error
    assert run.issue_codes() == [
        ("nvml.gpus[1]", "nvml-gpu-lost"),
        ("nvml.gpus[2]", "nvml-gpu-lost"),
        ("nvml.gpus[3]", "nvml-no-permission"),
    ]
    assert run.calls[-1] == "nvmlShutdown"


def test_a_snapshot_maps_visible_device_uuids_to_indexes(
    fake_nvml: FakeNvml, tmp_path: Path
) -> None:
    import os
    import subprocess
    import sys

    from nvml_rig import SCENARIOS

    scenario = tmp_path / "scenario.txt"
    scenario.write_text((SCENARIOS / "healthy_8x_h100.txt").read_text(encoding="utf-8"))
    uuid = "GPU-5f2b6d1e-8a3c-4e9f-b7d2-000000000002"
    env = {k: v for k, v in os.environ.items() if not k.startswith("FAKE_NVML_")}
    env.update(
        LD_LIBRARY_PATH=str(fake_nvml.libs["current"]),
        FAKE_NVML_SCENARIO=str(scenario),
        NVIDIA_VISIBLE_DEVICES=f"{uuid},GPU-deadbeef-0000-0000-0000-000000000000",
        CUDA_VISIBLE_DEVICES=uuid[:-2] + "02",
    )
    done = subprocess.run(
        [sys.executable, "-m", "gpudoctor", "snapshot", "--no-docker", "--root", str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    snap = json.loads(done.stdout)
    assert snap["platform"]["nvidia_visible_devices"] == "2,GPU-<redacted>"
    assert snap["platform"]["cuda_visible_devices"] == "2"
    assert "5f2b6d1e" not in done.stdout
    assert all(g["uuid"] is None for g in snap["nvml"]["gpus"])


def test_gh200_reports_ats_addressing(fake_nvml: FakeNvml) -> None:
    run = fake_nvml.run("gh200")
    (gpu,) = run.facts.gpus
    assert (gpu.name, gpu.compute_capability) == ("NVIDIA GH200 480GB", "9.0")
    assert gpu.addressing_mode == "ats"  # coherent with the CPU over NVLink-C2C
    assert run.issues == []


def test_addressing_mode_unsupported_is_none_not_an_issue(fake_nvml: FakeNvml) -> None:
    run = fake_nvml.run("geforce")
    assert run.facts.gpus[0].addressing_mode is None
    assert run.issues == []
