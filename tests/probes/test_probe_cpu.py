"""cpu.py: CPU model from /proc/cpuinfo or MIDR_EL1 and the NUMA layout, under a sysfs root."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.probes.cpu import probe_cpu

_GRACE_CPU = (
    "processor\t: {i}\nBogoMIPS\t: 2000.00\nCPU implementer\t: 0x41\n"
    "CPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0xd4f\nCPU revision\t: 0\n\n"
)


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _node(root: Path, n: int, cpulist: str, kib: int) -> None:
    _write(root, f"sys/devices/system/node/node{n}/cpulist", cpulist + "\n")
    _write(root, f"sys/devices/system/node/node{n}/meminfo", f"Node {n} MemTotal: {kib} kB\n")


def test_gh200_grace_and_gpu_memory_as_a_cpu_less_node(tmp_path: Path) -> None:
    _write(tmp_path, "proc/cpuinfo", "".join(_GRACE_CPU.format(i=i) for i in range(72)))
    _node(tmp_path, 0, "0-71", 500_000_000)
    _node(tmp_path, 1, "", 100_000_000)  # HBM onlined over NVLink-C2C
    _node(tmp_path, 2, "", 0)  # reserved MIG nodes hold nothing
    facts, issues = probe_cpu(tmp_path)
    assert issues == []
    assert (facts.model, facts.implementer, facts.parts) == ("Neoverse-V2", "0x41", ("0xd4f",))
    assert [(n.node, n.cpus) for n in facts.numa_nodes] == [(0, 72), (1, 0), (2, 0)]
    assert facts.numa_nodes[1].memory_total_bytes == 100_000_000 * 1024
    assert facts.gpu_memory_coherent is True


def test_midr_when_cpuinfo_is_missing_and_no_gpu_memory_node(tmp_path: Path) -> None:
    # MIDR_EL1 of a Neoverse V2 r0p1: implementer 0x41, part 0xd4f.
    _write(tmp_path, "sys/devices/system/cpu/cpu0/regs/identification/midr_el1", "0x410fd4f1\n")
    _node(tmp_path, 0, "0-3,8", 1000)
    facts, issues = probe_cpu(tmp_path)
    assert issues == []
    assert (facts.model, facts.parts) == ("Neoverse-V2", ("0xd4f",))
    assert facts.numa_nodes[0].cpus == 5
    assert facts.gpu_memory_coherent is None  # unknown, not False


def test_x86_model_name(tmp_path: Path) -> None:
    _write(tmp_path, "proc/cpuinfo", "processor : 0\nmodel name : Intel(R) Xeon(R) 8480+\n")
    facts, _ = probe_cpu(tmp_path)
    assert facts.model == "Intel(R) Xeon(R) 8480+"
    assert facts.implementer is None
    assert facts.numa_nodes == ()


def test_nothing_readable_is_recorded_not_raised(tmp_path: Path) -> None:
    facts, issues = probe_cpu(tmp_path)
    assert facts.model is None
    assert [(i.field, i.code) for i in issues] == [("cpu.model", "cpu-unreadable")]
