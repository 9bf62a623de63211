"""What every check shares: the intent it is judged against, the check signature, fact accessors
and the finding constructor that takes a code's area from the catalogue (so an uncatalogued code
fails loudly in tests instead of reaching users undocumented)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpudoctor.checks.catalogue import CATALOGUE
from gpudoctor.checks.model import Finding, Severity

if TYPE_CHECKING:
    from gpudoctor.checks.requirements import Requirement
    from gpudoctor.compat.image import ImageFacts
    from gpudoctor.facts import GpuFacts, HostFacts, PciDevice
    from gpudoctor.matrix.model import Matrix

NVIDIA_VENDOR = "0x10de"


@dataclass(frozen=True)
class Intent:
    """What the user plans to run here (`--framework`, `--cuda`) and demands (`--require`)."""

    framework: str | None = None  # "pytorch" or "tensorflow"
    framework_version: str | None = None  # "2.5" from `pytorch==2.5`
    cuda: str | None = None
    requirements: tuple[Requirement, ...] = ()
    native_only: bool = False  # `--native-only`: minor-version compatibility does not count
    image: ImageFacts | None = None  # `--image REF`: will this built image run here


Check = Callable[["HostFacts", "Matrix", Intent], list[Finding]]


def finding(
    code: str,
    severity: Severity,
    title: str,
    *,
    detail: str = "",
    fix: str = "",
    evidence: Iterable[tuple[str, object]] = (),
    subject: str = "",
) -> Finding:
    entry = CATALOGUE[code]  # KeyError = a code missing from catalogue.py: a bug, caught by tests
    if severity in (Severity.ERROR, Severity.WARN) and not fix.strip():
        # Every problem comes with its fix; a check that finds one without is a bug (tests run
        # every check over every fixture host, and a user sees check-crashed, not a bare error).
        raise ValueError(f"{code}: a {severity.value} finding without a fix ({title})")
    return Finding(
        code=code,
        severity=severity,
        area=entry.area,
        title=title,
        detail=detail,
        fix=fix,
        evidence=tuple(sorted((k, _show(v)) for k, v in evidence)),
        subject=subject,
    )


def _show(value: object) -> str:
    if value is None:
        return "unknown"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, tuple | list):
        return ", ".join(str(v) for v in value) or "none"
    return str(value)


# --- versions -----------------------------------------------------------------------------------

_VERSION = re.compile(r"^\s*v?(\d+(?:\.\d+)*)")


def version_tuple(text: str | None) -> tuple[int, ...] | None:
    """Leading dotted numbers: "550.90.07" -> (550, 90, 7), "2.5.1+cu124" -> (2, 5, 1)."""
    if text is None:
        return None
    match = _VERSION.match(text)
    return tuple(int(p) for p in match.group(1).split(".")) if match else None


def major_minor(text: str | None) -> str | None:
    parts = version_tuple(text)
    if parts is None:
        return None
    return f"{parts[0]}.{parts[1] if len(parts) > 1 else 0}"


def gib(n_bytes: int | None) -> str:
    if n_bytes is None:
        return "unknown"
    return f"{n_bytes / 2**30:.1f} GiB"


# --- fact accessors -----------------------------------------------------------------------------


def nvidia_pci_gpus(facts: HostFacts) -> list[PciDevice]:
    """Physical NVIDIA GPUs on the PCI bus (not NVSwitches, audio functions or SR-IOV VFs)."""
    return [
        d
        for d in facts.kernel.pci_devices
        if d.vendor_id.lower() == NVIDIA_VENDOR and d.kind == "gpu" and not d.is_virtual_function
    ]


def nvml_ok(facts: HostFacts) -> bool:
    return facts.nvml.status == "ok"


def live_gpus(facts: HostFacts) -> list[GpuFacts]:
    return [g for g in facts.nvml.gpus if not g.lost]


def has_gpu(facts: HostFacts) -> bool:
    """An NVIDIA GPU is here: NVML sees one, or the PCI bus has one (driver working or not)."""
    return bool(facts.nvml.gpus) or bool(nvidia_pci_gpus(facts))


def passthrough_only(facts: HostFacts) -> bool:
    """Every NVIDIA GPU is bound to vfio-pci/pci-stub: a hypervisor keeping them for its VMs,
    where no NVIDIA driver is expected."""
    pci = nvidia_pci_gpus(facts)
    return bool(pci) and not facts.nvml.gpus and all(d.driver in _STUBS for d in pci)


_STUBS = ("vfio-pci", "pci-stub")
_NO_DRIVER = ("library_not_found", "driver_not_loaded", "lib_rm_version_mismatch")


def driver_broken(facts: HostFacts) -> bool:
    """A GPU is here but the driver does not work: the driver area says why, so checks that need
    a driver answer n/a ("see the driver checks") instead of piling up unknowns."""
    return has_gpu(facts) and (facts.nvml.status in _NO_DRIVER or passthrough_only(facts))


def driver_version(facts: HostFacts) -> str | None:
    """The user-space driver NVML reports, else the loaded kernel module's version."""
    return facts.nvml.driver_version or facts.kernel.nvidia_module_version


def issue_about(facts: HostFacts, *names: str) -> str | None:
    """The reason of a probe issue whose field mentions any of `names` (None: no issue)."""
    for issue in facts.issues:
        if any(name in issue.field for name in names):
            return f"{issue.probe}: {issue.reason}"
    return None


def unknown_or_na(facts: HostFacts, *names: str) -> tuple[Severity, str]:
    """A None fact with a probe issue is `unknown`; without one the GPU just doesn't report it."""
    reason = issue_about(facts, *names)
    if reason:
        return Severity.UNKNOWN, f"could not be read ({reason})"
    return Severity.NA, "not reported by this GPU or driver"


def gpu_label(indices: Sequence[int]) -> str:
    """ "GPU 3", "GPU 0-7", "GPU 0, 2, 5": the subject of a finding grouped over GPUs."""
    idx = sorted(indices)
    if len(idx) == 1:
        return f"GPU {idx[0]}"
    if idx == list(range(idx[0], idx[-1] + 1)):
        return f"GPU {idx[0]}-{idx[-1]}"
    return "GPU " + ", ".join(str(i) for i in idx)


def group_by_gpu(
    code: str, per_gpu: Iterable[tuple[int, Finding]], *, of: int | None = None
) -> list[Finding]:
    """Merge per-GPU findings with the same severity, title, detail and fix into one whose
    subject lists the GPUs ("GPU 0-7"), so an 8-GPU host gets one line, not eight."""
    groups: dict[tuple[str, str, str, str], tuple[list[int], Finding]] = {}
    for index, f in per_gpu:
        key = (f.severity.value, f.title, f.detail, f.fix)
        groups.setdefault(key, ([], f))[0].append(index)
    merged = []
    for indices, f in groups.values():
        merged.append(
            Finding(
                code=code,
                severity=f.severity,
                area=f.area,
                title=f.title,
                detail=f.detail,
                fix=f.fix,
                evidence=f.evidence,
                subject=gpu_label(indices),
            )
        )
    return sorted(merged, key=lambda f: (-f.severity.rank, f.subject))
