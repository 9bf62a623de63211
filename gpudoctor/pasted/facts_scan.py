"""Facts in any line of a paste, whatever its shape: environment lists in prose ("Driver: NVIDIA
550.54.15, CUDA 12.4", "4x A100 80GB"), start-up logs (vLLM, llama.cpp, NCCL INFO; ollama's
are apps.py's), kernel logs (NVRM module and Xid lines), `uname -a`, `lscpu`, `docker version`,
`nvidia-ctk --version`, `kubectl describe node`, a Dockerfile's FROM line, `conda list`, `lsmod`,
`dkms status`, `dpkg -l` (the driver packages, `nvidia-l4t-core`, `nvidia-jetpack`), Jetson
releases (/etc/nv_tegra_release, "JetPack 5.1.2", "JP6.0", "L4T 32.7.1", "r32.6.1" on a line
naming the Jetson), PyTorch's capability warning, CuPy's show_config (its NVRTC), `ldd` and
`LD_DEBUG=libs` traces (the files CUDA libraries were loaded from), and the words that say what
a text is about (a framework, an AMD GPU, a Jetson, an image build: `Draft.named`).

Each rule is a literal needle (found with str.find, so a 10 MB log costs a few linear scans)
and a pattern run on the lines that hold it; a fact is written only with the words that say
what it is (a bare "12.4" is nothing; "CUDA Version: 12.4" is the driver's CUDA, as nvidia-smi
prints it; "CUDA 12.4" alone does not say whose CUDA it is and stays a note). Facts of the
recognised blocks come first: `put` never overwrites them.

GPU names in prose are read last, by gpu_names.py, against the matrix's model lists.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

from gpudoctor import cri_config, nvml_codes, versions
from gpudoctor.cuda_wheels import LIBRARY_FILE
from gpudoctor.facts import DeviceNode, K8sItem, PciDevice
from gpudoctor.facts_multigpu import EnvVar
from gpudoctor.matrix.platforms import machine_of
from gpudoctor.pasted import collect_env, host_tools, packages, pairs
from gpudoctor.pasted.draft import Draft, put
from gpudoctor.pasted.gpu_names import read_names
from gpudoctor.pasted.scan import FACTS_HEAD, KeywordLines, ascii_lower, bounded_line
from gpudoctor.pasted.smi_query import license_status
from gpudoctor.probes.nvml_decode import library_version_from_path
from gpudoctor.probes.xid import parse_record

if TYPE_CHECKING:
    from gpudoctor.matrix.model import Architecture

NAME = "facts in text"
DESCRIPTION = (
    "versions and GPUs named in any text: environment lists, start-up and kernel logs "
    "(driver, CUDA, cuDNN, NCCL, frameworks, OS, kernel, Docker, Kubernetes, MIG, vGPU)"
)

_VER3 = r"\d{3}\.\d{1,3}(?:\.\d{1,3})?"  # a driver version: 550.54.15, 535.86
# what a number before it counts ("driver 450 times", "300 MB"): then it is no version
_UNITS = (
    r"(?:times|ms|s|sec|seconds?|minutes?|hours?|days?|mhz|ghz|[kmg]i?b|w|watts?|rpm|fps|x|"
    r"errors?|lines?|steps?|it)\b"
)
_MAX_PER_RULE = 200  # lines tried per rule: the first ones of a log hold the set-up facts

Handler = Callable[[re.Match[str], Draft], bool]


@dataclass(frozen=True)
class _Rule:
    needle: str | tuple[str, ...]  # lower case: every line the pattern can match holds one
    pattern: re.Pattern[str]
    handle: Handler


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def _driver(m: re.Match[str], d: Draft) -> bool:
    if m.groupdict().get("branch"):
        return _driver_branch(m.group("branch"), "the NVIDIA driver of branch {} is named", d)
    put(d.nvml, "driver_version", m.group("v"))
    return True


def _driver_branch(branch: str, said: str, d: Draft) -> bool:
    """A driver branch without its full version ("driver 535", the "nvidia-driver-535"
    package): a note, never the version (the checks compare full versions)."""
    d.note(said.format(branch))
    return True


def _driver_runfile(m: re.Match[str], d: Draft) -> bool:
    """The driver's .run installer named: the release someone installs or installed, a note
    (the installer may have failed; only the driver itself says what runs)."""
    d.note(f"the NVIDIA driver's installer {m.group('v')} (.run) is named")
    return True


def _nouveau_said(m: re.Match[str], d: Draft) -> bool:
    d.module_loaded("nouveau")
    return True


def _nvml_library(m: re.Match[str], d: Draft) -> bool:
    """nvidia-smi's "NVML library version: 535.129" under a driver/library mismatch: the
    user-space library, which differs from the loaded kernel module."""
    put(d.nvml, "library_version", m.group("v"))
    return True


def _nvml_library_file(m: re.Match[str], d: Draft) -> bool:
    """The file the soname link points at, as `ls -l` or `ldconfig -v` show it
    ("libnvidia-ml.so.1 -> libnvidia-ml.so.535.129.03"): the library the loader uses, named by
    its full version, as the live probe reads it (nvml_decode). A file listed alone may be an
    older driver's leftover (_driver_library_file only says it)."""
    version = library_version_from_path(m.group("path"))
    if version is None:
        return False
    put(d.nvml, "library_version", version)
    return True


def _nvml_error(m: re.Match[str], d: Draft) -> bool:
    """An NVML return code a program printed, by name or number (nvml_codes): NVML's status on
    that host, as the probe classifies it. Not source code that declares or catches the code
    (an enum listing "NVML_ERROR_DRIVER_NOT_LOADED = 9", `except NVMLError_DriverNotLoaded`)."""
    line, name = m.string, m.group("name")
    if "except" in line or "class " in line or _ASSIGNED.match(line, m.end()):
        return False
    if name.isdecimal():
        status = nvml_codes.status_of_code(int(name))
    else:
        status = nvml_codes.status_of_name(name)
    if status is None:
        return False
    put(d.nvml, "status", status)
    return True


_ASSIGNED = re.compile(r"\s{0,8}[=,]")


def _open_modules(m: re.Match[str], d: Draft) -> bool:
    """The version the open kernel modules' bug form names: the driver installed, open flavor
    (the form does not say the module is loaded)."""
    put(d.nvml, "driver_version", m.group("v"))
    put(d.kernel, "nvidia_module_flavor", "open")
    return True


def _python(m: re.Match[str], d: Draft) -> bool:
    put(d.platform, "python_version", m.group("v"))
    return True


def _module(m: re.Match[str], d: Draft) -> bool:
    put(d.kernel, "nvidia_module_version", m.group("v"))
    put(d.kernel, "nvidia_module_flavor", "open" if m.group("open") else "proprietary")
    d.module_loaded("nvidia")
    return True


def _modeset_module(m: re.Match[str], d: Draft) -> bool:
    """nvidia-modeset's load line: it is built and loaded with the nvidia module of the same
    version (it depends on it). Only the open build says "Open" there; a proprietary-looking
    line also comes from older open builds, so the flavor is kept only when it says so."""
    put(d.kernel, "nvidia_module_version", m.group("v"))
    if m.group("open"):
        put(d.kernel, "nvidia_module_flavor", "open")
    d.module_loaded("nvidia")
    d.module_loaded("nvidia_modeset")
    return True


def _inxi_module(m: re.Match[str], d: Draft) -> bool:
    put(d.kernel, "nvidia_module_version", m.group("v"))
    d.module_loaded("nvidia")
    return True


def _dependent_module(m: re.Match[str], d: Draft) -> bool:
    """nvidia-uvm and nvidia-drm load only on top of the nvidia module: both are loaded."""
    d.module_loaded("nvidia")
    d.module_loaded("nvidia_drm" if m.group("drm") else "nvidia_uvm")
    return True


def _module_firmware(m: re.Match[str], d: Draft) -> bool:
    d.note(f"the nvidia module installed for the kernel image is driver {m.group('v')}'s")
    return True


def _module_gpu_attached(m: re.Match[str], d: Draft) -> bool:
    """The RM's "NVRM: GPU at PCI:0000:01:00: GPU-<uuid>": the nvidia module printed it as it
    took the GPU, so the module is loaded (the line states no version)."""
    d.module_loaded("nvidia")
    return True


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


def _wheel_file(m: re.Match[str], d: Draft) -> bool:
    """A framework's wheel file name as pip prints it: its version (with the local tag, "+cu124"
    written "%2B" in a URL) and the machine pip runs on."""
    line = m.string.lower()
    if "not a supported wheel" in line:
        return False  # pip refusing it: the wheel is for another machine than this one
    if _PIP_INSTALL.search(line):
        return False  # a file the user handed pip, which may refuse it: not yet installed
    version = m.group("v") + (f"+{m.group('local')}" if m.group("local") else "")
    if not _put_package(m.group("name").lower(), version, d):
        return False
    put(d.platform, "machine", m.group("machine").lower())
    return True


# `pip install ./torch-2.1.0-cp310-cp310-linux_x86_64.whl`: the command names a file, the machine
# it was built for is not the one pip runs on until pip accepts it
_PIP_INSTALL = re.compile(r"\bpip(?:3(?:\.\d{1,2})?)? install\b")


def _docker_host_platform(m: re.Match[str], d: Draft) -> bool:
    """ "The requested image's platform (linux/amd64) does not match the detected host platform
    (linux/arm64/v8)": the machine Docker runs on."""
    machine = machine_of(m.group("host"))
    if machine is None:
        return False
    put(d.platform, "machine", machine)
    return True


def _package(name: str) -> Handler:
    name = name.replace("_", "-")  # "flash_attn" as imported is the flash-attn distribution

    def handle(m: re.Match[str], d: Draft) -> bool:
        if packages.unresolved(m.string, m.start()):
            return False
        return _put_package(name, m.group("v"), d)

    return handle


# pip's closing line names each distribution it installed as name-version ("Successfully
# installed filelock-3.13.1 torch-2.3.1 typing-extensions-4.9.0"): the frameworks among them
_INSTALLED = re.compile(
    r"(?<!\S)(?P<name>torch|tensorflow(?:-cpu|-gpu)?|jax|jaxlib)-"
    r"(?P<v>\d{1,2}\.\d{1,2}(?:\.\d{1,3})?(?:\+[a-z0-9.]{1,30})?)(?!\S)"
)


def _pip_installed(m: re.Match[str], d: Draft) -> bool:
    told = False
    for found in _INSTALLED.finditer(m.string, m.end()):
        name = found.group("name")
        name = "tensorflow" if name.startswith("tensorflow") else name
        told = _put_package(name, found.group("v"), d) or told
    return told


def _spaced_package(name: str) -> Handler:
    """A version whose local tag was written apart from it ("2.1 + cu118") is "2.1+cu118"."""

    def handle(m: re.Match[str], d: Draft) -> bool:
        if packages.unresolved(m.string, m.start()):
            return False
        return _put_package(name, "".join(m.group("v").split()), d)

    return handle


def _cuda_available_said(m: re.Match[str], d: Draft) -> bool:
    if d.torch_cuda_available is not None:
        return False
    d.torch_cuda_available = m.group("v") == "True"
    return True


def _torch_cuda_said(m: re.Match[str], d: Draft) -> bool:
    """torch.version.cuda as the paste tells it: its CUDA, or None (collect_env's "CUDA used
    to build PyTorch: None" in other words: no CUDA in the build)."""
    if m.group("v") == "None":
        if "cuda" in d.torch:
            return False
        d.torch.setdefault("cuda_none", True)
        return True
    put(d.torch, "cuda", m.group("v"))
    return True


def _select_device_banner(m: re.Match[str], d: Draft) -> bool:
    put(d.platform, "python_version", m.group("py"))
    _put_package("torch", m.group("v"), d)
    return True


def _put_package(name: str, version: str, d: Draft) -> bool:
    if name == "torch" and d.torch.get("version"):
        return False  # collect_env already named the installed torch
    try:
        versions.pep440(version)
    except ValueError:
        return False
    d.packages.setdefault(name, version)
    return True


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


def _l4t(m: re.Match[str], d: Draft) -> bool:
    put(d.platform, "l4t_release", f"{m.group('r')}.{m.group('a')}.{m.group('b') or '0'}")
    put(d.platform, "machine", "aarch64")
    return True


# The words that say a line is about a Jetson (its module names, its OS, its SDK).
_JETSON_LINE = _rx(r"\b(?:jetson|jetpack|l4t|tegra|orin|xavier|nano|tx[12]|agx)\b")


def _bare_l4t(m: re.Match[str], d: Draft) -> bool:
    """An L4T release without "L4T" before it ("r32.6 on my Jetson Nano"): read only where the
    line names the Jetson, so a release number of anything else is not taken for it."""
    if _JETSON_LINE.search(m.string) is None:
        return False
    if _JETSON_APT_REPO.search(m.string):
        # the apt branch ("jetson/common r35.4 main", apt show's "APT-Sources: ...
        # r35.4/main") names the L4T major.minor every release of the branch shares (35.4
        # is L4T 35.4.1): not a release of its own, which would hide the host's from the
        # JetPack table
        put(d.platform, "machine", "aarch64")
        d.note(f"the Jetson apt repository of L4T R{m.group('r')}.{m.group('a')}")
        _jetson_named(m, d)
        return True
    return _l4t(m, d)


# NVIDIA's apt repository of a Jetson: its branches are named by L4T major.minor
_JETSON_APT_REPO = _rx(r"\brepo\.download\.nvidia\.com/jetson/")


def _short_jetpack(m: re.Match[str], d: Draft) -> bool:
    """ "JP 5.1.2": two letters that mean JetPack only on a line that names the Jetson."""
    if _JETSON_LINE.search(m.string) is None:
        return False
    return _jetpack(m, d)


def _jetpack(m: re.Match[str], d: Draft) -> bool:
    """A JetPack release ("JetPack 5.1.2", "nvidia-jetpack 6.0+b106"): the matrix's
    `[[jetpack]]` table gives its L4T and CUDA (checks/jetson.with_jetpack)."""
    put(d.platform, "jetpack_release", m.group("v"))  # not the machine: a host flashing one
    d.named.append(("jetson", d.scan_line))  # (SDK Manager) names its JetPack too
    return True


def _toolkit(m: re.Match[str], d: Draft) -> bool:
    put(d.runtime, "toolkit_version", m.group("v"))
    return True


def _docker(m: re.Match[str], d: Draft) -> bool:
    put(d.runtime, "docker_version", m.group("v"))
    return True


_ENGINES = {"containerd": "containerd", "runc": "runc", "podman": "Podman", "crio": "CRI-O"}


