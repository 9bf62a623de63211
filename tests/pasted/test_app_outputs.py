"""What the programs and frameworks people run on GPUs print at start-up or when asked about their
environment, read as the facts the live probes record: ollama's server log (every release's
`inference compute` line), llama.cpp's ROCm device list, vLLM's engine line and `collect-env`,
Hugging Face's `env` commands, `jax.print_environment_info()`, DeepSpeed's `ds_report`,
`torch.__config__.show()`, `torch.cuda.get_device_properties`, TensorFlow's GPU list, the CUDA
samples' `deviceQuery`, `clinfo`, `vulkaninfo`, and the nvidia-smi table of Windows and of
text-generation-launcher's `--env`. Each text is written in the program's own format (from its
source); each has a near miss that must not be read as that fact."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from gpudoctor.errors import FactsError
from gpudoctor.facts import VERSION_NOT_SHOWN, HostFacts
from gpudoctor.matrix.model import Matrix
from gpudoctor.matrix.regex_safety import problem
from gpudoctor.pasted.dispatch import known_shapes
from tests.support.pasted_findings import no_fact_read

Read = Callable[[str], HostFacts]


def _gpus(facts: HostFacts) -> list[tuple[int, str | None, str | None, str | None]]:
    return [(g.index, g.name, g.compute_capability, g.pci_bus_id) for g in facts.nvml.gpus]


def _codes(facts: HostFacts) -> list[str]:
    assert facts.report is not None
    return [e.code for e in facts.report.errors]


def _notes(facts: HostFacts) -> tuple[str, ...]:
    assert facts.report is not None
    return facts.report.notes


# --- ollama -------------------------------------------------------------------------------------


def test_ollama_from_0_12_names_the_gpu_in_description_not_name(read: Read) -> None:
    facts = read(
        'time=2025-10-01T10:00:00.000Z level=INFO source=routes.go:1475 msg="Listening on '
        '127.0.0.1:11434 (version 0.12.3)"\n'
        'time=2025-10-01T10:00:01.200Z level=INFO source=types.go:42 msg="inference compute" '
        'id=GPU-5d5ba0d6-1a2b-3c4d-5e6f-7a8b9c0d1e2f filter_id="" library=CUDA compute=8.6 '
        'name=CUDA0 description="NVIDIA GeForce RTX 3090" libdirs=ollama,cuda_v12 driver=12.8 '
        'pci_id=0000:01:00.0 type=discrete total="24.0 GiB" available="23.1 GiB"\n'
    )
    assert _gpus(facts) == [(0, "NVIDIA GeForce RTX 3090", "8.6", "0000:01:00.0")]
    assert facts.nvml.gpus[0].uuid == "GPU-5d5ba0d6-1a2b-3c4d-5e6f-7a8b9c0d1e2f"
    assert facts.nvml.cuda_driver_version == "12.8"
    assert [(p.name, p.version) for p in facts.programs] == [("ollama", "0.12.3")]


def test_ollama_before_0_12_and_two_gpus(read: Read) -> None:
    line = (
        'time=2024-05-01T10:00:00.300Z level=INFO source=types.go:71 msg="inference compute" '
        'id={id} library=cuda compute={cc} driver=12.4 name="{name}" total="23.7 GiB" '
        'available="22.9 GiB"\n'
    )
    facts = read(
        line.format(id="GPU-aaaa1111", cc="8.6", name="NVIDIA GeForce RTX 3090")
        + line.format(id="GPU-bbbb2222", cc="7.5", name="NVIDIA GeForce RTX 2080 Ti")
    )
    assert _gpus(facts) == [
        (0, "NVIDIA GeForce RTX 3090", "8.6", None),
        (1, "NVIDIA GeForce RTX 2080 Ti", "7.5", None),
    ]
    assert facts.nvml.cuda_driver_version == "12.4"


def test_ollama_backend_name_alone_is_not_a_gpu_name(read: Read) -> None:
    facts = read(
        'level=INFO source=types.go:42 msg="inference compute" id=GPU-1 library=CUDA '
        'compute=8.9 name=CUDA0 driver=0.0 total="24 GiB"\n'
    )
    assert _gpus(facts) == [(0, None, "8.9", None)]
    assert facts.nvml.cuda_driver_version is None  # 0.0: ollama could not read it


def test_ollama_vulkan_names_the_gpu_without_a_capability(read: Read) -> None:
    facts = read(
        'level=INFO source=types.go:42 msg="inference compute" id=0 filter_id=0 library=Vulkan '
        'compute=0.0 name=Vulkan0 description="NVIDIA GeForce RTX 3060" libdirs=ollama,vulkan '
        'driver=0.0 pci_id=0000:01:00.0 type=discrete total="12.0 GiB"\n'
    )
    assert [(g.name, g.compute_capability) for g in facts.nvml.gpus] == [
        ("NVIDIA GeForce RTX 3060", "8.6")  # from the matrix's model list, not compute=0.0
    ]
    with pytest.raises(FactsError):
        read(
            'msg="inference compute" id=0 library=Vulkan compute=0.0 name=Vulkan0 '
            'description="Intel(R) Arc(tm) A770 Graphics (DG2)"\n'
        )


def test_ollama_on_rocm_is_an_amd_gpu(read: Read) -> None:
    old = read(
        'level=INFO source=types.go:105 msg="inference compute" id=0 library=rocm '
        'compute=gfx1100 driver=6.3 name=1002:744c total="24.0 GiB" available="23.9 GiB"\n'
    )
    assert [(n.gfx_target, n.device_id) for n in old.amd.kfd_nodes] == [("gfx1100", 0x744C)]
    assert old.nvml.gpus == ()
    new = read(
        'level=INFO msg="inference compute" id=0 library=ROCm compute=gfx1030 name=ROCm0 '
        'description="AMD Radeon RX 6800 XT" driver=60342.13 pci_id=0000:03:00.0\n'
    )
    assert [n.gfx_target for n in new.amd.kfd_nodes] == ["gfx1030"]


def test_ollama_rocm_discovery_names_each_amd_gpu(read: Read) -> None:
    facts = read(
        'time=2025-07-23T18:46:52.526+09:00 level=WARN source=amd_windows.go:138 msg="amdgpu is '
        'not supported (supported types:[gfx1030 gfx1100 gfx1101 gfx1102 gfx906])" '
        "gpu_type=gfx1103 gpu=0 library=C:\\Ollama\\lib\\ollama\\rocm\n"
        'level=INFO source=amd_linux.go:391 msg="amdgpu is supported" gpu=1 gpu_type=gfx1100\n'
    )
    assert [n.gfx_target for n in facts.amd.kfd_nodes] == ["gfx1103", "gfx1100"]
    assert (
        "ollama does not support the AMD GPU gfx1103 (this build supports gfx1030 gfx1100 "
        "gfx1101 gfx1102 gfx906): it is not used" in _notes(facts)
    )
    old = read(
        'source=amd_linux.go:340 msg="amdgpu is not supported" gpu=0 gpu_type=gfx1032 '
        'library=/usr/lib64 supported_types="[gfx1030 gfx1100]"\n'
    )
    assert [n.gfx_target for n in old.amd.kfd_nodes] == ["gfx1032"]
    with pytest.raises(FactsError):  # no gfx target: not a GPU
        read('msg="amdgpu is not supported" gpu=0 gpu_type=unknown\n')


def test_ollama_without_a_gpu_is_the_no_gpu_signature(read: Read) -> None:
    facts = read(
        'time=2025-10-01T10:00:01.200Z level=INFO source=types.go:60 msg="inference compute" '
        'id=cpu library=cpu compute="" name=cpu description=cpu libdirs=ollama driver="" '
        'pci_id="" type="" total="62.7 GiB" available="58.1 GiB"\n'
    )
    assert _codes(facts) == ["ollama-no-gpu"]
    assert facts.nvml.gpus == ()


def test_ollama_0_1_compute_capability_and_nvml_library(read: Read) -> None:
    facts = read(
        'time=2024-02-20T10:00:00.100Z level=INFO source=routes.go:1019 msg="Listening on '
        '127.0.0.1:11434 (version 0.1.25)"\n'
        'time=2024-02-20T10:00:00.310Z level=INFO source=gpu.go:311 msg="Discovered GPU '
        'libraries: [/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.545.23.08]"\n'
        'time=2024-02-20T10:00:00.330Z level=INFO source=gpu.go:146 msg="CUDA Compute '
        'Capability detected: 8.6"\n'
    )
    assert _gpus(facts) == [(0, None, "8.6", None)]
    assert facts.nvml.library_version == "545.23.08"
    assert [(p.name, p.version) for p in facts.programs] == [("ollama", "0.1.25")]
    too_old = read(
        "2024/01/14 19:50:06 gpu.go:138: CUDA GPU is too old. Falling back to CPU mode. "
        "Compute Capability detected: 5.2\n"
    )
    assert _codes(too_old) == ["ollama-gpu-too-old"]  # the signature's line, not a GPU


def test_ollama_0_1_plain_log_version_line(read: Read) -> None:
    # before slog, Go's log package: date, time, file:line, then the same format string
    facts = read(
        "2024/01/13 20:14:02 routes.go:930: Listening on 127.0.0.1:11434 (version 0.1.20)\n"
    )
    assert [(p.name, p.version) for p in facts.programs] == [("ollama", "0.1.20")]
    # near miss: another program's file, the same words
    with pytest.raises(FactsError):
        read("2024/01/13 20:14:02 server.go:12: Listening on 0.0.0.0:80 (version 0.1.20)\n")


def test_inference_compute_in_prose_is_not_an_ollama_line(read: Read) -> None:
    with pytest.raises(FactsError):
        read("we pay for inference compute=8.6 times more than for training, name=big\n")


def test_another_server_listening_is_not_ollama(read: Read) -> None:
    with pytest.raises(FactsError):
        read("INFO Listening on 0.0.0.0:8080 (version 0.12.3)\n")


# --- llama.cpp, vLLM ----------------------------------------------------------------------------


def test_llama_cpp_rocm_device_list(read: Read) -> None:
    facts = read(
        "ggml_cuda_init: GGML_CUDA_FORCE_MMQ:    no\n"
        "ggml_cuda_init: found 2 ROCm devices:\n"
        "  Device 0: AMD Radeon RX 7900 XTX, gfx1100 (0x1100), VMM: no, Wave Size: 32\n"
        "  Device 1: AMD Radeon PRO W7800, gfx1100 (0x1100), VMM: no, Wave Size: 32\n"
    )
    assert [n.gfx_target for n in facts.amd.kfd_nodes] == ["gfx1100", "gfx1100"]
    assert facts.nvml.gpus == ()


def test_llama_cpp_system_info_names_the_build_architectures(read: Read) -> None:
    facts = read(
        "0.00.378.221 I system_info: n_threads = 6 (n_threads_batch = 6) / 6 | CUDA : ARCHS = "
        "500,610,700,750,800 | USE_GRAPHS = 1 | PEER_MAX_BATCH_SIZE = 128 | CPU : SSE3 = 1 |\n"
    )
    assert (
        "llama.cpp was built with CUDA kernels for sm_50, sm_61, sm_70, sm_75, sm_80 "
        "(its system_info)" in _notes(facts)
    )
    with pytest.raises(FactsError):
        read("system_info: n_threads = 6 / 6 | CPU : SSE3 = 1 | AVX = 1 |\n")


def test_an_amd_gpu_named_without_the_ggml_list_is_not_a_rocm_device(read: Read) -> None:
    assert no_fact_read(read, "  Device 0: AMD Radeon RX 7900 XTX, gfx1100 (0x1100), VMM: no\n")


def test_vllm_engine_lines_of_old_and_new_releases(read: Read) -> None:
    old = read(
        "INFO 05-01 10:00:00 llm_engine.py:161] Initializing an LLM engine (v0.4.2) with config: "
        "model='meta-llama/Llama-2-7b-hf', tokenizer='meta-llama/Llama-2-7b-hf', "
        "dtype=torch.float16\n"
    )
    assert [(p.name, p.version) for p in old.programs] == [("vllm", "0.4.2")]
    new = read(
        "INFO 09-10 10:00:05 [core.py:74] Initializing a V1 LLM engine (v0.10.2) with config: "
        "model='Qwen/Qwen2.5-7B-Instruct'\n"
    )
    assert [(p.name, p.version) for p in new.programs] == [("vllm", "0.10.2")]
    with pytest.raises(FactsError):
        read("Initializing an LLM engine with config: model='x'\n")


def test_vllm_collect_env_aligned_layout(read: Read) -> None:
    facts = read(
        "==============================\n        System Info\n"
        "==============================\n"
        "OS                           : Ubuntu 22.04.5 LTS (x86_64)\n"
        "==============================\n       PyTorch Info\n"
        "==============================\n"
        "PyTorch version              : 2.8.0+cu128\n"
        "CUDA used to build PyTorch   : 12.8\n"
        "Is CUDA available            : True\n"
        "GPU models and configuration :\nGPU 0: NVIDIA H100 80GB HBM3\n\n"
        "Nvidia driver version        : 570.133.20\n"
        "==============================\n         vLLM Info\n"
        "==============================\n"
        "vLLM Version                 : 0.10.2\n"
        "vLLM Build Flags:\n  CUDA Archs: Not Set; ROCm: Disabled\n"
    )
    assert [(p.name, p.version) for p in facts.programs] == [("vllm", "0.10.2")]
    assert facts.nvml.driver_version == "570.133.20"
    assert [(f.name, f.version, f.cuda) for f in facts.frameworks] == [
        ("torch", "2.8.0+cu128", "12.8")
    ]


# --- nvidia-smi on Windows, and quoted with an indent ---------------------------------------------


def test_windows_nvidia_smi_rows_name_the_driver_model(read: Read) -> None:
    facts = read(
        "+------+\n"
        "| NVIDIA-SMI 560.94      Driver Version: 560.94      CUDA Version: 12.6     |\n"
        "|------+------+------+\n"
        "| GPU  Name      Driver-Model | Bus-Id      Disp.A | Volatile Uncorr. ECC |\n"
        "| Fan  Temp   Perf      Pwr:Usage/Cap |      Memory-Usage | GPU-Util  Compute M. |\n"
        "|======+======+======|\n"
        "|   0  NVIDIA GeForce RTX 4090      WDDM  |   00000000:01:00.0  On |      Off |\n"
        "|  0%   38C    P8      21W /  450W |    1372MiB /  24564MiB |      3%      Default |\n"
        "+------+------+------+\n"
    )
    assert _gpus(facts) == [(0, "NVIDIA GeForce RTX 4090", "8.9", "0000:01:00.0")]
    assert facts.nvml.gpus[0].persistence_mode is None  # WDDM is not a persistence mode
    assert any("WDDM driver model" in n for n in _notes(facts))
    linux = read(
        "| NVIDIA-SMI 550.54.15   Driver Version: 550.54.15   CUDA Version: 12.4 |\n"
        "|   0  NVIDIA GeForce RTX 4090        On  |   00000000:01:00.0  On |     Off |\n"
    )
    assert linux.nvml.gpus[0].persistence_mode is True
    assert not any("driver model" in n for n in _notes(linux))


def test_an_indented_nvidia_smi_table_text_generation_launcher_env(read: Read) -> None:
    facts = read(
        "Runtime environment:\nTarget: x86_64-unknown-linux-gnu\nCargo version: 1.80.0\n"
        "nvidia-smi:\nWed Oct  2 10:00:00 2024\n"
        "   +------+\n"
        "   | NVIDIA-SMI 550.90.07      Driver Version: 550.90.07      CUDA Version: 12.4     |\n"
        "   |======+======+======|\n"
        "   |   0  NVIDIA L4      On  |   00000000:00:03.0 Off |      0 |\n"
        "   | N/A   27C    P8      12W /   72W |      1MiB /  23034MiB |      0%      Default |\n"
        "   +------+------+------+\n"
    )
    assert _gpus(facts) == [(0, "NVIDIA L4", "8.9", "0000:00:03.0")]
    assert facts.nvml.driver_version == "550.90.07"


# --- Hugging Face env commands, JAX, DeepSpeed ----------------------------------------------------


def test_transformers_env_platform_and_gpu_type(read: Read) -> None:
    facts = read(
        "- `transformers` version: 4.46.2\n"
        "- Platform: Linux-5.15.0-122-generic-x86_64-with-glibc2.35\n"
        "- Python version: 3.10.12\n"
        "- PyTorch version (GPU?): 2.5.1+cu124 (True)\n"
        "- Tensorflow version (GPU?): not installed (NA)\n"
        "- Using GPU in script?: <fill in>\n"
        "- GPU type: NVIDIA A100-SXM4-80GB\n"
    )
    assert (facts.kernel.release, facts.platform.machine) == ("5.15.0-122-generic", "x86_64")
    assert _gpus(facts) == [(0, "NVIDIA A100-SXM4-80GB", "8.0", None)]


def test_env_placeholders_and_other_platforms_are_not_facts(read: Read) -> None:
    facts = read(
        "- PyTorch version (GPU?): 2.5.1+cu124 (True)\n"
        "- Platform: Windows-10-10.0.22631-SP0\n"
        "- GPU type: <fill in>\n"
    )
    assert facts.kernel.release is None
    assert facts.nvml.gpus == ()


def test_diffusers_env_on_wsl_and_its_accelerator_csv(read: Read) -> None:
    facts = read(
        "- 🤗 Diffusers version: 0.31.0\n"
        "- Platform: Linux-5.15.153.1-microsoft-standard-WSL2-x86_64-with-glibc2.35\n"
        "- PyTorch version (GPU?): 2.5.1+cu124 (True)\n"
        "- Accelerator: NVIDIA GeForce RTX 3060, 12288 MiB\n"
        "NVIDIA GeForce RTX 3060, 12288 MiB\n"
        "- Using GPU in script?: yes\n"
    )
    assert facts.kernel.release == "5.15.153.1-microsoft-standard-WSL2"
    assert facts.platform.wsl is True
    assert _gpus(facts) == [
        (0, "NVIDIA GeForce RTX 3060", "8.6", None),
        (1, "NVIDIA GeForce RTX 3060", "8.6", None),
    ]
    assert facts.nvml.gpus[0].memory_total_bytes == 12288 << 20


def test_jax_environment_info(read: Read) -> None:
    facts = read(
        "jax:    0.4.35\njaxlib: 0.4.34\nnumpy:  2.1.3\n"
        "python: 3.11.10 (main, Oct  3 2024, 07:29:13) [GCC 11.2.0]\n"
        'device info: NVIDIA GeForce RTX 3090-2, 2 local devices"\n'
        "process_count: 1\n"
        "platform: uname_result(system='Linux', node='box', release='6.8.0-48-generic', "
        "version='#48~22.04.1-Ubuntu SMP PREEMPT_DYNAMIC Mon Oct  7 11:24:13 UTC 2', "
        "machine='x86_64')\n"
    )
    assert (facts.kernel.release, facts.platform.machine) == ("6.8.0-48-generic", "x86_64")
    assert _gpus(facts) == [
        (0, "NVIDIA GeForce RTX 3090", "8.6", None),
        (1, "NVIDIA GeForce RTX 3090", "8.6", None),
    ]
    cpu = read('jax:    0.4.35\njaxlib: 0.4.35\ndevice info: cpu-1, 1 local devices"\n')
    assert cpu.nvml.gpus == ()
    assert "JAX found no GPU: its devices are CPUs" in _notes(cpu)


def test_ds_report_environment_info(read: Read) -> None:
    facts = read(
        "DeepSpeed general environment info:\n"
        "torch install path ............... ['/usr/local/lib/python3.10/dist-packages/torch']\n"
        "torch version .................... 2.1.0+cu121\n"
        "deepspeed info ................... 0.12.6, unknown, unknown\n"
        "torch cuda version ............... 12.1\n"
        "torch hip version ................ None\n"
        "nvcc version ..................... 12.1\n"
        "deepspeed wheel compiled w. ...... torch 2.1, cuda 12.1\n"
    )
    # the wheel's "compiled w. torch 2.1" is not the installed torch
    assert [(f.name, f.version, f.cuda, f.hip) for f in facts.frameworks] == [
        ("torch", "2.1.0+cu121", "12.1", None)
    ]
    assert [t.nvcc_version for t in facts.cuda_libs.toolkits] == ["12.1"]


def test_ds_report_of_an_ngc_container(read: Read) -> None:
    facts = read(
        "DeepSpeed general environment info:\n"
        "torch version .................... 2.1.0a0+32f93b1\n"
        "torch cuda version ............... 12.2\n"
        "torch hip version ................ None\n"
    )
    assert [(f.version, f.cuda) for f in facts.frameworks] == [("2.1.0a0+32f93b1", "12.2")]


def test_dotted_lines_before_the_ds_report_header_are_not_read(read: Read) -> None:
    assert no_fact_read(read, "torch version .................... 2.1.0+cu121\n")


# --- torch ---------------------------------------------------------------------------------------


def test_torch_config_show(read: Read) -> None:
    facts = read(
        "PyTorch built with:\n"
        "  - GCC 9.3\n"
        "  - CPU capability usage: AVX2\n"
        "  - CUDA Runtime 12.1\n"
        "  - NVCC architecture flags: -gencode;arch=compute_50,code=sm_50;-gencode;"
        "arch=compute_80,code=sm_80;-gencode;arch=compute_90,code=sm_90;"
        "-gencode;arch=compute_90,code=compute_90\n"
        "  - CuDNN 8.9.2\n"
        "  - Build settings: BLAS_INFO=mkl, BUILD_TYPE=Release, CUDA_VERSION=12.1, "
        "TORCH_VERSION=2.1.0, USE_CUDA=ON, USE_ROCM=OFF, \n"
    )
    (torch,) = facts.frameworks
    assert (torch.version, torch.cuda, torch.cpu_only, torch.build_cudnn) == (
        "2.1.0",
        "12.1",
        False,
        "8.9.2",
    )
    assert torch.arch_list == ("sm_50", "sm_80", "sm_90", "compute_90")


def test_torch_config_of_a_cpu_build(read: Read) -> None:
    facts = read(
        "PyTorch built with:\n  - GCC 9.3\n  - CPU capability usage: AVX2\n"
        "  - Build settings: BUILD_TYPE=Release, TORCH_VERSION=2.3.0, USE_CUDA=0, "
        "USE_CUDNN=OFF, \n"
    )
    (torch,) = facts.frameworks
    assert (torch.version, torch.cuda, torch.cpu_only) == ("2.3.0", None, True)
    assert no_fact_read(
        read, "PyTorch built with:\n  - GCC 9.3\n  - OpenMP 201511 (a.k.a. OpenMP 4.5)\n"
    )


def test_torch_device_properties(read: Read) -> None:
    facts = read(
        ">>> torch.cuda.get_device_properties(0)\n"
        "_CudaDeviceProperties(name='NVIDIA RTX A6000', major=8, minor=6, "
        "total_memory=48676MB, multi_processor_count=84, uuid=5d5ba0d6-1a2b, L2_cache_size=6MB)\n"
    )
    assert _gpus(facts) == [(0, "NVIDIA RTX A6000", "8.6", None)]
    assert facts.nvml.gpus[0].memory_total_bytes == 48676 << 20
    rocm = read(
        "_CudaDeviceProperties(name='AMD Radeon RX 7900 XTX', major=11, minor=0, "
        "gcnArchName='gfx1100', total_memory=24560MB, multi_processor_count=48)\n"
    )
    assert rocm.nvml.gpus == ()  # a ROCm build's device is an AMD GPU, not CC 11.0
    assert [n.gfx_target for n in rocm.amd.kfd_nodes] == ["gfx1100"]


# --- TensorFlow's device list -------------------------------------------------------------------


def test_tensorflow_lists_its_gpus_or_none(read: Read) -> None:
    two = read(
        ">>> tf.config.list_physical_devices('GPU')\n"
        "[PhysicalDevice(name='/physical_device:GPU:0', device_type='GPU'), "
        "PhysicalDevice(name='/physical_device:GPU:1', device_type='GPU')]\n"
        ">>> tf.__version__\n'2.15.0'\n"
    )
    assert "TensorFlow lists 2 GPU(s) it can use" in _notes(two)
    assert [(d.name, d.cuda_available) for d in two.deep] == [("tensorflow", True)]
    none = read(">>> tf.config.list_physical_devices('GPU')\n[]\n>>> tf.__version__\n'2.15.0'\n")
    assert [(d.name, d.cuda_available) for d in none.deep] == [("tensorflow", False)]
    guide = read(
        "print(\"Num GPUs Available: \", len(tf.config.list_physical_devices('GPU')))\n"
        "Num GPUs Available:  0\n"
    )
    assert "TensorFlow lists no GPU: it runs on the CPU" in _notes(guide)


def test_an_empty_cpu_device_list_is_not_a_missing_gpu(read: Read) -> None:
    with pytest.raises(FactsError):
        read(">>> tf.config.list_physical_devices('CPU')\n[]\n")


# --- deviceQuery, clinfo, vulkaninfo ------------------------------------------------------------


def test_device_query(read: Read) -> None:
    facts = read(
        "./deviceQuery Starting...\n\n"
        " CUDA Device Query (Runtime API) version (CUDART static linking)\n\n"
        "Detected 1 CUDA Capable device(s)\n\n"
        'Device 0: "NVIDIA GeForce RTX 3090"\n'
        "  CUDA Driver Version / Runtime Version          12.2 / 12.1\n"
        "  CUDA Capability Major/Minor version number:    8.6\n"
        "  Total amount of global memory:                 24260 MBytes (25438126080 bytes)\n"
        "  Device PCI Domain ID / Bus ID / location ID:   0 / 33 / 0\n"
        "Result = PASS\n"
    )
    assert _gpus(facts) == [(0, "NVIDIA GeForce RTX 3090", "8.6", "0000:21:00.0")]
    assert facts.nvml.cuda_driver_version == "12.2"
    assert "deviceQuery was built with the CUDA 12.1 runtime" in _notes(facts)


def test_device_query_of_two_gpus_and_without_its_banner(read: Read) -> None:
    block = (
        'Device {i}: "{name}"\n'
        "  CUDA Driver Version / Runtime Version          12.4 / 12.4\n"
        "  CUDA Capability Major/Minor version number:    {cc}\n"
        "  Device PCI Domain ID / Bus ID / location ID:   0 / {bus} / 0\n"
    )
    facts = read(
        block.format(i=0, name="NVIDIA RTX A6000", cc="8.6", bus=23)
        + "\n"
        + block.format(i=1, name="NVIDIA GeForce RTX 4090", cc="8.9", bus=101)
    )
    assert _gpus(facts) == [
        (0, "NVIDIA RTX A6000", "8.6", "0000:17:00.0"),
        (1, "NVIDIA GeForce RTX 4090", "8.9", "0000:65:00.0"),
    ]


def test_device_query_failure_is_a_known_error_not_a_gpu(read: Read) -> None:
    facts = read(
        "./deviceQuery Starting...\n\n"
        " CUDA Device Query (Runtime API) version (CUDART static linking)\n\n"
        "cudaGetDeviceCount returned 35\n"
        "-> CUDA driver version is insufficient for CUDA runtime version\nResult = FAIL\n"
    )
    # the failed call and its message on the next line: the message names the cause (the
    # call's line becomes info beside it: test_cuda_sample_lines.py)
    assert _codes(facts) == ["cuda-call-failed", "driver-insufficient"]
    assert facts.nvml.gpus == ()


def test_clinfo_on_nvidia(read: Read) -> None:
    facts = read(
        "Number of platforms                               1\n"
        "  Platform Name                                   NVIDIA CUDA\n"
        "  Platform Vendor                                 NVIDIA Corporation\n"
        "Number of devices                                 1\n"
        "  Device Name                                     NVIDIA GeForce RTX 3090\n"
        "  Device Vendor                                   NVIDIA Corporation\n"
        "  Driver Version                                  535.129.03\n"
        "NULL platform behavior\n"
        "  clCreateContextFromType(NULL, CL_DEVICE_TYPE_DEFAULT)  Success (1)\n"
        "    Platform Name                                 NVIDIA CUDA\n"
        "    Device Name                                   NVIDIA GeForce RTX 3090\n"
    )
    assert _gpus(facts) == [(0, "NVIDIA GeForce RTX 3090", "8.6", None)]
    assert facts.nvml.driver_version == "535.129.03"


def test_clinfo_of_another_vendor_states_no_nvidia_driver(read: Read) -> None:
    with pytest.raises(FactsError):  # "3584.0" is AMD's OpenCL driver, not an NVIDIA one
        read(
            "  Platform Name                           AMD Accelerated Parallel Processing\n"
            "  Device Name                                     gfx1100\n"
            "  Driver Version                                  3584.0 (HSA1.1,LC)\n"
            "  Platform Name                                   NVIDIA CUDA\n"
        )


def test_vulkaninfo_summary_on_nvidia(read: Read) -> None:
    facts = read(
        "GPU0:\n"
        "\tapiVersion         = 1.3.260\n"
        "\tdriverVersion      = 535.129.3.0\n"
        "\tvendorID           = 0x10de\n"
        "\tdeviceType         = PHYSICAL_DEVICE_TYPE_DISCRETE_GPU\n"
        "\tdeviceName         = NVIDIA GeForce RTX 3090\n"
        "\tdriverID           = DRIVER_ID_NVIDIA_PROPRIETARY\n"
        "\tdriverName         = NVIDIA\n"
        "\tdriverInfo         = 535.129.03\n"
        "GPU1:\n"
        "\tdeviceType         = PHYSICAL_DEVICE_TYPE_CPU\n"
        "\tdeviceName         = llvmpipe (LLVM 15.0.7, 256 bits)\n"
        "\tdriverInfo         = Mesa 23.2.1\n"
    )
    assert _gpus(facts) == [(0, "NVIDIA GeForce RTX 3090", "8.6", None)]
    assert facts.nvml.driver_version == "535.129.03"  # not the packed driverVersion


# --- the reader's own rules ---------------------------------------------------------------------


def test_the_new_patterns_pass_the_backtracking_check() -> None:
    from gpudoctor.pasted import apps, fw_env, gpu_tools

    for module in (apps, fw_env, gpu_tools):
        for name, value in vars(module).items():
            if isinstance(value, re.Pattern):
                assert problem(value.pattern) is None, f"{module.__name__}.{name}"


def test_the_hint_names_the_new_outputs() -> None:
    hint = "; ".join(known_shapes())
    for name in ("ollama", "ds_report", "deviceQuery", "vulkaninfo", "accelerate env"):
        assert name in hint


def test_a_long_log_of_start_up_lines_reads_fast(matrix: Matrix) -> None:
    import time

    from gpudoctor.pasted.dispatch import read_report

    line = (
        'time=2025-10-01T10:00:01Z level=INFO source=types.go:42 msg="inference compute" '
        'id=GPU-1 library=CUDA compute=8.6 name=CUDA0 description="NVIDIA GeForce RTX 3090" '
        "driver=12.8\n"
    )
    repeated = (  # a log of many restarts: each shape's lines, over and over
        line
        + "ggml_cuda_init: found 1 ROCm devices:\n"
        + "  CUDA Capability Major/Minor version number:    8.6\n"
        + "DeepSpeed general environment info:\ntorch version ......... 2.1.0\n"
    )
    text = repeated * 30_000 + "Platform: x y z\n" * 100_000
    start = time.perf_counter()
    facts = read_report(text, "big.log", matrix.architectures)
    assert time.perf_counter() - start < 10
    assert _gpus(facts) == [(0, "NVIDIA GeForce RTX 3090", "8.6", None)]


# --- TensorFlow's GPU log lines -----------------------------------------------------------------


def test_tensorflow_found_device_lines_of_1_x_and_2_x(read: Read) -> None:
    two = read(
        "2020-06-01 10:00:00.123456: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1561] "
        "Found device 0 with properties: \n"
        "pciBusID: 0000:01:00.0 name: GeForce GTX 1080 Ti computeCapability: 6.1\n"
        "coreClock: 1.582GHz coreCount: 28 deviceMemorySize: 10.92GiB\n"
    )
    assert _gpus(two) == [(0, "GeForce GTX 1080 Ti", "6.1", "0000:01:00.0")]
    one = read(
        "2019-03-01 10:00:00.123456: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1433] "
        "Found device 1 with properties: \n"
        "name: Tesla V100-SXM2-16GB major: 7 minor: 0 memoryClockRate(GHz): 1.53\n"
        "pciBusID: 0000:00:1e.0\n"
        "totalMemory: 15.75GiB freeMemory: 15.44GiB\n"
    )
    assert _gpus(one) == [(1, "Tesla V100-SXM2-16GB", "7.0", "0000:00:1e.0")]


def test_tensorflow_ignoring_a_gpu_below_its_minimum(read: Read) -> None:
    facts = read(
        "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1757] Ignoring visible gpu device "
        "(device: 0, name: GeForce GT 730, pci bus id: 0000:01:00.0, compute capability: 3.5) "
        "with Cuda compute capability 3.5. The minimum required Cuda capability is 3.7.\n"
    )
    assert _gpus(facts) == [(0, "GeForce GT 730", "3.5", "0000:01:00.0")]
    assert (
        "TensorFlow ignores GPU 0 (compute capability 3.5): this build needs 3.7 or newer"
        in _notes(facts)
    )


def test_found_device_without_its_properties_line_is_not_a_gpu(read: Read) -> None:
    with pytest.raises(FactsError):
        read("Found device 0 with properties: \ncoreClock: 1.582GHz coreCount: 28\n")


def test_tensorflow_build_info_alone_keeps_what_it_states(read: Read) -> None:
    facts = read(
        ">>> tf.sysconfig.get_build_info()\n"
        "OrderedDict([('cpu_compiler', '/usr/lib/llvm-17/bin/clang'), "
        "('cuda_compute_capabilities', ['sm_60', 'sm_80', 'compute_90']), "
        "('cuda_version', '12.3'), ('cudnn_version', '8'), ('is_cuda_build', True), "
        "('is_rocm_build', False), ('is_tensorrt_build', True)])\n"
    )
    # no TensorFlow version shown: the build's own facts are kept, no version is invented
    assert [(f.name, f.version, f.cuda, f.cpu_only, f.arch_list) for f in facts.frameworks] == [
        ("tensorflow", VERSION_NOT_SHOWN, "12.3", False, ("sm_60", "sm_80", "compute_90"))
    ]
    assert (
        "TensorFlow's build info: CUDA 12.3; cuDNN 8; kernels for sm_60, sm_80, compute_90"
        in _notes(facts)
    )


# --- an interactive torch session ---------------------------------------------------------------


def test_torch_session_device_capability_and_arch_list(read: Read) -> None:
    facts = read(
        ">>> import torch\n"
        ">>> torch.cuda.get_device_capability()\n(12, 0)\n"
        ">>> torch.cuda.get_device_name(0)\n'NVIDIA GeForce RTX 5090'\n"
        ">>> torch.cuda.get_arch_list()\n['sm_50', 'sm_60', 'sm_70', 'sm_75', 'sm_80', 'sm_86', "
        "'sm_90']\n"
        ">>> torch.__version__\n'2.4.1+cu124'\n"
    )
    assert _gpus(facts) == [(0, "NVIDIA GeForce RTX 5090", "12.0", None)]
    (torch,) = facts.frameworks
    assert torch.arch_list == ("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90")
    name_first = read(
        ">>> torch.cuda.get_device_name(1)\n'NVIDIA A100-SXM4-40GB'\n"
        ">>> torch.cuda.get_device_capability(1)\n(8, 0)\n"
    )
    assert _gpus(name_first) == [(1, "NVIDIA A100-SXM4-40GB", "8.0", None)]


def test_a_capability_question_without_its_answer_is_no_gpu(read: Read) -> None:
    assert no_fact_read(
        read, ">>> torch.cuda.get_device_capability()\nTraceback (most recent call last):\n"
    )
    assert no_fact_read(read, ">>> torch.cuda.get_arch_list()\n[]\n")


def test_a_gpu_known_by_its_capability_alone_is_judged_without_a_name(
    read: Read, matrix: Matrix
) -> None:
    from gpudoctor.checks import run_checks

    facts = read(
        ">>> torch.cuda.get_device_capability()\n(12, 0)\n>>> torch.__version__\n'2.4.1+cu124'\n"
    )
    arch = [f for f in run_checks(facts, matrix).findings if f.code == "framework-arch"]
    assert [f.severity.value for f in arch] == ["error"]
    assert arch[0].title.endswith("compute capability 12.0")  # no "(None)" for the name


def test_jax_devices_list(read: Read) -> None:
    two = read(">>> jax.devices()\n[CudaDevice(id=0), CudaDevice(id=1)]\n")
    assert "JAX lists 2 CUDA device(s)" in _notes(two)
    old = read(
        ">>> jax.devices()\n[StreamExecutorGpuDevice(id=0, process_index=0, slice_index=0)]\n"
    )
    assert "JAX lists 1 CUDA device(s)" in _notes(old)
    cpu = read(">>> import jax\n>>> jax.devices()\n[CpuDevice(id=0)]\n")
    assert "JAX found no GPU: its devices are CPUs" in _notes(cpu)
    with pytest.raises(FactsError):  # another program's object with an id is not JAX's list
        read("[Worker(id=0), Worker(id=1)]\n")


def test_old_cuda_toolkit_version_txt(read: Read) -> None:
    facts = read("$ cat /usr/local/cuda/version.txt\nCUDA Version 10.2.89\n")
    assert [t.version for t in facts.cuda_libs.toolkits] == ["10.2.89"]
    smi = read("CUDA Version: 12.4\n")  # nvidia-smi's words: the driver's CUDA, not a toolkit
    assert smi.cuda_libs.toolkits == ()
    assert smi.nvml.cuda_driver_version == "12.4"


def test_windows_dxdiag_and_wmic(read: Read) -> None:
    dxdiag = read(
        "---------------\nDisplay Devices\n---------------\n"
        "           Card name: NVIDIA GeForce RTX 3080\n"
        "        Manufacturer: NVIDIA\n"
        "      Display Memory: 26410 MB\n"
        "      Driver Version: 31.0.15.3640\n"
    )
    assert _gpus(dxdiag) == [(0, "NVIDIA GeForce RTX 3080", "8.6", None)]
    assert dxdiag.nvml.driver_version is None  # Windows' numbering is not the NVIDIA release
    assert any("31.0.15.3640 (its own numbering" in n for n in _notes(dxdiag))
    wmic = read(
        "C:\\>wmic path win32_VideoController get name,driverversion\n"
        "DriverVersion   Name\n"
        "31.0.101.4502   Intel(R) UHD Graphics 770\n"
        "31.0.15.3640    NVIDIA GeForce RTX 4090\n"
    )
    assert _gpus(wmic) == [(0, "NVIDIA GeForce RTX 4090", "8.9", None)]
    with pytest.raises(FactsError):
        read("DriverVersion   Name\n31.0.101.4502   Intel(R) UHD Graphics 770\n")


# --- end to end: `check --from` ------------------------------------------------------------------


def test_check_from_reads_each_output_and_exits_as_judged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from gpudoctor.cli.app import run

    pastes = {
        "ollama-cpu.log": (
            'level=INFO source=types.go:60 msg="inference compute" id=cpu library=cpu '
            'compute="" name=cpu description=cpu libdirs=ollama driver="" pci_id="" type=""\n',
            1,  # ollama-no-gpu is an error line
        ),
        "transformers-env.txt": (
            "- Platform: Linux-5.15.0-122-generic-x86_64-with-glibc2.35\n"
            "- PyTorch version (GPU?): 2.5.1+cu124 (True)\n"
            "- GPU type: NVIDIA A100-SXM4-80GB\n",
            0,
        ),
    }
    for name, (text, code) in pastes.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        assert run(["check", "--from", str(path)]) == code, name
        assert "no report recognised" not in capsys.readouterr().err
