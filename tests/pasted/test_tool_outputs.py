"""What the common GPU-host tools print, read as the facts the live probes record: NVIDIA's tools
(nvidia-smi --version, -q -d PERFORMANCE/COMPUTE, topo -m, nvidia-container-cli info,
nvidia-ctk cdi list, dcgmi), the host's (os-release, hostnamectl, /proc/cmdline, mokutil), the
container engines' (docker version/info, podman info, crictl info), the schedulers' (kubectl
describe node / get pods, Slurm), ibstat/ibv_devinfo, conda and pip lines, rocm-smi. Each text
is written in the tool's own format; each has a near miss that must not be read as that fact."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from gpudoctor.errors import FactsError
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.matrix.regex_safety import problem
from tests.support.pasted_findings import findings_of, no_fact_read

Read = Callable[[str], HostFacts]


def test_nvidia_smi_version(read: Read) -> None:
    facts = read(
        "$ nvidia-smi --version\n"
        "NVIDIA-SMI version  : 550.54.15\n"
        "NVML version        : 550.54\n"
        "DRIVER version      : 550.54.15\n"
        "CUDA Version        : 12.4\n"
    )
    assert (facts.nvml.driver_version, facts.nvml.cuda_driver_version) == ("550.54.15", "12.4")
    assert facts.nvml.status == "ok"


def test_a_driver_version_in_prose_without_a_number_is_not_read(read: Read) -> None:
    with pytest.raises(FactsError):
        read("DRIVER version      : see the attached log\nNVML version: unknown\n")


def test_nvidia_container_cli_info(read: Read) -> None:
    facts = read(
        "NVRM version:   535.129.03\nCUDA version:   12.2\n\n"
        "Device Index:   0\nDevice Minor:   0\nModel:          NVIDIA A100-SXM4-80GB\n"
        "Brand:          Nvidia\nGPU UUID:       GPU-3f2c8a1e-5b6d-7e8f-9a0b-1c2d3e4f5a6b\n"
        "Bus Location:   00000000:07:00.0\nArchitecture:   8.0\n\n"
        "Device Index:   1\nDevice Minor:   1\nModel:          NVIDIA H100 80GB HBM3\n"
        "Brand:          Nvidia\nGPU UUID:       GPU-4a3d9b2f-6c7e-8f9a-0b1c-2d3e4f5a6b7c\n"
        "Bus Location:   00000000:0F:00.0\nArchitecture:   9.0\n"
    )
    assert facts.nvml.driver_version == "535.129.03"
    assert facts.nvml.cuda_driver_version == "12.2"
    assert [(g.index, g.name, g.pci_bus_id, g.compute_capability) for g in facts.nvml.gpus] == [
        (0, "NVIDIA A100-SXM4-80GB", "0000:07:00.0", "8.0"),
        (1, "NVIDIA H100 80GB HBM3", "0000:0f:00.0", "9.0"),
    ]


def test_proc_version_is_not_read_as_nvidia_container_cli(read: Read) -> None:
    facts = read("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 2024\n")
    assert facts.kernel.nvidia_module_version == "550.54.15"
    assert facts.nvml.driver_version is None  # the module, not the user-space driver


def test_dcgmi_discovery_lists_gpus_with_their_bus(read: Read) -> None:
    facts = read(
        "2 GPUs found.\n"
        "+--------+----------------------------------------------------------------------+\n"
        "| GPU ID | Device Information                                                   |\n"
        "+--------+----------------------------------------------------------------------+\n"
        "| 0      | Name: NVIDIA A100-SXM4-40GB                                          |\n"
        "|        | PCI Bus ID: 00000000:07:00.0                                         |\n"
        "|        | Device UUID: GPU-1d4b6f8a-2c3e-4f5a-6b7c-8d9e0f1a2b3c                |\n"
        "+--------+----------------------------------------------------------------------+\n"
        "| 1      | Name: NVIDIA A100-SXM4-40GB                                          |\n"
        "|        | PCI Bus ID: 00000000:0F:00.0                                         |\n"
        "|        | Device UUID: GPU-2e5c7a9b-3d4f-5a6b-7c8d-9e0f1a2b3c4d                |\n"
        "+--------+----------------------------------------------------------------------+\n"
    )
    assert [(g.index, g.pci_bus_id, g.compute_capability) for g in facts.nvml.gpus] == [
        (0, "0000:07:00.0", "8.0"),
        (1, "0000:0f:00.0", "8.0"),
    ]


def test_dcgmi_diag_metadata(read: Read) -> None:
    facts = read(
        "|-----  Metadata  ----------+------------------------------------------------|\n"
        "| DCGM Version              | 3.3.5                                          |\n"
        "| Driver Version Detected   | 535.161.08                                     |\n"
        "| GPU Device IDs Detected   | 20b0,20b0                                      |\n"
    )
    assert facts.nvml.driver_version == "535.161.08"
    assert any("DCGM 3.3.5" in n for n in facts.report.notes)


def test_a_markdown_table_row_is_not_dcgmi(read: Read) -> None:
    facts = read("| Driver Version Detected | unknown |\n| CUDA | 12.4 |\ndriver 550.54.15\n")
    assert facts.nvml.driver_version == "550.54.15"  # the prose rule, not the table row
    assert not any("DCGM" in n for n in facts.report.notes)


_TOPO = (
    "\tGPU0\tGPU1\tGPU2\tGPU3\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
    "GPU0\t X \tNV12\tNV12\tNV12\tSYS\t0-63\t0\t\tN/A\n"
    "GPU1\tNV12\t X \tNV12\tNV12\tSYS\t0-63\t0\t\tN/A\n"
    "GPU2\tNV12\tNV12\t X \tNV12\tSYS\t64-127\t1\t\tN/A\n"
    "GPU3\tNV12\tNV12\tNV12\t X \tSYS\t64-127\t1\t\tN/A\n"
    "NIC0\tSYS\tSYS\tSYS\tSYS\t X \n\nLegend:\n\n  X    = Self\n"
)


def test_topo_matrix_gives_the_gpu_count_and_link_kinds(read: Read) -> None:
    facts = read(_TOPO)
    assert facts.nvml.device_count == 4
    assert any("4 GPUs, linked by NVLink (NV12)" in n for n in facts.report.notes)
    pcie = read(
        "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\n"
        "GPU0\t X \tPHB\t0-11\t0\nGPU1\tPHB\t X \t0-11\t0\n"
    )
    assert pcie.nvml.device_count == 2
    assert any("no NVLink; PCIe/system paths PHB" in n for n in pcie.report.notes)


def test_a_sentence_starting_with_gpu0_is_not_a_topology(read: Read) -> None:
    facts = read("GPU0 is stuck, see the CPU Affinity column; driver 550.54.15\n")
    assert facts.nvml.device_count is None
    assert not any("topo" in n for n in facts.report.notes)


def test_nvidia_ctk_cdi_list(read: Read) -> None:
    facts = read(
        "$ nvidia-ctk cdi list\nINFO[0000] Found 3 CDI devices\n"
        "nvidia.com/gpu=0\nnvidia.com/gpu=GPU-3f2c8a1e-5b6d-7e8f-9a0b-1c2d3e4f5a6b\n"
        "nvidia.com/gpu=all\n"
    )
    assert facts.container_runtime.cdi_nvidia_devices == (
        "nvidia.com/gpu=0",
        "nvidia.com/gpu=GPU-3f2c8a1e-5b6d-7e8f-9a0b-1c2d3e4f5a6b",
        "nvidia.com/gpu=all",
    )
    assert facts.platform.kubernetes is None  # CDI device names are not Kubernetes


def test_a_docker_run_naming_a_cdi_device_is_not_a_spec_listing(read: Read) -> None:
    facts = read("docker run --device nvidia.com/gpu=all ubuntu nvidia-smi  # driver 550.54.15\n")
    assert facts.container_runtime.cdi_nvidia_devices == ()


def test_compute_mode_and_clock_event_reasons_of_nvidia_smi_q(read: Read) -> None:
    facts = read(
        "==============NVSMI LOG==============\n\n"
        "Driver Version                            : 535.129.03\n"
        "CUDA Version                              : 12.2\n\n"
        "Attached GPUs                             : 2\n"
        "GPU 00000000:07:00.0\n"
        "    Compute Mode                          : Exclusive_Process\n"
        "    Clocks Event Reasons\n"
        "        Idle                              : Not Active\n"
        "        SW Power Cap                      : Not Active\n"
        "        HW Slowdown                       : Active\n"
        "            HW Thermal Slowdown           : Active\n"
        "            HW Power Brake Slowdown       : Not Active\n"
        "        SW Thermal Slowdown               : Not Active\n"
        "GPU 00000000:0F:00.0\n"
        "    Compute Mode                          : Default\n"
        "    Clocks Throttle Reasons\n"
        "        Idle                              : Active\n"
        "        HW Slowdown                       : Not Active\n"
    )
    first, second = facts.nvml.gpus
    assert first.clock_event_reasons == ("hw_slowdown", "hw_thermal_slowdown")
    assert second.clock_event_reasons == ("gpu_idle",)
    assert [n for n in facts.report.notes if "compute mode" in n] == [
        "a GPU's compute mode is Exclusive_Process: one process at a time may hold a CUDA "
        "context on it"
    ]


def test_reasons_all_not_active_are_an_empty_tuple_not_unknown(read: Read) -> None:
    facts = read(
        "==============NVSMI LOG==============\nDriver Version : 535.129.03\n"
        "GPU 00000000:07:00.0\n    Clocks Event Reasons\n        Idle : Not Active\n"
        "        HW Slowdown : Not Active\n    Compute Mode : Default\n"
    )
    assert facts.nvml.gpus[0].clock_event_reasons == ()
    assert not any("compute mode" in n for n in facts.report.notes)


def test_os_release(read: Read) -> None:
    facts = read(
        'NAME="SLES"\nVERSION="15-SP5"\nVERSION_ID="15.5"\n'
        'PRETTY_NAME="SUSE Linux Enterprise Server 15 SP5"\nID="sles"\nID_LIKE="suse"\n'
    )
    platform = facts.platform
    assert (platform.os_id, platform.os_version) == ("sles", "15.5")
    assert platform.os_pretty == "SUSE Linux Enterprise Server 15 SP5"


def test_an_id_assignment_in_a_script_is_not_os_release(read: Read) -> None:
    facts = read("ID=$(id -u)\nID=ubuntu\ndriver 550.54.15\n")
    assert facts.platform.os_id is None


def test_hostnamectl(read: Read) -> None:
    facts = read(
        " Static hostname: gpu01\n       Icon name: computer-vm\n         Chassis: vm\n"
        "  Virtualization: kvm\nOperating System: Ubuntu 22.04.4 LTS\n"
        "          Kernel: Linux 6.5.0-1017-aws\n    Architecture: arm64\n"
        " Hardware Vendor: Amazon EC2\n  Hardware Model: g5g.xlarge\n"
    )
    p = facts.platform
    assert (p.virtualization, p.machine, p.dmi_vendor, p.dmi_product) == (
        "kvm",
        "aarch64",
        "Amazon EC2",
        "g5g.xlarge",
    )
    assert (p.os_id, facts.kernel.release) == ("ubuntu", "6.5.0-1017-aws")


def test_lscpu_virtualization_is_a_cpu_feature_not_a_hypervisor(read: Read) -> None:
    facts = read("Architecture:        x86_64\nVirtualization:      VT-x\n")
    assert facts.platform.machine == "x86_64"
    assert facts.platform.virtualization is None


def test_proc_cmdline(read: Read) -> None:
    facts = read(
        "$ cat /proc/cmdline\nBOOT_IMAGE=/boot/vmlinuz-5.15.0-97-generic "
        "root=UUID=1b2c3d4e-5f6a-7b8c-9d0e-1f2a3b4c5d6e ro quiet splash intel_iommu=on "
        "iommu=pt rd.driver.blacklist=nouveau\n"
    )
    assert facts.platform.iommu.cmdline_flags == ("intel_iommu=on", "iommu=pt")
    assert facts.kernel.nouveau_blacklisted is True
    plain = read("root=/dev/nvme0n1p2 rw quiet\n")
    assert plain.kernel.cmdline == "root=/dev/nvme0n1p2 rw quiet"
    assert plain.kernel.nouveau_blacklisted is None  # not shown is not "not blacklisted"


def test_prose_about_kernel_parameters_is_not_a_command_line(read: Read) -> None:
    facts = read("I set root=/dev/sda1 ro and iommu=pt in grub, driver 550.54.15, still broken.\n")
    assert facts.kernel.cmdline is None
    assert facts.platform.iommu.cmdline_flags == ()


def test_mokutil_secure_boot(read: Read) -> None:
    facts = read("$ mokutil --sb-state\nSecureBoot enabled\n")
    assert any(n.startswith("Secure Boot is enabled") for n in facts.report.notes)
    with pytest.raises(FactsError):
        read("SecureBoot validation is disabled in shim\n")


def test_docker_version_reads_the_server_engine(read: Read) -> None:
    facts = read(
        "Client: Docker Engine - Community\n Version:           25.0.1\n"
        " API version:       1.44\n\nServer: Docker Engine - Community\n Engine:\n"
        "  Version:          24.0.7\n  API version:      1.43 (minimum version 1.12)\n"
        " containerd:\n  Version:          1.6.25\n"
    )
    assert facts.container_runtime.docker_version == "24.0.7"
    assert facts.container_runtime.docker_reachable is True


def test_a_docker_client_without_its_daemon_has_no_server_version(read: Read) -> None:
    facts = read(
        "Client: Docker Engine - Community\n Version:           24.0.7\n"
        "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. "
        "Is the docker daemon running?\n"
    )
    assert facts.container_runtime.docker_version is None
    assert "the Docker client is 24.0.7" in facts.report.notes


def test_docker_info_server_version_and_cgroups(read: Read) -> None:
    facts = read(
        "Server:\n Containers: 3\n Server Version: 24.0.7\n Storage Driver: overlay2\n"
        " Cgroup Driver: systemd\n Cgroup Version: 2\n"
        " Runtimes: io.containerd.runc.v2 nvidia runc\n Default Runtime: runc\n"
    )
    runtime = facts.container_runtime
    assert runtime.docker_version == "24.0.7"
    assert (runtime.devices.cgroup_version, runtime.devices.docker_cgroup_driver) == (2, "systemd")
    assert runtime.runtimes == ("io.containerd.runc.v2", "nvidia", "runc")


def test_a_cgroup_driver_that_is_no_driver_is_not_read(read: Read) -> None:
    facts = read(" Cgroup Driver: none\n Cgroup Version: 3\n Server Version: 24.0.7\n")
    assert facts.container_runtime.devices.docker_cgroup_driver is None
    assert facts.container_runtime.devices.cgroup_version is None


def test_podman_info_cgroup_version(read: Read) -> None:
    facts = read(
        "host:\n  arch: amd64\n  cgroupManager: systemd\n  cgroupVersion: v2\n"
        '  distribution:\n    distribution: rhel\n    version: "9.4"\n'
        "  kernel: 5.14.0-427.13.1.el9_4.x86_64\n"
    )
    assert facts.container_runtime.devices.cgroup_version == 2
    assert (facts.platform.os_id, facts.platform.os_version) == ("rhel", "9.4")
    with pytest.raises(FactsError):  # not indented under host: not podman info
        read("cgroupVersion: v2\n")


_CRICTL = """{
  "config": {
    "containerd": {
      "snapshotter": "overlayfs",
      "defaultRuntimeName": "nvidia",
      "runtimes": {
        "nvidia": {"runtimeType": "io.containerd.runc.v2",
                   "options": {"BinaryName": "/usr/bin/nvidia-container-runtime"}},
        "runc": {"runtimeType": "io.containerd.runc.v2"}
      }
    },
    "enableCDI": true
  }
}
"""


def test_crictl_info_runtimes(read: Read) -> None:
    facts = read("$ sudo crictl info\n" + _CRICTL)
    runtime = facts.container_runtime
    assert (runtime.cri_engine, runtime.cri_default_runtime) == ("containerd", "nvidia")
    assert runtime.cri_runtimes == ("nvidia", "runc")
    assert facts.platform.kubernetes is True


def test_a_json_without_containerd_config_is_not_crictl_info(read: Read) -> None:
    with pytest.raises(FactsError):
        read('{"defaultRuntimeName": "nvidia", "other": {}}\n')


_NODE = """Name:               gpu-node-1
Labels:             beta.kubernetes.io/arch=amd64
                    nvidia.com/cuda.driver.major=535
                    nvidia.com/cuda.driver.minor=129
                    nvidia.com/cuda.driver.rev=03
                    nvidia.com/cuda.runtime.major=12
                    nvidia.com/cuda.runtime.minor=2
                    nvidia.com/gpu.compute.major=8
                    nvidia.com/gpu.compute.minor=0
                    nvidia.com/gpu.count=4
                    nvidia.com/gpu.memory=81920
                    nvidia.com/gpu.product=NVIDIA-A100-SXM4-80GB
