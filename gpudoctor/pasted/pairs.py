"""Facts a paste tells over two lines: a question on one line and its answer on the next.

- An interactive Python session: ">>> torch.cuda.is_available()" (or `torch.cuda.device_count()`,
  TensorFlow's `tf.test.is_gpu_available()`) and "False" below it;
  `torch._C._cuda_getDriverVersion()` and "12040" (the newest CUDA the driver runs, as
  cudaDriverGetVersion gives it);
  `torch.cuda.get_device_capability()` and "(12, 0)", `torch.cuda.get_arch_list()` and
  "['sm_50', ..., 'sm_90']" (the architectures the torch build has kernels for); JAX's
  `jax.__version__` and `jax.default_backend()` ("'gpu'", "'cpu'"). IPython's prompts ("In [2]:"
  and "Out[2]: True") too, and the question copied without a prompt ("torch.__version__" and
  "2.3.1+cu118" below it, or a blank line below it: only a question this module knows, whole on
  its line).
- A `python -c "...; print(torch.__version__, torch.cuda.is_available())"` command and the line
  it printed ("2.0.1+cu117 False"): one value per printed expression, and one line per print
  statement ("print(torch.__version__); print(torch.version.cuda)" printed two lines).
- `ls /usr/local` (or `| grep cuda`) and the toolkit folders it listed ("cuda-12.1"): notes.
- `lsmod | grep nvidia`, `ldconfig -p | grep libcuda`, `which nvcc` followed at once by the next
  prompt: the command printed nothing, which says the module, libcuda or nvcc is not there.
- `vllm --version` and the bare release it printed ("0.6.3.post1").
- `pip show torch`: "Name: torch" and "Version: 2.2.0".
- `apt-cache show` / `dpkg -s` of a Jetson's release packages: "Package: nvidia-jetpack" and,
  lines below in the same stanza, "Version: 5.0.1-b118" (the JetPack release; `nvidia-l4t-core`
  gives the L4T release), which the one-line rules cannot join; or that Version line alone under
  the command that asked for it ("apt-cache show nvidia-jetpack | grep Version").
- `modinfo nvidia`: "filename: .../nvidia.ko" and, lines below, "version: 550.54.15" (the
  module on disk, which is not necessarily the one loaded), or `modinfo nvidia | grep ^version`
  and its one line, or `modinfo -F version nvidia` and the version alone;
  `cat /sys/module/nvidia/version` and the version of the module loaded.
- ">>> torch.version.cuda" and the next prompt at once: the REPL shows nothing for None (a CPU
  build).
- cudnn_version.h's "#define CUDNN_MAJOR 8", "..._MINOR 9", "..._PATCHLEVEL 7".
- `uname -m`, `arch` or `dpkg --print-architecture` and the machine it printed ("aarch64",
  "arm64").
- `cat /proc/device-tree/model` and the Jetson board it printed ("NVIDIA Jetson Orin Nano
  Developer Kit").
- An issue form's heading and its value ("### NCCL Version", a blank line, "2.27.7"): given
  back as the line "NCCL Version: 2.27.7", which facts_scan reads with its one-line rules.
- `echo $CUDA_VISIBLE_DEVICES` and the value it printed: given back as "CUDA_VISIBLE_DEVICES=0,1".
- A markdown table's row of two cells ("| Driver | 550.54.15 |"): given back the same way, as
  "Driver: 550.54.15" (a row of more cells, an nvidia-smi table's, is not a label and value).

The question names the fact and the answer is its value; a question without an answer (the
next prompt, a traceback) is no fact.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from gpudoctor import versions
from gpudoctor.pasted.draft import Draft, put

_REPL = re.compile(r"^>>> ?(?P<ask>[^\n]{1,120})\n(?P<said>[^\n>][^\n]{0,200})$", re.MULTILINE)
# IPython's prompts: "In [2]: torch.cuda.is_available()" and "Out[2]: True" (a blank line between
# them where the session printed one)
_IPYTHON = re.compile(
    r"^In \[\d{1,4}\]: ?(?P<ask>[^\n]{1,120})\n(?:[ \t]{0,4}\n)?Out\[\d{1,4}\]: ?"
    r"(?P<said>[^\n]{1,200})$",
    re.MULTILINE,
)
# the question alone on its line, as people copy it without the prompt ("torch.__version__" and
# "2.3.1+cu118" below it): only a question _ASK knows, whole, and an answer that fits it
_BARE = re.compile(
    r"^[ \t]{0,4}(?P<ask>(?:torch|tf|tensorflow|jax)\.[\w.]{1,40}(?:\([^\n()]{0,30}\))?)"
    r"[ \t]{0,4}\n(?:[ \t]{0,4}\n)?(?P<said>[^\s$#>][^\n]{0,200})$",
    re.MULTILINE,
)
# a `python -c` and the first line it printed (one line per print: the others follow it)
_PYTHON_C = re.compile(
    r"""python[\d.]{0,5}\s{1,4}-c\s{1,4}["'](?P<code>[^\n"']{1,400})["'][^\n]{0,80}\n"""
    r"(?P<said>[^\n$#>][^\n]{0,300})$",
    re.MULTILINE,
)
_MORE_PRINTED = 3  # lines a `python -c` of several prints printed after its first
_PRINT = re.compile(r"^print\((?P<args>[^\n]{1,300})\)$")
# a version print wrote without quotes ("2.3.1+cu118", "12.1"): what the REPL shows quoted
_BARE_VERSION = re.compile(r"^\d{1,2}\.\d{1,3}(?:\.\d{1,3})?(?:[+.a-z][\w.+]{0,40})?$")
_QUOTED = re.compile(r"^\s{0,4}['\"](?P<v>[^'\"]{1,80})['\"]\s{0,4}$")
_ASK = re.compile(
    r"^(?P<mod>torch|tf|tensorflow|jax)\.(?P<what>__version__|version\.cuda|default_backend\(\)|cuda\.is_available\(\)|"
    r"cuda\.get_device_(?:name|capability)\(\s{0,2}\d{0,2}\s{0,2}\)|cuda\.get_arch_list\(\)|"
    r"config\.list_physical_devices\(\s{0,2}"
    r"['\"]GPU['\"]\s{0,2}\)|test\.is_built_with_cuda\(\)|backends\.cudnn\.version\(\)|"
    r"cuda\.device_count\(\)|test\.is_gpu_available\(\)|_C\._cuda_getDriverVersion\(\))$"
)
_CAPABILITY = re.compile(r"^\((?P<major>\d{1,2}), (?P<minor>\d{1,2})\)$")
_ARCH_LIST = re.compile(r"^\[(?P<codes>'[a-z_0-9', ]{4,600})\]$")  # the names: _ARCH
_ARCH = re.compile(r"(?:sm|compute)_\d{2,3}[af]?")
_DEVICE_INDEX = re.compile(r"\(\s{0,2}(?P<i>\d{1,2})?")
_PIP_SHOW = re.compile(
    r"^Name: (?P<name>[A-Za-z0-9][\w.-]{0,60})\nVersion: (?P<v>[^\s]{1,60})$", re.MULTILINE
)
_MODINFO = re.compile(
    r"^filename:\s{1,30}\S{0,200}/nvidia\.ko(?:\.[xgz]z|\.zst)?\s{0,4}\n[\s\S]{0,1400}?"
    r"^version:\s{1,30}(?P<v>\d{3}\.\d{1,3}(?:\.\d{1,3})?)\s{0,4}$",
    re.MULTILINE,
)
_CUDNN_DEFINES = re.compile(
    r"#define CUDNN_MAJOR (?P<major>\d{1,2})\s{0,4}\n#define CUDNN_MINOR (?P<minor>\d{1,2})"
    r"\s{0,4}\n#define CUDNN_PATCHLEVEL (?P<patch>\d{1,3})"
)
# A Debian control stanza: "Package:" first, then "Version:" (dpkg -s puts Status, Priority,
# Section, ... between them, a few hundred characters; apt-cache show nothing).
_JETSON_STANZA = re.compile(
    r"^Package: (?P<name>nvidia-jetpack|nvidia-l4t-core)\s{0,4}\n[\s\S]{0,800}?"
    r"^Version: (?P<v>\d{1,2}\.\d{1,2}(?:\.\d{1,2})?)[-+~]",
    re.MULTILINE,
)
# the same stanza's Version line alone, under the command that asked for it
# ("apt-cache show nvidia-jetpack | grep Version" and "Version: 6.0+b106")
_JETSON_ASKED = re.compile(
    r"\b(?:apt-cache show|apt show|dpkg -s|dpkg-query -s)[ \t]{1,4}"
    r"(?P<name>nvidia-jetpack|nvidia-l4t-core)\b[^\n]{0,60}\n"
    r"[ \t]{0,4}Version: (?P<v>\d{1,2}\.\d{1,2}(?:\.\d{1,2})?)[-+~]",
)
# `cat /sys/module/nvidia/version`: the version of the nvidia module loaded in the kernel
_SYS_MODULE = re.compile(
    r"/sys/module/nvidia/version\b[^\n]{0,40}\n[ \t]{0,4}(?P<v>\d{3}\.\d{1,3}(?:\.\d{1,3})?)"
    r"[ \t]{0,4}$",
    re.MULTILINE,
)
# `modinfo nvidia | grep ^version` and the one line it kept (the module on disk)
_MODINFO_GREP = re.compile(
    r"\bmodinfo[ \t]{1,4}nvidia\b[^\n]{0,60}\n[ \t]{0,4}version:[ \t]{1,30}"
    r"(?P<v>\d{3}\.\d{1,3}(?:\.\d{1,3})?)[ \t]{0,4}$",
    re.MULTILINE,
)
# `modinfo -F version nvidia` (or --field=version) and the bare version it printed
_MODINFO_FIELD = re.compile(
    r"\bmodinfo[ \t]{1,4}(?:-F[ \t]{0,2}|--field[ =])version[ \t]{1,4}nvidia\b[^\n]{0,60}\n"
    r"[ \t]{0,4}(?P<v>\d{3}\.\d{1,3}(?:\.\d{1,3})?)[ \t]{0,4}$",
    re.MULTILINE,
)
# `>>> torch.version.cuda` followed at once by the next prompt: the REPL prints nothing for None
_REPL_NONE = re.compile(r"^>>> ?torch\.version\.cuda[ \t]{0,4}\n>>>", re.MULTILINE)
# `uname -m` (as a shell prompt's command, a `+ uname -m` trace or alone), `arch`, or Debian's
# `dpkg --print-architecture`, and the machine it printed on the next line ("arm64" is dpkg's
# name for aarch64, "amd64" for x86_64)
_UNAME_M = re.compile(
    r"(?:\buname\s{1,4}-m|\bdpkg\s{1,4}--print-architecture|(?:^|[$#]\s{1,2})arch)\s{0,4}\n"
    r"\s{0,4}(?P<m>aarch64|arm64|x86_64|amd64)\s{0,4}$",
    re.MULTILINE,
)
# `cat /proc/device-tree/model` (or /sys/firmware/devicetree/base/model) on a Jetson and the
# board it printed: L4T's device tree names the module and carrier ("NVIDIA Jetson Orin Nano
# Developer Kit", "NVIDIA Jetson AGX Xavier", "NVIDIA Orin NX Developer Kit"). The file ends
# without a newline, so the next prompt may follow on the same line.
_DT_MODEL = re.compile(
    r"(?:/proc/device-tree|/sys/firmware/devicetree/base)/model\b[^\n]{0,40}\n"
    r"\s{0,4}(?P<model>NVIDIA (?:Jetson|Orin|Xavier)[\w ()-]{0,80}?)\s{0,4}"
    r"(?:[\w.-]{1,40}@[\w.-]{1,60}:[^\n]{0,200})?$",
    re.MULTILINE,
)
# `ls /usr/local` (maybe `| grep cuda`) and the folders it printed: the CUDA toolkits installed
# there by NVIDIA's runfile and packages ("cuda", "cuda-12.1"), one a line or several on one
_LS_LOCAL = re.compile(
    r"\bls[ \t]{1,4}(?:-[a-zA-Z]{1,6}[ \t]{1,4})?/usr/local/?"
    r"(?:[ \t]{0,4}\|[ \t]{0,4}grep[^\n|]{0,40})?[ \t]{0,4}\n(?P<listing>[^$#>][^$#>]{0,1200})",
)
_LISTED = 12  # lines of its listing read
_TOOLKIT_FOLDER = re.compile(r"(?<![\w./-])cuda-(?P<v>\d{1,2}\.\d{1,2})(?![\w.])")
# A shell command that filters for NVIDIA's words and printed nothing: the next prompt follows it
# at once ("$ lsmod | grep nvidia" then "$"). What the empty answer says, by the command.
_EMPTY = re.compile(
    r"^[ \t]{0,4}[$#][ \t]{1,2}(?P<cmd>lsmod|ldconfig -p|which)\b(?P<rest>[^\n]{0,80})\n"
    r"[ \t]{0,4}[$#](?:[ \t][^\n]{0,200})?$",
    re.MULTILINE,
)
_EMPTY_GREP = re.compile(
    r"^\|\s{0,4}grep(?:\s{1,4}-[a-zA-Z]{1,4})?\s{1,4}['\"]?(?P<word>[\w.-]{3,30})['\"]?$"
)
_EMPTY_SAYS = {
    ("lsmod", "nvidia"): "`lsmod | grep nvidia` printed nothing: no nvidia kernel module is loaded",
    ("ldconfig -p", "libcuda"): (
        "`ldconfig -p | grep libcuda` printed nothing: the loader's cache has no libcuda "
        "(the NVIDIA driver's CUDA library)"
    ),
    ("which", "nvcc"): "`which nvcc` printed nothing: no nvcc on PATH",
    ("which", "nvidia-smi"): "`which nvidia-smi` printed nothing: no nvidia-smi on PATH",
}
# `vllm --version` and the release it printed alone on the next line
_TOOL_VERSION = re.compile(
    r"\b(?P<tool>vllm)\s{1,4}(?:--version|-v)[ \t]{0,4}\n[ \t]{0,4}"
    r"(?P<v>\d{1,2}\.\d{1,3}\.\d{1,3}(?:\.post\d{1,2}|rc\d{1,2})?(?:\+[\w.]{1,40})?)[ \t]{0,4}$",
    re.MULTILINE,
)
_HEADING = re.compile(
    r"^#{2,4} {1,2}(?P<label>[A-Za-z][^\n#:]{1,50}?)[ \t]{0,4}\n[ \t\n]{0,20}?"
    r"(?P<value>[^\s#>|`-][^\n]{0,100})$",
    re.MULTILINE,
)


_MAX_PER_PAIR = 64  # pairs of one kind read: each read one counts the lines above it


def parse(text: str, draft: Draft, section: str) -> None:
    """Every pair of the kinds above but the issue form's (see given_back)."""
    for literals, pattern, handle in _PAIRS:
        if not any(literal in text for literal in literals.split("|")):
            continue
        for count, found in enumerate(pattern.finditer(text)):
            if count >= _MAX_PER_PAIR:
                break  # a log that repeats a session: its first ones tell what the rest do
            told = handle(found, draft)
            if told:
                draft.read_at(section, text, found.start(), told)


