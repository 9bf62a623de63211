"""Recorded HostFacts fixtures, one per kind of host, built from small Python builders.

    python tests/data/hosts/make_hosts.py      # rewrites tests/data/hosts/*.json

tests/checks/test_hosts.py fails when a JSON file differs from what this script builds. The values
follow real hosts (NVML names and versions as drivers report them, sysfs PCI ids); identifying
values (hostname, UUIDs, serials) are left out as in a redacted snapshot.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from gpudoctor.facts import (
    BundledLib,
    CdiSpec,
    ContainerDeviceFacts,
    ContainerRuntimeFacts,
    CpuFacts,
    CudaLibFacts,
    CudaToolkit,
    DeviceNode,
    FrameworkFacts,
    GpuFacts,
    HostFacts,
    IommuFacts,
    KernelFacts,
    LibraryFact,
    MigDevice,
    NumaNode,
    NvmlFacts,
    PciDevice,
    PlatformFacts,
    ProbeIssue,
    VgpuClientFacts,
    VgpuLicense,
)
from gpudoctor.facts_amd import AmdDeviceNode, AmdFacts, AmdPciGpu, KfdNode, gfx_name
from gpudoctor.facts_json import dumps
from gpudoctor.facts_multigpu import (
    EnvVar,
    FabricFacts,
    GpuLocality,
    GpuPairFacts,
    IbPort,
    MultiGpuFacts,
    NvLinkFacts,
    PciBridgeAcs,
    XidEvent,
)

HERE = Path(__file__).resolve().parent
GiB = 2**30
LOADED = ("nvidia", "nvidia_uvm", "nvidia_modeset", "nvidia_drm")

# name, PCI device id, memory bytes, compute capability, architecture
H100 = ("NVIDIA H100 80GB HBM3", "0x2330", 81559 * 2**20, "9.0", "hopper")
A100 = ("NVIDIA A100-SXM4-80GB", "0x20b2", 81920 * 2**20, "8.0", "ampere")
A100_PCIE = ("NVIDIA A100 80GB PCIe", "0x20b5", 81920 * 2**20, "8.0", "ampere")
B200 = ("NVIDIA B200", "0x2901", 183359 * 2**20, "10.0", "blackwell")
RTX3090 = ("NVIDIA GeForce RTX 3090", "0x2204", 24576 * 2**20, "8.6", "ampere")
RTX4090 = ("NVIDIA GeForce RTX 4090", "0x2684", 24564 * 2**20, "8.9", "ada")
RTX4070 = ("NVIDIA GeForce RTX 4070", "0x2786", 12282 * 2**20, "8.9", "ada")
RTX5090 = ("NVIDIA GeForce RTX 5090", "0x2b85", 32607 * 2**20, "12.0", "blackwell")
L4 = ("NVIDIA L4", "0x27b8", 23034 * 2**20, "8.9", "ada")
L40S = ("NVIDIA L40S", "0x26b9", 46068 * 2**20, "8.9", "ada")
A10G = ("NVIDIA A10G", "0x2237", 23028 * 2**20, "8.6", "ampere")
A6000 = ("NVIDIA RTX A6000", "0x2230", 49140 * 2**20, "8.6", "ampere")
GTX1080TI = ("NVIDIA GeForce GTX 1080 Ti", "0x1b06", 11264 * 2**20, "6.1", "pascal")
GH200 = ("NVIDIA GH200 480GB", "0x2342", 97871 * 2**20, "9.0", "hopper")
GB10 = ("NVIDIA GB10", "0x2e12", 0, "12.1", "blackwell")
A100_VGPU = ("GRID A100D-40C", "0x20b5", 40960 * 2**20, "8.0", "ampere")
P100 = ("Tesla P100-PCIE-16GB", "0x15f8", 16280 * 2**20, "6.0", "pascal")
V100 = ("Tesla V100-SXM2-32GB", "0x1db5", 32510 * 2**20, "7.0", "volta")


def bdf(i: int) -> str:
    return f"0000:{0x18 + 0x10 * i:02x}:00.0"


def pci(
    model: tuple[str, str, int, str, str],
    n: int,
    driver: str | None = "nvidia",
    width: int = 16,
    gen: int = 5,
) -> tuple[PciDevice, ...]:
    klass = "0x030000" if "GeForce" in model[0] or "RTX" in model[0] else "0x030200"
    return tuple(
        PciDevice(
            address=bdf(i),
            vendor_id="0x10de",
            device_id=model[1],
            class_code=klass,
            kind="gpu",
            driver=driver,
            iommu_group=20 + i,
            numa_node=i // 4,
            link_gen_current=gen,
            link_gen_max=gen,
            link_width_current=width,
            link_width_max=width,
        )
        for i in range(n)
    )


def gpus(model: tuple[str, str, int, str, str], n: int, **kw: object) -> tuple[GpuFacts, ...]:
    consumer = "GeForce" in model[0]
    base = GpuFacts(
        index=0,
        name=model[0],
        pci_device_id=model[1],
        memory_total_bytes=model[2],
        compute_capability=model[3],
        architecture=model[4],
        brand="geforce" if consumer else "nvidia",
        mig_mode_current=None if consumer or model[3] < "8.0" else False,
        mig_mode_pending=None if consumer or model[3] < "8.0" else False,
        ecc_mode_current=None if consumer else True,
        ecc_mode_pending=None if consumer else True,
        ecc_uncorrected_volatile=None if consumer else 0,
        retired_pages_pending=None if consumer or model[4] != "pascal" else False,
        remapped_rows_pending=None if consumer else False,
        remapped_rows_failure=None if consumer else False,
        persistence_mode=True,
        pcie_link_gen_current=5 if model[4] in ("hopper", "blackwell") else 4,
        pcie_link_gen_max=5 if model[4] in ("hopper", "blackwell") else 4,
        pcie_link_width_current=16,
        pcie_link_width_max=16,
        clock_event_reasons=("gpu_idle",),
        virtualization_mode="none",
        temperature_c=34,
        power_usage_w=72.0,
        power_limit_w=350.0,
    )
    return tuple(
        replace(base, index=i, pci_bus_id=bdf(i), minor_number=i, **kw)  # type: ignore[arg-type]
        for i in range(n)
    )


def nodes(n: int) -> tuple[DeviceNode, ...]:
    paths = ["/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset"]
    paths += [f"/dev/nvidia{i}" for i in range(n)]
    return tuple(DeviceNode(p, True, True) for p in sorted(paths))


def nvml(driver: str, cuda: str, gpu_facts: tuple[GpuFacts, ...], **kw: object) -> NvmlFacts:
    return replace(
        NvmlFacts(
            status="ok",
            library_path=f"/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.{driver}",
            library_version=driver,
            bindings_package="nvidia-ml-py",
            bindings_version="12.560.30",
            bindings_shadowed=False,
            driver_version=driver,
            cuda_driver_version=cuda,
            nvml_version=f"12.{driver}",
            device_count=len(gpu_facts),
            gpus=gpu_facts,
        ),
        **kw,  # type: ignore[arg-type]
    )


def platform(**kw: object) -> PlatformFacts:
    base = PlatformFacts(
        os_id="ubuntu",
        os_version="22.04",
        os_pretty="Ubuntu 22.04.4 LTS",
        machine="x86_64",
        python_version="3.11.9",
        virtualization="none",
        hypervisor_flag=False,
        dmi_vendor="Supermicro",
        dmi_product="SYS-821GE-TNHR",
        wsl=False,
        kubernetes=False,
        iommu=IommuFacts(
            enabled=True,
            vendor="intel",
            group_count=212,
            default_domain="identity",
            cmdline_flags=("intel_iommu=on", "iommu=pt"),
        ),
    )
    return replace(base, **kw)  # type: ignore[arg-type]


def kernel(
    module: str | None,
    pci_devices: tuple[PciDevice, ...],
    n_nodes: int,
    modules: tuple[str, ...] = LOADED,
    **kw: object,
) -> KernelFacts:
    return replace(
        KernelFacts(
            release="5.15.0-119-generic",
            cmdline="BOOT_IMAGE=/vmlinuz-5.15.0-119-generic root=/dev/sda1 ro intel_iommu=on "
            "iommu=pt",
            nvidia_module_version=module,
            nvidia_module_flavor="open" if module else None,
            modules_loaded=modules if module else tuple(m for m in modules if "nvidia" not in m),
            nouveau_blacklisted=True,
            device_nodes=nodes(n_nodes) if module else (),
            pci_devices=pci_devices,
        ),
        **kw,  # type: ignore[arg-type]
    )


DOCKER = ContainerRuntimeFacts(
    docker_reachable=True,
    docker_version="27.3.1",
    runtimes=("io.containerd.runc.v2", "nvidia", "runc"),
    default_runtime="runc",
    daemon_json_runtimes=("nvidia",),
    cdi_spec_files=("/etc/cdi/nvidia.yaml",),
    cdi_nvidia_devices=("nvidia.com/gpu=all",),
    toolkit_tools=("nvidia-container-cli", "nvidia-container-runtime", "nvidia-ctk"),
    toolkit_version="1.16.2",
)
NO_DOCKER = ContainerRuntimeFacts(docker_reachable=False)


def torch(version: str, cuda: str | None, cudnn: str | None = None) -> FrameworkFacts:
    bundled = (BundledLib("nvidia-cudnn-cu12", cudnn),) if cudnn else ()
    if cuda:
        bundled += (BundledLib("nvidia-cuda-runtime-cu12", f"{cuda}.127"),)
    return FrameworkFacts(
        name="torch",
        version=version,
        location="/opt/venv/lib/python3.11/site-packages/torch",
        cuda=cuda,
        cpu_only=cuda is None,
        cudnn=cudnn,
        bundled=tuple(sorted(bundled, key=str)),
    )


def toolkit(version: str) -> CudaLibFacts:
    mm = ".".join(version.split(".")[:2])
    return CudaLibFacts(toolkits=(CudaToolkit(f"/usr/local/cuda-{mm}", version, version),))


def host(**kw: object) -> HostFacts:
    base = HostFacts(tool_version="0.1.0", collected_at="2025-06-02T09:30:00+00:00")
    return replace(base, **kw)  # type: ignore[arg-type]


def healthy(
    model: tuple[str, str, int, str, str] = H100,
    n: int = 8,
    driver: str = "550.90.07",
    cuda: str = "12.4",
    **kw: object,
) -> HostFacts:
    gen = 5 if model[4] in ("hopper", "blackwell") else 4
    # the open kernel modules drive Turing and later; older GPUs run the proprietary flavor
    flavor = "proprietary" if model[4] in ("maxwell", "pascal", "volta") else "open"
    values: dict[str, object] = {
        "platform": platform(),
        "kernel": kernel(driver, pci(model, n, gen=gen), n, nvidia_module_flavor=flavor),
        "nvml": nvml(driver, cuda, gpus(model, n)),
        "container_runtime": DOCKER,
        "cuda_libs": toolkit("12.4.131"),
        "frameworks": (torch("2.5.1+cu124", "12.4", "9.1.0.70"),),
    }
    values.update(kw)
    return host(**values)


def h100_8x_healthy() -> HostFacts:
    """Bare-metal 8x H100, driver 550, torch cu124, Docker with the NVIDIA runtime: all good."""
    return healthy()


def h100_8x_driver_560() -> HostFacts:
    """The same host type on driver 560 and torch 2.6 cu126."""
    return healthy(
        driver="560.35.03",
        cuda="12.6",
        cuda_libs=toolkit("12.6.77"),
        frameworks=(torch("2.6.0+cu126", "12.6", "9.5.1.17"),),
    )


def a100_mig_pending() -> HostFacts:
    """4x A100: GPU 0 in MIG with instances, GPU 1 MIG change pending; nvidia_drm loaded.
    torch and tensorflow share one env; torch's cuDNN 9 wheel broke tensorflow 2.15 (cuDNN 8.9)."""
    base = gpus(A100, 4)
    mig = tuple(
        MigDevice(
            i,
            name="NVIDIA A100-SXM4-80GB MIG 3g.40gb",
            gpu_instance_id=i + 1,
            compute_instance_id=0,
            memory_total_bytes=40 * GiB,
            multiprocessor_count=42,
        )
        for i in range(2)
    )
    g = (
        replace(base[0], mig_mode_current=True, mig_mode_pending=True, mig_devices=mig),
        replace(base[1], mig_mode_pending=True),
        *base[2:],
    )
    tf = FrameworkFacts(
        name="tensorflow",
        version="2.15.1",
        cuda="12.2",
        cpu_only=False,
        cudnn="9.1.0.70",
        bundled=(BundledLib("nvidia-cudnn-cu12", "9.1.0.70"),),
    )
    return healthy(
        A100,
        4,
        "535.183.01",
        "12.2",
        nvml=nvml("535.183.01", "12.2", g),
        frameworks=(torch("2.4.1+cu121", "12.1", "9.1.0.70"), tf),
    )


