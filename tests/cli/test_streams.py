"""Attack tests for standard output (gpudoctor/cli/streams.py): a reader that goes away ends the
run quietly with its own exit code; a closed or failing stdout is one line and exit 2; a closed
descriptor never receives a file's contents."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.hosts import HOSTS_DIR

HOST = str(next(iter(sorted(HOSTS_DIR.glob("*.json")))))
TIMEOUT_S = 60
F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)  # Linux; the name is Python 3.10+
PIPE_BYTES = 4096


def _gpudoctor(*args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # type: ignore[call-overload, no-any-return]
        [sys.executable, "-m", "gpudoctor", *args],
        capture_output=kwargs.pop("capture", True),
        text=True,
        timeout=TIMEOUT_S,
        check=False,
        **kwargs,
    )


def _one_error(stderr: str) -> str:
    assert "Traceback" not in stderr
    errors = [line for line in stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, stderr
    return errors[0]


def _own_exit_code(*args: str) -> int:
    return _gpudoctor(*args).returncode


@pytest.mark.parametrize("args", [("check", "--from", HOST, "-v"), ("matrix", "list")])
def test_a_closed_stdout_is_one_line_and_exit_2(args: tuple[str, ...]) -> None:
    # `>&-`: descriptor 1 closed before gpudoctor starts.
    done = subprocess.run(
        [sys.executable, "-m", "gpudoctor", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
        preexec_fn=lambda: os.close(1),
    )
    assert done.returncode == 2, done.stderr
    assert "standard output is closed" in _one_error(done.stderr)


@pytest.mark.parametrize("args", [("check", "--from", HOST, "-v"), ("matrix", "list")])
def test_a_full_disk_is_one_line_and_exit_2(args: tuple[str, ...]) -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "gpudoctor", *args],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=TIMEOUT_S,
            check=False,
        )
    assert done.returncode == 2, done.stderr
    assert "No space left on device" in _one_error(done.stderr)


@pytest.mark.parametrize(
    "args", [("check", "--from", HOST, "--format", "json"), ("matrix", "list")]
)
def test_a_reader_that_goes_away_ends_quietly_with_the_runs_exit_code(
    args: tuple[str, ...],
) -> None:
    own = _own_exit_code(*args)
    assert len(_gpudoctor(*args).stdout) > 2 * PIPE_BYTES  # more than the pipe holds
    child = subprocess.Popen(
        [sys.executable, "-m", "gpudoctor", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert child.stdout is not None
    assert child.stderr is not None
    # The smallest pipe Linux gives, so that the writer meets EPIPE whatever its output size.
    fcntl.fcntl(child.stdout.fileno(), F_SETPIPE_SZ, PIPE_BYTES)
    child.stdout.read(1)  # `| head -c 1`
    child.stdout.close()
    stderr = child.stderr.read().decode()
    assert child.wait(timeout=TIMEOUT_S) == own
    assert stderr == ""


def test_a_file_opened_while_stdout_is_closed_gets_nothing_meant_for_stdout(
    tmp_path: Path,
) -> None:
    out = tmp_path / "report.txt"
    done = subprocess.run(
        [sys.executable, "-m", "gpudoctor", "check", "--from", HOST, "-o", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
        preexec_fn=lambda: os.close(1),
    )
    assert done.returncode in (0, 1), done.stderr  # -o FILE needs no stdout
    assert "gpudoctor check" in out.read_text()
