"""Reporters: the JSON envelope's shape (a contract), JUnit validity, GitHub escaping, colour."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET

from gpudoctor.checks import Intent, run_checks
from gpudoctor.checks.requirements import parse_requirement
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.report.github import (
    escape_data,
    escape_property,
    render_annotations,
    render_step_summary,
)
from gpudoctor.report.json_report import SCHEMA, envelope
from gpudoctor.report.junit import render_junit
from gpudoctor.report.text import render_text, use_colour
from tests.support.hosts import host


def test_json_envelope_shape_is_pinned(matrix: Matrix) -> None:
    intent = Intent(requirements=(parse_requirement("gpus>=2"),))
    facts = host("thermal-throttling")
    data = json.loads(json.dumps(envelope(run_checks(facts, matrix, intent), facts, intent)))
    assert data["schema"] == SCHEMA == "gpudoctor.check/v1"
    assert list(data) == ["schema", "tool_version", "exit_code", "strict", "summary", "intent",
                          "areas", "findings", "facts"]  # fmt: skip
    assert isinstance(data["tool_version"], str)
    assert isinstance(data["exit_code"], int)
    assert data["summary"].keys() == {s.value for s in Severity}
    assert all(isinstance(v, int) for v in data["summary"].values())
    assert data["intent"] == {"framework": None, "framework_version": None, "cuda": None,
                              "requirements": ["gpus>=2"]}  # fmt: skip
    assert all(a.keys() == {"area", "title", "headline", "status"} for a in data["areas"])
    keys = {"code", "severity", "area", "subject", "title", "detail", "fix", "evidence", "docs"}
    for f in data["findings"]:
        assert f.keys() == keys
        assert all(isinstance(v, str) for v in f["evidence"].values())
        assert f["docs"] == f"docs/findings.md#{f['code']}"
    assert (
        data["facts"]["schema_version"] == 2
    )  # the snapshot schema (FrameworkFacts.companions from 2)
    assert sum(data["summary"].values()) == len(data["findings"])


def test_junit_is_valid_xml_with_failures_and_skips(matrix: Matrix) -> None:
    run = run_checks(host("thermal-throttling"), matrix)
    root = ET.fromstring(render_junit(run))
    suite = root.find("testsuite")
    assert suite is not None
    cases = suite.findall("testcase")
    assert len(cases) == len(run.findings) == int(suite.get("tests", "-1"))
    assert suite.get("failures") == "0"  # warnings only: not failures without --strict
    assert int(suite.get("skipped", "0")) == sum(f.severity is Severity.NA for f in run.findings)
    strict = ET.fromstring(render_junit(run_checks(host("thermal-throttling"), matrix,
                                                   strict=True)))  # fmt: skip
    failed = [c for c in strict.iter("testcase") if c.find("failure") is not None]
    assert {c.get("name") for c in failed} == {
        "persistence-mode[GPU 0-3]",
        "clock-throttling[GPU 0]",
        "clock-throttling[GPU 1]",
    }
    assert {c.get("classname") for c in failed} == {"gpudoctor.gpu"}


def test_github_escaping() -> None:
    assert escape_data("50%\r\nnext") == "50%25%0D%0Anext"
    assert escape_property("a:b,c%") == "a%3Ab%2Cc%25"


def test_github_annotations_and_summary(matrix: Matrix) -> None:
    run = run_checks(host("memory-repair-pending"), matrix)
    lines = render_annotations(run).splitlines()
    assert "::error title=row-remap-failure (GPU 1)::row remapping failed" in lines[0] or any(
        line.startswith("::error title=row-remap-failure (GPU 1)::") for line in lines
    )
    assert any(line.startswith("::warning title=memory-repair-pending (GPU 0)::") for line in lines)
    assert all("\n" not in line for line in lines)
    summary = render_step_summary(run)
    assert summary.startswith("## gpudoctor check")
    assert "| ✗ | `row-remap-failure` | GPU 1 |" in summary


def test_text_marks_and_quiet_happy_path(matrix: Matrix) -> None:
    healthy = render_text(run_checks(host("h100-8x-healthy"), matrix))
    assert healthy.splitlines()[-1] == "✓ No issues found. (exit 0)"
    assert "    " not in healthy  # nothing indented: every passing check folds into its area
    verbose = render_text(run_checks(host("h100-8x-healthy"), matrix), verbose=True)
    assert "evidence: " in verbose
    assert "(persistence-mode)" in verbose
    broken = render_text(run_checks(host("driver-library-mismatch"), matrix))
    assert "[✗] NVIDIA driver" in broken
    assert "→ reboot, or reload the modules" in broken


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colour_only_on_a_tty_and_no_color_wins(matrix: Matrix) -> None:
    assert use_colour(Tty(), {}) is True
    assert use_colour(io.StringIO(), {}) is False
    assert use_colour(Tty(), {"NO_COLOR": "1"}) is False
    assert use_colour(io.StringIO(), {"FORCE_COLOR": "1"}) is True
    coloured = render_text(run_checks(host("gpu-lost"), matrix), colour=True)
    assert "\033[31m✗\033[0m" in coloured