def driver_too_old() -> HostFacts:
    """RTX 3090 workstation on driver 470 (CUDA 11.4) with torch 2.5.1+cu124 and CUDA 12.4 nvcc."""
    return healthy(
        RTX3090,
        1,
        "470.256.02",
        "11.4",
        platform=platform(
            dmi_vendor="ASUS", dmi_product="System Product Name", iommu=IommuFacts(enabled=False)
        ),
        container_runtime=NO_DOCKER,
    )


def minor_version_compat() -> HostFacts:
    """Cloud VM with an L4 on driver 535 (CUDA 12.2) running torch cu124 (fine by minor compat)."""
    p = platform(
        virtualization="kvm",
        hypervisor_flag=True,
        dmi_vendor="Google",
        dmi_product="Google Compute Engine",
        iommu=IommuFacts(enabled=False),
    )
    g = gpus(L4, 1, power_limit_w=72.0)
    return healthy(
        L4,
        1,
        "535.183.01",
        "12.2",
        platform=p,
        nvml=nvml("535.183.01", "12.2", g),
        cuda_libs=toolkit("12.6.77"),
        container_runtime=NO_DOCKER,
    )


def b200_torch25_no_sm100() -> HostFacts:
    """8x B200 (compute capability 10.0) with torch 2.5.1+cu124, which has no sm_100 kernels."""
    return healthy(B200, 8, "570.124.06", "12.8", cuda_libs=toolkit("12.8.93"))


