"""A node's resources have one home (PlatformFacts.k8s_node_allocatable / k8s_node_capacity),
whichever way they were pasted: `kubectl describe node`, `get node -o yaml` / `-o json`, the
status maps printed alone, a `-o jsonpath` answer, a `-o custom-columns` table. The same node
told each way gives the same facts and the same findings."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from gpudoctor.errors import FactsError
from gpudoctor.facts import HostFacts
from gpudoctor.facts_json import dumps, loads
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import findings_of, warn_or_error

Read = Callable[[str], HostFacts]


def _describe(capacity: int | None, allocatable: int | None) -> str:
    def block(head: str, n: int | None) -> str:
        gpu = "" if n is None else f"  nvidia.com/gpu:     {n}\n"
        return (
            f"{head}:\n  cpu:                64\n  memory:             528000000Ki\n"
            f"{gpu}  pods:               110\n"
        )

    return (
        "Name:               gpu-node-1\n"
        "Labels:             nvidia.com/gpu.present=true\n"
        + block("Capacity", capacity)
        + block("Allocatable", allocatable)
    )


def _status(n: int | None) -> dict[str, str]:
    counts = {"cpu": "64", "memory": "528000000Ki", "pods": "110"}
    if n is not None:
        counts["nvidia.com/gpu"] = str(n)
    return counts


def _yaml(capacity: int | None, allocatable: int | None) -> str:
    def block(head: str, n: int | None) -> str:
        return f"  {head}:\n" + "".join(f'    {k}: "{v}"\n' for k, v in _status(n).items())

    return (
        "apiVersion: v1\nkind: Node\nmetadata:\n  labels:\n"
        '    nvidia.com/gpu.present: "true"\n  name: gpu-node-1\nstatus:\n'
        + block("allocatable", allocatable)
        + block("capacity", capacity)
    )


def _json(capacity: int | None, allocatable: int | None) -> str:
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "gpu-node-1", "labels": {"nvidia.com/gpu.present": "true"}},
        "status": {"allocatable": _status(allocatable), "capacity": _status(capacity)},
    }
    return "$ kubectl get node gpu-node-1 -o json\n" + json.dumps(node, indent=4) + "\n"


def _jsonpath(capacity: int | None, allocatable: int | None) -> str:
    return (
        "$ kubectl get node gpu-node-1 -o jsonpath='{.status.capacity}'\n"
        + json.dumps(_status(capacity), separators=(",", ":"))
        + "\n$ kubectl get node gpu-node-1 -o jsonpath='{.status.allocatable}'\n"
        + json.dumps(_status(allocatable), separators=(",", ":"))
        + "\n"
    )


def _columns(capacity: int | None, allocatable: int | None) -> str:
    def shown(n: int | None) -> str:
        return "<none>" if n is None else str(n)

    return (
        "$ kubectl get nodes -o custom-columns=NAME:.metadata.name,"
        "CAP:.status.capacity.nvidia\\.com/gpu,ALLOC:.status.allocatable.nvidia\\.com/gpu\n"
        "NAME         CAP      ALLOC\n"
        f"gpu-node-1   {shown(capacity)}        {shown(allocatable)}\n"
    )


FORMS = {"describe": _describe, "yaml": _yaml, "json": _json, "jsonpath": _jsonpath}


def _k8s_findings(read: Read, matrix: Matrix, text: str) -> list[tuple[str, str]]:
    shown = findings_of(read, matrix, text)
    bad = {code for code, _ in warn_or_error(shown)}
    return [
        (f.code, f.severity.value) for f in shown if f.code in bad and f.code.startswith("k8s-")
    ]


@pytest.mark.parametrize(
    ("capacity", "allocatable", "expected"),
    [
        (8, 6, [("k8s-gpu-unhealthy", "warn")]),  # two GPUs marked unhealthy
        (8, 8, []),
    ],
)
def test_one_node_told_each_way_gives_the_same_findings(
    read: Read, matrix: Matrix, capacity: int, allocatable: int, expected: list[tuple[str, str]]
) -> None:
    for name, form in {**FORMS, "custom-columns": _columns}.items():
        text = form(capacity, allocatable)
        p = read(text).platform
        assert (p.k8s_gpu_capacity, p.k8s_gpu_allocatable) == (capacity, allocatable), name
        assert _k8s_findings(read, matrix, text) == expected, name


def test_a_node_without_gpu_resources_is_the_same_each_way(read: Read, matrix: Matrix) -> None:
    """Capacity and Allocatable list cpu and pods and no nvidia.com/gpu on a node labelled
    nvidia.com/gpu.present=true: the device plugin registered none, however it was pasted."""
    for name, form in FORMS.items():
        text = form(None, None)
        p = read(text).platform
        assert (p.k8s_gpu_capacity, p.k8s_gpu_allocatable) == (0, 0), name
        # the jsonpath answer shows no label saying the node has a GPU: nothing to judge
        judged = [] if name == "jsonpath" else [("k8s-gpu-unhealthy", "warn")]
        assert _k8s_findings(read, matrix, text) == judged, name


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_pod_asking_more_than_the_node_allocates_is_judged_each_way(
    read: Read, matrix: Matrix, form: str
) -> None:
    pod = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: train\nspec:\n  containers:\n"
        "  - name: train\n    image: nvcr.io/nvidia/pytorch:24.01-py3\n"
        "    resources:\n      limits:\n        nvidia.com/gpu: {n}\n---\n"
    )
    node = FORMS[form](2, 2)
    assert ("k8s-gpu-request", "error") in _k8s_findings(read, matrix, pod.format(n=4) + node)
    assert _k8s_findings(read, matrix, pod.format(n=1) + node) == []


def test_the_resources_of_a_shared_gpu_reach_the_resource_name_check_from_a_describe(
    read: Read, matrix: Matrix
) -> None:
    """A time-sliced node (renameByDefault) told by `kubectl describe node`: its
    nvidia.com/gpu.shared is what k8s-gpu-resource-name compares a pod's ask with."""
    node = (
        "Name:               gpu-node-1\nCapacity:\n  cpu:                  32\n"
        "  nvidia.com/gpu:       0\n  nvidia.com/gpu.shared: 4\n  pods:                 110\n"
        "Allocatable:\n  cpu:                  32\n  nvidia.com/gpu:       0\n"
        "  nvidia.com/gpu.shared: 4\n  pods:                 110\n"
    )
    p = read(node).platform
    assert {i.name: i.value for i in p.k8s_node_allocatable}["nvidia.com/gpu.shared"] == "4"
    pod = (
        "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: a\n    resources:\n"
        "      limits:\n        nvidia.com/gpu: 1\n---\n"
    )
    assert ("k8s-gpu-resource-name", "error") in _k8s_findings(read, matrix, pod + node)


