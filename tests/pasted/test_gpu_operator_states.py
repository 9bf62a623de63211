"""The GPU Operator's own reconcile log: the first state not ready (the operand that holds the
rest), NFD labels missing, no GPU node; and "ClusterPolicy is ready." making an earlier
not-ready line of the same log harmless start-up."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of, warn_or_error

Read = Callable[[str], HostFacts]

NOT_READY = (
    '{"level":"info","ts":1701250000.1,"logger":"controllers.ClusterPolicy","msg":"ClusterPolicy '
    'isn\'t ready","states not ready":["state-container-toolkit","state-operator-validation",'
    '"state-device-plugin"]}\n'
)
CONSOLE = (
    "2023-11-29T10:00:00Z\tINFO\tcontrollers.ClusterPolicy\tClusterPolicy isn't ready\t"
    '{"states not ready": ["state-driver", "state-container-toolkit"]}\n'
)
READY = (
    '{"level":"info","ts":1701250123.4,"logger":"controllers.ClusterPolicy",'
    '"msg":"ClusterPolicy is ready."}\n'
)


def test_the_first_state_not_ready_is_named(read: Read, matrix: Matrix) -> None:
    for text, state in ((NOT_READY, "state-container-toolkit"), (CONSOLE, "state-driver")):
        (line,) = error_lines(findings_of(read, matrix, text), "gpu-operator-states-not-ready")[:1]
        assert line.severity is Severity.WARN
        assert f"first state not ready is {state}" in line.detail


def test_near_miss_a_ready_operator_after_start_up_is_quiet(read: Read, matrix: Matrix) -> None:
    findings = findings_of(read, matrix, NOT_READY + READY)
    assert not warn_or_error(findings)
    (line,) = error_lines(findings, "gpu-operator-states-not-ready")[:1]
    assert line.severity is Severity.INFO
    # a step log of a ready state is no not-ready line
    step = '{"msg":"INFO: ClusterPolicy step completed","state:":"state-driver","status":"ready"}\n'
    assert not error_lines(findings_of(read, matrix, step + READY), "gpu-operator-states-not-ready")


def test_nfd_labels_missing_and_no_gpu_node(read: Read, matrix: Matrix) -> None:
    nfd = "WARNING: NFD labels missing in the cluster, GPU nodes cannot be discovered.\n"
    (line,) = error_lines(findings_of(read, matrix, nfd), "gpu-operator-nfd-labels-missing")
    assert line.severity is Severity.ERROR
    assert "nfd.enabled" in line.fix
    none = (
        '{"level":"info","msg":"No GPU node found, watching for new nodes to join the cluster.",'
        '"hasNFDLabels":true}\n'
    )
    (gpu,) = error_lines(findings_of(read, matrix, none), "gpu-operator-no-gpu-node")
    assert "pci-10de.present" in gpu.detail
    # near miss: the device plugin's "No devices found" has its own entry
    plugin = "I0412 10:11:12.123456 1 main.go:292] No devices found. Waiting indefinitely.\n"
    assert not error_lines(findings_of(read, matrix, plugin), "gpu-operator-no-gpu-node")


def test_the_toolkit_validation_line_is_named_by_its_own_entry_first(read: Read) -> None:
    """The validator's line also holds the generic "nvidia-smi: executable file not found": the
    specific entry comes first in the catalogue and names it."""
    line = (
        'time="2021-10-07T15:16:34Z" level=info msg="Error: error validating toolkit '
        'installation: exec: \\"nvidia-smi\\": executable file not found in $PATH"\n'
    )
    facts = read(line)
    assert facts.report is not None
    assert [e.code for e in facts.report.errors] == ["gpu-operator-toolkit-validation"]
