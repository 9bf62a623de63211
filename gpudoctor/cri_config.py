"""The runtimes a Kubernetes node's container engine knows and the one it uses by default, read
from containerd's `config.toml` (or `containerd config dump`) and CRI-O's `crio.conf` /
`crio.conf.d/*.conf`.

Why: the NVIDIA device plugin needs `nvidia-container-runtime` "configured as the default
low-level runtime", or else a RuntimeClass named `nvidia` that pods ask for with
`runtimeClassName: nvidia` (k8s-device-plugin README, Prerequisites and Quick Start). A config
that defines the `nvidia` runtime without making it the default is the common half-done set-up.

Also `disabled_plugins`: containerd as Docker's containerd.io package installs it ships
`disabled_plugins = ["cri"]`, harmless for Docker, which does not use containerd's CRI plugin, but
the kubelet can then reach no CRI service on containerd's socket (Kubernetes docs, "Container
Runtimes", containerd: "Make sure that `cri` is not included in the `disabled_plugins` list").

Read line by line, like the probes' other TOML-ish files: a pasted config is often cut or
indented, which a TOML parser would refuse; only the table headers and three keys matter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

CONTAINERD = "containerd"
CRIO = "cri-o"
_MAX_LINES = 20_000

# [plugins."io.containerd.grpc.v1.cri".containerd.runtimes."nvidia"] (config version 2) and
# [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.nvidia] (version 3); the
# `.options` sub-table names the same runtime.
_CONTAINERD_RUNTIME = re.compile(
    r"^\s{0,40}\[\s{0,4}plugins\.[^\]\s]{0,80}\.containerd\.runtimes\.\"?([A-Za-z0-9_.-]{1,64}?)\"?"
    r"(?:\.options)?\s{0,4}\]"
)
_CONTAINERD_DEFAULT = re.compile(r"^\s{0,40}default_runtime_name\s{0,4}=\s{0,4}\"([^\"]{0,64})\"")
_CRIO_RUNTIME = re.compile(
    r"^\s{0,40}\[\s{0,4}crio\.runtime\.runtimes\.\"?([A-Za-z0-9_.-]{1,64}?)\"?\s{0,4}\]"
)
_CRIO_DEFAULT = re.compile(r"^\s{0,40}default_runtime\s{0,4}=\s{0,4}\"([^\"]{0,64})\"")
# disabled_plugins = ["cri"] (config version 1), ["io.containerd.grpc.v1.cri"] (version 2), and
# the CRI plugins of containerd 2.x ("io.containerd.cri.v1.runtime", ".images"); searched in the
# line, as people quote it in a sentence too
_DISABLED = re.compile(r"\bdisabled_plugins\s{0,4}=\s{0,4}\[(?P<names>[^\]\n]{0,600})\]")
_PLUGIN_NAME = re.compile(r"[\"']([\w.-]{1,80})[\"']")
_CRI_PLUGINS = ("cri", "io.containerd.grpc.v1.cri")
# The file's format: containerd 2.x reads the runtimes of a version-3 file only from
# [plugins."io.containerd.cri.v1.runtime"]; it migrates the io.containerd.grpc.v1.cri tables of
# older versions at start, never of version 3 (containerd plugins/cri/runtime/plugin.go,
# configMigration), so a version-2 runtime table pasted into a version-3 file is not read.
_VERSION = re.compile(r"^\s{0,40}version\s{0,4}=\s{0,4}(\d{1,2})\s{0,40}(?:#.{0,200})?$")
_TABLE = re.compile(r"^\s{0,40}\[")
_GRPC_CRI = "io.containerd.grpc.v1.cri"
_CRI_PREFIX = "io.containerd.cri.v1."
_CONTAINERD_WORD = re.compile(r"io\.containerd\.|\.containerd\.runtimes")
_CRIO_WORD = re.compile(r"\[\s{0,4}crio[.\]]")


@dataclass(frozen=True)
class CriConfig:
    engine: str  # CONTAINERD or CRIO
    runtimes: tuple[str, ...]  # runtime names the config defines, sorted
    default_runtime: str | None  # as the config names it; None = the engine's own (not nvidia)
    cri_disabled: bool | None = None  # containerd's disabled_plugins names its CRI plugin
    # runtimes of a version-3 containerd config under plugins."io.containerd.grpc.v1.cri",
    # where containerd 2.x does not read them (not in `runtimes`), sorted
    ignored_runtimes: tuple[str, ...] = ()


def cri_disabled(text: str) -> bool | None:
    """Does a containerd config's `disabled_plugins` list name the CRI plugin? None: no such
    line. The last line wins, as in a merged config."""
    if "disabled_plugins" not in text:
        return None
    said: bool | None = None
    for found in _DISABLED.finditer(text):
        names = [n.lower() for n in _PLUGIN_NAME.findall(found.group("names"))]
        said = any(n in _CRI_PLUGINS or n.startswith(_CRI_PREFIX) for n in names)
    return said


def read(text: str) -> CriConfig | None:
    """The engine's runtimes and default runtime; None when the text is no such config."""
    containerd = _CONTAINERD_WORD.search(text) is not None
    crio = _CRIO_WORD.search(text) is not None
    if not containerd and not crio:
        return None
    runtime_rx, default_rx = (
        (_CONTAINERD_RUNTIME, _CONTAINERD_DEFAULT) if containerd else (_CRIO_RUNTIME, _CRIO_DEFAULT)
    )
    runtimes: set[str] = set()
    ignored: set[str] = set()
    default: str | None = None
    version3 = containerd and _version(text) >= 3
    in_grpc_cri = False  # the current table is under plugins."io.containerd.grpc.v1.cri"
    for number, line in enumerate(text.splitlines()):
        if number > _MAX_LINES:
            break
        if len(line) > 400:
            continue
        if _TABLE.match(line):
            in_grpc_cri = version3 and _GRPC_CRI in line
        found = runtime_rx.match(line)
        if found:
            (ignored if in_grpc_cri else runtimes).add(found.group(1))
            continue
        named = default_rx.match(line)
        if named and named.group(1) and not in_grpc_cri:
            default = named.group(1)  # the last one wins, as in a merged config
    if not runtimes and not ignored and default is None:
        return None
    disabled = cri_disabled(text) if containerd else None
    engine = CONTAINERD if containerd else CRIO
    return CriConfig(
        engine, tuple(sorted(runtimes)), default, disabled, tuple(sorted(ignored - runtimes))
    )


def _version(text: str) -> int:
    """The `version = N` a containerd config declares (the first one); 1 when none does."""
    for line in text.splitlines()[:_MAX_LINES]:
        found = _VERSION.match(line)
        if found:
            return int(found.group(1))
    return 1
