"""The host read from text: the kernel release (uname, /proc/version, a distribution's
flavour), the OS release, the CPU's machine (lscpu, platform strings, conda's platform),
WSL and Windows."""

from __future__ import annotations

import re

from gpudoctor.matrix.platforms import machine_of
from gpudoctor.pasted.draft import Draft, put
from gpudoctor.pasted.facts_scan.cuda import _driver_cuda
from gpudoctor.pasted.facts_scan.drivers import _driver_library_file
from gpudoctor.pasted.facts_scan.rule import _VER3, _Rule, _rx


def _uname(m: re.Match[str], d: Draft) -> bool:
    put(d.kernel, "release", m.group("release"))
    if m.groupdict().get("machine"):
        put(d.platform, "machine", m.group("machine"))
    return True


def _lscpu(m: re.Match[str], d: Draft) -> bool:
    """lscpu's `Architecture: aarch64`: the machine, as `uname -m` names it."""
    put(d.platform, "machine", machine_of(m.group("machine")))
    return True


def _server_arm(m: re.Match[str], d: Draft) -> bool:
    """NVIDIA's name for server Arm (SBSA: its CUDA repositories' and archives' "sbsa"), and
    the Grace CPU (Grace Hopper, Grace Blackwell): an aarch64 host, where nothing else said
    which (a machine stated is kept: put never overwrites)."""
    put(d.platform, "machine", "aarch64")
    d.note("the text names server Arm (SBSA, Grace): an aarch64 host")
    return True


def _kernel(m: re.Match[str], d: Draft) -> bool:
    put(d.kernel, "release", m.group("release"))
    return True


# Lines that name a kernel other than the running one: a package of another kernel's headers or
# image, the modules folder DKMS builds into (for a kernel it may not run yet).
_OTHER_KERNEL = ("dkms", "linux-headers", "linux-image", "linux-modules", "/lib/modules")

# a row of `kubectl get nodes -o wide` (a node's kernel, of a cluster whose nodes may differ:
# pasted/cluster.py reads that table)
_NODE_ROW = re.compile(r"\b(?:not)?ready\b[^\n]{0,80}\bv1\.\d{1,2}\.\d{1,3}")

# a line of `dkms status` ("nvidia/550.54.15, 6.5.0-27-generic, x86_64: installed"): a kernel
# DKMS built the module for, which need not be the one running
_DKMS_ROW = re.compile(
    r"^\s{0,8}[\w.-]{1,40}[/,]\s{0,2}[\w.~+-]{1,40},\s{0,2}\S{1,80},\s{0,2}\w{1,12}:"
)


def _flavoured_kernel(m: re.Match[str], d: Draft) -> bool:
    """A release with its distribution's flavour ("6.8.0-45-generic", "6.1.0-18-amd64",
    "5.14.0-427.13.1.el9_4.x86_64"): a kernel release whatever word stands before it."""
    line = m.string.lower()
    if any(word in line for word in _OTHER_KERNEL) or _NODE_ROW.search(line):
        return False
    if _DKMS_ROW.match(line):
        return False
    return _kernel(m, d)


def _kernel_series(m: re.Match[str], d: Draft) -> bool:
    """ "kernel 6.8", "the 6.5 kernel": a series, not a release (the checks compare releases)."""
    d.note(f"the text names Linux kernel {m.group('mm') or m.group('mm2')} (a series, no release)")
    return True


_OS_IDS = {
    "ubuntu": "ubuntu",
    "kubuntu": "ubuntu",
    "xubuntu": "ubuntu",
    "lubuntu": "ubuntu",
    "debian": "debian",
    "rocky": "rocky",
    "centos": "centos",
    "red hat": "rhel",
    "rhel": "rhel",
    "fedora": "fedora",
    "almalinux": "almalinux",
    "amazon linux": "amzn",
    "opensuse": "opensuse",
    "sles": "sles",
    "suse linux enterprise server": "sles",
    "arch linux": "arch",
}


