"""The paths of a Python traceback's frames, and of the warnings Python prints with their file
(CPython's traceback module: `  File "/opt/conda/lib/python3.10/site-packages/torch/nn/
modules/module.py", line 1145, in to`; IPython's `File ~/.venv/lib/python3.11/site-packages/
torch/...:905, in Module.cuda`; `.../dist-packages/torch/cuda/__init__.py:107: UserWarning:`).

A frame inside `site-packages` or `dist-packages` names a package installed in that Python: the
first folder (or module file) below it is the package's import name. Its version is not in the
path, so no framework fact is written (a framework without a version is not judged by the
version checks); the report says which packages the frames ran through, and in which Python:
`lib/python3.10/`, Windows' `Python310\\Lib\\site-packages`, a conda environment's
`envs\\NAME\\Lib\\site-packages` (the Python of the interpreter's own folder name only).
"""

from __future__ import annotations

import re

from gpudoctor.pasted.draft import Draft, put
from gpudoctor.pasted.scan import ascii_lower, iter_lines

NAME = "traceback paths"
DESCRIPTION = "a Python traceback's frames (the packages installed in site-packages, the Python)"

_MAX_LINES = 400  # frame lines read: a long log repeats its tracebacks
_MAX_SHOWN = 8  # packages the note names
_MAX_LINE = 2000

# The folder below site-/dist-packages, as a path names it; the path's separators are `/` or
# `\` (a Windows path pasted from a JSON string doubles them).
_PACKAGE = re.compile(
    r"(?:site|dist)-packages[\\/]{1,2}(?P<pkg>[A-Za-z_][A-Za-z0-9_]{0,60})(?P<end>[\\/.])"
)
# The interpreter the folder belongs to: "lib/python3.10/", "Python310\" (Windows' installer),
# "python3.10\"; a bare "python3" (Debian's /usr/lib/python3/dist-packages) names no minor.
_PYTHON = re.compile(
    r"[\\/]python(?P<dotted>3\.\d{1,2})[\\/]|[\\/]Python3(?P<win>\d{1,2})[\\/]", re.IGNORECASE
)
# Not a package: the installer's metadata and the folders of the wheels' shared libraries
# (nvidia/: the CUDA wheels, read by facts_scan from the library path itself).
_NOT_A_PACKAGE = frozenset({"nvidia", "__pycache__", "_distutils_hack", "pkg_resources"})


def parse(text: str, draft: Draft) -> None:
    lower = ascii_lower(text)
    found: dict[str, str | None] = {}  # import name -> the Python of its folder
    windows: set[str] = set()  # the Pythons named by a Windows installer's folder
    first = -1
    for n, (start, line) in enumerate(iter_lines(lower, text, "-packages")):
        if n >= _MAX_LINES:
            break
        for m in _PACKAGE.finditer(line[:_MAX_LINE]):
            pkg = m.group("pkg")
            if pkg in _NOT_A_PACKAGE or (m.group("end") == "." and not _module_file(line, m)):
                continue
            if _version_known(pkg, draft):
                continue
            if first == -1:
                first = start
            python, on_windows = _python_of(line[: m.start()])
            if python and on_windows:
                windows.add(python)
            if found.get(pkg) is None:
                found[pkg] = python
    if not found:
        return
    pythons = sorted({p for p in found.values() if p})
    if len(pythons) == 1 and pythons[0] in windows:
        # ("lib/python3.10/" is facts_scan's Python rule, which reads it anywhere)
        put(draft.platform, "python_version", pythons[0])
    names = list(found)
    shown = ", ".join(names[:_MAX_SHOWN]) + (
        f" and {len(names) - _MAX_SHOWN} more" if len(names) > _MAX_SHOWN else ""
    )
    where = f" of Python {', '.join(pythons)}" if pythons else ""
    draft.note(
        f"the paste's Python paths run through packages installed in the site-packages{where}: "
        f"{shown} (installed there; their versions are not in the paste)"
    )
    draft.read_at(NAME, text, first)


def _version_known(pkg: str, draft: Draft) -> bool:
    """A shape before this one gave the package's version (collect_env, pip list)."""
    name = pkg.lower().replace("_", "-")
    if name == "torch" and draft.torch.get("version"):
        return True
    return name in draft.packages or (name == "tensorflow" and bool(draft.tensorflow))


def _module_file(line: str, m: re.Match[str]) -> bool:
    """`site-packages/six.py`: a module file is a package too; `site-packages/torch.libs` no."""
    return line.startswith("py", m.end()) and not line[m.end() + 2 : m.end() + 3].isalnum()


def _python_of(path: str) -> tuple[str | None, bool]:
    """The Python of the folder's path, and whether a Windows installer's folder names it."""
    found, windows = None, False
    for m in _PYTHON.finditer(path[-300:]):
        windows = m.group("win") is not None
        found = m.group("dotted") or f"3.{m.group('win')}"
    return found, windows
