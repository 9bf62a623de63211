"""Attack tests for names a fleet shows: a snapshot file name that is not UTF-8 (or holds
control characters) reaches no format as raw bytes; every output is valid UTF-8 and strict
JSON, whatever the names on disk."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gpudoctor.facts_json import dumps
from tests.support.fleet_hosts import healthy_host


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "fleet"
    folder.mkdir()
    text = dumps(healthy_host()).encode()
    assert healthy_host().platform.hostname is None  # so the file name names the host
    for raw in (b"node-\xff\xfe.json", b"node-\x1b[2J.json", b"broken-\xc3.json"):
        with open(os.path.join(os.fsencode(folder), raw), "wb") as out:
            out.write(text)
    with open(os.path.join(os.fsencode(folder), b"bad-\xff.json"), "wb") as out:
        out.write(b"{not json")
    return folder


@pytest.mark.parametrize("fmt", ["json", "text"])
@pytest.mark.parametrize("locale", ["C.UTF-8", "C"])
def test_file_names_that_are_not_utf8_are_printable_in_every_format(
    tmp_path: Path, fmt: str, locale: str
) -> None:
    env = {**os.environ, "LC_ALL": locale, "PYTHONIOENCODING": ""}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "gpudoctor",
            "check",
            "--from",
            str(_folder(tmp_path)),
            "--format",
            fmt,
        ],
        capture_output=True,
        timeout=60,
        check=False,
        env=env,
    )
    assert done.returncode in (0, 1), done.stderr
    text = done.stdout.decode("utf-8")  # strict: raw bytes would fail here
    assert "\x1b" not in text
    assert "\udcff" not in text
    if fmt == "json":
        document = json.loads(text)
        names = [h["name"] for h in document["hosts"]]
        assert any("\ufffd" in name for name in names), names
        assert all(name.isprintable() for name in names), names
