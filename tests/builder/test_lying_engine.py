"""Attack tests for what comes back from a Docker engine and from inside an image: a fake Docker
API served on 127.0.0.1 by the test answers with replies of the wrong shape (labels as a list,
an image without an Id, a wait without a StatusCode, JSON that is not an object), and an image
whose probe prints JSON of the wrong shape. Every surprise is exit 3 with one line, or a
recorded "unreadable" result: never a traceback."""

from __future__ import annotations

import http.server
import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from gpudoctor.cli.app import run
from gpudoctor.docker.engine import parse_build_output
from gpudoctor.docker.sdk_engine import DockerSdkEngine
from gpudoctor.errors import EnvironmentUnavailable
from gpudoctor.probes.image import MARKER, probe_image
from tests.support.builder import FakeEngine

IMAGE = {
    "Id": "sha256:" + "a" * 64,
    "RepoTags": ["lying:latest"],
    "Size": 10,
    "Architecture": "amd64",
    "Config": {"Labels": {}, "Env": ["PATH=/usr/bin"], "User": ""},
}


@contextmanager
def fake_docker(replies: dict[str, Any]) -> Iterator[str]:
    """A Docker API on 127.0.0.1: `replies` maps a path pattern to the JSON body it answers
    (the defaults answer the version handshake and ping like a real daemon)."""
    routes = {
        r"/version$": {"ApiVersion": "1.43", "Version": "24.0.0", "MinAPIVersion": "1.12"},
        r"/_ping$": "OK",
        r"/images/[^/]+/json$": IMAGE,
        r"/containers/create$": {"Id": "c0ffee", "Warnings": []},
        r"/containers/[^/]+/start$": None,
        r"/containers/[^/]+/wait$": {"StatusCode": 0},
        r"/containers/[^/]+/json$": {"Id": "c0ffee", "Config": {"Tty": True}},
        r"/containers/[^/]+/logs$": "",
        r"/containers/[^/]+$": None,
        **replies,
    }

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *_args: object) -> None:
            pass

        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                self.rfile.read(length)
            path = self.path.split("?")[0]
            found = [body for pattern, body in routes.items() if re.search(pattern, path)]
            if not found:
                self.send_error(404)
                return
            body = found[0]
            if body is None:
                self.send_response(204)
                self.end_headers()
                return
            raw = body.encode() if isinstance(body, str) else json.dumps(body).encode()
            ctype = "text/plain" if isinstance(body, str) else "application/json"
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        do_GET = do_POST = do_DELETE = do_HEAD = _answer

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _engine(host: str) -> DockerSdkEngine:
    return DockerSdkEngine.connect({"DOCKER_HOST": host})


@pytest.mark.parametrize(
    "labels",
    [["io.gpudoctor.framework=pytorch"], "io.gpudoctor.framework=pytorch", 5, {"a": ["b"]}],
)
def test_labels_of_the_wrong_shape_are_not_labels(labels: object) -> None:
    with fake_docker({r"/images/[^/]+/json$": {**IMAGE, "Config": {"Labels": labels}}}) as host:
        info = _engine(host).inspect("lying:latest")
    assert info is not None
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in info.labels.items())


@pytest.mark.parametrize(
    ("route", "reply"),
    [
        (r"/images/[^/]+/json$", [IMAGE]),  # a list, not an object
        (r"/images/[^/]+/json$", {**IMAGE, "Id": 5}),  # no Id of text
        (r"/images/[^/]+/json$", "not json at all"),
        (r"/version$", ["1.43"]),  # the handshake itself of the wrong shape
    ],
)
def test_an_inspect_reply_of_the_wrong_shape_is_exit_3(
    route: str, reply: object, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with fake_docker({route: reply}) as host:
        monkeypatch.setenv("DOCKER_HOST", host)
        code = run(["check", "--from", _a_host(), "--image", "lying:latest"])
    err = capsys.readouterr().err
    assert code == 3, err
    assert "Traceback" not in err
    assert len([line for line in err.splitlines() if line.startswith("error:")]) == 1


@pytest.mark.parametrize("reply", [{"StatusCode": "0"}, {}, [0], {"StatusCode": True}])
def test_a_wait_reply_without_a_status_code_is_an_environment_error(reply: object) -> None:
    with fake_docker({r"/containers/[^/]+/wait$": reply}) as host:
        engine = _engine(host)
        with pytest.raises(EnvironmentUnavailable, match="not the Docker API's reply"):
            engine.run("lying:latest", ["true"], gpus=False, timeout=5)


def test_a_ping_reply_of_the_wrong_shape_is_an_environment_error() -> None:
    with fake_docker({r"/info$": ["x"]}) as host:
        engine = _engine(host)
        with pytest.raises(EnvironmentUnavailable):
            engine.ping()
    with fake_docker({r"/info$": {"Runtimes": ["nvidia"], "ServerVersion": 24}}) as host:
        info = _engine(host).ping()
    assert info.runtimes == ()
    assert info.version == ""


def test_a_build_stream_of_the_wrong_shape_says_nothing_rather_than_raising() -> None:
    events = list(
        parse_build_output(
            [["x"], "text", {"error": "boom", "errorDetail": "not an object"}, {"stream": 5}]
        )
    )
    assert [e.kind for e in events] == ["error", "log"]


def _a_host() -> str:
    from tests.support.hosts import HOSTS_DIR

    return str(next(iter(sorted(HOSTS_DIR.glob("*.json")))))


@pytest.mark.parametrize(
    "payload",
    [
        "[1, 2]",
        "5",
        '"text"',
        "[" * 100_000,
        "{" + '"version": ' * 3,
        json.dumps({"version": ["2.5"], "cuda": {"x": 1}, "framework": 7, "error": [1]}),
        json.dumps({"version": "9" * 5000, "cuda": "1" * 4000 + ".2"}),
    ],
)
def test_an_image_probe_printing_json_of_the_wrong_shape_is_recorded_unreadable(
    payload: str,
) -> None:
    engine = FakeEngine(probe_stdout=f"banner\n{MARKER}{payload}\n")  # an image without labels
    facts = probe_image(engine, "lying:latest")
    assert facts.source == "run"
    assert facts.framework is None
    if facts.error is not None:
        assert "unreadable" in facts.error or facts.version is None
    for value in (facts.version, facts.cuda, facts.error):
        assert value is None or len(value) <= 4096
