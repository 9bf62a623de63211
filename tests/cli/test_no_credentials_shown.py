"""Attack test for the one redaction rule: a URL with credentials given anywhere (an option, an
environment variable) is never shown with them, in any error line, hint or format."""

from __future__ import annotations

import pytest

from gpudoctor.cli.app import run
from gpudoctor.redaction import url_without_credentials

SECRET = "s3cr@t-pw"
URL = f"https://alice:{SECRET}@mirror.example/simple"


@pytest.mark.parametrize(
    "args",
    [
        ["render", "--framework", "pytorch", "--index-url", URL],
        ["render", "--framework", "pytorch", "--index-url", URL + " $(x)"],
        ["build", "--framework", "pytorch", "--dry-run", "--index-url", URL, "--format", "json"],
        ["matrix", "update", "--index-url", f"http://alice:{SECRET}@127.0.0.1:9/simple"],
        ["matrix", "update", "--index-url", f"ftp://alice:{SECRET}@127.0.0.1/simple"],
    ],
)
def test_credentials_in_a_url_option_are_never_shown(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code = run(args)
    captured = capsys.readouterr()
    assert code in (2, 3), captured.err
    for stream in (captured.out, captured.err):
        assert "s3cr" not in stream
        assert "alice" not in stream
        assert "t-pw" not in stream  # nor the tail after an '@' in the password


def test_docker_host_credentials_are_never_shown(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DOCKER_HOST", f"tcp://alice:{SECRET}@127.0.0.1:9")
    assert run(["check", "--image", "x:1"]) == 3
    err = capsys.readouterr().err
    assert "s3cr" not in err
    assert "t-pw" not in err


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("https://u:p@ss@host.example/x", "https://host.example/x"),
        (
            "see http://u@h.example and ftp://a:b@c.example/",
            "see http://h.example and ftp://c.example/",
        ),
        ("https://host.example/a@b", "https://host.example/a@b"),  # an '@' in the path stays
        ("https://host.example/?q=a@b", "https://host.example/?q=a@b"),
    ],
)
def test_the_rule_removes_userinfo_up_to_the_last_at_of_the_authority(
    text: str, shown: str
) -> None:
    assert url_without_credentials(text) == shown
