"""CUDA software on the host: toolkits (/usr/local/cuda*, CUDA_HOME, CUDA_PATH) and the
libraries a process would load: cudart, cuDNN, NCCL, and the driver's libcuda.

Libraries come from `ldconfig -p` plus each toolkit's lib directories; a version comes from the
resolved file name (libcudart.so.13.0.96), refined from cudnn_version.h / nccl.h when the file name
only carries the major version.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path

from gpudoctor import versions
from gpudoctor.cuda_wheels import LIBRARY_FILE
from gpudoctor.facts import CudaLibFacts, CudaToolkit, LibraryFact, ProbeIssue
from gpudoctor.probes.files import host_path, list_dir, read_text, under
from gpudoctor.probes.runner import Runner, command_issue

PROBE = "cudalibs"
LIB_NAMES = ("libcudart", "libcudnn", "libnccl", "libcuda")
_LIB_FILE = re.compile(r"^(libcudart|libcudnn|libnccl|libcuda)\.so(?:\.(\d[\w.]*))?$")
# Libraries a framework's nvidia-* wheels bring, which a system copy can shadow.
_SHADOW_FILE = LIBRARY_FILE
_MAX_PATH_DIRS = 32  # LD_LIBRARY_PATH entries looked at (bounded)
_LDCONFIG_LINE = re.compile(r"^\s*(\S+)\s+\(([^)]*)\)\s+=>\s+(\S+)\s*$")
_NVCC_VERSION = re.compile(r"\bV(\d+\.\d+\.\d+)\b")
_DEFINE = re.compile(r"^#\s*define\s+(\w+)\s+(\d+)\s*$", re.MULTILINE)
# Where distributions put the driver's libcuda and headers besides ldconfig's cache.
_EXTRA_LIB_DIRS = ("usr/lib/wsl/lib",)
_INCLUDE_DIRS = (
    "usr/include",
    "usr/include/x86_64-linux-gnu",
    "usr/include/aarch64-linux-gnu",
    "usr/local/include",
)


def probe_cuda_libs(
    root: Path, env: Mapping[str, str], runner: Runner
) -> tuple[CudaLibFacts, list[ProbeIssue]]:
    issues: list[ProbeIssue] = []
    dirs = toolkit_dirs(root, env)
    toolkits = tuple(toolkit_facts(root, d, runner, issues) for d in dirs)
    cache = ldconfig_paths(root, runner, issues)
    found = [p for p in cache if _LIB_FILE.match(p.name)]
    for directory in [*(d / sub for d in dirs for sub in ("lib64", "lib")), *_extra(root)]:
        found.extend(directory / n for n in list_dir(directory) if _LIB_FILE.match(n))
    libs = _dedupe(root, found)
    headers = header_versions(root, dirs)
    by_name = {
        name: tuple(_refine(f, headers.get(name)) for f in libs if f.name == name)
        for name in LIB_NAMES
    }
    facts = CudaLibFacts(
        toolkits=toolkits,
        cudart=by_name["libcudart"],
        cudnn=by_name["libcudnn"],
        nccl=by_name["libnccl"],
        libcuda=by_name["libcuda"],
        ld_library_path_libs=search_path_libs(root, env),
        loader_cache_libs=tuple(_dedupe(root, [p for p in cache if _SHADOW_FILE.match(p.name)])),
    )
    return facts, issues


def search_path_libs(root: Path, env: Mapping[str, str]) -> tuple[LibraryFact, ...]:
    """The libraries nvidia-* wheels bring (cuda_wheels.LIBRARIES: cuDNN, cuBLAS, NCCL,
    nvJitLink, cuSPARSE, ...) in LD_LIBRARY_PATH's folders, in the loader's search order."""
    out: list[LibraryFact] = []
    seen: set[str] = set()
    entries = [e for e in env.get("LD_LIBRARY_PATH", "").split(":") if e.startswith("/")]
    for entry in entries[:_MAX_PATH_DIRS]:
        folder = under(root, entry)
        names = sorted(n for n in list_dir(folder) if _SHADOW_FILE.match(n))
        for fact in _dedupe(root, [folder / n for n in names]):
            if fact.path not in seen:
                seen.add(fact.path)
                out.append(fact)
    return tuple(out)


def toolkit_dirs(root: Path, env: Mapping[str, str]) -> list[Path]:
    """Every CUDA toolkit directory, each once (/usr/local/cuda usually links to cuda-X.Y)."""
    candidates = [
        root / "usr/local" / n for n in list_dir(root / "usr/local") if n.startswith("cuda")
    ]
    candidates += [root / "opt" / n for n in list_dir(root / "opt") if n.startswith("cuda")]
    candidates.append(root / "usr/lib/cuda")
    candidates += [under(root, env[v]) for v in ("CUDA_HOME", "CUDA_PATH") if env.get(v)]
    seen: dict[str, Path] = {}
    for path in candidates:
        if _is_toolkit(path):
            real = Path(os.path.realpath(path))
            seen.setdefault(str(real), real)
    return sorted(seen.values())


def _is_toolkit(path: Path) -> bool:
    return any(
        (path / marker).exists()
        for marker in ("bin/nvcc", "version.json", "version.txt", "include/cuda_runtime_api.h")
    )


def toolkit_facts(root: Path, path: Path, runner: Runner, issues: list[ProbeIssue]) -> CudaToolkit:
    nvcc_version = None
    nvcc = path / "bin/nvcc"
    if nvcc.exists():
        result = runner([str(nvcc), "--version"], timeout_s=5.0)
        match = _NVCC_VERSION.search(result.stdout) if result.ok else None
        if match:
            nvcc_version = match.group(1)
        else:
            issues.append(command_issue(PROBE, "toolkits.nvcc_version", result))
    return CudaToolkit(
        path=host_path(root, path), version=toolkit_version(path), nvcc_version=nvcc_version
    )


def toolkit_version(path: Path) -> str | None:
    """version.json (CUDA >= 11.1), version.txt (<= 11.0), else CUDART_VERSION in the headers
    (pip-style toolkits and nvidia/cuda "base" images ship neither file)."""
    text = read_text(path / "version.json")
    if text:
        try:
            data = json.loads(text)
            version = data["cuda"]["version"]
            if isinstance(version, str):
                return version
        except (json.JSONDecodeError, KeyError, TypeError):
            pass
    match = re.search(r"CUDA Version\s+(\d[\d.]*)", read_text(path / "version.txt") or "")
    if match:
        return match.group(1)
    defines = dict(_DEFINE.findall(read_text(path / "include/cuda_runtime_api.h") or ""))
    if "CUDART_VERSION" in defines:
        code = int(defines["CUDART_VERSION"])
        return f"{code // 1000}.{code % 1000 // 10}"
    return None


def ldconfig_paths(root: Path, runner: Runner, issues: list[ProbeIssue]) -> list[Path]:
    """The loader cache's CUDA library files (`ldconfig -p`, built from ld.so.conf)."""
    result = runner(["ldconfig", "-p"], timeout_s=5.0)
    if not result.ok:
        issues.append(command_issue(PROBE, "libraries", result))
        return []
    found = []
    for line in result.stdout.splitlines():
        match = _LDCONFIG_LINE.match(line)
        if match and (_LIB_FILE.match(match.group(1)) or _SHADOW_FILE.match(match.group(1))):
            found.append(under(root, match.group(3)))
    return found


