"""`gpudoctor serve` as a process: it probes this host (no GPU here: NVML is unknown, not a
crash), answers on the address it printed, and stops cleanly on SIGTERM; bad options exit 2."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys

import pytest

from gpudoctor.cli.app import run
from gpudoctor.cli.serve_cmd import DEFAULT_PORT, parse_listen
from tests.support.serve import get, wait_for


def test_serve_probes_this_host_and_stops_on_sigterm() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "gpudoctor", "serve", "--listen", "127.0.0.1:0", "--interval", "30"],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/metrics", line)
        assert match, line
        address = ("127.0.0.1", int(match.group(1)))
        wait_for(lambda: "gpudoctor_driver_info" in get(address, "/metrics")[2], timeout_s=60)
        body = get(address, "/metrics")[2]
        assert "gpudoctor_runs_completed 1.0" in body
        assert get(address, "/readyz")[0] in (200, 503)  # this host's verdict, either way
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=20) == 0
        assert "stopped" in process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_a_port_in_use_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert run(["serve", "--listen", f"127.0.0.1:{port}"]) == 2
    err = capsys.readouterr().err
    assert f"--listen 127.0.0.1:{port}: cannot serve there" in err
    assert "hint:" in err


@pytest.mark.parametrize(
    "args",
    [
        ["--listen", "localhost"],
        ["--listen", "1.2.3.4:99999"],
        ["--listen", "::1:9489"],
        ["--interval", "0"],
        ["--interval", "nan"],
        ["--require", "gpus>>8"],
    ],
)
def test_bad_options_exit_2_with_a_hint(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["serve", *args]) == 2
    err = capsys.readouterr().err
    assert "hint:" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("127.0.0.1:9489", ("127.0.0.1", 9489)),
        (":9100", ("0.0.0.0", 9100)),
        ("[::1]:0", ("::1", 0)),
        ("10.0.0.7:1", ("10.0.0.7", 1)),
    ],
)
def test_listen_addresses(text: str, address: tuple[str, int]) -> None:
    assert parse_listen(text) == address


def test_the_default_port_is_not_dcgm_exporters_nor_nvidia_gpu_exporters() -> None:
    assert DEFAULT_PORT not in (9400, 9835, 9100, 9090, 9093)
