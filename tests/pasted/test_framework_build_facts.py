"""A framework's build facts as users paste them: torch.version.cuda told in prose or printed by a
script, JAX's own warning that it has no CUDA-enabled jaxlib, `jax.devices()` and a pip list of
JAX's CUDA plugin, read into the facts the live probe records, so that `framework-cpu-only`
judges a CPU-only build next to an NVIDIA GPU the same way for a paste as on the host. Also
flash-attn's build-time check of the nvcc it compiles with."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.facts import FrameworkFacts, HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of, warn_or_error

Read = Callable[[str], HostFacts]


def _framework(facts: HostFacts, name: str) -> FrameworkFacts:
    (fw,) = [f for f in facts.frameworks if f.name == name]
    return fw


def _cpu_only(read: Read, matrix: Matrix, text: str, name: str) -> Severity:
    (found,) = [
        f
        for f in findings_of(read, matrix, text)
        if f.code == "framework-cpu-only" and f.subject == name
    ]
    return found.severity


def test_torch_version_cuda_none_in_prose_is_a_cpu_only_build(read: Read, matrix: Matrix) -> None:
    text = (
        "GH200 node, Ubuntu 22.04 aarch64, driver 550.90.07. "
        "pip installed torch 2.3.0 / torch.version.cuda None\n"
    )
    torch = _framework(read(text), "torch")
    assert (torch.version, torch.cpu_only, torch.cuda) == ("2.3.0", True, None)
    assert _cpu_only(read, matrix, text, "torch") is Severity.ERROR
    # the same told as a script prints it, and with quotes and backticks
    for said in (
        "torch.version.cuda: None",
        "`torch.version.cuda` = None",
        "torch.version.cuda returns None",
    ):
        facts = read(f"NVIDIA GeForce RTX 4090\ntorch 2.3.0\n{said}\n")
        assert _framework(facts, "torch").cpu_only is True, said


def test_torch_version_cuda_with_a_number_is_a_cuda_build(read: Read, matrix: Matrix) -> None:
    text = "NVIDIA GeForce RTX 4090, driver 550.54.15\ntorch 2.3.0\ntorch.version.cuda: '12.1'\n"
    torch = _framework(read(text), "torch")
    assert (torch.cuda, torch.cpu_only) == ("12.1", False)
    assert _cpu_only(read, matrix, text, "torch") is Severity.OK


def test_torchs_cuda_in_prose_is_its_build(read: Read) -> None:
    for said in (
        "I installed PyTorch with CUDA 10.2 and then ran it",
        "torch 2.1.0 built for CUDA 12.1",
        "pytorch compiled against CUDA 11.8",
    ):
        facts = read(f"PyTorch Version: 2.1.0\n{said}\n")
        assert _framework(facts, "torch").cuda in ("10.2", "12.1", "11.8"), said
    # a system's toolkit named after torch is not torch's build
    for said in (
        "I run torch with CUDA 11.8 installed on the host",
        "torch with CUDA 12.1 toolkit",
    ):
        facts = read(f"PyTorch Version: 2.1.0\n{said}\n")
        assert _framework(facts, "torch").cuda is None, said


def test_the_drivers_cuda_from_torch_judges_an_older_driver(read: Read, matrix: Matrix) -> None:
    # torch's cudaDriverGetVersion, the question copied without its prompt and the answer
    # quoted below a blank line; no GPU line pasted: the driver it shows has one to run on
    text = (
        "I installed PyTorch with CUDA 10.2 and then the driver check failed\n"
        "torch._C._cuda_getDriverVersion()\n\n> 10010\n\n - PyTorch Version: 1.5.0\n"
    )
    facts = read(text)
    assert facts.nvml.cuda_driver_version == "10.1"
    (found,) = [f for f in findings_of(read, matrix, text) if f.code == "framework-driver-cuda"]
    assert found.severity is Severity.ERROR
    assert "CUDA 10.1" in found.title
    assert "10.2" in found.title
    # a newer answer runs it natively
    fine = text.replace("10010", "10020")
    (found,) = [f for f in findings_of(read, matrix, fine) if f.code == "framework-driver-cuda"]
    assert found.severity is Severity.OK


def test_a_program_testing_torch_version_cuda_tells_nothing(read: Read) -> None:
    for code in (
        "    if torch.version.cuda is None:",
        "assert torch.version.cuda is not None",
        "elif torch.version.cuda == None:",
        "cuda = torch.version.cuda",
    ):
        facts = read(f"NVIDIA GeForce RTX 4090\ntorch 2.3.0\n{code}\n")
        torch = _framework(facts, "torch")
        assert torch.cpu_only is None, code
        assert torch.cuda is None, code


def test_jax_fallback_warning_is_a_cpu_only_jax(read: Read, matrix: Matrix) -> None:
    text = (
        "NVIDIA H100 80GB HBM3, jax 0.4.26\n"
        "An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not "
        "installed. Falling back to cpu.\n"
    )
    facts = read(text)
    jax = _framework(facts, "jax")
    assert (jax.version, jax.cpu_only, jax.cuda) == ("0.4.26", True, None)
    # the pasted judgement is the live one: a CPU-only framework beside an NVIDIA GPU
    assert _cpu_only(read, matrix, text, "jax") is Severity.ERROR
    # the line is named, and explained by that finding (one verdict, not two)
    (line,) = error_lines(findings_of(read, matrix, text), "jax-cpu-fallback")
    assert line.severity is Severity.INFO
    assert "framework-cpu-only" in line.detail
    (deep,) = [d for d in facts.deep if d.name == "jax"]
    assert deep.cuda_available is False
    # JAX's other fallback (a CUDA plugin that failed to start) is no statement of the build
    failed = (
        "NVIDIA H100 80GB HBM3, jax 0.4.26\n"
        "CUDA backend failed to initialize: Found cuDNN version 8902, but JAX was built "
        "against version 9100.\n"
    )
    assert _framework(read(failed), "jax").cpu_only is None


def test_jax_fallback_warning_alone_says_an_nvidia_gpu_is_there(read: Read, matrix: Matrix) -> None:
    """JAX logs the warning only where an NVIDIA device node exists: no GPU listing needed."""
    text = (
        "jax 0.4.26\n"
        "WARNING:jax._src.xla_bridge:An NVIDIA GPU may be present on this machine, but a "
        "CUDA-enabled jaxlib is not installed. Falling back to cpu.\n"
    )
    assert not read(text).nvml.gpus
    assert _cpu_only(read, matrix, text, "jax") is Severity.ERROR
    # a CPU-only jax with neither the warning nor a GPU is fine
    cpu = "jax 0.4.26\n>>> jax.devices()\n[CpuDevice(id=0)]\n"
    assert _cpu_only(read, matrix, cpu, "jax") is Severity.UNKNOWN


def test_jax_with_its_cuda_plugin_or_gpu_devices_is_a_cuda_build(
    read: Read, matrix: Matrix
) -> None:
    pip = (
        "NVIDIA GeForce RTX 4090\n"
        "jax                      0.4.30\n"
        "jax-cuda12-pjrt          0.4.30\n"
        "jax-cuda12-plugin        0.4.30\n"
        "jaxlib                   0.4.30\n"
        "nvidia-cuda-runtime-cu12 12.5.82\n"
    )
    jax = _framework(read(pip), "jax")
    assert (jax.cuda, jax.cpu_only) == ("12.5", False)
    devices = (
        "NVIDIA H100 80GB HBM3\njax 0.4.30\n"
        ">>> jax.devices()\n[CudaDevice(id=0), CudaDevice(id=1)]\n"
    )
    facts = read(devices)
    assert _framework(facts, "jax").cpu_only is False
    assert [d.cuda_available for d in facts.deep if d.name == "jax"] == [True]
    for text in (pip, devices):
        assert not warn_or_error(findings_of(read, matrix, text)), text


def test_a_benign_gpu_build_session_raises_nothing(read: Read, matrix: Matrix) -> None:
    text = (
        "NVIDIA GeForce RTX 4090, driver 550.54.15\n"
        ">>> import torch\n>>> torch.__version__\n'2.3.0+cu121'\n"
        ">>> torch.version.cuda\n'12.1'\n>>> torch.cuda.is_available()\nTrue\n"
    )
    torch = _framework(read(text), "torch")
    assert (torch.cuda, torch.cpu_only) == ("12.1", False)
    assert not warn_or_error(findings_of(read, matrix, text))


def test_flash_attn_build_finds_an_nvcc_too_old(read: Read, matrix: Matrix) -> None:
    text = (
        "      RuntimeError: FlashAttention is only supported on CUDA 11.7 and above.  "
        "Note: make sure nvcc has a supported version by running nvcc -V.\n"
        "ERROR: Could not build wheels for flash-attn, which is required to install "
        "pyproject.toml-based projects\n"
    )
    (found,) = error_lines(findings_of(read, matrix, text), "flash-attn-nvcc-too-old")
    assert found.severity is Severity.ERROR
    assert "older than CUDA 11.7" in found.detail
    assert "CUDA 11.7 or newer" in found.fix
    older = "RuntimeError: FlashAttention is only supported on CUDA 11.6 and above.\n"
    (found,) = error_lines(findings_of(read, matrix, older), "flash-attn-nvcc-too-old")
    assert "older than CUDA 11.6" in found.detail
    # flash-attn's run-time refusal of an older GPU is another matter
    near = (
        "Driver Version: 550.54.15\n"
        "RuntimeError: FlashAttention is only supported on CUDA devices with compute "
        "capability >= 8.0\n"
    )
    assert not error_lines(findings_of(read, matrix, near), "flash-attn-nvcc-too-old")


def test_a_build_without_torch_is_named(read: Read, matrix: Matrix) -> None:
    text = (
        "  \u00d7 Getting requirements to build wheel did not run successfully.\n"
        "      ModuleNotFoundError: No module named 'torch'\n"
        "ERROR: Could not build wheels for flash-attn, which is required to install "
        "pyproject.toml-based projects\n"
    )
    (found,) = error_lines(findings_of(read, matrix, text), "torch-module-missing")
    assert found.severity is Severity.ERROR
    assert "--no-build-isolation" in found.fix
    # a missing part of torch, or another package, is not a missing torch
    for near in (
        "ModuleNotFoundError: No module named 'torch._C'\n",
        "ModuleNotFoundError: No module named 'torchvision'\n",
    ):
        found_near = findings_of(read, matrix, "Driver Version: 550.54.15\n" + near)
        assert not error_lines(found_near, "torch-module-missing"), near


def test_a_framework_seeing_no_gpu_with_its_build_unshown_is_a_warning(
    read: Read, matrix: Matrix
) -> None:
    """`jax.devices()` listing only CpuDevice beside an NVIDIA GPU: a CPU-only jax or a CUDA one
    that cannot reach the GPU; the paste does not say which, so not "a CPU-only build"."""
    text = "Tesla T4, driver 550.54.15, jax 0.4.30\n>>> jax.devices()\n[CpuDevice(id=0)]\n"
    findings = findings_of(read, matrix, text)
    (seen,) = [f for f in findings if f.code == "framework-cuda-available" and f.subject == "jax"]
    assert seen.severity is Severity.WARN
    assert "jax-cuda12-plugin" in seen.fix
    (built,) = [f for f in findings if f.code == "framework-cpu-only" and f.subject == "jax"]
    assert built.severity is Severity.UNKNOWN
    # without a GPU in the report it is nothing to warn of
    alone = "jax 0.4.30\n>>> jax.devices()\n[CpuDevice(id=0)]\n"
    assert not warn_or_error(findings_of(read, matrix, alone))