Capacity:
  nvidia.com/gpu:     4
Allocatable:
  nvidia.com/gpu:     4
System Info:
  Kernel Version:             5.15.0-97-generic
  OS Image:                   Ubuntu 22.04.4 LTS
  Architecture:               amd64
  Container Runtime Version:  containerd://1.7.2
  Kubelet Version:            v1.28.4
"""


def test_kubectl_describe_node(read: Read) -> None:
    facts = read(_NODE)
    assert facts.nvml.driver_version == "535.129.03"
    assert [(g.name, g.compute_capability, g.memory_total_bytes) for g in facts.nvml.gpus] == [
        ("NVIDIA A100 SXM4 80GB", "8.0", 81920 << 20)
    ] * 4
    assert (facts.kernel.release, facts.platform.machine) == ("5.15.0-97-generic", "x86_64")
    assert (facts.platform.os_id, facts.platform.os_version) == ("ubuntu", "22.04")
    assert facts.container_runtime.cri_engine == "containerd"
    assert any("CUDA 12.2" in n for n in facts.report.notes)
    assert "the node advertises nvidia.com/gpu: capacity 4, allocatable 4" in facts.report.notes


def test_a_pod_asking_for_a_gpu_names_no_driver_and_no_gpu_model(read: Read) -> None:
    facts = read("resources:\n  limits:\n    nvidia.com/gpu: 1\n")
    assert facts.platform.kubernetes is True
    assert facts.nvml.driver_version is None
    assert facts.nvml.gpus == ()


def test_kubectl_get_pods_names_the_nvidia_pods_not_running(read: Read) -> None:
    facts = read(
        "NAME                                      READY   STATUS             RESTARTS   AGE\n"
        "gpu-operator-7fb75556c7-x8spj             1/1     Running            0          12m\n"
        "nvidia-device-plugin-daemonset-6gkkm      0/1     Init:0/1           0          12m\n"
        "nvidia-driver-daemonset-r8gq4             0/1     CrashLoopBackOff   7          12m\n"
        "nvidia-cuda-validator-zc8rr               0/1     Completed          0          11m\n"
    )
    assert facts.platform.kubernetes is True
    assert (
        "NVIDIA pods not running: nvidia-device-plugin-daemonset-6gkkm: Init:0/1; "
        "nvidia-driver-daemonset-r8gq4: CrashLoopBackOff"
    ) in facts.report.notes
    healthy = read(
        "NAMESPACE      NAME                                   READY   STATUS    RESTARTS   AGE\n"
        "gpu-operator   nvidia-device-plugin-daemonset-x2   1/1     Running   0          1d\n"
    )
    assert "the NVIDIA pods listed are all Running or Completed" in healthy.report.notes


def test_pods_of_other_apps_are_not_nvidia_pods(read: Read) -> None:
    facts = read(
        "NAME               READY   STATUS             RESTARTS   AGE\n"
        "my-app-7d9-abcde   0/1     CrashLoopBackOff   3          1m\ndriver 550.54.15\n"
    )
    assert not any("pods" in n for n in facts.report.notes)


def test_slurm_node_gres(read: Read) -> None:
    facts = read(
        "NodeName=gpu01 Arch=x86_64 CoresPerSocket=32\n   Gres=gpu:a100:4(S:0-1)\n"
        "   OS=Linux 5.15.0-97-generic #107-Ubuntu SMP Wed Feb 7 13:26:48 UTC 2024\n"
    )
    assert [g.compute_capability for g in facts.nvml.gpus] == ["8.0"] * 4
    assert (facts.platform.machine, facts.kernel.release) == ("x86_64", "5.15.0-97-generic")
    assert "Slurm: the node is configured with 4 GPU(s) of GRES type a100" in facts.report.notes
    sinfo = read("NODELIST GRES\ngpu[01-04] gpu:8(S:0-1)\n")
    assert "Slurm: the node is configured with 8 GPU(s)" in sinfo.report.notes


def test_a_jobs_gres_request_is_not_the_nodes_gpus(read: Read) -> None:
    facts = read("#SBATCH --gres=gpu:2\nsrun --gres=gpu:2 python train.py  # driver 550.54.15\n")
    assert not any("Slurm" in n for n in facts.report.notes)
    assert facts.nvml.gpus == ()


def test_ibstat_and_ibv_devinfo_ports(read: Read) -> None:
    ibstat = read(
        "CA 'mlx5_0'\n\tCA type: MT4123\n\tNumber of ports: 1\n\tPort 1:\n\t\tState: Down\n"
        "\t\tPhysical state: Disabled\n\t\tRate: 10\n\t\tLink layer: InfiniBand\n"
        "CA 'mlx5_1'\n\tPort 1:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n"
        "\t\tRate: 200\n\t\tLink layer: Ethernet\n"
    )
    assert [
        (p.device, p.port, p.state, p.phys_state, p.rate, p.link_layer)
        for p in ibstat.multigpu.ib_ports
    ] == [
        ("mlx5_0", 1, "DOWN", "Disabled", "10 Gb/sec", "InfiniBand"),
        ("mlx5_1", 1, "ACTIVE", "LinkUp", "200 Gb/sec", "Ethernet"),
    ]
    ibv = read(
        "hca_id:\tmlx5_0\n\ttransport:\t\t\tInfiniBand (0)\n\t\tport:\t1\n"
        "\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n\t\t\tmax_mtu:\t\t4096 (5)\n"
        "\t\t\tphys_state:\t\tLINK_UP (5)\n\t\t\tlink_layer:\t\tInfiniBand\n"
    )
    assert [(p.device, p.state, p.phys_state) for p in ibv.multigpu.ib_ports] == [
        ("mlx5_0", "ACTIVE", "LinkUp")
    ]


def test_a_state_line_without_an_hca_is_no_port(read: Read) -> None:
    with pytest.raises(FactsError):
        read("Port 1:\n  State: Active\n  Rate: 200\n")


def test_conda_list_cuda_libraries(read: Read) -> None:
    facts = read(
        "# Name                    Version                   Build  Channel\n"
        "cudatoolkit               11.8.0               h6a678d5_0\n"
        "cudnn                     8.9.2.26               cuda11_0\n"
        "nccl                      2.18.3.1             h6103f9b_0    conda-forge\n"
        "pytorch                   2.1.0           py3.10_cuda11.8_cudnn8.7.0_0    pytorch\n"
    )
    assert [lib.version for lib in facts.cuda_libs.nccl] == ["2.18.3"]
    assert "cuDNN 8.9.2.26 is installed by conda" in facts.report.notes
    assert any("cudatoolkit 11.8.0" in n for n in facts.report.notes)
    assert (facts.frameworks[0].version, facts.frameworks[0].cuda) == ("2.1.0", "11.8")


def test_library_names_in_prose_are_not_conda_lines(read: Read) -> None:
    facts = read("cudnn 8.9.2 installed fine\ncudatoolkit 11.8 from apt\ndriver 550.54.15\n")
    assert not any("conda" in n for n in facts.report.notes)


def test_conda_env_export(read: Read) -> None:
    facts = read(
        "name: pt\nchannels:\n  - pytorch\n  - nvidia\ndependencies:\n"
        "  - cudatoolkit=11.8.0=h6a678d5_0\n  - pytorch=2.1.0=py3.10_cuda11.8_cudnn8.7.0_0\n"
        "  - pytorch-cuda=11.8=h7e8668a_5\n  - pip:\n    - nvidia-nccl-cu11==2.19.3\n"
    )
    (torch,) = facts.frameworks
    assert (torch.version, torch.cuda) == ("2.1.0", "11.8")
    assert any("cudatoolkit 11.8.0" in n for n in facts.report.notes)


def test_pip_freeze_of_a_wheel_url(read: Read) -> None:
    facts = read(
        "numpy==1.26.3\ntorch @ https://download.pytorch.org/whl/cu121/"
        "torch-2.1.2%2Bcu121-cp310-cp310-linux_x86_64.whl\n"
    )
    (torch,) = facts.frameworks
    assert (torch.version, torch.cuda) == ("2.1.2+cu121", "12.1")


def test_a_source_checkout_has_no_version_to_read(read: Read) -> None:
    facts = read("torch @ git+https://github.com/pytorch/pytorch@main\ndriver 550.54.15\n")
    assert facts.frameworks == ()


def test_rocm_smi_concise_table(read: Read) -> None:
    facts = read(
        "========================== ROCm System Management Interface ==========================\n"
        "==================================== Concise Info ====================================\n"
        "Device  Node  IDs              Temp    Power   Partitions          SCLK    MCLK    Fan\n"
        "              (DID,     GUID)  (Edge)  (Avg)   (Mem, Compute, ID)\n"
        "==========================================================================================\n"
        "0       1     0x74a1,   28851  35.0°C  140.0W  NPS1, SPX, 0        132Mhz  900Mhz  0%\n"
        "1       2     0x74a1,   51138  37.0°C  139.0W  NPS1, SPX, 0        132Mhz  900Mhz  0%\n"
        "================================ End of ROCm SMI Log =================================\n"
    )
    assert [g.device_id for g in facts.amd.pci_gpus] == ["0x74a1", "0x74a1"]
    older = read(
        "======================= ROCm System Management Interface =======================\n"
        "================================= Concise Info =================================\n"
        "GPU  Temp (DieEdge)  AvgPwr  SCLK    MCLK     Fan  Perf  PwrCap  VRAM%  GPU%\n"
        "0    34.0c           13.0W   800Mhz  1600Mhz  0%   auto  203.0W    0%   0%\n"
        "============================= End of ROCm SMI Log ==============================\n"
    )
    assert "rocm-smi lists 1 AMD GPU(s)" in older.report.notes


def test_rocm_smi_with_no_gpu_rows_is_not_read(read: Read) -> None:
    assert no_fact_read(
        read,
        "======== ROCm System Management Interface ========\n"
        "WARNING: No AMD GPUs specified\n======== End of ROCm SMI Log ========\n",
    )


def test_nvidia_smi_vgpu_on_the_host(read: Read) -> None:
    facts = read(
        "+-----------------------------------------------------------------------------+\n"
        "| NVIDIA-SMI 535.129.03             Driver Version: 535.129.03                |\n"
        "|---------------------------------+------------------------------+------------+\n"
        "| GPU  Name                       | Bus-Id                       | GPU-Util   |\n"
        "|      vGPU ID     Name           | VM ID     VM Name            | vGPU-Util  |\n"
        "|=================================+==============================+============|\n"
        "|   0  NVIDIA A100-PCIE-40GB      | 00000000:3B:00.0             |   0%       |\n"
        "|      3251634213  GRID A100-4C   | 2786...   ubuntu-vm-1        |      0%    |\n"
        "+---------------------------------+------------------------------+------------+\n"
    )
    (gpu,) = facts.nvml.gpus
    assert (gpu.name, gpu.pci_bus_id, gpu.virtualization_mode) == (
        "NVIDIA A100-PCIE-40GB",
        "0000:3b:00.0",
        "host_vgpu",
    )


_SMI_TABLE = """\
+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 535.129.03             Driver Version: 535.129.03   CUDA Version: 12.2     |
|-----------------------------------------+----------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |
|=========================================+======================+======================|
|   0  NVIDIA A100-PCIE-40GB          On  | 00000000:3B:00.0 Off |                    0 |
| N/A   32C    P0              35W / 250W |      4MiB / 40960MiB |      0%      Default |
+-----------------------------------------+----------------------+----------------------+
"""


def test_a_plain_nvidia_smi_table_is_not_a_vgpu_host(read: Read) -> None:
    facts = read(_SMI_TABLE)
    assert [g.name for g in facts.nvml.gpus] == ["NVIDIA A100-PCIE-40GB"]
    assert facts.nvml.gpus[0].virtualization_mode is None


def test_proc_driver_gpu_information(read: Read) -> None:
    facts = read(
        "Model: \t\t NVIDIA A100-SXM4-80GB\nIRQ:   \t\t 123\n"
        "GPU UUID: \t GPU-3f2c8a1e-5b6d-7e8f-9a0b-1c2d3e4f5a6b\nVideo BIOS: \t 92.00.45.00.06\n"
        "Bus Type: \t PCIe\nBus Location: \t 0000:07:00.0\nDevice Minor: \t 2\n"
    )
    (gpu,) = facts.nvml.gpus
    assert (gpu.index, gpu.name, gpu.pci_bus_id, gpu.minor_number) == (
        2,
        "NVIDIA A100-SXM4-80GB",
        "0000:07:00.0",
        2,
    )


def test_a_model_line_of_another_tool_is_no_gpu(read: Read) -> None:
    facts = read("Model: Llama-3-8B-Instruct\nDevice Minor: unknown\ndriver 550.54.15\n")
    assert facts.nvml.gpus == ()


def test_nvidia_container_cli_debug_log(read: Read) -> None:
    facts = read(
        "I0312 10:21:43.123456 4321 nvc.c:376] initializing library context (version=1.14.3, "
        "build=1eb5a30a6ad0415550a9df632ac8832bf7e2bbba)\n"
        "I0312 10:21:43.141000 4321 nvc_info.c:173] selecting "
        "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.535.129.03\n"
    )
    assert facts.container_runtime.toolkit_version == "1.14.3"
    assert facts.nvml.library_version == "535.129.03"


def test_a_library_path_outside_the_debug_log_is_not_nvml_read(read: Read) -> None:
    facts = read("ls: /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.535.129.03\ndriver 535.129.03\n")
    assert facts.nvml.library_version is None


def test_cuda_version_json(read: Read) -> None:
    facts = read(
        '{\n   "cuda" : {\n      "name" : "CUDA SDK",\n      "version" : "12.2.2"\n   },\n'
        '   "cuda_cudart" : {\n      "name" : "CUDA Runtime (cudart)",\n'
        '      "version" : "12.2.140"\n   }\n}\n'
    )
    (toolkit,) = facts.cuda_libs.toolkits
    assert toolkit.version == "12.2.2"
    with pytest.raises(FactsError):  # a component's version is not the toolkit's
        read('{ "cuda_cudart" : { "name" : "CUDA Runtime (cudart)", "version" : "12.2.140" } }\n')


def test_a_containers_nvidia_environment(read: Read) -> None:
    facts = read(
        "$ env | grep NVIDIA\nNVIDIA_VISIBLE_DEVICES=all\n"
        "NVIDIA_DRIVER_CAPABILITIES=compute,utility\n"
        "NVIDIA_REQUIRE_CUDA=cuda>=12.2 brand=tesla,driver>=470,driver<471\n"
    )
    p = facts.platform
    assert (p.nvidia_visible_devices, p.nvidia_driver_capabilities) == ("all", "compute,utility")
    assert "the image was built for CUDA 12.2 (NVIDIA_REQUIRE_CUDA)" in facts.report.notes


@pytest.mark.parametrize("value", ["void", "none", ""])
def test_a_pasted_container_environment_that_passes_no_gpu_is_judged(
    read: Read, matrix: Matrix, value: str
) -> None:
    """`kubectl exec POD -- env` showing NVIDIA_VISIBLE_DEVICES=void (or none, or empty): the
    NVIDIA runtime gives that container no GPU; the paste does not say it ran in a container,
    but only a container's environment holds the variable the runtime reads."""
    text = (
        f"$ kubectl exec -it gpu-pod -- env | grep NVIDIA\nNVIDIA_VISIBLE_DEVICES={value}\n"
        "NVIDIA_DRIVER_CAPABILITIES=compute,utility\n"
    )
    shown = [f for f in findings_of(read, matrix, text) if f.code == "container-gpus"]
    assert [f.severity for f in shown] == [Severity.WARN]
    assert f"NVIDIA_VISIBLE_DEVICES is {value!r}" in shown[0].title
    # near miss: a container given every GPU
    kept = findings_of(read, matrix, text.replace(f"DEVICES={value}", "DEVICES=all"))
    assert [f.severity for f in kept if f.code == "container-gpus"] == [Severity.OK]


