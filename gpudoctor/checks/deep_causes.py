"""Why a framework failed at run time (`--deep`): known error messages mapped to their cause and
fix, and the host facts that explain `cuda.is_available() == False`.

Data first: each pattern sits next to what it means, so adding a known message is one line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpudoctor.checks.suggest import host_driver_tier
from gpudoctor.compat.install import command
from gpudoctor.compat.tiers import RUNS, Tier
from gpudoctor.facts_view import driver_version, has_gpu, live_gpus
from gpudoctor.matrix.signatures import match_signature, render

if TYPE_CHECKING:
    from gpudoctor.facts import DeepFrameworkFacts, FrameworkFacts, HostFacts
    from gpudoctor.matrix.model import Matrix


@dataclass(frozen=True)
class Cause:
    what: str
    fix: str


def python_of(deep: DeepFrameworkFacts) -> str:
    return deep.python or "python"


def pin(fw: FrameworkFacts) -> str:
    """`torch==2.5.1` (local tags dropped: pip pins the public version)."""
    return f"{fw.name}=={fw.version.partition('+')[0]}"


# --- import errors ------------------------------------------------------------------------------

_MISSING_LIB = re.compile(r"(lib[\w.+-]*?\.so[\d.]*): cannot open shared object file")
_NUMPY_ABI = re.compile(r"NumPy 1\.x cannot be run in|numpy\.core\.multiarray failed to import")
_NO_MODULE = re.compile(r"No module named '([\w.]+)'")
_GLIBC = re.compile(r"GLIBC(XX)?_[\d.]+' not found")


def import_cause(  # noqa: PLR0911 - one return per known message
    fw: FrameworkFacts, deep: DeepFrameworkFacts
) -> Cause:
    """What an import error means, from its text."""
    error, python, module = deep.error or "", python_of(deep), fw.name  # its import name

    reinstall = command((pin(fw),), None, " --force-reinstall")
    lib = _MISSING_LIB.search(error)
    if lib and lib.group(1).startswith("libcuda.so"):
        return Cause(
            f"{lib.group(1)}, the NVIDIA driver's user-space library, is not found",
            "install the NVIDIA driver (its libcuda); in a container, start it with "
            "`--gpus all` so that the runtime mounts the driver's libraries",
        )
    if lib:
        return Cause(
            f"the shared library {lib.group(1)} that {fw.name} loads is not found (a missing "
            "nvidia-* wheel, or LD_LIBRARY_PATH pointing at another CUDA)",
            f"`{reinstall}` (pip brings the nvidia-* wheels it needs); if LD_LIBRARY_PATH is "
            "set, try without it",
        )
    if "undefined symbol" in error:
        return Cause(
            f"a library loaded from elsewhere (LD_LIBRARY_PATH, a system CUDA or cuDNN) does "
            f"not match the one {fw.name} was built against",
            f"`unset LD_LIBRARY_PATH` and retry; if it persists, `{reinstall}`",
        )
    if _NUMPY_ABI.search(error):
        return Cause(
            f"{fw.name} was built against NumPy 1.x and NumPy 2 is installed",
            "pip install 'numpy<2' (or upgrade the framework to a NumPy 2 build)",
        )
    if _GLIBC.search(error):
        return Cause(
            f"the {fw.name} wheel needs a newer C library than this OS has",
            "use a newer OS or base image, or an older framework release",
        )
    missing = _NO_MODULE.search(error)
    if missing and missing.group(1).split(".")[0] != module:
        return Cause(
            f"{fw.name} needs the module {missing.group(1)}, which is not installed",
            f"`{python} -m pip install {missing.group(1).split('.')[0]}` (or `{reinstall}`)",
        )
    return Cause(
        f"import {module} raised an error with {python}",
        f"run `{python} -c 'import {module}'` to see the whole error; then `{reinstall}`",
    )


# --- kernel errors ------------------------------------------------------------------------------

_KERNEL_CAUSES: tuple[tuple[str, str, str], ...] = (
    # (pattern, cause, fix); "no kernel image" is handled with the arch list, not here.
    (
        r"out of memory",
        "the GPU's memory is taken (by other processes)",
        "`nvidia-smi` shows which processes hold it; free the GPU or pick another one with "
        "CUDA_VISIBLE_DEVICES",
    ),
    (
        r"busy or unavailable",
        "the GPU is in an exclusive or prohibited compute mode, held by another process",
        "`nvidia-smi -q -d COMPUTE` shows the mode; `sudo nvidia-smi -i N -c DEFAULT`, or wait "
        "for the process that holds the GPU",
    ),
    (
        r"unsupported toolchain|PTX JIT compil",
        "the framework's PTX is newer than this driver can compile",
        "upgrade the driver (see framework-driver-cuda), or install a build with native "
        "kernels for this GPU",
    ),
    (
        r"uncorrectable ECC|illegal memory access|unspecified launch failure|ECC error",
        "the GPU failed while running the kernel (a hardware or driver fault)",
        "check `sudo dmesg | grep -i xid` and `nvidia-smi -q -d ECC`; drain the GPU, reset it "
        "(`sudo nvidia-smi -i N -r`) and retry",
    ),
)


def kernel_cause(deep: DeepFrameworkFacts) -> Cause:
    error = deep.kernel_error or ""
    for pattern, what, fix in _KERNEL_CAUSES:
        if re.search(pattern, error, re.IGNORECASE):
            return Cause(what, fix)

    known = match_signature(error)  # the one catalogue of known lines (HIP and HSA ones too)
    if known is not None:
        values = known.values(error)
        values.setdefault("install", "the build `gpudoctor matrix resolve --from HOST.json` names")
        return Cause(render(known.cause, values), render(known.fix, values))
    return Cause(
        "the small test computation failed",
        "rerun with CUDA_LAUNCH_BLOCKING=1 for the exact failing call: "
        "`CUDA_LAUNCH_BLOCKING=1 gpudoctor check --deep -v`",
    )


# --- cuda.is_available() == False ---------------------------------------------------------------


def unavailable_causes(facts: HostFacts, matrix: Matrix, fw: FrameworkFacts) -> list[Cause]:
    """The facts that explain a CUDA build seeing no GPU, most specific first."""
    causes = [*_environment_causes(facts), *_driver_causes(facts, matrix, fw)]
    nodes = {n.path: n for n in facts.kernel.device_nodes}
    denied = sorted(p for p, n in nodes.items() if n.readable is False or n.writable is False)
    if denied:
        causes.append(
            Cause(
                f"{', '.join(denied)} not read/writable by this user",
                "add the user to the group owning /dev/nvidia* (often `video`), or fix the udev "
                "rule",
            )
        )
    if nodes and has_gpu(facts) and "/dev/nvidia-uvm" not in nodes:
        causes.append(
            Cause(
                "/dev/nvidia-uvm is missing (the nvidia_uvm module is not loaded); CUDA needs it",
                "`sudo nvidia-modprobe -u -c=0` (or `sudo modprobe nvidia_uvm`)",
            )
        )
    if any(g.mig_mode_current and not g.mig_devices for g in live_gpus(facts)):
        causes.append(
            Cause(
                "MIG is on and no MIG instance exists, so CUDA has no device",
                "create instances (`sudo nvidia-smi mig -cgi <profiles> -C`) or turn MIG off",
            )
        )
    return causes


def _environment_causes(facts: HostFacts) -> list[Cause]:
    p, causes = facts.platform, []
    visible = p.cuda_visible_devices
    if visible is not None and (visible.strip() in ("", "-1") or visible.startswith("-1")):
        causes.append(
            Cause(
                f"CUDA_VISIBLE_DEVICES={visible!r} hides every GPU from CUDA",
                "unset CUDA_VISIBLE_DEVICES (or list the GPUs to use)",
            )
        )
    if p.container and (p.nvidia_visible_devices in (None, "", "void", "none")):
        causes.append(
            Cause(
                f"this {p.container} container was started without GPUs "
                f"(NVIDIA_VISIBLE_DEVICES={p.nvidia_visible_devices or 'unset'})",
                "start it with `--gpus all` (Docker), `--device nvidia.com/gpu=all` (CDI) or a "
                "nvidia.com/gpu resource limit (Kubernetes)",
            )
        )
    return causes


def _driver_causes(facts: HostFacts, matrix: Matrix, fw: FrameworkFacts) -> list[Cause]:

    if facts.nvml.status != "ok":
        return [
            Cause(
                f"the NVIDIA driver does not work here (NVML: {facts.nvml.status})",
                "fix the driver first: `gpudoctor check` shows why under NVIDIA driver",
            )
        ]
    driver = driver_version(facts)
    if driver is None or fw.cuda is None:
        return []

    verdict = host_driver_tier(facts, matrix, driver, fw.cuda)
    if verdict.tier in RUNS or verdict.tier is Tier.UNKNOWN:  # no cause it can name
        return []
    need = verdict.required or verdict.floor
    return [
        Cause(
            f"driver {driver} is too old for the CUDA {fw.cuda} {fw.name} was built with",
            f"upgrade the driver to >= {need}"
            if need
            else "upgrade the driver (see framework-driver-cuda for a build this driver runs)",
        )
    ]


def probe_command(fw: FrameworkFacts, deep: DeepFrameworkFacts) -> str:
    """The one-liner that shows the framework's own reason for seeing no GPU."""
    python = python_of(deep)
    if fw.name == "torch":
        return f"{python} -c 'import torch; torch.cuda.init()'"
    if fw.name == "tensorflow":  # TF logs each library it fails to load at level 0
        return (
            f'TF_CPP_MIN_LOG_LEVEL=0 {python} -c "import tensorflow as tf; '
            "print(tf.config.list_physical_devices('GPU'))\""
        )
    return f"{python} -c 'import jax; print(jax.devices())'"
