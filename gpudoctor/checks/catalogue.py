"""The catalogue of check codes: area, title, meaning, the severities a code can take and the fix.

Every finding's code must be listed here (base.finding looks the area up here), and
docs/findings.md is generated from this list, so docs and code cannot drift:

    python -m gpudoctor.cli.docgen > docs/findings.md
"""

from __future__ import annotations

from collections.abc import Sequence

from gpudoctor.areas import AREA_TITLES, AREAS
from gpudoctor.checks.catalogue_amd import AMD_ENTRIES
from gpudoctor.exitcodes import REPORT_BUG
from gpudoctor.findings import CatalogueEntry, severities


def _E(code: str, area: str, title: str, allowed: str, meaning: str, fix: str) -> CatalogueEntry:  # noqa: PLR0917 (the entry's fields, in order, one table row per call)
    """An entry with its severities written as the docs show them ("ok, warn, n/a")."""
    return CatalogueEntry(code, area, title, severities(allowed), meaning, fix)


_ENTRIES = (
    # --- report (check --from a pasted text report) -----------------------------------------
    _E("report-read", "report", "What the pasted report showed", "info",
       "With `check --from` on a text report: the sections recognised (collect_env, "
       "nvidia-smi, pip list, ...), which report was used when the paste holds two, and the "
       "facts the report does not show (their checks answer unknown or n/a). Reported only for "
       "a pasted report.",
       "For a full verdict, run `gpudoctor check` on the host, or ask for the missing output "
       "(`nvidia-smi`, `python -m torch.utils.collect_env`)."),
    _E("report-error", "report", "A known error line in the report", "ok, info, warn, error",
       "The report holds a known error line (no kernel image, sm_XX not compatible, driver too "
       "old, CUDA driver version insufficient, libcudnn not loaded, undefined symbol, "
       "driver/library mismatch, error 802, could not select device driver, cannot dlopen GPU "
       "libraries, ...). When a finding from the report's facts predicts it, both say so and "
       "this one is info; an error line no fact explains stays an error with its usual cause "
       "(a warn where the line says something runs degraded, like GPUDirect RDMA disabled).",
       "The fix in the finding (the one of the matching finding when there is one)."),
    _E("report-unknown-line", "report", "An error line the catalogue does not know", "info",
       "The report holds no known error line, but lines that say something failed: a Python "
       "traceback's exception, an `error:`/`fatal:`/ERROR/FATAL log line, a crash (segmentation "
       "fault, abort, killed, core dumped) or a non-zero exit code. They are quoted with their "
       "line numbers; their cause is not known, so this is never a warning or an error. "
       "Reported only for a pasted report.",
       "Paste the whole output around the line (the full traceback or log), with `nvidia-smi` "
       "and `python -m torch.utils.collect_env` from the same host, or run `gpudoctor check` "
       "there; after a crash, the kernel log of that time too."),
    _E("k8s-warning-event", "report", "A Kubernetes Warning event the catalogue does not know",
       "info, warn",
       "A pasted `kubectl describe` Events table or `kubectl get events` holds a Warning event "
       "(FailedMount, Unhealthy, FailedCreatePodSandBox, FailedCreate, ...) that no known line "
       "names. Kubernetes posts Warning events when something is not as expected, so the paste "
       "is not of a healthy cluster; the events are quoted with their reasons and what the "
       "component posting each reason was doing. A warning, as their cause is not known; info "
       "next to an error that names a cause (the state that cause left behind). A few reasons "
       "the kubelet posts where nothing is broken (InvalidDiskCapacity, DNSConfigForming, "
       "CgroupV1) are not counted.",
       "Read the event's message for the object it names (`kubectl describe` it), and the logs "
       "of the component that failed; paste those for a verdict."),
    # --- driver -----------------------------------------------------------------------------
    _E("no-nvidia-gpu", "driver", "No NVIDIA GPU found", "info, unknown",
       "Neither the PCI bus nor NVML shows an NVIDIA GPU; every check that needs a GPU is n/a. "
       "Unknown when NVML is installed but failed (permissions, a version mismatch): then "
       "whether there is a GPU cannot be told; unknown too for a pasted report that lists no "
       "GPU. On a Jetson (an L4T release, a Jetson GPU name or a -tegra kernel) without NVML it "
       "is info: the integrated GPU is not on the PCI bus and NVML is not part of L4T, and the "
       "NVML driver checks are n/a there, not errors.",
       "Nothing to fix on a CPU-only host or a Jetson (tegrastats or jtop show its GPU). On a "
       "cloud VM, pick a GPU instance type. In CI, "
       "`gpudoctor check --require 'gpus>=1'` fails the job on a runner without a GPU."),
    _E("gpu-without-driver", "driver", "NVIDIA GPU with no driver bound", "ok, error, n/a",
       "An NVIDIA GPU sits on the PCI bus but no kernel driver is bound to it, so nothing can use "
       "it.",
       "Install the NVIDIA driver (`sudo ubuntu-drivers install` or your distribution's "
       "nvidia-driver package), then `sudo modprobe nvidia` or reboot."),
    _E("nouveau-loaded", "driver", "nouveau driver loaded", "ok, warn, error",
       "The open-source nouveau driver is loaded (warn) or bound to a GPU (error); the NVIDIA "
       "driver cannot bind while it holds the GPU.",
       "Blacklist it: `printf 'blacklist nouveau\\noptions nouveau modeset=0\\n' | sudo tee "
       "/etc/modprobe.d/blacklist-nouveau.conf`, rebuild the initramfs (`sudo update-initramfs "
       "-u` or `sudo dracut --force`) and reboot."),
    _E("nvidia-module-not-loaded", "driver", "nvidia kernel module not loaded",
       "ok, error, n/a, unknown",
       "A GPU is present but the nvidia kernel module is not loaded (NVML: driver not loaded).",
       "`sudo modprobe nvidia`; if that fails, reinstall the driver for the running kernel "
       "(DKMS) and check `dmesg` for NVRM lines."),
    _E("nvml-library-missing", "driver", "NVML library missing", "ok, error, n/a, unknown",
       "libnvidia-ml.so.1 (the driver's user-space part) cannot be loaded, so nvidia-smi, CUDA "
       "and gpudoctor's GPU checks cannot work.",
       "Install the driver's user-space libraries (the nvidia-utils / libnvidia-compute package "
       "matching the kernel module); in a container, run it with `--gpus all`."),
    _E("driver-library-mismatch", "driver", "Driver/library version mismatch",
       "ok, warn, error, n/a, unknown",
       "The loaded kernel module (/proc/driver/nvidia/version) and the user-space library "
       "(libnvidia-ml.so.<version>) differ, typically after a driver upgrade without a reboot; "
       "NVML fails with 'Driver/library version mismatch' (error). Flatpak's NVIDIA GL runtimes "
       "listed are none of the loaded driver's release (warn): flatpak apps then run without "
       "the driver's GL.",
       "Reboot, or reload the modules: `sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia "
       "&& sudo modprobe nvidia`; for flatpak, `flatpak update` (it adds the running driver's "
       "org.freedesktop.Platform.GL.nvidia-<version> runtime)."),
    _E("nvml-init-failed", "driver", "NVML could not initialise", "ok, unknown, error, n/a",
       "NVML failed for another reason (no permission, unknown error); GPU facts are unknown.",
       "Run as a user that can open /dev/nvidia*; see the NVML error in the detail."),
    _E("driver-version", "driver", "Driver version and the CUDA it supports", "ok, unknown, n/a",
       "The NVIDIA driver in use, its kernel module flavor and the newest CUDA it supports.",
       "None."),
    _E("driver-gpu-unsupported", "driver", "GPU the installed driver branch does not drive",
       "ok, error, n/a",
       "A GPU the report names (lspci, an environment list) next to a driver that cannot drive it: "
       "a GPU newer than the branch (its architecture came with a CUDA release two or more "
       "releases after the newest the driver runs) or of an architecture whose last branch is "
       "older (R470 for Kepler, R580 for Maxwell, Pascal and Volta). GPUs the driver itself "
       "listed are never judged: it drives those.",
       "Install a driver branch that lists the GPU (the matrix's minimum for the architecture's "
       "first CUDA release, with the open kernel modules for Blackwell and later), or NVIDIA's "
       "legacy branch for an old architecture, and reboot."),
    _E("open-module-required", "driver", "GPU driven only by the open kernel modules",
       "ok, error, n/a",
       "The loaded NVIDIA kernel module is the proprietary flavor, and a GPU here is of an "
       "architecture that only the open flavor drives (Blackwell and later, per the driver "
       "README's Open Linux Kernel Modules chapter): the driver loads but that GPU is not "
       "initialised (nvidia-smi finds no device or the GPU fails to start).",
       "Install the open flavor of the same driver branch (the distribution's "
       "nvidia-driver-NNN-open or nvidia-open package, or the .run installer's "
       "`-M=open`) and reboot."),
    _E("open-module-unsupported", "driver", "GPU the open kernel modules do not drive",
       "ok, error, n/a",
       "The loaded NVIDIA kernel module is the open flavor, and a GPU here is older than Turing: "
       "the open modules need the GPU System Processor (GSP) that Turing introduced, so they "
       "refuse Maxwell, Pascal and Volta GPUs ('not supported by open nvidia.ko') and nvidia-smi "
       "finds no device (NVIDIA's driver installation guide, Kernel Modules).",
       "Install the proprietary flavor of the driver (the distribution's nvidia-driver-NNN "
       "package without -open, or the .run installer's `-M=proprietary`) and reboot."),
    _E("device-nodes", "driver", "/dev/nvidia* device nodes", "ok, warn, error, n/a, unknown",
       "/dev/nvidiactl, /dev/nvidiaN and /dev/nvidia-uvm must exist and be read/writable for "
       "CUDA to work.",
       "Missing nodes: `sudo nvidia-modprobe -u -c=0` (or load nvidia_uvm); permissions: add "
       "the user to the group owning /dev/nvidia* (often `video`) or fix the udev rule."),
    _E("gpu-count", "driver", "GPU count agreement (PCI, NVML, /dev)", "ok, info, warn, n/a",
       "The number of NVIDIA GPUs on the PCI bus bound to nvidia, seen by NVML and with a "
       "/dev/nvidiaN node should agree; a GPU missing from NVML has often fallen off the bus.",
       "Check `dmesg` for Xid 79 / 'fallen off the bus'; reseat or RMA the GPU; reboot."),
    _E("gpu-lost", "driver", "GPU lost", "ok, warn, error, n/a",
       "NVML reports a GPU as lost or unreadable (GPU_IS_LOST): it fell off the bus or hung "
       "(error); or it still answers but fails one or two of its readings, which nvidia-smi "
       "prints as ERR! or [Unknown Error] (warn: a failed fan, sensor or board).",
       "Drain the node and reboot; check `dmesg` for Xid errors; RMA if it recurs."),
    _E("nvml-bindings", "driver", "NVML Python bindings", "ok, warn, n/a",
       "The unofficial `pynvml` package shadows NVIDIA's `nvidia-ml-py` bindings (the classic "
       "\"module 'pynvml' has no attribute\" errors).",
       "`pip uninstall pynvml && pip install --force-reinstall nvidia-ml-py`."),
    # --- gpu --------------------------------------------------------------------------------
    _E("gpu-identity", "gpu", "GPU model, memory and compute capability", "ok, n/a, unknown",
       "What each GPU is; shown with -v.", "None."),
    _E("mig-mode", "gpu", "MIG mode", "ok, info, warn, n/a, unknown",
       "MIG is on: frameworks see MIG instances only, one per process (select one with "
       "CUDA_VISIBLE_DEVICES=MIG-<uuid>); with no instances created CUDA sees no device (warn). "
       "A pasted report says so only where it lists the instances (the nvidia-smi table's MIG "
       "devices block, `nvidia-smi -L`, the MIG Devices block of `nvidia-smi -q` or its XML's "
       "mig_devices); else they are unknown.",
       "Create instances (`sudo nvidia-smi mig -cgi <profiles> -C`) or turn MIG off "
       "(`sudo nvidia-smi -i N -mig 0`)."),
    _E("mig-mode-pending", "gpu", "MIG mode change pending", "ok, warn, n/a, unknown",
       "The pending MIG mode differs from the current one: the change takes effect after a GPU "
       "reset. A loaded nvidia_drm module or nvidia-persistenced can block the reset.",
       "`sudo nvidia-smi -i N -r` (stop GPU processes first; unload nvidia_drm if loaded) or "
       "reboot."),
    _E("ecc-mode-pending", "gpu", "ECC mode change pending", "ok, warn, n/a, unknown",
       "The pending ECC mode differs from the current one; it applies at the next reset.",
       "`sudo nvidia-smi -i N -r` or reboot."),
    _E("ecc-errors", "gpu", "Uncorrected ECC errors", "ok, warn, n/a, unknown",
       "Volatile uncorrected ECC errors since the last driver load.",
       "Drain the GPU, reset it (`sudo nvidia-smi -i N -r`) and watch for recurrence; RMA if "
       "they return."),
    _E("memory-repair-pending", "gpu", "Retired pages / remapped rows pending",
       "ok, warn, n/a, unknown",
       "Memory pages were retired or rows remapped but only take effect after a GPU reset.",
       "Drain the GPU and reset it: `sudo nvidia-smi -i N -r`, or reboot."),
    _E("row-remap-failure", "gpu", "Row remapping failed", "ok, error, n/a, unknown",
       "The GPU ran out of spare rows (remapping failure): memory errors can no longer be "
       "repaired.",
       "Take the GPU out of service and RMA it."),
    _E("persistence-mode", "gpu", "Persistence mode", "ok, info, warn, n/a, unknown",
       "Persistence mode off: the driver tears the GPU state down when no client is attached, "
       "so each CUDA start is slower and settings can reset.",
       "`sudo nvidia-smi -pm 1`, or better enable the nvidia-persistenced service."),
    _E("pcie-link-width", "gpu", "PCIe link width", "ok, warn, n/a, unknown",
       "The PCIe link runs narrower than the GPU's maximum (e.g. x8 of x16): a seating, riser "
       "or slot problem that halves host-device bandwidth.",
       "Reseat the GPU or riser, check the slot's wiring and BIOS lane settings."),
    _E("pcie-link-gen", "gpu", "PCIe link generation", "ok, info, n/a, unknown",
       "The PCIe link runs below its maximum generation; normal at idle (links down-train to "
       "save power), a problem only if it stays low under load.",
       "Re-check under load (`nvidia-smi -q -d PCIE`); if it stays low, check BIOS PCIe "
       "settings and risers."),
    _E("clock-throttling", "gpu", "Clock throttling", "ok, info, warn, n/a, unknown",
       "Active clock-event reasons: hardware or thermal slowdown and power brake (warn), "
       "software power cap (info); gpu_idle is benign.",
       "Check cooling and airflow, power cables and PSU; `nvidia-smi -q -d PERFORMANCE`."),
    _E("gpu-virtualization", "gpu", "GPU virtualization", "ok, info, n/a, unknown",
       "Whether the GPU is bare metal, passed through to this VM, or a vGPU (shared, "
       "host-managed: MIG and ECC changes go through the hypervisor; needs a vGPU licence).",
       "For vGPU: make sure the licence client (nvidia-gridd) holds a licence."),
    _E("vgpu-license", "gpu", "vGPU software licence", "ok, warn, error, n/a, unknown",
       "A VM guest's vGPU software licence, from NVML (nvmlDeviceGetGridLicensableFeatures) or "
       "the 'vGPU Software Licensed Product' block of nvidia-smi -q: error when unlicensed (an "
       "unlicensed vGPU runs at full capability at first, then its performance and "
       "functionality are progressively restricted until it gets a licence: NVIDIA Virtual GPU "
       "Client Licensing User Guide), warn when the licence expired or expires within 3 days "
       "of the snapshot, ok with the product and its expiry.",
       "Start the licence client (`sudo systemctl enable --now nvidia-gridd`), put the client "
       "configuration token from your NVIDIA License System instance in "
       "/etc/nvidia/ClientConfigToken/, set FeatureType in /etc/nvidia/gridd.conf and restart "
       "nvidia-gridd; `journalctl -u nvidia-gridd` says why a licence was not acquired."),
    _E("vgpu-license-client", "platform", "vGPU licence client", "ok, warn, n/a, unknown",
       "On a vGPU guest: the licence client nvidia-gridd is installed and a client "
       "configuration token is in /etc/nvidia/ClientConfigToken/ (warn when either is missing: "
       "nothing can acquire a licence).",
       "Install the vGPU guest driver package (it brings nvidia-gridd), copy the client "
       "configuration token to /etc/nvidia/ClientConfigToken/ and "
       "`sudo systemctl restart nvidia-gridd`."),
    _E("vgpu-release", "driver", "vGPU release of guest and host", "ok, info, error, n/a, unknown",
       "On a vGPU guest: the vGPU software release of the guest driver (the matrix's "
       "`vgpu_release` of its branch) against the host's vGPU Manager, read from the vGPU's "
       "PCI vendor capability: compatible when from the same release, when the manager is one "
       "major release branch newer, or when a long-term support manager runs a guest from the "
       "previous long-term support branch (NVIDIA vGPU release notes). Info with what to "
       "compare by hand when the manager's version or a release is not known here.",
       "Install the guest driver from the vGPU release of the host's vGPU Manager (NVIDIA "
       "Licensing Portal), or upgrade the manager."),
    # --- platform ---------------------------------------------------------------------------
    _E("virtualization", "platform", "Bare metal or VM", "ok, info, unknown",
       "Whether this host is bare metal, a VM (and which hypervisor) or a container.", "None."),
    _E("iommu", "platform", "IOMMU", "ok, info, warn, error, unknown, n/a",
       "IOMMU off while a GPU is bound to vfio-pci (passthrough cannot work: error); translated "
       "IOMMU on a bare-metal multi-GPU host (P2P/NCCL traffic may route through the root "
       "complex: info).",
       "Add `intel_iommu=on iommu=pt` (Intel) or `amd_iommu=on iommu=pt` (AMD) to "
       "GRUB_CMDLINE_LINUX in /etc/default/grub, run `sudo update-grub` and reboot."),
    _E("wsl", "platform", "WSL 2", "ok, info, warn, n/a",
       "Running under WSL 2: the Windows driver provides the GPU through /usr/lib/wsl/lib; "
       "never install a Linux NVIDIA driver inside WSL (a Linux nvidia module there is a "
       "warning); persistence, MIG and ECC controls are unavailable.",
       "Update the NVIDIA driver on Windows; keep /usr/lib/wsl/lib first on the library path."),
    _E("container-gpus", "platform", "GPUs visible in this container",
       "ok, info, warn, error, unknown, n/a",
       "Inside a container NVIDIA_VISIBLE_DEVICES unset, 'void' or 'none' gives the container "
       "no GPUs.",
       "Start the container with `--gpus all` (Docker) or "
       "`--device nvidia.com/gpu=all` (CDI), or a GPU resource limit in Kubernetes."),
    _E("cuda-visible-devices", "platform", "CUDA_VISIBLE_DEVICES", "ok, info, warn",
       "CUDA_VISIBLE_DEVICES set to an empty value or -1 hides every GPU from CUDA; an entry "
       "that names no device here (an index past the last GPU, a GPU- or MIG- UUID of another "
       "host, an ambiguous UUID prefix) makes CUDA ignore it and every entry after it. Indexes, "
       "UUIDs and MIG UUIDs are matched against the GPUs and MIG devices present. Several MIG "
       "UUIDs warn: a CUDA process enumerates only one MIG device.",
       "`unset CUDA_VISIBLE_DEVICES` or set it to the GPU indices/UUIDs you want."),
    _E("cpu-memory", "platform", "CPU, NUMA layout and GPU memory coherence", "ok, unknown",
       "The CPU model (Arm part from /proc/cpuinfo or MIDR_EL1: Grace is Neoverse-V2), the "
       "machine, each NUMA node's CPUs and memory, and whether GPU memory appears as CPU-less "
       "NUMA nodes or NVML reports ATS addressing (coherent NVLink-C2C on GH200/GB200: the CPU "
       "addresses GPU memory).",
       "None: informational (shown with -v)."),
    # --- runtime ----------------------------------------------------------------------------
    _E("docker-nvidia-runtime", "runtime", "Docker has the NVIDIA runtime or CDI",
       "ok, error, n/a, unknown",
       "Docker is installed but neither the nvidia runtime nor NVIDIA CDI specs are registered: "
       "`docker run --gpus all` fails with 'could not select device driver \"\" with "
       "capabilities: [[gpu]]'.",
       "`sudo nvidia-ctk runtime configure --runtime=docker && sudo systemctl restart docker`."),
    _E("container-toolkit", "runtime", "NVIDIA Container Toolkit installed", "ok, warn, n/a",
       "Docker is present but nvidia-ctk / nvidia-container-runtime are not installed.",
       "Install nvidia-container-toolkit (NVIDIA's apt/dnf repository), then `sudo nvidia-ctk "
       "runtime configure --runtime=docker && sudo systemctl restart docker`."),
    _E("dev-char-links", "runtime", "/dev/char links of the NVIDIA devices",
       "ok, error, n/a, unknown",
       "On a host whose Docker or containerd uses the systemd cgroup driver and hands GPUs to "
       "containers through the NVIDIA runtime's hook (not CDI): every /dev/nvidia* character "
       "device has its /dev/char/MAJOR:MINOR link. Without them `systemctl daemon-reload` "
       "takes the GPUs from running containers ('Failed to initialize NVML: Unknown Error'; "
       "NVIDIA's notice, nvidia-container-toolkit issue #48).",
       "`sudo nvidia-ctk system create-dev-char-symlinks --create-all`, and the udev rule "
       "/lib/udev/rules.d/71-nvidia-dev-char.rules: `ACTION==\"add\", "
       "DEVPATH==\"/bus/pci/drivers/nvidia\", RUN+=\"/usr/bin/nvidia-ctk system "
       "create-dev-char-symlinks --create-all\"` (toolkit 1.12.0 or newer)."),
    _E("k8s-nvidia-runtime", "runtime", "Kubernetes pods get the NVIDIA runtime",
       "ok, warn, n/a",
       "A Kubernetes node's containerd or CRI-O config (the live host's, or a pasted "
       "`config.toml` / `crio.conf` / `containerd config dump`) that defines the `nvidia` "
       "runtime makes it the default runtime, or the pods ask for it with `runtimeClassName: "
       "nvidia`. Otherwise pods, the device plugin's among them, run with runc or crun: the "
       "plugin loads no NVML and the node advertises no `nvidia.com/gpu` (k8s-device-plugin "
       "README: the NVIDIA runtime 'configured as the default low-level runtime', or a "
       "RuntimeClass). A node that runs its pods through Docker (`docker://` in `kubectl get "
       "nodes -o wide`) needs nvidia as Docker's default runtime (`\"default-runtime\": "
       "\"nvidia\"` in /etc/docker/daemon.json). K3s and RKE2 write their containerd config "
       "again at each start and MicroK8s renders it from a template: on them the default is "
       "set through the distribution (K3s's default-runtime option, config.toml.tmpl, "
       "MicroK8s's containerd-template.toml). A version-3 containerd config (containerd 2.x) "
       "reads runtimes only under `plugins.\"io.containerd.cri.v1.runtime\"`: an nvidia "
       "runtime table at the version-2 place (`io.containerd.grpc.v1.cri`) is not read, and "
       "warns.",
       "`sudo nvidia-ctk runtime configure --runtime=containerd --set-as-default && sudo "
       "systemctl restart containerd` (CRI-O: `--runtime=crio --set-as-default "
       "--config=/etc/crio/crio.conf.d/99-nvidia.conf`, restart crio); or a RuntimeClass "
       "`nvidia` (handler `nvidia`) and `runtimeClassName: nvidia` in the GPU pods' specs."),
    _E("k8s-gpu-unhealthy", "runtime", "A Kubernetes node allocates all its GPUs",
       "ok, warn, n/a",
       "A pasted `kubectl describe node` whose Allocatable `nvidia.com/gpu` is below its "
       "Capacity: the kubelet counts only healthy devices as allocatable, and the NVIDIA device "
       "plugin marks a GPU unhealthy on an Xid error outside its list of application errors, "
       "until the plugin restarts (k8s-device-plugin, internal/rm/health.go). A node that shows "
       "NVIDIA GPUs (its GPUs, or the nvidia.com/gpu.present / NFD pci-10de.present label) but "
       "lists no nvidia.com/gpu in its Capacity: the device plugin registered none. GKE's and "
       "AKS's own GPU node labels (cloud.google.com/gke-accelerator, "
       "kubernetes.azure.com/accelerator=nvidia) mark a GPU node too, and the fix is theirs: "
       "GKE's driver installation (gpu-driver-version), AKS's device plugin DaemonSet or GPU "
       "Operator.",
       "Find the Xid on the node (`dmesg`, the device plugin's log); once the GPU is sound, "
       "restart the device plugin pod; an Xid known to be harmless can be ignored with "
       "`DP_DISABLE_HEALTHCHECKS=<xid>`."),
    _E("k8s-gpu-request", "runtime", "A pod asks for no more GPUs than the node allocates",
       "ok, error, n/a",
       "A paste with a pod's `nvidia.com/gpu` (its Limits/Requests in `kubectl describe pod` or "
       "its spec) and a node's Allocatable `nvidia.com/gpu`: the scheduler takes all of a "
       "pod's GPUs from one node, so a pod that asks for more than the node allocates stays "
       "Pending there ('Insufficient nvidia.com/gpu').",
       "Ask for at most the node's allocatable GPUs per pod (split the work over pods), or "
       "schedule it on a node with more GPUs."),
    _E("k8s-gpu-limits", "runtime", "A pod's GPU request equals its limit",
       "ok, error, n/a",
       "A pasted pod spec (YAML) whose container names an `nvidia.com/` resource under "
       "`resources.requests` with no limit of it, or a different limit: Kubernetes lets no "
       "extended resource be overcommitted, so the API server rejects the spec ('Limit must be "
       "set for non overcommitable resources', 'must be equal to ... limit'); its docs "
       "(\"Schedule GPUs\") put GPUs in limits, requests equal to them when given.",
       "Put the GPU count under `resources.limits` (a limit alone is enough: the request is "
       "taken from it), and keep any request equal to the limit."),
    _E("k8s-pod-extra-gpus", "runtime", "A pod sees only the GPUs it asks for",
       "ok, warn, n/a",
       "A paste with nvidia-smi run inside a pod (`kubectl exec POD -- nvidia-smi`, its -L or "
       "--query-gpu form) and the pod's `nvidia.com/gpu` (its Limits, or Limits that name no "
       "GPU): more GPUs listed than asked for means the pod got GPUs outside the scheduler. "
       "The device plugin passes a container its GPUs in NVIDIA_VISIBLE_DEVICES (its default "
       "list strategy, envvar), and the NVIDIA runtime honours that variable wherever the pod "
       "or its image sets it (the CUDA images set `all`) when the container is privileged, or "
       "unprivileged with the toolkit's default accept-nvidia-visible-devices-envvar-when-"
       "unprivileged = true (k8s-device-plugin README, DEVICE_LIST_STRATEGY; "
       "nvidia-container-toolkit internal/config/image/cuda_image.go). Pods asking for MIG "
       "devices are not compared.",
       "Ask for the GPUs the pod uses in its limits, set no NVIDIA_VISIBLE_DEVICES in its spec "
       "and run it unprivileged; on the nodes the device plugin's "
       "DEVICE_LIST_STRATEGY=volume-mounts with `accept-nvidia-visible-devices-envvar-when-"
       "unprivileged = false` and `accept-nvidia-visible-devices-as-volume-mounts = true` in "
       "the toolkit's config.toml (GPU Operator: the toolkit's and device plugin's env of the "
       "same names)."),
    _E("k8s-gpu-unrequested", "runtime", "A pod that uses a GPU asks for one",
       "warn",
       "A pasted pod whose limits name no `nvidia.com/gpu` (or that the text says asks for "
       "none) while the report says it means to use a GPU: the pods share one GPU, or the pod "
       "sets NVIDIA_VISIBLE_DEVICES. The device plugin allocates GPUs only to containers that "
       "ask for them; such a pod reaches one only through NVIDIA_VISIBLE_DEVICES, which nodes "
       "that give unprivileged pods only their allocated GPUs refuse (the plugin's "
       "volume-mounts or CDI list strategy, `accept-nvidia-visible-devices-envvar-when-"
       "unprivileged = false`, Bottlerocket from 1.19). Reported only where it applies; a "
       "pod's own \"no driver\" line carries the same fix.",
       "`resources: limits: nvidia.com/gpu: 1` in each container that uses the GPU; to share "
       "one GPU among pods, the device plugin's time-slicing or MPS (`sharing.timeSlicing."
       "resources: [{name: nvidia.com/gpu, replicas: N}]`) and one replica per pod."),
    _E("k8s-gpu-resource-name", "runtime", "A pod asks for a GPU resource its node advertises",
       "ok, error, n/a",
       "A pasted pod whose limits name a GPU resource (nvidia.com/gpu, nvidia.com/gpu.shared, "
       "nvidia.com/mig-<profile>, volcano.sh/vgpu-number, aliyun.com/gpu-mem) with the node "
       "(`kubectl describe node`, `get node -o yaml/json`) or the NVIDIA device plugin's config "
       "in the same paste: the pod is placed only where every resource it names is advertised. "
       "With time-slicing or MPS and renameByDefault the plugin advertises <name>.shared; with "
       "the mixed MIG strategy a GPU in MIG mode only as nvidia.com/mig-<profile>, with the "
       "single strategy as nvidia.com/gpu (k8s-device-plugin README).",
       "Ask for the resource name the node advertises (`kubectl describe node`, Allocatable), "
       "or change the plugin's sharing / MIG strategy to advertise the one the pod asks for."),
    _E("k8s-gpu-sharing", "runtime", "The device plugin's GPU sharing config holds together",
       "ok, warn, error, n/a",
       "A pasted device plugin config (`version: v1`, `sharing.timeSlicing` or `sharing.mps`) "
       "against itself and the pod: MPS with `migStrategy: mixed` is refused at start "
       "(cmd/nvidia-device-plugin/main.go), MPS takes at most 48 clients per GPU (16 below "
       "compute capability 7.5; mps-control-daemon), `failRequestsGreaterThanOne` fails a "
       "container asking for more than one shared replica (UnexpectedAdmissionError); without "
       "it several replicas may be one GPU (warn). A config that shares nvidia.com/gpu N ways "
       "beside a node that advertises one per GPU (GFD's nvidia.com/gpu.count, or "
       "nvidia.com/gpu.replicas=1) is not applied (warn): the plugin runs without it.",
       "Ask for one shared replica per container; use time-slicing for MIG devices or more than "
       "48 clients; keep MPS replicas within the limit; deploy the plugin with its config "
       "(Helm config.name and config.default, or the node label nvidia.com/device-plugin.config)."),
    _E("k8s-gpu-node-selector", "runtime", "A GPU pod's node selector matches its node's labels",
       "ok, error, n/a",
       "A pasted GPU pod's nodeSelector / required node affinity on `nvidia.com/` labels against "
       "the node's labels in the same paste (`kubectl describe node`, `--show-labels`, -o "
       "yaml/json): GPU feature discovery writes gpu.product sanitised (`NVIDIA-A100-SXM4-80GB`, "
       "`-SHARED` appended when shared without renameByDefault), and a selector must match it "
       "exactly or the pod stays Pending.",
       "Select the value the node's label shows (`kubectl get node --show-labels`)."),
    _E("k8s-ray-num-gpus", "runtime", "A Ray group's num-gpus matches its GPU limit",
       "ok, warn, error, n/a",
       "A pasted KubeRay RayCluster / RayJob / RayService group whose `rayStartParams` sets "
       "`num-gpus`: Ray schedules GPU tasks by it, while the container sees only the GPUs its "
       "`nvidia.com/gpu` limit got. More than the limit: tasks land on GPUs the container does "
       "not have (error); fewer: allocated GPUs stay idle (warn).",
       "Make num-gpus equal the Ray container's nvidia.com/gpu limit, or leave it out "
       "(KubeRay takes it from the limit)."),
    _E("gpu-operator-stage", "runtime", "The GPU Operator's pods get through their stages",
       "ok, info, warn, error, n/a",
       "A pasted `kubectl get pods -n gpu-operator` or `kubectl describe pod` of the GPU "
       "Operator's pods: a STATUS of Init:N/M means the first N init containers completed and "
       "the next one holds the pod; `describe pod` names the init container that is not "
       "through, with its reason and exit code. The operator's DaemonSets (assets/state-*) "
       "order them: the validator's driver-validation, toolkit-validation, cuda-validation, "
       "plugin-validation; the toolkit's driver-validation; the device plugin's, GFD's and "
       "DCGM's toolkit-validation (which waits for the validator's). The earliest stage held "
       "is named, with what it checks (a working driver, the container runtime set up by the "
       "toolkit, a CUDA workload, GPUs advertised by the device plugin): every pod after it "
       "only waits. Error where that stage fails (CrashLoopBackOff, Error, a non-zero exit "
       "code), warn where it waits; where no init container has run and the report shows a "
       "pod sandbox that could not be created, that error holds the pod, not the stage. Info "
       "where the report also shows a known line of that stage's own component (its pod's log) "
       "that names why: that line's finding carries the verdict.",
       "The fix of the stage named: the driver pod's log for driver-validation, the toolkit's "
       "log and the runtime's config for toolkit-validation, the nvidia-cuda-validator pod "
       "for cuda-validation, the device plugin and the node's Capacity for plugin-validation."),
    _E("k8s-mig-strategy", "runtime", "The device plugin's MIG strategy fits the node's GPUs",
       "ok, warn, error",
       "The NVIDIA device plugin's MIG strategy (its config's or Helm's migStrategy, "
       "MIG_STRATEGY, --mig-strategy, the GPU Operator's mig.strategy, GFD's "
       "nvidia.com/mig.strategy label) against the node's MIG layout: `single` needs every GPU "
       "in MIG mode with instances of one profile; otherwise the plugin refuses to build its "
       "device map and crash-loops, and GPU feature discovery labels the product ...-MIG-INVALID "
       "with a count of 0 (k8s-device-plugin internal/rm/device_map.go, "
       "internal/lm/mig-strategy.go). Error where the layout shows it (MIG devices of several "
       "profiles, GPUs with MIG on and off, a -MIG-INVALID product label); warn where the plugin "
       "crash-loops under `single` and the layout is not shown.",
       "Run the plugin with migStrategy=mixed and ask for nvidia.com/mig-<profile>, or give "
       "every GPU of the node the same MIG profile for `single`."),
    _E("gpu-operator-nodes", "runtime", "The GPU Operator's DaemonSets run on the GPU nodes",
       "ok, warn",
       "A pasted `kubectl get daemonsets -n gpu-operator`: an operand whose READY is below "
       "DESIRED is not up on every node (the earliest in the operator's order is named: driver, "
       "container toolkit, validator, then the device plugin, GFD, DCGM); operands that all "
       "want 0 pods mean no node carries the nvidia.com/gpu.deploy.* labels the operator sets "
       "on nodes with nvidia.com/gpu.present=true (the MIG manager's 0 is normal).",
       "Find the node whose pod is not ready (`kubectl get pods -n gpu-operator -o wide`) and "
       "read that component's log; for 0 desired, check the nodes' pci-10de and "
       "nvidia.com/gpu.deploy.* labels."),
    _E("k8s-nfd-labels", "runtime", "Node Feature Discovery labels the GPU nodes", "warn",
       "A pasted `kubectl get daemonsets` whose GPU Operator operands all want 0 pods and which "
       "lists no Node Feature Discovery worker: the operator finds GPU nodes by NFD's "
       "feature.node.kubernetes.io/pci-10de.present label, so without NFD it deploys none of "
       "its DaemonSets.",
       "Deploy NFD (the operator's Helm `nfd.enabled=true`, or NFD on its own) and check that "
       "the GPU nodes get the pci-10de.present label."),
    _E("k8s-gpu-node-state", "runtime", "The GPU nodes take GPU pods", "ok, warn, error",
       "A pasted GPU node whose state keeps GPU pods off it: the GPU Operator's MIG Manager "
       "labelled it nvidia.com/mig.config.state=failed (it could not apply the layout "
       "nvidia.com/mig.config names: error), or `kubectl get nodes --show-labels` shows a node "
       "with nvidia.com/gpu labels NotReady or cordoned (SchedulingDisabled: warn).",
       "Read the MIG Manager's log and check the config name against its ConfigMap; for a "
       "NotReady node, its kubelet and container runtime; uncordon a node no upgrade holds."),
    _E("containerd-cri-disabled", "runtime", "A Kubernetes node's containerd serves CRI",
       "ok, error, n/a",
       "containerd's `disabled_plugins` (the live host's /etc/containerd/config.toml, or a "
       "pasted config) does not name its CRI plugin where Kubernetes runs on it. Docker's "
       "containerd.io package ships `disabled_plugins = [\"cri\"]`: harmless for Docker, but "
       "the kubelet finds no CRI service ('unknown service runtime.v1.RuntimeService'; "
       "Kubernetes docs, Container Runtimes). No alarm without Kubernetes, nor on K3s, RKE2 or "
       "MicroK8s, which run a containerd of their own.",
       "Remove `cri` from `disabled_plugins` in /etc/containerd/config.toml, then `sudo "
       "systemctl restart containerd` and the kubelet."),
    _E("container-mig-devices", "runtime", "MIG devices reach Singularity containers",
       "ok, warn, n/a, unknown",
       "SingularityCE with `--nvccli` (GPU set-up by nvidia-container-cli) binds MIG devices "
       "into non-contained containers: 3.9.0 to 3.9.2 bind only the physical GPUs, so a MIG "
       "device is missing inside (SingularityCE CHANGELOG, v3.9.3).",
       "Upgrade SingularityCE to 3.9.3 or newer; until then set `NVIDIA_VISIBLE_DEVICES=all` "
       "(or the MIG UUIDs), or use `--nv` without `--nvccli`."),
    _E("cdi-spec-current", "runtime", "CDI spec matches the driver", "ok, error, n/a",
       "Each NVIDIA CDI spec (/etc/cdi, /var/run/cdi) was generated for the loaded driver: its "
       "driver version is the loaded one, the libraries it mounts exist, and the MIG devices it "
       "names still exist. A spec left from before a driver, kernel or MIG change makes "
       "containers fail to start or get other devices.",
       "`sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml` after every driver or MIG "
       "change."),
    _E("cgroup-v2-toolkit", "runtime", "cgroup v2 and the container toolkit",
       "ok, error, n/a, unknown",
       "On a cgroup v2 host, the NVIDIA Container Toolkit is 1.8.0 or newer (libnvidia-container "
       "supports cgroup v2 from 1.8.0; before, GPU containers fail with 'cgroup subsystem "
       "devices not found').",
       "Upgrade nvidia-container-toolkit and libnvidia-container1 to 1.8.0 or newer from NVIDIA's "
       "repository and restart the container engine."),
    # --- software ---------------------------------------------------------------------------
    _E("framework-driver-cuda", "software", "Driver runs the framework's CUDA",
       "ok, info, error, n/a, unknown",
       "The driver must support the CUDA an installed framework was built with: ok from the "
       "release's minimum driver, info through minor-version compatibility within the major "
       "(no PTX JIT of newer PTX), error below that ('CUDA driver version is insufficient').",
       "Upgrade the driver to the minimum shown, or install the framework's build for an older "
       "CUDA (the exact pip command is in the finding); data-center GPUs can use the "
       "cuda-compat forward-compatibility package."),
    _E("framework-companions", "software", "torchvision and torchaudio match torch",
       "ok, warn, error, n/a, unknown",
       "The torchvision and torchaudio beside torch must be of torch's release (the matrix's "
       "pair for each release, compared by series) and of its CUDA major (their local tags): "
       "error for another release or CUDA major ('operator torchvision::nms does not exist', "
       "'compiled with different CUDA major versions'), warn for a CPU-only companion of a "
       "CUDA torch or the reverse.",
       "Install torch with the torchvision and torchaudio of its release from one index (the "
       "exact pip command is in the finding)."),
    _E("framework-arch", "software", "Framework has kernels for each GPU",
       "ok, info, error, n/a, unknown",
       "The framework's compiled architecture list must cover each GPU's compute capability "
       "(cubin same major and lower-or-equal minor, or PTX JIT); else 'no kernel image is "
       "available for execution on the device'. A build the matrix holds without an arch list "
       "(torch before 1.8) is judged by the CUDA toolkit it was built with (info), as "
       "`check --framework` judges it.",
       "Install a build whose arch list has the GPU (the finding names one), e.g. a cu128+ "
       "torch for Blackwell."),
    _E("framework-cpu-only", "software", "CPU-only framework build on a GPU host",
       "ok, info, warn, error, n/a, unknown",
       "The installed framework is a CPU-only build (torch +cpu, tensorflow-cpu), or a ROCm "
       "build (torch +rocm) on a host with NVIDIA GPUs only: it will never use them. Warn "
       "where a pasted report does not show the build's CUDA but the build is probably PyPI's "
       "CPU-only one (an aarch64 host that is no Jetson, a version without a +cuXYZ tag, of a "
       "release whose PyPI aarch64 wheel carries no CUDA); info for TensorFlow on native "
       "Windows where the report shows no GPU.",
       "Reinstall the CUDA build (the pip command is in the finding)."),
    _E("framework-cudnn", "software", "cuDNN accepted by the framework",
       "ok, warn, error, n/a, unknown",
       "The cuDNN the framework loads (its bundled nvidia-cudnn wheel, or for TensorFlow the "
       "system cuDNN) differs from the one its build expects: another major fails to load "
       "(error), an older minor may lack symbols (warn). A cuDNN a pasted report only names "
       "(\"cuDNN: 8.0.4\", \"CUDA/cuDNN version: 10.1/8.0\") counts for a TensorFlow release "
       "that loads the host's cuDNN (before 2.14's [and-cuda] wheels).",
       "`pip install nvidia-cudnn-cu12==<version from the finding>` or reinstall the "
       "framework so that pip picks its cuDNN."),
    _E("tf-cuda-wheels", "software", "TensorFlow's CUDA wheels", "ok, warn, error, unknown, n/a",
       "From TensorFlow 2.14 a Linux CUDA build gets CUDA and cuDNN from the nvidia-* wheels of "
       "its [and-cuda] extra (the matrix row's pip requirement names the extra). Installed "
       "without it, no such wheel is there: with no system CUDA and cuDNN TensorFlow logs "
       "'Cannot dlopen some GPU libraries' and runs on the CPU (error); with system libraries "
       "it loads those instead of the ones it was built against (warn).",
       "`pip install 'tensorflow[and-cuda]==VERSION'` (the finding names the release for this "
       "host)."),
    _E("jetson-wheel", "software", "Framework builds on a Jetson", "ok, warn, error, n/a",
       "On a Jetson (/etc/nv_tegra_release: L4T), a framework that brings PyPI's nvidia-* CUDA "
       "wheels, or a torch +cuXXX build, is built for server Arm (SBSA), not for the Jetson's "
       "integrated GPU and JetPack's CUDA (error); a CPU-only build wastes the GPU (warn), and "
       "so does, probably, a version without a local tag whose PyPI aarch64 wheel carries no "
       "CUDA (matrix `[[wheel]]`) where the report does not show its CUDA (warn). A "
       "build for a newer CUDA than the JetPack ships (matrix `[[jetpack]]`) needs the CUDA "
       "upgrade package from JetPack 5 (warn) and cannot run before it (error). n/a on JetPack 7, "
       "which aligns Jetson with server Arm: the framework checks judge its builds.",
       "Install NVIDIA's build for the JetPack the finding names (Installing PyTorch for Jetson "
       "Platform, docs.nvidia.com)."),
    _E("jetson-container-l4t", "software", "A Jetson container built for another L4T release",
       "ok, error, unknown, n/a",
       "A Jetson container image (its tag names an L4T release: dustynv/...:r35.4.1, "
       "nvcr.io/nvidia/l4t-...:r36.2.0) carries the CUDA, cuDNN and TensorRT of the JetPack it "
       "was built for and runs only on other releases of the same L4T major (R35.x on R35.x, "
       "R36.x on R36.x; R32.7 on R32.7). On another release CUDA fails inside it (error).",
       "Use the image built for the host's L4T release (`cat /etc/nv_tegra_release`), or "
       "rebuild it on that JetPack."),
    _E("program-min-compute-capability", "software",
       "A GPU below a program's documented minimum compute capability", "ok, error, n/a",
       "A program people run on GPUs (vLLM, flash-attention 2, bitsandbytes, FlashInfer, "
       "ollama) is installed or running, and a GPU is below the minimum compute capability the "
       "program's own documentation names for that release (the matrix's [[program]] rows, each "
       "with its source): it fails with 'FlashAttention only supports Ampere GPUs or newer', "
       "'no kernel image', or skips the GPU.",
       "Run the program on a GPU at or above its minimum, or use another implementation that "
       "supports the GPU (PyTorch SDPA instead of flash-attention)."),
    _E("library-shadowing", "software", "A system CUDA library shadows a framework's wheel",
       "ok, info, warn, error, n/a",
       "A CUDA library on LD_LIBRARY_PATH (error), or one a pasted `ldd` or LD_DEBUG trace shows "
       "loaded from a system folder (warn), has the same soname as the copy the framework's "
       "nvidia-* wheel brings, and the loader finds it first: cuDNN, cuBLAS or NCCL of another "
       "version, or an "
       "older nvJitLink, cuSPARSE, cuFFT, cuRAND, cuSOLVER, cudart, NVRTC or CUPTI (a system "
       "CUDA toolkit): 'Could not load symbol cudnnGetLibConfig', 'undefined symbol: "
       "ncclCommRegister', 'undefined symbol: __nvJitLinkAddData_12_1'. A copy only listed in "
       "the loader cache built from ld.so.conf is a note (info): the cache is searched after the "
       "framework's RUNPATH, so it serves only programs that open the library by bare name.",
       "Take that folder off LD_LIBRARY_PATH (or remove the system package / its ld.so.conf.d "
       "entry and run `sudo ldconfig`), so the framework loads its own wheels."),
    _E("nvcc-driver-cuda", "software", "CUDA toolkit (nvcc) vs driver", "ok, info, warn, n/a",
       "A CUDA toolkit newer than the driver supports compiles fine but its programs fail at "
       "run time ('CUDA driver version is insufficient for CUDA runtime version').",
       "Upgrade the driver, or use a toolkit no newer than the CUDA the driver supports."),
    _E("framework-import", "software", "The framework imports (--deep)",
       "ok, warn, error, n/a, unknown",
       "With --deep each installed framework is imported in a subprocess (with the interpreter "
       "gpudoctor runs under, bounded by --deep-timeout): an import that raises (a missing "
       "libcudnn.so, NumPy 2 against a NumPy 1 build, an undefined symbol), hangs or crashes is "
       "an error; another copy of the framework shadowing the installed one is a warning. "
       "Without --deep: n/a.",
       "The fix in the finding follows the error (reinstall the framework so that pip brings "
       "its nvidia-* wheels, unset LD_LIBRARY_PATH, `pip install 'numpy<2'`); run "
       "`python -c 'import torch'` to see the whole error."),
    _E("framework-cuda-available", "software", "The framework sees the GPUs (--deep)",
       "ok, warn, error, n/a, unknown",
       "With --deep: a CUDA build of the framework on a host with NVIDIA GPUs must see them "
       "(torch.cuda.is_available(), tf.config.list_physical_devices('GPU'), jax.devices()). "
       "When it does not, the finding names the likely cause from the host facts: a driver too "
       "old for the framework's CUDA or not working, CUDA_VISIBLE_DEVICES empty, a container "
       "started without GPUs, /dev/nvidia* not usable or nvidia-uvm missing, MIG without "
       "instances. n/a for CPU-only builds, on hosts without a GPU and without --deep. warn "
       "for a pasted report that shows the framework seeing no GPU but not how it was built.",
       "The first cause's fix (the finding has it); when no fact explains it, `python -c "
       "'import torch; torch.cuda.init()'` shows CUDA's own error."),
    _E("framework-kernel", "software", "A small kernel runs on the GPU (--deep)",
       "ok, error, n/a, unknown",
       "With --deep: one small computation on GPU 0 through the framework. 'no kernel image is "
       "available for execution on the device' means the build has no kernels for this GPU's "
       "compute capability (what framework-arch predicts from the matrix); out of memory, a "
       "busy GPU in exclusive compute mode, a PTX toolchain newer than the driver or a "
       "hardware fault are named as such.",
       "For a missing kernel image, install a build whose architecture list covers the GPU "
       "(the pip command is in the finding); otherwise the finding's fix."),
    # --- multigpu ---------------------------------------------------------------------------
    _E("nvlink-state", "multigpu", "NVLink links up", "ok, warn, n/a",
       "Every NVLink of every GPU should be active and GPUs should have equal numbers of active "
       "links: a link down lowers that GPU's NVLink bandwidth and every collective runs at the "
       "speed of the slowest GPU, without an error. Names the GPU and the links.",
       "`nvidia-smi nvlink -s -i N`; reset the GPU (`sudo nvidia-smi -i N -r`) or reboot; a link "
       "that stays down needs hardware service."),
    _E("nvlink-errors", "multigpu", "NVLink error counters", "ok, warn, n/a",
       "NVLink replay, recovery and CRC error counters (totals since the driver loaded) above "
       "100 on a link: a marginal link that resends traffic and stalls collectives.",
       "Watch `nvidia-smi nvlink -e -i N`; if the counters keep growing after a GPU reset, the "
       "link needs hardware service."),
    _E("fabric-manager", "multigpu", "NVSwitch fabric manager", "ok, warn, error, n/a, unknown",
       "On NVSwitch systems (HGX/DGX Hopper and Blackwell) the fabric manager registers each GPU "
       "with the NVLink fabric (nvmlDeviceGetGpuFabricInfo state and status). Not started or "
       "failed: nvidia-smi shows healthy GPUs while every CUDA program fails with error 802, "
       "'system not yet initialized' (cudaErrorSystemNotReady). Registered but with a "
       "fabric health problem (degraded bandwidth, unhealthy route): warn.",
       "Install nvidia-fabricmanager of exactly the driver's version and start it: `sudo "
       "systemctl enable --now nvidia-fabricmanager`; `nvidia-smi -q | grep -A3 Fabric` then "
       "shows State: Completed, Status: Success."),
    _E("p2p-topology", "multigpu", "P2P and topology between GPU pairs",
       "ok, info, warn, n/a, unknown",
       "The P2P status (read, write, NVLink, atomics) and topology level of every GPU pair, "
       "shown as a matrix like `nvidia-smi topo -m` with -v. P2P blocked between GPUs joined "
       "by NVLink or one PCIe switch is a warning; pairs across CPU sockets without P2P are "
       "information (NCCL goes through host memory there).",
       "Disable PCIe ACS P2P redirect (pcie-acs), set the IOMMU to passthrough (`iommu=pt`), or "
       "in a VM ask for P2P-capable passthrough; check with `nvidia-smi topo -p2p rw`."),
    _E("pcie-acs", "multigpu", "PCIe ACS on bridges above GPUs", "ok, warn, n/a, unknown",
       "PCIe Access Control Services with P2P Request/Completion Redirect on a bridge above the "
       "GPUs sends peer traffic up to the root complex: slow P2P, or NCCL hangs. Reading the "
       "register needs root (n/a with the reason otherwise); GPUs bound to vfio-pci need ACS "
       "for isolation (n/a).",
       "Turn ACS off in the BIOS, or until the next boot `sudo setpci -s <bridge> "
       "ECAP_ACS+0x6.w=0000` for each bridge the finding names (NCCL troubleshooting guide)."),
    _E("gpu-iommu-groups", "multigpu", "IOMMU translation of the GPUs' groups",
       "ok, warn, n/a, unknown",
       "/sys/kernel/iommu_groups/N/type of each GPU's group: DMA or DMA-FQ (translated) on a "
       "bare-metal multi-GPU host remaps or blocks peer-to-peer traffic; identity passes it "
       "through.",
       "Add `iommu=pt` (with `intel_iommu=on` or `amd_iommu=on`) to GRUB_CMDLINE_LINUX, run "
       "`sudo update-grub` and reboot."),
    _E("gpu-locality", "multigpu", "GPU NUMA node and CPU affinity", "ok, info, n/a, unknown",
       "Each GPU's NUMA node and local CPUs (sysfs numa_node, local_cpulist), for pinning each "
       "rank's threads next to its GPU.",
       "Bind each rank to its GPU's node: `numactl --cpunodebind=<node> --membind=<node>`."),
    _E("precision-modes", "multigpu", "Reduced-precision modes per GPU", "ok, n/a, unknown",
       "The tensor-core modes of each GPU's architecture among TF32, BF16 (Ampere and newer), "
       "FP8 (Ada, Hopper, Blackwell) and FP4 (Blackwell), from the matrix's architecture table, "
       "so that a user knows which mixed-precision modes the hardware has.",
       "None; pick the training precision the hardware has."),
    _E("infiniband-ports", "multigpu", "InfiniBand/RoCE ports", "ok, warn, n/a, unknown",
       "Ports of the RDMA adapters (/sys/class/infiniband): state, physical state, rate and "
       "link layer; a port that is not ACTIVE leaves its rail unused.",
       "Check the cable and switch port (`ibstat`); for RoCE bring the interface up."),
    _E("gpudirect-rdma", "multigpu", "GPUDirect RDMA (nvidia_peermem)", "ok, info, warn, n/a",
       "With RDMA adapters next to GPUs, nvidia_peermem lets the adapter read and write GPU "
       "memory directly; without it NCCL stages through host memory. With the open kernel "
       "modules DMA-BUF can take its place (info).",
       "`sudo modprobe nvidia-peermem`, and list it in /etc/modules-load.d/ to load at boot."),
    _E("shm-size", "multigpu", "/dev/shm size for NCCL", "ok, warn, n/a, unknown",
       "On a multi-GPU host /dev/shm below 1 GiB (Docker's default is 64 MiB) makes NCCL fail "
       "with 'Bus error' or 'unhandled system error'. Measured on the live host, or read from a "
       "pasted `df` / `df -h` row or `mount` / /proc/mounts line of /dev/shm (a container's or "
       "a pod's).",
       "Docker: `--shm-size=16g` or `--ipc=host`; Kubernetes: an `emptyDir: {medium: Memory}` "
       "volume mounted at /dev/shm."),
    _E("memlock-limit", "multigpu", "RLIMIT_MEMLOCK for RDMA", "ok, warn, n/a, unknown",
       "RDMA registers (pins) memory within RLIMIT_MEMLOCK; a small limit makes NCCL's IB "
       "transport fail or fall back.",
       "Docker: `--ulimit memlock=-1:-1`; host: `* - memlock unlimited` in "
       "/etc/security/limits.conf (LimitMEMLOCK=infinity for systemd services)."),
    _E("nccl-env", "multigpu", "NCCL environment pitfalls", "ok, warn, error, n/a, unknown",
       "NCCL_P2P_DISABLE on a multi-GPU host or NCCL_IB_DISABLE on a host with InfiniBand set "
       "globally (warn); NCCL_SOCKET_IFNAME naming an interface that does not exist (error: "
       "NCCL cannot bootstrap).",
       "Unset the variable, or point NCCL_SOCKET_IFNAME at an existing interface."),
    _E("nccl-library", "multigpu", "NCCL the framework loads", "ok, warn, n/a",
       "A framework's own NCCL wheel (nvidia-nccl-cu12) against a different libnccl in a "
       "folder on LD_LIBRARY_PATH, which the loader may pick first.",
       "Remove that folder from LD_LIBRARY_PATH for the job."),
    _E("nccl-gpu-support", "multigpu", "The NCCL release against the GPUs", "ok, info, error, n/a",
       "The NCCL in use (a version a pasted NCCL log states, else the nvidia-nccl wheel the "
       "framework pins, else a system libnccl) against the matrix's [[nccl]] rows, read from "
       "NCCL's own source: a GPU architecture the release is known to fail on (NCCL 2.25.x on "
       "compute capability 12.0, fixed in 2.26.2), or one its build has no kernels for (when "
       "the build's CUDA is known: 'NCCL version 2.25.1+cuda12.8').",
       "Use the NCCL release the finding names or newer (a framework release that pins it)."),
    _E("xid-history", "multigpu", "XID history of the kernel log",
       "ok, info, warn, error, n/a, unknown",
       "Recent `NVRM: Xid` lines of the kernel log (/dev/kmsg; readable by root or with "
       "CAP_SYSLOG, n/a otherwise), each with its meaning, the action NVIDIA's XID catalog gives "
       "(matrices/xid.toml) and whether a GPU reset or node drain is due.",
       "The action in the finding: restart the application, reset the GPU (`sudo nvidia-smi -i "
       "N -r`), or drain and reboot the node."),
    # --- intent -----------------------------------------------------------------------------
    _E("intent-verdict", "intent", "Will the requested framework/CUDA run here",
       "ok, info, error, unknown",
       "For `--framework`/`--cuda`: the matrix row asked for, judged against this driver "
       "(CUDA minimum) and these GPUs (compiled architectures).",
       "Use the newest row this host can run (intent-newest-row), or upgrade the driver."),
    _E("image-runs-here", "intent", "Will this image run here (check --image)",
       "ok, info, warn, error, unknown",
       "A built image (its io.gpudoctor.* labels, or its framework read by one bounded docker "
       "run) judged against this host: the driver tier of its CUDA, kernels for every GPU, and "
       "its NVIDIA_REQUIRE_CUDA as the NVIDIA Container Toolkit checks it at start.",
       "Use the image the finding names (`gpudoctor build ...`), or upgrade the driver."),
    _E("intent-newest-row", "intent", "Newest matrix row this host can run", "info, warn, n/a",
       "The newest framework build in the matrix whose CUDA this driver runs and whose "
       "kernels cover these GPUs.",
       "The pip command in the finding."),
    # --- requirements -----------------------------------------------------------------------
    *(
        _E(f"requirement-{key}", "requirements", f"--require {key}...", "ok, error, unknown",
           meaning, "Meet the requirement, or change the host you run on.")
        for key, meaning in (
            ("driver", "The driver version (`driver>=550`)."),
            ("cuda", "The newest CUDA the driver supports (`cuda>=12.1`)."),
            ("gpus", "The number of GPUs NVML sees (`gpus>=8`)."),
            ("memory", "Each GPU's memory (`memory>=40GiB`; GiB, GB, MiB, MB)."),
            ("compute-capability", "Each GPU's compute capability (`compute_capability>=8.0`)."),
            ("mig", "MIG mode on every GPU (`mig=off`)."),
            ("iommu", "IOMMU enabled (`iommu=on`)."),
            ("runtime", "A Docker runtime registered (`runtime=nvidia`; `cdi` for CDI specs)."),
            ("nvlink", "Every NVLink up, with error counters low (`nvlink=ok`)."),
            ("fabric", "GPUs registered with the NVSwitch fabric (`fabric=ok`)."),
            ("p2p", "P2P between the GPUs that should reach each other (`p2p=ok`)."),
            ("shm", "The size of /dev/shm (`shm>=1GiB`)."),
            ("ib", "Active InfiniBand/RoCE ports (`ib>=4`)."),
            ("xid", "No XID in the kernel log (`xid=none`)."),
            ("amd-gpus", "The number of AMD GPUs ROCm sees: GPU nodes of the KFD topology, "
             "one per die or partition; none without a /dev/kfd this user can open "
             "(`amd_gpus>=8`)."),
        )
    ),
    _E("unreadable-value", "driver", "A recorded value cannot be read", "unknown",
       "A snapshot field holds a value without that field's syntax (a driver version that is "
       "not a version, a number out of range); the checks that need it report it as unknown.",
       "Record the host again with `gpudoctor snapshot -o FILE` (a snapshot is not edited by "
       "hand)."),
    _E("unreadable-snapshot", "driver", "A fleet snapshot cannot be read", "error",
       "One file of a fleet (`check --from DIR`) is not a readable snapshot; the other hosts are "
       "still judged.",
       "Record that host again with `gpudoctor snapshot -o FILE`, or remove the file."),
    _E("check-crashed", "driver", "A check crashed", "unknown",
       "A check raised an exception on these facts; its result is unknown. This is a bug of "
       "gpudoctor, not a problem of the host, and the run exits 5 (never a pass).",
       REPORT_BUG[0].upper() + REPORT_BUG[1:] + "."),
    *AMD_ENTRIES,
)  # fmt: skip

