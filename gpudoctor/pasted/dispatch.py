"""Read a pasted report: clean it, find each shape's blocks by their own start markers, use the
first report when the paste holds two, run every parser, build HostFacts.

Block shapes (collect_env, the nvidia-smi forms, the TF build info) own the text from their
start marker to the next marker; line shapes (pip lines, nvidia-smi -L, the /proc version line,
TF log lines, error lines) are found anywhere by their own regex. Each regex runs over the
whole text once, in C, so a 10 MB paste parses in well under a second (bench/bench_pasted.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from gpudoctor.errors import FactsError
from gpudoctor.pasted import amd as amd_tools
from gpudoctor.pasted import (
    answers,
    apps,
    cloud,
    cluster,
    collect_env,
    engines,
    envelopes,
    errors,
    facts_scan,
    fw_env,
    gpu_tools,
    host_tools,
    ib,
    k8s_events,
    k8s_objects,
    k8s_stack,
    lines,
    node_allocated,
    nv_tools,
    os_packages,
    packages,
    rocm_smi_table,
    smi_csv,
    smi_query,
    smi_table,
    smi_xml,
    tracebacks,
    unknown_errors,
    words,
)
from gpudoctor.pasted import tensorflow as tf_info
from gpudoctor.pasted.build import build
from gpudoctor.pasted.clean import clean
from gpudoctor.pasted.draft import Draft
from gpudoctor.pasted.scan import facts_head
from gpudoctor.probes.redact import without_secrets
from gpudoctor.redaction import may_hold_secrets

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
    # Facts are read from a long log's head (scan.facts_head), where the environment and set-up
    # lines are; only the known error lines are looked for in all of it.
    whole_paste: bool = False
    # Read the lines as written, their log envelopes kept (envelopes.py): the error-line scan
    # reads a record's message itself, and a signature may be written for its prefix.
    as_written: bool = False


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
    LineShape(smi_csv.NAME, smi_csv.DESCRIPTION, smi_csv.parse),
    # nvidia-container-cli's debug log is read by its klog prefix's file name (nvc.c)
    LineShape(nv_tools.NAME, nv_tools.DESCRIPTION, nv_tools.parse, as_written=True),
    LineShape(host_tools.NAME, host_tools.DESCRIPTION, host_tools.parse),
    LineShape(engines.NAME, engines.DESCRIPTION, engines.parse),
    LineShape(apps.NAME, apps.DESCRIPTION, apps.parse),
    LineShape(gpu_tools.NAME, gpu_tools.DESCRIPTION, gpu_tools.parse),
    LineShape(cluster.NAME, cluster.DESCRIPTION, cluster.parse),
    LineShape(k8s_objects.NAME, k8s_objects.DESCRIPTION, k8s_objects.parse),
    LineShape(k8s_stack.NAME, k8s_stack.DESCRIPTION, k8s_stack.parse),
    LineShape(node_allocated.NAME, node_allocated.DESCRIPTION, node_allocated.parse),
    LineShape(ib.NAME, ib.DESCRIPTION, ib.parse),
    LineShape(packages.NAME, packages.DESCRIPTION, packages.parse),
    LineShape(fw_env.NAME, fw_env.DESCRIPTION, fw_env.parse),
    LineShape(answers.NAME, answers.DESCRIPTION, answers.parse),
    LineShape(os_packages.NAME, os_packages.DESCRIPTION, os_packages.parse),
    LineShape(amd_tools.NAME, amd_tools.DESCRIPTION, amd_tools.parse),
    LineShape(rocm_smi_table.NAME, rocm_smi_table.DESCRIPTION, rocm_smi_table.parse),
    LineShape(tracebacks.NAME, tracebacks.DESCRIPTION, tracebacks.parse, as_written=True),
    LineShape(errors.NAME, errors.DESCRIPTION, errors.parse, whole_paste=True, as_written=True),
    # after the known lines: the Warning events none of them names
    LineShape(
        k8s_events.NAME, k8s_events.DESCRIPTION, k8s_events.parse, whole_paste=True, as_written=True
    ),
    # after the known lines: read only where the paste holds none
    LineShape(
        unknown_errors.NAME, unknown_errors.DESCRIPTION, unknown_errors.parse, as_written=True
    ),
)

# Parts of one paste read one by one: `nvidia-smi -l 1` for an hour repeats its table 3600
# times, and each part costs a pass of every shape; past this many, the rest is one part.
_MAX_PARTS = 1000
_LINES_NAMED = 5  # line numbers a note names before "and N more"
_BLOCK_CAP = 2_000_000  # characters one block may span: the largest -q -x of 16 GPUs is < 1 MB


# docs/findings.md's list of every shape (cli/docgen.py writes it): the "no report recognised"
# hint names the few most pastes need and points there for the rest
SHAPES_ANCHOR = "pasted-report-shapes"
_HINT = (
    "paste `nvidia-smi` (or `nvidia-smi -q`), `python -m torch.utils.collect_env` or `pip list`, "
    "the error lines the program printed with the lines around them, or a `gpudoctor snapshot`; "
    f"every output read: docs/findings.md#{SHAPES_ANCHOR}"
)


def known_shapes() -> list[str]:
    return [s.description for s in BLOCKS] + [s.description for s in LINES]


def read_report(raw: str, source: str, architectures: Sequence[Architecture] = ()) -> HostFacts:
    """HostFacts from a pasted report (the first host when it holds several, see read_reports);
    FactsError ("no report recognised") when not one fact or known line is found."""
    return read_reports(raw, source, architectures)[0][1]


def read_reports(
    raw: str, source: str, architectures: Sequence[Architecture] = ()
) -> list[tuple[str, HostFacts]]:
    """One (name, HostFacts) per host the paste shows. Blocks of different shapes are one host;
    a shape that appears twice with values that disagree (two nvidia-smi tables of different
    drivers or GPUs) starts another host, and the hosts are judged as a fleet. Repeats that
    agree (the same output pasted twice) stay one host."""
    text = clean(raw)
    found = [shape.starts(text) for shape in BLOCKS]
    cuts = _host_starts(text, found)
    rest = cuts[_MAX_PARTS] if len(cuts) > _MAX_PARTS else None
    cuts = cuts[:_MAX_PARTS]
    total = text.count("\n") + 1
    drafts: list[Draft] = []
    lines_before, done = 0, 0
    for begin, end in zip(cuts, [*cuts[1:], len(text)]):
        # Each part is read on its own and its line numbers moved to those of the whole paste
        # (padding it with the lines before it cost a scan of them per part: quadratic in a
        # paste of thousands of hosts).
        lines_before += text.count("\n", done, begin)
        done = begin
        drafts.append(_shifted(_read_part(text[begin:end], architectures), lines_before))
    hosts = _split_or_merge(drafts, text, cuts)
    if rest is not None:
        rest_line = text.count("\n", 0, rest) + 1
        hosts[0].notes.append(
            f"the paste repeats its reports more than {_MAX_PARTS} times (`nvidia-smi -l`, a "
            f"log of many hosts): the first {_MAX_PARTS} were read one by one, those from line "
            f"{rest_line} on as one part (its first report, and every "
            "known error line); split it into one file per host in a folder to judge each"
        )
    if not any(d.sections for d in hosts):
        raise FactsError(
            f"{source}: no report recognised (not a gpudoctor snapshot either): not one version, "
            "GPU name or known error line in it",
            hint=_HINT,
        )

    if len(hosts) == 1:
        built = [(source, build(hosts[0], source, architectures, total))]
    else:
        built = [
            (
                f"{source} #{n}",
                build(d, f"{source} (host {n} of {len(hosts)})", architectures, total),
            )
            for n, d in enumerate(hosts, start=1)
        ]
    if not (may_hold_secrets(text) or may_hold_secrets(source)):
        return built
    # A paste is often a whole terminal session: a token or password on a line a shape reads
    # (a known error line, an environment list) must not reach the report or its JSON.
    return [(name, without_secrets(facts)) for name, facts in built]


def _read_part(text: str, architectures: Sequence[Architecture]) -> Draft:
    draft = Draft()
    # the same lines with their log envelopes taken off (a journald or klog prefix, a JSON
    # record, `kubectl logs --prefix`'s source): the readers read each message as its program
    # printed it; the block shapes too (an nvidia-smi table a validator pod printed), on the
    # same line numbers
    plain_text = envelopes.unwrap(text)
    found = [shape.starts(plain_text) for shape in BLOCKS]
    starts = sorted((pos, i) for i, at in enumerate(found) for pos in at)
    ends = [pos for pos, _ in starts[1:]] + [len(plain_text)]
    done: set[str] = set()
    for index, shape in enumerate(BLOCKS):  # in priority order, each on its first block
        for (pos, owner), end in zip(starts, ends):
            if owner == index and shape.name not in done:
                done.add(shape.name)
                block = plain_text[pos : min(end, pos + _BLOCK_CAP)]
                shape.parse(block, draft)
                if shape.name in draft.sections:
                    first = plain_text.count("\n", 0, pos) + 1
                    last = first + block.rstrip("\n").count("\n")
                    draft.ranges.append((shape.name, first, last))
                    draft.blocks.append((first, last))
    head = facts_head(text)  # one string for every reader: ascii_lower caches by it
    plain = facts_head(plain_text)
    for line_shape in LINES:
        if line_shape.whole_paste:
            line_shape.parse(text, draft)
        else:
            line_shape.parse(head if line_shape.as_written else plain, draft)
    facts_scan.parse(plain_text, draft, architectures)
    cloud.parse(plain, draft, architectures)  # after: a GPU the paste names wins
    words.read_words(draft)  # last: only where nothing else was read
    return draft


def _shifted(draft: Draft, lines: int) -> Draft:
    """The draft of a part that begins after `lines` lines of the paste, with every line number
    it holds counted from the paste's first line."""
    if lines:
        draft.ranges = [(name, a + lines, b + lines) for name, a, b in draft.ranges]
        draft.blocks = [(a + lines, b + lines) for a, b in draft.blocks]
        draft.errors = [
            replace(e, line=e.line + lines) if e.line is not None else e for e in draft.errors
        ]
        draft.unknown_lines = [
            replace(e, line=e.line + lines) if e.line is not None else e
            for e in draft.unknown_lines
        ]
        draft.warning_events = [
            replace(e, line=e.line + lines) if e.line is not None else e
            for e in draft.warning_events
        ]
        draft.named_gpus = [(name, count, n + lines) for name, count, n in draft.named_gpus]
        draft.answered_gpus = [(name, n + lines) for name, n in draft.answered_gpus]
        draft.named = [(word, n + lines) for word, n in draft.named]
    return draft


