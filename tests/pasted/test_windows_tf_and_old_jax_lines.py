"""TensorFlow's loader on native Windows (the `<library>64_<version>.dll` names of TensorFlow
2.10 and older) and the CPU fallback notice of the JAX releases before it named the missing
CUDA jaxlib. Each test pastes a line of the kind the rule is for and a near miss."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of

Read = Callable[[str], HostFacts]
HOST = "Driver Version: 537.13\n"
_LOADER = "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] "
_STUB = (
    "I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore above cudart dlerror if you do "
    "not have a GPU set up on your machine.\n"
)


def test_a_windows_cuda_dll_tensorflow_cannot_load(read: Read, matrix: Matrix) -> None:
    line = (
        _LOADER
        + "Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found\n"
    )
    (found,) = error_lines(findings_of(read, matrix, HOST + line), "tf-windows-cuda-dll-not-loaded")
    assert found.severity is Severity.WARN
    assert "cudart64_110.dll" in found.detail
    assert "cudart64_110.dll" in found.fix
    assert "WSL2" in found.fix
    cublas = (
        _LOADER
        + "Could not load dynamic library 'cublasLt64_11.dll'; "
        + "dlerror: cublasLt64_11.dll not found\n"
    )
    (other,) = error_lines(
        findings_of(read, matrix, HOST + cublas), "tf-windows-cuda-dll-not-loaded"
    )
    assert "cublasLt64_11.dll" in other.detail
    # Near misses: the DLL it did open, and the Linux soname (its own entry).
    opened = (
        "I tensorflow/stream_executor/platform/default/dso_loader.cc:53] "
        "Successfully opened dynamic library cudart64_110.dll\n"
    )
    assert not error_lines(
        findings_of(read, matrix, HOST + opened), "tf-windows-cuda-dll-not-loaded"
    )
    linux = (
        _LOADER
        + "Could not load dynamic library 'libcudart.so.11.0'; "
        + "dlerror: libcudart.so.11.0: cannot open shared object file\n"
    )
    assert not error_lines(
        findings_of(read, matrix, HOST + linux), "tf-windows-cuda-dll-not-loaded"
    )


def test_the_windows_dlerror_with_tensorflows_own_note_is_info_without_a_gpu(
    read: Read, matrix: Matrix
) -> None:
    text = (
        _LOADER
        + "Could not load dynamic library 'cudart64_101.dll'; dlerror: cudart64_101.dll not found\n"
        + _STUB
    )
    (cpu,) = error_lines(findings_of(read, matrix, text), "tf-windows-cuda-dll-not-loaded")
    assert cpu.severity is Severity.INFO
    # The same lines next to a GPU TensorFlow itself found: the GPU is left unused.
    gpu = (
        "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1555] Found device 0 with properties:\n"
        "pciBusID: 0000:02:00.0 name: GeForce GTX 960M computeCapability: 5.0\n"
    )
    (found,) = error_lines(findings_of(read, matrix, text + gpu), "tf-windows-cuda-dll-not-loaded")
    assert found.severity is Severity.WARN


def test_the_windows_dlerror_alone_is_info_until_the_report_shows_a_gpu_or_cuda(
    read: Read, matrix: Matrix
) -> None:
    line = (
        _LOADER + "Could not load dynamic library 'cudart64_110.dll'; "
        "dlerror: cudart64_110.dll not found\n"
    )
    (alone,) = error_lines(findings_of(read, matrix, line), "tf-windows-cuda-dll-not-loaded")
    assert alone.severity is Severity.INFO
    installed = "CUDA/cuDNN version: CUDA 11.2, cuDNN 8.1\n"
    (meant,) = error_lines(
        findings_of(read, matrix, installed + line), "tf-windows-cuda-dll-not-loaded"
    )
    assert meant.severity is Severity.WARN


def test_the_cpu_fallback_notice_of_older_jax(read: Read, matrix: Matrix) -> None:
    line = (
        "WARNING:jax._src.lib.xla_bridge:No GPU/TPU found, falling back to CPU. "
        "(Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)\n"
    )
    used = "jax 0.3.25\njaxlib 0.3.25\n"
    (found,) = error_lines(findings_of(read, matrix, HOST + used + line), "jax-no-gpu-found")
    assert found.severity is Severity.WARN
    assert "CPU-only build" in found.detail
    # Alone, the notice is what any program that merely imports jax prints: a notice.
    (alone,) = error_lines(findings_of(read, matrix, HOST + line), "jax-no-gpu-found")
    assert alone.severity is Severity.INFO
    # Near miss: the newer notice has its own entry, and a TPU-only message is not this one.
    newer = (
        "An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not "
        "installed. Falling back to cpu.\n"
    )
    assert not error_lines(findings_of(read, matrix, HOST + used + newer), "jax-no-gpu-found")
    tpu = "No TPU found, falling back to CPU.\n"
    assert not error_lines(findings_of(read, matrix, HOST + used + tpu), "jax-no-gpu-found")


def test_paddles_device_warnings(read: Read, matrix: Matrix) -> None:
    new_gpu = (
        "The GPU compute capability in your current machine is 120, which is not supported by "
        "Paddle, it is recommended to install the corresponding wheel package according to the "
        "installation information on the official Paddle website.\n"
    )
    (found,) = error_lines(findings_of(read, matrix, HOST + new_gpu), "paddle-gpu-not-supported")
    assert found.severity is Severity.WARN
    assert "compute capability 12.0" in found.detail
    assert "compute capability 12.0" in found.fix
    older = (
        "W0617 05:33:02.719738   374 device_context.cc:270] WARNING: device: 0. The installed "
        "Paddle is compiled with CUDNN 7.6, but CUDNN version in your machine is 7.3, which may "
        "cause serious incompatible bug.\n"
    )
    (lib,) = error_lines(findings_of(read, matrix, HOST + older), "paddle-library-older-than-build")
    assert lib.severity is Severity.WARN
    assert "built with cudnn 7.6 and loaded cudnn 7.3" in lib.detail.lower()
    # Near misses: Paddle's note of what it found, and a build it supports.
    note = (
        "W0513 16:34:00.386127  4360 gpu_resources.cc:119] Please NOTE: device: 0, GPU Compute "
        "Capability: 12.0, Driver API Version: 12.9, Runtime API Version: 12.8\n"
        "W0513 16:34:00.390440  4360 gpu_resources.cc:164] device: 0, cuDNN Version: 9.7.\n"
    )
    found_all = findings_of(read, matrix, HOST + note)
    assert not error_lines(found_all, "paddle-gpu-not-supported")
    assert not error_lines(found_all, "paddle-library-older-than-build")


def test_tensorflows_tensorrt_notice_quoted_on_its_own(read: Read, matrix: Matrix) -> None:
    # People quote the notice without TensorFlow's prefix; it is still only a notice.
    quoted = "How to resolve the warning:\n\n`Could not find TensorRT`\n"
    (found,) = error_lines(findings_of(read, matrix, quoted), "tf-trt-not-found")
    assert found.severity is Severity.INFO
    # Near miss: another program's error that mentions TensorRT inside a longer line.
    other = "RuntimeError: torch_tensorrt: Could not find TensorRT in the path\n"
    assert not error_lines(findings_of(read, matrix, HOST + other), "tf-trt-not-found")


def test_tensorflows_issue_form_values_as_people_fill_them_in(read: Read) -> None:
    form = (
        "### Tensorflow Version\n\ntf 2.10.1\n\n"
        "### OS Platform and Distribution\n\nwin10\n\n"
        "### GPU model and memory\n\nNVIDIA GTX 1070 8GB VRAM\n"
    )
    facts = read(form)
    assert [(f.name, f.version) for f in facts.frameworks] == [("tensorflow", "2.10.1")]
    assert facts.platform.os_pretty == "Windows 10"
    joined = read("TensorFlow version: tf2.9.1\nOS: Win 11\n")
    assert [f.version for f in joined.frameworks] == ["2.9.1"]
    assert joined.platform.os_pretty == "Windows 11"
    # Near misses: "tf" before a number that is no release, and words that only begin with win.
    other = read("Driver Version: 550.54.15\ntensorflow tf 20 steps\nwin100 winner 10\n")
    assert not [f for f in other.frameworks if f.name == "tensorflow"]
    assert not (other.platform.os_pretty or "").lower().startswith("windows")


def test_xformers_built_for_another_torch_in_each_of_its_wordings(
    read: Read, matrix: Matrix
) -> None:
    head = "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
    no_cuda = head + "    PyTorch 2.3.0+cu121 with CUDA None (you have 2.0.0+cu117)\n"
    (found,) = error_lines(findings_of(read, matrix, HOST + no_cuda), "xformers-torch-mismatch")
    assert "built for torch 2.3.0+cu121 and torch 2.0.0+cu117 is installed" in found.detail
    older = head + "    PyTorch 2.0.1 (you have 2.1.0+cu121)\n"
    (same,) = error_lines(findings_of(read, matrix, HOST + older), "xformers-torch-mismatch")
    assert "built for torch 2.0.1 and torch 2.1.0+cu121 is installed" in same.detail
    # the same torch on both sides (a Mac, another Python): the cause says what that means
    agree = head + "    PyTorch 2.0.1 with CUDA None (you have 2.0.1)\n"
    (both,) = error_lines(findings_of(read, matrix, HOST + agree), "xformers-torch-mismatch")
    assert "where they agree, the build is for another Python" in both.detail
    # without the build's torch, the load failure alone is a warning of its own
    bare = "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for a "
    (alone,) = error_lines(
        findings_of(read, matrix, HOST + bare + "different version of PyTorch or Python.\n"),
        "xformers-extensions-not-loaded",
    )
    assert alone.severity is Severity.WARN
    # Near miss: xformers' own info listing of a working build names no other torch.
    info = "xFormers 0.0.28.post1\nmemory_efficient_attention.cutlassF: available\n"
    assert not error_lines(findings_of(read, matrix, HOST + info), "xformers-torch-mismatch")


def test_flashinfers_architecture_check(read: Read, matrix: Matrix) -> None:
    new = (
        '  File "/opt/env/lib/python3.12/site-packages/flashinfer/jit/core.py", line 108, in '
        "check_cuda_arch\nRuntimeError: FlashInfer requires GPUs with sm75 or higher\n"
    )
    (found,) = error_lines(findings_of(read, matrix, HOST + new), "flashinfer-no-target-arch")
    assert found.severity is Severity.ERROR
    assert "CUDA toolkit older than 12.9" in found.detail
    assert "FLASHINFER_CUDA_ARCH_LIST" in found.fix
    old = 'RuntimeError("FlashInfer requires sm75+")\n'
    assert error_lines(findings_of(read, matrix, HOST + old), "flashinfer-no-target-arch")
    # Near miss: FlashInfer's other requirements are not this check.
    other = "RuntimeError: FlashInfer requires CUDA 12.4 or later for fp8 kernels\n"
    assert not error_lines(findings_of(read, matrix, HOST + other), "flashinfer-no-target-arch")


def test_flashinfer_in_a_pip_list_against_its_minimum_gpu(read: Read, matrix: Matrix) -> None:
    listed = "flashinfer-python        0.2.5\nDriver Version: 550.54.15\n"
    old_gpu = listed + "GPU 0: Tesla V100-SXM2-32GB (UUID: GPU-1)\n"
    below = [
        f
        for f in findings_of(read, matrix, old_gpu)
        if f.code == "program-min-compute-capability" and f.subject == "flashinfer-python"
    ]
    assert [f.severity for f in below] == [Severity.ERROR]
    assert "7.5" in below[0].title
    # Near miss: a Turing GPU is at FlashInfer's minimum.
    turing = listed + "GPU 0: Tesla T4 (UUID: GPU-2)\n"
    at = [
        f
        for f in findings_of(read, matrix, turing)
        if f.code == "program-min-compute-capability" and f.subject == "flashinfer-python"
    ]
    assert [f.severity for f in at] == [Severity.OK]


def test_ollamas_cuda_context_failure_names_the_cuda_driver_error(
    read: Read, matrix: Matrix
) -> None:
    line = (
        "cuda driver library failed to get device context 800time=2025-02-09T08:41:25.591Z "
        'level=WARN source=gpu.go:449 msg="error looking up nvidia GPU memory"\n'
    )
    (found,) = error_lines(findings_of(read, matrix, HOST + line), "ollama-cuda-context-failed")
    assert found.severity is Severity.ERROR
    assert "CUDA_ERROR_NOT_PERMITTED (800)" in found.detail
    # Near miss: the same warning of ollama without the driver's failure.
    near = 'level=WARN source=gpu.go:449 msg="error looking up nvidia GPU memory"\n'
    assert not error_lines(findings_of(read, matrix, HOST + near), "ollama-cuda-context-failed")


def test_a_reporter_saying_the_host_has_a_gpu_keeps_the_dlerror_a_warning(
    read: Read, matrix: Matrix
) -> None:
    lines = (
        _LOADER + "Could not load dynamic library 'cudart64_110.dll'; "
        "dlerror: cudart64_110.dll not found\n" + _STUB
    )
    said = "TensorFlow runs on the CPU instead of the GPU, and I have an NVIDIA GPU.\n"
    (meant,) = error_lines(
        findings_of(read, matrix, said + lines), "tf-windows-cuda-dll-not-loaded"
    )
    assert meant.severity is Severity.WARN
    # Near miss: saying there is no GPU keeps TensorFlow's own note in force.
    none = "I don't have a GPU on this laptop.\n"
    (cpu,) = error_lines(findings_of(read, matrix, none + lines), "tf-windows-cuda-dll-not-loaded")
    assert cpu.severity is Severity.INFO


def test_ctranslate2_compute_types_the_device_lacks(read: Read, matrix: Matrix) -> None:
    refused = (
        "ValueError: Requested float16 compute type, but the target device or backend do not "
        "support efficient float16 computation.\n"
    )
    (found,) = error_lines(
        findings_of(read, matrix, HOST + refused), "ctranslate2-compute-type-unsupported"
    )
    assert found.severity is Severity.ERROR
    assert "compute capability 7.0" in found.detail
    converted = (
        "[ctranslate2] [warning] The compute type inferred from the saved model is float16, but "
        "the target device or backend do not support efficient float16 computation. The model "
        "weights have been automatically converted to use the float32 compute type instead.\n"
    )
    (gpu,) = error_lines(
        findings_of(read, matrix, HOST + converted), "ctranslate2-compute-type-converted"
    )
    assert gpu.severity is Severity.WARN
    # On a report with no sign of a GPU the conversion is what every CPU run prints.
    (cpu,) = error_lines(findings_of(read, matrix, converted), "ctranslate2-compute-type-converted")
    assert cpu.severity is Severity.INFO
    # Near miss: CTranslate2 naming the compute type it did pick.
    near = "[ctranslate2] [info] Using compute type int8_float16 on device cuda:0\n"
    near_found = findings_of(read, matrix, HOST + near)
    assert not error_lines(near_found, "ctranslate2-compute-type-unsupported")
    assert not error_lines(near_found, "ctranslate2-compute-type-converted")


def test_the_webuis_gpu_check_is_torch_seeing_no_cuda_gpu(read: Read, matrix: Matrix) -> None:
    line = (
        "RuntimeError: Torch is not able to use GPU; add --skip-torch-cuda-test to "
        "COMMANDLINE_ARGS variable to disable this check\n"
    )
    (found,) = error_lines(findings_of(read, matrix, HOST + line), "torch-cuda-unavailable")
    assert found.severity is Severity.ERROR
    # Near miss: the webui started with the check turned off says nothing of the GPU.
    near = "Launching Web UI with arguments: --skip-torch-cuda-test --precision full\n"
    assert not error_lines(findings_of(read, matrix, HOST + near), "torch-cuda-unavailable")
