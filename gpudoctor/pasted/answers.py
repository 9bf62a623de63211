"""What a script or an interactive session printed about its GPU as "key: value", in any
wording: the GPU's name after a device or GPU key ("torch.cuda.get_device_name(): NVIDIA Tegra
X1", "Device name: NVIDIA GeForce RTX 2080 Ti", "cuda device: NVIDIA A100-SXM4-40GB",
"gpu_name = NVIDIA L4", "device name 'NVIDIA RTX A6000'"), whether CUDA is available ("CUDA
available: True") and the device a program chose ("Using device: cuda").

A name is taken only where it starts with one of NVIDIA's own brand words (as torch, nvidia-smi
and NVML name their GPUs), so that a model the matrix does not list yet is read too, its compute
capability unknown; a GPU listing elsewhere in the paste wins. An answer that names no framework
is a note: which framework answered is not said.
"""

from __future__ import annotations

import re

from gpudoctor.pasted.draft import Draft
from gpudoctor.pasted.scan import NVIDIA_BRAND, ascii_lower, lines_with

NAME = "device answers"
DESCRIPTION = (
    "a script's device answers (`Device name: ...`, `torch.cuda.get_device_name(): ...`, "
    "`CUDA available: True`, `Using device: cuda`)"
)

_MAX_LINES = 200
_MAX_LINE = 2000

# the key: a device or GPU word, or torch's question, then ":", "=", "->", or a quote
_GPU_NAME = re.compile(
    r"(?:\bget_device_name\(\s{0,2}\d{0,2}\s{0,2}\)"
    r"|\b(?:device|gpu|card)(?:[ _]?(?:name|model|type))?(?: ?\d{1,2})?)"
    r"(?:\s{0,2}(?:[:=]|->|=>)\s{0,4}['\"]?|\s{1,2}['\"])"
    r"(?P<name>(?:" + NVIDIA_BRAND + r"|Tegra)\s[^\n'\",;()\[\]|]{1,60})",
    re.IGNORECASE,
)
_NOT_A_MODEL = re.compile(r"\b(?:Corporation|Corp\.|driver|device \d|\d{3,4}\.\d{1,3})", re.I)
_AVAILABLE = re.compile(
    r"^\W{0,4}(?:(?P<fw>torch|pytorch|tensorflow|tf|jax)\W{0,4})?(?:cuda|gpu)s?[ _](?:is[ _])?"
    r"available\s{0,2}[:=?]\s{0,4}(?P<v>True|False|Yes|No)\b",
    re.IGNORECASE,
)
_USING = re.compile(
    r"^\W{0,4}(?:(?:using|selected|running on)(?: the)? device\s{0,2}[:=]?\s{0,4}['\"]?"
    r"(?P<dev>cuda(?::\d{1,2})?|cpu|mps)['\"]?"
    # PyTorch's quickstart tutorial: print(f"Using {device} device")
    r"|using (?P<dev2>cuda(?::\d{1,2})?|cpu|mps) device)\s{0,4}$",
    re.IGNORECASE,
)
# torch's tensor repr names the device of a tensor not on the CPU: "tensor([1., 2.],
# device='cuda:0')", the last row of a printed matrix "        [3., 4.]], device='cuda:0')"
_TENSOR = re.compile(
    r"^\s{0,12}(?:tensor\(|\[)[^\n]{0,400}device='(?P<dev>cuda):\d{1,2}'[^\n]{0,80}\)\s{0,4}$"
)


def parse(text: str, draft: Draft) -> None:
    lower = ascii_lower(text)
    found = lines_with(lower, text, ("device", "gpu", "card", "available"))
    for start, whole in found[:_MAX_LINES]:
        line = whole[:_MAX_LINE]
        if not _gpu_name(line, start, text, draft) and _said(line, draft):
            draft.read_at(NAME, text, start)


def _gpu_name(line: str, start: int, text: str, draft: Draft) -> bool:
    m = _GPU_NAME.search(line)
    if m is None:
        return False
    name = " ".join(m.group("name").split())
    if len(name.split()) < 2 or _NOT_A_MODEL.search(name):
        return False
    # read where facts_scan takes it: where no other line names a GPU
    draft.answered_gpus.append((name, text.count("\n", 0, start) + 1))
    return True


def _said(line: str, draft: Draft) -> bool:
    m = _AVAILABLE.search(line)
    if m is not None:
        fw = (m.group("fw") or "").lower()
        said = m.group("v").lower() in ("true", "yes")
        if fw in ("torch", "pytorch") and draft.torch_cuda_available is None:
            draft.torch_cuda_available = said
        draft.note(
            f"the paste says CUDA is {'' if said else 'not '}available"
            + ("" if fw else " (which framework answered is not said)")
        )
        return True
    m = _USING.search(line)
    if m is not None:
        draft.note(
            f"the program says it uses the device {(m.group('dev') or m.group('dev2')).lower()}"
        )
        return True
    if _TENSOR.search(line) is None:
        return False
    if draft.torch_cuda_available is None:
        draft.torch_cuda_available = True
    draft.note("torch printed a tensor on a CUDA device: torch sees the GPU")
    return True
