"""framework-import, framework-cuda-available and framework-kernel on HostFacts built here: the
recorded hosts of tests/data/hosts plus what a --deep run would have added to them."""

from __future__ import annotations

import dataclasses

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.facts import (
    DeepDevice,
    DeepFrameworkFacts,
    DeviceNode,
    FrameworkFacts,
    HostFacts,
)
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.load import load_matrix
from gpudoctor.matrix.model import Matrix
from tests.support.hosts import host

CODES = ("framework-import", "framework-cuda-available", "framework-kernel")
E, W, OK, NA, UNK = Severity.ERROR, Severity.WARN, Severity.OK, Severity.NA, Severity.UNKNOWN
PY = "/opt/venv/bin/python"
H100 = DeepDevice(0, "NVIDIA H100 80GB HBM3", "9.0")


@pytest.fixture(scope="module")
def matrix() -> Matrix:
    return load_matrix()


def ran(**changes: object) -> DeepFrameworkFacts:
    """A torch 2.5.1+cu124 deep run that went well, with `changes`."""
    base = DeepFrameworkFacts(
        name="torch",
        outcome="ok",
        python=PY,
        seconds=3.1,
        timeout_s=60.0,
        exit_code=0,
        import_ok=True,
        import_seconds=2.4,
        version="2.5.1+cu124",
        cuda="12.4",
        cudnn="9.1.0",
        cuda_available=True,
        device_count=8,
        devices=tuple(dataclasses.replace(H100, index=i) for i in range(8)),
        arch_list=("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"),
        kernel_ok=True,
    )
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


def deep_findings(
    matrix: Matrix, facts: HostFacts, *deep: DeepFrameworkFacts
) -> dict[str, Finding]:
    """The three findings for torch on `facts` with `deep` added (exactly one each)."""
    run = run_checks(dataclasses.replace(facts, deep=deep), matrix, only=frozenset(CODES))
    found = {f.code: f for f in run.findings}
    assert len(found) == len(run.findings) == 3, run.findings
    return found


def severities(found: dict[str, Finding]) -> tuple[Severity, ...]:
    return tuple(found[c].severity for c in CODES)


def test_without_deep_each_framework_is_na_with_the_hint(matrix: Matrix) -> None:
    run = run_checks(host("a100-mig-pending"), matrix, only=frozenset(CODES))
    assert [(f.code, f.subject, f.severity) for f in run.findings] == [
        (code, fw, NA) for code in CODES for fw in ("torch", "tensorflow")
    ]
    assert all("run `gpudoctor check --deep`" in f.title for f in run.findings)


def test_no_framework_is_one_na_per_code(matrix: Matrix) -> None:
    run = run_checks(host("no-gpu-toolkit-only"), matrix, only=frozenset(CODES))
    assert [(f.code, f.severity, f.title) for f in run.findings] == [
        (code, NA, "no torch, tensorflow or jax installed") for code in CODES
    ]


def test_a_healthy_gpu_host_passes_all_three(matrix: Matrix) -> None:
    found = deep_findings(matrix, host("h100-8x-healthy"), ran())
    assert severities(found) == (OK, OK, OK)
    assert found["framework-import"].title == "import torch works in 2.4 s (2.5.1+cu124)"
    assert found["framework-cuda-available"].title == (
        "torch 2.5.1+cu124 sees 8 CUDA device(s): NVIDIA H100 80GB HBM3"
    )
    assert found["framework-kernel"].title == "a small torch kernel ran on NVIDIA H100 80GB HBM3"
    assert (
        run_checks(dataclasses.replace(host("h100-8x-healthy"), deep=(ran(),)), matrix).exit_code
        == 0
    )


@pytest.mark.parametrize(
    ("error", "detail", "fix"),
    [
        (
            "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory",
            "the shared library libcudnn.so.9 that torch loads is not found",
            "`pip install torch==2.5.1 --force-reinstall`",
        ),
        (
            "ImportError: libcuda.so.1: cannot open shared object file: No such file",
            "libcuda.so.1, the NVIDIA driver's user-space library, is not found",
            "`--gpus all`",
        ),
        (
            "ImportError: /x/libtorch_cuda.so: undefined symbol: cudnnGetVersion_v9",
            "does not match the one torch was built against",
            "`unset LD_LIBRARY_PATH`",
        ),
        (
            "ImportError: A module that was compiled using NumPy 1.x cannot be run in\n"
            "NumPy 2.1.0 as it may crash.",
            "built against NumPy 1.x",
            "pip install 'numpy<2'",
        ),
        (
            "ModuleNotFoundError: No module named 'typing_extensions'",
            "torch needs the module typing_extensions",
            f"`{PY} -m pip install typing_extensions`",
        ),
        (
            "ModuleNotFoundError: No module named 'torch._C'",
            f"import torch raised an error with {PY}",
            f"run `{PY} -c 'import torch'`",
        ),
    ],
)
def test_an_import_failure_is_an_error_whose_fix_follows_the_message(
    matrix: Matrix, error: str, detail: str, fix: str
) -> None:
    failed = ran(outcome="import_failed", import_ok=False, error=error, cuda_available=None)
    found = deep_findings(matrix, host("h100-8x-healthy"), failed)
    assert severities(found) == (E, NA, NA)
    imp = found["framework-import"]
    assert imp.title == f"import torch fails: {error.splitlines()[-1]}"
    assert detail in imp.detail
    assert fix in imp.fix
    assert found["framework-cuda-available"].title == "torch does not import (see framework-import)"