def _session(found: re.Match[str], d: Draft) -> int:
    return 2 if _answer(found.group("ask").strip(), found.group("said").strip(), d) else 0


def _python_c(found: re.Match[str], d: Draft) -> int:
    said = [found.group("said").strip()]
    text, at = found.string, found.end()
    while len(said) <= _MORE_PRINTED and text.startswith("\n", at):
        end = text.find("\n", at + 1)
        line = text[at + 1 : len(text) if end < 0 else end]
        if not line.strip() or line.lstrip()[:1] in ("$", "#", ">") or len(line) > 300:
            break
        said.append(line.strip())
        at = len(text) if end < 0 else end
    return _printed(found.group("code"), said, d)


def _pip_show(found: re.Match[str], d: Draft) -> int:
    return 2 if _package(d, found.group("name"), found.group("v")) else 0


def _modinfo(found: re.Match[str], d: Draft) -> int:
    d.note(f"modinfo: the nvidia module on disk is {found.group('v')} (not the loaded one)")
    return 2


def _cudnn_header(found: re.Match[str], d: Draft) -> int:
    d.note(f"cudnn_version.h says cuDNN {'.'.join(found.group('major', 'minor', 'patch'))}")
    return 3


def _jetson_stanza(found: re.Match[str], d: Draft) -> int:
    """nvidia-jetpack's version is the JetPack release; nvidia-l4t-core's is the L4T release
    ("32.7.4-20230608212426"), as facts_scan reads them from `dpkg -l`."""
    version = found.group("v")
    if found.group("name") == "nvidia-jetpack":
        d.platform.setdefault("jetpack_release", version)
    else:
        parts = version.split(".")
        d.platform.setdefault("l4t_release", ".".join(parts + ["0"] * (3 - len(parts))))
        d.platform.setdefault("machine", "aarch64")
    d.named.append(("jetson", d.scan_line))
    return found.group(0).count("\n") + 1


