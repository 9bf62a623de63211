"""Container runtime facts: is a Docker Engine reachable and which runtimes it has, what
/etc/docker/daemon.json registers, CDI specs for NVIDIA devices, NVIDIA Container Toolkit tools.

The Docker client comes from a factory (the edge): the real one checks that a local socket
exists and asks that daemon over plain HTTP, without the SDK (which only other hosts need), so a
host without a daemon is answered at once, not after a connection timeout. Where the daemon is
and how long to wait for it is `docker/endpoint.py`'s to say, as for the engine.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol

from gpudoctor import cri_config
from gpudoctor.docker.endpoint import PROBE_TIMEOUT_S, endpoint, sdk_client
from gpudoctor.facts import ContainerRuntimeFacts, ProbeIssue
from gpudoctor.probes.container_devices import CDI_DIRS, probe_container_devices
from gpudoctor.probes.files import host_path, list_dir, read_text
from gpudoctor.probes.runner import Runner, command_issue, which
from gpudoctor.wording import connection_failure

PROBE = "runtime"
TOOLKIT_TOOLS = (
    "nvidia-ctk",
    "nvidia-container-cli",
    "nvidia-container-runtime",
    "nvidia-container-toolkit",
)
_VERSION = re.compile(r"(\d+\.\d+\.\d+)")
_GPU_UUID = re.compile(r"^(GPU|MIG)-[0-9a-fA-F-]+$")


class DockerUnavailable(Exception):
    """The factory could not give a client; `reason` says why in one line."""


class DockerClient(Protocol):
    """The part of docker.DockerClient this probe uses."""

    def version(self) -> dict[str, Any]: ...

    def info(self) -> dict[str, Any]: ...


DockerFactory = Callable[[], DockerClient]


def docker_from_env(env: Mapping[str, str], *, sdk: bool = False) -> DockerFactory:
    """The real factory. A local socket (DOCKER_HOST unset or unix://) must exist, else it fails
    at once; it is then asked over plain HTTP, because importing the docker SDK alone costs a
    large part of the snapshot budget (bench/README.md). An endpoint no client reaches from here
    (npipe:// off Windows) fails at once too. Other hosts (tcp://, ssh://, TLS) and `sdk=True`
    use the SDK, with the probe's timeout."""

    def factory() -> DockerClient:
        where = endpoint(env)
        refused = where.refusal()
        if refused:
            raise DockerUnavailable(f"{where.shown}: {refused}")
        if where.socket_path is not None:
            if not os.path.exists(where.socket_path):
                raise DockerUnavailable(f"no Docker socket at {where.socket_path}")
            if not sdk:
                return UnixSocketDocker(where.socket_path)
        return _sdk_client(env)

    return factory


def _sdk_client(env: Mapping[str, str]) -> DockerClient:
    try:
        import docker.errors
    except ImportError as exc:
        raise DockerUnavailable(f"the docker Python package is missing: {exc}") from None
    try:
        client: DockerClient = sdk_client(env, PROBE_TIMEOUT_S)
    except docker.errors.DockerException as exc:
        raise DockerUnavailable(str(exc).splitlines()[0][:200]) from None
    return client


class UnixSocketDocker:
    """Just enough of the Engine API for this probe: GET /version and GET /info."""

    def __init__(self, socket_path: str, timeout_s: float = PROBE_TIMEOUT_S) -> None:
        self.socket_path = socket_path
        self.timeout_s = timeout_s

    def version(self) -> dict[str, Any]:
        return self._get("/version")

    def info(self) -> dict[str, Any]:
        return self._get("/info")

    def _get(self, path: str) -> dict[str, Any]:
        """One HTTP/1.0 GET over the socket: the daemon answers without chunking and closes,
        so no HTTP library is needed (http.client would pull in ssl and email)."""
        import socket

        deadline = time.monotonic() + self.timeout_s
        received: list[bytes] = []
        size = 0
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.settimeout(self.timeout_s)
            sock.connect(self.socket_path)
            sock.sendall(f"GET {path} HTTP/1.0\r\nHost: docker\r\n\r\n".encode("ascii"))
            while chunk := _recv(sock, deadline):
                received.append(chunk)
                size += len(chunk)
                if size > _MAX_ANSWER:
                    raise DockerUnavailable(f"GET {path}: answer over {_MAX_ANSWER} bytes")
        except OSError as exc:
            raise DockerUnavailable(f"{self.socket_path}: {exc.strerror or exc}") from None
        finally:
            sock.close()
        head, _, body = b"".join(received).partition(b"\r\n\r\n")
        status = head.split(b"\r\n", 1)[0].split()
        if len(status) < 2 or not status[0].startswith(b"HTTP/"):
            raise DockerUnavailable(f"GET {path}: not an HTTP answer")
        if status[1] != b"200":
            raise DockerUnavailable(
                f"GET {path} answered HTTP {status[1].decode('ascii', 'replace')}"
            )
        try:
            data = json.loads(body)
        except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
            raise DockerUnavailable(f"GET {path}: the answer is not JSON") from None
        if not isinstance(data, dict):
            raise DockerUnavailable(f"GET {path} answered {type(data).__name__}, not an object")
        return data


_MAX_ANSWER = 8 * 2**20  # /info on a busy daemon is tens of KiB; bound a hostile one


def _recv(sock: Any, deadline: float) -> bytes:
    """Next bytes before the deadline (the whole exchange is bounded, not each read)."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise TimeoutError("timed out")
    sock.settimeout(remaining)
    data: bytes = sock.recv(65536)
    return data


def probe_runtime(
    root: Path,
    env: Mapping[str, str],
    runner: Runner,
    docker_factory: DockerFactory | None,
    *,
    redact: bool = True,
) -> tuple[ContainerRuntimeFacts, list[ProbeIssue]]:
    issues: list[ProbeIssue] = []
    info: dict[str, object] = {}
    reachable, version, runtimes, default = _docker(docker_factory, issues, info)
    cdi_files, cdi_devices = cdi_specs(root, issues)
    if redact:
        cdi_devices = tuple(redact_cdi_name(d) for d in cdi_devices)
    tools = tuple(t for t in TOOLKIT_TOOLS if which(t, env))
    cri = read_cri_config(root)
    facts = ContainerRuntimeFacts(
        docker_reachable=reachable,
        docker_version=version,
        runtimes=runtimes,
        default_runtime=default,
        daemon_json_runtimes=daemon_json_runtimes(root, issues),
        cdi_spec_files=cdi_files,
        cdi_nvidia_devices=cdi_devices,
        toolkit_tools=tools,
        toolkit_version=toolkit_version(env, runner, tools, issues),
        docker_client=which("docker", env),
        devices=probe_container_devices(root, info, issues),
        cri_engine=cri.engine if cri else None,
        cri_runtimes=cri.runtimes if cri else (),
        cri_default_runtime=cri.default_runtime if cri else None,
        cri_ignored_runtimes=cri.ignored_runtimes if cri else (),
        # the system containerd's own file: K3s/RKE2 generate theirs and never disable CRI
        cri_plugin_disabled=cri_config.cri_disabled(read_text(root / CRI_CONFIGS[0]) or ""),
    )
    return facts, issues


# containerd (K3s/RKE2 keep their own generated copy), then CRI-O's main file and drop-ins,
# which override it in name order
CRI_CONFIGS = (
    "etc/containerd/config.toml",
    "var/lib/rancher/k3s/agent/etc/containerd/config.toml",
    "var/lib/rancher/rke2/agent/etc/containerd/config.toml",
)
CRIO_CONFIG = "etc/crio/crio.conf"
CRIO_DROP_INS = "etc/crio/crio.conf.d"


def read_cri_config(root: Path) -> cri_config.CriConfig | None:
    """The first containerd config that names runtimes; else CRI-O's config and drop-ins."""
    for rel in CRI_CONFIGS:
        text = read_text(root / rel)
        found = cri_config.read(text) if text else None
        if found is not None:
            return found
    parts = [read_text(root / CRIO_CONFIG) or ""]
    for name in sorted(list_dir(root / CRIO_DROP_INS)):
        if name.endswith(".conf"):
            parts.append(read_text(root / CRIO_DROP_INS / name) or "")
    return cri_config.read("\n".join(parts)) if any(parts) else None


def _docker(
    factory: DockerFactory | None, issues: list[ProbeIssue], info_out: dict[str, object]
) -> tuple[bool | None, str | None, tuple[str, ...], str | None]:
    """Reachable, version, runtimes and default runtime; the daemon's `info` into `info_out`."""
    if factory is None:  # the caller chose not to ask the daemon
        return None, None, (), None
    try:
        client = factory()
        try:
            version = client.version()
            info = client.info()
        finally:
            close = getattr(client, "close", None)
            if callable(close):
                close()
    except DockerUnavailable as exc:
        issues.append(ProbeIssue(PROBE, "docker_reachable", "docker-unreachable", str(exc)))
        return False, None, (), None
    except Exception as exc:  # the SDK raises requests, urllib3 and docker errors alike
        reason = connection_failure(exc)
        issues.append(ProbeIssue(PROBE, "docker_reachable", "docker-unreachable", reason))
        return False, None, (), None
    info_out.update(info)
    runtimes = info.get("Runtimes") or {}
    return (
        True,
        str(version["Version"]) if version.get("Version") else None,
        tuple(sorted(runtimes)) if isinstance(runtimes, dict) else (),
        default if isinstance(default := info.get("DefaultRuntime"), str) and default else None,
    )


def daemon_json_runtimes(root: Path, issues: list[ProbeIssue]) -> tuple[str, ...]:
    path = root / "etc/docker/daemon.json"
    text = read_text(path)
    if text is None:
        return ()
    try:
        data = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        issues.append(
            ProbeIssue(
                PROBE,
                "daemon_json_runtimes",
                "docker-daemon-json-malformed",
                f"{host_path(root, path)}: not valid JSON (line {exc.lineno}: {exc.msg})",
            )
        )
        return ()
    runtimes = data.get("runtimes") if isinstance(data, dict) else None
    return tuple(sorted(runtimes)) if isinstance(runtimes, dict) else ()


def cdi_specs(root: Path, issues: list[ProbeIssue]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    files: dict[str, Path] = {}
    for rel in CDI_DIRS:
        directory = root / rel
        for name in list_dir(directory):
            if name.endswith((".yaml", ".yml", ".json")):
                path = directory / name
                # /var/run is usually a link to /run: count each spec once.
                files.setdefault(os.path.realpath(path), path)
    devices: set[str] = set()
    for path in files.values():
        text = read_text(path)
        if text is None:
            issues.append(
                ProbeIssue(PROBE, "cdi_spec_files", "cdi-spec-unreadable", host_path(root, path))
            )
            continue
        devices.update(cdi_devices(text, json_spec=path.suffix == ".json"))
    names = tuple(sorted(host_path(root, p) for p in files.values()))
    return names, tuple(sorted(devices))


def cdi_devices(text: str, *, json_spec: bool = False, vendor: str = "nvidia.com/") -> list[str]:
    """Fully qualified device names of `vendor` ("nvidia.com/gpu=0", "amd.com/gpu=0") a CDI
    spec declares.

    YAML specs are read by a tolerant line parser (no YAML dependency): the top-level `kind:`
    and the `- name:` items, which in a CDI spec only occur in the `devices` list."""
    if json_spec:
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            return []
        kind = str(data.get("kind", "")) if isinstance(data, dict) else ""
        names: Iterable[Any] = (
            [d.get("name") for d in data.get("devices", []) if isinstance(d, dict)] if kind else []
        )
    else:
        kind_match = re.search(r"^kind:\s*[\"']?([^\"'\s#]+)", text, re.MULTILINE)
        kind = kind_match.group(1) if kind_match else ""
        names = re.findall(r"^\s*-\s+name:\s*[\"']?([^\"'\s#]+)", text, re.MULTILINE)
    if not kind.startswith(vendor):
        return []
    return [f"{kind}={n}" for n in names if isinstance(n, (str, int))]


def redact_cdi_name(name: str) -> str:
    kind, _, device = name.partition("=")
    return f"{kind}=<redacted>" if _GPU_UUID.match(device) else name


def toolkit_version(
    env: Mapping[str, str], runner: Runner, tools: tuple[str, ...], issues: list[ProbeIssue]
) -> str | None:
    for tool in ("nvidia-ctk", "nvidia-container-cli"):
        if tool not in tools:
            continue
        result = runner([which(tool, env) or tool, "--version"], timeout_s=3.0)
        match = _VERSION.search(result.stdout) if result.ok else None
        if match:
            return match.group(1)
        issues.append(command_issue(PROBE, "toolkit_version", result))
    return None
