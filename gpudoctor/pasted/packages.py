"""Package versions wherever they appear: `pip list` (`torch   2.5.1`), `pip freeze`
(`torch==2.5.1+cu124`), uv's install summary (` + torch==2.5.1`; its ` - ` lines are the versions
it removed), a requirements file's pins with their extras (`tensorflow[and-cuda]==2.15.0`),
collect_env's `[pip3] torch==2.5.1` and `[conda] pytorch 2.1.0 py3.10_cuda11.8_cudnn8.7.0_0
pytorch` lines, and a conda spec quoted anywhere (conda's plan
"pytorch/linux-64::pytorch-1.4.0-py3.7_cuda10.1.243_cudnn7.6.3_0", the match spec
"pytorch=1.9.0=py3.8_cpu_0"). Only the packages the checks read are kept: the frameworks,
NVIDIA's CUDA library wheels, onnxruntime and onnxruntime-gpu (both installed: a note), and the
interpreter a `conda list` names ("python  3.10.14  h955ad1f_1", with its build string).
Versions go through `packaging`, so a line that only looks like a
package is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from gpudoctor import versions
from gpudoctor.pasted.draft import Draft, put
from gpudoctor.pasted.scan import ascii_lower, lines_with

NAME = "pip list"
DESCRIPTION = "`pip list` / `pip freeze` (and collect_env's [pip3]/[conda] lines)"

_WANTED = (
    r"torch|pytorch|torchvision|torchaudio|tensorflow|tensorflow-cpu|tensorflow-gpu|tf-nightly|jax|jaxlib"
    r"|jax-cuda\d+-plugin|jax-cuda\d+-pjrt|nvidia-[a-z0-9-]{1,40}-cu\d+|nvidia-ml-py|pynvml"
    r"|cpuonly|pytorch-cuda|vllm|flash[-_]attn|flashinfer[-_]python|xformers|bitsandbytes"
    r"|llama[-_]cpp[-_]python|onnxruntime-gpu|onnxruntime"
)
_LIBRARIES = "cudatoolkit|cuda-toolkit|cuda-runtime|cudnn|nccl"  # conda's, see _conda_library
# `conda list` names the environment's interpreter: "python  3.10.14  h955ad1f_1"
_PYTHON = "python"
_PYTHON_VERSION = re.compile(r"^3\.\d{1,2}\.\d{1,2}$")
_LINE = re.compile(
    # a requirements file names extras: "tensorflow[and-cuda]==2.15.0", "jax[cuda12]==0.4.30"
    rf"[ \t]*(?:\[(pip\d?|conda)\][ \t]+)?({_WANTED}|{_LIBRARIES}|{_PYTHON})"
    r"(?:\[[\w,.-]{1,40}\])?"
    r"(?:==|[ \t]+)"
    r"([0-9][\w.+!-]{0,60})"
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
    "cudatoolkit",
    "cuda-",
    "cudnn",
    "nccl",
    "onnxruntime",
    "python",
)
_CONDA_ONLY = ("pytorch", "pytorch-cuda", "cpuonly")  # `conda list` names, never pip's
# conda's CUDA libraries, read only with a conda build string ("h6a678d5_0", "cuda11_0"), so
# that prose ("NCCL 2.18.3 is used") is not taken for a `conda list` line
_CONDA_LIBRARIES = ("cudatoolkit", "cuda-toolkit", "cuda-runtime", "cudnn", "nccl")
# "h2bc3f7f_2", "cuda11.3_0" (the defaults channel's cuDNN), "hd8ed1ab_0"
_CONDA_BUILD_STRING = re.compile(
    r"^(?:h[0-9a-f]{7}_\d{1,3}|[a-z]{0,12}\d{0,3}(?:\.\d{1,2})?_\d{1,3})$"
)
_EXPORT = re.compile(
    rf"^\s{{0,8}}- (?P<name>{_WANTED}|{_LIBRARIES})="
    r"(?P<v>[0-9][\w.+!]{0,60})(?:=(?P<build>\S{1,80}))?\s{0,4}$",
    re.IGNORECASE,
)
# A conda package spec in any line: conda's plan ("pytorch/linux-64::pytorch-1.4.0-py3.7_cuda10.1
# .243_cudnn7.6.3_0", channel/subdir::name-version-build) and the match spec people quote
# ("pytorch=1.9.0=py3.8_cpu_0", name=version=build): the build tells a CUDA or CPU build.
_CONDA_SPEC = re.compile(
    r"(?:::|(?<![\w.=/-]))(?P<name>pytorch|cudatoolkit|cudnn|nccl)[-=](?P<v>\d{1,3}\.\d{1,3}"
    r"(?:\.\d{1,4})?(?:\.\d{1,4})?)[-=](?P<build>(?:py|cuda|cpu|h)[\w.]{1,80})"
)
_PIP_ITEM = re.compile(r"^\s{0,8}- (?=\S)")  # a `pip:` item of `conda env export`
# uv's install summary: " + torch==2.5.1" installed, " ~ torch==2.5.1" reinstalled, and
# " - torch==2.4.0" removed, under "Installed 3 packages in 1.2s" / "Uninstalled 1 package in ..."
_UV_ADDED = re.compile(r"^ [+~] (?=\S)")
_UV_REMOVED = re.compile(r"^ - (?=\S)")
_UV_SUMMARY = re.compile(r"^(?:Installed|Uninstalled) \d{1,5} packages? in ", re.MULTILINE)
# `pip freeze` of a wheel installed from a URL or file: "torch @ https://.../torch-2.1.2%2Bcu121-..."
_URL = re.compile(
    rf"^\s{{0,4}}(?P<name>{_WANTED}) @ \S{{0,300}}/(?P<file>[\w.]{{1,60}})-"
    r"(?P<v>\d[\w.%+!]{0,60}?)-(?:cp|py)\d",
    re.IGNORECASE,
)
_CONDA_BUILD = re.compile(r"cuda(\d+\.\d+)(?:_cudnn(\d+\.\d+(?:\.\d+)?))?")
# conda-forge's pytorch: "cuda{{ cuda_compiler_version | replace('.', '') }}py..." (its
# pytorch-cpu-feedstock recipe/meta.yaml), later with a "_" and a BLAS flavor:
# "cuda112py38h..._1", "cuda120_py311h..._300", "cuda126_generic_py312h..._200"
_FORGE_CUDA = re.compile(r"^cuda(\d{1,2})(\d)(?:_|py)")
# What a package manager could not install is no installed version: pip's "Could not find a
# version that satisfies the requirement torch==1.9.1+cu111", "No matching distribution found
# for ...", a resolver's "xformers 0.0.22 requires torch==2.0.1", conda's "nothing provides
# cudatoolkit >=11.1 needed by pytorch-1.10.0-py3.6_cuda11.1_cudnn8.0.5_0"
_UNRESOLVED = re.compile(
    r"(?:the requirement|distribution found for|requires|needed by|nothing provides|depends on)"
    r"\s{1,2}$",
    re.IGNORECASE,
)


def unresolved(line: str, start: int) -> bool:
    """The package named at `start` of `line` is one a manager could not install."""
    return _UNRESOLVED.search(line[max(0, start - 40) : start]) is not None


def _package_lines(text: str) -> Iterator[str]:
    """The lines that may name a package, uv's markers taken off; in a uv summary, the versions
    it removed are left out (they are not the ones installed)."""
    uv = _UV_SUMMARY.search(text) is not None
    for _, line in lines_with(ascii_lower(text), text, _NEEDLES):
        if len(line) < 400 and not (uv and _UV_REMOVED.match(line)):
            yield _UV_ADDED.sub("", line, count=1)


def parse(text: str, draft: Draft) -> None:
    for line in _package_lines(text):
        exported = _EXPORT.match(line)  # `conda env export`: "  - pytorch=2.1.0=py3.10_cuda..."
        if exported:
            _conda(
                versions.canonical_name(exported.group("name")),
                exported.group("v"),
                exported.group("build") or "",
                draft,
            )
            draft.section(NAME)
            continue
        found = _LINE.match(_PIP_ITEM.sub("", line, count=1)) or _from_url(line)
        if found is None:
            spec = _CONDA_SPEC.search(line) if ("::" in line or "=" in line) else None
            if spec is not None and not unresolved(line, spec.start("name")):
                _conda(spec.group("name").lower(), spec.group("v"), spec.group("build"), draft)
                draft.section(NAME)
            continue
        manager, name, version, build = found.groups()
        name = versions.canonical_name(name)
        if name == _PYTHON:
            _conda_python(version, build or "", draft)
            continue
        if name in _CONDA_LIBRARIES:
            if _conda_library(name, version, build or "", draft):
                draft.section(NAME)
            continue
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
    if "onnxruntime" in draft.packages and "onnxruntime-gpu" in draft.packages:
        draft.note(
            f"both onnxruntime {draft.packages['onnxruntime']} (CPU) and onnxruntime-gpu "
            f"{draft.packages['onnxruntime-gpu']} are installed: the two wheels install the same "
            "`onnxruntime` package, so the one installed last provides it (onnxruntime's install "
            "guide installs one of them, onnxruntime-gpu for a CUDA GPU)"
        )


def _conda_python(version: str, build: str, draft: Draft) -> None:
    """The interpreter of a `conda list`, told by its build string (prose "Python 3.10" is not)."""
    if _CONDA_BUILD_STRING.match(build) and _PYTHON_VERSION.match(version):
        put(draft.platform, "python_version", version)
        draft.section(NAME)


def _from_url(line: str) -> re.Match[str] | None:
    """The wheel's file name gives the version ("%2B" is the "+" of its local tag)."""
    found = _URL.match(line)
    if found is None:
        return None
    return _LINE.match(f"{found.group('name')}=={found.group('v').replace('%2B', '+')}")


