"""NVLink, fabric, topology and P2P through the real nvidia-ml-py binding and the stand-in."""

from __future__ import annotations

from pathlib import Path

from nvml_rig import FakeNvml

from gpudoctor.facts_multigpu import FabricFacts, GpuPairFacts, NvLinkFacts


def test_hgx_links_fabric_and_pairs(fake_nvml: FakeNvml) -> None:
    run = fake_nvml.run("hgx_h100_nvswitch")
    facts = run.facts
    assert run.issues == []
    gpu = facts.gpus[2]
    assert len(gpu.nvlinks) == 18
    assert gpu.nvlinks[5] == NvLinkFacts(
        link=5,
        active=True,
        version="4.0",
        remote_type="switch",
        remote_pci_bus_id="0000:02:00.0",
        replay_errors=0,
        recovery_errors=0,
        crc_flit_errors=0,
        crc_data_errors=0,
    )
    assert gpu.fabric == FabricFacts(state="completed", status=0, health_mask=0)
    assert len(facts.pairs) == 28  # 8 choose 2
    assert facts.pairs[0] == GpuPairFacts(0, 1, "node", "ok", "ok", "ok", "ok")
    assert {p.topology for p in facts.pairs if p.gpu_a < 4 <= p.gpu_b} == {"system"}


def test_fabric_manager_down_and_a_link_degraded(fake_nvml: FakeNvml) -> None:
    extra = "\n".join(
        [
            "gpu.*.fabric_state = 1",  # NVML_GPU_FABRIC_STATE_NOT_STARTED
            "gpu.*.fabric_status = 999",
            "gpu.3.nvlink.7.state = 0",
            "gpu.5.nvlink.2.err.2 = 4211",
        ]
    )
    facts = fake_nvml.run("hgx_h100_nvswitch", extra=extra).facts
    assert {g.fabric.state for g in facts.gpus if g.fabric} == {"not_started"}
    down = facts.gpus[3].nvlinks[7]
    assert (down.active, down.remote_type, down.replay_errors) == (False, None, None)
    assert facts.gpus[5].nvlinks[2].crc_flit_errors == 4211


def test_pcie_gpus_have_no_links_and_report_blocked_p2p(fake_nvml: FakeNvml) -> None:
    extra = "count = 4\ntopo.* = 30\np2p.* = 3\np2p.*.2 = 5"
    run = fake_nvml.run("healthy_8x_h100", extra=extra)
    assert all(g.nvlinks == () and g.fabric is None for g in run.facts.gpus)
    assert run.issues == []
    pair = run.facts.pairs[0]
    assert (pair.topology, pair.p2p_read, pair.p2p_nvlink) == (
        "hostbridge",
        "topology_not_supported",
        "not_supported",
    )


def test_old_driver_without_fabric_calls_still_reads_links(fake_nvml: FakeNvml) -> None:
    run = fake_nvml.run("hgx_h100_nvswitch", variant="old")
    gpu = run.facts.gpus[0]
    assert len(gpu.nvlinks) == 18
    assert gpu.fabric is None
    assert "nvmlDeviceGetGpuFabricInfoV" in run.facts.functions_not_found


def test_link_calls_are_bounded_per_gpu(fake_nvml: FakeNvml) -> None:
    """PCIe-only GPU: one NotSupported state call, no further link calls; an HGX GPU: one state
    call past its 18 links, version and remote type once per GPU."""
    run = fake_nvml.run("healthy_8x_h100", extra="count = 1")
    assert run.calls.count("nvmlDeviceGetNvLinkState") == 1
    assert "nvmlDeviceGetNvLinkErrorCounter" not in run.calls
    hgx = fake_nvml.run("hgx_h100_nvswitch", extra="count = 1")
    assert hgx.calls.count("nvmlDeviceGetNvLinkState") == 19
    assert hgx.calls.count("nvmlDeviceGetNvLinkVersion") == 1
    assert hgx.calls.count("nvmlDeviceGetNvLinkRemoteDeviceType") == 1
    assert hgx.calls.count("nvmlDeviceGetNvLinkErrorCounter") == 18 * 4
    assert {link.version for link in hgx.facts.gpus[0].nvlinks} == {"4.0"}


def test_check_end_to_end_on_the_hgx_stand_in(fake_nvml: FakeNvml, tmp_path: Path) -> None:
    """`gpudoctor check --format json` with the stand-in as this host's NVML: the NVLink, fabric
    and P2P findings and the topology matrix come out of the real command."""
    import json
    import os
    import subprocess
    import sys

    from nvml_rig import SCENARIOS

    scenario = tmp_path / "s.txt"
    scenario.write_text(
        (SCENARIOS / "hgx_h100_nvswitch.txt").read_text() + "\ngpu.*.fabric_state = 1\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("FAKE_NVML_")}
    env |= {"LD_LIBRARY_PATH": str(fake_nvml.libs["current"]), "FAKE_NVML_SCENARIO": str(scenario)}
    done = subprocess.run(
        [sys.executable, "-m", "gpudoctor", "check", "--format", "json", "--require", "nvlink=ok"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    found = {(f["code"], f["severity"]) for f in report["findings"]}
    assert {("nvlink-state", "ok"), ("fabric-manager", "error"), ("p2p-topology", "ok"),
            ("requirement-nvlink", "ok")} <= found  # fmt: skip
    (p2p,) = [f for f in report["findings"] if f["code"] == "p2p-topology"]
    assert "NV18" in p2p["detail"]
    assert len(report["facts"]["nvml"]["pairs"]) == 28
