"""Container engines describing themselves, as they print it:

- `docker version`: the "Server:" part's " Engine:" / "  Version: 24.0.7" (the daemon's
  version, which the live probe records; the client's own version above it is a note).
- `docker info`: " Server Version: 24.0.7", " Cgroup Driver: systemd", " Cgroup Version: 2"
  (its Runtimes and Default Runtime lines are facts_scan's rules).
- `podman info`: "cgroupVersion: v2" under `host:`, and its `distribution:` block (the
  os-release ID and version).
- `crictl info` (containerd): the JSON's config.containerd "defaultRuntimeName" and "runtimes".
- /etc/docker/daemon.json: its "default-runtime"; a daemon.json that registers the nvidia
  runtime (its "runtimes" object) and names no default leaves Docker's own, runc (Docker's
  daemon reference: "default-runtime" defaults to runc).
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

from gpudoctor import cri_config
from gpudoctor.facts import ContainerDeviceFacts
from gpudoctor.pasted.draft import Draft, put
from gpudoctor.pasted.scan import iter_lines

NAME = "container engines"
DESCRIPTION = "`docker version`, `docker info`, `podman info`, `crictl info`"

_ENGINE_VERSION = re.compile(
    r"^Server:[^\n]{0,60}\n Engine:\s{0,4}\n  Version:\s{1,20}(?P<v>\d{1,2}\.\d{1,2}\.\d{1,3})\b",
    re.MULTILINE,
)
_CLIENT_VERSION = re.compile(
    r"^Client:[^\n]{0,60}\n Version:\s{1,20}(?P<v>\d{1,2}\.\d{1,2}\.\d{1,3})\b", re.MULTILINE
)
_INFO_KEY = re.compile(
    r"^\s{1,4}(?P<key>Server Version|Cgroup Driver|Cgroup Version):\s{1,4}(?P<v>[\w.-]{1,40})"
    r"\s{0,4}$"
)
_PODMAN_KEY = re.compile(
    r"^\s{2,4}(?P<key>cgroupVersion|cgroupManager):\s{1,4}(?P<v>v1|v2|systemd|cgroupfs)\s{0,4}$"
)
_PODMAN_DISTRIBUTION = re.compile(
    r"^\s{4,8}(?P<key>codename|distribution|variant|version):\s{1,4}\"?(?P<v>[\w.-]{1,40})\"?"
    r"\s{0,4}$"
)
_VERSION = re.compile(r"^\d{1,2}\.\d{1,2}\.\d{1,3}")
_MAX_JSON = 400_000  # characters: `crictl info` of a busy node is a few tens of KB


def parse(text: str, draft: Draft) -> None:
    _docker_version(text, draft)
    _docker_info(text, draft)
    _podman_info(text, draft)
    _crictl_info(text, draft)
    _daemon_json(text, draft)


_DEFAULT_RUNTIME = re.compile(r'"default-runtime"\s{0,4}:\s{0,4}"(?P<name>[\w.-]{1,60})"')
# daemon.json's runtimes object with the nvidia runtime: '"runtimes": {' then '"nvidia": {'
_RUNTIMES_NVIDIA = re.compile(r'"runtimes"\s{0,4}:\s{0,4}\{\s{0,40}"nvidia"\s{0,4}:')


def _daemon_json(text: str, draft: Draft) -> None:
    """/etc/docker/daemon.json's default runtime: the one it names, or runc where it registers
    the nvidia runtime without naming a default (then it is not the default)."""
    if '"default-runtime"' in text:
        for start, line in iter_lines(text, text, '"default-runtime"'):
            found = _DEFAULT_RUNTIME.search(line)
            if found:
                put(draft.runtime, "default_runtime", found.group("name"))
                draft.read_at(NAME, text, start)
                return
        return
    if '"runtimes"' not in text:
        return
    found = _RUNTIMES_NVIDIA.search(text)
    if found:
        put(draft.runtime, "default_runtime", "runc")
        draft.notes.append("daemon.json registers the nvidia runtime but names no default-runtime")
        draft.read_at(NAME, text, found.start())


def _device_fact(draft: Draft, key: str, value: Any) -> None:
    """A ContainerDeviceFacts field (the first value given wins, as `put`)."""
    devices = draft.runtime.get("devices") or ContainerDeviceFacts()
    if getattr(devices, key) is None and value is not None:
        draft.runtime["devices"] = replace(devices, **{key: value})


def _docker_version(text: str, draft: Draft) -> None:
    client = _CLIENT_VERSION.search(text) if "Client:" in text else None
    if client:  # the CLI's own version: not the daemon's, which may not have answered
        draft.notes.append(f"the Docker client is {client.group('v')}")
        draft.read_at(NAME, text, client.start(), 2)
    if " Engine:" not in text:
        return
    found = _ENGINE_VERSION.search(text)
    if found:
        put(draft.runtime, "docker_version", found.group("v"))
        put(draft.runtime, "docker_reachable", True)  # the daemon answered
        draft.read_at(NAME, text, found.start(), 3)


def _docker_info(text: str, draft: Draft) -> None:
    for needle in ("Server Version:", "Cgroup "):
        for start, line in iter_lines(text, text, needle):
            found = _INFO_KEY.match(line)
            if found is None:
                continue
            key, value = found.group("key"), found.group("v")
            if key == "Server Version" and _VERSION.match(value):
                put(draft.runtime, "docker_version", value)
                put(draft.runtime, "docker_reachable", True)
            elif key == "Cgroup Driver" and value in ("systemd", "cgroupfs"):
                _device_fact(draft, "docker_cgroup_driver", value)
            elif key == "Cgroup Version" and value in ("1", "2"):
                _device_fact(draft, "cgroup_version", int(value))
            else:
                continue
            draft.read_at(NAME, text, start)


def _podman_info(text: str, draft: Draft) -> None:
    if "cgroupVersion:" not in text:
        return
    for start, line in iter_lines(text, text, "cgroupVersion:"):
        found = _PODMAN_KEY.match(line)
        if found and found.group("v") in ("v1", "v2"):
            _device_fact(draft, "cgroup_version", int(found.group("v")[1]))
            draft.notes.append("podman info: the host runs Podman")
            draft.read_at(NAME, text, start)
            _podman_distribution(text, draft)
            return


def _podman_distribution(text: str, draft: Draft) -> None:
    """host.distribution: its `distribution:` (the os-release ID) and `version:` keys."""
    for start, line in iter_lines(text, text, "  distribution:"):
        if line.strip() != "distribution:":
            continue
        keys: dict[str, str] = {}
        for row in text[start:].split("\n", 6)[1:6]:
            found = _PODMAN_DISTRIBUTION.match(row)
            if found is None:
                break
            keys[found.group("key")] = found.group("v")
        if "distribution" in keys and "os_id" not in draft.platform:
            put(draft.platform, "os_id", keys["distribution"].lower())
            put(draft.platform, "os_version", keys.get("version"))
            draft.read_at(NAME, text, start, 1 + len(keys))
        return


def _crictl_info(text: str, draft: Draft) -> None:
    at = text.find('"defaultRuntimeName"')
    if at == -1:
        return
    begin = text.rfind("\n{", 0, at)
    begin = 0 if begin == -1 and text.startswith("{") else begin + 1
    if begin < 0 or begin > at:
        return
    try:
        data, _ = json.JSONDecoder().raw_decode(text[begin : begin + _MAX_JSON])
    except ValueError:
        return
    config = data.get("config") if isinstance(data, dict) else None
    containerd = config.get("containerd") if isinstance(config, dict) else None
    if not isinstance(containerd, dict):
        return
    runtimes = containerd.get("runtimes")
    default = containerd.get("defaultRuntimeName")
    put(draft.runtime, "cri_engine", cri_config.CONTAINERD)
    if isinstance(runtimes, dict):
        put(draft.runtime, "cri_runtimes", tuple(str(name) for name in runtimes))
    if isinstance(default, str):
        put(draft.runtime, "cri_default_runtime", default or None)
    put(draft.platform, "kubernetes", True)  # the CRI's own view: a Kubernetes node
    draft.read_at(NAME, text, begin, text.count("\n", begin, at) + 1)