def _engine(m: re.Match[str], d: Draft) -> bool:
    """A container engine's version (no fact holds it: the note does). CRI-O runs only as a
    Kubernetes node's CRI runtime."""
    name = m.group("name").lower().replace("-", "")
    d.note(f"{_ENGINES[name]} {m.group('v')} is named")
    if name == "crio":
        put(d.platform, "kubernetes", True)
    return True


def _crictl_runtime(m: re.Match[str], d: Draft) -> bool:
    """`crictl version`'s "RuntimeName: containerd": crictl asks a Kubernetes node's CRI."""
    d.note(f"crictl reaches the CRI runtime {m.group('name').lower()} (a Kubernetes node's)")
    put(d.platform, "kubernetes", True)
    return True


def _kubectl_version(m: re.Match[str], d: Draft) -> bool:
    if m.group("name"):
        return _k8s_distribution(m, d)
    return _kubernetes(m, d)


def _uname(m: re.Match[str], d: Draft) -> bool:
    put(d.kernel, "release", m.group("release"))
    if m.groupdict().get("machine"):
        put(d.platform, "machine", m.group("machine"))
    return True


def _lscpu(m: re.Match[str], d: Draft) -> bool:
    """lscpu's `Architecture: aarch64`: the machine, as `uname -m` names it."""
    put(d.platform, "machine", machine_of(m.group("machine")))
    return True


def _server_arm(m: re.Match[str], d: Draft) -> bool:
    """NVIDIA's name for server Arm (SBSA: its CUDA repositories' and archives' "sbsa"), and
    the Grace CPU (Grace Hopper, Grace Blackwell): an aarch64 host, where nothing else said
    which (a machine stated is kept: put never overwrites)."""
    put(d.platform, "machine", "aarch64")
    d.note("the text names server Arm (SBSA, Grace): an aarch64 host")
    return True


def _kernel(m: re.Match[str], d: Draft) -> bool:
    put(d.kernel, "release", m.group("release"))
    return True


# Lines that name a kernel other than the running one: a package of another kernel's headers or
# image, the modules folder DKMS builds into (for a kernel it may not run yet).
_OTHER_KERNEL = ("dkms", "linux-headers", "linux-image", "linux-modules", "/lib/modules")
# a row of `kubectl get nodes -o wide` (a node's kernel, of a cluster whose nodes may differ:
# pasted/cluster.py reads that table)
_NODE_ROW = re.compile(r"\b(?:not)?ready\b[^\n]{0,80}\bv1\.\d{1,2}\.\d{1,3}")
# a line of `dkms status` ("nvidia/550.54.15, 6.5.0-27-generic, x86_64: installed"): a kernel
# DKMS built the module for, which need not be the one running
_DKMS_ROW = re.compile(
    r"^\s{0,8}[\w.-]{1,40}[/,]\s{0,2}[\w.~+-]{1,40},\s{0,2}\S{1,80},\s{0,2}\w{1,12}:"
)


def _flavoured_kernel(m: re.Match[str], d: Draft) -> bool:
    """A release with its distribution's flavour ("6.8.0-45-generic", "6.1.0-18-amd64",
    "5.14.0-427.13.1.el9_4.x86_64"): a kernel release whatever word stands before it."""
    line = m.string.lower()
    if any(word in line for word in _OTHER_KERNEL) or _NODE_ROW.search(line):
        return False
    if _DKMS_ROW.match(line):
        return False
    return _kernel(m, d)


def _kernel_series(m: re.Match[str], d: Draft) -> bool:
    """ "kernel 6.8", "the 6.5 kernel": a series, not a release (the checks compare releases)."""
    d.note(f"the text names Linux kernel {m.group('mm') or m.group('mm2')} (a series, no release)")
    return True


def _driver_library_file(m: re.Match[str], d: Draft) -> bool:
    """A user-space driver library named by its file ("libcuda.so.550.54.15",
    "libnvidia-ml.so.535.129.03"): a driver of that version was installed there. Said, not
    taken as the library in use: a listing shows files, and an older driver's leftovers are
    files too (the loader's own log, LD_DEBUG, says which one it loads)."""
    d.note(f"the text names the driver's library file {m.group(0)} (driver {m.group('v')})")
    return True


_OS_IDS = {
    "ubuntu": "ubuntu",
    "kubuntu": "ubuntu",
    "xubuntu": "ubuntu",
    "lubuntu": "ubuntu",
    "debian": "debian",
    "rocky": "rocky",
    "centos": "centos",
    "red hat": "rhel",
    "rhel": "rhel",
    "fedora": "fedora",
    "almalinux": "almalinux",
    "amazon linux": "amzn",
    "opensuse": "opensuse",
    "sles": "sles",
    "suse linux enterprise server": "sles",
    "arch linux": "arch",
}


def _os(m: re.Match[str], d: Draft) -> bool:
    if "os_pretty" in d.platform or "os_id" in d.platform:
        return False  # one OS per host: the first one named (collect_env's OS line) stands
    name = m.group("name").lower()
    key = next((k for k in _OS_IDS if name.startswith(k)), None)
    if key is None:
        return False
    put(d.platform, "os_id", _OS_IDS[key])
    if m.group("v"):
        put(d.platform, "os_version", m.group("v"))
    put(d.platform, "os_pretty", m.group(0).strip())
    return True


def _platform_string(m: re.Match[str], d: Draft) -> bool:
    if m.group("release"):
        put(d.kernel, "release", m.group("release"))
        put(d.platform, "machine", m.group("machine"))
    elif m.group("windows"):
        put(d.platform, "os_pretty", f"Windows {m.group('windows')}")
    else:
        return _mac(m.group("macos"), m.group("mac_machine"), d)
    return True


def _mac(version: str | None, machine: str, d: Draft) -> bool:
    """A Mac: no NVIDIA GPU there (`_apple_named`), its machine and, where known, its release."""
    d.named.append(("apple", d.scan_line))
    put(d.platform, "machine", "aarch64" if machine == "arm64" else machine)
    put(d.platform, "os_pretty", f"macOS {version}" if version else "macOS")
    return True


def _archspec(m: re.Match[str], d: Draft) -> bool:
    """conda's __archspec names the CPU's micro-architecture; only x86_64 and aarch64 name the
    machine itself (a Mac's "m1" or a CPU model like "skylake" do not)."""
    machine = m.group("machine")
    if machine not in ("x86_64", "aarch64"):
        return False
    put(d.platform, "machine", machine)
    return True


def _windows_path(m: re.Match[str], d: Draft) -> bool:
    put(d.platform, "os_pretty", "Windows")
    return True


_CONDA_PLATFORMS = {"linux-64": "x86_64", "linux-aarch64": "aarch64", "win-64": "x86_64"}


def _conda_platform(m: re.Match[str], d: Draft) -> bool:
    name = m.group("conda")
    if name.startswith("osx"):
        return _mac(None, "arm64" if name == "osx-arm64" else "x86_64", d)
    put(d.platform, "machine", _CONDA_PLATFORMS[name])
    if name == "win-64":
        put(d.platform, "os_pretty", "Windows")
    return True


def _wsl(m: re.Match[str], d: Draft) -> bool:
    put(d.platform, "wsl", True)
    return True


def _windows(m: re.Match[str], d: Draft) -> bool:
    short = m.group("short")
    put(d.platform, "os_pretty", f"Windows {short}" if short else m.group(0).strip())
    return True


def _kubernetes(m: re.Match[str], d: Draft) -> bool:
    put(d.platform, "kubernetes", True)
    return True


# A node that advertises no nvidia.com/gpu, said in prose ("the node does not show any
# nvidia.com/gpu", "nvidia.com/gpu is not listed in Allocatable", "Allocatable nvidia.com/gpu is
# 0", "the node reports nvidia.com/gpu: 0", "no GPU resources on the node"): what `kubectl
# describe node` would show, on a node its writer says has GPUs. Not a node short of free GPUs
# ("does not have enough GPU resources" is Insufficient nvidia.com/gpu, a pending pod's event).
_GPU_RESOURCE = r"(?:nvidia\.com/gpus?|gpu resources?|allocatable gpus?|gpu capacity)\b"
_NOT = r"(?:(?:does|do|did|is|are|was|were|can)\s?(?:n[o']?t|n't)|never|no longer)"
_NODE_WITHOUT_GPU = (
    rf"\bnodes?\b[^\n]{{0,40}}?\b{_NOT}\s(?:show|list|have|has|advertis|report|expose|register|"
    rf"display|get)\w{{0,4}}\s(?:any\s|the\s)?{_GPU_RESOURCE}"
    rf"|{_GPU_RESOURCE}\s{{0,2}}(?:resources?\s)?(?:(?:is|are|was|were)\s)?(?:n[o']?t|never|no "
    rf"longer)\s(?:being\s)?(?:shown|showing|listed|advertised|present|appear\w{{0,3}}|"
    rf"registered|visible|there|detected|found)\b"
    rf"|\b(?:allocatable|capacity)\b[^\n]{{0,30}}?\bnvidia\.com/gpu\b[\"'`]?\s{{0,2}}(?:[:=]|is\b|"
    rf"shows?\b)\s{{0,3}}[\"'`]?0(?![\d.])"
    rf"|\bnodes?\b[^\n]{{0,30}}?\b(?:shows?|reports?|has|have|lists?|advertises?)\s(?:only\s)?"
    rf"[\"'`]?nvidia\.com/gpu\b[\"'`]?\s{{0,2}}[:=]\s{{0,3}}[\"'`]?0(?![\d.])"
    rf"|\bno\s(?:nvidia\.com/gpu|gpu resources?|allocatable gpus?)\b[^\n]{{0,30}}?\b(?:on|in|for|"
    rf"under)\s(?:the\s|my\s|this\s|that\s|each\s)?(?:nodes?|allocatable|capacity)\b"
)


def _node_without_gpu_said(m: re.Match[str], d: Draft) -> bool:
    """The reading a describe block would give (Allocatable without nvidia.com/gpu), where no
    block gave one, and the node said to be a GPU node (checks/k8s_resources.py judges it)."""
    put(d.platform, "kubernetes", True)
    put(d.platform, "k8s_node_allocatable", (K8sItem(name="nvidia.com/gpu", value="0"),))
    d.named.append(("gpu-node-said", d.scan_line))
    return True


# A pod said to ask for no GPU ("a pod without any GPU request", "containers that don't request
# nvidia.com/gpu", "CPU-only pods", "no GPU limit"): the reading a pod's Limits without a GPU
# resource gives (cluster.py), for the pod that then sees GPUs (k8s-pod-extra-gpus). Not "a pod
# with no GPU", which says what it sees.
_POD_ASKS_NONE = (
    r"\b(?:pods?|containers?|deployments?|jobs?)\b[^\n]{0,30}?\b(?:without|with no|w/o)\s"
    r"(?:any\s|an?\s)?(?:gpu (?:requests?|limits?|resources?)|nvidia\.com/gpu|"
    r"requesting (?:a |any )?gpus?)\b"
    r"|\b(?:pods?|containers?)\b[^\n]{0,30}?\b(?:does|do|did)\s?(?:n[o']?t|n't)\s"
    r"(?:request|ask for|specify|set|need)\w{0,2}\s(?:any\s|an?\s)?(?:gpus?|nvidia\.com/gpu)\b"
    r"|\b(?:non-gpu|non gpu|cpu-only|cpu only)\s(?:pods?|containers?|workloads?)\b"
)


def _pod_asks_none_said(m: re.Match[str], d: Draft) -> bool:
    put(d.platform, "kubernetes", True)
    put(d.platform, "k8s_gpu_requested", 0)
    return True


# Pods said to share one GPU ("sharing a single GPU instance across multiple pods", "several
# pods use the same GPU"): what people do by leaving nvidia.com/gpu out of the pods' limits
# (checks/k8s_unrequested.py). Not "GPU sharing" alone, which time-slicing and MPS also are.
_PODS_SHARE_GPU = (
    r"\bshar(?:e|es|ed|ing)\s(?:a |one |the |our |my )?(?:single |same )?gpus?\b[^\n]{0,40}?"
    r"\b(?:across|between|among|amongst|by)\s(?:multiple |several |many |all |the |our |two )?"
    r"(?:[\w-]{1,20}\s)?pods\b"
    r"|\b(?:multiple|several|many|two|all|both|our|the|these|\d{1,3})\s(?:[\w-]{1,20}\s)?"
    r"pods\b[^\n]{0,30}?\b(?:(?:share|sharing)\s(?:a |one |the |our )?(?:single |same )?gpu"
    r"|(?:use|using)\s(?:one|the same|a single)\sgpu)\b"
)


def _pods_share_gpu_said(m: re.Match[str], d: Draft) -> bool:
    put(d.platform, "kubernetes", True)
    put(d.platform, "k8s_gpu_shared_said", True)
    return True


def _gpu_sharing(m: re.Match[str], d: Draft) -> bool:
    """A GPU-sharing scheduler's extended resource (HAMi's nvidia.com/gpumem, Volcano's
    volcano.sh/vgpu-*, gpu-manager's tencent.com/vcuda-*, gpushare's aliyun.com/gpu-mem): a
    Kubernetes cluster whose GPUs that scheduler's device plugin splits."""
    put(d.platform, "kubernetes", True)
    d.note(
        "a GPU-sharing scheduler's Kubernetes resources are named (HAMi, Volcano vGPU, "
        "gpu-manager or gpushare): that scheduler's device plugin splits the GPUs"
    )
    return True


def _k8s_distribution(m: re.Match[str], d: Draft) -> bool:
    """K3s, RKE2 and MicroK8s: Kubernetes with a containerd of their own (its config under
    /var/lib/rancher/<name>/agent/etc/containerd/ or the snap), not the system's."""
    put(d.platform, "kubernetes", True)
    put(d.platform, "k8s_distribution", m.group("name").lower())
    return True


def _runtime_class(m: re.Match[str], d: Draft) -> bool:
    put(d.platform, "kubernetes", True)
    put(d.runtime, "runtime_class_nvidia", m.group("name").lower().startswith("nvidia"))
    return True


def _cri_config(text: str, draft: Draft) -> None:
    """A containerd or CRI-O config (or `containerd config dump`): its runtimes and default,
    and whether containerd's CRI plugin is disabled. A `disabled_plugins` line alone (Docker's
    containerd.io config) says nothing of Kubernetes: it is kept, the node is not assumed."""
    disabled = cri_config.cri_disabled(text)
    if disabled is not None:
        put(draft.runtime, "cri_plugin_disabled", disabled)
        at = text.find("disabled_plugins")
        number = text.count("\n", 0, at) + 1
        draft.section(NAME)
        draft.ranges.append((NAME, number, number))
    if "runtime" not in text:
        return
    found = cri_config.read(text)
    if found is None:
        return
    put(draft.runtime, "cri_engine", found.engine)
    put(draft.runtime, "cri_runtimes", found.runtimes)
    put(draft.runtime, "cri_default_runtime", found.default_runtime)
    if found.ignored_runtimes:
        put(draft.runtime, "cri_ignored_runtimes", found.ignored_runtimes)
    put(draft.platform, "kubernetes", True)  # a CRI engine's config: a Kubernetes node
    first = min(i for i in (text.find(".runtimes."), text.find("default_runtime")) if i >= 0)
    number = text.count("\n", 0, first) + 1
    draft.section(NAME)
    draft.ranges.append((NAME, number, number))


