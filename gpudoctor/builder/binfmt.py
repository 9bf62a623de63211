"""Which foreign machines this host's kernel runs through QEMU binfmt_misc handlers: what lets a
local Docker daemon build an image for another platform. Read under a root; bounded reads."""

from __future__ import annotations

from pathlib import Path

from gpudoctor.probes.files import read_first_line

# Handler names as qemu-user-static / tonistiigi/binfmt register them.
_HANDLERS = {"aarch64": "qemu-aarch64", "x86_64": "qemu-x86_64"}


def emulated_machines(root: Path) -> tuple[str, ...]:
    """The machines with an enabled handler in /proc/sys/fs/binfmt_misc (meaningful when the
    Docker daemon runs on this host)."""
    base = root / "proc/sys/fs/binfmt_misc"
    return tuple(
        machine
        for machine, handler in sorted(_HANDLERS.items())
        if read_first_line(base / handler) == "enabled"
    )
