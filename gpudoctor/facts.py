"""HostFacts: the frozen, serializable snapshot of one host that every check reads.

Probes fill it; checks read it; `gpudoctor snapshot` writes it and `check --from` replays it.
Unknown values are `None` plus a `ProbeIssue` naming the probe, the field and why, never a
sentinel string. Every field has a default so that a snapshot written by an older gpudoctor
(with fewer fields) still loads (see facts_json.py for the schema-version rules).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpudoctor.facts_amd import AmdFacts
from gpudoctor.facts_multigpu import (
    FabricFacts,
    GpuPairFacts,
    MultiGpuFacts,
    NvLinkFacts,
)
from gpudoctor.frozen import Frozen

# 2: FrameworkFacts.companions (torchvision, torchaudio). Older snapshots load with defaults.
SCHEMA_VERSION = 2


@dataclass(frozen=True, eq=False, repr=False)
class ProbeIssue(Frozen):
    """Something a probe could not read; `code` is stable kebab-case (`nvml-library-not-found`)."""

    probe: str
    field: str
    code: str
    reason: str


# --- NVML ---------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False, repr=False)
class MigDevice(Frozen):
    index: int
    uuid: str | None = None
    name: str | None = None
    gpu_instance_id: int | None = None
    compute_instance_id: int | None = None
    memory_total_bytes: int | None = None
    multiprocessor_count: int | None = None


@dataclass(frozen=True, eq=False, repr=False)
class GpuFacts(Frozen):
    """One physical GPU as NVML sees it; `lost=True` marks a placeholder for a GPU NVML lost."""

    index: int
    name: str | None = None
    uuid: str | None = None
    serial: str | None = None
    pci_bus_id: str | None = None  # sysfs form, lower case: "0000:3b:00.0"
    pci_device_id: str | None = None  # "0x2330"
    memory_total_bytes: int | None = None
    compute_capability: str | None = None  # "9.0"
    architecture: str | None = None  # lower case NVML name: "ampere", "hopper", "blackwell"
    brand: str | None = None
    minor_number: int | None = None  # /dev/nvidiaN
    mig_mode_current: bool | None = None
    mig_mode_pending: bool | None = None
    mig_devices: tuple[MigDevice, ...] = ()
    ecc_mode_current: bool | None = None
    ecc_mode_pending: bool | None = None
    ecc_uncorrected_volatile: int | None = None
    retired_pages_pending: bool | None = None
    retired_pages_count: int | None = None
    remapped_rows_pending: bool | None = None
    remapped_rows_failure: bool | None = None
    persistence_mode: bool | None = None
    pcie_link_gen_current: int | None = None
    pcie_link_gen_max: int | None = None
    pcie_link_width_current: int | None = None
    pcie_link_width_max: int | None = None
    # Names of active clock-event (throttle) reasons: gpu_idle, applications_clocks_setting,
    # sw_power_cap, hw_slowdown, sync_boost, sw_thermal_slowdown, hw_thermal_slowdown,
    # hw_power_brake_slowdown, display_clock_setting. None = could not read.
    clock_event_reasons: tuple[str, ...] | None = None
    # "none" (bare metal), "passthrough", "vgpu" (vGPU guest), "host_vgpu", "host_vsga"
    virtualization_mode: str | None = None
    temperature_c: int | None = None
    power_usage_w: float | None = None
    power_limit_w: float | None = None
    addressing_mode: str | None = None  # "ats" (coherent NVLink-C2C), "hmm", "none"
    lost: bool = False
    error: str | None = None  # why the record is a placeholder, when lost
    # Readings NVML answered with an error on a GPU it still answers (nvidia-smi prints "ERR!"
    # or "[Unknown Error]" for them): "fan speed", "temperature", "power draw"...
    failed_readings: tuple[str, ...] = ()
    nvlinks: tuple[NvLinkFacts, ...] = ()  # links the GPU reports (none on PCIe-only GPUs)
    fabric: FabricFacts | None = None  # None: the driver has no fabric call for this GPU
    vgpu_license: VgpuLicense | None = None  # None: no licensing reported (bare metal, unread)


@dataclass(frozen=True, eq=False, repr=False)
class VgpuLicense(Frozen):
    """A vGPU guest's licence: NVML's licensable features (nvmlDeviceGetGridLicensableFeatures)
    or the "vGPU Software Licensed Product" block of `nvidia-smi -q` / `-q -x`."""

    # "licensed", "unlicensed", "unlicensed_restricted" (throttled), "unlicensed_unrestricted"
    # (still at full capability), "unknown" (supported, state unreadable)
    state: str = "unknown"
    product: str | None = None  # "NVIDIA Virtual Compute Server"
    expiry: str | None = None  # ISO 8601 UTC "2026-07-07T16:01:44Z", "permanent", None = unknown


@dataclass(frozen=True, eq=False, repr=False)
class NvmlFacts(Frozen):
    """What NVML said. `status` classifies init: ok, library_not_found, driver_not_loaded,
    lib_rm_version_mismatch, no_permission, unknown, or not_run (probe skipped)."""

    status: str = "not_run"
    error: str | None = None
    library_path: str | None = None  # resolved libnvidia-ml.so.1
    library_version: str | None = None  # from the resolved file name, "550.90.07"
    bindings_package: str | None = None  # "nvidia-ml-py" or "pynvml" (the unofficial one)
    bindings_version: str | None = None
    bindings_shadowed: bool | None = None  # unofficial pynvml shadows nvidia-ml-py
    driver_version: str | None = None
    cuda_driver_version: str | None = None  # "12.4", what the driver supports
    nvml_version: str | None = None
    device_count: int | None = None
    gpus: tuple[GpuFacts, ...] = ()
    functions_not_found: tuple[str, ...] = ()  # bindings newer than the driver
    pairs: tuple[GpuPairFacts, ...] = ()  # every GPU pair: topology level and P2P status


# --- kernel, PCI, platform ----------------------------------------------------------------------


@dataclass(frozen=True, eq=False, repr=False)
class PciDevice(Frozen):
    address: str  # "0000:3b:00.0"
    vendor_id: str  # "0x10de"
    device_id: str | None = None
    class_code: str | None = None  # "0x030200"
    kind: str = "other"  # gpu, nvswitch, audio, other
    driver: str | None = (
        None  # basename of the driver symlink: nvidia, nouveau, vfio-pci; None = unbound
    )
    iommu_group: int | None = None
    numa_node: int | None = None
    link_gen_current: int | None = None
    link_gen_max: int | None = None
    link_width_current: int | None = None
    link_width_max: int | None = None
    sriov_totalvfs: int | None = None
    sriov_numvfs: int | None = None
    is_virtual_function: bool = False
    # A vGPU guest's PCI vendor capability names the host's vGPU Manager (as NVIDIA's GPU
    # feature discovery reads it): "580.65.05", "R580"; None when absent or unreadable.
    vgpu_host_driver_version: str | None = None
    vgpu_host_driver_branch: str | None = None


@dataclass(frozen=True, eq=False, repr=False)
class DeviceNode(Frozen):
    path: str  # "/dev/nvidia0"
    readable: bool | None = None
    writable: bool | None = None


@dataclass(frozen=True, eq=False, repr=False)
class VgpuClientFacts(Frozen):
    """The vGPU licence client of a guest (NVIDIA Virtual GPU Client Licensing User Guide):
    the nvidia-gridd service, its client configuration tokens and its configuration file."""

    gridd: str | None = None  # path of the nvidia-gridd binary or unit found; "" = none
    tokens: int | None = None  # *.tok files in /etc/nvidia/ClientConfigToken; None = unreadable
    gridd_conf: bool | None = None  # /etc/nvidia/gridd.conf exists


@dataclass(frozen=True, eq=False, repr=False)
class KernelFacts(Frozen):
    release: str | None = None  # uname -r
    cmdline: str | None = None  # /proc/cmdline
    nvidia_module_version: str | None = None  # loaded kernel module (/proc/driver/nvidia/version)
    nvidia_module_flavor: str | None = None  # "open" or "proprietary"
    modules_loaded: tuple[str, ...] = ()  # of interest: nvidia, nvidia_uvm, nvidia_modeset, ...
    nouveau_blacklisted: bool | None = None
    # Peer-memory clients registered with the RDMA stack (/sys/kernel/mm/memory_peers: "nv_mem"
    # when nvidia-peermem registers through it); None: not probed.
    peer_memory_clients: tuple[str, ...] | None = None
    # The kernels DKMS has built and installed the nvidia module for (`dkms status`: "nvidia/
    # 535.129.03, 6.5.0-14-generic, x86_64: installed"); None: not read.
    nvidia_dkms_kernels: tuple[str, ...] | None = None
    device_nodes: tuple[DeviceNode, ...] = ()
    pci_devices: tuple[PciDevice, ...] = ()


@dataclass(frozen=True, eq=False, repr=False)
class IommuFacts(Frozen):
    enabled: bool | None = None  # /sys/class/iommu non-empty
    vendor: str | None = None  # "intel" (dmar), "amd" (ivhd), other
    group_count: int | None = None
    default_domain: str | None = None  # identity, DMA, DMA-FQ
    cmdline_flags: tuple[
        str, ...
    ] = ()  # intel_iommu=..., amd_iommu=..., iommu=..., iommu.passthrough=...


@dataclass(frozen=True, eq=False, repr=False)
class NumaNode(Frozen):
    node: int  # /sys/devices/system/node/nodeN
    cpus: int  # CPUs in its cpulist; 0 on a memory-only node
    memory_total_bytes: int | None = None  # its meminfo MemTotal


@dataclass(frozen=True, eq=False, repr=False)
class CpuFacts(Frozen):
    """The CPU and the NUMA layout of memory. On coherent NVLink-C2C systems (GH200, GB200) the
    GPU's memory is onlined to the OS as NUMA nodes with memory and no CPUs."""

    model: str | None = None  # "Neoverse-V2" (Arm part name), or x86 "model name"
    implementer: str | None = None  # Arm MIDR implementer: "0x41" (Arm), "0x4e" (NVIDIA)
    parts: tuple[str, ...] = ()  # Arm MIDR part numbers seen: ("0xd4f",)
    numa_nodes: tuple[NumaNode, ...] = ()
    # True: CPU-less NUMA nodes hold memory (GPU memory the CPU addresses coherently); None: no
    # such node seen (not False: a driver may keep GPU memory off the OS's NUMA nodes).
    gpu_memory_coherent: bool | None = None


