"""A vGPU guest's licence through the real nvidia-ml-py binding and the stand-in library
(nvmlDeviceGetGridLicensableFeatures_v4). No vGPU guest or licence server exists here: the
scenarios follow nvml.h's struct, and these tests prove the binding, the stand-in and the probe
agree on it."""

from __future__ import annotations

import pytest

from gpudoctor.facts import VgpuLicense
from tests.support.nvml_rig import FakeNvml


@pytest.mark.parametrize(
    ("scenario", "expected"),
    [
        (
            "vgpu_guest_licensed",
            VgpuLicense("licensed", "NVIDIA Virtual Compute Server", expiry="2026-07-07T16:01:44Z"),
        ),
        ("vgpu_guest_unlicensed", VgpuLicense("unlicensed", "NVIDIA Virtual Compute Server")),
        (
            "vgpu_guest_expired",
            VgpuLicense("licensed", "NVIDIA Virtual Compute Server", expiry="2024-01-31T11:32:22Z"),
        ),
    ],
)
def test_guest_licence(fake_nvml: FakeNvml, scenario: str, expected: VgpuLicense) -> None:
    run = fake_nvml.run(scenario)
    (gpu,) = run.facts.gpus
    assert gpu.virtualization_mode == "vgpu"
    assert gpu.vgpu_license == expected
    assert "nvmlDeviceGetGridLicensableFeatures_v4" in run.calls


def test_passthrough_without_licensing_records_none_and_no_issue(fake_nvml: FakeNvml) -> None:
    run = fake_nvml.run("passthrough_guest")
    (gpu,) = run.facts.gpus
    assert gpu.virtualization_mode == "passthrough"
    assert gpu.vgpu_license is None
    assert not [i for i in run.issues if "vgpu_license" in i.field]


def test_bare_metal_never_asks(fake_nvml: FakeNvml) -> None:
    run = fake_nvml.run("healthy_8x_h100")
    assert "nvmlDeviceGetGridLicensableFeatures_v4" not in run.calls
    assert all(g.vgpu_license is None for g in run.facts.gpus)


def test_permanent_and_unsupported(fake_nvml: FakeNvml) -> None:
    run = fake_nvml.run(
        "vgpu_guest_licensed", extra="gpu.*.grid_feature = 4,1,1,4\ngpu.*.grid_expiry = 0,0,0,0,0,0"
    )
    assert run.facts.gpus[0].vgpu_license == VgpuLicense(
        "licensed", "NVIDIA Virtual Compute Server", expiry="permanent"
    )
    run = fake_nvml.run("vgpu_guest_licensed", extra="gpu.*.grid_license = 0,0")
    assert run.facts.gpus[0].vgpu_license is None  # licensing not supported: nothing to judge
