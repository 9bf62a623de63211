"""No check crashes on partial facts: every registered check, run directly (not through
run_checks, which would turn a crash into a `check-crashed` finding), over random subsets of the
facts of every recorded host and every pasted report fixture. A subset keeps or drops (back to
its default) each field of every record, and keeps a random part of every tuple of records, so
the checks meet the facts a snapshot from an older probe, a failed probe or a short paste holds.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpudoctor.checks import REGISTRY, Intent
from gpudoctor.checks.pasted_report import link_error_lines
from gpudoctor.checks.summary import headlines
from gpudoctor.facts import HostFacts
from gpudoctor.facts_json import load
from gpudoctor.matrix.load import load_matrix
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.dispatch import read_report

DATA = Path(__file__).resolve().parents[1] / "data"
HOSTS = sorted([*(DATA / "hosts").glob("*.json"), *(DATA / "real-hosts").glob("*.json")])
REPORTS = sorted((DATA / "reports").glob("*.txt"))
MATRIX = load_matrix()


def _report(path: Path) -> HostFacts:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    body = "".join(line for line in lines if not line.startswith("# "))
    return read_report(body, path.name, MATRIX.architectures)


def _samples() -> list[tuple[str, HostFacts]]:
    from tests.support import pasted_samples as samples

    texts = {
        "sample-smi-table": samples.SMI_TABLE,
        "sample-smi-table-old": samples.SMI_TABLE_OLD,
        "sample-collect-env": samples.COLLECT_ENV,
        "sample-smi-xml": samples.SMI_XML,
        "sample-prose": "Driver: NVIDIA 550.54.15, CUDA 12.4\n4x A100 80GB\nUbuntu 22.04\n",
        "sample-logs": "NCCL version 2.18.1+cuda12.1\n[ 5.1] NVRM: Xid (PCI:0000:3b:00): 79, "
        "pid=1, GPU has fallen off the bus.\nThis container was built for NVIDIA Driver "
        "Release 545.23 or later, but version 535.104.05 was detected\n",
    }
    return [(name, read_report(text, name, MATRIX.architectures)) for name, text in texts.items()]


FIXTURES: list[tuple[str, HostFacts]] = [
    *((p.stem, load(p)) for p in HOSTS),
    *((p.stem, _report(p)) for p in REPORTS),
    *_samples(),
]


def _subset(draw: st.DrawFn, value: Any, depth: int = 0) -> Any:
    """A random part of `value`: each dataclass field kept, subsetted or reset to its default;
    each tuple of records cut to a random subsequence."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type) and depth < 6:
        changes: dict[str, Any] = {}
        for f in dataclasses.fields(value):
            current = getattr(value, f.name)
            choice = draw(st.sampled_from(("keep", "drop", "deeper")))
            if choice == "drop" and f.default is not dataclasses.MISSING:
                changes[f.name] = f.default
            elif choice == "drop" and f.default_factory is not dataclasses.MISSING:
                changes[f.name] = f.default_factory()
            elif choice == "deeper":
                changes[f.name] = _subset(draw, current, depth + 1)
        return dataclasses.replace(value, **changes)
    if isinstance(value, tuple) and value and dataclasses.is_dataclass(value[0]):
        keep = draw(st.lists(st.booleans(), min_size=len(value), max_size=len(value)))
        return tuple(_subset(draw, v, depth + 1) for i, v in enumerate(value) if keep[i])
    return value


@st.composite
def partial_facts(draw: st.DrawFn) -> tuple[str, HostFacts]:
    name, facts = draw(st.sampled_from(FIXTURES))
    return name, _subset(draw, facts)


def _run_all(facts: HostFacts, matrix: Matrix) -> None:
    intent = Intent()
    found = []
    for area, check in REGISTRY:
        try:
            found += check(facts, matrix, intent)
        except Exception as exc:  # the failure names the check and the fixture
            raise AssertionError(f"{area}/{check.__name__} raised {exc!r}") from exc
    link_error_lines(found)
    headlines(facts, intent)


def test_the_fixtures_cover_hosts_and_reports() -> None:
    assert len(HOSTS) >= 30
    assert len(REPORTS) >= 10


@pytest.mark.parametrize(("name", "facts"), FIXTURES, ids=[n for n, _ in FIXTURES])
def test_every_check_runs_on_every_whole_fixture(name: str, facts: HostFacts) -> None:
    _run_all(facts, MATRIX)


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(partial_facts())
def test_no_check_raises_on_a_random_part_of_the_facts(case: tuple[str, HostFacts]) -> None:
    name, facts = case
    try:
        _run_all(facts, MATRIX)
    except AssertionError as exc:
        raise AssertionError(f"{name}: {exc}") from exc
