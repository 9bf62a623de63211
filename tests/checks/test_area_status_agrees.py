"""Every reporter shows an area with the same status: the text box, the GitHub step summary
and the JSON `areas[].status`, on every recorded host and pasted report. (They disagreed on
hosts without an NVIDIA GPU: text showed `-`, JSON `ok`, even with an error under the area.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpudoctor.checks import Intent, run_checks
from gpudoctor.facts import HostFacts
from gpudoctor.findings import MARKS, Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.dispatch import read_report
from gpudoctor.report.github import render_step_summary
from gpudoctor.report.json_report import envelope
from gpudoctor.report.text import render_text
from tests.support.hosts import HOST_NAMES, ROOT, host

REPORTS = sorted((ROOT / "tests" / "data" / "reports").glob("*.txt"))
CASES = [f"host:{n}" for n in HOST_NAMES] + [f"report:{p.name}" for p in REPORTS]


def _facts(case: str, matrix: Matrix) -> HostFacts:
    kind, _, name = case.partition(":")
    if kind == "host":
        return host(name)
    path = Path(ROOT / "tests" / "data" / "reports" / name)
    return read_report(path.read_text(encoding="utf-8"), name, matrix.architectures)


@pytest.mark.parametrize("case", CASES)
def test_text_github_and_json_show_the_same_area_status(case: str, matrix: Matrix) -> None:
    facts = _facts(case, matrix)
    run = run_checks(facts, matrix)
    areas = envelope(run, facts, Intent())["areas"]
    text = render_text(run, verbose=True)
    summary = render_step_summary(run)
    for area in areas:
        mark = MARKS[Severity(area["status"])]
        title = re.escape(area["title"])
        assert re.search(rf"^\[{re.escape(mark)}\] {title}", text, re.M), (area, text)
        assert re.search(rf"^- {re.escape(mark)} \*\*{title}\*\*", summary, re.M), area
        found = [f.severity for f in run.findings if f.area == area["area"]]
        if Severity.ERROR in found:  # an error never hides under a grey or green box
            assert area["status"] == "error", area