def test_a_map_printed_alone_is_the_nodes_allocatable(read: Read) -> None:
    alone = json.dumps(_status(3), separators=(",", ":")) + "\n"
    p = read("some text first\n" + alone).platform
    assert (p.k8s_gpu_capacity, p.k8s_gpu_allocatable) == (None, 3)
    # a map that names no cpu and pods is not a node's
    other = read('some text first\n{"nvidia.com/gpu":"3","replicas":"2"}\n').platform
    assert other.k8s_node_resources == ()


def test_custom_columns_need_their_command(read: Read) -> None:
    """A header alone does not say which path a column printed."""
    table = "NAME         CAP      ALLOC\ngpu-node-1   8        6\n"
    with pytest.raises(FactsError, match="no report recognised"):
        read(table)


def test_an_older_snapshots_node_counts_load_into_their_home(read: Read) -> None:
    """Snapshots written before the one home kept k8s_gpu_capacity/k8s_gpu_allocatable and
    k8s_node_resources: they load into k8s_node_capacity/k8s_node_allocatable."""
    facts = read(_describe(8, 6))
    data = json.loads(dumps(facts))
    platform = data["platform"]
    del platform["k8s_node_allocatable"], platform["k8s_node_capacity"]
    platform["k8s_gpu_capacity"] = 8
    platform["k8s_gpu_allocatable"] = 6
    platform["k8s_node_resources"] = [{"name": "nvidia.com/gpu.shared", "value": "12"}]
    older = loads(json.dumps(data)).platform
    assert (older.k8s_gpu_capacity, older.k8s_gpu_allocatable) == (8, 6)
    assert {i.name: i.value for i in older.k8s_node_allocatable} == {
        "nvidia.com/gpu": "6",
        "nvidia.com/gpu.shared": "12",
    }


def test_several_nodes_described_one_after_another_are_each_read(
    read: Read, matrix: Matrix
) -> None:
    """A CPU-only control-plane node described before a GPU node: two objects (YAML has no key
    twice), not the first node's blocks taken for both; the GPU node's counts are kept."""
    cpu_only = (
        "Name:               control-plane-1\nCapacity:\n  cpu:                8\n"
        "  pods:               110\nAllocatable:\n  cpu:                8\n"
        "  pods:               110\n\n"
    )
    text = cpu_only + _describe(4, 4)
    p = read(text).platform
    assert (p.k8s_gpu_capacity, p.k8s_gpu_allocatable) == (4, 4)
    assert _k8s_findings(read, matrix, text) == []
    # and the other way round: the GPU node's two unhealthy GPUs still show
    assert _k8s_findings(read, matrix, _describe(8, 6) + "\n" + cpu_only) == [
        ("k8s-gpu-unhealthy", "warn")
    ]


