"""A default snapshot keeps only what the checks use: no UUIDs, credentials, socket owners or
home-directory user names anywhere."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.docker.sdk_engine import DockerSdkEngine
from gpudoctor.errors import EnvironmentUnavailable, UsageError
from gpudoctor.facts import (
    FrameworkFacts,
    GpuFacts,
    HostFacts,
    MigDevice,
    NvmlFacts,
    PlatformFacts,
    ProbeIssue,
)
from gpudoctor.facts_json import dumps
from gpudoctor.probes import redacted
from gpudoctor.probes.redact import visible_devices
from gpudoctor.redaction import text

U0 = "GPU-3f1c2a9e-8d7b-4c1e-9a2f-5b6d7e8f9a0b"
U1 = "GPU-aaaaaaaa-8d7b-4c1e-9a2f-5b6d7e8f9a0b"
M0 = "MIG-bbbbbbbb-8d7b-4c1e-9a2f-5b6d7e8f9a0b"


def _host() -> HostFacts:
    gpus = (
        GpuFacts(index=0, uuid=U0, serial="1650120012345"),
        GpuFacts(index=1, uuid=U1, mig_devices=(MigDevice(index=0, uuid=M0),)),
    )
    return HostFacts(
        nvml=NvmlFacts(status="ok", gpus=gpus),
        platform=PlatformFacts(
            nvidia_visible_devices=f"{U1},{M0}",
            cuda_visible_devices=f"{U0[:12]},GPU-cccccccc-0000-0000-0000-000000000000",
        ),
        frameworks=(
            FrameworkFacts(
                name="torch",
                version="2.5.1",
                location="/home/alice/.venv/lib/python3.11/site-packages/torch",
            ),
        ),
        issues=(
            ProbeIssue(
                "runtime",
                "docker_reachable",
                "docker-unreachable",
                "cannot connect to tcp://bob:pa55@10.0.0.9:2376 or /run/user/1000/docker.sock",
            ),
        ),
    )


def test_uuids_become_indexes_and_are_never_recorded() -> None:
    shared = redacted(_host())
    assert shared.platform.nvidia_visible_devices == "1,1:0"
    assert shared.platform.cuda_visible_devices == "0,GPU-<redacted>"
    out = dumps(shared)
    for secret in ("3f1c2a9e", "aaaaaaaa", "bbbbbbbb", "cccccccc", "1650120012345"):
        assert secret not in out


def test_home_users_credentials_and_socket_owners_are_stripped_everywhere() -> None:
    out = dumps(redacted(_host()))
    for secret in ("alice", "bob", "pa55", "/run/user/1000"):
        assert secret not in out
    assert "/home/<user>/.venv/lib/python3.11/site-packages/torch" in out
    assert "tcp://10.0.0.9:2376" in out


@pytest.mark.parametrize(
    ("value", "shared"),
    [
        ("https://u:p@index.example/simple", "https://index.example/simple"),
        ("/Users/carol/x", "/Users/<user>/x"),
        ("all", "all"),
    ],
)
def test_text(value: str, shared: str) -> None:
    assert text(value) == shared


def test_visible_device_keywords_are_kept() -> None:
    assert visible_devices("all", {}) == "all"
    assert visible_devices("0,2", {}) == "0,2"
    assert visible_devices(None, {}) is None


def test_docker_errors_never_show_credentials() -> None:
    with pytest.raises(EnvironmentUnavailable) as caught:
        DockerSdkEngine.connect({"DOCKER_HOST": "tcp://dave:s3cret@127.0.0.1:9"})
    assert "s3cret" not in caught.value.message
    assert "dave" not in caught.value.message
    assert "tcp://127.0.0.1:9" in caught.value.message


def test_an_index_url_with_credentials_is_refused() -> None:
    from gpudoctor.builder.validate import index_url

    with pytest.raises(UsageError, match="credentials") as caught:
        index_url("https://eve:t0ken@pypi.example/simple")
    assert "--wheelhouse" in (caught.value.hint or "")


def test_the_default_snapshot_is_redacted_end_to_end(tmp_path: Path) -> None:
    from gpudoctor.probes import collect_facts

    root = tmp_path
    (root / "proc").mkdir()
    (root / "proc/cmdline").write_text("ro cloud.token=abc123 intel_iommu=on\n")
    facts = collect_facts(
        root=root,
        env={"NVIDIA_VISIBLE_DEVICES": U0, "HOME": "/home/frank"},
        distributions=[],
        include_docker=False,
        include_nvml=False,
    )
    out = dumps(facts)
    assert "abc123" not in out
    assert "3f1c2a9e" not in out
    assert facts.kernel.cmdline == "intel_iommu=on <2 other parameters left out>"