def rtx5090_torch26() -> HostFacts:
    """RTX 5090 (12.0) desktop with torch 2.6.0+cu126: no sm_120 kernels."""
    return healthy(
        RTX5090,
        1,
        "570.133.07",
        "12.8",
        container_runtime=NO_DOCKER,
        platform=platform(dmi_vendor="Micro-Star International Co., Ltd.", dmi_product="MS-7E12"),
        frameworks=(torch("2.6.0+cu126", "12.6", "9.5.1.17"),),
    )


def cpu_torch_on_gpu() -> HostFacts:
    """RTX 4090 workstation where `pip install torch` picked the CPU-only build."""
    return healthy(
        RTX4090,
        1,
        "560.35.03",
        "12.6",
        container_runtime=NO_DOCKER,
        frameworks=(torch("2.4.1+cpu", None),),
    )


def pci_no_driver() -> HostFacts:
    """Fresh AWS g5 VM: an A10G on the PCI bus, no driver installed."""
    issue = ProbeIssue(
        "nvml",
        "nvml",
        "nvml-library-not-found",
        "libnvidia-ml.so.1: cannot open shared object file",
    )
    return host(
        platform=platform(
            virtualization="amazon",
            hypervisor_flag=True,
            dmi_vendor="Amazon EC2",
            dmi_product="g5.xlarge",
            iommu=IommuFacts(enabled=False),
        ),
        kernel=kernel(None, pci(A10G, 1, driver=None, gen=4), 0),
        nvml=NvmlFacts(status="library_not_found", error="NVML Shared Library Not Found"),
        container_runtime=NO_DOCKER,
        issues=(issue,),
    )


def nouveau_bound() -> HostFacts:
    """Desktop with a GTX 1080 Ti driven by nouveau; the NVIDIA packages are installed."""
    return host(
        platform=platform(
            dmi_vendor="Gigabyte Technology Co., Ltd.",
            dmi_product="Z390 AORUS",
            iommu=IommuFacts(enabled=False),
        ),
        kernel=kernel(
            None,
            pci(GTX1080TI, 1, driver="nouveau", gen=3),
            0,
            modules=("nouveau", "drm_kms_helper"),
            nouveau_blacklisted=False,
        ),
        nvml=NvmlFacts(
            status="driver_not_loaded",
            error="Driver Not Loaded",
            library_path="/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.120",
            library_version="550.120",
        ),
        container_runtime=NO_DOCKER,
        frameworks=(torch("2.5.1+cu124", "12.4", "9.1.0.70"),),
    )


def driver_library_mismatch() -> HostFacts:
    """2x L40S after an unattended upgrade: module 550.90.07 loaded, library 550.127.05."""
    return host(
        platform=platform(),
        kernel=kernel("550.90.07", pci(L40S, 2, gen=4), 2),
        nvml=NvmlFacts(
            status="lib_rm_version_mismatch",
            error="Driver/library version mismatch",
            library_path="/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.127.05",
            library_version="550.127.05",
            bindings_package="nvidia-ml-py",
            bindings_version="12.560.30",
            bindings_shadowed=False,
        ),
        container_runtime=DOCKER,
        cuda_libs=toolkit("12.4.131"),
        frameworks=(torch("2.5.1+cu124", "12.4", "9.1.0.70"),),
    )


def kvm_host_vfio_iommu_off() -> HostFacts:
    """A KVM hypervisor with 2 A100 PCIe bound to vfio-pci for passthrough, IOMMU never enabled."""
    return host(
        platform=platform(iommu=IommuFacts(enabled=False, cmdline_flags=())),
        kernel=kernel(
            None,
            pci(A100_PCIE, 2, driver="vfio-pci", gen=4),
            0,
            modules=("vfio_pci", "vfio_iommu_type1", "kvm_intel"),
        ),
        nvml=NvmlFacts(status="library_not_found", error="NVML Shared Library Not Found"),
        container_runtime=NO_DOCKER,
    )


def vm_passthrough_guest() -> HostFacts:
    """A KVM guest with one whole A100 passed through."""
    p = platform(
        virtualization="kvm",
        hypervisor_flag=True,
        dmi_vendor="QEMU",
        dmi_product="Standard PC (Q35 + ICH9, 2009)",
        iommu=IommuFacts(enabled=False),
    )
    g = gpus(A100_PCIE, 1, virtualization_mode="passthrough")
    return healthy(
        A100_PCIE,
        1,
        "550.90.07",
        "12.4",
        platform=p,
        nvml=nvml("550.90.07", "12.4", g),
        container_runtime=NO_DOCKER,
    )


def _vgpu(
    driver: str = "550.90.07",
    cuda: str = "12.4",
    *,
    licence: VgpuLicense | None,
    client: VgpuClientFacts,
    host_manager: str | None = None,
) -> HostFacts:
    """A VMware guest with an A100 vGPU profile (A100D-40C). No vGPU guest was available to
    record: the licence follows nvidia-smi's "vGPU Software Licensed Product" block, the host's
    vGPU Manager the vGPU's PCI vendor capability."""
    p = platform(
        virtualization="vmware",
        hypervisor_flag=True,
        dmi_vendor="VMware, Inc.",
        dmi_product="VMware7,1",
        iommu=IommuFacts(enabled=False),
        vgpu_client=client,
    )
    g = gpus(
        A100_VGPU,
        1,
        virtualization_mode="vgpu",
        mig_mode_current=None,
        mig_mode_pending=None,
        persistence_mode=True,
        pcie_link_width_current=None,
        pcie_link_width_max=None,
        pcie_link_gen_current=None,
        pcie_link_gen_max=None,
        vgpu_license=licence,
    )
    devices = tuple(
        replace(d, vgpu_host_driver_version=host_manager, vgpu_host_driver_branch=None)
        for d in pci(A100_VGPU, 1, gen=4)
    )
    return healthy(
        A100_VGPU,
        1,
        driver,
        cuda,
        platform=p,
        kernel=kernel(driver, devices, 1),
        nvml=nvml(driver, cuda, g),
        container_runtime=NO_DOCKER,
    )


