"""Driver checks: is the NVIDIA driver bound, loaded, consistent and reachable for every GPU.

The root-causing order follows what breaks first: no GPU, no driver bound, nouveau in the way,
module not loaded, library missing, module/library mismatch, other NVML failures.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpudoctor import versions
from gpudoctor.checks.base import Intent, finding
from gpudoctor.checks.driver_support import driver_predates
from gpudoctor.checks.jetson import discrete_host, jetson_release
from gpudoctor.facts_view import (
    driver_broken,
    driver_version,
    has_gpu,
    nvidia_pci_gpus,
    nvml_ok,
    passthrough_only,
)
from gpudoctor.findings import ERROR, INFO, NA, OK, UNKNOWN, WARN, Finding
from gpudoctor.matrix.queries import architecture_for

if TYPE_CHECKING:
    from collections.abc import Callable

    from gpudoctor.facts import HostFacts, KernelFacts
    from gpudoctor.matrix.model import Architecture, Matrix


def _jetson_without_nvml(facts: HostFacts) -> str | None:
    """A Jetson's L4T release ("unknown" where it is not known) when NVML does not answer there.
    Most Jetsons have no NVML: their integrated GPU is not on the PCI bus, and
    libnvidia-ml.so.1 and nvidia-smi are not part of L4T (tegrastats and jtop show the GPU),
    so neither is a broken or missing driver; where NVML does answer, it is judged as usual."""
    if nvml_ok(facts) or discrete_host(facts):
        return None  # a discrete GPU's host, whatever its text says about Jetsons
    return jetson_release(facts)


_JETSON_NO_NVML = "Jetson (L4T {}): no NVML there; tegrastats or jtop show the integrated GPU"


def check_gpu_present(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    if has_gpu(facts):
        return []  # the other driver checks speak for a GPU host
    ev = [("pci_nvidia_gpus", 0), ("nvml_status", facts.nvml.status)]
    jetson = _jetson_without_nvml(facts)
    if jetson is not None:
        return [
            finding(
                "no-nvidia-gpu",
                INFO,
                f"Jetson (L4T {jetson}): an integrated GPU, not on the PCI bus and without NVML",
                detail="the checks that read discrete GPUs through the PCI bus or NVML are n/a; "
                "the Jetson checks judge its software",
                fix="nothing to fix: `tegrastats` or `jtop` show the integrated GPU",
                evidence=[*ev, ("l4t_release", jetson)],
            )
        ]
    if facts.report is not None:  # a report that lists no GPU says nothing about the host's GPUs
        return [finding("no-nvidia-gpu", UNKNOWN, "the report lists no GPU", evidence=ev)]
    if facts.nvml.status in _NVML_FAILED:
        # NVML is there and failed: "no GPU" would be a guess (the PCI bus may be hidden, in a
        # container), so say what failed instead of reporting a healthy CPU-only host.
        why = facts.nvml.error or facts.nvml.status
        return [
            finding(
                "no-nvidia-gpu",
                UNKNOWN,
                f"no NVIDIA GPU on the PCI bus, but NVML failed ({facts.nvml.status}): {why}",
                detail="whether this host has a GPU cannot be told",
                fix="run `nvidia-smi` to see NVML's error; on a CPU-only host, remove the "
                "NVIDIA driver's user-space libraries",
                evidence=[*ev, ("nvml_error", facts.nvml.error)],
            )
        ]
    if facts.amd.seen:  # the AMD area judges this host's GPUs
        return [
            finding(
                "no-nvidia-gpu",
                INFO,
                "no NVIDIA GPU on this host: its AMD GPUs are judged under AMD GPUs and ROCm",
                detail="the NVIDIA checks (driver, GPUs, GPU container runtime, multi-GPU) are "
                "skipped; the AMD ones run",
                fix="nothing to fix for the NVIDIA side",
                evidence=[*ev, ("amd_gpus", len(facts.amd.gpu_nodes or facts.amd.pci_gpus))],
            )
        ]
    return [
        finding(
            "no-nvidia-gpu",
            INFO,
            "no NVIDIA GPU on this host",
            detail="neither the PCI bus nor NVML shows one, so every check that needs a GPU "
            "(driver, GPUs, GPU container runtime, multi-GPU) is skipped",
            fix="nothing to fix on a CPU-only host; to make CI fail on a runner without a GPU, "
            "run `gpudoctor check --require 'gpus>=1'`",
            evidence=ev,
        )
    ]


# NVML statuses that are a failure, not the plain absence of a driver (library_not_found) or
# of a loaded module (driver_not_loaded: a driver installed on a CPU-only machine image).
_NVML_FAILED = frozenset({"unknown", "no_permission", "lib_rm_version_mismatch"})


def check_pci_binding(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    pci = nvidia_pci_gpus(facts)
    if not pci:
        return [finding("gpu-without-driver", NA, "no NVIDIA GPU on the PCI bus")]
    if passthrough_only(facts):
        return [
            finding(
                "gpu-without-driver",
                OK,
                "every NVIDIA GPU is bound to vfio-pci for passthrough",
                evidence=[("pci_drivers", ["vfio-pci"])],
            )
        ]
    unbound = [d.address for d in pci if d.driver is None]
    if not unbound:
        drivers = sorted({d.driver or "" for d in pci})
        return [
            finding(
                "gpu-without-driver",
                OK,
                f"every NVIDIA GPU has a driver bound ({', '.join(drivers)})",
                evidence=[("pci_drivers", drivers)],
            )
        ]
    return [
        finding(
            "gpu-without-driver",
            ERROR,
            f"{len(unbound)} of {len(pci)} NVIDIA GPU(s) have no kernel driver bound",
            detail="the GPU is on the PCI bus but nothing drives it: no CUDA, no nvidia-smi",
            fix="install the NVIDIA driver (`sudo ubuntu-drivers install` or the distribution's "
            "nvidia-driver package), then `sudo modprobe nvidia` or reboot",
            evidence=[("unbound_pci_devices", unbound)],
        )
    ]


_NOUVEAU_FIX = (
    "printf 'blacklist nouveau\\noptions nouveau modeset=0\\n' | sudo tee "
    "/etc/modprobe.d/blacklist-nouveau.conf && sudo update-initramfs -u "
    "(RHEL/Fedora: sudo dracut --force) && sudo reboot"
)


def check_nouveau(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    bound = [d.address for d in nvidia_pci_gpus(facts) if d.driver == "nouveau"]
    loaded = "nouveau" in facts.kernel.modules_loaded
    ev = [
        ("nouveau_loaded", loaded),
        ("nouveau_bound_to", bound),
        ("nouveau_blacklisted", facts.kernel.nouveau_blacklisted),
    ]
    if bound:
        return [
            finding(
                "nouveau-loaded",
                ERROR,
                f"nouveau drives {len(bound)} NVIDIA GPU(s); the NVIDIA driver cannot bind",
                fix=_NOUVEAU_FIX,
                evidence=ev,
            )
        ]
    if loaded:
        blacklisted = facts.kernel.nouveau_blacklisted
        detail = "nouveau is loaded although not bound to a GPU" + (
            "; it is blacklisted, so the initramfs still loads it: rebuild it"
            if blacklisted
            else ""
        )
        return [
            finding(
                "nouveau-loaded",
                WARN,
                "nouveau module loaded",
                detail=detail,
                fix=_NOUVEAU_FIX,
                evidence=ev,
            )
        ]
    return [finding("nouveau-loaded", OK, "nouveau not loaded", evidence=ev)]


def check_module_loaded(  # noqa: PLR0911 - one return per verdict
    facts: HostFacts, matrix: Matrix, intent: Intent
) -> list[Finding]:
    k = facts.kernel
    loaded = "nvidia" in k.modules_loaded or k.nvidia_module_version is not None
    ev = [("nvidia_module_version", k.nvidia_module_version), ("nvml_status", facts.nvml.status)]
    if facts.platform.wsl:
        return [finding("nvidia-module-not-loaded", NA, "WSL: the Windows driver provides the GPU")]
    jetson = _jetson_without_nvml(facts)
    if jetson is not None:
        why = f"Jetson (L4T {jetson}): its GPU driver comes with L4T"
        return [finding("nvidia-module-not-loaded", NA, why, evidence=ev)]
    if loaded or nvml_ok(facts):
        return [finding("nvidia-module-not-loaded", OK, "nvidia kernel module loaded", evidence=ev)]
    pci = nvidia_pci_gpus(facts)
    if not pci or passthrough_only(facts):
        why = "GPUs are kept for passthrough (vfio-pci)" if pci else "no NVIDIA GPU on the PCI bus"
        return [finding("nvidia-module-not-loaded", NA, why, evidence=ev)]
    if facts.platform.container:
        return [
            finding(
                "nvidia-module-not-loaded",
                NA,
                "the host's kernel modules are not visible from a container",
                evidence=ev,
            )
        ]
    if all(d.driver == "nouveau" for d in pci):
        # One cause, one finding: nouveau holding every GPU keeps nvidia from binding, and
        # nouveau-loaded says so with its fix (a nouveau dmesg line alone shows no lsmod either).
        return [
            finding(
                "nvidia-module-not-loaded",
                NA,
                "nouveau drives the GPU(s): see nouveau-loaded",
                evidence=ev,
            )
        ]
    if all(d.driver is None or d.driver == "nouveau" for d in pci) and not k.modules_loaded:
        return [
            finding(
                "nvidia-module-not-loaded",
                NA,
                "no NVIDIA driver bound (see gpu-without-driver)",
                evidence=ev,
            )
        ]
    if facts.nvml.status == "driver_not_loaded" or k.modules_loaded:
        detail, fix = _module_not_loaded_why(k)
        ev.append(("nvidia_dkms_kernels", ", ".join(k.nvidia_dkms_kernels or ()) or None))
        return [
            finding(
                "nvidia-module-not-loaded",
                ERROR,
                "nvidia kernel module not loaded",
                detail=detail,
                fix=fix,
                evidence=ev,
            )
        ]
    return [
        finding(
            "nvidia-module-not-loaded",
            UNKNOWN,
            "could not tell whether nvidia is loaded",
            evidence=ev,
        )
    ]


def _module_not_loaded_why(k: KernelFacts) -> tuple[str, str]:
    """Detail and fix for a GPU without the nvidia module: where DKMS shows which kernels it
    built the module for, say whether the running one is among them, since a kernel update
    whose module build failed (no headers) is the usual reason after a reboot."""
    release = k.release or "$(uname -r)"
    detail = "a GPU is present but /proc/driver/nvidia/version does not exist"
    built = k.nvidia_dkms_kernels
    if built and k.release and k.release not in built:
        return (
            f"{detail}; DKMS installed the nvidia module for kernel {', '.join(built)} but not "
            f"for the running kernel {k.release} (its build failed or never ran, often for "
            "want of that kernel's headers)",
            f"install the running kernel's headers (`linux-headers-{k.release}` on "
            f"Debian/Ubuntu, `kernel-devel-{k.release}` on RHEL/Fedora), run `sudo dkms "
            f"autoinstall -k {k.release}` and read its error if it fails, then `sudo modprobe "
            "nvidia`; or boot one of the kernels it was built for",
        )
    if built and k.release in built:
        return (
            f"{detail}; DKMS installed the nvidia module for the running kernel {k.release}, "
            "so it is built but did not load",
            "sudo modprobe nvidia, and read why it refuses in `sudo dmesg | grep -i -e NVRM -e "
            "nvidia` (Secure Boot without an enrolled key, a GPU this branch does not support, "
            "nouveau holding the GPU)",
        )
    return (
        detail,
        f"sudo modprobe nvidia; if it fails, reinstall the driver for kernel {release} "
        "(DKMS) and read `sudo dmesg | grep NVRM`",
    )


def check_nvml_library(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    n = facts.nvml
    ev = [("nvml_status", n.status), ("nvml_library", n.library_path), ("nvml_error", n.error)]
    jetson = _jetson_without_nvml(facts)
    if jetson is not None:
        return [finding("nvml-library-missing", NA, _JETSON_NO_NVML.format(jetson), evidence=ev)]
    if n.status != "library_not_found":
        if n.status == "not_run":
            # a paste shows NVML's answer only through nvidia-smi's output or an NVML error line
            said = "NVML was not probed" if facts.report is None else "NVML: not in the report"
            return [finding("nvml-library-missing", UNKNOWN, said, evidence=ev)]
        return [finding("nvml-library-missing", OK, "NVML library found", evidence=ev)]
    if not has_gpu(facts) or passthrough_only(facts):
        return [
            finding(
                "nvml-library-missing",
                NA,
                "no NVML library, and no GPU for it to drive",
                evidence=ev,
            )
        ]
    in_container = facts.platform.container is not None
    fix = (
        "run the container with `--gpus all` (or `--device nvidia.com/gpu=all`) so the "
        "toolkit mounts the driver libraries"
        if in_container
        else "install the driver's user-space libraries matching the kernel module "
        "(Ubuntu: `sudo apt install nvidia-utils-<branch> libnvidia-compute-<branch>`)"
    )
    return [
        finding(
            "nvml-library-missing",
            ERROR,
            "libnvidia-ml.so.1 not found: the driver's user-space part is missing",
            detail="nvidia-smi, CUDA and every NVML tool fail without it",
            fix=fix,
            evidence=ev,
        )
    ]


_RELOAD_FIX = (
    "reboot, or reload the modules: sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia "
    "&& sudo modprobe nvidia (stop nvidia-persistenced and GPU processes first)"
)


def _same_driver(module: str, library: str) -> bool:
    """Whether a kernel module and a user-space library are of one driver release. nvidia-smi
    names the library by major.minor alone ("NVML library version: 570.124"), which agrees with
    a 570.124.06 module; full versions must be equal."""
    return module == library or versions.same_prefix(module, library)


def _flatpak_gl(facts: HostFacts, driver: str | None) -> Finding | None:
    """Flatpak's NVIDIA GL runtimes beside the loaded driver: flatpak mounts only
    org.freedesktop.Platform.GL.nvidia-<the module's version, dots as dashes> (flatpak reads
    /sys/module/nvidia/version; flathub builds one runtime per driver release), so a runtime of
    another release is the user-space half of another driver. None: no runtime listed, or the
    driver's version unknown."""
    listed = facts.report.flatpak_gl_nvidia if facts.report else ()
    if not listed or not driver:
        return None
    wanted = driver.replace(".", "-")
    ev = [("driver_version", driver), ("flatpak_gl_nvidia", ", ".join(listed))]
    if wanted in listed:
        return finding(
            "driver-library-mismatch",
            OK,
            f"flatpak's GL runtime nvidia-{wanted} matches the driver {driver}",
            evidence=ev,
        )
    return finding(
        "driver-library-mismatch",
        WARN,
        f"no flatpak GL runtime for the driver {driver}: the paste shows "
        + ", ".join(f"nvidia-{v}" for v in listed),
        detail=f"flatpak apps get the NVIDIA driver's user-space libraries only from "
        f"org.freedesktop.Platform.GL.nvidia-{wanted}, named after the loaded module's version; "
        "a runtime of another release is not mounted, and the apps fall back to software GL or "
        "fail to start (libGL errors, swrast)",
        fix=f"`flatpak update` (it adds the running driver's runtime once flathub has it), or "
        f"`flatpak install flathub org.freedesktop.Platform.GL.nvidia-{wanted} "
        f"org.freedesktop.Platform.GL32.nvidia-{wanted}`; after a driver upgrade reboot first, "
        "so that the loaded module is the new one",
        evidence=ev,
    )