def _conda_library(name: str, version: str, build: str, draft: Draft) -> bool:
    if not _CONDA_BUILD_STRING.match(build):
        return False
    if name == "nccl":
        put(draft.libraries, "nccl", ".".join(version.split(".")[:3]))
    elif name == "cudnn":
        note = f"cuDNN {version} is installed by conda"
        if note not in draft.notes:
            draft.notes.append(note)
    else:
        conda_runtime(name, version, draft)
    return True


def conda_runtime(name: str, version: str, draft: Draft) -> None:
    """conda's CUDA runtime package (cudatoolkit, cuda-toolkit, cuda-runtime): the CUDA of that
    environment, not a toolkit installed on the host."""
    note = f"conda's {name} {version} is the CUDA runtime of that environment"
    if note not in draft.notes:
        draft.notes.append(note)


def _conda(name: str, version: str, build: str, draft: Draft) -> None:
    if name in _CONDA_LIBRARIES:
        _conda_library(name, version, build, draft)
    elif name == "pytorch":
        draft.packages.setdefault("torch", version)
        tags = _CONDA_BUILD.search(build)
        forge = _FORGE_CUDA.match(build)
        if tags:
            draft.torch.setdefault("cuda", tags.group(1))
        elif forge:
            draft.torch.setdefault("cuda", f"{forge.group(1)}.{forge.group(2)}")
        elif build.startswith(("py", "cpu")) and "cpu" in build:
            draft.torch.setdefault("cpu_only", True)
    elif name == "cpuonly":
        draft.torch.setdefault("cpu_only", True)
    elif name == "pytorch-cuda":  # the metapackage pinning the CUDA of conda's pytorch
        draft.torch.setdefault("cuda", versions.major_minor(version) or version)
    else:
        draft.packages.setdefault(name, version)
