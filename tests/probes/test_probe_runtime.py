"""runtime.py: Docker daemon (fake client at the edge, plus the real daemon), daemon.json, CDI
specs, NVIDIA Container Toolkit tools and version."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from gpudoctor.probes.runner import CommandResult
from gpudoctor.probes.runtime import (
    DockerUnavailable,
    cdi_devices,
    docker_from_env,
    probe_runtime,
)
from tests.support.probe_fakes import FakeDocker, FakeRunner

INFO = {
    "Runtimes": {"runc": {"path": "runc"}, "nvidia": {"path": "nvidia-container-runtime"}},
    "DefaultRuntime": "nvidia",
}


def _bin(tmp_path: Path, *names: str) -> dict[str, str]:
    """A PATH holding executables with these names: the env edge for `which`."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for name in names:
        (bindir / name).write_text("#!/bin/sh\n")
        (bindir / name).chmod(0o755)
    return {"PATH": str(bindir)}


def test_nvidia_host_with_daemon_toolkit_and_cdi(scenario, tmp_path: Path) -> None:
    client = FakeDocker({"Version": "27.3.1"}, INFO)
    env = _bin(tmp_path, "nvidia-ctk", "nvidia-container-runtime")
    runner = FakeRunner({"nvidia-ctk --version": "NVIDIA Container Toolkit CLI version 1.17.3\n"})
    facts, issues = probe_runtime(scenario("healthy-multi-gpu"), env, runner, lambda: client)
    assert issues == []
    assert facts.docker_reachable is True
    assert facts.docker_version == "27.3.1"
    assert facts.runtimes == ("nvidia", "runc")
    assert facts.default_runtime == "nvidia"
    assert client.closed
    assert facts.daemon_json_runtimes == ("nvidia",)
    assert facts.cdi_spec_files == ("/etc/cdi/nvidia.yaml",)
    assert facts.cdi_nvidia_devices == (
        "nvidia.com/gpu=0",
        "nvidia.com/gpu=1",
        "nvidia.com/gpu=<redacted>",  # the UUID-named device, redacted by default
        "nvidia.com/gpu=all",
    )
    assert facts.toolkit_tools == ("nvidia-ctk", "nvidia-container-runtime")
    assert facts.toolkit_version == "1.17.3"
    assert runner.calls == [((str(tmp_path / "bin/nvidia-ctk"), "--version"), 3.0)]


def test_cdi_uuid_names_kept_with_no_redact(scenario) -> None:
    facts, _ = probe_runtime(scenario("healthy-multi-gpu"), {}, FakeRunner(), None, redact=False)
    assert "nvidia.com/gpu=GPU-4a3b2c1d-0e0f-1a2b-3c4d-5e6f7a8b9c0d" in facts.cdi_nvidia_devices


def test_daemon_not_asked_when_no_factory(tmp_path: Path) -> None:
    facts, issues = probe_runtime(tmp_path, {}, FakeRunner(), None)
    assert facts.docker_reachable is None
    assert issues == []


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (DockerUnavailable("no Docker socket at /var/run/docker.sock"), None),
        (
            ConnectionRefusedError(111, "Connection refused"),
            "connection refused (nothing listens there)",
        ),
        (ConnectionError("refused"), "refused"),
    ],
)
def test_unreachable_daemon_is_a_value_and_an_issue(
    tmp_path: Path, error: Exception, reason: str | None
) -> None:
    def factory() -> FakeDocker:
        raise error

    facts, issues = probe_runtime(tmp_path, {}, FakeRunner(), factory)
    assert facts.docker_reachable is False
    assert facts.runtimes == ()
    assert [(i.code, i.reason) for i in issues] == [("docker-unreachable", reason or str(error))]


def test_malformed_daemon_json(tmp_path: Path) -> None:
    (tmp_path / "etc/docker").mkdir(parents=True)
    (tmp_path / "etc/docker/daemon.json").write_text('{"runtimes": {"nvidia": {}},}\n')
    facts, issues = probe_runtime(tmp_path, {}, FakeRunner(), None)
    assert facts.daemon_json_runtimes == ()
    (issue,) = issues
    assert issue.code == "docker-daemon-json-malformed"
    assert issue.reason.startswith("/etc/docker/daemon.json: not valid JSON (line 1")


