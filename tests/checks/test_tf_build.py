"""TensorFlow judged from its own build_info (compiled architectures, cuDNN major) and a CUDA
build installed without its [and-cuda] wheels (checks/tf_wheels.py)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.facts import BundledLib, FrameworkFacts, HostFacts, LibraryFact
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.hosts import host


def _with_tf(tf: FrameworkFacts, *, system_libs: bool = False) -> HostFacts:
    facts = host("h100-r580")
    libs = facts.cuda_libs
    if system_libs:
        libs = replace(
            libs,
            cudart=(LibraryFact("libcudart", "/usr/local/cuda/lib64/libcudart.so.12", "12.3"),),
            cudnn=(LibraryFact("libcudnn", "/usr/lib/x86_64-linux-gnu/libcudnn.so.8", "8.9.7"),),
        )
    return replace(facts, frameworks=(tf,), cuda_libs=libs)


def _tf(version: str = "2.16.2", **changes: object) -> FrameworkFacts:
    base = FrameworkFacts(name="tensorflow", version=version, cuda="12.3", cpu_only=False)
    return replace(base, **changes)  # type: ignore[arg-type]


def _found(facts: HostFacts, matrix: Matrix, code: str) -> list[tuple[Severity, str, str]]:
    return [(f.severity, f.title, f.fix) for f in run_checks(facts, matrix).findings
            if f.code == code]  # fmt: skip


WHEELS = (BundledLib("nvidia-cudnn-cu12", "8.9.7.29"), BundledLib("nvidia-cublas-cu12", "12.3.4.1"))


def test_a_cuda_build_without_its_wheels_is_named_so(matrix: Matrix) -> None:
    ((severity, title, fix),) = _found(_with_tf(_tf()), matrix, "tf-cuda-wheels")
    assert severity is Severity.ERROR
    assert "installed without [and-cuda]" in title
    assert "tensorflow[and-cuda]==" in fix
    ((severity, title, _),) = _found(_with_tf(_tf(), system_libs=True), matrix, "tf-cuda-wheels")
    assert severity is Severity.WARN
    assert "relies on the system CUDA and cuDNN" in title


def test_no_false_alarm_with_wheels_cpu_builds_or_old_releases(matrix: Matrix) -> None:
    ok = _found(_with_tf(_tf(bundled=WHEELS)), matrix, "tf-cuda-wheels")
    assert [s for s, _, _ in ok] == [Severity.OK]
    cpu = _found(_with_tf(_tf(cpu_only=True, cuda=None)), matrix, "tf-cuda-wheels")
    assert [s for s, _, _ in cpu] == [Severity.NA]
    old = _found(_with_tf(_tf("2.13.1", cuda="11.8")), matrix, "tf-cuda-wheels")
    assert [s for s, _, _ in old] == [Severity.NA]


def test_a_paste_without_a_package_list_leaves_the_wheels_unknown(matrix: Matrix) -> None:
    from gpudoctor.pasted.dispatch import read_report
    from tests.support.pasted_samples import SMI_TABLE

    info = (
        "{'cuda_compute_capabilities': ['sm_60', 'sm_70'], 'cuda_version': '12.3', "
        "'cudnn_version': '8', 'is_cuda_build': True, 'is_rocm_build': False}\n"
    )
    # the build info names no TensorFlow version: the paste's pip line does
    facts = read_report(SMI_TABLE + info + "tensorflow==2.16.2\n", "p.txt", matrix.architectures)
    (tf,) = facts.frameworks
    assert tf.arch_list == ("sm_60", "sm_70")
    assert [s for s, _, _ in _found(facts, matrix, "tf-cuda-wheels")] == [Severity.ERROR]
    no_list = replace(facts, report=replace(facts.report, sections=("nvidia-smi", "tf build info")))
    assert [s for s, _, _ in _found(no_list, matrix, "tf-cuda-wheels")] == [Severity.UNKNOWN]


@pytest.mark.parametrize(
    ("arch_list", "severity"),
    [
        (("sm_70", "sm_90"), Severity.OK),  # the H100's own cubin
        (("sm_60", "sm_70", "sm_80", "sm_89", "compute_90"), Severity.INFO),  # PTX JIT
        (("sm_60", "sm_70", "sm_80"), Severity.ERROR),
    ],
)
def test_tensorflow_is_judged_from_its_build_info(
    arch_list: tuple[str, ...], severity: Severity, matrix: Matrix
) -> None:
    facts = _with_tf(_tf(bundled=WHEELS, arch_list=arch_list))
    found = _found(facts, matrix, "framework-arch")
    assert {s for s, _, _ in found} == {severity}
    if severity is Severity.ERROR:
        assert "no kernels for compute capability 9.0" in found[0][1]


def test_tensorflow_without_build_info_is_not_judged(matrix: Matrix) -> None:
    found = _found(_with_tf(_tf(bundled=WHEELS)), matrix, "framework-arch")
    assert [s for s, _, _ in found] == [Severity.NA]


def test_tf_cudnn_major_from_build_info_when_the_matrix_lacks_the_release(
    matrix: Matrix,
) -> None:
    wrong = (BundledLib("nvidia-cudnn-cu12", "9.1.0.70"),)
    facts = _with_tf(_tf("2.99.0", bundled=wrong, cudnn="9.1.0.70", build_cudnn="8"))
    found = _found(facts, matrix, "framework-cudnn")
    assert [s for s, _, _ in found] == [Severity.ERROR]
