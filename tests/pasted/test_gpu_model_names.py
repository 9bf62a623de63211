"""GPU model names of the matrix's `[[architecture]]` rows (NVIDIA's CUDA GPUs pages): each
resolves to its own row's compute capability, as nvidia-smi prints it and as people write it in
prose; a longer name wins over a shorter one it contains, and a name on no list stays unknown."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted import gpu_names
from gpudoctor.pasted.build import compute_capability_for

Read = Callable[[str], HostFacts]


def _listed(matrix: Matrix) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for arch in matrix.architectures:
        for name in (*arch.datacenter_gpus, *arch.consumer_gpus):
            out.setdefault(name, set()).add(arch.compute_capability)
    return out


def test_every_listed_model_resolves_to_its_own_row(matrix: Matrix) -> None:
    listed = _listed(matrix)
    assert len(listed) > 100  # the lists of the CUDA GPUs pages, not a handful of examples
    for name, ccs in listed.items():
        # a name on two rows (Jetson AGX Thor: sm_101, renumbered sm_110) stays unknown
        want = next(iter(ccs)) if len(ccs) == 1 else None
        assert compute_capability_for(name, matrix.architectures) == want, name
        assert compute_capability_for("NVIDIA " + name, matrix.architectures) == want, name


@pytest.mark.parametrize(
    ("smi_name", "cc"),
    [
        ("NVIDIA RTX 6000 Ada Generation", "8.9"),
        ("NVIDIA RTX 4000 SFF Ada Generation", "8.9"),
        ("NVIDIA RTX 2000 Ada Generation", "8.9"),
        ("NVIDIA GeForce RTX 4060 Ti", "8.9"),
        ("Quadro RTX 6000", "7.5"),  # "RTX 6000" inside, but not the Ada card
        ("NVIDIA RTX A4000", "8.6"),
        ("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "12.0"),
        ("NVIDIA RTX PRO 4000 Blackwell", "12.0"),
        ("NVIDIA GeForce RTX 5060 Ti", "12.0"),
        ("NVIDIA TITAN X (Pascal)", "6.1"),
        ("GeForce GTX TITAN X", "5.2"),  # the Maxwell card holds "TITAN X" too: longer wins
        ("Quadro P4000", "6.1"),
        ("Quadro GV100", "7.0"),
        ("NVIDIA A100-SXM4-80GB", "8.0"),
        ("NVIDIA A10", "8.6"),
    ],
)
def test_nvidia_smi_names(matrix: Matrix, smi_name: str, cc: str) -> None:
    assert compute_capability_for(smi_name, matrix.architectures) == cc


def test_near_misses_stay_unknown(matrix: Matrix) -> None:
    archs = matrix.architectures
    # not on NVIDIA's CUDA GPUs page: no guess from its neighbours
    assert compute_capability_for("NVIDIA RTX 5880 Ada Generation", archs) is None
    assert compute_capability_for("NVIDIA RTX A1000 Laptop GPU", archs) is None
    assert compute_capability_for("NVIDIA GeForce RTX 4090 D", archs) == "8.9"  # holds "RTX 4090"


def test_prose_names_the_added_models(read: Read) -> None:
    facts = read("Hardware: 2x NVIDIA RTX 4000 Ada, driver 550.54.15\n")
    assert [(g.name, g.compute_capability) for g in facts.nvml.gpus] == [
        ("RTX 4000 Ada", "8.9")
    ] * 2
    facts = read("GPU: RTX PRO 6000 Blackwell Workstation Edition\n")
    assert [g.compute_capability for g in facts.nvml.gpus] == ["12.0"]
    facts = read("GPU: Quadro RTX 6000\n")
    assert [g.compute_capability for g in facts.nvml.gpus] == ["7.5"]
    facts = read("cluster: 4 x NVIDIA A100 80GB\n")
    assert [g.compute_capability for g in facts.nvml.gpus] == ["8.0"] * 4
    facts = read("driver 550.54.15 from NVIDIA; RTX 4090 here\n")  # no count: one GPU
    assert [g.compute_capability for g in facts.nvml.gpus] == ["8.9"]
    facts = read("Driver 550 NVIDIA GeForce RTX 4090\n")  # "550" is no count of 50
    assert [g.compute_capability for g in facts.nvml.gpus] == ["8.9"]


def test_ambiguity_rule_still_holds(read: Read, matrix: Matrix) -> None:
    facts = read("tried it on A10/A100 GPUs\n")
    assert [g.compute_capability for g in facts.nvml.gpus] == [None]
    facts = read("tried it on RTX 6000 Ada/RTX A6000 GPUs\n")
    assert [g.compute_capability for g in facts.nvml.gpus] == [None]
    models = gpu_names.gpu_models(matrix.architectures)
    assert models[("H100",)] == {"9.0"}
    assert models[("JETSON", "AGX", "THOR")] == {"10.1", "11.0"}


def test_jetson_modules_as_people_name_them(read: Read) -> None:
    # the matrix lists "Jetson Orin Nano", "Jetson AGX Xavier", ...: people drop "Jetson", swap
    # the words, name the family, or end the sentence on the name
    for text, cc in (
        ("I hit the same issue on a Jetson Orin Nano.\n", "8.7"),
        ("board: Orin AGX 64GB, JetPack 6\n", "8.7"),
        ("Jetson Nano Orin: libnvidia-ml.so does not found\n", "8.7"),
        ("GPU models and configuration: GPU 0: Orin (nvgpu)\n", "8.7"),
        ("flashed my AGX Xavier with JetPack 5.1.2\n", "7.2"),
        ("it runs on a Xavier NX\n", "7.2"),
    ):
        facts = read(text)
        assert [g.compute_capability for g in facts.nvml.gpus] == [cc], text
        assert facts.nvml.gpus[0].name.startswith("Jetson "), text
    # "Jetson Nano" stays the Nano (sm_53) when no other word follows
    assert [g.compute_capability for g in read("on my Jetson Nano.\n").nvml.gpus] == ["5.3"]


def test_a_jetson_family_word_alone_needs_a_gpu_word(read: Read, matrix: Matrix) -> None:
    # near misses: a user or a host named "orin", a person named Xavier, "Nano" alone
    for text in ("cd /home/orin/tools && python x.py\n", "Thanks Xavier, that helped\n"):
        facts = read("Ubuntu 22.04, kernel 5.15.0-91-generic\n" + text)
        assert facts.nvml.gpus == (), text
    models = gpu_names.gpu_models(matrix.architectures)
    assert ("NANO",) not in models
    assert ("AGX",) not in models
    assert models[("ORIN",)] == {"8.7"}
    assert models[("XAVIER",)] == {"7.2"}


def test_a_listed_product_and_its_gpu_name_the_same_model(read: Read, matrix: Matrix) -> None:
    # the matrix lists "DGX Spark (GB10)"; nvidia-smi names the GPU "NVIDIA GB10"
    assert compute_capability_for("NVIDIA GB10", matrix.architectures) == "12.1"
    assert [g.compute_capability for g in read("GPU: NVIDIA GB10\n").nvml.gpus] == ["12.1"]
    assert [g.compute_capability for g in read("on my DGX Spark, GPU idle\n").nvml.gpus] == ["12.1"]
    # near miss: a size written against the unit is no GPU
    assert compute_capability_for("NVIDIA GB100", matrix.architectures) is None