def _sys_module(found: re.Match[str], d: Draft) -> int:
    """The nvidia module loaded in the kernel, and its version (the live probe's source)."""
    put(d.kernel, "nvidia_module_version", found.group("v"))
    d.module_loaded("nvidia")
    return 2


def _repl_none(found: re.Match[str], d: Draft) -> int:
    return 1 if _answer("torch.version.cuda", "None", d) else 0


def _uname_m(found: re.Match[str], d: Draft) -> int:
    machine = found.group("m")
    d.platform.setdefault("machine", {"arm64": "aarch64", "amd64": "x86_64"}.get(machine, machine))
    return 2


def _ls_local(found: re.Match[str], d: Draft) -> int:
    """The toolkits `ls /usr/local` shows, as notes (installed, not necessarily the one in
    use: /usr/local/cuda links one of them, and PATH says which nvcc runs)."""
    listing = "\n".join(found.group("listing").split("\n")[:_LISTED])
    toolkits = list(dict.fromkeys(m.group("v") for m in _TOOLKIT_FOLDER.finditer(listing)))
    for version in toolkits:
        d.note(f"the CUDA {version} toolkit is installed (/usr/local/cuda-{version})")
    listed = listing.rstrip("\n").count("\n") + 1
    return 1 + listed if toolkits else 0