def test_prose_about_nvidia_visible_devices_sets_nothing(read: Read) -> None:
    facts = read("Set NVIDIA_VISIBLE_DEVICES to all, driver 550.54.15\n")
    assert facts.platform.nvidia_visible_devices is None


def test_nvidia_smi_l_lists_mig_devices_under_their_gpu(read: Read) -> None:
    facts = read(
        "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-5d5ba0d6-d33d-2b2c-524d-9e3d8d2b8a90)\n"
        "  MIG 3g.20gb     Device  0: (UUID: MIG-64ad1d48-8c3e-5b6f-9a1b-2c3d4e5f6a7b)\n"
        "  MIG 2g.10gb     Device  1: (UUID: MIG-75be2e59-9d4f-6c70-ab2c-3d4e5f6a7b8c)\n"
        "GPU 1: NVIDIA A100-SXM4-40GB (UUID: GPU-6e6cb1e7-e44e-3c3d-635e-af4e9e3c9ba1)\n"
    )
    first, second = facts.nvml.gpus
    assert first.mig_mode_current is True
    assert [(m.index, m.name) for m in first.mig_devices] == [
        (0, "NVIDIA A100-SXM4-40GB MIG 3g.20gb"),
        (1, "NVIDIA A100-SXM4-40GB MIG 2g.10gb"),
    ]
    assert (second.mig_mode_current, second.mig_devices) == (None, ())