def _os(m: re.Match[str], d: Draft) -> bool:
    if "os_pretty" in d.platform or "os_id" in d.platform:
        return False  # one OS per host: the first one named (collect_env's OS line) stands
    name = m.group("name").lower()
    key = next((k for k in _OS_IDS if name.startswith(k)), None)
    if key is None:
        return False
    put(d.platform, "os_id", _OS_IDS[key])
    if m.group("v"):
        put(d.platform, "os_version", m.group("v"))
    put(d.platform, "os_pretty", m.group(0).strip())
    return True


def _platform_string(m: re.Match[str], d: Draft) -> bool:
    if m.group("release"):
        put(d.kernel, "release", m.group("release"))
        put(d.platform, "machine", m.group("machine"))
    elif m.group("windows"):
        put(d.platform, "os_pretty", f"Windows {m.group('windows')}")
    else:
        return _mac(m.group("macos"), m.group("mac_machine"), d)
    return True


def _mac(version: str | None, machine: str, d: Draft) -> bool:
    """A Mac: no NVIDIA GPU there (`_apple_named`), its machine and, where known, its release."""
    d.named.append(("apple", d.scan_line))
    put(d.platform, "machine", "aarch64" if machine == "arm64" else machine)
    put(d.platform, "os_pretty", f"macOS {version}" if version else "macOS")
    return True


def _archspec(m: re.Match[str], d: Draft) -> bool:
    """conda's __archspec names the CPU's micro-architecture; only x86_64 and aarch64 name the
    machine itself (a Mac's "m1" or a CPU model like "skylake" do not)."""
    machine = m.group("machine")
    if machine not in ("x86_64", "aarch64"):
        return False
    put(d.platform, "machine", machine)
    return True


def _windows_path(m: re.Match[str], d: Draft) -> bool:
    put(d.platform, "os_pretty", "Windows")
    return True


_CONDA_PLATFORMS = {"linux-64": "x86_64", "linux-aarch64": "aarch64", "win-64": "x86_64"}


def _conda_platform(m: re.Match[str], d: Draft) -> bool:
    name = m.group("conda")
    if name.startswith("osx"):
        return _mac(None, "arm64" if name == "osx-arm64" else "x86_64", d)
    put(d.platform, "machine", _CONDA_PLATFORMS[name])
    if name == "win-64":
        put(d.platform, "os_pretty", "Windows")
    return True


def _wsl(m: re.Match[str], d: Draft) -> bool:
    put(d.platform, "wsl", True)
    return True


def _windows(m: re.Match[str], d: Draft) -> bool:
    short = m.group("short")
    put(d.platform, "os_pretty", f"Windows {short}" if short else m.group(0).strip())
    return True


