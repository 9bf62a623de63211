"""What the frameworks did when imported (`gpudoctor check --deep`): the import, CUDA at run time,
one small kernel. Pure like every check: they read HostFacts.deep, which only `--deep` fills;
without it each installed framework gets `n/a` with the hint to run with --deep.
The causes (deep_causes.py, its patterns and dataclasses) are imported only to explain a
failed import or kernel: a plain `check` never needs them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from gpudoctor import versions
from gpudoctor.checks.base import Intent, finding
from gpudoctor.checks.suggest import install_for_host
from gpudoctor.facts_view import has_gpu, live_gpus
from gpudoctor.findings import ERROR, NA, OK, UNKNOWN, WARN, Finding
from gpudoctor.wording import exit_text, last_line

if TYPE_CHECKING:
    from gpudoctor.facts import DeepFrameworkFacts, FrameworkFacts, HostFacts
    from gpudoctor.matrix.model import Matrix

Judge = Callable[["HostFacts", "Matrix", "FrameworkFacts", "DeepFrameworkFacts"], Finding]
_NOT_FINISHED = ("timeout", "crashed", "no_report")


def _each(code: str, facts: HostFacts, matrix: Matrix, judge: Judge) -> list[Finding]:
    """One finding per installed framework; n/a with the --deep hint where none was probed."""
    if not facts.frameworks:
        return [finding(code, NA, "no torch, tensorflow or jax installed")]
    deep = {d.name: d for d in facts.deep}
    out = []
    for fw in facts.frameworks:
        found = deep.get(fw.name)
        if found is None:
            title = f"{fw.label}: not imported (run `gpudoctor check --deep`)"
            out.append(finding(code, NA, title, subject=fw.name))
        else:
            out.append(judge(facts, matrix, fw, found))
    return out


def _evidence(deep: DeepFrameworkFacts, *keys: str) -> list[tuple[str, object]]:
    return [("python", deep.python), ("outcome", deep.outcome)] + [
        (k, getattr(deep, k)) for k in keys
    ]


def _last(text: str | None) -> str:
    return last_line(text, "no error text")


# --- framework-import ---------------------------------------------------------------------------


def check_import(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    return _each("framework-import", facts, matrix, _import)


def _import(
    facts: HostFacts, matrix: Matrix, fw: FrameworkFacts, deep: DeepFrameworkFacts
) -> Finding:
    code, subject, module = "framework-import", fw.name, fw.name  # the import name
    from gpudoctor.checks.deep_causes import import_cause, python_of  # lazy: failed --deep only

    ev = _evidence(deep, "import_seconds", "version", "cuda", "cudnn", "seconds")
    python = python_of(deep)
    if deep.outcome == "import_failed":
        cause = import_cause(fw, deep)
        title = f"import {module} fails: {_last(deep.error)}"
        return finding(
            code, ERROR, title, detail=cause.what, fix=cause.fix, evidence=ev, subject=subject
        )
    if deep.outcome == "timeout":
        return finding(
            code,
            ERROR,
            f"import {module} and its CUDA probe did not finish within {deep.timeout_s:g} s",
            detail="the probe was killed; a hang at CUDA initialisation usually means a GPU in a "
            "bad state or a driver call that never returns; a slow (network) file system can "
            "make the import itself slow",
            fix="check `nvidia-smi` and `sudo dmesg | grep -i xid`; time "
            f"`{python} -c 'import {module}'`; give it longer with --deep-timeout",
            evidence=[*ev, ("error", _last(deep.error))],
            subject=subject,
        )
    if deep.outcome == "crashed":
        return finding(
            code,
            ERROR,
            f"import {module} crashed: the probe {exit_text(deep.exit_code)}",
            detail=f"last words: {_last(deep.error)}; a crash while loading usually means "
            "mismatched native libraries (LD_LIBRARY_PATH, a system CUDA or cuDNN)",
            fix=f"run `{python} -X faulthandler -c 'import {module}'` to see where it crashes; "
            "try with LD_LIBRARY_PATH unset",
            evidence=ev,
            subject=subject,
        )
    if deep.outcome == "no_report":
        return finding(
            code,
            UNKNOWN,
            f"the {module} probe exited without its report",
            detail=f"output: {_last(deep.error)}",
            evidence=ev,
            subject=subject,
        )
    return _imported(fw, deep, ev)


def _imported(
    fw: FrameworkFacts, deep: DeepFrameworkFacts, ev: list[tuple[str, object]]
) -> Finding:
    from gpudoctor.checks.deep_causes import python_of  # lazy: failed --deep only

    code, subject, module = "framework-import", fw.name, fw.name  # the import name
    seconds = f" in {deep.import_seconds:.1f} s" if deep.import_seconds is not None else ""
    runtime = versions.release(deep.version)
    if runtime is not None and runtime[:3] != (versions.release(fw.version) or ())[:3]:
        return finding(
            code,
            WARN,
            f"import {module} loads {deep.version}, but the installed package is {fw.version}",
            detail="another copy shadows the installed one (PYTHONPATH, a local folder named "
            f"{module}, or the user site-packages)",
            fix=f"`{python_of(deep)} -c 'import {module}; print({module}.__file__)'` shows which "
            "copy is imported; remove the stray one",
            evidence=[*ev, ("installed", fw.version), ("location", fw.location)],
            subject=subject,
        )
    shown = f" ({deep.version})" if deep.version else ""  # a paste may not show it
    return finding(code, OK, f"import {module} works{seconds}{shown}", evidence=ev, subject=subject)


# --- framework-cuda-available -------------------------------------------------------------------


def check_cuda_available(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    return _each("framework-cuda-available", facts, matrix, _cuda_available)


def _not_reached(code: str, fw: FrameworkFacts, deep: DeepFrameworkFacts) -> Finding | None:
    """The finding of a later stage when the probe stopped before it: n/a after a failed import
    (framework-import has the error), unknown when it hung, crashed or failed on the way."""
    module = fw.name  # the import name
    if deep.outcome == "import_failed":
        title = f"{module} does not import (see framework-import)"
        return finding(code, NA, title, subject=fw.name)
    if deep.outcome in _NOT_FINISHED:
        title = f"the {module} probe did not finish (see framework-import)"
        return finding(code, UNKNOWN, title, subject=fw.name)
    if deep.outcome == "probe_failed" and deep.cuda_available is None:
        title = f"the {module} probe failed: {_last(deep.error)}"
        return finding(code, UNKNOWN, title, evidence=_evidence(deep), subject=fw.name)
    return None


# What shows the CUDA a framework was built with (None, or no CUDA plugin: a CPU-only build).
_BUILD_SHOWN = {
    "torch": "`python -c 'import torch; print(torch.version.cuda)'` (None: a CPU-only build)",
    "tensorflow": "`python -c 'import tensorflow as tf; print(tf.sysconfig.get_build_info())'`",
    "jax": "`pip list | grep jax` (no jax-cuda12-plugin or jax-cuda13-plugin: a CPU-only jax)",
}


def _cuda_available(
    facts: HostFacts, matrix: Matrix, fw: FrameworkFacts, deep: DeepFrameworkFacts
) -> Finding:
    code, subject = "framework-cuda-available", fw.name
    ev = _evidence(deep, "cuda", "cuda_available", "device_count", "cuda_warnings")
    ev.append(("nvml_gpus", len(live_gpus(facts))))
    early = _not_reached(code, fw, deep) or _build_unshown(facts, fw, deep, ev)
    if early is not None:
        return early
    if deep.cuda_available:
        names = sorted({d.name for d in deep.devices if d.name})
        shown = f": {', '.join(names)}" if names else ""
        title = f"{fw.label} sees {deep.device_count} CUDA device(s){shown}"
        if deep.device_count is None:  # a pasted collect_env: "CUDA available: True", no count
            title = f"{fw.label} has CUDA available{shown}"
        return finding(code, OK, title, evidence=ev, subject=subject)
    if fw.hip and facts.amd.seen and deep.cuda_available is False:
        # A ROCm build answers torch.cuda for the AMD GPUs: seeing none is the AMD failure.
        return finding(
            code,
            ERROR,
            f"{fw.label} (ROCm) sees no GPU, though this host has AMD GPUs",
            detail="the AMD checks name the usual causes: /dev/kfd not accessible to this user "
            "(amd-device-access), no code object for the GPU's target (amd-torch-gfx), "
            "HIP_VISIBLE_DEVICES hiding the GPUs (amd-visible-devices)",
            fix="fix what the AMD GPUs and ROCm area reports; `rocminfo` run as the same user "
            "shows the runtime's own view",
            evidence=[*ev, ("amd_gpus", len(facts.amd.gpu_nodes or facts.amd.pci_gpus))],
            subject=subject,
        )
    cuda_build = deep.cuda is not None or (fw.cpu_only is False and fw.hip is None)
    if not cuda_build:
        what = f"a ROCm build (HIP {fw.hip})" if fw.hip else "a CPU-only build"
        title = f"{fw.label} is {what}: no CUDA (see framework-cpu-only)"
        return finding(code, NA, title, evidence=ev, subject=subject)
    if not has_gpu(facts):
        title = f"{fw.label}: CUDA not available, and this host has no NVIDIA GPU"
        return finding(code, NA, title, evidence=ev, subject=subject)
    return _unavailable(facts, matrix, fw, deep, ev)


def _build_unshown(
    facts: HostFacts, fw: FrameworkFacts, deep: DeepFrameworkFacts, ev: list[tuple[str, object]]
) -> Finding | None:
    """A paste that shows the framework's answer but not its build (`jax.devices()` listing only
    CpuDevice, `torch.cuda.is_available()` False) beside an NVIDIA GPU: a CPU-only build or a
    CUDA build that cannot reach the GPUs (the live probe always knows the build)."""
    if deep.cuda_available is not False or deep.cuda is not None or fw.cpu_only is not None:
        return None
    if fw.hip or not has_gpu(facts):
        return None
    return finding(
        "framework-cuda-available",
        WARN,
        f"{fw.label} sees no GPU, though this host has NVIDIA GPUs",
        detail="the report does not show how it was built: a CPU-only build (see "
        "framework-cpu-only) or a CUDA build that cannot reach the GPUs",
        fix=f"print the CUDA it was built with: {_BUILD_SHOWN.get(fw.name, 'pip list')}",
        evidence=ev,
        subject=fw.name,
    )


def _unavailable(
    facts: HostFacts,
    matrix: Matrix,
    fw: FrameworkFacts,
    deep: DeepFrameworkFacts,
    ev: list[tuple[str, object]],
) -> Finding:
    from gpudoctor.checks.deep_causes import (  # lazy: failed --deep only
        probe_command,
        unavailable_causes,
    )

    causes = unavailable_causes(facts, matrix, fw)
    command = probe_command(fw, deep)
    said = f"; {fw.name} said: {' / '.join(deep.cuda_warnings)}" if deep.cuda_warnings else ""
    if causes:
        detail = "likely cause: " + "; also: ".join(c.what for c in causes) + said
        fix = f"{causes[0].fix}; then `gpudoctor check --deep` again"
    else:
        detail = "nothing in the host facts explains it" + said
        fix = f"run `{command}` to see CUDA's own error"
    return finding(
        "framework-cuda-available",
        ERROR,
        f"{fw.label} (CUDA {deep.cuda or fw.cuda}) sees no GPU, though this host has NVIDIA GPUs",
        detail=detail,
        fix=fix,
        evidence=ev,
        subject=fw.name,
    )


# --- framework-kernel ---------------------------------------------------------------------------


def check_kernel(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    return _each("framework-kernel", facts, matrix, _kernel)


def _kernel(  # noqa: PLR0911 - one return per verdict
    facts: HostFacts, matrix: Matrix, fw: FrameworkFacts, deep: DeepFrameworkFacts
) -> Finding:
    code, subject = "framework-kernel", fw.name
    stopped = _not_reached(code, fw, deep)
    if stopped is not None:
        return stopped
    ev = _evidence(deep, "kernel_ok", "kernel_error")
    ev += [("devices", [f"{d.name} ({d.compute_capability})" for d in deep.devices])]
    if not deep.cuda_available:
        title = f"{fw.label}: no kernel run, CUDA not available (see framework-cuda-available)"
        return finding(code, NA, title, evidence=ev, subject=subject)
    if deep.kernel_ok:
        first = deep.devices[0].name if deep.devices and deep.devices[0].name else "GPU 0"
        return finding(
            code, OK, f"a small {fw.name} kernel ran on {first}", evidence=ev, subject=subject
        )
    if deep.kernel_ok is None:
        title = f"{fw.label}: the kernel did not run: {_last(deep.error)}"
        return finding(code, UNKNOWN, title, evidence=ev, subject=subject)
    if deep.kernel_error and "no kernel image is available" in deep.kernel_error:
        return _no_kernel_image(facts, matrix, fw, deep, ev)
    if deep.kernel_error is None:
        return finding(
            code,
            ERROR,
            f"a small {fw.name} kernel returned a wrong result",
            detail="the GPU computed sum(2 * x for x in range(1024)) wrong: suspect the hardware",
            fix="check `nvidia-smi -q -d ECC` and `sudo dmesg | grep -i xid`; "
            "run `dcgmi diag -r 2`",
            evidence=ev,
            subject=subject,
        )
    from gpudoctor.checks.deep_causes import kernel_cause  # lazy: failed --deep only

    cause = kernel_cause(deep)
    return finding(
        code,
        ERROR,
        f"a small {fw.name} kernel fails: {_last(deep.kernel_error)}",
        detail=cause.what,
        fix=cause.fix,
        evidence=ev,
        subject=subject,
    )


def _no_kernel_image(
    facts: HostFacts,
    matrix: Matrix,
    fw: FrameworkFacts,
    deep: DeepFrameworkFacts,
    ev: list[tuple[str, object]],
) -> Finding:
    """The build lacks kernels for this GPU: the run-time proof of what framework-arch predicts
    from the matrix, with the same fix."""
    ccs = sorted(
        {d.compute_capability for d in deep.devices if d.compute_capability}
        or {g.compute_capability for g in live_gpus(facts) if g.compute_capability}
    )
    arch = ", ".join(deep.arch_list) or "unknown"
    alt = install_for_host(facts, matrix, "pytorch", fw.version) if fw.name == "torch" else None
    return finding(
        "framework-kernel",
        ERROR,
        f"{fw.label} has no kernel image for compute capability {', '.join(ccs) or 'unknown'}",
        detail=f"'no kernel image is available for execution on the device': its compiled "
        f"architectures ({arch}) do not cover this GPU (framework-arch judges the same from "
        "the matrix)",
        fix=f"install a build with kernels for this GPU: {alt}"
        if alt
        else "install a build whose architecture list covers this GPU (see framework-arch)",
        evidence=[*ev, ("arch_list", deep.arch_list)],
        subject=fw.name,
    )


CHECKS = (check_import, check_cuda_available, check_kernel)
