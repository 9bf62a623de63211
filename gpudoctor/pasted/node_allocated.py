"""`kubectl describe node`'s "Allocated resources:" table: the nvidia.com/gpu its pods hold.

The table sums the requests and limits of the pods running on the node, one row per resource
("  nvidia.com/gpu   1   1", Requests then Limits), under a "(Total limits may be over 100
percent, i.e., overcommitted.)" note and a "Resource  Requests  Limits" header (kubectl's
describe printer). Beside the node's Allocatable it says whether every GPU the node advertises
is taken: then "Insufficient nvidia.com/gpu" is a full node, not a missing device plugin.
"""

from __future__ import annotations

import re

from gpudoctor.pasted.draft import Draft

NAME = "kubectl describe node (allocated resources)"
DESCRIPTION = "the nvidia.com/gpu the pods on a node hold (kubectl describe node)"

_SECTION = re.compile(r"^[ \t]{0,8}Allocated resources:[ \t]{0,4}$", re.MULTILINE)
_ROW = re.compile(
    r"^[ \t]{1,12}nvidia\.com/gpu[ \t]{1,40}(?P<requests>\d{1,4})(?:[ \t]{1,4}\(\d{1,4}%\))?"
    r"[ \t]{1,40}\d{1,4}"
)
_ROWS = 24  # the table has one row per resource the node has (cpu, memory, hugepages, devices)


def parse(text: str, draft: Draft) -> None:
    for section in _SECTION.finditer(text):
        lines = text[section.end() + 1 :].split("\n", _ROWS)[:_ROWS]
        for i, line in enumerate(lines):
            if line.strip() and not line[:1].isspace():
                break  # the next unindented line ("Events:") ends the table
            m = _ROW.match(line)
            if m is not None:
                if draft.k8s_gpu_allocated is None:
                    draft.k8s_gpu_allocated = int(m.group("requests"))
                draft.read_at(NAME, text, section.start(), i + 2)
                return
