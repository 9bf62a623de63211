"""CPU model and NUMA layout, read under the sysfs/procfs root: which Arm core a Grace or GB10
host has, and whether GPU memory shows up as CPU-less NUMA nodes (coherent NVLink-C2C).

Every read is bounded (a size limit per file, at most _MAX_NODES nodes); what cannot be read is
left None and recorded as a ProbeIssue.
"""

from __future__ import annotations

import re
from pathlib import Path

from gpudoctor.facts import CpuFacts, NumaNode, ProbeIssue
from gpudoctor.probes.files import list_dir, read_first_line, read_text

PROBE = "platform"
_MAX_NODES = 256
_CPUINFO_LIMIT = 1 << 20
# Arm MIDR part numbers of implementer 0x41 (Arm Ltd.), as Linux names them in
# arch/arm64/include/asm/cputype.h (ARM_CPU_PART_*). Grace is Neoverse V2; GB10 pairs
# Cortex-X925 with Cortex-A725.
_ARM_PARTS = {
    "0xd0c": "Neoverse-N1",
    "0xd40": "Neoverse-V1",
    "0xd49": "Neoverse-N2",
    "0xd4f": "Neoverse-V2",
    "0xd84": "Neoverse-V3",
    "0xd81": "Cortex-A720",
    "0xd82": "Cortex-X4",
    "0xd85": "Cortex-X925",
    "0xd87": "Cortex-A725",
}
_ARM = "0x41"
_NODE = re.compile(r"node(\d+)")
_MEMTOTAL = re.compile(r"MemTotal:\s+(\d+)\s*kB")


def probe_cpu(root: Path) -> tuple[CpuFacts, list[ProbeIssue]]:
    issues: list[ProbeIssue] = []
    implementer, parts, model = _from_cpuinfo(root)
    if implementer is None and model is None:
        implementer, parts = _from_midr(root)
    if implementer is None and model is None:
        issues.append(
            ProbeIssue(PROBE, "cpu.model", "cpu-unreadable", "no /proc/cpuinfo or MIDR_EL1")
        )
    if model is None and parts:
        names = [_ARM_PARTS.get(p, p) if implementer == _ARM else p for p in parts]
        model = " + ".join(dict.fromkeys(names))
    nodes = _numa_nodes(root)
    coherent = True if any(n.cpus == 0 and (n.memory_total_bytes or 0) > 0 for n in nodes) else None
    facts = CpuFacts(
        model=model,
        implementer=implementer,
        parts=parts,
        numa_nodes=nodes,
        gpu_memory_coherent=coherent,
    )
    return facts, issues


def _from_cpuinfo(root: Path) -> tuple[str | None, tuple[str, ...], str | None]:
    """(implementer, parts, x86 model name) from /proc/cpuinfo."""
    text = read_text(root / "proc/cpuinfo", limit=_CPUINFO_LIMIT)
    if text is None:
        return None, (), None
    implementer: str | None = None
    parts: list[str] = []
    model: str | None = None
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        key, value = key.strip(), value.strip().lower()
        if not sep:
            continue
        if key == "CPU implementer" and implementer is None:
            implementer = value
        elif key == "CPU part" and value not in parts:
            parts.append(value)
        elif key == "model name" and model is None:
            model = line.partition(":")[2].strip() or None
    return implementer, tuple(parts), model


def _from_midr(root: Path) -> tuple[str | None, tuple[str, ...]]:
    """The same from cpu0's MIDR_EL1 (implementer bits 31:24, part bits 15:4)."""
    path = root / "sys/devices/system/cpu/cpu0/regs/identification/midr_el1"
    raw = read_first_line(path)
    try:
        midr = int(raw, 16) if raw else None
    except ValueError:
        midr = None
    if midr is None:
        return None, ()
    return f"0x{(midr >> 24) & 0xFF:02x}", (f"0x{(midr >> 4) & 0xFFF:03x}",)


def _numa_nodes(root: Path) -> tuple[NumaNode, ...]:
    base = root / "sys/devices/system/node"
    found = [m for m in (_NODE.fullmatch(n) for n in list_dir(base)) if m]
    nodes = []
    for match in sorted(found, key=lambda m: int(m.group(1)))[:_MAX_NODES]:
        node_dir = base / match.group(0)
        meminfo = read_text(node_dir / "meminfo", limit=64 * 1024) or ""
        mem = _MEMTOTAL.search(meminfo)
        nodes.append(
            NumaNode(
                node=int(match.group(1)),
                cpus=_count_cpulist(read_first_line(node_dir / "cpulist")),
                memory_total_bytes=int(mem.group(1)) * 1024 if mem else None,
            )
        )
    return tuple(nodes)


def _count_cpulist(text: str | None) -> int:
    """ "0-71,144" -> 73; "" or None -> 0."""
    count = 0
    for part in (text or "").split(","):
        lo, sep, hi = part.strip().partition("-")
        if lo.isdecimal() and (not sep or hi.isdecimal()):
            count += int(hi) - int(lo) + 1 if sep else 1
    return count
