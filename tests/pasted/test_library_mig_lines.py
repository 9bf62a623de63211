"""Library and MIG lines people paste: the dynamic loader's "cannot open shared object file"
whatever program wraps it, and the loader's own `LD_DEBUG=libs` trace. Each test pastes a line of
the kind the rule is for (its own words, not a thread's) and checks the finding, its severity and
the numbers it names, and a near miss that must not fire."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of

Read = Callable[[str], HostFacts]
# A fact line, so that a near miss alone is still a report that is read.
HOST = "Driver Version: 550.54.15\n"


@pytest.mark.parametrize(
    "line",
    [
        # cffi's dlopen: "cannot load library '%s': %s", the loader's reason after it.
        "OSError: cannot load library 'libfoo.so': libcudart.so.11.0: cannot open shared "
        "object file: No such file or directory",
        # A wrapper that puts its own words first.
        "RuntimeError: Error in dlopen: libcublasLt.so.12: cannot open shared object file: "
        "No such file or directory",
        # dlopen of a full path names the path.
        "failed to load /opt/app/lib/libnvrtc.so.12: cannot open shared object file",
    ],
)
def test_a_missing_cuda_soname_whatever_wraps_the_loader_error(
    read: Read, matrix: Matrix, line: str
) -> None:
    (found,) = error_lines(findings_of(read, matrix, line + "\n"), "cuda-library-missing")
    assert found.severity is Severity.ERROR
    major = "11" if "cudart" in line else "12"
    assert f"CUDA {major}'s lib" in found.detail


def test_a_missing_math_library_whatever_wraps_the_loader_error(read: Read, matrix: Matrix) -> None:
    line = (
        "OSError: cannot load library 'libfft.so': libcufft.so.10: cannot open shared object file\n"
    )
    (found,) = error_lines(findings_of(read, matrix, line), "cuda-math-library-missing")
    assert "libcufft.so.10" in found.detail


def test_near_misses_of_the_loader_error(read: Read, matrix: Matrix) -> None:
    # TensorFlow's and XLA's loader warning keeps its own (warning) signature: the soname after
    # "dlerror: " is not a second, separate error.
    tf = (
        "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic "
        "library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object "
        "file: No such file or directory\n"
    )
    findings = findings_of(read, matrix, HOST + tf)
    assert not error_lines(findings, "cuda-library-missing")
    (warned,) = error_lines(findings, "xla-cuda-library-not-loaded")
    assert warned.severity is Severity.WARN
    # A longer name that merely ends in a CUDA soname, and a CUDA library that was loaded.
    for near in (
        "OSError: mylibcudart.so.12: cannot open shared object file\n",
        "loaded /usr/local/cuda/lib64/libcudart.so.12 from the cache\n",
    ):
        assert not error_lines(findings_of(read, matrix, HOST + near), "cuda-library-missing")


# An LD_DEBUG=libs trace cut before its "calling init" lines: the loader tried two folders and
# mapped the second; the HPC SDK keeps CUDA 12.4 in ".../cuda/12.4/lib64".
_SDK = "/opt/nvidia/hpc_sdk/Linux_x86_64/24.5/cuda/12.4/lib64"
_CUT_TRACE = (
    "      4709:\tfile=libnvJitLink.so.12 [0];  needed by /opt/venv/lib/python3.11/site-packages/"
    "nvidia/cusparse/lib/libcusparse.so.12 [0]\n"
    "      4709:\tfind library=libnvJitLink.so.12 [0]; searching\n"
    f"      4709:\t search path=/usr/lib/x86_64-linux-gnu/openmpi/lib:{_SDK}\t\t(LD_LIBRARY_PATH)\n"
    "      4709:\t  trying file=/usr/lib/x86_64-linux-gnu/openmpi/lib/libnvJitLink.so.12\n"
    f"      4709:\t  trying file={_SDK}/libnvJitLink.so.12\n"
    "      4709:\t\n"
    "      4709:\tfile=libnvJitLink.so.12 [0];  generating link map\n"
)


def test_the_file_the_loader_mapped_is_the_one_it_loaded(read: Read, matrix: Matrix) -> None:
    wheels = "torch==2.6.0+cu126\nnvidia-nvjitlink-cu12==12.6.85\n"
    facts = read(_CUT_TRACE + wheels)
    assert [(lib.name, lib.path, lib.version) for lib in facts.cuda_libs.ld_library_path_libs] == [
        ("libnvJitLink", f"{_SDK}/libnvJitLink.so.12", "12.4")
    ]
    (shadow,) = [f for f in run_checks(facts, matrix).findings if f.code == "library-shadowing"]
    assert shadow.severity is Severity.ERROR
    assert "12.4" in shadow.title
    assert "12.6.85" in shadow.title


def test_a_tried_file_of_another_name_is_not_the_mapped_one(read: Read) -> None:
    # Near miss: the loader mapped libcusparse.so.12 (found elsewhere, e.g. by RUNPATH); the
    # only file tried was nvJitLink's, so nothing is known about where cuSPARSE came from, and a
    # file only tried is no library loaded.
    trace = (
        f"      4709:\t  trying file={_SDK}/libnvJitLink.so.12\n"
        "      4709:\tfile=libcusparse.so.12 [0];  generating link map\n"
    )
    libs = read(HOST + trace).cuda_libs
    assert libs.ld_library_path_libs == ()
    assert libs.loader_cache_libs == ()


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("Failed to display compute instances: Insufficient Permissions", "monitor"),
        ("No GPU instances found: Insufficient Permissions", "monitor"),
        (
            "Unable to create a GPU instance on GPU  0 using profile 3g.40gb: Invalid Argument",
            "-lgip",
        ),
        ("Failed to create GPU instances: Not Supported", "vGPU"),
    ],
)
def test_nvidia_smi_mig_refused(read: Read, matrix: Matrix, line: str, why: str) -> None:
    (found,) = error_lines(findings_of(read, matrix, line + "\n"), "mig-command-refused")
    assert found.severity is Severity.ERROR
    assert line.rsplit(": ", 1)[1] in found.detail
    assert why in found.detail + found.fix


def test_mig_lines_that_are_no_refusal(read: Read, matrix: Matrix) -> None:
    # nvidia-smi pads the GPU index ("on GPU  0"): still the specific Insufficient Resources entry.
    full = "Unable to create a GPU instance on GPU  0 using profile 9: Insufficient Resources\n"
    findings = findings_of(read, matrix, full)
    assert not error_lines(findings, "mig-command-refused")
    (res,) = error_lines(findings, "mig-insufficient-resources")
    assert "profile 9" in res.detail
    # A success line, and a cloud API client error that merely says "compute instances".
    for near in (
        "Successfully created GPU instance ID  2 on GPU  0 using profile MIG 3g.40gb (ID  9)\n",
        "failed to create compute instances client: Not Supported\n",
    ):
        assert not error_lines(findings_of(read, matrix, HOST + near), "mig-command-refused")


_LDCONFIG = (
    "$ ldconfig -p | grep -E 'cudnn|libz'\n"
    "\tlibcudnn_ops.so.9 (libc6,x86-64) => /lib/x86_64-linux-gnu/libcudnn_ops.so.9\n"
    "\tlibcudnn.so.9 (libc6,x86-64) => /lib/x86_64-linux-gnu/libcudnn.so.9\n"
    "\tlibz.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libz.so.1\n"
)


def test_ldconfig_listing_is_the_loader_cache(read: Read, matrix: Matrix) -> None:
    facts = read(_LDCONFIG)
    libs = facts.cuda_libs
    assert [lib.path.rsplit("/", 1)[1] for lib in libs.cudnn] == [
        "libcudnn_ops.so.9",
        "libcudnn.so.9",
    ]
    assert [(lib.name, lib.version) for lib in libs.loader_cache_libs] == [("libcudnn", "9")]
    assert facts.report is not None
    assert facts.report.ranges[0].first == 2
    assert libs.resolved_libs == ()  # listed in the cache, not seen loaded
    # Next to torch's own cuDNN wheel, a cached system copy of the same major serves only a
    # program that opens it by bare name (torch finds its own through RUNPATH): a note.
    wheels = "torch==2.5.1+cu124\nnvidia-cudnn-cu12==9.1.0.70\n"
    findings = run_checks(read(_LDCONFIG + wheels), matrix).findings
    (shadow,) = [f for f in findings if f.code == "library-shadowing"]
    assert shadow.severity is Severity.INFO


def test_ldconfig_lines_of_other_libraries_are_no_cuda_facts(read: Read) -> None:
    # Near miss: the loader cache's other libraries say nothing about CUDA.
    libs = read(HOST + "\tlibz.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libz.so.1\n").cuda_libs
    assert libs.cudnn == ()
    assert libs.loader_cache_libs == ()


@pytest.mark.parametrize(
    ("line", "version"),
    [
        ("ii  libcudnn8   8.9.7.29-1+cuda12.2   amd64   cuDNN runtime libraries", "8.9.7"),
        ("ii  libcudnn9-cuda-12   9.1.0.70-1   amd64   cuDNN runtime libraries", "9.1.0"),
        ("libcudnn8/unknown,now 8.6.0.163-1+cuda11.8 amd64 [installed]", "8.6.0"),
        ("libcudnn8-8.9.7.29-1.cuda12.2.x86_64", "8.9.7"),
    ],
)
def test_cudnn_package_is_the_installed_cudnn(read: Read, line: str, version: str) -> None:
    facts = read(line + "\n")
    assert [lib.version for lib in facts.cuda_libs.cudnn] == [version]


def test_cuda_toolkit_meta_package(read: Read) -> None:
    line = "ii  cuda-toolkit-12-4   12.4.1-1   amd64   CUDA Toolkit 12.4 meta-package\n"
    (kit,) = read(line).cuda_libs.toolkits
    assert kit.version == "12.4.1"


def test_a_cudnn_package_reaches_the_cudnn_check(read: Read, matrix: Matrix) -> None:
    # TensorFlow 2.3 was built for cuDNN 7; the host's package is cuDNN 8.
    text = "tensorflow-gpu==2.3.0\nii  libcudnn8  8.0.4.30-1+cuda11.0  amd64  cuDNN runtime\n"
    findings = run_checks(read(text), matrix).findings
    (cudnn,) = [f for f in findings if f.code == "framework-cudnn"]
    assert cudnn.severity is Severity.ERROR


@pytest.mark.parametrize(
    "line",
    [
        # prose naming a package and a number, without the package revision a listing has
        "I installed libcudnn8 8.9.7 yesterday",
        # a package whose version is not its name's major
        "ii  libcudnn8   9.1.0.70-1   amd64   odd",
        # apt removing it says nothing about what is installed
        "Removing libcudnn8 (8.9.7.29-1+cuda12.2) ...",
    ],
)
def test_near_misses_of_cudnn_packages(read: Read, line: str) -> None:
    assert read(HOST + line + "\n").cuda_libs.cudnn == ()


@pytest.mark.parametrize(
    ("line", "words"),
    [
        (
            'time="2024-12-07T02:19:30Z" level=fatal msg="Error applying MIG configuration with '
            'hooks: error resetting all GPUs: exit status 255"',
            "error resetting all GPUs: exit status 255.",
        ),
        (
            'level=error msg="Error applying MIG configuration with hooks: error creating MIG '
            'devices: unable to create GPU instance with profile 2g.20gb: Insufficient Resources"',
            "profile 2g.20gb: Insufficient Resources.",
        ),
    ],
)
def test_mig_parted_could_not_apply(read: Read, matrix: Matrix, line: str, words: str) -> None:
    (found,) = error_lines(findings_of(read, matrix, line + "\n"), "mig-parted-apply-failed")
    assert found.severity is Severity.ERROR
    assert words in found.detail


def test_mig_parted_success_is_no_failure(read: Read, matrix: Matrix) -> None:
    ok = "MIG configuration applied successfully\n"
    assert not error_lines(findings_of(read, matrix, HOST + ok), "mig-parted-apply-failed")


def test_no_gpu_instances_is_a_notice(read: Read, matrix: Matrix) -> None:
    text = "$ sudo nvidia-smi mig -lgi\nNo GPU instances found: Not Found\n"
    (found,) = error_lines(findings_of(read, matrix, text), "mig-no-gpu-instances")
    assert found.severity is Severity.INFO
    assert "-cgi" in found.fix
    # Near miss: the same listing refused for want of the MIG monitor capability.
    refused = "No GPU instances found: Insufficient Permissions\n"
    findings = findings_of(read, matrix, refused)
    assert not error_lines(findings, "mig-no-gpu-instances")
    assert error_lines(findings, "mig-command-refused")


@pytest.mark.parametrize(
    "line",
    [
        "torch/lib/libtorch_cuda.so: undefined symbol ncclCommRegister",
        "./all_reduce_perf: symbol lookup error: ./all_reduce_perf: undefined symbol: "
        '"ncclMemAlloc"',
    ],
)
def test_an_nccl_symbol_however_written_is_an_older_nccl_found_first(
    read: Read, matrix: Matrix, line: str
) -> None:
    (found,) = error_lines(findings_of(read, matrix, line + "\n"), "nccl-symbol-shadowed")
    assert found.severity is Severity.ERROR
    assert line.rsplit(" ", 1)[1].strip('"') in found.detail


def test_other_undefined_symbols_are_not_nccl_ones(read: Read, matrix: Matrix) -> None:
    # Near miss: a cuDNN symbol, and prose naming an NCCL function that is there.
    for near in (
        "libcudnn_graph.so.9: undefined symbol: cudnnGetLibConfig\n",
        "ncclCommRegister is defined in NCCL 2.19\n",
    ):
        assert not error_lines(findings_of(read, matrix, HOST + near), "nccl-symbol-shadowed")


def test_a_listing_of_library_files_is_read(read: Read) -> None:
    listing = (
        "$ ls -l /usr/lib/x86_64-linux-gnu/libcudnn*\n"
        "lrwxrwxrwx 1 root root 13 Dec  7  2023 /usr/lib/x86_64-linux-gnu/libcudnn.so.8 -> "
        "libcudnn.so.8.9.7\n"
        "-rw-r--r-- 1 root root 150200 Dec  7  2023 /usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.7\n"
        "$ ls /usr/local/cuda/lib64 | grep cublas\n"
        "libcublas.so.11.11.3.6\n"
    )
    facts = read(listing)
    assert "8.9.7" in [lib.version for lib in facts.cuda_libs.cudnn]
    assert facts.report is not None
    assert "libcublas.so.11.11.3.6 is listed" in facts.report.notes


def test_a_wheels_own_cudnn_file_is_named_not_taken_for_the_hosts(read: Read) -> None:
    found = "/opt/conda/lib/python3.10/site-packages/torch/lib/libcudnn_ops_infer.so.8\n"
    facts = read(found)
    assert facts.cuda_libs.cudnn == ()
    assert facts.report is not None
    assert any("site-packages/torch/lib" in note for note in facts.report.notes)


def test_lines_that_only_mention_a_library_file_are_no_listing(read: Read) -> None:
    # Near misses: an error naming the file, and prose.
    for near in (
        "libcudnn.so.8.9.7: cannot open shared object file: No such file or directory\n",
        "I copied libcudnn.so.8.9.7 into the folder\n",
    ):
        assert read(HOST + near).cuda_libs.cudnn == ()


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("ImportError: libnccl.so.2: cannot open shared object file: No such file", "libnccl.so.2"),
        ("OSError: libcusparseLt.so.0: cannot open shared object file", "libcusparseLt.so.0"),
        ("ImportError: libnvToolsExt.so.1: cannot open shared object file", "libnvToolsExt.so.1"),
    ],
)
def test_a_missing_library_of_its_own_nvidia_package(
    read: Read, matrix: Matrix, line: str, words: str
) -> None:
    (found,) = error_lines(findings_of(read, matrix, line + "\n"), "cuda-wheel-library-missing")
    assert found.severity is Severity.ERROR
    assert words in found.detail


def test_cupti_keeps_the_cuda_major(read: Read, matrix: Matrix) -> None:
    line = "OSError: libcupti.so.12: cannot open shared object file: No such file or directory\n"
    (found,) = error_lines(findings_of(read, matrix, line), "cuda-library-missing")
    assert "CUDA 12's libcupti" in found.detail


def test_the_nccl_net_plugin_is_no_missing_nccl(read: Read, matrix: Matrix) -> None:
    # Near miss: NCCL looks for an optional network plugin and says so at INFO level.
    info = (
        "node1:1234:1234 [0] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared "
        "object file: No such file or directory No plugin found (libnccl-net.so), using internal "
        "implementation\n"
    )
    assert not error_lines(findings_of(read, matrix, HOST + info), "cuda-wheel-library-missing")