@dataclass(frozen=True, eq=False, repr=False)
class K8sItem(Frozen):
    """One name and its value in a pasted Kubernetes object: a resource and its count
    ("nvidia.com/gpu.shared", "40"), a label ("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"),
    a node selector term (its key and the values it accepts, "," between them; "*": the key
    must exist)."""

    name: str
    value: str


@dataclass(frozen=True, eq=False, repr=False)
class K8sDaemonSet(Frozen):
    """One row of a pasted `kubectl get daemonsets` of the NVIDIA GPU stack (the GPU Operator's
    operands, the device plugin, GPU feature discovery, NFD's worker): the pods it should run
    (one per node its selector matches), those ready and those available."""

    name: str  # "nvidia-device-plugin-daemonset"
    desired: int
    ready: int
    available: int
    node_selector: str = ""  # "nvidia.com/gpu.deploy.device-plugin=true"; "" not shown


@dataclass(frozen=True, eq=False, repr=False)
class PlatformFacts(Frozen):
    os_id: str | None = None  # /etc/os-release ID
    os_version: str | None = None
    os_pretty: str | None = None
    machine: str | None = None  # x86_64, aarch64
    python_version: str | None = None
    hostname: str | None = None  # redacted (None) unless --no-redact
    virtualization: str | None = None  # "none", "kvm", "vmware", "microsoft", "xen", "amazon", ...
    hypervisor_flag: bool | None = None  # cpuinfo "hypervisor"
    dmi_vendor: str | None = None
    dmi_product: str | None = None
    wsl: bool | None = None
    container: str | None = None  # "docker", "podman", "containerd", "lxc", None = not in one
    kubernetes: bool | None = None
    # nvidia.com/gpu a pasted pod asks for (its Limits/Requests; the largest of its containers)
    k8s_gpu_requested: int | None = None
    # The text says several pods share one GPU ("sharing a single GPU across multiple pods"):
    # pods that then ask for no nvidia.com/gpu rely on NVIDIA_VISIBLE_DEVICES to see it
    # (checks/k8s_unrequested.py).
    k8s_gpu_shared_said: bool | None = None
    # A pasted pod spec (YAML) whose container names an nvidia.com/ resource under `requests`:
    # that resource, its request, and its limit in the same container (None: no limit given).
    # Kubernetes takes an extended resource's request from its limit; both must be equal.
    # GPUs nvidia-smi listed where the paste shows it run inside a pod (`kubectl exec POD --
    # nvidia-smi`, its -L or --query-gpu form; the most of such runs): the pod's own view.
    k8s_exec_gpus: int | None = None
    k8s_gpu_spec_resource: str | None = None
    k8s_gpu_spec_requests: int | None = None
    k8s_gpu_spec_limits: int | None = None
    # Pasted Kubernetes objects read as objects (pasted/k8s_objects.py: `kubectl describe
    # node`, `get node -o yaml` / `-o json`, the status maps printed alone, custom-columns):
    # the extended resources (names with a "/") a node lists under Allocatable and under
    # Capacity, the one home of what a node advertises. The kubelet counts every device a plugin
    # registered in Capacity and only the healthy ones in Allocatable. A block that lists the
    # node's resources (cpu, pods) and no GPU device plugin's holds ("nvidia.com/gpu", "0").
    # The live probe does not ask the API server. Also the nvidia.com/ labels the node carries,
    # the extended resources a pod's containers ask for in their limits (the largest of its
    # containers) and the nvidia.com/ labels its nodeSelector and required node affinity name.
    k8s_node_allocatable: tuple[K8sItem, ...] = ()
    k8s_node_capacity: tuple[K8sItem, ...] = ()
    k8s_node_labels: tuple[K8sItem, ...] = ()
    k8s_pod_resources: tuple[K8sItem, ...] = ()
    k8s_pod_selector: tuple[K8sItem, ...] = ()
    # The NVIDIA device plugin's config file (its ConfigMap: version v1): the sharing it sets
    # ("time-slicing" or "mps"), renameByDefault, failRequestsGreaterThanOne, each shared
    # resource with its replicas, and its flags' migStrategy (else GFD's nvidia.com/mig.strategy)
    k8s_sharing: str | None = None
    k8s_sharing_rename: bool | None = None
    k8s_sharing_fail_over_one: bool | None = None
    k8s_sharing_resources: tuple[K8sItem, ...] = ()
    k8s_mig_strategy: str | None = None
    # The NVIDIA stack's DaemonSets a pasted `kubectl get ds` lists (checks/k8s_nodes.py), and
    # whether the text says the device plugin (or GFD) crash-loops ("nvidia-device-plugin
    # container crash loop", or its pod's CrashLoopBackOff row)
    k8s_daemonsets: tuple[K8sDaemonSet, ...] = ()
    k8s_plugin_crashing: bool | None = None
    # `kubectl get nodes --show-labels` rows of nodes with nvidia.com/gpu labels whose STATUS is
    # not plain Ready: the node's name and its STATUS ("NotReady", "Ready,SchedulingDisabled")
    k8s_gpu_node_states: tuple[K8sItem, ...] = ()
    # A KubeRay group's rayStartParams num-gpus and the nvidia.com/gpu limit of its Ray container
    k8s_ray_num_gpus: int | None = None
    k8s_ray_gpu_limit: int | None = None
    # The Kubernetes distribution a report names when it runs its own containerd with its own
    # config ("k3s", "rke2", "microk8s"): /etc/containerd/config.toml is then not the node's.
    k8s_distribution: str | None = None
    nvidia_visible_devices: str | None = None
    nvidia_driver_capabilities: str | None = None
    cuda_visible_devices: str | None = None
    systemd: bool | None = None  # /run/systemd/system exists: systemd is the init (sd_booted)
    # A Jetson's L4T release from /etc/nv_tegra_release ("36.3.0"); None elsewhere.
    l4t_release: str | None = None
    # The JetPack release a report names ("5.1.2"); the live probe reads the L4T release instead.
    jetpack_release: str | None = None
    iommu: IommuFacts = field(default_factory=IommuFacts)
    cpu: CpuFacts = field(default_factory=CpuFacts)
    vgpu_client: VgpuClientFacts = field(default_factory=VgpuClientFacts)

    @property
    def k8s_node_resources(self) -> tuple[K8sItem, ...]:
        """What the node offers pods: its Allocatable, else (only Capacity pasted) Capacity."""
        return self.k8s_node_allocatable or self.k8s_node_capacity

    @property
    def k8s_gpu_capacity(self) -> int | None:
        """The node's nvidia.com/gpu under Capacity; None where not read."""
        return _count_of(self.k8s_node_capacity, "nvidia.com/gpu")

    @property
    def k8s_gpu_allocatable(self) -> int | None:
        """The node's nvidia.com/gpu under Allocatable; None where not read."""
        return _count_of(self.k8s_node_allocatable, "nvidia.com/gpu")


