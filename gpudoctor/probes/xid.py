"""XID history: `NVRM: Xid` lines of the kernel log, read from /dev/kmsg.

/dev/kmsg is readable by root or with CAP_SYSLOG where kernel.dmesg_restrict=1 (most
distributions); elsewhere the answer is "not readable" with the reason, never a guess. Each read()
of the device returns one record, "prio,seq,usec,flags;text"; a non-blocking read ends with
EAGAIN at the end of the buffer, and EPIPE means records were overwritten while reading (skip on).
A recorded tree holds the same records in a plain file. Reading is bounded in records and time.

Line format: "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off the bus."
(https://docs.nvidia.com/deploy/xid-errors/index.html). Process ids and names are dropped.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import time
from pathlib import Path

from gpudoctor.facts_multigpu import XidEvent

MAX_RECORDS = 200_000
MAX_SECONDS = 1.0
KEEP = 64  # the most recent events kept in the snapshot
_XID = re.compile(
    r"NVRM: Xid \((?:PCI:)?([0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2})(?:\.\d)?\)"
    r": (\d+), ?(.*)"
)
_PROCESS = re.compile(r"\b(?:pid|name)=('[^']*'|[^,]*),\s*")


def read_xid_events(root: Path) -> tuple[bool | None, str | None, tuple[XidEvent, ...]]:
    """(readable, why not, events). readable None: no kernel log device at all."""
    path = root / "dev/kmsg"
    try:
        records = _records(path)
    except FileNotFoundError:
        return None, "no /dev/kmsg (a container without the host's kernel log)", ()
    except PermissionError:
        return (
            False,
            (
                "reading /dev/kmsg needs root or CAP_SYSLOG (kernel.dmesg_restrict=1); "
                "run as root, or look with `sudo dmesg | grep Xid`"
            ),
            (),
        )
    except OSError as exc:
        return False, f"/dev/kmsg: {exc.strerror or exc}", ()
    events = [e for e in (parse_record(r) for r in records) if e is not None]
    return True, None, tuple(events[-KEEP:])


def _records(path: Path) -> list[str]:
    if stat.S_ISREG(path.stat().st_mode):  # a recorded log
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    out: list[str] = []
    deadline = time.monotonic() + MAX_SECONDS
    try:
        while len(out) < MAX_RECORDS and time.monotonic() < deadline:
            try:
                chunk = os.read(fd, 8192)
            except BlockingIOError:
                break  # the end of the buffer
            except OSError as exc:
                if exc.errno == errno.EPIPE:
                    continue  # overwritten while reading
                raise
            if not chunk:
                break
            out.append(chunk.decode("utf-8", errors="replace").split("\n", 1)[0])
    finally:
        os.close(fd)
    return out


def parse_record(record: str) -> XidEvent | None:
    """One kmsg record ("6,812,91234567,-;NVRM: Xid ...") or a plain dmesg line."""
    head, sep, message = record.partition(";")
    seconds = None
    if sep:
        fields = head.split(",")
        if len(fields) >= 3 and fields[2].isdecimal():
            seconds = int(fields[2]) / 1e6
    else:
        message = record
    match = _XID.search(message)
    if match is None:
        return None
    bus, xid, rest = match.groups()
    domain, bus_no, device = bus.split(":")
    return XidEvent(
        xid=int(xid),
        pci_bus_id=f"{int(domain, 16):04x}:{bus_no.lower()}:{device.lower()}.0",
        seconds_since_boot=seconds,
        message=_PROCESS.sub("", rest).strip()[:200],
    )
