"""Real reports pasted into public issue threads (tests/data/reports/), each judged through
`check --from` and compared with its expected verdict. A file's header says where it comes from
and what to expect:

    # source: URL (the cause the thread establishes)
    # sections: the shapes that must be recognised (exactly; a space in a name written `_`)
    # errors: the finding codes that must be errors (exactly)
    # also: code=severity pairs that must be among the findings
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.dispatch import read_report

REPORTS = Path(__file__).resolve().parents[1] / "data" / "reports"
CORPUS = sorted(REPORTS.glob("*.txt"))


def _header(path: Path) -> dict[str, str]:
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("# "):
            break
        key, _, value = line[2:].partition(":")
        out[key.strip()] = value.strip()
    return out


def _paste(path: Path) -> str:
    """The report as pasted, without the header (which is ours, not the reporter's)."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    return "".join(lines[len(_header(path)) :])


def test_the_corpus_has_real_reports_of_every_kind() -> None:
    assert len(CORPUS) >= 10
    sections = {s for p in CORPUS for s in _header(p)["sections"].split()}
    assert {
        "collect_env",
        "nvidia-smi",
        "nvidia-smi_-q",
        "nvidia-smi_-q_-x",
        "error_lines",
    } <= sections


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_real_report_verdict(path: Path, matrix: Matrix) -> None:
    head = _header(path)
    assert head["source"].startswith("https://github.com/"), "cite the thread"
    facts = read_report(_paste(path), path.name, matrix.architectures)
    assert facts.report is not None
    got_sections = sorted(s.replace(" ", "_") for s in facts.report.sections)
    assert got_sections == sorted(head["sections"].split())
    run = run_checks(facts, matrix)
    errors = sorted({f.code for f in run.findings if f.severity.value == "error"})
    assert errors == sorted(head["errors"].split())
    found = {(f.code, f.severity.value) for f in run.findings}
    for pair in head.get("also", "").split():
        code, _, severity = pair.partition("=")
        assert (code, severity) in found, f"{code}={severity} not in {sorted(found)}"