def _count_of(items: tuple[K8sItem, ...], name: str) -> int | None:
    value = next((item.value for item in items if item.name == name), None)
    return int(value) if value is not None and value.isdecimal() else None


# --- container runtime --------------------------------------------------------------------------


@dataclass(frozen=True, eq=False, repr=False)
class CdiSpec(Frozen):
    """One NVIDIA CDI spec file, as far as the container device checks need it."""

    path: str  # "/etc/cdi/nvidia.yaml"
    driver_version: str | None = None  # the driver it was generated for (hook or library names)
    libraries: tuple[str, ...] = ()  # host paths of the driver libraries it mounts
    libraries_missing: tuple[str, ...] = ()  # those that are not on the host any more
    devices: tuple[str, ...] = ()  # device names it declares: "0", "0:1" (MIG), "all", ...


@dataclass(frozen=True, eq=False, repr=False)
class ContainerDeviceFacts(Frozen):
    """How containers get their GPUs and keep them: cgroup version and driver, the NVIDIA
    runtime's mode, the /dev/char links systemd needs, and the CDI specs' contents."""

    cgroup_version: int | None = None  # 2 (unified), 1 (legacy or hybrid); None = not read
    docker_cgroup_driver: str | None = None  # "systemd" or "cgroupfs" (docker info)
    containerd_systemd_cgroup: bool | None = None  # SystemdCgroup = true in containerd's config
    runtime_mode: str | None = None  # nvidia-container-runtime mode: "auto", "legacy", "cdi"
    # /dev/nvidia* character devices without a /dev/char/MAJOR:MINOR link; None = not read
    dev_char_missing: tuple[str, ...] | None = None
    cdi_specs: tuple[CdiSpec, ...] = ()


