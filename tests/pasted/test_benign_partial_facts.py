"""A check that judges a pasted report must not alarm on what the paste merely leaves out: a
verdict that needs a listing (the GPU's MIG instances, the GPU model behind a log line) is
given only when the paste shows it. Each test pastes the healthy shape and its near miss, the
fault the same check must still name."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of, warn_or_error

Read = Callable[[str], HostFacts]

_HEADER = """\
+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |
|-----------------------------------------+----------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |
|                                         |                      |               MIG M. |
|=========================================+======================+======================|
|   0  NVIDIA A100-SXM4-40GB          On  | 00000000:07:00.0 Off |                   On |
| N/A   31C    P0              42W / 400W |     87MiB / 40960MiB |     N/A      Default |
|                                         |                      |              Enabled |
+-----------------------------------------+----------------------+----------------------+
"""

_MIG_BLOCK = """
+---------------------------------------------------------------------------------------+
| MIG devices:                                                                          |
+------------------+--------------------------------+-----------+-----------------------+
| GPU  GI  CI  MIG |                   Memory-Usage |        Vol|      Shared           |
|      ID  ID  Dev |                     BAR1-Usage | SM     Unc| CE ENC DEC OFA JPG    |
|                  |                                |        ECC|                       |
|==================+================================+===========+=======================|
{rows}
+------------------+--------------------------------+-----------+-----------------------+

+---------------------------------------------------------------------------------------+
| Processes:                                                                            |
|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |
|        ID   ID                                                             Usage      |
|=======================================================================================|
|  No running processes found                                                           |
+---------------------------------------------------------------------------------------+
"""

_TWO_DEVICES = """\
|  0    1   0   0  |              50MiB / 19968MiB  | 42      0 |  3   0    2    0    0 |
|                  |               0MiB / 32767MiB  |           |                       |
+------------------+--------------------------------+-----------+-----------------------+
|  0    2   0   1  |              37MiB / 19968MiB  | 42      0 |  3   0    2    0    0 |
|                  |               0MiB / 32767MiB  |           |                       |"""

_NONE = "|  No MIG devices found                                                                 |"


def _mig(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.code == "mig-mode"]


def test_mig_devices_block_of_the_table_is_read(read: Read, matrix: Matrix) -> None:
    facts = read(_HEADER + _MIG_BLOCK.format(rows=_TWO_DEVICES))
    (gpu,) = facts.nvml.gpus
    assert gpu.mig_mode_current is True
    assert [(m.gpu_instance_id, m.index) for m in gpu.mig_devices] == [(1, 0), (2, 1)]
    assert gpu.mig_devices[0].memory_total_bytes == 19968 * 1024 * 1024
    findings = findings_of(read, matrix, _HEADER + _MIG_BLOCK.format(rows=_TWO_DEVICES))
    (mig,) = _mig(findings)
    assert mig.severity is Severity.INFO
    assert "2 instance(s)" in mig.title
    assert warn_or_error(findings) == []
    # Near miss: the table says the GPU in MIG mode has no instance at all: CUDA sees nothing.
    none = findings_of(read, matrix, _HEADER + _MIG_BLOCK.format(rows=_NONE))
    (mig,) = _mig(none)
    assert mig.severity is Severity.WARN
    assert "no MIG instances" in mig.title
    assert "reboot" in mig.detail  # instances do not survive one; the mode does
    assert "at every boot" in mig.fix


def test_a_table_cut_off_above_the_mig_block_says_nothing_of_instances(
    read: Read, matrix: Matrix
) -> None:
    findings = findings_of(read, matrix, "some context above\n" + _HEADER)
    (mig,) = _mig(findings)
    assert mig.severity is Severity.UNKNOWN
    assert warn_or_error(findings) == []
    # `nvidia-smi -L` lists every GPU with its MIG devices: none under the GPU is a fact.
    listing = "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-5d5ba0d6-d33d-2b2c-524d-9e3d8d2b8a77)\n"
    (mig,) = _mig(findings_of(read, matrix, _HEADER + listing))
    assert mig.severity is Severity.WARN


_DCGM = (
    'time="2024-04-02T20:39:31Z" level=info msg="Starting dcgm-exporter"\n'
    'time="2024-04-02T20:39:31Z" level=info msg="DCGM successfully initialized!"\n'
    'time="2024-04-02T20:39:31Z" level=info msg="Not collecting DCP metrics: This request is '
    'serviced by a module of DCGM that is not currently loaded"\n'
    'time="2024-04-02T20:39:31Z" level=warning msg="Skipping line 20 '
    "('DCGM_FI_PROF_GR_ENGINE_ACTIVE'): metric not enabled\"\n"
)


def test_dcgm_profiling_module_absent_on_a_pre_volta_gpu_is_a_notice(
    read: Read, matrix: Matrix
) -> None:
    pascal = "GPU 0: Tesla P4 (UUID: GPU-1a2b3c4d-0000-1111-2222-333344445555)\n"
    findings = findings_of(read, matrix, pascal + _DCGM)
    (line,) = error_lines(findings, "dcgm-profiling-unavailable")
    assert line.severity is Severity.INFO
    assert "predate Volta" in line.detail
    assert warn_or_error(findings) == []
    # Near miss: on a data-centre GPU that has the metrics, a missing profiling module is the
    # image's fault (its proprietary DCGM module).
    ampere = "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-1a2b3c4d-0000-1111-2222-333344445555)\n"
    (line,) = error_lines(findings_of(read, matrix, ampere + _DCGM), "dcgm-profiling-unavailable")
    assert line.severity is Severity.WARN
    assert "lacks DCGM's profiling module" in line.detail


def test_dcgm_skipping_its_profiling_metrics_is_a_notice_where_the_gpu_is_unknown(
    read: Read, matrix: Matrix
) -> None:
    # dcgm-exporter logs it at info level and exports the other metrics: harmless unless the
    # report shows a GPU that has the metrics (above), as on a GeForce card, which has none.
    geforce = "GPU 0: NVIDIA GeForce RTX 3080 (UUID: GPU-1a2b3c4d-0000-1111-2222-333344445555)\n"
    other = (
        "INFO[0000] Not collecting DCP metrics: Error getting supported metrics: This request is "
        "serviced by a module of DCGM that is not currently loaded\n"
    )
    for text in (_DCGM, geforce + _DCGM, other):
        findings = findings_of(read, matrix, text)
        (line,) = error_lines(findings, "dcgm-profiling-unavailable")
        assert line.severity is Severity.INFO
        assert "DCGM_FI_DEV_GPU_UTIL" in line.fix
        assert warn_or_error(findings) == []


def test_mig_devices_of_the_xml_log_are_read(read: Read, matrix: Matrix) -> None:
    head = (
        "<nvidia_smi_log>\n<driver_version>535.104.05</driver_version>\n"
        '<gpu id="00000000:07:00.0">\n<product_name>NVIDIA A100-SXM4-40GB</product_name>\n'
        "<mig_mode>\n<current_mig>Enabled</current_mig>\n<pending_mig>Enabled</pending_mig>\n"
        "</mig_mode>\n"
    )
    devices = (
        "<mig_devices>\n<mig_device>\n<index>0</index>\n<gpu_instance_id>10</gpu_instance_id>\n"
        "<compute_instance_id>0</compute_instance_id>\n<fb_memory_usage>\n<total>4864 MiB</total>"
        "\n</fb_memory_usage>\n</mig_device>\n</mig_devices>\n"
        "<fb_memory_usage>\n<total>Insufficient Permissions</total>\n</fb_memory_usage>\n"
        "</gpu>\n</nvidia_smi_log>\n"
    )
    facts = read(head + devices)
    (gpu,) = facts.nvml.gpus
    assert [(m.index, m.gpu_instance_id, m.compute_instance_id) for m in gpu.mig_devices] == [
        (0, 10, 0)
    ]
    assert gpu.mig_devices[0].memory_total_bytes == 4864 * 1024 * 1024
    findings = findings_of(read, matrix, head + devices)
    (mig,) = _mig(findings)
    assert mig.severity is Severity.INFO
    assert warn_or_error(findings) == []
    # Near miss: the log lists no MIG device under a GPU in MIG mode: CUDA sees nothing.
    empty = head + "<mig_devices>None</mig_devices>\n</gpu>\n</nvidia_smi_log>\n"
    (mig,) = _mig(findings_of(read, matrix, empty))
    assert mig.severity is Severity.WARN


_ROCM_ENV = """\
PyTorch version: 1.7.0a0+9ddd3df
Is debug build: False
CUDA used to build PyTorch: {cuda}
ROCM used to build PyTorch: {rocm}

