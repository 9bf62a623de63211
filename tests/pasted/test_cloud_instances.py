"""Cloud instance types (the matrix's `[[cloud_instance]]` rows, from the providers' size
tables) read as the GPUs they hold when a paste names no GPU itself; and the models the CUDA
GPUs pages list that the rows gained (legacy Quadro, notebook GeForce)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest

from gpudoctor.errors import FactsError
from gpudoctor.facts import HostFacts
from gpudoctor.matrix.fields import Problems
from gpudoctor.matrix.load import load_matrix
from gpudoctor.matrix.model import CloudInstance, Matrix
from gpudoctor.matrix.validate import cross_check
from gpudoctor.pasted import cloud
from gpudoctor.pasted.build import compute_capability_for
from gpudoctor.pasted.draft import Draft

Read = Callable[[str], HostFacts]


def _gpus(facts: HostFacts) -> list[tuple[str | None, str | None]]:
    return [(g.name, g.compute_capability) for g in facts.nvml.gpus]


@pytest.mark.parametrize(
    ("text", "name", "cc", "count"),
    [
        ("Instance type: p4d.24xlarge\n", "A100", "8.0", 8),
        ("instance-type: p4de.24xlarge\n", "A100 80GB", "8.0", 8),
        ("running on a g4dn.xlarge, driver 535.104.05\n", "Tesla T4", "7.5", 1),
        ("node.kubernetes.io/instance-type=g4dn.12xlarge\n", "Tesla T4", "7.5", 4),
        ("EC2 g4dn.metal host\n", "Tesla T4", "7.5", 8),
        ("Instance: p3.8xlarge\n", "Tesla V100", "7.0", 4),
        ("Instance: p3dn.24xlarge\n", "Tesla V100", "7.0", 8),
        ("instance type g5.48xlarge\n", "A10G", None, 8),  # no NVIDIA page lists the A10G
        ("instance type g5g.16xlarge\n", "T4G", None, 2),
        ("vm size: Standard_NC96ads_A100_v4\n", "A100 80GB", "8.0", 4),
        ("node.kubernetes.io/instance-type=standard_nc24ads_a100_v4\n", "A100 80GB", "8.0", 1),
        ("VM: ND96asr_v4\n", "A100 40GB", "8.0", 8),  # Azure's size without "Standard_"
        ("Standard_ND96isr_H100_v5\n", "H100", "9.0", 8),
        ("Standard_NC64as_T4_v3\n", "Tesla T4", "7.5", 4),
    ],
)
def test_an_instance_type_names_its_gpus(
    read: Read, text: str, name: str, cc: str | None, count: int
) -> None:
    facts = read(text)
    assert _gpus(facts) == [(name, cc)] * count
    assert "cloud instance type" in facts.report.sections
    assert any(f"read as {count} x {name}" in note for note in facts.report.notes)


def test_a_gpu_the_paste_names_wins(read: Read) -> None:
    facts = read("Instance type: p4d.24xlarge\nGPU: NVIDIA GeForce RTX 4090\n")
    assert _gpus(facts) == [("GeForce RTX 4090", "8.9")]
    listing = "GPU 0: Tesla T4 (UUID: GPU-1a2b3c4d-0000-0000-0000-000000000001)\n"
    facts = read("instance p4d.24xlarge\n" + listing)
    assert _gpus(facts) == [("Tesla T4", "7.5")]
    assert "cloud instance type" not in facts.report.sections


def test_the_model_word_inside_an_azure_size_is_not_a_gpu_of_its_own(read: Read) -> None:
    # the prose reader sees "A100" in the size's name: the size says how many and which
    facts = read("Standard_ND96amsr_A100_v4\n")
    assert _gpus(facts) == [("A100 80GB", "8.0")] * 8
    assert "facts in text" not in facts.report.sections


@pytest.mark.parametrize(
    "text",
    [
        "we moved from g5 to g6 last month\n",  # a family alone is no instance type
        "the p3 step of the pipeline failed\n",
        "version p4.2 released, upgraded to p4 of the plan\n",
        "Standard_D4s_v3 runs the web tier, m5.xlarge the queue\n",  # no GPU in these
        "see my-g5.xlarge-pool and g5.xlargeish\n",  # inside another word
    ],
)
def test_near_misses_name_no_gpu(read: Read, text: str) -> None:
    with pytest.raises(FactsError):
        read(text)
    facts = read("Ubuntu 22.04, kernel 5.15.0-91-generic\n" + text)
    assert facts.nvml.gpus == ()


def test_an_instance_type_needs_the_table(matrix: Matrix) -> None:
    draft = Draft()
    cloud.parse("Instance type: p4d.24xlarge\n", draft, matrix.architectures, rows=())
    assert draft.gpus == {}
    row = CloudInstance(
        "https://example.com/sizes", (), True, "", "", "x9", "aws", "A100", ("x9.2xlarge=2",)
    )
    cloud.parse("on x9.2xlarge\n", draft, matrix.architectures, rows=(row,))
    assert [g["name"] for g in draft.gpus.values()] == ["A100", "A100"]


def test_every_instance_type_is_listed_once(matrix: Matrix) -> None:
    assert len(matrix.cloud_instances) >= 10
    names = [e.rpartition("=")[0].lower() for r in matrix.cloud_instances for e in r.instances]
    assert len(names) == len(set(names))
    for row in matrix.cloud_instances:
        assert row.source.startswith("https://"), row.family
        assert all(count > 0 for count in row.gpu_counts().values()), row.family
    twice = dataclasses.replace(matrix.cloud_instances[0], family="copy")
    doubled = dataclasses.replace(matrix, cloud_instances=(*matrix.cloud_instances, twice))
    problems = Problems("compat.toml")
    cross_check(doubled, problems)
    first = matrix.cloud_instances[0].instances[0].rpartition("=")[0].lower()
    assert any(f"{first} is listed twice" in line for line in problems.lines), problems.lines


def test_every_row_gpu_with_a_listed_model_resolves(matrix: Matrix) -> None:
    archs = matrix.architectures
    unknown = {r.gpu for r in matrix.cloud_instances if not compute_capability_for(r.gpu, archs)}
    assert unknown == {"A10G", "T4G"}  # not on NVIDIA's CUDA GPUs pages


@pytest.mark.parametrize(
    ("smi_name", "cc"),
    [
        # legacy CUDA GPUs page (developer.nvidia.com/cuda-legacy-gpus), 6.1, 5.2 and 5.0 rows
        ("Quadro P400", "6.1"),
        ("Quadro P620", "6.1"),
        ("Quadro P5200", "6.1"),
        ("Quadro P3200", "6.1"),
        ("Quadro M6000 24GB", "5.2"),
        ("Quadro M2200", "5.2"),
        ("GeForce GTX 980M", "5.2"),
        ("Quadro K620", "5.0"),
        ("Quadro M1200", "5.0"),
        ("Quadro M2000M", "5.0"),  # not the M2000 (5.2): whole tokens
        ("NVIDIA NVS 810", "5.0"),
    ],
)
def test_legacy_models_resolve(matrix: Matrix, smi_name: str, cc: str) -> None:
    assert compute_capability_for(smi_name, matrix.architectures) == cc


def test_added_models_keep_the_old_names_apart(matrix: Matrix, read: Read) -> None:
    archs = matrix.architectures
    assert compute_capability_for("Quadro M2000", archs) == "5.2"
    assert compute_capability_for("Quadro M5000", archs) == "5.2"
    assert compute_capability_for("Quadro M5000M", archs) == "5.0"
    assert compute_capability_for("Quadro P4000", archs) == "6.1"
    assert compute_capability_for("NVIDIA A10", archs) == "8.6"
    assert compute_capability_for("NVIDIA A10G", archs) is None  # "A10" is a whole word
    assert compute_capability_for("Tesla P100-PCIE-16GB", archs) == "6.0"  # not the P1000
    facts = read("GPU 0: Quadro P400 (UUID: GPU-1a2b3c4d-0000-0000-0000-000000000001)\n")
    assert _gpus(facts) == [("Quadro P400", "6.1")]


def test_the_shipped_matrix_loads_the_table() -> None:
    assert load_matrix().cloud_instances
