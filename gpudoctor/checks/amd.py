"""AMD GPU checks: the amdgpu driver and KFD, /dev/kfd access, the installed ROCm and the torch
ROCm build against each GPU's gfx target, library clashes and HSA_OVERRIDE_GFX_VERSION.

On a host without an AMD GPU these checks say nothing (the area stays out of the report); a
mixed NVIDIA and AMD host gets them beside every NVIDIA check. A torch +rocm wheel carries its
own ROCm user space, so it is judged by its gfx list and the kernel driver, never by /opt/rocm.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from gpudoctor import versions
from gpudoctor.checks.base import Intent, finding
from gpudoctor.compat import rocm
from gpudoctor.facts_view import has_gpu
from gpudoctor.findings import ERROR, INFO, NA, OK, UNKNOWN, WARN, Finding
from gpudoctor.matrix.model import PytorchRocmVariant
from gpudoctor.wording import plural

if TYPE_CHECKING:
    from gpudoctor.facts import FrameworkFacts, HostFacts
    from gpudoctor.facts_amd import AmdDeviceNode
    from gpudoctor.matrix.model import Matrix

# AMD publishes no map from the amdgpu module's own version (sysfs) to its KMD release.
KMD_UNMAPPED = (
    "which KMD release the loaded amdgpu module is cannot be read from the host: AMD publishes no "
    "map from the module's version to its release (ROCm/rocm-install-on-linux issue 684)"
)
USERMOD = "sudo usermod -aG render,video $USER, then log out and in again"
DOCKER_DEVICES = (
    "docker run --device=/dev/kfd --device=/dev/dri --group-add video --group-add render ... "
    "(or the AMD Container Toolkit's runtime: --runtime=amd, or a CDI device amd.com/gpu=N)"
)


def rocm_in_use(facts: HostFacts) -> bool:
    """ROCm software is here: /opt/rocm or /opt/rocm-*, a torch ROCm build, or a ROCm tree on
    LD_LIBRARY_PATH. Without it an AMD GPU (often a Ryzen's integrated one next to an NVIDIA
    GPU) is not meant for ROCm, and what ROCm would lack is information, not an error."""
    amd = facts.amd
    return (
        bool(amd.rocm_version or amd.rocm_installs or amd.ld_library_path_rocm)
        or _rocm_torch(facts) is not None
    )


def _targets_text(targets: list[rocm.AmdTarget]) -> str:
    return "; ".join(
        (f"{t.count} × " if t.count > 1 else "")  # noqa: RUF001 - the multiplication sign
        + t.gfx
        + (f" ({t.name})" if t.name else "")
        for t in targets
    )


def check_amd_driver(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    amd = facts.amd
    if not amd.seen:
        return []
    code = "amd-driver"
    targets = rocm.host_targets(facts, matrix)
    ev = [
        ("pci_gpus", [f"{g.address} {g.device_id} {g.driver}" for g in amd.pci_gpus]),
        ("kfd_gpu_nodes", [f"{n.node}:{n.gfx_target}" for n in amd.gpu_nodes]),
        ("amdgpu_loaded", amd.amdgpu_loaded),
        ("amdgpu_version", amd.amdgpu_version),
        ("amdsmi", amd.amdsmi_status + (f" ({amd.amdsmi_error})" if amd.amdsmi_error else "")),
    ]
    stubs = [g for g in amd.pci_gpus if g.driver in ("vfio-pci", "pci-stub")]
    if amd.pci_gpus and len(stubs) == len(amd.pci_gpus):
        return [
            finding(code, OK, "every AMD GPU is bound to vfio-pci for passthrough", evidence=ev)
        ]
    unbound = [g.address or g.card for g in amd.pci_gpus if g.driver not in ("amdgpu", *_STUBS)]
    severity = ERROR if rocm_in_use(facts) else INFO
    if unbound or amd.amdgpu_loaded is False:
        what = (
            f"{len(unbound)} of {len(amd.pci_gpus)} AMD GPU(s) have no amdgpu driver bound"
            if unbound
            else "the amdgpu kernel module is not loaded"
        )
        return [
            finding(
                code,
                severity,
                what,
                detail="no ROCm program can use a GPU the amdgpu driver does not drive",
                fix="install the amdgpu driver (sudo amdgpu-install --usecase=dkms, or the "
                "distribution kernel's amdgpu), then sudo modprobe amdgpu or reboot",
                evidence=[*ev, ("unbound", unbound)],
            )
        ]
    if not amd.gpu_nodes and facts.report is None:
        return [
            finding(
                code,
                severity,
                "the KFD topology lists no AMD GPU"
                + ("" if amd.kfd_present else " (/sys/class/kfd is absent)"),
                detail="amdgpu drives the GPU for display, but the compute driver (KFD) does not "
                "offer it: ROCm sees no device",
                fix="load amdgpu with KFD (a kernel built with CONFIG_HSA_AMD), or install "
                "AMD's amdgpu-dkms driver, then reboot",
                evidence=ev,
            )
        ]
    module = (
        f"amdgpu {amd.amdgpu_version}"
        if amd.amdgpu_version
        else "amdgpu"
        if facts.report is not None  # a report does not say which amdgpu it is
        else "the kernel's own amdgpu"
    )
    count = len(amd.gpu_nodes) or len(amd.pci_gpus)
    return [
        finding(
            code,
            OK,
            f"{module} drives {plural(count, 'GPU')}: {_targets_text(targets)}",
            evidence=ev,
        )
    ]


_STUBS = ("vfio-pci", "pci-stub")


def check_amd_device_access(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    amd = facts.amd
    if not amd.seen:
        return []
    code = "amd-device-access"
    nodes = list(amd.device_nodes)
    kfd = next((n for n in nodes if n.path == "/dev/kfd"), None)
    ev = [("device_nodes", [_show(n) for n in nodes]), ("user_groups", list(amd.user_groups))]
    if not nodes and facts.report is not None:
        return [finding(code, NA, "a pasted report does not show /dev/kfd and its permissions")]
    if amd.gpu_nodes and not nodes:
        return [finding(code, NA, "device nodes were not read (recorded before this check)")]
    severity = ERROR if rocm_in_use(facts) else INFO
    if kfd is None or kfd.mode is None:
        where = f"this {facts.platform.container} container" if facts.platform.container else ""
        return [
            finding(
                code,
                severity,
                f"no /dev/kfd {('in ' + where) if where else 'on this host'}",
                detail="every ROCm process opens /dev/kfd: without it HIP reports no device",
                fix=DOCKER_DEVICES
                if where
                else "load amdgpu (sudo modprobe amdgpu); a host "
                "whose amdgpu has no KFD needs a kernel built with CONFIG_HSA_AMD",
                evidence=[*ev, ("container", facts.platform.container)],
            )
        ]
    closed = [n for n in nodes if n.accessible is False]
    if not closed:
        return [
            finding(
                code,
                OK,
                f"this user can open /dev/kfd and {plural(len(nodes) - 1, 'render node')}",
                evidence=ev,
            )
        ]
    groups = sorted({n.group or str(n.gid) for n in closed})
    outside = [n for n in closed if n.gid is not None and n.gid not in amd.user_groups]
    why = (
        f"the user (uid {amd.user_uid}) is not in group {', '.join(groups)}"
        if outside
        else "the nodes' permission bits do not let their group read and write"
    )
    return [
        finding(
            code,
            severity,
            f"this user cannot open {', '.join(n.path for n in closed[:3])}"
            + (f" and {len(closed) - 3} more" if len(closed) > 3 else ""),
            detail=f"{why}: ROCm reports no GPU (hipErrorNoDevice) to this user",
            fix=USERMOD
            if outside
            else "restore the udev rule that gives /dev/kfd and /dev/dri/renderD* to the render "
            "group with mode 0660 (ROCm's installer ships it), then sudo udevadm trigger",
            evidence=ev,
        )
    ]


def _show(node: AmdDeviceNode) -> str:
    if node.mode is None:
        return f"{node.path} absent"
    owner = f"{node.uid}:{node.group or node.gid}"
    return f"{node.path} {node.mode} {owner} {'rw' if node.accessible else 'closed'}"


def check_amd_rocm_gfx(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    amd = facts.amd
    if not amd.seen:
        return []
    code = "amd-rocm-gfx"
    if amd.rocm_version is None:
        installs = ", ".join(amd.rocm_installs)
        return [
            finding(
                code,
                NA,
                "no ROCm in /opt/rocm" + (f" (only {installs})" if installs else ""),
                evidence=[("rocm_installs", list(amd.rocm_installs))],
            )
        ]
    targets = rocm.host_targets(facts, matrix)
    ev = [("rocm_version", amd.rocm_version), ("gfx", [t.gfx for t in targets])]
    if not targets:
        return [finding(code, UNKNOWN, "the AMD GPUs' gfx targets are unknown", evidence=ev)]
    row = rocm.rocm_release(matrix, amd.rocm_version)
    if row is None:
        return [
            finding(
                code,
                UNKNOWN,
                f"ROCm {amd.rocm_version} is not in the matrix",
                detail="the matrix records ROCm " + ", ".join(r.version for r in matrix.rocm),
                evidence=ev,
            )
        ]
    missing = [t for t in targets if t.gfx not in row.gfx]
    if not missing:
        return [
            finding(
                code,
                OK,
                f"ROCm {amd.rocm_version} supports {', '.join(t.gfx for t in targets)}",
                evidence=[*ev, ("rocm_gfx", list(row.gfx))],
            )
        ]
    newer = [r.version for r in matrix.rocm if all(t.gfx in r.gfx for t in missing)]
    return [
        finding(
            code,
            WARN,
            f"ROCm {amd.rocm_version} does not support {_targets_text(missing)}",
            detail=f"AMD lists for ROCm {row.version} on Linux: {', '.join(row.gfx)}; programs "
            "built against it may have no code object for this GPU",
            fix=(
                f"install ROCm {newer[-1]} (the newest release in the matrix that lists it)"
                if newer
                else "no ROCm release in the matrix lists this target: run a torch +rocm "
                "wheel built for it, or a supported GPU"
            ),
            evidence=[*ev, ("rocm_gfx", list(row.gfx))],
        )
    ]


def _rocm_torch(facts: HostFacts) -> FrameworkFacts | None:
    return next((fw for fw in facts.frameworks if fw.name == "torch" and _is_rocm(fw)), None)


def _is_rocm(fw: FrameworkFacts) -> bool:
    return bool(fw.hip) or "+rocm" in fw.version


def _kmd_text(matrix: Matrix, series: str) -> str:
    row = rocm.rocm_release(matrix, series)
    if row is None or not row.kmd:
        return f"the kernel drivers AMD tests ROCm {series} user space with are not recorded"
    return (
        f"AMD supports ROCm {series} user space on the kernel driver (amdgpu) releases "
        f"{', '.join(k + '.x' for k in row.kmd)}; {KMD_UNMAPPED}"
    )


def check_amd_torch_gfx(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    fw = _rocm_torch(facts)
    if not facts.amd.seen or fw is None:
        return []
    code, subject = "amd-torch-gfx", "torch"
    targets = rocm.host_targets(facts, matrix)
    gfx = [t.gfx for t in targets]
    ev = [("framework", fw.version), ("framework_hip", fw.hip), ("gfx", gfx)]
    if not targets:
        title = f"{fw.label}: the AMD GPUs' gfx targets are unknown (not in KFD or the matrix)"
        return [finding(code, UNKNOWN, title, evidence=ev, subject=subject)]
    variant = rocm.installed_variant(matrix, fw)
    series = rocm.rocm_tag(fw) or versions.major_minor(fw.hip or "", pad=False)
    build = rocm.judged(matrix, variant) if variant is not None else None
    if build is None and series:
        row = rocm.rocm_release(matrix, series)
        if row is not None:
            # The release is not in the matrix, its ROCm series is: judge by that list.
            build = rocm.RocmBuild(_pseudo(fw, series), row.gfx, "rocm")
    kmd = _kmd_text(matrix, versions.major_minor(series) or series) if series else ""
    own = "the wheel brings its own ROCm user space (not /opt/rocm)" + (f"; {kmd}" if kmd else "")
    if build is None:
        return [
            finding(
                code,
                UNKNOWN,
                f"{fw.label}: neither its gfx list nor its ROCm release is in the matrix",
                detail=own,
                evidence=ev,
                subject=subject,
            )
        ]
    missing = [t for t in targets if t.gfx not in build.targets]
    ev = [*ev, ("judged_by", build.by), ("build_gfx", list(build.targets))]
    by = "its PYTORCH_ROCM_ARCH" if build.by == "wheel" else f"ROCm {series}'s supported list"
    unsupported = [t for t in targets if t not in missing and not build.runs(t.gfx)]
    if not missing and unsupported:
        better = rocm.newest_for_host(matrix, gfx)
        return [
            finding(
                code,
                WARN,
                f"{fw.label} has kernels for {_targets_text(unsupported)}, but AMD does not "
                f"support it with ROCm {series}",
                detail=own + (f"; {better.label} is supported there" if better else ""),
                fix=better.install if better else "use a GPU AMD supports with this ROCm",
                evidence=[*ev, ("rocm_gfx", list(build.supported or ()))],
                subject=subject,
            )
        ]
    if not missing:
        sev = OK if build.by == "wheel" else INFO
        note = "" if build.by == "wheel" else " (its own gfx list is not recorded)"
        return [
            finding(
                code,
                sev,
                f"{fw.label} covers {', '.join(gfx)} by {by}{note}",
                detail=own,
                evidence=ev,
                subject=subject,
            )
        ]
    better = rocm.newest_for_host(matrix, gfx)
    fix = better.install if better else "no torch ROCm build in the matrix covers this GPU"
    sev = ERROR if build.by == "wheel" else WARN
    return [
        finding(
            code,
            sev,
            f"{fw.label} has no kernels for {_targets_text(missing)} (by {by})",
            detail="a kernel launch fails with hipErrorNoBinaryForGpu or 'invalid device "
            f"function'; {own}"
            + (f"; {better.label} covers it" if better else "")
            + (
                "; or hide the GPU(s) without kernels from ROCm with HIP_VISIBLE_DEVICES"
                if len(missing) < len(targets)
                else ""
            ),
            fix=fix,
            evidence=ev,
            subject=subject,
        )
    ]


def _pseudo(fw: FrameworkFacts, series: str) -> PytorchRocmVariant:
    """A variant standing for an installed build whose release the matrix lacks."""
    return PytorchRocmVariant(
        pytorch=versions.public(fw.version),
        rocm=series,
        index_url=f"https://download.pytorch.org/whl/rocm{series}",
        source="",
        sources=(),
        verified=False,
        notes="",
        evidence="",
    )


def check_amd_torch_build(  # noqa: PLR0911 - one return per verdict
    facts: HostFacts, matrix: Matrix, intent: Intent
) -> list[Finding]:
    if not facts.amd.seen:
        return []
    code, subject = "amd-torch-build", "torch"
    fw = next((f for f in facts.frameworks if f.name == "torch"), None)
    if fw is None:
        return [finding(code, NA, "torch is not installed", subject=subject)]
    ev = [("framework", fw.version), ("framework_cuda", fw.cuda), ("framework_hip", fw.hip)]
    if _is_rocm(fw):
        return [finding(code, OK, f"{fw.label} is a ROCm build", evidence=ev, subject=subject)]
    gfx = [t.gfx for t in rocm.host_targets(facts, matrix)]
    best = rocm.newest_for_host(matrix, gfx)
    fix = best.install if best else "no torch ROCm build in the matrix covers these GPUs"
    newest = f"; the newest ROCm build for {', '.join(gfx)} is {best.label}" if best else ""
    if fw.cpu_only:
        return [
            finding(
                code,
                WARN,
                f"{fw.label} is a CPU-only build on a host with AMD GPUs",
                detail="it never uses a GPU (torch.cuda.is_available() is False)" + newest,
                fix=fix,
                evidence=ev,
                subject=subject,
            )
        ]
    if fw.cuda is None:
        return [finding(code, NA, f"{fw.label}: build not known", evidence=ev, subject=subject)]
    if has_gpu(facts):
        return [
            finding(
                code,
                INFO,
                f"{fw.label} is a CUDA build: it uses the NVIDIA GPU(s), not the AMD one(s)",
                detail="the AMD GPU(s) need a ROCm build, in an environment of their own" + newest,
                fix=fix,
                evidence=ev,
                subject=subject,
            )
        ]
    return [
        finding(
            code,
            ERROR,
            f"{fw.label} is a CUDA build on a host with only AMD GPUs",
            detail="it finds no CUDA device (torch.cuda.is_available() is False)" + newest,
            fix=fix,
            evidence=ev,
            subject=subject,
        )
    ]


def check_amd_library_clash(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    fw = _rocm_torch(facts)
    amd = facts.amd
    if not amd.seen or fw is None:
        return []
    code = "amd-library-clash"
    ev = [("ld_library_path_rocm", list(amd.ld_library_path_rocm)), ("rocm", amd.rocm_version)]
    if not amd.ld_library_path_rocm:
        return [finding(code, OK, "LD_LIBRARY_PATH names no ROCm tree", evidence=ev)]
    wheel = rocm.rocm_tag(fw) or versions.major_minor(fw.hip or "", pad=False)
    system = versions.major_minor(amd.rocm_version or "", pad=False)
    paths = ", ".join(amd.ld_library_path_rocm)
    same = wheel is not None and system is not None and versions.major_minor(wheel) == system
    return [
        finding(
            code,
            INFO if same else WARN,
            f"LD_LIBRARY_PATH names {paths} next to the ROCm {fw.label} bundles",
            detail=(
                f"the system ROCm ({amd.rocm_version or 'version unknown'}) "
                + ("is the wheel's series" if same else f"is not the wheel's ROCm {wheel}")
                + ": torch loads its bundled ROCm libraries through RPATH, which LD_LIBRARY_PATH "
                "does not override (pytorch's .ci/manywheel/build_rocm.sh), but an extension or "
                "tool linked against the system ROCm then brings a second HIP runtime into the "
                "same process"
            ),
            fix="remove the /opt/rocm entries from LD_LIBRARY_PATH in the environment that runs "
            "torch",
            evidence=ev,
        )
    ]


def check_amd_hsa_override(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    amd = facts.amd
    if not amd.seen:
        return []
    code = "amd-hsa-override"
    value = amd.hsa_override_gfx_version
    if value is None:
        return [finding(code, OK, "HSA_OVERRIDE_GFX_VERSION is not set")]
    targets = rocm.host_targets(facts, matrix)
    kinds = Counter(t.kind or rocm.kind_of(matrix, t.gfx) for t in targets)
    ev = [("HSA_OVERRIDE_GFX_VERSION", value), ("gfx", [t.gfx for t in targets])]
    if kinds.get("instinct"):
        return [
            finding(
                code,
                WARN,
                f"HSA_OVERRIDE_GFX_VERSION={value} is set on an Instinct GPU",
                detail="ROCm supports the Instinct target itself; the override can only make the "
                "runtime load code objects built for another target",
                fix="unset HSA_OVERRIDE_GFX_VERSION",
                evidence=ev,
            )
        ]
    return [
        finding(
            code,
            INFO,
            f"HSA_OVERRIDE_GFX_VERSION={value} makes ROCm treat these GPUs as another target",
            detail="an unsupported workaround for Radeon GPUs ROCm does not list: kernels built "
            "for another target may fail or compute wrong results",
            evidence=ev,
        )
    ]


def check_amd_visible_devices(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    """HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES: an empty value hides every GPU, an index past
    the last GPU hides that one (ROCR's GPU-<uuid> entries are not judged)."""
    amd = facts.amd
    if not amd.seen:
        return []
    code = "amd-visible-devices"
    count = len(amd.gpu_nodes) or len(amd.pci_gpus)
    values = {
        "HIP_VISIBLE_DEVICES": amd.hip_visible_devices,
        "ROCR_VISIBLE_DEVICES": amd.rocr_visible_devices,
    }
    ev: list[tuple[str, object]] = [*values.items(), ("gpus", count)]
    for name, value in values.items():
        if value is None:
            continue
        entries = [e.strip() for e in value.split(",")]
        if not value.strip():
            return [
                finding(
                    code,
                    WARN,
                    f"{name} is empty: ROCm programs see no GPU",
                    fix=f"unset {name}, or list the GPUs to use (0,1,...)",
                    evidence=ev,
                )
            ]
        past = [e for e in entries if e.isdecimal() and int(e) >= count]
        if past:
            return [
                finding(
                    code,
                    WARN,
                    f"{name}={value} names GPU {', '.join(past)}, past the last of {count}",
                    fix=f"use indexes 0 to {count - 1} in {name}",
                    evidence=ev,
                )
            ]
    shown = ", ".join(f"{k}={v}" for k, v in values.items() if v is not None)
    return [
        finding(
            code, OK, shown or "HIP_VISIBLE_DEVICES and ROCR_VISIBLE_DEVICES are unset", evidence=ev
        )
    ]


def check_amd_ecc(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    """amdgpu's RAS counters of each GPU's memory controller (device/ras/umc_err_count)."""
    amd = facts.amd
    if not amd.seen:
        return []
    code = "amd-ecc-errors"
    read = [g for g in amd.pci_gpus if g.ecc_uncorrectable is not None]
    if not read:
        return [finding(code, NA, "no RAS error counters (a GPU without ECC memory, or not read)")]
    ev = [
        (
            "umc_err_count",
            [f"{g.address}: ue {g.ecc_uncorrectable} ce {g.ecc_correctable}" for g in read],
        )
    ]
    bad = [g for g in read if (g.ecc_uncorrectable or 0) > 0]
    if bad:
        return [
            finding(
                code,
                WARN,
                f"{plural(len(bad), 'AMD GPU')} counted uncorrectable memory errors: "
                + ", ".join(f"{g.address} ({g.ecc_uncorrectable})" for g in bad),
                detail="a job on these GPUs may read corrupted data or be killed; amdgpu retires "
                "the bad pages (device/ras/gpu_vram_bad_pages)",
                fix="drain the GPU's jobs, read `amd-smi metric --ecc` and the bad-page list; "
                "errors that keep coming back mean the GPU needs service",
                evidence=ev,
            )
        ]
    return [
        finding(
            code,
            OK,
            f"no uncorrectable memory errors on {plural(len(read), 'AMD GPU')}",
            evidence=ev,
        )
    ]


def check_amd_container_runtime(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    """Docker on an AMD host: containers get the GPUs through the AMD Container Toolkit's
    `amd` runtime, CDI `amd.com/gpu` devices, or --device flags given by hand."""
    amd, runtime = facts.amd, facts.container_runtime
    if not amd.seen:
        return []
    code = "amd-container-runtime"
    registered = sorted({*runtime.runtimes, *runtime.daemon_json_runtimes})
    ev = [("runtimes", registered), ("cdi_amd_devices", list(amd.cdi_amd_devices))]
    if not runtime.docker_reachable and not runtime.daemon_json_runtimes:
        return [finding(code, NA, "no Docker daemon to give containers the GPUs", evidence=ev)]
    if not rocm_in_use(facts):
        return [finding(code, NA, "no ROCm software on this host", evidence=ev)]
    if "amd" in registered or amd.cdi_amd_devices:
        how = "the amd runtime" if "amd" in registered else "CDI amd.com/gpu devices"
        return [finding(code, OK, f"Docker can give containers the AMD GPUs ({how})", evidence=ev)]
    return [
        finding(
            code,
            INFO,
            "Docker has no AMD runtime and no CDI amd.com devices: every container needs the "
            "device flags by hand",
            fix=DOCKER_DEVICES,
            evidence=ev,
        )
    ]


def check_amd_intent(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    if intent.framework is None or not facts.amd.seen:
        return []
    code = "amd-intent"
    if intent.framework != "pytorch":
        return [finding(code, NA, f"the matrix has no ROCm build of {intent.framework}")]
    gfx = [t.gfx for t in rocm.host_targets(facts, matrix)]
    asked = "pytorch" + (f"=={intent.framework_version}" if intent.framework_version else "")
    ev = [("gfx", gfx), ("runtime", rocm.RUNTIME)]
    if not gfx:
        return [finding(code, UNKNOWN, f"{asked}: the AMD GPUs' gfx targets are unknown")]
    best = rocm.newest_for_host(matrix, gfx, intent.framework_version)
    if best is None:
        return [
            finding(
                code,
                # With an NVIDIA GPU here the framework still runs (intent-verdict says on what).
                INFO if has_gpu(facts) else ERROR,
                f"no torch ROCm build{' of ' + asked if intent.framework_version else ''} in the "
                f"matrix covers {', '.join(gfx)}",
                fix="the torch ROCm builds known are the [[pytorch_rocm]] rows of "
                "matrices/compat.toml; a GPU no ROCm release lists needs another GPU",
                evidence=ev,
            )
        ]
    by = "" if best.by == "wheel" else f" (by ROCm {best.variant.series}'s supported list)"
    return [
        finding(
            code,
            INFO,  # as intent-newest-row: the answer is the pip line, shown with the finding
            f"{asked} on the AMD GPU(s) ({', '.join(gfx)}): {best.label}{by}",
            fix=best.install,
            evidence=[*ev, ("judged_by", best.by)],
        )
    ]


CHECKS = (
    check_amd_driver,
    check_amd_device_access,
    check_amd_rocm_gfx,
    check_amd_torch_gfx,
    check_amd_torch_build,
    check_amd_library_clash,
    check_amd_hsa_override,
    check_amd_visible_devices,
    check_amd_ecc,
    check_amd_container_runtime,
)
INTENT_CHECKS = (check_amd_intent,)