CATALOGUE: dict[str, CatalogueEntry] = {e.code: e for e in _ENTRIES}


def markdown(extra: Sequence[tuple[str, Sequence[CatalogueEntry]]] = ()) -> str:
    """docs/findings.md: one section per area, one anchor per code; `extra`: further sections
    (title, entries), the builder's verify codes (docgen.py adds them)."""
    out = [
        "# Findings",
        "",
        "<!-- GENERATED by `python -m gpudoctor.cli.docgen > docs/findings.md`; do not edit. -->",
        "",
        "Every finding `gpudoctor check` reports has a stable code. Severities: `ok`, `info`, "
        "`warn`, `error`, `n/a` (does not apply to this host), `unknown` (a fact could not be "
        "read). `gpudoctor check --list` prints the same list.",
        "",
    ]
    sections = [(AREA_TITLES[area], [e for e in _ENTRIES if e.area == area]) for area in AREAS]
    for title, entries in [*sections, *extra]:
        out += [f"## {title}", ""]
        for e in entries:
            out += [
                f'### <a id="{e.code}"></a>`{e.code}`: {e.title}',
                "",
                f"- severities: {e.shown_severities}",
                f"- meaning: {e.meaning}",
                f"- fix: {e.fix}",
                "",
            ]
    return "\n".join(out)


def listing() -> str:
    """`gpudoctor check --list`: code, area and title, one a line."""
    width = max(len(e.code) for e in _ENTRIES)
    return "".join(f"{e.code:<{width}}  {e.area:<12}  {e.title}\n" for e in _ENTRIES)
