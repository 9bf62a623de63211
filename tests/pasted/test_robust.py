"""Real pastes are messy: quotes, fences, colours, Windows line ends, two reports in one, decimal
commas; garbage gets one clear line and exit 2."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from gpudoctor.cli.app import run
from gpudoctor.errors import FactsError
from gpudoctor.facts import HostFacts
from gpudoctor.facts_json import dumps
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.dispatch import read_reports
from tests.support.pasted_samples import COLLECT_ENV, SMI_TABLE

Read = Callable[[str], HostFacts]


def _mangle(text: str) -> str:
    """What a GitHub comment reply and a Windows terminal do to a report."""
    quoted = "".join(f"> {line}" for line in text.splitlines(keepends=True))
    coloured = quoted.replace("Driver Version", "\x1b[1;32mDriver Version\x1b[0m")
    return ("> ```text\r\n" + coloured + "> ```\r\n").replace("\n", "\r\n").replace("\r\r", "\r")


def test_quotes_fences_ansi_and_crlf_read_like_the_clean_report(read: Read) -> None:
    clean, messy = read(SMI_TABLE + COLLECT_ENV), read(_mangle(SMI_TABLE + COLLECT_ENV))
    assert messy.nvml == clean.nvml
    assert messy.frameworks == clean.frameworks
    assert messy.report is not None
    assert clean.report is not None
    assert messy.report.sections == clean.report.sections


def test_localised_decimal_commas(read: Read) -> None:
    text = SMI_TABLE.replace("CUDA Version: 12.8", "CUDA Version: 12,8").replace(
        "20W /  575W", "20,5W /  575,0W"
    )
    facts = read(text)
    assert facts.nvml.cuda_driver_version == "12.8"
    assert facts.nvml.gpus[0].power_usage_w == 20.5


def test_two_reports_that_disagree_are_two_hosts(matrix: Matrix) -> None:
    second = SMI_TABLE.replace("570.86.16", "575.51.03")
    hosts = read_reports(
        SMI_TABLE + "\nafter the upgrade:\n" + second, "p.txt", matrix.architectures
    )
    assert [f.nvml.driver_version for _, f in hosts] == ["570.86.16", "575.51.03"]
    assert [name for name, _ in hosts] == ["p.txt #1", "p.txt #2"]
    first = hosts[0][1].report
    assert first is not None
    assert any("host 1 of 2" in n for n in first.notes)
    second_report = hosts[1][1].report
    assert second_report is not None
    (smi,) = [r for r in second_report.ranges if r.section == "nvidia-smi"]
    assert smi.first == 17  # line numbers are the paste's: the second "| NVIDIA-SMI" header


def test_two_reports_that_agree_are_one_host(matrix: Matrix) -> None:
    hosts = read_reports(SMI_TABLE + "\nagain:\n" + SMI_TABLE, "p.txt", matrix.architectures)
    ((_, facts),) = hosts
    assert facts.report is not None
    assert any("repeats a report" in n and "agree" in n for n in facts.report.notes)


def test_truncated_collect_env_reads_what_is_there(read: Read) -> None:
    cut = COLLECT_ENV[: COLLECT_ENV.index("Nvidia driver")]
    facts = read(cut)
    assert facts.frameworks[0].version == "2.5.1+cu124"
    assert facts.nvml.driver_version is None


@pytest.mark.parametrize(
    "garbage",
    [
        "",
        "hello world\nthis is not a report\n",
        "\x00\x01\x02" * 1000,
        "{" * 10000,
        "| " * 50000,
        "<" * 100000,
        "GPU 0: " + "x" * 100000,
    ],
)
def test_garbage_is_no_report_recognised(read: Read, garbage: str) -> None:
    with pytest.raises(FactsError) as info:
        read(garbage)
    assert "no report recognised" in info.value.message
    assert info.value.hint is not None
    # one short line naming what most pastes need, and where every shape read is listed
    assert len(info.value.hint) < 300
    assert "`nvidia-smi`" in info.value.hint
    assert "collect_env" in info.value.hint
    assert "docs/findings.md#pasted-report-shapes" in info.value.hint


def test_cli_garbage_exits_2_with_the_shapes_it_knows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paste = tmp_path / "issue.md"
    paste.write_text("Thanks for the great tool! It does not work.\n")
    assert run(["check", "--from", str(paste)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {paste}: no report recognised")
    assert "collect_env" in err
    assert "Traceback" not in err


def test_cli_reads_standard_input(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    paste = SMI_TABLE + "torch==2.5.1+cpu\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(paste.encode())))
    assert run(["check", "--from", "-", "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    codes = {f["code"]: f["severity"] for f in report["findings"]}
    assert codes["framework-cpu-only"] == "error"
    assert codes["report-read"] == "info"


def test_cli_still_reads_snapshots(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    snapshot = tmp_path / "host.json"
    snapshot.write_text(dumps(HostFacts()))
    assert run(["check", "--from", str(snapshot), "--format", "json"]) in (0, 1)
    assert "report-read" not in capsys.readouterr().out


def test_undecodable_bytes_do_not_stop_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paste = tmp_path / "report.txt"
    paste.write_bytes(b"\xff\xfe\x80 garbage\n" + SMI_TABLE.encode())
    assert run(["check", "--from", str(paste), "--only", "driver-version"]) == 0
    assert "570.86.16" in capsys.readouterr().out


def test_the_hints_list_of_every_shape_is_in_the_docs() -> None:
    from gpudoctor.pasted.dispatch import SHAPES_ANCHOR, known_shapes
    from gpudoctor.resources import data_root

    findings = (data_root() / "docs" / "findings.md").read_text(encoding="utf-8")
    listed = findings.split(f'<a id="{SHAPES_ANCHOR}"></a>', 1)[1]
    for shape in known_shapes():
        assert f"- {shape}\n" in listed
