"""sysfs.py against recorded trees: PCI devices, driver binding, module flavour, nodes, nouveau."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gpudoctor.facts import DeviceNode
from gpudoctor.probes.redact import kernel_cmdline
from gpudoctor.probes.sysfs import device_kind, link_gen, probe_kernel


def test_healthy_host_lists_gpus_nvswitch_and_skips_other_vendors(scenario) -> None:
    facts, issues = probe_kernel(scenario("healthy-multi-gpu"))
    assert issues == []
    by_addr = {d.address: d for d in facts.pci_devices}
    assert sorted(by_addr) == ["0000:05:00.0", "0000:18:00.0", "0000:2a:00.0"]  # no Intel LPC
    gpu = by_addr["0000:18:00.0"]
    assert (gpu.kind, gpu.driver, gpu.device_id, gpu.class_code) == (
        "gpu",
        "nvidia",
        "0x2330",
        "0x030200",
    )
    assert (gpu.link_gen_current, gpu.link_gen_max, gpu.link_width_current) == (5, 5, 16)
    assert gpu.numa_node == 0
    assert gpu.iommu_group is None  # no IOMMU on this host
    degraded = by_addr["0000:2a:00.0"]
    assert (degraded.link_gen_current, degraded.link_width_current) == (4, 8)
    assert (degraded.link_gen_max, degraded.link_width_max) == (5, 16)
    nvswitch = by_addr["0000:05:00.0"]
    assert nvswitch.kind == "nvswitch"
    assert nvswitch.numa_node is None  # -1 means no NUMA affinity
    assert nvswitch.link_gen_current is None


def test_healthy_host_driver_modules_and_nodes(scenario) -> None:
    facts, _ = probe_kernel(scenario("healthy-multi-gpu"))
    assert facts.nvidia_module_version == "550.90.07"
    assert facts.nvidia_module_flavor == "proprietary"
    assert facts.modules_loaded == ("nvidia", "nvidia_uvm", "nvidia_modeset", "nvidia_drm")
    assert facts.release == "5.15.0-105-generic"
    assert facts.nouveau_blacklisted is True
    paths = [n.path for n in facts.device_nodes]
    assert paths == [  # natural order: GPU nodes first, nvidia2 before nvidia10
        "/dev/nvidia0",
        "/dev/nvidia1",
        "/dev/nvidia-caps/nvidia-cap1",
        "/dev/nvidia-caps/nvidia-cap2",
        "/dev/nvidia-modeset",
        "/dev/nvidia-uvm",
        "/dev/nvidia-uvm-tools",
        "/dev/nvidiactl",
    ]
    assert all(n.readable and n.writable for n in facts.device_nodes)


def test_cmdline_uuids_are_redacted_by_default(scenario) -> None:
    redacted, _ = probe_kernel(scenario("healthy-multi-gpu"))
    full, _ = probe_kernel(scenario("healthy-multi-gpu"), redact=False)
    assert redacted.cmdline is not None
    assert "3f1c2a9e" not in redacted.cmdline
    assert "3f1c2a9e-8d7b-4c1e-9a2f-5b6d7e8f9a0b" in (full.cmdline or "")


@pytest.mark.parametrize(
    ("cmdline", "shared"),
    [
        ("ro quiet", "<2 other parameters left out>"),
        # what follows a lone `--` goes to init, not the kernel: dropped
        (
            "console=ttyS0 iommu=pt -- --addr 0.0.0.0:2024 --auth-required",
            "iommu=pt <1 other parameters left out> -- <redacted>",
        ),
        ("intel_iommu=on nouveau.modeset=0", "intel_iommu=on nouveau.modeset=0"),
    ],
)
def test_cmdline_keeps_only_the_allow_list(cmdline: str, shared: str) -> None:
    assert kernel_cmdline(cmdline) == shared


def test_open_kernel_module_flavour(scenario) -> None:
    facts, _ = probe_kernel(scenario("vm-guest-open"))
    assert (facts.nvidia_module_version, facts.nvidia_module_flavor) == ("580.95.05", "open")
    (gpu,) = facts.pci_devices
    # A virtual PCIe link in a VM reads "Unknown" speed and width 0: unknown, not gen 0.
    assert (gpu.link_gen_current, gpu.link_width_current) == (None, None)


def test_nouveau_bound_consumer_gpu_and_its_audio_function(scenario) -> None:
    facts, _ = probe_kernel(scenario("nouveau-bound"))
    kinds = {d.address: (d.kind, d.driver) for d in facts.pci_devices}
    assert kinds == {
        "0000:01:00.0": ("gpu", "nouveau"),
        "0000:01:00.1": ("audio", "snd_hda_intel"),
    }
    assert facts.modules_loaded == ("nouveau",)
    assert facts.nouveau_blacklisted is False  # modprobe.d exists, no blacklist in it
    assert facts.nvidia_module_version is None
    assert facts.device_nodes == ()


def test_gpu_with_no_driver_bound(scenario) -> None:
    facts, issues = probe_kernel(scenario("no-driver"))
    (gpu,) = facts.pci_devices
    assert gpu.kind == "gpu"
    assert gpu.driver is None
    assert facts.modules_loaded == ()
    assert issues == []  # /proc/modules was read: nothing of interest is loaded
    # Blacklisted by modprobe.blacklist=nouveau on the kernel command line.
    assert facts.nouveau_blacklisted is True


def test_vfio_bound_passthrough_host(scenario) -> None:
    facts, _ = probe_kernel(scenario("vfio-passthrough-host"))
    assert [(d.driver, d.iommu_group) for d in facts.pci_devices] == [
        ("vfio-pci", 41),
        ("vfio-pci", 42),
    ]
    assert facts.modules_loaded == ("vfio_pci",)


def test_sriov_physical_and_virtual_functions(scenario) -> None:
    facts, _ = probe_kernel(scenario("sriov-vfs"))
    pf, *vfs = facts.pci_devices
    assert (pf.sriov_totalvfs, pf.sriov_numvfs, pf.is_virtual_function) == (32, 2, False)
    assert [(vf.address, vf.is_virtual_function, vf.driver) for vf in vfs] == [
        ("0000:3b:00.4", True, None),
        ("0000:3b:00.5", True, None),
    ]
    assert all(vf.sriov_totalvfs is None for vf in vfs)


def test_container_sees_device_nodes_but_no_pci_tree(scenario) -> None:
    facts, issues = probe_kernel(scenario("container-k8s"))
    assert [n.path for n in facts.device_nodes] == [
        "/dev/nvidia0",
        "/dev/nvidia-uvm",
        "/dev/nvidiactl",
    ]
    assert facts.pci_devices == ()
    assert [i.code for i in issues] == ["kernel-modules-unreadable", "sysfs-pci-unreadable"]
    assert facts.nouveau_blacklisted is not False  # nothing to read in a container: not "no"


def test_module_version_falls_back_to_sys_module(tmp_path: Path) -> None:
    (tmp_path / "sys/module/nvidia").mkdir(parents=True)
    (tmp_path / "sys/module/nvidia/version").write_text("535.183.01\n")
    facts, _ = probe_kernel(tmp_path)
    assert facts.nvidia_module_version == "535.183.01"
    assert facts.nvidia_module_flavor is None  # sysfs does not tell the flavour
    assert facts.modules_loaded == ("nvidia",)


def test_empty_root_gives_unknowns_not_errors(tmp_path: Path) -> None:
    facts, issues = probe_kernel(tmp_path)
    assert facts.release is None
    assert facts.cmdline is None
    assert facts.nouveau_blacklisted is None
    assert facts.pci_devices == ()
    assert [i.code for i in issues] == ["kernel-modules-unreadable", "sysfs-pci-unreadable"]


def test_install_false_counts_as_blacklist(tmp_path: Path) -> None:
    conf = tmp_path / "etc/modprobe.d/nv.conf"
    conf.parent.mkdir(parents=True)
    conf.write_text("# blacklist nouveau  (commented out: does not count)\n")
    assert probe_kernel(tmp_path)[0].nouveau_blacklisted is False
    conf.write_text("install nouveau /bin/false\n")
    assert probe_kernel(tmp_path)[0].nouveau_blacklisted is True


@pytest.mark.skipif(os.geteuid() == 0, reason="root can open any file: permissions not visible")
def test_device_node_permissions(tmp_path: Path) -> None:
    node = tmp_path / "dev/nvidia0"
    node.parent.mkdir()
    node.write_text("")
    node.chmod(0o444)
    facts, _ = probe_kernel(tmp_path)
    assert facts.device_nodes == (DeviceNode("/dev/nvidia0", readable=True, writable=False),)


@pytest.mark.parametrize(
    ("class_code", "kind"),
    [
        ("0x030000", "gpu"),
        ("0x030200", "gpu"),
        ("0x068000", "nvswitch"),
        ("0x040300", "audio"),
        ("0x040380", "audio"),
        ("0x060400", "other"),
        (None, "other"),
    ],
)
def test_device_kind(class_code: str | None, kind: str) -> None:
    assert device_kind(class_code) == kind


@pytest.mark.parametrize(
    ("speed", "gen"),
    [
        ("2.5 GT/s PCIe", 1),
        ("5.0 GT/s PCIe", 2),
        ("8.0 GT/s PCIe", 3),
        ("16.0 GT/s PCIe", 4),
        ("32.0 GT/s PCIe", 5),
        ("64.0 GT/s PCIe", 6),
        ("8 GT/s", 3),
        ("Unknown", None),
        (None, None),
    ],
)
def test_link_gen(speed: str | None, gen: int | None) -> None:
    assert link_gen(speed) == gen


def test_a_command_line_full_of_secrets_keeps_only_what_the_checks_use() -> None:
    cmdline = (
        "BOOT_IMAGE=/vmlinuz root=UUID=3f1c2a9e-8d7b-4c1e-9a2f-5b6d7e8f9a0b ro "
        "ip=10.0.0.5::10.0.0.1:255.255.255.0:db-prod-7:eth0:off "
        "s=http://admin:hunter2@10.0.0.1/seed cloud.token=abc123 "
        "systemd.setenv=API_TOKEN=s3cr3t hostname=db-prod-7 mac=00:11:22:33:44:55 "
        "nfsroot=10.0.0.1:/exports/alice intel_iommu=on iommu=pt "
        "modprobe.blacklist=nouveau nouveau.modeset=0 nvidia-drm.modeset=1 "
        "vfio-pci.ids=10de:2330 pci=realloc -- --token=init-secret"
    )
    shared = kernel_cmdline(cmdline)
    for secret in (
        "hunter2",
        "admin",
        "abc123",
        "s3cr3t",
        "db-prod-7",
        "00:11:22",
        "alice",
        "10.0.0",
        "init-secret",
        "3f1c2a9e",
    ):
        assert secret not in shared
    assert shared.split()[:8] == [
        "intel_iommu=on",
        "iommu=pt",
        "modprobe.blacklist=nouveau",
        "nouveau.modeset=0",
        "nvidia-drm.modeset=1",
        "vfio-pci.ids=10de:2330",
        "pci=realloc",
        "<10",
    ]


def test_peer_memory_clients(tmp_path: Path) -> None:
    facts, _ = probe_kernel(tmp_path)
    assert facts.peer_memory_clients == ()  # no peer-memory API: no client
    peers = tmp_path / "sys/kernel/mm/memory_peers"
    (peers / "nv_mem").mkdir(parents=True)
    (peers / "nv_mem" / "version").write_text("1.3\n", encoding="utf-8")
    facts, _ = probe_kernel(tmp_path)
    assert facts.peer_memory_clients == ("nv_mem",)


def _dkms_install(tree: Path, version: str, kernel: str, arch: str = "x86_64") -> None:
    """What `dkms install` leaves: the built module and the kernel-<kernel>-<arch> link."""
    built = tree / version / kernel / arch / "module"
    built.mkdir(parents=True)
    (built / "nvidia.ko.zst").write_bytes(b"")
    os.symlink(f"{version}/{kernel}/{arch}", tree / f"kernel-{kernel}-{arch}")


def test_dkms_kernels_are_the_installed_links_only(tmp_path: Path) -> None:
    facts, _ = probe_kernel(tmp_path)
    assert facts.nvidia_dkms_kernels is None  # no DKMS tree for nvidia: not read
    tree = tmp_path / "var/lib/dkms/nvidia"
    _dkms_install(tree, "535.129.03", "6.5.0-14-generic")
    _dkms_install(tree, "550.54.15", "6.8.0-31-generic")
    # built for a third kernel but never installed: no link, so not counted
    (tree / "550.54.15" / "6.8.0-35-generic" / "x86_64" / "module").mkdir(parents=True)
    # a link left dangling by an unbuilt version is no install either
    os.symlink("570.86.10/6.8.0-40-generic/x86_64", tree / "kernel-6.8.0-40-generic-x86_64")
    facts, _ = probe_kernel(tmp_path)
    assert facts.nvidia_dkms_kernels == ("6.5.0-14-generic", "6.8.0-31-generic")


def test_dkms_tree_without_installs_is_an_empty_answer(tmp_path: Path) -> None:
    (tmp_path / "var/lib/dkms/nvidia/550.54.15/source").mkdir(parents=True)
    facts, _ = probe_kernel(tmp_path)
    assert facts.nvidia_dkms_kernels == ()
