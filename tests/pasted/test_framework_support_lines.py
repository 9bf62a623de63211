"""What framework users paste about support and builds: torch's warning for a GPU older than its
build, JAX failing to load one of its CUDA libraries, onnxruntime listing only CPU providers, the
framework and CUDA/cuDNN fields of the TensorFlow and PyTorch issue templates, and a cuDNN named
in prose judged against a TensorFlow release that loads the host's cuDNN. Each test pastes lines
of the kind the rule is for (the program's own words) and a near miss that must not fire."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.facts import NAMED_IN_REPORT, HostFacts
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of

Read = Callable[[str], HostFacts]
HOST = "Driver Version: 550.54.15\n"  # a fact line, so that a near miss alone is still read


def _cudnn(findings: list[Finding]) -> Finding:
    (found,) = [f for f in findings if f.code == "framework-cudnn"]
    return found


def test_torch_warns_of_a_gpu_older_than_its_build(read: Read, matrix: Matrix) -> None:
    text = (
        "/usr/lib/python3/site-packages/torch/cuda/__init__.py:117: UserWarning:\n"
        "    Found GPU0 Quadro K2000 which is of cuda capability 3.0.\n"
        "    PyTorch no longer supports this GPU because it is too old.\n"
        "    The minimum cuda capability supported by this library is 3.7.\n"
    )
    (found,) = error_lines(findings_of(read, matrix, text), "torch-gpu-too-old")
    assert found.severity is Severity.ERROR
    assert "Quadro K2000 has compute capability 3.0" in found.detail
    (gpu,) = read(text).nvml.gpus
    assert (gpu.name, gpu.compute_capability) == ("Quadro K2000", "3.0")
    # The same warning pasted on one line
    one = "Found GPU1 GeForce GT 730 which is of cuda capability 3.5. PyTorch no longer supports this GPU because it is too old.\n"  # noqa: E501
    assert error_lines(findings_of(read, matrix, one), "torch-gpu-too-old")
    # Newer torch words the range instead (another entry), and the wrong-binary warning is no
    # statement that the GPU is too old.
    newer = (
        "    Found GPU0 Tesla K80 which is of cuda capability 3.7.\n"
        "    Minimum and Maximum cuda capability supported by this version of PyTorch is\n"
        "    (5.0) - (9.0)\n"
    )
    other = (
        "    Found GPU0 TITAN RTX which requires CUDA_VERSION >= 10000 to\n"
        "     work properly, but your PyTorch was compiled\n"
    )
    for near in (newer, other):
        assert not error_lines(findings_of(read, matrix, HOST + near), "torch-gpu-too-old")


def test_jax_cannot_load_a_cuda_library(read: Read, matrix: Matrix) -> None:
    text = (
        "CUDA backend failed to initialize: Unable to load cuSPARSE. Is it installed? "
        "(Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)\n"
    )
    (found,) = error_lines(findings_of(read, matrix, text), "jax-cuda-library-unloadable")
    assert found.severity is Severity.ERROR
    assert "could not load cuSPARSE" in found.detail
    assert "LD_LIBRARY_PATH" in found.fix
    # Another program's words for another file are not JAX's version check.
    for near in (
        "Unable to load cudnn_ops_infer64_8.dll. Is it installed?\n",
        "Unable to load the checkpoint. Is it installed?\n",
    ):
        assert not error_lines(
            findings_of(read, matrix, HOST + near), "jax-cuda-library-unloadable"
        )


def test_onnxruntime_lists_only_cpu_providers(read: Read, matrix: Matrix) -> None:
    for text in (
        "Available providers: ['AzureExecutionProvider', 'CPUExecutionProvider']\n",
        ">>> ort.get_available_providers()\n['AzureExecutionProvider', 'CPUExecutionProvider']\n",
        "the available providers are only ['CPUExecutionProvider']\n",
    ):
        (found,) = error_lines(findings_of(read, matrix, text), "onnxruntime-cpu-providers")
        assert found.severity is Severity.WARN, text
        assert "onnxruntime-gpu" in found.fix
    # A GPU build's list, and the providers one session ended up with, say nothing of the build.
    for near in (
        "['TensorrtExecutionProvider', 'CUDAExecutionProvider', 'CPUExecutionProvider']\n",
        "model.get_providers() is ['CPUExecutionProvider']\n",
    ):
        assert not error_lines(findings_of(read, matrix, HOST + near), "onnxruntime-cpu-providers")


def test_issue_template_framework_versions(read: Read) -> None:
    tf = read("- TensorFlow version (use command below): 2.3.0\n- Python version: 3.7\n")
    assert [(f.name, f.version) for f in tf.frameworks] == [("tensorflow", "2.3.0")]
    torch = read("## Environment\n - PyTorch Version (e.g., 1.0): 1.4.0\n - OS: Linux\n")
    assert [(f.name, f.version) for f in torch.frameworks] == [("torch", "1.4.0")]
    # a template field with no version in it
    near = read("- TensorFlow installed from (source or binary): binary\n" + HOST)
    assert not near.frameworks


def test_issue_template_cuda_and_cudnn_pair(read: Read) -> None:
    facts = read("- CUDA/cuDNN version: 10.1/8.0.2.39\n- GPU model and memory: GTX 1050\n")
    assert facts.report is not None
    assert any("cuDNN 8.0.2.39 is named" in n for n in facts.report.notes)
    assert not any("cuDNN 10.1" in n for n in facts.report.notes)
    assert any("CUDA 10.1 is named" in n for n in facts.report.notes)
    (cudnn,) = facts.cuda_libs.cudnn
    assert (cudnn.path, cudnn.version) == (NAMED_IN_REPORT, "8.0.2.39")


def test_named_cudnn_judged_for_a_release_that_loads_the_hosts(read: Read, matrix: Matrix) -> None:
    env = "TensorFlow version: {tf}\nCUDA 10.1, cuDNN: {cudnn}\nGPU 0: NVIDIA GeForce GTX 1080\n"
    other_major = _cudnn(findings_of(read, matrix, env.format(tf="2.3.1", cudnn="8.0.4")))
    assert other_major.severity is Severity.ERROR
    assert "expects cuDNN 7.6" in other_major.title
    assert other_major.fix == "install cuDNN 7.6 for CUDA 10.1"
    same = _cudnn(findings_of(read, matrix, env.format(tf="2.3.1", cudnn="7.6.5")))
    assert same.severity is Severity.OK
    # A release with the [and-cuda] wheels loads theirs: a cuDNN the text names is not judged.
    wheels = _cudnn(findings_of(read, matrix, env.format(tf="2.15.1", cudnn="9.1.0")))
    assert wheels.severity is Severity.NA


def test_ctranslate2_finds_no_cublas_of_its_cuda(read: Read, matrix: Matrix) -> None:
    for text, major in (
        ("RuntimeError: Library libcublas.so.11 is not found or cannot be loaded\n", "11"),
        ("RuntimeError: Library cublas64_12.dll is not found or cannot be loaded\n", "12"),
    ):
        (found,) = error_lines(findings_of(read, matrix, text), "ctranslate2-cublas-missing")
        assert found.severity is Severity.ERROR
        assert f"CUDA {major}" in found.detail
        assert f"nvidia-cublas-cu{major}" in found.fix
    # Other libraries (NCCL's soname is no CUDA major) and other files are not this.
    for near in (
        "RuntimeError: Library libnccl.so.2 is not found or cannot be loaded\n",
        "OSError: the model file is not found or cannot be loaded\n",
    ):
        assert not error_lines(findings_of(read, matrix, HOST + near), "ctranslate2-cublas-missing")


def test_cudnn_8_loader_on_windows_names_a_sub_library(read: Read, matrix: Matrix) -> None:
    text = (
        "Could not load library cudnn_ops_infer64_8.dll. Error code 126\n"
        "Please make sure cudnn_ops_infer64_8.dll is in your library path!\n"
    )
    (found,) = error_lines(findings_of(read, matrix, text), "cudnn-sublibrary-missing")
    assert found.severity is Severity.ERROR
    near = "Could not load library cublas64_12.dll. Error code 126\n"
    assert not error_lines(findings_of(read, matrix, HOST + near), "cudnn-sublibrary-missing")


def test_xformers_refuses_bf16_below_ampere(read: Read, matrix: Matrix) -> None:
    text = (
        "NotImplementedError: No operator found for `memory_efficient_attention_forward` with "
        "inputs:\n"
        "     query       : shape=(2, 4096, 8, 40) (torch.bfloat16)\n"
        "`cutlassF` is not supported because:\n"
        "    bf16 is only supported on A100+ GPUs\n"
    )
    (found,) = error_lines(findings_of(read, matrix, text), "xformers-bf16-needs-cc80")
    assert found.severity is Severity.ERROR
    assert "float16" in found.fix
    # another reason of the same listing is not this one
    near = "`smallkF` is not supported because:\n    dtype=torch.bfloat16 (supported: float32)\n"
    assert not error_lines(findings_of(read, matrix, HOST + near), "xformers-bf16-needs-cc80")


def test_paddle_build_without_the_gpu_architecture(read: Read, matrix: Matrix) -> None:
    text = (
        "W0616 17:16:24.460505  2840 gpu_resources.cc:96] The GPU architecture in your current "
        "machine is Turing, which is not compatible with Paddle installation with arch: 80 86 90 "
        ", it is recommended to install the corresponding wheel package according to the "
        "installation information on the official Paddle website.\n"
    )
    (found,) = error_lines(findings_of(read, matrix, text), "paddle-gpu-arch-not-compiled")
    assert found.severity is Severity.WARN
    assert "architectures 80 86 90 and this Turing GPU" in found.detail
    # Paddle's line for a GPU it does support says nothing of the sort
    near = "W0616 17:16:24.460505  2840 gpu_resources.cc:119] Please NOTE: device: 0, GPU Compute Capability: 8.6, Driver API Version: 12.2, Runtime API Version: 11.8\n"  # noqa: E501
    assert not error_lines(findings_of(read, matrix, near), "paddle-gpu-arch-not-compiled")
    # ... but it states the newest CUDA the driver supports
    assert read(near).nvml.cuda_driver_version == "12.2"


def test_torch_dll_dependency_missing_on_windows(read: Read, matrix: Matrix) -> None:
    text = (
        'OSError: [WinError 126] The specified module could not be found. Error loading "D:\\env'
        '\\Lib\\site-packages\\torch\\lib\\fbgemm.dll" or one of its dependencies.\n'
    )
    (found,) = error_lines(findings_of(read, matrix, text), "torch-windows-dll-dependency")
    assert found.severity is Severity.ERROR
    assert "fbgemm.dll" in found.detail
    assert "Visual C++ Redistributable" in found.fix
    # a DLL that is not torch's is another program's problem
    near = (
        'OSError: [WinError 126] Error loading "C:\\Program Files\\App\\bin\\libssl.dll" or one '
        "of its dependencies.\n"
    )
    assert not error_lines(findings_of(read, matrix, HOST + near), "torch-windows-dll-dependency")


def test_older_jax_words_an_unloadable_cuda_without_the_question(
    read: Read, matrix: Matrix
) -> None:
    text = (
        "WARNING:jax._src.xla_bridge:CUDA backend failed to initialize: Unable to load CUDA. "
        "(Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)\n"
    )
    (found,) = error_lines(findings_of(read, matrix, text), "jax-cuda-library-unloadable")
    assert "could not load CUDA" in found.detail
    near = "CUDA backend failed to initialize: Unable to use CUDA because of the following issues\n"
    assert not error_lines(findings_of(read, matrix, HOST + near), "jax-cuda-library-unloadable")


def test_cpu_provider_list_is_expected_on_a_mac(read: Read, matrix: Matrix) -> None:
    line = "Available providers: ['AzureExecutionProvider', 'CPUExecutionProvider']\n"
    mac = "MacBook Pro M2, macOS 14.4\n" + line
    (found,) = error_lines(findings_of(read, matrix, mac), "onnxruntime-cpu-providers")
    assert found.severity is Severity.INFO
    assert "a CPU build is the one to use there" in found.detail
    # beside an NVIDIA GPU it stays a warning
    gpu = "GPU 0: NVIDIA GeForce RTX 4060 Ti\n" + line
    (found,) = error_lines(findings_of(read, matrix, gpu), "onnxruntime-cpu-providers")
    assert found.severity is Severity.WARN


def test_torch_build_cuda_from_a_partial_collect_env(read: Read, matrix: Matrix) -> None:
    # a hand-copied collect_env whose header lost its colon is no block, but its lines tell
    text = (
        "PyTorch version 1.5.0\n"
        "CUDA used to build PyTorch: 10.2\n"
        "GPU 0: Tesla P100-PCIE-16GB\n"
        "Nvidia driver version: 410.104\n"
    )
    (torch,) = read(text).frameworks
    assert (torch.version, torch.cuda) == ("1.5.0", "10.2")
    (found,) = [f for f in findings_of(read, matrix, text) if f.code == "framework-driver-cuda"]
    assert found.severity is Severity.ERROR
    assert "440.33" in found.fix
    near = read("PyTorch version 1.5.0\nCUDA used to build PyTorch: Could not collect\n")
    assert [f.cuda for f in near.frameworks] == [None]


def test_a_collect_env_cut_above_its_header_still_tells_the_host(read: Read) -> None:
    # a paste that begins below "PyTorch version:" (the line that starts the block)
    text = (
        "Python platform: Linux-5.15.136-tegra-aarch64-with-glibc2.35\n"
        "Is CUDA available: False\n"
        "CUDA runtime version: 12.2.140\n"
        "GPU models and configuration: GPU 0: Orin (nvgpu)\n"
        "Nvidia driver version: N/A\n"
    )
    facts = read(text)
    assert (facts.kernel.release, facts.platform.machine) == ("5.15.136-tegra", "aarch64")
    assert [t.nvcc_version for t in facts.cuda_libs.toolkits] == ["12.2.140"]
    assert facts.nvml.driver_version is None  # "N/A" is no driver
    # near miss: the key in prose is no collect_env line
    near = read("Ubuntu 22.04\nthe python platform: linux is what I use, CUDA runtime version 12\n")
    assert near.kernel.release is None
    assert near.cuda_libs.toolkits == ()