def _container(m: re.Match[str], d: Draft) -> bool:
    put(d.platform, "container", m.group("kind").lower())
    return True


def _lsmod(m: re.Match[str], d: Draft) -> bool:
    """An `lsmod` line ("nvidia_uvm   1527808  0"): that module is loaded."""
    return d.module_loaded(m.group("mod").lower())


def _dkms(m: re.Match[str], d: Draft) -> bool:
    """`dkms status` ("nvidia/535.129.03, 6.5.0-14-generic, x86_64: installed"): the driver's
    kernel module built for that kernel; "installed" is not "loaded", so the version and the
    kernels it is installed for."""
    put(d.nvml, "driver_version", m.group("v"))
    kernels = d.kernel.setdefault("nvidia_dkms_kernels", [])
    if m.group("k") not in kernels:
        kernels.append(m.group("k"))
    return True


def _dkms_not_installed(m: re.Match[str], d: Draft) -> bool:
    kernel = f" for kernel {m.group('k')}" if m.group("k") else ""
    d.note(
        f"DKMS lists the NVIDIA module {m.group('v')} as {m.group('state')}{kernel}, not installed"
    )
    return True


def _driver_installer_log(m: re.Match[str], d: Draft) -> bool:
    d.note(f"nvidia-installer's log of installing driver {m.group('v')}")
    return True


def _nouveau(m: re.Match[str], d: Draft) -> bool:
    """dmesg's "nouveau 0000:01:00.0: NVIDIA GM204" (or any other line nouveau logs for a
    device, "nouveau 0000:01:00.0: DRM: ..."): nouveau is loaded and drives that GPU."""
    d.module_loaded("nouveau")
    devices = d.kernel.setdefault("pci_devices", [])
    if all(dev.address != m.group("bus") for dev in devices):
        devices.append(
            PciDevice(address=m.group("bus"), vendor_id="0x10de", kind="gpu", driver="nouveau")
        )
    return True


def _cmdline_any(m: re.Match[str], d: Draft) -> bool:
    host_tools.read_cmdline((m.group("cmdline") or m.group("c2") or "").strip(), d)
    return True


def _nccl_env(m: re.Match[str], d: Draft) -> bool:
    pair = EnvVar(m.group("name").upper(), m.group("value"))
    if pair not in d.nccl_env:
        d.nccl_env.append(pair)
    return True


def _process_table(m: re.Match[str], d: Draft) -> bool:
    d.note(
        "an nvidia-smi process table: inside a container it lists no process, because the "
        "driver does not see the container's process IDs (run with --pid=host to see them)",
    )
    return True


def _mig(m: re.Match[str], d: Draft) -> bool:
    if d.in_block(d.scan_line):  # nvidia-smi -q's "MIG Mode" field: its parser read the mode
        return False
    d.note("the text mentions MIG: at least one GPU is partitioned (or meant to be)")
    d.named.append(("mig", d.scan_line))
    return True


# Prose that the MIG instances went at a reboot, in any of the orders people write it ("after a
# reboot the MIG devices are gone", "MIG instances disappear after every reboot", "the MIG
# partitions, after a restart they were lost", "MIG devices do not persist across reboots",
# "after a reboot there are no MIG devices", "I have to recreate the MIG instances after every
# reboot", "after the reboot my MIGs are destroyed"), a reboot also said as a restart, a power
# cycle or a boot.
_REBOOT = r"\b(?:re-?boot|restart|power[- ]?cycl|boot)\w{0,3}\b"
_MIG_THINGS = (
    r"(?:\bMIG\b[^\n]{0,40}?\b(?:instances?|devices?|partitions?|slices?|configs?|"
    r"configuration|layout|GIs?)\b|\bMIGs\b)"
)
_GONE = (
    r"\b(?:(?:are|were|is|was|got|get|have been|had been) (?:all )?(?:gone|lost|removed|"
    r"deleted|wiped|cleared|reset)|disappear\w{0,3}|vanish\w{0,3}|destr(?:oy|oi)\w{0,3}|lost|"
    r"missing|not there|"
    r"no longer (?:there|exists?|present|available|listed|visible))\b"
)
_REDO = r"\b(?:have|has|had|need|needs) to (?:re-?create|re-?apply|re-?configure|redo|set up)\b"
_AT = r"\b(?:after|on|at|upon|across|every|each|with|following)\b[^\n]{0,12}?"
_MIG_LOST_AT_REBOOT = (
    rf"{_REBOOT}[^\n]{{0,80}}?{_MIG_THINGS}[^\n]{{0,30}}?{_GONE}"
    rf"|{_MIG_THINGS}[^\n]{{0,30}}?{_GONE}[^\n]{{0,40}}?{_AT}{_REBOOT}"
    rf"|{_MIG_THINGS}[^\n]{{0,60}}?{_AT}{_REBOOT}[^\n]{{0,40}}?{_GONE}"
    rf"|{_MIG_THINGS}[^\n]{{0,30}}?\b(?:do(?:es)?n[o']?t|not|never|won't|will not) "
    rf"(?:persist|survive|stay|remain)\w{{0,2}}\b[^\n]{{0,30}}?{_AT}{_REBOOT}"
    rf"|{_AT}{_REBOOT}[^\n]{{0,60}}?\b(?:no|zero) MIG (?:devices?|instances?)\b"
    rf"|{_REDO}[^\n]{{0,30}}?{_MIG_THINGS}[^\n]{{0,30}}?{_AT}{_REBOOT}"
    rf"|{_AT}{_REBOOT}[^\n]{{0,40}}?{_REDO}[^\n]{{0,30}}?{_MIG_THINGS}"
)


def _mig_lost_at_reboot(m: re.Match[str], d: Draft) -> bool:
    """Prose that the MIG instances went at a reboot: what the product does (MIG mode persists,
    the GPU and compute instances do not: MIG user guide), for the mig-mode check."""
    d.note("the text says the MIG instances are gone after a reboot")
    d.named.append(("mig-lost-at-reboot", d.scan_line))
    d.named.append(("mig", d.scan_line))
    return True


_SINGULARITY_VERSION = (
    r"\b(?P<name>singularity-ce|singularity|apptainer) version "
    r"(?P<v>\d{1,2}\.\d{1,2}\.\d{1,3})"
)


def _singularity(m: re.Match[str], d: Draft) -> bool:
    put(d.runtime, "singularity_version", f"{m.group('name').lower()} {m.group('v')}")
    return True


def _nvccli(m: re.Match[str], d: Draft) -> bool:
    put(d.runtime, "singularity_nvccli", True)
    return True


def _vgpu(m: re.Match[str], d: Draft) -> bool:
    if d.in_block(d.scan_line):  # "vGPU Software Licensed Product", "Host VGPU Mode": fields
        return False
    d.note("the text mentions vGPU: the GPU may be a virtual GPU in a VM")
    return True


def _license(m: re.Match[str], d: Draft) -> bool:
    """`nvidia-smi -q`'s "License Status : Unlicensed (Restricted)" quoted without its GPU
    block (`nvidia-smi -q | grep -i license`): a vGPU guest's GPU and its licence state."""
    state = license_status(m.group("state"))
    if state is None:
        return False
    gpu = d.gpu(0) if len(d.gpus) <= 1 else d.gpu(min(d.gpus))
    put(gpu, "_license_status", state)
    put(gpu, "virtualization_mode", "vgpu")
    return True


def _env_gpu(m: re.Match[str], d: Draft) -> bool:
    """Hugging Face's `transformers env` / `accelerate env` line "PyTorch version (GPU?):
    2.1.2+cu121 (False)": the framework's version and whether it found a GPU."""
    name = "torch" if m.group("fw").lower() == "pytorch" else "tensorflow"
    version = m.group("v")
    try:
        versions.pep440(version)
    except ValueError:
        return False
    d.packages.setdefault(name, version)
    seen = m.group("gpu").lower() == "true"
    if name == "torch":
        if d.torch_cuda_available is None:
            d.torch_cuda_available = seen
    else:
        d.tensorflow.setdefault("cuda_available", seen)
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


def _cuda_path(m: re.Match[str], d: Draft) -> bool:
    """A CUDA toolkit's install path; `which nvcc` naming one says which nvcc runs."""
    if m.group("nvcc") and d.nvcc_version is None:
        d.nvcc_version = m.group("v")
    d.note(f"the text names the CUDA {m.group('v')} toolkit ({m.group('path').strip()})")
    return True


def _says(text: str) -> Handler:
    """A rule whose line tells only what the text is about: the note says it."""

    def handle(m: re.Match[str], d: Draft) -> bool:
        d.note(text)
        return True

    return handle


def _driver_packages(m: re.Match[str], d: Draft) -> bool:
    return _driver_branch(m.group("branch"), "NVIDIA driver packages of branch {} are named", d)


def _daemon_json(m: re.Match[str], d: Draft) -> bool:
    """/etc/docker/daemon.json registering the NVIDIA runtime (its "path" line)."""
    put(d.runtime, "daemon_json_runtimes", ("nvidia",))
    return True


def _ldconfig_libcuda(m: re.Match[str], d: Draft) -> bool:
    d.note(f"the loader cache holds libcuda ({m.group('path')})")
    return True


def _jetson_image(m: re.Match[str], d: Draft) -> bool:
    """A Jetson container image and its L4T tag ("dustynv/l4t-ml:r35.4.1", "nvcr.io/nvidia/
    l4t-base:r32.7.1"); a space after the colon, as prose writes it, is dropped."""
    image = f"{m.group('repo')}:{m.group('tag')}"
    if image not in d.images:
        d.images.append(image)
        d.note(f"Jetson container image {image}")
    d.named.append(("jetson", d.scan_line))
    if _RUNS_IMAGE.search(m.string):
        # L4T images are built for arm64 (Jetson) only: the host that runs one is aarch64
        put(d.platform, "machine", "aarch64")
    return True


# the image is started on this host (not a Dockerfile's FROM, which may be built elsewhere)
_RUNS_IMAGE = re.compile(r"\b(?:docker|podman|nerdctl|jetson-containers) run\b", re.IGNORECASE)


def _ngc_image(m: re.Match[str], d: Draft) -> bool:
    """An NGC image named outside a Dockerfile's FROM line (`docker run`, a pod's `image:`,
    `docker inspect`): the container the report is about. Its tag is the container release
    (YY.MM), not a framework version; Jetson's L4T images are `_jetson_image`'s."""
    repo, tag = m.group("repo"), m.group("tag")
    if repo.startswith("l4t") or m.string.lstrip().upper().startswith("FROM"):
        return False
    image = f"nvcr.io/nvidia/{repo}:{tag}"
    if image not in d.images:
        d.images.append(image)
        d.note(f"NGC image {image}")
    return True


def _gridd(m: re.Match[str], d: Draft) -> bool:
    d.note("the text names nvidia-gridd, the vGPU guest's licence client: the GPU is a vGPU")
    return True


def _docker_runtimes(m: re.Match[str], d: Draft) -> bool:
    """`docker info`'s " Runtimes: io.containerd.runc.v2 nvidia runc"."""
    put(d.runtime, "runtimes", tuple(m.group("names").split()))
    put(d.runtime, "docker_reachable", True)
    return True


def _docker_default(m: re.Match[str], d: Draft) -> bool:
    put(d.runtime, "default_runtime", m.group("name"))
    put(d.runtime, "docker_reachable", True)
    return True


def _toolkit_log(m: re.Match[str], d: Draft) -> bool:
    """A line of the NVIDIA Container Toolkit's own log (time=... level=warning msg=...)."""
    tools = d.runtime.get("toolkit_tools", ())
    if m.group("tool").lower() not in tools:
        d.runtime["toolkit_tools"] = (*tools, m.group("tool").lower())
    d.note(f"the text holds {m.group('tool')}'s own log (NVIDIA Container Toolkit)")
    return True


def _from_line(m: re.Match[str], d: Draft) -> bool:
    image = m.group("image")
    cuda = m.groupdict().get("cuda")
    d.note(f"Dockerfile base image {image}" + (f" (CUDA {cuda})" if cuda else ""))
    if cuda:
        put(d.image, "cuda", cuda)
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


def _xid(m: re.Match[str], d: Draft) -> bool:
    event = parse_record(m.string)
    if event is None:
        return False
    d.xid_events.append(event)
    return True


# CTranslate2 and the programs built on it (faster-whisper, whisperX) bring no cuDNN or cuBLAS
# of their own: named, a cuDNN load failure means a library path to set, not a framework to
# reinstall (checks/pasted_report.py).
_NAMED = {
    "jaxlib": "jax",
    "pytorch": "torch",
    "faster-whisper": "ctranslate2",
    "faster_whisper": "ctranslate2",
    "whisperx": "ctranslate2",
    # the programs people run on GPUs, by the names their users write (one word each)
    "llama-cpp": "llama.cpp",
    "llama_cpp": "llama-cpp-python",
    "llama_cpp_python": "llama-cpp-python",
    "text_generation_inference": "text-generation-inference",
    "text_generation_launcher": "text-generation-inference",
    "automatic1111": "stable-diffusion-webui",
    "a1111": "stable-diffusion-webui",
    "sd-webui-forge": "stable-diffusion-webui-forge",
    "flash_attn": "flash-attn",
    "flash-attention": "flash-attn",
    "tensorrt_llm": "tensorrt-llm",
}


# the programs' names as people write them (the rule's needles, lower case)
_PROGRAM_NEEDLES = (
    "ollama",
    "vllm",
    "sglang",
    "llama.cpp",
    "llama-cpp",
    "llama_cpp",
    "comfyui",
    "text-generation-inference",
    "text_generation",
    "automatic1111",
    "a1111",
    "stable-diffusion-webui",
    "sd-webui-forge",
    "invokeai",
    "fooocus",
    "koboldcpp",
    "bitsandbytes",
    "xformers",
    "flash-attn",
    "flash_attn",
    "flash-attention",
    "deepspeed",
    "tensorrt-llm",
    "tensorrt_llm",
)


def _named(m: re.Match[str], d: Draft) -> bool:
    """A framework named in prose ("pip install jax", "import torch"): not a version, only
    that the text is about it (kept apart from facts: it is not a line read)."""
    word = m.group("name").lower()
    d.named.append((_NAMED.get(word, word), d.scan_line))
    return False


