"""Named hosts for the fleet tests, built from the real facts and finding dataclasses."""

from __future__ import annotations

from dataclasses import replace

from gpudoctor.facts import (
    DeviceNode,
    GpuFacts,
    HostFacts,
    KernelFacts,
    MigDevice,
    NvmlFacts,
    PciDevice,
    PlatformFacts,
    ProbeIssue,
)
from gpudoctor.findings import Finding, Severity

GIB = 1024**3


def h100(index: int, **changes: object) -> GpuFacts:
    fields: dict[str, object] = {
        "index": index,
        "name": "NVIDIA H100 80GB HBM3",
        "pci_bus_id": f"0000:{0x18 + index:02x}:00.0",
        "memory_total_bytes": 80 * GIB,
        "compute_capability": "9.0",
        "architecture": "hopper",
        "mig_mode_current": False,
        "mig_mode_pending": False,
        "ecc_mode_current": True,
        "ecc_mode_pending": True,
        "ecc_uncorrected_volatile": 0,
        "retired_pages_pending": False,
        "retired_pages_count": 0,
        "remapped_rows_pending": False,
        "remapped_rows_failure": False,
        "persistence_mode": True,
        "pcie_link_gen_current": 5,
        "pcie_link_gen_max": 5,
        "pcie_link_width_current": 16,
        "pcie_link_width_max": 16,
        "clock_event_reasons": ("gpu_idle",),
    }
    fields.update(changes)
    return GpuFacts(**fields)  # type: ignore[arg-type]


def pci_gpu(index: int) -> PciDevice:
    return PciDevice(
        address=f"0000:{0x18 + index:02x}:00.0",
        vendor_id="0x10de",
        device_id="0x2330",
        kind="gpu",
        driver="nvidia",
    )


def device_nodes(count: int) -> tuple[DeviceNode, ...]:
    paths = ["/dev/nvidiactl", "/dev/nvidia-uvm", *(f"/dev/nvidia{i}" for i in range(count))]
    return tuple(DeviceNode(path, readable=True, writable=True) for path in paths)


def host(gpus: tuple[GpuFacts, ...], *, pci: int | None = None, **nvml: object) -> HostFacts:
    nvml_fields: dict[str, object] = {
        "status": "ok",
        "driver_version": "550.90.07",
        "cuda_driver_version": "12.4",
        "device_count": len(gpus),
        "gpus": gpus,
    }
    nvml_fields.update(nvml)
    count = len(gpus) if pci is None else pci
    return HostFacts(
        tool_version="0.1.0",
        collected_at="2025-01-02T03:04:05Z",
        platform=PlatformFacts(os_id="ubuntu", os_version="22.04"),
        kernel=KernelFacts(
            release="5.15.0-105-generic",
            nvidia_module_version="550.90.07",
            modules_loaded=("nvidia", "nvidia_uvm", "nvidia_modeset"),
            device_nodes=device_nodes(len(gpus)) if gpus else (),
            pci_devices=tuple(pci_gpu(i) for i in range(count)),
        ),
        nvml=NvmlFacts(**nvml_fields),  # type: ignore[arg-type]
    )


def healthy_host() -> HostFacts:
    return host(tuple(h100(i) for i in range(8)))


def degraded_host() -> HostFacts:
    """MIG enable pending on GPU 0, an x8 link on GPU 1, retired pages pending on GPU 2."""
    return host(
        (
            h100(0, mig_mode_pending=True, clock_event_reasons=("sw_power_cap", "hw_slowdown")),
            h100(1, pcie_link_width_current=8),
            h100(
                2,
                retired_pages_pending=True,
                retired_pages_count=3,
                mig_mode_current=True,
                mig_mode_pending=True,
                mig_devices=(MigDevice(index=0), MigDevice(index=1)),
            ),
            # What NVML could not tell stays unknown: no sample rather than a made-up 0.
            h100(3, ecc_mode_current=None, ecc_mode_pending=None, clock_event_reasons=None),
        )
    )


def no_driver_host() -> HostFacts:
    """One GPU on the PCI bus, no NVML: the library is missing."""
    issue = ProbeIssue("nvml", "nvml.status", "nvml-library-not-found", "libnvidia-ml.so.1")
    return replace(
        host((), pci=1),
        nvml=NvmlFacts(status="library_not_found", error="libnvidia-ml.so.1 not found"),
        issues=(issue,),
    )


def odd_names_host() -> HostFacts:
    """Label values that need every escape of the exposition format."""
    return host((h100(0, name='Weird "GPU" \\ model\nline two', uuid="GPU-\\x"),))


def finding(
    code: str, severity: Severity, subject: str = "", *, area: str = "gpu", fix: str = ""
) -> Finding:
    return Finding(
        code=code,
        severity=severity,
        area=area,
        title=f"{code} on {subject or 'the host'}",
        subject=subject,
        fix=fix,
    )


def degraded_findings() -> list[Finding]:
    return [
        finding("driver-ok", Severity.OK, area="driver"),
        finding("mig-mode-pending", Severity.ERROR, "GPU 0", fix="nvidia-smi -r -i 0"),
        finding("mig-mode-pending", Severity.ERROR, "GPU 2", fix="nvidia-smi -r -i 2"),
        finding("pcie-link-degraded", Severity.WARN, "GPU 1", fix="reseat the GPU"),
        finding("retired-pages-pending", Severity.ERROR, "GPU 2", fix="nvidia-smi -r -i 2"),
        finding("clock-events-active", Severity.INFO, "GPU 0"),
    ]
