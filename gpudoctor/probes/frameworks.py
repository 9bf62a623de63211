"""Installed ML frameworks (torch, tensorflow, jax), read without importing them.

Importing torch costs seconds and may initialise CUDA, so the facts come from package metadata
(dist_info.py, in importlib.metadata's shape) and the frameworks' own generated version files:
torch/version.py and tensorflow/python/platform/build_info.py. The edge is the list of
distributions (tests pass a fake site-packages tree).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from gpudoctor import versions
from gpudoctor.assignments import MAX_BYTES, read_assignments
from gpudoctor.cuda_wheels import runtime_cuda
from gpudoctor.facts import BundledLib, Companion, FrameworkFacts, InstalledProgram, ProbeIssue
from gpudoctor.framework_names import GPU_PROGRAMS
from gpudoctor.probes.dist_info import Dist, dist_folders
from gpudoctor.probes.files import read_text

PROBE = "frameworks"
_TF_DISTS = ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tf-nightly", "tensorflow-intel")
_REQ_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_JAX_PLUGIN = re.compile(r"^jax-cuda(\d+)-(plugin|pjrt)$")
_INTERESTING = ("torch", "jax", "nvidia-")


def probe_frameworks(
    distributions: Iterable[Dist] | None = None,
    paths: Sequence[str | Path] | None = None,
) -> tuple[tuple[FrameworkFacts, ...], list[ProbeIssue]]:
    """Frameworks among `distributions` (default: those found on `paths`, else on sys.path)."""
    if distributions is None:
        distributions = find_distributions(sys.path if paths is None else paths)
    dists = index(distributions)
    issues: list[ProbeIssue] = []
    found = [
        torch_facts(dists, issues),
        tensorflow_facts(dists, issues),
        jax_facts(dists),
    ]
    return tuple(f for f in found if f is not None), issues


def probe_programs(
    distributions: Iterable[Dist] | None = None,
    paths: Sequence[str | Path] | None = None,
) -> tuple[tuple[InstalledProgram, ...], list[ProbeIssue]]:
    """The GPU programs installed as distributions (framework_names.GPU_PROGRAMS), found by
    their dist-info folder names like the frameworks."""
    if distributions is None:
        folders = dist_folders(sys.path if paths is None else paths)
        distributions = [d for name, d in folders if normalize(name) in GPU_PROGRAMS]
    dists = index(distributions)
    found = tuple(
        InstalledProgram(name=name, version=dists[name].version)
        for name in GPU_PROGRAMS
        if name in dists and dists[name].version
    )
    return found, []


def find_distributions(paths: Sequence[str | Path]) -> list[Dist]:
    """The distributions that can matter here, found by directory name alone.

    importlib.metadata.distributions() parses every METADATA file on the path (tens of ms in a
    big environment); the dist-info directory name already says which ones to read."""
    return [dist for name, dist in dist_folders(paths) if _interesting(name)]


def _interesting(name: str) -> bool:
    norm = normalize(name)
    return norm in _TF_DISTS or norm.startswith(_INTERESTING)


def normalize(name: str) -> str:
    return versions.canonical_name(name)


def index(distributions: Iterable[Dist]) -> dict[str, Dist]:
    """By normalized name; the first one wins, as on sys.path."""
    dists: dict[str, Dist] = {}
    for dist in distributions:
        name = dist.metadata["Name"] if dist.metadata else None
        if name:
            dists.setdefault(normalize(name), dist)
    return dists


def bundled_libs(dists: dict[str, Dist], start: str) -> tuple[BundledLib, ...]:
    """Installed nvidia-* wheels that `start` pulls in, directly or through its dependencies.

    Markers and extras are ignored on purpose: only what is installed counts, and
    tensorflow[and-cuda] / jax[cuda12] bring their nvidia-* wheels through an extra."""
    seen: set[str] = set()
    todo = [(start, 0)]
    while todo:
        name, depth = todo.pop()
        dist = dists.get(name)
        if dist is None or name in seen or depth > 3:
            continue
        seen.add(name)
        for req in dist.requires or []:
            match = _REQ_NAME.match(req)
            if match:
                todo.append((normalize(match.group(1)), depth + 1))
    return tuple(
        BundledLib(package=n, version=dists[n].version)
        for n in sorted(seen)
        if n.startswith("nvidia-")
    )


def cudnn_wheel(bundled: Iterable[BundledLib]) -> str | None:
    """The version of the nvidia-cudnn-cuXX wheel among a framework's CUDA library wheels: the
    cuDNN it loads (the live probe and a pasted package list read it the same way)."""
    return next((b.version for b in bundled if re.match(r"^nvidia-cudnn-cu\d+$", b.package)), None)


def torch_facts(dists: dict[str, Dist], issues: list[ProbeIssue]) -> FrameworkFacts | None:
    dist = dists.get("torch")
    if dist is None:
        return None
    version = dist.version
    local = version.partition("+")[2]
    version_file = Path(str(dist.locate_file("torch/version.py")))
    text = read_text(version_file, MAX_BYTES)
    if text is not None:
        values = read_assignments(text)
        cuda, hip = values.get("cuda"), values.get("hip")
        cpu_only: bool | None = local == "cpu" or (cuda is None and hip is None)
    else:
        issues.append(
            ProbeIssue(
                PROBE, "frameworks.torch", "torch-version-file-unreadable", str(version_file)
            )
        )
        cuda = versions.cuda_of_tag(local) or (None if local else _runtime(dists))
        hip = None
        cpu_only = True if local == "cpu" else (False if cuda or local.startswith("rocm") else None)
    bundled = bundled_libs(dists, "torch")
    return FrameworkFacts(
        name="torch",
        version=version,
        location=str(dist.locate_file("torch")),
        cuda=cuda,
        cpu_only=cpu_only,
        cudnn=cudnn_wheel(bundled),
        hip=hip,
        bundled=bundled,
        companions=companions(dists, ("torchvision", "torchaudio")),
    )


def companions(dists: dict[str, Dist], names: Sequence[str]) -> tuple[Companion, ...]:
    """The installed packages among `names`, with version and local tag ("0.20.1", "cu124")."""
    out = []
    for name in names:
        dist = dists.get(name)
        if dist is not None and dist.version:
            public, _, local = dist.version.partition("+")
            out.append(Companion(name, public, local))
    return tuple(out)


def tensorflow_facts(dists: dict[str, Dist], issues: list[ProbeIssue]) -> FrameworkFacts | None:
    name = next((n for n in _TF_DISTS if n in dists), None)
    if name is None:
        return None
    dist = dists[name]
    info_file = Path(str(dist.locate_file("tensorflow/python/platform/build_info.py")))
    text = read_text(info_file)
    if text is None:
        issues.append(
            ProbeIssue(PROBE, "frameworks.tensorflow", "tf-build-info-unreadable", str(info_file))
        )
    cuda = tf_value(text, "cuda_version")
    is_cuda = tf_value(text, "is_cuda_build")
    is_rocm = tf_value(text, "is_rocm_build")
    cpu_only: bool | None = None
    if name == "tensorflow-cpu" or (is_cuda == "False" and is_rocm != "True"):
        cpu_only = True
    elif is_cuda == "True" or is_rocm == "True":
        cpu_only = False
    bundled = bundled_libs(dists, name)
    if text is None and not cpu_only:  # no build info: the CUDA runtime [and-cuda] installed
        cuda = _runtime(dists)
    return FrameworkFacts(
        name="tensorflow",
        version=dist.version,
        location=str(dist.locate_file("tensorflow")),
        cuda=cuda or None,
        cpu_only=cpu_only,
        cudnn=cudnn_wheel(bundled) or tf_value(text, "cudnn_version") or None,
        bundled=bundled,
        arch_list=tf_arch_list(text),
        build_cudnn=tf_value(text, "cudnn_version") or None,
    )


_TF_ARCHS = re.compile(r"""['"]cuda_compute_capabilities['"]\s*[,:]\s*\[([^\]]{0,400})\]""")
_TF_ARCH = re.compile(r"(?:sm|compute)_\d{2,3}[af]?")