def _apple_named(m: re.Match[str], d: Draft) -> bool:
    """A Mac named in prose ("MacBook M2", "macOS 14", "Apple silicon"): no NVIDIA GPU there."""
    d.named.append(("apple", d.scan_line))
    return False


def _amd_named(m: re.Match[str], d: Draft) -> bool:
    """An AMD GPU named in prose ("my system is all AMD", "Radeon RX 7900")."""
    d.named.append(("amd", d.scan_line))
    return False


# Libraries whose version is their CUDA toolkit's major.minor: a copy in a "cuda-12.1" folder (or
# the HPC SDK's ".../cuda/12.4/lib64") is 12.1 even where ldd shows only the soname
# ("libnvJitLink.so.12").
_TOOLKIT_VERSIONED = frozenset({"libnvJitLink", "libcudart", "libnvrtc", "libcupti", "libcublas"})
_TOOLKIT_FOLDER = re.compile(r"/cuda[-/](\d{1,2}\.\d{1,2})/")


def _ldd(m: re.Match[str], d: Draft) -> bool:
    """`ldd` output: a CUDA library a wheel also ships, resolved outside the wheels (a system or
    toolkit copy the loader found first)."""
    return _resolved(m.group("path"), m.group("soname"), d)


def _loader_cache(m: re.Match[str], d: Draft) -> bool:
    """`ldconfig -p`: "libcudnn.so.8 (libc6,x86-64) => /lib/x86_64-linux-gnu/libcudnn.so.8" is a
    library the loader's cache holds: a cuDNN file (its major), and a copy of a wheel's library
    the loader may find."""
    path, soname = m.group("path"), m.group("soname")
    cudnn = soname.lower().startswith("libcudnn")
    if cudnn and path not in d.cudnn_files:
        d.cudnn_files.append(path)
    return _resolved(path, soname, d, d.cache_libs) or cudnn


def _library_file(m: re.Match[str], d: Draft) -> bool:
    """A listing of CUDA library files (`ls`, `ls -l`, `find`): a cuDNN file outside a Python
    environment is the host's cuDNN (with its version); a fully versioned file, or one inside a
    Python environment (a wheel's or conda's own copy), is named."""
    folder, name, version = m.group("path") or "", m.group("name"), m.group("v")
    if folder + f"{name}.so.{version}" in d.cudnn_files:
        return False  # collect_env's cuDNN list already read it
    told = False
    inside = "-packages/" in folder or "/pkgs/" in folder  # a wheel's or conda's own copy
    if name.lower().startswith("libcudnn") and not inside:
        path = folder + f"{name}.so.{version}"
        if path not in d.cudnn_files:
            d.cudnn_files.append(path)
        told = True
    if version.count(".") >= 2 or inside:
        d.note(f"{name}.so.{version} is listed" + (f" in {folder.rstrip('/')}" if folder else ""))
        told = True
    return told


def _ld_debug_init(m: re.Match[str], d: Draft) -> bool:
    """`LD_DEBUG=libs`: "calling init: PATH" names the file the loader loaded (dlopen'ed ones
    too, which ldd never shows)."""
    path = m.group("path")
    return _resolved(path, path.rsplit("/", 1)[-1], d)


def _resolved(
    path: str, soname: str, d: Draft, into: list[tuple[str, str, str | None]] | None = None
) -> bool:
    """File a CUDA library outside the wheels under `into` (d.ldd_libs: what the loader
    loaded)."""
    into = d.ldd_libs if into is None else into
    name = path.rsplit("/", 1)[-1]
    found = LIBRARY_FILE.match(name) or LIBRARY_FILE.match(soname)
    if found is None or "-packages/" in path:  # a wheel's own copy (site-/dist-packages)
        return False
    lib, version = found.group(1), found.group(2)
    folder = _TOOLKIT_FOLDER.search(path)
    if lib in _TOOLKIT_VERSIONED and folder and (version is None or "." not in version):
        version = folder.group(1)
    if (lib, path, version) not in into:
        into.append((lib, path, version))
    return True


def _ld_debug_tried(m: re.Match[str], d: Draft) -> bool:
    """`LD_DEBUG=libs`: "trying file=PATH": a candidate only; the loader took it when the next
    "file=SONAME [N];  generating link map" names its file name."""
    path = m.group("path")
    d.ld_debug_tried[path.rsplit("/", 1)[-1]] = path
    return False


def _ld_debug_mapped(m: re.Match[str], d: Draft) -> bool:
    """`LD_DEBUG=libs`: "file=SONAME [N];  generating link map": the file last tried for that
    name is the one loaded (a trace cut before its "calling init" lines still says which)."""
    soname = m.group("soname")
    path = d.ld_debug_tried.get(soname.rsplit("/", 1)[-1])
    if path is None:
        return False
    return _resolved(path, soname, d)


def _wheel_library_path(m: re.Match[str], d: Draft) -> bool:
    """A path into NVIDIA's pip wheels, as a traceback or loader error prints it
    (".../site-packages/nvidia/cudnn/lib/libcudnn_cnn_infer.so.8"): that library came from a
    wheel, of that major; which wheel (-cu11, -cu12) the path does not say."""
    d.note(
        f"the text names the pip wheel's {m.group('lib')} library {m.group('file')} "
        "(site-packages/nvidia/)"
    )
    return True


def _ld_debug_path(m: re.Match[str], d: Draft) -> bool:
    """`LD_DEBUG=libs`: "search path=A:B  (LD_LIBRARY_PATH)": the loader names the folders it
    took from LD_LIBRARY_PATH (others are RUNPATH's or the system's)."""
    _ld_library_path(m, d)
    return True


def _ld_library_path(m: re.Match[str], d: Draft) -> bool:
    """An LD_LIBRARY_PATH value: `export LD_LIBRARY_PATH=...`, TensorFlow's dlopen error lines
    (`...; LD_LIBRARY_PATH: /usr/local/nvidia/lib64:...`)."""
    for part in m.group("v").split(":"):
        folder = part.strip().rstrip("/")
        if folder.startswith("/") and folder not in d.ld_library_path:
            d.ld_library_path.append(folder)
    return False


def _cpu_host_named(m: re.Match[str], d: Draft) -> bool:
    """A reporter saying the machine or image has no NVIDIA GPU ("the CPU docker image", "I
    don't have any NVIDIA hardware"): what it prints about a missing driver is expected."""
    d.named.append(("cpu-only", d.scan_line))
    return False


def _gpu_host_named(m: re.Match[str], d: Draft) -> bool:
    """A reporter saying the machine has a GPU meant for the program ("I have an NVIDIA GPU",
    "it runs on the CPU instead of the GPU"): a framework's note that its CUDA libraries are
    expected to be missing where no GPU is set up does not apply to that host. Not on a line
    that says the machine has none ("I don't have a GPU, so CUDA is not available")."""
    if ("cpu-only", d.scan_line) in d.named:
        return False
    d.named.append(("gpu-host", d.scan_line))
    return False


def _nvidia_driver_named(m: re.Match[str], d: Draft) -> bool:
    """The NVIDIA driver named in prose, with no version: what the paste is about (words.py
    says so and asks for nvidia-smi); never a fact about the driver."""
    if ("nvidia-driver", d.scan_line) not in d.named:
        d.named.append(("nvidia-driver", d.scan_line))
    return False


def _nvidia_gpu_named(m: re.Match[str], d: Draft) -> bool:
    """An NVIDIA GPU named in prose, with no model: not on a line that already said the machine
    has a GPU (`_gpu_host_named`) or has none (`_cpu_host_named`)."""
    said = {word for word, line in d.named if line == d.scan_line}
    if said & {"gpu-host", "cpu-only", "nvidia-gpu"}:
        return False
    d.named.append(("nvidia-gpu", d.scan_line))
    return False


def _build_named(m: re.Match[str], d: Draft) -> bool:
    """An image build (`docker build`, its "Step 3/9 : RUN" or BuildKit "#8 [2/5] RUN" lines):
    its steps run without GPUs."""
    d.named.append(("docker-build", d.scan_line))
    return False


def _container_run_named(m: re.Match[str], d: Draft) -> bool:
    """A container started or entered (`docker run`, `docker exec`, `podman run`): the
    program's lines may come from inside it, where the driver is the host's, mounted or not."""
    d.named.append(("container-run", d.scan_line))
    return False


def _cuda_home_named(m: re.Match[str], d: Draft) -> bool:
    """CUDA_HOME / CUDA_PATH named, or a CUDA install said to be missing: the paste is about a
    CUDA toolkit (its version, where a folder names one, is the toolkit rules')."""
    d.named.append(("cuda", d.scan_line))
    return False


def _tegrastats(m: re.Match[str], d: Draft) -> bool:
    """A tegrastats line: only a Jetson prints it, so the host is one (and aarch64)."""
    put(d.platform, "machine", "aarch64")
    _jetson_named(m, d)
    return True


def _tegra_kernel(m: re.Match[str], d: Draft) -> bool:
    put(d.kernel, "release", m.group("release"))
    return True


def _l4t_power_tool(m: re.Match[str], d: Draft) -> bool:
    """L4T's own clock and power tools, which exist only on a Jetson: `jetson_clocks --show`
    opens with "SOC family:tegra234  Machine:<the board's device-tree model>" (jetson_clocks.sh),
    `nvpmodel -q` prints "NV Power Mode: MAXN", and jtop's stats name the same two ("nvp model,
    MAXN", "jetson_clocks, OFF"). The host is a Jetson (aarch64)."""
    put(d.platform, "machine", "aarch64")
    if m.group("soc"):
        d.note(f"jetson_clocks: SoC {m.group('soc').lower()}, {m.group('machine').strip()}")
    _jetson_named(m, d)
    return True


def _tegra_board(m: re.Match[str], d: Draft) -> bool:
    """What only a 64-bit Jetson shows: its device tree's compatible string (`cat
    /proc/device-tree/compatible`: "nvidia,p3768-0000+p3767-0005nvidia,p3767-0005nvidia,tegra234",
    the NUL-separated names run together) names the Tegra SoC, and a listing of its device nodes
    (`ls /dev/nv*`, `ls -l`) shows the nodes of L4T's GPU and memory drivers (/dev/nvhost-*,
    /dev/nvmap) that no discrete-GPU driver creates. The host is a Jetson (aarch64)."""
    put(d.platform, "machine", "aarch64")
    if m.group("soc"):
        d.note(f"device tree: SoC {m.group('soc').lower()}")
    _jetson_named(m, d)
    return True


def _jetson_named(m: re.Match[str], d: Draft) -> bool:
    """A Jetson named in prose: JetPack, a Jetson module, L4T, a "-tegra" kernel."""
    d.named.append(("jetson", d.scan_line))
    return False


def _next_gpu_index(d: Draft, name: str) -> int:
    for index, gpu in d.gpus.items():
        if gpu.get("name") == name:
            return index
    return len(d.gpus)


