"""XID history: each XID the kernel log holds, with its meaning and NVIDIA's action from the XID
catalogue (matrices/xid.toml), and whether a GPU reset or a node drain is due."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpudoctor.checks.base import Intent, finding
from gpudoctor.checks.placement import not_recorded
from gpudoctor.findings import ERROR, INFO, NA, OK, WARN, Finding, Severity

if TYPE_CHECKING:
    from gpudoctor.facts import HostFacts
    from gpudoctor.matrix.model import Matrix

_SEVERITY = {"info": INFO, "warn": WARN, "error": ERROR}


def xid_verdict(facts: HostFacts) -> tuple[str | None, str]:
    m = facts.multigpu
    if m.xid_readable is not True:
        return None, m.xid_unreadable_reason or "kernel log not read"
    if not m.xid_events:
        return "none", "no XID in the kernel log"
    codes = sorted({e.xid for e in m.xid_events})
    return "present", f"XID {', '.join(map(str, codes))} in the kernel log"


def check_xid(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    m = facts.multigpu
    if not m.collected and m.xid_readable is not True:  # a pasted kernel log sets only these
        return [finding("xid-history", NA, not_recorded(facts))]
    if m.xid_readable is not True:
        return [finding("xid-history", NA, f"kernel log not read: {m.xid_unreadable_reason}")]
    if not m.xid_events:
        return [finding("xid-history", OK, "no XID in the kernel log since boot")]
    from gpudoctor.matrix.xid import load_xid_catalogue  # lazy: a log with XIDs only

    catalogue = load_xid_catalogue()
    index = {g.pci_bus_id: g.index for g in facts.nvml.gpus if g.pci_bus_id}
    found = []
    for xid in sorted({e.xid for e in m.xid_events}):
        events = [e for e in m.xid_events if e.xid == xid]
        entry = catalogue.lookup(xid)
        action = catalogue.action(xid)
        where = sorted(
            {
                f"GPU {index[e.pci_bus_id]}" if e.pci_bus_id in index else e.pci_bus_id or "?"
                for e in events
            }
        )
        due = "; ".join(
            text
            for text, flag in (
                ("node drain due", action.drain_due),
                ("GPU reset due", action.reset_due),
            )
            if flag
        )
        last = events[-1]
        found.append(
            finding(
                "xid-history",
                _SEVERITY[action.severity],
                f"XID {xid} on {', '.join(where)} ({len(events)}x): "
                f"{entry.description if entry else last.message}",
                detail=f"NVIDIA's action: {action.name}"
                + (f" ({due})" if due else "")
                + f"; last message: {last.message}",
                fix=action.meaning,
                evidence=[
                    ("action", action.name),
                    ("reset_due", action.reset_due),
                    ("drain_due", action.drain_due),
                    ("seconds_since_boot", last.seconds_since_boot),
                ],
                subject=f"XID {xid}",
            )
        )
    return sorted(found, key=lambda f: -Severity(f.severity).rank)


CHECKS = (check_xid,)
