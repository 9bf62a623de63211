"""The NVIDIA driver read from text: its version (prose, packages, the .run installer), NVML's
library and return codes, the kernel modules' load lines, lsmod, DKMS, nvidia-smi's process
table and the kernel log's Xid lines."""

from __future__ import annotations

import re

from gpudoctor import nvml_codes
from gpudoctor.facts import PciDevice
from gpudoctor.pasted import host_tools
from gpudoctor.pasted.draft import Draft, put
from gpudoctor.pasted.facts_scan.frameworks import _python
from gpudoctor.pasted.facts_scan.rule import _UNITS, _VER3, _Rule, _rx, _says
from gpudoctor.probes.nvml_decode import library_version_from_path
from gpudoctor.probes.xid import parse_record


def _driver(m: re.Match[str], d: Draft) -> bool:
    if m.groupdict().get("branch"):
        return _driver_branch(m.group("branch"), "the NVIDIA driver of branch {} is named", d)
    put(d.nvml, "driver_version", m.group("v"))
    return True


def _driver_branch(branch: str, said: str, d: Draft) -> bool:
    """A driver branch without its full version ("driver 535", the "nvidia-driver-535"
    package): a note, never the version (the checks compare full versions)."""
    d.note(said.format(branch))
    return True


def _driver_runfile(m: re.Match[str], d: Draft) -> bool:
    """The driver's .run installer named: the release someone installs or installed, a note
    (the installer may have failed; only the driver itself says what runs)."""
    d.note(f"the NVIDIA driver's installer {m.group('v')} (.run) is named")
    return True


def _flatpak_gl(m: re.Match[str], d: Draft) -> bool:
    """A flatpak GL runtime of the NVIDIA driver ("org.freedesktop.Platform.GL.nvidia-550-90-07"
    and its GL32 twin): the driver version it carries, dashed as flatpak names it."""
    if m.group("v") in d.flatpak_gl_nvidia:
        return False
    d.flatpak_gl_nvidia.append(m.group("v"))
    return True


def _nouveau_said(m: re.Match[str], d: Draft) -> bool:
    d.module_loaded("nouveau")
    return True


def _nvml_library(m: re.Match[str], d: Draft) -> bool:
    """nvidia-smi's "NVML library version: 535.129" under a driver/library mismatch: the
    user-space library, which differs from the loaded kernel module."""
    put(d.nvml, "library_version", m.group("v"))
    return True


def _nvml_library_file(m: re.Match[str], d: Draft) -> bool:
    """The file the soname link points at, as `ls -l` or `ldconfig -v` show it
    ("libnvidia-ml.so.1 -> libnvidia-ml.so.535.129.03"): the library the loader uses, named by
    its full version, as the live probe reads it (nvml_decode). A file listed alone may be an
    older driver's leftover (_driver_library_file only says it)."""
    version = library_version_from_path(m.group("path"))
    if version is None:
        return False
    put(d.nvml, "library_version", version)
    return True


def _nvml_error(m: re.Match[str], d: Draft) -> bool:
    """An NVML return code a program printed, by name or number (nvml_codes): NVML's status on
    that host, as the probe classifies it. Not source code that declares or catches the code
    (an enum listing "NVML_ERROR_DRIVER_NOT_LOADED = 9", `except NVMLError_DriverNotLoaded`)."""
    line, name = m.string, m.group("name")
    if "except" in line or "class " in line or _ASSIGNED.match(line, m.end()):
        return False
    if name.isdecimal():
        status = nvml_codes.status_of_code(int(name))
    else:
        status = nvml_codes.status_of_name(name)
    if status is None:
        return False
    put(d.nvml, "status", status)
    return True


_ASSIGNED = re.compile(r"\s{0,8}[=,]")


def _open_modules(m: re.Match[str], d: Draft) -> bool:
    """The version the open kernel modules' bug form names: the driver installed, open flavor
    (the form does not say the module is loaded)."""
    put(d.nvml, "driver_version", m.group("v"))
    put(d.kernel, "nvidia_module_flavor", "open")
    return True


def _module(m: re.Match[str], d: Draft) -> bool:
    put(d.kernel, "nvidia_module_version", m.group("v"))
    put(d.kernel, "nvidia_module_flavor", "open" if m.group("open") else "proprietary")
    d.module_loaded("nvidia")
    return True


