"""No finding shows a missing value as "None" (a collect_env paste gives no device count: torch
"sees None CUDA device(s)")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.dispatch import read_report
from tests.support.hosts import HOST_NAMES, ROOT, host

REPORTS = sorted((ROOT / "tests" / "data" / "reports").glob("*.txt"))


def _words(facts_findings: list[str]) -> list[str]:
    return [t for t in facts_findings if re.search(r"\bNone\b", t)]


@pytest.mark.parametrize("path", REPORTS, ids=lambda p: p.stem)
def test_no_none_in_a_pasted_report_verdict(path: Path, matrix: Matrix) -> None:
    facts = read_report(path.read_text(encoding="utf-8"), path.name, matrix.architectures)
    found = run_checks(facts, matrix).findings
    assert _words([f"{f.title} | {f.detail} | {f.fix}" for f in found]) == []


@pytest.mark.parametrize("name", HOST_NAMES)
def test_no_none_in_a_host_verdict(name: str, matrix: Matrix) -> None:
    found = run_checks(host(name), matrix).findings
    assert _words([f"{f.title} | {f.detail} | {f.fix}" for f in found]) == []
