"""Multi-GPU and multi-node checks on recorded hosts: requirements, edge cases of each check,
the topology matrix in the text report, Prometheus samples and the fleet grouping."""

from __future__ import annotations

from dataclasses import replace

import pytest
from prometheus_client.parser import text_string_to_metric_families

from gpudoctor.checks import Intent, run_checks
from gpudoctor.checks.nccl import missing_interfaces
from gpudoctor.checks.requirements import parse_requirement
from gpudoctor.errors import UsageError
from gpudoctor.facts_multigpu import EnvVar, FabricFacts, NcclLibrary
from gpudoctor.findings import Severity
from gpudoctor.fleet_summary import summarize_fleet
from gpudoctor.matrix.model import Matrix
from gpudoctor.matrix.xid import load_xid_catalogue
from gpudoctor.report.prometheus import render_prometheus
from gpudoctor.report.text import render_text
from tests.support.hosts import host

E, W, INF, OK_, NA, UNK = (
    Severity.ERROR,
    Severity.WARN,
    Severity.INFO,
    Severity.OK,
    Severity.NA,
    Severity.UNKNOWN,
)


def _findings(name: str, matrix: Matrix, code: str, intent: Intent | None = None
              ) -> list[tuple[Severity, str, str]]:  # fmt: skip
    facts = host(name)
    return [(f.severity, f.subject, f.title) for f in run_checks(facts, matrix, intent).findings
            if f.code == code]  # fmt: skip


def _require(name: str, matrix: Matrix, *texts: str) -> dict[str, Severity]:
    intent = Intent(requirements=tuple(parse_requirement(t) for t in texts))
    run = run_checks(host(name), matrix, intent)
    return {f.subject: f.severity for f in run.findings if f.area == "requirements"}


REQUIRE = ("nvlink=ok", "fabric=ok", "p2p=ok", "shm>=1GiB", "ib>=8", "xid=none")


def test_requirements_on_a_healthy_hgx_are_met(matrix: Matrix) -> None:
    assert _require("hgx-h100-healthy", matrix, *REQUIRE) == dict.fromkeys(REQUIRE, OK_)


def test_requirements_fail_on_broken_hosts(matrix: Matrix) -> None:
    down = _require("hgx-h100-fabric-manager-down", matrix, *REQUIRE)
    assert (down["fabric=ok"], down["xid=none"], down["nvlink=ok"]) == (E, E, OK_)
    degraded = _require("hgx-h100-link-degraded", matrix, *REQUIRE)
    assert (degraded["nvlink=ok"], degraded["ib>=8"], degraded["p2p=ok"]) == (E, E, OK_)
    pcie = _require("pcie-4x-acs-on", matrix, *REQUIRE)
    assert pcie == {"nvlink=ok": E, "fabric=ok": E, "p2p=ok": E, "shm>=1GiB": E,
                    "ib>=8": E, "xid=none": UNK}  # fmt: skip


def test_each_multigpu_key_has_its_own_code(matrix: Matrix) -> None:
    intent = Intent(requirements=tuple(parse_requirement(t) for t in REQUIRE))
    run = run_checks(host("hgx-h100-healthy"), matrix, intent)
    codes = [f.code for f in run.findings if f.area == "requirements"]
    assert codes == [
        "requirement-nvlink",
        "requirement-fabric",
        "requirement-p2p",
        "requirement-shm",
        "requirement-ib",
        "requirement-xid",
    ]


def test_requirements_on_an_old_snapshot_are_unknown(matrix: Matrix) -> None:
    old = _require("h100-8x-healthy", matrix, *REQUIRE)
    assert set(old.values()) == {UNK}, old


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("nvlink=up", "'up' is not ok in 'nvlink=up'"),
        ("xid=0", "'0' is not none in 'xid=0'"),
        ("shm>=1G", "'1G' is not a memory size"),
        ("ib>=two", "'two' is not a whole number"),
        ("fabric>=ok", "fabric takes = or != only"),
    ],
)
def test_bad_multigpu_requirements_name_the_part(text: str, message: str) -> None:
    with pytest.raises(UsageError, match=message.replace("(", r"\(")):
        parse_requirement(text)


@pytest.mark.parametrize(
    ("spec", "missing"),
    [
        ("eth0", ["eth0"]),
        ("eno", []),  # a prefix of eno1
        ("=eno", ["=eno"]),  # exact name only
        ("=eno1,ib", []),
        ("^docker,lo", []),  # an exclude list cannot miss
        ("ib9,=lo", ["ib9"]),  # one entry missing is enough to name it
    ],
)
def test_nccl_socket_ifname_syntax(spec: str, missing: list[str]) -> None:
    assert missing_interfaces(spec, ("eno1", "ib0", "lo")) == missing


