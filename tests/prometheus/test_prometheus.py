"""render_prometheus, read back with prometheus_client's own parser."""

from __future__ import annotations

import math
import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from prometheus_client.parser import text_string_to_metric_families

from gpudoctor.findings import Severity
from gpudoctor.report.prometheus import (
    METRIC_NAMES,
    METRICS,
    Metric,
    exposition,
    render_prometheus,
)
from tests.support.fleet_hosts import (
    degraded_findings,
    degraded_host,
    finding,
    healthy_host,
    no_driver_host,
    odd_names_host,
)

GOLDEN = Path(__file__).resolve().parent.parent / "data" / "fleet" / "degraded.prom"
NOW = 1_735_787_045.5


def parse(text: str) -> dict[str, list[tuple[dict[str, str], float]]]:
    families = {}
    for family in text_string_to_metric_families(text):
        assert family.type == "gauge", family.name
        families[family.name] = [(dict(s.labels), s.value) for s in family.samples]
    return families


def samples(text: str, name: str, **match: str) -> list[tuple[dict[str, str], float]]:
    return [
        (labels, value)
        for labels, value in parse(text)[name]
        if all(labels.get(k) == v for k, v in match.items())
    ]


def value(text: str, name: str, **match: str) -> float:
    (found,) = samples(text, name, **match)
    return found[1]


@pytest.mark.parametrize(
    ("facts", "findings"),
    [
        (healthy_host(), []),
        (degraded_host(), degraded_findings()),
        (no_driver_host(), [finding("nvml-library-not-found", Severity.ERROR, area="driver")]),
        (odd_names_host(), [finding("x", Severity.WARN, 'GPU "0"\n\\')]),
    ],
    ids=["healthy", "degraded", "no-driver", "odd-names"],
)
def test_every_family_parses_with_help_and_no_duplicate_series(facts, findings) -> None:
    text = render_prometheus(facts, findings, exit_code=1, now=NOW)
    families = parse(text)
    assert set(families) == METRIC_NAMES
    series = Counter(
        (name, tuple(sorted(labels.items())))
        for name, found in families.items()
        for labels, _ in found
    )
    assert [s for s, n in series.items() if n > 1] == []  # Prometheus drops such a scrape
    assert "# HELP gpudoctor_gpus GPUs NVML reports.\n# TYPE gpudoctor_gpus gauge\n" in text
    for metric in METRICS:  # every sample carries exactly the labels the catalogue documents
        for labels, _ in families[metric.name]:
            assert sorted(labels) == sorted(metric.labels), metric.name


def test_check_status_is_a_state_set_with_the_worst_of_duplicate_findings() -> None:
    findings = [
        *degraded_findings(),
        finding("pcie-link-degraded", Severity.ERROR, "GPU 1"),  # same code and subject, worse
    ]
    text = render_prometheus(degraded_host(), findings, exit_code=1, now=NOW)
    pcie = samples(text, "gpudoctor_check_status", code="pcie-link-degraded", subject="GPU 1")
    assert {labels["severity"]: v for labels, v in pcie} == {
        "error": 1,
        "warn": 0,
        "unknown": 0,
        "info": 0,
        "ok": 0,
        "n/a": 0,
    }
    assert value(text, "gpudoctor_check_severity", code="pcie-link-degraded") == 5
    assert value(text, "gpudoctor_check_severity", code="clock-events-active") == 2
    errors = samples(text, "gpudoctor_check_status", severity="error")
    assert sorted((lab["code"], lab["subject"]) for lab, v in errors if v == 1) == [
        ("mig-mode-pending", "GPU 0"),
        ("mig-mode-pending", "GPU 2"),
        ("pcie-link-degraded", "GPU 1"),
        ("retired-pages-pending", "GPU 2"),
    ]
    # The counts are of findings as given, duplicates included.
    assert value(text, "gpudoctor_findings", severity="error") == 4
    assert value(text, "gpudoctor_findings", severity="warn") == 1
    assert value(text, "gpudoctor_findings", severity="n/a") == 0


def test_gpu_health_values() -> None:
    text = render_prometheus(degraded_host(), degraded_findings(), exit_code=1, now=NOW)
    assert value(text, "gpudoctor_gpus") == 4
    assert value(text, "gpudoctor_pci_gpus") == 4
    assert value(text, "gpudoctor_gpu_mig_mode", gpu="0") == 0
    assert value(text, "gpudoctor_gpu_mig_mode_pending", gpu="0") == 1
    assert value(text, "gpudoctor_gpu_mig_devices", gpu="2") == 2
    assert samples(text, "gpudoctor_gpu_mig_devices", gpu="0") == []  # MIG off: no instances
    assert value(text, "gpudoctor_gpu_pcie_link_width_ratio", gpu="1") == 0.5
    assert value(text, "gpudoctor_gpu_pcie_link_width_ratio", gpu="0") == 1
    assert value(text, "gpudoctor_gpu_retired_pages_pending", gpu="2") == 1
    assert value(text, "gpudoctor_gpu_retired_pages", gpu="2") == 3
    assert value(text, "gpudoctor_gpu_memory_total_bytes", gpu="3") == 80 * 1024**3
    assert value(text, "gpudoctor_gpu_ecc_mode", gpu="0") == 1
    assert samples(text, "gpudoctor_gpu_ecc_mode", gpu="3") == []  # unknown stays absent
    reasons = samples(text, "gpudoctor_gpu_clock_event_active", gpu="0")
    assert sorted(lab["reason"] for lab, v in reasons if v == 1) == ["hw_slowdown", "sw_power_cap"]
    assert len(reasons) == 9
    assert samples(text, "gpudoctor_gpu_clock_event_active", gpu="3") == []
    (info,) = samples(text, "gpudoctor_gpu_info", gpu="1")
    assert info[0]["pci_bus_id"] == "0000:19:00.0"
    assert info[0]["name"] == "NVIDIA H100 80GB HBM3"
    assert (info[0]["compute_capability"], info[0]["architecture"]) == ("9.0", "hopper")