VCS = "NVIDIA Virtual Compute Server"
GRIDD = VgpuClientFacts(gridd="/usr/bin/nvidia-gridd", tokens=1, gridd_conf=True)


def vgpu_guest() -> HostFacts:
    """Licensed until after the snapshot; the host's vGPU Manager is not visible (non-root)."""
    return _vgpu(licence=VgpuLicense("licensed", VCS, "2026-07-07T16:01:44Z"), client=GRIDD)


def vgpu_guest_unlicensed() -> HostFacts:
    """Restricted (unlicensed past its grace), no licence client installed; R580 on R580."""
    return _vgpu(
        "580.65.06",
        "13.0",
        licence=VgpuLicense("unlicensed_restricted", VCS),
        client=VgpuClientFacts(gridd="", tokens=0, gridd_conf=False),
        host_manager="580.65.05",
    )


def vgpu_guest_expired() -> HostFacts:
    """An R535 (vGPU 16) guest on an R580 (vGPU 19) manager, licence lease expired."""
    return _vgpu(
        "535.230.02",
        "12.2",
        licence=VgpuLicense("licensed", VCS, "2025-05-31T11:32:22Z"),
        client=GRIDD,
        host_manager="580.65.05",
    )


def vgpu_guest_host_older() -> HostFacts:
    """An R580 (vGPU 19) guest on an R535 (vGPU 16) manager: not a supported combination."""
    return _vgpu(
        "580.65.06",
        "13.0",
        licence=VgpuLicense("licensed", VCS, "permanent"),
        client=GRIDD,
        host_manager="535.230.01",
    )


def docker_systemd_no_dev_char() -> HostFacts:
    """Docker with the systemd cgroup driver and the NVIDIA runtime's hook (mode auto), and no
    /dev/char links for the NVIDIA nodes (NVIDIA's notice, nvidia-container-toolkit #48)."""
    devices = ContainerDeviceFacts(
        cgroup_version=2,
        docker_cgroup_driver="systemd",
        runtime_mode="auto",
        dev_char_missing=("/dev/nvidia-uvm", "/dev/nvidia0", "/dev/nvidiactl"),
    )
    return healthy(H100, 1, container_runtime=replace(DOCKER, devices=devices))


def cdi_spec_stale() -> HostFacts:
    """A CDI spec generated for 550.54.15 (its libraries since removed) naming MIG device 0:1,
    on a host now running 550.90.07 with MIG off."""
    spec = CdiSpec(
        path="/etc/cdi/nvidia.yaml",
        driver_version="550.54.15",
        libraries=(
            "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15",
            "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.15",
        ),
        libraries_missing=(
            "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15",
            "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.15",
        ),
        devices=("0", "0:1", "all"),
    )
    devices = ContainerDeviceFacts(
        cgroup_version=2,
        docker_cgroup_driver="cgroupfs",
        runtime_mode="cdi",
        dev_char_missing=(),
        cdi_specs=(spec,),
    )
    return healthy(H100, 1, container_runtime=replace(DOCKER, devices=devices))


def cgroup_v2_old_toolkit() -> HostFacts:
    """A cgroup v2 host with NVIDIA Container Toolkit 1.7.0 (before cgroup v2 support)."""
    devices = ContainerDeviceFacts(
        cgroup_version=2, docker_cgroup_driver="cgroupfs", runtime_mode="legacy"
    )
    runtime = replace(DOCKER, toolkit_version="1.7.0", devices=devices)
    return healthy(H100, 1, container_runtime=runtime)


def pcie_degraded() -> HostFacts:
    """2x A100 PCIe; GPU 1 trained at x8 (a riser problem) and both idle at Gen1."""
    base = gpus(A100_PCIE, 2, pcie_link_gen_current=1)
    g = (base[0], replace(base[1], pcie_link_width_current=8))
    return healthy(A100_PCIE, 2, nvml=nvml("550.90.07", "12.4", g))


def memory_repair_pending() -> HostFacts:
    """2x A100: GPU 0 has remapped rows waiting for a reset, GPU 1 ran out of spare rows."""
    base = gpus(A100, 2, ecc_uncorrected_volatile=0)
    g = (
        replace(base[0], remapped_rows_pending=True, ecc_uncorrected_volatile=2),
        replace(base[1], remapped_rows_failure=True),
    )
    return healthy(
        A100,
        2,
        "535.183.01",
        "12.2",
        nvml=nvml("535.183.01", "12.2", g),
        frameworks=(torch("2.3.1+cu121", "12.1", "8.9.2.26"),),
    )


def docker_without_nvidia_runtime() -> HostFacts:
    """Driver fine, Docker installed from docker.com, no container toolkit."""
    r = ContainerRuntimeFacts(
        docker_reachable=True,
        docker_version="27.3.1",
        runtimes=("io.containerd.runc.v2", "runc"),
        default_runtime="runc",
    )
    return healthy(L40S, 2, container_runtime=r, frameworks=())


def no_gpu_toolkit_only() -> HostFacts:
    """A CPU-only CI runner (this project's own kind): CUDA 13.0 toolkit, no GPU, no driver."""
    issue = ProbeIssue(
        "nvml",
        "nvml",
        "nvml-library-not-found",
        "libnvidia-ml.so.1: cannot open shared object file",
    )
    return host(
        platform=platform(
            os_id="debian",
            os_version="12",
            os_pretty="Debian GNU/Linux 12 (bookworm)",
            virtualization="kvm",
            hypervisor_flag=True,
            dmi_vendor="QEMU",
            dmi_product="Standard PC (i440FX + PIIX, 1996)",
            iommu=IommuFacts(enabled=False),
        ),
        kernel=KernelFacts(release="6.1.0-25-amd64", modules_loaded=()),
        nvml=NvmlFacts(status="library_not_found", error="NVML Shared Library Not Found"),
        container_runtime=NO_DOCKER,
        cuda_libs=toolkit("13.0.88"),
        issues=(issue,),
    )


def wsl2() -> HostFacts:
    """WSL 2 on a Windows laptop with an RTX 4070 (Windows driver 560.94, CUDA 12.6)."""
    p = platform(
        virtualization="microsoft",
        hypervisor_flag=True,
        wsl=True,
        dmi_vendor=None,
        dmi_product=None,
        iommu=IommuFacts(),
    )
    g = gpus(RTX4070, 1, persistence_mode=None)
    return host(
        platform=p,
        kernel=KernelFacts(release="5.15.153.1-microsoft-standard-WSL2"),
        nvml=nvml(
            "560.94",
            "12.6",
            g,
            library_path="/usr/lib/wsl/lib/libnvidia-ml.so.1",
            library_version=None,
        ),
        container_runtime=NO_DOCKER,
        cuda_libs=CudaLibFacts(libcuda=(LibraryFact("libcuda", "/usr/lib/wsl/lib/libcuda.so.1"),)),
        frameworks=(torch("2.5.1+cu124", "12.4", "9.1.0.70"),),
    )


