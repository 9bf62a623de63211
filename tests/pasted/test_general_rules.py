"""General reading and judging rules for what people paste: Markdown labels, Jetson hosts, a
framework's fallback notice, the P2P workaround, run-time compiled kernels, a missing libcuda,
and CUDA error codes. Each test pastes a short text of the kind the rule is for (its own words,
not a corpus thread's) and checks the finding and its severity, and a near miss that must not
fire."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.checks.base import Intent
from gpudoctor.checks.gpu import persistence
from gpudoctor.checks.jetson import check_jetson_wheels, jetson_release
from gpudoctor.facts import FrameworkFacts, GpuFacts, HostFacts, NvmlFacts
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.clean import clean
from tests.support.pasted_findings import error_lines, findings_of

Read = Callable[[str], HostFacts]


def _error_line(findings: list[Finding], code: str) -> Finding:
    (found,) = [f for f in findings if f.code == "report-error" and ("error", code) in f.evidence]
    return found


def test_markdown_bold_leaves_label_and_value(read: Read) -> None:
    assert clean("- **Driver:** 580.82.09\n") == "- Driver: 580.82.09\n"
    facts = read("## Environment\n- **Driver**: 580.82.09\n- **OS**: Ubuntu 22.04\n")
    assert facts.nvml.driver_version == "580.82.09"


def test_a_prerelease_torch_with_a_long_local_tag_is_read(read: Read) -> None:
    facts = read("- torch: 2.5.0a0+872d972e41.nv24.08\n- Python: 3.10.12\n")
    assert [(f.name, f.version) for f in facts.frameworks] == [
        ("torch", "2.5.0a0+872d972e41.nv24.08")
    ]


def test_a_jetson_is_known_by_its_gpu_without_an_l4t_release(matrix: Matrix) -> None:
    gpu = GpuFacts(index=0, name="Jetson AGX Orin")
    facts = HostFacts(
        nvml=NvmlFacts(gpus=(gpu,)),
        frameworks=(FrameworkFacts(name="torch", version="2.6.0+cu126", cuda="12.6"),),
    )
    assert jetson_release(facts) == "unknown"
    (found,) = check_jetson_wheels(facts, matrix, Intent())
    assert found.severity is Severity.ERROR
    assert "nv_tegra_release" in found.fix  # it asks for the release it could not read
    other = HostFacts(nvml=NvmlFacts(gpus=(GpuFacts(index=0, name="NVIDIA A100-SXM4-80GB"),)))
    assert jetson_release(other) is None


def test_torch_without_cuda_on_a_jetson_gets_the_jetpack_build(read: Read, matrix: Matrix) -> None:
    findings = findings_of(
        read, matrix, "On my Jetson Orin Nano torch.cuda.is_available() returns False\n"
    )
    line = _error_line(findings, "torch-cuda-unavailable")
    assert line.severity is Severity.ERROR
    assert "JetPack" in line.fix
    assert "download.pytorch.org" not in line.fix  # PyPI's aarch64 CUDA wheels are SBSA builds
    ok = findings_of(
        read, matrix, "Driver Version: 550.54.15\ntorch.cuda.is_available() returns True\n"
    )
    assert not [f for f in ok if f.code == "report-error" and f.severity is Severity.ERROR]


def test_nouveau_holding_the_gpu_is_one_finding(read: Read, matrix: Matrix) -> None:
    findings = findings_of(
        read,
        matrix,
        "[    5.43] nouveau 0000:01:00.0: NVIDIA GA102 (172000a1)\n"
        "[    5.60] nouveau 0000:01:00.0: bios: version 94.02.42.00.a9\n",
    )
    severity = {f.code: f.severity for f in findings}
    assert severity["nouveau-loaded"] is Severity.ERROR
    assert severity["nvidia-module-not-loaded"] is Severity.NA


def test_jax_cpu_fallback_matters_only_where_jax_is_used(read: Read, matrix: Matrix) -> None:
    notice = (
        "An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not "
        "installed. Falling back to cpu."
    )
    unused = _error_line(
        findings_of(read, matrix, f"{notice}\ntraining runs fine\n"), "jax-cpu-fallback"
    )
    assert unused.severity is Severity.INFO
    used = _error_line(
        findings_of(read, matrix, f"$ pip install jax\n$ python train.py\n{notice}\n"),
        "jax-cpu-fallback",
    )
    assert used.severity is Severity.ERROR


def test_the_p2p_workaround_points_at_acs(read: Read, matrix: Matrix) -> None:
    findings = findings_of(
        read, matrix, "all_reduce hangs with 8 GPUs; it runs with NCCL_P2P_DISABLE=1 set\n"
    )
    line = _error_line(findings, "nccl-p2p-disabled")
    assert line.severity is Severity.WARN
    assert "ACS" in line.detail
    assert "ACSCtl" in line.fix
    unset = findings_of(read, matrix, "export NCCL_P2P_DISABLE=0\nNCCL version 2.21.5+cuda12.4\n")
    assert not [f for f in unset if f.code == "report-error" and f.severity is Severity.WARN]


def test_a_cpu_torch_stated_in_prose(read: Read, matrix: Matrix) -> None:
    findings = findings_of(
        read, matrix, "2x RTX 4090; pip install torch gave me the CPU-only version of torch\n"
    )
    line = _error_line(findings, "torch-cpu-build-stated")
    assert line.severity is Severity.ERROR
    assert "--index-url" in line.fix


_CUPY = """\
CuPy Version                 : 13.0.0
CUDA Root                    : /usr/local/cuda
CUDA Build Version           : 12040
CUDA Driver Version          : {driver}
CUDA Runtime Version         : 12040
NVRTC Version                : (12, 4)
Device 0 Name                : NVIDIA GeForce RTX 4090
"""


def test_nvrtc_newer_than_the_driver(read: Read, matrix: Matrix) -> None:
    old = findings_of(read, matrix, _CUPY.format(driver="12020"))
    (nvcc,) = [f for f in old if f.code == "nvcc-driver-cuda"]
    assert nvcc.severity is Severity.WARN
    assert "12.4" in nvcc.title
    assert "12.2" in nvcc.title
    new = findings_of(read, matrix, _CUPY.format(driver="12060"))
    assert [f.severity for f in new if f.code == "nvcc-driver-cuda"] != [Severity.WARN]


def test_libcuda_missing(read: Read, matrix: Matrix) -> None:
    line = "OSError: libcuda.so.1: cannot open shared object file: No such file or directory\n"
    error = _error_line(
        findings_of(read, matrix, f"$ docker run img python x.py\n{line}"), "libcuda-not-found"
    )
    assert error.severity is Severity.ERROR
    amd = _error_line(
        findings_of(read, matrix, f"My only GPU is an AMD GPU (Radeon RX 7900 XTX)\n{line}"),
        "libcuda-not-found",
    )
    assert amd.severity is Severity.INFO


def test_cuda_error_codes(read: Read, matrix: Matrix) -> None:
    unsupported = findings_of(read, matrix, "RuntimeError: CUDA error: operation not supported\n")
    assert "801" in _error_line(unsupported, "cuda-not-supported").detail
    symbol = findings_of(read, matrix, "RuntimeError: Error named symbol not found at line 9\n")
    assert "500" in _error_line(symbol, "cuda-symbol-not-found").detail
    # a file system's "operation not supported" is no CUDA error
    mount = read("mount: /mnt: operation not supported.\nDriver Version: 550.54.15\n")
    assert not [
        e for e in (mount.report.errors if mount.report else ()) if e.code == "cuda-not-supported"
    ]


def test_driver_kernel_log_lines(read: Read, matrix: Matrix) -> None:
    findings = findings_of(
        read,
        matrix,
        "Sep  1 10:00:01 host kernel: NVRM: The NVIDIA GeForce GTX 780 GPU installed in this "
        "system is\nSep  1 10:00:01 host kernel: NVRM:  supported through the NVIDIA 470.xx "
        "Legacy drivers.\n",
    )
    legacy = _error_line(findings, "driver-gpu-legacy")
    assert "470.xx" in legacy.fix
    assert "GeForce GTX 780" in legacy.detail
    probe = findings_of(
        read, matrix, "[   18.76] NVRM: The NVIDIA probe routine was not called for 2 device(s).\n"
    )
    assert "nouveau" in _error_line(probe, "nvrm-probe-not-called").detail
    missing = findings_of(
        read,
        matrix,
        "$ sudo modprobe nvidia\nmodprobe: FATAL: Module nvidia not found in directory "
        "/lib/modules/6.8.0-85-generic\n",
    )
    assert "6.8.0-85-generic" in _error_line(missing, "nvidia-module-missing-for-kernel").fix
    dkms = findings_of(
        read,
        matrix,
        "Error! Bad return status for module build on kernel: 6.8.0-36-generic (x86_64)\n",
    )
    assert _error_line(dkms, "dkms-build-failed").severity is Severity.ERROR


def test_no_devices_only_as_nvidia_smi_prints_it(read: Read, matrix: Matrix) -> None:
    rm = findings_of(
        read,
        matrix,
        "$ nvidia-smi\nNo devices were found\n"
        "NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:884)\n",
    )
    assert _error_line(rm, "nvidia-smi-no-devices").severity is Severity.ERROR
    assert "Above 4G" in _error_line(rm, "rm-init-adapter-failed").fix
    prose = read(
        "Driver Version: 550.54.15\nNo devices were found in the inventory, so I added one\n"
    )
    assert prose.report is not None
    assert not [e for e in prose.report.errors if e.code == "nvidia-smi-no-devices"]


def test_a_jetson_named_in_prose_or_by_its_kernel(read: Read, matrix: Matrix) -> None:
    for text in (
        "JetPack 6.1 board, pip install torch\ntorch 2.5.1+cu124\n",
        "Linux orin 5.15.136-tegra #1 SMP PREEMPT aarch64\ntorch 2.5.1+cu124\n",
    ):
        facts = read(text)
        assert jetson_release(facts) == "unknown", text
        (wheel,) = [f for f in run_checks(facts, matrix).findings if f.code == "jetson-wheel"]
        assert wheel.severity is Severity.ERROR
    x86 = read("Linux box 6.8.0-45-generic #45 SMP x86_64\ntorch 2.5.1+cu124\n")
    assert jetson_release(x86) is None


def test_multi_gpu_log_lines(read: Read, matrix: Matrix) -> None:
    cuda = findings_of(
        read,
        matrix,
        "torch.distributed.DistBackendError: NCCL error in: NCCLUtils.hpp:219, unhandled cuda "
        "error (run with NCCL_DEBUG=INFO for details), NCCL version 2.14.3\n",
    )
    assert _error_line(cuda, "nccl-unhandled-cuda-error").severity is Severity.ERROR
    assert read("unhandled cuda error, NCCL version 2.14.3\n").cuda_libs.nccl[0].version == "2.14.3"
    hang = findings_of(
        read,
        matrix,
        "[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, "
        "OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600005 milliseconds before timing out.\n",
    )
    assert "ACS" in _error_line(hang, "nccl-collective-timeout").detail
    iface = findings_of(
        read, matrix, "host:1:1 [0] NCCL WARN Bootstrap : no socket interface found\n"
    )
    assert "NCCL_SOCKET_IFNAME" in _error_line(iface, "nccl-no-socket-interface").fix
    twice = findings_of(
        read,
        matrix,
        "n1:1:1 [1] NCCL WARN Duplicate GPU detected : rank 1 and rank 0 both on CUDA device "
        "1a000\n",
    )
    assert "set_device" in _error_line(twice, "nccl-duplicate-gpu").fix
    remote = findings_of(
        read, matrix, "NCCL WARN socketProgress: Connection closed by remote peer\n"
    )
    assert "first error" in _error_line(remote, "nccl-remote-error").fix
    ib = findings_of(
        read, matrix, "NCCL WARN Call to ibv_reg_mr failed with error Cannot allocate memory\n"
    )
    assert "memlock" in _error_line(ib, "nccl-ib-register-failed").fix


def test_container_and_kubernetes_lines(read: Read, matrix: Matrix) -> None:
    cases = {
        "docker: Error response from daemon: unknown or invalid runtime name: nvidia.": (
            "docker-unknown-runtime",
            "nvidia-ctk runtime configure",
        ),
        'OCI runtime create failed: exec: "nvidia-container-runtime-hook": executable file not '
        "found in $PATH: unknown": ("container-hook-missing", "nvidia-container-toolkit"),
        "nvidia-container-cli: initialization error: nvml error: driver not loaded: unknown": (
            "container-cli-driver-not-loaded",
            "modprobe nvidia",
        ),
        "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient "
        "shared memory (shm).": ("dataloader-shm", "--shm-size"),
        "WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.": (
            "ngc-driver-not-detected",
            "--gpus all",
        ),
        "I0123 16:54:07.214545       1 main.go:356] No devices found. Waiting indefinitely.": (
            "device-plugin-no-devices",
            "runtimeClassName",
        ),
        # the same plugin with failOnInitError (its default): the error it exits with
        "E0601 10:00:00.000000       1 main.go:132] error starting plugins: error creating plugin "
        "manager: unable to create plugin manager: invalid device discovery strategy": (
            "device-plugin-no-devices",
            "runtimeClassName",
        ),
    }
    for line, (code, words) in cases.items():
        found = _error_line(findings_of(read, matrix, line + "\n"), code)
        assert found.severity is Severity.ERROR, code
        assert words in found.fix, code
    pending = findings_of(
        read,
        matrix,
        "Warning: MIG mode is in pending enable state for GPU 00000000:07:00.0:In use by another "
        "client\n",
    )
    assert _error_line(pending, "mig-pending-reset").severity is Severity.WARN


@pytest.mark.parametrize(
    ("line", "code"),
    [
        ("zsh: command not found: nvcc", "cuda-compiler-not-found"),
        ("'nvcc' is not recognized as an internal or external command,", "cuda-compiler-not-found"),
        (
            "nvcc : The term 'nvcc' is not recognized as the name of a cmdlet, function, script "
            "file, or operable program.",
            "cuda-compiler-not-found",
        ),
        ("zsh: command not found: nvidia-smi", "nvidia-smi-not-found"),
        (
            "'nvidia-smi' is not recognized as an internal or external command,",
            "nvidia-smi-not-found",
        ),
    ],
)
def test_every_shell_saying_the_program_is_missing(
    read: Read, matrix: Matrix, line: str, code: str
) -> None:
    found = _error_line(findings_of(read, matrix, line + "\n"), code)
    assert found.severity is Severity.ERROR
    # near miss: another program missing is not the toolkit's or the driver's
    other = line.replace("nvidia-smi", "htop").replace("nvcc", "htop")
    assert error_lines(findings_of(read, matrix, other + "\n"), code) == []


def test_more_cuda_error_codes(read: Read, matrix: Matrix) -> None:
    cases = {
        "RuntimeError: CUDA error: a PTX JIT compilation failed": ("ptx-jit-failed", "218"),
        "RuntimeError: CUDA error: the launch timed out and was terminated": (
            "cuda-launch-timeout",
            "702",
        ),
        "RuntimeError: CUDA error: CUBLAS_STATUS_ARCH_MISMATCH when calling `cublasGemmEx(...)`": (
            "cublas-arch-mismatch",
            "bfloat16",
        ),
        "RuntimeError: No CUDA GPUs are available": ("torch-no-cuda-gpus", "CUDA_VISIBLE_DEVICES"),
        "Error 803: system has unsupported display driver / cuda driver combination": (
            "cuda-driver-mismatch-803",
            "libcuda",
        ),
        'level=INFO source=gpu.go:323 msg="no compatible GPUs were discovered"': (
            "ollama-no-gpu",
            "CPU",
        ),
        "cuModuleLoadData failed: CUDA_ERROR_NO_BINARY_FOR_GPU": ("no-kernel-image", "209"),
        "RuntimeError: CUDA error: device doesn't have valid Grid license": (
            "cuda-not-licensed",
            "102",
        ),
    }
    for line, (code, words) in cases.items():
        found = _error_line(findings_of(read, matrix, line + "\n"), code)
        assert found.severity is Severity.ERROR, code
        assert words in found.detail, code


_HOST_LISTINGS = """\
$ lsmod | grep nvidia
nvidia_uvm           1527808  0
nvidia              56762368  190 nvidia_uvm,nvidia_modeset
$ dkms status
nvidia/535.129.03, 6.5.0-14-generic, x86_64: installed
$ dpkg -l | grep nvidia
ii  nvidia-container-toolkit         1.14.3-1          amd64        NVIDIA Container toolkit
"""


def test_lsmod_dkms_and_dpkg_listings(read: Read) -> None:
    facts = read(_HOST_LISTINGS)
    assert facts.kernel.modules_loaded == ("nvidia_uvm", "nvidia")
    assert facts.nvml.driver_version == "535.129.03"
    assert facts.container_runtime.toolkit_version == "1.14.3"
    prose = read("Driver Version: 550.54.15\nthe nvidia module is 4 MB and 2 GPUs use it\n")
    assert prose.kernel.modules_loaded == ()


def test_persistence_off_is_info_on_a_desktop_gpu(matrix: Matrix) -> None:
    desktop = GpuFacts(index=0, name="NVIDIA GeForce RTX 4090", persistence_mode=False)
    server = GpuFacts(index=0, name="NVIDIA A100-SXM4-80GB", persistence_mode=False)
    assert persistence(HostFacts(), matrix, desktop).severity is Severity.INFO
    assert persistence(HostFacts(), matrix, server).severity is Severity.WARN


def test_a_brand_written_against_the_model_number(read: Read) -> None:
    facts = read("2x RTX3090, driver 550.54.15\n")
    assert [(g.name, g.compute_capability) for g in facts.nvml.gpus] == [
        ("RTX3090", "8.6"),
        ("RTX3090", "8.6"),
    ]
    assert read("port RTX12, driver 550.54.15\n").nvml.gpus == ()


def test_driver_absent_lines_in_an_image_build_are_info(read: Read, matrix: Matrix) -> None:
    line = "OSError: libcuda.so.1: cannot open shared object file: No such file or directory"
    built = findings_of(read, matrix, f"Step 5/9 : RUN python -c 'import mylib'\n{line}\n")
    assert _error_line(built, "libcuda-not-found").severity is Severity.INFO
    kit = findings_of(read, matrix, f"#8 [builder 4/6] RUN python warmup.py\n{line}\n")
    assert _error_line(kit, "libcuda-not-found").severity is Severity.INFO
    run = findings_of(read, matrix, f"$ docker run --rm img python x.py\n{line}\n")
    assert _error_line(run, "libcuda-not-found").severity is Severity.ERROR


def test_is_available_in_code_is_no_statement(read: Read) -> None:
    code = read("Driver Version: 550.54.15\nif torch.cuda.is_available() == False:\n    x = 1\n")
    assert code.report is not None
    assert not [e for e in code.report.errors if e.code == "torch-cuda-unavailable"]
    said = read(">>> torch.cuda.is_available()\nFalse\n")
    assert said.report is not None
    assert [e.code for e in said.report.errors] == ["torch-cuda-unavailable"]


def test_gpu_program_versions_in_prose(read: Read, matrix: Matrix) -> None:
    facts = read("GPU: Tesla V100-SXM2-32GB, driver 535.104.05\npip install flash-attn==2.5.8\n")
    assert [(p.name, p.version) for p in facts.programs] == [("flash-attn", "2.5.8")]
    (found,) = [
        f for f in run_checks(facts, matrix).findings if f.code == "program-min-compute-capability"
    ]
    assert found.severity is Severity.ERROR
    assert read("flash_attn: 2.6.3\nDriver Version: 550.54.15\n").programs[0].name == "flash-attn"


def test_the_nvml_library_version_of_a_mismatch(read: Read) -> None:
    facts = read(
        "Failed to initialize NVML: Driver/library version mismatch\n"
        "NVML library version: 535.129\n"
    )
    assert facts.nvml.library_version == "535.129"
    # the version line is a fact of its own: pasted alone it is read, not "no report recognised"
    alone = read("NVML library version: 535.171\n")
    assert alone.nvml.library_version == "535.171"
    assert alone.report is not None


def test_library_and_process_lines(read: Read, matrix: Matrix) -> None:
    missing = findings_of(
        read,
        matrix,
        "ImportError: libcudart.so.11.0: cannot open shared object file: No such file\n",
    )
    assert "CUDA 11" in _error_line(missing, "cuda-library-missing").detail
    tf = read(
        "Driver Version: 550.54.15\n"
        "W dso_loader.cc:64] Could not load dynamic library 'libcudart.so.11.0'; dlerror: "
        "libcudart.so.11.0: cannot open shared object file: No such file or directory\n"
    )
    assert tf.report is not None
    assert not [e for e in tf.report.errors if e.code == "cuda-library-missing"]
    ort = findings_of(
        read,
        matrix,
        "[W:onnxruntime:Default, onnxruntime_pybind_state.cc:965] Failed to create "
        "CUDAExecutionProvider. Require cuDNN 9.* and CUDA 12.*. Please install all dependencies\n",
    )
    assert "cuDNN 9" in _error_line(ort, "onnxruntime-cuda-provider").detail
    fork = findings_of(
        read, matrix, "RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA\n"
    )
    assert "spawn" in _error_line(fork, "cuda-forked-subprocess").fix


@pytest.mark.parametrize(
    ("row", "pod", "status"),
    [
        (
            "gpu-pod-1   0/1     OutOfnvidia.com/gpu    0          10m",
            "gpu-pod-1",
            "OutOfnvidia.com/gpu",
        ),
        (
            "default   cuda-test   0/1   UnexpectedAdmissionError   0   3m",
            "cuda-test",
            "UnexpectedAdmissionError",
        ),
    ],
)
def test_a_pod_the_kubelet_refused_at_admission(
    read: Read, matrix: Matrix, row: str, pod: str, status: str
) -> None:
    text = "NAME   READY   STATUS   RESTARTS   AGE\n" + row + "\n"
    found = _error_line(findings_of(read, matrix, text), "k8s-pod-admission-rejected")
    assert found.severity is Severity.ERROR
    assert pod in found.detail
    assert status in found.detail
    assert f"kubectl describe pod {pod}" in found.fix


def test_a_core_resource_refusal_is_no_device_plugin_admission(read: Read, matrix: Matrix) -> None:
    # OutOfcpu / OutOfmemory: the kubelet's own resources, not a device plugin's
    text = (
        "NAME   READY   STATUS   RESTARTS   AGE\n"
        "nvidia-device-plugin-daemonset-x2x9k   1/1   Running   0   5m\n"
        "web-1   0/1   OutOfcpu   0   5m\n"
    )
    assert error_lines(findings_of(read, matrix, text), "k8s-pod-admission-rejected") == []


@pytest.mark.parametrize(
    ("pasted", "plain"),
    [
        ("runtime &quot;nvidia&quot; is configured", 'runtime "nvidia" is configured'),
        ("can&#39;t open &#x27;libcuda.so.1&#x27;", "can't open 'libcuda.so.1'"),
        ("cuda&gt;=12.4 &amp;&amp; brand=tesla&lt;500", "cuda>=12.4 && brand=tesla<500"),
        ("Driver&nbsp;Version: 550.54.15", "Driver Version: 550.54.15"),
        # a reference to a line break or a control character, or to no character, stays:
        # the paste keeps its line numbers and gains nothing unprintable
        ("a&#10;b &#0; &#9999999; &bogus; &amp", "a&#10;b &#0; &#9999999; &bogus; &amp"),
    ],
)
def test_html_character_references_are_the_characters_they_stand_for(
    pasted: str, plain: str
) -> None:
    assert clean(pasted) == plain