@dataclass(frozen=True, eq=False, repr=False)
class ContainerRuntimeFacts(Frozen):
    docker_reachable: bool | None = None
    docker_version: str | None = None
    runtimes: tuple[str, ...] = ()  # registered runtimes reported by the daemon
    default_runtime: str | None = None
    daemon_json_runtimes: tuple[str, ...] = ()  # from /etc/docker/daemon.json
    cdi_spec_files: tuple[str, ...] = ()
    cdi_nvidia_devices: tuple[str, ...] = ()  # "nvidia.com/gpu=0", ...
    toolkit_tools: tuple[
        str, ...
    ] = ()  # nvidia-ctk, nvidia-container-cli, nvidia-container-runtime found on PATH
    toolkit_version: str | None = None
    docker_client: str | None = None  # the `docker` CLI found on PATH (client without daemon)
    devices: ContainerDeviceFacts = field(default_factory=ContainerDeviceFacts)
    # A Kubernetes node's CRI engine config (containerd's config.toml, CRI-O's crio.conf):
    # "containerd" or "cri-o" when one was read, the runtimes it defines, and its default
    # runtime as it names it (None: the engine's own default, runc or crun).
    cri_engine: str | None = None
    cri_runtimes: tuple[str, ...] = ()
    cri_default_runtime: str | None = None
    # runtimes a version-3 containerd config defines under plugins."io.containerd.grpc.v1.cri"
    # (the version-2 place), which containerd 2.x does not read: not in cri_runtimes
    cri_ignored_runtimes: tuple[str, ...] = ()
    # containerd's `disabled_plugins` names its CRI plugin (True), names others only (False):
    # Docker's containerd.io package ships ["cri"], which no Kubernetes node can run with.
    cri_plugin_disabled: bool | None = None
    # Pods ask for the NVIDIA runtime (`runtimeClassName: nvidia` in a pasted spec); None = not
    # seen (the live probe cannot see pod specs).
    runtime_class_nvidia: bool | None = None
    # SingularityCE / Apptainer: "singularity-ce 3.9.1" as `singularity --version` prints it,
    # and whether GPUs are set up by nvidia-container-cli (`--nvccli`) rather than `--nv` alone.
    singularity_version: str | None = None
    singularity_nvccli: bool | None = None


