"""Attack tests for the bounded network reader (gpudoctor/netread.py) and what reads through
it (`matrix update`): each hostile index is served on 127.0.0.1 by the test, and each read must
end within a time and memory bound with one FetchError / MalformedIndexPage (exit 3)."""

from __future__ import annotations

import base64
import io
import json
import os
import socket
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from gpudoctor.cli.app import run
from gpudoctor.netread import PAGE_CAP, Client, FetchError
from gpudoctor.wheels import index, release, remote
from gpudoctor.wheels.index import IndexFile, MalformedIndexPage
from gpudoctor.wheels.wheel import parse_version_py, read_wheel
from tests.support.hostile import bounded, drip, endless, raw_server, reply
from tests.support.wheels import Index, serve

MATRIX = """schema_version = 1

[[cuda]]
version = "12.4.1"
label = "CUDA 12.4.1"
min_driver_linux = "550.54.15"
source = "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html"

[[pytorch]]
version = "2.5.0"
python = ["3.12"]
torchvision = "0.20.0"
source = "https://pypi.org/project/torch/2.5.0/"
evidence = "x"

[[pytorch.variants]]
cuda = "12.4"
tag = "cu124"
index_url = "https://download.pytorch.org/whl/cu124"
cudnn = "9.1.0.70"
source = "https://github.com/pytorch/pytorch/blob/main/RELEASE.md"
evidence = "x"
"""


def _page(conn: socket.socket, body: bytes, content_type: str = "text/html") -> None:
    conn.sendall(
        reply("200 OK", {"Content-Type": content_type, "Content-Length": str(len(body))}, body)
    )


def _cli(tmp_path: Path, url: str, *args: str) -> int:
    matrix = tmp_path / "compat.toml"
    matrix.write_text(MATRIX)
    return run(["--matrix", str(matrix), "matrix", "update", "--index-url", url, *args])


def _fails(kind: type[Exception], call: Callable[[], object], match: str = "") -> None:
    with pytest.raises(kind, match=match or None):
        call()


def _one_error_line(err: str) -> str:
    assert "Traceback" not in err
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, err
    return errors[0]


# -- protocol ------------------------------------------------------------------------------


def test_a_reply_that_is_not_http_is_exit_3_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ssh = b"SSH-2.0-OpenSSH_9.6\r\n"
    with raw_server(lambda conn, _h: conn.sendall(ssh)) as served, bounded(10, 32):
        assert _cli(tmp_path, served.url + "/simple", "--timeout", "5") == 3
    assert "not a valid HTTP reply" in _one_error_line(capsys.readouterr().err)


@pytest.mark.parametrize(
    "head",
    [
        b"HTTP/1.1 200 OK\r\nX: " + b"a" * 70000 + b"\r\n\r\n",  # a header line without end
        b"HTTP/1.1 200 OK\r\n" + b"X: y\r\n" * 200 + b"\r\n",  # too many headers
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",  # a broken chunk
        b"HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\n",  # a length that is no length
    ],
)
def test_every_protocol_error_is_one_fetch_error(head: bytes) -> None:
    with raw_server(lambda conn, _h: conn.sendall(head)) as served, bounded(10, 32):
        _fails(
            FetchError,
            lambda: Client(deadline_s=3).get(served.url + "/simple/torch/", cap=PAGE_CAP),
        )


def test_a_content_length_that_lies_is_refused_or_cut_short() -> None:
    # Longer than the cap: refused before a byte of the body is read.
    huge = reply("200 OK", {"Content-Length": str(1 << 40)}, b"x" * 100)
    with raw_server(lambda conn, _h: conn.sendall(huge)) as served, bounded(10, 32):
        _fails(
            FetchError,
            lambda: Client(deadline_s=3).get(served.url + "/p/", cap=PAGE_CAP),
            "more than the 16 MiB",
        )
    # Promising more than it sends, then hanging up: the short body is an error, not a page.
    short = reply("200 OK", {"Content-Length": "1000"}, b"<a href=x>x</a>")
    with raw_server(lambda conn, _h: conn.sendall(short)) as served, bounded(10, 32):
        _fails(
            FetchError,
            lambda: Client(deadline_s=3).get(served.url + "/p/", cap=PAGE_CAP),
            "ended early",
        )