def thermal_throttling() -> HostFacts:
    """4x RTX A6000 in a closed case: hardware and software thermal slowdown on two GPUs."""
    base = gpus(A6000, 4, power_limit_w=300.0, persistence_mode=False)
    hot = ("hw_thermal_slowdown", "sw_thermal_slowdown")
    g = (
        replace(base[0], clock_event_reasons=hot, temperature_c=93),
        replace(base[1], clock_event_reasons=("sw_thermal_slowdown",), temperature_c=88),
        *base[2:],
    )
    return healthy(A6000, 4, "550.90.07", "12.4", nvml=nvml("550.90.07", "12.4", g))


def container_without_gpus() -> HostFacts:
    """A Docker container started without --gpus on a GPU host (sysfs still shows the GPUs)."""
    p = platform(container="docker", nvidia_visible_devices=None, iommu=IommuFacts())
    return host(
        platform=p,
        kernel=KernelFacts(release="5.15.0-119-generic", pci_devices=pci(H100, 8)),
        nvml=NvmlFacts(status="library_not_found", error="NVML Shared Library Not Found"),
        frameworks=(torch("2.5.1+cu124", "12.4", "9.1.0.70"),),
    )


def gpu_lost() -> HostFacts:
    """8x A100 where GPU 5 fell off the bus (NVML GPU_IS_LOST)."""
    base = gpus(A100, 8)
    lost = GpuFacts(index=5, pci_bus_id=bdf(5), lost=True, error="GPU is lost")
    g = (*base[:5], lost, *base[6:])
    return healthy(A100, 8, "550.90.07", "12.4", nvml=nvml("550.90.07", "12.4", g))


def gh200_torch_cpu_wheel() -> HostFacts:
    """GH200 (Grace + Hopper, aarch64) on driver 550.54.15, where `pip install torch==2.2.2` took
    PyPI's aarch64 wheel: a CPU-only build. GPU memory is onlined as a CPU-less NUMA node."""
    grace = CpuFacts(
        model="Neoverse-V2",
        implementer="0x41",
        parts=("0xd4f",),
        numa_nodes=(NumaNode(0, 72, 480 * GiB), NumaNode(1, 0, 96 * GiB)),
        gpu_memory_coherent=True,
    )
    return healthy(
        GH200,
        1,
        "550.54.15",
        "12.4",
        nvml=nvml("550.54.15", "12.4", gpus(GH200, 1, addressing_mode="ats")),
        platform=platform(machine="aarch64", dmi_vendor=None, dmi_product=None, cpu=grace),
        cuda_libs=CudaLibFacts(),
        frameworks=(torch("2.2.2", None),),
    )


def jetson_orin_sbsa_wheel() -> HostFacts:
    """Jetson AGX Orin on JetPack 5.1.2 (L4T R35.4.1): no NVML (not part of L4T) and no GPU on
    the PCI bus; torch 2.5.1+cu124 from download.pytorch.org, a server-Arm (SBSA) build."""
    return host(
        nvml=NvmlFacts(status="library_not_found", error="libnvidia-ml.so.1: not found"),
        platform=platform(
            os_version="20.04",
            os_pretty="Ubuntu 20.04.6 LTS",
            machine="aarch64",
            python_version="3.8.10",
            dmi_vendor=None,
            dmi_product=None,
            iommu=IommuFacts(),
            l4t_release="35.4.1",
        ),
        kernel=kernel(None, (), 0, release="5.10.120-tegra", cmdline="root=/dev/mmcblk0p1 rw"),
        container_runtime=NO_DOCKER,
        frameworks=(torch("2.5.1+cu124", "12.4", "9.1.0.70"),),
    )


def dgx_spark() -> HostFacts:
    """DGX Spark: GB10 (compute capability 12.1) with 20 Arm cores and one unified memory pool,
    driver 580, torch 2.11.0 from PyPI (its aarch64 wheel brings CUDA 13.0)."""
    gb10 = CpuFacts(
        model="Cortex-X925 + Cortex-A725",
        implementer="0x41",
        parts=("0xd85", "0xd87"),
        numa_nodes=(NumaNode(0, 20, 119 * GiB),),
    )
    return healthy(
        GB10,
        1,
        "580.95.05",
        "13.0",
        nvml=nvml("580.95.05", "13.0", gpus(GB10, 1, memory_total_bytes=None)),
        platform=platform(
            os_version="24.04",
            os_pretty="Ubuntu 24.04.3 LTS",
            machine="aarch64",
            cpu=gb10,
            dmi_vendor="NVIDIA",
            dmi_product="DGX Spark",
        ),
        cuda_libs=toolkit("13.0.88"),
        frameworks=(torch("2.11.0", "13.0"),),
    )


# --- multi-GPU hosts ----------------------------------------------------------------------------

NVSWITCHES = tuple(f"0000:0{5 + n}:00.0" for n in range(4))


def nvlinks(n: int = 18, down: tuple[int, ...] = (), crc: dict[int, int] | None = None
            ) -> tuple[NvLinkFacts, ...]:  # fmt: skip
    """An HGX H100 GPU's 18 NVLink 4.0 links, each to one of the four NVSwitches."""
    out = []
    for link in range(n):
        if link in down:
            out.append(NvLinkFacts(link=link, active=False, version="4.0"))
            continue
        out.append(
            NvLinkFacts(
                link=link,
                active=True,
                version="4.0",
                remote_type="switch",
                remote_pci_bus_id=NVSWITCHES[link % 4],
                replay_errors=0,
                recovery_errors=0,
                crc_flit_errors=(crc or {}).get(link, 0),
                crc_data_errors=0,
            )
        )
    return tuple(out)


def pairs(n: int, topology: Callable[[int, int], str], nvlink: bool, p2p: str = "ok"
          ) -> tuple[GpuPairFacts, ...]:  # fmt: skip
    return tuple(
        GpuPairFacts(
            a, b, topology(a, b), p2p, p2p, "ok" if nvlink else "not_supported",
            p2p if nvlink else "not_supported",
        )
        for a in range(n)
        for b in range(a + 1, n)
    )  # fmt: skip


def socket_level(a: int, b: int) -> str:
    return "node" if a // 4 == b // 4 else "system"


SOCKET_CPUS = ("0-55,112-167", "56-111,168-223")


