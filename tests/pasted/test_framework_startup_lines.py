"""Framework start-up failures: jaxlib older than jax needs, a JAX plugin of another release than
jaxlib, JAX's CUDA backend that found no usable device or failed for a reason it names, XLA's
ptxas (not found, older than the GPU, not runnable, a release that miscompiles), a CUDA library
older than the one its caller was linked against (the loader's versioned undefined symbol), and
a CUDA kernel's assert. Each test pastes a line in the vendor's own wording (with its own
numbers, not a thread's) and checks the finding, its severity and the values it names, and a
near miss that must stay quiet."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of

Read = Callable[[str], HostFacts]
# A fact line, so that a near miss alone is still a report that is read.
HOST = "Driver Version: 550.54.15\n"


def test_jaxlib_older_than_jax_needs(read: Read, matrix: Matrix) -> None:
    text = (
        "RuntimeError: jaxlib is version 0.4.12, but this version of jax requires "
        "version >= 0.4.19.\n"
    )
    (found,) = error_lines(findings_of(read, matrix, text), "jaxlib-too-old")
    assert found.severity is Severity.ERROR
    assert "jaxlib 0.4.12" in found.detail
    assert "0.4.19 or newer" in found.detail
    assert "jaxlib 0.4.19 or newer" in found.fix
    # The other direction has its own entry, and a version listing is no refusal.
    newer = (
        "RuntimeError: jaxlib version 0.4.31 is newer than and incompatible with jax version "
        "0.4.20. Please update your jax and/or jaxlib packages.\n"
    )
    assert not error_lines(findings_of(read, matrix, newer), "jaxlib-too-old")
    near = "jax: 0.4.19\njaxlib: 0.4.12\n"
    assert not error_lines(findings_of(read, matrix, HOST + near), "jaxlib-too-old")


def test_a_jax_plugin_of_another_release_than_jaxlib(read: Read, matrix: Matrix) -> None:
    text = (
        "/opt/env/lib/python3.12/site-packages/jaxlib/plugin_support.py:71: RuntimeWarning: JAX "
        "plugin jax_cuda12_plugin version 0.5.0 is installed, but it is not compatible with the "
        "installed jaxlib version 0.5.3, so it will not be used.\n"
    )
    findings = findings_of(read, matrix, text)
    (found,) = error_lines(findings, "jax-plugin-jaxlib-mismatch")
    assert found.severity is Severity.ERROR
    assert "jaxlib 0.5.3" in found.detail
    assert "jax_cuda12_plugin 0.5.0" in found.detail
    assert "jax_cuda12_plugin 0.5.3" in found.fix
    # Named by its own entry, not left to the generic Python-warning notice.
    assert not error_lines(findings, "python-warning")
    near = "RuntimeWarning: plugin foo version 1.0.0 is installed, so it will be used.\n"
    assert not error_lines(findings_of(read, matrix, HOST + near), "jax-plugin-jaxlib-mismatch")


def test_jax_found_no_usable_cuda_device(read: Read, matrix: Matrix) -> None:
    text = (
        "RuntimeError: Unable to initialize backend 'cuda': INTERNAL: no supported devices "
        "found for platform CUDA (you may need to uninstall the failing plugin package, or set "
        "JAX_PLATFORMS=cpu to skip this backend.)\n"
    )
    findings = findings_of(read, matrix, text)
    (found,) = error_lines(findings, "jax-cuda-no-supported-devices")
    assert found.severity is Severity.ERROR
    assert "XLA_PYTHON_CLIENT_PREALLOCATE=false" in found.fix
    # The specific entry names the line: the generic backend entry does not judge it again.
    assert not error_lines(findings, "jax-cuda-backend-failed")
    near = "INFO: no supported devices found for platform ROCm\n"
    assert not error_lines(findings_of(read, matrix, HOST + near), "jax-cuda-no-supported-devices")


def test_jax_cuda_backend_failure_names_its_reason(read: Read, matrix: Matrix) -> None:
    text = (
        "WARNING:jax._src.xla_bridge:CUDA backend failed to initialize: INTERNAL: Failed to "
        "create context (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)\n"
    )
    (found,) = error_lines(findings_of(read, matrix, text), "jax-cuda-backend-failed")
    assert found.severity is Severity.ERROR
    assert "INTERNAL: Failed to create context" in found.detail
    # Next to the error that names the cause, the generic line is that cause's symptom.
    outdated = (
        "RuntimeError: Unable to initialize backend 'cuda': Unable to use CUDA because of the "
        "following issues with CUDA components:\n"
        "Outdated cuDNN installation found.\n"
        "Version JAX was built against: 90300\n"
        "Minimum supported: 90300\n"
        "Installed version: 90100\n"
    )
    findings = findings_of(read, matrix, outdated)
    (cause,) = error_lines(findings, "jax-cuda-library-outdated")
    assert cause.severity is Severity.ERROR
    (symptom,) = error_lines(findings, "jax-cuda-backend-failed")
    assert symptom.severity is Severity.INFO
    # No visible GPU keeps its own entry; an optional backend's notice is not this line.
    none = (
        "RuntimeError: Unable to initialize backend 'cuda': FAILED_PRECONDITION: No visible "
        "GPU devices.\n"
    )
    assert error_lines(findings_of(read, matrix, none), "jax-cuda-no-visible-gpu")
    assert not error_lines(findings_of(read, matrix, none), "jax-cuda-backend-failed")
    tpu = "INFO:jax._src.xla_bridge:Unable to initialize backend 'tpu': NOT_FOUND: no TPU\n"
    assert not error_lines(findings_of(read, matrix, HOST + tpu), "jax-cuda-backend-failed")
    # Nor is the INFO line JAX logs for a CUDA backend it only probed (a CPU-only jaxlib).
    probed = (
        "INFO:jax._src.xla_bridge:Unable to initialize backend 'cuda': module "
        "'jaxlib.xla_extension' has no attribute 'GpuAllocatorConfig'\n"
    )
    assert not error_lines(findings_of(read, matrix, HOST + probed), "jax-cuda-backend-failed")


def test_xla_finds_no_ptxas(read: Read, matrix: Matrix) -> None:
    text = (
        "jax.errors.JaxRuntimeError: NOT_FOUND: Couldn't find a suitable version of ptxas. The "
        "following locations were considered: /opt/cuda/bin/ptxas, /usr/bin/ptxas\n"
    )
    (found,) = error_lines(findings_of(read, matrix, text), "xla-ptxas-not-found")
    assert found.severity is Severity.ERROR
    assert "ptxas" in found.detail
    assert "nvidia-cuda-nvcc-cu12" in found.fix
    near = "Using ptxas at /opt/cuda/bin/ptxas with version 12.8.93\n"
    assert not error_lines(findings_of(read, matrix, HOST + near), "xla-ptxas-not-found")


def test_xla_ptxas_older_than_the_gpu_is_a_warning(read: Read, matrix: Matrix) -> None:
    text = (
        "W0000 00:00:1712345678.000000 4242 subprocess_compilation.cc:112] Falling back to the "
        "CUDA driver for PTX compilation; ptxas does not support CC 12.0\n"
    )
    (found,) = error_lines(findings_of(read, matrix, text), "xla-ptxas-older-than-gpu")
    assert found.severity is Severity.WARN
    assert "compute capability 12.0" in found.detail
    near = "Falling back to the CPU for this op\n"
    assert not error_lines(findings_of(read, matrix, HOST + near), "xla-ptxas-older-than-gpu")


def test_xla_cannot_run_ptxas_is_a_warning(read: Read, matrix: Matrix) -> None:
    text = (
        "W tensorflow/compiler/xla/stream_executor/gpu/asm_compiler.cc:111] Couldn't get ptxas "
        "version : FAILED_PRECONDITION: Couldn't get ptxas/nvlink version string: INTERNAL: "
        "Couldn't invoke ptxas --version\n"
    )
    (found,) = error_lines(findings_of(read, matrix, text), "xla-ptxas-unavailable")
    assert found.severity is Severity.WARN
    near = "ptxas info    : Used 32 registers\n"
    assert not error_lines(findings_of(read, matrix, HOST + near), "xla-ptxas-unavailable")


def test_xla_ptxas_release_that_miscompiles(read: Read, matrix: Matrix) -> None:
    text = (
        "E0000 00:00:1712345678.000000 4242 ptx_compiler_helpers.cc:88] *** WARNING *** Invoking "
        "ptxas with version 12.4.131, which corresponds to a CUDA version <=12.6.2. CUDA versions "
        "12.x.y up to and including 12.6.2 miscompile certain edge cases around clamping.\n"
    )
    (found,) = error_lines(findings_of(read, matrix, text), "xla-ptxas-miscompile")
    assert found.severity is Severity.WARN
    assert "ptxas 12.4.131" in found.detail
    near = "Invoking ptxas with version 12.8.93\n"
    assert not error_lines(findings_of(read, matrix, HOST + near), "xla-ptxas-miscompile")


def test_a_cuda_library_older_than_its_caller_names_it(read: Read, matrix: Matrix) -> None:
    text = (
        "ImportError: /opt/env/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so: "
        "undefined symbol: cublasLtGroupedMatrixLayoutInit, version libcublasLt.so.12\n"
    )
    findings = findings_of(read, matrix, text)
    (found,) = error_lines(findings, "cuda-library-symbol-missing")
    assert found.severity is Severity.ERROR
    assert "libcublasLt.so.12 lacks cublasLtGroupedMatrixLayoutInit" in found.detail
    assert not error_lines(findings, "undefined-symbol")
    # Without the library's version node the loader names no library: the generic entry.
    bare = "ImportError: /opt/env/ext/_C.so: undefined symbol: myOp\n"
    assert error_lines(findings_of(read, matrix, bare), "undefined-symbol")
    assert not error_lines(findings_of(read, matrix, bare), "cuda-library-symbol-missing")
    # A library that is no CUDA library keeps the generic entry too.
    other = "ImportError: /opt/x.so: undefined symbol: png_set_x, version PNG16_0\n"
    assert not error_lines(findings_of(read, matrix, other), "cuda-library-symbol-missing")


def test_a_cuda_kernel_assert_is_the_programs_data(read: Read, matrix: Matrix) -> None:
    text = (
        "/src/aten/src/ATen/native/cuda/Indexing.cu:1237: indexSelectSmallIndex: block: [3,0,0], "
        "thread: [64,0,0] Assertion `srcIndex < srcSelectDimSize` failed.\n"
        "RuntimeError: CUDA error: device-side assert triggered\n"
    )
    (found,) = error_lines(findings_of(read, matrix, text), "cuda-kernel-assert")
    assert found.severity is Severity.ERROR
    assert "`srcIndex < srcSelectDimSize`" in found.detail
    assert "Indexing.cu" in found.detail
    # A host-side C assert has no block and thread: not a kernel's.
    near = "python: ../src/foo.c:12: main: Assertion `x > 0' failed.\n"
    assert not error_lines(findings_of(read, matrix, HOST + near), "cuda-kernel-assert")