def test_a_content_length_that_lies_and_holds_the_line_ends_at_the_deadline() -> None:
    def hold(conn: socket.socket, _head: bytes) -> None:
        conn.sendall(reply("200 OK", {"Content-Length": "1000"}, b"<a>"))
        conn.recv(1)  # until the client gives up

    with raw_server(hold) as served, bounded(8, 32), pytest.raises(FetchError, match="deadline"):
        Client(deadline_s=1.5).get(served.url + "/p/", cap=PAGE_CAP)


# -- size and time -------------------------------------------------------------------------


def test_an_endless_page_is_cut_at_its_cap() -> None:
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n"  # no length: until close
    with raw_server(lambda conn, _h: endless(conn, head)) as served, bounded(20, 80):
        _fails(
            FetchError,
            lambda: Client(deadline_s=15).get(served.url + "/p/", cap=PAGE_CAP),
            "larger than the 16 MiB",
        )


@pytest.mark.parametrize("where", ["body", "headers"])
def test_a_reply_dripping_a_byte_at_a_time_ends_at_the_overall_deadline(where: str) -> None:
    """Each byte arrives well within any per-read timeout; only an overall deadline ends it."""
    if where == "body":
        head = reply("200 OK", {"Content-Type": "text/html"})
        text = b"<html>" + b"<a href='x'>x</a>" * 1000

        def behaviour(conn: socket.socket, _h: bytes) -> None:
            conn.sendall(head)
            drip(conn, text, 0.2)
    else:

        def behaviour(conn: socket.socket, _h: bytes) -> None:
            drip(conn, b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 10000, 0.2)

    with raw_server(behaviour) as served, bounded(6, 32) as took:
        _fails(
            FetchError,
            lambda: Client(deadline_s=1.5).get(served.url + "/p/", cap=PAGE_CAP),
            "deadline",
        )
    assert took.seconds >= 1.4  # it was the deadline that ended it, not something else