def _host_starts(text: str, found: list[list[int]]) -> list[int]:
    """Where each host's part of the paste begins: 0, then each repeat of a block shape."""
    cuts = {0}
    for at in found:
        cuts.update(at[1:])
    return sorted(cuts)


_KEY_FACTS = ("driver_version", "cuda_driver_version")


def _signature_of(draft: Draft) -> tuple[object, ...]:
    """The values that tell two hosts apart; None where a part does not show them."""
    names = tuple(g.get("name") for _, g in sorted(draft.gpus.items())) or None
    return (*(draft.nvml.get(k) for k in _KEY_FACTS), names, draft.torch.get("version"))


def _conflict(a: Draft, b: Draft) -> bool:
    return any(
        x is not None and y is not None and x != y
        for x, y in zip(_signature_of(a), _signature_of(b))
    )


def _split_or_merge(drafts: list[Draft], text: str, cuts: list[int]) -> list[Draft]:
    """Parts whose values conflict are hosts of their own; the others join the host before."""
    if len(drafts) == 1:
        return drafts
    hosts: list[Draft] = [drafts[0]]
    merged_from: list[int] = []
    for index, draft in enumerate(drafts[1:], start=1):
        if not draft.sections:
            continue
        if _conflict(hosts[-1], draft):
            hosts.append(draft)
        else:
            _merge(hosts[-1], draft)
            merged_from.append(text.count("\n", 0, cuts[index]) + 1)
    if merged_from:
        shown = ", ".join(map(str, merged_from[:_LINES_NAMED]))
        more = len(merged_from) - _LINES_NAMED
        hosts[0].notes.append(
            f"the paste repeats a report (from line {shown}"
            + (f" and {more} more" if more > 0 else "")
            + "); the repeats agree and were read as the same host"
        )
    if len(hosts) > 1:
        for n, host in enumerate(hosts, start=1):
            host.notes.append(
                f"host {n} of {len(hosts)}: the paste holds reports whose driver, GPUs or torch "
                "disagree, judged as separate hosts"
            )
    return hosts


