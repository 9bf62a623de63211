"""Pasted reports (`check --from report.txt`): what was read, and the error lines they show.

`check_report_read` says which sections were recognised, by line ranges, and what the report
could not tell; `check_report_errors` makes one finding per known error or log line, worded by
its entry of the signature catalogue (matrices/signatures.toml, loaded only when a report has
such lines) with the numbers the line states, and with the install command the compatibility
model builds for the host where the fix installs something. After all
checks ran, `link_error_lines` joins each error line to the fact-based findings that predict it:
the matching finding says "the report's error line matches", and the error-line finding becomes
info that names it, so the verdict is counted once, on the finding with the facts and the fix.
A symptom line (its entry says `symptom = true`: a pod crash-looping says that something failed,
not why) is an error only while no other error in the report names a cause (nor a Kubernetes
line that names one as a warning); so is a finding of SYMPTOM_CODES (a Kubernetes Warning event
nothing names) a warning.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from gpudoctor import versions
from gpudoctor.checks.base import Intent, finding
from gpudoctor.checks.jetson import (
    before_l4t_r36,
    discrete_host,
    jetson_install,
    jetson_release,
)
from gpudoctor.checks.k8s_sharing import other_gpu_resources
from gpudoctor.checks.line_readings import Line, reading
from gpudoctor.checks.suggest import install_for_package
from gpudoctor.facts_view import driver_version
from gpudoctor.findings import ERROR, INFO, OK, WARN, Finding
from gpudoctor.matrix.queries import arch_list_covers

if TYPE_CHECKING:
    from gpudoctor.facts import HostFacts, ReportFacts
    from gpudoctor.matrix.model import Matrix
    from gpudoctor.matrix.signatures import Signature

_PREDICTS = (ERROR, WARN)
# Findings that, like a symptom line, say something failed but not why: info next to an error
# that names a cause (a Kubernetes Warning event the catalogue does not know, checks/k8s_events).
SYMPTOM_CODES = frozenset({"k8s-warning-event"})
_SEVERITIES = {"error": ERROR, "warn": WARN, "info": INFO}


def check_report_read(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    report = facts.report
    if report is None:
        return []  # a live host or a snapshot: the area does not appear
    detail = "; ".join(report.notes)
    if report.unknown:
        detail += ("; " if detail else "") + "not in the report: " + ", ".join(report.unknown)
    where = read_ranges(report)
    return [
        finding(
            "report-read",
            INFO,
            f"read {', '.join(report.sections)} from {report.source}"
            + (f" ({where})" if where else ""),
            detail=detail,
            fix=_ask_for_more(report.sections) if report.unknown else "",
            evidence=[("sections", report.sections), ("source", report.source)],
        )
    ]


# The outputs worth asking a reporter for, each with the section names that already hold it.
_ASK = (
    ("`nvidia-smi`", ("nvidia-smi", "nvidia-smi -q", "nvidia-smi -q -x")),
    ("`python -m torch.utils.collect_env`", ("collect_env",)),
)


def _ask_for_more(sections: Sequence[str]) -> str:
    """Run gpudoctor there; or ask only for the outputs the report does not already hold."""
    missing = [what for what, names in _ASK if not set(names) & set(sections)]
    ask = f" (or ask for {' and '.join(missing)})" if missing else ""
    return f"for the rest, run `gpudoctor check` on that host{ask}"


def check_report_errors(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    report = facts.report
    if report is None:
        return []
    if not report.errors:
        return [finding("report-error", OK, "no known error line in the report")]
    from gpudoctor.matrix.signatures import load_signatures, render  # lazy: known lines only

    by_code = load_signatures().by_code
    out = []
    for error in report.errors:
        known = by_code.get(error.code)
        if known is None:  # a snapshot written with another catalogue: say what it holds
            out.append(
                finding(
                    "report-error",
                    ERROR,
                    f"the report shows: {error.text}",
                    detail=f"'{error.code}' is not in this gpudoctor's signature catalogue",
                    fix="read the line and the lines above it; upgrade gpudoctor",
                    evidence=[("line", error.line), ("error", error.code)],
                    subject=error.code,
                )
            )
            continue
        values = known.values(error.text)
        if known.install:
            values["install"] = _install(known, facts, matrix)
        notice = (
            _unused_fallback(known.code, facts, report)
            or _no_nvidia_gpu(known.code, facts)
            or _within_capability_range(known.code, values, facts)
            or _dkms_build_runs(known.code, facts)
            or _no_gpu_set_up(known.code, facts, report)
            or _cpu_conversion(known.code, facts, report)
            or _gpus_advertised_otherwise(known.code, facts)
            or _pod_asks_for_none(known.code, facts)
            or _node_full(known.code, facts)
            or _jetson_without_smi(known.code, facts)
            or _no_profiling_hardware(known.code, facts)
        )
        if notice is not None:
            out.append(
                finding(
                    "report-error",
                    INFO,
                    f"the report shows: {error.text}",
                    detail=f"{render(known.cause, values)}; {notice}",
                    evidence=[("line", error.line), ("error", known.code), ("layer", known.layer)],
                    subject=known.code,
                )
            )
            continue
        cause, fix = render(known.cause, values), render(known.fix, values)
        context = reading(Line(known.code, error.text, values), facts, matrix)
        if context is not None:
            own_cause, fix = context[1]
            cause = own_cause or cause
        severity = _SEVERITIES.get(known.severity, ERROR)
        expected = _profiling_hardware(known.code, facts, matrix)
        if expected is not None:
            severity, cause = WARN, f"{cause}; {expected}"
        out.append(
            finding(
                "report-error",
                severity,
                f"the report shows: {error.text}",
                detail=cause,
                fix=fix,
                evidence=[("line", error.line), ("error", known.code), ("layer", known.layer)],
                subject=known.code,
            )
        )
    return out


# A framework's own notice that it runs on the CPU: printed whenever that framework is merely
# imported (a dependency of a program that computes with another one), so it is a fault only
# where the report shows the framework in use.
_FALLBACK_NOTICES = {"jax-cpu-fallback": "jax", "jax-no-gpu-found": "jax"}


def _unused_fallback(code: str, facts: HostFacts, report: ReportFacts) -> str | None:
    framework = _FALLBACK_NOTICES.get(code)
    if framework is None:
        return None
    if framework in report.named or any(f.name == framework for f in facts.frameworks):
        return None
    return (
        f"the report names no use of {framework} beyond this line: the notice is harmless "
        f"where the program computes with another framework (install {framework}'s CUDA "
        "build only if you run it)"
    )


# Lines that only say the NVIDIA driver is absent: what any CUDA-capable program prints on a
# host without an NVIDIA GPU.
_DRIVER_ABSENT = frozenset(
    {
        "libcuda-not-found",
        "tf-no-cuda-drivers",
        "ngc-driver-not-detected",
        "torch-found-no-driver",
        "jax-cuda-no-visible-gpu",
    }
)
# Lines a CPU-only build prints (onnxruntime's provider list without a GPU provider): the build
# to use on a host without an NVIDIA GPU.
_CPU_BUILD = frozenset({"onnxruntime-cpu-providers"})
# Hosts a report names that have no NVIDIA GPU: the lines above are what they print.
_NO_NVIDIA = {
    "amd": "an AMD GPU",
    "apple": "a Mac (Apple silicon or macOS)",
    "cpu-only": "a machine or image without an NVIDIA GPU",
}


def _shows_gpu_or_driver(facts: HostFacts) -> bool:
    """Whether the report shows an NVIDIA GPU, a driver, or the PCI bus at all (where a GPU
    would be listed): the notices below hold only where it shows none of them."""
    return (
        bool(facts.nvml.gpus) or driver_version(facts) is not None or bool(facts.kernel.pci_devices)
    )


def _no_nvidia_gpu(code: str, facts: HostFacts) -> str | None:
    report = facts.report
    if (code not in _DRIVER_ABSENT and code not in _CPU_BUILD) or report is None:
        return None
    if "docker-build" in report.named and code in _DRIVER_ABSENT:
        return (
            "the report shows an image build, whose steps run without GPUs: the line is "
            "expected there, and says nothing of the containers started from the image"
        )
    named = next((what for word, what in _NO_NVIDIA.items() if word in report.named), None)
    if named is None:
        return None
    if _shows_gpu_or_driver(facts):
        return None
    if code in _CPU_BUILD:
        return (
            f"the report names {named} and no NVIDIA GPU or driver: a CPU build is the one to "
            "use there, and the line is expected"
        )
    return (
        f"the report names {named} and no NVIDIA GPU or driver: on a host without an NVIDIA "
        "GPU there is no NVIDIA driver or libcuda, and the line is expected"
    )


def _jetson_without_smi(code: str, facts: HostFacts) -> str | None:
    """nvidia-smi missing, or failing to reach a driver, on a Jetson of L4T R35 or older
    (JetPack 5 and before): NVML and the tools built on it are not part of those L4T releases
    (L4T R36, JetPack 6, ships an nvidia-smi for the integrated GPU), so an nvidia-smi found
    there is a discrete GPU driver's and has no nvidia module to talk to: the line is expected."""
    if code not in ("nvidia-smi-not-found", "nvidia-smi-no-driver"):
        return None
    release = jetson_release(facts)
    if release is None or not before_l4t_r36(facts):
        return None
    if release == "unknown":
        # a Jetson of a module older than Orin (Xavier, TX2, Nano), which no L4T after R35 runs
        release = "R35 or older (a module older than Orin)"
    if code == "nvidia-smi-no-driver":
        if discrete_host(facts):
            return None  # a dGPU on an L4T host (IGX): the nvidia module is its driver
        return (
            f"but the report is from a Jetson on L4T {release}: L4T R35 and older (JetPack 5 and "
            "before) have no NVML and no nvidia-smi for the integrated GPU, which the Jetson's "
            "own driver (nvgpu) runs, not the nvidia module; an nvidia-smi there comes from a "
            "discrete GPU driver's utilities package, so the line is expected and says nothing "
            "of the GPU; tegrastats or jtop show the integrated GPU"
        )
    return (
        f"the report is from a Jetson on L4T {release}: nvidia-smi is not part of L4T R35 and "
        "older (JetPack 5 and before), so the line is expected; tegrastats or jtop show the "
        "integrated GPU (a driver's nvidia-utils package, which Ubuntu may suggest, is for "
        "discrete GPUs and does not belong on a Jetson)"
    )


