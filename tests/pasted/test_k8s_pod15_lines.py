"""Round 15, Kubernetes pod side: the device plugin's MIG-permission line as people retype it.

go-nvlib's VisitMigProfiles (vendored by the device plugin) prints "error getting device memory
info: %v" for a MIG-capable GPU only, %v being NVML's "Insufficient Permissions"; the vendor's
prefix names the line even where the NVML word was misspelt by hand, and NVML's other
"Insufficient ..." answers stay out."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.errors import FactsError
from gpudoctor.facts import HostFacts

Read = Callable[[str], HostFacts]

_CHAIN = (
    "error starting plugins: unable to add default resources to config: error visiting devices: "
    "error visiting device: error getting device memory info: "
)


def _codes(read: Read, text: str) -> list[str]:
    try:
        facts = read(text + "\n")
    except FactsError:
        return []
    return [e.code for e in facts.report.errors] if facts.report else []


@pytest.mark.parametrize("word", ["Insufficient Permissions", "Insufficient Permisions"])
def test_memory_info_permission_line_is_mig_monitor_devices(read: Read, word: str) -> None:
    assert _codes(read, _CHAIN + word) == ["mig-monitor-devices"]


@pytest.mark.parametrize(
    "line",
    [
        # NVML's other "Insufficient" answers are not the MIG monitoring permission
        _CHAIN + "Insufficient Power",
        _CHAIN + "Insufficient Resources",
        # a misspelling without the vendor's prefix is not read as its line
        "nvml: Insufficient Permisions",
    ],
)
def test_other_insufficient_answers_are_not_mig_monitor_devices(read: Read, line: str) -> None:
    assert "mig-monitor-devices" not in _codes(read, line)
