"""The host's own descriptions of itself, as their tools print them:

- `cat /etc/os-release`: `ID=sles`, `VERSION_ID="15.5"`, `PRETTY_NAME="..."` (the same keys the
  live probe reads; only read where ID= and VERSION_ID=, PRETTY_NAME= or VERSION= stand
  together: VERSION="9.3 (Blue Onyx)" and NAME= stand in for the others where a paste cut them).
- `hostnamectl`: right-aligned "Virtualization: kvm", "Architecture: arm64", "Hardware Vendor:",
  "Hardware Model:" under its "Static hostname:" line (systemd's names, as the probe records).
- `cat /proc/cmdline`: a line of kernel parameters (BOOT_IMAGE=..., or root=... with ro/rw);
  its IOMMU words and a nouveau blacklist, read by the same rules as the live probe.
- `mokutil --sb-state`: "SecureBoot enabled" (no HostFacts field: a note, since unsigned
  kernel modules do not load under Secure Boot).
- `env` (or `docker inspect`'s "Env" list, or `kubectl describe pod`'s Environment lines,
  "NVIDIA_VISIBLE_DEVICES:  all") inside a container: NVIDIA_VISIBLE_DEVICES and
  NVIDIA_DRIVER_CAPABILITIES as the live probe reads them from its environment, and the image's
  NVIDIA_REQUIRE_CUDA ("cuda>=12.2 brand=tesla,...": the CUDA the image was built for).
- the size of /dev/shm (a container's, in a pod or `docker exec`): `df` / `df -h`'s row of the
  filesystem mounted on /dev/shm ("shm  64M  0  64M  0% /dev/shm", 1K blocks without -h, df -h's
  units powers of 1024), `mount` / /proc/mounts' tmpfs on /dev/shm with its size= option
  ("size=65536k"; without one a tmpfs is half the memory: not read).
"""

from __future__ import annotations

import re

from gpudoctor.facts import IommuFacts
from gpudoctor.pasted.draft import Draft, put
from gpudoctor.pasted.scan import iter_lines
from gpudoctor.probes.platform import iommu_flags
from gpudoctor.probes.sysfs import nouveau_off_in_cmdline

NAME = "host tools"
DESCRIPTION = "`cat /etc/os-release`, `hostnamectl`, `cat /proc/cmdline`, `mokutil --sb-state`"

_OS_KEY = re.compile(
    r"^(?P<key>ID|VERSION_ID|PRETTY_NAME|NAME|VERSION)=[\"']?(?P<v>[^\"'\n]{1,80})[\"']?\s{0,4}$"
)
_LEADING_VERSION = re.compile(r"^\d{1,4}(?:\.\d{1,3})?(?:\.\d{1,3})?")
_HOSTNAMECTL = re.compile(
    r"^\s{0,20}(?P<key>Virtualization|Architecture|Hardware Vendor|Hardware Model):\s{1,4}"
    r"(?P<v>[^\n]{1,80}?)\s{0,4}$"
)
# systemd's architecture names (hostnamectl) as `uname -m` writes them
_SYSTEMD_ARCH = {"x86-64": "x86_64", "arm64": "aarch64", "ppc64-le": "ppc64le", "s390x": "s390x"}
_PARAM = re.compile(r"^[\w.-]{1,60}(?:=\S{0,300})?$")
_ENV = re.compile(
    r"^\s{0,8}(?:export\s{1,4}|\")?(?P<key>NVIDIA_VISIBLE_DEVICES|NVIDIA_DRIVER_CAPABILITIES|"
    r"NVIDIA_REQUIRE_CUDA)=(?P<v>[^\s\"]{0,200})(?=[\s\",]|$)"  # empty: the same as void
)
# `kubectl describe pod`'s Environment lines: "      NVIDIA_VISIBLE_DEVICES:  all"
_DESCRIBE_ENV = re.compile(
    r"^\s{4,16}(?P<key>NVIDIA_VISIBLE_DEVICES|NVIDIA_DRIVER_CAPABILITIES|NVIDIA_REQUIRE_CUDA):"
    r"[ \t]{1,30}(?P<v>[^\s\"<]{1,200})[ \t]{0,4}$"
)
_REQUIRE_CUDA = re.compile(r"^cuda>=(?P<v>\d{1,2}\.\d{1,2})$")
_SECURE_BOOT = re.compile(r"^\s{0,4}SecureBoot (?P<state>enabled|disabled)\s{0,4}$")


def parse(text: str, draft: Draft) -> None:
    _os_release(text, draft)
    _hostnamectl(text, draft)
    _cmdline(text, draft)
    _secure_boot(text, draft)
    _nvidia_env(text, draft)
    _shm(text, draft)


def _os_release(text: str, draft: Draft) -> None:
    for start, line in iter_lines(text, text, "ID="):
        found = _OS_KEY.match(line)
        if found is None or found.group("key") != "ID":
            continue
        window_start = start
        for _ in range(12):  # os-release is short: its keys stand within a dozen lines
            window_start = text.rfind("\n", 0, max(window_start - 1, 0)) + 1
        window = text[window_start:].split("\n", 25)[:25]
        keys: dict[str, str] = {}
        for row in window:
            pair = _OS_KEY.match(row)
            if pair:
                keys.setdefault(pair.group("key"), pair.group("v").strip())
        if not {"VERSION_ID", "PRETTY_NAME", "VERSION"} & set(keys):
            continue
        if "os_id" in draft.platform:
            return
        # VERSION ("9.3 (Blue Onyx)") where a paste cut VERSION_ID and PRETTY_NAME away
        leading = _LEADING_VERSION.match(keys.get("VERSION", ""))
        named = " ".join(keys[k] for k in ("NAME", "VERSION") if k in keys)
        put(draft.platform, "os_id", keys["ID"].lower())
        put(draft.platform, "os_version", keys.get("VERSION_ID") or (leading and leading.group(0)))
        put(draft.platform, "os_pretty", keys.get("PRETTY_NAME") or named or None)
        draft.read_at(NAME, text, start)
        return