RULES: tuple[_Rule, ...] = (
    _Rule(
        "linux ",
        _rx(
            r"\bLinux \S{1,64} (?P<release>\d\.\d{1,2}\.\d{1,3}-[\w.+~-]{1,60}) #[^\n]{0,200"
            r"}?\b(?P<machine>x86_64|aarch64)\b"
        ),
        _uname,
    ),
    _Rule(
        # Python's platform.platform(), printed by collect_env, `transformers env`, Ultralytics'
        # checks and many a bug template: "Linux-5.15.0-91-generic-x86_64-with-glibc2.35" (the
        # kernel release and machine; older Pythons end "-with-Ubuntu-18.04-bionic"),
        # "Windows-10-10.0.19045-SP0", "macOS-14.3.1-arm64-arm-64bit"
        ("-with-", "windows-1", "macos-1"),
        _rx(
            r"(?<![\w-])(?:Linux-(?P<release>\d\.\d{1,2}\.\d{1,3}(?:-[\w.+~-]{1,60}?)?)-"
            r"(?P<machine>x86_64|aarch64)-with-(?:glibc\d|libc|debian|ubuntu|centos|redhat)"
            r"|Windows-(?P<windows>10|11)-10\.0\.\d{5}(?:-SP\d)?\b"
            r"|macOS-(?P<macos>1\d(?:\.\d{1,2})?(?:\.\d{1,2})?)-(?P<mac_machine>arm64|x86_64)-)"
        ),
        _platform_string,
    ),
    _Rule(
        # a native Windows path (a traceback's, a DLL's, a prompt's): "C:\Users\...\site-packages",
        # "D:\a\_work\...": the program ran on Windows (WSL's are /mnt/c/... or /home/...)
        ":\\",
        # cmd's prompt too: "C:\> pip install ...", "(env) C:\>"
        _rx(r"(?<![\w\\/])[A-Za-z]:\\{1,2}(?:[\w$~ .()-]{1,80}\\{1,2}[\w$~ .()-]{1,80}|>\s)"),
        _windows_path,
    ),
    _Rule(
        # conda's virtual packages (`conda info`: "virtual packages : __cuda=12.2=0"): __cuda is
        # the newest CUDA the display driver supports, as conda detected it
        "__cuda=",
        _rx(r"(?<![\w])__cuda=(?P<v>\d{1,2}\.\d{1,2})=0\b"),
        _driver_cuda,
    ),
    _Rule(
        # and __archspec the machine ("__archspec=1=x86_64", "=aarch64", "=m1"/"=arm64" on a Mac)
        "__archspec=",
        _rx(r"(?<![\w])__archspec=1=(?P<machine>x86_64|aarch64|[a-z][\w]{1,20})\b"),
        _archspec,
    ),
    _Rule(
        # conda's solver and `conda info` name the platform it solves for: "Platform: linux-64",
        # "platform : osx-arm64", "win-64", "linux-aarch64"
        "platform",
        _rx(
            r"^\s{0,24}platform\s{0,4}:\s{0,4}(?P<conda>linux-64|linux-aarch64|osx-arm64|osx-64|"
            r"win-64)\s{0,4}$"
        ),
        _conda_platform,
    ),
    _Rule(  # /proc/version, and the first line of every dmesg: "Linux version R (builder@..."
        "linux version ",
        _rx(r"\bLinux version (?P<release>\d\.\d{1,2}\.\d{1,3}-[\w.+~-]{1,60}) \("),
        _kernel,
    ),
    _Rule(
        "kernel",
        _rx(
            # a form's hint may stand before the colon ("Kernel (e.g. `uname -a`): ..."); WSL's
            # kernel has four numbers ("5.15.146.1-microsoft-standard-WSL2", or cut there)
            r"\bkernel(?: version| release)?(?:\s{0,2}\([^()\n]{1,40}\))?\s{0,4}[:=]?\s{0,4}"
            r"(?:linux\s{1,4})?(?P<release>\d\.\d{1,2}\.\d{1,3}(?:-[\w.+~-]{1,60}|\.\d{1,4}"
            r"(?:-[\w.+~-]{1,60})?))"
        ),
        _kernel,
    ),
    _Rule(  # a release with its distribution's flavour, without the word "kernel"
        (
            "-generic",
            "-lowlatency",
            "-azure",
            "-aws",
            "-gcp",
            "-gke",
            "-oracle",
            "-kvm",
            "-oem",
            "-amd64",
            "-arm64",
            "-cloud-",
            ".el7",
            ".el8",
            ".el9",
            ".el10",
            ".fc3",
            ".fc4",
            "-microsoft-standard",
        ),
        _rx(
            r"(?<![\w./-])(?P<release>\d\.\d{1,2}\.\d{1,3}(?:\.\d{1,4})?-(?:\d{1,5}(?:\.\d{1,5})?"
            r"-(?:generic|lowlatency|azure|aws|gcp|gke|oracle|kvm|oem|amd64|arm64|"
            r"cloud-amd64|cloud-arm64|rt-amd64)|\d{1,5}[\w.]{0,60}?\."
            r"(?:el\d{1,2}(?:_\d{1,2})?|fc\d{2})\.(?:x86_64|aarch64)|microsoft-standard(?:-WSL2)?))"
            r"(?![\w.-])"
        ),
        _flavoured_kernel,
    ),
    _Rule(  # a kernel series in prose: "kernel 6.8", "after updating to the 6.5 kernel"
        "kernel",
        _rx(
            r"\bkernel\s{1,2}(?:version\s{1,2})?v?(?P<mm>[3-9]\.\d{1,2})(?![\d.]|\.\d)\b|"
            r"(?<![\w.])(?<!python )(?<!python)(?P<mm2>[3-9]\.\d{1,2})(?:\.x)?\s{1,2}kernel\b"
        ),
        _kernel_series,
    ),
    _Rule(  # the driver's user-space libraries by file name: "libcuda.so.550.54.15"
        ("libcuda.so.", "libnvidia-"),
        _rx(rf"\blib(?:cuda|nvidia-[a-z0-9-]{{2,30}})\.so\.(?P<v>{_VER3})\b(?![.\d])"),
        _driver_library_file,
    ),
    _Rule(  # platform.release() as jetson-stats labels it: "Release: 5.15.148-tegra"
        "release:",
        _rx(
            r"^\s{0,8}(?:[-*]\s{1,2})?Release:\s{1,8}(?P<release>\d\.\d{1,2}\.\d{1,3}-[\w.+~-]{1,60})"
        ),
        _kernel,
    ),
    _Rule(
        "ubuntu",
        # not an image tag's OS ("cuda:12.4.1-base-ubuntu22.04" is the image's, not the host's)
        # a label glued to it is the OS ("os:ubuntu 22.04"), a tag's image name is not
        _rx(
            # and its flavours ("Kubuntu 22.04") are Ubuntu's releases
            r"(?<![-/.])(?<![\w./-]{4}:)\b(?P<name>[kxl]?ubuntu)(?: server| desktop)?\s{0,4}"
            # or its major alone, as people write it: "Ubuntu 22", "ubuntu 24 LTS"
            r"(?P<v>\d{2}\.\d{2}|(?:1[4-9]|2\d)(?![\d.]|\s{0,2}(?:gb|gib|cores?|cpus?|threads?)\b))"
        ),
        _os,
    ),
    _Rule(
        "debian",
        _rx(r"\b(?P<name>debian)(?: gnu/linux)?\s{1,4}(?P<v>\d{1,2})\b"),
        _os,
    ),
    _Rule(
        "rocky",
        _rx(r"\b(?P<name>rocky(?: linux)?)(?: release)?\s{1,4}(?P<v>\d{1,2}(?:\.\d{1,2})?)"),
        _os,
    ),
    _Rule(
        "centos",
        _rx(r"\b(?P<name>centos)(?: linux| stream)?(?: release)?\s{1,4}(?P<v>\d{1,2})"),
        _os,
    ),
    _Rule(  # /etc/redhat-release and its kin: "AlmaLinux release 9.3", "Fedora release 39"
        "almalinux",
        _rx(r"\b(?P<name>almalinux)(?: release)?\s{1,4}(?P<v>\d{1,2}(?:\.\d{1,2})?)"),
        _os,
    ),
    _Rule(
        "fedora",
        # "release" or "Linux" says it is the OS ("a fedora 12 hours a day" is not)
        _rx(r"\b(?P<name>fedora)(?: linux release| release| linux)\s{1,4}(?P<v>\d{2})\b"),
        _os,
    ),
    _Rule(
        ("suse linux enterprise server", "sles"),
        _rx(r"\b(?P<name>suse linux enterprise server|sles)\s{1,4}(?P<v>\d{2})(?:\s{1,2}SP\d)?\b"),
        _os,
    ),
    _Rule(
        "opensuse",
        _rx(r"\b(?P<name>opensuse)(?: leap)?\s{1,4}(?P<v>\d{2}\.\d)\b"),
        _os,
    ),
    _Rule(
        "red hat",
        _rx(
            r"\b(?P<name>red hat enterprise linux)(?: release| server)?\s{1,4}(?P<v>\d{1,2}("
            r"?:\.\d{1,2})?)"
        ),
        _os,
    ),
    _Rule(
        "rhel",
        _rx(r"\b(?P<name>rhel)\s{0,4}(?P<v>\d{1,2}(?:\.\d{1,2})?)\b"),
        _os,
    ),
    _Rule(
        "amazon linux",
        _rx(r"\b(?P<name>amazon linux)\s{0,4}(?P<v>\d{1,4})?"),
        _os,
    ),
    _Rule(
        "wsl",
        _rx(r"\bwsl ?2?\b|microsoft-standard-wsl"),
        _wsl,
    ),
    _Rule(  # where WSL keeps the Windows driver's libraries: C:\Windows\System32\lxss\lib
        "lxss",
        _rx(r"\\System32\\{1,2}lxss\\{1,2}lib\b"),
        _wsl,
    ),
    _Rule(  # WSL 2's GPU paravirtualization driver, in its kernel log and device node
        ("dxgkrnl", "/dev/dxg"),
        _rx(r"\bdxgkrnl\b|/dev/dxg\b"),
        _wsl,
    ),
    _Rule(
        ("windows", "win1", "win 1"),
        # "win10", "win 11", "Win10x64 Pro": how issue forms are often filled in
        _rx(r"\bwindows (?:10|11|server \d{4})\b|\bwin ?(?P<short>1[01])(?:x64|x86|-64)?\b"),
        _windows,
    ),
    _Rule(
        # prose that puts TensorFlow on native Windows ("tensorflow 2.15 installed with pip on
        # Windows"), where releases after 2.10 are CPU-only; "... on Windows via WSL2" is not
        "tensorflow",
        _rx(
            r"\btensorflow\b[^\n]{0,80}?\bon (?:native[ -])?windows\b"
            r"(?![^\n]{0,60}\b(?:wsl|subsystem))"
        ),
        _windows_path,  # the OS only: "Windows"
    ),
)


