"""DockerSdkEngine: the ImageEngine on the Docker SDK (docker-py), imported lazily.

docker-py drives the classic builder only (no BuildKit: docker/docker-py#2230), which is why the
template uses no BuildKit-only syntax. Every SDK or transport error becomes
EnvironmentUnavailable (exit 3) with the fix; a failed build step is reported as an event.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

from gpudoctor.docker import endpoint
from gpudoctor.docker.engine import (
    BuildEvent,
    DaemonInfo,
    ImageInfo,
    RunResult,
    parse_build_output,
)
from gpudoctor.errors import EnvironmentUnavailable
from gpudoctor.redaction import url_without_credentials
from gpudoctor.wording import connection_failure, start_docker


def daemon_hint(host: str, reason: str = "", *, systemd: bool | None = None) -> str:
    """What to do about a daemon that does not answer: the local socket's is started here
    (with systemctl only where systemd runs), a remote one on its own host."""
    if "permission denied" in reason:
        return (
            f"run as root, or add your user to the docker group (`sudo usermod -aG docker "
            f"$USER`, then log in again); the socket: {host}"
        )
    if endpoint.Endpoint(host).socket_path is None:
        return "start the Docker daemon on that host, or point DOCKER_HOST at a reachable one"
    if systemd is None:
        systemd = Path("/run/systemd/system").is_dir()

    return (
        f"start the Docker daemon ({start_docker(systemd)}), or point DOCKER_HOST at a "
        f"reachable one (now: {host})"
    )


class DockerSdkEngine:
    """ImageEngine over docker-py. `connect()` builds one from the environment (DOCKER_HOST...)."""

    def __init__(self, client: Any, host: str) -> None:
        self._client = client
        self._host = host

    @classmethod
    def connect(cls, environment: Mapping[str, str] | None = None) -> DockerSdkEngine:
        """Connect as `docker` would (DOCKER_HOST, DOCKER_TLS_VERIFY, DOCKER_CERT_PATH).

        Raises:
            EnvironmentUnavailable: docker-py cannot reach the daemon (it asks for the API
                version on connect), or the docker package is missing.
        """

        env = dict(os.environ if environment is None else environment)
        where = endpoint.endpoint(env)
        # Messages name the endpoint without the credentials a tcp:// or ssh:// URL may hold.
        host = where.shown
        refused = where.refusal()
        if refused:
            raise EnvironmentUnavailable(
                f"cannot reach the Docker daemon at {host}: {refused}", hint=daemon_hint(host)
            )
        with _translate_errors(host):
            client = endpoint.sdk_client(env, endpoint.CONNECT_TIMEOUT_S)
            client.ping()
            client.api.timeout = endpoint.API_TIMEOUT_S
            return cls(client, host)

    def ping(self) -> DaemonInfo:
        with _translate_errors(self._host):
            info = _object(self._client.info(), self._host, "/info")
        runtimes = info.get("Runtimes")
        return DaemonInfo(
            version=_text(info.get("ServerVersion")) or "",
            runtimes=tuple(sorted(str(k) for k in runtimes)) if isinstance(runtimes, dict) else (),
            default_runtime=_text(info.get("DefaultRuntime")),
            architecture=_text(info.get("Architecture")) or None,
            shares_host_network=_shares_host_network(self._host, info),
        )

    def build(
        self,
        context: Path,
        *,
        tag: str,
        nocache: bool,
        build_args: Mapping[str, str],
        platform: str | None = None,
        sent: Callable[[int], None] | None = None,
        host_network: bool = False,
    ) -> Iterator[BuildEvent]:
        with _translate_errors(self._host), context.open("rb") as raw:
            import docker.errors

            fileobj = CountingReader(raw, context.stat().st_size, sent)
            extra: dict[str, Any] = {"platform": platform} if platform else {}
            if host_network:
                extra["network_mode"] = "host"
            try:
                stream = self._build_stream(fileobj, tag, nocache, build_args, extra)
                yield from parse_build_output(stream)
            except docker.errors.APIError as exc:
                if exc.response is None:
                    raise
                # A Dockerfile the daemon cannot parse is refused before streaming starts.
                yield BuildEvent("error", f"the daemon refused the build: {exc.explanation or exc}")

    def _build_stream(
        self,
        fileobj: Any,
        tag: str,
        nocache: bool,
        build_args: Mapping[str, str],
        extra: Mapping[str, Any],
    ) -> Iterator[Mapping[str, Any]]:
        # platform and network_mode only when given: older daemons refuse the parameters.
        stream: Iterator[Mapping[str, Any]] = self._client.api.build(
            fileobj=fileobj,
            custom_context=True,
            tag=tag,
            nocache=nocache,
            buildargs=dict(build_args),
            rm=True,
            forcerm=True,  # remove intermediate containers of failed steps too
            pull=False,  # bases may be local mirrors; never reach out unasked
            decode=True,
            timeout=endpoint.BUILD_READ_TIMEOUT_S,  # docker-py's default, None, waits forever
            **extra,
        )
        return stream

    def run(self, image: str, command: Sequence[str], *, gpus: bool, timeout: float) -> RunResult:
        with _translate_errors(self._host):
            import docker.errors
            from docker.types import DeviceRequest

            requests = [DeviceRequest(count=-1, capabilities=[["gpu"]])] if gpus else None
            container = self._client.containers.create(
                image, entrypoint=list(command), device_requests=requests, network_disabled=True
            )
            try:
                try:
                    container.start()
                except docker.errors.APIError as exc:
                    # The image's fault (no such executable), not the daemon's: report it as
                    # the docker CLI does, exit 127 with the reason.
                    return RunResult(127, "", str(exc.explanation or exc))
                try:
                    status = container.wait(timeout=timeout)
                except Exception as exc:
                    if not _timed_out(exc):
                        raise
                    # The command outran its limit: its result, not a daemon fault. Exit 124
                    # as timeout(1) reports it; remove(force=True) below stops it.
                    out = _logs(container, stdout=True)
                    return RunResult(124, out, f"timed out after {timeout:g} s")
                out = _logs(container, stdout=True)
                err = _logs(container, stdout=False)
            finally:
                container.remove(force=True)
        code = _object(status, self._host, "/containers/wait").get("StatusCode")
        if not isinstance(code, int) or isinstance(code, bool):
            raise _odd_reply(self._host, "/containers/wait", "no StatusCode number")
        return RunResult(code, out, err)

    def inspect(self, image: str) -> ImageInfo | None:
        with _translate_errors(self._host):
            import docker.errors

            try:
                data = self._client.api.inspect_image(image)
            except docker.errors.ImageNotFound:
                return None
        data = _object(data, self._host, "/images/json")
        if not isinstance(data.get("Id"), str):
            raise _odd_reply(self._host, "/images/json", "no image Id")
        config = data.get("Config")
        config = config if isinstance(config, dict) else {}
        labels = config.get("Labels")
        size = data.get("Size")
        return ImageInfo(
            id=data["Id"],
            tags=_texts(data.get("RepoTags")),
            size=size if isinstance(size, int) and not isinstance(size, bool) else 0,
            # The image's author wrote these: only text values are labels.
            labels={
                k: v
                for k, v in (labels.items() if isinstance(labels, dict) else ())
                if isinstance(k, str) and isinstance(v, str)
            },
            env=_texts(config.get("Env")),
            user=_text(config.get("User")) or "",
            architecture=_text(data.get("Architecture")) or None,
            repo_digests=_texts(data.get("RepoDigests")),
        )

    def push(self, tag: str) -> Iterator[str]:
        repository, _, name_tag = tag.rpartition(":")
        if "/" in name_tag or not repository:  # "host:5000/name": the colon was a port
            repository, name_tag = tag, "latest"
        with _translate_errors(self._host):
            for chunk in self._client.api.push(repository, name_tag, stream=True, decode=True):
                if not isinstance(chunk, dict):
                    continue  # not a progress object: nothing to show
                if "error" in chunk:
                    raise EnvironmentUnavailable(
                        f"push of {tag} refused: {chunk['error']}",
                        hint="log in to the registry (`docker login REGISTRY`) and retry",
                    )
                if chunk.get("status"):
                    yield " ".join(str(chunk[k]) for k in ("id", "status") if chunk.get(k))


def _shares_host_network(host: str, info: Mapping[str, Any]) -> bool:
    """A daemon on this host's Unix socket, not rootless (rootless Docker runs its builds in
    a network namespace of its own, where 127.0.0.1 is not this host's)."""
    where = endpoint.Endpoint(host)
    if where.socket_path is None or where.rootless:
        return False
    options = info.get("SecurityOptions")
    return not any("rootless" in str(o) for o in (options if isinstance(options, list) else ()))


