"""Redaction of a snapshot: keep only what the checks use, and nothing that identifies a person,
a secret or a machine (the default; `gpudoctor snapshot --no-redact` keeps everything).

- the kernel command line keeps only an allow-list of parameters the checks read (IOMMU,
  driver blacklists, nouveau/nvidia/vfio options, pci=); anything else can hold a token
  (`cloud.token=`, `systemd.setenv=API_TOKEN=...`), an address or a password (`ip=`, `nfsroot=`,
  `s=http://admin:pw@...`), and what follows a lone `--` is the init program's;
- GPU and MIG UUIDs in NVIDIA_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES become the GPU's index;
- every recorded string loses URL credentials (`user:password@`), secrets (tokens, keys and
  passwords, by their names and shapes) and the user name of a home
  directory (`/home/alice/...` -> `/home/<user>/...`, `/run/user/1000` -> `/run/user/<uid>`):
  the one rule of `gpudoctor/redaction.py`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from gpudoctor.facts_json import valid_text
from gpudoctor.redaction import secrets_removed, text

T = TypeVar("T")

# Kernel parameters the checks read, as (exact names, prefixes).
_KEPT_NAMES = frozenset(
    {
        "iommu",
        "intel_iommu",
        "amd_iommu",
        "modprobe.blacklist",
        "module_blacklist",
        "rd.driver.blacklist",
        "rdblacklist",
        "nomodeset",
        "pci",
        "pcie_aspm",
        "pcie_acs_override",
        "pcie_ports",
    }
)
_KEPT_PREFIXES = (
    "iommu.",
    "amd_iommu_",
    "nouveau.",
    "nvidia.",
    "nvidia-drm.",
    "nvidia_drm.",
    "nvidia-modeset.",
    "nvidia_modeset.",
    "nvidia-uvm.",
    "nvidia_uvm.",
    "vfio",
)
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_DEVICE_UUID = re.compile(rf"(GPU-|MIG-)?({_UUID}|[0-9a-fA-F-]{{4,}})")


def kernel_cmdline(cmdline: str) -> str:
    """Only the allow-listed parameters, with a count of those left out."""
    head, sep, _ = f" {cmdline} ".partition(" -- ")
    kernel = head.split()
    kept = [word for word in kernel if _kept(word.split("=", 1)[0])]
    dropped = len(kernel) - len(kept)
    words = [*kept, f"<{dropped} other parameters left out>"] if dropped else kept
    return " ".join([*words, "-- <redacted>"] if sep else words)


def _kept(name: str) -> bool:
    return name in _KEPT_NAMES or name.startswith(_KEPT_PREFIXES)


def visible_devices(value: str | None, indexes: Mapping[str, str]) -> str | None:
    """NVIDIA_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES with each UUID as the GPU's index
    (`indexes`: UUID -> "0", or "0:1" for a MIG device); CUDA accepts a unique UUID prefix, so
    a prefix maps too. A UUID of no GPU here becomes GPU-<redacted>."""
    if value is None:
        return None
    items = []
    for item in value.split(","):
        text = item.strip()
        if not text or text.isdecimal() or text in ("all", "none", "void", "-1"):
            items.append(item)
            continue
        match = _DEVICE_UUID.fullmatch(text)
        if match is None:
            items.append(text)
            continue
        found = [i for uuid, i in indexes.items() if uuid.lower().startswith(text.lower())]
        items.append(found[0] if len(found) == 1 else f"{match.group(1) or 'GPU-'}<redacted>")
    return ",".join(items)


def every_string(obj: T) -> T:
    """`obj` (a facts dataclass) with `text` applied to every string in it."""
    return _walk(obj, text)  # type: ignore[no-any-return]


def without_secrets(obj: T) -> T:
    """`obj` (a facts dataclass) with every secret its strings state redacted
    (`redaction.secrets_removed`): what a pasted report's facts keep of its lines."""
    return _walk(obj, secrets_removed)  # type: ignore[no-any-return]


def valid_strings(obj: T) -> T:
    """`obj` (a facts dataclass) with every string valid Unicode (facts_json.valid_text): a
    name read from the host that is not UTF-8 holds U+FFFD, never bytes no writer accepts."""
    return _walk(obj, valid_text)  # type: ignore[no-any-return]


def _walk(obj: Any, fn: Callable[[str], str]) -> Any:
    if isinstance(obj, str):
        return fn(obj)
    if isinstance(obj, tuple):
        return tuple(_walk(v, fn) for v in obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        changes = {}
        for f in dataclasses.fields(obj):
            old = getattr(obj, f.name)
            new = _walk(old, fn)
            if new is not old and new != old:
                changes[f.name] = new
        return dataclasses.replace(obj, **changes) if changes else obj
    return obj
