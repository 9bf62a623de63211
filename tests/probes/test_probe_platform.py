"""platform.py: distribution, VM detection, WSL, container/k8s context, NVIDIA env, IOMMU."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.probes.platform import probe_iommu, probe_platform


def test_bare_metal_host(scenario) -> None:
    facts, issues = probe_platform(scenario("healthy-multi-gpu"), {})
    assert issues == []
    assert (facts.os_id, facts.os_version, facts.os_pretty) == (
        "ubuntu",
        "22.04",
        "Ubuntu 22.04.4 LTS",
    )
    assert facts.hypervisor_flag is False
    assert facts.virtualization == "none"
    assert (facts.dmi_vendor, facts.dmi_product) == ("Supermicro", "SYS-821GE-TNHR")
    assert facts.wsl is False
    assert facts.container is None
    assert facts.kubernetes is False
    assert facts.python_version
    assert facts.machine


def test_hostname_is_redacted_unless_asked(scenario) -> None:
    root = scenario("healthy-multi-gpu")
    assert probe_platform(root, {})[0].hostname is None
    assert probe_platform(root, {}, redact=False)[0].hostname == "gpu-node-17"


def test_cloud_vm_guest_named_by_dmi(scenario) -> None:
    facts, _ = probe_platform(scenario("vm-guest-open"), {})
    assert facts.hypervisor_flag is True
    assert facts.virtualization == "google"


def test_wsl(scenario) -> None:
    facts, _ = probe_platform(scenario("wsl"), {})
    assert facts.wsl is True
    assert facts.virtualization == "other"  # hypervisor bit, no DMI: a VM we cannot name


def test_container_in_kubernetes_pod(scenario) -> None:
    env = {
        "KUBERNETES_SERVICE_HOST": "10.96.0.1",
        "NVIDIA_VISIBLE_DEVICES": "GPU-4a3b2c1d",
        "NVIDIA_DRIVER_CAPABILITIES": "compute,utility",
        "CUDA_VISIBLE_DEVICES": "0",
    }
    facts, _ = probe_platform(scenario("container-k8s"), env)
    assert facts.container == "containerd"  # from PID 1's cgroup (kubepods)
    assert facts.kubernetes is True
    assert facts.nvidia_visible_devices == "GPU-4a3b2c1d"
    assert facts.nvidia_driver_capabilities == "compute,utility"
    assert facts.cuda_visible_devices == "0"
    # The service-account mount alone also says "pod", when the env was scrubbed.
    assert probe_platform(scenario("container-k8s"), {})[0].kubernetes is True


@pytest.mark.parametrize(
    ("marker", "content", "expected"),
    [
        (".dockerenv", "", "docker"),
        ("run/.containerenv", "", "podman"),
        ("run/systemd/container", "lxc\n", "lxc"),
        ("proc/1/cgroup", "12:pids:/docker/0123abcd\n", "docker"),
        ("proc/1/cgroup", "0::/init.scope\n", None),
    ],
)
def test_container_markers(tmp_path: Path, marker: str, content: str, expected: str | None) -> None:
    (tmp_path / marker).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / marker).write_text(content)
    assert probe_platform(tmp_path, {})[0].container == expected


def _dmi_root(tmp_path: Path, vendor: str, product: str, hypervisor: bool | None) -> Path:
    dmi = tmp_path / "sys/class/dmi/id"
    dmi.mkdir(parents=True)
    (dmi / "sys_vendor").write_text(vendor + "\n")
    (dmi / "product_name").write_text(product + "\n")
    if hypervisor is not None:
        flags = "fpu sse2" + (" hypervisor" if hypervisor else "")
        (tmp_path / "proc").mkdir()
        (tmp_path / "proc/cpuinfo").write_text(f"processor\t: 0\nflags\t\t: {flags}\n")
    return tmp_path


@pytest.mark.parametrize(
    ("vendor", "product", "hypervisor", "expected"),
    [
        ("QEMU", "Standard PC (Q35 + ICH9, 2009)", True, "qemu"),
        ("VMware, Inc.", "VMware Virtual Platform", True, "vmware"),
        ("Microsoft Corporation", "Virtual Machine", True, "microsoft"),
        ("Xen", "HVM domU", True, "xen"),
        ("Amazon EC2", "g5.xlarge", True, "amazon"),
        ("Amazon EC2", "p4d.metal", None, "none"),  # EC2 bare metal: DMI says Amazon, no VM
        ("innotek GmbH", "VirtualBox", True, "oracle"),
        ("Google", "Google Compute Engine", True, "google"),
        ("OpenStack Foundation", "OpenStack Nova", True, "kvm"),
        ("Oracle Corporation", "ORACLE SERVER X9-2", False, "none"),  # a real server
        ("Dell Inc.", "PowerEdge R760", False, "none"),
        ("Dell Inc.", "PowerEdge R760", None, None),  # no cpuinfo flags: cannot tell
        ("Unknown", "Unknown", True, "other"),
    ],
)
def test_virtualization_vendor_table(
    tmp_path: Path, vendor: str, product: str, hypervisor: bool | None, expected: str | None
) -> None:
    root = _dmi_root(tmp_path, vendor, product, hypervisor)
    assert probe_platform(root, {})[0].virtualization == expected


def test_iommu_on_intel_passthrough_host(scenario) -> None:
    iommu = probe_iommu(scenario("vfio-passthrough-host"))
    assert iommu.enabled is True
    assert iommu.vendor == "intel"
    assert iommu.group_count == 5
    assert iommu.default_domain == "identity"  # iommu=pt; VFIO-owned groups are "unmanaged"
    assert iommu.cmdline_flags == ("intel_iommu=on", "iommu=pt")


def test_iommu_translated_on_sriov_host(scenario) -> None:
    iommu = probe_iommu(scenario("sriov-vfs"))
    assert (iommu.enabled, iommu.group_count, iommu.default_domain) == (True, 3, "DMA-FQ")


def test_iommu_absent(scenario, tmp_path: Path) -> None:
    assert probe_iommu(scenario("healthy-multi-gpu")).enabled is None  # nothing to read
    (tmp_path / "sys/class/iommu").mkdir(parents=True)
    (tmp_path / "sys/kernel/iommu_groups").mkdir(parents=True)
    off = probe_iommu(tmp_path)
    assert (off.enabled, off.vendor, off.group_count) == (False, None, 0)


def test_amd_iommu(tmp_path: Path) -> None:
    (tmp_path / "sys/class/iommu/ivhd0").mkdir(parents=True)
    (tmp_path / "proc").mkdir()
    (tmp_path / "proc/cmdline").write_text("ro amd_iommu=on iommu.passthrough=1 quiet\n")
    iommu = probe_iommu(tmp_path)
    assert (iommu.enabled, iommu.vendor) == (True, "amd")
    assert iommu.cmdline_flags == ("amd_iommu=on", "iommu.passthrough=1")


def test_missing_os_release_is_an_issue(tmp_path: Path) -> None:
    facts, issues = probe_platform(tmp_path, {})
    assert facts.os_id is None
    # An empty root has no /proc/cpuinfo either: both are recorded.
    assert [(i.probe, i.code) for i in issues] == [
        ("platform", "os-release-missing"),
        ("platform", "cpu-unreadable"),
    ]
