"""collect_facts: every probe runs, each failure becomes an issue, the snapshot round-trips."""

from __future__ import annotations

import types
from datetime import datetime
from pathlib import Path

from gpudoctor import __version__, facts_json
from gpudoctor.probes import collect_facts
from gpudoctor.probes.runner import CommandResult
from tests.support.probe_fakes import LDCONFIG_HEALTHY, NVCC_12_4, FakeDocker, FakeRunner

PROBES = [
    "platform",
    "sysfs",
    "nvml",
    "runtime",
    "cudalibs",
    "frameworks",
    "programs",
    "multigpu",
    "amd",
    "total",
]


def test_healthy_scenario_end_to_end(scenario) -> None:
    facts = collect_facts(
        root=scenario("healthy-multi-gpu"),
        env={"NVIDIA_VISIBLE_DEVICES": "all"},
        runner=FakeRunner({"ldconfig -p": LDCONFIG_HEALTHY, "nvcc --version": NVCC_12_4}),
        docker_factory=lambda: FakeDocker({"Version": "27.3.1"}, {"Runtimes": {"runc": {}}}),
        distributions=[],
        include_nvml=False,
    )
    assert facts.tool_version == __version__
    assert datetime.fromisoformat(facts.collected_at).utcoffset() is not None
    assert facts.redacted is True
    assert facts.platform.os_id == "ubuntu"
    assert facts.platform.hostname is None
    assert facts.platform.nvidia_visible_devices == "all"
    assert [d.kind for d in facts.kernel.pci_devices] == ["nvswitch", "gpu", "gpu"]
    assert facts.nvml.status == "not_run"
    assert facts.container_runtime.docker_version == "27.3.1"
    assert [t.version for t in facts.cuda_libs.toolkits] == ["11.8.89", "12.4.1"]
    assert facts.frameworks == ()
    assert facts.issues == ()
    assert [t.probe for t in facts.timings] == PROBES
    assert all(t.seconds >= 0 for t in facts.timings)
    assert facts_json.loads(facts_json.dumps(facts)) == facts


def test_no_redact_keeps_hostname(scenario) -> None:
    facts = collect_facts(
        root=scenario("healthy-multi-gpu"),
        env={},
        runner=FakeRunner(),
        distributions=[],
        redact=False,
        include_docker=False,
        include_nvml=False,
    )
    assert (facts.redacted, facts.platform.hostname) == (False, "gpu-node-17")
    assert facts.container_runtime.docker_reachable is None  # not asked


def test_a_crashing_probe_becomes_an_issue_and_the_rest_still_runs(scenario) -> None:
    def exploding_runner(argv, *, timeout_s: float = 5.0) -> CommandResult:
        raise RuntimeError("runner bug")

    facts = collect_facts(
        root=scenario("vm-guest-open"),
        env={},
        runner=exploding_runner,
        distributions=[],
        include_docker=False,
        include_nvml=False,
    )
    crashed = [(i.probe, i.code, i.reason) for i in facts.issues]
    assert crashed == [("cudalibs", "probe-crashed", "RuntimeError: runner bug")]
    assert facts.cuda_libs.toolkits == ()  # the default, empty
    assert facts.kernel.nvidia_module_flavor == "open"  # other probes unaffected
    assert "cudalibs" in [t.probe for t in facts.timings]


def test_bindings_without_nvml_do_not_crash_the_snapshot(tmp_path: Path) -> None:
    empty = types.ModuleType("pynvml")  # an NVML binding with nothing in it
    facts = collect_facts(
        root=tmp_path,
        env={},
        runner=FakeRunner(),
        nvml=empty,
        distributions=[],
        include_docker=False,
    )
    assert facts.nvml.status != "ok"
    assert any(i.probe == "nvml" for i in facts.issues)
    assert facts.nvml.gpus == ()