def test_a_pod_told_as_json_or_a_flow_mapping_is_judged_against_the_node(
    read: Read, matrix: Matrix
) -> None:
    """The pod's nvidia.com/gpu the object reader holds (a JSON pod, `limits: {...}`) is the
    one k8s-gpu-request compares with the node's Allocatable."""
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "train"},
        "spec": {
            "containers": [
                {"name": "t", "resources": {"limits": {"nvidia.com/gpu": "{n}"}}},
            ]
        },
    }
    as_json = "$ kubectl get pod train -o json\n" + json.dumps(pod, indent=4) + "\n"
    flow = (
        "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: t\n    resources:\n"
        "      limits: {nvidia.com/gpu: {n}}\n---\n"
    )
    node = _describe(2, 2)
    for told in (as_json, flow):
        asks_four = told.replace("{n}", "4") + node
        assert read(asks_four).platform.k8s_gpu_requested == 4
        assert _k8s_findings(read, matrix, asks_four) == [("k8s-gpu-request", "error")]
        assert _k8s_findings(read, matrix, told.replace("{n}", "1") + node) == []


@pytest.mark.parametrize("kind", ["allocatable", "capacity"])
def test_one_status_map_alone_without_gpus_on_a_labelled_node_is_judged(
    read: Read, matrix: Matrix, kind: str
) -> None:
    """Only one map pasted (`-o jsonpath='{.status.allocatable}'`) beside labels saying the node
    has GPUs: a map without nvidia.com/gpu says the plugin registered none, as both would."""
    labels = (
        "$ kubectl get node gpu-node-1 --show-labels | tr ',' '\\n' | grep nvidia\n"
        "nvidia.com/gpu.present=true\nnvidia.com/gpu.count=4\n"
    )
    answer = (
        f"$ kubectl get node gpu-node-1 -o jsonpath='{{.status.{kind}}}'\n"
        + json.dumps(_status(None), separators=(",", ":"))
        + "\n"
    )
    assert _k8s_findings(read, matrix, answer + labels) == [("k8s-gpu-unhealthy", "warn")]
    # the same map without the labels: a node with no sign of a GPU, nothing to judge
    assert _k8s_findings(read, matrix, answer) == []
    # a map that holds the GPUs is not judged by this rule
    gpus = answer.replace('"pods"', '"nvidia.com/gpu":"4","pods"')
    assert _k8s_findings(read, matrix, gpus + labels) == []


def _labelled(count: str, replicas: str, capacity: int, *extra: str) -> str:
    labels = [f"nvidia.com/gpu.count={count}", f"nvidia.com/gpu.replicas={replicas}", *extra]
    shown = "\n".join(" " * 20 + label for label in labels)
    return _describe(capacity, capacity).replace(
        "Labels:             nvidia.com/gpu.present=true\n",
        "Labels:             nvidia.com/gpu.present=true\n" + shown + "\n",
    )


@pytest.mark.parametrize(
    ("labels", "capacity", "expected"),
    [
        (("8", "1"), 2, [("k8s-gpu-unhealthy", "warn")]),  # 6 GPUs not registered
        (("2", "4"), 4, [("k8s-gpu-unhealthy", "warn")]),  # time-slicing not applied
        (("8", "1"), 8, []),
        (("2", "4"), 8, []),  # two GPUs shared four ways
        (("56", "1", "nvidia.com/mig.strategy=single"), 2, []),  # MIG: counts MIG devices
        (("8", "1", "nvidia.com/mig.strategy=mixed"), 2, []),
    ],
)
def test_a_node_registering_fewer_gpus_than_gfd_counts_is_judged(
    read: Read,
    matrix: Matrix,
    labels: tuple[str, ...],
    capacity: int,
    expected: list[tuple[str, str]],
) -> None:
    count, replicas, *extra = labels
    text = _labelled(count, replicas, capacity, *extra)
    assert _k8s_findings(read, matrix, text) == expected
    if expected:
        (found,) = [f for f in findings_of(read, matrix, text) if f.code == "k8s-gpu-unhealthy"]
        assert f"registers {capacity} nvidia.com/gpu" in found.title
        assert f"counts {count} GPU(s)" in found.title


@pytest.mark.parametrize("shared", ["nvidia.com/mig-1g.10gb: 7", "nvidia.com/gpu.shared: 4"])
def test_a_described_pods_limits_reach_the_resource_name_check(
    read: Read, matrix: Matrix, shared: str
) -> None:
    """The pod told by `kubectl describe pod` (its Limits block, not a spec) asks for
    nvidia.com/gpu on a node that advertises its GPUs under another name: one answer with the
    name to ask for, whichever reader saw the pod."""
    name, count = shared.split(": ")
    node = (
        "$ kubectl describe node gpu-node\nCapacity:\n  cpu:                     64\n"
        f"  nvidia.com/gpu:          0\n  {name}:  {count}\nAllocatable:\n"
        f"  cpu:                     64\n  nvidia.com/gpu:          0\n  {name}:  {count}\n"
    )
    pod = "$ kubectl describe pod trainer\n    Limits:\n      nvidia.com/gpu:  1\n"
    findings = findings_of(read, matrix, node + pod)
    [hit] = [f for f in findings if f.code == "k8s-gpu-resource-name"]
    assert hit.severity.value == "error"
    assert f"advertises {name}: {count}" in hit.title
    assert name in hit.fix
    assert [c for c, _ in warn_or_error(findings)] == ["k8s-gpu-resource-name"]
