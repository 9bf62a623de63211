"""A cloud instance type named in a paste ("Instance type: p4d.24xlarge", a node label
`node.kubernetes.io/instance-type=Standard_NC24ads_A100_v4`) read as the GPUs the provider's
size table says it holds: the matrix's `[[cloud_instance]]` rows, each instance type with its
GPU model and count. Read only when the paste names no GPU itself (a GPU listing or a model in
prose always wins), and only as a whole instance type as the provider spells it: "g5" alone,
"p3" in prose or a version "p4" name no instance."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gpudoctor.errors import MatrixError
from gpudoctor.matrix.load import load_matrix
from gpudoctor.pasted import facts_scan
from gpudoctor.pasted.build import compute_capability_for
from gpudoctor.pasted.draft import Draft, put
from gpudoctor.pasted.scan import ascii_lower, iter_lines

if TYPE_CHECKING:
    from gpudoctor.matrix.model import Architecture, CloudInstance

NAME = "cloud instance type"
DESCRIPTION = (
    "a cloud instance type (AWS `p4d.24xlarge`, Azure `Standard_NC24ads_A100_v4`), read as "
    "the GPUs its provider's size table lists"
)

# Every instance type of the table holds one of these (AWS sizes end in "xlarge" or "metal";
# Azure sizes end in a version "_v3", "_v4", "_v5"): only lines holding one are searched.
_NEEDLES = ("xlarge", ".metal", "_v3", "_v4", "_v5")
_AZURE_PREFIX = "standard_"


@functools.lru_cache(maxsize=1)
def _shipped() -> tuple[CloudInstance, ...]:
    """The shipped matrix's cloud instance rows (none when it cannot be read: the GPU facts
    then come from the paste alone)."""
    try:
        return load_matrix().cloud_instances
    except MatrixError:
        return ()


@functools.lru_cache(maxsize=4)
def instance_types(
    rows: tuple[CloudInstance, ...],
) -> tuple[dict[str, tuple[str, int]], re.Pattern[str] | None]:
    """Instance type (lower case) -> (GPU model, count), and one pattern that finds any of them
    as a whole word. An Azure size is also known without its "Standard_" prefix."""
    types: dict[str, tuple[str, int]] = {}
    for row in rows:
        for name, count in row.gpu_counts().items():
            types[name] = (row.gpu, count)
            if name.startswith(_AZURE_PREFIX):
                types.setdefault(name[len(_AZURE_PREFIX) :], (row.gpu, count))
    if not types:
        return types, None
    words = "|".join(re.escape(n) for n in sorted(types, key=len, reverse=True))
    return types, re.compile(rf"(?<![\w.-])(?:{words})(?![\w-])", re.IGNORECASE)


def parse(
    text: str,
    draft: Draft,
    architectures: Sequence[Architecture],
    rows: tuple[CloudInstance, ...] | None = None,
) -> None:
    """The first instance type of the table the text names, as that many GPUs of its model,
    when no GPU was read from the paste."""
    if draft.amd_gpus or (draft.gpus and not draft.gpus_from_text):
        return
    types, pattern = instance_types(_shipped() if rows is None else rows)
    if pattern is None:
        return
    lower = ascii_lower(text)
    if not any(n in lower for n in _NEEDLES):
        return
    found: list[tuple[int, str]] = []
    for needle in _NEEDLES:
        for start, line in iter_lines(lower, text, needle):
            hit = pattern.search(line)
            if hit:
                found.append((start + hit.start(), hit.group(0)))
                break
    if not found:
        return
    at, name = min(found)
    if draft.gpus and not _only_inside(draft, name):
        return  # the paste names a GPU of its own
    _forget_text_gpus(draft, text.count("\n", 0, at) + 1)
    gpu, count = types[name.lower()]
    cc = compute_capability_for(gpu, architectures)
    for index in range(count):
        part = draft.gpu(index)
        put(part, "name", gpu)
        if cc:
            put(part, "compute_capability", cc)
    draft.read_at(NAME, text, at)
    draft.gpus_from_text = True
    draft.note(
        f"instance type {name}: read as {count} x {gpu}, as the provider's size table lists it "
        "(the paste names no GPU itself)"
    )


def _only_inside(draft: Draft, instance: str) -> bool:
    """Whether the GPUs read from prose are only the model word inside the instance type's own
    name (the "A100" of "Standard_NC24ads_A100_v4"): then the instance type says more."""
    words = {w for w in re.split(r"[_.\-]+", instance.upper()) if w}
    names = {str(g.get("name", "")).upper() for g in draft.gpus.values()}
    return bool(names) and names <= words


def _forget_text_gpus(draft: Draft, line: int) -> None:
    """Drop what the prose reader took from the instance type's name, and its mark on that
    line in the report's header (the section stays while it read other lines)."""
    if not draft.gpus:
        return
    draft.gpus.clear()
    draft.gpus_from_text = False
    draft.ranges = [r for r in draft.ranges if r != (facts_scan.NAME, line, line)]
    if facts_scan.NAME in draft.sections and not any(r[0] == facts_scan.NAME for r in draft.ranges):
        draft.sections.remove(facts_scan.NAME)