class CountingReader:
    """The context file as requests uploads it (read() until empty), telling `sent` the bytes
    read so far: the upload of a large context is otherwise minutes without a word."""

    def __init__(self, raw: BinaryIO, size: int, sent: Callable[[int], None] | None) -> None:
        self._raw = raw
        self._size = size
        self._sent = sent
        self.count = 0

    def __len__(self) -> int:  # requests sets Content-Length from it (no chunked encoding)
        return self._size

    def read(self, size: int = -1) -> bytes:
        data = self._raw.read(size)
        self.count += len(data)
        if self._sent is not None:
            self._sent(self.count)
        return data


MAX_LOG_BYTES = 8 << 20  # of one stream of a probe container's output


def _logs(container: Any, *, stdout: bool) -> str:
    """One output stream of a finished container, read in chunks up to MAX_LOG_BYTES: an image
    that prints without end is not held in memory whole."""
    received = bytearray()
    chunks = container.logs(stdout=stdout, stderr=not stdout, stream=True, follow=False)
    for chunk in chunks:
        if isinstance(chunk, (bytes, bytearray)):
            received += chunk
        if len(received) > MAX_LOG_BYTES:
            close = getattr(chunks, "close", None)
            if callable(close):
                close()
            break
    return bytes(received[:MAX_LOG_BYTES]).decode("utf-8", "replace")


