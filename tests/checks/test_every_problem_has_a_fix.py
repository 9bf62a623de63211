"""Every error and warn finding carries its fix, on every recorded host and for every kind of
intent; no check crashes on them; and every code a run emits is listed by `check --list`."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.checks import Intent, run_checks
from gpudoctor.checks.base import finding
from gpudoctor.checks.catalogue import listing
from gpudoctor.checks.model import Severity
from gpudoctor.checks.requirements import parse_requirement
from gpudoctor.facts_json import load
from gpudoctor.matrix.model import Matrix
from tests.checks.conftest import HOSTS_DIR, ROOT

FIXTURES = sorted([*HOSTS_DIR.glob("*.json"), *(ROOT / "tests/data/real-hosts").glob("*.json")])
INTENTS = [
    Intent(),
    Intent(framework="pytorch"),
    Intent(framework="pytorch", framework_version="2.5", cuda="12.4"),
    Intent(framework="tensorflow", framework_version="2.15"),
    Intent(cuda="13.0"),
    Intent(
        requirements=tuple(
            parse_requirement(r)
            for r in ("driver>=550", "gpus>=1", "memory>=40GiB", "mig=off", "runtime=nvidia",
                      "cuda>=12.1", "compute_capability>=8.0", "iommu=on")
        )
    ),
]  # fmt: skip


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: Path(p).stem)
def test_every_problem_has_its_fix(path: Path, matrix: Matrix) -> None:
    facts = load(path)
    listed = {line.split()[0] for line in listing().splitlines()}
    for intent in INTENTS:
        run = run_checks(facts, matrix, intent)
        crashed = [f.title for f in run.findings if f.code == "check-crashed"]
        assert not crashed, crashed
        for f in run.findings:
            assert f.code in listed, f.code
            if f.severity in (Severity.ERROR, Severity.WARN):
                assert f.fix.strip(), (f.code, f.title)


def test_a_problem_without_a_fix_is_refused_where_it_is_made() -> None:
    with pytest.raises(ValueError, match="without a fix"):
        finding("intent-verdict", Severity.ERROR, "no GPU")
    assert finding("intent-verdict", Severity.INFO, "fine").fix == ""


def test_list_names_every_code_a_run_can_emit() -> None:
    from gpudoctor.checks.catalogue import CATALOGUE

    listed = [line.split()[0] for line in listing().splitlines()]
    assert sorted(listed) == sorted(CATALOGUE)
    for code in ("check-crashed", "intent-newest-row", "intent-verdict", "requirement-gpus",
                 "requirement-runtime", "no-nvidia-gpu"):  # fmt: skip
        assert code in listed