def test_fabric_completed_with_a_failed_status_is_an_error(matrix: Matrix) -> None:
    facts = host("hgx-h100-healthy")
    gpus = tuple(replace(g, fabric=FabricFacts("completed", 999, 0)) for g in facts.nvml.gpus)
    facts = replace(facts, nvml=replace(facts.nvml, gpus=gpus))
    (f,) = [f for f in run_checks(facts, matrix).findings if f.code == "fabric-manager"]
    assert f.severity is E
    assert "802" in f.title
    assert "nvidia-fabricmanager-550=550.90.07" in f.fix


def test_fabric_health_mask_degraded_bandwidth_warns(matrix: Matrix) -> None:
    facts = host("hgx-h100-healthy")
    mask = 1 | (2 << 2) | (2 << 4)  # degraded bandwidth true; route recovery, unhealthy false
    gpus = tuple(
        replace(g, fabric=FabricFacts("completed", 0, mask if g.index == 6 else 0))
        for g in facts.nvml.gpus
    )
    facts = replace(facts, nvml=replace(facts.nvml, gpus=gpus))
    (f,) = [f for f in run_checks(facts, matrix).findings if f.code == "fabric-manager"]
    assert (f.severity, f.subject) == (W, "GPU 6")
    assert f.title.endswith("unhealthy: degraded bandwidth")


def test_nvswitches_without_fabric_state_are_unknown(matrix: Matrix) -> None:
    facts = host("hgx-h100-healthy")
    gpus = tuple(replace(g, fabric=None) for g in facts.nvml.gpus)
    facts = replace(facts, nvml=replace(facts.nvml, gpus=gpus))
    (f,) = [f for f in run_checks(facts, matrix).findings if f.code == "fabric-manager"]
    assert f.severity is UNK
    assert "4 NVSwitch" in f.title


def test_nccl_library_shadowed_by_ld_library_path(matrix: Matrix) -> None:
    facts = host("hgx-h100-healthy")
    lib = NcclLibrary("/usr/lib/x86_64-linux-gnu/libnccl.so.2", "2.18.3")
    facts = replace(facts, multigpu=replace(facts.multigpu, nccl_on_library_path=(lib,)))
    (f,) = [f for f in run_checks(facts, matrix).findings if f.code == "nccl-library"]
    assert f.severity is W
    assert "2.21.5" in f.title
    assert "2.18.3" in f.title


def test_nccl_ib_disable_with_active_ports_warns(matrix: Matrix) -> None:
    facts = host("hgx-h100-healthy")
    env = (EnvVar("NCCL_IB_DISABLE", "1"),)
    facts = replace(facts, multigpu=replace(facts.multigpu, nccl_env=env))
    found = [f for f in run_checks(facts, matrix).findings if f.code == "nccl-env"]
    assert [(f.severity, f.subject) for f in found] == [(W, "NCCL_IB_DISABLE")]


def test_peermem_missing_warns_and_open_modules_get_info(matrix: Matrix) -> None:
    facts = host("hgx-h100-healthy")
    modules = tuple(m for m in facts.kernel.modules_loaded if m != "nvidia_peermem")
    for flavor, severity in (("proprietary", W), ("open", INF)):
        kernel = replace(facts.kernel, modules_loaded=modules, nvidia_module_flavor=flavor)
        run = run_checks(replace(facts, kernel=kernel), matrix)
        (f,) = [f for f in run.findings if f.code == "gpudirect-rdma"]
        assert f.severity is severity
        assert "modprobe nvidia-peermem" in f.fix


def test_memlock_limited_with_hcas_warns(matrix: Matrix) -> None:
    facts = host("hgx-h100-healthy")
    m = replace(facts.multigpu, memlock_unlimited=False, memlock_bytes=64 * 2**10)
    (f,) = [f for f in run_checks(replace(facts, multigpu=m), matrix).findings
            if f.code == "memlock-limit"]  # fmt: skip
    assert f.severity is W
    assert "--ulimit memlock=-1:-1" in f.fix


def test_iommu_groups_in_a_vm_and_locality_without_sysfs_are_na(matrix: Matrix) -> None:
    facts = host("pcie-4x-acs-on")
    vm = replace(facts, platform=replace(facts.platform, virtualization="kvm"))
    (f,) = [f for f in run_checks(vm, matrix).findings if f.code == "gpu-iommu-groups"]
    assert f.severity is NA
    bare = replace(facts, multigpu=replace(facts.multigpu, gpus=()))
    (f,) = [f for f in run_checks(bare, matrix).findings if f.code == "gpu-locality"]
    assert (f.severity, f.title) == (NA, "no GPU visible in sysfs (/sys/bus/pci)")


