"""A vGPU guest's view of its host and its licence client.

The host's vGPU Manager version: a vGPU's PCI configuration space carries a vendor-specific
capability (ID 0x09) signed "VF" whose records, from byte 5 on, are (id, length, data); record 0
holds the host driver version (10 bytes) and branch (10 bytes). This is how NVIDIA's GPU feature
discovery labels `nvidia.com/vgpu.host-driver-version` (k8s-device-plugin, internal/vgpu).
Reading past the first 64 bytes of config space needs root; otherwise the version stays unknown.

The licence client: the nvidia-gridd service, its client configuration token(s) in
/etc/nvidia/ClientConfigToken/ and /etc/nvidia/gridd.conf (NVIDIA Virtual GPU Client Licensing
User Guide, "Configuring a Licensed Client on Linux").
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from gpudoctor.facts import VgpuClientFacts
from gpudoctor.probes.files import list_dir

_CAP_POINTER = 0x34
_STATUS = 0x06
_STATUS_CAP_LIST = 0x10
_VENDOR_CAP = 0x09
_RECORD_START = 5
_FIELD = 10  # bytes of the version, then of the branch
CONFIG_LIMIT = 4096

GRIDD_PATHS = (
    "usr/bin/nvidia-gridd",
    "usr/lib/systemd/system/nvidia-gridd.service",
    "lib/systemd/system/nvidia-gridd.service",
    "etc/systemd/system/nvidia-gridd.service",
)
TOKEN_DIR = "etc/nvidia/ClientConfigToken"
GRIDD_CONF = "etc/nvidia/gridd.conf"


def host_driver(config: bytes) -> tuple[str | None, str | None]:
    """(version, branch) of the host's vGPU Manager from a vGPU's PCI config space; (None,
    None) when the capability is absent, truncated or malformed (every offset is checked)."""
    cap = _vgpu_capability(config)
    if cap is None:
        return None, None
    pos = _RECORD_START
    while pos + 2 <= len(cap):
        record, length = cap[pos], cap[pos + 1]
        if record == 0:
            if length < 2 + 2 * _FIELD or pos + 2 + 2 * _FIELD > len(cap):
                return None, None
            data = cap[pos + 2 : pos + 2 + 2 * _FIELD]
            return _text(data[:_FIELD]), _text(data[_FIELD:])
        if length < 2:
            return None, None
        pos += length
    return None, None


def _vgpu_capability(config: bytes) -> bytes | None:
    if len(config) <= _CAP_POINTER or not config[_STATUS] & _STATUS_CAP_LIST:
        return None
    pointer, seen = config[_CAP_POINTER] & 0xFC, set()
    while pointer and pointer not in seen and pointer + 3 <= len(config):
        seen.add(pointer)  # a looping list ends here
        cap_id, following, length = config[pointer], config[pointer + 1], config[pointer + 2]
        if cap_id == _VENDOR_CAP:
            cap = config[pointer : pointer + length]
            if len(cap) == length and cap[3:5] == b"VF":
                return cap
        pointer = following & 0xFC
    return None


def _text(raw: bytes) -> str | None:
    value = raw.split(b"\0", 1)[0].decode("ascii", "replace").strip()
    return value if value and value.isprintable() else None


def read_config(path: Path) -> bytes:
    """A PCI config file, bounded; b"" when unreadable or not a regular file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return b""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b""
        return os.read(fd, CONFIG_LIMIT)
    except OSError:
        return b""
    finally:
        os.close(fd)


def licence_client(root: Path) -> VgpuClientFacts:
    gridd = next((p for p in GRIDD_PATHS if (root / p).is_file()), None)
    token_dir = root / TOKEN_DIR
    if token_dir.is_dir():
        tokens: int | None = sum(1 for name in list_dir(token_dir) if name.endswith(".tok"))
        if not os.access(token_dir, os.R_OK | os.X_OK):
            tokens = None
    else:
        tokens = 0
    return VgpuClientFacts(
        gridd="" if gridd is None else "/" + gridd,
        tokens=tokens,
        gridd_conf=(root / GRIDD_CONF).is_file(),
    )
