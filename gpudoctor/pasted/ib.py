"""InfiniBand/RoCE ports as `ibstat` and `ibv_devinfo` print them, into the IbPort records the
live probe reads from /sys/class/infiniband (state ACTIVE/DOWN/INIT/ARMED, phys state LinkUp/
Polling/Disabled, rate "200 Gb/sec", link layer InfiniBand/Ethernet).

- `ibstat`: "CA 'mlx5_0'", then per port "Port 1:" with "State: Active", "Physical state:
  LinkUp", "Rate: 200", "Link layer: InfiniBand".
- `ibv_devinfo`: "hca_id: mlx5_0", then per port "port: 1" with "state: PORT_ACTIVE (4)",
  "link_layer: InfiniBand" (and "phys_state: LINK_UP (5)" with -v).
"""

from __future__ import annotations

import re

from gpudoctor.facts_multigpu import IbPort
from gpudoctor.pasted.draft import Draft

NAME = "ibstat"
DESCRIPTION = "`ibstat` / `ibv_devinfo` ports"

_KEY = re.compile(r"^\s{0,16}(?P<key>[A-Za-z_][\w ]{1,30}?):\s{0,8}(?P<v>[^\n]{0,80}?)\s{0,4}$")
_CA = re.compile(r"^CA '(?P<dev>[\w.-]{1,40})'\s{0,4}$")
_IBV_STATE = re.compile(r"^PORT_(?P<s>ACTIVE|DOWN|INIT|ARMED|ACTIVE_DEFER)\b")
_IBV_PHYS = {"LINK_UP": "LinkUp", "POLLING": "Polling", "DISABLED": "Disabled", "SLEEP": "Sleep"}
_STATES = {"active": "ACTIVE", "down": "DOWN", "initializing": "INIT", "armed": "ARMED"}
_MAX_LINES = 5000


def parse(text: str, draft: Draft) -> None:
    if "CA '" not in text and "hca_id:" not in text:
        return
    device: str | None = None
    port: dict[str, str] | None = None
    first = last = -1
    lines = text.split("\n", _MAX_LINES)[:_MAX_LINES]
    ports: list[dict[str, str]] = []
    for number, raw in enumerate(lines, start=1):
        ca = _CA.match(raw.strip())
        found = _KEY.match(raw) if ca is None else None
        key = found.group("key").strip().lower() if found else ""
        if ca or key == "hca_id":
            device = ca.group("dev") if ca else (found.group("v") if found else None)
            port = None
            continue
        if device is None or found is None:
            continue
        value = found.group("v")
        if key == "port" and value.isdecimal():  # ibv_devinfo
            port = {"device": device, "port": value}
            ports.append(port)
            first = number if first < 0 else first
        elif re.fullmatch(r"port \d{1,2}", key) and not value:  # ibstat's "Port 1:"
            port = {"device": device, "port": key.split()[1]}
            ports.append(port)
            first = number if first < 0 else first
        elif port is not None and key in (
            "state",
            "physical state",
            "phys_state",
            "rate",
            "link layer",
            "link_layer",
        ):
            port.setdefault(key.replace("_", " ").replace("phys state", "physical state"), value)
            last = number
    read = [p for p in (_port(p) for p in ports) if p is not None]
    if not read:
        return
    known = {(p.device, p.port) for p in draft.ib_ports}
    draft.ib_ports.extend(p for p in read if (p.device, p.port) not in known)
    draft.notes.append(
        "HCA ports: "
        + "; ".join(
            f"{p.device} port {p.port} {p.state or '?'}"
            + (f" ({p.phys_state})" if p.phys_state else "")
            + (f", {p.rate}" if p.rate else "")
            + (f", {p.link_layer}" if p.link_layer else "")
            for p in read[:8]
        )
    )
    draft.section(NAME)
    draft.ranges.append((NAME, first, max(first, last)))


def _port(values: dict[str, str]) -> IbPort | None:
    state_text = values.get("state", "")
    ibv = _IBV_STATE.match(state_text)
    state = ibv.group("s") if ibv else _STATES.get(state_text.lower())
    if state is None:
        return None  # not a port's state as either tool writes it
    phys = values.get("physical state", "")
    phys = _IBV_PHYS.get(phys.split(" ")[0], phys) if phys else ""
    rate = values.get("rate", "")
    return IbPort(
        device=values["device"],
        port=int(values["port"]),
        state=state,
        phys_state=phys or None,
        rate=f"{rate} Gb/sec" if rate.isdecimal() else (rate or None),
        link_layer=values.get("link layer") or None,
    )
