"""Offline builds guided: `--download-wheels DIR` fills a wheelhouse through pip (here from an
index on 127.0.0.1), `--wheelhouse DIR` is checked before anything is built, and the wheels
are served to a host-network build on 127.0.0.1 instead of going into the context."""

from __future__ import annotations

import functools
import os
import re
import socket
import tarfile
import threading
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from gpudoctor.builder.download import download_wheels, plan, platform_tags
from gpudoctor.builder.pipeline import BuildRequest, build_row
from gpudoctor.builder.spec import BuildOptions, make_spec, wheel_port
from gpudoctor.builder.wheel_server import serve_wheels
from gpudoctor.builder.wheelhouse import require_wheels
from gpudoctor.cli.app import run
from gpudoctor.compat.request import ResolveRequest
from gpudoctor.docker.engine import BuildEvent, DaemonInfo
from gpudoctor.errors import UsageError
from gpudoctor.resources import templates_dir
from tests.support.builder import (
    OK_EVENTS,
    ROW,
    FakeEngine,
    RecordingProgress,
    make_fake_torch,
    make_wheel,
)

MATRIX = str(Path(__file__).resolve().parents[1] / "data" / "build" / "matrix.toml")
PINS = ("torch==2.5.1", "torchvision==0.20.1")


def _house(folder: Path, *, torchvision: bool = True) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    make_fake_torch(folder)
    if torchvision:
        make_wheel(folder, "torchvision", "0.20.1+cu124", {}, requires=("torch==2.5.1",))
    return folder


# --- checked before the build ------------------------------------------------------------------