def _extra(root: Path) -> list[Path]:
    return [root / d for d in _EXTRA_LIB_DIRS]


def _dedupe(root: Path, paths: list[Path]) -> list[LibraryFact]:
    """One fact per real file: libcudart.so, .so.13 and .so.13.0.96 are usually one library."""
    facts: dict[str, LibraryFact] = {}
    for path in paths:
        real = Path(os.path.realpath(path)) if os.path.lexists(path) else path
        pattern = _LIB_FILE if _LIB_FILE.match(path.name) else _SHADOW_FILE
        match = pattern.match(real.name) or pattern.match(path.name)
        if match is None:
            continue
        # Prefer the version in the resolved name; a dev link "libcudart.so" names none.
        version = match.group(2) or (pattern.match(path.name) or match).group(2)
        key = str(real)
        old = facts.get(key)
        if old is None or (old.version is None and version is not None):
            facts[key] = LibraryFact(
                name=match.group(1), path=host_path(root, real), version=version
            )
    return sorted(facts.values(), key=lambda f: (f.name, f.path))


def header_versions(root: Path, toolkits: list[Path]) -> dict[str, str]:
    """Full cuDNN / NCCL versions from their headers ("9.1.0"), by library name."""
    dirs = [t / "include" for t in toolkits] + [root / d for d in _INCLUDE_DIRS]
    versions: dict[str, str] = {}
    for directory in dirs:
        for name in list_dir(directory):
            if name.startswith("cudnn_version") or name == "cudnn.h":
                _header(
                    versions,
                    "libcudnn",
                    directory / name,
                    "CUDNN_MAJOR",
                    "CUDNN_MINOR",
                    "CUDNN_PATCHLEVEL",
                )
            elif name == "nccl.h":
                _header(
                    versions, "libnccl", directory / name, "NCCL_MAJOR", "NCCL_MINOR", "NCCL_PATCH"
                )
    return versions


def _header(versions: dict[str, str], lib: str, path: Path, *macros: str) -> None:
    defines = dict(_DEFINE.findall(read_text(path) or ""))
    if all(m in defines for m in macros) and lib not in versions:
        versions[lib] = ".".join(str(int(defines[m])) for m in macros)


def _refine(fact: LibraryFact, header: str | None) -> LibraryFact:
    """Take the header's full version when the file name only told the major (libcudnn.so.9)."""
    if header is None:
        return fact
    if fact.version is None or (
        "." not in fact.version and versions.same_prefix(header, fact.version, 1)
    ):
        return LibraryFact(name=fact.name, path=fact.path, version=header)
    return fact
