"""One host's verdict in the Prometheus text exposition format: `check --format prometheus` and
the `/metrics` of `gpudoctor serve`.

The text is written by prometheus_client (the ecosystem's own writer, imported only here and only
when a report is rendered: start-up budget), through one `CollectorRegistry` per run, never the
process-wide default, so two runs or two threads never share or leak series.
It also suits node-exporter's textfile collector (the file is replaced atomically by
`gpudoctor.cli.common.write_output`), so: no sample timestamps (the collector refuses them),
every family always has its HELP and TYPE lines (stable for `docs/ci.md` and alert rules), and an
unknown value is an absent sample, never a sentinel number (Prometheus' convention for "unknown").

Every family is a gauge. Check results follow the state-set pattern (kube-state-metrics'
`kube_pod_status_phase`): each (code, subject) has one sample per severity, 1 for the one it has,
so `gpudoctor_check_status{severity="error"} == 1` selects failures and no series vanishes when a
check recovers. Format reference: https://prometheus.io/docs/instrumenting/exposition_formats/
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from gpudoctor.facts import GpuFacts, HostFacts
from gpudoctor.findings import Finding, Severity
from gpudoctor.safe_text import printable_lines

Labels = tuple[tuple[str, str], ...]
Sample = tuple[Labels, float]

GPU_LABELS = ("gpu", "name")
# Clock-event reasons NVML can report (facts.GpuFacts.clock_event_reasons); each GPU gets a 0/1
# sample for every one of them so that a reason clearing shows as 0 rather than a missing series.
CLOCK_EVENT_REASONS = (
    "applications_clocks_setting",
    "display_clock_setting",
    "gpu_idle",
    "hw_power_brake_slowdown",
    "hw_slowdown",
    "hw_thermal_slowdown",
    "sw_power_cap",
    "sw_thermal_slowdown",
    "sync_boost",
)
SEVERITIES = tuple(sorted(Severity, key=lambda s: s.rank, reverse=True))


@dataclass(frozen=True)
class Metric:
    """One metric family: the catalogue behind the output, `docs/ci.md` and the alert tests."""

    name: str
    help: str
    labels: tuple[str, ...] = ()


METRICS: tuple[Metric, ...] = (
    Metric("gpudoctor_build_info", "The gpudoctor that wrote this file; always 1.", ("version",)),
    Metric(
        "gpudoctor_last_run_timestamp_seconds",
        "Unix time at which this check ran; alert when it grows old (the loop stopped).",
    ),
    Metric(
        "gpudoctor_facts_collected_timestamp_seconds",
        "Unix time at which the host facts were collected (older than the run with --from).",
    ),
    Metric(
        "gpudoctor_check_exit_code",
        "Exit code of the check: 0 ok, 1 a check failed, 2 bad input, 3 environment, 5 a check "
        "crashed.",
    ),
    Metric(
        "gpudoctor_check_status",
        "1 for the severity a check concluded for a subject, 0 for the other severities.",
        ("code", "subject", "area", "severity"),
    ),
    Metric(
        "gpudoctor_check_severity",
        "Severity rank of a check for a subject: 0 n/a, 1 ok, 2 info, 3 unknown, 4 warn, 5 error.",
        ("code", "subject", "area"),
    ),
    Metric("gpudoctor_findings", "Number of findings of each severity.", ("severity",)),
    Metric("gpudoctor_probe_issues", "Facts a probe could not read, per probe.", ("probe",)),
    Metric(
        "gpudoctor_driver_info",
        "NVIDIA driver, the CUDA version it supports, and NVML's init status; always 1.",
        ("driver_version", "cuda_driver_version", "kernel_module_version", "nvml_status"),
    ),
    Metric("gpudoctor_gpus", "GPUs NVML reports."),
    Metric("gpudoctor_pci_gpus", "NVIDIA GPUs on the PCI bus; more than gpudoctor_gpus = lost."),
    Metric(
        "gpudoctor_gpu_info",
        "One GPU's identity; always 1.",
        (*GPU_LABELS, "pci_bus_id", "compute_capability", "architecture", "uuid"),
    ),
    Metric("gpudoctor_gpu_lost", "1 when NVML lost the GPU (fallen off the bus).", GPU_LABELS),
    Metric("gpudoctor_gpu_memory_total_bytes", "Total GPU memory.", GPU_LABELS),
    Metric("gpudoctor_gpu_mig_mode", "Current MIG mode: 1 enabled, 0 disabled.", GPU_LABELS),
    Metric(
        "gpudoctor_gpu_mig_mode_pending",
        "MIG mode after the next GPU reset; differs from gpudoctor_gpu_mig_mode = reset due.",
        GPU_LABELS,
    ),
    Metric("gpudoctor_gpu_mig_devices", "MIG devices (instances) configured.", GPU_LABELS),
    Metric("gpudoctor_gpu_ecc_mode", "Current ECC mode: 1 enabled, 0 disabled.", GPU_LABELS),
    Metric("gpudoctor_gpu_ecc_mode_pending", "ECC mode after the next reboot.", GPU_LABELS),
    Metric(
        "gpudoctor_gpu_ecc_errors_uncorrected_volatile",
        "Uncorrected ECC errors since the driver loaded.",
        GPU_LABELS,
    ),
    Metric(
        "gpudoctor_gpu_retired_pages_pending",
        "1 when retired memory pages wait for a GPU reset.",
        GPU_LABELS,
    ),
    Metric("gpudoctor_gpu_retired_pages", "Memory pages retired so far.", GPU_LABELS),
    Metric(
        "gpudoctor_gpu_remapped_rows_pending",
        "1 when remapped memory rows wait for a GPU reset.",
        GPU_LABELS,
    ),
    Metric(
        "gpudoctor_gpu_remapped_rows_failure",
        "1 when a row remapping failed (the GPU needs service).",
        GPU_LABELS,
    ),
    Metric("gpudoctor_gpu_persistence_mode", "Persistence mode: 1 on, 0 off.", GPU_LABELS),
    Metric(
        "gpudoctor_gpu_pcie_link_width_ratio",
        "Current PCIe link width over the maximum; below 1 = a degraded link.",
        GPU_LABELS,
    ),
    Metric(
        "gpudoctor_gpu_pcie_link_gen_ratio",
        "Current PCIe generation over the maximum; idle GPUs drop it to save power.",
        GPU_LABELS,
    ),
    Metric(
        "gpudoctor_gpu_clock_event_active",
        "1 when a clock-event (throttle) reason is active.",
        (*GPU_LABELS, "reason"),
    ),
    Metric(
        "gpudoctor_gpu_nvlink_link_up",
        "1 when the NVLink is active, 0 when it is down.",
        (*GPU_LABELS, "link"),
    ),
    Metric("gpudoctor_gpu_nvlink_links_active", "Active NVLinks of the GPU.", GPU_LABELS),
    Metric(
        "gpudoctor_gpu_nvlink_errors",
        "NVLink errors of the GPU since the driver loaded, summed over its links.",
        (*GPU_LABELS, "counter"),
    ),
    Metric(
        "gpudoctor_gpu_fabric_state",
        "1 for the GPU's NVLink fabric registration state (fabric manager), 0 for the others.",
        (*GPU_LABELS, "state"),
    ),
    Metric(
        "gpudoctor_gpu_fabric_status",
        "NVML return code of the fabric registration: 0 success.",
        GPU_LABELS,
    ),
    Metric(
        "gpudoctor_xid_events",
        "XID lines in the kernel log since boot, per XID (absent when the log is unreadable).",
        ("xid",),
    ),
    Metric(
        "gpudoctor_ib_port_active",
        "1 when the InfiniBand/RoCE port is ACTIVE.",
        ("device", "port", "link_layer"),
    ),
)
FABRIC_STATES = ("completed", "in_progress", "not_started", "not_supported")
NVLINK_COUNTERS = ("crc_data", "crc_flit", "recovery", "replay")
METRIC_NAMES = frozenset(m.name for m in METRICS)


def render_prometheus(
    facts: HostFacts,
    findings: Sequence[Finding],
    *,
    exit_code: int,
    now: float | None = None,
) -> str:
    """The exposition text for one host; `now` (Unix time) defaults to the current time."""
    samples: dict[str, list[Sample]] = {m.name: [] for m in METRICS}
    _run_samples(samples, facts, exit_code, time.time() if now is None else now)
    _finding_samples(samples, findings)
    _host_samples(samples, facts)
    for gpu in facts.nvml.gpus:
        _gpu_samples(samples, gpu)
        _link_samples(samples, gpu)
    _interconnect_samples(samples, facts)
    return exposition((metric, samples[metric.name]) for metric in METRICS)


def _run_samples(
    samples: dict[str, list[Sample]], facts: HostFacts, exit_code: int, now: float
) -> None:
    samples["gpudoctor_build_info"].append(((("version", facts.tool_version),), 1))
    samples["gpudoctor_last_run_timestamp_seconds"].append(((), now))
    collected = _timestamp(facts.collected_at)
    if collected is not None:
        samples["gpudoctor_facts_collected_timestamp_seconds"].append(((), collected))
    samples["gpudoctor_check_exit_code"].append(((), exit_code))
    probes: dict[str, int] = {}
    for issue in facts.issues:
        probes[issue.probe] = probes.get(issue.probe, 0) + 1
    for probe in sorted(probes):
        samples["gpudoctor_probe_issues"].append(((("probe", probe),), probes[probe]))


def _finding_samples(samples: dict[str, list[Sample]], findings: Sequence[Finding]) -> None:
    # Two findings with one code and subject would be duplicate series, which Prometheus refuses
    # for the whole scrape: keep the worst of them.
    worst: dict[tuple[str, str], Finding] = {}
    for f in findings:
        key = (f.code, f.subject)
        if key not in worst or f.severity.rank > worst[key].severity.rank:
            worst[key] = f
    for (code, subject), f in sorted(worst.items()):
        base = (("code", code), ("subject", subject), ("area", f.area))
        samples["gpudoctor_check_severity"].append((base, f.severity.rank))
        for severity in SEVERITIES:
            value = 1 if severity is f.severity else 0
            samples["gpudoctor_check_status"].append(((*base, ("severity", str(severity))), value))
    for severity in SEVERITIES:
        count = sum(1 for f in findings if f.severity is severity)
        samples["gpudoctor_findings"].append(((("severity", str(severity)),), count))


def _host_samples(samples: dict[str, list[Sample]], facts: HostFacts) -> None:
    nvml = facts.nvml
    info = (
        ("driver_version", nvml.driver_version or ""),
        ("cuda_driver_version", nvml.cuda_driver_version or ""),
        ("kernel_module_version", facts.kernel.nvidia_module_version or ""),
        ("nvml_status", nvml.status),
    )
    samples["gpudoctor_driver_info"].append((info, 1))
    count = nvml.device_count if nvml.device_count is not None else len(nvml.gpus)
    if nvml.status == "ok" or nvml.gpus:
        samples["gpudoctor_gpus"].append(((), count))
    pci_gpus = sum(1 for d in facts.kernel.pci_devices if d.kind == "gpu")
    samples["gpudoctor_pci_gpus"].append(((), pci_gpus))


def _gpu_samples(samples: dict[str, list[Sample]], gpu: GpuFacts) -> None:
    labels: Labels = (("gpu", str(gpu.index)), ("name", gpu.name or ""))
    identity = (
        ("pci_bus_id", gpu.pci_bus_id or ""),
        ("compute_capability", gpu.compute_capability or ""),
        ("architecture", gpu.architecture or ""),
        ("uuid", gpu.uuid or ""),
    )
    samples["gpudoctor_gpu_info"].append(((*labels, *identity), 1))
    samples["gpudoctor_gpu_lost"].append((labels, int(gpu.lost)))
    values: dict[str, float | bool | None] = {
        "gpudoctor_gpu_memory_total_bytes": gpu.memory_total_bytes,
        "gpudoctor_gpu_mig_mode": gpu.mig_mode_current,
        "gpudoctor_gpu_mig_mode_pending": gpu.mig_mode_pending,
        "gpudoctor_gpu_mig_devices": len(gpu.mig_devices) if gpu.mig_mode_current else None,
        "gpudoctor_gpu_ecc_mode": gpu.ecc_mode_current,
        "gpudoctor_gpu_ecc_mode_pending": gpu.ecc_mode_pending,
        "gpudoctor_gpu_ecc_errors_uncorrected_volatile": gpu.ecc_uncorrected_volatile,
        "gpudoctor_gpu_retired_pages_pending": gpu.retired_pages_pending,
        "gpudoctor_gpu_retired_pages": gpu.retired_pages_count,
        "gpudoctor_gpu_remapped_rows_pending": gpu.remapped_rows_pending,
        "gpudoctor_gpu_remapped_rows_failure": gpu.remapped_rows_failure,
        "gpudoctor_gpu_persistence_mode": gpu.persistence_mode,
        "gpudoctor_gpu_pcie_link_width_ratio": _ratio(
            gpu.pcie_link_width_current, gpu.pcie_link_width_max
        ),
        "gpudoctor_gpu_pcie_link_gen_ratio": _ratio(
            gpu.pcie_link_gen_current, gpu.pcie_link_gen_max
        ),
    }
    for name, value in values.items():
        if value is not None:
            samples[name].append((labels, as_float(value)))
    if gpu.clock_event_reasons is not None:
        active = set(gpu.clock_event_reasons)
        for reason in sorted(active.union(CLOCK_EVENT_REASONS)):
            sample = ((*labels, ("reason", reason)), int(reason in active))
            samples["gpudoctor_gpu_clock_event_active"].append(sample)


def _link_samples(samples: dict[str, list[Sample]], gpu: GpuFacts) -> None:
    labels: Labels = (("gpu", str(gpu.index)), ("name", gpu.name or ""))
    for link in gpu.nvlinks:
        if link.active is not None:
            sample = ((*labels, ("link", str(link.link))), int(link.active))
            samples["gpudoctor_gpu_nvlink_link_up"].append(sample)
    if gpu.nvlinks:
        active = sum(1 for link in gpu.nvlinks if link.active)
        samples["gpudoctor_gpu_nvlink_links_active"].append((labels, active))
        for counter in NVLINK_COUNTERS:
            values = [getattr(link, f"{counter}_errors") for link in gpu.nvlinks]
            known = [v for v in values if v is not None]
            if known:
                sample = ((*labels, ("counter", counter)), sum(known))
                samples["gpudoctor_gpu_nvlink_errors"].append(sample)
    fabric = gpu.fabric
    if fabric is not None and fabric.state is not None:
        for state in sorted({fabric.state, *FABRIC_STATES}):
            sample = ((*labels, ("state", state)), int(state == fabric.state))
            samples["gpudoctor_gpu_fabric_state"].append(sample)
        if fabric.status is not None:
            samples["gpudoctor_gpu_fabric_status"].append((labels, fabric.status))


def _interconnect_samples(samples: dict[str, list[Sample]], facts: HostFacts) -> None:
    m = facts.multigpu
    if m.xid_readable:
        counts: dict[int, int] = {}
        for event in m.xid_events:
            counts[event.xid] = counts.get(event.xid, 0) + 1
        for xid in sorted(counts):
            samples["gpudoctor_xid_events"].append(((("xid", str(xid)),), counts[xid]))
    for port in m.ib_ports:
        labels = (
            ("device", port.device),
            ("port", str(port.port)),
            ("link_layer", port.link_layer or ""),
        )
        samples["gpudoctor_ib_port_active"].append((labels, int(port.state == "ACTIVE")))


def _ratio(current: int | None, maximum: int | None) -> float | None:
    if current is None or not maximum:
        return None
    return current / maximum


def _timestamp(iso: str) -> float | None:
    """ISO 8601 (`collected_at`) to Unix time; None when empty or unreadable."""
    try:
        return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp() if iso else None
    except ValueError:
        return None


def exposition(families: Iterable[tuple[Metric, Iterable[Sample]]]) -> str:
    """The exposition text of these families, in this order, written by prometheus_client from a
    registry made for this call."""
    from prometheus_client import CollectorRegistry, generate_latest
    from prometheus_client.core import GaugeMetricFamily

    built = []
    for metric, found in families:
        family = GaugeMetricFamily(metric.name, metric.help, labels=metric.labels)
        for labels, value in found:
            family.add_metric([label_value(v) for _, v in labels], as_float(value))
        built.append(family)
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Families(built))
    return generate_latest(registry).decode("utf-8")


class _Families:
    """A collector that yields families built beforehand (prometheus_client's Collector shape)."""

    def __init__(self, families: list[Any]) -> None:
        self._families = families

    def collect(self) -> Iterator[Any]:
        return iter(self._families)


def label_value(value: str) -> str:
    """A label value prometheus_client can write on one line: it escapes backslash, double quote
    and line feed (the three escapes the format defines); every other control character (a raw
    CR ends the line for some parsers) is shown as `?`, as in every other report."""
    return printable_lines(value)


def as_float(value: float) -> float:
    """float(value), with integers too large for a float as +/-Inf instead of OverflowError."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def metric_reference_markdown(metrics: Iterable[Metric] = METRICS) -> str:
    """The metric table of docs/ci.md (and of serve's own, docs/kubernetes.md; tests keep them
    equal)."""
    rows = ["| metric | labels | meaning |", "| --- | --- | --- |"]
    for m in metrics:
        labels = ", ".join(f"`{label}`" for label in m.labels) or "-"
        rows.append(f"| `{m.name}` | {labels} | {m.help} |")
    return "\n".join(rows) + "\n"