def test_the_cli_deadline_option_bounds_a_drip(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def behaviour(conn: socket.socket, _h: bytes) -> None:
        conn.sendall(reply("200 OK", {"Content-Type": "text/html"}))
        drip(conn, b"<a href='x'>x</a>" * 1000, 0.2)

    with raw_server(behaviour) as served, bounded(8, 32):
        assert _cli(tmp_path, served.url + "/simple", "--timeout", "1.5") == 3
    assert "deadline" in _one_error_line(capsys.readouterr().err)


@pytest.mark.parametrize("value", ["nan", "inf", "0", "-1"])
def test_a_deadline_that_is_no_deadline_is_refused(
    tmp_path: Path, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _cli(tmp_path, "http://127.0.0.1:9/simple", "--timeout", value) == 2
    assert "seconds" in _one_error_line(capsys.readouterr().err)


# -- content -------------------------------------------------------------------------------


def test_json_nested_100k_deep_is_a_malformed_page_not_a_crash() -> None:
    body = b'{"files": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    ctype = "application/vnd.pypi.simple.v1+json"
    with raw_server(lambda conn, _h: _page(conn, body, ctype)) as served, bounded(10, 64):
        _fails(
            MalformedIndexPage,
            lambda: index.project_files(Client(deadline_s=5), served.url + "/simple", "torch"),
        )


@pytest.mark.parametrize(
    "document",
    [
        {"files": [{"filename": "torch-2.5.0-cp312-cp312-linux_x86_64.whl", "url": 5}]},
        {"files": [{"filename": ["x"], "url": "x"}]},
        {"files": {"a": 1}},
        [1, 2],
    ],
)
def test_json_of_the_wrong_shape_is_a_malformed_page(document: object) -> None:
    body = json.dumps(document).encode()
    ctype = "application/vnd.pypi.simple.v1+json"
    with raw_server(lambda conn, _h: _page(conn, body, ctype)) as served:
        _fails(
            MalformedIndexPage,
            lambda: index.project_files(Client(deadline_s=5), served.url + "/simple", "torch"),
        )


def test_a_page_that_is_not_utf8_is_a_malformed_page() -> None:
    with raw_server(lambda conn, _h: _page(conn, b"<html>\xff\xfe<a href=x>")) as served:
        _fails(
            MalformedIndexPage,
            lambda: index.project_files(Client(deadline_s=5), served.url + "/simple", "torch"),
        )


def _fifo(tmp_path: Path) -> Path:
    fifo = tmp_path / "torch-2.5.0-cp312-cp312-linux_x86_64.whl"
    os.mkfifo(fifo)
    return fifo


def test_a_file_link_from_an_http_index_is_never_followed(tmp_path: Path) -> None:
    fifo = _fifo(tmp_path)
    page = f"<html><a href='{fifo.as_uri()}'>{fifo.name}</a></html>".encode()
    with raw_server(lambda conn, _h: _page(conn, page)) as served, bounded(10, 32):
        client = Client.for_index(served.url + "/simple", deadline_s=5)
        (found,) = index.project_files(client, served.url + "/simple", "torch")
        with pytest.raises(FetchError, match="only followed from a file: index"):
            release.read(client, found)


def test_a_file_link_from_a_file_index_reads_only_regular_files(tmp_path: Path) -> None:
    fifo = _fifo(tmp_path)
    device = IndexFile("torch-2.5.0-cp312-cp312-linux_x86_64.whl", "file:///dev/zero")
    client = Client.for_index((tmp_path / "simple").as_uri(), deadline_s=5)
    with bounded(5, 32):
        for link in (IndexFile(fifo.name, fifo.as_uri()), device):
            with pytest.raises(FetchError, match="not a regular file"):
                release.read(client, link)


def test_a_redirect_to_a_file_url_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "index.html"
    target.write_text("<a href='x'>x</a>")
    head = reply("302 Found", {"Location": target.as_uri(), "Content-Length": "0"})
    with raw_server(lambda conn, _h: conn.sendall(head)) as served:
        _fails(
            FetchError,
            lambda: Client(deadline_s=5).get(served.url + "/simple/torch/", cap=PAGE_CAP),
            "file URL is not fetched",
        )


def _zip(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


def test_a_zip_bomb_metadata_is_refused_before_it_is_inflated() -> None:
    bomb = _zip({"torch-2.5.0.dist-info/METADATA": b"Name: torch\n" + b" " * (64 << 20)})
    assert len(bomb) < 1 << 20
    with bounded(10, 32), pytest.raises(ValueError, match="more than"):
        read_wheel(io.BytesIO(bomb), "torch-2.5.0-cp312-cp312-linux_x86_64.whl")


def test_a_member_that_lies_about_its_size_stops_at_the_size_it_declared() -> None:
    data = _zip({"torch-2.5.0.dist-info/METADATA": b"Name: torch\n" + b" " * (8 << 20)})
    # Patch the declared (uncompressed) size in both headers to 100 bytes: zipfile stops there
    # and the CRC check fails, however far the stream would inflate.
    real = (8 << 20) + 12
    patched = data.replace(real.to_bytes(4, "little"), (100).to_bytes(4, "little"))
    assert patched != data
    with bounded(10, 32), pytest.raises((zipfile.BadZipFile, ValueError)):
        read_wheel(io.BytesIO(patched), "torch-2.5.0-cp312-cp312-linux_x86_64.whl")


def test_a_giant_or_hostile_version_py_is_bounded() -> None:
    giant = _zip(
        {
            "torch-2.5.0.dist-info/METADATA": b"Name: torch\nVersion: 2.5.0\n",
            "torch/version.py": b"cuda = '12.4'\n" + b"#" * (1 << 20),
        }
    )
    with pytest.raises(ValueError, match="more than"):
        read_wheel(io.BytesIO(giant), "torch-2.5.0-cp312-cp312-linux_x86_64.whl")
    # Within the cap, text built to make a backtracking pattern quadratic, and nesting that
    # would exhaust the Python parser, read in linear time.
    hostile = "a:\n" * 20000 + "b=" + " " * 30000 + "x\n" + "c = " + "(" * 10000 + "\n"
    with bounded(2, 32):
        assert parse_version_py(hostile) == {}
    assert parse_version_py("cuda = '12.4'\nhip = None\n") == {"cuda": "12.4", "hip": ""}


def test_a_zip_directory_claiming_gigabytes_is_refused_not_allocated() -> None:
    data = bytearray(_zip({"a": b"x"}))
    eocd = data.rfind(b"PK\x05\x06")
    data[eocd + 12 : eocd + 16] = (0xFFFF0000).to_bytes(4, "little")  # central directory size
    data[eocd + 16 : eocd + 20] = (0).to_bytes(4, "little")
    served = Index()
    served.add("torch", "torch-2.5.0-cp312-cp312-linux_x86_64.whl", bytes(data))
    with serve(served) as url, bounded(10, 64):
        (found,) = index.project_files(Client(), url, "torch")
        with pytest.raises((FetchError, zipfile.BadZipFile, ValueError)):
            release.read(Client(), found)


def test_a_range_reply_larger_than_asked_is_refused() -> None:
    def behaviour(conn: socket.socket, head: bytes) -> None:
        body = b"x" * 4096
        headers = {"Content-Range": f"bytes 0-4095/{1 << 20}", "Content-Length": "4096"}
        conn.sendall(reply("206 Partial Content", headers, body))

    with raw_server(behaviour) as served, bounded(10, 32):
        _fails(
            FetchError,
            lambda: remote.RangeFile(Client(deadline_s=5), served.url + "/f.whl"),
            "more than the 1 bytes",
        )


def test_a_missing_project_is_an_http_error_with_its_status() -> None:
    with serve(Index()) as url, pytest.raises(FetchError) as caught:
        index.project_files(Client(), url, "torch")
    assert caught.value.status == 404
    assert "HTTP 404" in caught.value.message


# -- credentials ---------------------------------------------------------------------------


def test_credentials_go_as_basic_auth_to_the_index_host_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with raw_server(lambda conn, _h: _page(conn, b"<html></html>")) as other:

        def index_server(conn: socket.socket, head: bytes) -> None:
            location = f"{other.url}/elsewhere/"
            conn.sendall(reply("302 Found", {"Location": location, "Content-Length": "0"}))

        with raw_server(index_server) as served:
            port = served.url.rsplit(":", 1)[1]
            url = f"http://alice:p%40ss@w0rd@127.0.0.1:{port}/simple"
            code = _cli(tmp_path, url, "--timeout", "5")
    sent = served.headers_of(0)
    expected = "Basic " + base64.b64encode(b"alice:p@ss@w0rd").decode()
    assert sent["authorization"] == expected
    assert "authorization" not in other.headers_of(0)  # another host: never re-sent
    assert "alice" not in served.requests[0].decode().split("\r\n")[0]  # not in the request line
    captured = capsys.readouterr()
    assert code in (0, 1, 3)
    for stream in (captured.out, captured.err):
        for secret in ("w0rd", "alice", "p%40ss"):
            assert secret not in stream


def test_credentials_never_printed_in_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with raw_server(lambda conn, _h: conn.sendall(b"garbage\r\n")) as served:
        port = served.url.rsplit(":", 1)[1]
        code = _cli(tmp_path, f"http://bob:s3cr@t@127.0.0.1:{port}/simple", "--timeout", "5")
    assert code == 3
    captured = capsys.readouterr()
    line = _one_error_line(captured.err)
    assert f"127.0.0.1:{port}" in line  # the host stays, whole
    assert "s3cr" not in captured.err + captured.out
    assert "bob" not in captured.err


def test_a_file_index_of_regular_files_is_read_in_place(tmp_path: Path) -> None:
    """The other side of the file: rule: a local simple index (folders with index.html, as pip
    reads them) works, and its wheels are read where they lie."""
    name = "torch-2.5.0-cp312-cp312-linux_x86_64.whl"
    project = tmp_path / "simple" / "torch"
    project.mkdir(parents=True)
    (project / name).write_bytes(_zip({"torch-2.5.0.dist-info/METADATA": b"Name: torch\n"}))
    (project / "index.html").write_text(f"<html><a href='{name}'>{name}</a></html>")
    index_url = (tmp_path / "simple").as_uri()
    client = Client.for_index(index_url)
    (found,) = index.project_files(client, index_url, "torch")
    assert found.url == (project / name).as_uri()
    assert release.read(client, found).name == "torch"


def test_a_fifo_or_a_huge_file_as_pip_config_is_skipped_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fifo = tmp_path / "pip.conf"
    os.mkfifo(fifo)
    huge = tmp_path / "huge.conf"
    huge.write_text("[global]\nindex-url = https://huge.example/simple\n" + "#" * (2 << 20))
    good = tmp_path / "good.conf"
    good.write_text("[global]\nindex-url = https://mirror.example/simple\n")
    monkeypatch.delenv("PIP_INDEX_URL", raising=False)
    with bounded(5, 32):
        assert index.pip_index_url([good, fifo, huge]) == "https://mirror.example/simple"
