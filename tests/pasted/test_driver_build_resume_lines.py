"""Driver lines that threads outside the corpus paste: the older one-line form of the RM's
"fallen off the bus", akmods' build failure (Fedora, RPM Fusion, negativo17) and the RM's
resume without a saved suspend. Each is named by its own entry; near misses are not."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.errors import FactsError
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of

Read = Callable[[str], HostFacts]


def _codes(read: Read, text: str) -> list[str]:
    report = read(text).report
    assert report is not None
    return [e.code for e in report.errors]


@pytest.mark.parametrize(
    ("text", "code"),
    [
        # older drivers: "GPU at <bus> has fallen off the bus." (no "GPU" before "has")
        (
            "[   49.261458] NVRM: GPU at 0000:01:00.0 has fallen off the bus.\n"
            "[   49.261465] NVRM: os_pci_init_handle: invalid context!\n",
            "nvrm-fallen-off-bus",
        ),
        (
            "# akmods --force\n"
            "Checking kmods exist for 6.17.10-300.fc43.x86_64 [  OK  ]\n"
            "Building and installing nvidia-kmod                        [FAILED]\n",
            "akmods-build-failed",
        ),
        (
            "2026/02/11 18:46:34 akmods: Building rpms failed; see "
            "/var/cache/akmods/nvidia/590.48.01-1-for-6.18.8-200.fc43.x86_64.failed.log "
            "for details\n",
            "akmods-build-failed",
        ),
        (
            "[60417.854444] NVRM: memmgrRestorePowerMgmtState_KERNEL: !!!!! Calling Resume on "
            "an active GPU or the previous Suspend call might have failed !!!!!!\n"
            "[60417.854446] NVRM: memmgrRestorePowerMgmtState_KERNEL: !!!!! So ignoring the "
            "resume request !!!!!!\n",
            "nvrm-resume-without-suspend",
        ),
    ],
)
def test_the_lines_are_named_as_errors(read: Read, matrix: Matrix, text: str, code: str) -> None:
    assert code in _codes(read, text)
    (found,) = error_lines(findings_of(read, matrix, text), code)
    assert found.severity is Severity.ERROR


def test_the_old_fallen_off_bus_form_keeps_the_bus(read: Read, matrix: Matrix) -> None:
    text = "NVRM: GPU at 0000:01:00.0 has fallen off the bus.\n"
    (found,) = error_lines(findings_of(read, matrix, text), "nvrm-fallen-off-bus")
    assert "0000:01:00.0" in found.detail


@pytest.mark.parametrize(
    "text",
    [
        # another module's akmods build, and a kmod that built
        "Building and installing VirtualBox-kmod                     [FAILED]\n",
        "Building and installing nvidia-kmod                        [  OK  ]\n",
        # a resume that went through
        "[  120.1] NVRM: GPU at PCI:0000:01:00: GPU-4f644561-a4ec-7c79-3adf-6beb276cb35f\n",
        # a bus that is only mentioned, not fallen off
        "NVRM: GPU at 0000:01:00.0 has software scheduler ENABLED with policy BEST_EFFORT.\n",
    ],
)
def test_near_misses_are_not_named(read: Read, text: str) -> None:
    try:
        codes = _codes(read, text)
    except FactsError:  # a paste with nothing known is refused: nothing named either
        codes = []
    assert not {"akmods-build-failed", "nvrm-resume-without-suspend", "nvrm-fallen-off-bus"} & set(
        codes
    )
