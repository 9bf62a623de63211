"""The multi-GPU host probe on recorded trees (tests/data/multigpu) and the XID reader."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from gpudoctor.facts_multigpu import IbPort, NcclLibrary, XidEvent
from gpudoctor.probes.multigpu import acs_control, nccl_env, nccl_on_library_path, probe_multigpu
from gpudoctor.probes.xid import parse_record, read_xid_events

DATA = Path(__file__).resolve().parents[1] / "data" / "multigpu"


def _snapshot(root: Path) -> dict[str, str | bytes]:
    out: dict[str, str | bytes] = {}
    for path in sorted(root.rglob("*")):
        key = str(path.relative_to(root))
        if path.is_symlink():
            out[key] = "-> " + os.readlink(path)
        elif path.is_file():
            out[key] = path.read_bytes()
    return out


def test_recorded_trees_are_what_make_trees_builds(tmp_path: Path) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_trees", DATA / "make_trees.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    shutil.copy(DATA / "kmsg-xid.txt", tmp_path)
    module.build(tmp_path)
    for name in module.TREES:
        assert _snapshot(tmp_path / name) == _snapshot(DATA / name), f"stale tree {name}"


def test_hgx_tree() -> None:
    facts, issues = probe_multigpu(DATA / "hgx-h100-ib", {})
    assert issues == []
    assert facts.collected
    assert facts.nvswitch_count == 4
    assert [(g.numa_node, g.iommu_group_type) for g in facts.gpus] == [(0, "identity")] * 4 + [
        (1, "identity")
    ] * 4
    assert facts.gpus[5].cpu_list == "56-111,168-223"
    assert facts.acs
    assert {b.redirect for b in facts.acs} == {False}
    assert facts.acs_unreadable_reason is None
    assert facts.ib_ports[3] == IbPort(
        "mlx5_3", 1, "DOWN", "Disabled", "10 Gb/sec (4X SDR)", "InfiniBand"
    )
    assert facts.net_interfaces == ("eno1", "ib0", "ib1", "ib2", "ib3", "lo")
    assert facts.shm_bytes is None  # no size option and no /dev/shm in the tree
    assert (facts.memlock_bytes, facts.memlock_unlimited) == (None, True)
    assert facts.xid_readable is True
    assert [(e.xid, e.pci_bus_id) for e in facts.xid_events] == [
        (13, "0000:5d:00.0"),
        (43, "0000:5d:00.0"),
        (79, "0000:ab:00.0"),
    ]
    assert "python3" not in facts.xid_events[0].message  # process names stay out
    assert facts.xid_events[2].seconds_since_boot == 90000.0


def test_pcie_tree_with_acs_redirect_and_docker_shm() -> None:
    facts, _ = probe_multigpu(DATA / "pcie-4gpu-acs", {})
    redirect = [b.address for b in facts.acs if b.redirect]
    assert redirect == ["0000:01:00.0", "0000:02:08.0", "0000:02:09.0", "0000:02:0a.0",
                        "0000:02:0b.0"]  # fmt: skip
    root_port = next(b for b in facts.acs if b.address == "0000:00:03.0")
    assert (root_port.has_acs, root_port.redirect) == (False, False)
    assert {g.iommu_group_type for g in facts.gpus} == {"DMA-FQ"}
    assert facts.shm_bytes == 64 * 2**20
    assert (facts.memlock_bytes, facts.memlock_unlimited) == (8 * 2**20, False)
    assert facts.nvswitch_count == 0
    assert facts.xid_readable is None
    assert "no /dev/kmsg" in (facts.xid_unreadable_reason or "")


def test_acs_unreadable_without_root(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(DATA / "pcie-4gpu-acs", tree, symlinks=True)
    for config in tree.rglob("config"):
        config.write_bytes(config.read_bytes()[:64])  # what a non-root read returns
    facts, _ = probe_multigpu(tree, {})
    assert {b.redirect for b in facts.acs} == {None}
    assert "root" in (facts.acs_unreadable_reason or "")


def test_acs_control_walks_the_capability_list() -> None:
    config = bytearray(0x200)
    config[0x100:0x104] = (0x0001 | (1 << 16) | (0x140 << 20)).to_bytes(4, "little")  # AER
    config[0x140:0x144] = (0x000D | (1 << 16)).to_bytes(4, "little")
    config[0x146:0x148] = (0x001C).to_bytes(2, "little")
    assert acs_control(bytes(config)) == (True, 0x1C)
    assert acs_control(bytes(config[:0x100])) == (None, None)
    assert acs_control(bytes(0x200)) == (False, None)


def test_nccl_env_is_redacted_except_settings() -> None:
    env = {"NCCL_P2P_DISABLE": "1", "NCCL_TOPO_FILE": "/home/alice/topo.xml", "PATH": "/bin"}
    assert [(v.name, v.value) for v in nccl_env(env, redact=True)] == [
        ("NCCL_P2P_DISABLE", "1"),
        ("NCCL_TOPO_FILE", "<redacted>"),
    ]
    assert nccl_env(env, redact=False)[1].value == "/home/alice/topo.xml"


def test_libnccl_on_ld_library_path(tmp_path: Path) -> None:
    lib = tmp_path / "home/alice/nccl/lib"
    lib.mkdir(parents=True)
    (lib / "libnccl.so.2.18.3").write_bytes(b"")
    (lib / "libnccl.so.2").symlink_to("libnccl.so.2.18.3")
    env = {"LD_LIBRARY_PATH": "/home/alice/nccl/lib:/missing"}
    assert nccl_on_library_path(tmp_path, env, redact=True) == (
        NcclLibrary("/home/<user>/nccl/lib/libnccl.so.2", "2.18.3"),
    )


def test_parse_record_forms() -> None:
    record = "4,1301,86400123456,-;NVRM: Xid (PCI:0000:5D:00): 94, pid=77, name=a.out, Contained"
    assert parse_record(record) == XidEvent(94, "0000:5d:00.0", 86400.123456, "Contained")
    dmesg = "[ 12.5] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has"
    assert parse_record(dmesg) == XidEvent(79, "0000:3b:00.0", None, "GPU has")
    assert parse_record("6,1,2,-;usb 1-1: new device") is None


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read any file")
def test_unreadable_kernel_log_says_why(tmp_path: Path) -> None:
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev/kmsg").write_text("x")
    (tmp_path / "dev/kmsg").chmod(0)
    readable, reason, events = read_xid_events(tmp_path)
    assert (readable, events) == (False, ())
    assert "CAP_SYSLOG" in (reason or "")


def test_this_hosts_kernel_log_is_read_in_bounded_time() -> None:
    """The real /dev/kmsg (a character device, read record by record until EAGAIN), or the
    reason it cannot be read; either way promptly."""
    import time

    started = time.monotonic()
    readable, reason, events = read_xid_events(Path("/"))
    assert time.monotonic() - started < 3.0
    assert readable is True or reason
    assert all(e.xid > 0 for e in events)
