"""Build, loader and start-up failures read from pastes: the dynamic loader's missing
versioned symbol (two copies of a library), TensorFlow/XLA's dlopen of a CUDA library, nvcc's
host compiler check, torchvision built for another CUDA than torch, NCCL's shared memory, the
.run installer without kernel sources, the fabric manager service, PyTorch's rendezvous store.
Each line is written in the program's own format; each has a near miss that must not be
named."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.errors import FactsError
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix

Read = Callable[[str], HostFacts]


def _error_lines(facts: HostFacts, matrix: Matrix, code: str) -> list[Finding]:
    findings = run_checks(facts, matrix).findings
    return [f for f in findings if f.code == "report-error" and f.subject == code]


@pytest.mark.parametrize(
    ("line", "code", "words", "severity"),
    [
        (
            "OSError: /opt/conda/lib/libcublas.so.11: symbol cublasLtGetStatusString version "
            "libcublasLt.so.11 not defined in file libcublasLt.so.11 with link time reference",
            "symbol-version-not-defined",
            "libcublasLt.so.11",
            Severity.ERROR,
        ),
        (
            "W tensorflow/tsl/platform/default/dso_loader.cc:66] Could not load dynamic library "
            "'libcusparse.so.12'; dlerror: libcusparse.so.12: cannot open shared object file",
            "xla-cuda-library-not-loaded",
            "CUDA 12's libcusparse",
            Severity.WARN,
        ),
        (
            "/usr/local/cuda/include/crt/host_config.h:143:2: error: #error -- unsupported GNU "
            "version! gcc versions later than 13 are not supported! The nvcc flag "
            "'-allow-unsupported-compiler' can be used to override this version check",
            "nvcc-host-compiler-unsupported",
            "later than 13",
            Severity.ERROR,
        ),
        (
            "RuntimeError: Detected that PyTorch and torchvision were compiled with different "
            "CUDA major versions. PyTorch has CUDA Version=12.4 and torchvision has CUDA "
            "Version=11.8. Please reinstall the torchvision that matches your PyTorch install.",
            "torchvision-cuda-mismatch",
            "same CUDA as torch",
            Severity.ERROR,
        ),
        (
            "gpu1:4242:4300 [0] include/shm.h:27 NCCL WARN Call to shm_open failed : "
            "Permission denied",
            "nccl-shm-segment",
            "chmod 1777 /dev/shm",
            Severity.ERROR,
        ),
        (
            "ERROR: Unable to find the kernel source tree for the currently running kernel.  "
            "Please make sure you have installed the kernel source files for your kernel",
            "installer-kernel-source-missing",
            "linux-headers-$(uname -r)",
            Severity.ERROR,
        ),
        (
            "ImportError: /usr/lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.30' "
            "not found (required by /opt/venv/lib/python3.11/site-packages/torch/lib/libtorch.so)",
            "libstdcxx-too-old",
            "GLIBCXX_3.4.30",
            Severity.ERROR,
        ),
        (
            "ImportError: /lib64/libc.so.6: version `GLIBC_2.28' not found (required by "
            "/usr/lib/python3.6/site-packages/torch/lib/libtorch_cpu.so)",
            "glibc-too-old",
            "GLIBC_2.28",
            Severity.ERROR,
        ),
        (
            "stderr: nvidia-container-cli: detection error: open failed: /dev/nvidia-uvm: "
            "permission denied: unknown.",
            "container-hook-failed",
            "failed (detection error: open failed",
            Severity.ERROR,
        ),
        (
            "Nov 03 12:00:01 hgx-01 systemd[1]: nvidia-fabricmanager.service: Main process "
            "exited, code=exited, status=1/FAILURE",
            "fabric-manager-service-failed",
            "exactly the driver's version",
            Severity.ERROR,
        ),
        (
            "[rank3]: torch.distributed.DistBackendError: [3] is setting up NCCL communicator and "
            "retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but "
            "store->get('0') got error: Socket Timeout",
            "torch-store-unreachable",
            "rank 0's log",
            Severity.ERROR,
        ),
    ],
)
def test_known_lines_are_named(
    read: Read, matrix: Matrix, *, line: str, code: str, words: str, severity: Severity
) -> None:
    (found,) = _error_lines(read(line + "\n"), matrix, code)
    assert found.severity is severity
    assert words in f"{found.detail} {found.fix}"


@pytest.mark.parametrize(
    ("text", "code"),
    [
        (
            "ImportError: libtorch_cuda.so: undefined symbol: cudnnGetLibConfig",
            "symbol-version-not-defined",
        ),
        (
            "W dso_loader.cc:64] Could not load dynamic library 'libnvinfer.so.8'; dlerror: "
            "libnvinfer.so.8: cannot open shared object file",
            "xla-cuda-library-not-loaded",
        ),
        ("#error -- this header needs C++17", "nvcc-host-compiler-unsupported"),
        (
            "torchvision 0.19.0+cu121 and torch 2.4.0+cu121 are installed",
            "torchvision-cuda-mismatch",
        ),
        ("NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct", "nccl-shm-segment"),
        (
            "-> Kernel source path: '/usr/src/linux-headers-6.8.0-40-generic'",
            "installer-kernel-source-missing",
        ),
        ("libstdc++.so.6 => /lib/x86_64-linux-gnu/libstdc++.so.6 (0x00007f)", "libstdcxx-too-old"),
        ("ldd (Ubuntu GLIBC 2.35-0ubuntu3.8) 2.35", "glibc-too-old"),
        ("nvidia-container-cli: version 1.14.3", "container-hook-failed"),
        (
            "Nov 03 12:00:01 hgx-01 systemd[1]: Started nvidia-fabricmanager.service - NVIDIA "
            "fabric manager service.",
            "fabric-manager-service-failed",
        ),
        ("NCCL INFO Bootstrap : Using eth0:10.0.0.2<0>", "torch-store-unreachable"),
    ],
)
def test_near_misses_are_not_named(read: Read, matrix: Matrix, text: str, code: str) -> None:
    facts = read("Driver Version: 550.54.15\n" + text + "\n")
    assert not _error_lines(facts, matrix, code)


_TF_DLERROR = (
    "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic "
    "library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file\n"
    "I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore above cudart dlerror if you do "
    "not have a GPU set up on your machine.\n"
)


def test_tensorflows_dlerror_with_its_own_note_is_info_without_a_gpu(
    read: Read, matrix: Matrix
) -> None:
    (cpu,) = _error_lines(read(_TF_DLERROR), matrix, "xla-cuda-library-not-loaded")
    assert cpu.severity is Severity.INFO
    with_driver = read("Driver Version: 535.104.05\n" + _TF_DLERROR)
    (gpu,) = _error_lines(with_driver, matrix, "xla-cuda-library-not-loaded")
    assert gpu.severity is Severity.WARN


def test_an_unknown_python_warning_is_info_and_a_known_one_keeps_its_entry(
    read: Read, matrix: Matrix
) -> None:
    unknown = read(
        "/opt/venv/lib/python3.11/site-packages/torch/storage.py:414: UserWarning: TypedStorage "
        "is deprecated. It will be removed in the future.\n"
    )
    (found,) = _error_lines(unknown, matrix, "python-warning")
    assert found.severity is Severity.INFO
    assert "UserWarning" in found.detail
    known = read(
        "UserWarning: CUDA initialization: CUDA unknown error - this may be due to an "
        "incorrectly set up environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after "
        "program start. Setting the available devices to be zero.\n"
    )
    assert not _error_lines(known, matrix, "python-warning")
    # near miss: a log level word is no Python warning class
    assert not _error_lines(
        read("Driver Version: 550.54.15\nWARNING: the NVIDIA Driver was not detected\n"),
        matrix,
        "python-warning",
    )


def test_a_container_started_with_gpus_is_read(read: Read) -> None:
    facts = read("docker run --rm --gpus all nvidia/cuda:12.4.1-base-ubuntu22.04 nvidia-smi\n")
    assert facts.report is not None
    assert any("--gpus" in n for n in facts.report.notes)
    # near miss: the flag in prose, with no container started
    with pytest.raises(FactsError):
        read("what does the --gpus flag do exactly?\n")
