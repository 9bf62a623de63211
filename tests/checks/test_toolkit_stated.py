"""container-toolkit: a paste that states the NVIDIA Container Toolkit's version (its CLI's
version line, an issue form's "nvidia-container-toolkit version (1.16.0-1)") has it installed,
although no tool list says so; without any sign of it the Docker GPU host still warns."""

from __future__ import annotations

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.dispatch import read_report

HOST = "Docker version 27.1.1, build 6312585\nDriver Version: 535.183.01   GPU: NVIDIA L40S\n"


def _toolkit(text: str, matrix: Matrix) -> Finding:
    facts = read_report(text, "paste.txt", matrix.architectures)
    (found,) = [f for f in run_checks(facts, matrix).findings if f.code == "container-toolkit"]
    return found


@pytest.mark.parametrize(
    ("line", "version"),
    [
        ("* nvidia-container-toolkit  version (1.16.0-1).", "1.16.0"),
        ("NVIDIA Container Toolkit CLI version 1.14.3", "1.14.3"),
    ],
)
def test_a_stated_version_is_an_installed_toolkit(matrix: Matrix, line: str, version: str) -> None:
    found = _toolkit(HOST + line + "\n", matrix)
    assert found.severity is Severity.OK
    assert version in found.title


def test_no_sign_of_the_toolkit_still_warns(matrix: Matrix) -> None:
    assert _toolkit(HOST, matrix).severity is Severity.WARN