def test_daemon_json_without_runtimes(tmp_path: Path) -> None:
    (tmp_path / "etc/docker").mkdir(parents=True)
    (tmp_path / "etc/docker/daemon.json").write_text('{"log-driver": "json-file"}')
    facts, issues = probe_runtime(tmp_path, {}, FakeRunner(), None)
    assert (facts.daemon_json_runtimes, issues) == ((), [])


def test_cdi_json_spec_and_run_dir(tmp_path: Path) -> None:
    spec = {
        "cdiVersion": "0.6.0",
        "kind": "nvidia.com/gpu",
        "devices": [{"name": "0"}, {"name": "all"}],
        "containerEdits": {},
    }
    (tmp_path / "var/run/cdi").mkdir(parents=True)
    (tmp_path / "var/run/cdi/nvidia.json").write_text(json.dumps(spec))
    (tmp_path / "var/run/cdi/vendor-other.yaml").write_text(
        "cdiVersion: 0.5.0\nkind: vendor.com/fpga\ndevices:\n- name: fpga0\n"
    )
    facts, _ = probe_runtime(tmp_path, {}, FakeRunner(), None)
    assert facts.cdi_spec_files == ("/var/run/cdi/nvidia.json", "/var/run/cdi/vendor-other.yaml")
    assert facts.cdi_nvidia_devices == ("nvidia.com/gpu=0", "nvidia.com/gpu=all")


def test_cdi_yaml_line_parser_tolerates_quotes_and_comments() -> None:
    text = "kind: 'nvidia.com/gpu'  # generated\ndevices:\n  - name: \"mig-0:1\"\n  - name: 1\n"
    assert cdi_devices(text) == ["nvidia.com/gpu=mig-0:1", "nvidia.com/gpu=1"]
    assert cdi_devices("not: a spec\n") == []
    assert cdi_devices("{broken", json_spec=True) == []


def test_toolkit_version_timeout_is_an_issue(tmp_path: Path) -> None:
    env = _bin(tmp_path, "nvidia-ctk")
    runner = FakeRunner(
        {"nvidia-ctk --version": CommandResult(("nvidia-ctk", "--version"), None, error="timeout")}
    )
    facts, issues = probe_runtime(tmp_path, env, runner, None)
    assert facts.toolkit_tools == ("nvidia-ctk",)
    assert facts.toolkit_version is None
    assert [(i.field, i.code) for i in issues] == [("toolkit_version", "command-timeout")]


def test_old_toolkit_version_from_nvidia_container_cli(tmp_path: Path) -> None:
    env = _bin(tmp_path, "nvidia-container-cli")
    runner = FakeRunner(
        {"nvidia-container-cli --version": "cli-version: 1.14.6\nlib-version: 1.14.6\n"}
    )
    facts, _ = probe_runtime(tmp_path, env, runner, None)
    assert facts.toolkit_version == "1.14.6"


def test_real_factory_fails_fast_without_a_socket(tmp_path: Path) -> None:
    factory = docker_from_env({"DOCKER_HOST": f"unix://{tmp_path}/docker.sock"})
    started = time.perf_counter()
    with pytest.raises(DockerUnavailable, match="no Docker socket at"):
        factory()
    # A connection attempt would wait PROBE_TIMEOUT_S (2 s); a missing socket is refused at once.
    # The bound stays at a second so a busy machine cannot make it flake.
    assert time.perf_counter() - started < 1.0


@pytest.mark.docker
def test_real_daemon_plain_http_agrees_with_the_sdk(tmp_path: Path) -> None:
    import os

    fast, _ = probe_runtime(tmp_path, {}, FakeRunner(), docker_from_env(os.environ))
    sdk, _ = probe_runtime(tmp_path, {}, FakeRunner(), docker_from_env(os.environ, sdk=True))
    assert fast.docker_reachable is True
    assert fast.docker_version
    assert fast.runtimes
    assert "runc" in fast.runtimes
    assert (fast.docker_version, fast.runtimes, fast.default_runtime) == (
        sdk.docker_version,
        sdk.runtimes,
        sdk.default_runtime,
    )
