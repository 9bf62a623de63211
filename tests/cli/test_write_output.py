"""write_output: atomic for regular files, and never replaces a device or FIFO it is pointed at."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from gpudoctor.cli.common import write_output
from gpudoctor.errors import UsageError


def test_regular_file_is_replaced_whole(tmp_path: Path) -> None:
    target = tmp_path / "out.prom"
    target.write_text("old\n")
    write_output("new\n", target)
    assert target.read_text() == "new\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.prom"]  # no temp file left behind


def test_fifo_is_written_through_not_replaced(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[str] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()))
    reader.start()
    write_output("through the pipe\n", fifo)
    reader.join(timeout=5)
    assert received == ["through the pipe\n"]
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_unwritable_target_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot write"):
        write_output("x", tmp_path / "missing-dir" / "out.json")


def test_a_fifo_nobody_reads_is_an_error_not_a_hang(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`-o FIFO` without a reader blocked open() for ever; now it waits a bounded time."""
    monkeypatch.setattr("gpudoctor.cli.common.FIFO_READER_WAIT_S", 0.3)
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    errors: list[BaseException] = []

    def write() -> None:
        try:
            write_output("x\n", fifo)
        except BaseException as exc:  # handed to the test thread
            errors.append(exc)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    thread.join(10)
    assert not thread.is_alive(), "write_output blocked on a FIFO without a reader"
    assert len(errors) == 1
    assert isinstance(errors[0], UsageError)
    assert "no process opened this FIFO" in errors[0].message
    assert errors[0].hint


def test_a_fifo_with_a_reader_gets_the_text(tmp_path: Path) -> None:
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    write_output("hello\n", fifo)
    reader.join(10)
    assert got == [b"hello\n"]
