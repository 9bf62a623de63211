"""TensorFlow's CUDA libraries: from 2.14 a Linux CUDA build gets CUDA and cuDNN from the
nvidia-* wheels of its `[and-cuda]` extra (the matrix row's `pip` requirement says so); a
`pip install tensorflow` without the extra has none, finds no CUDA libraries and falls back to
the CPU ("Cannot dlopen some GPU libraries"). Named as exactly that.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpudoctor.checks.base import Intent, finding
from gpudoctor.checks.suggest import install_for_host
from gpudoctor.facts_view import has_gpu
from gpudoctor.findings import ERROR, NA, OK, UNKNOWN, WARN, Finding
from gpudoctor.matrix.queries import tensorflow_release_for

if TYPE_CHECKING:
    from gpudoctor.facts import FrameworkFacts, HostFacts
    from gpudoctor.matrix.model import Matrix, TensorflowRelease

CODE = "tf-cuda-wheels"
EXTRA = "and-cuda"


def check_tf_cuda_wheels(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    tf = next((f for f in facts.frameworks if f.name == "tensorflow"), None)
    if tf is None:
        return [finding(CODE, NA, "no TensorFlow installed")]
    if tf.cpu_only or tf.hip or not has_gpu(facts):
        return [finding(CODE, NA, f"{tf.label}: not a CUDA build on a GPU host", subject=tf.name)]

    release = tensorflow_release_for(matrix, tf.version)
    if release is None:
        return [finding(CODE, NA, f"{tf.label} is not in the matrix", subject=tf.name)]
    if not _wants_wheels(release):
        return [
            finding(
                CODE,
                NA,
                f"{tf.label} loads the system CUDA and cuDNN (no [{EXTRA}] extra before 2.14)",
                subject=tf.name,
            )
        ]
    return [_judge(facts, matrix, tf, release)]


def _wants_wheels(release: TensorflowRelease) -> bool:
    from packaging.requirements import Requirement

    return EXTRA in Requirement(release.pip).extras


def _judge(
    facts: HostFacts, matrix: Matrix, tf: FrameworkFacts, release: TensorflowRelease
) -> Finding:
    wheels = [b.package for b in tf.bundled if b.package.startswith("nvidia-")]
    ev = [("nvidia_wheels", wheels), ("matrix_pip", release.pip)]
    if wheels:
        return finding(
            CODE, OK, f"{tf.label} has its CUDA wheels ({len(wheels)} nvidia-*)", evidence=ev,
            subject=tf.name,
        )  # fmt: skip
    if any(d.name == tf.name and d.cuda_available for d in facts.deep):
        # TensorFlow itself listed (or created) a GPU device: it found its CUDA libraries, from
        # wheels or the system, whatever the package list shows
        return finding(
            CODE,
            OK,
            f"{tf.label} uses the GPU: it found its CUDA libraries",
            evidence=[*ev, ("cuda_available", True)],
            subject=tf.name,
        )
    report = facts.report
    if report is not None and "pip list" not in report.sections:
        return finding(
            CODE,
            UNKNOWN,
            f"{tf.label}: the report lists no packages, so its nvidia-* wheels are unknown",
            evidence=ev,
            subject=tf.name,
        )
    fix = _fix(facts, matrix, tf, release)
    system = bool(facts.cuda_libs.cudart) and bool(facts.cuda_libs.cudnn)
    if system:
        return finding(
            CODE,
            WARN,
            f"{tf.label} was installed without [{EXTRA}]: it relies on the system CUDA and cuDNN",
            detail=f"this release is built against CUDA {release.cuda} and cuDNN "
            f"{release.cudnn}; the [{EXTRA}] extra installs exactly those as nvidia-* wheels",
            fix=fix,
            evidence=ev,
            subject=tf.name,
        )
    return finding(
        CODE,
        ERROR,
        f"{tf.label} was installed without [{EXTRA}]: no nvidia-* wheels and no system CUDA "
        "libraries",
        detail="TensorFlow finds no CUDA or cuDNN library, logs 'Cannot dlopen some GPU "
        "libraries' and runs on the CPU",
        fix=fix,
        evidence=ev,
        subject=tf.name,
    )


def _fix(facts: HostFacts, matrix: Matrix, tf: FrameworkFacts, release: TensorflowRelease) -> str:
    line = install_for_host(facts, matrix, "tensorflow", tf.version)
    return line or f"install the release's CUDA wheels: {release.pip}"


CHECKS = (check_tf_cuda_wheels,)
