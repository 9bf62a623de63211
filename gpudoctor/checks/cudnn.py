"""cuDNN the framework loads vs the cuDNN its build expects (the matrix variant's / release's).

torch loads the cuDNN of its nvidia-cudnn-cuXX wheel; TensorFlow 2.14+ its [and-cuda] wheel and
older releases the system cuDNN. Another major cannot load (libcudnn.so.8 vs .so.9); an older
minor than the build's may lack symbols.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpudoctor import versions
from gpudoctor.checks.base import finding
from gpudoctor.checks.suggest import installed_build
from gpudoctor.compat.install import for_build
from gpudoctor.facts import NAMED_IN_REPORT
from gpudoctor.findings import Finding, Severity

if TYPE_CHECKING:
    from gpudoctor.facts import FrameworkFacts, HostFacts
    from gpudoctor.matrix.model import Matrix


def _expected(matrix: Matrix, fw: FrameworkFacts) -> str | None:
    build = installed_build(matrix, fw)
    if build is not None:
        return build.cudnn
    # a TensorFlow release the matrix lacks is judged by the cuDNN its own build_info names
    return fw.build_cudnn if fw.name == "tensorflow" else None


def _loaded(facts: HostFacts, matrix: Matrix, fw: FrameworkFacts) -> tuple[str | None, str]:
    """The cuDNN version the framework will load, and where it comes from."""
    wheel = any(b.package.startswith("nvidia-cudnn") for b in fw.bundled)
    # TensorFlow's build info names the cuDNN it was compiled against (cudnn_version, "8"):
    # without an nvidia-cudnn wheel that is the build's expectation, not a cuDNN found
    declared = fw.name == "tensorflow" and not wheel and fw.cudnn == fw.build_cudnn
    if fw.cudnn and not declared:
        if fw.name == "torch" and not wheel:  # a paste's torch.backends.cudnn.version()
            return fw.cudnn, "torch.backends.cudnn.version()"
        return fw.cudnn, "its nvidia-cudnn wheel"
    if fw.name == "tensorflow":
        named = _host_libraries(matrix, fw)
        system = [
            lib.version
            for lib in facts.cuda_libs.cudnn
            if lib.version and (named or lib.path != NAMED_IN_REPORT)
        ]
        if system:
            return max(system, key=lambda v: versions.release(v) or ()), "the system"
    return None, ""


def _host_libraries(matrix: Matrix, fw: FrameworkFacts) -> bool:
    """Whether the release loads the host's cuDNN (before the [and-cuda] wheels): only then is
    a cuDNN a report merely names ("cuDNN: 8.0.4") the one it loads; a release with the wheels
    loads theirs, which a paste without its package list does not show."""
    build = installed_build(matrix, fw)
    return build is not None and build.cuda_from == "system"


def judge_cudnn(facts: HostFacts, matrix: Matrix, fw: FrameworkFacts) -> Finding:
    code, subject = "framework-cudnn", fw.name
    if fw.cpu_only or fw.hip or fw.name == "jax":
        return finding(code, Severity.NA, f"{fw.name} {fw.version}: not judged", subject=subject)
    expected = _expected(matrix, fw)
    loaded, where = _loaded(facts, matrix, fw)
    ev = [("expected_cudnn", expected), ("found_cudnn", loaded), ("from", where or None)]
    if expected is None:
        return finding(
            code,
            Severity.UNKNOWN,
            f"{fw.name} {fw.version}: expected cuDNN unknown (no matrix row states it)",
            evidence=ev,
            subject=subject,
        )
    if loaded is None:
        return finding(
            code,
            Severity.NA,
            f"no separate cuDNN found for {fw.name} (expects {expected})",
            evidence=ev,
            subject=subject,
        )
    want, have = versions.release(expected) or (), versions.release(loaded) or ()
    pip_name = f"nvidia-cudnn-cu{(versions.release(fw.cuda) or (12,))[0]}"
    fix = (
        f"pip install '{pip_name}=={expected}'"
        if fw.name == "torch"
        else _tf_fix(matrix, fw, expected)
    )
    if have[:1] != want[:1]:
        return finding(
            code,
            Severity.ERROR,
            f"{fw.name} {fw.version} expects cuDNN {expected}, {where} has {loaded}",
            detail="a different cuDNN major cannot be loaded",
            fix=fix,
            evidence=ev,
            subject=subject,
        )
    if have[:2] < want[:2]:
        return finding(
            code,
            Severity.WARN,
            f"{fw.name} {fw.version} expects cuDNN {expected}, {where} has older {loaded}",
            fix=fix,
            evidence=ev,
            subject=subject,
        )
    return finding(
        code,
        Severity.OK,
        f"cuDNN {loaded} from {where} (build expects {expected})",
        evidence=ev,
        subject=subject,
    )


def _tf_fix(matrix: Matrix, fw: FrameworkFacts, expected: str) -> str:
    """Install the cuDNN the release expects, or reinstall the release so that pip brings it
    (the command from the one install-command builder)."""
    build = installed_build(matrix, fw)
    text = f"install cuDNN {expected} for CUDA {fw.cuda or (build.cuda if build else '?')}"
    if build is None or build.cuda_from == "system":
        return text  # a release that loads the host's cuDNN: reinstalling it brings none
    return f"{text}, or: {for_build(build, build.index_url)}"


# The cuDNN load-failure lines whose shipped fix assumes a framework that brings its own cuDNN
# (torch's nvidia-cudnn wheel): drop LD_LIBRARY_PATH or reinstall the framework.
_LOAD_FAILURES = frozenset({"cudnn-load-failed", "cudnn-library-missing"})
# Programs that bring no cuDNN of their own and load whatever the loader finds (the words
# pasted/facts_scan/prose.py records when a paste names CTranslate2, faster-whisper or whisperX).
_BRING_NO_CUDNN = ("ctranslate2",)


def program_without_cudnn(code: str, facts: HostFacts) -> tuple[str, str] | None:
    """(cause, fix) of a cuDNN library that a program bringing no cuDNN of its own could not
    load; None for other lines or where the report names no such program. faster-whisper's
    README (https://github.com/SYSTRAN/faster-whisper, "GPU") asks for cuDNN installed apart
    and, for the pip wheels, their lib folder on LD_LIBRARY_PATH."""
    report = facts.report
    if code not in _LOAD_FAILURES or report is None:
        return None
    program = next((p for p in _BRING_NO_CUDNN if p in report.named), None)
    if program is None:
        return None
    cause = (
        "the program is CTranslate2 (under faster-whisper, whisperX and the like), which brings "
        "no cuDNN of its own: it loads the cuDNN the loader finds on the library path, and found "
        "none of the major its build needs (not installed, or installed in a folder the loader "
        "does not search, such as the nvidia-cudnn wheel's); reinstalling a framework does not "
        "change that"
    )
    fix = (
        "install the cuDNN major the CTranslate2 release was built for (its nvidia-cudnn-cu* "
        "wheel, or the distribution's cuDNN package) and put the folder holding all its "
        "libraries on the library path: `export LD_LIBRARY_PATH=$(python3 -c 'import os, "
        "nvidia.cudnn.lib; print(os.path.dirname(nvidia.cudnn.lib.__file__))'):$LD_LIBRARY_PATH` "
        "(its bin folder on PATH on Windows); or install a CTranslate2 release built for the "
        "cuDNN you have"
    )
    return cause, fix