def _timed_out(exc: BaseException) -> bool:
    """A read timeout of the SDK's wait: requests raises ReadTimeout over TCP, but over the Unix
    socket adapter a ConnectionError wrapping urllib3's ReadTimeoutError ("Read timed out")."""
    import requests.exceptions

    if isinstance(exc, (requests.exceptions.ReadTimeout, TimeoutError)):
        return True
    if isinstance(exc, requests.exceptions.ConnectionError):
        return "timed out" in str(exc).lower()
    return False


@contextmanager
def _translate_errors(host: str) -> Iterator[None]:
    """SDK and transport errors -> EnvironmentUnavailable with the fix."""
    try:
        import docker.errors
        import requests.exceptions
    except ImportError:
        raise EnvironmentUnavailable(
            "the docker Python package is not installed", hint="pip install 'docker>=7.1'"
        ) from None
    try:
        yield
    except (docker.errors.APIError, docker.errors.DockerException) as exc:
        if isinstance(exc, docker.errors.APIError) and exc.response is not None:
            raise EnvironmentUnavailable(
                f"the Docker daemon at {host} refused: {exc.explanation or exc}",
                hint="check the daemon log and the request above",
            ) from None
        raise _unreachable(host, exc) from None
    except (requests.exceptions.RequestException, ConnectionError, OSError) as exc:
        raise _unreachable(host, exc) from None
    except (ValueError, TypeError, KeyError, AttributeError, IndexError) as exc:
        # The SDK met a reply of a shape the Docker API never has (a lying or broken engine).
        raise _odd_reply(host, "a request", f"{type(exc).__name__}: {exc}") from None


def _object(value: Any, host: str, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _odd_reply(host, what, f"a JSON {type(value).__name__}, not an object")
    return value


def _odd_reply(host: str, what: str, why: str) -> EnvironmentUnavailable:
    why = " ".join(url_without_credentials(why).split())[:200]
    return EnvironmentUnavailable(
        f"the Docker daemon at {host} answered {what} with something that is not the Docker "
        f"API's reply ({why})",
        hint="check that DOCKER_HOST points at a Docker Engine (now: " + host + ")",
    )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _texts(value: Any) -> tuple[str, ...]:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()


def _unreachable(host: str, exc: Exception) -> EnvironmentUnavailable:
    reason = url_without_credentials(connection_failure(exc))
    return EnvironmentUnavailable(
        f"cannot reach the Docker daemon at {host}: {reason}",
        hint=daemon_hint(host, reason),
    )