# DCGM's profiling (DCP) metrics exist on Volta and newer data-centre GPUs only (NVIDIA in
# dcgm-exporter#5): on older GPUs the exporter's note that it skips them is what it must say.
_PROFILING_FROM = "7.0"


def _no_profiling_hardware(code: str, facts: HostFacts) -> str | None:
    """dcgm-exporter skipping its DCP metrics, where every GPU the report names predates Volta."""
    if code != "dcgm-profiling-unavailable":
        return None
    ccs = [g.compute_capability for g in facts.nvml.gpus]
    known = [(cc, versions.release(cc)) for cc in ccs]
    older = [cc for cc, rel in known if cc and rel and rel < versions.numeric(_PROFILING_FROM)]
    if not ccs or len(older) != len(ccs):
        return None  # a GPU of unknown model, or one that has the metrics
    return (
        f"the report's GPUs (compute capability {', '.join(sorted(set(older)))}) predate Volta, "
        "and DCGM's profiling metrics need a Volta or newer data-centre GPU: the exporter skips "
        "them there as it should and exports the other metrics"
    )


def _profiling_hardware(code: str, facts: HostFacts, matrix: Matrix) -> str | None:
    """dcgm-exporter skipping its DCP metrics (a notice, harmless on GPUs without them) where
    every GPU the report names is a data-centre GPU of Volta or newer, which has them: there the
    image lacks DCGM's profiling module, a fault of the image (dcgm-exporter#449)."""
    if code != "dcgm-profiling-unavailable" or not facts.nvml.gpus:
        return None
    listed = [
        model.upper()
        for arch in matrix.architectures
        for model in arch.datacenter_gpus
        if not model.startswith("Jetson")  # an integrated GPU: no profiling module
    ]
    for gpu in facts.nvml.gpus:
        release = versions.release(gpu.compute_capability or "")
        name = (gpu.name or "").upper()
        if release is None or release < versions.numeric(_PROFILING_FROM):
            return None
        if not any(model in name for model in listed):
            return None
    return (
        "but the report's GPUs are data-centre GPUs of Volta or newer, which have the profiling "
        "metrics: the exporter's image lacks DCGM's profiling module"
    )


