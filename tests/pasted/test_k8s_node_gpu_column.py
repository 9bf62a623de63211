"""`kubectl get nodes -o custom-columns=...:.status.allocatable.nvidia\\.com/gpu` asked for the
nodes' GPUs: a listing in which no node has one (<none>, or "none" where a Markdown renderer
took <none> for a tag; the table quoted with "> " in a reply) says the device plugin registered
no GPU anywhere (k8s-gpu-unhealthy warns), while a listing in which some node has GPUs, or one
without a GPU column, says nothing is wrong."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import findings_of, warn_or_error

Read = Callable[[str], HostFacts]

_COMMAND = (
    'microk8s.kubectl get nodes "-o=custom-columns=NAME:.metadata.name,'
    'GPU:.status.allocatable.nvidia\\.com/gpu"\n'
)


@pytest.mark.parametrize(
    "table",
    [
        _COMMAND + "NAME     GPU\nathena   <none>\n",
        # quoted in a reply, <none> eaten to "none" by the renderer
        "> " + _COMMAND + "> NAME     GPU\n> athena   none\n",
        _COMMAND + "NAME      GPU\nnode-a    <none>\nnode-b    0\n",
    ],
)
def test_a_gpu_column_empty_in_every_row_warns(read: Read, matrix: Matrix, table: str) -> None:
    facts = read(table)
    assert facts.platform.k8s_gpu_allocatable == 0
    (found,) = [f for f in findings_of(read, matrix, table) if f.code == "k8s-gpu-unhealthy"]
    assert found.severity is Severity.WARN
    assert found.title.startswith("no node listed advertises nvidia.com/gpu")


def test_a_listing_where_some_node_has_gpus_is_quiet(read: Read, matrix: Matrix) -> None:
    # CPU nodes answer <none>: the GPU node's 8 is what a GPU pod gets
    table = _COMMAND + "NAME        GPU\ncpu-node    <none>\ngpu-node    8\n"
    assert read(table).platform.k8s_gpu_allocatable == 8
    assert warn_or_error(findings_of(read, matrix, table)) == []


def test_a_listing_without_a_gpu_column_is_quiet(read: Read, matrix: Matrix) -> None:
    table = (
        "kubectl get nodes -o custom-columns=NAME:.metadata.name,CPU:.status.allocatable.cpu\n"
        "NAME     CPU\nathena   <none>\n"
    )
    assert not [
        f
        for f in findings_of(read, matrix, table)
        if f.code == "k8s-gpu-unhealthy" and f.severity is not Severity.NA
    ]
