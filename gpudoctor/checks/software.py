"""Software cross-checks against the matrix: framework build x driver x GPU arch x cuDNN, and the
CUDA toolkit against the driver. This is the part peer doctors get wrong: a
framework CUDA newer than the driver's is fine within the major (minor-version compatibility),
and "has kernels for this GPU" follows cubin/PTX rules, not a version comparison.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gpudoctor import framework_names, versions
from gpudoctor.checks.base import Intent, finding, group_by_gpu
from gpudoctor.checks.cudnn import judge_cudnn
from gpudoctor.checks.jetson import jetson_release
from gpudoctor.checks.suggest import (
    host_driver_tier,
    install_for_host,
    installed_build,
)
from gpudoctor.compat.host import from_facts
from gpudoctor.compat.tiers import Tier, coverage, driver_tier
from gpudoctor.facts import VERSION_NOT_SHOWN
from gpudoctor.facts_view import driver_broken, driver_version, has_gpu, live_gpus
from gpudoctor.findings import ERROR, INFO, NA, OK, UNKNOWN, WARN, Finding
from gpudoctor.matrix.platforms import first_cuda_on_pypi, pypi_cpu_only
from gpudoctor.matrix.queries import arch_list_covers

if TYPE_CHECKING:
    from gpudoctor.facts import FrameworkFacts, HostFacts
    from gpudoctor.matrix.model import Matrix


def check_framework_driver(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    if not facts.frameworks:
        return [finding("framework-driver-cuda", NA, "no torch, tensorflow or jax installed")]
    return [_framework_driver(facts, matrix, fw) for fw in facts.frameworks]


def _driver_pasted(facts: HostFacts) -> bool:
    """A pasted report that shows the driver (its version, or the newest CUDA it runs) without a
    GPU line: the host it came from has the GPU that driver runs on, so the driver is judged."""
    return facts.report is not None and bool(
        facts.nvml.driver_version or facts.nvml.cuda_driver_version
    )


def _framework_driver(  # noqa: PLR0911 - one return per verdict
    facts: HostFacts, matrix: Matrix, fw: FrameworkFacts
) -> Finding:
    code, subject = "framework-driver-cuda", fw.name
    driver = driver_version(facts)
    ev: list[tuple[str, object]] = [
        ("framework", fw.version),
        ("framework_cuda", fw.cuda),
        ("driver", driver),
        ("driver_cuda", facts.nvml.cuda_driver_version),
    ]
    if fw.companions:  # what a reinstall must keep matched (the fix installs them together)
        ev.append(
            (
                "companions",
                [f"{c.name} {c.version}{'+' + c.local if c.local else ''}" for c in fw.companions],
            )
        )
    if fw.cpu_only or fw.hip:
        what = "a CPU-only build" if fw.cpu_only else f"a ROCm build (HIP {fw.hip})"
        return finding(code, NA, f"{fw.label} is {what}", evidence=ev, subject=subject)
    if fw.cuda is None:
        return finding(
            code,
            UNKNOWN,
            f"the CUDA {fw.label} was built with is unknown",
            evidence=ev,
            subject=subject,
        )
    if not has_gpu(facts) and not _driver_pasted(facts):
        return finding(
            code,
            NA,
            f"{fw.label} (CUDA {fw.cuda}): no GPU to run on",
            evidence=ev,
            subject=subject,
        )
    if driver is None and driver_broken(facts):
        return finding(
            code,
            NA,
            f"no working driver to run CUDA {fw.cuda} (see the driver checks)",
            evidence=ev,
            subject=subject,
        )
    driver_cuda = facts.nvml.cuda_driver_version
    if driver is None and not driver_cuda:
        return finding(
            code,
            UNKNOWN,
            f"driver unknown: cannot judge CUDA {fw.cuda}",
            evidence=ev,
            subject=subject,
        )
    # the driver by its version, or by the newest CUDA it reports where only that is shown
    driver_label = driver or f"supporting CUDA {driver_cuda}"
    verdict = host_driver_tier(facts, matrix, driver, fw.cuda)
    if verdict.tier is Tier.NATIVE:
        return finding(
            code,
            OK,
            f"driver {driver_label} runs {fw.label} (CUDA {fw.cuda})",
            evidence=ev,
            subject=subject,
        )
    if verdict.tier is Tier.MINOR_VERSION:
        return finding(
            code,
            INFO,
            f"driver {driver_label} runs {fw.label} (CUDA {fw.cuda}) by minor-version "
            "compatibility",
            detail=verdict.reason
            + (f"; full support from driver {verdict.required}" if verdict.required else ""),
            fix=f"upgrade the driver to >= {verdict.required} for full CUDA {fw.cuda} support"
            if verdict.required
            else "",
            evidence=ev,
            subject=subject,
        )
    if verdict.tier is Tier.UNKNOWN:  # under WSL without the driver's CUDA version, say
        return finding(
            code,
            UNKNOWN,
            f"cannot tell whether driver {driver_label} runs {fw.label} (CUDA {fw.cuda})",
            detail=verdict.reason,
            fix="`nvidia-smi` shows the newest CUDA the driver supports (its 'CUDA Version')",
            evidence=ev,
            subject=subject,
        )
    alternative = _older_build(facts, matrix, fw, driver)
    need = verdict.floor or verdict.required
    # the nearest way out: the major's minor-version floor (the release's own for native)
    fix = f"upgrade the driver to >= {need}" if need else "upgrade the driver"
    return finding(
        code,
        ERROR,
        f"driver {driver_label} is too old for {fw.label} (built with CUDA {fw.cuda})",
        detail=verdict.reason
        + (f"; {verdict.way_out}" if verdict.way_out else "")
        + "; expect 'CUDA driver version is insufficient for CUDA runtime "
        "version' / torch.cuda.is_available() == False",
        fix=fix + (f", or install a build this driver runs: {alternative}" if alternative else ""),
        evidence=[
            *ev,
            ("required_driver", verdict.required),
            ("minor_compat_floor", verdict.floor),
        ],
        subject=subject,
    )


def _older_build(
    facts: HostFacts, matrix: Matrix, fw: FrameworkFacts, driver: str | None
) -> str | None:
    framework = framework_names.MATRIX_NAME.get(fw.name)
    if framework is None:
        return None
    return install_for_host(facts, matrix, framework, fw.version)


def check_framework_arch(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    if not facts.frameworks:
        return [finding("framework-arch", NA, "no torch, tensorflow or jax installed")]
    out: list[Finding] = []
    for fw in facts.frameworks:
        out += _framework_arch(facts, matrix, fw)
    return out


def _framework_arch(facts: HostFacts, matrix: Matrix, fw: FrameworkFacts) -> list[Finding]:
    code, subject = "framework-arch", fw.name
    if fw.name == "tensorflow" and fw.arch_list and not fw.cpu_only:
        return _arch_from_build(facts, matrix, fw)
    if fw.cpu_only or fw.hip or fw.name != "torch":
        why = "a CPU-only build" if fw.cpu_only else "not judged (the matrix has arch lists for "
        why = why if fw.cpu_only else (why + "torch CUDA builds only)")
        return [finding(code, NA, f"{fw.label}: {why}", subject=subject)]
    gpus = [g for g in live_gpus(facts) if g.compute_capability]
    if not gpus:
        sev = NA if not has_gpu(facts) or driver_broken(facts) else UNKNOWN
        return [finding(code, sev, "no GPU compute capability known", subject=subject)]
    build = installed_build(matrix, fw)
    if build is None:
        return [
            finding(
                code,
                UNKNOWN,
                f"{fw.label} (CUDA {fw.cuda}) is not in the matrix: its architecture list is "
                "unknown",
                subject=subject,
            )
        ]
    host = from_facts(facts)
    tier = driver_tier(matrix, host, build.cuda).tier
    out = []
    for g in host.gpus:
        cc = g.compute_capability
        v = coverage(matrix, build, g, tier)
        name = next(x.name for x in gpus if x.index == g.index)
        ev: list[tuple[str, object]] = [("compute_capability", cc), ("gpu", name)]
        ev = [("arch_list", build.arch_list), *ev] if build.arch_list is not None else ev
        subj = f"{fw.name} on GPU {g.index}"
        if v.ok and v.how == "toolkit":  # the same rule `check --framework` and resolve use
            out.append(
                finding(
                    code,
                    INFO,
                    f"{fw.label}: its arch list is not in the matrix; its CUDA {build.cuda} "
                    f"targets {cc}",
                    detail="judged by the CUDA toolkit it was built with, not by kernels read "
                    "from the wheel",
                    evidence=ev,
                    subject=subj,
                )
            )
        elif v.ok and v.how != "ptx-jit":
            out.append(
                finding(
                    code,
                    OK,
                    f"{fw.label} has kernels for {cc}",
                    detail=v.reason,
                    evidence=ev,
                    subject=subj,
                )
            )
        elif v.ok:
            out.append(
                finding(
                    code,
                    INFO,
                    f"{fw.label} runs on {cc} through PTX JIT",
                    detail=v.reason,
                    evidence=ev,
                    subject=subj,
                )
            )
        else:
            alt = install_for_host(facts, matrix, "pytorch", fw.version)
            out.append(
                finding(
                    code,
                    ERROR,
                    f"{fw.label} has no kernels for compute capability {cc}"
                    + (f" ({name})" if name else ""),
                    detail=v.reason + "; expect 'no kernel image is available for execution on "
                    "the device'",
                    fix=f"install a build with kernels for {cc}: {alt}"
                    if alt
                    else f"no torch build in the matrix has kernels for {cc} on this driver: "
                    "upgrade "
                    "the driver",
                    evidence=ev,
                    subject=subj,
                )
            )
    return _merge_gpus(out)


def _arch_from_build(facts: HostFacts, matrix: Matrix, fw: FrameworkFacts) -> list[Finding]:
    """A build that states its own compiled architectures (TensorFlow's build_info), judged
    from them with the matrix's kernel rule (matrix.queries.arch_list_covers)."""
    gpus = [g for g in live_gpus(facts) if g.compute_capability]
    if not gpus:
        sev = NA if not has_gpu(facts) or driver_broken(facts) else UNKNOWN
        return [finding("framework-arch", sev, "no GPU compute capability known", subject=fw.name)]
    out = []
    for g in gpus:
        cc = g.compute_capability or ""
        verdict = arch_list_covers(fw.arch_list, cc)
        ev = [("arch_list", fw.arch_list), ("compute_capability", cc), ("gpu", g.name)]
        subject = f"{fw.name} on GPU {g.index}"
        if verdict.ok:
            sev = INFO if verdict.how == "ptx-jit" else OK
            title = (
                f"{fw.label} runs on {cc} through PTX JIT"
                if verdict.how == "ptx-jit"
                else f"{fw.label} has kernels for {cc}"
            )
            out.append(finding("framework-arch", sev, title, detail=verdict.reason,
                               evidence=ev, subject=subject))  # fmt: skip
            continue
        alt = tensorflow_fix(facts, matrix)
        out.append(
            finding(
                "framework-arch",
                ERROR,
                f"{fw.label} has no kernels for compute capability {cc}"
                + (f" ({g.name})" if g.name else ""),
                detail=verdict.reason + " (its build_info's cuda_compute_capabilities)",
                fix=f"install a TensorFlow release built for {cc}: {alt}"
                if alt
                else f"no TensorFlow build in the matrix runs on {cc} here: build TensorFlow "
                f"from source with {cc} in TF_CUDA_COMPUTE_CAPABILITIES",
                evidence=ev,
                subject=subject,
            )
        )
    return _merge_gpus(out)


def tensorflow_fix(facts: HostFacts, matrix: Matrix) -> str | None:
    tf = next((f for f in facts.frameworks if f.name == "tensorflow"), None)
    return install_for_host(facts, matrix, "tensorflow", tf.version if tf else None)


def _merge_gpus(found: list[Finding]) -> list[Finding]:
    """One finding per verdict: "torch on GPU 0" ... "GPU 7" collapse to "torch on GPU 0-7"."""
    by_fw: dict[str, list[tuple[int, Finding]]] = {}
    for f in found:
        name, _, gpu = f.subject.partition(" on GPU ")
        by_fw.setdefault(name, []).append((int(gpu), f))
    merged = []
    for name, items in by_fw.items():
        for f in group_by_gpu("framework-arch", items):
            merged.append(Finding(**{**f.__dict__, "subject": f"{name} on {f.subject}"}))
    return merged


def check_cpu_only(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    if not facts.frameworks:
        return [finding("framework-cpu-only", NA, "no torch, tensorflow or jax installed")]
    return [_cpu_only(facts, matrix, fw) for fw in facts.frameworks]


# TensorFlow's install page: "TensorFlow 2.10 was the last TensorFlow release that supported
# GPU on native-Windows" (https://www.tensorflow.org/install/pip#windows-native); later releases
# reach a GPU on Windows only through WSL2.
_TF_LAST_NATIVE_WINDOWS_GPU = (2, 10)


def _native_windows_tf(facts: HostFacts, fw: FrameworkFacts) -> bool:
    on_windows = (facts.platform.os_pretty or "").lower().startswith("windows")
    if fw.name != "tensorflow" or not on_windows or facts.platform.wsl:
        return False
    try:
        return versions.pep440(fw.version).release[:2] > _TF_LAST_NATIVE_WINDOWS_GPU
    except ValueError:
        return False


def _windows_finding(
    facts: HostFacts, fw: FrameworkFacts, ev: Sequence[tuple[str, object]]
) -> Finding | None:
    """A TensorFlow after 2.10 on native Windows: CPU-only, whatever the build says."""
    if not _native_windows_tf(facts, fw):
        return None
    wants_gpu = has_gpu(facts) or (facts.report is not None and "cuda" in facts.report.named)
    return finding(
        "framework-cpu-only",
        ERROR if wants_gpu else INFO,
        f"{fw.label} on native Windows has no GPU support",
        detail="TensorFlow 2.10 was the last release with GPU support on native Windows; "
        "the Windows builds of later releases are CPU-only, whatever CUDA and cuDNN are "
        "installed (tensorflow.org/install/pip, Windows native)",
        fix="run TensorFlow in WSL2 (`pip install tensorflow[and-cuda]` there), or use "
        "tensorflow 2.10 with CUDA 11.2 and cuDNN 8.1 on native Windows",
        evidence=[*ev, ("os", facts.platform.os_pretty)],
        subject=fw.name,
    )


def _cpu_only(  # noqa: PLR0911 (one verdict per kind of build)
    facts: HostFacts, matrix: Matrix, fw: FrameworkFacts
) -> Finding:
    code, subject = "framework-cpu-only", fw.name
    ev = [("framework", fw.version), ("cpu_only", fw.cpu_only), ("framework_cuda", fw.cuda)]
    windows = _windows_finding(facts, fw, ev)
    if windows is not None:
        return windows
    if fw.cpu_only is None:
        probable = _aarch64_probable(facts, matrix, fw)
        if probable:
            wants_gpu = has_gpu(facts) or bool(facts.report and "cuda" in facts.report.named)
            return finding(
                code,
                WARN if wants_gpu else UNKNOWN,
                f"{fw.label} is probably a CPU-only build",
                detail=probable,
                fix=_gpu_build_fix(facts, matrix, fw, probable),
                evidence=[*ev, ("machine", facts.platform.machine)],
                subject=subject,
            )
        return finding(
            code,
            UNKNOWN,
            f"cannot tell whether {fw.label} is a CPU-only build",
            evidence=ev,
            subject=subject,
        )
    if not fw.cpu_only and fw.hip and not fw.cuda and has_gpu(facts) and not facts.amd.seen:
        # A ROCm build drives AMD GPUs only: on NVIDIA GPUs it is as good as a CPU-only one.
        return finding(
            code,
            ERROR,
            f"{fw.label} is a ROCm build on a host with NVIDIA GPUs only",
            detail=f"built with HIP {fw.hip} for AMD GPUs: it will never use the NVIDIA GPUs "
            "(torch.cuda.is_available() is False)",
            fix=_gpu_build_fix(facts, matrix, fw, ""),
            evidence=[*ev, ("hip", fw.hip)],
            subject=subject,
        )
    if not fw.cpu_only:
        built = f"CUDA {fw.cuda}" if fw.cuda else f"HIP {fw.hip}" if fw.hip else "a GPU backend"
        return finding(code, OK, f"{fw.label} is built with {built}", evidence=ev, subject=subject)
    if not has_gpu(facts) and facts.amd.seen:
        return finding(
            code,
            NA,
            f"{fw.label} is a CPU-only build; this host's GPUs are AMD (see amd-torch-build)",
            evidence=ev,
            subject=subject,
        )
    if not has_gpu(facts) and not _jax_saw_nvidia_gpu(facts, fw):
        return finding(
            code,
            OK,
            f"{fw.label} is a CPU-only build, and this host has no GPU",
            evidence=ev,
            subject=subject,
        )
    trap = _aarch64_trap(facts, matrix, fw)
    fix = _gpu_build_fix(facts, matrix, fw, trap)
    return finding(
        code,
        ERROR,
        f"{fw.label} is a CPU-only build on a host with NVIDIA GPUs",
        detail=trap or _never_uses_gpus(fw),
        fix=fix,
        evidence=[*ev, ("machine", facts.platform.machine)] if trap else ev,
        subject=subject,
    )


# What each framework answers when it was built without CUDA.
_NO_GPU_SAID = {
    "torch": "torch.cuda.is_available() is False",
    "tensorflow": "tf.config.list_physical_devices('GPU') is []",
    "jax": "jax.devices() lists only CpuDevice",
}


def _never_uses_gpus(fw: FrameworkFacts) -> str:
    said = _NO_GPU_SAID.get(fw.name)
    return "it will never use the GPUs" + (f" ({said})" if said else "")


def _jax_saw_nvidia_gpu(facts: HostFacts, fw: FrameworkFacts) -> bool:
    """JAX logs "An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not
    installed" only where an NVIDIA device node exists (jax/_src/xla_bridge.py
    _suggest_missing_backends, hardware_utils.has_visible_nvidia_gpu: /dev/nvidia0,
    /dev/nvidiactl or WSL2's /dev/dxg): the host has an NVIDIA GPU though no listing was pasted."""
    report = facts.report
    return (
        fw.name == "jax"
        and report is not None
        and any(e.code == "jax-cpu-fallback" for e in report.errors)
    )


def _gpu_build_fix(facts: HostFacts, matrix: Matrix, fw: FrameworkFacts, trap: str) -> str:
    """The install line of a CUDA build of `fw` for this host (for a CPU-only or ROCm build)."""
    if fw.name == "torch":
        alt = install_for_host(facts, matrix, "pytorch", fw.version, " --force-reinstall")
        return (
            alt
            if alt
            else (
                f"pip install --force-reinstall torch=={versions.public(fw.version)} with a CUDA "
                "index URL from https://pytorch.org/get-started/previous-versions/"
            )
        )
    if fw.name == "tensorflow" and trap:
        return (
            "no CUDA TensorFlow wheel exists for this machine on PyPI: run TensorFlow from a "
            "container image built with CUDA for arm64, or build it from source"
        )
    if fw.name == "tensorflow" and fw.version == VERSION_NOT_SHOWN:
        # no release to pin: `pip show tensorflow` names it; [and-cuda] is Linux/WSL2's
        return (
            "pip uninstall -y tensorflow-cpu; pip install 'tensorflow[and-cuda]' (pin the "
            "release `pip show tensorflow` names)"
        )
    if fw.name == "tensorflow":
        alt = install_for_host(facts, matrix, "tensorflow", fw.version)
        return "pip uninstall -y tensorflow-cpu; " + (
            alt or f"pip install 'tensorflow[and-cuda]=={versions.public(fw.version)}'"
        )
    return "pip install -U 'jax[cuda12]'"


# What prints the CUDA a framework build was made with (None: a CPU-only build).
_BUILD_CUDA = {
    "torch": "`python -c 'import torch; print(torch.version.cuda)'`",
    "tensorflow": "`python -c 'import tensorflow as tf; print(tf.sysconfig.get_build_info())'`",
}


def _aarch64_probable(facts: HostFacts, matrix: Matrix, fw: FrameworkFacts) -> str:
    """Why a build whose CUDA the report does not show is probably PyPI's CPU-only one: an
    aarch64 host that is no Jetson, a version without a local tag (download.pytorch.org's CUDA
    wheels carry "+cu128", NVIDIA's container builds "+<commit>.nv24.10") and no CUDA library
    wheel beside it, of a release whose PyPI aarch64 wheel carries no CUDA. "" otherwise: a
    conda-forge or source build stays possible, so this is a warning, not a verdict."""
    if facts.platform.machine != "aarch64" or jetson_release(facts) is not None:
        return ""
    if versions.public(fw.version) != fw.version or fw.cudnn or fw.bundled or fw.hip:
        return ""
    trap = _aarch64_trap(facts, matrix, fw)
    if not trap:
        return ""
    return (
        f"{trap}; the report does not show the build's CUDA, and a version without a +cuXYZ "
        "tag on aarch64 is PyPI's build unless it came from conda-forge or a source build "
        f"({_BUILD_CUDA.get(fw.name, 'the framework')} settles it)"
    )


def _aarch64_trap(facts: HostFacts, matrix: Matrix, fw: FrameworkFacts) -> str:
    """Why plain `pip install` gave a CPU-only build on this machine, when the matrix's
    `[[wheel]]` rows say PyPI serves one for this release there; "" otherwise."""
    framework = framework_names.MATRIX_NAME.get(fw.name)
    machine = facts.platform.machine
    if framework is None or machine is None:
        return ""
    row = pypi_cpu_only(matrix, framework, fw.version, machine)
    if row is None:
        return ""
    text = (
        f"PyPI's {machine} wheel of {fw.name} {versions.public(fw.version)} carries no CUDA, so "
        f"`pip install {fw.name}` on this host installs a CPU-only build ({row.notes.rstrip('.')})"
    )
    first = first_cuda_on_pypi(matrix, framework, row.machine)
    if first is not None:
        text += f"; PyPI's {machine} wheels bring CUDA from {first.version} on (CUDA {first.cuda})"
    return text


def check_nvcc(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    toolkits = facts.cuda_libs.toolkits
    if not toolkits:
        return [finding("nvcc-driver-cuda", NA, "no CUDA toolkit installed")]
    driver = driver_version(facts)
    out = []
    for tk in toolkits:
        version = versions.major_minor(tk.nvcc_version or tk.version)
        ev = [
            ("toolkit", tk.path),
            ("toolkit_version", tk.nvcc_version or tk.version),
            ("driver", driver),
        ]
        if version is None:
            out.append(
                finding(
                    "nvcc-driver-cuda", NA, "toolkit version unknown", evidence=ev, subject=tk.path
                )
            )
        elif tk.nvrtc and _newer_than_driver(facts, version):
            out.append(_nvrtc(facts, version, ev, tk.path))
        elif driver is None:
            out.append(
                finding(
                    "nvcc-driver-cuda",
                    NA,
                    f"CUDA {version} toolkit, no driver to run what it builds",
                    evidence=ev,
                    subject=tk.path,
                )
            )
        else:
            out.append(_nvcc(facts, matrix, driver, version, ev, tk.path))
    return out


def _newer_than_driver(facts: HostFacts, version: str) -> bool:
    """The toolkit's CUDA is newer than the newest CUDA the driver supports (its 'CUDA Version')."""
    driver_cuda = facts.nvml.cuda_driver_version
    if not driver_cuda:
        return False
    try:
        return versions.numeric(version) > versions.numeric(driver_cuda)
    except ValueError:
        return False


def _nvrtc(facts: HostFacts, version: str, ev: Sequence[tuple[str, object]], path: str) -> Finding:
    """Run-time compiled kernels (NVRTC) are PTX of the runtime's CUDA: minor-version
    compatibility does not cover them, the driver's PTX JIT must know that CUDA release."""
    driver_cuda = facts.nvml.cuda_driver_version
    return finding(
        "nvcc-driver-cuda",
        WARN,
        f"CUDA {version} runtime compiles kernels with NVRTC; the driver supports CUDA "
        f"{driver_cuda} only",
        detail=f"NVRTC {version} emits PTX that a CUDA {driver_cuda} driver cannot JIT-compile "
        "(cudaErrorUnsupportedPtxVersion): minor-version compatibility covers prebuilt kernels, "
        "not run-time compiled ones",
        fix=f"upgrade the driver to one that supports CUDA {version}, or install the build for "
        f"CUDA {driver_cuda} (for CuPy: the cupy-cudaXXx package and toolkit of the driver's CUDA)",
        evidence=[*ev, ("driver_cuda", driver_cuda), ("nvrtc", True)],
        subject=path,
    )


def _nvcc(  # noqa: PLR0917 - the facts and the toolkit being judged
    facts: HostFacts,
    matrix: Matrix,
    driver: str,
    version: str,
    ev: Sequence[tuple[str, object]],
    path: str,
) -> Finding:
    verdict = host_driver_tier(facts, matrix, driver, version)
    if verdict.tier is Tier.NATIVE:
        return finding(
            "nvcc-driver-cuda",
            OK,
            f"CUDA {version} toolkit runs on driver {driver}",
            evidence=ev,
            subject=path,
        )
    if verdict.tier is Tier.MINOR_VERSION:
        return finding(
            "nvcc-driver-cuda",
            INFO,
            f"CUDA {version} toolkit: its programs run by minor-version compatibility",
            detail=verdict.reason,
            evidence=ev,
            subject=path,
        )
    if verdict.tier is Tier.UNKNOWN:
        return finding(
            "nvcc-driver-cuda",
            INFO,
            f"cannot tell whether driver {driver} runs what the CUDA {version} toolkit builds",
            detail=verdict.reason,
            evidence=ev,
            subject=path,
        )
    return finding(
        "nvcc-driver-cuda",
        WARN,
        f"CUDA {version} toolkit is newer than driver {driver} supports",
        detail="compiling works, running what it builds fails with 'CUDA driver version is "
        "insufficient for CUDA runtime version'; frameworks bring their own CUDA runtime and are "
        "judged separately",
        fix=f"upgrade the driver to >= {verdict.required or verdict.floor}, or use a toolkit "
        f"no newer than the driver's CUDA ({facts.nvml.cuda_driver_version or 'unknown'})",
        evidence=ev,
        subject=path,
    )


def check_cudnn(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    if not facts.frameworks:
        return [finding("framework-cudnn", NA, "no torch, tensorflow or jax installed")]
    return [judge_cudnn(facts, matrix, fw) for fw in facts.frameworks]


CHECKS = (check_framework_driver, check_framework_arch, check_cpu_only, check_cudnn, check_nvcc)
