"""`rocm-smi` with no option: the "Concise Info" table between its "ROCm System Management
Interface" banner and "End of ROCm SMI Log". ROCm 6 rows begin with the device and its KFD node
and PCI device id ("0  1  0x74a1,  28851  35.0°C ..."): the id, which the matrix maps to a gfx
target as it does for `rocm-smi -i`. Older rows ("0  34.0c  13.0W  800Mhz ...") show no id:
the number of GPUs is a note.
"""

from __future__ import annotations

import re

from gpudoctor.pasted.draft import Draft, put

NAME = "rocm-smi"
DESCRIPTION = "`rocm-smi` (its Concise Info table)"

_BANNER = "ROCm System Management Interface"
_END = "End of ROCm SMI Log"
_ROW_ID = re.compile(r"^(?P<i>\d{1,3})\s{1,12}(?P<node>\d{1,3})\s{1,12}0x(?P<did>[0-9a-fA-F]{4}),")
_ROW = re.compile(r"^(?P<i>\d{1,3})\s{1,12}\d{1,3}(?:\.\d)?\s{0,2}°?[cC]\b")
_MAX = 200_000  # characters of one table


def parse(text: str, draft: Draft) -> None:
    at = text.find(_BANNER)
    if at == -1:
        return
    end = text.find(_END, at, at + _MAX)
    table = text[at : end if end != -1 else at + _MAX]
    first = text.count("\n", 0, at) + 1
    gpus: list[int] = []
    for raw in table.split("\n"):
        line = raw.strip()
        found = _ROW_ID.match(line)
        if found:
            index = int(found.group("i"))
            put(draft.amd_gpu(index), "device_id", "0x" + found.group("did").lower())
            gpus.append(index)
        elif _ROW.match(line):
            gpus.append(int(line.split()[0]))
    if not gpus:
        return
    draft.notes.append(f"rocm-smi lists {len(set(gpus))} AMD GPU(s)")
    draft.named.append(("amd", first))
    draft.section(NAME)
    draft.ranges.append((NAME, first, first + table.count("\n")))