OS: Ubuntu 18.04.4 LTS (x86_64)
Python version: 3.6 (64-bit runtime)
Is CUDA available: True
CUDA runtime version: N/A
GPU models and configuration: {gpu}
Nvidia driver version: Could not collect
cuDNN version: N/A
HIP runtime version: 3.18.2
MIOpen runtime version: 2.6.0
"""


def test_a_rocm_builds_gpu_list_is_amds_even_without_its_gfx_target(
    read: Read, matrix: Matrix
) -> None:
    # Before torch 2.0 a ROCm build's collect_env names each GPU as HIP does, with no gfx
    # target: "Device 66a1" (a Vega 20). It is an AMD GPU, never one nvidia-smi listed.
    text = _ROCM_ENV.format(cuda="N/A", rocm="3.7.20315-077bcfa0", gpu="Device 66a1")
    facts = read(text)
    assert facts.nvml.gpus == ()
    assert [g.device_id for g in facts.amd.pci_gpus] == ["66a1"]
    findings = findings_of(read, matrix, text)
    assert not [
        f for f in findings if f.code == "framework-cpu-only" and f.severity is Severity.ERROR
    ]
    assert warn_or_error(findings) == []
    # Near miss: a CUDA build's list is nvidia-smi's, whatever the GPU is called.
    cuda = read(_ROCM_ENV.format(cuda="11.0", rocm="N/A", gpu="GPU 0: Tesla V100-SXM2-32GB"))
    assert [g.name for g in cuda.nvml.gpus] == ["Tesla V100-SXM2-32GB"]
    assert cuda.amd.pci_gpus == ()
    # Near miss: a ROCm build on a host whose nvidia-smi shows only NVIDIA GPUs is the fault.
    on_nvidia = (
        _ROCM_ENV.format(cuda="N/A", rocm="6.0.32830-d62f6a171", gpu="Could not collect")
        + "\n"
        + _HEADER
    )
    errors = [f for f in findings_of(read, matrix, on_nvidia) if f.code == "framework-cpu-only"]
    assert [f.severity for f in errors] == [Severity.ERROR]