def _modeset_module(m: re.Match[str], d: Draft) -> bool:
    """nvidia-modeset's load line: it is built and loaded with the nvidia module of the same
    version (it depends on it). Only the open build says "Open" there; a proprietary-looking
    line also comes from older open builds, so the flavor is kept only when it says so."""
    put(d.kernel, "nvidia_module_version", m.group("v"))
    if m.group("open"):
        put(d.kernel, "nvidia_module_flavor", "open")
    d.module_loaded("nvidia")
    d.module_loaded("nvidia_modeset")
    return True


def _sys_module_version(m: re.Match[str], d: Draft) -> bool:
    """The version /sys/module/nvidia/version holds, quoted with it on one line or as inxi -G
    prints it ("driver: nvidia v: 535.113.01"): the nvidia module is loaded, at that version."""
    put(d.kernel, "nvidia_module_version", m.group("v"))
    d.module_loaded("nvidia")
    return True


def _dependent_module(m: re.Match[str], d: Draft) -> bool:
    """nvidia-uvm and nvidia-drm load only on top of the nvidia module: both are loaded."""
    d.module_loaded("nvidia")
    d.module_loaded("nvidia_drm" if m.group("drm") else "nvidia_uvm")
    return True


def _module_firmware(m: re.Match[str], d: Draft) -> bool:
    d.note(f"the nvidia module installed for the kernel image is driver {m.group('v')}'s")
    return True


def _module_gpu_attached(m: re.Match[str], d: Draft) -> bool:
    """The RM's "NVRM: GPU at PCI:0000:01:00: GPU-<uuid>": the nvidia module printed it as it
    took the GPU, so the module is loaded (the line states no version)."""
    d.module_loaded("nvidia")
    return True


def _driver_library_file(m: re.Match[str], d: Draft) -> bool:
    """A user-space driver library named by its file ("libcuda.so.550.54.15",
    "libnvidia-ml.so.535.129.03"): a driver of that version was installed there. Said, not
    taken as the library in use: a listing shows files, and an older driver's leftovers are
    files too (the loader's own log, LD_DEBUG, says which one it loads)."""
    d.note(f"the text names the driver's library file {m.group(0)} (driver {m.group('v')})")
    return True


def _lsmod(m: re.Match[str], d: Draft) -> bool:
    """An `lsmod` line ("nvidia_uvm   1527808  0"): that module is loaded."""
    return d.module_loaded(m.group("mod").lower())


def _dkms(m: re.Match[str], d: Draft) -> bool:
    """`dkms status` ("nvidia/535.129.03, 6.5.0-14-generic, x86_64: installed"): the driver's
    kernel module built for that kernel; "installed" is not "loaded", so the version and the
    kernels it is installed for."""
    put(d.nvml, "driver_version", m.group("v"))
    kernels = d.kernel.setdefault("nvidia_dkms_kernels", [])
    if m.group("k") not in kernels:
        kernels.append(m.group("k"))
    return True


def _dkms_not_installed(m: re.Match[str], d: Draft) -> bool:
    kernel = f" for kernel {m.group('k')}" if m.group("k") else ""
    d.note(
        f"DKMS lists the NVIDIA module {m.group('v')} as {m.group('state')}{kernel}, not installed"
    )
    return True


def _driver_installer_log(m: re.Match[str], d: Draft) -> bool:
    d.note(f"nvidia-installer's log of installing driver {m.group('v')}")
    return True


def _nouveau(m: re.Match[str], d: Draft) -> bool:
    """dmesg's "nouveau 0000:01:00.0: NVIDIA GM204" (or any other line nouveau logs for a
    device, "nouveau 0000:01:00.0: DRM: ..."): nouveau is loaded and drives that GPU."""
    d.module_loaded("nouveau")
    devices = d.kernel.setdefault("pci_devices", [])
    if all(dev.address != m.group("bus") for dev in devices):
        devices.append(
            PciDevice(address=m.group("bus"), vendor_id="0x10de", kind="gpu", driver="nouveau")
        )
    return True


def _cmdline_any(m: re.Match[str], d: Draft) -> bool:
    host_tools.read_cmdline((m.group("cmdline") or m.group("c2") or "").strip(), d)
    return True


def _process_table(m: re.Match[str], d: Draft) -> bool:
    d.note(
        "an nvidia-smi process table: inside a container it lists no process, because the "
        "driver does not see the container's process IDs (run with --pid=host to see them)",
    )
    return True


