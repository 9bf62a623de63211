"""A GPU NVML still answers but whose readings it answers with an error (nvidia-smi's "ERR!" and
"[Unknown Error]" for one or two readings): degraded, not lost, and named at warn."""

from __future__ import annotations

from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import Read, findings_of

_HEAD = """\
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 570.144                Driver Version: 570.144        CUDA Version: 12.8     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
"""
_FOOT = """\
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+
"""


def _table(first: str, second: str) -> str:
    return _HEAD + first + "\n" + second + "\n" + _FOOT


def _gpu_lost(read: Read, matrix: Matrix, text: str) -> list[tuple[Severity, str]]:
    return [(f.severity, f.title) for f in findings_of(read, matrix, text) if f.code == "gpu-lost"]


def test_a_fan_that_reads_err_is_a_warning_not_a_lost_gpu(read: Read, matrix: Matrix) -> None:
    text = _table(
        "|   0  NVIDIA GeForce RTX 3090        Off "
        "|   00000000:01:00.0  On |                  N/A |",
        "|ERR!   45C    P8             32W /  350W "
        "|     812MiB /  24576MiB |      3%      Default |",
    )
    facts = read(text)
    gpu = facts.nvml.gpus[0]
    assert not gpu.lost
    assert gpu.failed_readings == ("fan speed",)
    assert gpu.temperature_c == 45  # the readings NVML gave are still read
    found = _gpu_lost(read, matrix, text)
    assert len(found) == 1
    severity, title = found[0]
    assert severity == Severity.WARN
    assert "fan speed" in title
    assert "0000:01:00.0" in title


def test_err_in_temperature_power_and_ecc_names_each_reading(read: Read, matrix: Matrix) -> None:
    text = _table(
        "|   0  NVIDIA A100-SXM4-80GB          On  "
        "|   00000000:07:00.0 Off |                 ERR! |",
        "| N/A   ERR!    P0            ERR! /  400W"
        " |     0MiB /  81920MiB |      0%      Default |",
    )
    gpu = read(text).nvml.gpus[0]
    # three readings fail: the GPU's queries fail, as the live probe's lost GPU
    assert gpu.lost
    text = _table(
        "|   0  NVIDIA A100-SXM4-80GB          On  "
        "|   00000000:07:00.0 Off |                 ERR! |",
        "| N/A   35C    P0             45W /  400W |     0MiB /  81920MiB |      0%      Default |",
    )
    gpu = read(text).nvml.gpus[0]
    assert not gpu.lost
    assert gpu.failed_readings == ("uncorrected ECC count",)
    assert [s for s, _ in _gpu_lost(read, matrix, text)] == [Severity.WARN]


def test_query_gpu_unknown_error_for_two_readings_warns(read: Read, matrix: Matrix) -> None:
    text = (
        "$ nvidia-smi --query-gpu=index,name,temperature.gpu,power.draw,fan.speed --format=csv\n"
        "index, name, temperature.gpu, power.draw [W], fan.speed [%]\n"
        "0, NVIDIA GeForce RTX 4090, 41, 35.12 W, 30 %\n"
        "1, NVIDIA GeForce RTX 4090, [Unknown Error], [Unknown Error], 30 %\n"
    )
    gpus = {g.index: g for g in read(text).nvml.gpus}
    assert gpus[0].failed_readings == ()
    assert gpus[1].failed_readings == ("temperature.gpu", "power.draw")
    found = _gpu_lost(read, matrix, text)
    assert [s for s, _ in found] == [Severity.WARN]
    assert "temperature.gpu, power.draw" in found[0][1]


def test_query_one_unknown_error_warns(read: Read, matrix: Matrix) -> None:
    text = (
        "==============NVSMI LOG==============\n\n"
        "Driver Version                            : 550.127.05\n"
        "CUDA Version                              : 12.4\n\n"
        "Attached GPUs                             : 1\n"
        "GPU 00000000:3B:00.0\n"
        "    Product Name                          : NVIDIA A100 80GB PCIe\n"
        "    Temperature\n"
        "        GPU Current Temp                  : [Unknown Error]\n"
    )
    assert read(text).nvml.gpus[0].failed_readings == ("gpu current temp",)
    assert [s for s, _ in _gpu_lost(read, matrix, text)] == [Severity.WARN]


def test_na_and_not_supported_are_no_failed_reading(read: Read, matrix: Matrix) -> None:
    # Near miss: a Jetson's table is all N/A and "Not Supported": values the GPU does not have.
    text = (
        "+-----------------------------------------"
        "----------------------------------------------+\n"
        "| NVIDIA-SMI 540.4.0                Driver"
        " Version: 540.4.0      CUDA Version: 12.6     |\n"
        "|-----------------------------------------"
        "+----------------------+----------------------+\n"
        "| GPU  Name                 Persistence-M "
        "| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
        "| Fan  Temp   Perf          Pwr:Usage/Cap "
        "|         Memory-Usage | GPU-Util  Compute M. |\n"
        "|                                         "
        "|                      |               MIG M. |\n"
        "|========================================="
        "+======================+======================|\n"
        "|   0  Orin (nvgpu)                  N/A  "
        "| N/A              N/A |                  N/A |\n"
        "| N/A   N/A  N/A               N/A /  N/A "
        "| Not Supported        |     N/A          N/A |\n"
        "|                                         "
        "|                      |                  N/A |\n"
        "+-----------------------------------------"
        "+----------------------+----------------------+\n"
    )
    assert all(g.failed_readings == () for g in read(text).nvml.gpus)
    assert not [s for s, _ in _gpu_lost(read, matrix, text) if s != Severity.OK]