def test_an_empty_wheelhouse_is_refused_with_the_command_that_fills_it(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as info:
        require_wheels(tmp_path, PINS, "3.11")
    assert info.value.message == f"--wheelhouse {tmp_path}: holds no wheel"
    assert f"--download-wheels {tmp_path}" in (info.value.hint or "")


def test_a_wheelhouse_missing_a_wheel_names_it(tmp_path: Path) -> None:
    house = _house(tmp_path / "w", torchvision=False)
    with pytest.raises(UsageError, match="lacks torchvision") as info:
        require_wheels(house, PINS, "3.11")
    assert "--download-wheels" in (info.value.hint or "")
    assert {p.name.split("-")[0] for p in require_wheels(_house(house), PINS, "3.11").files} == {
        "torch",
        "torchvision",
    }


def test_the_cli_refuses_an_empty_wheelhouse_before_asking_any_daemon(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-daemon.sock")
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setattr("gpudoctor.docker.sdk_engine.DockerSdkEngine.connect", _no_daemon)
    code = run(["--matrix", MATRIX, "build", "--framework", "pytorch", "--wheelhouse", str(empty)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"error: --wheelhouse {empty.resolve()}: holds no wheel" in err
    assert "--download-wheels" in err


def _no_daemon(*args: object, **kwargs: object) -> FakeEngine:
    """A daemon that answers: the wheelhouse check must come before the build starts."""
    return FakeEngine(build_events=OK_EVENTS)


# --- served, not sent ----------------------------------------------------------------------------


def test_the_server_serves_only_the_selected_files_and_moves_on_from_a_busy_port(
    tmp_path: Path,
) -> None:
    house = _house(tmp_path / "w")
    (house / "secret.txt").write_text("not a wheel")
    wheels = sorted(house.glob("*.whl"))
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with serve_wheels(wheels, port) as served:
            assert served != port
            page = urllib.request.urlopen(f"http://127.0.0.1:{served}/").read().decode()
            assert re.findall(r'href="([^"]+)"', page) == [
                "torch-2.5.1%2Bcu124-py3-none-any.whl",
                "torchvision-0.20.1%2Bcu124-py3-none-any.whl",
            ]
            body = urllib.request.urlopen(
                f"http://127.0.0.1:{served}/torch-2.5.1%2Bcu124-py3-none-any.whl"
            ).read()
            assert body == wheels[0].read_bytes()
            with pytest.raises(urllib.error.HTTPError, match="404"):
                urllib.request.urlopen(f"http://127.0.0.1:{served}/secret.txt")
    with pytest.raises(urllib.error.URLError, match="refused"):  # stopped with the block
        urllib.request.urlopen(f"http://127.0.0.1:{served}/", timeout=2)


@dataclass
class HostNetworkEngine(FakeEngine):
    """A local daemon: it reads the wheel index the Dockerfile names while it builds."""

    fetched: list[str] | None = None

    def ping(self) -> DaemonInfo:
        return replace(super().ping(), shares_host_network=True)

    def build(self, context: Path, **kwargs: object) -> Iterator[BuildEvent]:  # type: ignore[override]
        with tarfile.open(context) as tar:
            member = tar.extractfile("Dockerfile")
            assert member is not None
            dockerfile = member.read().decode()
        url = re.search(r"--find-links (http://127\.0\.0\.1:\d+/)", dockerfile)
        assert url is not None
        page = urllib.request.urlopen(url.group(1)).read().decode()
        self.fetched = re.findall(r'href="([^"]+)"', page)
        return super().build(context, **kwargs)  # type: ignore[arg-type]


def test_a_local_daemon_builds_from_the_served_wheelhouse_with_a_small_context(
    tmp_path: Path,
) -> None:
    house = _house(tmp_path / "w")
    make_wheel(house, "unrelated", "1.0", {})
    engine = HostNetworkEngine(build_events=OK_EVENTS)
    request = BuildRequest(
        ResolveRequest("pytorch"), BuildOptions(tag="t/x:1", wheelhouse=house), verify=False
    )
    progress = RecordingProgress()
    build_row(ROW, request, engine, progress, templates_dir())
    assert engine.context_names == ["Dockerfile", "requirements.txt", "wheelhouse.txt"]
    assert engine.fetched == [
        "torch-2.5.1%2Bcu124-py3-none-any.whl",
        "torchvision-0.20.1%2Bcu124-py3-none-any.whl",
    ]
    build = next(args for name, args in engine.calls if name == "build")
    assert build["host_network"] is True  # type: ignore[index]
    assert any(p.startswith("serving 2 wheel(s) of") for p in progress.phases)


def test_a_remote_daemon_gets_the_wheels_in_the_context(tmp_path: Path) -> None:
    house = _house(tmp_path / "w")
    engine = FakeEngine(build_events=OK_EVENTS)  # shares_host_network False: another host
    request = BuildRequest(
        ResolveRequest("pytorch"), BuildOptions(tag="t/x:1", wheelhouse=house), verify=False
    )
    progress = RecordingProgress()
    build_row(ROW, request, engine, progress, templates_dir())
    assert sorted(n for n in engine.context_names if n.startswith("wheels/")) == [
        "wheels/torch-2.5.1+cu124-py3-none-any.whl",
        "wheels/torchvision-0.20.1+cu124-py3-none-any.whl",
    ]
    assert any("goes into the build context" in p for p in progress.phases)


def test_the_served_port_is_the_same_for_the_same_image_wherever_the_folder_is() -> None:
    assert wheel_port(ROW.id, ()) == wheel_port(ROW.id, ())
    assert wheel_port(ROW.id, ()) != wheel_port(ROW.id, ("numpy<2",))
    a = make_spec(ROW, BuildOptions(wheelhouse=Path(__file__).parent))
    b = make_spec(ROW, BuildOptions(wheelhouse=Path(__file__).parents[1]))
    assert a.wheel_url == b.wheel_url


# --- --download-wheels ---------------------------------------------------------------------------


def test_the_download_targets_the_image_not_this_machine(tmp_path: Path) -> None:
    spec = make_spec(ROW, BuildOptions(pip=("einops",)))
    tags = platform_tags(spec)
    assert tags[0] == "manylinux_2_35_x86_64"  # Ubuntu 22.04's glibc
    assert {"manylinux_2_17_x86_64", "manylinux2014_x86_64", "linux_x86_64"} <= set(tags)
    arm = platform_tags(make_spec(replace(ROW, platform="linux/arm64"), BuildOptions()))
    assert all(t.endswith("aarch64") for t in arm)
    first, extras = plan(spec, tmp_path).commands
    assert first[first.index("--python-version") + 1] == "3.11"
    assert "--only-binary=:all:" in first
    assert first[first.index("--index-url") + 1] == ROW.index_url
    assert first[-2:] == PINS
    assert extras[extras.index("--index-url") + 1] == "https://pypi.org/simple"
    assert extras[-1] == "einops"


@pytest.fixture
def local_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A PEP 503 index of the fake wheels on 127.0.0.1, and pip without this machine's config
    (its find-links and extra indexes)."""
    root = tmp_path / "index"
    for name in ("torch", "torchvision"):
        (root / name).mkdir(parents=True)
    _house(tmp_path / "wheels")
    for wheel in (tmp_path / "wheels").iterdir():
        wheel.rename(root / wheel.name.split("-")[0] / wheel.name)
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    for name in ("PIP_FIND_LINKS", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL"):
        monkeypatch.delenv(name, raising=False)
    handler: Callable[..., SimpleHTTPRequestHandler] = functools.partial(
        _QuietHandler, directory=str(root)
    )
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return


def test_download_wheels_fills_a_wheelhouse_the_build_accepts(
    local_index: str, tmp_path: Path
) -> None:
    spec = make_spec(ROW, BuildOptions(index_url=local_index))
    said: list[str] = []
    wheels = download_wheels(spec, tmp_path / "house", said.append)
    assert sorted(p.name for p in wheels) == [
        "torch-2.5.1+cu124-py3-none-any.whl",
        "torchvision-0.20.1+cu124-py3-none-any.whl",
    ]
    assert said[0].startswith("running ")
    assert "--platform manylinux_2_35_x86_64" in said[0]
    assert sorted(p.name for p in (tmp_path / "house").iterdir()) == sorted(p.name for p in wheels)


def test_build_download_wheels_on_the_command_line(
    local_index: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    house = tmp_path / "house"
    args = ["--matrix", MATRIX, "build", "--framework", "pytorch", "--platform", "linux/amd64"]
    code = run([*args, "--index-url", local_index, "--download-wheels", str(house)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out.startswith(f"{house}: 2 wheel(s), ")
    assert f"--wheelhouse {house}" in out
    assert run([*args, "--wheelhouse", str(house), "--download-wheels", str(house)]) == 2
    assert "give one" in capsys.readouterr().err


def test_the_manifest_changes_with_the_wheels_content_not_their_folder(tmp_path: Path) -> None:
    from gpudoctor.builder.wheelhouse import wheel_manifest

    cuda = make_fake_torch(_folder(tmp_path / "a"))
    moved = make_fake_torch(_folder(tmp_path / "b"))
    cpu = make_fake_torch(_folder(tmp_path / "c"), version="2.5.1+cu124", cuda=None)
    assert wheel_manifest([cuda]) == wheel_manifest([moved])
    assert wheel_manifest([cuda]) != wheel_manifest([cpu])  # same name, other content
    assert wheel_manifest([cuda]).startswith("torch-2.5.1+cu124-py3-none-any.whl ")


def _folder(path: Path) -> Path:
    path.mkdir()
    return path