def _driver_packages(m: re.Match[str], d: Draft) -> bool:
    return _driver_branch(m.group("branch"), "NVIDIA driver packages of branch {} are named", d)


def _xid(m: re.Match[str], d: Draft) -> bool:
    event = parse_record(m.string)
    if event is None:
        return False
    d.xid_events.append(event)
    return True


RULES: tuple[_Rule, ...] = (
    _Rule(
        "driver",
        # "Driver==515.86.01" in a list written like pip's, "driver: `550.54.15`" in markdown
        _rx(
            # nvidia-smi -q aligns its colons: "Driver Version                        : 535..."
            # a list may set it off with a dash: "NVIDIA Driver -       540.4.0"
            rf"\bdrivers?(?:[ _]version)?\s{{0,40}}(?:[:=]{{0,2}}|-(?=\s))\s{{0,8}}"
            rf"(?:nvidia\s{{1,4}})?`?v?"
            # or its branch alone ("driver version 535", "Driver: 550"), not a count or size
            rf"(?:(?P<v>{_VER3})\b|(?P<branch>[3-9]\d{{2}})(?![\d.]|\s{{0,2}}(?:[%+]|-\w|{_UNITS})))"
        ),
        _driver,
    ),
    _Rule("nvidia", _rx(rf"\bnvidia(?:[- ]driver)?[- ](?P<v>{_VER3})\b"), _driver),
    _Rule(
        # the version or branch before the word ("the 550 driver", "R535 driver", "535.183.01
        # drivers"), not a GPU model's number ("GTX 970 driver")
        "driver",
        _rx(
            r"(?<![\w.])(?<!gtx )(?<!rtx )(?<!gts )(?<!gt )(?<!mx )(?<!quadro )R?"
            rf"(?:(?P<v>{_VER3})|(?P<branch>[3-9]\d{{2}}))\s{{1,2}}(?:series |branch )?"
            r"(?:nvidia |proprietary |open )?drivers?\b"
        ),
        _driver,
    ),
    _Rule(
        # the driver's own installer named by its file ("NVIDIA-Linux-x86_64-550.54.15.run")
        "nvidia-linux-",
        _rx(
            r"\bNVIDIA-Linux-(?:x86_64|aarch64|ppc64le)-"
            rf"(?P<v>{_VER3})(?:-grid|-vgpu-kvm|-no-compat32)?\.run\b"
        ),
        _driver_runfile,
    ),
    _Rule(
        # "nouveau is still loaded", "the nouveau driver is in use": said, not listed
        "nouveau",
        _rx(
            r"\bnouveau(?: kernel)?(?: driver| module)?\s(?:is|was)\s(?:still\s)?"
            r"(?:loaded|in use|active|running|being used)\b"
        ),
        _nouveau_said,
    ),
    _Rule(
        "nvml library version",
        _rx(rf"\bNVML library version:\s{{0,4}}(?P<v>{_VER3})\b"),
        _nvml_library,
    ),
    _Rule(
        "libnvidia-ml.so.1 -> ",
        _rx(
            r"\blibnvidia-ml\.so\.1 -> (?:/\S{0,200}/)?"
            rf"(?P<path>libnvidia-ml\.so\.{_VER3})(?![\w.-])"
        ),
        _nvml_library_file,
    ),
    _Rule(  # C and go-nvml name NVML's codes by the enum: "NVML_ERROR_DRIVER_NOT_LOADED"
        "error_",
        _rx(
            r"\bnvml(?:_|\.)error_(?P<name>no_permission|driver_not_loaded|library_not_found|"
            r"lib_rm_version_mismatch)\b"
        ),
        _nvml_error,
    ),
    _Rule(  # nvidia-ml-py's exception classes: "pynvml.NVMLError_DriverNotLoaded: ..."
        "nvmlerror_",
        _rx(r"\bNVMLError_(?P<name>[A-Za-z]{5,30})\b"),
        _nvml_error,
    ),
    _Rule(  # the Rust nvml-wrapper's variants: "Failed to initialize nvml: DriverNotLoaded"
        ("drivernotloaded", "librarynotfound", "librmversionmismatch", "nopermission"),
        _rx(
            r"\bnvml\b[^\n]{0,80}?\b(?P<name>DriverNotLoaded|LibraryNotFound|"
            r"LibRmVersionMismatch|NoPermission)\b"
        ),
        _nvml_error,
    ),
    _Rule(  # the bare number a call returned: "nvmlInit() returned 9", "NVML_ERROR 9"
        "nvml",
        _rx(
            r"\bnvml\w{0,24}?(?:\(\))?[ :]{0,3}(?:[a-z ]{0,30}?\b)?(?:returned|return code|"
            r"error code|error|failed with(?: error)?(?: code)?)\s{0,2}[:=]?\s{0,2}"
            r"(?P<name>\d{1,3})\b(?![.\d])"
        ),
        _nvml_error,
    ),
    _Rule(
        # "Python 3.10.12", "Python version: 3.10.6", "python==3.9.11", and a traceback's
        # interpreter in its paths ("/opt/conda/lib/python3.10/site-packages/torch/...")
        "python",
        _rx(
            r"\bpython(?:\s{0,2}version)?\s{0,4}[:=]{0,2}\s{0,4}v?(?P<v>3\.\d{1,2}(?:\.\d{1,2})?)(?![\d.])"
        ),
        _python,
    ),
    _Rule(  # the open kernel modules' bug form: "NVIDIA Open GPU Kernel Modules Version: 560.28.03"
        "open gpu kernel modules version",
        _rx(rf"\bNVIDIA Open GPU Kernel Modules Version\s{{0,4}}:\s{{0,4}}(?P<v>{_VER3})\b"),
        _open_modules,
    ),
    _Rule(
        "kernel module",
        _rx(
            r"NVRM: loading NVIDIA UNIX (?P<open>Open )?[\w ]{0,30}?Kernel Module"
            rf"(?: for \w{{1,20}})?\s{{1,8}}(?P<v>{_VER3})"
        ),
        _module,
    ),
    _Rule(
        # "nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  550.54.15"
        "kernel mode setting driver",
        _rx(
            r"nvidia-modeset: Loading NVIDIA (?:UNIX )?(?P<open>Open )?Kernel Mode Setting Driver"
            rf" for [\w ]{{1,20}}?\s{{1,8}}(?P<v>{_VER3})\b"
        ),
        _modeset_module,
    ),
    _Rule(
        # inxi -G's device line: "Device-1: NVIDIA GA102 [...] driver: nvidia v: 535.113.01",
        # the version inxi read from /sys/module/nvidia/version (the module loaded)
        "driver: nvidia v:",
        _rx(rf"\bdriver: nvidia v: (?P<v>{_VER3})\b"),
        _sys_module_version,
    ),
    _Rule(
        # the X server log's lines of the NVIDIA X driver and GLX module as they load ("(II)
        # NVIDIA dlloader X Driver  550.54.15  Tue Feb 27 ...", "NVIDIA GLX Module  550.54.15"):
        # user-space parts of one driver installation, as libnvidia-ml is
        ("nvidia dlloader x driver", "nvidia glx module"),
        _rx(rf"\bNVIDIA (?:dlloader X Driver|GLX Module)\s{{1,8}}(?P<v>{_VER3})\b"),
        _nvml_library,
    ),
    _Rule(
        # the modules that load only on a loaded nvidia module, as they say so: nvidia-uvm's
        # "Loaded the UVM driver, major device number 510" and DRM's "[drm] Initialized
        # nvidia-drm 0.0.0 20160202 for 0000:01:00.0 on minor 1"
        ("loaded the uvm driver", "initialized nvidia-drm"),
        _rx(r"\bnvidia-uvm: Loaded the UVM driver\b|\bInitialized (?P<drm>nvidia-drm) \d"),
        _dependent_module,
    ),
    _Rule(
        # initramfs-tools' and mkinitcpio's warning that the module lists firmware the image
        # lacks ("W: Possible missing firmware /lib/firmware/nvidia/550.54.15/gsp_ga10x.bin for
        # module nvidia"): the release of the nvidia module installed for that kernel
        "possible missing firmware",
        _rx(
            rf"Possible missing firmware \S{{0,80}}/nvidia/(?P<v>{_VER3})/\S{{1,80}} for module "
            r"nvidia\b"
        ),
        _module_firmware,
    ),
    _Rule(  # the RM as it attaches a GPU (osinit.c): "NVRM: GPU at PCI:<bus>: GPU-<uuid>"
        "nvrm: gpu at pci:",
        _rx(
            r"NVRM: GPU at PCI:[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}(?:\.\d)?: "
            r"GPU-[0-9a-f-]{8,40}"
        ),
        _module_gpu_attached,
    ),
)


