"""A host without a GPU is not shown green, and says which checks it skipped and how CI demands a
GPU; a Docker client without its daemon is named as such, with how to start it."""

from __future__ import annotations

import dataclasses

from gpudoctor.checks import run_checks
from gpudoctor.facts import ProbeIssue
from gpudoctor.matrix.model import Matrix
from gpudoctor.report.text import render_text
from tests.checks.conftest import host


def test_no_gpu_is_said_plainly(matrix: Matrix) -> None:
    text = render_text(run_checks(host("no-gpu-toolkit-only"), matrix))
    lines = text.splitlines()
    assert "[-] NVIDIA driver: not checked: no NVIDIA GPU on this host" in lines
    assert not any(line.startswith("[✓] NVIDIA driver") for line in lines)
    assert "--require 'gpus>=1'" in text
    skipped = text[text.index("- skipped without a GPU") :]
    for code in ("driver-version", "gpu-count", "mig-mode", "docker-nvidia-runtime"):
        assert code in skipped


def test_a_docker_client_without_its_daemon_says_how_to_start_it(matrix: Matrix) -> None:
    facts = host("no-gpu-toolkit-only")
    runtime = dataclasses.replace(facts.container_runtime, docker_client="/usr/bin/docker")
    issue = ProbeIssue(
        "runtime", "docker_reachable", "docker-unreachable", "no Docker socket at /run/docker.sock"
    )
    facts = dataclasses.replace(facts, container_runtime=runtime, issues=(*facts.issues, issue))
    text = render_text(run_checks(facts, matrix))
    assert (
        "Docker client installed (/usr/bin/docker) but its daemon does not answer (no Docker "
        "socket at /run/docker.sock): start it with `sudo systemctl start docker`"
    ) in text


def test_no_docker_at_all_names_both_parts(matrix: Matrix) -> None:
    text = render_text(run_checks(host("no-gpu-toolkit-only"), matrix))
    assert "Docker not found (no daemon answering, no docker client on PATH)" in text
