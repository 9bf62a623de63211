"""Error lines the signature catalogue does not know (pasted/unknown_errors.py): one info
finding, `report-unknown-line`, that quotes them and says what to paste next; never a warning."""

from __future__ import annotations

from gpudoctor.checks import run_checks
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.dispatch import read_report


def _findings(text: str, matrix: Matrix) -> list:  # type: ignore[type-arg]
    return list(run_checks(read_report(text, "paste.txt", matrix.architectures), matrix).findings)


def test_report_unknown_line_quotes_each_line_with_its_number(matrix: Matrix) -> None:
    text = "$ python train.py\nEpoch 1/10\nKilled\n$ echo $?\n137\nerror: job failed\n"
    found = _findings(text, matrix)
    (unknown,) = [f for f in found if f.code == "report-unknown-line"]
    assert unknown.severity is Severity.INFO
    assert unknown.title.endswith("Killed")
    assert "line 3: Killed; line 6: error: job failed" in unknown.detail
    assert "dmesg" in unknown.fix
    assert not [f for f in found if f.severity in (Severity.WARN, Severity.ERROR)]
    # the report still says that no known line was in it
    assert [f.severity for f in found if f.code == "report-error"] == [Severity.OK]


def test_no_unknown_line_finding_without_such_lines(matrix: Matrix) -> None:
    found = _findings("Driver Version: 550.54.15\n", matrix)
    assert not [f for f in found if f.code == "report-unknown-line"]
    assert not [f for f in run_checks(HostFacts(), matrix).findings if f.code.startswith("report")]