def _empty(found: re.Match[str], d: Draft) -> int:
    """A command of _EMPTY_SAYS that printed nothing: what its empty answer says, as a note."""
    cmd, rest = found.group("cmd"), found.group("rest").strip()
    grep = _EMPTY_GREP.match(rest)
    word = rest if cmd == "which" else (grep.group("word").lower() if grep else "")
    says = _EMPTY_SAYS.get((cmd, word))
    if says is None:
        return 0
    d.note(says)
    return 1


def _tool_version(found: re.Match[str], d: Draft) -> int:
    return 2 if _package(d, found.group("tool"), found.group("v")) else 0


def _device_tree_model(found: re.Match[str], d: Draft) -> int:
    """The board's device-tree model, read on the board itself: a Jetson, so aarch64."""
    d.platform.setdefault("machine", "aarch64")
    d.note(f"device-tree model: {found.group('model').strip()}")
    d.named.append(("jetson", d.scan_line))
    return 2


# (a literal every match holds, or literals split by "|" one of which each match holds, the
# pattern, its reader: the lines it read, 0 for none)
_PAIRS: tuple[tuple[str, re.Pattern[str], Callable[[re.Match[str], Draft], int]], ...] = (
    (">>>", _REPL, _session),
    ("Out[", _IPYTHON, _session),
    ("torch.|tf.|tensorflow.|jax.", _BARE, _session),
    (" -c ", _PYTHON_C, _python_c),
    ("nvidia.ko", _MODINFO, _modinfo),
    ("CUDNN_MAJOR", _CUDNN_DEFINES, _cudnn_header),
    ("Name: ", _PIP_SHOW, _pip_show),
    ("Package: nvidia-", _JETSON_STANZA, _jetson_stanza),
    ("show nvidia-|-s nvidia-", _JETSON_ASKED, _jetson_stanza),
    ("/sys/module/nvidia/version", _SYS_MODULE, _sys_module),
    ("modinfo", _MODINFO_GREP, _modinfo),
    ("modinfo", _MODINFO_FIELD, _modinfo),
    (">>>", _REPL_NONE, _repl_none),
    ("uname|--print-architecture|arch\n", _UNAME_M, _uname_m),
    ("/model", _DT_MODEL, _device_tree_model),
    ("/usr/local", _LS_LOCAL, _ls_local),
    ("lsmod|ldconfig|which", _EMPTY, _empty),
    ("vllm", _TOOL_VERSION, _tool_version),
)