# TensorFlow's loader warnings for a CUDA library it could not open: the Linux sonames (also
# XLA's, under JAX) and the DLL names of TensorFlow 2.10 and older on native Windows.
_TF_DLOPEN_WARNINGS = frozenset({"xla-cuda-library-not-loaded", "tf-windows-cuda-dll-not-loaded"})


def _no_gpu_set_up(code: str, facts: HostFacts, report: ReportFacts) -> str | None:
    """TensorFlow's dlopen warnings, printed at import on every machine without CUDA: harmless
    on a report that shows no NVIDIA GPU or driver (nor a reporter saying the host has one) and
    either TensorFlow's own note that they are expected where no GPU is set up, or no CUDA
    install named at all."""
    if code not in _TF_DLOPEN_WARNINGS or "gpu-host" in report.named:
        return None  # the reporter says the host has a GPU meant for it
    if _shows_gpu_or_driver(facts):
        return None
    if any(e.code == "tf-cudart-stub-notice" for e in report.errors):
        return (
            "TensorFlow's own note follows it (expected where no GPU is set up), and the report "
            "shows no NVIDIA GPU or driver: TensorFlow runs on the CPU as intended"
        )
    if code == "tf-windows-cuda-dll-not-loaded" and "cuda" not in report.named:
        return (
            "the report shows no NVIDIA GPU, driver or CUDA install: TensorFlow prints this at "
            "import on any Windows machine without CUDA, and runs on the CPU"
        )
    return None


