"""Where the Docker daemon is and how long to wait for it: the one reading of `DOCKER_HOST`, the
socket it names, and the timeouts of every exchange with the daemon. (How long a container may
run is the step's that starts it: `builder/verify.py`, `probes/image.py`.)

Both Docker clients use it: the start-up probe (`probes/runtime.py`, plain HTTP over a local
socket, because importing the docker SDK costs a large share of the `check` budget) and the SDK
engine (`docker/sdk_engine.py`, builds and `check --image`). Cheap to import: only `sdk_client`
imports the SDK, inside the function.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from gpudoctor.redaction import url_without_credentials

DEFAULT_HOST = "unix:///var/run/docker.sock"
_DEFAULT_SOCKET = DEFAULT_HOST.removeprefix("unix://")

# The probe asks a daemon two short questions while `check` runs: a hung one must not hold it.
PROBE_TIMEOUT_S = 2.0
# The engine: the first call (the SDK asks for the API version while connecting) fails fast on
# an endpoint that accepts the connection but never answers; calls after it get a long timeout.
CONNECT_TIMEOUT_S = 10.0
API_TIMEOUT_S = 600.0
# A build's stream: a silent `pip install` of a multi-GB wheel prints nothing for minutes (the
# SDK's default, None, would wait forever).
BUILD_READ_TIMEOUT_S = 3600.0


class Endpoint:
    """A daemon address as `DOCKER_HOST` gives it (`unix://`, `tcp://`, `ssh://`, ...). A plain
    class, not a dataclass: the runtime probe builds one on every `check`'s start-up path."""

    __slots__ = ("url",)

    def __init__(self, url: str) -> None:
        self.url = url  # credentials included: the SDK needs them; show `shown` instead

    def __repr__(self) -> str:
        return f"Endpoint({self.shown!r})"

    @property
    def scheme(self) -> str:
        return self.url.partition("://")[0].lower() if "://" in self.url else ""

    @property
    def socket_path(self) -> str | None:
        """The path of a Unix socket on this host (`unix://` alone: the default socket)."""
        if self.scheme != "unix":
            return None
        return self.url[len("unix://") :] or _DEFAULT_SOCKET

    @property
    def shown(self) -> str:
        """The address for messages: without the credentials a tcp:// or ssh:// URL may hold."""
        return url_without_credentials(self.url)

    @property
    def rootless(self) -> bool:
        """A per-user daemon's socket (rootless Docker under /run/user/UID): its builds run in
        a network namespace of their own, where 127.0.0.1 is not this host's."""
        return self.socket_path is not None and "/run/user/" in self.socket_path

    def refusal(self) -> str | None:
        """Why no client can reach this endpoint from here, or None. A named pipe (`npipe://`)
        exists only on Windows: the SDK refuses it anywhere else, so it is refused before the
        SDK is imported."""
        if self.scheme == "npipe" and sys.platform != "win32":
            return "the npipe:// protocol is only supported on Windows"
        return None


def endpoint(env: Mapping[str, str]) -> Endpoint:
    """The daemon `env` points at: DOCKER_HOST, or the default socket when it is unset or empty
    (as the docker CLI and SDK read it)."""
    return Endpoint(env.get("DOCKER_HOST") or DEFAULT_HOST)


def sdk_client(env: Mapping[str, str], timeout_s: float) -> Any:
    """A docker SDK client for `env` (DOCKER_HOST, DOCKER_TLS_VERIFY, DOCKER_CERT_PATH) with
    `timeout_s` for each call; raises ImportError without the SDK and the SDK's own errors."""
    import docker

    return docker.from_env(timeout=timeout_s, environment=dict(env))
