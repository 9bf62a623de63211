"""Nothing hangs and nothing is left running: planted FIFOs, stuck probes, hung tools."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from gpudoctor.probes.runner import run_command

BOUND_S = 30.0


def _run(args: list[str], env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    done = subprocess.run(
        args, capture_output=True, text=True, timeout=BOUND_S * 2, env=env, check=False
    )
    return done, time.monotonic() - started


def test_fifos_under_the_root_do_not_block_the_snapshot(tmp_path: Path) -> None:
    (tmp_path / "etc").mkdir()
    os.mkfifo(tmp_path / "etc/os-release")
    cuda = tmp_path / "opt/cuda"
    cuda.mkdir(parents=True)
    os.mkfifo(cuda / "version.json")
    env = {**os.environ, "CUDA_HOME": "/opt/cuda", "DOCKER_HOST": "tcp://127.0.0.1:9"}
    args = [sys.executable, "-m", "gpudoctor", "snapshot", "--no-docker", "--root", str(tmp_path)]
    done, seconds = _run(args, env)
    assert done.returncode == 0, done.stderr
    assert seconds < BOUND_S
    assert '"schema_version"' in done.stdout


def test_a_stuck_probe_does_not_keep_the_process_alive() -> None:
    # A read that never returns (a hung NFS mount) cannot be interrupted: the probe deadline
    # gives up on it, and the process must still exit once the report is out.
    script = textwrap.dedent(
        """
        import threading, gpudoctor.probes as probes
        probes.PROBE_DEADLINE_S = 1.0
        def stuck(*args, **kwargs):
            threading.Event().wait()
        probes.probe_platform = stuck  # the name collect_facts calls
        facts = probes.collect_facts(include_docker=False, include_nvml=False)
        print([i.code for i in facts.issues if i.probe == "platform"])
        """
    )
    done, seconds = _run([sys.executable, "-c", script], dict(os.environ))
    assert done.returncode == 0, done.stderr
    assert "probe-timeout" in done.stdout
    assert seconds < BOUND_S


def test_a_hung_tools_children_die_with_it(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    tool = tmp_path / "nvidia-ctk"
    tool.write_text(f"#!/bin/sh\nsleep 300 &\necho $! > {pids}\nsleep 300\n")
    tool.chmod(0o755)
    result = run_command([str(tool)], timeout_s=1.0)
    assert result.error == "timeout"
    child = int(pids.read_text())
    deadline = time.monotonic() + 5
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child), f"grandchild {child} outlived the timed-out tool"


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has exited; init reaps it


def test_fifos_named_as_inputs_are_refused_without_blocking(tmp_path: Path) -> None:
    snapshot, matrix = tmp_path / "host.json", tmp_path / "m.toml"
    os.mkfifo(snapshot)
    os.mkfifo(matrix)
    for args in (["check", "--from", str(snapshot)], ["matrix", "validate", str(matrix)]):
        done, seconds = _run([sys.executable, "-m", "gpudoctor", *args], dict(os.environ))
        assert done.returncode == 2, done.stderr
        assert "not a regular file" in done.stderr
        assert seconds < BOUND_S


def test_deep_timeout_must_be_a_finite_bounded_number() -> None:
    from gpudoctor.cli.app import run

    for value in ("nan", "inf", "1e308", "0.5", "-1"):
        assert run(["check", "--deep", "--deep-timeout", value]) == 2


def test_the_deep_child_is_reaped_even_when_waiting_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gpudoctor import children
    from gpudoctor.probes import deep

    pids = tmp_path / "pid"
    script = tmp_path / "child.sh"
    script.write_text(f"#!/bin/sh\nsleep 300 &\necho $! > {pids}\nsleep 300\n")
    script.chmod(0o755)

    def refuse(*_args: object) -> str:
        # the shell creates the file before it writes the pid: wait for the whole line
        while not (pids.exists() and pids.read_text().endswith("\n")):
            time.sleep(0.02)
        raise OverflowError("timeout value is too large")

    monkeypatch.setattr(children, "_read", refuse)
    with pytest.raises(OverflowError):
        deep.run_child([str(script)], dict(os.environ), 1e308)
    child = int(pids.read_text())
    deadline = time.monotonic() + 5
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child)
