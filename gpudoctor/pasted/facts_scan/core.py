"""The scanner: the ordered rule table assembled from the topic modules' runs, `parse` (a long
log's head and tail), `_scan` (every rule over the lines holding its needle) and the draft's
fingerprint (a line counts as read only when it told something new).

Each rule is a literal needle (found with str.find, so a 10 MB log costs a few linear scans)
and a pattern run on the lines that hold it; a fact is written only with the words that say
what it is (a bare "12.4" is nothing; "CUDA Version: 12.4" is the driver's CUDA, as nvidia-smi
prints it; "CUDA 12.4" alone does not say whose CUDA it is and stays a note). Facts of the
recognised blocks come first: `put` never overwrites them.

GPU names in prose are read last, by gpu_names.py, against the matrix's model lists."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from typing import TYPE_CHECKING

from gpudoctor.pasted import pairs
from gpudoctor.pasted.draft import Draft
from gpudoctor.pasted.facts_scan import (
    containers,
    cuda,
    devices,
    drivers,
    frameworks,
    host,
    jetson,
    kubernetes,
    libraries,
    mig_vgpu,
    prose,
)
from gpudoctor.pasted.facts_scan.containers import _cri_config
from gpudoctor.pasted.facts_scan.rule import NAME, _Rule
from gpudoctor.pasted.gpu_names import read_names
from gpudoctor.pasted.scan import FACTS_HEAD, KeywordLines, ascii_lower, bounded_line

if TYPE_CHECKING:
    from gpudoctor.matrix.model import Architecture


# The one ordered table: earlier rules read a line first (a fact `put` keeps the first value),
# so the runs stay in this order; the comments in each topic's run say why a rule stands where
# it does.
_RULES: tuple[_Rule, ...] = (
    *drivers.RULES,  # the driver's version, NVML, Python, the kernel modules' load lines
    *cuda.RULES,  # the driver's CUDA, the toolkit, the runtime, cuDNN, NCCL
    *frameworks.RULES,  # torch, pip, wheels, the frameworks' and programs' versions
    *containers.RULES,  # the container toolkit, Docker and the other engines
    *kubernetes.RULES,  # kubectl's versions
    *devices.RULES,  # CUDA_VISIBLE_DEVICES
    *jetson.RULES,  # L4T and JetPack releases
    *drivers.RULES_2,  # lsmod, DKMS, the installer's log, nouveau, the kernel command line
    *frameworks.RULES_2,  # NCCL's environment
    *drivers.RULES_3,  # nvidia-smi's process table
    *kubernetes.RULES_2,  # Kubernetes named, its distributions, pods and nodes
    *containers.RULES_2,  # inside a container, a Dockerfile's FROM
    *host.RULES,  # uname, platforms, conda, the kernel release, the OS, WSL, Windows
    *mig_vgpu.RULES,  # MIG
    *containers.RULES_3,  # Singularity and Apptainer
    *mig_vgpu.RULES_2,  # vGPU and its licence
    *devices.RULES_2,  # `transformers env`'s GPU flag, /dev/nvidia*
    *cuda.RULES_2,  # CUDA toolkit paths, cuDNN's header
    *drivers.RULES_4,  # the driver's packages
    *containers.RULES_4,  # daemon.json, `--gpus`, Compose's GPU reservation
    *drivers.RULES_5,  # Fabric Manager
    *libraries.RULES,  # `ldconfig -p`'s libcuda
    *containers.RULES_5,  # NGC and Jetson container images
    *frameworks.RULES_3,  # NCCL's own log
    *containers.RULES_6,  # `docker info`'s runtimes, the toolkit's log
    *host.RULES_2,  # jtop's and lscpu's machine
    *devices.RULES_3,  # the GPUs llama.cpp and PyTorch name
    *prose.RULES,  # AMD and Apple named
    *libraries.RULES_2,  # ldd, file listings, ldconfig, LD_DEBUG, LD_LIBRARY_PATH
    *prose.RULES_2,  # a host with(out) a GPU, the driver or a GPU named, builds, runs
    *jetson.RULES_2,  # tegrastats, the tegra kernel, L4T's tools, the board
    *host.RULES_3,  # an Arm server
    *prose.RULES_3,  # frameworks and programs named
    *drivers.RULES_6,  # Xid lines
)


_MAX_PER_RULE = 200  # lines tried per rule: the first ones of a log hold the set-up facts


def parse(text: str, draft: Draft, architectures: Sequence[Architecture] = ()) -> None:
    """Every rule over the lines holding its needle; then GPU names against the matrix. A log
    longer than _HEAD + _TAIL is read for facts in its head and tail only (where start-up and
    environment lines are); its known error lines are looked for everywhere (errors.py)."""
    if not text:
        return
    if len(text) <= _HEAD + _TAIL:
        _scan(text, 0, draft)
        _cri_config(text, draft)
        _pairs(text, draft)
        read_names(text, ascii_lower(text), draft, architectures, NAME)
        return
    head, tail_start = text[:_HEAD], len(text) - _TAIL
    _scan(head, 0, draft)
    _scan(text[tail_start:], text.count("\n", 0, tail_start), draft)
    _cri_config(head, draft)
    _pairs(head, draft)
    read_names(head, ascii_lower(head), draft, architectures, NAME)
    draft.note(
        f"the paste is {len(text) >> 20} MB: facts were read from its first {_HEAD >> 20} MB and "
        f"last {_TAIL >> 10} KB; known error lines from all of it",
    )


_HEAD = FACTS_HEAD  # characters

_TAIL = 256 << 10


def _pairs(text: str, draft: Draft) -> None:
    """The facts told over two lines (pasted/pairs.py); an issue form's "### Label" and its
    value, and a markdown table's "| Label | value |" row, are read as the line "Label: value"
    by every rule here; a shell's `echo $NAME` and its value as "NAME=value"."""
    pairs.parse(text, draft, NAME)
    for number, line in pairs.given_back(text):
        _scan(line, number - 1, draft)