def test_driver_run_and_time_metrics() -> None:
    text = render_prometheus(healthy_host(), [], exit_code=0, now=NOW)
    (driver,) = samples(text, "gpudoctor_driver_info")
    assert driver == (
        {
            "driver_version": "550.90.07",
            "cuda_driver_version": "12.4",
            "kernel_module_version": "550.90.07",
            "nvml_status": "ok",
        },
        1,
    )
    assert value(text, "gpudoctor_check_exit_code") == 0
    assert value(text, "gpudoctor_last_run_timestamp_seconds") == NOW
    assert value(text, "gpudoctor_facts_collected_timestamp_seconds") == 1_735_787_045
    assert value(text, "gpudoctor_build_info", version="0.1.0") == 1
    assert value(text, "gpudoctor_gpus") == 8
    assert value(text, "gpudoctor_findings", severity="error") == 0


def test_host_without_nvml_reports_pci_gpus_and_no_gpu_count() -> None:
    text = render_prometheus(no_driver_host(), [], exit_code=1, now=NOW)
    assert samples(text, "gpudoctor_gpus") == []  # NVML could not count: unknown, not 0
    assert value(text, "gpudoctor_pci_gpus") == 1
    assert value(text, "gpudoctor_probe_issues", probe="nvml") == 1
    (driver,) = samples(text, "gpudoctor_driver_info")
    assert driver[0]["nvml_status"] == "library_not_found"
    assert driver[0]["driver_version"] == ""


def test_label_values_with_quotes_backslashes_and_newlines_round_trip() -> None:
    subject = 'GPU "0"\n\\ end'
    text = render_prometheus(
        odd_names_host(), [finding("x", Severity.WARN, subject)], exit_code=1, now=NOW
    )
    (gpu,) = samples(text, "gpudoctor_gpu_info")
    assert gpu[0]["name"] == 'Weird "GPU" \\ model\nline two'
    assert gpu[0]["uuid"] == "GPU-\\x"
    assert value(text, "gpudoctor_check_severity", subject=subject) == 4
    assert 'name="Weird \\"GPU\\" \\\\ model\\nline two"' in text
    assert all(line.startswith(("#", "gpudoctor_")) for line in text.splitlines())


@given(st.text())
def test_any_label_value_parses_back_with_the_real_parser(text_value: str) -> None:
    metric = Metric("m", "help", ("l",))
    text = exposition([(metric, [((("l", text_value),), 1)])])
    # no raw CR, escape sequence or other control character
    assert not re.search("[\x00-\x1f\x7f-\x9f\u2028\u2029]", text.replace("\n", ""))
    (family,) = text_string_to_metric_families(text)
    (sample,) = family.samples
    if text_value.replace("\n", "").isprintable():  # printable values round-trip exactly
        assert sample.labels == {"l": text_value}


def test_unreadable_collected_at_leaves_the_timestamp_out() -> None:
    from dataclasses import replace

    facts = replace(healthy_host(), collected_at="yesterday")
    text = render_prometheus(facts, [], exit_code=0, now=NOW)
    assert samples(text, "gpudoctor_facts_collected_timestamp_seconds") == []


@pytest.mark.parametrize(
    "number",
    [3, 0.5, float("nan"), float("-inf"), 2**80, -(2**1100)],
    ids=["3", "0.5", "nan", "-inf", "2^80", "-2^1100"],
)
def test_values_parse_back(number: float) -> None:
    text = exposition([(Metric("m", "help"), [((), number)])])
    (family,) = text_string_to_metric_families(text)
    (sample,) = family.samples
    if isinstance(number, float) and math.isnan(number):
        assert math.isnan(sample.value)
        return
    expected = float(number) if abs(number) < 2**1000 else (math.inf if number > 0 else -math.inf)
    assert sample.value == expected


def test_each_run_has_its_own_registry_and_the_default_one_stays_empty() -> None:
    from prometheus_client import REGISTRY

    before = {m.name for m in REGISTRY.collect()}
    first = render_prometheus(healthy_host(), [], exit_code=0, now=NOW)
    second = render_prometheus(degraded_host(), degraded_findings(), exit_code=1, now=NOW)
    assert value(first, "gpudoctor_gpus") == 8  # the second run did not add to the first
    assert value(second, "gpudoctor_gpus") == 4
    assert {m.name for m in REGISTRY.collect()} == before
    assert not any(name.startswith("gpudoctor") for name in before)


def families_of(text: str) -> dict[str, tuple[str, str, frozenset[object]]]:
    """Every family as (help, type, set of (label set, value)): what a scraper sees, not how the
    text spells it (1 and 1.0 are one value; a series is its label set, in any order)."""
    found = {}
    for family in text_string_to_metric_families(text):
        series = frozenset((frozenset(s.labels.items()), s.value) for s in family.samples)
        found[family.name] = (family.documentation, family.type, series)
    return found


def test_degraded_host_keeps_the_pinned_names_labels_help_and_values() -> None:
    """`degraded.prom` is the output of the hand-written renderer that came before
    prometheus_client: the families, their HELP, every series and its value stay."""
    text = render_prometheus(degraded_host(), degraded_findings(), exit_code=1, now=NOW)
    assert families_of(text) == families_of(GOLDEN.read_text(encoding="utf-8"))
    # Families keep the catalogue's order (docs/ci.md lists them so).
    names = [f.name for f in text_string_to_metric_families(text)]
    assert names == [m.name for m in METRICS]
