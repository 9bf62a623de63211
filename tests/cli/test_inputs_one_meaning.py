"""`--cuda`, `--platform` and `--from` mean one thing in every command (matrix.inputs and
cli.build_options.target_host): check, matrix resolve, build and render."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from gpudoctor.cli.app import run
from gpudoctor.compat.choose import pick
from gpudoctor.compat.host import fleet, from_facts
from gpudoctor.facts_json import load
from gpudoctor.matrix.inputs import cuda_matches, parse_cuda
from gpudoctor.matrix.load import load_matrix

DATA = Path(__file__).resolve().parents[1] / "data"
HOSTS = DATA / "hosts"


def _first_line(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    capsys.readouterr()
    assert run(list(args)) == 0, capsys.readouterr().err
    return capsys.readouterr().out.splitlines()[0]


def _dockerfile_row(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    capsys.readouterr()
    assert run(["build", *args, "--dry-run"]) == 0, capsys.readouterr().err
    found = re.search(r"from matrix row (\S+)\.", capsys.readouterr().out)
    assert found is not None
    return found[1]


@pytest.mark.parametrize(
    ("text", "parsed"),
    [("12", "12"), ("12.1", "12.1"), ("cu121", "12.1"), ("cu118", "11.8"), ("cu130", "13.0"),
     ("12.1.0", "12.1.0"), (">=12.1,<12.5", ">=12.1,<12.5")],
)  # fmt: skip
def test_cuda_is_parsed_one_way(text: str, parsed: str) -> None:
    assert parse_cuda(text) == parsed


def test_what_a_cuda_value_admits() -> None:
    assert cuda_matches("12.4", "12")
    assert cuda_matches("12.9", "12")
    assert cuda_matches("12.1", "12.1.0")
    assert not cuda_matches("12.4", "12.1")
    assert cuda_matches("12.4", ">=12.1,<12.5")
    assert not cuda_matches("12.6", ">=12.1,<12.5")
    assert run(["matrix", "resolve", "--framework", "pytorch", "--cuda", "twelve"]) == 2


def test_resolve_build_and_check_read_cuda_alike(capsys: pytest.CaptureFixture[str]) -> None:
    tag = _first_line(capsys, "matrix", "resolve", "--framework", "pytorch", "--cuda", "cu121")
    assert tag == _first_line(
        capsys, "matrix", "resolve", "--framework", "pytorch", "--cuda", "12.1"
    )
    assert tag.startswith("pytorch-2.5.1-cu121-")
    # 12.1.0: 12.1 for a runtime row; for devel, that release's base image
    assert _first_line(
        capsys, "matrix", "resolve", "--framework", "pytorch", "--cuda", "12.1.0"
    ).startswith("pytorch-2.5.1-cu121-")
    capsys.readouterr()
    assert run(["matrix", "resolve", "--framework", "pytorch", "--cuda", "12.1.1",
                "--flavor", "devel"]) == 0  # fmt: skip
    assert "nvidia/cuda:12.1.1-" in capsys.readouterr().out
    # any 12.x, the newest wins; a range applies to major.minor
    newest_12 = _first_line(capsys, "matrix", "resolve", "--framework", "pytorch", "--cuda", "12")
    assert re.match(r"pytorch-2\.14\.1-cu12\d-", newest_12), newest_12
    ranged = _first_line(
        capsys, "matrix", "resolve", "--framework", "pytorch", "--cuda", ">=12.1,<12.5"
    )
    assert ranged.startswith("pytorch-2.6.0-cu124-")
    assert _dockerfile_row(capsys, "--framework", "pytorch", "--cuda", "cu121").startswith(
        "pytorch-2.5.1-cu121-"
    )
    capsys.readouterr()
    host = str(HOSTS / "a100-8x-r535.json")
    assert run(["check", "--from", host, "--cuda", "12", "--only", "intent-verdict"]) == 0
    assert "CUDA 12 runs here: CUDA 12.9" in capsys.readouterr().out
    assert run(["check", "--from", host, "--cuda", "cu121", "--only", "intent-verdict"]) == 0
    assert "runs here: CUDA 12.1" in capsys.readouterr().out


def test_platform_names_one_machine_everywhere(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["matrix", "resolve", "--framework", "pytorch", "--version", "2.14"]
    rows = {
        _first_line(capsys, *args, *flag)
        for flag in (
            ["--platform", "linux/arm64"],
            ["--platform", "arm64"],
            ["--machine", "aarch64"],
        )
    }
    assert len(rows) == 1
    capsys.readouterr()
    assert run([*args, "--platform", "linux/arm64", "--format", "json"]) == 0
    assert '"platform": "linux/arm64"' in capsys.readouterr().out
    row = _dockerfile_row(capsys, "--framework", "pytorch==2.14", "--platform", "arm64")
    assert row == rows.pop()
    assert run([*args, "--platform", "sparc"]) == 2


def test_from_takes_a_pasted_report(capsys: pytest.CaptureFixture[str]) -> None:
    report = DATA / "reports" / "fooocus-1313-driver-too-old.txt"
    row = _first_line(capsys, "matrix", "resolve", "--framework", "pytorch", "--from", str(report))
    assert _dockerfile_row(capsys, "--framework", "pytorch", "--from", str(report)) == row


FLEET = ("a100-8x-r535", "driver-too-old", "v100-r550")


def test_from_a_fleet_folder_is_the_newest_build_every_host_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in FLEET:
        shutil.copy(HOSTS / f"{name}.json", tmp_path / f"{name}.json")
    (tmp_path / "broken.json").write_text("{not json")
    capsys.readouterr()
    assert run(["matrix", "resolve", "--framework", "pytorch", "--from", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    row = out.splitlines()[0]
    assert "broken: unreadable, left out" in err
    # the one rule over the hosts taken together: R470 (RTX 3090) needs an 11.8 build
    matrix = load_matrix()
    hosts = [from_facts(load(tmp_path / f"{n}.json")) for n in FLEET]
    best = pick(matrix, fleet(hosts, "fleet"), "pytorch")
    assert best is not None
    assert best.build.cuda == "11.8"
    assert row.startswith(f"pytorch-{best.build.version}-{best.build.tag}-")
    for host in hosts:  # it runs on each host, and nothing newer runs on all of them
        assert pick(matrix, host, "pytorch", version=best.build.version) is not None
    assert _dockerfile_row(capsys, "--framework", "pytorch", "--from", str(tmp_path)) == row
    # a fleet with no readable host is bad input
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "x.json").write_text("[]")
    assert run(["matrix", "resolve", "--framework", "pytorch", "--from", str(empty)]) == 2
