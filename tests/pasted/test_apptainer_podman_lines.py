"""Apptainer's --nv and --nvccli GPU set-up and Podman's runtime crun running the NVIDIA hook,
pasted: each line is named by its own entry with its severity, the values in it reach the
cause and fix, and near misses (ROCm binding, another hook, another unreadable file) are not."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.matrix.signatures import match_signature
from tests.support.pasted_findings import named_lines

Read = Callable[[str], HostFacts]


@pytest.mark.parametrize(
    ("line", "code", "severity"),
    [
        (
            "WARNING: Could not find any nv files on this host!",
            "apptainer-nv-files-missing",
            Severity.WARN,
        ),
        (
            "WARNING: Could not find any nv libraries on this host!",
            "apptainer-nv-libraries-missing",
            Severity.ERROR,
        ),
        (
            "FATAL:   container creation failed: nvidia-container-cli not allowed in setuid mode",
            "apptainer-nvccli-refused",
            Severity.ERROR,
        ),
        (
            "FATAL:   container creation failed: /usr/bin not writable in the container",
            "apptainer-nvccli-usr-bin-read-only",
            Severity.ERROR,
        ),
        (
            "WARNING: When using nvidia-container-cli with --contain NVIDIA_VISIBLE_DEVICES must "
            "be set or no GPUs will be available in container.",
            "apptainer-nvccli-contain-no-gpus",
            Severity.WARN,
        ),
        (
            "Error: OCI runtime error: crun: error executing hook "
            "`/usr/bin/nvidia-container-toolkit` (exit code: 1)",
            "container-hook-failed",
            Severity.ERROR,
        ),
        (
            "Error: OCI runtime error: nvidia-container-runtime: error loading config: failed to "
            "load specified config file: open /etc/nvidia-container-runtime/config.toml: "
            "permission denied",
            "toolkit-config-unreadable",
            Severity.ERROR,
        ),
    ],
)
def test_line_is_named_with_its_severity(
    read: Read, matrix: Matrix, line: str, code: str, severity: Severity
) -> None:
    (found,) = named_lines(read, matrix, line + "\n", code)
    assert found.severity is severity


def test_crun_hook_failure_names_the_hook_and_its_exit_code(read: Read, matrix: Matrix) -> None:
    line = (
        "Error: OCI runtime error: error executing hook "
        "`/usr/bin/nvidia-container-runtime-hook` (exit code: 3)\n"
    )
    (found,) = named_lines(read, matrix, line, "container-hook-failed")
    assert "`/usr/bin/nvidia-container-runtime-hook` (exit code: 3)" in found.detail
    assert "nvidia.com/gpu=all" in found.fix  # Podman's CDI route


def test_runc_hook_failure_still_names_the_stage(read: Read, matrix: Matrix) -> None:
    line = (
        "nvidia-container-cli: ldcache error: process /sbin/ldconfig.real failed with error "
        "code: 1: unknown\n"
    )
    (found,) = named_lines(read, matrix, line, "container-hook-failed")
    assert "(ldcache error: process /sbin/ldconfig.real failed with error code: 1)" in found.detail


def test_config_path_from_the_line(read: Read, matrix: Matrix) -> None:
    line = (
        "failed to load config: failed to load specified config file: open "
        "/home/u/.config/nvidia-container-runtime/config.toml: permission denied\n"
    )
    (found,) = named_lines(read, matrix, line, "toolkit-config-unreadable")
    assert "/home/u/.config/nvidia-container-runtime/config.toml" in found.fix


@pytest.mark.parametrize(
    "line",
    [
        # Apptainer's ROCm binding, not --nv
        "WARNING: Could not find any rocm libraries on this host!",
        "WARNING: Could not find any rocm files on this host!",
        # crun running some other hook
        "Error: OCI runtime error: crun: error executing hook "
        "`/usr/libexec/oci/hooks.d/oci-systemd-hook` (exit code: 1)",
        # the config file itself is fine; another file is unreadable
        "open /etc/containers/registries.conf: permission denied",
    ],
)
def test_near_misses_are_not_named(line: str) -> None:
    found = match_signature(line)
    assert found is None or found.code not in {
        "apptainer-nv-files-missing",
        "apptainer-nv-libraries-missing",
        "container-hook-failed",
        "toolkit-config-unreadable",
    }
