"""A GeForce GPU named by vendor and number in prose ("2 nvidia 4090 card", "Nvidia 3090 * 8"):
the matrix's "GeForce RTX 4090" also written with the vendor before its bare number."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts

Read = Callable[[str], HostFacts]


@pytest.mark.parametrize(
    ("text", "count", "cc"),
    [
        ("learning how to deploy it on ubuntu24.04 with 2 nvidia 4090 card.\n", 2, "8.9"),
        ("Hi, was using Nvidia 3090 * 8\n", 8, "8.6"),
    ],
)
def test_vendor_and_number_names_the_geforce_model(
    read: Read, text: str, count: int, cc: str
) -> None:
    gpus = read(text + "Driver Version: 550.54.15\n").nvml.gpus
    assert len(gpus) == count
    assert {g.compute_capability for g in gpus} == {cc}


def test_a_bare_number_is_no_gpu(read: Read) -> None:
    # Near miss: the number alone (a port, a count) names no GPU.
    facts = read(
        "the server listens on port 4090 and 3090 requests failed\nDriver Version: 550.54.15\n"
    )
    assert facts.nvml.gpus == ()