def test_a_mig_uuid_in_prose_makes_no_mig_device(read: Read) -> None:
    facts = read(
        "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-5d5ba0d6-d33d-2b2c-524d-9e3d8d2b8a90)\n"
        "I set CUDA_VISIBLE_DEVICES to (UUID: MIG-64ad1d48-8c3e-5b6f-9a1b-2c3d4e5f6a7b)\n"
    )
    assert facts.nvml.gpus[0].mig_devices == ()


def test_nvidia_smi_nvlink_status(read: Read) -> None:
    facts = read(
        "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-3f2c8a1e-5b6d-7e8f-9a0b-1c2d3e4f5a6b)\n"
        "\t Link 0: 26.562 GB/s\n\t Link 1: 26.562 GB/s\n\t Link 2: <inactive>\n"
        "GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-4a3d9b2f-6c7e-8f9a-0b1c-2d3e4f5a6b7c)\n"
        "\t Link 0: 26.562 GB/s\n\t Link 1: 26.562 GB/s\n\t Link 2: 26.562 GB/s\n"
    )
    assert [[(n.link, n.active) for n in g.nvlinks] for g in facts.nvml.gpus] == [
        [(0, True), (1, True), (2, False)],
        [(0, True), (1, True), (2, True)],
    ]


def test_link_lines_of_another_tool_are_not_nvlinks(read: Read) -> None:
    facts = read(
        "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-3f2c8a1e-5b6d-7e8f-9a0b-1c2d3e4f5a6b)\n"
        "2: eth0: <BROADCAST,MULTICAST,UP> mtu 1500\n    Link 0: detected (ethtool)\n"
    )
    assert facts.nvml.gpus[0].nvlinks == ()