RULES_2: tuple[_Rule, ...] = (
    _Rule(
        "nvidia",
        _rx(
            r"^\s{0,4}(?P<mod>nvidia(?:_uvm|_drm|_modeset|_peermem|_fs)?|nv_peer_mem|nouveau)"
            r"\s{1,40}\d{3,9}\s{1,8}\d{1,4}\b"
        ),
        _lsmod,
    ),
    _Rule(
        "nouveau",
        _rx(r"^\s{0,4}(?P<mod>nouveau)\s{1,40}\d{3,9}\s{1,8}\d{1,4}\b"),
        _lsmod,
    ),
    _Rule(
        "installed",
        _rx(
            rf"^\s{{0,4}}nvidia(?:-srv|-open)?[/,]\s{{0,2}}(?P<v>{_VER3}),\s{{0,2}}(?P<k>[^\s,]{{1,80}}),\s{{0,2}}\w{{1,12}}:\s{{0,2}}installed"
        ),
        _dkms,
    ),
    _Rule(
        # `dkms status` of a module added or built but installed for no kernel ("nvidia/550.54.15:
        # added", "nvidia/550.54.15, 6.5.0-27-generic, x86_64: built"): the driver release whose
        # module DKMS holds, a note (no kernel has it installed)
        ("added", "built"),
        _rx(
            rf"^\s{{0,4}}nvidia(?:-srv|-open)?[/,]\s{{0,2}}(?P<v>{_VER3})"
            r"(?:,\s{0,2}(?P<k>[^\s,]{1,80}),\s{0,2}\w{1,12})?:\s{0,2}(?P<state>added|built)\b"
        ),
        _dkms_not_installed,
    ),
    _Rule(
        # nvidia-installer's log header ("installer version: 550.54.15"): the release it installs
        "installer version:",
        _rx(rf"^\s{{0,4}}installer version:\s{{0,4}}(?P<v>{_VER3})\b"),
        _driver_installer_log,
    ),
    _Rule(
        "nouveau 0000:",
        _rx(r"\bnouveau (?P<bus>[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.\d): \S"),
        _nouveau,
    ),
    _Rule(
        "command line:",
        _rx(
            r"\bKernel command line:\s{0,4}(?P<cmdline>\S[^\n]{0,1000})"
            r"|\bCommand line:\s{0,4}(?P<c2>BOOT_IMAGE=[^\n]{0,1000})"
        ),
        _cmdline_any,
    ),
)


