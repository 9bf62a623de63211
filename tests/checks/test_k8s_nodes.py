"""The GPU nodes as the NVIDIA stack on Kubernetes sees them (checks/k8s_nodes.py): the device
plugin's MIG strategy against the node's MIG layout, and `kubectl get daemonsets` of the GPU
Operator against the nodes its operands should run on. Each rule with a near miss that stays
quiet."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.dispatch import read_report
from tests.support.pasted_findings import findings_of

Read = Callable[[str], HostFacts]
STATE = "k8s-gpu-node-state"


@pytest.fixture
def read(matrix: Matrix) -> Read:
    return lambda text: read_report(text, "paste.txt", matrix.architectures)


def _of(read: Read, matrix: Matrix, text: str, code: str) -> list[Finding]:
    return [f for f in findings_of(read, matrix, text) if f.code == code]


# --- MIG strategy --------------------------------------------------------------------------

_SMI_L_MIXED = """\
GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-1d3e2c9a-0b7e-4c59-9f43-2b1c7f8e9a01)
  MIG 3g.20gb     Device  0: (UUID: MIG-5c1e2a9b-8d7f-5e4a-9c3b-1a2b3c4d5e6f)
  MIG 1g.5gb      Device  1: (UUID: MIG-6d2f3b0c-9e8a-5f5b-0d4c-2b3c4d5e6f70)
