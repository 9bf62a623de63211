"""Each report shape read into HostFacts: the facts it shows, and nothing it does not."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts
from tests.support.pasted_samples import COLLECT_ENV, SMI_TABLE, SMI_TABLE_OLD, SMI_XML

Read = Callable[[str], HostFacts]


def test_smi_table_current_layout(read: Read) -> None:
    facts = read(SMI_TABLE)
    assert facts.report is not None
    assert facts.report.sections == ("nvidia-smi",)
    n = facts.nvml
    assert (n.status, n.driver_version, n.cuda_driver_version) == ("ok", "570.86.16", "12.8")
    (gpu,) = n.gpus
    assert gpu.name == "NVIDIA GeForce RTX 5090"
    assert gpu.pci_bus_id == "0000:01:00.0"
    assert gpu.memory_total_bytes == 32607 * 2**20
    assert (gpu.persistence_mode, gpu.temperature_c, gpu.power_limit_w) == (False, 45, 575.0)
    assert gpu.compute_capability == "12.0"  # from the matrix's architecture table, by name
    assert gpu.mig_mode_current is None  # N/A stays unknown


def test_smi_table_old_layout(read: Read) -> None:
    (gpu,) = read(SMI_TABLE_OLD).nvml.gpus
    assert (gpu.name, gpu.persistence_mode, gpu.pci_bus_id) == ("Tesla T4", True, "0000:00:1e.0")
    assert (gpu.ecc_mode_current, gpu.ecc_uncorrected_volatile) == (True, 0)
    assert gpu.compute_capability == "7.5"


def test_collect_env(read: Read) -> None:
    facts = read(COLLECT_ENV)
    (torch,) = facts.frameworks
    assert (torch.version, torch.cuda, torch.cpu_only, torch.cudnn) == (
        "2.5.1+cu124",
        "12.4",
        False,
        "9.1.0.70",
    )
    assert facts.nvml.driver_version == "570.86.16"
    assert facts.nvml.cuda_driver_version is None  # collect_env does not print it
    assert facts.kernel.release == "6.8.0-49-generic"
    assert (facts.platform.wsl, facts.platform.virtualization) == (False, "kvm")
    assert facts.cuda_libs.toolkits[0].nvcc_version == "12.1.105"
    (deep,) = facts.deep
    assert (deep.cuda_available, deep.kernel_ok) == (True, None)
    assert facts.report is not None
    assert "the newest CUDA the driver supports" in facts.report.unknown


def test_collect_env_cpu_build_and_unknown_cuda(read: Read) -> None:
    cpu = COLLECT_ENV.replace("2.5.1+cu124", "2.5.1").replace(
        "CUDA used to build PyTorch: 12.4", "CUDA used to build PyTorch: None"
    )
    assert read(cpu).frameworks[0].cpu_only is True
    # collect_env writes torch.version.cuda = None as "Could not collect": still a CPU build
    none = cpu.replace("PyTorch: None", "PyTorch: Could not collect")
    assert read(none).frameworks[0].cpu_only is True
    unknown = cpu.replace("PyTorch: None", "PyTorch: N/A")  # torch did not import: not guessed
    assert read(unknown).frameworks[0].cpu_only is None


def test_collect_env_aligned_keys_of_torch_2_8(read: Read) -> None:
    text = (
        "PyTorch version              : 2.7.0+cu126\n"
        "CUDA used to build PyTorch   : 12.6\n"
        "GPU models and configuration :\nGPU 0: NVIDIA GeForce GTX 1080 Ti\n"
        "Nvidia driver version        : 560.35.03\n"
    )
    facts = read(text)
    assert facts.frameworks[0].cuda == "12.6"
    assert facts.nvml.gpus[0].compute_capability == "6.1"


def test_smi_query(read: Read) -> None:
    text = (
        "==============NVSMI LOG==============\n\n"
        "Driver Version                            : 550.54.15\n"
        "CUDA Version                              : 12.4\n\n"
        "Attached GPUs                             : 1\n"
        "GPU 00000000:3B:00.0\n"
        "    Product Name                          : NVIDIA A100-SXM4-80GB\n"
        "    Persistence Mode                      : Enabled\n"
        "    MIG Mode\n"
        "        Current                           : Enabled\n"
        "        Pending                           : Disabled\n"
        "    FB Memory Usage\n"
        "        Total                             : 81920 MiB\n"
        "    Ecc Mode\n"
        "        Current                           : Enabled\n"
        "        Pending                           : Enabled\n"
        "    PCI\n"
        "        GPU Link Info\n"
        "            PCIe Generation\n"
        "                Max                       : 4\n"
        "                Current                   : 1\n"
        "            Link Width\n"
        "                Max                       : 16x\n"
        "                Current                   : 8x\n"
    )
    facts = read(text)
    (gpu,) = facts.nvml.gpus
    assert (gpu.mig_mode_current, gpu.mig_mode_pending) == (True, False)
    assert (gpu.ecc_mode_current, gpu.memory_total_bytes) == (True, 81920 * 2**20)
    assert (gpu.pcie_link_gen_max, gpu.pcie_link_width_current) == (4, 8)
    assert (gpu.pci_bus_id, gpu.compute_capability) == ("0000:3b:00.0", "8.0")


def test_smi_xml(read: Read) -> None:
    facts = read(SMI_XML)
    assert facts.nvml.driver_version == "550.54.15"
    (gpu,) = facts.nvml.gpus
    assert (gpu.name, gpu.compute_capability) == ("NVIDIA H100 80GB HBM3", "9.0")
    assert (gpu.mig_mode_current, gpu.mig_mode_pending) == (False, True)
    assert gpu.memory_total_bytes == 81559 * 2**20
    assert facts.report is not None
    assert facts.report.notes == ()


def test_smi_xml_truncated_keeps_what_came_before(read: Read) -> None:
    facts = read(SMI_XML[: SMI_XML.index("<fb_memory_usage>")])
    assert facts.nvml.gpus[0].mig_mode_pending is True
    assert facts.nvml.gpus[0].memory_total_bytes is None
    assert facts.report is not None
    assert any("cut short" in n for n in facts.report.notes)


@pytest.mark.parametrize(
    "prologue",
    [
        '<!DOCTYPE nvidia_smi_log [<!ENTITY lol "lol">]>\n',
        '<!DOCTYPE nvidia_smi_log SYSTEM "x.dtd" [\n<!ENTITY a "&b;&b;">\n]>\n',
    ],
)
def test_smi_xml_with_entity_declarations_is_refused(read: Read, prologue: str) -> None:
    text = SMI_XML.replace('<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">\n', prologue)
    text += SMI_TABLE  # something else to read, so the paste is not garbage
    facts = read(text)
    assert facts.report is not None
    assert "nvidia-smi -q -x" not in facts.report.sections
    assert any("DOCTYPE or ENTITY" in n for n in facts.report.notes)
    assert facts.nvml.driver_version == "570.86.16"  # from the table, not the refused XML


def test_smi_list_and_mig(read: Read) -> None:
    text = (
        "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-5a7f5d3e-1c2b-4d3a-9e8f-0123456789ab)\n"
        "  MIG 3g.20gb     Device  0: (UUID: MIG-1c2b3d4e-5f60-7182-93a4-b5c6d7e8f901)\n"
        "GPU 1: NVIDIA A100-SXM4-40GB (UUID: GPU-6b8f5d3e-1c2b-4d3a-9e8f-0123456789ab)\n"
    )
    facts = read(text)
    assert [g.name for g in facts.nvml.gpus] == ["NVIDIA A100-SXM4-40GB"] * 2
    assert all(g.uuid is None for g in facts.nvml.gpus)  # identifiers stay out
    assert facts.report is not None
    assert any("MIG" in n for n in facts.report.notes)


def test_pip_freeze_cpu_wheel_on_a_gpu_host(read: Read) -> None:
    facts = read("torch==2.5.1+cpu\nnumpy==2.1.3\n" + SMI_TABLE)
    (torch,) = facts.frameworks
    assert (torch.version, torch.cpu_only, torch.cuda) == ("2.5.1+cpu", True, None)


def test_pip_list_plain_version_leaves_cuda_unknown(read: Read) -> None:
    text = "Package    Version\n---------- -------\nnumpy      2.1.3\ntorch      2.4.1\n"
    (torch,) = read(text).frameworks
    assert (torch.version, torch.cuda, torch.cpu_only) == ("2.4.1", None, None)


def test_pip_and_conda_lists_fill_torchs_companions(read: Read) -> None:
    """The same field the frameworks probe fills: torchvision/torchaudio, version and local tag."""
    text = "torch==2.5.1+cu124\ntorchvision==0.20.1+cu124\ntorchaudio==2.5.1+cu124\n"
    (torch,) = read(text).frameworks
    assert [(c.name, c.version, c.local) for c in torch.companions] == [
        ("torchvision", "0.20.1", "cu124"),
        ("torchaudio", "2.5.1", "cu124"),
    ]
    conda = (
        "[conda] pytorch    2.1.0           py3.10_cuda11.8_cudnn8.7.0_0    pytorch\n"
        "[conda] torchvision    0.16.0           py310_cu118    pytorch\n"
    )
    (torch,) = read(conda).frameworks
    assert [(c.name, c.version, c.local) for c in torch.companions] == [
        ("torchvision", "0.16.0", "")
    ]


def test_conda_lines(read: Read) -> None:
    text = "[conda] pytorch    2.1.0           py3.10_cuda11.8_cudnn8.7.0_0    pytorch\n"
    (torch,) = read(text).frameworks
    assert (torch.version, torch.cuda) == ("2.1.0", "11.8")


def test_proc_version_open_module(read: Read) -> None:
    text = (
        "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  "
        "Release Build  (dvs-builder@U16-I3-B03-4-3)  Thu Jan 16 23:16:43 UTC 2025\n"
        "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n"
    )
    kernel = read(text).kernel
    assert (kernel.nvidia_module_version, kernel.nvidia_module_flavor) == ("570.86.15", "open")


def test_tensorflow_build_info_and_device_log(read: Read) -> None:
    text = (
        "tensorflow==2.15.1\n"
        "OrderedDict([('cpu_compiler', '/usr/lib/llvm-16/bin/clang'), ('cuda_compute_capabilities',"
        " ['sm_50', 'sm_60', 'sm_70', 'sm_80', 'compute_90']), ('cuda_version', '12.2'), "
        "('cudnn_version', '8'), ('is_cuda_build', True), ('is_rocm_build', False), "
        "('is_tensorrt_build', True)])\n"
        "2024-01-01 10:00:00.000000: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1929] "
        "Created device /job:localhost/replica:0/task:0/device:GPU:0 with 22259 MB memory:  -> "
        "device: 0, name: NVIDIA GeForce RTX 3090, pci bus id: 0000:01:00.0, compute capability: "
        "8.6\n"
    )
    facts = read(text)
    (tf,) = facts.frameworks
    assert (tf.name, tf.version, tf.cuda, tf.cudnn, tf.cpu_only) == (
        "tensorflow",
        "2.15.1",
        "12.2",
        "8",
        False,
    )
    (gpu,) = facts.nvml.gpus
    assert (gpu.name, gpu.compute_capability) == ("NVIDIA GeForce RTX 3090", "8.6")


def test_error_lines_state_facts(read: Read) -> None:
    facts = read(
        "UserWarning: CUDA initialization: The NVIDIA driver on your system is too old "
        "(found version 11040).\n"
    )
    assert facts.nvml.cuda_driver_version == "11.4"
    assert facts.report is not None
    assert [e.code for e in facts.report.errors] == ["driver-too-old"]
    assert facts.report.errors[0].line == 1