RULES_3: tuple[_Rule, ...] = (
    _Rule(
        "processes:",
        _rx(r"\|\s{0,4}Processes:\s{10,80}(?:GPU Memory\s{0,4})?\|"),
        _process_table,
    ),
)


RULES_4: tuple[_Rule, ...] = (
    _Rule(
        "nvidia-",
        _rx(
            r"\bnvidia-(?:driver|dkms|utils|headless(?:-no-dkms)?|kernel-source|kernel-common|"
            r"compute-utils|fabricmanager)-(?P<branch>\d{3})(?:-server|-open)?\b"
        ),
        _driver_packages,
    ),
)


RULES_5: tuple[_Rule, ...] = (
    _Rule(
        "fabricmanager",
        _rx(r"\bnv(?:idia)?-fabricmanager\b"),
        _says("the text is about NVIDIA Fabric Manager (NVSwitch systems: HGX/DGX)"),
    ),
)


RULES_6: tuple[_Rule, ...] = (
    _Rule(
        "xid",
        _rx(r"NVRM: Xid \(PCI:[0-9a-f:]{7,16}\): \d{1,3}"),
        _xid,
    ),  # flatpak's NVIDIA GL runtimes as `flatpak list` / `remote-ls` / install lines name them,
    # and /sys/module/nvidia/version quoted with its value on the same line ("says `396.24.02`",
    # "→ 396.24.02"): the loaded module the runtime must match
    _Rule(
        "org.freedesktop.platform.gl",
        _rx(r"\borg\.freedesktop\.Platform\.GL(?:32)?\.nvidia-(?P<v>\d{3}-\d{1,3}(?:-\d{1,3})?)\b"),
        _flatpak_gl,
    ),
    _Rule(
        "/sys/module/nvidia/version",
        _rx(
            r"/sys/module/nvidia/version`?\s{0,4}(?:says|reports|shows|is|:|=|→|->)\s{0,4}`?"
            rf"(?P<v>{_VER3})\b"
        ),
        _sys_module_version,
    ),
)
