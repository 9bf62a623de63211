"""Characters that str.isdigit() accepts but int() refuses (superscripts, circled digits:
'²', '①') are bad input, never a traceback: every "is this a number" test in gpudoctor is
str.isdecimal(), whose characters int() always reads."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gpudoctor.cli.app import run

ROOT = Path(__file__).parents[2]
HOST = ROOT / "tests" / "data" / "hosts" / "h100-8x-healthy.json"


@pytest.mark.parametrize(
    "args",
    [
        ["check", "--from", str(HOST), "--require", "gpus>=²"],
        ["check", "--from", str(HOST), "--require", "amd_gpus>=①"],
        ["serve", "--listen", "127.0.0.1:²"],
    ],
    ids=["gpus", "amd_gpus", "listen"],
)
def test_a_digit_lookalike_is_bad_input(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(args) == 2
    err = capsys.readouterr().err
    assert "hint:" in err
    assert "Traceback" not in err


def test_a_snapshot_with_a_superscript_index_is_judged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads((HOST.parent / "amd-mi300x-8x.json").read_text(encoding="utf-8"))
    data["amd"]["hip_visible_devices"] = "0,²"
    path = tmp_path / "amd.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert run(["check", "--from", str(path), "--format", "json"]) in (0, 1)
    codes = {f["code"] for f in json.loads(capsys.readouterr().out)["findings"]}
    assert "check-crashed" not in codes
    assert "amd-visible-devices" in codes


def test_no_isdigit_in_gpudoctor() -> None:
    uses = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in (ROOT / "gpudoctor").rglob("*.py")
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"\.isdigit\(\)", line.partition("#")[0])  # code, not a comment
    ]
    assert uses == [], "use str.isdecimal(): isdigit() accepts '²', which int() refuses"
