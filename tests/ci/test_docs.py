"""docs/ci.md stays true to the code: the metric table, the action's inputs and outputs, the GitLab
variables and the alert names."""

from __future__ import annotations

import re

import yaml

from gpudoctor.report.prometheus import METRIC_NAMES, metric_reference_markdown
from tests.support.ci import REPO, gitlab_job

DOC_PATH = REPO / "docs" / "ci.md"
DOC = DOC_PATH.read_text(encoding="utf-8")
BEGIN = re.compile(r"<!-- metrics:begin[^>]*-->\n")
END = "<!-- metrics:end -->"


def test_metric_table_is_the_generated_one(update_golden: bool) -> None:
    start = BEGIN.search(DOC)
    assert start is not None
    table = DOC[start.end() : DOC.index(END)]
    if update_golden:
        DOC_PATH.write_text(
            DOC[: start.end()] + metric_reference_markdown() + DOC[DOC.index(END) :],
            encoding="utf-8",
        )
        return
    assert table == metric_reference_markdown(), "GPUDOCTOR_UPDATE_GOLDEN=1 to regenerate"


def test_every_metric_named_in_the_docs_exists() -> None:
    named = set(re.findall(r"\bgpudoctor_[a-z_]+", DOC))
    assert named == METRIC_NAMES, named ^ METRIC_NAMES


def table_first_column(heading_word: str, doc: str = DOC) -> set[str]:
    """Backticked names in the first column of the markdown table after a header row."""
    names: set[str] = set()
    for block in re.findall(rf"\| {heading_word} \|.*?\n((?:\|.*\n)+)", doc):
        names |= set(re.findall(r"^\| `([^`]+)` \|", block, re.MULTILINE))
    return names


def test_action_inputs_and_outputs_are_documented() -> None:
    action = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
    assert table_first_column("input") == set(action["inputs"])
    assert table_first_column("output") == set(action["outputs"])
    for name, spec in action["inputs"].items():
        default = spec.get("default", "")
        if default:
            assert f"| `{name}` | `{default}` |" in DOC, name


def test_gitlab_variables_are_documented() -> None:
    documented = table_first_column("variable")
    variables = {k for k in gitlab_job()["variables"] if k.startswith("GPUDOCTOR_")}  # type: ignore[attr-defined]
    assert documented == variables


def test_alerts_are_documented() -> None:
    rules = yaml.safe_load(
        (REPO / "deploy" / "kubernetes" / "prometheus-rule.yaml").read_text(encoding="utf-8")
    )
    alerts = {r["alert"] for g in rules["spec"]["groups"] for r in g["rules"]}
    kubernetes_doc = (REPO / "docs" / "kubernetes.md").read_text(encoding="utf-8")
    assert table_first_column("alert", kubernetes_doc) == alerts


KUBERNETES_DOC_PATH = REPO / "docs" / "kubernetes.md"
LIVE_BEGIN = re.compile(r"<!-- live-metrics:begin[^>]*-->\n")
LIVE_END = "<!-- live-metrics:end -->"


def test_serves_own_metric_table_is_the_generated_one(update_golden: bool) -> None:
    from gpudoctor.exporter.live import LIVE_METRICS
    from gpudoctor.report.prometheus import metric_reference_markdown as table_of

    doc = KUBERNETES_DOC_PATH.read_text(encoding="utf-8")
    start = LIVE_BEGIN.search(doc)
    assert start is not None
    expected = table_of(LIVE_METRICS)
    if update_golden:
        KUBERNETES_DOC_PATH.write_text(
            doc[: start.end()] + expected + doc[doc.index(LIVE_END) :], encoding="utf-8"
        )
        return
    assert doc[start.end() : doc.index(LIVE_END)] == expected