# --- CUDA libraries and frameworks --------------------------------------------------------------


# LibraryFact.path of a library a pasted report only names ("cuDNN: 8.0.4", "NCCL version
# 2.21.5"): its version is known, not the file.
NAMED_IN_REPORT = "(named in the report)"
# FrameworkFacts.version of a framework a pasted report shows only by what it answered
# (`tf.test.is_built_with_cuda()`, its build info, its GPU list), never by its version.
VERSION_NOT_SHOWN = "(version not in the report)"


@dataclass(frozen=True, eq=False, repr=False)
class LibraryFact(Frozen):
    name: str  # "libcudart", "libcudnn", "libnccl", "libcuda"
    path: str  # or NAMED_IN_REPORT
    version: str | None = None


@dataclass(frozen=True, eq=False, repr=False)
class CudaToolkit(Frozen):
    path: str  # /usr/local/cuda-13.0
    version: str | None = None  # from version.json
    nvcc_version: str | None = None  # "13.0.48" from nvcc --version
    # The program compiles kernels at run time with this toolkit's NVRTC (CuPy's show_config):
    # NVRTC emits PTX, which only a driver of that CUDA release or newer can JIT-compile.
    nvrtc: bool = False


@dataclass(frozen=True, eq=False, repr=False)
class CudaLibFacts(Frozen):
    toolkits: tuple[CudaToolkit, ...] = ()
    cudart: tuple[LibraryFact, ...] = ()
    cudnn: tuple[LibraryFact, ...] = ()
    nccl: tuple[LibraryFact, ...] = ()
    libcuda: tuple[LibraryFact, ...] = ()  # the driver's user-space library
    # Copies of the CUDA libraries a framework's nvidia-* wheels bring, outside the wheels. A
    # wheel's libraries are found through the framework's RUNPATH (and the wheel's own RPATH
    # $ORIGIN): LD_LIBRARY_PATH's folders come before it, the cache built from ld.so.conf after.
    ld_library_path_libs: tuple[LibraryFact, ...] = ()  # in LD_LIBRARY_PATH's folders, in order
    loader_cache_libs: tuple[LibraryFact, ...] = ()  # listed in the cache (`ldconfig -p`)
    # What the loader actually loaded from a system folder (a pasted `ldd` or LD_DEBUG trace):
    # not a copy that could be found, but the one that was.
    resolved_libs: tuple[LibraryFact, ...] = ()