def _cpu_conversion(code: str, facts: HostFacts, report: ReportFacts) -> str | None:
    """CTranslate2's note that it converted a float16 model for a device without float16: what
    every CPU run of such a model prints, so a notice on a report with no sign of a GPU."""
    if code != "ctranslate2-compute-type-converted":
        return None
    if _shows_gpu_or_driver(facts):
        return None
    if "gpu-host" in report.named or "cuda" in report.named:
        return None
    return (
        "the report shows no NVIDIA GPU, driver or CUDA install: on the CPU this conversion is "
        "CTranslate2's normal behaviour"
    )


def _dkms_build_runs(code: str, facts: HostFacts) -> str | None:
    """A `dkms status` line of the NVIDIA module's build for one kernel is a fault only where the
    report shows the running kernel and no line builds the module for it."""
    if code != "dkms-nvidia-installed-for-kernel":
        return None
    release = facts.kernel.release
    if release is None:
        return (
            "the report does not show the running kernel (`uname -r`): the line is a fault only "
            "where that kernel has no such line"
        )
    if release in (facts.kernel.nvidia_dkms_kernels or ()):
        return (
            f"the running kernel {release} has its own build (a line of `dkms status` names it), "
            "so the module can load there"
        )
    return None


def _within_capability_range(code: str, values: dict[str, str], facts: HostFacts) -> str | None:
    """torch's range warning on GPUs its newest architecture's cubins run on: harmless."""
    if code != "torch-capability-range" or "min" not in values or "max" not in values:
        return None
    ccs = [g.compute_capability for g in facts.nvml.gpus if g.compute_capability]
    if not ccs:
        return None
    newest = "sm_" + values["max"].replace(".", "")
    covered = [arch_list_covers((newest,), cc) for cc in ccs]
    if not all(v.ok for v in covered) or any(
        versions.numeric(cc) < versions.numeric(values["min"]) for cc in ccs
    ):
        return None
    return (
        f"{'; '.join(v.reason for v in covered)}: the GPU is outside the printed range but runs "
        f"the build's {newest} kernels (CUDA binary compatibility), so the warning is harmless"
    )


