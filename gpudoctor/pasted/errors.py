"""The key error lines of a traceback or log, by the one table of known errors
(checks/error_lines.py), and the facts some of them state outright: the GPU and compute
capability in torch's "sm_120 is not compatible" warning, the driver's CUDA in "found version
11040", NVML's state in nvidia-smi's own failures."""

from __future__ import annotations

import re

from gpudoctor.checks.error_lines import KNOWN_ERRORS, KnownError
from gpudoctor.facts import ReportError
from gpudoctor.pasted.draft import Draft, put
from gpudoctor.pasted.scan import ascii_lower, iter_lines

NAME = "error lines"
DESCRIPTION = (
    "the key error line of a traceback or log (" + "no kernel image, sm_XX not "
    "compatible, driver too old, ...)"
)

_MAX_TEXT = 300
_SM = re.compile(
    r"([^\n]{1,120}?) with CUDA capability sm_(\d{1,2})(\d)a? is not compatible", re.IGNORECASE
)
_FOUND_VERSION = re.compile(r"too old \(found version (\d{4,6})\)")


def parse(text: str, draft: Draft) -> None:
    """The first line of each known error, in the order they appear in the paste."""
    lower = ascii_lower(text)
    found = sorted(
        (hit for hit in (_first(text, lower, known) for known in KNOWN_ERRORS) if hit),
        key=lambda hit: hit[1],
    )
    for known, offset, line in found:
        draft.section(NAME)
        number = text.count("\n", 0, offset) + 1
        draft.errors.append(ReportError(code=known.code, text=line[:_MAX_TEXT], line=number))
        if known.nvml_status:
            put(draft.nvml, "status", known.nvml_status)
        _facts(line, draft)


def _first(text: str, lower: str, known: KnownError) -> tuple[KnownError, int, str] | None:
    pattern = re.compile(known.pattern, re.IGNORECASE)
    hits = []
    for keyword in known.keywords:
        for start, line in iter_lines(lower, text, keyword):
            if pattern.search(line):
                hits.append((known, start, line.strip()))
                break
    return min(hits, key=lambda hit: hit[1]) if hits else None


def _facts(line: str, draft: Draft) -> None:
    sm = _SM.search(line)
    if sm:
        name = sm.group(1).strip().removeprefix("UserWarning:").strip()
        _gpu_cc(draft, name.split(": ")[-1], f"{sm.group(2)}.{sm.group(3)}")
    found = _FOUND_VERSION.search(line)
    if found:  # cudaDriverGetVersion's integer: 1000 * major + 10 * minor
        value = int(found.group(1))
        put(draft.nvml, "cuda_driver_version", f"{value // 1000}.{value % 1000 // 10}")


def _gpu_cc(draft: Draft, name: str, cc: str) -> None:
    """Give the named GPU its compute capability; a GPU no other section listed is added."""
    for gpu in draft.gpus.values():
        if gpu.get("name") and (gpu["name"] in name or name in gpu["name"]):
            put(gpu, "compute_capability", cc)
            return
    gpu = draft.gpu(len(draft.gpus))
    put(gpu, "name", name)
    put(gpu, "compute_capability", cc)
