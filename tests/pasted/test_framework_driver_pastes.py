"""A framework build judged against the driver from what a paste shows of it: nvidia-smi's
"CUDA Version" alone (the header's right-hand number, or told in prose) settles the tier as the
driver version does (compat.tiers.driver_tier), so a torch built with a newer CUDA major than the
driver supports is an error, and one within the driver's CUDA is fine, with no driver version
pasted."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import findings_of, warn_or_error

Read = Callable[[str], HostFacts]


def _driver_cuda(found: list[Finding], subject: str) -> Finding:
    (one,) = [f for f in found if f.code == "framework-driver-cuda" and f.subject == subject]
    return one


def test_a_cuda_major_above_the_drivers_cuda_is_an_error(read: Read, matrix: Matrix) -> None:
    text = (
        "I have torch 2.4.0+cu124 installed. nvidia-smi says CUDA Version: 11.7 "
        "(GeForce GTX 1080 Ti). torch.cuda.is_available() is False.\n"
    )
    facts = read(text)
    assert facts.nvml.driver_version is None
    assert facts.nvml.cuda_driver_version == "11.7"
    found = _driver_cuda(findings_of(read, matrix, text), "torch")
    assert found.severity is Severity.ERROR
    assert "CUDA 11.7" in found.title
    assert "12.4" in found.title
    # the fix names the driver the build's CUDA major needs (its minor-version floor)
    assert "525.60.13" in found.fix


def test_within_the_drivers_cuda_major_it_runs(read: Read, matrix: Matrix) -> None:
    for said, severity in (("12.2", Severity.OK), ("12.0", Severity.INFO)):
        text = f"torch 2.1.2+cu121 on NVIDIA GeForce RTX 3090, nvidia-smi CUDA Version: {said}\n"
        found = findings_of(read, matrix, text)
        assert _driver_cuda(found, "torch").severity is severity, said
        assert not warn_or_error(found), said


def test_the_driver_version_still_decides_where_it_is_shown(read: Read, matrix: Matrix) -> None:
    # driver 450.80.02 is CUDA 11's minor-version floor: a cu118 build runs there
    text = (
        "PyTorch version: 2.0.1+cu118\nCUDA used to build PyTorch: 11.8\n"
        "GPU models and configuration: GPU 0: Tesla T4\nNvidia driver version: 450.80.02\n"
    )
    assert _driver_cuda(findings_of(read, matrix, text), "torch").severity is Severity.INFO


_SMI_470 = (
    "| NVIDIA-SMI 470.223.02   Driver Version: 470.223.02   CUDA Version: 11.4     |\n"
    "|   0  NVIDIA GeForce RTX 3090  Off  | 00000000:01:00.0  On |                  N/A |\n"
)


def test_tensorflow_and_cuda_is_judged_by_its_cuda_runtime_wheel(
    read: Read, matrix: Matrix
) -> None:
    """tensorflow[and-cuda]'s pip list shows no build CUDA, but the nvidia-cuda-runtime wheel it
    installed is the libcudart it loads: CUDA 12.2 on a CUDA 11.4 driver cannot run."""
    text = (
        "Package                      Version\n"
        "---------------------------- --------\n"
        "tensorflow                   2.15.0\n"
        "nvidia-cuda-runtime-cu12     12.2.140\n"
        "nvidia-cudnn-cu12            8.9.4.25\n\n" + _SMI_470
    )
    (tf,) = read(text).frameworks
    assert tf.cuda == "12.2"
    found = _driver_cuda(findings_of(read, matrix, text), "tensorflow")
    assert found.severity is Severity.ERROR
    assert "12.2" in found.title


def test_a_plain_torch_takes_its_cuda_from_the_runtime_wheel_not_a_tagged_one(
    read: Read, matrix: Matrix
) -> None:
    wheels = "nvidia-cuda-runtime-cu12 12.1.105\nnvidia-cudnn-cu12 8.9.2.26\n"
    (torch,) = read(f"torch 2.1.2\n{wheels}" + _SMI_470).frameworks
    assert (torch.cuda, torch.cpu_only) == ("12.1", False)
    # a local tag or the build's own answer wins over the wheel beside it
    for told, cuda in (("torch 2.1.2+cu118", "11.8"), ("torch 2.1.2+cpu", None)):
        (torch,) = read(f"{told}\n{wheels}").frameworks
        assert torch.cuda == cuda, told
    # a wheel whose version is not of its name's major is not a runtime
    (torch,) = read("torch 2.1.2\nnvidia-cuda-runtime-cu12 11.8.89\n").frameworks
    assert torch.cuda is None


def test_conda_forge_pytorch_build_strings_tell_its_cuda(read: Read, matrix: Matrix) -> None:
    """conda-forge builds pytorch as "cuda{{ cuda_compiler_version | replace('.', '') }}py..."
    (later "cuda120_py311h..." and "cuda126_generic_py312h..."), its CPU variant "cpu_..."."""
    for build, cuda in (
        ("cuda112py38h1b2e4f8_1", "11.2"),
        ("cuda120_py311h1b2e4f8_300", "12.0"),
        ("cuda126_generic_py312h0f9a4c2_200", "12.6"),
    ):
        (torch,) = read(f"pytorch                   2.3.1   {build}    conda-forge\n").frameworks
        assert (torch.cuda, torch.cpu_only) == (cuda, False), build
    (torch,) = read("pytorch  2.3.1  cpu_generic_py310h5e4d4b5_0  conda-forge\n").frameworks
    assert (torch.cuda, torch.cpu_only) == (None, True)
    # a build string that only holds "cuda" later is not conda-forge's CUDA variant
    (torch,) = read("pytorch  2.3.1  py310h5e4d4b5_cuda0  conda-forge\n").frameworks
    assert torch.cuda is None
    # judged against the driver: CUDA 12.0 on a CUDA 11.4 driver does not run
    text = "pytorch  2.3.1  cuda120_py311h1b2e4f8_300  conda-forge\n" + _SMI_470
    found = _driver_cuda(findings_of(read, matrix, text), "torch")
    assert found.severity is Severity.ERROR


def test_a_tensorflow_that_created_a_gpu_device_has_its_cuda_libraries(
    read: Read, matrix: Matrix
) -> None:
    """gpu_device.cc logs "Created device .../device:GPU:0" only after loading CUDA and cuDNN:
    no [and-cuda] finding for it, though the package list shows no nvidia-* wheel."""
    created = (
        "2024-02-01 09:00:01.000000: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1886] "
        "Created device /job:localhost/replica:0/task:0/device:GPU:0 with 22282 MB memory:  -> "
        "device: 0, name: NVIDIA GeForce RTX 3090, pci bus id: 0000:01:00.0, compute "
        "capability: 8.6\n"
    )
    found = findings_of(read, matrix, created + "tensorflow 2.15.0\n")
    (wheels,) = [f for f in found if f.code == "tf-cuda-wheels"]
    assert wheels.severity is Severity.OK
    assert not warn_or_error(found)
    # without it the same list is TensorFlow without its CUDA wheels
    found = findings_of(read, matrix, "tensorflow 2.15.0\nNVIDIA GeForce RTX 3090\n")
    (wheels,) = [f for f in found if f.code == "tf-cuda-wheels"]
    assert wheels.severity is Severity.ERROR


def test_jax_environment_info_with_cpu_devices_is_jaxs_answer(read: Read, matrix: Matrix) -> None:
    """jax.print_environment_info()'s "device info: cpu-1" is JAX's own answer that it has no
    GPU, read as `jax.devices()` listing only CpuDevice is: beside an NVIDIA GPU, a warning that
    asks for the build; alone, nothing to warn of."""
    info = 'jax:    0.4.23\njaxlib: 0.4.23\ndevice info: cpu-1, 1 local devices"\n'
    found = findings_of(read, matrix, info + "GPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-1a2b)\n")
    (seen,) = [f for f in found if f.code == "framework-cuda-available" and f.subject == "jax"]
    assert seen.severity is Severity.WARN
    assert "pip list | grep jax" in seen.fix
    assert not warn_or_error(findings_of(read, matrix, info))