# "| CUDA Version | 12.4 |": a label that starts with a letter (not the "|---|---|" rule under a
# table's head), one value, nothing after the closing bar.
_TABLE_ROW = re.compile(
    r"^[ \t]{0,4}\|[ \t]{0,4}(?P<label>[A-Za-z][^|\n]{0,50}?)[ \t]{0,4}\|[ \t]{0,4}"
    r"(?P<value>[^|\s-][^|\n]{0,120}?)[ \t]{0,4}\|[ \t]{0,4}$",
    re.MULTILINE,
)


# `echo $CUDA_VISIBLE_DEVICES` (or `echo ${LD_LIBRARY_PATH}`, `printenv CUDA_HOME`) and the value
# it printed on the next line: given back as "NAME=value", the line the environment rules read.
_ECHO = re.compile(
    r"(?:\becho\s{1,4}[\"']?\$\{?|\bprintenv\s{1,4})(?P<label>[A-Z][A-Z0-9_]{1,60})\}?[\"']?"
    r"[ \t]{0,4}\n(?P<value>[^\s$#>][^\n]{0,400}?)[ \t]{0,4}$",
    re.MULTILINE,
)


# (literals one of which a paste must hold, the pattern, what joins the label to the value)
_GIVEN_BACK: tuple[tuple[tuple[str, ...], re.Pattern[str], str], ...] = (
    (("#",), _HEADING, ": "),
    (("|",), _TABLE_ROW, ": "),
    (("echo", "printenv"), _ECHO, "="),
)


