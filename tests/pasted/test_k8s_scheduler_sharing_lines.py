"""GPU scheduling and sharing software on Kubernetes besides NVIDIA's device plugin: HAMi-core's
in-container errors ("[HAMI-core ERROR ...]"), HAMi's admission webhook and Allocate errors,
Volcano's GPU device plugin, kueue's quota messages for GPU resources, KAI Scheduler's GPU
sharing checks, NVIDIA's DRA driver (ComputeDomain, feature gates, its Helm chart) and Ray's
autoscaler. Each line is named by its entry with the line's values in the cause or fix, a near
miss is not, and the healthy logs of the same programs raise nothing."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.errors import FactsError
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of, named_lines, warn_or_error

Read = Callable[[str], HostFacts]

_HC = "[HAMI-core ERROR (pid:118 thread=139871140554560 multiprocess_memory_limit.c:1089)]: "
_ADMISSION = (
    "  Warning  UnexpectedAdmissionError  10s   kubelet  Allocate failed due to rpc error: "
)
_KUEUE = "  Warning  Pending  2m  kueue-admission  couldn't assign flavors to pod set main: "
_KLOG = "E0115 10:00:00.000200       1 device_state.go:776] "


@pytest.mark.parametrize(
    ("line", "code", "severity", "carried"),
    [
        (
            "[HAMI-core ERROR (pid:118 thread=139871140554560 allocator.c:52)]: Device 1 OOM "
            "17213423616 / 8589934592",
            "hami-core-oom",
            Severity.ERROR,
            "8589934592 bytes",
        ),
        (
            _HC + "Limit inconsistency detected for 0th device, 8589934592 expected, get "
            "4294967296",
            "hami-core-limit-inconsistent",
            Severity.ERROR,
            "set up with 4294967296 bytes",
        ),
        (
            _HC + "Cannot acquire lock after 5 minutes, owner=214",
            "hami-core-shrreg-lock",
            Severity.ERROR,
            "process 214",
        ),
        (
            _HC + "Fail to open shrreg /tmp/cudevshr.cache: errno=13",
            "hami-core-shrreg-failed",
            Severity.ERROR,
            "open its shared region file /tmp/cudevshr.cache (errno 13",
        ),
        (
            _HC + "The current version number 1.5 is different from the file's version number 1.4",
            "hami-core-shrreg-version",
            Severity.ERROR,
            "HAMi-core 1.5 opened a shared region file written by HAMi-core 1.4",
        ),
        (
            _ADMISSION + "code = Unknown desc = pod annotation format error, missing fields, do "
            "not use nodeName in task spec, which is unexpected",
            "hami-pod-annotation-missing",
            Severity.ERROR,
            "spec.nodeName",
        ),
        (
            'admission webhook "vgpu.hami.io" denied the request: invalid '
            "nvidia.com/gpumem-percentage value 150 in container trainer: must be an integer "
            "between 0 and 100",
            "hami-gpumem-percentage-invalid",
            Severity.ERROR,
            "container trainer asks for nvidia.com/gpumem-percentage = 150",
        ),
        (
            'Error from server (Forbidden): error when creating "pod.yaml": admission webhook '
            '"vgpu.hami.io" denied the request: container cuda is privileged',
            "hami-webhook-denied",
            Severity.ERROR,
            "(container cuda is privileged)",
        ),
        (
            _ADMISSION + "code = Unknown desc = failed to find candidate pod, which is unexpected",
            "volcano-vgpu-no-candidate-pod",
            Severity.ERROR,
            "schedulerName: volcano",
        ),
        (
            _KUEUE + "resource nvidia.com/gpu unavailable in ClusterQueue",
            "kueue-gpu-not-in-clusterqueue",
            Severity.ERROR,
            "no resourceGroup of its ClusterQueue covers nvidia.com/gpu",
        ),
        (
            _KUEUE + "insufficient quota for nvidia.com/gpu in flavor a100, previously considered "
            "podsets requests (2) + current podset request (16) > maximum capacity (8)",
            "kueue-gpu-quota-exceeds",
            Severity.ERROR,
            "asks for 16 nvidia.com/gpu (plus 2 for its other pod sets)",
        ),
        (
            _KUEUE + "insufficient unused quota for nvidia.com/gpu in flavor h100-flavor, 4 more "
            "needed",
            "kueue-gpu-quota-in-use",
            Severity.WARN,
            "flavor h100-flavor",
        ),
        (
            'admission webhook "gpusharing.kai.scheduler" denied the request: cannot have both '
            "GPU fraction request and whole GPU resource request/limit",
            "kai-gpu-sharing-request-invalid",
            Severity.ERROR,
            "(cannot have both GPU fraction request and whole GPU resource request/limit)",
        ),
        (
            "gpu-fraction annotation value must be a positive number smaller than 1.0",
            "kai-gpu-sharing-request-invalid",
            Severity.ERROR,
            "smaller than 1.0",
        ),
        (
            "Error: CDI container edits did not apply -- is CDI enabled in your container runtime?",
            "dra-compute-domain-cdi-disabled",
            Severity.ERROR,
            "CDI",
        ),
        (
            _KLOG + "IMEXDaemonsWithDNSNames feature requires GPU driver version >= 570.158.01, "
            "but found 565.57.1",
            "dra-imex-dns-names-driver-too-old",
            Severity.ERROR,
            "needs GPU driver 570.158.01 or newer, and this node runs 565.57.1",
        ),
        (
            "Error: feature gate validation failed: feature gate DynamicMIG is currently mutually "
            "exclusive with PassthroughSupport",
            "dra-feature-gates-conflict",
            Severity.ERROR,
            "feature gate DynamicMIG is currently mutually exclusive with PassthroughSupport",
        ),
        (
            "No supported resource.k8s.io API version found in the cluster.",
            "dra-resource-api-missing",
            Severity.ERROR,
            "resource.k8s.io",
        ),
        (
            "  Warning  FailedPrepareDynamicResources  4s  kubelet  Failed to prepare dynamic "
            "resources: NodePrepareResources failed for claim default/gpu-claim: prepare devices "
            "failed: MPS is not yet supported when using featureGates.DynamicMIG=true",
            "dra-mps-dynamic-mig",
            Severity.ERROR,
            "DynamicMIG",
        ),
        (
            "(autoscaler +1m5s) Error: No available node types can fulfill resource request "
            "{'CPU': 1.0, 'GPU': 4.0}. Add suitable node types to this cluster to resolve this "
            "issue.",
            "ray-gpu-request-infeasible",
            Severity.ERROR,
            "offers 4.0 GPU(s) on one node",
        ),
        (
            "(autoscaler +2m2s) Warning: The following resource request cannot be scheduled right "
            "now: {'GPU': 2.0}. This is likely due to all cluster resources being claimed by "
            "actors. Consider creating fewer actors or adding more nodes to this Ray cluster.",
            "ray-gpu-request-pending",
            Severity.WARN,
            "once 2.0 GPU(s) are free",
        ),
    ],
)
def test_the_line_is_named_with_its_values(
    read: Read, matrix: Matrix, line: str, code: str, *, severity: Severity, carried: str
) -> None:
    (found,) = named_lines(read, matrix, line, code)
    assert found.severity is severity
    assert carried in found.detail + " " + (found.fix or "")


def test_the_values_reach_the_fix(read: Read, matrix: Matrix) -> None:
    line = _KUEUE + (
        "insufficient quota for nvidia.com/gpu in flavor a100, previously considered podsets "
        "requests (0) + current podset request (16) > maximum capacity (8)"
    )
    (found,) = named_lines(read, matrix, line, "kueue-gpu-quota-exceeds")
    assert found.fix is not None
    assert "at most 8 nvidia.com/gpu" in found.fix
    assert "flavor a100" in found.fix
    imex = _KLOG + (
        "IMEXDaemonsWithDNSNames feature requires GPU driver version >= 570.158.01, but found "
        "560.35.03"
    )
    (found,) = named_lines(read, matrix, imex, "dra-imex-dns-names-driver-too-old")
    assert found.fix is not None
    assert "570.158.01 or newer" in found.fix


@pytest.mark.parametrize(
    "line",
    [
        _ADMISSION + "code = Unknown desc = pod annotation format error, missing fields, do not "
        "use nodeName in task spec, which is unexpected",
        _ADMISSION + "code = Unknown desc = failed to find candidate pod, which is unexpected",
    ],
)
def test_a_sharing_plugins_allocate_error_is_not_left_to_the_generic_entry(
    read: Read, matrix: Matrix, line: str
) -> None:
    findings = findings_of(read, matrix, line)
    assert not error_lines(findings, "device-plugin-allocate-rpc-failed")
    assert [f.severity for f in findings if f.code == "report-error"] == [Severity.ERROR]


def test_hami_cores_oom_explains_the_frameworks_out_of_memory(read: Read, matrix: Matrix) -> None:
    text = (
        "[HAMI-core Msg(118:139871140554560:libvgpu.c:836)]: Initializing.....\n"
        "[HAMI-core ERROR (pid:118 thread=139871140554560 allocator.c:52)]: Device 0 OOM "
        "10737418240 / 4294967296\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 6.00 GiB. GPU 0 has a "
        "total capacity of 4.00 GiB of which 1.20 GiB is free.\n"
    )
    lines = {f.subject: f.severity for f in findings_of(read, matrix, text) if f.subject}
    assert lines.get("hami-core-oom") is Severity.ERROR
    assert lines.get("cuda-out-of-memory") is Severity.INFO


@pytest.mark.parametrize(
    ("line", "code"),
    [
        # HAMi-core's ordinary messages: start-up, exit and its allocation trace
        ("[HAMI-core Msg(1:140235494377280:libvgpu.c:836)]: Initializing.....", "hami-core-oom"),
        (
            "[HAMI-core Info(42:140001:allocator.c:49)]: _usage=1048576 limit=8589934592 "
            "new_allocated=3145728",
            "hami-core-oom",
        ),
        (
            "[HAMI-core Info(9:1400:multiprocess_memory_limit.c:1168)]: SM limit inconsistency "
            "detected for 0th device, 0 expected, get 50",
            "hami-core-limit-inconsistent",
        ),
        # a quota of CPUs, not GPUs: not a GPU matter
        (
            _KUEUE + "insufficient unused quota for cpu in flavor default-flavor, 2 more needed",
            "kueue-gpu-quota-in-use",
        ),
        (_KUEUE + "resource memory unavailable in ClusterQueue", "kueue-gpu-not-in-clusterqueue"),
        # Ray's requests without GPUs
        (
            "(autoscaler +2s) Error: No available node types can fulfill resource request "
            "{'CPU': 64.0}. Add suitable node types to this cluster to resolve this issue.",
            "ray-gpu-request-infeasible",
        ),
        # the DRA plugin's own start-up lines around the driver check
        (
            "I0115 10:00:00.000100       1 device_state.go:762] Minimum required version: "
            "570.158.01",
            "dra-imex-dns-names-driver-too-old",
        ),
        ("featureGates.DynamicMIG=true", "dra-mps-dynamic-mig"),
        ("feature gate DynamicMIG is enabled", "dra-feature-gates-conflict"),
        # another webhook's denial
        (
            'admission webhook "validate.kyverno.svc" denied the request: container cuda is '
            "privileged",
            "hami-webhook-denied",
        ),
    ],
)
def test_a_near_miss_is_not_named(read: Read, matrix: Matrix, line: str, code: str) -> None:
    try:
        named = named_lines(read, matrix, line, code)
    except FactsError:  # a line that is no report at all is refused: not named either
        return
    assert not named


@pytest.mark.parametrize(
    "text",
    [
        "[HAMI-core Msg(1:140235494377280:libvgpu.c:836)]: Initializing.....\n"
        "[HAMI-core Msg(1:140235494377280:multiprocess_memory_limit.c:497)]: Calling exit "
        "handler 1\n",
        "  Normal  QuotaReserved  2m   kueue-admission  Quota reserved in ClusterQueue "
        "cluster-queue, wait time since queued was 1s\n"
        "  Normal  Admitted       2m   kueue-admission  Admitted by ClusterQueue cluster-queue, "
        "wait time since reservation was 0s\n",
        "I0115 10:00:00.000000       1 device_state.go:761] Starting driver version validation "
        "for IMEXDaemonsWithDNSNames feature...\n"
        "I0115 10:00:00.000100       1 device_state.go:762] Minimum required version: "
        "570.158.01\n",
        "I0301 10:01:02.000000       1 server.go:372] Got candidate Pod "
        "1c2f4b1e-3f0e-4a57-9a54-0b9a7d0e6f11(cuda), the device count is: 1\n",
    ],
)
def test_the_healthy_logs_raise_nothing(read: Read, matrix: Matrix, text: str) -> None:
    try:
        findings = findings_of(read, matrix, text)
    except FactsError:  # not a report at all: nothing judged
        return
    assert warn_or_error(findings) == []