@dataclass(frozen=True, eq=False, repr=False)
class BundledLib(Frozen):
    package: str  # "nvidia-cudnn-cu12"
    version: str


@dataclass(frozen=True, eq=False, repr=False)
class Companion(Frozen):
    """A package installed to match a framework release (torchvision, torchaudio)."""

    name: str  # "torchvision"
    version: str  # public version: "0.20.1"
    local: str = ""  # local tag: "cu124", "cpu"; "" when none


@dataclass(frozen=True, eq=False, repr=False)
class FrameworkFacts(Frozen):
    """An installed framework, read without importing it."""

    name: str  # "torch", "tensorflow", "jax"
    version: str  # full, with local tag: "2.5.1+cu124"
    location: str | None = None
    cuda: str | None = None  # CUDA it was built with, "12.4"; None for CPU-only or unknown
    cpu_only: bool | None = None
    cudnn: str | None = None  # bundled/declared cuDNN version when known
    hip: str | None = None  # ROCm build
    bundled: tuple[BundledLib, ...] = ()
    # torch's torchvision/torchaudio as installed (snapshot schema 2; () in older snapshots)
    companions: tuple[Companion, ...] = ()
    # What the build itself states (TensorFlow's build_info): its compiled architectures
    # ("sm_80", "compute_90") and the cuDNN it was built against ("9": a major only).
    arch_list: tuple[str, ...] = ()
    build_cudnn: str | None = None

    @property
    def label(self) -> str:
        """ "torch 2.5.1+cu124": how findings name it."""
        return f"{self.name} {self.version}"