_RULES: tuple[_Rule, ...] = (
    _Rule(
        "driver",
        # "Driver==515.86.01" in a list written like pip's, "driver: `550.54.15`" in markdown
        _rx(
            # nvidia-smi -q aligns its colons: "Driver Version                        : 535..."
            # a list may set it off with a dash: "NVIDIA Driver -       540.4.0"
            rf"\bdrivers?(?:[ _]version)?\s{{0,40}}(?:[:=]{{0,2}}|-(?=\s))\s{{0,8}}"
            rf"(?:nvidia\s{{1,4}})?`?v?"
            # or its branch alone ("driver version 535", "Driver: 550"), not a count or size
            rf"(?:(?P<v>{_VER3})\b|(?P<branch>[3-9]\d{{2}})(?![\d.]|\s{{0,2}}(?:[%+]|-\w|{_UNITS})))"
        ),
        _driver,
    ),
    _Rule("nvidia", _rx(rf"\bnvidia(?:[- ]driver)?[- ](?P<v>{_VER3})\b"), _driver),
    _Rule(
        # the version or branch before the word ("the 550 driver", "R535 driver", "535.183.01
        # drivers"), not a GPU model's number ("GTX 970 driver")
        "driver",
        _rx(
            r"(?<![\w.])(?<!gtx )(?<!rtx )(?<!gts )(?<!gt )(?<!mx )(?<!quadro )R?"
            rf"(?:(?P<v>{_VER3})|(?P<branch>[3-9]\d{{2}}))\s{{1,2}}(?:series |branch )?"
            r"(?:nvidia |proprietary |open )?drivers?\b"
        ),
        _driver,
    ),
    _Rule(
        # the driver's own installer named by its file ("NVIDIA-Linux-x86_64-550.54.15.run")
        "nvidia-linux-",
        _rx(
            r"\bNVIDIA-Linux-(?:x86_64|aarch64|ppc64le)-"
            rf"(?P<v>{_VER3})(?:-grid|-vgpu-kvm|-no-compat32)?\.run\b"
        ),
        _driver_runfile,
    ),
    _Rule(
        # "nouveau is still loaded", "the nouveau driver is in use": said, not listed
        "nouveau",
        _rx(
            r"\bnouveau(?: kernel)?(?: driver| module)?\s(?:is|was)\s(?:still\s)?"
            r"(?:loaded|in use|active|running|being used)\b"
        ),
        _nouveau_said,
    ),
    _Rule(
        "nvml library version",
        _rx(rf"\bNVML library version:\s{{0,4}}(?P<v>{_VER3})\b"),
        _nvml_library,
    ),
    _Rule(
        "libnvidia-ml.so.1 -> ",
        _rx(
            r"\blibnvidia-ml\.so\.1 -> (?:/\S{0,200}/)?"
            rf"(?P<path>libnvidia-ml\.so\.{_VER3})(?![\w.-])"
        ),
        _nvml_library_file,
    ),
    _Rule(  # C and go-nvml name NVML's codes by the enum: "NVML_ERROR_DRIVER_NOT_LOADED"
        "error_",
        _rx(
            r"\bnvml(?:_|\.)error_(?P<name>no_permission|driver_not_loaded|library_not_found|"
            r"lib_rm_version_mismatch)\b"
        ),
        _nvml_error,
    ),
    _Rule(  # nvidia-ml-py's exception classes: "pynvml.NVMLError_DriverNotLoaded: ..."
        "nvmlerror_",
        _rx(r"\bNVMLError_(?P<name>[A-Za-z]{5,30})\b"),
        _nvml_error,
    ),
    _Rule(  # the Rust nvml-wrapper's variants: "Failed to initialize nvml: DriverNotLoaded"
        ("drivernotloaded", "librarynotfound", "librmversionmismatch", "nopermission"),
        _rx(
            r"\bnvml\b[^\n]{0,80}?\b(?P<name>DriverNotLoaded|LibraryNotFound|"
            r"LibRmVersionMismatch|NoPermission)\b"
        ),
        _nvml_error,
    ),
    _Rule(  # the bare number a call returned: "nvmlInit() returned 9", "NVML_ERROR 9"
        "nvml",
        _rx(
            r"\bnvml\w{0,24}?(?:\(\))?[ :]{0,3}(?:[a-z ]{0,30}?\b)?(?:returned|return code|"
            r"error code|error|failed with(?: error)?(?: code)?)\s{0,2}[:=]?\s{0,2}"
            r"(?P<name>\d{1,3})\b(?![.\d])"
        ),
        _nvml_error,
    ),
    _Rule(
        # "Python 3.10.12", "Python version: 3.10.6", "python==3.9.11", and a traceback's
        # interpreter in its paths ("/opt/conda/lib/python3.10/site-packages/torch/...")
        "python",
        _rx(
            r"\bpython(?:\s{0,2}version)?\s{0,4}[:=]{0,2}\s{0,4}v?(?P<v>3\.\d{1,2}(?:\.\d{1,2})?)(?![\d.])"
        ),
        _python,
    ),
    _Rule(  # the open kernel modules' bug form: "NVIDIA Open GPU Kernel Modules Version: 560.28.03"
        "open gpu kernel modules version",
        _rx(rf"\bNVIDIA Open GPU Kernel Modules Version\s{{0,4}}:\s{{0,4}}(?P<v>{_VER3})\b"),
        _open_modules,
    ),
    _Rule(
        "kernel module",
        _rx(
            r"NVRM: loading NVIDIA UNIX (?P<open>Open )?[\w ]{0,30}?Kernel Module"
            rf"(?: for \w{{1,20}})?\s{{1,8}}(?P<v>{_VER3})"
        ),
        _module,
    ),
    _Rule(
        # "nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  550.54.15"
        "kernel mode setting driver",
        _rx(
            r"nvidia-modeset: Loading NVIDIA (?:UNIX )?(?P<open>Open )?Kernel Mode Setting Driver"
            rf" for [\w ]{{1,20}}?\s{{1,8}}(?P<v>{_VER3})\b"
        ),
        _modeset_module,
    ),
    _Rule(
        # inxi -G's device line: "Device-1: NVIDIA GA102 [...] driver: nvidia v: 535.113.01",
        # the version inxi read from /sys/module/nvidia/version (the module loaded)
        "driver: nvidia v:",
        _rx(rf"\bdriver: nvidia v: (?P<v>{_VER3})\b"),
        _inxi_module,
    ),
    _Rule(
        # the X server log's lines of the NVIDIA X driver and GLX module as they load ("(II)
        # NVIDIA dlloader X Driver  550.54.15  Tue Feb 27 ...", "NVIDIA GLX Module  550.54.15"):
        # user-space parts of one driver installation, as libnvidia-ml is
        ("nvidia dlloader x driver", "nvidia glx module"),
        _rx(rf"\bNVIDIA (?:dlloader X Driver|GLX Module)\s{{1,8}}(?P<v>{_VER3})\b"),
        _nvml_library,
    ),
    _Rule(
        # the modules that load only on a loaded nvidia module, as they say so: nvidia-uvm's
        # "Loaded the UVM driver, major device number 510" and DRM's "[drm] Initialized
        # nvidia-drm 0.0.0 20160202 for 0000:01:00.0 on minor 1"
        ("loaded the uvm driver", "initialized nvidia-drm"),
        _rx(r"\bnvidia-uvm: Loaded the UVM driver\b|\bInitialized (?P<drm>nvidia-drm) \d"),
        _dependent_module,
    ),
    _Rule(
        # initramfs-tools' and mkinitcpio's warning that the module lists firmware the image
        # lacks ("W: Possible missing firmware /lib/firmware/nvidia/550.54.15/gsp_ga10x.bin for
        # module nvidia"): the release of the nvidia module installed for that kernel
        "possible missing firmware",
        _rx(
            rf"Possible missing firmware \S{{0,80}}/nvidia/(?P<v>{_VER3})/\S{{1,80}} for module "
            r"nvidia\b"
        ),
        _module_firmware,
    ),
    _Rule(  # the RM as it attaches a GPU (osinit.c): "NVRM: GPU at PCI:<bus>: GPU-<uuid>"
        "nvrm: gpu at pci:",
        _rx(
            r"NVRM: GPU at PCI:[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}(?:\.\d)?: "
            r"GPU-[0-9a-f-]{8,40}"
        ),
        _module_gpu_attached,
    ),
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
    _Rule(
        "torch",
        _rx(
            # an issue template's "(e.g., 1.0)" may follow the name
            # and the version may be told by a verb ("torch version reveals 2.0.0+cpu"), printed
            # ("torch.__version__ = 1.8.0"), glued to the name ("pytorch1.8.0") or its CUDA
            # tag spaced ("torch 2.1 + cu118")
            # (not NGC's image "nvidia/pytorch:24.01": its tag is the container release, YY.MM)
            r"(?<!nvidia/)\b(?:py)?torch(?:(?:\.__version__|\s{1,2}version)(?:\s{1,3}(?:is|"
            r"reveals|shows|"
            r"says|reports|gives|prints|returns)(?:\s{1,2}as)?)?|\s{1,2}is)?"
            r"(?:\s{0,2}\([^()\n]{1,40}\))?"
            r"\s{0,4}(?:[:=]{1,2}|\s|(?=\d))\s{0,4}`?v?"  # markdown quotes it: `2.9.0+cu130`
            r"(?P<v>\d{1,2}\.\d{1,2}(?:\.\d{1,3})?(?:(?:a|b|rc)\d{1,3})?"
            r"(?:\+[\w.]{0,39}\w|\s{1,2}\+\s{1,2}(?:cu\d{2,3}|cpu|rocm\d{1,2}(?:\.\d{1,2})?))?)"
            r"(?!\w|\.\w)"
        ),
        _spaced_package("torch"),
    ),
    _Rule(
        # Ultralytics' and YOLOv5's select_device() banner: "Ultralytics 8.3.69 🚀
        # Python-3.8.10 torch-2.1.0a0+41361538.nv23.06 CUDA:0 (Xavier, 14886MiB)"
        " torch-",
        _rx(
            r"\bPython-(?P<py>3\.\d{1,2}(?:\.\d{1,2})?) torch-(?P<v>\d{1,2}\.\d{1,2}(?:\.\d{1,3})?"
            r"(?:(?:a|b|rc)\d{1,3})?(?:\+[\w.]{0,39}\w)?)(?!\w|\.\w)"
        ),
        _select_device_banner,
    ),
    _Rule(
        # what torch answered, told in prose: "`torch.cuda.is_available()` returns False",
        # "torch.cuda.is_available() -> True"; never a program's own test of it ("if
        # torch.cuda.is_available() == False:", "assert torch.cuda.is_available()")
        "cuda.is_available()",
        _rx(
            r"(?<!if )(?<!assert )(?<!not )(?<!while )\btorch\.cuda\.is_available\(\)`?\s{0,3}"
            r"(?:returns?|returned|gives|gave|prints|printed|shows|outputs|is still|->|=>|:)"
            r"\s{0,3}`?(?P<v>True|False)\b"
        ),
        _cuda_available_said,
    ),
    _Rule(
        # the CUDA torch was built with, told in prose or printed by a script: "torch.version.cuda
        # None", "`torch.version.cuda` = None", "torch.version.cuda: 12.1" (None: a build without
        # CUDA); never a program's own test of it ("if torch.version.cuda is None:")
        "version.cuda",
        _rx(
            r"(?<!if )(?<!elif )(?<!assert )(?<!not )(?<!while )\btorch\.version\.cuda"
            r"(?:\(\))?`?\s{0,3}(?:is|was|returns?|returned|gives|gave|prints|printed|shows|says|"
            r"==?|:|->|=>)?\s{0,3}`?['\"]?(?P<v>None|\d{1,2}\.\d{1,2})['\"]?`?"
            r"(?![\w.:(\[])"
        ),
        _torch_cuda_said,
    ),
    _Rule(
        # the CUDA torch was built with, in prose: "installed PyTorch with CUDA 10.2", "torch
        # 2.1 built for CUDA 12.1", "pytorch compiled against CUDA 11.8"; not a system's toolkit
        # named after it ("torch with CUDA 11.8 installed on the host")
        "torch",
        _rx(
            r"\b(?:py)?torch\b(?:[ \t]{1,2}v?\d{1,2}\.\d{1,2}(?:\.\d{1,2})?)?[ \t]{1,2}(?:(?:built|"
            r"compiled|installed|packaged)[ \t]{1,2})?(?:with|for|against)[ \t]{1,2}CUDA[ \t]{0,2}"
            r"(?P<v>\d{1,2}\.\d{1,2})(?![\d.])(?![ \t]{1,2}(?:installed|toolkit|on\b|driver))"
        ),
        _torch_cuda_said,
    ),
    # Docker's warning names the host's platform as it detected it
    _Rule(
        "detected host platform",
        _rx(
            r"does not match the detected host platform \((?P<host>linux/(?:amd64|arm64)(?:/v8)?)"
            r"\)"
        ),
        _docker_host_platform,
    ),
    _Rule("successfully installed", _rx(r"^\s{0,4}Successfully installed "), _pip_installed),
    # pip's "Downloading torch-2.4.0-cp310-cp310-manylinux2014_aarch64.whl": the release and,
    # since pip picks the wheel for the machine it runs on, the machine
    _Rule(
        ".whl",
        _rx(
            r"\b(?P<name>torch|tensorflow)-(?P<v>\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)(?:(?:\+|%2B)"
            r"(?P<local>[a-z0-9.]{1,30}))?-cp\d{2,3}-cp\d{2,3}t?-(?:manylinux[a-z0-9_]{0,24}\.)?"
            r"(?:manylinux[a-z0-9_]{0,20}?|linux)_(?P<machine>aarch64|x86_64)\.whl\b"
        ),
        _wheel_file,
    ),
    _Rule(
        "tensorflow",
        _rx(
            # an issue template's "(use command below)" may follow the name
            # and its value may be written "tf 2.10.1" or "tf2.9.1"
            # the GPU package's name too: "Tensorflow-gpu  2.6.0"
            r"\btensorflow(?:-gpu)?(?: version)?(?:\s{0,2}\([^()\n]{1,40}\))?"
            r"\s{0,4}(?:[:=]{1,2}|\s)\s{0,4}(?:tf ?)?v?(?P<v>\d\.\d{1,2}(?:\.\d{1,3})?)"
            r"(?!\w|\.\w)"
        ),
        _package("tensorflow"),
    ),
    _Rule(
        "jax",
        _rx(
            r"\bjax(?:lib)?(?: version)?\s{0,4}(?:[:=]{1,2}|\s)\s{0,4}v?(?P<v>0\.\d{1,2}\.\d"
            r"{1,3})(?!\w|\.\w)"
        ),
        _package("jax"),
    ),
    _Rule(
        "vllm",
        _rx(
            r"\bvllm(?: api server)?(?: version)?\s{0,4}(?:[:=]{1,2}|\s)\s{0,4}v?(?P<v>0\.\d"
            r"{1,2}(?:\.\d{1,3})?(?:\.post\d)?)(?!\w|\.\w)"
        ),
        _package("vllm"),
    ),
    *(
        _Rule(
            name,
            _rx(
                rf"\b{re.escape(name)}(?: version)?\s{{0,4}}(?:[:=]{{1,2}}|\s)\s{{0,4}}v?"
                r"(?P<v>\d{1,2}\.\d{1,3}(?:\.\d{1,4})?(?:\.post\d{1,2})?)(?!\w|\.\w)"
            ),
            _package(name),
        )
        for name in ("flash-attn", "flash_attn", "xformers", "bitsandbytes", "llama-cpp-python")
    ),
    _Rule(
        "ollama",
        _rx(
            r"\bollama(?: version(?: is)?)?\s{0,4}[:=]?\s{0,4}v?(?P<v>0\.\d{1,2}\.\d{1,3})(?"
            r"![\w.])"
        ),
        _package("ollama"),
    ),
    _Rule(
        ("toolkit", "nvidia-ctk"),
        _rx(
            r"(?:nvidia[- ]container[- ]toolkit|container toolkit cli|\bnvidia-ctk)"
            r"(?:\s{1,4}version)?\s{0,4}[:=(]?\s{0,4}v?(?P<v>1\.\d{1,2}\.\d{1,3})"
        ),
        _toolkit,
    ),
    _Rule(
        "cli-version",
        _rx(r"^\s{0,8}cli-version:\s{0,4}(?P<v>1\.\d{1,2}\.\d{1,3})"),
        _toolkit,
    ),
    _Rule(
        "docker",
        _rx(
            # `docker --version`'s "Docker version 24.0.7, build afdd53b", a list's "Docker:
            # 24.0.7", dpkg's "docker-ce  5:24.0.7-1~ubuntu..." (its epoch before the colon);
            # Docker's releases are numbered from 17 on (not nvidia-docker's "2.13.0")
            # (an image's tag is glued to its colon: "docker:24.0.7-dind" is no Docker installed)
            r"(?<![\w-])docker(?:-ce|\s{1,2}engine)?(?:\s{1,2}version)?(?:\s{0,4}[:=]\s|\s)"
            r"\s{0,40}(?:\d:)?v?(?P<v>(?:1[7-9]|2\d)\.\d{1,2}\.\d{1,3})(?![\d])"
        ),
        _docker,
    ),
    _Rule(
        ("containerd", "runc", "podman", "crio", "cri-o"),
        _rx(
            # `containerd --version`: "containerd github.com/containerd/containerd v1.7.2 <rev>"
            # (containerd.io's: "containerd containerd.io 1.6.21 <rev>"); `runc --version`,
            # `podman --version`, `crio --version`: "<name> version 1.1.7"; a list's
            # "containerd: 1.7.13"; dpkg's "containerd.io  1.6.26-1"
            r"(?<![\w./-])(?P<name>containerd|runc|podman|cri-o|crio)(?:\.io)?"
            r"(?:\s{1,2}(?:github\.com/containerd/containerd|containerd\.io))?"
            r"(?:\s{1,2}version)?(?:\s{0,4}[:=]\s|\s)\s{0,40}v?(?P<v>[1-5]\.\d{1,2}\.\d{1,3})(?![\d])"
        ),
        _engine,
    ),
    _Rule(
        "runtimename:",
        # `crictl version`: the CRI runtime the kubelet uses
        _rx(r"^\s{0,4}RuntimeName:\s{1,8}(?P<name>containerd|cri-o)\s{0,4}$"),
        _crictl_runtime,
    ),
    _Rule(
        ("client version:", "server version:"),
        # `kubectl version`: "Client Version: v1.28.2", "Server Version: v1.28.5+k3s1" (older
        # kubectl: "Client Version: version.Info{Major:...}"); not `docker info`'s "Server
        # Version: 24.0.7"
        _rx(
            r"^\s{0,4}(?:Client|Server) Version:\s{0,4}(?:v1\.\d{1,2}\.\d{1,3}(?:\+(?P<name>k3s|"
            r"rke2)\w{0,8})?(?![\w.])|version\.Info\{)"
        ),
        _kubectl_version,
    ),
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
    _Rule(
        "release), revision",
        _rx(
            # /etc/nv_tegra_release opens with "# ", which a paste loses: GitHub renders the
            # line as a heading, and a copy of it has no "#"; "(release), REVISION:" says it
            r"(?:#\s{0,4})?\bR(?P<r>\d{2,3})\s{0,4}\(release\),\s{0,4}REVISION:\s{0,4}(?P<a>\d{1,3})\.(?P<b>\d{1,3})"
        ),
        _l4t,
    ),
    _Rule(
        "nvidia-l4t-core",
        # `dpkg -l`/`dpkg-query -W` ("nvidia-l4t-core   36.4.0-2024..."), `apt list`'s
        # "nvidia-l4t-core/stable,now 36.4.0-20240912212859 arm64 [installed]"
        _rx(
            r"\bnvidia-l4t-core(?::arm64)?(?:/[\w.-]{1,30},now)?\s{1,60}"
            r"(?P<r>\d{2,3})\.(?P<a>\d{1,3})\.(?P<b>\d{1,3})-"
        ),
        _l4t,
    ),
    _Rule(
        "jetpack",
        _rx(
            # prose runs the release on ("JetPack5.1.2") or brackets it ("JetPack (4.6)")
            # jetson-stats' environment names it too ("JETSON_JETPACK=4.6")
            # and `apt list`'s "nvidia-jetpack/stable,now 6.1+b123 arm64"
            r"(?:\bjetson_|\b)(?:nvidia-)?jetpack(?::arm64)?(?:/[\w.-]{1,30},now)?"
            r"[\s_:=(\[-]{0,60}(?:(?:sdk|version|release)\s{0,4}[:=]?\s{0,4})?v?"
            r"(?P<v>[3-9]\.\d{1,2}(?:\.\d{1,2})?)(?![\d.])"
        ),
        _jetpack,
    ),
    _Rule(
        "jp",
        # "JP 5.1.2", "JP6.0": JetPack's short name; not a path or host name ("/jp/v512")
        re.compile(r"(?<![\w./-])JP\s{0,2}v?(?P<v>[4-7]\.\d{1,2}(?:\.\d{1,2})?)(?![\w.])"),
        _short_jetpack,
    ),
    _Rule(
        "l4t",
        _rx(
            r"(?:\bjetson_|\b)L4T[\s_]{0,4}(?:version\s{0,4})?[:=]?\s{0,4}R?(?P<r>\d{2,3})\.(?P<a>\d{1,3})(?:\.(?P<b>\d{1,3}))?"
        ),
        _l4t,
    ),
    _Rule(
        # the L4T BSP's own file name, as NVIDIA publishes it: "Jetson_Linux_R35.4.1_aarch64.tbz2",
        # "Tegra186_Linux_R32.7.1_aarch64.tbz2" (Jetson Linux download pages)
        "_linux_r",
        _rx(r"\b(?:Jetson|Tegra\d{3})_Linux_R(?P<r>\d{2})\.(?P<a>\d{1,2})(?:\.(?P<b>\d{1,2}))?"),
        _l4t,
    ),
    _Rule(
        "r3",
        # an L4T release written alone ("r32.6", "R35.4.1"), as Jetson users name their host's,
        # only on a line that names the Jetson; an image tag's ("l4t-base:r32.7.1") is the
        # container's, not the host's (jetson_image reads it)
        _rx(r"(?<![\w.:/-])R(?P<r>3[2-9])\.(?P<a>\d{1,2})(?:\.(?P<b>\d{1,2}))?(?![\w.])"),
        _bare_l4t,
    ),
    _Rule(
        "nvidia",
        _rx(
            r"^\s{0,4}(?P<mod>nvidia(?:_uvm|_drm|_modeset|_peermem|_fs)?|nv_peer_mem|nouveau)"
            r"\s{1,40}\d{3,9}\s{1,8}\d{1,4}\b"
        ),
        _lsmod,
    ),
    _Rule(
        "nouveau",
        _rx(r"^\s{0,4}(?P<mod>nouveau)\s{1,40}\d{3,9}\s{1,8}\d{1,4}\b"),
        _lsmod,
    ),
    _Rule(
        "installed",
        _rx(
            rf"^\s{{0,4}}nvidia(?:-srv|-open)?[/,]\s{{0,2}}(?P<v>{_VER3}),\s{{0,2}}(?P<k>[^\s,]{{1,80}}),\s{{0,2}}\w{{1,12}}:\s{{0,2}}installed"
        ),
        _dkms,
    ),
    _Rule(
        # `dkms status` of a module added or built but installed for no kernel ("nvidia/550.54.15:
        # added", "nvidia/550.54.15, 6.5.0-27-generic, x86_64: built"): the driver release whose
        # module DKMS holds, a note (no kernel has it installed)
        ("added", "built"),
        _rx(
            rf"^\s{{0,4}}nvidia(?:-srv|-open)?[/,]\s{{0,2}}(?P<v>{_VER3})"
            r"(?:,\s{0,2}(?P<k>[^\s,]{1,80}),\s{0,2}\w{1,12})?:\s{0,2}(?P<state>added|built)\b"
        ),
        _dkms_not_installed,
    ),
    _Rule(
        # nvidia-installer's log header ("installer version: 550.54.15"): the release it installs
        "installer version:",
        _rx(rf"^\s{{0,4}}installer version:\s{{0,4}}(?P<v>{_VER3})\b"),
        _driver_installer_log,
    ),
    _Rule(
        "nouveau 0000:",
        _rx(r"\bnouveau (?P<bus>[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.\d): \S"),
        _nouveau,
    ),
    _Rule(
        "command line:",
        _rx(
            r"\bKernel command line:\s{0,4}(?P<cmdline>\S[^\n]{0,1000})"
            r"|\bCommand line:\s{0,4}(?P<c2>BOOT_IMAGE=[^\n]{0,1000})"
        ),
        _cmdline_any,
    ),
    _Rule(
        "nccl_",
        _rx(
            r"\b(?P<name>NCCL_[A-Z0-9_]{2,40})(?:\s{0,2}=\s{0,2}| set by environment to |"
            r" set to )(?P<value>[\w.,:/^=-]{1,80})"
        ),
        _nccl_env,
    ),
    _Rule(
        "processes:",
        _rx(r"\|\s{0,4}Processes:\s{10,80}(?:GPU Memory\s{0,4})?\|"),
        _process_table,
    ),
    _Rule(
        ("k3s", "rke2", "microk8s"),
        _rx(r"\b(?P<name>k3s|rke2|microk8s)\b"),
        _k8s_distribution,
    ),
    _Rule(
        ("k8s", "operator", "runtimeclassname", "plugin"),
        # "k8s" as a folder of an image or URL path (nvcr.io/nvidia/k8s/cuda-sample, the CUDA
        # sample `docker run` starts) names a repository, not a cluster
        _rx(r"(?<!/)\bk8s\b(?!/)|\bgpu[- ]operator\b|\bruntimeClassName\b|\bdevice[- ]plugin\b"),
        _kubernetes,
    ),
    _Rule(
        "runtimeclassname",
        _rx(r"\bruntimeClassName\s{0,4}:\s{0,4}[\"']?(?P<name>[a-z0-9][a-z0-9.-]{0,62})"),
        _runtime_class,
    ),
    _Rule(
        "kubectl",
        _rx(r"\bkubectl\b"),
        _kubernetes,
    ),
    _Rule(
        ("vcuda-", "vgpu", "gpumem", "gpucores", "aliyun.com/gpu-"),
        _rx(
            r"\b(?:tencent\.com/vcuda-(?:core|memory)|nvidia\.com/(?:gpumem(?:-percentage)?|"
            r"gpucores|vgpu)|volcano\.sh/vgpu-(?:number|memory|cores)|aliyun\.com/gpu-(?:mem|"
            r"count|core))\b"
        ),
        _gpu_sharing,
    ),
    _Rule(
        "kubernetes",
        _rx(r"\bkubernetes\b"),
        _kubernetes,
    ),
    # Kubernetes's own vocabulary in prose and logs: pod states and events, its objects and
    # daemons, and the managed or packaged distributions by name
    _Rule(
        (
            "backoff",
            "containercreating",
            "podinitializing",
            "admissionerror",
            "failedscheduling",
            "failedcreatepodsandbox",
        ),
        _rx(
            r"\b(?:CrashLoopBackOff|ImagePullBackOff|ContainerCreating|PodInitializing|"
            r"UnexpectedAdmissionError|FailedScheduling|FailedCreatePodSandBox)\b"
        ),
        _kubernetes,
    ),
    _Rule(
        "pod",
        _rx(r"\bpods?\b[^.\n]{0,40}\b(?:pending|unschedulable)\b"),
        _kubernetes,
    ),
    _Rule(
        ("daemonset", "kube-system", "kubelet", "kubeadm", "clusterpolicy", "nodeselector"),
        _rx(r"\b(?:daemonsets?|kube-system|kubelet|kubeadm|clusterpolicy|nodeSelector)\b"),
        _kubernetes,
    ),
    _Rule(
        ("eks", "gke", "aks", "openshift", "okd", "k0s"),
        _rx(r"\b(?P<name>EKS|GKE|AKS|OpenShift|OKD|k0s)\b"),
        _k8s_distribution,
    ),
    _Rule(
        ("nvidia.com/gpu", "nvidia.com/mig-"),
        # "nvidia.com/gpu=0" is a CDI device name; MIG's resources too ("nvidia.com/mig-1g.10gb")
        _rx(r"nvidia\.com/gpu\b(?!=)|nvidia\.com/mig-\dg\.\d{1,3}gb\b"),
        _kubernetes,
    ),
    _Rule(
        ("pod", "container", "deployment", "job"),
        _rx(_POD_ASKS_NONE),
        _pod_asks_none_said,
    ),
    _Rule(("pods",), _rx(_PODS_SHARE_GPU), _pods_share_gpu_said),
    _Rule(
        ("nvidia.com/gpu", "gpu resource", "allocatable gpu", "gpu capacity"),
        _rx(_NODE_WITHOUT_GPU),
        _node_without_gpu_said,
    ),
    _Rule(
        "container",
        _rx(
            r"\b(?:inside|in|within|from) (?:an? |the |my |our )?(?P<kind>docker|podman|lxc) "
            r"containers?\b"
        ),
        _container,
    ),
    _Rule(
        "from ",
        _rx(
            r"^\s{0,8}FROM\s{1,8}(?:--platform=\S{1,40}\s{1,8})?(?P<image>(?:nvcr\.io/nvidia"
            r"/\S{1,80}|(?:docker\.io/)?nvidia/cuda:(?P<cuda>\d{1,2}\.\d{1,2})\S{0,60}|(?:do"
            r"cker\.io/)?pytorch/pytorch:\S{1,80}|(?:docker\.io/)?tensorflow/tensorflow:\S{1"
            r",60}|vllm/vllm-openai:\S{1,40}|ollama/ollama\S{0,40}))"
        ),
        _from_line,
    ),
    _Rule(
        "linux ",
        _rx(
            r"\bLinux \S{1,64} (?P<release>\d\.\d{1,2}\.\d{1,3}-[\w.+~-]{1,60}) #[^\n]{0,200"
            r"}?\b(?P<machine>x86_64|aarch64)\b"
        ),
        _uname,
    ),
    _Rule(
        # Python's platform.platform(), printed by collect_env, `transformers env`, Ultralytics'
        # checks and many a bug template: "Linux-5.15.0-91-generic-x86_64-with-glibc2.35" (the
        # kernel release and machine; older Pythons end "-with-Ubuntu-18.04-bionic"),
        # "Windows-10-10.0.19045-SP0", "macOS-14.3.1-arm64-arm-64bit"
        ("-with-", "windows-1", "macos-1"),
        _rx(
            r"(?<![\w-])(?:Linux-(?P<release>\d\.\d{1,2}\.\d{1,3}(?:-[\w.+~-]{1,60}?)?)-"
            r"(?P<machine>x86_64|aarch64)-with-(?:glibc\d|libc|debian|ubuntu|centos|redhat)"
            r"|Windows-(?P<windows>10|11)-10\.0\.\d{5}(?:-SP\d)?\b"
            r"|macOS-(?P<macos>1\d(?:\.\d{1,2})?(?:\.\d{1,2})?)-(?P<mac_machine>arm64|x86_64)-)"
        ),
        _platform_string,
    ),
    _Rule(
        # a native Windows path (a traceback's, a DLL's, a prompt's): "C:\Users\...\site-packages",
        # "D:\a\_work\...": the program ran on Windows (WSL's are /mnt/c/... or /home/...)
        ":\\",
        # cmd's prompt too: "C:\> pip install ...", "(env) C:\>"
        _rx(r"(?<![\w\\/])[A-Za-z]:\\{1,2}(?:[\w$~ .()-]{1,80}\\{1,2}[\w$~ .()-]{1,80}|>\s)"),
        _windows_path,
    ),
    _Rule(
        # conda's virtual packages (`conda info`: "virtual packages : __cuda=12.2=0"): __cuda is
        # the newest CUDA the display driver supports, as conda detected it
        "__cuda=",
        _rx(r"(?<![\w])__cuda=(?P<v>\d{1,2}\.\d{1,2})=0\b"),
        _driver_cuda,
    ),
    _Rule(
        # and __archspec the machine ("__archspec=1=x86_64", "=aarch64", "=m1"/"=arm64" on a Mac)
        "__archspec=",
        _rx(r"(?<![\w])__archspec=1=(?P<machine>x86_64|aarch64|[a-z][\w]{1,20})\b"),
        _archspec,
    ),
    _Rule(
        # conda's solver and `conda info` name the platform it solves for: "Platform: linux-64",
        # "platform : osx-arm64", "win-64", "linux-aarch64"
        "platform",
        _rx(
            r"^\s{0,24}platform\s{0,4}:\s{0,4}(?P<conda>linux-64|linux-aarch64|osx-arm64|osx-64|"
            r"win-64)\s{0,4}$"
        ),
        _conda_platform,
    ),
    _Rule(  # /proc/version, and the first line of every dmesg: "Linux version R (builder@..."
        "linux version ",
        _rx(r"\bLinux version (?P<release>\d\.\d{1,2}\.\d{1,3}-[\w.+~-]{1,60}) \("),
        _kernel,
    ),
    _Rule(
        "kernel",
        _rx(
            # a form's hint may stand before the colon ("Kernel (e.g. `uname -a`): ..."); WSL's
            # kernel has four numbers ("5.15.146.1-microsoft-standard-WSL2", or cut there)
            r"\bkernel(?: version| release)?(?:\s{0,2}\([^()\n]{1,40}\))?\s{0,4}[:=]?\s{0,4}"
            r"(?:linux\s{1,4})?(?P<release>\d\.\d{1,2}\.\d{1,3}(?:-[\w.+~-]{1,60}|\.\d{1,4}"
            r"(?:-[\w.+~-]{1,60})?))"
        ),
        _kernel,
    ),
    _Rule(  # a release with its distribution's flavour, without the word "kernel"
        (
            "-generic",
            "-lowlatency",
            "-azure",
            "-aws",
            "-gcp",
            "-gke",
            "-oracle",
            "-kvm",
            "-oem",
            "-amd64",
            "-arm64",
            "-cloud-",
            ".el7",
            ".el8",
            ".el9",
            ".el10",
            ".fc3",
            ".fc4",
            "-microsoft-standard",
        ),
        _rx(
            r"(?<![\w./-])(?P<release>\d\.\d{1,2}\.\d{1,3}(?:\.\d{1,4})?-(?:\d{1,5}(?:\.\d{1,5})?"
            r"-(?:generic|lowlatency|azure|aws|gcp|gke|oracle|kvm|oem|amd64|arm64|"
            r"cloud-amd64|cloud-arm64|rt-amd64)|\d{1,5}[\w.]{0,60}?\."
            r"(?:el\d{1,2}(?:_\d{1,2})?|fc\d{2})\.(?:x86_64|aarch64)|microsoft-standard(?:-WSL2)?))"
            r"(?![\w.-])"
        ),
        _flavoured_kernel,
    ),
    _Rule(  # a kernel series in prose: "kernel 6.8", "after updating to the 6.5 kernel"
        "kernel",
        _rx(
            r"\bkernel\s{1,2}(?:version\s{1,2})?v?(?P<mm>[3-9]\.\d{1,2})(?![\d.]|\.\d)\b|"
            r"(?<![\w.])(?<!python )(?<!python)(?P<mm2>[3-9]\.\d{1,2})(?:\.x)?\s{1,2}kernel\b"
        ),
        _kernel_series,
    ),
    _Rule(  # the driver's user-space libraries by file name: "libcuda.so.550.54.15"
        ("libcuda.so.", "libnvidia-"),
        _rx(rf"\blib(?:cuda|nvidia-[a-z0-9-]{{2,30}})\.so\.(?P<v>{_VER3})\b(?![.\d])"),
        _driver_library_file,
    ),
    _Rule(  # platform.release() as jetson-stats labels it: "Release: 5.15.148-tegra"
        "release:",
        _rx(
            r"^\s{0,8}(?:[-*]\s{1,2})?Release:\s{1,8}(?P<release>\d\.\d{1,2}\.\d{1,3}-[\w.+~-]{1,60})"
        ),
        _kernel,
    ),
    _Rule(
        "ubuntu",
        # not an image tag's OS ("cuda:12.4.1-base-ubuntu22.04" is the image's, not the host's)
        # a label glued to it is the OS ("os:ubuntu 22.04"), a tag's image name is not
        _rx(
            # and its flavours ("Kubuntu 22.04") are Ubuntu's releases
            r"(?<![-/.])(?<![\w./-]{4}:)\b(?P<name>[kxl]?ubuntu)(?: server| desktop)?\s{0,4}"
            # or its major alone, as people write it: "Ubuntu 22", "ubuntu 24 LTS"
            r"(?P<v>\d{2}\.\d{2}|(?:1[4-9]|2\d)(?![\d.]|\s{0,2}(?:gb|gib|cores?|cpus?|threads?)\b))"
        ),
        _os,
    ),
    _Rule(
        "debian",
        _rx(r"\b(?P<name>debian)(?: gnu/linux)?\s{1,4}(?P<v>\d{1,2})\b"),
        _os,
    ),
    _Rule(
        "rocky",
        _rx(r"\b(?P<name>rocky(?: linux)?)(?: release)?\s{1,4}(?P<v>\d{1,2}(?:\.\d{1,2})?)"),
        _os,
    ),
    _Rule(
        "centos",
        _rx(r"\b(?P<name>centos)(?: linux| stream)?(?: release)?\s{1,4}(?P<v>\d{1,2})"),
        _os,
    ),
    _Rule(  # /etc/redhat-release and its kin: "AlmaLinux release 9.3", "Fedora release 39"
        "almalinux",
        _rx(r"\b(?P<name>almalinux)(?: release)?\s{1,4}(?P<v>\d{1,2}(?:\.\d{1,2})?)"),
        _os,
    ),
    _Rule(
        "fedora",
        # "release" or "Linux" says it is the OS ("a fedora 12 hours a day" is not)
        _rx(r"\b(?P<name>fedora)(?: linux release| release| linux)\s{1,4}(?P<v>\d{2})\b"),
        _os,
    ),
    _Rule(
        ("suse linux enterprise server", "sles"),
        _rx(r"\b(?P<name>suse linux enterprise server|sles)\s{1,4}(?P<v>\d{2})(?:\s{1,2}SP\d)?\b"),
        _os,
    ),
    _Rule(
        "opensuse",
        _rx(r"\b(?P<name>opensuse)(?: leap)?\s{1,4}(?P<v>\d{2}\.\d)\b"),
        _os,
    ),
    _Rule(
        "red hat",
        _rx(
            r"\b(?P<name>red hat enterprise linux)(?: release| server)?\s{1,4}(?P<v>\d{1,2}("
            r"?:\.\d{1,2})?)"
        ),
        _os,
    ),
    _Rule(
        "rhel",
        _rx(r"\b(?P<name>rhel)\s{0,4}(?P<v>\d{1,2}(?:\.\d{1,2})?)\b"),
        _os,
    ),
    _Rule(
        "amazon linux",
        _rx(r"\b(?P<name>amazon linux)\s{0,4}(?P<v>\d{1,4})?"),
        _os,
    ),
    _Rule(
        "wsl",
        _rx(r"\bwsl ?2?\b|microsoft-standard-wsl"),
        _wsl,
    ),
    _Rule(  # where WSL keeps the Windows driver's libraries: C:\Windows\System32\lxss\lib
        "lxss",
        _rx(r"\\System32\\{1,2}lxss\\{1,2}lib\b"),
        _wsl,
    ),
    _Rule(  # WSL 2's GPU paravirtualization driver, in its kernel log and device node
        ("dxgkrnl", "/dev/dxg"),
        _rx(r"\bdxgkrnl\b|/dev/dxg\b"),
        _wsl,
    ),
    _Rule(
        ("windows", "win1", "win 1"),
        # "win10", "win 11", "Win10x64 Pro": how issue forms are often filled in
        _rx(r"\bwindows (?:10|11|server \d{4})\b|\bwin ?(?P<short>1[01])(?:x64|x86|-64)?\b"),
        _windows,
    ),
    _Rule(
        # prose that puts TensorFlow on native Windows ("tensorflow 2.15 installed with pip on
        # Windows"), where releases after 2.10 are CPU-only; "... on Windows via WSL2" is not
        "tensorflow",
        _rx(
            r"\btensorflow\b[^\n]{0,80}?\bon (?:native[ -])?windows\b"
            r"(?![^\n]{0,60}\b(?:wsl|subsystem))"
        ),
        _windows_path,  # the OS only: "Windows"
    ),
    _Rule(
        "mig",
        # and the device plugin's MIG resources and strategy ("nvidia.com/mig-1g.10gb",
        # "mig.strategy=mixed"), "MIG enabled"
        _rx(
            r"\bMIG(?: mode| device| \dg\.\d{1,3}gb|-[0-9a-f]{8}| (?:is )?enabled\b)|"
            r"\bnvidia\.com/mig-\dg\.\d{1,3}gb\b|\bmig\.strategy\b"
        ),
        _mig,
    ),
    _Rule(  # "after a reboot the MIG devices are gone", "MIG instances lost on reboot"
        ("boot", "restart", "power"),
        _rx(_MIG_LOST_AT_REBOOT),
        _mig_lost_at_reboot,
    ),
    _Rule(  # the MIG capability files nvidia-container-cli lists
        "/mig/gi",
        _rx(r"/proc/driver/nvidia/capabilities/gpu\d{1,3}/mig/gi\d{1,3}"),
        _mig,
    ),
    _Rule("singularity", _rx(_SINGULARITY_VERSION), _singularity),
    _Rule("apptainer", _rx(_SINGULARITY_VERSION), _singularity),
    _Rule(
        "--nvccli",
        _rx(r"\b(?:singularity|apptainer)\b[^\n]{0,200}\s--nvccli\b"),
        _nvccli,
    ),
    _Rule(
        ("vgpu", "grid "),
        _rx(r"\bvgpu\b|\bgrid [a-z]\d{1,3}-\d{1,2}[a-z]\b"),
        _vgpu,
    ),
    _Rule(
        "gridd",
        _rx(r"\bnvidia-gridd\b"),
        _gridd,
    ),
    _Rule(
        "license status",
        _rx(
            r"\blicen[cs]e status\s{0,40}(?::|=|\bis)\s{0,4}(?:set to\s{1,4})?(?P<state>(?:un)?"
            r"licensed\b(?:\s{0,2}\((?:restricted|unrestricted|expiry:[^)\n]{1,40})\))?)"
        ),
        _license,
    ),
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
    _Rule(
        "nvidia-",
        _rx(
            r"\bnvidia-(?:driver|dkms|utils|headless(?:-no-dkms)?|kernel-source|kernel-common|"
            r"compute-utils|fabricmanager)-(?P<branch>\d{3})(?:-server|-open)?\b"
        ),
        _driver_packages,
    ),
    _Rule(
        "nvidia-container-runtime",
        _rx(r"\"path\"\s{0,4}:\s{0,4}\"(?P<path>[^\"\n]{0,80}nvidia-container-runtime)\""),
        _daemon_json,
    ),
    _Rule(
        "--gpus",
        # the container engine's GPU request ("docker run --gpus all", "podman run --gpus=all")
        _rx(
            r"\b(?P<engine>docker|podman|nerdctl)(?: container)? (?:run|create)\b"
            r"[^\n]{0,400}?--gpus[ =]"
        ),
        _says("the text starts a container with GPUs (`--gpus`): the host's container runtime"),
    ),
    _Rule(
        "driver:",
        _rx(r"^\s{0,16}-?\s{0,2}driver:\s{0,4}[\"']?nvidia[\"']?\s{0,4}$"),
        _says("a Compose file asks for NVIDIA GPUs (a device reservation with driver: nvidia)"),
    ),
    _Rule(
        "fabricmanager",
        _rx(r"\bnv(?:idia)?-fabricmanager\b"),
        _says("the text is about NVIDIA Fabric Manager (NVSwitch systems: HGX/DGX)"),
    ),
    _Rule(
        "libcuda.so",
        _rx(r"\blibcuda\.so(?:\.1)? \(libc6[^)\n]{0,30}\) => (?P<path>/\S{1,200})"),
        _ldconfig_libcuda,
    ),
    _Rule(
        "nvcr.io/nvidia/",
        _rx(
            r"\bnvcr\.io/nvidia/(?P<repo>[a-z0-9][\w.-]{0,40}(?:/[\w.-]{1,40})?):(?P<tag>\w[\w.-]{0,40})"
        ),
        _ngc_image,
    ),
    _Rule(
        ("l4t-", "dustynv/"),
        _rx(
            r"\b(?P<repo>(?:nvcr\.io/nvidia/|dustynv/)[\w.-]{1,60}|[\w.-]{1,40}/l4t-[\w.-]{1,40}|"
            r"l4t-[\w.-]{1,40}):\s?(?P<tag>[\w.-]{0,30}?r\d{2}\.\d{1,2}(?:\.\d{1,2})?[\w.-]{0,30})"
        ),
        _jetson_image,
    ),
    _Rule(
        "nccl info",
        _rx(r"\bNCCL INFO\b"),
        _says("the text holds NCCL's own log (NCCL_DEBUG=INFO)"),
    ),
    _Rule(
        "runtimes:",
        _rx(r"^\s{0,4}Runtimes:\s{1,4}(?P<names>[\w. -]{2,400}?)\s{0,4}$"),
        _docker_runtimes,
    ),
    _Rule(
        "default runtime:",
        _rx(r"^\s{0,4}Default Runtime:\s{1,4}(?P<name>[\w.-]{2,60})\s{0,4}$"),
        _docker_default,
    ),
    _Rule(
        ("level=", "nvidia-ctk", "nvidia-container-runtime"),
        _rx(
            r"\b(?P<tool>nvidia-ctk|nvidia-container-runtime(?:-hook)?|nvidia-cdi-hook)\b[^\n]{0,80}"
            r"\blevel=(?P<level>info|warning|error|debug)\b"
        ),
        _toolkit_log,
    ),
    _Rule(
        # jetson-stats' service log (`journalctl -u jtop`): the machine its hardware probe found
        "hardware detected",
        _rx(r"\bjtop\.core\.hardware - Hardware detected (?P<machine>aarch64|x86_64)\b"),
        _lscpu,
    ),
    _Rule(
        ("arch", "platform", "machine", "uname -m"),
        # lscpu's and `docker info`'s "Architecture: aarch64", and the machine as lists and
        # tools label it: "uname -m: aarch64", "- Arch: arm64", jetson_release's "Machine:
        # aarch64", `nvidia-container-cli --version`'s "build platform: x86_64" (not a Compose
        # file's "platform: linux/arm64", the image's platform)
        _rx(
            r"^\s{0,8}(?:[-*]\s{1,2})?(?:\*\*)?(?:uname -m|arch|(?:cpu |system )?architecture|"
            r"platform|machine|build platform)(?:\*\*)?\s{0,30}[:=](?:\*\*)?\s{0,30}`?"
            r"(?P<machine>aarch64|arm64|x86_64|amd64)`?\s{0,4}$"
        ),
        _lscpu,
    ),
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
    _Rule("amd", _rx(r"\b(?P<name>amd) (?:gpu|graphics|card)|\ball[- ](?P<all>amd)\b"), _amd_named),
    _Rule("radeon", _rx(r"\b(?P<name>radeon)\b"), _amd_named),
    _Rule(
        ("mac", "apple", "darwin"),
        # and a Mac by its chip or model, as people write it: "an M1 Mac", "M2 Max MacBook",
        # "Mac mini", "Mac Studio", "iMac"
        _rx(
            r"\bmacbook\b|\bmacos\b|\bmac os x\b|\bapple (?:silicon|m[1-5])\b|\bdarwin\b|"
            r"\bm[1-5](?: pro| max| ultra)? mac\b|\bmac (?:mini|studio)\b|\bimac\b"
        ),
        _apple_named,
    ),
    _Rule(
        "=> /",
        _rx(
            r"^\s{0,8}(?P<soname>lib[A-Za-z]{3,14}\.so[.\d]{0,16})\s{1,4}=>\s{1,4}"
            r"(?P<path>/[^\s()]{1,300})"
        ),
        _ldd,
    ),
    # A file listing line that is one CUDA library file: `ls`'s bare name, `ls -l`'s long form
    # (its "-> target" too), `find`'s path.
    _Rule(
        ("libcudnn", "libcublas", "libcudart", "libnccl", "libnvjitlink", "libcusparse"),
        _rx(
            r"^\s{0,8}(?:[-lrwxdst]{10}[.+@]?\s[^\n]{0,120}?\s)?(?P<path>/[^\s]{0,300}/)?"
            r"(?P<name>lib(?:cudnn(?:_[a-z_]{2,30})?|cublas(?:Lt)?|cudart|nccl|nvJitLink|cusparse))"
            r"\.so\.(?P<v>\d{1,2}(?:\.\d{1,3})?(?:\.\d{1,3})?(?:\.\d{1,3})?)"
            r"(?:\s{1,4}->\s{1,4}\S{1,300})?\s{0,4}$"
        ),
        _library_file,
    ),
    # `ldconfig -p`: the soname, the cache's "(libc6,x86-64)" tag, the file.
    _Rule(
        "(libc6",
        _rx(
            r"^\s{0,8}(?P<soname>lib[A-Za-z_]{3,30}\.so[.\d]{0,16})\s{1,4}\(libc6[^)\n]{0,30}\)"
            r"\s{1,4}=>\s{1,4}(?P<path>/[^\s()]{1,300})"
        ),
        _loader_cache,
    ),
    # LD_DEBUG=libs lines start with the process id: "     4242:\tcalling init: /usr/lib/...".
    _Rule(
        "calling init: /",
        _rx(r"^\s{0,12}\d{1,9}:\s{1,8}calling init: (?P<path>/[^\s]{1,300})"),
        _ld_debug_init,
    ),
    _Rule(
        "trying file=/",
        _rx(r"^\s{0,12}\d{1,9}:\s{1,8}trying file=(?P<path>/[^\s]{1,300})"),
        _ld_debug_tried,
    ),
    _Rule(
        "generating link map",
        _rx(
            r"^\s{0,12}\d{1,9}:\s{1,8}file=(?P<soname>[^\s\[]{1,200}) \[\d{1,4}\];"
            r"\s{1,4}generating link map"
        ),
        _ld_debug_mapped,
    ),
    _Rule(
        "(ld_library_path)",
        _rx(
            r"^\s{0,12}\d{1,9}:\s{1,8}search path=(?P<v>/[^\s]{1,1000})\s{1,20}\(LD_LIBRARY_PATH\)"
        ),
        _ld_debug_path,
    ),
    _Rule(
        "ld_library_path",
        _rx(r"\bLD_LIBRARY_PATH\s{0,2}[=:]\s{0,2}[\"']?(?P<v>/[^\s\"';]{1,1000})"),
        _ld_library_path,
    ),
    _Rule(
        ("cpu", "t have", "no nvidia gpu", "no gpu"),
        _rx(
            r"\bcpu(?:[- ]only)? (?:docker )?(?:image|container|machine|host|node|instance|"
            r"server)\b|\bi (?:do not|don't|dont) have (?:an? |any )?(?:nvidia )?(?:gpu|"
            r"graphics card|hardware)\b|\bno (?:nvidia )?gpus? (?:on|in) (?:this|the|my) "
            r"(?:machine|host|node|server|laptop|computer)\b"
        ),
        _cpu_host_named,
    ),
    _Rule(
        ("i have", "i do have", "instead of", "not using", "gpu not", "gpu is not"),
        _rx(
            r"\bi (?:do )?have (?:an? |the |my )?(?:nvidia )?(?:gpu|graphics card)\b|\b(?:runs?|"
            r"running|works?|working) on (?:the )?cpu instead of (?:the )?gpu\b|\bnot using "
            r"(?:my|the) (?:nvidia )?gpu\b|\bgpu (?:is )?not (?:being )?(?:detected|used|"
            r"recogni[sz]ed)\b"
        ),
        _gpu_host_named,
    ),
    # The symptom told in prose: the GPU or CUDA not detected, found, available, used or
    # recognised; no GPU or CUDA device found; the program falling back to the CPU; the GPU's
    # usage at 0%. Whoever writes it expects a GPU on that host. Not a program's own notice that
    # it runs on the CPU where it finds none (JAX's "No GPU/TPU found, falling back to CPU",
    # TensorFlow's "Could not find cuda drivers on your machine"), nor "no GPU needed".
    _Rule(
        (
            "gpu",
            "cuda",
            "cuinit failed",
            "graphics card",
            "video card",
            "nvidia card",
            "back to cpu",
            "back to the cpu",
        ),
        _rx(
            r"\b(?:(?:nvidia )?gpus?|cuda|graphics card|video card|nvidia card)(?: devices?)? "
            r"(?:(?:is|are|was|were) not |isn't |aren't |wasn't |not |never )(?:being |getting )?"
            r"(?:detected|found|available|used|utili[sz]ed|recogni[sz]ed|visible|showing up)\b"
            r"|\bno (?:nvidia |cuda[- ]capable |cuda |compatible )?(?:gpus?|cuda|devices?)"
            r"(?: devices?)? (?:was |were )?(?:found|detected|available)\b"
            r"|^\W{0,4}no (?:nvidia )?gpus?\W{0,4}$"
            r"|\b(?:can't|cannot|can not|doesn't|does not|won't|didn't|isn't able to) (?:detect|"
            r"find|see|use|recogni[sz]e) (?:my |the |any |an? )?(?:nvidia )?(?:gpus?|cuda|graphics "
            r"card)\b|\b(?:falls|fell) back to (?:the )?cpu\b|\b(?:cpu|processor) instead of "
            r"(?:the |my )?(?:nvidia )?gpu\b|\bgpu (?:usage|utili[sz]ation|util|load)\b[^\n%]{0,24}"
            r"(?<![\d.])0(?:\.0{1,2})? ?%"
            # CUDA failing to start, and a GPU said to be unsupported
            r"|\b(?:failed to|could not|couldn't|unable to|cannot|can't) (?:load|initiali[sz]e|"
            r"init|start) (?:the )?(?:cuda|libcuda|gpu)\b|\b(?:cuda|gpu) (?:initiali[sz]ation|"
            r"init) failed\b|\bcuInit failed\b|\b(?:gpu|graphics card) (?:is |was )?not "
            r"supported\b|\bunsupported (?:nvidia )?gpu\b"
        ),
        _gpu_host_named,
    ),
    # A CUDA install said to be missing: "CUDA toolkit not found", "could not find CUDA",
    # "libcuda not found" (not TensorFlow's notice "Could not find cuda drivers on your machine,
    # GPU will not be used", printed on any machine without a GPU).
    _Rule(
        ("cuda", "nvcc"),
        _rx(
            r"\b(?:no|could not find|couldn't find|cannot find|can't find|unable to (?:find|"
            r"locate)) (?:the |a |any )?(?:nvidia )?(?:cuda|libcuda|nvcc)(?! drivers on your "
            r"machine)(?: toolkit| driver| runtime| installation| install| library| compiler)?"
            r"(?: (?:was |is )?(?:found|installed|detected))?\b|\b(?:cuda|libcuda|nvcc)(?: "
            r"toolkit| driver| runtime| installation| install| library| compiler)? (?:was |is )?"
            r"not (?:found|installed)\b"
        ),
        _cuda_home_named,
    ),
    # The NVIDIA driver (or its installer) or an NVIDIA GPU named in prose without a version
    # ("my nvidia driver stopped working", "NVIDIA Installer cannot continue", "a display
    # attached to an NVIDIA GPU"); after the rules above, so a line that already said the
    # machine has a GPU is not named twice. Never the GPU Operator, NGC (NVIDIA GPU Cloud) or
    # the device plugin, nor another vendor's or program's "driver".
    _Rule(
        "nvidia",
        _rx(
            r"\bnvidia(?:'s)? (?:geforce |graphics |display |gpu |video |proprietary |kernel )?"
            r"drivers?\b|\bnvidia[ -]installer\b"
        ),
        _nvidia_driver_named,
    ),
    _Rule(
        "nvidia",
        _rx(
            r"\bnvidia(?:'s)? (?:geforce |quadro |rtx |tesla )?(?:gpus?|graphics cards?|video "
            r"cards?|graphics processors?)\b(?! operator| feature| cloud| device plugin)"
        ),
        _nvidia_gpu_named,
    ),
    _Rule("step ", _rx(r"^\s{0,4}Step \d{1,3}/\d{1,3} : RUN\b"), _build_named),
    _Rule("] run ", _rx(r"^\s{0,4}#\d{1,4} \[[^\]\n]{1,80}\] RUN\b"), _build_named),
    _Rule("docker", _rx(r"\bdocker (?:buildx )?build\b"), _build_named),
    _Rule(
        ("docker run", "docker exec", "nvidia-docker", "podman run", "docker compose"),
        _rx(r"\b(?:(?:nvidia-)?docker|podman) (?:run|exec|compose)\b|\bnvidia-docker\b"),
        _container_run_named,
    ),
    _Rule("jetpack", _rx(r"\b(?P<name>jetpack)\b"), _jetson_named),
    # L4T's own tools: only a Jetson has them (nvpmodel, jetson_clocks; jtop and
    # jetson_release are jetson-stats')
    _Rule(
        ("jetson_clocks", "nvpmodel", "jtop", "jetson_release"),
        _rx(r"\b(?P<name>jetson_clocks|nvpmodel|jtop|jetson_release)\b"),
        _jetson_named,
    ),
    # the toolkit's folder as a build is told it (`export CUDA_HOME=...`, `echo $CUDA_PATH`)
    _Rule(("cuda_home", "cuda_path"), _rx(r"\bCUDA_(?:HOME|PATH)\b"), _cuda_home_named),
    _Rule("jetson", _rx(r"\b(?P<name>jetson)\b"), _jetson_named),
    # tegrastats, L4T's load monitor: its GR3D_FREQ field is the Jetson's integrated GPU
    _Rule(
        "gr3d_freq",
        _rx(r"\bRAM \d{1,7}/\d{1,7}MB\b[^\n]{0,400}?\b(?P<name>GR3D_FREQ)\b"),
        _tegrastats,
    ),
    _Rule(
        # L4T's kernel release as any tool prints it (`uname -r`, jetson_release's "Release:",
        # collect_env's platform): "5.15.136-tegra"; not a package's version that runs on
        # ("5.15.148-tegra-36.4.0-2024...") or a headers package's name
        "-tegra",
        _rx(r"(?<![\w.-])(?P<release>\d\.\d{1,2}\.\d{1,3}-tegra)(?![\w-])"),
        _tegra_kernel,
    ),
    _Rule(
        ("soc family:", "nv power mode:", "nvp model, ", "jetson_clocks, "),
        _rx(
            r"^\s{0,4}SOC family:\s{0,2}(?P<soc>tegra\d{3})\s{1,4}Machine:\s{0,2}"
            r"(?P<machine>[^\n]{2,100})$"
            r"|^\s{0,4}NV Power Mode:\s{0,2}[\w.-]{1,30}\s{0,4}$"
            r"|^\s{0,4}(?:nvp model|jetson_clocks),\s{1,4}[\w.-]{1,30}\s{0,4}$"
        ),
        _l4t_power_tool,
    ),
    _Rule(
        # the device tree's compatible string of a 64-bit Jetson's SoC (tegra210: TX1 and
        # Nano, tegra186: TX2, tegra194: Xavier, tegra234: Orin, tegra264: Thor), and L4T's
        # device nodes in a listing of /dev (not a path quoted in an error message)
        ("nvidia,tegra", "/dev/nvhost-", "/dev/nvmap"),
        _rx(
            r"nvidia,(?P<soc>tegra(?:210|186|194|234|264))(?!\d)"
            r"|^\s{0,4}(?:[cl][rwx-]{9}[^\n]{5,120}?\s)?(?:/dev/nv[\w/-]{1,40}\s[^\n]{0,400}?)?"
            r"/dev/nv(?:host-[\w-]{2,30}|map)(?=\s|$)"
        ),
        _tegra_board,
    ),
    _Rule(
        ("tegra", "l4t"),
        _rx(r"\b\d\.\d{1,2}\.\d{1,3}-(?P<name>tegra)\b|\b(?P<l4t>l4t)\b"),
        _jetson_named,
    ),
    _Rule(
        ("sbsa", "grace"),
        # "sbsa" as a word or a repository folder ("/repos/ubuntu2204/sbsa/", "linux-sbsa"),
        # not inside a name ("sbsa_driver.c"); NVIDIA's Grace CPU and superchips
        _rx(
            r"(?<![\w.])sbsa(?![\w.])|\bgrace[- ](?:hopper|blackwell)\b|\bnvidia grace\b|"
            r"\bgrace cpu\b"
        ),
        _server_arm,
    ),
    _Rule("jax", _rx(r"\b(?P<name>jax(?:lib)?)\b"), _named),
    _Rule(
        ("ctranslate2", "whisper"),
        _rx(r"\b(?P<name>ctranslate2|faster[-_]whisper|whisperx)\b"),
        _named,
    ),
    # a program named in prose ("ollama is using the CPU", "vllm won't start"): what the paste
    # is about, kept as a named word (words.py), never a fact
    _Rule(
        _PROGRAM_NEEDLES,
        _rx(
            r"(?<![\w.-])(?P<name>ollama|vllm|sglang|llama\.cpp|llama[-_]cpp(?:[-_]python)?|comfyui|"
            r"text[-_]generation[-_]inference|text_generation_launcher|automatic1111|a1111|"
            r"stable-diffusion-webui(?:-forge)?|sd-webui-forge|invokeai|fooocus|koboldcpp|"
            r"bitsandbytes|xformers|flash[-_]attn|flash-attention|deepspeed|tensorrt[-_]llm)"
            r"(?![\w-])"
        ),
        _named,
    ),
    _Rule("torch", _rx(r"\b(?P<name>(?:py)?torch)\b"), _named),
    _Rule("tensorflow", _rx(r"\b(?P<name>tensorflow)\b"), _named),
    _Rule(
        "xid",
        _rx(r"NVRM: Xid \(PCI:[0-9a-f:]{7,16}\): \d{1,3}"),
        _xid,
    ),
)


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
