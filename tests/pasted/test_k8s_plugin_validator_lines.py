"""Kubernetes GPU-stack lines found missing on threads nobody tuned on: the device plugin's and
GPU feature discovery's "No valid resources detected" (newer releases print it instead of
"could not load NVML"), the GPU Operator validator's "No pre-installed driver detected on the
host: exit status N" (the host's nvidia-smi ran and failed), and a crash-looping pod row next to
its own log's warning line. Each test pastes a short text in the tools' own words (not a
thread's) and a near miss that must stay quiet."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of, warn_or_error

Read = Callable[[str], HostFacts]


def test_no_valid_resources_names_the_runtime(read: Read, matrix: Matrix) -> None:
    text = (
        "I0301 08:00:00.100000       1 main.go:256] Retrieving plugins.\n"
        "W0301 08:00:00.150000       1 factory.go:31] No valid resources detected, "
        "creating a null CDI handler\n"
    )
    (line,) = error_lines(findings_of(read, matrix, text), "device-plugin-no-resources")
    assert line.severity is Severity.ERROR
    assert "default runtime" in line.detail


def test_gfd_empty_manager_is_the_same_cause(read: Read, matrix: Matrix) -> None:
    text = "2024/05/01 10:00:00 WARNING: No valid resources detected; using empty manager.\n"
    (line,) = error_lines(findings_of(read, matrix, text), "device-plugin-no-resources")
    assert line.severity is Severity.ERROR


def test_a_plugin_that_found_nvml_is_quiet(read: Read, matrix: Matrix) -> None:
    text = (
        "I0301 08:00:00.200000       1 factory.go:107] Detected NVML platform: found NVML library\n"
        "I0301 08:00:00.300000       1 server.go:117] Starting to serve 'nvidia.com/gpu' on "
        "/var/lib/kubelet/device-plugins/nvidia-gpu.sock\n"
        "I0301 08:00:00.400000       1 server.go:125] Registered device plugin for "
        "'nvidia.com/gpu' with Kubelet\n"
    )
    findings = findings_of(read, matrix, text)
    assert not error_lines(findings, "device-plugin-no-resources")
    assert warn_or_error(findings) == []


def test_host_nvidia_smi_exit_status_explains_the_validation_wait(
    read: Read, matrix: Matrix
) -> None:
    text = (
        'time="2025-02-01T09:00:00Z" level=info msg="Attempting to validate a pre-installed '
        'driver on the host"\n'
        'time="2025-02-01T09:00:01Z" level=info msg="No pre-installed driver detected on the '
        'host: exit status 14"\n'
        'time="2025-02-01T09:00:01Z" level=info msg="Validating containerized driver '
        'installation"\n'
        'time="2025-02-01T09:00:01Z" level=warning msg="failed to validate the driver, retrying '
        'after 5 seconds"\n'
    )
    findings = findings_of(read, matrix, text)
    (line,) = error_lines(findings, "gpu-operator-host-smi-failed")
    assert line.severity is Severity.ERROR
    assert "status 14" in line.detail
    assert "infoROM" in line.detail
    (waiting,) = error_lines(findings, "gpu-operator-driver-not-validated")
    assert waiting.severity is Severity.INFO


def test_no_nvidia_smi_on_the_host_is_not_a_failed_run(read: Read, matrix: Matrix) -> None:
    # A node whose driver the operator's container brings has no host nvidia-smi: the
    # validator says so and moves on; that is no failed nvidia-smi run.
    text = (
        'time="2025-02-01T09:00:01Z" level=info msg="No pre-installed driver detected on the '
        "host: no 'nvidia-smi' file present on the host: lstat /host/usr/bin/nvidia-smi: "
        'no such file or directory"\n'
    )
    assert not error_lines(findings_of(read, matrix, text), "gpu-operator-host-smi-failed")


_EXPORTER_ROW = "dcgm-exporter-abcde                0/1     CrashLoopBackOff   9          30m\n"


def test_a_crash_looping_row_yields_to_its_kubernetes_warning_line(
    read: Read, matrix: Matrix
) -> None:
    text = _EXPORTER_ROW + (
        'time="2024-01-01T00:00:00Z" level=fatal msg="Error watching fields: This request is '
        'serviced by a module of DCGM that is not currently loaded"\n'
    )
    findings = findings_of(read, matrix, text)
    (row,) = error_lines(findings, "k8s-pod-failing")
    assert row.severity is Severity.INFO
    assert "dcgm-exporter-profiling-module-fatal" in row.detail
    (cause,) = error_lines(findings, "dcgm-exporter-profiling-module-fatal")
    assert cause.severity is Severity.WARN


def test_a_warning_of_another_layer_leaves_the_row_an_error(read: Read, matrix: Matrix) -> None:
    # A framework's build warning says nothing of why a pod exits: the row stays the error.
    text = _EXPORTER_ROW + "No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda'\n"
    findings = findings_of(read, matrix, text)
    (row,) = error_lines(findings, "k8s-pod-failing")
    assert row.severity is Severity.ERROR


def _node(allocatable: int, held: int) -> str:
    return (
        "Allocatable:\n"
        "  cpu:             32\n"
        f"  nvidia.com/gpu:  {allocatable}\n"
        "  pods:            110\n"
        "Allocated resources:\n"
        "  (Total limits may be over 100 percent, i.e., overcommitted.)\n"
        "  Resource           Requests     Limits\n"
        "  --------           --------     ------\n"
        "  cpu                2 (6%)       4 (12%)\n"
        f"  nvidia.com/gpu     {held}            {held}\n"
        "Events:              <none>\n"
        "  Warning  FailedScheduling  20s  default-scheduler  0/3 nodes are available: "
        "3 Insufficient nvidia.com/gpu.\n"
    )


def test_the_allocated_table_is_read(read: Read) -> None:
    report = read(_node(4, 3)).report
    assert report is not None
    assert report.k8s_gpu_allocated == 3


def test_insufficient_on_a_full_node_is_no_fault(read: Read, matrix: Matrix) -> None:
    findings = findings_of(read, matrix, _node(2, 2))
    (line,) = error_lines(findings, "k8s-insufficient-gpu")
    assert line.severity is Severity.INFO
    assert "already request 2" in line.detail
    assert warn_or_error(findings) == []


def test_insufficient_with_a_free_gpu_stays_an_error(read: Read, matrix: Matrix) -> None:
    (line,) = error_lines(findings_of(read, matrix, _node(2, 1)), "k8s-insufficient-gpu")
    assert line.severity is Severity.ERROR


def test_an_exporter_address_without_its_colon(read: Read, matrix: Matrix) -> None:
    text = (
        'time="2024-03-01T10:00:00Z" level=fatal msg="Failed to Listen and Server HTTP server '
        'with err: `listen tcp: address 9500: missing port in address`"\n'
    )
    (line,) = error_lines(findings_of(read, matrix, text), "dcgm-exporter-listen-address")
    assert "9500" in line.detail


def test_a_port_in_use_is_not_a_missing_colon(read: Read, matrix: Matrix) -> None:
    text = (
        'time="2024-03-01T10:00:00Z" level=fatal msg="Failed to Listen and Server HTTP server '
        'with err: `listen tcp :9400: bind: address already in use`"\n'
    )
    assert not error_lines(findings_of(read, matrix, text), "dcgm-exporter-listen-address")
