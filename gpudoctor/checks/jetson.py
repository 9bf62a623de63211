"""Jetson (L4T): PyPI's CUDA wheels are not for it. A Jetson's GPU is integrated (Tegra) and
runs JetPack's CUDA; the aarch64 CUDA wheels on PyPI and download.pytorch.org are built for
server Arm (SBSA: Grace, Ampere Altra with a discrete GPU), and NVIDIA publishes separate
framework builds for JetPack ("Installing PyTorch for Jetson Platform"). A framework that brings
nvidia-* CUDA wheels, or a torch with a +cuXXX tag, is the wrong build there, up to JetPack 6;
JetPack 7 (Jetson Thor) aligns Jetson with SBSA, and those wheels are the right ones there.

The matrix's `[[jetpack]]` table maps a JetPack release to its L4T releases and the CUDA it
packages: `with_jetpack` fills in the facts a host or report leaves out (the L4T of a named
JetPack, the JetPack of an L4T, the CUDA of the integrated GPU's driver), so that every check
judges a Jetson's CUDA as it judges a discrete GPU's.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from gpudoctor import framework_names, versions
from gpudoctor.checks.base import Intent, finding
from gpudoctor.facts_view import jetson_gpu_name, nvidia_pci_gpus
from gpudoctor.findings import ERROR, NA, OK, UNKNOWN, WARN, Finding
from gpudoctor.matrix import platforms

if TYPE_CHECKING:
    from gpudoctor.facts import FrameworkFacts, HostFacts
    from gpudoctor.matrix.model import JetpackRelease, Matrix

CODE = "jetson-wheel"
_CU_TAG = re.compile(r"\+cu\d{2,3}\b")
_JETSON_DOCS = (
    "https://docs.nvidia.com/deeplearning/frameworks/install-pytorch-jetson-platform/index.html"
)
# NVIDIA's own page for its TensorFlow builds for JetPack ("Installing TensorFlow for Jetson
# Platform"); other frameworks are named with the PyTorch page, the one NVIDIA keeps per JetPack
_JETSON_TF_DOCS = (
    "https://docs.nvidia.com/deeplearning/frameworks/install-tf-jetson-platform/index.html"
)


def _docs_for(package: str) -> str:
    return _JETSON_TF_DOCS if package.startswith("tensorflow") else _JETSON_DOCS


def jetson_release(facts: HostFacts) -> str | None:
    """The L4T release of a Jetson ("36.3.0"); "unknown" on a host that is a Jetson by its GPU
    (the matrix lists the Jetson modules' integrated GPUs by their "Jetson ..." names), its
    "-tegra" kernel or a report naming JetPack, L4T or a Jetson, but not its L4T release; None
    elsewhere."""
    if facts.platform.l4t_release is not None:
        return facts.platform.l4t_release
    if any(jetson_gpu_name(g.name) for g in facts.nvml.gpus):
        return "unknown"
    if "tegra" in (facts.kernel.release or ""):
        return "unknown"  # L4T's kernels are named "5.15.136-tegra"
    if facts.platform.jetpack_release is not None and not discrete_host(facts):
        return "unknown"  # a report naming a JetPack release the matrix does not know
    if facts.report is not None and "jetson" in facts.report.named:
        return "unknown"  # a report that names JetPack, L4T or a Jetson module
    return None


def jetpack_row(facts: HostFacts, matrix: Matrix) -> JetpackRelease | None:
    """The `[[jetpack]]` row of this Jetson: by its L4T release (numbers compared without
    trailing zeros, "35.1.0" is "35.1"), else by the JetPack release a report names."""
    l4t = _numbers(facts.platform.l4t_release)
    if l4t:
        return next((r for r in matrix.jetpack if l4t in {_numbers(v) for v in r.l4t}), None)
    jetpack = _numbers(facts.platform.jetpack_release)
    if jetpack:
        return next((r for r in matrix.jetpack if _numbers(r.version) == jetpack), None)
    return None


def discrete_host(facts: HostFacts) -> bool:
    """The host shows a discrete GPU's signs (x86_64, an NVIDIA GPU on the PCI bus, a GPU NVML
    names that is no Jetson's): a JetPack its text names is not its own."""
    if facts.platform.machine == "x86_64" or nvidia_pci_gpus(facts):
        return True
    return any(g.name and not jetson_gpu_name(g.name) for g in facts.nvml.gpus)


# The compute capability of the first Jetson module that L4T R36 (JetPack 6) runs on: R36 and
# later support the Orin series (8.7) and newer only; Xavier (7.2), TX2 (6.2), TX1 and Nano (5.3)
# stop at L4T R35 (Xavier) or R32 (the others). The R36 Developer Guide's feature overview
# covers the Jetson Orin series alone, where R34's also covers the Xavier series
# (https://docs.nvidia.com/jetson/archives/r36.4.4/DeveloperGuide/ against
# https://docs.nvidia.com/jetson/archives/r34.1/DeveloperGuide/).
_FIRST_R36_CC = (8, 7)


def before_l4t_r36(facts: HostFacts) -> bool:
    """The Jetson's L4T is R35 or older: its release says so, or, where the report does not
    state it, every GPU is a Jetson's integrated GPU of a module older than Orin (compute
    capability below 8.7), which no later L4T runs on."""
    release = facts.platform.l4t_release
    if release is not None:
        major = release.split(".")[0]
        return major.isdecimal() and int(major) <= 35
    gpus = [g for g in facts.nvml.gpus if g.name]
    if not gpus or not all(jetson_gpu_name(g.name) for g in gpus):
        return False
    ccs = [versions.release(g.compute_capability) for g in gpus]
    return all(cc is not None and cc[:2] < _FIRST_R36_CC for cc in ccs)


def _numbers(text: str | None) -> tuple[int, ...]:
    numbers = list(versions.release(text) or ())
    while len(numbers) > 1 and numbers[-1] == 0:
        numbers.pop()
    return tuple(numbers)


def with_jetpack(facts: HostFacts, matrix: Matrix) -> HostFacts:
    """The facts of a Jetson whose JetPack the matrix knows, with what that JetPack fixes filled
    in where the host or report left it out: the L4T release of a named JetPack, the JetPack of
    an L4T release, and the CUDA its L4T's driver runs (NVML is absent on most Jetsons, so
    nothing else says it). Facts that are there are never replaced; other hosts are returned
    as they are."""
    row = jetpack_row(facts, matrix)
    if row is None or (facts.platform.l4t_release is None and discrete_host(facts)):
        return facts  # a JetPack named on a host with a discrete GPU: the host flashing a Jetson
    platform = facts.platform
    platform = replace(
        platform,
        l4t_release=platform.l4t_release or row.l4t[0],
        jetpack_release=platform.jetpack_release or row.version,
    )
    nvml = facts.nvml
    if nvml.cuda_driver_version is None and row.cuda is not None:
        nvml = replace(nvml, cuda_driver_version=row.cuda)
    return replace(facts, platform=platform, nvml=nvml)


def jetson_install(facts: HostFacts, package: str, matrix: Matrix | None = None) -> str | None:
    """On a Jetson, where a fix installs a framework: NVIDIA's JetPack build, never a PyPI or
    download.pytorch.org wheel (those are SBSA builds). None on any other host, and on a
    JetPack that the matrix marks SBSA-aligned (JetPack 7), where those wheels are right."""
    release = jetson_release(facts)
    if release is None:
        return None
    row = jetpack_row(facts, matrix) if matrix is not None else None
    if row is not None and row.sbsa:
        return None
    return (
        f"NVIDIA's {package} build for {_jetpack(facts, release, row)}, as {_docs_for(package)} "
        "describes"
    )


def _jetpack(facts: HostFacts, release: str, row: JetpackRelease | None) -> str:
    """How a fix names this Jetson's JetPack: the release and its CUDA where the matrix knows
    them, else its L4T series, else how to read it."""
    if row is not None:
        cuda = f", CUDA {row.cuda}" if row.cuda else ""
        return f"JetPack {row.version} (L4T R{release}{cuda})"
    if facts.platform.jetpack_release:
        return f"JetPack {facts.platform.jetpack_release}"
    if release == "unknown":
        return "JetPack (the L4T release of this Jetson: `cat /etc/nv_tegra_release`)"
    return f"JetPack (L4T R{release.split('.', 1)[0]})"


# Before L4T R34 (JetPack 4, L4T R32) NVIDIA's Jetson containers carry no CUDA, cuDNN or
# TensorRT: the NVIDIA runtime mounts the host's, as the CSV files of
# /etc/nvidia-container-runtime/host-files-for-container.d list them. The l4t-base README:
# "Starting with the r34.1 release (JetPack 5.0 Developer Preview), the l4t-base will not bring
# CUDA, CuDNN and TensorRT from the host file system"; libnvidia-container's
# v0.11.0+jetpack release notes: only l4t.csv, devices.csv and drivers.csv are processed by
# default (https://github.com/NVIDIA/libnvidia-container/releases/tag/v0.11.0%2Bjetpack).
_HOST_MOUNTS_BEFORE = 34
_CSV_DIR = "/etc/nvidia-container-runtime/host-files-for-container.d"
# The error lines of a CUDA library, a cuDNN or a TensorRT library a program cannot open
_HOST_MOUNTED_LINES = frozenset(
    {"cuda-library-missing", "cuda-math-library-missing", "cudnn-library-missing"}
)


def host_mounted_library(code: str, lib: str, facts: HostFacts) -> tuple[str, str] | None:
    """(cause, fix) of a CUDA library a program in a Jetson container cannot open, where that
    container takes its CUDA from the host (L4T R32); None elsewhere. A container built for
    another L4T release is jetson-container-l4t's finding, which predicts the line."""
    release = facts.platform.l4t_release
    numbers = _numbers(release)
    report = facts.report
    if (
        code not in _HOST_MOUNTED_LINES
        or not numbers
        or numbers[0] >= _HOST_MOUNTS_BEFORE
        or report is None
        or not report.images
    ):
        return None
    tagged = [rel for rel in (image_l4t(i) for i in report.images) if rel is not None]
    if any(not _compatible(rel, numbers) for rel in tagged):
        return None  # built for another L4T: jetson-container-l4t says so
    cause = (
        f"on this Jetson (L4T R{release}, JetPack 4) a container carries no CUDA, cuDNN or "
        "TensorRT of its own: the NVIDIA runtime mounts the host's, as the CSV files in "
        f"{_CSV_DIR} list them, and {lib} missing in the container says they were not "
        "mounted: the container ran without the nvidia runtime (`docker build` uses the "
        "default runtime), the CSV files are missing, or libnvidia-container 0.11.0+jetpack "
        "or newer mounts only l4t.csv, devices.csv and drivers.csv by default"
    )
    fix = (
        "run the container with `--runtime nvidia` (for `docker build`, make nvidia the "
        "default runtime in /etc/docker/daemon.json); check that cuda.csv, cudnn.csv and "
        f"tensorrt.csv are in {_CSV_DIR} (the nvidia-container-csv-* packages); with "
        'libnvidia-container 0.11.0+jetpack or newer set NVIDIA_REQUIRE_JETPACK="csv-mounts=all" '
        "in the container's environment"
    )
    return cause, fix


# libcudart's soname names the CUDA release it belongs to: major.minor up to CUDA 10
# ("libcudart.so.10.2"), the major from CUDA 11 on ("libcudart.so.11.0", "libcudart.so.12").
# Other libraries' sonames carry their own versions (CUDA 11 ships libcurand.so.10).
_CUDART_SONAME = re.compile(r"\blibcudart\.so\.(?P<major>\d{1,2})(?:\.(?P<minor>\d{1,2}))?")


def jetpack_cuda_library(
    text: str, code: str, facts: HostFacts, matrix: Matrix
) -> tuple[str, str] | None:
    """(cause, fix) of a CUDA runtime (libcudart) of another CUDA release than the JetPack's,
    missing on a Jetson: its CUDA comes with JetPack and is not swapped by CUDA wheels or
    another toolkit, so the program was built for another JetPack ("Installing PyTorch for
    Jetson Platform" lists a build per JetPack). None elsewhere, where the JetPack's CUDA is
    not known, and where the line names the JetPack's own CUDA (a library not mounted or not
    installed: the generic cause)."""
    found = _CUDART_SONAME.search(text)
    if code != "cuda-library-missing" or found is None or jetson_release(facts) is None:
        return None
    row = jetpack_row(facts, matrix)
    if row is None or row.cuda is None or row.sbsa:
        return None
    major, minor = found.group("major"), found.group("minor")
    wanted = f"{major}.{minor}" if int(major) < 11 and minor else major
    have = row.cuda if int(major) < 11 else row.cuda.split(".")[0]
    if _numbers(wanted) == _numbers(have):
        return None
    cause = (
        f"libcudart.so.{found.group(0).split('.so.', 1)[1]} is CUDA {wanted}'s runtime, and "
        f"this Jetson runs JetPack {row.version} with CUDA {row.cuda}: a Jetson's CUDA comes "
        "with its JetPack, so the program was built for another JetPack release (CUDA wheels "
        "from PyPI and other CUDA toolkits are not for a Jetson)"
    )
    fix = (
        f"install the program's build for JetPack {row.version} (CUDA {row.cuda}), as "
        f"{_JETSON_DOCS} lists them for PyTorch, or build it on this Jetson; or flash the "
        "JetPack release the program was built for"
    )
    return cause, fix


# ollama's lines of a runner that found no GPU or could not start CUDA
_OLLAMA_NO_GPU = frozenset(
    {
        "ollama-no-gpu",
        "ollama-cudart-init-failed",
        "ollama-driver-too-old",
        "ollama-cudasetdevice-failed",
    }
)
_OLLAMA_INSTALL = "https://github.com/ollama/ollama/blob/main/scripts/install.sh"


def ollama_on_jetson(code: str, facts: HostFacts, matrix: Matrix) -> tuple[str, str] | None:
    """(cause, fix) of ollama running on the CPU on a Jetson before JetPack 7: its generic CUDA
    runners are built for discrete GPUs' drivers, and ollama brings a JetPack build instead
    (its install script adds the JetPack 6 components where /etc/nv_tegra_release says L4T
    R36, JetPack 5's for R35, and none for older releases). None elsewhere, and on JetPack 7,
    which aligns Jetson with server Arm and takes the generic arm64 build."""
    release = jetson_release(facts)
    if code not in _OLLAMA_NO_GPU or release is None:
        return None
    row = jetpack_row(facts, matrix)
    if row is not None and row.sbsa:
        return None
    major = release.split(".")[0]
    builds = {"36": "JetPack 6", "35": "JetPack 5"}
    where = f"L4T {release}" if release != "unknown" else "its L4T release"
    cause = (
        f"ollama runs on the CPU on this Jetson ({where}): its generic CUDA runners "
        "(cuda_v11/cuda_v12) are built for discrete GPUs' drivers, and a Jetson's integrated "
        "GPU needs ollama's JetPack build"
    )
    if major in builds:
        fix = (
            f"install ollama's {builds[major]} components (ollama-linux-arm64-"
            f"{builds[major].replace(' ', '').lower()}): ollama's install script adds them when "
            f"/etc/nv_tegra_release says L4T R{major} ({_OLLAMA_INSTALL}); in a container, use "
            "an image for this L4T release started with `--runtime nvidia`"
        )
    elif major.isdecimal():
        fix = (
            f"ollama brings JetPack builds for L4T R35 and R36 (JetPack 5 and 6) only "
            f"({_OLLAMA_INSTALL}): on L4T R{major} build llama.cpp on the Jetson, or flash "
            "JetPack 5 or 6 where the module supports it"
        )
    else:
        fix = (
            "read the L4T release (`cat /etc/nv_tegra_release`) and install ollama's JetPack "
            f"components for it (JetPack 6 for L4T R36, JetPack 5 for R35), as ollama's install "
            f"script does ({_OLLAMA_INSTALL})"
        )
    return cause, fix


# Lines whose fix, on a discrete GPU, is a newer NVIDIA driver
_DRIVER_FIXES = frozenset(
    {
        "driver-too-old",
        "driver-insufficient",
        "ptx-unsupported-toolchain",
        "ptx-jit-failed",
        "cuda-not-supported",
        "xla-driver-older-than-ptxas",
    }
)


def jetson_driver_fix(code: str, facts: HostFacts, matrix: Matrix) -> str | None:
    """The fix of a line that asks for a newer driver, on a Jetson before JetPack 7: its driver
    is part of its L4T release, so the program needs the build for the JetPack's CUDA; from
    JetPack 5 a newer CUDA runs through the CUDA upgrade (compat) package, before it the CUDA
    is the JetPack's (NVIDIA, "Simplifying CUDA Upgrades for NVIDIA Jetson Users":
    https://developer.nvidia.com/blog/simplifying-cuda-upgrades-for-nvidia-jetson-users/).
    None elsewhere."""
    release = jetson_release(facts)
    if code not in _DRIVER_FIXES or release is None:
        return None
    row = jetpack_row(facts, matrix)
    if row is None:
        return (
            "a Jetson's driver is part of its L4T release: read it (`cat /etc/nv_tegra_release`) "
            "and install the program's build for that JetPack's CUDA, as "
            f"{_JETSON_DOCS} lists them for PyTorch; from JetPack 5 a newer CUDA runs through "
            "its CUDA upgrade (compat) package, before JetPack 5 only a newer JetPack brings one"
        )
    if row.sbsa:
        return None  # JetPack 7: server Arm's CUDA and driver model
    cuda = f", CUDA {row.cuda}" if row.cuda else ""
    fix = (
        f"a Jetson's driver is part of its L4T release (JetPack {row.version}{cuda}): install "
        f"the program's build for JetPack {row.version}, as {_JETSON_DOCS} lists them for "
        "PyTorch, or build it on the Jetson"
    )
    if versions.major(row.version) >= 5:
        return fix + "; or install the CUDA upgrade (compat) package of the CUDA it needs"
    return fix + "; before JetPack 5 the CUDA cannot be upgraded: flash a newer JetPack"


def check_jetson_wheels(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    release = jetson_release(facts)
    if release is None:
        return [finding(CODE, NA, "not a Jetson (no /etc/nv_tegra_release)")]
    if not facts.frameworks:
        return [finding(CODE, NA, f"Jetson (L4T {release}): no framework installed")]
    row = jetpack_row(facts, matrix)
    return [_judge(facts, matrix, fw, release, row) for fw in facts.frameworks]


def _judge(
    facts: HostFacts,
    matrix: Matrix,
    fw: FrameworkFacts,
    release: str,
    row: JetpackRelease | None,
) -> Finding:
    wheels = [b.package for b in fw.bundled if b.package.startswith("nvidia-")]
    ev = [("l4t_release", release), ("nvidia_wheels", wheels), ("version", fw.version)]
    if row is not None:
        ev.append(("jetpack", row.version))
    if row is not None and row.sbsa:
        # JetPack 7 aligns Jetson with server Arm: its CUDA is the one the aarch64 wheels of
        # PyPI and download.pytorch.org are built for, so the framework checks judge the build
        # as on any server Arm host.
        return finding(
            CODE,
            NA,
            f"{fw.label} on JetPack {row.version}: Jetson is SBSA-aligned there, PyPI's "
            "aarch64 CUDA wheels are built for it",
            evidence=ev,
            subject=fw.name,
        )
    fix = (
        f"uninstall it and install NVIDIA's {fw.name} build for {_jetpack(facts, release, row)}, "
        f"as {_docs_for(fw.name)} describes"
    )
    sbsa = None if _sees_cuda(facts, fw) else _pypi_cuda_release(fw, matrix)
    if wheels or (fw.name == "torch" and _CU_TAG.search(fw.version)) or sbsa:
        return finding(
            CODE,
            ERROR,
            f"{fw.label} is a PyPI CUDA build for server Arm (SBSA), not for this Jetson",
            detail=f"L4T {release}: the Jetson's integrated GPU runs JetPack's CUDA; "
            + _sbsa_shown(fw, wheels, sbsa),
            fix=fix,
            evidence=ev,
            subject=fw.name,
        )
    newer = _newer_cuda(fw, row)
    if newer is not None:
        return newer
    if fw.cpu_only:
        return finding(
            CODE,
            WARN,
            f"{fw.label} is a CPU-only build on a Jetson (L4T {release})",
            fix=fix,
            evidence=ev,
            subject=fw.name,
        )
    pypi = None if _sees_cuda(facts, fw) else _pypi_cpu_release(fw, matrix)
    if pypi is not None:
        return finding(
            CODE,
            WARN,
            f"{fw.label} is probably PyPI's aarch64 build, which carries no CUDA: on this Jetson "
            "it runs on the CPU",
            detail=f"PyPI's aarch64 wheel of {fw.name} {pypi} brings no CUDA (the matrix's "
            "[[wheel]] rows); the version has no local tag of NVIDIA's Jetson builds "
            f'("+nv24.08") and the report does not show the build\'s CUDA, which '
            f"{_BUILD_CUDA.get(fw.name, 'the framework')} settles",
            fix=fix,
            evidence=ev,
            subject=fw.name,
        )
    return finding(
        CODE, OK, f"{fw.label}: no PyPI CUDA wheels on this Jetson", evidence=ev, subject=fw.name
    )


def _sbsa_shown(fw: FrameworkFacts, wheels: list[str], pypi: str | None) -> str:
    """What shows the build is one for server Arm: its nvidia-* wheels, the +cu tag of the
    PyTorch index, or PyPI's aarch64 CUDA wheel of that release."""
    if wheels:
        return f"the nvidia-* wheels it brings ({', '.join(wheels[:3])}) are SBSA builds"
    if pypi is None:
        return "the +cu build on the PyTorch index is an SBSA build"
    return (
        f"PyPI's aarch64 wheel of {fw.name} {pypi} is built with CUDA {fw.cuda} for server Arm "
        "(the matrix's [[wheel]] rows), and the report shows neither a local tag of NVIDIA's "
        "Jetson builds nor CUDA available"
    )


def _sees_cuda(facts: HostFacts, fw: FrameworkFacts) -> bool:
    """The report shows the framework answering that CUDA is available (a session's
    `torch.cuda.is_available()` True): a CUDA build, whatever its version looks like (the
    Jetson AI Lab's JetPack 6 wheels carry plain versions, "2.3.0")."""
    return any(d.name == fw.name and d.cuda_available for d in facts.deep)


_BUILD_CUDA = {
    "torch": "`python -c 'import torch; print(torch.version.cuda)'`",
    "tensorflow": "`python -c 'import tensorflow as tf; print(tf.sysconfig.get_build_info())'`",
}


def _pypi_cpu_release(fw: FrameworkFacts, matrix: Matrix) -> str | None:
    """The release whose PyPI aarch64 wheel carries no CUDA, where the installed build is
    probably that wheel: a version without a local tag, no CUDA, cuDNN or CUDA library wheel
    shown. A release written without its patch ("tensorflow 2.13") counts when every PyPI
    aarch64 wheel of it the matrix lists is CPU-only."""
    framework = framework_names.MATRIX_NAME.get(fw.name)
    version = fw.version
    if framework is None or versions.public(version) != version or fw.cuda or fw.cudnn:
        return None
    if fw.bundled or fw.hip or len(versions.release(version) or ()) < 2:
        return None
    rows = [
        w
        for w in matrix.wheels
        if w.framework == framework
        and w.machine == "aarch64"
        and w.index == "pypi"
        and (w.version == version or w.version.startswith(f"{version}."))
    ]
    if not rows:
        # a release the rows do not list, between two CPU-only ones ("2.1.0": 2.0.1, 2.1.2)
        between = platforms.pypi_cpu_only(matrix, framework, version, "aarch64")
        return None if between is None else version
    if not all(w.cpu_only for w in rows):
        return None
    return rows[0].version if len(rows) == 1 else version


def _pypi_cuda_release(fw: FrameworkFacts, matrix: Matrix) -> str | None:
    """The release whose PyPI aarch64 wheel is a CUDA build for server Arm (torch from 2.11,
    CUDA 13.0), where the installed build is probably that wheel: a version without a local
    tag, built with the CUDA that wheel carries. NVIDIA's Jetson builds carry a local tag
    ("+nv24.08") or are seen answering that CUDA is available (_sees_cuda)."""
    framework = framework_names.MATRIX_NAME.get(fw.name)
    version, built = fw.version, versions.release(fw.cuda)
    if framework is None or versions.public(version) != version or fw.cpu_only or not built:
        return None
    for w in matrix.wheels:
        if (
            w.framework == framework
            and w.machine == "aarch64"
            and w.index == "pypi"
            and w.version == version
            and not w.cpu_only
            and (versions.release(w.cuda) or ())[:2] == built[:2]
        ):
            return w.version
    return None


def _newer_cuda(fw: FrameworkFacts, row: JetpackRelease | None) -> Finding | None:
    """A build for a newer CUDA than the JetPack's: the L4T driver runs the JetPack's CUDA.
    From JetPack 5 a newer CUDA runs through the CUDA upgrade (compat) package, which the facts
    do not show (a warning); before JetPack 5 the CUDA is fixed to the JetPack's (an error).
    NVIDIA, "Simplifying CUDA Upgrades for NVIDIA Jetson Users":
    https://developer.nvidia.com/blog/simplifying-cuda-upgrades-for-nvidia-jetson-users/"""
    if row is None or row.cuda is None or fw.cuda is None or fw.cpu_only:
        return None
    built, shipped = versions.release(fw.cuda), versions.release(row.cuda)
    if built is None or shipped is None or built[:2] <= shipped[:2]:
        return None
    upgradable = versions.major(row.version) >= 5
    return finding(
        CODE,
        WARN if upgradable else ERROR,
        f"{fw.label} is built for CUDA {fw.cuda}; JetPack {row.version} ships CUDA {row.cuda}",
        detail=f"the L4T driver of JetPack {row.version} runs CUDA {row.cuda}; "
        + (
            f"CUDA {fw.cuda} runs there only with its CUDA upgrade (compat) package installed"
            if upgradable
            else f"before JetPack 5 the CUDA of a Jetson cannot be upgraded past {row.cuda}"
        ),
        fix=f"install NVIDIA's {fw.name} build for JetPack {row.version} (CUDA {row.cuda}), as "
        f"{_docs_for(fw.name)} describes"
        + (f", or the CUDA {fw.cuda} upgrade package for Jetson" if upgradable else ""),
        evidence=[
            ("framework_cuda", fw.cuda),
            ("jetpack", row.version),
            ("jetpack_cuda", row.cuda),
        ],
        subject=fw.name,
    )


IMAGE_CODE = "jetson-container-l4t"
_IMAGE_L4T = re.compile(r"(?:^|[-_:])r(\d{2})\.(\d{1,2})(?:\.\d{1,2})?(?:$|[-_])")
_CONTAINERS_README = (
    "https://github.com/dusty-nv/jetson-containers (README: container compatibility)"
)


def image_l4t(image: str) -> tuple[int, int] | None:
    """The L4T release a Jetson image's tag names ("...:r35.4.1" -> (35, 4)); None when none."""
    tag = image.rsplit(":", 1)[-1]
    found = _IMAGE_L4T.search(tag)
    return (int(found.group(1)), int(found.group(2))) if found else None


def _compatible(image: tuple[int, int], host: tuple[int, ...]) -> bool:
    """Jetson images run on other releases of their L4T major (R35.x on R35.x, R36.x on
    R36.x); an R32 image needs the same R32 minor (R32.7 on R32.7)."""
    if image[0] != host[0]:
        return False
    return image[0] != 32 or (len(host) > 1 and image[1] == host[1])


def check_jetson_container_l4t(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    images = [(i, image_l4t(i)) for i in (facts.report.images if facts.report else ())]
    tagged = [(i, rel) for i, rel in images if rel is not None]
    if not tagged:
        where = "the report names" if facts.report is not None else "a report would name"
        return [finding(IMAGE_CODE, NA, f"no Jetson container image ({where} one by its tag)")]
    release = jetson_release(facts)
    if release is None or release == "unknown":
        return [
            finding(
                IMAGE_CODE,
                UNKNOWN,
                f"the host's L4T release is not shown, so {tagged[0][0]} cannot be judged",
                fix="compare the image's rNN.N tag with `cat /etc/nv_tegra_release` on the host",
            )
        ]
    host = _numbers(release)
    out = []
    for image, rel in tagged:
        ev = [("image", image), ("image_l4t", f"{rel[0]}.{rel[1]}"), ("host_l4t", release)]
        if _compatible(rel, host):
            title = f"{image} is built for L4T R{rel[0]}.{rel[1]}, which runs on this L4T {release}"
            out.append(finding(IMAGE_CODE, OK, title, evidence=ev, subject=image))
            continue
        out.append(
            finding(
                IMAGE_CODE,
                ERROR,
                f"{image} is built for L4T R{rel[0]}.{rel[1]}, but the host runs L4T {release}",
                detail="a Jetson container carries the CUDA, cuDNN and TensorRT of the JetPack it "
                "was built for and runs only on other releases of that L4T (R35.x images on "
                "R35.x, R36.x on R36.x, R32.7 on R32.7): on another release CUDA fails inside it "
                f"({_CONTAINERS_README})",
                fix=f"use the image's tag for L4T R{host[0]} (the same image built for the "
                "host's release), or rebuild it on this JetPack",
                evidence=ev,
                subject=image,
            )
        )
    return out


CHECKS = (check_jetson_wheels, check_jetson_container_l4t)
