"""The X server's log as people paste it for a desktop whose NVIDIA driver does not start: its
error lines ("(EE)") are read and quoted, and the NVIDIA X driver's load line gives the
driver's user-space version."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import findings_of, no_fact_read, warn_or_error

Read = Callable[[str], HostFacts]


@pytest.mark.parametrize(
    "line",
    [
        # (the NVIDIA X driver's "Failed to initialize the NVIDIA GPU" lines are named by a
        # signature: test_driver_dev18b_lines.py)
        '[    12.345] (EE) Failed to load module "nvidia" (module does not exist, 0)',
        "[    12.346] (EE) No devices detected.",
    ],
)
def test_an_x_server_error_line_is_read_and_quoted(read: Read, line: str) -> None:
    report = read(line + "\n").report
    assert report is not None
    assert [u.text.strip() for u in report.unknown_lines] == [line]


@pytest.mark.parametrize(
    "line",
    [
        # the server's other marks are not errors
        "[    25.100] (WW) NVIDIA: No DRM device: Failed to open DRM device",
        "[    25.100] (II) NVIDIA(0): Creating default Display subsection in Screen section",
        # the log's legend names the mark without being an error
        "(WW) warning, (EE) error, (NI) not implemented, (??) unknown.",
    ],
)
def test_other_x_server_lines_are_not_errors(read: Read, line: str) -> None:
    assert no_fact_read(read, line + "\n")


@pytest.mark.parametrize(
    "line",
    [
        "[    25.100] (II) NVIDIA dlloader X Driver  550.54.15  Tue Mar  5 22:19:42 UTC 2024",
        "(II) NVIDIA GLX Module  550.54.15  Tue Mar  5 22:20:01 UTC 2024",
    ],
)
def test_the_x_drivers_load_line_gives_the_user_space_driver_version(read: Read, line: str) -> None:
    assert read(line + "\n").nvml.library_version == "550.54.15"


def test_an_x_driver_of_another_version_than_the_kernel_module_is_a_mismatch(
    read: Read, matrix: Matrix
) -> None:
    text = (
        "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.154.05  Thu Dec 28 15:37:48 UTC 2023\n"
        "[    25.100] (II) NVIDIA dlloader X Driver  550.54.15  Tue Mar  5 22:19:42 UTC 2024\n"
    )
    facts = read(text)
    assert facts.kernel.nvidia_module_version == "535.154.05"
    assert facts.nvml.library_version == "550.54.15"
    flagged = [code for code, _ in warn_or_error(findings_of(read, matrix, text))]
    assert flagged == ["driver-library-mismatch"]