def check_version_mismatch(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    module = facts.kernel.nvidia_module_version
    library = facts.nvml.library_version
    ev = [("kernel_module_version", module), ("nvml_library_version", library)]
    said_mismatch = facts.nvml.status == "lib_rm_version_mismatch"
    if module and library and not _same_driver(module, library):
        return [
            finding(
                "driver-library-mismatch",
                ERROR,
                f"kernel module {module} loaded, user-space library {library} installed",
                detail="the driver was upgraded without reloading the kernel module; NVML and "
                "CUDA fail with 'Driver/library version mismatch' until it is",
                fix=_RELOAD_FIX,
                evidence=ev,
            )
        ]
    if said_mismatch:
        return [
            finding(
                "driver-library-mismatch",
                ERROR,
                "NVML reports a driver/library version mismatch",
                detail="the loaded kernel module and the installed library differ",
                fix=_RELOAD_FIX,
                evidence=ev,
            )
        ]
    flatpak = _flatpak_gl(facts, module or facts.nvml.driver_version)
    if flatpak is not None:
        return [flatpak]
    if module and library:
        return [
            finding(
                "driver-library-mismatch", OK, f"module and library agree ({module})", evidence=ev
            )
        ]
    jetson = _jetson_without_nvml(facts)
    if not has_gpu(facts) or facts.platform.wsl or driver_broken(facts) or jetson is not None:
        return [
            finding(
                "driver-library-mismatch",
                NA,
                "no kernel module and library to compare",
                evidence=ev,
            )
        ]
    return [
        finding(
            "driver-library-mismatch",
            OK if nvml_ok(facts) else UNKNOWN,
            "NVML initialised, so module and library match"
            if nvml_ok(facts)
            else "could not compare kernel module and library versions",
            evidence=ev,
        )
    ]


def check_nvml_init(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    n = facts.nvml
    ev = [("nvml_status", n.status), ("nvml_error", n.error)]
    if n.status == "ok":
        return [finding("nvml-init-failed", OK, "NVML initialised", evidence=ev)]
    jetson = _jetson_without_nvml(facts)
    if jetson is not None:
        return [finding("nvml-init-failed", NA, _JETSON_NO_NVML.format(jetson), evidence=ev)]
    if n.status in ("library_not_found", "driver_not_loaded", "lib_rm_version_mismatch"):
        return [finding("nvml-init-failed", NA, "covered by the checks above", evidence=ev)]
    if not has_gpu(facts):
        return [finding("nvml-init-failed", NA, "no GPU", evidence=ev)]
    if n.status == "no_permission":
        return [
            finding(
                "nvml-init-failed",
                ERROR,
                "no permission to open the GPU device nodes",
                fix="add the user to the group owning /dev/nvidia* (often `video`): "
                "sudo usermod -aG video $USER, then log in again",
                evidence=ev,
            )
        ]
    return [
        finding("nvml-init-failed", UNKNOWN, f"NVML failed: {n.error or n.status}", evidence=ev)
    ]


def check_driver_version(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    version = driver_version(facts)
    k = facts.kernel
    ev = [
        ("driver_version", version),
        ("cuda_driver_version", facts.nvml.cuda_driver_version),
        ("module_flavor", k.nvidia_module_flavor),
    ]
    jetson = _jetson_without_nvml(facts) if version is None else None
    if jetson is not None:
        cuda = facts.nvml.cuda_driver_version  # the CUDA of its JetPack (checks/jetson.py)
        if cuda is None:
            title = f"Jetson (L4T {jetson}): the GPU driver comes with L4T; its CUDA is not known"
            return [finding("driver-version", NA, title, evidence=ev)]
        jetpack = facts.platform.jetpack_release
        title = f"Jetson L4T {jetson}" + (f" (JetPack {jetpack})" if jetpack else "")
        return [finding("driver-version", OK, f"{title}, supports CUDA {cuda}", evidence=ev)]
    if version is None:
        sev = UNKNOWN if has_gpu(facts) and not driver_broken(facts) else NA
        return [finding("driver-version", sev, "no NVIDIA driver version known", evidence=ev)]
    cuda = facts.nvml.cuda_driver_version
    flavor = f" ({k.nvidia_module_flavor} kernel module)" if k.nvidia_module_flavor else ""
    title = f"driver {version}{flavor}" + (f", supports CUDA {cuda}" if cuda else "")
    return [finding("driver-version", OK, title, evidence=ev)]


def _gpus_whose_architecture(
    facts: HostFacts, matrix: Matrix, marked: Callable[[Architecture], bool]
) -> list[tuple[str, str, str]]:
    """(name, architecture, compute capability) of each GPU whose architecture the matrix
    marks, sorted: the kernel module flavor rules' subjects."""
    return sorted(
        (g.name or f"GPU {g.index}", arch.name, g.compute_capability)
        for g in facts.nvml.gpus
        if g.compute_capability
        and (arch := architecture_for(matrix, g.compute_capability)) is not None
        and marked(arch)
    )


def check_open_module_required(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    """The proprietary kernel module on a GPU only the open flavor drives. The driver README
    ("Open Linux Kernel Modules"): "The proprietary flavor supports the GPU architectures
    Maxwell, Pascal, Volta, Turing, and later GPUs until Blackwell. Blackwell and later are only
    supported by the open kernel modules." The matrix marks those architectures
    (`open_module_only`)."""
    code = "open-module-required"
    flavor = facts.kernel.nvidia_module_flavor
    ccs = {g.compute_capability for g in facts.nvml.gpus if g.compute_capability}
    if flavor is None or not ccs:
        return [finding(code, NA, "kernel module flavor or GPU architecture not known")]
    version = driver_version(facts)
    # A branch older than the GPU drives it in neither flavor: driver-gpu-unsupported says so
    needs_open = _gpus_whose_architecture(
        facts,
        matrix,
        lambda a: a.open_module_only and not (version and driver_predates(matrix, version, a)),
    )
    ev = [("module_flavor", flavor), ("gpus_needing_open_module", [n for n, _, _ in needs_open])]
    if not needs_open:
        return [finding(code, NA, "no GPU here needs the open kernel modules", evidence=ev)]
    if flavor == "open":
        title = "the open kernel modules drive the GPUs that need them"
        return [finding(code, OK, title, evidence=ev)]
    name, arch_name, cc = needs_open[0]
    return [
        finding(
            code,
            ERROR,
            f"{name} ({arch_name}, compute capability {cc}) needs the open kernel modules; "
            f"the loaded nvidia module is the {flavor} flavor",
            detail="the proprietary kernel modules drive GPUs until Blackwell; Blackwell and "
            "later are only supported by the open kernel modules (the driver README, Open Linux "
            "Kernel Modules), so the driver loads but does not initialise this GPU",
            fix="install the open flavor of the same driver branch (the distribution's "
            "nvidia-driver-NNN-open or nvidia-open package, or the .run installer's `-M=open`) "
            "and reboot",
            evidence=ev,
        )
    ]


def check_open_module_unsupported(
    facts: HostFacts, matrix: Matrix, intent: Intent
) -> list[Finding]:
    """The open kernel modules on a GPU they do not drive. NVIDIA's driver installation guide
    (Kernel Modules): the proprietary flavor "is required for older GPUs from the Maxwell,
    Pascal, or Volta architectures. The open-source GPU kernel modules are not compatible with
    these platforms"; the open modules print "... is not supported by open nvidia.ko because it
    does not include the required GPU System Processor (GSP)". The matrix marks those
    architectures (`open_module_unsupported`)."""
    code = "open-module-unsupported"
    flavor = facts.kernel.nvidia_module_flavor
    ccs = {g.compute_capability for g in facts.nvml.gpus if g.compute_capability}
    if flavor is None or not ccs:
        return [finding(code, NA, "kernel module flavor or GPU architecture not known")]
    refused = _gpus_whose_architecture(facts, matrix, lambda a: a.open_module_unsupported)
    ev = [("module_flavor", flavor), ("gpus_open_modules_refuse", [n for n, _, _ in refused])]
    if flavor != "open":
        return [finding(code, NA, f"the {flavor} kernel module flavor is loaded", evidence=ev)]
    if not refused:
        title = "the open kernel modules drive every GPU here (Turing or later)"
        return [finding(code, OK, title, evidence=ev)]
    name, arch_name, cc = refused[0]
    return [
        finding(
            code,
            ERROR,
            f"{name} ({arch_name}, compute capability {cc}) is not driven by the open kernel "
            "modules, and the open flavor is the one installed",
            detail="the open kernel modules need the GPU System Processor (GSP) that Turing "
            "introduced; they refuse older GPUs ('not supported by open nvidia.ko because it does "
            "not include the required GPU System Processor'), so nvidia-smi finds no device",
            fix="install the proprietary flavor of the same driver branch (the distribution's "
            "nvidia-driver-NNN package without -open, or the .run installer's "
            "`-M=proprietary`) and reboot",
            evidence=ev,
        )
    ]


CHECKS = (
    check_gpu_present,
    check_pci_binding,
    check_nouveau,
    check_module_loaded,
    check_nvml_library,
    check_version_mismatch,
    check_nvml_init,
    check_driver_version,
    check_open_module_required,
    check_open_module_unsupported,
)
