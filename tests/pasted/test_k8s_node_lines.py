"""Lines of Kubernetes GPU nodes, MIG and driver builds pasted as they are printed: each is named
by its signature, a near miss is not, and an NVRM line that says why a GPU has no driver bound
replaces the PCI finding's generic "install the driver"."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix

Read = Callable[[str], HostFacts]

_SMI = (
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure "
    "that the latest NVIDIA driver is installed and running.\n"
)


def _line_codes(facts: HostFacts) -> list[str]:
    return [e.code for e in facts.report.errors] if facts.report else []


@pytest.mark.parametrize(
    ("line", "code"),
    [
        # dnf in the GPU Operator's driver container (RHEL/OpenShift node)
        (
            "Error: Unable to find a match: kernel-headers-4.18.0-240.23.2.el8_3.x86_64 "
            "kernel-devel-4.18.0-240.23.2.el8_3.x86_64",
            "kernel-headers-unavailable",
        ),
        ("E: Unable to locate package linux-headers-5.3.0-1029-gcp", "kernel-headers-unavailable"),
        (
            "No package kernel-headers-3.10.0-957.12.2.el7.x86_64 available.",
            "kernel-headers-unavailable",
        ),
        ("Could not resolve Linux kernel version", "gpu-operator-kernel-packages"),
        (
            "gpu-feature-discovery: 2022/03/13 12:09:51 Unexpected error: Error generating NVML "
            "labels: Error generating common labels: Error getting device: nvml: Insufficient "
            "Permissions",
            "mig-monitor-devices",
        ),
        (
            "error starting plugins: unable to add default resources to config: error visiting "
            "devices: error visiting device: error getting device memory info: Insufficient "
            "Permissions",
            "mig-monitor-devices",
        ),
        (
            "stderr: Auto-detected mode as 'legacy' nvidia-container-cli.real: initialization "
            "error: load library failed: libnvidia-ml.so.1: cannot open shared object file: no "
            "such file or directory: unknown",
            "container-cli-no-nvml",
        ),
        # GPU feature discovery's words for the NVML the device plugin cannot load either
        (
            "2023/03/22 09:10:04 Detected non-NVML platform: could not load NVML: "
            "libnvidia-ml.so.1: cannot open shared object file: No such file or directory",
            "device-plugin-no-nvml",
        ),
        (
            "gpu-feature-discovery: 2022/08/30 02:07:24 Error: error creating NVML labeler: "
            "failed to initialize NVML: unexpected failure calling nvml.Init: error opening "
            "libnvidia-ml.so.1: libnvidia-ml.so.1: cannot open shared object file: No such file",
            "device-plugin-no-nvml",
        ),
        (
            'time="2020-10-27T00:53:32Z" level=fatal msg="Error watching fields: Profiling is '
            'not supported for this group of GPUs or GPU"',
            "dcgm-profiling-unsupported",
        ),
        (
            "Not collecting DCP metrics: This request is serviced by a module of DCGM that is "
            "not currently loaded",
            "dcgm-profiling-unavailable",
        ),
        # dcgm-exporter without the driver's NVML in its pod
        (
            'time=2025-07-11T17:48:10.249Z level=ERROR msg="Cannot init NVML library; err: '
            'ERROR_LIBRARY_NOT_FOUND"',
            "dcgm-exporter-no-nvml",
        ),
        (
            'time="2020-07-21T18:49:33Z" level=fatal msg="Error starting nv-hostengine: DCGM '
            'initialization error"',
            "dcgm-exporter-no-nvml",
        ),
    ],
)
def test_node_line_is_named(read: Read, line: str, code: str) -> None:
    assert _line_codes(read(line + "\n")) == [code]


@pytest.mark.parametrize(
    ("line", "not_code"),
    [
        # the meta package without a kernel version: not the running kernel's headers
        ("E: Unable to locate package linux-headers-generic", "kernel-headers-unavailable"),
        (
            "Error: Unable to find a match: kernel-headers kernel-devel",
            "kernel-headers-unavailable",
        ),
        ("Resolving Linux kernel version...", "gpu-operator-kernel-packages"),
        # NVML refused outright, not a device query of a MIG-enabled GPU
        ("Failed to initialize NVML: Insufficient Permissions", "mig-monitor-devices"),
        (
            "nvidia-container-cli.real: initialization error: nvml error: driver not loaded: "
            "unknown",
            "container-cli-no-nvml",
        ),
        # the profiling module not loaded has other causes (vGPU, capabilities)
        (
            "Not collecting DCP metrics: This request is serviced by a module of DCGM that is "
            "not currently loaded",
            "dcgm-profiling-unsupported",
        ),
        (
            "Detected non-Tegra platform: /sys/devices/soc0/family file not found",
            "device-plugin-no-nvml",
        ),
        # NVML found but failing (the cgroup/driver causes of "Unknown Error"), and the
        # start-up line every healthy exporter prints
        (
            'level=ERROR msg="Cannot init NVML library; err: Unknown Error"',
            "dcgm-exporter-no-nvml",
        ),
        ('level=info msg="DCGM successfully initialized!"', "dcgm-exporter-no-nvml"),
    ],
)
def test_near_miss_is_not_named(read: Read, line: str, not_code: str) -> None:
    # beside a line that is read, so that the paste as a whole is recognised
    codes = _line_codes(read(_SMI + line + "\n"))
    assert "nvidia-smi-no-driver" in codes
    assert not_code not in codes


_LSPCI = (
    "00:1e.0 3D controller: NVIDIA Corporation GK210GL [Tesla K80] (rev a1)\n"
    " Subsystem: NVIDIA Corporation GK210GL [Tesla K80]\n"
    " Kernel modules: nvidiafb, nvidia_drm, nvidia\n"
)
_LEGACY = (
    "Mar  3 13:08:28 ip-172-31-37-178 kernel: [ 3570.610602] NVRM: The NVIDIA Tesla K80 GPU "
    "installed in this system is\n"
    "Mar  3 13:08:28 ip-172-31-37-178 kernel: [ 3570.610602] NVRM:  supported through the NVIDIA "
    "470.xx Legacy drivers. Please\n"
    "Mar  3 13:08:28 ip-172-31-37-178 kernel: [ 3570.610602] NVRM:  visit "
    "http://www.nvidia.com/object/unix.html for more\n"
)


def _by_code(findings: list[Finding], code: str, subject: str = "") -> Finding:
    (found,) = [f for f in findings if f.code == code and (not subject or f.subject == subject)]
    return found


def test_legacy_line_explains_the_unbound_gpu(read: Read, matrix: Matrix) -> None:
    findings = run_checks(read(_LSPCI + _SMI + _LEGACY), matrix).findings
    legacy = _by_code(findings, "report-error", "driver-gpu-legacy")
    assert legacy.severity is Severity.ERROR
    assert "470.xx legacy driver branch" in legacy.fix
    unbound = _by_code(findings, "gpu-without-driver")
    assert unbound.severity is Severity.INFO
    assert "driver-gpu-legacy" in unbound.detail
    # nvidia-smi's failure follows from the same cause: not a second error
    assert _by_code(findings, "report-error", "nvidia-smi-no-driver").severity is Severity.INFO


def test_without_the_legacy_line_the_unbound_gpu_stays_an_error(read: Read, matrix: Matrix) -> None:
    findings = run_checks(read(_LSPCI + _SMI), matrix).findings
    assert _by_code(findings, "gpu-without-driver").severity is Severity.ERROR
    assert _by_code(findings, "report-error", "nvidia-smi-no-driver").severity is Severity.INFO


def _node(mig_count: int) -> str:
    return (
        "Capacity:\n  cpu:                    64\n  nvidia.com/gpu:         0\n"
        f"  nvidia.com/mig-1g.12gb: {mig_count}\n  nvidia.com/mig-3g.47gb: {mig_count}\n"
        "Allocatable:\n  cpu:                    64\n  nvidia.com/gpu:         0\n"
        f"  nvidia.com/mig-1g.12gb: {mig_count}\n  nvidia.com/mig-3g.47gb: {mig_count}\n"
    )


def test_zero_gpus_beside_mig_devices_is_the_mixed_strategy(read: Read, matrix: Matrix) -> None:
    findings = run_checks(read(_node(2)), matrix).findings
    zero = _by_code(findings, "report-error", "k8s-node-zero-gpus")
    assert zero.severity is Severity.INFO
    assert "mixed MIG strategy" in zero.detail


def test_zero_gpus_and_zero_mig_devices_stays_an_error(read: Read, matrix: Matrix) -> None:
    findings = run_checks(read(_node(0)), matrix).findings
    assert _by_code(findings, "report-error", "k8s-node-zero-gpus").severity is Severity.ERROR


# kubelet's structured log quotes the runtime's error inside err="...", so its quotes come
# escaped, nested once or twice (as journald shows the kubelet's line)
_KUBELET = (
    'kubelet[1311]: E0505 18:42:19.812688    1311 pod_workers.go:949] "Error syncing pod, '
    'skipping" err="failed to \\"CreatePodSandbox\\" for \\"nvidia-device-plugin\\" with '
    'CreatePodSandboxError: \\"Failed to create sandbox for pod: rpc error: code = Unknown '
    'desc = failed to get sandbox runtime: no runtime for \\\\\\"{name}\\\\\\" is configured\\""'
)


def test_escaped_quotes_of_a_kubelet_line_are_read(read: Read) -> None:
    assert _line_codes(read(_KUBELET.format(name="nvidia") + "\n")) == [
        "containerd-no-nvidia-runtime"
    ]


def test_escaped_quotes_around_another_runtime_are_not_it(read: Read) -> None:
    codes = _line_codes(read(_SMI + _KUBELET.format(name="kata") + "\n"))
    assert "containerd-no-nvidia-runtime" not in codes


def test_dockershim_refusing_the_nvidia_runtime_class_is_named(read: Read) -> None:
    # as the kubelet's event prints it, and with the quotes escaped once more in prose
    line = (
        "Warning  FailedCreatePodSandBox  5s  kubelet  Failed to create pod sandbox: rpc "
        'error: code = Unknown desc = RuntimeHandler "nvidia" not supported'
    )
    assert _line_codes(read(line + "\n")) == ["dockershim-runtime-class"]
    prose = 'It fails. The message "RuntimeHandler \\"nvidia\\" not supported" still keeps.'
    assert _line_codes(read(prose + "\n")) == ["dockershim-runtime-class"]


def test_another_runtime_handler_or_containerd_wording_is_not_dockershim(read: Read) -> None:
    codes = _line_codes(read(_SMI + 'RuntimeHandler "kata" not supported\n'))
    assert "dockershim-runtime-class" not in codes
    codes = _line_codes(read(_KUBELET.format(name="nvidia") + "\n"))
    assert codes == ["containerd-no-nvidia-runtime"]


@pytest.mark.parametrize(
    ("line", "code"),
    [
        (
            "E0120 07:09:15.605081       1 main.go:132] error starting plugins: unable to load "
            "config: unable to validate flags: using MPS requires --mps-root to be specified",
            "device-plugin-mps-root-missing",
        ),
        (
            "E0423 06:04:56.558122      39 main.go:301] Failed to start plugin: error waiting for "
            "MPS daemon: error checking MPS daemon health: failed to send command to MPS daemon: "
            "exit status 1",
            "device-plugin-mps-daemon-unreachable",
        ),
    ],
)
def test_mps_sharing_line_is_named(read: Read, line: str, code: str) -> None:
    assert _line_codes(read(line + "\n")) == [code]


@pytest.mark.parametrize(
    ("line", "not_code"),
    [
        # the plugin's healthy MPS start-up and a config that names the root
        ('    "mpsRoot": "/run/nvidia/mps",', "device-plugin-mps-root-missing"),
        (
            "I0423 06:04:56.480927      39 factory.go:104] Detected NVML platform: found NVML "
            "library",
            "device-plugin-mps-daemon-unreachable",
        ),
        # the control daemon's own start-up line is not the plugin failing to reach it
        (
            "[2024-06-10 15:16:40.777 Control 111377] Starting control daemon using socket "
            "/tmp/nvidia-mps/control",
            "device-plugin-mps-daemon-unreachable",
        ),
    ],
)
def test_mps_near_miss_is_not_named(read: Read, line: str, not_code: str) -> None:
    codes = _line_codes(read(_SMI + line + "\n"))
    assert "nvidia-smi-no-driver" in codes
    assert not_code not in codes


@pytest.mark.parametrize(
    "line",
    [
        "2019/04/05 04:02:20 Could not register device plugin: rpc error: code = Unimplemented "
        "desc = unknown service v1beta1.Registration",
        "2018/11/27 03:44:12 Could not register device plugin: context deadline exceeded",
        "2018/11/27 03:44:13 Could not contact Kubelet, retrying. Did you enable the device "
        "plugin feature gate?",
    ],
)
def test_kubelet_refusing_the_plugin_registration_is_named(read: Read, line: str) -> None:
    assert _line_codes(read(line + "\n")) == ["device-plugin-kubelet-registration"]


@pytest.mark.parametrize(
    "line",
    [
        # the healthy registration, and a registration error of another kind
        "2017/12/08 06:41:45 Registered device plugin with Kubelet",
        "Could not register device plugin: rpc error: code = Unknown desc = plugin name is "
        "already registered",
    ],
)
def test_registration_near_miss_is_not_named(read: Read, line: str) -> None:
    codes = _line_codes(read(_SMI + line + "\n"))
    assert "nvidia-smi-no-driver" in codes
    assert "device-plugin-kubelet-registration" not in codes


def test_device_plugin_reporting_a_lost_gpu_is_named(read: Read) -> None:
    line = (
        "Message:        Pod Allocate failed due to device plugin GetPreferredAllocation rpc "
        "failed with err: rpc error: code = Unknown desc = Unable to retrieve list of available "
        "devices: error creating nvml.Device 5: nvml: GPU is lost, which is unexpected"
    )
    assert _line_codes(read(line + "\n")) == ["device-plugin-gpu-lost"]


def test_nvidia_smi_lost_gpu_and_other_nvml_errors_are_not_the_plugin_line(read: Read) -> None:
    smi = (
        "Unable to determine the device handle for GPU 0000:C1:00.0: GPU is lost.  Reboot the "
        "system to recover this GPU"
    )
    assert _line_codes(read(smi + "\n")) == ["nvml-gpu-handle"]
    other = "error creating nvml.Device 5: nvml: Insufficient Permissions"
    assert "device-plugin-gpu-lost" not in _line_codes(read(_SMI + other + "\n"))
