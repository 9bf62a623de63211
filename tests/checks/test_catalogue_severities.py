"""The catalogue's severities are typed and enforced: `finding()` refuses a severity its code's
entry does not list, so docs/findings.md cannot promise less than a check reports. Every
fixture (recorded hosts, real hosts, pasted reports) under several intents runs every check
without one refusal."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from gpudoctor.builder.verify_codes import ENTRIES as VERIFY_ENTRIES
from gpudoctor.checks import run_checks
from gpudoctor.checks.base import Intent, finding
from gpudoctor.checks.catalogue import CATALOGUE
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.load import load_facts

DATA = Path(__file__).parents[1] / "data"
FIXTURES = sorted(
    [
        *(DATA / "hosts").glob("*.json"),
        *(DATA / "real-hosts").glob("*.json"),
        *(DATA / "reports").glob("*.txt"),
    ]
)
INTENTS = (
    Intent(),
    Intent(framework="pytorch"),
    Intent(framework="pytorch", framework_version="2.5", cuda="12.4"),
    Intent(framework="tensorflow"),
)


def test_severities_are_typed() -> None:
    for entry in (*CATALOGUE.values(), *VERIFY_ENTRIES):
        assert entry.severities, entry.code
        assert all(isinstance(s, Severity) for s in entry.severities), entry.code


def test_finding_refuses_a_severity_its_entry_does_not_list() -> None:
    assert Severity.ERROR not in CATALOGUE["gpu-identity"].severities
    with pytest.raises(ValueError, match="gpu-identity: severity error is not one"):
        finding("gpu-identity", Severity.ERROR, "x", fix="y")


def _load(path: Path, matrix: Matrix) -> HostFacts:
    return load_facts(path, matrix.architectures)


@pytest.mark.parametrize("path", FIXTURES, ids=[p.name for p in FIXTURES])
def test_every_fixture_reports_only_catalogued_severities(path: Path, matrix: Matrix) -> None:
    facts = _load(path, matrix)
    for intent in INTENTS:
        run = run_checks(facts, matrix, intent)
        crashed = [f.title for f in run.findings if f.code == "check-crashed"]
        assert crashed == []
        for f in run.findings:
            if f.code in CATALOGUE:
                assert f.severity in CATALOGUE[f.code].severities, (f.code, f.severity)


_CHECKS = Path(__file__).parents[2] / "gpudoctor" / "checks"


def _literal_findings() -> list[tuple[str, str, str]]:
    """(where, code, severity name) of every `finding("code", SEVERITY, ...)` call in the checks
    whose code and severity are written out (a severity held in a variable is left to the run
    tests above)."""
    out = []
    for path in sorted(_CHECKS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and len(node.args) >= 2):
                continue
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            code, severity = node.args[0], node.args[1]
            if name != "finding" or not isinstance(code, ast.Constant):
                continue
            level = getattr(severity, "id", None) or getattr(severity, "attr", None)
            if level in Severity.__members__:
                out.append((f"{path.name}:{node.lineno}", str(code.value), level))
    return out


def test_every_written_out_severity_is_one_its_code_lists() -> None:
    # A branch no fixture reaches (a paste with a GPU but no driver once crashed this way) is
    # still caught: each literal severity is checked against the catalogue without running it.
    calls = _literal_findings()
    assert len(calls) > 100  # the walk finds the checks' calls
    wrong = [
        f"{where}: {code} {level}"
        for where, code, level in calls
        if Severity[level] not in CATALOGUE[code].severities
    ]
    assert wrong == []
