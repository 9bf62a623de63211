"""The GPU Operator's operands' own failure lines, as `kubectl logs -n gpu-operator <pod>` prints
them: dcgm-exporter and its DCGM bindings, nvidia-mig-parted and the MIG Manager, the operator's
validator (cmd/nvidia-validator) and the k8s-driver-manager. Each line is named by its own entry
as an error with the values it states in cause or fix; the same program's healthy lines, and
near misses of each message, are not named."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of, warn_or_error

Read = Callable[[str], HostFacts]
# A fact line, so that a near miss alone is still a report that is read.
HOST = "Driver Version: 550.54.15\n"
_TS = 'time="2025-03-04T10:12:01Z" '
_SLOG = "time=2025-03-04T10:12:01.000Z "
_ERR = _TS + 'level=info msg="Error: '


@pytest.mark.parametrize(
    ("line", "code", "carried"),
    [
        (
            _TS + 'level=fatal msg="Error connecting to nv-hostengine: Host engine connection '
            'invalid/disconnected"',
            "dcgm-hostengine-unreachable",
            ["Host engine connection invalid/disconnected"],
        ),
        (
            _SLOG + 'level=ERROR msg="Failed to connect to remote hostengine" '
            'address=10.0.0.7:5555 error="error connecting to nv-hostengine: Connection to the '
            'host engine is not valid any longer"',
            "dcgm-hostengine-unreachable",
            ["Connection to the host engine is not valid any longer"],
        ),
        (
            _SLOG + 'level=ERROR msg="libdcgm.so.4 not found"',
            "dcgm-library-not-found",
            ["libdcgm.so.4"],
        ),
        (
            _TS + 'level=fatal msg="Failed to Listen and Server HTTP server with err: '
            '`listen tcp :9401: bind: address already in use`"',
            "dcgm-exporter-port-in-use",
            [":9401", "grep :9401"],
        ),
        (
            _SLOG + 'level=ERROR msg="Failed to Listen and Server HTTP server." '
            'error="listen tcp 0.0.0.0:9500: bind: address already in use"',
            "dcgm-exporter-port-in-use",
            ["0.0.0.0:9500", "grep :9500"],
        ),
        (
            _SLOG + "level=ERROR msg=\"Could not read metrics file '/etc/dcgm-exporter/my.csv'; "
            'err: open /etc/dcgm-exporter/my.csv: no such file or directory"',
            "dcgm-exporter-counters-file-unreadable",
            ["/etc/dcgm-exporter/my.csv", "no such file or directory"],
        ),
        (
            _TS + 'level=error msg="Error applying MIG configuration with hooks: cannot set MIG '
            'config on non MIG-capable GPU"',
            "mig-gpu-not-mig-capable",
            [],
        ),
        (
            _TS + 'level=error msg="Error: failed to setup MIG config: dynamic generation failed '
            'and no default config available: no MIG profiles discovered"',
            "mig-manager-config-setup-failed",
            ["no MIG profiles discovered"],
        ),
        (
            _ERR + "error validating driver installation: error creating symlinks: failed to "
            'create symlink /dev/char/195:254: no such file or directory"',
            "gpu-operator-driver-not-ready",
            ["/dev/char/195:254"],
        ),
        (
            _ERR + 'error validating toolkit installation: exit status 127"',
            "gpu-operator-toolkit-not-ready",
            ["exit status 127"],
        ),
        (
            _ERR + "error validating vfio-pci driver installation: device not bound to "
            "'vfio-pci'; device: 0000:af:00.0 driver: 'nouveau'\"",
            "gpu-operator-vfio-not-bound",
            ["0000:af:00.0", "'nouveau'"],
        ),
        (
            _ERR + 'error validating MOFED driver installation: context deadline exceeded"',
            "gpu-operator-mofed-not-ready",
            ["context deadline exceeded"],
        ),
        (
            _ERR + 'error validating gdrcopy driver installation: exit status 1"',
            "gpu-operator-peer-module-not-ready",
            ["gdrcopy"],
        ),
        (
            _ERR + 'error validating vGPU devices: no vGPU devices found"',
            "gpu-operator-vgpu-not-ready",
            ["devices", "no vGPU devices found"],
        ),
        (
            _ERR + "error validating plugin installation: unable to find any allocatable GPU "
            'resource"',
            "gpu-operator-plugin-no-allocatable",
            [],
        ),
        (
            _TS + 'level=fatal msg="cannot proceed until all GPU pods are drained from the node"',
            "driver-manager-gpu-pods-not-drained",
            [],
        ),
        (
            _TS + 'level=fatal msg="failed to cleanup NVIDIA driver: rmmod: ERROR: Module '
            'nvidia is in use"',
            "driver-manager-uninstall-failed",
            ["cleanup NVIDIA driver", "Module nvidia is in use"],
        ),
        (
            _TS + 'level=fatal msg="failed to evict DRA kubelet-plugin: cannot drain the DRA '
            'kubelet-plugin: pod(s) still hold GPU resource claims: ml/train-3, ml/train-4"',
            "driver-manager-dra-claims-held",
            ["ml/train-3, ml/train-4"],
        ),
        (
            _TS + 'level=error msg="Failed to apply vGPU config: unable to apply config '
            "'L40S-8Q': vGPU type L40S-8Q is not supported on GPU "
            '(index=1, address=0000:5e:00.0)"',
            "vgpu-dm-type-not-supported",
            ["L40S-8Q", "0000:5e:00.0"],
        ),
        (
            _TS + 'level=error msg="Failed to apply vGPU config: unable to apply config '
            "'A10-6Q': failed to create 5 A10-6Q vGPU devices on the GPU. ensure '5' does not "
            "exceed the maximum supported instances for 'A10-6Q'\"",
            "vgpu-dm-too-many-instances",
            ["5 A10-6Q", "A10-6Q in the vGPU"],
        ),
        (
            _TS + 'level=error msg="Failed to apply vGPU config: unable to apply config '
            "'default': no parent devices found for GPU at index '3'\"",
            "vgpu-dm-no-parent-devices",
            ["GPU 3"],
        ),
        (
            _TS + 'level=fatal msg="Error selecting VGPU config: selected vgpu-config not '
            'present: A30-12C"',
            "vgpu-dm-config-not-present",
            ["'A30-12C'"],
        ),
        ("failed to load nvidia-peermem module", "driver-container-peermem-load-failed", []),
        (
            "Could not stop NVIDIA fabric manager daemon",
            "driver-container-daemon-stop-failed",
            ["NVIDIA fabric manager daemon"],
        ),
    ],
)
def test_operand_failure_lines_are_named(
    read: Read, matrix: Matrix, line: str, code: str, carried: list[str]
) -> None:
    (found,) = error_lines(findings_of(read, matrix, line + "\n"), code)
    assert found.severity is Severity.ERROR
    for value in carried:  # the line's own values, not a canned example
        assert value in found.detail + found.fix


def test_toolkit_nvidia_smi_missing_keeps_its_own_entry(read: Read, matrix: Matrix) -> None:
    line = _ERR + 'error validating toolkit installation: exec: \\"nvidia-smi\\": executable file '
    line += 'not found in $PATH"\n'
    findings = findings_of(read, matrix, line)
    assert error_lines(findings, "gpu-operator-toolkit-validation")
    assert not error_lines(findings, "gpu-operator-toolkit-not-ready")


def test_embedded_dcgm_without_nvml_keeps_its_own_entry(read: Read, matrix: Matrix) -> None:
    line = _TS + 'level=fatal msg="Error starting nv-hostengine: DCGM initialization error"\n'
    findings = findings_of(read, matrix, line)
    assert error_lines(findings, "dcgm-exporter-no-nvml")
    assert not error_lines(findings, "dcgm-hostengine-unreachable")


def test_mig_capability_explains_the_failed_step(read: Read, matrix: Matrix) -> None:
    paste = (
        _TS + 'level=error msg="Error applying MIG configuration with hooks: cannot set MIG mode '
        'on non MIG-capable GPU"\n'
        + _TS
        + 'level=error msg="Error: failed to apply MIG mode change: exit status 1"\n'
    )
    findings = findings_of(read, matrix, paste)
    (cause,) = error_lines(findings, "mig-gpu-not-mig-capable")
    (step,) = error_lines(findings, "mig-manager-step-failed")
    assert cause.severity is Severity.ERROR
    assert step.severity is Severity.INFO
    assert not error_lines(findings, "mig-parted-apply-failed")


@pytest.mark.parametrize(
    "line",
    [
        # Healthy progress lines of the same programs.
        _SLOG + 'level=INFO msg="Attempting to connect to remote hostengine at nvidia-dcgm:5555"',
        _TS + 'level=info msg="DCGM successfully initialized!"',
        _SLOG + 'level=INFO msg="Initialized DCGM Fields module."',
        _SLOG + 'level=INFO msg="Starting webserver"',
        _TS + 'level=info msg="Updating to MIG config: all-1g.10gb"',
        _TS + 'level=info msg="Using custom config: /mig-parted-config/config.yaml"',
        _TS + 'level=info msg="Detected pre-installed driver on the host"',
        _TS + 'level=info msg="GPUDirect RDMA is disabled, skipping MOFED driver validation..."',
        _TS + 'level=info msg="GPU resources are not yet discovered by the node, retry: 1"',
        _TS + 'level=info msg="Found 4 vGPU devices"',
        _TS + 'level=info msg="Attempting node drain"',
        _TS + 'level=info msg="Driver uninstallation completed successfully"',
        # Near misses: the words without the failure.
        _TS + 'level=info msg="error validating vGPU devices skipped: not a vGPU node"',
        "libdcgm.so.4 => /usr/lib/x86_64-linux-gnu/libdcgm.so.4 (0x00007f1c2a000000)",
        'tcp   LISTEN 0  4096  *:9400  *:*  users:(("dcgm-exporter",pid=4242,fd=3))',
        "Getting current value of the 'nvidia.com/gpu.deploy.dcgm-exporter' node label",
        _TS + 'level=info msg="Successfully updated to vGPU config: A10-4Q"',
        "successfully loaded nvidia-peermem module, now waiting for signal",
        "nvidia-peermem module already loaded, skipping modprobe",
        "Stopping NVIDIA persistence daemon...",
    ],
)
def test_healthy_operand_lines_are_not_named(read: Read, matrix: Matrix, line: str) -> None:
    findings = findings_of(read, matrix, HOST + line + "\n")
    assert warn_or_error(findings) == []
