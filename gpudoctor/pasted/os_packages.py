"""The NVIDIA driver's and container toolkit's versions (and cuDNN's and the CUDA toolkit's)
(and NCCL's) as the system's package manager shows them: `dpkg -l` and
`dpkg-query -W` (`ii  libnvidia-compute-550:amd64  550.107.02-0ubuntu0.22.04.1`), `apt list
--installed` (`nvidia-utils-550/jammy-updates,now 550.107.02-0ubuntu0.22.04.1 amd64`), apt's own
output and history (`Setting up nvidia-driver-550 (550.107.02-...)`, `Upgrade:
libnvidia-compute-550:amd64 (550.90.07-..., 550.107.02-...)`), `rpm -qa`
(`nvidia-driver-libs-550.54.15-1.el9.x86_64`), `dnf list` (`nvidia-driver.x86_64
3:550.54.15-1.el9`) and `pacman -Q` (`nvidia-utils 550.54.14-1`).

A user-space driver package (the libraries, nvidia-smi) gives the installed library's
version, which the driver/library mismatch check compares with the loaded kernel module
(/proc/driver/nvidia/version); kernel-side packages (DKMS, kernel sources) give only the
driver release. A version is read only with the package revision that follows it
("550.107.02-0ubuntu..."), so that prose naming a package and a number is not taken for a
listing. Lines that remove a package, or only download it, say nothing about what is
installed and are skipped.
"""

from __future__ import annotations

import re

from gpudoctor.pasted.draft import Draft, put
from gpudoctor.pasted.scan import ascii_lower, lines_with

NAME = "driver packages"
DESCRIPTION = (
    "the driver's (and cuDNN's, NCCL's, the CUDA toolkit's) packages in `dpkg -l`, `apt list`, "
    "apt's log, `rpm -qa`, `dnf list`, `pacman -Q`"
)

_VERSION = r"\d{3}\.\d{1,3}(?:\.\d{1,3})?"
_USER_SPACE = (
    # NVIDIA's RHEL repository names the driver's meta-package nvidia-driver-latest-dkms
    r"libnvidia-compute|nvidia-utils|nvidia-driver(?:-latest-dkms|-libs|-cuda-libs|-cuda|-nvml)?|"
    r"libnvidia-gl|nvidia-compute-utils|cuda-drivers|xorg-x11-drv-nvidia(?:-libs|-cuda-libs|-cuda)?"
)
# Packages that name the driver release but hold no user-space library: the kernel side, and
# Ubuntu's libnvidia-common (the driver's shared data files, upgraded with the libraries).
_KERNEL_SIDE = (
    r"nvidia-dkms|nvidia-kernel-common|nvidia-kernel-source|kmod-nvidia(?:-latest|-open)?(?:-dkms)?|"
    r"libnvidia-common"
)
_PACKAGE = re.compile(
    rf"(?<![\w.-])(?P<name>{_USER_SPACE}|{_KERNEL_SIDE})(?:-\d{{3}}(?:-server|-open)?)?"
    # an architecture (dpkg's ":amd64", dnf's ".x86_64") or apt list's "/suite,now"
    r"(?::[a-z0-9]{2,8}|/[\w.,-]{1,80}|\.(?:x86_64|aarch64|ppc64le|noarch))?"
    # a column gap, apt's "(" (its history's "(old, new)"), or rpm's "-" before the version
    rf"(?:\s{{1,40}}|\s{{0,2}}\((?:{_VERSION}-[^,()\s]{{1,60}},\s{{0,2}})?|-)"
    rf"(?:\d{{1,2}}:)?(?P<v>{_VERSION})-\w",
    re.IGNORECASE,
)
# The container toolkit's own package (its version is what the toolkit checks judge).
_TOOLKIT = re.compile(
    r"(?<![\w.-])nvidia-container-toolkit(?:-base)?"
    r"(?::[a-z0-9]{2,8}|/[\w.,-]{1,80}|\.(?:x86_64|aarch64|ppc64le))?"
    r"(?:\s{1,40}|\s{0,2}\((?:1\.\d{1,2}\.\d{1,3}-[^,()\s]{1,60},\s{0,2})?|-)"
    r"(?:\d{1,2}:)?(?P<v>1\.\d{1,2}\.\d{1,3})-\w",
    re.IGNORECASE,
)
# cuDNN's packages ("libcudnn8  8.9.7.29-1+cuda12.2", "libcudnn9-cuda-12  9.1.0.70-1", rpm's
# "libcudnn8-8.9.7.29-1.cuda12.2.x86_64") and the CUDA toolkit's meta-package ("cuda-toolkit-12-4
# 12.4.1-1"): the versions installed, read like the driver's (only with a package revision).
_CUDNN = re.compile(
    r"(?<![\w.-])libcudnn(?P<major>\d{1,2})(?:-cuda-\d{1,2})?(?:-dev(?:el)?)?"
    r"(?::[a-z0-9]{2,8}|/[\w.,-]{1,80})?(?:\s{1,40}|-)(?P<v>\d{1,2}\.\d{1,2}\.\d{1,3})(?:\.\d{1,3})?-\w",
    re.IGNORECASE,
)
_TOOLKIT_PACKAGE = re.compile(
    r"(?<![\w.-])cuda-toolkit-(?P<major>\d{1,2})-(?P<minor>\d{1,2})"
    r"(?::[a-z0-9]{2,8}|/[\w.,-]{1,80})?(?:\s{1,40}|-)(?P<v>\d{1,2}\.\d{1,2}\.\d{1,3})-\w",
    re.IGNORECASE,
)
# NCCL's ("libnccl2  2.18.5-1+cuda12.2", rpm's "libnccl-2.18.5-1+cuda12.2.x86_64"): its version
# and the CUDA it was built for.
_NCCL = re.compile(
    r"(?<![\w.-])libnccl\d?(?::[a-z0-9]{2,8}|/[\w.,-]{1,80})?(?:\s{1,40}|-)"
    r"(?P<v>2\.\d{1,2}\.\d{1,3})-\d{1,3}[+.]cuda(?P<cuda>\d{1,2}\.\d{1,2})\b",
    re.IGNORECASE,
)
_NEEDLES = ("nvidia-", "cuda-drivers", "libcudnn", "cuda-toolkit-", "libnccl", "kmod-nvidia")
# The first word of a line that removes a package or only fetches it, and dpkg's states of a
# package that is not installed (rc: removed, its configuration kept; un/pn: not installed).
_NOT_INSTALLED = (
    "remove",
    "removing",
    "removed",
    "purge",
    "purging",
    "erase",
    "erasing",
    "get",
    "obsoleted",
    "preparing",
    "rc",
    "un",
    "pn",
)
_FIRST_WORD = re.compile(r"^\s{0,8}([A-Za-z]{1,12})\b")