@dataclass(frozen=True, eq=False, repr=False)
class InstalledProgram(Frozen):
    """A program people run on GPUs (vLLM, flash-attn, bitsandbytes, ollama): its name as the
    matrix's [[program]] rows name it, and its version."""

    name: str
    version: str


@dataclass(frozen=True, eq=False, repr=False)
class DeepDevice(Frozen):
    """A CUDA device as the imported framework sees it (after CUDA_VISIBLE_DEVICES and MIG)."""

    index: int
    name: str | None = None
    compute_capability: str | None = None  # "9.0"


@dataclass(frozen=True, eq=False, repr=False)
class DeepFrameworkFacts(Frozen):
    """What importing one framework in a subprocess showed (`--deep`: templates/verify_image.py
    run with the interpreter gpudoctor runs under). `outcome`: ok, import_failed, probe_failed
    (imported, then raised), timeout, crashed (no report: a signal or an exit code), no_report
    (exit 0 without the report line). `error` holds an excerpt of what went wrong."""

    name: str  # "torch", "tensorflow", "jax", as in FrameworkFacts
    outcome: str = "not_run"
    python: str | None = None  # the interpreter that ran the probe
    seconds: float | None = None  # wall time of the subprocess
    timeout_s: float | None = None
    exit_code: int | None = None  # negative: killed by that signal; None: timed out, not started
    import_ok: bool | None = None
    import_seconds: float | None = None
    version: str | None = None  # torch.__version__ at run time
    cuda: str | None = None  # the CUDA it reports being built with; None for CPU builds
    cudnn: str | None = None
    cuda_available: bool | None = None
    device_count: int | None = None
    devices: tuple[DeepDevice, ...] = ()
    arch_list: tuple[str, ...] = ()  # torch.cuda.get_arch_list() at run time
    cuda_warnings: tuple[str, ...] = ()  # warnings raised while asking for CUDA
    kernel_ok: bool | None = None  # None: no kernel ran (no CUDA, or the probe stopped before)
    kernel_error: str | None = None
    error: str | None = None


# --- a pasted text report ------------------------------------------------------------------------


@dataclass(frozen=True, eq=False, repr=False)
class ReportError(Frozen):
    """A known error or log line found in a pasted report (`code` names its entry in
    matrices/signatures.toml); `text` is the line as pasted, trimmed; `line` its 1-based number."""

    code: str
    text: str
    line: int | None = None


@dataclass(frozen=True, eq=False, repr=False)
class ReportRange(Frozen):
    """The lines of a paste one shape read: `first` to `last`, 1-based, inclusive."""

    section: str
    first: int
    last: int


# What the names of the NVIDIA stack's pods start with (the operator's operands and validators,
# the device plugin, GPU feature discovery, the operator itself): a workload named gpu-test is
# not one of them.
STACK_POD_PREFIXES = ("nvidia-", "gpu-feature-discovery", "gpu-operator")


@dataclass(frozen=True, eq=False, repr=False)
class StackPod(Frozen):
    """A pod of the NVIDIA GPU stack (the GPU Operator's operands and validators, the device
    plugin, GPU feature discovery) as a pasted `kubectl get pods` row or `kubectl describe pod`
    shows it."""

    name: str  # "nvidia-operator-validator-p8s2f"
    status: str  # the STATUS column: "Running", "Init:1/4", "Init:CrashLoopBackOff"; "" unknown
    # `kubectl describe pod`'s "Init Containers:": the first init container not completed, with
    # its state's reason (CrashLoopBackOff, Error, PodInitializing, ...) and last exit code
    init_failed: str | None = None
    init_reason: str | None = None
    init_exit_code: int | None = None