def _hostnamectl(text: str, draft: Draft) -> None:
    at = text.find("Static hostname:")
    if at == -1:
        return
    start = text.rfind("\n", 0, at) + 1
    rows = text[start:].split("\n", 20)[:20]
    read = 0
    for row in rows:
        found = _HOSTNAMECTL.match(row)
        if found is None:
            continue
        key, value = found.group("key"), found.group("v")
        if key == "Virtualization":
            put(draft.platform, "virtualization", value.lower())
        elif key == "Architecture":
            put(draft.platform, "machine", _SYSTEMD_ARCH.get(value.lower(), value.lower()))
        elif key == "Hardware Vendor":
            put(draft.platform, "dmi_vendor", value)
        else:
            put(draft.platform, "dmi_product", value)
        read += 1
    if read:
        draft.read_at(NAME, text, start, len(rows))


def read_cmdline(cmdline: str, draft: Draft) -> None:
    """A kernel command line, as the live probe reads /proc/cmdline."""
    put(draft.kernel, "cmdline", cmdline)
    if nouveau_off_in_cmdline(cmdline):
        put(draft.kernel, "nouveau_blacklisted", True)
    if "iommu" not in draft.platform:
        draft.platform["iommu"] = IommuFacts(cmdline_flags=iommu_flags(cmdline))


def _cmdline(text: str, draft: Draft) -> None:
    for needle in ("BOOT_IMAGE=", "root="):
        for start, line in iter_lines(text, text, needle):
            words = line.split()
            if not words or len(line) > 4000:
                continue
            # every word a kernel parameter, and the boot image or a root= mounted ro/rw
            booted = words[0].startswith("BOOT_IMAGE=") or (
                any(w.startswith("root=") for w in words) and bool({"ro", "rw"} & set(words))
            )
            if booted and all(_PARAM.match(w) for w in words):
                read_cmdline(" ".join(words), draft)
                draft.read_at(NAME, text, start)
                return


def _secure_boot(text: str, draft: Draft) -> None:
    for start, line in iter_lines(text, text, "SecureBoot "):
        found = _SECURE_BOOT.match(line)
        if found is None:
            continue
        state = found.group("state")
        draft.notes.append(
            f"Secure Boot is {state} (mokutil)"
            + (
                ": the NVIDIA kernel modules load only when signed with an enrolled key"
                if state == "enabled"
                else ""
            )
        )
        draft.read_at(NAME, text, start)
        return


def _nvidia_env(text: str, draft: Draft) -> None:
    if "NVIDIA_" not in text:
        return
    for start, line in iter_lines(text, text, "NVIDIA_"):
        found = _ENV.match(line) or _DESCRIBE_ENV.match(line)
        if found is None:
            continue
        key, value = found.group("key"), found.group("v")
        if key == "NVIDIA_VISIBLE_DEVICES":
            # set but empty is a value of its own (the runtime passes no GPU), not an unknown
            draft.platform.setdefault("nvidia_visible_devices", value)
        elif key == "NVIDIA_DRIVER_CAPABILITIES":
            put(draft.platform, "nvidia_driver_capabilities", value)
        else:
            cuda = _REQUIRE_CUDA.match(value)
            if cuda is None:
                continue
            put(draft.image, "cuda", cuda.group("v"))
            note = f"the image was built for CUDA {cuda.group('v')} (NVIDIA_REQUIRE_CUDA)"
            if note not in draft.notes:
                draft.notes.append(note)
        draft.read_at(NAME, text, start)


# `df` (1K blocks) or `df -h`: FILESYSTEM SIZE USED AVAIL USE% MOUNTED-ON, on /dev/shm
_DF_SHM = re.compile(
    r"^[ \t]{0,4}[\w./-]{1,60}[ \t]{1,30}(?P<size>\d{1,12}(?:\.\d{1,2})?)(?P<unit>[KMGT]?)"
    r"[ \t]{1,30}\S{1,16}[ \t]{1,30}\S{1,16}[ \t]{1,30}\d{1,3}%[ \t]{1,30}/dev/shm[ \t]{0,4}$"
)
# `mount` ("shm on /dev/shm type tmpfs (rw,...,size=65536k)") and /proc/mounts ("shm /dev/shm
# tmpfs rw,...,size=65536k 0 0")
_MOUNT_SHM = re.compile(
    r"^[ \t]{0,4}[\w./-]{1,60}[ \t]{1,4}(?:on[ \t]{1,4})?/dev/shm[ \t]{1,4}(?:type[ \t]{1,4})?"
    r"tmpfs[ \t]{1,4}\(?[^\n]{0,300}?\bsize=(?P<size>\d{1,12})(?P<unit>[kmg]?)\b"
)
_SCALE = {"": 1024, "K": 1024, "M": 2**20, "G": 2**30, "T": 2**40}


def _shm(text: str, draft: Draft) -> None:
    for start, line in iter_lines(text, text, "/dev/shm"):
        df = _DF_SHM.match(line)
        mount = None if df else _MOUNT_SHM.match(line)
        if df is not None:  # df's sizes are 1K blocks, or -h's units of 1024
            size = float(df.group("size")) * _SCALE[df.group("unit")]
        elif mount is not None:  # tmpfs's size= is bytes, or k, m, g
            unit = mount.group("unit").upper()
            size = float(mount.group("size")) * (_SCALE[unit] if unit else 1)
        else:
            continue
        draft.shm_bytes = int(size)
        draft.read_at(NAME, text, start)
        return
