"""How containers get their GPUs and keep them: the cgroup version, the cgroup driver of Docker
and containerd, the NVIDIA runtime's mode, the /dev/char links of the NVIDIA device nodes, and
what each NVIDIA CDI spec mounts.

Why /dev/char: with the systemd cgroup driver, `systemctl daemon-reload` re-applies a
container's device rules from the paths under /dev/char; NVIDIA's device nodes are not created
by udev, so without links there a container loses its GPUs ("Failed to initialize NVML: Unknown
Error"; NVIDIA's notice, nvidia-container-toolkit issue #48). YAML is read line by line (no YAML
dependency), as probes/runtime.py reads CDI device names.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections import Counter
from pathlib import Path

from gpudoctor.facts import CdiSpec, ContainerDeviceFacts, ProbeIssue
from gpudoctor.probes.files import host_path, list_dir, natural_key, read_text

PROBE = "runtime"
CDI_DIRS = ("etc/cdi", "var/run/cdi", "run/cdi")
CONTAINERD_CONFIGS = ("etc/containerd/config.toml",)
RUNTIME_CONFIG = "etc/nvidia-container-runtime/config.toml"
_SYSTEMD_CGROUP = re.compile(r"^\s*SystemdCgroup\s*=\s*(true|false)\s*$", re.MULTILINE | re.I)
_MODE = re.compile(r"^\s*mode\s*=\s*[\"']([a-z-]{1,16})[\"']\s*$", re.MULTILINE)
_HOST_PATH = re.compile(r"^\s*-?\s*hostPath:\s*[\"']?([^\"'\s#]{1,4096})", re.MULTILINE)
_HOOK_VERSION = re.compile(r"--host-driver-version=(\d{1,4}(?:\.\d{1,4}){1,3})")
_DRIVER_LIB = re.compile(
    r"/lib(?:cuda|nvidia-ml|nvidia-ptxjitcompiler)\.so\.(\d{1,4}(?:\.\d{1,4}){1,3})$"
)
_UUID_NAME = re.compile(r"^(?:GPU|MIG)-[0-9a-fA-F-]{8,}$")
_NAME = re.compile(r"^\s*-\s+name:\s*[\"']?([^\"'\s#]{1,200})", re.MULTILINE)


def probe_container_devices(
    root: Path, docker_info: dict[str, object], issues: list[ProbeIssue]
) -> ContainerDeviceFacts:
    return ContainerDeviceFacts(
        cgroup_version=cgroup_version(root),
        docker_cgroup_driver=docker_cgroup_driver(root, docker_info),
        containerd_systemd_cgroup=containerd_systemd_cgroup(root),
        runtime_mode=runtime_mode(root),
        dev_char_missing=dev_char_missing(root),
        cdi_specs=cdi_specs(root, issues),
    )


def cgroup_version(root: Path) -> int | None:
    base = root / "sys/fs/cgroup"
    if (base / "cgroup.controllers").exists():
        return 2
    return 1 if base.is_dir() and list_dir(base) else None


def docker_cgroup_driver(root: Path, info: dict[str, object]) -> str | None:
    """The daemon's answer first; else what /etc/docker/daemon.json asks for (exec-opts)."""
    driver = info.get("CgroupDriver")
    if isinstance(driver, str) and driver:
        return driver
    text = read_text(root / "etc/docker/daemon.json")
    try:
        data = json.loads(text) if text else None
    except json.JSONDecodeError:
        return None
    opts = data.get("exec-opts") if isinstance(data, dict) else None
    for opt in opts if isinstance(opts, list) else []:
        if isinstance(opt, str) and opt.replace(" ", "").startswith("native.cgroupdriver="):
            return opt.split("=", 1)[1].strip()
    return None


def containerd_systemd_cgroup(root: Path) -> bool | None:
    for rel in CONTAINERD_CONFIGS:
        text = read_text(root / rel)
        if text is not None:
            found = _SYSTEMD_CGROUP.findall(text)
            return any(v.lower() == "true" for v in found) if found else False
    return None