def _merge(into: Draft, other: Draft) -> None:
    """Facts of `other` the host does not have yet (the first value given wins)."""
    for name in (
        "nvml",
        "kernel",
        "platform",
        "torch",
        "tensorflow",
        "jax",
        "libraries",
        "runtime",
        "image",
    ):
        target, extra = getattr(into, name), getattr(other, name)
        for key, value in extra.items():
            target.setdefault(key, value)
    for key, value in other.packages.items():
        into.packages.setdefault(key, value)
    for index, gpu in other.gpus.items():
        mine = into.gpus.setdefault(index, {"index": index})
        for key, value in gpu.items():
            mine.setdefault(key, value)
    for section in other.sections:
        into.section(section)
    seen = {(e.code, e.line) for e in into.errors}
    into.errors.extend(e for e in other.errors if (e.code, e.line) not in seen)
    into.unknown_lines.extend(other.unknown_lines)
    into.warning_events.extend(other.warning_events)
    into.ranges.extend(other.ranges)
    into.notes.extend(n for n in other.notes if n not in into.notes)
    into.cudnn_files.extend(f for f in other.cudnn_files if f not in into.cudnn_files)
    into.xid_events.extend(other.xid_events)
    ports = {(p.device, p.port) for p in into.ib_ports}
    into.ib_ports.extend(p for p in other.ib_ports if (p.device, p.port) not in ports)
    if into.torch_cuda_available is None:
        into.torch_cuda_available = other.torch_cuda_available
    if into.nvcc_version is None:
        into.nvcc_version = other.nvcc_version
    if into.cuda_toolkit_version is None:
        into.cuda_toolkit_version = other.cuda_toolkit_version