def given_back(text: str) -> list[tuple[int, str]]:
    """(line number of the value, the line that says it) for each issue form heading and its
    value ("Label: value"), markdown table row of two cells ("Label: value") and echoed
    environment variable ("NAME=value")."""
    out: list[tuple[int, str]] = []
    for literals, pattern, joint in _GIVEN_BACK:
        if any(literal in text for literal in literals):
            out += [
                (
                    text.count("\n", 0, m.start("value")) + 1,
                    m.group("label") + joint + m.group("value"),
                )
                for m in pattern.finditer(text)
            ]
    return out


def _printed(code: str, said: list[str], draft: Draft) -> int:
    """The values a `python -c` printed: each print statement wrote one line, its arguments
    split on top-level commas, each with the word print wrote for it (print joins them with one
    space). The lines read (the command's and the printed ones), 0 where none told a fact."""
    prints = [
        found.group("args")
        for statement in code.split(";")
        if (found := _PRINT.match(statement.strip())) is not None
    ]
    if not prints or len(said) < len(prints):
        return 0
    told = False
    for args, line in zip(prints, said):
        asked = _arguments(args)
        words = line.split()
        if not asked or len(words) != len(asked):
            return 0
        for ask, word in zip(asked, words):
            # print writes a str without quotes: a version is given back quoted as the REPL
            # shows it; True/False/None, [] and a count are what the REPL shows unquoted too
            plain = word in ("True", "False", "None", "[]") or word.isdecimal()
            value = word if plain else f"'{word}'"
            told = _answer(ask, value, draft) or told
    return 1 + len(prints) if told else 0