def runtime_mode(root: Path) -> str | None:
    """nvidia-container-runtime's `mode` ("auto" when its config file leaves it out)."""
    text = read_text(root / RUNTIME_CONFIG)
    if text is None:
        return None
    found = _MODE.search(text)
    return found.group(1) if found else "auto"


def dev_char_missing(root: Path) -> tuple[str, ...] | None:
    """/dev/nvidia* character devices with no /dev/char/MAJOR:MINOR entry; None when no node
    could be examined."""
    dev = root / "dev"
    missing, seen = [], 0
    for name in sorted(list_dir(dev), key=natural_key):
        if not name.startswith("nvidia"):
            continue
        try:
            info = os.stat(dev / name)
        except OSError:
            continue
        if not stat.S_ISCHR(info.st_mode):
            continue
        seen += 1
        link = dev / "char" / f"{os.major(info.st_rdev)}:{os.minor(info.st_rdev)}"
        if not os.path.lexists(link):
            missing.append(host_path(root, dev / name))
    for name in sorted(list_dir(dev / "nvidia-caps"), key=natural_key):
        path = dev / "nvidia-caps" / name
        try:
            info = os.stat(path)
        except OSError:
            continue
        if stat.S_ISCHR(info.st_mode):
            seen += 1
            link = dev / "char" / f"{os.major(info.st_rdev)}:{os.minor(info.st_rdev)}"
            if not os.path.lexists(link):
                missing.append(host_path(root, path))
    return tuple(missing) if seen else None


def cdi_specs(root: Path, issues: list[ProbeIssue]) -> tuple[CdiSpec, ...]:
    files: dict[str, Path] = {}
    for rel in CDI_DIRS:
        for name in list_dir(root / rel):
            if name.endswith((".yaml", ".yml", ".json")):
                path = root / rel / name
                files.setdefault(os.path.realpath(path), path)
    specs = []
    for path in sorted(files.values()):
        text = read_text(path)
        if text is None:
            continue  # probes/runtime.py records the unreadable spec once
        spec = read_spec(root, host_path(root, path), text)
        if spec is not None:
            specs.append(spec)
    return tuple(specs)


def read_spec(root: Path, name: str, text: str) -> CdiSpec | None:
    """An NVIDIA spec's driver version, mounted libraries and device names; None for another
    vendor's spec. JSON specs are YAML too for these keys once reformatted one per line."""
    if name.endswith(".json"):
        text = _json_as_lines(text)
    if not re.search(r"^\s*\"?kind\"?:\s*[\"']?nvidia\.com/", text, re.MULTILINE):
        return None
    libraries = tuple(
        sorted({p for p in _HOST_PATH.findall(text) if re.search(r"/lib[^/]*\.so[.\d]*$", p)})
    )
    hook = _HOOK_VERSION.search(text)
    versions = Counter(m.group(1) for p in libraries if (m := _DRIVER_LIB.search(p)))
    driver = hook.group(1) if hook else (versions.most_common(1)[0][0] if versions else None)
    missing = tuple(p for p in libraries if not os.path.lexists(root / p.lstrip("/")))
    return CdiSpec(
        path=name,
        driver_version=driver,
        libraries=libraries,
        libraries_missing=missing,
        # UUID names identify the machine and tell the checks nothing (they read index names).
        devices=tuple(_UUID_NAME.sub("<uuid>", n) for n in _NAME.findall(text)),
    )


def _json_as_lines(text: str) -> str:
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return ""
    lines: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if isinstance(item, (str, int)) and key in ("kind", "hostPath", "name"):
                    lines.append(f"{'- ' if key == 'name' else ''}{key}: {item}")
                elif key == "args" and isinstance(item, list):
                    lines.extend(str(a) for a in item)
                else:
                    walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(data)
    return "\n".join(lines)
