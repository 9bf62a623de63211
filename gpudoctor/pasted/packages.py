"""Package versions wherever they appear: `pip list` (`torch   2.5.1`), `pip freeze`
(`torch==2.5.1+cu124`), collect_env's `[pip3] torch==2.5.1` and `[conda] pytorch 2.1.0
py3.10_cuda11.8_cudnn8.7.0_0 pytorch` lines. Only the packages the checks read are kept: the
frameworks and NVIDIA's CUDA library wheels. Versions go through `packaging`, so a line that only
looks like a package is dropped.
"""

from __future__ import annotations

import re

from gpudoctor import versions
from gpudoctor.pasted.draft import Draft
from gpudoctor.pasted.scan import ascii_lower, lines_with

NAME = "pip list"
DESCRIPTION = "`pip list` / `pip freeze` (and collect_env's [pip3]/[conda] lines)"

_WANTED = (
    r"torch|pytorch|torchvision|torchaudio|tensorflow|tensorflow-cpu|tensorflow-gpu|tf-nightly|jax|jaxlib"
    r"|jax-cuda\d+-plugin|jax-cuda\d+-pjrt|nvidia-[a-z0-9-]{1,40}-cu\d+|nvidia-ml-py|pynvml"
    r"|cpuonly|pytorch-cuda|vllm|flash[-_]attn|xformers|bitsandbytes|llama[-_]cpp[-_]python"
)
_LINE = re.compile(
    rf"[ \t]*(?:\[(pip\d?|conda)\][ \t]+)?({_WANTED})(?:==|[ \t]+)([0-9][\w.+!-]{{0,60}})"
    r"(?:[ \t]+(\S{1,80}))?[ \t]*(?:\S{1,40})?[ \t]*$",
    re.IGNORECASE,
)
# The lines worth matching hold one of these (lower case); str.find spots them fast.
_NEEDLES = (
    "torch",
    "tensorflow",
    "tf-nightly",
    "jax",
    "nvidia-",
    "nvidia_",
    "pynvml",
    "cpuonly",
    "vllm",
    "flash",
    "xformers",
    "bitsandbytes",
    "llama",
)
_CONDA_ONLY = ("pytorch", "pytorch-cuda", "cpuonly")  # `conda list` names, never pip's
_CONDA_BUILD = re.compile(r"cuda(\d+\.\d+)(?:_cudnn(\d+\.\d+(?:\.\d+)?))?")


def parse(text: str, draft: Draft) -> None:
    for _, line in lines_with(ascii_lower(text), text, _NEEDLES):
        found = _LINE.match(line) if len(line) < 400 else None
        if found is None:
            continue
        manager, name, version, build = found.groups()
        name = versions.canonical_name(name)
        try:
            versions.pep440(version)
        except ValueError:  # packaging InvalidVersion
            continue
        conda_line = manager is None and (name in _CONDA_ONLY or _CONDA_BUILD.search(build or ""))
        if (manager or "").lower() == "conda" or conda_line:
            _conda(name, version, build or "", draft)
        else:
            draft.packages.setdefault(name, version)
        draft.section(NAME)


def _conda(name: str, version: str, build: str, draft: Draft) -> None:
    if name == "pytorch":
        draft.packages.setdefault("torch", version)
        tags = _CONDA_BUILD.search(build)
        if tags:
            draft.torch.setdefault("cuda", tags.group(1))
        elif build.startswith(("py", "cpu")) and "cpu" in build:
            draft.torch.setdefault("cpu_only", True)
    elif name == "cpuonly":
        draft.torch.setdefault("cpu_only", True)
    elif name == "pytorch-cuda":  # the metapackage pinning the CUDA of conda's pytorch
        draft.torch.setdefault("cuda", versions.major_minor(version) or version)
    else:
        draft.packages.setdefault(name, version)
