"""Framework, driver and MIG pastes that show a failure (or a healthy host) in the forms their
programs print: TensorFlow's build info beside nvidia-smi, JAX's environment report and backend
errors, nvidia-smi's own error cells and warnings. Each test pastes the form the rule is for and
a near miss."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of, warn_or_error

Read = Callable[[str], HostFacts]

_SMI_HEAD = (
    "+---------------------------------------------------------------------------------------+\n"
    "| NVIDIA-SMI {drv}              Driver Version: {drv}      CUDA Version: {cuda}     |\n"
    "|-----------------------------------------+----------------------+----------------------+\n"
    "| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
    "| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |\n"
    "|                                         |                      |               MIG M. |\n"
    "|=========================================+======================+======================|\n"
)
_SMI_END = (
    "+-----------------------------------------+----------------------+----------------------+\n"
)


def smi(drv: str, cuda: str, rows: str) -> str:
    """An nvidia-smi table (R535's layout) with the given GPU rows."""
    return _SMI_HEAD.format(drv=drv, cuda=cuda) + rows + _SMI_END


L4_550 = smi(
    "550.54.15",
    "12.4 ",
    "|   0  NVIDIA L4                      Off | 00000000:00:03.0 Off |                    0 |\n"
    "| N/A   40C    P8              12W /  72W |      0MiB / 23034MiB |      0%      Default |\n"
    "|                                         |                      |                  N/A |\n",
)
TF_BUILD_INFO = (
    "OrderedDict([('cpu_compiler', '/usr/lib/llvm-17/bin/clang'), ('cuda_compute_capabilities', "
    "['sm_60', 'sm_70', 'sm_80', 'sm_89', 'compute_90']), ('cuda_version', '12.3'), "
    "('cudnn_version', '8'), ('is_cuda_build', True), ('is_rocm_build', False), "
    "('is_tensorrt_build', True)])\n"
)


def test_tensorflow_build_infos_cudnn_is_what_it_expects_not_a_cudnn_found(
    read: Read, matrix: Matrix
) -> None:
    """get_build_info()'s cudnn_version is the cuDNN the build was compiled against: with no
    nvidia-cudnn wheel in the report it is no cuDNN the framework loads, so it is never judged
    against another release's cuDNN."""
    findings = findings_of(read, matrix, TF_BUILD_INFO + L4_550)
    assert warn_or_error(findings) == []
    (cudnn,) = [f for f in findings if f.code == "framework-cudnn"]
    assert cudnn.severity is not Severity.ERROR
    # Near miss: a cuDNN wheel of another major beside the build is one it loads, and judged.
    wheel = TF_BUILD_INFO + "tensorflow==2.16.1\nnvidia-cudnn-cu12==9.1.0.70\n" + L4_550
    judged = [f for f in findings_of(read, matrix, wheel) if f.code == "framework-cudnn"]
    assert [f.severity for f in judged] == [Severity.ERROR]
    assert "9.1.0.70" in judged[0].title


JAX_ENV = (
    "jax:    0.4.30\n"
    "jaxlib: 0.4.30\n"
    "numpy:  1.26.4\n"
    "python: 3.11.9 (main, Apr 19 2024, 16:48:06) [GCC 11.2.0]\n"
    "jax.devices ({total} total, {local} local): {devices}\n"
    "process_count: 1\n"
    "\n$ nvidia-smi\n"
)
RTX4090 = smi(
    "550.54.15",
    "12.4 ",
    "|   0  NVIDIA GeForce RTX 4090        Off | 00000000:01:00.0 Off |                  Off |\n"
    "|  0%   38C    P8              21W / 450W |      2MiB / 24564MiB |      0%      Default |\n"
    "|                                         |                      |                  N/A |\n",
)


def test_jax_environment_info_listing_only_cpus_beside_a_gpu_is_a_warning(
    read: Read, matrix: Matrix
) -> None:
    """jax.print_environment_info() prints its devices as "jax.devices (1 total, 1 local):
    [CpuDevice(id=0)]" and then nvidia-smi: JAX sees no GPU the host has."""
    text = JAX_ENV.format(total=1, local=1, devices="[CpuDevice(id=0)]") + RTX4090
    facts = read(text)
    assert [d.cuda_available for d in facts.deep if d.name == "jax"] == [False]
    found = [f for f in findings_of(read, matrix, text) if f.code == "framework-cuda-available"]
    assert [f.severity for f in found] == [Severity.WARN]
    assert "jax 0.4.30" in found[0].title
    # Near miss: its CUDA devices (numpy's str of the array: spaces, no commas) are no alarm.
    ok = JAX_ENV.format(total=2, local=2, devices="[cuda(id=0) cuda(id=1)]") + RTX4090
    assert warn_or_error(findings_of(read, matrix, ok)) == []
    assert [d.cuda_available for d in read(ok).deep if d.name == "jax"] == [True]


def test_jax_cuda_backend_with_no_visible_gpu_is_an_error(read: Read, matrix: Matrix) -> None:
    line = (
        "RuntimeError: Unable to initialize backend 'cuda': FAILED_PRECONDITION: No visible GPU "
        "devices. (you may need to uninstall the failing plugin package, or set "
        "JAX_PLATFORMS=cpu to skip this backend.)\n"
    )
    (found,) = error_lines(findings_of(read, matrix, line), "jax-cuda-no-visible-gpu")
    assert found.severity is Severity.ERROR
    assert "cuda backend" in found.detail
    assert "CUDA_VISIBLE_DEVICES" in found.fix
    # Near misses: the ROCm backend's probe notice, and XLA's words without a JAX backend.
    rocm = (
        "INFO:jax._src.xla_bridge:Unable to initialize backend 'rocm': "
        "FAILED_PRECONDITION: No visible GPU devices.\n"
    )
    assert not error_lines(findings_of(read, matrix, rocm), "jax-cuda-no-visible-gpu")
    bare = RTX4090 + "Status: FAILED_PRECONDITION: No visible GPU devices.\n"
    assert not error_lines(findings_of(read, matrix, bare), "jax-cuda-no-visible-gpu")
    # On a host the report names as one without an NVIDIA GPU the line is expected: info.
    mac = "I'm on a MacBook Pro M2, no NVIDIA GPU\n" + line
    (notice,) = error_lines(findings_of(read, matrix, mac), "jax-cuda-no-visible-gpu")
    assert notice.severity is Severity.INFO


def _row(second: str) -> str:
    return smi(
        "525.85.12",
        "12.0 ",
        "|   0  NVIDIA GeForce RTX 3080        Off | 00000000:01:00.0 Off |"
        "                  N/A |\n"
        f"|{second}|      0MiB / 10240MiB |    ERR!      Default |\n"
        "|                                         |                      |"
        "                  N/A |\n",
    )


def _lost(findings: list) -> list:
    return [f for f in findings if f.code == "gpu-lost" and f.severity is Severity.ERROR]


def test_an_nvidia_smi_table_of_err_cells_is_a_lost_gpu(read: Read, matrix: Matrix) -> None:
    """nvidia-smi prints ERR! where NVML answered a query with an error: a GPU whose fan,
    temperature, performance state and power all read ERR! no longer answers (it fell off the
    bus or hung), as the live probe records a GPU whose handle fails."""
    text = _row("ERR!  ERR!  ERR!               ERR! / ERR! ")
    (lost,) = _lost(findings_of(read, matrix, text))
    assert "ERR!" in lost.title
    assert "0000:01:00.0" in lost.title
    # Near miss: a fan that reads ERR! beside readable values is a fan fault, not a lost GPU.
    fan = _row("ERR!  41C    P8               22W / 320W ")
    assert _lost(findings_of(read, matrix, fan)) == []
    assert [g.temperature_c for g in read(fan).nvml.gpus] == [41]


SMI_Q = (
    "==============NVSMI LOG==============\n\n"
    "Driver Version                            : 535.129.03\n"
    "CUDA Version                              : 12.2\n\n"
    "Attached GPUs                             : 1\n"
    "GPU 00000000:01:00.0\n"
    "    Product Name                          : NVIDIA GeForce RTX 3090\n"
    "    Fan Speed                             : [Unknown Error]\n"
    "    Performance State                     : {perf}\n"
    "    Temperature\n"
    "        GPU Current Temp                  : {temp}\n"
    "    GPU Power Readings\n"
    "        Power Draw                        : [Unknown Error]\n"
)


def test_nvidia_smi_q_and_query_gpu_errors_mark_a_lost_gpu(read: Read, matrix: Matrix) -> None:
    text = SMI_Q.format(perf="[Unknown Error]", temp="[Unknown Error]")
    (lost,) = _lost(findings_of(read, matrix, text))
    assert "4 readings" in lost.title
    # Near miss: two failed readings of a GPU that still gives its temperature.
    two = SMI_Q.format(perf="P8", temp="35 C")
    assert _lost(findings_of(read, matrix, two)) == []
    csv = (
        "nvidia-smi --query-gpu=index,name,temperature.gpu --format=csv\n"
        "index, name, temperature.gpu\n"
        "0, NVIDIA A100-SXM4-80GB, 33\n"
        "1, [GPU is lost], [GPU is lost]\n"
    )
    (gone,) = _lost(findings_of(read, matrix, csv))
    assert gone.subject == "GPU 1"
    assert [g.name for g in read(csv).nvml.gpus] == ["NVIDIA A100-SXM4-80GB", None]


def _collect_env(gpu: str) -> str:
    return (
        "PyTorch version: 2.3.1+cu121\n"
        "Is debug build: False\n"
        "CUDA used to build PyTorch: 12.1\n"
        "ROCM used to build PyTorch: N/A\n\n"
        "OS: Ubuntu 22.04.3 LTS (x86_64)\n"
        "Is CUDA available: True\n"
        f"GPU models and configuration: GPU 0: NVIDIA GeForce {gpu}\n"
        "Nvidia driver version: 535.129.03\n"
    )


def test_a_first_kepler_geforce_is_known_too_old_for_a_new_torch(
    read: Read, matrix: Matrix
) -> None:
    """The GTX 680 and its GK10x siblings are compute capability 3.0 (NVIDIA's legacy CUDA GPUs
    page): torch 2.3's kernels start at sm_50, so the GPU has none."""
    facts = read(_collect_env("GTX 680"))
    assert [g.compute_capability for g in facts.nvml.gpus] == ["3.0"]
    arch = [
        f for f in findings_of(read, matrix, _collect_env("GTX 680")) if f.code == "framework-arch"
    ]
    assert [f.severity for f in arch] == [Severity.ERROR]
    assert "3.0" in arch[0].title or "sm_30" in arch[0].title + arch[0].detail
    assert [g.compute_capability for g in read(_collect_env("GTX 780")).nvml.gpus] == ["3.5"]
    # Near miss: a Pascal GeForce of the same family of names has kernels in that build.
    ok = [
        f for f in findings_of(read, matrix, _collect_env("GTX 1080")) if f.code == "framework-arch"
    ]
    assert [f.severity for f in ok] == [Severity.OK]


def test_nvidia_smis_corrupted_inforom_warning_is_a_warning(read: Read, matrix: Matrix) -> None:
    text = "WARNING: infoROM is corrupted at gpu 0000:00:03.0\n" + L4_550
    (found,) = error_lines(findings_of(read, matrix, text), "gpu-inforom-corrupted")
    assert found.severity is Severity.WARN
    assert "NVML_ERROR_CORRUPTED_INFOROM" in found.detail
    assert "RMA" in found.fix
    # Near miss: nvidia-smi -q's infoROM versions of a sound board.
    versions = (
        L4_550 + "    Inforom Version\n"
        "        Image Version                     : G193.0200.00.01\n"
        "        OEM Object                        : 2.1\n"
    )
    assert not error_lines(findings_of(read, matrix, versions), "gpu-inforom-corrupted")


def test_a_dkms_build_for_another_kernel_than_the_running_one_is_an_error(
    read: Read, matrix: Matrix
) -> None:
    """`dkms status` lists the kernels the module is built and installed for: with the running
    kernel (uname -r) among none of them, the nvidia module cannot load."""
    dkms = "$ dkms status\nnvidia/535.129.03, 6.2.0-39-generic, x86_64: installed\n"
    text = "$ uname -r\n6.5.0-14-generic\n" + dkms
    (found,) = error_lines(findings_of(read, matrix, text), "dkms-nvidia-installed-for-kernel")
    assert found.severity is Severity.ERROR
    assert "535.129.03" in found.detail
    assert "6.2.0-39-generic" in found.fix
    # Near misses: a second line for the running kernel, and a report that shows no kernel.
    both = text + "nvidia/535.129.03, 6.5.0-14-generic, x86_64: installed\n"
    assert read(both).kernel.nvidia_dkms_kernels == ("6.2.0-39-generic", "6.5.0-14-generic")
    lines = error_lines(findings_of(read, matrix, both), "dkms-nvidia-installed-for-kernel")
    assert [f.severity for f in lines] == [Severity.INFO]
    assert "6.5.0-14-generic has its own build" in lines[0].detail
    (alone,) = error_lines(findings_of(read, matrix, dkms), "dkms-nvidia-installed-for-kernel")
    assert alone.severity is Severity.INFO
    added = "$ uname -r\n6.5.0-14-generic\nnvidia/535.129.03: added\n"
    assert not error_lines(findings_of(read, matrix, added), "dkms-nvidia-installed-for-kernel")


def _jetson_collect_env(torch: str, built: str) -> str:
    return (
        f"PyTorch version: {torch}\n"
        "Is debug build: False\n"
        f"CUDA used to build PyTorch: {built}\n"
        "ROCM used to build PyTorch: N/A\n\n"
        "OS: Ubuntu 22.04.5 LTS (aarch64)\n"
        "Python platform: Linux-5.15.148-tegra-aarch64-with-glibc2.35\n"
        "Is CUDA available: False\n"
        "CUDA runtime version: 12.6.68\n"
        "GPU models and configuration: Could not collect\n"
        "Nvidia driver version: Could not collect\n"
    )


def test_pypis_aarch64_cuda_torch_on_a_jetson_is_an_sbsa_build(read: Read, matrix: Matrix) -> None:
    """From 2.11 PyPI's aarch64 torch wheel is a CUDA 13.0 build for server Arm (the matrix's
    [[wheel]] rows): on a Jetson before JetPack 7, a plain 2.11.0 built with CUDA 13.0 that
    does not see CUDA is that wheel, not one of NVIDIA's Jetson builds."""
    text = _jetson_collect_env("2.11.0", "13.0")
    found = [f for f in findings_of(read, matrix, text) if f.code == "jetson-wheel"]
    assert [f.severity for f in found] == [Severity.ERROR]
    assert "SBSA" in found[0].title
    assert "2.11.0" in found[0].detail
    assert "CUDA 13.0" in found[0].detail
    # Near miss: the same release built with CUDA 12.6 (a Jetson index's wheel) is no SBSA one.
    jetson = _jetson_collect_env("2.11.0", "12.6")
    other = [f for f in findings_of(read, matrix, jetson) if f.code == "jetson-wheel"]
    assert [f.severity for f in other] == [Severity.OK]