RULES_2: tuple[_Rule, ...] = (
    _Rule(
        # jetson-stats' service log (`journalctl -u jtop`): the machine its hardware probe found
        "hardware detected",
        _rx(r"\bjtop\.core\.hardware - Hardware detected (?P<machine>aarch64|x86_64)\b"),
        _lscpu,
    ),
    _Rule(
        ("arch", "platform", "machine", "uname -m"),
        # lscpu's and `docker info`'s "Architecture: aarch64", and the machine as lists and
        # tools label it: "uname -m: aarch64", "- Arch: arm64", jetson_release's "Machine:
        # aarch64", `nvidia-container-cli --version`'s "build platform: x86_64" (not a Compose
        # file's "platform: linux/arm64", the image's platform)
        _rx(
            r"^\s{0,8}(?:[-*]\s{1,2})?(?:\*\*)?(?:uname -m|arch|(?:cpu |system )?architecture|"
            r"platform|machine|build platform)(?:\*\*)?\s{0,30}[:=](?:\*\*)?\s{0,30}`?"
            r"(?P<machine>aarch64|arm64|x86_64|amd64)`?\s{0,4}$"
        ),
        _lscpu,
    ),
)


RULES_3: tuple[_Rule, ...] = (
    _Rule(
        ("sbsa", "grace"),
        # "sbsa" as a word or a repository folder ("/repos/ubuntu2204/sbsa/", "linux-sbsa"),
        # not inside a name ("sbsa_driver.c"); NVIDIA's Grace CPU and superchips
        _rx(
            r"(?<![\w.])sbsa(?![\w.])|\bgrace[- ](?:hopper|blackwell)\b|\bnvidia grace\b|"
            r"\bgrace cpu\b"
        ),
        _server_arm,
    ),
)