def parse(text: str, draft: Draft) -> None:
    for start, line in lines_with(ascii_lower(text), text, _NEEDLES):
        if len(line) > 2000:
            continue
        first = _FIRST_WORD.match(line)
        if first is not None and first.group(1).lower() in _NOT_INSTALLED:
            continue
        if _cuda_packages(line, draft):
            draft.read_at(NAME, text, start)
            continue
        toolkit = _TOOLKIT.search(line)
        if toolkit is not None:
            put(draft.runtime, "toolkit_version", toolkit.group("v"))
        found = _driver_package(line)
        if found is not None:
            version = found.group("v")
            if not _release_only(found):
                put(draft.nvml, "library_version", version)
            put(draft.nvml, "driver_version", version)
        if toolkit is None and found is None:
            continue
        draft.read_at(NAME, text, start)


def _release_only(found: re.Match[str]) -> bool:
    return re.fullmatch(_KERNEL_SIDE, found.group("name"), re.IGNORECASE) is not None


def _driver_package(line: str) -> re.Match[str] | None:
    """The line's first user-space driver package, else its first release-only one: apt's
    history lists libnvidia-common before the libraries it was upgraded with."""
    first = None
    for found in _PACKAGE.finditer(line):
        if not _release_only(found):
            return found
        first = first or found
    return first


def _cuda_packages(line: str, draft: Draft) -> bool:
    """A cuDNN package gives the cuDNN installed (its major must be the package's), NCCL's its
    version and CUDA, the CUDA toolkit's meta-package the toolkit's version."""
    cudnn = _CUDNN.search(line)
    if cudnn is not None and cudnn.group("v").split(".")[0] == cudnn.group("major"):
        draft.libraries.setdefault("cudnn", cudnn.group("v"))
        draft.note(f"cuDNN {cudnn.group('v')} is installed by the system's package manager")
        return True
    nccl = _NCCL.search(line)
    if nccl is not None:
        put(draft.libraries, "nccl", nccl.group("v"))
        put(draft.libraries, "nccl_cuda", nccl.group("cuda"))
        return True
    kit = _TOOLKIT_PACKAGE.search(line)
    if kit is not None and kit.group("v").startswith(f"{kit.group('major')}.{kit.group('minor')}."):
        if draft.cuda_toolkit_version is None:
            draft.cuda_toolkit_version = kit.group("v")
        return True
    return False