def test_a_timeout_is_an_import_error_and_the_later_stages_unknown(matrix: Matrix) -> None:
    hung = ran(outcome="timeout", exit_code=None, timeout_s=60.0, import_ok=None, error=None)
    found = deep_findings(matrix, host("h100-8x-healthy"), hung)
    assert severities(found) == (E, UNK, UNK)
    assert "did not finish within 60 s" in found["framework-import"].title
    assert "--deep-timeout" in found["framework-import"].fix
    assert "nvidia-smi" in found["framework-import"].fix


def test_a_crash_names_the_signal_and_the_last_words(matrix: Matrix) -> None:
    crashed = ran(
        outcome="crashed",
        exit_code=139,
        error="Fatal Python error: Segmentation fault\n  File torch/__init__.py, line 290",
    )
    found = deep_findings(matrix, host("h100-8x-healthy"), crashed)
    assert severities(found) == (E, UNK, UNK)
    imp = found["framework-import"]
    assert imp.title == "import torch crashed: the probe exited 139 (128 + SIGSEGV)"
    assert "File torch/__init__.py, line 290" in imp.detail
    assert "-X faulthandler" in imp.fix


def test_a_probe_without_report_is_unknown(matrix: Matrix) -> None:
    silent = ran(outcome="no_report", error="banner")
    assert severities(deep_findings(matrix, host("h100-8x-healthy"), silent)) == (UNK, UNK, UNK)


def test_another_copy_shadowing_the_installed_one_is_a_warning(matrix: Matrix) -> None:
    found = deep_findings(matrix, host("h100-8x-healthy"), ran(version="2.3.0+cu121"))
    imp = found["framework-import"]
    assert imp.severity is W
    assert imp.title == "import torch loads 2.3.0+cu121, but the installed package is 2.5.1+cu124"
    assert "print(torch.__file__)" in imp.fix


def test_a_failure_after_the_import_is_unknown_downstream(matrix: Matrix) -> None:
    failed = ran(
        outcome="probe_failed",
        cuda_available=None,
        kernel_ok=None,
        error="Traceback ...\nRuntimeError: CUDA driver initialization failed",
    )
    found = deep_findings(matrix, host("h100-8x-healthy"), failed)
    assert severities(found) == (OK, UNK, UNK)
    assert found["framework-cuda-available"].title.endswith(
        "RuntimeError: CUDA driver initialization failed"
    )


def _unavailable(**changes: object) -> DeepFrameworkFacts:
    return ran(cuda_available=False, device_count=0, devices=(), kernel_ok=None, **changes)


def test_cuda_unavailable_with_cuda_visible_devices_empty(matrix: Matrix) -> None:
    facts = host("h100-8x-healthy")
    facts = dataclasses.replace(
        facts, platform=dataclasses.replace(facts.platform, cuda_visible_devices="")
    )
    found = deep_findings(matrix, facts, _unavailable())
    assert severities(found) == (OK, E, NA)
    avail = found["framework-cuda-available"]
    assert avail.title == (
        "torch 2.5.1+cu124 (CUDA 12.4) sees no GPU, though this host has NVIDIA GPUs"
    )
    assert avail.detail == "likely cause: CUDA_VISIBLE_DEVICES='' hides every GPU from CUDA"
    assert avail.fix.startswith("unset CUDA_VISIBLE_DEVICES")
    assert avail.fix.endswith("then `gpudoctor check --deep` again")
    assert found["framework-kernel"].title.endswith("(see framework-cuda-available)")


def test_cuda_unavailable_with_a_driver_too_old_quotes_the_framework(matrix: Matrix) -> None:
    said = "CUDA initialization: The NVIDIA driver on your system is too old (found version 11040)"
    found = deep_findings(matrix, host("driver-too-old"), _unavailable(cuda_warnings=(said,)))
    avail = found["framework-cuda-available"]
    assert avail.severity is E
    assert "driver 470.256.02 is too old for the CUDA 12.4 torch was built with" in avail.detail
    assert f"torch said: {said}" in avail.detail
    assert avail.fix.startswith("upgrade the driver to >= ")