def _pod_asks_for_none(code: str, facts: HostFacts) -> str | None:
    """nvidia.com/gpu: 0 that the cluster reader found under a pod's Limits/Requests (the report
    shows no node's Capacity/Allocatable): what the pod asks for, not what a node advertises.
    Such a pod gets no GPU from the device plugin; it may still see every GPU where nvidia is
    the node's default runtime, because the NVIDIA runtime also reads NVIDIA_VISIBLE_DEVICES
    from the image's environment (the CUDA images set `all`): container-toolkit docs, "Specialized
    Configurations with Docker" (void or unset: runc's behaviour), and the device plugin's
    volume-mounts device list strategy with the toolkit's
    accept-nvidia-visible-devices-envvar-when-unprivileged = false, which stop that."""
    p = facts.platform
    if code != "k8s-node-zero-gpus" or p.k8s_gpu_requested != 0:
        return None
    if p.k8s_gpu_capacity is not None or p.k8s_gpu_allocatable is not None:
        return None
    return (
        "not so here: the line is a pod's Limits/Requests, not a node's Capacity: the pod asks "
        "for no GPU, and the device plugin gives it none. If it still sees GPUs, nvidia is the "
        "node's default runtime and the image sets NVIDIA_VISIBLE_DEVICES (the CUDA images: all), "
        "which that runtime honours: set NVIDIA_VISIBLE_DEVICES=void in such pods, or run the "
        "device plugin with DEVICE_LIST_STRATEGY=volume-mounts and "
        "accept-nvidia-visible-devices-envvar-when-unprivileged = false in the toolkit's "
        "config.toml"
    )


def _node_full(code: str, facts: HostFacts) -> str | None:
    """ "Insufficient nvidia.com/gpu" beside a node whose running pods already request every
    GPU it advertises (its `kubectl describe node` Allocated resources against Allocatable): the
    scheduler places a pod only where the requests of the pods there plus its own fit the node's
    allocatable (Kubernetes docs, extended resources), so the pod waits for a GPU to be freed;
    the device plugin and the runtime are not at fault."""
    report = facts.report
    if code != "k8s-insufficient-gpu" or report is None or report.k8s_gpu_allocated is None:
        return None
    p = facts.platform
    allocatable = p.k8s_gpu_allocatable
    if allocatable is None:
        allocatable = p.k8s_gpu_capacity
    if not allocatable or report.k8s_gpu_allocated < allocatable:
        return None
    return (
        f"not a missing device plugin here: the node advertises {allocatable} nvidia.com/gpu and "
        f"the pods running on it already request {report.k8s_gpu_allocated} (Allocated "
        "resources), so a GPU pod waits until one of them ends or another GPU node has room; "
        "the scheduler fits requests, not use: to share a GPU between pods, configure the "
        "device plugin's time-slicing or MPS"
    )


def _gpus_advertised_otherwise(code: str, facts: HostFacts) -> str | None:
    """nvidia.com/gpu: 0 on a node that advertises its GPUs under another name: MIG devices
    (the mixed MIG strategy) or shared replicas (time-slicing or MPS with renameByDefault)."""
    report = facts.report
    if code != "k8s-node-zero-gpus" or report is None:
        return None
    p = facts.platform
    others = other_gpu_resources((*p.k8s_node_allocatable, *p.k8s_node_capacity))
    if "mig-devices" in report.named or any(n.startswith("nvidia.com/mig-") for n in others):
        return (
            "the node advertises MIG devices (nvidia.com/mig-<profile>): with the device "
            "plugin's mixed MIG strategy a GPU in MIG mode is offered by its MIG profiles, not as "
            "nvidia.com/gpu, so 0 there is expected when every GPU of the node is in MIG mode; a "
            "pod asks for a MIG device by its profile (k8s-device-plugin README, MIG strategies)"
        )
    if not others:
        return None
    return (
        f"the node advertises its GPUs as {', '.join(others)}: with time-slicing or MPS and "
        "renameByDefault the device plugin offers shared replicas under that name, not as "
        "nvidia.com/gpu, so 0 there is expected; a pod asks for the name the node advertises "
        "(k8s-device-plugin README, shared access to GPUs)"
    )


