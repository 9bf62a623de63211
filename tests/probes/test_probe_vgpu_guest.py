"""probes/vgpu_guest.py: the host's vGPU Manager version from a vGPU's PCI vendor capability
(laid out as NVIDIA's GPU feature discovery reads it) and the guest's licence client files, on
fake config spaces and root trees."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.probes.platform import probe_platform
from gpudoctor.probes.sysfs import probe_kernel
from gpudoctor.probes.vgpu_guest import host_driver, licence_client


def config_space(records: bytes, *, signature: bytes = b"VF", chain: bool = True) -> bytes:
    """256 bytes of config space: status says "capability list", 0x34 points at a power
    management capability (0x01) at 0x40, which points at the vendor capability at 0x60."""
    config = bytearray(256)
    config[0:2] = b"\xde\x10"
    config[0x06] = 0x10
    config[0x34] = 0x40
    config[0x40:0x42] = bytes([0x01, 0x60 if chain else 0x00])
    cap = bytes([0x09, 0x00, 0]) + signature + records
    cap = bytes([0x09, 0x00, len(cap)]) + cap[3:]
    config[0x60 : 0x60 + len(cap)] = cap
    return bytes(config)


def version_record(version: str, branch: str) -> bytes:
    data = version.encode().ljust(10, b"\0") + branch.encode().ljust(10, b"\0")
    return bytes([0, 2 + len(data)]) + data


def test_the_host_driver_record_after_another_record() -> None:
    other = bytes([7, 4, 0xAA, 0xBB])  # an unrelated record first: skipped by its length
    config = config_space(other + version_record("580.65.05", "R580"))
    assert host_driver(config) == ("580.65.05", "R580")


@pytest.mark.parametrize(
    "config",
    [
        b"",
        bytes(64),  # what a non-root reader gets: the first 64 bytes, no capability list
        config_space(version_record("580.65.05", "R580"), signature=b"XX"),  # not a vGPU
        config_space(version_record("580.65.05", "R580"), chain=False),  # no vendor capability
        config_space(bytes([0, 5, 0x35, 0x38, 0x30])),  # a truncated version record
        config_space(bytes([7, 0])),  # a zero-length record would loop forever
    ],
    ids=["empty", "first-64-bytes", "not-vgpu", "no-vendor-cap", "truncated", "zero-length"],
)
def test_malformed_or_absent_capabilities_are_unknown(config: bytes) -> None:
    assert host_driver(config) == (None, None)


def test_a_looping_capability_list_ends() -> None:
    config = bytearray(config_space(version_record("1", "R1"), chain=False))
    config[0x41] = 0x40  # the power management capability points at itself
    assert host_driver(bytes(config)) == (None, None)


def test_probe_kernel_reads_the_host_version_from_sysfs(tmp_path: Path) -> None:
    device = tmp_path / "sys/bus/pci/devices/0000:00:07.0"
    device.mkdir(parents=True)
    (device / "vendor").write_text("0x10de\n")
    (device / "class").write_text("0x030200\n")
    (device / "config").write_bytes(config_space(version_record("570.124.03", "R570")))
    facts, _ = probe_kernel(tmp_path)
    (pci,) = facts.pci_devices
    assert (pci.vgpu_host_driver_version, pci.vgpu_host_driver_branch) == ("570.124.03", "R570")


def test_licence_client_files(tmp_path: Path) -> None:
    assert licence_client(tmp_path).gridd == ""
    assert licence_client(tmp_path).tokens == 0
    assert licence_client(tmp_path).gridd_conf is False
    (tmp_path / "usr/bin").mkdir(parents=True)
    (tmp_path / "usr/bin/nvidia-gridd").write_text("")
    tokens = tmp_path / "etc/nvidia/ClientConfigToken"
    tokens.mkdir(parents=True)
    (tokens / "client_configuration_token_01-01-26.tok").write_text("x")
    (tokens / "README").write_text("not a token")
    (tmp_path / "etc/nvidia/gridd.conf").write_text("FeatureType=1\n")
    client = licence_client(tmp_path)
    assert (client.gridd, client.tokens, client.gridd_conf) == ("/usr/bin/nvidia-gridd", 1, True)
    facts, _ = probe_platform(tmp_path, {})
    assert facts.vgpu_client == client
