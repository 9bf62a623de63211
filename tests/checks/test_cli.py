"""`gpudoctor check` end to end: formats, exit codes, bad input, the real host, docs freshness."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from gpudoctor.cli.app import run
from gpudoctor.cli.docgen import document
from tests.support.hosts import HOSTS_DIR, ROOT


def snap(name: str) -> str:
    return str(HOSTS_DIR / f"{name}.json")


def test_text_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["check", "--from", snap("h100-8x-healthy")]) == 0
    assert "No issues found" in capsys.readouterr().out
    assert run(["check", "--from", snap("driver-too-old")]) == 1
    assert run(["check", "--from", snap("thermal-throttling")]) == 0
    assert run(["check", "--from", snap("thermal-throttling"), "--strict"]) == 1
    assert run(["check", "--from", snap("h100-8x-healthy"), "--require", "gpus>=16"]) == 1
    assert run(["check", "--from", snap("driver-too-old"), "--skip", "framework-driver-cuda"]) == 0


def test_verbose_global_and_local(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["-v", "check", "--from", snap("h100-8x-healthy")]) == 0
    assert "evidence:" in capsys.readouterr().out
    assert run(["check", "-v", "--from", snap("h100-8x-healthy")]) == 0
    assert "evidence:" in capsys.readouterr().out


def test_json_format(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["check", "--from", snap("gpu-lost"), "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["exit_code"] == 1
    assert data["summary"]["error"] == 1


def test_junit_to_file(tmp_path: Path) -> None:
    out = tmp_path / "report.xml"
    code = run(["check", "--from", snap("h100-8x-healthy"), "--require", "driver>=560",
                "--format", "junit", "-o", str(out)])  # fmt: skip
    assert code == 1
    failures = [c.get("name") for c in ET.parse(out).iter("testcase") if c.find("failure")
                is not None]  # fmt: skip
    assert failures == ["requirement-driver[driver>=560]"]


def test_github_format_appends_step_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert run(["check", "--from", snap("gpu-lost"), "--format", "github"]) == 1
    assert capsys.readouterr().out.startswith("::error title=gpu-lost (GPU 5)::")
    text = summary.read_text()
    assert text.startswith("earlier step\n## gpudoctor check")


def test_intent_flags(capsys: pytest.CaptureFixture[str]) -> None:
    code = run(["check", "--from", snap("b200-torch25-no-sm100"), "--framework", "pytorch==2.5",
                "--only", "intent-verdict,intent-newest-row"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 1
    assert "pytorch==2.5 will not run here" in out
    assert "newest pytorch this host runs" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--require", "drivr>=550"], "unknown key 'drivr' in 'drivr>=550'"),
        (["--require", "driver>=55x"], "'55x' is not a version in 'driver>=55x'"),
        (["--framework", "pytorh"], "unknown framework 'pytorh'"),
        (["--cuda", "x"], "--cuda 'x' is not a CUDA version"),
        (["--format", "xml"], "--format 'xml' is not one of: text, json, junit, github"),
        (["--only", "nope"], "--only: unknown check code 'nope'"),
        (["--from", "/nonexistent.json"], "cannot read /nonexistent.json"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["check", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {message}")
    assert "Traceback" not in err


def test_malformed_and_newer_snapshots(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert run(["check", "--from", str(bad)]) == 2
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps({"schema_version": 99}))
    assert run(["check", "--from", str(newer)]) == 2
    err = capsys.readouterr().err
    assert "not valid JSON" in err
    assert "newer than this gpudoctor understands" in err


def test_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["check", "--list"]) == 0
    out = capsys.readouterr().out
    assert "framework-driver-cuda" in out
    assert "requirement-mig" in out


def test_findings_doc_is_fresh() -> None:
    doc = (ROOT / "docs" / "findings.md").read_text(encoding="utf-8")
    assert doc == document(), (
        "docs/findings.md is stale: run `python -m gpudoctor.cli.docgen > docs/findings.md`"
    )


def test_real_check_on_this_host() -> None:
    """The real probes on this machine: exit 0 or 1, never a traceback; JSON parses."""
    cmd = [sys.executable, "-m", "gpudoctor", "check"]
    text = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False)
    assert text.returncode in (0, 1), text.stderr
    assert "Traceback" not in text.stderr
    assert text.stdout.strip()
    done = subprocess.run([*cmd, "--format", "json"], capture_output=True, text=True,
                          timeout=60, check=False)  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    assert json.loads(done.stdout)["schema"] == "gpudoctor.check/v1"