def read_ranges(report: ReportFacts) -> str:
    """ "collect_env lines 1-40, error lines 52, 77 of 90": what the paste's header says."""
    parts: dict[str, list[str]] = {}
    for r in report.ranges:
        parts.setdefault(r.section, []).append(
            str(r.first) if r.first == r.last else f"{r.first}-{r.last}"
        )
    if not parts:
        return ""
    shown = ", ".join(
        f"{name} line{'s' if len(spans) > 1 or '-' in spans[0] else ''} {', '.join(spans[:8])}"
        + (" ..." if len(spans) > 8 else "")
        for name, spans in parts.items()
    )
    return shown + (f" of {report.lines}" if report.lines else "")


def _install(known: Signature, facts: HostFacts, matrix: Matrix) -> str:
    """The install command of the build this host should run, from the compatibility model."""
    jetson = jetson_install(facts, known.install or "", matrix)
    if jetson is not None:
        return jetson  # PyPI's aarch64 CUDA wheels are server-Arm builds, not for a Jetson
    line = install_for_package(facts, matrix, known.install or "")
    if line and driver_version(facts) is None:
        return f"{line} (the report does not show the driver: check that it supports that CUDA)"
    if line:
        return line  # labelled lines (compat.choose.choices), like every other fix
    framework = "pytorch" if known.install == "torch" else known.install
    return (
        f"`gpudoctor matrix resolve --framework {framework} --from HOST.json` names the build "
        "once the host's driver and GPUs are known"
    )


def link_error_lines(findings: Sequence[Finding]) -> list[Finding]:
    """Join error-line findings to the findings that predict them (see the module docstring).

    A line can also be more specific than a finding from the facts (`explains`): an NVRM line
    that names the legacy branch a GPU needs says why the GPU has no driver bound, which the
    PCI facts alone cannot. Then the finding becomes info that names the line, and the error
    lines that finding predicted are explained by the line too. A line can explain another
    line the same way (its signature code in `explains`): "Open nvidia.ko is only ready for use
    on Data Center GPUs" says why the RmInitAdapter line after it failed."""
    if not any(f.code == "report-error" for f in findings):
        return _symptoms_named(list(findings), {})
    errors = [f for f in findings if f.code == "report-error" and f.severity in _PREDICTS]
    from gpudoctor.matrix.signatures import load_signatures  # lazy: known lines only

    by_code = load_signatures().by_code
    overridden: dict[int, Finding] = {}  # id of a finding -> the error line that is more specific
    # Any known line may explain (an info line too: "no NVSwitch here" makes the fabric
    # manager's exit harmless); what it explains is a finding code or another line's signature.
    for line in (f for f in findings if f.code == "report-error"):
        explains = by_code[line.subject].explains if line.subject in by_code else ()
        for f in findings:
            target = f.subject if f.code == "report-error" else f.code
            if f is not line and target in explains and f.severity in _PREDICTS:
                overridden.setdefault(id(f), line)
    matched: dict[int, list[Finding]] = {}  # id of a predicting finding -> error lines
    explained: dict[int, list[str]] = {}  # id of an error line -> what explains it
    for error in errors:
        known = by_code.get(error.subject)
        predicted_by = known.predicted_by if known else ()
        for f in findings:
            if f.code not in predicted_by or f.severity not in _PREDICTS:
                continue
            by_line = overridden.get(id(f))
            if by_line is None:
                matched.setdefault(id(f), []).append(error)
                explained.setdefault(id(error), []).append(f.code)
            elif by_line is not error:
                explained.setdefault(id(error), []).append(f"the line {by_line.subject}")
    linked = [_linked(f, overridden, matched, explained) for f in findings]
    return _symptoms_named(linked, by_code)