def _arguments(args: str) -> list[str]:
    out, depth, current = [], 0, ""
    for char in args:
        depth += char in "([{"
        depth -= char in ")]}"
        if char == "," and depth == 0:
            out.append(current.strip())
            current = ""
        else:
            current += char
    out.append(current.strip())
    return [a for a in out if a]


def _answer(ask: str, said: str, d: Draft) -> bool:  # noqa: PLR0911 (one return per question)
    question = _ASK.match(ask)
    if question is None:
        return False
    mod, what = question.group("mod"), question.group("what")
    torch = mod == "torch"
    quoted = _QUOTED.match(said)
    value = quoted.group("v") if quoted else (said if _BARE_VERSION.match(said) else None)
    if what == "__version__" or mod == "jax":
        return _version_or_backend(mod, what, value, d)
    if what == "version.cuda" and torch:
        if said == "None":
            d.torch.setdefault("cuda_none", True)
            return True
        if value and re.fullmatch(r"\d{1,2}\.\d{1,2}", value):
            d.torch.setdefault("cuda", value)
            return True
        return False
    if what.startswith("cuda.is_available") and torch and said in ("True", "False"):
        if d.torch_cuda_available is None:
            d.torch_cuda_available = said == "True"
        return True
    if what in ("cuda.device_count()", "test.is_gpu_available()"):
        return _gpus_seen(torch, said, d)
    if what.startswith(("cuda.get_device", "cuda.get_arch")):
        return _device(what, said, value, d)
    if what.startswith("config.list_physical_devices") and not torch and said == "[]":
        d.tensorflow.setdefault("cuda_available", False)
        return True
    if what == "backends.cudnn.version()" and torch:
        return _torch_cudnn(said, d)
    return _build_or_driver(what, torch, said, d)


def _build_or_driver(what: str, torch: bool, said: str, d: Draft) -> bool:
    """TensorFlow's `is_built_with_cuda()`, and torch's `_C._cuda_getDriverVersion()`:
    cudaDriverGetVersion's 1000 * major + 10 * minor, the newest CUDA the driver runs."""
    if what.startswith("test.is_built_with_cuda") and not torch and said in ("True", "False"):
        d.tensorflow.setdefault("cpu_only", said == "False")
        return True
    if what == "_C._cuda_getDriverVersion()" and torch and _DRIVER_API.match(said):
        value = int(said)
        put(d.nvml, "cuda_driver_version", f"{value // 1000}.{value % 1000 // 10}")
        return True
    return False


_DRIVER_API = re.compile(r"^\d{4,6}$")


def _version_or_backend(mod: str, what: str, value: str | None, d: Draft) -> bool:
    """A framework's `__version__`, or JAX's `default_backend()` (its only other question)."""
    if value is None:
        return False
    if what == "__version__":
        return _package(d, {"torch": "torch", "jax": "jax"}.get(mod, "tensorflow"), value)
    return what == "default_backend()" and _jax_backend(value, d)


