"""Python and its packages read from text: the Python version, pip's lines and wheel files,
the frameworks' and programs' versions (torch, TensorFlow, JAX, vLLM, ollama, ...), whether
torch found CUDA, and the NCCL environment a launch sets."""

from __future__ import annotations

import re

from gpudoctor import versions
from gpudoctor.facts_multigpu import EnvVar
from gpudoctor.matrix.platforms import machine_of
from gpudoctor.pasted import packages
from gpudoctor.pasted.draft import Draft, put
from gpudoctor.pasted.facts_scan.rule import Handler, _Rule, _rx, _says


def _python(m: re.Match[str], d: Draft) -> bool:
    put(d.platform, "python_version", m.group("v"))
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


def _nccl_env(m: re.Match[str], d: Draft) -> bool:
    pair = EnvVar(m.group("name").upper(), m.group("value"))
    if pair not in d.nccl_env:
        d.nccl_env.append(pair)
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


RULES: tuple[_Rule, ...] = (
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
)


RULES_2: tuple[_Rule, ...] = (
    _Rule(
        "nccl_",
        _rx(
            r"\b(?P<name>NCCL_[A-Z0-9_]{2,40})(?:\s{0,2}=\s{0,2}| set by environment to |"
            r" set to )(?P<value>[\w.,:/^=-]{1,80})"
        ),
        _nccl_env,
    ),
)


RULES_3: tuple[_Rule, ...] = (
    _Rule(
        "nccl info",
        _rx(r"\bNCCL INFO\b"),
        _says("the text holds NCCL's own log (NCCL_DEBUG=INFO)"),
    ),
)