def _scan(text: str, line_offset: int, draft: Draft) -> None:
    lower = ascii_lower(text)
    holding = KeywordLines(text, lower, _NEEDLES)  # every rule's needles in one pass
    for rule in _RULES:
        needles = _needles(rule)
        for count, (start, line) in enumerate(holding.lines_with(needles)):
            if count >= _MAX_PER_RULE:
                break
            found = rule.pattern.search(bounded_line(lower, line, start, needles))
            if found is None:
                continue
            number = line_offset + text.count("\n", 0, start) + 1
            draft.scan_line = number
            # A block's own facts came first (`put` keeps them); a line counts as read here only
            # when it tells something new.
            before = _fingerprint(draft)
            if rule.handle(found, draft) and _fingerprint(draft) != before:
                draft.section(NAME)  # only a line that told something new counts as read
                draft.ranges.append((NAME, number, number))


def _needles(rule: _Rule) -> tuple[str, ...]:
    return (rule.needle,) if isinstance(rule.needle, str) else rule.needle


_NEEDLES = tuple(n for rule in _RULES for n in _needles(rule))

# What a line may tell: every part of the draft but the bookkeeping (sections and line ranges,
# the line being read, the framework words prose names) and the known error lines (errors.py's,
# with the numbers of the lines they name).
_NOT_TOLD = frozenset({"sections", "ranges", "scan_line", "named", "errors", "named_lines"})

_TOLD = tuple(f.name for f in fields(Draft) if f.name not in _NOT_TOLD)


def _fingerprint(d: Draft) -> tuple[int, ...]:
    """How much the draft holds, part by part: a line that changes it told something new (every
    part, so that a fact put where no list here named it still counts as read)."""
    out = []
    for name in _TOLD:
        value = getattr(d, name)
        if isinstance(value, (dict, list)):
            out.append(len(value))
        else:
            out.append(int(bool(value)) if isinstance(value, bool) else int(value is not None))
    out.append(sum(len(g) for g in d.gpus.values()))
    return tuple(out)
