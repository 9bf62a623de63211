"""The ROCm tools' shapes (pasted/amd.py) and collect_env's ROCm lines, on synthetic pastes that
keep the real layouts of tests/data/reports/ (and amd-smi list's, from amdsmi's CHANGELOG)."""

from __future__ import annotations

from gpudoctor.pasted.dispatch import read_report

AMD_SMI_LIST = """$ amd-smi list
GPU: 0
    BDF: 0000:23:00.0
    UUID: <redacted>
    KFD_ID: 45412
    NODE_ID: 1
    PARTITION_ID: 0

GPU: 1
    BDF: 0000:26:00.0
    UUID: <redacted>
    KFD_ID: 59881
    NODE_ID: 2
    PARTITION_ID: 0
"""

ROCMINFO = """ROCk module version 6.12.12 is loaded
=====================
HSA System Attributes
=====================
Runtime Version:         1.15
==========
HSA Agents
==========
*******
Agent 1
*******
  Name:                    AMD EPYC 9654 96-Core Processor
  Marketing Name:          AMD EPYC 9654 96-Core Processor
  Vendor Name:             CPU
  Device Type:             CPU
*******
Agent 2
*******
  Name:                    gfx942
  Uuid:                    GPU-21b6d61638a86f8c
  Marketing Name:          AMD Instinct MI300X
  Vendor Name:             AMD
  Device Type:             GPU
  Chip ID:                 29857(0x74a1)
*******
Agent 3
*******
  Name:                    gfx942
  Marketing Name:          AMD Instinct MI300X
  Vendor Name:             AMD
  Device Type:             GPU
"""


def test_amd_smi_list_gives_addresses_but_no_target() -> None:
    facts = read_report(AMD_SMI_LIST, "list.txt")
    assert facts.report is not None
    assert facts.report.sections == ("amd-smi",)
    assert facts.amd.kfd_nodes == ()  # list shows no gfx target: nothing to judge it by


def test_rocminfo_agents_are_gpu_nodes() -> None:
    facts = read_report(ROCMINFO, "rocminfo.txt")
    assert [n.gfx_target for n in facts.amd.gpu_nodes] == ["gfx942", "gfx942"]
    assert [n.gfx_target_version for n in facts.amd.gpu_nodes] == [90402, 90402]
    assert (facts.amd.amdgpu_version, facts.amd.kfd_present) == ("6.12.12", True)
    assert facts.report is not None
    assert facts.report.sections == ("rocminfo",)


def test_rocm_smi_product_name_gives_the_target() -> None:
    text = (
        "GPU[0]\t\t: Card Series: \t\tAMD Instinct MI300X OAM\n"
        "GPU[0]\t\t: GFX Version: \t\tgfx942\n"
        "GPU[1]\t\t: Card Series: \t\tAMD Instinct MI300X OAM\n"
        "GPU[1]\t\t: GFX Version: \t\tgfx942\n"
    )
    facts = read_report(text, "smi.txt")
    assert [n.gfx_target for n in facts.amd.gpu_nodes] == ["gfx942", "gfx942"]


def test_collect_env_amd_gpus_are_not_nvml_gpus() -> None:
    text = (
        "PyTorch version: 2.5.1+rocm6.2\n"
        "ROCM used to build PyTorch: 6.2.41133-dd7f95766\n"
        "GPU models and configuration: \n"
        "GPU 0: AMD Instinct MI300X (gfx942:sramecc+:xnack-)\n"
        "GPU 1: AMD Instinct MI300X (gfx942:sramecc+:xnack-)\n"
        "Nvidia driver version: Could not collect\n"
        "HIP runtime version: 6.2.41133\n"
        "MIOpen runtime version: 3.2.0\n"
    )
    facts = read_report(text, "env.txt")
    assert facts.nvml.gpus == ()
    assert facts.nvml.status != "ok"
    assert [n.gfx_target for n in facts.amd.gpu_nodes] == ["gfx942", "gfx942"]
    assert (facts.amd.hip_runtime_version, facts.amd.miopen_version) == ("6.2.41133", "3.2.0")
    torch = facts.frameworks[0]
    assert (torch.hip, torch.cpu_only) == ("6.2.41133-dd7f95766", False)


def test_nvidia_collect_env_is_unchanged() -> None:
    text = (
        "PyTorch version: 2.5.1+cu124\nGPU models and configuration: GPU 0: NVIDIA H100 80GB HBM3\n"
    )
    facts = read_report(text, "env.txt")
    assert [g.name for g in facts.nvml.gpus] == ["NVIDIA H100 80GB HBM3"]
    assert facts.amd.seen is False


def test_amd_smi_static_gives_the_hosts_kernel_release() -> None:
    static = (
        "GPU: 0\n    ASIC:\n        MARKET_NAME: AMD Instinct MI350X\n"
        "    DRIVER:\n        NAME: amdgpu\n        VERSION: 6.18.3\n"
        "        OS_KERNEL_VERSION: 5.15.0-164-generic\n"
    )
    facts = read_report(static, "static.txt")
    assert facts.kernel.release == "5.15.0-164-generic"
    assert facts.amd.amdgpu_version == "6.18.3"
    assert facts.report is not None
    assert facts.report.sections == ("amd-smi",)  # read by the block, not again as prose
