"""The files CUDA libraries load from, read from text: `ldd`, `ldconfig -p`, file listings,
LD_DEBUG=libs traces, LD_LIBRARY_PATH and the CUDA wheels' library paths."""

from __future__ import annotations

import re

from gpudoctor.cuda_wheels import LIBRARY_FILE
from gpudoctor.pasted.draft import Draft
from gpudoctor.pasted.facts_scan.rule import _Rule, _rx


def _ldconfig_libcuda(m: re.Match[str], d: Draft) -> bool:
    d.note(f"the loader cache holds libcuda ({m.group('path')})")
    return True


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


RULES: tuple[_Rule, ...] = (
    _Rule(
        "libcuda.so",
        _rx(r"\blibcuda\.so(?:\.1)? \(libc6[^)\n]{0,30}\) => (?P<path>/\S{1,200})"),
        _ldconfig_libcuda,
    ),
)


RULES_2: tuple[_Rule, ...] = (
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
)
