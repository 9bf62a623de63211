"""probes/amd.py against fake root trees of AMD hosts (tests/support/amd_trees.py)."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pytest

from gpudoctor.facts_amd import AmdFacts, gfx_name
from gpudoctor.probes.amd import parse_properties, probe_amd, ras_counts
from tests.support.amd_trees import (
    MI250X_NODE,
    MI300X_NODE,
    NVIDIA_AND_AMD,
    RECORDED,
    RX7900XTX_WORKSTATION,
    Tree,
    write_tree,
)
from tests.support.hosts import host

ME = (1000, [1000])  # a user in none of the tree's groups
IN_RENDER = (1000, [1000, os.getgid()])  # the tree's device nodes belong to the test's gid


@pytest.mark.parametrize(
    ("version", "name"),
    [
        (90010, "gfx90a"),
        (90402, "gfx942"),
        (110000, "gfx1100"),
        (90500, "gfx950"),
        (100300, "gfx1030"),
        (120001, "gfx1201"),
        (90008, "gfx908"),
        (0, None),
        (91600, None),
    ],
)
def test_gfx_target_version_decodes_as_llvm_target(version: int, name: str | None) -> None:
    assert gfx_name(version) == name


def test_ras_counts_read_ue_ce_and_de_lines() -> None:
    assert ras_counts("ue: 2\nce: 17\nde: 0\n") == {"ue": 2, "ce": 17, "de": 0}
    assert ras_counts(None) == {}


def test_properties_are_name_value_lines() -> None:
    assert parse_properties("simd_count 304\ngfx_target_version 90402\njunk\n") == {
        "simd_count": 304,
        "gfx_target_version": 90402,
    }


def _probe(tmp_path: Path, tree: Tree, user=IN_RENDER, env=None):  # type: ignore[no-untyped-def]
    def no_amdsmi() -> ModuleType:
        raise ModuleNotFoundError("No module named 'amdsmi'")

    return probe_amd(write_tree(tmp_path, tree), env or {}, user=user, amdsmi=no_amdsmi)


def test_mi300x_node_eight_gpus_gfx942(tmp_path: Path) -> None:
    facts, issues = _probe(tmp_path, MI300X_NODE)
    assert issues == []
    # The BMC's ASPEED VGA (vendor 0x1a03) has a DRM card but is not an AMD GPU.
    assert [g.device_id for g in facts.pci_gpus] == ["0x74a1"] * 8
    assert all(g.driver == "amdgpu" for g in facts.pci_gpus)
    assert facts.pci_gpus[0].address == "0000:0c:00.0"
    gpu = facts.pci_gpus[0]
    assert (gpu.ecc_uncorrectable, gpu.ecc_correctable, gpu.compute_partition) == (0, 0, "SPX")
    assert [n.gfx_target for n in facts.gpu_nodes] == ["gfx942"] * 8
    assert [n.node for n in facts.kfd_nodes if not n.is_gpu] == [0, 1]  # CPU nodes
    assert [n.drm_render_minor for n in facts.gpu_nodes] == list(range(128, 136))
    assert facts.gpu_nodes[0].device_id == 0x74A1
    assert facts.gpu_nodes[0].location_id == 0x0C00
    assert (facts.rocm_version, facts.rocm_path) == ("6.3.1-48", "/opt/rocm")
    assert facts.rocm_installs == ("/opt/rocm-6.3.1",)
    assert (facts.amdgpu_loaded, facts.amdgpu_version, facts.kfd_present) == (True, "6.10.5", True)
    kfd = facts.device_nodes[0]
    assert (kfd.path, kfd.mode, kfd.group, kfd.accessible) == ("/dev/kfd", "0660", "render", True)
    assert len(facts.device_nodes) == 9  # /dev/kfd and eight render nodes
    assert facts.amdsmi_status == "not_installed"
    assert "amdsmi" in (facts.amdsmi_error or "")


def test_mi250x_two_dies_per_card_are_two_kfd_nodes(tmp_path: Path) -> None:
    facts, _ = _probe(tmp_path, MI250X_NODE)
    assert len(facts.pci_gpus) == 8  # 4 cards, 2 GCDs each, each its own PCI function
    assert [n.gfx_target for n in facts.gpu_nodes] == ["gfx90a"] * 8
    assert {g.device_id for g in facts.pci_gpus} == {"0x740c"}
    assert facts.rocm_version == "6.2.4-120"


def test_workstation_user_outside_render_group(tmp_path: Path) -> None:
    facts, _ = _probe(tmp_path, RX7900XTX_WORKSTATION, user=ME)
    assert [n.gfx_target for n in facts.gpu_nodes] == ["gfx1100"]
    assert facts.rocm_version is None
    assert facts.rocm_path is None
    assert facts.amdgpu_version is None  # the kernel's own amdgpu has no version file
    assert {n.path: n.accessible for n in facts.device_nodes} == {
        "/dev/kfd": False,
        "/dev/dri/renderD128": False,
    }


def test_root_may_open_every_node(tmp_path: Path) -> None:
    facts, _ = _probe(tmp_path, RX7900XTX_WORKSTATION, user=(0, [0]))
    assert all(n.accessible for n in facts.device_nodes)


def test_mixed_host_reads_only_the_amd_gpu(tmp_path: Path) -> None:
    facts, _ = _probe(tmp_path, NVIDIA_AND_AMD)
    assert [(g.address, g.device_id) for g in facts.pci_gpus] == [("0000:03:00.0", "0x747e")]
    assert [n.gfx_target for n in facts.gpu_nodes] == ["gfx1101"]


def test_container_without_kfd_and_environment(tmp_path: Path) -> None:
    tree = Tree(gpus=MI300X_NODE.gpus[1:3], kfd_mode=None, cdi=_CDI)
    env = {
        "HSA_OVERRIDE_GFX_VERSION": "9.4.2",
        "HIP_VISIBLE_DEVICES": "0",
        "ROCR_VISIBLE_DEVICES": "0,1",
        "LD_LIBRARY_PATH": "/opt/rocm/lib:/usr/local/lib:/opt/rocm-6.3.1/lib64",
    }
    facts, _ = _probe(tmp_path, tree, env=env)
    kfd = facts.device_nodes[0]
    assert (kfd.path, kfd.mode, kfd.accessible) == ("/dev/kfd", None, None)
    assert facts.hsa_override_gfx_version == "9.4.2"
    assert (facts.hip_visible_devices, facts.rocr_visible_devices) == ("0", "0,1")
    assert facts.ld_library_path_rocm == ("/opt/rocm/lib", "/opt/rocm-6.3.1/lib64")
    assert facts.cdi_amd_devices == ("amd.com/gpu=0", "amd.com/gpu=1")


def test_no_amd_gpu_reads_nothing_and_tries_no_binding(tmp_path: Path) -> None:
    calls = []

    def loader() -> ModuleType:
        calls.append(1)
        raise AssertionError("not to be imported")

    facts, issues = probe_amd(tmp_path, {}, user=ME, amdsmi=loader)
    assert (facts.seen, facts.kfd_present, facts.amdsmi_status, calls) == (
        False,
        False,
        "not_run",
        [],
    )
    assert facts.device_nodes == ()
    assert issues == []


def test_amdsmi_failures_are_recorded_not_raised(tmp_path: Path) -> None:
    write_tree(tmp_path, RX7900XTX_WORKSTATION)

    def broken() -> ModuleType:
        raise KeyError("libamd_smi.so: cannot open shared object file")

    facts, _ = probe_amd(tmp_path, {}, user=ME, amdsmi=broken)
    assert facts.amdsmi_status == "import_failed"
    assert "libamd_smi.so" in (facts.amdsmi_error or "")

    class Smi(ModuleType):
        __version__ = "25.5.1"

        @staticmethod
        def amdsmi_init() -> None:
            raise RuntimeError("AMDSMI_STATUS_DRIVER_NOT_LOADED")

    facts, _ = probe_amd(tmp_path, {}, user=ME, amdsmi=lambda: Smi("amdsmi"))
    assert (facts.amdsmi_status, facts.amdsmi_version) == ("init_failed", "25.5.1")


def test_unreadable_node_is_an_issue(tmp_path: Path) -> None:
    write_tree(tmp_path, RX7900XTX_WORKSTATION)
    (tmp_path / "sys/class/kfd/kfd/topology/nodes/1/properties").write_text("simd_count 4\n")
    facts, issues = probe_amd(tmp_path, {}, user=ME, amdsmi=lambda: ModuleType("x"))
    assert [i.code for i in issues] == ["kfd-no-gfx-target-version"]
    assert facts.gpu_nodes == ()
    assert len(facts.pci_gpus) == 1


_CDI = """{
  "cdiVersion": "0.5.0",
  "kind": "amd.com/gpu",
  "devices": [
    {"name": "0", "containerEdits": {"deviceNodes": [{"path": "/dev/dri/renderD128"}]}},
    {"name": "1", "containerEdits": {"deviceNodes": [{"path": "/dev/dri/renderD129"}]}}
  ],
  "containerEdits": {"deviceNodes": [{"path": "/dev/kfd"}]}
}
"""


def _portable(facts: AmdFacts) -> AmdFacts:
    """Without who ran the probe: the tree's nodes belong to the test's uid and gid."""
    nodes = tuple(replace(n, uid=None, gid=None) for n in facts.device_nodes)
    return replace(facts, device_nodes=nodes, user_uid=None, user_groups=())


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_probe_of_the_fake_tree_is_the_recorded_snapshot(name: str, tmp_path: Path) -> None:
    """The recorded AMD hosts that `check --from` replays are what the probe reads from a tree
    written from the documented formats (owner and groups aside)."""
    tree, env = RECORDED[name]
    recorded = host(name).amd
    member = any(n.accessible for n in recorded.device_nodes)
    user = (1000, [1000, os.getgid()] if member else [1000])
    facts, issues = _probe(tmp_path, tree, user=user, env=env)
    assert issues == []
    assert _portable(facts) == _portable(recorded)
