"""CUDA versions read from text: the driver's CUDA (nvidia-smi, collect_env), the toolkit (nvcc,
CMake, install paths), the runtime, NVRTC, cuDNN and NCCL."""

from __future__ import annotations

import re

from gpudoctor.pasted import collect_env, packages
from gpudoctor.pasted.draft import Draft, put
from gpudoctor.pasted.facts_scan.libraries import _wheel_library_path
from gpudoctor.pasted.facts_scan.rule import _Rule, _rx, _says

# nvidia-smi's "CUDA Version: 12.4" (the newest CUDA the driver supports), as a list writes it
# too: markdown's "**CUDA Version:** 12.6", "CUDA Version: `12.4`", "CUDA version: v12.2". The
# words without the colon ("my CUDA version is 12.3") do not say whose CUDA: _cuda_mentioned.
_DRIVER_CUDA = _rx(
    r"\bcuda (?:umd )?version\**\s{0,40}(?:[:=]|-(?=\s))\**\s{0,8}`?v?(?P<v>\d{1,2}\.\d{1,2})\b"
)


def _driver_cuda(m: re.Match[str], d: Draft) -> bool:
    put(d.nvml, "cuda_driver_version", m.group("v"))
    return True


def _driver_cuda_int(m: re.Match[str], d: Draft) -> bool:
    value = int(m.group("v"))  # cudaDriverGetVersion: 1000 * major + 10 * minor
    put(d.nvml, "cuda_driver_version", f"{value // 1000}.{value % 1000 // 10}")
    return True


# The environment tools of a Jetson print the CUDA toolkit JetPack installed as a line of its
# own, with its build number: jetson-stats' Libraries list (`jetson_release`, jtop's info page:
# "- CUDA: 12.6.68", "   * CUDA 10.2.89"), jetsonInfo ("CUDA 10.0.326"). A driver's CUDA is
# never written with a build number, so the line is the toolkit's.
_TOOLKIT_ITEM = _rx(r"^[\s>*\-]{0,12}CUDA\s{0,2}:?\s{0,4}(?P<v>\d{1,2}\.\d{1,2}\.\d{2,4})\s{0,4}$")


def _cuda_toolkit_item(m: re.Match[str], d: Draft) -> bool:
    """A Jetson environment tool's CUDA line (_TOOLKIT_ITEM): the installed toolkit's full
    version (a driver's CUDA has two numbers)."""
    return _toolkit_named(m.group("v"), d)


def _opencv_cuda(m: re.Match[str], d: Draft) -> bool:
    """OpenCV's build summary (cv2.getBuildInformation()): "NVIDIA CUDA: YES (ver 11.4, CUFFT
    CUBLAS FAST_MATH)", the CUDA that OpenCV build was compiled with."""
    d.note(f"OpenCV was built with CUDA {m.group('v')}")
    d.named.append(("opencv", d.scan_line))
    return True


def _cuda_mentioned(m: re.Match[str], d: Draft) -> bool:
    """A CUDA release named: the toolkit's where a list's entry or a label names the toolkit
    ("- cuda-toolkit: 12.4", "CUDA Toolkit 12.1" alone, "CUDA toolkit version: 12.1"); conda's
    "cudatoolkit 11.3" that environment's CUDA runtime (as `conda list` rows are read); else
    "named, without saying whose" (prose: "I use CUDA Toolkit 12.4", "my CUDA version is 12.2")."""
    if _DRIVER_CUDA.search(m.string) or "cuda umd version" in m.string.lower():
        return False  # nvidia-smi's words for the driver's CUDA: _driver_cuda read it
    if _TOOLKIT_ITEM.match(m.string):
        return False  # jetson-stats' list names the toolkit: _cuda_toolkit_item read it
    version = m.group("v") + (m.group("more") or "")
    entry = _BULLET.fullmatch(m.string, 0, m.start()) and _LINE_END.fullmatch(m.string, m.end())
    if m.group("kit") and (m.group("said") or entry):
        if m.group("kit") == "toolkit":  # conda's package: the environment's CUDA runtime
            packages.conda_runtime("cudatoolkit", version, d)
            return True
        return _toolkit_named(version, d)
    d.note(f"CUDA {m.group('v')} is named, without saying whose (driver, toolkit or framework)")
    d.named.append(("cuda", d.scan_line))
    return True


