"""GPUs and their device nodes read from text: CUDA_VISIBLE_DEVICES, `ls /dev/nvidia*`,
`transformers env`'s GPU flag, and the GPUs llama.cpp and PyTorch name."""

from __future__ import annotations

import re

from gpudoctor.facts import DeviceNode
from gpudoctor.pasted.draft import Draft, put
from gpudoctor.pasted.facts_scan.frameworks import _env_gpu
from gpudoctor.pasted.facts_scan.rule import _Rule, _rx


def _visible(m: re.Match[str], d: Draft) -> bool:
    """CUDA_VISIBLE_DEVICES set wherever a paste sets it: a shell's `export`, `set` (cmd) and
    `$env:` (PowerShell), a command's own environment (`CUDA_VISIBLE_DEVICES= python x.py`),
    Python's `os.environ["CUDA_VISIBLE_DEVICES"] = ""`, an env listing (`NAME=value`, `NAME:
    value`). An empty value (`""`, or nothing before the line's end or the command) is a value:
    CUDA then sees no device (the CUDA C Programming Guide's environment variables), which the
    cuda-visible-devices check judges as it does live."""
    quoted = m.group("q")
    value = quoted if quoted is not None else m.group("v") or ""
    d.platform.setdefault("cuda_visible_devices", value.strip())  # put() would drop ""
    return True


def _device_node(m: re.Match[str], d: Draft) -> bool:
    """`ls -l /dev/nvidia*`: the node exists; readable and writable by anyone when the
    permissions give "other" both (else it depends on the user, which ls does not say)."""
    other = m.group("perm")[6:8]
    anyone = True if other == "rw" else None
    nodes = d.kernel.get("device_nodes", ())
    if all(n.path != m.group("path") for n in nodes):
        node = DeviceNode(path=m.group("path"), readable=anyone, writable=anyone)
        d.kernel["device_nodes"] = (*nodes, node)
    return True


_DEVICE_PATH = re.compile(r"/dev/nvidia[\w-]{0,20}")


def _device_names(m: re.Match[str], d: Draft) -> bool:
    """`ls /dev/nvidia*`: the nodes exist (who may open them, only `ls -l` says)."""
    names = m.group(0).split()
    if not all(_DEVICE_PATH.fullmatch(name) for name in names):
        return False  # another word among them: no listing of the files alone
    nodes = d.kernel.get("device_nodes", ())
    known = {n.path for n in nodes}
    paths = [p for p in dict.fromkeys(names) if p not in known]
    if not paths:
        return False
    d.kernel["device_nodes"] = (*nodes, *(DeviceNode(path=p) for p in paths))
    return True


def _ggml_gpu(m: re.Match[str], d: Draft) -> bool:
    """llama.cpp's `Device 0: NVIDIA GeForce RTX 3090, compute capability 8.6`; PyTorch's
    capability warning `Found GPU0 NVIDIA GB10 which is of cuda capability 12.1.`"""
    gpu = d.gpu(int(m.group("i")))
    put(gpu, "name", m.group("name").strip())
    put(gpu, "compute_capability", m.group("cc"))
    return True


def _ggml_device(m: re.Match[str], d: Draft) -> bool:
    """llama.cpp's (and ollama's runner's) device lines, which name the GPU without its compute
    capability: "using device CUDA0 (NVIDIA GeForce RTX 3060) (0000:01:00.0) - 10886 MiB
    free" at model load, "- CUDA0   : Orin (7485 MiB, 6152 MiB free)" in its device_info."""
    index, name = m.group("i") or m.group("j"), m.group("name") or m.group("dname")
    put(d.gpu(int(index)), "name", name.strip())
    return True


def _next_gpu_index(d: Draft, name: str) -> int:
    for index, gpu in d.gpus.items():
        if gpu.get("name") == name:
            return index
    return len(d.gpus)


RULES: tuple[_Rule, ...] = (
    _Rule(
        "cuda_visible_devices",
        # the name, quoted where Python subscripts os.environ, then its value: quoted (empty
        # too), bare (right after `=`, a shell's; spaced only in `NAME = 0`, `NAME: 0`), or
        # nothing where `=` ends the line or the command follows it (`NAME= python x.py`)
        _rx(
            r"\bCUDA_VISIBLE_DEVICES(?:[\"']\])?(?:\s{0,2}[=:]\s{0,2}[\"'](?P<q>[\w:, <>-]{0,200})"
            r"[\"']|(?::\s{0,2}|=|\s{1,2}=\s{0,2})(?P<v>[\w:,<>-]{1,200})|=(?=[ \t]{1,8}\S|"
            r"[ \t]{0,8}$))"
        ),
        _visible,
    ),
)


RULES_2: tuple[_Rule, ...] = (
    _Rule(
        "version (gpu?)",
        _rx(
            r"\b(?P<fw>pytorch|tensorflow) version \(gpu\?\)\s{0,4}:\s{0,4}v?(?P<v>\d{1,2}\.\d"
            r"{1,2}(?:\.\d{1,3})?(?:\+[\w.]{1,40})?)\s{0,4}\((?P<gpu>true|false)\)"
        ),
        _env_gpu,
    ),
    _Rule(
        "/dev/nvidia",
        _rx(
            r"^\s{0,4}c(?P<perm>[rwxsStT-]{9})\S{0,2}\s{1,4}\d{1,4}\s{1,4}\S{1,32}\s{1,4}\S{1,32}\s{1,4}"
            r"\d{1,4},\s{1,4}\d{1,4}\s[^\n]{1,40}?(?P<path>/dev/nvidia[\w-]{0,20})\s{0,4}$"
        ),
        _device_node,
    ),
    _Rule(  # `ls /dev/nvidia*` without -l: the files' names alone, on one line or one a line
        "/dev/nvidia",
        _rx(r"^\s{0,4}/dev/nvidia[\w \t/-]{0,800}$"),
        _device_names,
    ),
)


RULES_3: tuple[_Rule, ...] = (
    _Rule(
        "which is of cuda capability",
        _rx(
            r"\bFound GPU(?P<i>\d{1,2}) (?P<name>[^\n]{2,80}?) which is of cuda capability "
            r"(?P<cc>\d{1,2}\.\d)"
        ),
        _ggml_gpu,
    ),
    _Rule(
        ("using device cuda", "mib free)"),
        _rx(
            r"\busing device CUDA(?P<i>\d{1,2}) \((?P<name>[^()\n]{2,80})\)|^[\s\dIWE.]{0,30}- "
            r"CUDA(?P<j>\d{1,2})\s{1,8}: (?P<dname>[^()\n]{2,80}?) \(\d{1,7} MiB, \d{1,7} MiB "
            r"free\)"
        ),
        _ggml_device,
    ),
    _Rule(
        "compute capability",
        _rx(
            r"Device (?P<i>\d{1,2}): (?P<name>[^,\n]{2,80}), compute capability (?P<cc>\d{1,"
            r"2}\.\d)"
        ),
        _ggml_gpu,
    ),
)