@dataclass(frozen=True, eq=False, repr=False)
class ReportFacts(Frozen):
    """Where the facts came from when `check --from` read a text report (collect_env, nvidia-smi,
    pip list, ...) instead of probing a host: every fact the report does not show stays unknown."""

    source: str = ""  # the file name, or "<stdin>"
    sections: tuple[str, ...] = ()  # the shapes recognised, in order: "collect_env", ...
    notes: tuple[str, ...] = ()  # how it was read: which of two reports was used, truncation, ...
    unknown: tuple[str, ...] = ()  # what the report could not tell
    errors: tuple[ReportError, ...] = ()
    ranges: tuple[ReportRange, ...] = ()  # what was read, by line ranges
    lines: int = 0  # how many lines the paste has
    # Frameworks and GPU vendors the text names outside its known error lines ("pip install
    # jax", "import torch", "an AMD GPU"): a framework's own fallback notice matters only where
    # that framework is in use, a missing NVIDIA library only where an NVIDIA GPU may be.
    named: tuple[str, ...] = ()
    # Container images the text names with their tag ("dustynv/l4t-ml:r35.4.1"): a Jetson
    # image is built for one L4T release (checks/jetson.py).
    images: tuple[str, ...] = ()
    # The NVIDIA stack's pods a `kubectl get pods` / `kubectl describe pod` shows, every one read
    # (Running ones too: checks/k8s_operator.py tells the pod that holds the others).
    stack_pods: tuple[StackPod, ...] = ()
    # Lines that say something failed (a traceback's exception, an `error:` or FATAL log line,
    # a crash, a non-zero exit code) where no line of the catalogue is in the paste: quoted as
    # read, their cause unknown (`code` is "unknown-error-line").
    unknown_lines: tuple[ReportError, ...] = ()
    # Kubernetes Warning events (`kubectl describe`'s Events, `kubectl get events`) that no line
    # of the catalogue names: quoted as read, `code` is the event's reason ("FailedMount").
    warning_events: tuple[ReportError, ...] = ()
    # The nvidia.com/gpu Requests of `kubectl describe node`'s "Allocated resources:" table: what
    # the pods running on the node hold of the GPUs it advertises (pasted/node_allocated.py).
    k8s_gpu_allocated: int | None = None
    # The NVIDIA GL runtimes of flatpak the text lists, by the version in their names
    # ("org.freedesktop.Platform.GL.nvidia-550-90-07": "550-90-07"). Flatpak mounts only the
    # one named after the loaded module's version, dots as dashes (checks/driver.py).
    flatpak_gl_nvidia: tuple[str, ...] = ()


# --- the snapshot -------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False, repr=False)
class ProbeTiming(Frozen):
    probe: str
    seconds: float


@dataclass(frozen=True, eq=False, repr=False)
class HostFacts(Frozen):
    schema_version: int = SCHEMA_VERSION
    tool_version: str = ""
    collected_at: str = ""  # ISO 8601, UTC
    redacted: bool = True
    platform: PlatformFacts = field(default_factory=PlatformFacts)
    kernel: KernelFacts = field(default_factory=KernelFacts)
    nvml: NvmlFacts = field(default_factory=NvmlFacts)
    container_runtime: ContainerRuntimeFacts = field(default_factory=ContainerRuntimeFacts)
    cuda_libs: CudaLibFacts = field(default_factory=CudaLibFacts)
    frameworks: tuple[FrameworkFacts, ...] = ()
    programs: tuple[InstalledProgram, ...] = ()  # GPU programs (framework_names.GPU_PROGRAMS)
    deep: tuple[DeepFrameworkFacts, ...] = ()  # only with --deep: one per installed framework
    multigpu: MultiGpuFacts = field(default_factory=MultiGpuFacts)
    amd: AmdFacts = field(default_factory=AmdFacts)  # AMD GPUs and ROCm (facts_amd.py)
    issues: tuple[ProbeIssue, ...] = ()
    timings: tuple[ProbeTiming, ...] = ()  # wall time per probe, for --verbose and bench/
    report: ReportFacts | None = None  # only for facts read from a pasted text report
