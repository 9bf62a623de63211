"""`nvidia-smi -q`'s MIG Devices block: each GPU's MIG devices read into its mig_devices (as
the live probe and the XML form record them), and the mig-mode check judging what it lists."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import findings_of, warn_or_error

Read = Callable[[str], HostFacts]

_HEAD = """\
==============NVSMI LOG==============

Driver Version                            : 550.90.07
CUDA Version                              : 12.4

Attached GPUs                             : 1
GPU 00000000:07:00.0
    Product Name                          : NVIDIA A100-SXM4-40GB
"""
_MIG_ON = """\
    MIG Mode
        Current                           : Enabled
        Pending                           : Enabled
"""


def _device(index: int, gi: int, sms: int, mib: int) -> str:
    return f"""\
        MIG Device
            Index                         : {index}
            GPU Instance ID               : {gi}
            Compute Instance ID           : 0
            Device Attributes
                Shared
                    Multiprocessor count  : {sms}
                    Copy Engine count     : 3
                    Decoder count         : 2
            ECC Errors
                Volatile
                    SRAM Uncorrectable    : 0
            FB Memory Usage
                Total                     : {mib} MiB
                Used                      : 11 MiB
            BAR1 Memory Usage
                Total                     : 32767 MiB
"""


# The GPU's own memory and a process on a MIG device: neither is a MIG device of its own.
_TAIL = """\
    FB Memory Usage
        Total                             : 40960 MiB
        Used                              : 22 MiB
    Processes
        GPU instance ID                   : 1
        Compute instance ID               : 0
        Process ID                        : 4242
            Type                          : C
            Name                          : python
            Used GPU Memory               : 300 MiB
"""
_TWO = _HEAD + _MIG_ON + "    MIG Devices\n" + _device(0, 1, 42, 19968) + _device(1, 5, 14, 4864)
_NONE = "    MIG Devices                           : None\n"


def _mig_mode(findings: list[Finding]) -> Finding:
    (found,) = [f for f in findings if f.code == "mig-mode"]
    return found


def test_mig_devices_are_read_with_their_instances_and_memory(read: Read) -> None:
    (gpu,) = read(_TWO + _TAIL).nvml.gpus
    assert gpu.mig_mode_current is True
    assert [
        (m.index, m.gpu_instance_id, m.compute_instance_id, m.multiprocessor_count)
        for m in gpu.mig_devices
    ] == [(0, 1, 0, 42), (1, 5, 0, 14)]
    assert [m.memory_total_bytes for m in gpu.mig_devices] == [19968 * 2**20, 4864 * 2**20]
    assert gpu.memory_total_bytes == 40960 * 2**20  # the GPU's own, not a MIG device's


def test_a_healthy_mig_layout_raises_nothing(read: Read, matrix: Matrix) -> None:
    findings = findings_of(read, matrix, _TWO + _TAIL)
    mig = _mig_mode(findings)
    assert (mig.severity, mig.title) == (Severity.INFO, "MIG on, 2 instance(s)")
    assert warn_or_error(findings) == []


def test_mig_on_with_none_listed_is_judged_not_unknown(read: Read, matrix: Matrix) -> None:
    text = _HEAD + _MIG_ON + _NONE + _TAIL
    (gpu,) = read(text).nvml.gpus
    assert (gpu.mig_mode_current, gpu.mig_devices) == (True, ())
    mig = _mig_mode(findings_of(read, matrix, text))
    assert mig.severity == Severity.WARN
    assert "no MIG instances" in mig.title


def test_mig_on_without_the_block_stays_unknown(read: Read, matrix: Matrix) -> None:
    # A paste cut above the MIG Devices block; the process's "GPU instance ID" is no listing.
    text = _HEAD + _MIG_ON + _TAIL
    (gpu,) = read(text).nvml.gpus
    assert gpu.mig_devices == ()
    assert _mig_mode(findings_of(read, matrix, text)).severity == Severity.UNKNOWN


def test_mig_off_with_none_listed_is_off(read: Read, matrix: Matrix) -> None:
    text = _HEAD + _MIG_ON.replace("Enabled", "Disabled") + _NONE
    (gpu,) = read(text).nvml.gpus
    assert (gpu.mig_mode_current, gpu.mig_devices) == (False, ())
    assert _mig_mode(findings_of(read, matrix, text)).severity == Severity.OK


def test_a_mig_device_with_unreadable_values_keeps_its_place(read: Read) -> None:
    text = _TWO.replace("Index                         : 1", "Index                         : N/A")
    (gpu,) = read(text.replace("4864 MiB", "N/A")).nvml.gpus
    assert [(m.index, m.memory_total_bytes) for m in gpu.mig_devices] == [
        (0, 19968 * 2**20),
        (1, None),
    ]


def _visible(findings: list[Finding]) -> Finding:
    (found,) = [f for f in findings if f.code == "cuda-visible-devices"]
    return found


def test_a_gpu_and_mig_index_pair_is_judged_against_the_listed_devices(
    read: Read, matrix: Matrix
) -> None:
    # "GPU:MIG" names MIG device MIG (its Index) of GPU GPU; the -q block lists 0 and 1.
    missing = _visible(findings_of(read, matrix, _TWO + _TAIL + "CUDA_VISIBLE_DEVICES=0:3\n"))
    assert missing.severity == Severity.WARN
    assert "MIG device 3 of GPU 0" in missing.title
    present = _visible(findings_of(read, matrix, _TWO + _TAIL + "CUDA_VISIBLE_DEVICES=0:1\n"))
    assert present.severity in (Severity.OK, Severity.INFO)
