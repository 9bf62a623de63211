"""The markdown reply says what it judged: "the pasted text only" for a pasted report, and not
for a snapshot or a live check (it said "pasted text" for every input)."""

from __future__ import annotations

from gpudoctor.checks import run_checks
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.dispatch import read_report
from gpudoctor.report.markdown import render_markdown
from tests.support.hosts import ROOT, host


def test_a_snapshot_is_not_called_pasted_text(matrix: Matrix) -> None:
    facts = host("h100-8x-healthy")
    text = render_markdown(run_checks(facts, matrix), facts)
    assert "pasted" not in text
    assert "report shows" not in text
    assert "collected on the host" in text


def test_a_pasted_report_still_says_so(matrix: Matrix) -> None:
    path = ROOT / "tests" / "data" / "reports" / "rocm-4759-rocm-smi-mi300x.txt"
    facts = read_report(path.read_text(encoding="utf-8"), path.name, matrix.architectures)
    text = render_markdown(run_checks(facts, matrix), facts)
    assert "from the pasted text only" in text
    assert "No problem found in what the report shows" in text