def _runtime(dists: dict[str, Dist], major: str | None = None) -> str | None:
    """The CUDA of the installed nvidia-cuda-runtime wheel (cuda_wheels.runtime_cuda)."""
    return runtime_cuda(((n, d.version) for n, d in sorted(dists.items())), major)


def tf_arch_list(text: str | None) -> tuple[str, ...]:
    """build_info's cuda_compute_capabilities: ['sm_60', 'sm_70', 'compute_90']."""
    found = _TF_ARCHS.search(text or "")
    return tuple(_TF_ARCH.findall(found.group(1))) if found else ()


def tf_value(text: str | None, key: str) -> str | None:
    """A value of build_info's dict or OrderedDict literal: ('cuda_version', '12.3') or
    'cuda_version': '12.3'; booleans come back as "True"/"False"."""
    match = re.search(rf"""['"]{key}['"]\s*[,:]\s*(?:['"]([^'"]*)['"]|(True|False))""", text or "")
    return (match.group(1) if match.group(1) is not None else match.group(2)) if match else None


def jax_facts(dists: dict[str, Dist]) -> FrameworkFacts | None:
    dist = dists.get("jax")
    if dist is None:
        return None
    plugins = sorted(n for n in dists if _JAX_PLUGIN.match(n))
    extra = [
        BundledLib(package=n, version=dists[n].version) for n in ["jaxlib", *plugins] if n in dists
    ]
    nvidia = {b.package: b for n in ["jax", "jaxlib", *plugins] for b in bundled_libs(dists, n)}
    bundled = tuple(sorted([*extra, *nvidia.values()], key=lambda b: b.package))
    cuda, cudnn = _jax_cuda(dists, plugins)
    return FrameworkFacts(
        name="jax",
        version=dist.version,
        location=str(dist.locate_file("jax")),
        cuda=cuda,
        cpu_only=cuda is None,
        cudnn=cudnn_wheel(bundled) or cudnn,
        bundled=bundled,
    )


def _jax_cuda(dists: dict[str, Dist], plugins: list[str]) -> tuple[str | None, str | None]:
    """CUDA from the plugin wheel's major ("jax-cuda12-plugin"), refined by the installed
    nvidia-cuda-runtime wheel; older jaxlib carried it in a local tag ("+cuda12.cudnn89")."""
    for plugin in plugins:
        major = _JAX_PLUGIN.match(plugin).group(1)  # type: ignore[union-attr]
        return _runtime(dists, major) or major, None
    jaxlib = dists.get("jaxlib")
    tag = (
        re.match(r"cuda(\d+)(?:\.cudnn(\d)(\d+))?", jaxlib.version.partition("+")[2])
        if jaxlib
        else None
    )
    if tag:
        return tag.group(1), f"{tag.group(2)}.{tag.group(3)}" if tag.group(2) else None
    return None, None
