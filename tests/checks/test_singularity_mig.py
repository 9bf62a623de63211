"""container-mig-devices: SingularityCE 3.9.0-3.9.2 with --nvccli binds no MIG devices into a
non-contained container (fixed in 3.9.3, SingularityCE CHANGELOG)."""

from __future__ import annotations

from gpudoctor.checks import run_checks
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.dispatch import read_report

MIG_LIST = (
    "$ nvidia-container-cli list\n/dev/nvidiactl\n/dev/nvidia0\n"
    "/proc/driver/nvidia/capabilities/gpu0/mig/gi2/access\n/dev/nvidia-caps/nvidia-cap21\n"
)
RUN = "singularity run --nv --nvccli image.sif python3\n"


def _finding(text: str, matrix: Matrix) -> Finding:
    facts: HostFacts = read_report(text, "paste.txt", matrix.architectures)
    (found,) = [f for f in run_checks(facts, matrix).findings if f.code == "container-mig-devices"]
    return found


def test_an_affected_release_with_mig_warns(matrix: Matrix) -> None:
    found = _finding("singularity-ce version 3.9.1+6.g38b50cb-1.el7\n" + RUN + MIG_LIST, matrix)
    assert found.severity is Severity.WARN
    assert "3.9.1" in found.title
    assert "3.9.3" in found.fix
    assert "NVIDIA_VISIBLE_DEVICES=all" in found.fix


def test_near_misses(matrix: Matrix) -> None:
    # the fixed release
    fixed = _finding("singularity-ce version 3.9.3\n" + RUN + MIG_LIST, matrix)
    assert fixed.severity is Severity.OK
    # an affected release, no MIG in sight
    assert _finding("singularity-ce version 3.9.1\n" + RUN, matrix).severity is Severity.NA
    # --nv alone (the legacy binding, which binds MIG devices)
    legacy = "singularity-ce version 3.9.1\nsingularity run --nv image.sif\n" + MIG_LIST
    assert _finding(legacy, matrix).severity is Severity.NA
    # Apptainer is another code base
    other = "apptainer version 1.0.1\napptainer run --nvccli image.sif\n" + MIG_LIST
    assert _finding(other, matrix).severity is Severity.NA
    # --nvccli with the version unknown
    assert _finding(RUN + MIG_LIST, matrix).severity is Severity.UNKNOWN
