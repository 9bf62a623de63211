"""The error lines of containers that lose or never get their GPUs, pasted: each becomes a
report-error finding with the fix of the finding that predicts it from host facts."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.checks.catalogue import CATALOGUE
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.matrix.signatures import load_signatures
from tests.support.pasted_findings import error_lines, findings_of

Read = Callable[[str], HostFacts]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "Failed to initialize NVML: Unknown Error",
            ("nvml-unknown-error", "dev-char-links", "create-dev-char-symlinks --create-all"),
        ),
        (
            "nvidia-container-cli: container error: cgroup subsystem devices not found: unknown.",
            ("cgroup-devices-not-found", "cgroup-v2-toolkit", "1.8.0 or newer"),
        ),
        (
            "failed to inject CDI devices: unresolvable CDI devices nvidia.com/gpu=0",
            ("cdi-unresolvable", "cdi-spec-current", "nvidia-ctk cdi generate"),
        ),
    ],
)
def test_pasted_container_errors(
    read: Read, matrix: Matrix, line: str, expected: tuple[str, str, str]
) -> None:
    code, predicted_by, fix_words = expected
    facts = read(f"$ docker run --rm --gpus all ubuntu nvidia-smi\n{line}\n")
    (error,) = [f for f in run_checks(facts, matrix).findings if f.code == "report-error"]
    assert error.severity is Severity.ERROR  # no fact in a bare paste explains it
    assert ("error", code) in error.evidence
    assert fix_words in error.fix
    assert load_signatures().by_code[code].predicted_by == (predicted_by,)
    assert (
        fix_words.split(maxsplit=1)[0] in CATALOGUE[predicted_by].fix
    )  # the same fix as the finding


_INSUFFICIENT = (
    "cudaGetDeviceCount returned 35\n-> CUDA driver version is insufficient for CUDA runtime "
    "version\n"
)


def test_insufficient_driver_inside_a_container_names_the_unmounted_driver(
    read: Read, matrix: Matrix
) -> None:
    text = "$ docker run -it my-cuda-image ./deviceQuery\n" + _INSUFFICIENT
    (found,) = error_lines(findings_of(read, matrix, text), "driver-insufficient")
    assert "mounted only by the NVIDIA container runtime" in found.detail
    assert "--gpus all" in found.fix
    # near misses: the same line on a host, and in a container whose report shows the driver
    (bare,) = error_lines(findings_of(read, matrix, _INSUFFICIENT), "driver-insufficient")
    assert "mounted" not in bare.detail
    shown = text + "Driver Version: 418.67\n"
    (driver,) = error_lines(findings_of(read, matrix, shown), "driver-insufficient")
    assert "mounted" not in driver.detail


def test_on_a_jetson_the_container_reading_asks_for_its_runtime_then_its_jetpack(
    read: Read, matrix: Matrix
) -> None:
    """Two readings hold (a container without a driver, and a Jetson whose driver comes with
    its L4T): one line says both, the runtime's mounts first."""
    tegra = "# R35 (release), REVISION: 4.1, GCID: 33958178, BOARD: t186ref, EABI: aarch64\n"
    text = tegra + "$ docker run -it my-cuda-image ./deviceQuery\n" + _INSUFFICIENT
    (found,) = error_lines(findings_of(read, matrix, text), "driver-insufficient")
    assert "mounted only by the NVIDIA container runtime" in found.detail
    assert found.fix.startswith("run the container with `--runtime nvidia`")
    assert "part of its L4T release" in found.fix
    # near miss: the same Jetson outside a container keeps only the Jetson's reading
    (host,) = error_lines(findings_of(read, matrix, tegra + _INSUFFICIENT), "driver-insufficient")
    assert "mounted" not in host.detail
    assert host.fix.startswith("a Jetson's driver is part of its L4T release")


def test_the_readings_are_tried_in_one_declared_order() -> None:
    from gpudoctor.checks.line_readings import READINGS

    names = [name for name, _ in READINGS]
    assert len(names) == len(set(names))
    # the combined reading must come before either of its parts, or it never speaks
    assert names.index("jetson-container-driver") < names.index("container-driver")
    assert names.index("jetson-container-driver") < names.index("jetson-driver")


def test_nvidia_docker_1_cuda_label_names_both_cudas_and_the_drivers(read: Read) -> None:
    facts = read(
        "$ nvidia-docker run --rm nvidia/cuda nvidia-smi\n"
        "nvidia-docker | 2016/04/09 00:07:59 Error: unsupported CUDA version: 7.5 < 6.5\n"
    )
    assert facts.report is not None
    assert [e.code for e in facts.report.errors] == ["nvidia-docker-cuda-label"]
    assert facts.nvml.cuda_driver_version == "6.5"  # the driver's CUDA, as the line states it
    # near miss: a version question without the two numbers is no refusal
    near = read("is this an unsupported CUDA version: 12.4 on Ubuntu 22.04?\n")
    assert near.report is None or not near.report.errors