def _jax_backend(backend: str, d: Draft) -> bool:
    """`jax.default_backend()`: "gpu" (CUDA or ROCm: JAX names both so) or "cpu" (no GPU
    backend: jax.devices() lists CPUs)."""
    if backend == "cpu":
        d.jax.setdefault("cuda_available", False)
        d.note("jax.default_backend() is 'cpu': JAX found no GPU backend")
        return True
    if backend in ("gpu", "cuda", "rocm"):
        d.note(f"jax.default_backend() is '{backend}': JAX runs on a GPU")
        return True
    return False


def _gpus_seen(torch: bool, said: str, d: Draft) -> bool:
    """`torch.cuda.device_count()` (as many GPUs as torch sees: none is is_available() False)
    and TensorFlow's `tf.test.is_gpu_available()`."""
    if torch and said.isdecimal():
        if d.torch_cuda_available is None:
            d.torch_cuda_available = int(said) > 0
        return True
    if not torch and said in ("True", "False"):
        d.tensorflow.setdefault("cuda_available", said == "True")
        return True
    return False


def _torch_cudnn(said: str, d: Draft) -> bool:
    """`torch.backends.cudnn.version()`: the cuDNN torch loaded (cudnnGetVersion's integer:
    90100 is 9.1.0 from cuDNN 9 on, 8902 is 8.9.2 before); None when torch._C has no _cudnn,
    a build without cuDNN (torch/backends/cudnn/__init__.py)."""
    if said == "None":
        d.torch.setdefault("cudnn_none", True)
        d.note("torch.backends.cudnn.version() is None: this torch build has no cuDNN")
        return True
    if not re.fullmatch(r"[1-9]\d{3,5}", said):
        return False
    number = int(said)
    major, rest = divmod(number, 10_000 if number >= 90_000 else 1_000)
    d.torch.setdefault("cudnn", f"{major}.{rest // 100}.{rest % 100}")
    return True


def _device(what: str, said: str, value: str | None, d: Draft) -> bool:
    """The CUDA device questions: a GPU's name or capability, the build's architectures."""
    if what.startswith("cuda.get_device_name"):
        if not value:
            return False
        index = _DEVICE_INDEX.search(what)
        number = int(index.group("i")) if index and index.group("i") else 0
        if number in d.gpus:  # its capability came first: the GPU is there
            d.gpus[number].setdefault("name", value)
        else:
            d.named_gpus.append((value, 1, d.scan_line))
        return True
    if what.startswith("cuda.get_device_capability"):
        return _capability(what, said, d)
    codes = _ARCH_LIST.match(said)
    if codes is None:
        return False
    arch = tuple(_ARCH.findall(codes.group("codes")))
    if not arch:
        return False
    d.torch.setdefault("arch_list", arch)
    d.note("torch.cuda.get_arch_list(): the torch build has kernels for " + ", ".join(arch))
    return True


def _capability(what: str, said: str, d: Draft) -> bool:
    """torch.cuda.get_device_capability(i) answered "(8, 6)": that GPU's compute capability
    (torch numbers the GPUs it sees; a GPU a listing named keeps that listing's value)."""
    found = _CAPABILITY.match(said)
    if found is None:
        return False
    index = _DEVICE_INDEX.search(what)
    number = int(index.group("i")) if index and index.group("i") else 0
    cc = f"{found.group('major')}.{found.group('minor')}"
    gpu = d.gpu(number)
    if d.named_gpus and "name" not in gpu:  # torch named this GPU too: keep them together
        gpu["name"] = d.named_gpus.pop(0)[0]
    gpu.setdefault("compute_capability", cc)
    return True


def _package(d: Draft, name: str, version: str) -> bool:
    try:
        versions.pep440(version)
    except ValueError:
        return False
    d.packages.setdefault(name.lower().replace("_", "-"), version)
    return True
