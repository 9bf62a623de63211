"""More of what people paste, read as facts: `nvidia-smi --query-gpu` CSV, `lspci -k`, `docker
info`, `ls -l /dev/nvidia*`, `which nvcc`, `pip show`, `python -c` prints, issue-form headings,
NCCL's own env lines, modinfo, cudnn_version.h, the container toolkit's log, and rules whose
words sit on lines other than their first keyword's. Texts are written here in the tools' own
formats; each rule has a near miss that must not be read."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix

Read = Callable[[str], HostFacts]


def _error_lines(facts: HostFacts, matrix: Matrix, code: str) -> list[Finding]:
    findings = run_checks(facts, matrix).findings
    return [f for f in findings if f.code == "report-error" and f.subject == code]


def test_smi_csv_with_its_header(read: Read) -> None:
    facts = read(
        "$ nvidia-smi --query-gpu=index,name,driver_version,compute_cap --format=csv\n"
        "index, name, driver_version, compute_cap\n"
        "0, NVIDIA A10G, 535.104.12, 8.6\n1, NVIDIA A10G, 535.104.12, 8.6\n"
    )
    assert facts.nvml.driver_version == "535.104.12"
    assert [(g.index, g.name, g.compute_capability) for g in facts.nvml.gpus] == [
        (0, "NVIDIA A10G", "8.6"),
        (1, "NVIDIA A10G", "8.6"),
    ]


def test_smi_csv_without_header_takes_the_commands_columns(read: Read) -> None:
    facts = read(
        "$ nvidia-smi --query-gpu=name,memory.total --format=csv,noheader\n"
        "NVIDIA H100 80GB HBM3, 81559 MiB\n"
    )
    (gpu,) = facts.nvml.gpus
    assert gpu.name == "NVIDIA H100 80GB HBM3"
    assert gpu.memory_total_bytes == 81559 * 2**20


def test_a_csv_of_something_else_is_no_gpu(read: Read) -> None:
    facts = read("Driver Version: 550.54.15\nname, size, owner\nreport.txt, 12, root\n")
    assert facts.nvml.gpus == ()


def test_lspci_k_records_the_bound_driver(read: Read) -> None:
    facts = read(
        "01:00.0 VGA compatible controller [0300]: NVIDIA Corporation GA102 [GeForce RTX 3090]"
        " [10de:2204] (rev a1)\n\tSubsystem: Gigabyte Technology Co., Ltd Device [1458:403b]\n"
        "\tKernel driver in use: nouveau\n\tKernel modules: nvidiafb, nouveau\n"
    )
    (device,) = facts.kernel.pci_devices
    assert (device.address, device.device_id, device.driver) == (
        "0000:01:00.0",
        "0x2204",
        "nouveau",
    )
    assert [g.name for g in facts.nvml.gpus] == ["GeForce RTX 3090"]


def test_plain_lspci_names_the_gpu_but_not_its_driver(read: Read) -> None:
    facts = read("3b:00.0 3D controller: NVIDIA Corporation GA100 [A100 PCIe 80GB] (rev a1)\n")
    assert facts.kernel.pci_devices == ()  # without -k an unbound GPU looks like a bound one
    assert [g.compute_capability for g in facts.nvml.gpus] == ["8.0"]


def test_docker_info_runtimes(read: Read) -> None:
    facts = read(" Runtimes: io.containerd.runc.v2 nvidia runc\n Default Runtime: runc\n")
    runtime = facts.container_runtime
    assert runtime.runtimes == ("io.containerd.runc.v2", "nvidia", "runc")
    assert runtime.default_runtime == "runc"


def test_device_nodes_from_ls(read: Read) -> None:
    facts = read(
        "crw-rw-rw- 1 root root 195,   0 Jan  1 10:00 /dev/nvidia0\n"
        "crw-rw---- 1 root video 195, 255 Jan  1 10:00 /dev/nvidiactl\n"
    )
    nodes = {n.path: n.readable for n in facts.kernel.device_nodes}
    assert nodes == {"/dev/nvidia0": True, "/dev/nvidiactl": None}


def test_which_nvcc_names_the_toolkit_that_runs(read: Read) -> None:
    facts = read("$ which nvcc\n/usr/local/cuda-11.8/bin/nvcc\n")
    assert [t.nvcc_version for t in facts.cuda_libs.toolkits] == ["11.8"]
    other = read("Driver Version: 550.54.15\nexport PATH=/usr/local/cuda-12.1/bin:$PATH\n")
    assert other.cuda_libs.toolkits == ()  # a PATH entry is not the nvcc that runs


def test_pip_show_and_python_c(read: Read) -> None:
    facts = read("$ pip show torch\nName: torch\nVersion: 2.2.0+cu118\nSummary: Tensors\n")
    assert [(f.name, f.version) for f in facts.frameworks] == [("torch", "2.2.0+cu118")]
    printed = read(
        '$ python -c "import torch; print(torch.__version__, torch.cuda.is_available())"\n'
        "2.0.1+cu117 False\n"
    )
    assert [(f.name, f.version) for f in printed.frameworks] == [("torch", "2.0.1+cu117")]
    assert [d.cuda_available for d in printed.deep] == [False]
    # three words for two expressions: not this command's output
    odd = read(
        "Driver Version: 550.54.15\n"
        '$ python -c "import torch; print(torch.__version__, torch.cuda.is_available())"\n'
        "Segmentation fault (core dumped)\n"
    )
    assert odd.frameworks == ()


def test_an_issue_forms_heading_and_value(read: Read) -> None:
    facts = read("### NCCL Version\n\n2.27.7\n\n### Driver version\n\n550.54.15\n")
    assert facts.nvml.driver_version == "550.54.15"
    assert [lib.version for lib in facts.cuda_libs.nccl] == ["2.27.7"]


def test_ncclss_own_env_line(read: Read) -> None:
    facts = read("host:1958:1958 [3] NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth2\n")
    assert [(e.name, e.value) for e in facts.multigpu.nccl_env] == [("NCCL_SOCKET_IFNAME", "eth2")]


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (
            "filename:       /lib/modules/6.5.0/updates/dkms/nvidia.ko\n"
            "version:        545.29.06\n",
            "545.29.06",
        ),
        ("#define CUDNN_MAJOR 8\n#define CUDNN_MINOR 9\n#define CUDNN_PATCHLEVEL 7\n", "8.9.7"),
        (
            'Feb 25 nvidia-ctk[1774]: time="2026-02-25T02:22:21Z" level=warning msg="Could not '
            'locate libnvidia-egl-gbm.so"\n',
            "nvidia-ctk",
        ),
        ("    deploy:\n      devices:\n        - driver: nvidia\n", "Compose"),
    ],
)
def test_what_these_lines_tell_is_noted(read: Read, text: str, needle: str) -> None:
    facts = read(text)
    assert facts.report is not None
    assert any(needle in note for note in facts.report.notes)


def test_rules_whose_words_are_not_their_first_keyword(read: Read) -> None:
    assert read("we run rke2 on the nodes\n").platform.kubernetes is True
    assert read("installed the NVIDIA GPU Operator\n").platform.kubernetes is True
    jetson = read("L4T 35.4.1 on the board\n")
    assert jetson.report is not None
    assert "jetson" in jetson.report.named


def test_a_licence_state_in_prose(read: Read, matrix: Matrix) -> None:
    facts = read("After provisioning the license status is set to Unlicensed on the VM.\n")
    (gpu,) = facts.nvml.gpus
    assert gpu.vgpu_license is not None
    assert gpu.vgpu_license.state == "unlicensed"
    prose = read("Driver Version: 550.54.15\nlicense status unknown\n")
    assert all(g.vgpu_license is None for g in prose.nvml.gpus)


def test_torch_capability_range_is_harmless_within_the_newest_major(
    read: Read, matrix: Matrix
) -> None:
    warning = (
        "Found GPU0 NVIDIA GB10 which is of cuda capability 12.1.\n"
        "Minimum and Maximum cuda capability supported by this version of PyTorch is\n"
        "(8.0) - (12.0)\n"
    )
    (line,) = _error_lines(read(warning), matrix, "torch-capability-range")
    assert line.severity is Severity.INFO
    assert "binary compatib" in line.detail
    too_old = warning.replace("NVIDIA GB10", "Tesla P100-PCIE-16GB").replace("12.1.", "6.0.")
    (old,) = _error_lines(read(too_old), matrix, "torch-capability-range")
    assert old.severity is Severity.ERROR
    other_major = warning.replace("(12.0)", "(9.0)")
    (newer,) = _error_lines(read(other_major), matrix, "torch-capability-range")
    assert newer.severity is Severity.ERROR


def test_nccl_socket_without_an_address(read: Read, matrix: Matrix) -> None:
    text = (
        "ncclSocketInit: connecting to address  with family 59936 is neither AF_INET(2) nor "
        "AF_INET6(10)\n"
    )
    (line,) = _error_lines(read(text), matrix, "nccl-socket-no-address")
    assert "NCCL_SOCKET_IFNAME" in line.fix


def test_driver_files_in_the_image(read: Read, matrix: Matrix) -> None:
    text = (
        "nvidia-container-cli: mount error: file creation failed: /var/lib/docker/overlay2/ab/"
        "merged/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1: file exists: unknown.\n"
    )
    (line,) = _error_lines(read(text), matrix, "container-driver-files-in-image")
    assert "libnvidia-ml.so.1" in line.fix
    user_file = "Driver Version: 550.54.15\nfile creation failed: /workspace/out.csv: file exists\n"
    assert not _error_lines(read(user_file), matrix, "container-driver-files-in-image")


def test_tensorflow_after_2_10_on_native_windows_has_no_gpu(read: Read, matrix: Matrix) -> None:
    text = "OS: Windows 10\nTensorflow Version: 2.12.0\nCUDA: 11.8\n"
    (found,) = [
        f for f in run_checks(read(text), matrix).findings if f.code == "framework-cpu-only"
    ]
    assert found.severity is Severity.ERROR
    assert "WSL2" in found.fix
    wsl = read("OS: Windows 11 with WSL2\nTensorflow Version: 2.12.0\nCUDA: 11.8\n")
    assert all(
        "native Windows" not in f.title
        for f in run_checks(wsl, matrix).findings
        if f.code == "framework-cpu-only"
    )
    old = read("OS: Windows 10\nTensorflow Version: 2.10.1\nCUDA: 11.2\n")
    assert all(
        "native Windows" not in f.title
        for f in run_checks(old, matrix).findings
        if f.code == "framework-cpu-only"
    )


def test_syslog_escaped_line_breaks_join_the_message(read: Read, matrix: Matrix) -> None:
    text = (
        "Jun 30 11:07:05 gpu-0 kernel: NVRM: API mismatch: the client has the version "
        "535.54.03, but#012NVRM: this kernel module has the version 530.30.02.  Please#012NVRM: "
        "make sure\n"
    )
    facts = read(text)
    assert facts.kernel.nvidia_module_version == "530.30.02"
    assert facts.report is not None
    assert facts.report.lines == 2  # the escapes did not add lines


@pytest.mark.parametrize(
    ("line", "code", "severity"),
    [
        (
            "NVRM: installed in this system is not supported by open\n"
            "             NVRM: nvidia.ko because it does not include the required GPU\n",
            "open-module-needs-gsp",
            Severity.ERROR,
        ),
        (
            "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
            "    PyTorch 2.5.1+cu121 with CUDA 1201 (you have 2.7.1+cu126)\n",
            "xformers-torch-mismatch",
            Severity.ERROR,
        ),
        (
            "system_info: n_threads = 8 / 16 | AVX = 1 | AVX2 = 1 | BLAS = 0 | SSE3 = 1 |\n",
            "llama-cpp-no-gpu-backend",
            Severity.WARN,
        ),
        (
            "[99083.966246] NVRM: The NVIDIA GPU 0000:05:00.0 (PCI ID: 10de:26b9)\n"
            "               NVRM: installed in this system is not supported by the\n"
            "               NVRM: NVIDIA 570.86.15 driver release.\n",
            "driver-gpu-unsupported",
            Severity.ERROR,
        ),
        (
            "node1:1234:1290 [0] NCCL WARN NET/IB : Got async event : port error\n",
            "nccl-ib-async-event",
            Severity.ERROR,
        ),
        (
            "W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38] TF-TRT Warning: Could not "
            "find TensorRT\n",
            "tf-trt-not-found",
            Severity.INFO,
        ),
    ],
)
def test_library_and_driver_lines(
    read: Read, matrix: Matrix, line: str, code: str, severity: Severity
) -> None:
    (found,) = _error_lines(read(line), matrix, code)
    assert found.severity is severity


def test_a_newer_llama_cpp_system_info_with_cuda_is_no_cpu_build(
    read: Read, matrix: Matrix
) -> None:
    line = "system_info: n_threads = 8 | CUDA : ARCHS = 860 | USE_GRAPHS = 1 | CPU : BLAS = 0 |\n"
    facts = read("Driver Version: 550.54.15\n" + line)
    assert not _error_lines(facts, matrix, "llama-cpp-no-gpu-backend")


def test_a_message_is_joined_over_three_lines_at_most(read: Read, matrix: Matrix) -> None:
    far = (
        "NVRM: The NVIDIA GPU 0000:05:00.0 (PCI ID: 10de:26b9)\nNVRM: (a line between)\n"
        "NVRM: (another one)\nNVRM: installed in this system is not supported by the\n"
        "NVRM: NVIDIA 570.86.15 driver release.\n"
    )
    facts = read("Driver Version: 550.54.15\n" + far)
    assert not _error_lines(facts, matrix, "driver-gpu-unsupported")


@pytest.mark.parametrize(
    ("line", "code"),
    [
        ("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED\n", "cudnn-status"),
        (
            "ImportError: libcudnn_ops_infer.so.8: cannot open shared object file\n",
            "cudnn-library-missing",
        ),
        (
            "Unable to determine the device handle for GPU 0000:3B:00.0: Unknown Error\n",
            "nvml-gpu-handle",
        ),
        (
            "Failed to initialize NVML: GPU access blocked by the operating system\n",
            "nvml-blocked-by-os",
        ),
        ("Failed to initialize NVML: Insufficient Permissions\n", "nvml-no-permission"),
        (
            "OSError: CUDA_HOME environment variable is not set. Please set it\n",
            "cuda-home-not-set",
        ),
        (
            'failed to get sandbox runtime: no runtime for "nvidia" is configured\n',
            "containerd-no-nvidia-runtime",
        ),
        ("manifest for nvidia/cuda:latest not found: manifest unknown\n", "cuda-image-no-latest"),
    ],
)
def test_known_lines_are_named(read: Read, matrix: Matrix, line: str, code: str) -> None:
    (found,) = _error_lines(read(line), matrix, code)
    assert found.severity is Severity.ERROR
    assert found.fix


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("we build against cuDNN 8.9 and libcudnn.so.8 is present\n", "cudnn-library-missing"),
        ("export CUDA_HOME=/usr/local/cuda-12.1\n", "cuda-home-not-set"),
        ("FROM nvidia/cuda:12.4.1-base-ubuntu22.04\n", "cuda-image-no-latest"),
        ("NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:10.0.0.1<0>\n", "nccl-ib-async-event"),
    ],
)
def test_near_misses_of_known_lines(read: Read, matrix: Matrix, text: str, code: str) -> None:
    facts = read("Driver Version: 550.54.15\n" + text)
    assert not _error_lines(facts, matrix, code)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        (
            "E external/local_xla/xla/stream_executor/cuda/cuda_dnn.cc:9261] Unable to register "
            "cuDNN factory: Attempting to register factory for plugin cuDNN when one has already "
            "been registered\n",
            "tf-factory-registered-twice",
        ),
        (
            "W tensorflow/compiler/xla/stream_executor/platform/default/dso_loader.cc:64] Could "
            "not load dynamic library 'libnvinfer.so.7'; dlerror: libnvinfer.so.7: cannot open "
            "shared object file: No such file or directory\n",
            "tf-tensorrt-libraries-absent",
        ),
        (
            "UserWarning: CUDA initialization: Found no NVIDIA driver on your system.\n"
            "I'm on a MacBook M2, running the CPU tests only.\n",
            "torch-found-no-driver",
        ),
    ],
)
def test_harmless_lines_are_info(read: Read, matrix: Matrix, text: str, code: str) -> None:
    (found,) = _error_lines(read(text), matrix, code)
    assert found.severity is Severity.INFO


def test_no_driver_on_a_linux_gpu_host_stays_an_error(read: Read, matrix: Matrix) -> None:
    text = "GPU: NVIDIA GeForce RTX 3090\nRuntimeError: Found no NVIDIA driver on your system.\n"
    (found,) = _error_lines(read(text), matrix, "torch-found-no-driver")
    assert found.severity is Severity.ERROR


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("we were told no runtime for gpus exists\n", "containerd-no-nvidia-runtime"),
        ("MIG mode: Enabled on GPU 0; profiles 1g.10gb\n", "mig-not-enabled"),
        ("NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n", "nccl-socket-connect"),
        ("NCCL INFO NET/IB : Got completion with error 0\n", "nccl-ib-retry-exceeded"),
        (
            "nvidia-container-cli: initialization error: nvml error: driver not loaded\n",
            "nvml-driver-not-loaded",
        ),
        ("$ which nvidia-smi\n/usr/bin/nvidia-smi\n", "container-without-driver-files"),
    ],
)
def test_near_misses_of_the_cluster_lines(read: Read, matrix: Matrix, text: str, code: str) -> None:
    facts = read("Driver Version: 550.54.15\n" + text)
    assert not _error_lines(facts, matrix, code)


def test_ncclss_info_log_alone_is_read(read: Read) -> None:
    facts = read("NCCL INFO Channel 00/02 :    0   1\nNCCL INFO Connected all rings\n")
    assert facts.report is not None
    assert any("NCCL's own log" in note for note in facts.report.notes)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        (
            "    libcudart.so.12 => /usr/local/cuda/lib64/libcudart.so.12 (0x00007f)\n",
            "ldd-cuda-library-not-found",
        ),
        (
            "Installed CUDA version 12.1 matches the version torch was compiled with\n",
            "deepspeed-cuda-mismatch",
        ),
        ("Loaded the cudnn shared library from /usr/lib\n", "paddle-dynload"),
        (
            "TensorRT version 10.0.1 installed; the engine was rebuilt\n",
            "tensorrt-engine-other-version",
        ),
    ],
)
def test_near_misses_of_the_library_lines(read: Read, matrix: Matrix, text: str, code: str) -> None:
    facts = read("Driver Version: 550.54.15\n" + text)
    assert not _error_lines(facts, matrix, code)


def test_xformers_without_triton_and_torch_without_a_context_are_info(
    read: Read, matrix: Matrix
) -> None:
    text = (
        "WARNING  A matching Triton is not available, some optimizations will not be enabled\n"
        "UserWarning: Attempting to run cuBLAS, but there was no current CUDA context! "
        "Attempting to set the primary context...\n"
    )
    facts = read(text)
    for code in ("xformers-triton-absent", "torch-cublas-no-context"):
        (found,) = _error_lines(facts, matrix, code)
        assert found.severity is Severity.INFO


@pytest.mark.parametrize(
    ("text", "cc"),
    [
        ("GPU: RTX 4060Ti\n", "8.9"),  # a glued Ti
        ("GPU: GeForce GTX 1660 SUPER\n", "7.5"),  # the model a listed 1660 Ti varies
        ("GPU: A6000\n", "8.6"),  # RTX A6000 without its RTX
        ("GPU: RTX 3080 Laptop GPU\n", "8.6"),
    ],
)
def test_gpu_model_variants_are_named(read: Read, text: str, cc: str) -> None:
    facts = read("Driver Version: 550.54.15\n" + text)
    assert [g.compute_capability for g in facts.nvml.gpus] == [cc]


def test_a_bare_model_number_is_no_gpu(read: Read) -> None:
    facts = read("Driver Version: 550.54.15\nmy 3060 and 4090 numbers, ticket 1050ti\n")
    assert facts.nvml.gpus == ()


def test_nvidia_uvm_not_loaded_is_named_and_an_lsmod_line_is_not(
    read: Read, matrix: Matrix
) -> None:
    said = read("[WARN] Kernel module nvidia_uvm is not loaded. Make sure the driver is loaded\n")
    (found,) = _error_lines(said, matrix, "nvidia-uvm-not-loaded")
    assert "modprobe nvidia_uvm" in found.fix
    listed = read("Driver Version: 550.54.15\nnvidia_uvm            1527808  0\n")
    assert not _error_lines(listed, matrix, "nvidia-uvm-not-loaded")


def test_a_jetson_image_named_in_prose_is_kept_with_its_tag(read: Read) -> None:
    facts = read("host: Jetson AGX Orin [L4T 36.4.0], image dustynv/l4t-ml: r35.4.1\n")
    assert facts.report is not None
    assert facts.report.images == ("dustynv/l4t-ml:r35.4.1",)
    assert facts.platform.l4t_release == "36.4.0"


def test_nvidia_smi_against_nvcc_is_explained_not_flagged(read: Read, matrix: Matrix) -> None:
    facts = read("nvidia-smi says CUDA 12.2 but nvcc -V says 11.8, which one is right?\n")
    (found,) = _error_lines(facts, matrix, "smi-vs-nvcc-cuda")
    assert found.severity is Severity.INFO
    alone = read("Driver Version: 550.54.15\n$ nvidia-smi -L\n")
    assert not _error_lines(alone, matrix, "smi-vs-nvcc-cuda")