def test_a_long_logs_head_is_read_for_tool_outputs(read: Read) -> None:
    head = " Server Version: 24.0.7\n Cgroup Version: 2\n"
    facts = read(head + "2025-01-01 10:00:00 INFO step 1 loss=0.5\n" * 80_000)
    assert facts.container_runtime.docker_version == "24.0.7"
    assert facts.container_runtime.devices.cgroup_version == 2


@pytest.mark.parametrize(
    ("line", "os_id", "version"),
    [
        ("Rocky Linux release 9.3 (Blue Onyx)", "rocky", "9.3"),
        ("CentOS Linux release 7.9.2009 (Core)", "centos", "7"),
        ("AlmaLinux release 9.3 (Shamrock Pampas Cat)", "almalinux", "9.3"),
        ("Fedora release 39 (Thirty Nine)", "fedora", "39"),
        ("SUSE Linux Enterprise Server 15 SP5", "sles", "15"),
        ("openSUSE Leap 15.5", "opensuse", "15.5"),
    ],
)
def test_release_files_name_the_os(read: Read, line: str, os_id: str, version: str) -> None:
    facts = read(f"$ cat /etc/*-release\n{line}\n")
    assert (facts.platform.os_id, facts.platform.os_version) == (os_id, version)


def test_a_hat_is_not_an_os(read: Read) -> None:
    facts = read("I wear a fedora 12 hours a day; driver 550.54.15\n")
    assert facts.platform.os_id is None


def test_the_tool_patterns_pass_the_backtracking_check() -> None:
    from gpudoctor.pasted import (
        cluster,
        engines,
        host_tools,
        ib,
        lines,
        nv_tools,
        packages,
        rocm_smi_table,
    )

    modules = (cluster, engines, host_tools, ib, lines, nv_tools, packages, rocm_smi_table)
    for module in modules:
        for name, value in vars(module).items():
            if isinstance(value, re.Pattern):
                assert problem(value.pattern) is None, f"{module.__name__}.{name}"