_BULLET = re.compile(r"[\s>*\-]{0,12}")  # what stands before a list's entry

_LINE_END = re.compile(r"`?\s{0,4}")


def _toolkit_named(version: str, d: Draft) -> bool:
    if d.cuda_toolkit_version is not None:
        return False
    d.cuda_toolkit_version = version
    d.note(f"the CUDA toolkit {version} is listed")
    return True


_DOTTED = re.compile(r"\d{1,2}\.\d")


def _collect_env_key(m: re.Match[str], d: Draft) -> bool:
    key, value = m.group("key"), m.group("value")
    if key.lower() == "cuda runtime version" and not _DOTTED.match(value):
        return False  # CuPy's "CUDA Runtime Version : 11030" (its _runtime_int rule reads it)
    collect_env.key_line(key, value, d)
    return True


def _torch_cuda(m: re.Match[str], d: Draft) -> bool:
    """collect_env's "CUDA used to build PyTorch: 10.2" where its block was not recognised (a
    partial or hand-copied paste): the CUDA the installed torch was built with."""
    put(d.torch, "cuda", m.group("v"))
    return True


def _paddle_device(m: re.Match[str], d: Draft) -> bool:
    """Paddle's start-up line "device: 0, GPU Compute Capability: 8.6, Driver API Version: 12.2,
    Runtime API Version: 11.8": the newest CUDA the driver supports, and the device's compute
    capability (given to a GPU the paste names; a GPU is not made up from a number alone)."""
    put(d.nvml, "cuda_driver_version", m.group("v"))
    index = int(m.group("i") or 0)
    if index in d.gpus:
        put(d.gpus[index], "compute_capability", m.group("cc"))
    d.note(f"Paddle runs CUDA {m.group('rt')} (its runtime API version)")
    return True


def _nvcc(m: re.Match[str], d: Draft) -> bool:
    if d.nvcc_version is None:
        d.nvcc_version = m.group("v")
    return True


def _runtime_int(m: re.Match[str], d: Draft) -> bool:
    """CuPy's show_config "CUDA Runtime Version : 11030": the CUDA toolkit runtime in use."""
    if d.nvcc_version is None:
        value = int(m.group("v"))
        d.nvcc_version = f"{value // 1000}.{value % 1000 // 10}"
    return True


def _nvrtc(m: re.Match[str], d: Draft) -> bool:
    """CuPy's show_config "NVRTC Version : (11, 3)": kernels are compiled at run time."""
    if d.nvrtc:
        return False
    d.nvrtc = True
    d.note(f"NVRTC {m.group('major')}.{m.group('minor')} compiles kernels at run time")
    return True


def _cudnn(m: re.Match[str], d: Draft) -> bool:
    """An environment list's "cuDNN: 8.0.4": the cuDNN installed on the host (what a TensorFlow
    before its [and-cuda] wheels loads: checks/cudnn.py)."""
    d.note(f"cuDNN {m.group('v')} is named")
    d.libraries.setdefault("cudnn", m.group("v"))
    return True


