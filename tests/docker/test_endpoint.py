"""One reading of DOCKER_HOST for both Docker clients: the probe's factory and the SDK engine
find the same socket, refuse the same endpoints and show the same address."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gpudoctor.docker.endpoint import DEFAULT_HOST, Endpoint, endpoint
from gpudoctor.docker.sdk_engine import DockerSdkEngine, daemon_hint
from gpudoctor.errors import EnvironmentUnavailable
from gpudoctor.probes.runtime import DockerUnavailable, UnixSocketDocker, docker_from_env


@pytest.mark.parametrize(
    ("env", "socket_path"),
    [
        ({}, "/var/run/docker.sock"),
        ({"DOCKER_HOST": ""}, "/var/run/docker.sock"),  # empty is unset, as the docker CLI reads it
        ({"DOCKER_HOST": "unix://"}, "/var/run/docker.sock"),
        ({"DOCKER_HOST": "unix:///run/user/1000/docker.sock"}, "/run/user/1000/docker.sock"),
        ({"DOCKER_HOST": "tcp://10.0.0.5:2376"}, None),
        ({"DOCKER_HOST": "ssh://me@builder"}, None),
        ({"DOCKER_HOST": "npipe:////./pipe/docker_engine"}, None),
    ],
)
def test_the_socket_a_docker_host_names(env: dict[str, str], socket_path: str | None) -> None:
    assert endpoint(env).socket_path == socket_path


def test_the_default_is_the_system_socket() -> None:
    assert endpoint({}).url == DEFAULT_HOST == "unix:///var/run/docker.sock"


def test_messages_show_the_address_without_its_credentials() -> None:
    where = endpoint({"DOCKER_HOST": "tcp://user:secret@10.0.0.5:2376"})
    assert where.url == "tcp://user:secret@10.0.0.5:2376"  # the SDK needs them
    assert "secret" not in where.shown
    assert where.shown.endswith("10.0.0.5:2376")


def test_a_rootless_socket_is_told_from_the_system_one() -> None:
    assert Endpoint("unix:///run/user/1000/docker.sock").rootless
    assert not Endpoint("unix:///var/run/docker.sock").rootless
    assert not Endpoint("tcp://host:2375").rootless


@pytest.mark.skipif(sys.platform == "win32", reason="a named pipe is reachable on Windows")
def test_a_named_pipe_is_refused_by_both_clients_before_the_sdk_loads() -> None:
    env = {"DOCKER_HOST": "npipe:////./pipe/docker_engine"}
    assert endpoint(env).refusal() == "the npipe:// protocol is only supported on Windows"
    with pytest.raises(DockerUnavailable, match="only supported on Windows"):
        docker_from_env(env)()
    with pytest.raises(EnvironmentUnavailable, match="only supported on Windows") as info:
        DockerSdkEngine.connect(env)
    assert info.value.message.startswith("cannot reach the Docker daemon at npipe://")
    assert info.value.hint == daemon_hint("npipe:////./pipe/docker_engine")
    assert endpoint({"DOCKER_HOST": "tcp://h:2375"}).refusal() is None


def test_the_probe_and_the_engine_find_the_same_socket(tmp_path: Path) -> None:
    """A local socket: the probe asks it over plain HTTP, the engine's hint names it as local."""
    sock = tmp_path / "docker.sock"
    sock.touch()
    env = {"DOCKER_HOST": f"unix://{sock}"}
    client = docker_from_env(env)()
    assert isinstance(client, UnixSocketDocker)
    assert client.socket_path == endpoint(env).socket_path == str(sock)
    assert "start the Docker daemon (" in daemon_hint(endpoint(env).shown, systemd=False)
    assert daemon_hint("tcp://h:2375").startswith("start the Docker daemon on that host")


def test_importing_the_endpoint_does_not_import_the_sdk() -> None:
    code = (
        "import sys, gpudoctor.docker.endpoint\n"
        "print(sorted(m for m in ('docker', 'requests', 'ssl') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    assert out.strip() == "[]"