def test_acs_unreadable_is_na_with_the_reason(matrix: Matrix) -> None:
    facts = host("pcie-4x-acs-on")
    acs = tuple(replace(b, has_acs=None, control=None, redirect=None) for b in facts.multigpu.acs)
    m = replace(facts.multigpu, acs=acs, acs_unreadable_reason="readable by root only")
    (f,) = [f for f in run_checks(replace(facts, multigpu=m), matrix).findings
            if f.code == "pcie-acs"]  # fmt: skip
    assert (f.severity, f.title) == (NA, "not judged: readable by root only")


def test_xid_outside_the_table_is_a_warning_that_says_so(matrix: Matrix) -> None:
    facts = host("hgx-h100-fabric-manager-down")
    event = replace(facts.multigpu.xid_events[0], xid=157, message="something new")
    m = replace(facts.multigpu, xid_events=(event,))
    (f,) = [f for f in run_checks(replace(facts, multigpu=m), matrix).findings
            if f.code == "xid-history"]  # fmt: skip
    assert (f.severity, f.subject) == (W, "XID 157")
    assert "NVIDIA's Xid catalog" in f.fix


def test_xid_catalogue_covers_the_codes_operators_see() -> None:
    catalogue = load_xid_catalogue()
    wanted = {13, 31, 43, 45, 48, 61, 62, 63, 64, 68, 74, 79, 92, 94, 95, 119, 120}
    assert wanted <= set(catalogue.entries)
    assert catalogue.action(79).drain_due
    assert catalogue.action(95).reset_due
    assert catalogue.action(13).severity == "warn"
    assert catalogue.action(9999) is catalogue.unknown
    assert all(e.source.startswith("https://docs.nvidia.com/") for e in catalogue.entries.values())


def test_precision_modes_come_from_the_architecture_table(matrix: Matrix) -> None:
    assert _findings("hgx-h100-healthy", matrix, "precision-modes") == [
        (OK_, "GPU 0-7", "tensor-core modes: TF32, BF16, FP8")
    ]
    assert _findings("b200-torch25-no-sm100", matrix, "precision-modes")[0][2].endswith("FP4")
    assert _findings("driver-too-old", matrix, "precision-modes")[0][2].endswith("TF32, BF16")


def test_verbose_text_shows_the_topology_matrix(matrix: Matrix) -> None:
    run = run_checks(host("hgx-h100-healthy"), matrix)
    text = render_text(run, verbose=True)
    assert "      GPU0        X   NV18   NV18" in text
    assert "precision-modes" in text
    assert "NUMA node 1, CPUs 56-111,168-223" in text
    assert "P2P" not in render_text(run)  # quiet on the happy path


def test_prometheus_exports_links_fabric_xids_and_ports(matrix: Matrix) -> None:
    facts = host("hgx-h100-link-degraded")
    text = render_prometheus(facts, run_checks(facts, matrix).findings, exit_code=1, now=0)
    fams = {f.name: f.samples for f in text_string_to_metric_families(text)}
    up = {
        (s.labels["gpu"], s.labels["link"]): s.value for s in fams["gpudoctor_gpu_nvlink_link_up"]
    }
    assert up[("3", "7")] == 0
    assert up[("3", "6")] == 1
    assert len(up) == 8 * 18
    errors = {(s.labels["gpu"], s.labels["counter"]): s.value
              for s in fams["gpudoctor_gpu_nvlink_errors"]}  # fmt: skip
    assert errors[("5", "crc_flit")] == 4211
    states = {(s.labels["gpu"], s.labels["state"]): s.value
              for s in fams["gpudoctor_gpu_fabric_state"]}  # fmt: skip
    assert states[("0", "completed")] == 1
    assert states[("0", "not_started")] == 0
    ports = {s.labels["device"]: s.value for s in fams["gpudoctor_ib_port_active"]}
    assert ports["mlx5_7"] == 0
    assert ports["mlx5_0"] == 1
    down = host("hgx-h100-fabric-manager-down")
    text = render_prometheus(down, run_checks(down, matrix).findings, exit_code=1, now=0)
    fams = {f.name: f.samples for f in text_string_to_metric_families(text)}
    assert {s.labels["xid"]: s.value for s in fams["gpudoctor_xid_events"]} == {"13": 1, "79": 1}


def test_fleet_groups_hosts_by_multigpu_problem(matrix: Matrix) -> None:
    names = ["hgx-h100-healthy", "hgx-h100-fabric-manager-down", "hgx-h100-link-degraded",
             "pcie-4x-acs-on"]  # fmt: skip
    hosts = [(n, host(n), run_checks(host(n), matrix).findings) for n in names]
    summary = summarize_fleet(hosts)
    by_code = {p.code: p.hosts for p in summary.problems}
    assert by_code["fabric-manager"] == ("hgx-h100-fabric-manager-down",)
    assert by_code["nvlink-state"] == ("hgx-h100-link-degraded",)
    assert by_code["shm-size"] == ("pcie-4x-acs-on",)
    assert summary.healthy == ("hgx-h100-healthy",)
