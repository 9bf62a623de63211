"""Every output format stays valid for its strictest parser, whatever a host or snapshot holds:
hypothesis feeds arbitrary strings and numbers into the facts and each format must parse back."""

from __future__ import annotations

import json
import math
import re
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from prometheus_client.parser import text_string_to_metric_families

from gpudoctor.checks import Intent, run_checks
from gpudoctor.facts import HostFacts
from gpudoctor.facts_json import dumps, load, loads
from gpudoctor.findings import Severity
from gpudoctor.matrix.load import load_matrix
from gpudoctor.report.github import render_annotations, render_step_summary
from gpudoctor.report.json_report import render_json
from gpudoctor.report.junit import render_junit
from gpudoctor.report.prometheus import render_prometheus
from gpudoctor.report.text import render_text

BASE = load(Path(__file__).parents[1] / "data" / "hosts" / "h100-8x-healthy.json")
MATRIX = load_matrix()
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")

texts = st.text(max_size=40)
numbers = st.floats(allow_nan=True, allow_infinity=True) | st.integers(-(2**80), 2**80)


def _facts(  # noqa: PLR0917 - one argument per generated value
    name: str, host: str, error: str, status: str, power: float, memory: int
) -> HostFacts:
    gpu = replace(
        BASE.nvml.gpus[0],
        name=name,
        power_usage_w=power,
        memory_total_bytes=memory,
        error=error,
    )
    nvml = replace(BASE.nvml, gpus=(gpu, *BASE.nvml.gpus[1:]), error=error, status=status)
    return replace(
        BASE,
        nvml=nvml,
        platform=replace(BASE.platform, hostname=host, os_pretty=name, cuda_visible_devices=host),
    )


def _strict_json(text: str) -> Any:
    def refuse(constant: str) -> None:
        raise ValueError(f"bare {constant} in JSON")

    return json.loads(text, parse_constant=refuse)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=texts,
    host=texts,
    error=texts,
    status=st.sampled_from(["ok", "unknown"]) | texts,
    power=st.floats(allow_nan=True, allow_infinity=True),
    memory=st.integers(-(2**80), 2**80),
)
def test_every_format_parses_back(  # noqa: PLR0917 - one argument per generated value
    name: str, host: str, error: str, status: str, power: float, memory: int
) -> None:
    facts = _facts(name, host, error, status, power, memory)
    run = run_checks(facts, MATRIX, Intent())
    assert all(f.code != "check-crashed" for f in run.findings)

    text = render_text(run, verbose=True)
    assert not CONTROL.search(text.replace("\n", ""))

    envelope = _strict_json(render_json(run, facts, Intent()))
    assert envelope["findings"]

    junit = ET.fromstring(render_junit(run).encode("utf-8"))
    assert junit.tag == "testsuites"

    prom = render_prometheus(facts, run.findings, exit_code=run.exit_code)
    assert not CONTROL.search(prom.replace("\n", ""))
    families = list(text_string_to_metric_families(prom))
    assert families

    for line in render_annotations(run).splitlines():
        assert line.startswith("::") or "exit" in line
        assert "\r" not in line
    assert not CONTROL.search(render_step_summary(run).replace("\n", ""))


@settings(max_examples=60, deadline=None)
@given(name=texts, power=numbers)
def test_a_snapshot_round_trips_or_refuses_cleanly(name: str, power: float) -> None:
    gpu = replace(
        BASE.nvml.gpus[0], name=name, power_usage_w=float(power) if abs(power) < 1e300 else math.inf
    )
    facts = replace(BASE, nvml=replace(BASE.nvml, gpus=(gpu,)))
    text = dumps(facts)
    _strict_json(text)
    back = loads(text)
    assert back.nvml.gpus[0].name == name.encode("utf-8", "surrogatepass").decode(
        "utf-8", "replace"
    )


def test_escape_sequences_and_line_breaks_cannot_forge_report_lines() -> None:
    evil = "H100\x1b[2J\x1b]52;c;aGk=\x07\r\nerror: forged\u202e"
    facts = _facts(evil, evil, evil, "ok", 100.0, 80 << 30)
    run = run_checks(facts, MATRIX, Intent())
    text = render_text(run, verbose=True)
    assert "\x1b" not in text
    assert "\r" not in text
    assert not any(line.startswith("error: forged") for line in text.splitlines())
    assert "H100?[2J?]52;c;aGk=???error: forged?" in text


def test_a_multi_line_detail_keeps_its_rows_indented_and_printable() -> None:
    from gpudoctor.findings import Finding
    from gpudoctor.safe_text import clean_finding

    raw = Finding(
        code="gpu-identity",
        severity=Severity.WARN,
        area="gpu",
        title="t",
        detail="GPU0  X\nGPU1\x1b[2J  NV18\r\n✓ No issues found.",
    )
    cleaned = clean_finding(raw)
    assert cleaned.detail == "GPU0  X\nGPU1?[2J  NV18?\n✓ No issues found."