def _symptoms_named(findings: list[Finding], by_code: Mapping[str, Signature]) -> list[Finding]:
    """A symptom line (a pod crash-looping: something failed, not why) stays an error only
    while nothing else in the report is one; next to an error that names a cause (or a
    Kubernetes line that names one as a warning) it is info that points to it, so the report
    leads with the cause, not the state it left behind."""

    def symptom(f: Finding) -> bool:
        if f.code in SYMPTOM_CODES:
            return True
        return f.code == "report-error" and f.subject in by_code and by_code[f.subject].symptom

    def names_cause(f: Finding) -> bool:
        if symptom(f):
            return False
        if f.severity == ERROR:
            return True
        # A Kubernetes log line that is only a warning still says why a pod of the stack fails:
        # dcgm-exporter exits on a DCGM profiling error (warn: the GPUs are unaffected), and its
        # crash-looping row is that line's symptom, not an error of its own.
        known = by_code.get(f.subject) if f.code == "report-error" else None
        return f.severity == WARN and known is not None and known.layer == "kubernetes"

    causes = [f for f in findings if names_cause(f)]
    if not causes:
        return findings
    named = ", ".join(sorted({c.subject if c.code == "report-error" else c.code for c in causes}))
    why = f"the state a cause leaves behind; this report names one ({named}): fix that first"
    return [
        replace(f, severity=INFO, detail=_join(f.detail, why))
        if symptom(f) and f.severity in _PREDICTS
        else f
        for f in findings
    ]


def _shown(error: Finding) -> str:
    return f"'{error.title.removeprefix('the report shows: ')}'"


def _linked(
    f: Finding,
    overridden: dict[int, Finding],
    matched: dict[int, list[Finding]],
    explained: dict[int, list[str]],
) -> Finding:
    """One finding with what the error lines say of it (or it of them)."""
    if id(f) in overridden:
        line = overridden[id(f)]
        why = f"explained by the report's line {line.subject} (its fix applies): {_shown(line)}"
        return replace(f, severity=INFO, detail=_join(f.detail, why))
    if id(f) in matched:
        lines = "; ".join(_shown(e) for e in matched[id(f)])
        return replace(f, detail=_join(f.detail, f"the report's error line matches: {lines}"))
    if id(f) in explained:
        codes = ", ".join(sorted(set(explained[id(f)])))
        why = f"explained by {codes} (its fix applies)"
        return replace(f, severity=INFO, detail=_join(f.detail, why))
    return f


def _join(first: str, second: str) -> str:
    return f"{first}; {second}" if first else second


def check_report_unknown_lines(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    """The lines that say something failed where the paste holds no known line: quoted with
    their numbers, info (their cause is not known), with what to paste for a verdict."""
    report = facts.report
    if report is None or not report.unknown_lines:
        return []
    lines = report.unknown_lines
    first = lines[0]
    shown = "; ".join(f"line {e.line}: {e.text}" for e in lines)
    return [
        finding(
            "report-unknown-line",
            INFO,
            f"the report shows an error this gpudoctor does not know: {first.text}",
            detail=f"read as an error whose cause is not known ({shown}); nothing else in the "
            "paste says what failed",
            fix=_UNKNOWN_LINE_FIX,
            evidence=[("lines", tuple(e.line for e in lines))],
        )
    ]


_UNKNOWN_LINE_FIX = (
    "paste the whole output around that line (the full traceback or log, from the command "
    "run), with `nvidia-smi` and `python -m torch.utils.collect_env` from the same host (or "
    "run `gpudoctor check` there); where a program crashed (a segmentation fault, an abort, "
    "a non-zero exit code), also the kernel log of that time (`sudo dmesg -T | tail -50`)"
)

CHECKS = (check_report_read, check_report_errors, check_report_unknown_lines)
