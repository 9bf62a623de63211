"""Lines of DCGM exporters, the toolkit installer and the kubelet on Kubernetes nodes, Slurm and
mig-parted on MIG GPUs, and the loader and the runtime hook on a Jetson, pasted as they are
printed: each is named by its signature, the cause and fix carry the line's own values, and a
near miss (the same program's line with another cause) is not named."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix

Read = Callable[[str], HostFacts]


def _line_codes(facts: HostFacts) -> list[str]:
    return [e.code for e in facts.report.errors] if facts.report else []


def _finding(findings: list[Finding], subject: str) -> Finding:
    (found,) = [f for f in findings if f.code == "report-error" and f.subject == subject]
    return found


@pytest.mark.parametrize(
    ("line", "code"),
    [
        # dcgm-exporter before 2.1.2 exits when DCGM's profiling module is not loaded
        (
            'time="2021-02-03T09:14:22Z" level=fatal msg="Error watching fields: This request '
            'is serviced by a module of DCGM that is not currently loaded"',
            "dcgm-exporter-profiling-module-fatal",
        ),
        # the same DCGM status from a newer exporter's collector, and from dcgmi
        (
            "level=ERROR msg=\"DCGM collector for entity type 'GPU' cannot be initialized; err: "
            "error watching fields: The third-party Profiling module returned an unrecoverable "
            'error"',
            "dcgm-profiling-counters-busy",
        ),
        (
            "Error: unable to resume profiling metrics: The third-party Profiling module "
            "returned an unrecoverable error.",
            "dcgm-profiling-counters-busy",
        ),
        (
            'nvidia-container-toolkit-ctr time="2023-03-02T08:01:13Z" level=warning '
            'msg="Error signaling containerd, attempt 1/6: unable to dial: dial unix '
            '/runtime/sock-dir/containerd.sock: connect: no such file or directory"',
            "toolkit-containerd-socket-missing",
        ),
        # the installer's final error, whichever way the restart failed
        (
            'nvidia-container-toolkit-ctr time="2024-03-01T12:00:01Z" level=fatal '
            'msg="error running nvidia-toolkit: unable to setup runtime: unable to restart '
            "containerd: unable to send SIGHUP to 'containerd' process: no such process\"",
            "toolkit-runtime-restart-failed",
        ),
        (
            'level=warning msg="Skipping restart of crio due to --restart-mode=none"',
            "toolkit-runtime-restart-skipped",
        ),
        (
            "[2024-02-07T10:12:01.123] fatal: MIG mode is enabled, but no MIG devices were "
            "found. Please either create MIG instances, disable MIG mode, remove "
            "AutoDetect=nvml, or remove GPUs from the configuration completely.",
            "slurm-mig-no-instances",
        ),
        (
            'time="2023-08-14T12:00:41Z" level=error msg="Error applying MIG configuration: '
            "error attempting multiple config orderings: unsupported MIG Device specified "
            '3g.40gb, expected 3g.39gb instead"',
            "mig-profile-name-mismatch",
        ),
        (
            "OSError: /usr/lib/aarch64-linux-gnu/libcudnn.so.8: file too short",
            "library-file-too-short",
        ),
        # the hook's refusal of `--gpus` on a Jetson (csv mode), as Docker relays it
        (
            "docker: Error response from daemon: failed to create shim: OCI runtime create "
            "failed: container_linux.go:380: starting container process caused: "
            "process_linux.go:545: container init caused: Running hook #0:: error running hook: "
            "exit status 1, stdout: , stderr: Auto-detected mode as 'csv' invoking the NVIDIA "
            "Container Runtime Hook directly (e.g. specifying the docker --gpus flag) is not "
            "supported. Please use the NVIDIA Container Runtime instead.: unknown.",
            "container-hook-gpus-flag-refused",
        ),
        # GKE's device plugin init container on a node pool without driver installation
        (
            "GPU driver auto installation is disabled.",
            "gke-driver-install-disabled",
        ),
        # a shared (time-sliced) GPU asked for twice, refused by the device plugin
        (
            "  Warning  UnexpectedAdmissionError  4s    kubelet  Allocate failed due to rpc "
            "error: code = Unknown desc = request for 'nvidia.com/gpu.shared: 4' too large: "
            "maximum request size for shared resources is 1, which is unexpected",
            "k8s-shared-gpu-request-too-large",
        ),
        # the device plugin's health check, as older and newer releases word it
        (
            "2020/12/08 09:14:02 XidCriticalError: Xid=79 on Device=GPU-5d5ba0d6-d33d-2b2c-"
            "524d-9e3d8d2b8a77, the device will go unhealthy.",
            "device-plugin-xid-unhealthy",
        ),
        (
            "I0705 11:02:17.334120       1 health.go:162] XidCriticalError: Xid=94 on "
            "Device=MIG-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f; marking device as unhealthy.",
            "device-plugin-xid-unhealthy",
        ),
        # the toolkit reading a containerd config template as TOML
        (
            'nvidia-container-toolkit-ctr time="2022-09-26T15:50:01Z" level=fatal msg="Error: '
            "unable to load config: (6, 21): unexpected token type in inline table: keys "
            'cannot contain { character"',
            "toolkit-containerd-config-template",
        ),
        # a Jetson's runtime mounting L4T's libraries over the image's own copy
        (
            "stderr: nvidia-container-cli: mount error: file creation failed: /var/lib/docker/"
            "overlay2/1f0c/merged/usr/lib/aarch64-linux-gnu/libcublas.so.10: file exists: unknown.",
            "jetson-image-bundles-host-libraries",
        ),
        # newer plugins word it as an invalid request, with what was found
        (
            "request for \u201cnvidia.com/gpu\u201d: invalid request: maximum request size for "
            "shared resources is 1; found 10, which is unexpected",
            "k8s-shared-gpu-request-too-large",
        ),
        # the kubelet's admission error as some clusters print it, without the space
        (
            "Message:         Pod Allocate failed due to requested number of devices "
            "unavailable for nvidia.com/gpu. Requested:2, Available: 1, which is unexpected",
            "kubelet-device-allocate",
        ),
    ],
)
def test_line_is_named(read: Read, line: str, code: str) -> None:
    assert _line_codes(read(line + "\n")) == [code]


_SMI = (
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure "
    "that the latest NVIDIA driver is installed and running.\n"
)


@pytest.mark.parametrize(
    ("line", "not_code"),
    [
        # a newer exporter skips the DCP metrics and runs on: not the fatal exit
        (
            'level=info msg="Not collecting DCP metrics: This request is serviced by a module of '
            'DCGM that is not currently loaded"',
            "dcgm-exporter-profiling-module-fatal",
        ),
        # a GPU without profiling support: nothing holds the counters
        (
            'level=fatal msg="Error watching fields: Profiling is not supported for this group '
            'of GPUs or GPU"',
            "dcgm-profiling-counters-busy",
        ),
        # the socket exists and containerd is restarting: the path is right
        (
            'level=warning msg="Error signaling containerd, attempt 1/6: unable to dial: dial '
            'unix /runtime/sock-dir/containerd.sock: connect: connection refused"',
            "toolkit-containerd-socket-missing",
        ),
        # the installer restarted containerd: no failure
        (
            'level=info msg="Successfully signaled containerd"',
            "toolkit-runtime-restart-failed",
        ),
        # another restart mode: the runtime is restarted
        (
            'level=info msg="Restarting crio on host using systemd: [chroot /host systemctl '
            'restart crio]"',
            "toolkit-runtime-restart-skipped",
        ),
        # nvidia-smi's own words when no GPU has MIG on: not slurmd's
        ("No MIG-enabled devices found.", "slurm-mig-no-instances"),
        (
            "error creating Compute instance for '1g.10gb': Insufficient Resources",
            "mig-profile-name-mismatch",
        ),
        # a missing library, not an empty one; and an empty library that is not CUDA's
        (
            "ImportError: libcublas.so.10: cannot open shared object file: No such file or "
            "directory",
            "library-file-too-short",
        ),
        ("ImportError: /usr/lib/libgomp.so.1: file too short", "library-file-too-short"),
        # the runtime's own hook error (the driver is missing): not the --gpus refusal
        (
            "nvidia-container-cli: initialization error: nvml error: driver not loaded: unknown",
            "container-hook-gpus-flag-refused",
        ),
        # an Xid the plugin skips (an application error) is logged without the verdict
        (
            "I0705 11:02:17.334120       1 health.go:120] Skipping event {Device:{Handle:"
            "0x7f1c} EventType:8 EventData:43 GpuInstanceId:4294967295}",
            "device-plugin-xid-unhealthy",
        ),
        # another TOML error in the toolkit's config: not a template
        (
            "ERRO[0000] unable to create config: (25, 1): parsing error: keys cannot contain / "
            "character",
            "toolkit-containerd-config-template",
        ),
        # a driver file in an x86 image: the driver-files entry, not the Jetson one
        (
            "nvidia-container-cli: mount error: file creation failed: /var/lib/docker/overlay2/"
            "40c7/merged/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1: file exists: unknown.",
            "jetson-image-bundles-host-libraries",
        ),
        # the same init container on a pool whose driver GKE installs, before it is ready
        ("Waiting for GPU driver libraries to be available.", "gke-driver-install-disabled"),
        (
            "Warning  UnexpectedAdmissionError  10s   kubelet  Allocate failed due to rpc error: "
            "code = Unavailable desc = error reading from server: EOF, which is unexpected",
            "kubelet-device-allocate",
        ),
    ],
)
def test_near_miss_is_not_named(read: Read, line: str, not_code: str) -> None:
    # beside a line that is read, so that the paste as a whole is recognised
    codes = _line_codes(read(_SMI + line + "\n"))
    assert "nvidia-smi-no-driver" in codes
    assert not_code not in codes


def test_profile_mismatch_names_the_profile_the_gpu_lists(read: Read, matrix: Matrix) -> None:
    line = "unsupported MIG Device specified 2g.20gb, expected 2g.24gb instead\n"
    found = _finding(run_checks(read(line), matrix).findings, "mig-profile-name-mismatch")
    assert found.severity is Severity.ERROR
    assert "2g.24gb" in found.fix
    assert "2g.20gb" in found.detail


def test_socket_cause_names_the_path_the_installer_tried(read: Read, matrix: Matrix) -> None:
    line = (
        "Error signaling containerd, attempt 6/6: unable to dial: dial unix "
        "/run/containerd/containerd.sock: connect: no such file or directory\n"
    )
    found = _finding(run_checks(read(line), matrix).findings, "toolkit-containerd-socket-missing")
    assert found.severity is Severity.ERROR
    assert "/run/containerd/containerd.sock" in found.detail
    assert "CONTAINERD_SOCKET" in found.fix


def test_shared_request_fix_asks_for_one_replica(read: Read, matrix: Matrix) -> None:
    line = (
        "Allocate failed due to rpc error: code = Unknown desc = request for 'nvidia.com/gpu: 2' "
        "too large: maximum request size for shared resources is 1, which is unexpected\n"
    )
    found = _finding(run_checks(read(line), matrix).findings, "k8s-shared-gpu-request-too-large")
    assert "`nvidia.com/gpu: 1`" in found.fix
    assert "asked for more" in found.detail
    # the kubelet's generic admission entry does not claim the line too
    codes = _line_codes(read(line))
    assert codes == ["k8s-shared-gpu-request-too-large"]


def test_unhealthy_gpu_names_its_xid(read: Read, matrix: Matrix) -> None:
    line = "XidCriticalError: Xid=119 on Device=GPU-1; marking device as unhealthy.\n"
    found = _finding(run_checks(read(line), matrix).findings, "device-plugin-xid-unhealthy")
    assert found.severity is Severity.ERROR
    assert "Xid 119" in found.detail
    assert "DP_DISABLE_HEALTHCHECKS" in found.fix


def test_profiling_lines_are_warnings_not_errors(read: Read, matrix: Matrix) -> None:
    # the GPUs work; only the exporter's profiling metrics are missing
    text = (
        'level=fatal msg="Failed to watch metrics: Error watching fields: The third-party '
        'Profiling module returned an unrecoverable error"\n'
    )
    found = _finding(run_checks(read(text), matrix).findings, "dcgm-profiling-counters-busy")
    assert found.severity is Severity.WARN
    assert "dcgmi profile --pause" in found.fix


def test_empty_library_fix_names_the_library(read: Read, matrix: Matrix) -> None:
    text = "ImportError: /usr/local/cuda/lib64/libcudart.so.10.2: file too short\n"
    found = _finding(run_checks(read(text), matrix).findings, "library-file-too-short")
    assert "libcudart.so.10.2" in found.fix
    assert "--runtime nvidia" in found.fix


def test_restart_failure_names_the_runtime_and_its_error(read: Read, matrix: Matrix) -> None:
    line = (
        'level=fatal msg="error running nvidia-ctk-installer: unable to setup runtime: unable to '
        'restart crio: error restarting crio using systemd: exit status 1"\n'
    )
    found = _finding(run_checks(read(line), matrix).findings, "toolkit-runtime-restart-failed")
    assert found.severity is Severity.ERROR
    assert "error restarting crio using systemd: exit status 1" in found.detail
    assert "crio's config" in found.fix
    assert "restart crio on the node" in found.fix
