"""Read a pasted report: clean it, find each shape's blocks by their own start markers, use the
first report when the paste holds two, run every parser, build HostFacts.

Block shapes (collect_env, the nvidia-smi forms, the TF build info) own the text from their
start marker to the next marker; line shapes (pip lines, nvidia-smi -L, the /proc version line,
TF log lines, error lines) are found anywhere by their own regex. Each regex runs over the
whole text once, in C, so a 10 MB paste parses in well under a second (bench/pasted_report.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpudoctor.errors import FactsError
from gpudoctor.pasted import amd as amd_tools
from gpudoctor.pasted import collect_env, errors, lines, packages, smi_query, smi_table, smi_xml
from gpudoctor.pasted import tensorflow as tf_info
from gpudoctor.pasted.clean import clean
from gpudoctor.pasted.draft import Draft

if TYPE_CHECKING:
    from gpudoctor.facts import HostFacts
    from gpudoctor.matrix.model import Architecture

Parse = Callable[[str, Draft], None]


@dataclass(frozen=True)
class BlockShape:
    name: str
    description: str
    starts: Callable[[str], list[int]]
    parse: Parse


@dataclass(frozen=True)
class LineShape:
    name: str
    description: str
    parse: Parse


# Most specific first: a fact the first shape gives is not overwritten by a later one.
BLOCKS: tuple[BlockShape, ...] = (
    BlockShape(smi_xml.NAME, smi_xml.DESCRIPTION, smi_xml.starts, smi_xml.parse),
    BlockShape(smi_query.NAME, smi_query.DESCRIPTION, smi_query.starts, smi_query.parse),
    BlockShape(smi_table.NAME, smi_table.DESCRIPTION, smi_table.starts, smi_table.parse),
    BlockShape(collect_env.NAME, collect_env.DESCRIPTION, collect_env.starts, collect_env.parse),
    BlockShape(tf_info.NAME, tf_info.DESCRIPTION, tf_info.starts, tf_info.parse),
)
LINES: tuple[LineShape, ...] = (
    LineShape(lines.SMI_L, lines.SMI_L_DESCRIPTION, lines.smi_list),
    LineShape(lines.PROC, lines.PROC_DESCRIPTION, lines.proc_version),
    LineShape(lines.TF_LOG, lines.TF_LOG_DESCRIPTION, lines.tf_devices),
    LineShape(packages.NAME, packages.DESCRIPTION, packages.parse),
    LineShape(amd_tools.NAME, amd_tools.DESCRIPTION, amd_tools.parse),
    LineShape(errors.NAME, errors.DESCRIPTION, errors.parse),
)

_BLOCK_CAP = 2_000_000  # characters one block may span: the largest -q -x of 16 GPUs is < 1 MB


def known_shapes() -> list[str]:
    return [s.description for s in BLOCKS] + [s.description for s in LINES]


def read_report(raw: str, source: str, architectures: Sequence[Architecture] = ()) -> HostFacts:
    """HostFacts from a pasted report; FactsError ("no report recognised") when no shape fits."""
    from gpudoctor.pasted.build import build

    text = clean(raw)
    draft = Draft()
    found = [shape.starts(text) for shape in BLOCKS]
    text = _first_report(text, found, draft)
    starts = sorted((pos, i) for i, at in enumerate(found) for pos in at if pos < len(text))
    ends = [pos for pos, _ in starts[1:]] + [len(text)]
    done: set[str] = set()
    for index, shape in enumerate(BLOCKS):  # in priority order, each on its first block
        for (pos, owner), end in zip(starts, ends[: len(starts)]):
            if owner == index and shape.name not in done:
                done.add(shape.name)
                shape.parse(text[pos : min(end, pos + _BLOCK_CAP)], draft)
    for line_shape in LINES:
        line_shape.parse(text, draft)
    if not draft.sections:
        raise FactsError(
            f"{source}: no report recognised (not a gpudoctor snapshot either)",
            hint="paste one of: " + "; ".join(known_shapes()) + "; or a `gpudoctor snapshot`",
        )
    return build(draft, source, architectures)


def _first_report(text: str, found: list[list[int]], draft: Draft) -> str:
    """A paste with two reports of one shape (before and after, two hosts) is judged on the
    first: the text is cut where the second one starts, and a note says so."""
    cut: tuple[int, str] | None = None
    for shape, at in zip(BLOCKS, found):
        if len(at) > 1 and (cut is None or at[1] < cut[0]):
            cut = (at[1], shape.name)
    if cut is None:
        return text
    line = text.count("\n", 0, cut[0]) + 1
    draft.notes.append(
        f"the paste holds more than one {cut[1]} report; the first one was used (the next "
        f"starts on line {line})"
    )
    return text[: cut[0]]