"""


def test_helm_single_strategy_with_a_crash_looping_plugin_warns(read: Read, matrix: Matrix) -> None:
    text = (
        "nvidia-device-plugin container crash loop\n"
        "helm install --version=0.14.0 --generate-name --set migStrategy=single "
        "nvdp/nvidia-device-plugin\n"
    )
    (found,) = _of(read, matrix, text, "k8s-mig-strategy")
    assert found.severity is Severity.WARN
    assert "migStrategy=single" in found.title
    assert "migStrategy=mixed" in found.fix


def test_mig_strategy_variable_is_read(read: Read) -> None:
    assert read("MIG_STRATEGY=mixed\n").platform.k8s_mig_strategy == "mixed"
    assert read("  --mig-strategy=single\n").platform.k8s_mig_strategy == "single"
    # a paste that names two strategies (tried one, then the other) does not say which ran
    both = "MIG_STRATEGY=single\nMIG_STRATEGY=mixed\nnvidia-device-plugin crash loop\n"
    assert read(both).platform.k8s_mig_strategy is None


def test_single_strategy_without_a_failure_is_quiet(read: Read, matrix: Matrix) -> None:
    text = "helm install --set migStrategy=single nvdp/nvidia-device-plugin\n"
    (found,) = _of(read, matrix, text, "k8s-mig-strategy")
    assert found.severity is Severity.OK
    # the mixed strategy crash-looping is not this rule's to explain
    text = "nvidia-device-plugin container crash loop\n--set migStrategy=mixed\n"
    (found,) = _of(read, matrix, text, "k8s-mig-strategy")
    assert found.severity is Severity.OK


def test_single_strategy_with_two_profiles_is_an_error(read: Read, matrix: Matrix) -> None:
    (found,) = _of(read, matrix, "MIG_STRATEGY=single\n" + _SMI_L_MIXED, "k8s-mig-strategy")
    assert found.severity is Severity.ERROR
    assert "3g.20gb" in found.title
    assert "1g.5gb" in found.title
    # one profile on the GPU fits the single strategy
    one = _SMI_L_MIXED.replace("MIG 1g.5gb     ", "MIG 3g.20gb    ")
    (found,) = _of(read, matrix, "MIG_STRATEGY=single\n" + one, "k8s-mig-strategy")
    assert found.severity is Severity.OK


def test_mig_invalid_product_label_is_an_error(read: Read, matrix: Matrix) -> None:
    text = (
        "Labels:             nvidia.com/gpu.count=0\n"
        "                    nvidia.com/gpu.product=NVIDIA-A100-SXM4-40GB-MIG-INVALID\n"
        "                    nvidia.com/mig.strategy=single\n"
    )
    (found,) = _of(read, matrix, text, "k8s-mig-strategy")
    assert found.severity is Severity.ERROR
    assert "MIG-INVALID" in found.title
    good = text.replace("-MIG-INVALID", "-MIG-1g.5gb")
    (found,) = _of(read, matrix, good, "k8s-mig-strategy")
    assert found.severity is Severity.OK


# --- the GPU Operator's DaemonSets ---------------------------------------------------------


def _ds(*rows: str) -> str:
    """`kubectl get ds -n gpu-operator`: each row "NAME DESIRED CURRENT READY UP AVAIL SEL"."""
    head = "NAME|DESIRED|CURRENT|READY|UP-TO-DATE|AVAILABLE|NODE SELECTOR|AGE"
    width = (46, 9, 9, 7, 12, 11, 52, 5)
    return "".join(
        "".join(f"{c:<{w}}" for c, w in zip(line.split("|"), width)).rstrip() + "\n"
        for line in (head, *rows)
    )


_NFD_ROW = "gpu-operator-node-feature-discovery-worker|3|3|3|3|3|<none>|10m"


def test_operand_not_ready_is_named_in_the_operators_order(read: Read, matrix: Matrix) -> None:
    text = _ds(
        _NFD_ROW,
        "gpu-feature-discovery|2|2|1|2|1|nvidia.com/gpu.deploy.gpu-feature-discovery=true|10m",
        "nvidia-container-toolkit-daemonset|2|2|1|2|1|nvidia.com/gpu.deploy.container-toolkit=true|10m",
        "nvidia-driver-daemonset|2|2|2|2|2|nvidia.com/gpu.deploy.driver=true|10m",
    )
    (found,) = _of(read, matrix, text, "gpu-operator-nodes")
    assert found.severity is Severity.WARN
    assert "container toolkit" in found.title
    assert "gpu-feature-discovery" in found.detail  # it only waits on the toolkit


def test_operands_all_ready_are_ok(read: Read, matrix: Matrix) -> None:
    text = _ds(
        _NFD_ROW,
        "nvidia-device-plugin-daemonset|2|2|2|2|2|nvidia.com/gpu.deploy.device-plugin=true|10m",
        # the MIG manager wants no pod where no GPU is MIG-capable: not a problem
        "nvidia-mig-manager|0|0|0|0|0|nvidia.com/gpu.deploy.mig-manager=true|10m",
    )
    (found,) = _of(read, matrix, text, "gpu-operator-nodes")
    assert found.severity is Severity.OK
    assert read(text).platform.k8s_daemonsets[0].name.startswith("gpu-operator-node-feature")


def test_operands_with_no_node_name_the_labels(read: Read, matrix: Matrix) -> None:
    rows = (
        "nvidia-device-plugin-daemonset|0|0|0|0|0|nvidia.com/gpu.deploy.device-plugin=true|10m",
        "nvidia-driver-daemonset|0|0|0|0|0|nvidia.com/gpu.deploy.driver=true|10m",
    )
    (found,) = _of(read, matrix, _ds(_NFD_ROW, *rows), "gpu-operator-nodes")
    assert found.severity is Severity.WARN
    assert "pci-10de" in found.fix
    # and with no NFD worker listed, NFD is what is missing
    (found,) = _of(read, matrix, _ds(*rows), "k8s-nfd-labels")
    assert found.severity is Severity.WARN
    assert not _of(read, matrix, _ds(*rows), "gpu-operator-nodes")


def test_a_workload_daemonset_is_not_judged(read: Read, matrix: Matrix) -> None:
    text = _ds("fluent-bit|3|3|1|3|1|<none>|10m") + "MIG_STRATEGY=none\n"
    assert not read(text).platform.k8s_daemonsets
    assert not _of(read, matrix, text, "gpu-operator-nodes")


# --- the GPU node's state ------------------------------------------------------------------

_DESCRIBE = (
    "Labels:             nvidia.com/gpu.present=true\n"
    "                    nvidia.com/mig.config=all-1g.10gb\n"
    "                    nvidia.com/mig.config.state={state}\n"
)


def test_mig_config_state_failed_is_an_error(read: Read, matrix: Matrix) -> None:
    text = _DESCRIBE.format(state="failed")
    (found,) = _of(read, matrix, text, "k8s-gpu-node-state")
    assert found.severity is Severity.ERROR
    assert "all-1g.10gb" in found.title
    (found,) = _of(read, matrix, _DESCRIBE.format(state="success"), "k8s-gpu-node-state")
    assert found.severity is Severity.OK


_NODES = (
    "NAME     STATUS                     ROLES    AGE   VERSION   LABELS\n"
    "cpu-1    NotReady                   <none>   9d    v1.29.2   kubernetes.io/os=linux\n"
    "gpu-1    {status}   <none>   9d    v1.29.2   "
    "kubernetes.io/os=linux,nvidia.com/gpu.present=true,nvidia.com/gpu.count=8\n"
)


def test_gpu_node_not_ready_or_cordoned_warns(read: Read, matrix: Matrix) -> None:
    (found,) = _of(read, matrix, _NODES.format(status="NotReady               "), STATE)
    assert found.severity is Severity.WARN
    assert "gpu-1 (NotReady)" in found.title
    assert "cpu-1" not in found.title  # a node without GPU labels is not this check's
    (found,) = _of(read, matrix, _NODES.format(status="Ready,SchedulingDisabled"), STATE)
    assert found.severity is Severity.WARN
    assert "uncordon" in found.fix
    # a Ready GPU node beside a NotReady CPU node raises nothing
    assert not _of(read, matrix, _NODES.format(status="Ready                  "), STATE)


_COLUMNS = (
    "$ kubectl get nodes -L nvidia.com/gpu.present -L nvidia.com/mig.config.state\n"
    "NAME     STATUS                     ROLES           AGE   VERSION   GPU.PRESENT   "
    "MIG.CONFIG.STATE\n"
    "master   NotReady                   control-plane   30d   v1.28.4\n"
    "gpu-a    Ready                      <none>          30d   v1.28.4   true          {state}\n"
    "gpu-b    {status}   <none>          30d   v1.28.4   true          success\n"
)


def test_label_columns_are_read_by_their_header(read: Read, matrix: Matrix) -> None:
    text = _COLUMNS.format(state="failed ", status="Ready                   ")
    facts = read(text)
    labels = {i.name: i.value for i in facts.platform.k8s_node_labels}
    assert labels == {
        "nvidia.com/gpu.present": "true",
        "nvidia.com/mig.config.state": "failed,success",
    }
    (found,) = _of(read, matrix, text, STATE)
    assert found.severity is Severity.ERROR
    # the NotReady control plane has no GPU label (its cells are blank): not a GPU node
    quiet = _COLUMNS.format(state="success", status="Ready                   ")
    assert not read(quiet).platform.k8s_gpu_node_states
    (found,) = _of(read, matrix, quiet, STATE)
    assert found.severity is Severity.OK
    cordoned = _COLUMNS.format(state="success", status="Ready,SchedulingDisabled")
    (found,) = _of(read, matrix, cordoned, STATE)
    assert found.severity is Severity.WARN
    assert "gpu-b" in found.title