def _cudnn_loaded(m: re.Match[str], d: Draft) -> bool:
    """TensorFlow's "Loaded cuDNN version 8201" (stream_executor's cuda_dnn.cc logs
    cudnnGetVersion()): cudnn.h's CUDNN_VERSION, major * 1000 + minor * 100 + patch up to
    cuDNN 8 and major * 10000 + minor * 100 + patch from cuDNN 9."""
    n = int(m.group("n"))
    major, rest = (n // 10000, n % 10000) if n >= 10000 else (n // 1000, n % 1000)
    version = f"{major}.{rest // 100}.{rest % 100}"
    d.note(f"the framework loaded cuDNN {version}")
    d.libraries.setdefault("cudnn", version)
    return True


def _cuda_cudnn(m: re.Match[str], d: Draft) -> bool:
    """An issue template's "CUDA/cuDNN version: 10.1/8.0.2": the installed CUDA and cuDNN."""
    d.note(f"CUDA {m.group('cuda')} is named, without saying whose (driver, toolkit or framework)")
    d.named.append(("cuda", d.scan_line))
    return _cudnn(m, d)


def _nccl(m: re.Match[str], d: Draft) -> bool:
    put(d.libraries, "nccl", m.group("v"))
    if m.groupdict().get("cuda"):
        put(d.libraries, "nccl_cuda", m.group("cuda"))
    return True


def _cuda_path(m: re.Match[str], d: Draft) -> bool:
    """A CUDA toolkit's install path; `which nvcc` naming one says which nvcc runs."""
    if m.group("nvcc") and d.nvcc_version is None:
        d.nvcc_version = m.group("v")
    d.note(f"the text names the CUDA {m.group('v')} toolkit ({m.group('path').strip()})")
    return True


RULES: tuple[_Rule, ...] = (
    _Rule(
        ("cuda version", "cuda umd version"),
        _DRIVER_CUDA,
        _driver_cuda,
    ),
    _Rule(
        "cuda",
        _TOOLKIT_ITEM,
        _cuda_toolkit_item,
    ),
    _Rule(
        "cudadriverversion",
        _rx(r"cudaDriverVersion\s{0,4}[:=]?\s{0,4}(?P<v>\d{4,6})\b"),
        _driver_cuda_int,
    ),
    _Rule(
        "release",
        _rx(
            r"cuda compilation tools, release \d{1,2}\.\d{1,2}, V(?P<v>\d{1,2}\.\d{1,2}\.\d{"
            r"1,4})"
        ),
        _nvcc,
    ),
    _Rule(
        "cuda driver version",
        _rx(r"\bCUDA Driver Version\s{0,30}:\s{0,4}(?P<v>\d{4,6})\b"),
        _driver_cuda_int,
    ),
    _Rule(
        # collect_env's lines that say the most about the host, in a paste cut above its
        # "PyTorch version:" line (which starts the block collect_env.py reads)
        ("python platform", "cuda runtime version", "nvidia driver version", "is cuda available"),
        _rx(
            r"^\s{0,4}(?P<key>Python platform|CUDA runtime version|Nvidia driver version|"
            r"Is CUDA available)\s{0,30}:\s{0,4}(?P<value>\S[^\n]{0,200}?)\s{0,4}$"
        ),
        _collect_env_key,
    ),
    _Rule(
        "cuda used to build pytorch",
        _rx(r"\bCUDA used to build PyTorch\s{0,30}:\s{0,4}(?P<v>\d{1,2}\.\d{1,2})(?:\.\d{1,3})?\b"),
        _torch_cuda,
    ),
    _Rule(
        "driver api version",
        _rx(
            r"(?:\bdevice:\s{0,2}(?P<i>\d{1,2}),\s{0,2})?GPU Compute Capability:\s{0,2}"
            r"(?P<cc>\d{1,2}\.\d),\s{0,2}Driver API Version:\s{0,2}(?P<v>\d{1,2}\.\d{1,2}),"
            r"\s{0,2}Runtime API Version:\s{0,2}(?P<rt>\d{1,2}\.\d{1,2})"
        ),
        _paddle_device,
    ),
    _Rule(
        "cuda runtime version",
        _rx(r"\bCUDA Runtime Version\s{0,30}:\s{0,4}(?P<v>\d{4,6})\b"),
        _runtime_int,
    ),
    _Rule(
        "nvrtc version",
        _rx(r"\bNVRTC Version\s{0,30}:\s{0,4}\(?(?P<major>\d{1,2})[,.]\s{0,2}(?P<minor>\d{1,2})"),
        _nvrtc,
    ),
    # CMake's status lines name the CUDA toolkit a build found: its compiler identification
    # ("-- The CUDA compiler identification is NVIDIA 12.2.140"), find_package's "-- Found
    # CUDAToolkit: /usr/local/cuda/include (found version "12.1.105")" (FindCUDA's "Found CUDA:"
    # too, "found suitable version" when a minimum is asked), and the "CUDA detected: 11.0" of
    # Caffe's and PyTorch's cmake files ("-- Caffe2: CUDA detected: 12.1")
    _Rule(
        "compiler identification is nvidia",
        _rx(
            r"\bThe CUDA compiler identification is NVIDIA (?P<v>\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)"
            r"(?![\d.])"
        ),
        _nvcc,
    ),
    _Rule(
        ("found cudatoolkit:", "found cuda:"),
        _rx(
            r"\bFound (?:CUDAToolkit|CUDA): [^\n]{1,200}?\(found (?:suitable )?(?:exact )?version "
            r"\"(?P<v>\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)\""
        ),
        _nvcc,
    ),
    _Rule(
        "cuda detected:",
        _rx(r"^\s{0,8}(?:--\s{1,2})?(?:Caffe2: )?CUDA detected: (?P<v>\d{1,2}\.\d{1,2})(?![\d])"),
        _nvcc,
    ),
    _Rule(
        "cuda compiler driver",
        _rx(r"\bnvcc: NVIDIA \(R\) Cuda compiler driver\b"),
        _says(
            "nvcc's banner (`nvcc --version`): a CUDA toolkit's compiler is installed (its "
            'release is on the "Cuda compilation tools" line)'
        ),
    ),
    _Rule(
        "build cuda_",
        _rx(r"\bBuild cuda_(?P<v>\d{1,2}\.\d{1,2})\.r\d{1,2}\.\d{1,2}/compiler"),
        _nvcc,
    ),
    _Rule(
        # nvcc's version told in prose or a list: "nvcc version 11.8", "nvcc --version shows
        # as version 12.1", "NVCC: 11.7", "nvcc -V says 12.4"; only through words that report a
        # value, never "nvcc fails with gcc 12.2" or a version required ("12.1 or later")
        "nvcc",
        _rx(
            r"\bnvcc(?:\.exe)?(?:\s{1,3}(?:-V|--version))?\s{0,3}[:=]?\s{0,3}"
            r"(?:(?:shows|says|reports|gives|prints|returns|is)\s{1,3})?(?:as\s{1,3})?"
            r"(?:version\s{0,3}[:=]?\s{0,3}|v)?(?P<v>\d{1,2}\.\d{1,2})(?![\d]|\.\d{1,3}\.|"
            r"\s{0,3}(?:or (?:later|newer|above|higher)|\+))"
        ),
        _nvcc,
    ),
    _Rule(
        "cuda",
        _rx(
            # the toolkit's own names: conda's "cudatoolkit", the package "cuda-toolkit"; an
            # entry of a list is the whole line ("- cuda-toolkit 12.4")
            r"(?<![+\w])cuda(?P<kit>[ -]?toolkit)?"
            r"(?:\s{1,2}version(?:\s{1,2}(?:is|was))?)?[\s_]{0,4}(?P<said>[:=])?\s{0,4}`?v?"
            r"(?P<v>1\d\.\d{1,2})(?P<more>\.\d{1,3})?\b(?! ?or later)"
        ),
        _cuda_mentioned,
    ),
    _Rule(
        "cudnn",
        _rx(
            # Caffe's cmake says "Found cuDNN: ver. 8.3.2 found (include: ...)"
            r"(?<!/)\bcudnn(?: version)?\s{0,4}[:=]?\s{0,4}(?:ver\.\s{0,2}|v)?"
            r"(?P<v>\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)"
            r"\b"
        ),
        _cudnn,
    ),
    _Rule(
        "-packages/nvidia/",
        _rx(
            r"-packages/nvidia/(?P<lib>cudnn|cublas|cuda_runtime|cuda_nvrtc|nccl|cusparse|cufft|"
            r"curand|cusolver|nvjitlink|cusparselt)/lib/(?P<file>lib\w{2,40}\.so\.\d{1,2})"
        ),
        _wheel_library_path,
    ),
    _Rule(
        "nvidia cuda:",
        _rx(r"\bNVIDIA CUDA:\s{0,20}YES \(ver (?P<v>\d{1,2}\.\d{1,2})"),
        _opencv_cuda,
    ),
    _Rule(  # OpenCV's build summary: "cuDNN: YES (ver 8.0)"
        "cudnn:",
        _rx(r"\bcuDNN:\s{0,20}YES \(ver (?P<v>\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)\)"),
        _cudnn,
    ),
    _Rule(
        "loaded cudnn version",
        _rx(r"\bLoaded cuDNN version (?P<n>[5-9]\d{3}|[1-9]\d{4})\b"),
        _cudnn_loaded,
    ),
    _Rule(
        "cuda/cudnn",
        _rx(
            r"\bcuda\s{0,2}/\s{0,2}cudnn(?: versions?)?\s{0,4}[:=]?\s{0,4}v?(?P<cuda>1?\d\.\d{1,2})"
            r"(?:\.\d{1,3})?\s{0,3}/\s{0,3}v?(?P<v>\d{1,2}\.\d{1,2}(?:\.\d{1,3})?(?:\.\d{1,3})?)\b"
        ),
        _cuda_cudnn,
    ),
    _Rule(
        "nccl version",
        _rx(
            r"NCCL version\s{0,4}[:=]?\s{0,4}(?P<v>2\.\d{1,2}\.\d{1,3})(?:\+cuda(?P<cuda>\d{"
            r"1,2}\.\d{1,2}))?"
        ),
        _nccl,
    ),
    _Rule(
        "nccl",
        _rx(r"\bnccl\s{0,4}[:=]?\s{0,4}v?(?P<v>2\.\d{1,2}\.\d{1,3})\b"),
        _nccl,
    ),
)


RULES_2: tuple[_Rule, ...] = (
    _Rule(
        "/cuda-",
        _rx(r"(?P<path>/usr/local/cuda-(?P<v>\d{1,2}\.\d{1,2})(?P<nvcc>/bin/nvcc\s{0,4}$)?)"),
        _cuda_path,
    ),
    _Rule(
        # the toolkit's Windows install folder ("C:\Program Files\NVIDIA GPU Computing
        # Toolkit\CUDA\v11.8\bin"), `where nvcc` naming its nvcc.exe
        "nvidia gpu computing toolkit",
        _rx(
            r"(?P<path>NVIDIA GPU Computing Toolkit\\{1,2}CUDA\\{1,2}v(?P<v>\d{1,2}\.\d{1,2})"
            r"(?![\d.])(?P<nvcc>\\{1,2}bin\\{1,2}nvcc\.exe\s{0,4}$)?)"
        ),
        _cuda_path,
    ),
    _Rule(
        # NVIDIA's cuDNN archive as unpacked: "cudnn-windows-x86_64-8.9.7.29_cuda12-archive"
        ("cudnn-windows-", "cudnn-linux-"),
        _rx(
            r"\bcudnn-(?:windows|linux)-(?:x86_64|sbsa|aarch64)-(?P<v>\d{1,2}\.\d{1,2}\.\d{1,3}"
            r"(?:\.\d{1,3})?)_cuda\d{2}-archive"
        ),
        _cudnn,
    ),
)
