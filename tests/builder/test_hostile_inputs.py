"""Build inputs that are not what they claim: odd wheelhouse entries, a silent Docker endpoint."""

from __future__ import annotations

import os
import socket
import threading
import time
from pathlib import Path

import pytest

from gpudoctor.builder.wheelhouse import select_wheels
from gpudoctor.docker import endpoint
from gpudoctor.docker.sdk_engine import DockerSdkEngine
from gpudoctor.errors import EnvironmentUnavailable, UsageError
from tests.support.builder import make_wheel


def _house(tmp_path: Path) -> Path:
    house = tmp_path / "house"
    house.mkdir()
    make_wheel(house, "einops", "0.8.0", {})
    return house


def test_a_fifo_named_whl_is_refused_without_hanging(tmp_path: Path) -> None:
    house = _house(tmp_path)
    os.mkfifo(house / "evil-1.0-py3-none-any.whl")
    outcome: list[BaseException | None] = []

    def pick() -> None:
        try:
            select_wheels(house, ["evil"], "3.11")
            outcome.append(None)
        except UsageError as exc:
            outcome.append(exc)

    worker = threading.Thread(target=pick, daemon=True)
    worker.start()
    worker.join(timeout=5)
    assert outcome, "select_wheels blocked on the FIFO"
    assert "not a regular file" in str(outcome[0])


def test_a_folder_named_whl_is_refused(tmp_path: Path) -> None:
    house = _house(tmp_path)
    (house / "evil-1.0-py3-none-any.whl").mkdir()
    with pytest.raises(UsageError, match="is a folder"):
        select_wheels(house, ["evil"], "3.11")


def test_a_symlink_out_of_the_wheelhouse_is_refused(tmp_path: Path) -> None:
    house = _house(tmp_path)
    secret = tmp_path / "shadow"
    secret.write_text("root:x:0:0\n")
    (house / "evil-1.0-py3-none-any.whl").symlink_to(secret)
    with pytest.raises(UsageError, match="outside the wheelhouse"):
        select_wheels(house, ["einops"], "3.11")


def test_a_whl_that_is_not_a_zip_is_refused(tmp_path: Path) -> None:
    house = _house(tmp_path)
    (house / "evil-1.0-py3-none-any.whl").write_text("not a zip")
    with pytest.raises(UsageError, match="is not a wheel"):
        select_wheels(house, ["evil"], "3.11")


def test_a_docker_endpoint_that_never_answers_fails_fast(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)  # accepts connections (the kernel does) and never answers
    monkeypatch.setattr(endpoint, "CONNECT_TIMEOUT_S", 1.0)
    started = time.monotonic()
    try:
        with pytest.raises(EnvironmentUnavailable, match="cannot reach the Docker daemon"):
            DockerSdkEngine.connect({"DOCKER_HOST": f"tcp://127.0.0.1:{server.getsockname()[1]}"})
    finally:
        server.close()
    assert time.monotonic() - started < 10