def test_cuda_unavailable_in_a_container_started_without_gpus(matrix: Matrix) -> None:
    found = deep_findings(matrix, host("container-without-gpus"), _unavailable())
    avail = found["framework-cuda-available"]
    assert avail.severity is E
    assert "this docker container was started without GPUs (NVIDIA_VISIBLE_DEVICES=unset)" in (
        avail.detail
    )
    assert "the NVIDIA driver does not work here (NVML: library_not_found)" in avail.detail
    assert avail.fix.startswith("start it with `--gpus all`")


def test_cuda_unavailable_from_device_nodes_and_missing_uvm(matrix: Matrix) -> None:
    facts = host("h100-8x-healthy")
    nodes = (DeviceNode("/dev/nvidiactl", True, True), DeviceNode("/dev/nvidia0", True, False))
    facts = dataclasses.replace(facts, kernel=dataclasses.replace(facts.kernel, device_nodes=nodes))
    avail = deep_findings(matrix, facts, _unavailable())["framework-cuda-available"]
    assert "/dev/nvidia0 not read/writable by this user" in avail.detail
    assert "/dev/nvidia-uvm is missing" in avail.detail


def test_cuda_unavailable_without_a_visible_cause_says_what_to_run(matrix: Matrix) -> None:
    avail = deep_findings(matrix, host("h100-8x-healthy"), _unavailable())[
        "framework-cuda-available"
    ]
    assert avail.severity is E
    assert avail.detail == "nothing in the host facts explains it"
    assert avail.fix == f"run `{PY} -c 'import torch; torch.cuda.init()'` to see CUDA's own error"


def test_a_cpu_build_or_a_host_without_gpu_is_na(matrix: Matrix) -> None:
    cpu = _unavailable(version="2.4.1+cpu", cuda=None, cudnn=None, arch_list=())
    found = deep_findings(matrix, host("cpu-torch-on-gpu"), cpu)
    assert severities(found) == (OK, NA, NA)
    assert "a CPU-only build" in found["framework-cuda-available"].title
    no_gpu = HostFacts(frameworks=(FrameworkFacts("torch", "2.5.1+cu124", cuda="12.4"),))
    found = deep_findings(matrix, no_gpu, _unavailable())
    assert severities(found) == (OK, NA, NA)
    assert "this host has no NVIDIA GPU" in found["framework-cuda-available"].title


def test_no_kernel_image_on_blackwell_links_to_framework_arch(matrix: Matrix) -> None:
    b200 = DeepDevice(0, "NVIDIA B200", "10.0")
    failed = ran(
        devices=(b200,),
        device_count=8,
        kernel_ok=False,
        kernel_error="RuntimeError: CUDA error: no kernel image is available for execution on "
        "the device",
    )
    facts = host("b200-torch25-no-sm100")
    found = deep_findings(matrix, facts, failed)
    assert severities(found) == (OK, OK, E)
    kernel = found["framework-kernel"]
    assert kernel.title == "torch 2.5.1+cu124 has no kernel image for compute capability 10.0"
    assert "sm_90" in kernel.detail
    assert "framework-arch" in kernel.detail
    assert kernel.fix.startswith("install a build with kernels for this GPU: ")
    assert "pip install torch==" in kernel.fix
    arch = next(f for f in run_checks(facts, matrix).findings if f.code == "framework-arch")
    assert arch.fix.split(": ", 1)[1] in kernel.fix  # the same build framework-arch suggests


@pytest.mark.parametrize(
    ("error", "fix"),
    [
        ("RuntimeError: CUDA error: out of memory", "`nvidia-smi` shows which processes"),
        (
            "RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable",
            "nvidia-smi -q -d COMPUTE",
        ),
        ("RuntimeError: CUDA error: an illegal memory access was encountered", "dmesg"),
        ("RuntimeError: CUDA error: something new", "CUDA_LAUNCH_BLOCKING=1"),
    ],
)
def test_other_kernel_errors_name_their_cause(matrix: Matrix, error: str, fix: str) -> None:
    found = deep_findings(matrix, host("h100-8x-healthy"), ran(kernel_ok=False, kernel_error=error))
    kernel = found["framework-kernel"]
    assert kernel.severity is E
    assert kernel.title == f"a small torch kernel fails: {error}"
    assert fix in kernel.fix


def test_a_wrong_kernel_result_suspects_the_hardware(matrix: Matrix) -> None:
    found = deep_findings(matrix, host("h100-8x-healthy"), ran(kernel_ok=False))
    assert found["framework-kernel"].severity is E
    assert "wrong result" in found["framework-kernel"].title
    assert "dcgmi diag" in found["framework-kernel"].fix