def hgx_multigpu(**kw: object) -> MultiGpuFacts:
    base = MultiGpuFacts(
        collected=True,
        gpus=tuple(
            GpuLocality(bdf(i), i // 4, SOCKET_CPUS[i // 4], 20 + i, "identity") for i in range(8)
        ),
        nvswitch_count=4,
        acs=tuple(
            PciBridgeAcs(f"0000:{0x17 + 0x10 * i:02x}:00.0", bdf(i), True, 0x11, False)
            for i in range(8)
        ),
        ib_ports=tuple(
            IbPort(f"mlx5_{n}", 1, "ACTIVE", "LinkUp", "400 Gb/sec (4X NDR)", "InfiniBand")
            for n in range(8)
        ),
        net_interfaces=("eno1", "ib0", "ib1", "ib2", "ib3", "ib4", "ib5", "ib6", "ib7", "lo"),
        shm_bytes=1007 * GiB,
        memlock_unlimited=True,
        nccl_env=(EnvVar("NCCL_SOCKET_IFNAME", "eno1"),),
        xid_readable=True,
    )
    return replace(base, **kw)  # type: ignore[arg-type]


def hgx(gpu_facts: tuple[GpuFacts, ...] | None = None, **kw: object) -> HostFacts:
    """An HGX H100 8-GPU node: four NVSwitches, eight 400G NDR HCAs, torch with its NCCL."""
    linked = gpu_facts or gpus(H100, 8, nvlinks=nvlinks(), fabric=FabricFacts("completed", 0, 0))
    switches = tuple(
        PciDevice(address=a, vendor_id="0x10de", device_id="0x22a3", class_code="0x068000",
                  kind="nvswitch", driver="nvidia")
        for a in NVSWITCHES
    )  # fmt: skip
    fw = torch("2.5.1+cu124", "12.4", "9.1.0.70")
    fw = replace(fw, bundled=(*fw.bundled, BundledLib("nvidia-nccl-cu12", "2.21.5")))
    values: dict[str, object] = {
        "kernel": kernel(
            "550.90.07", pci(H100, 8) + switches, 8, modules=(*LOADED, "nvidia_peermem")
        ),
        "nvml": nvml("550.90.07", "12.4", linked, pairs=pairs(8, socket_level, nvlink=True)),
        "frameworks": (fw,),
        "multigpu": hgx_multigpu(),
    }
    values.update(kw)
    return healthy(**values)


def hgx_h100_healthy() -> HostFacts:
    """HGX H100: every NVLink up, fabric manager done, P2P everywhere, 8 IB ports active."""
    return hgx()


def hgx_h100_fabric_manager_down() -> HostFacts:
    """The same node after a driver upgrade without nvidia-fabricmanager: fabric not started
    (CUDA error 802), and the kernel log shows the job's XID 13 and an XID 79 on GPU 5."""
    g = gpus(H100, 8, nvlinks=nvlinks(), fabric=FabricFacts("not_started", 0, 0))
    events = (
        XidEvent(13, bdf(3), 86400.12, "Graphics SM Warp Exception on (GPC 1, TPC 0, SM 0)"),
        XidEvent(79, bdf(5), 90000.0, "GPU has fallen off the bus."),
    )
    return hgx(g, multigpu=hgx_multigpu(xid_events=events))


def hgx_h100_link_degraded() -> HostFacts:
    """HGX H100 with NVLink 7 of GPU 3 down and link 2 of GPU 5 counting CRC errors; the job
    environment disables P2P; one HCA port is down."""
    base = gpus(H100, 8, nvlinks=nvlinks(), fabric=FabricFacts("completed", 0, 0))
    g = (
        *base[:3],
        replace(base[3], nvlinks=nvlinks(down=(7,))),
        base[4],
        replace(base[5], nvlinks=nvlinks(crc={2: 4211})),
        *base[6:],
    )
    ports = hgx_multigpu().ib_ports
    down = replace(ports[7], state="DOWN", phys_state="Polling", rate="10 Gb/sec (4X SDR)")
    m = hgx_multigpu(
        ib_ports=(*ports[:7], down),
        nccl_env=(EnvVar("NCCL_P2P_DISABLE", "1"), EnvVar("NCCL_SOCKET_IFNAME", "eth0")),
    )
    return hgx(g, multigpu=m)


def pcie_4x_acs_on() -> HostFacts:
    """4x L40S behind one PCIe switch with ACS P2P redirect on, inside Docker with the default
    64 MiB /dev/shm: NVML reports P2P blocked below the switch; the IOMMU translates DMA."""
    g = gpus(L40S, 4)
    m = MultiGpuFacts(
        collected=True,
        gpus=tuple(GpuLocality(bdf(i), 0, "0-31", 30 + i, "DMA-FQ") for i in range(4)),
        nvswitch_count=0,
        acs=(
            PciBridgeAcs("0000:01:00.0", bdf(0), True, 0x1D, True),
            *(PciBridgeAcs(f"0000:02:{8 + i:02x}.0", bdf(i), True, 0x1D, True) for i in range(4)),
        ),
        net_interfaces=("eth0", "lo"),
        shm_bytes=64 * 2**20,
        memlock_bytes=8 * 2**20,
        memlock_unlimited=False,
        xid_readable=False,
        xid_unreadable_reason="reading /dev/kmsg needs root or CAP_SYSLOG "
        "(kernel.dmesg_restrict=1); run as root, or look with `sudo dmesg | grep Xid`",
    )
    p = platform(container="docker", dmi_product="SYS-740GP-TNRT")
    return healthy(
        L40S,
        4,
        platform=p,
        nvml=nvml("550.90.07", "12.4", g, pairs=pairs(4, lambda a, b: "multiple", False,
                                                         "topology_not_supported")),
        multigpu=m,
    )  # fmt: skip


def a100_8x_r535() -> HostFacts:
    """8x A100 on the R535 LTS driver with torch 2.4.1 cu121: the most common fleet there is."""
    return healthy(
        A100,
        8,
        "535.104.05",
        "12.2",
        cuda_libs=toolkit("12.2.140"),
        frameworks=(torch("2.4.1+cu121", "12.1", "9.1.0.70"),),
    )


def pascal_geforce_r535() -> HostFacts:
    """GeForce GTX 1080 Ti (Pascal, 6.1) desktop on R535 with torch 2.1.2 cu121."""
    return healthy(
        GTX1080TI,
        1,
        "535.183.01",
        "12.2",
        container_runtime=NO_DOCKER,
        platform=platform(dmi_vendor="ASUS", dmi_product="PRIME Z370-A"),
        frameworks=(torch("2.1.2+cu121", "12.1", "8.9.2.26"),),
    )


def p100_r470() -> HostFacts:
    """4x Tesla P100 on the R470 LTS driver (CUDA 11.4), torch 1.13.1 cu117."""
    return healthy(
        P100,
        4,
        "470.256.02",
        "11.4",
        cuda_libs=toolkit("11.4.152"),
        frameworks=(torch("1.13.1+cu117", "11.7", "8.5.0.96"),),
    )


def v100_r550() -> HostFacts:
    """8x V100 (Volta, 7.0) on R550: CUDA 13 wheels dropped Volta."""
    return healthy(V100, 8, "550.127.05", "12.4")


def rtx5090_r570_86() -> HostFacts:
    """RTX 5090 on the first Blackwell driver 570.86.16, no framework yet."""
    return healthy(
        RTX5090,
        1,
        "570.86.16",
        "12.8",
        container_runtime=NO_DOCKER,
        frameworks=(),
    )


def h100_r580() -> HostFacts:
    """8x H100 on R580 (CUDA 13.0) with torch 2.14.1 cu130."""
    return healthy(
        driver="580.65.06",
        cuda="13.0",
        cuda_libs=toolkit("13.0.48"),
        frameworks=(torch("2.14.1+cu130", "13.0", "9.24.0.43"),),
    )


def cudnn_shadowed() -> HostFacts:
    """RTX 4090 workstation with an old cuDNN 9.0 folder on LD_LIBRARY_PATH ahead of torch's own
    nvidia-cudnn-cu12 9.1.0.70 wheel ("Could not load symbol cudnnGetLibConfig")."""
    libs = replace(
        toolkit("12.4.131"),
        ld_library_path_libs=(
            LibraryFact("libcudnn", "/opt/cudnn-9.0/lib/libcudnn.so.9.0.0", "9.0.0"),
        ),
    )
    return healthy(RTX4090, 1, "550.90.07", "12.4", container_runtime=NO_DOCKER, cuda_libs=libs)


# --- AMD hosts: the same layouts as the fake root trees of tests/support/amd_trees.py ----------

RENDER_GID = 110  # the `render` group of a stock Ubuntu install


def amd_gpus(
    addresses: tuple[str, ...],
    device: str,
    gfx: int,
    *,
    cpu_nodes: int = 2,
    revision: str = "0x00",
    first_card: int = 0,
    simd: int = 1216,
    ecc: bool = True,
    partition: str | None = None,
) -> tuple[tuple[AmdPciGpu, ...], tuple[KfdNode, ...]]:
    """DRM cards and KFD nodes (after `cpu_nodes` CPU nodes) of AMD GPUs at `addresses`; `ecc`:
    the card has RAS counters (Instinct), all zero."""
    count = 0 if ecc else None
    cards = tuple(
        AmdPciGpu(f"card{first_card + i}", a, device, revision, "amdgpu", count, count, partition)
        for i, a in enumerate(addresses)
    )
    # A CPU node prints its properties too: zero device id, location and render minor.
    cpus = tuple(KfdNode(n, 0, None, 0, 0, 0, 0) for n in range(cpu_nodes))
    nodes = cpus + tuple(
        KfdNode(
            node=cpu_nodes + i,
            gfx_target_version=gfx,
            gfx_target=gfx_name(gfx),
            device_id=int(device, 16),
            location_id=_location(a),
            drm_render_minor=128 + i,
            simd_count=simd,
        )
        for i, a in enumerate(addresses)
    )
    return cards, nodes


def _location(address: str) -> int:
    bus, devfn = address.split(":")[1:]
    device, function = devfn.split(".")
    return (int(bus, 16) << 8) | (int(device, 16) << 3) | int(function)


def amd_nodes(n: int, *, member: bool = True, kfd: bool = True) -> tuple[AmdDeviceNode, ...]:
    """/dev/kfd (absent when not `kfd`) and n render nodes, root:render 0660."""

    def node(path: str) -> AmdDeviceNode:
        return AmdDeviceNode(path, "0660", 0, RENDER_GID, "render", member)

    kfd_node = node("/dev/kfd") if kfd else AmdDeviceNode("/dev/kfd")
    return (kfd_node, *(node(f"/dev/dri/renderD{128 + i}") for i in range(n)))


def amd(cards_nodes: tuple[tuple[AmdPciGpu, ...], tuple[KfdNode, ...]], **kw: object) -> AmdFacts:
    cards, nodes = cards_nodes
    base = AmdFacts(
        pci_gpus=cards,
        kfd_present=True,
        kfd_nodes=nodes,
        amdgpu_loaded=True,
        amdgpu_version="6.10.5",
        rocm_path="/opt/rocm",
        rocm_version="6.3.1-48",
        rocm_installs=("/opt/rocm-6.3.1",),
        device_nodes=amd_nodes(len(cards)),
        user_uid=1000,
        user_groups=(44, 1000, RENDER_GID),
        amdsmi_status="not_installed",
        amdsmi_error="No module named 'amdsmi'",
    )
    return replace(base, **kw)  # type: ignore[arg-type]


def rocm_torch(version: str, hip: str) -> FrameworkFacts:
    return FrameworkFacts(
        name="torch",
        version=version,
        location="/opt/venv/lib/python3.11/site-packages/torch",
        cpu_only=False,
        hip=hip,
    )


MI300X_ADDRESSES = tuple(f"0000:{0x0C + 0x10 * i:02x}:00.0" for i in range(8))
MI250X_ADDRESSES = tuple(
    f"0000:{0x29 + 0x20 * c + die:02x}:00.0" for c in range(4) for die in range(2)
)
AMD_PLATFORM = {"dmi_vendor": "Supermicro", "dmi_product": "AS -8125GS-TNMR2"}


def amd_host(facts: AmdFacts, **kw: object) -> HostFacts:
    """An AMD-only host: no NVIDIA driver, NVML library absent."""
    values: dict[str, object] = {
        "platform": platform(
            iommu=IommuFacts(enabled=True, vendor="amd", group_count=96), **AMD_PLATFORM
        ),
        "kernel": KernelFacts(release="6.8.0-49-generic", modules_loaded=()),
        "nvml": NvmlFacts(status="library_not_found", error="NVML Shared Library Not Found"),
        "container_runtime": NO_DOCKER,
        "amd": facts,
    }
    values.update(kw)
    return host(**values)


def amd_mi300x_8x() -> HostFacts:
    """8x Instinct MI300X (gfx942) on ROCm 6.3.1 with torch 2.7.1+rocm6.3: a healthy node (the
    BMC's ASPEED VGA has a DRM card too, and is not an AMD GPU)."""
    gpus = amd_gpus(MI300X_ADDRESSES, "0x74a1", 90402, first_card=1, partition="SPX")
    docker = ContainerRuntimeFacts(
        docker_reachable=True,
        docker_version="27.3.1",
        runtimes=("amd", "io.containerd.runc.v2", "runc"),
        default_runtime="runc",
        daemon_json_runtimes=("amd",),
    )
    return amd_host(
        amd(gpus),
        container_runtime=docker,
        frameworks=(rocm_torch("2.7.1+rocm6.3", "6.3.42131-fa1d09cbd"),),
    )


def amd_mi250x_torch_cuda() -> HostFacts:
    """4x MI250X (two gfx90a dies each: 8 KFD nodes) on ROCm 6.2.4, where someone installed the
    CUDA torch from PyPI and set HSA_OVERRIDE_GFX_VERSION from a Radeon how-to."""
    gpus = amd_gpus(MI250X_ADDRESSES, "0x740c", 90010, revision="0x01", simd=440)
    facts = amd(
        gpus,
        amdgpu_version="6.8.5",
        rocm_version="6.2.4-120",
        rocm_installs=("/opt/rocm-6.2.4",),
        hsa_override_gfx_version="9.0.10",
    )
    docker = ContainerRuntimeFacts(
        docker_reachable=True,
        docker_version="26.1.3",
        runtimes=("io.containerd.runc.v2", "runc"),
        default_runtime="runc",
    )
    return amd_host(
        facts,
        container_runtime=docker,
        frameworks=(torch("2.5.1+cu124", "12.4", "9.1.0.70"),),
    )


def amd_rx7900xtx_workstation() -> HostFacts:
    """A Radeon RX 7900 XTX (gfx1100) desktop with the kernel's own amdgpu, torch
    2.5.1+rocm6.2 from pip, no /opt/rocm but an old /opt/rocm-6.1.0 on LD_LIBRARY_PATH, and a
    user who was never added to the render group."""
    gpus = amd_gpus(
        ("0000:03:00.0",), "0x744c", 110000, cpu_nodes=1, revision="0xc8", simd=192, ecc=False
    )
    facts = amd(
        gpus,
        amdgpu_version=None,
        rocm_path=None,
        rocm_version=None,
        rocm_installs=("/opt/rocm-6.1.0",),
        device_nodes=amd_nodes(1, member=False),
        user_groups=(4, 24, 27, 1000),
        ld_library_path_rocm=("/opt/rocm-6.1.0/lib",),
    )
    p = platform(
        os_version="24.04",
        os_pretty="Ubuntu 24.04.1 LTS",
        dmi_vendor="ASUS",
        dmi_product="System Product Name",
        iommu=IommuFacts(),
    )
    return amd_host(
        facts,
        platform=p,
        frameworks=(rocm_torch("2.5.1+rocm6.2", "6.2.41133-dd7f95766"),),
    )


def amd_container_without_kfd() -> HostFacts:
    """A Docker container on an MI300X node started with --device=/dev/dri only: sysfs shows
    the GPUs, /dev/kfd is missing."""
    gpus = amd_gpus(MI300X_ADDRESSES[:2], "0x74a1", 90402, partition="SPX")
    facts = amd(gpus, device_nodes=amd_nodes(2, kfd=False), user_uid=0, user_groups=(0,))
    p = platform(container="docker", iommu=IommuFacts(), **AMD_PLATFORM)
    return amd_host(
        facts, platform=p, frameworks=(rocm_torch("2.7.1+rocm6.3", "6.3.42131-fa1d09cbd"),)
    )


def nvidia_and_amd() -> HostFacts:
    """An RTX 4090 next to a Radeon RX 7800 XT (gfx1101) in one workstation: the NVIDIA side is
    healthy, torch 2.5.1+rocm6.2 has no gfx1101 kernels and ROCm 6.3 does not list gfx1101."""
    gpus = amd_gpus(
        ("0000:03:00.0",),
        "0x747e",
        110001,
        cpu_nodes=1,
        first_card=1,
        revision="0xc8",
        simd=120,
        ecc=False,
    )
    facts = amd(gpus)
    return healthy(
        RTX4090,
        1,
        "550.90.07",
        "12.4",
        container_runtime=NO_DOCKER,
        amd=facts,
        frameworks=(rocm_torch("2.5.1+rocm6.2", "6.2.41133-dd7f95766"),),
    )


def nvidia_with_ryzen_igpu() -> HostFacts:
    """An RTX 4090 workstation whose Ryzen 7000 CPU has an integrated Radeon (gfx1036) that the
    kernel's amdgpu and KFD list: no ROCm installed, the user outside the render group. A
    healthy NVIDIA host: the AMD side is information only."""
    gpus = amd_gpus(
        ("0000:7c:00.0",), "0x164e", 100306, cpu_nodes=1, revision="0xc1", simd=4, ecc=False
    )
    facts = amd(
        gpus,
        amdgpu_version=None,
        rocm_path=None,
        rocm_version=None,
        rocm_installs=(),
        device_nodes=amd_nodes(1, member=False),
        user_groups=(4, 24, 27, 1000),
    )
    return healthy(RTX4090, 1, "550.90.07", "12.4", container_runtime=DOCKER, amd=facts)


HOSTS: dict[str, Callable[[], HostFacts]] = {
    f.__name__.replace("_", "-"): f
    for f in (
        h100_8x_healthy,
        h100_8x_driver_560,
        a100_mig_pending,
        driver_too_old,
        minor_version_compat,
        b200_torch25_no_sm100,
        rtx5090_torch26,
        cpu_torch_on_gpu,
        pci_no_driver,
        nouveau_bound,
        driver_library_mismatch,
        kvm_host_vfio_iommu_off,
        vm_passthrough_guest,
        vgpu_guest,
        vgpu_guest_unlicensed,
        vgpu_guest_expired,
        vgpu_guest_host_older,
        docker_systemd_no_dev_char,
        cdi_spec_stale,
        cgroup_v2_old_toolkit,
        pcie_degraded,
        memory_repair_pending,
        docker_without_nvidia_runtime,
        no_gpu_toolkit_only,
        wsl2,
        thermal_throttling,
        container_without_gpus,
        gpu_lost,
        gh200_torch_cpu_wheel,
        jetson_orin_sbsa_wheel,
        dgx_spark,
        hgx_h100_healthy,
        hgx_h100_fabric_manager_down,
        hgx_h100_link_degraded,
        pcie_4x_acs_on,
        a100_8x_r535,
        pascal_geforce_r535,
        p100_r470,
        v100_r550,
        rtx5090_r570_86,
        h100_r580,
        cudnn_shadowed,
        amd_mi300x_8x,
        amd_mi250x_torch_cuda,
        amd_rx7900xtx_workstation,
        amd_container_without_kfd,
        nvidia_and_amd,
        nvidia_with_ryzen_igpu,
    )
}


def render_all() -> dict[str, str]:
    return {f"{name}.json": dumps(build()) for name, build in HOSTS.items()}


def main() -> None:
    for name, text in render_all().items():
        (HERE / name).write_text(text, encoding="utf-8")
    sys.stdout.write(f"wrote {len(HOSTS)} host snapshots to {HERE}\n")


if __name__ == "__main__":
    main()
