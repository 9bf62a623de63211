"""A GPU node's container runtime refusing its own config, and the kubelet refusing a device
plugin: containerd's CRI plugin with a default runtime it has no table for, a containerd config
of a version this containerd does not read (and the harmless migration note of an older one),
CRI-O dropping a runtime handler whose binary is missing, containerd's own 'failed to find
runtime handler', and the kubelet's registration refusals. Each line is named by its entry with
the line's values in the cause, near misses are not, and healthy start-up lines raise nothing."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import (
    error_lines,
    findings_of,
    named_lines,
    no_fact_read,
    warn_or_error,
)

Read = Callable[[str], HostFacts]

_J = "Dec 03 10:11:12 gpu-node-1 "
_CD = _J + 'containerd[1234]: time="2026-12-03T10:11:12.123456789Z" '
_CRIO = _J + 'crio[987]: time="2026-12-03 10:11:12.123456789Z" '
_NO_TABLE = (
    "no corresponding runtime configured in `containerd.runtimes` for `containerd` "
    '`default_runtime_name = \\"{name}\\"'
)


@pytest.mark.parametrize(
    ("line", "runtime"),
    [
        (
            _CD + 'level=warning msg="failed to load plugin io.containerd.grpc.v1.cri" '
            'error="invalid plugin config: ' + _NO_TABLE.format(name="nvidia") + '"',
            "nvidia",
        ),
        (
            _CD
            + 'level=warning msg="failed to load plugin" error="invalid plugin config: '
            + _NO_TABLE.format(name="nvidia-cdi")
            + '" id=io.containerd.cri.v1.runtime type=io.containerd.cri.v1',
            "nvidia-cdi",
        ),
        (
            "failed to load plugin io.containerd.grpc.v1.cri: invalid plugin config: no "
            "corresponding runtime configured in `containerd.runtimes` for `containerd` "
            '`default_runtime_name = "nvidia-legacy"`',
            "nvidia-legacy",
        ),
    ],
)
def test_a_default_runtime_without_its_table_is_named(
    read: Read, matrix: Matrix, line: str, runtime: str
) -> None:
    (found,) = named_lines(read, matrix, line + "\n", "containerd-default-runtime-missing")
    assert found.severity is Severity.ERROR
    assert f"makes `{runtime}` the default runtime" in found.detail
    assert "io.containerd.cri.v1.runtime" in found.detail
    assert f"the `{runtime}` runtime table" in found.fix
    assert "nvidia-ctk runtime configure --runtime=containerd" in found.fix


def test_the_kubelets_lost_cri_service_next_to_it_keeps_both_named(
    read: Read, matrix: Matrix
) -> None:
    text = (
        _CD + 'level=warning msg="failed to load plugin io.containerd.grpc.v1.cri" '
        'error="invalid plugin config: ' + _NO_TABLE.format(name="nvidia") + '"\n'
        'E1203 10:11:13.1 2345 remote_runtime.go:118] "RunPodSandbox from runtime service '
        'failed" err="rpc error: code = Unimplemented desc = unknown service '
        'runtime.v1.RuntimeService"\n'
    )
    findings = findings_of(read, matrix, text)
    assert error_lines(findings, "containerd-default-runtime-missing")
    assert error_lines(findings, "kubelet-no-cri-service")


@pytest.mark.parametrize(
    ("line", "version"),
    [
        (
            _CD + 'level=error msg="containerd config version `3` is not supported, the max '
            "version is `2`, use `containerd config default` to generate a new config or "
            'manually revert to version `2`"',
            "3",
        ),
        (_J + "containerd[1234]: containerd: unsupported config version `3`", "3"),
        (
            "containerd: failed to load TOML from /etc/containerd/config.toml: expected "
            "containerd config version equal to or less than `3`, got `4`",
            "4",
        ),
    ],
)
def test_a_config_version_containerd_does_not_read_is_named(
    read: Read, matrix: Matrix, line: str, version: str
) -> None:
    (found,) = named_lines(read, matrix, line + "\n", "containerd-config-version-unsupported")
    assert found.severity is Severity.ERROR
    assert f"`version = {version}`" in found.detail
    assert "containerd config default" in found.fix


@pytest.mark.parametrize(
    ("line", "version"),
    [
        (
            _CD + 'level=warning msg="containerd config version `1` has been deprecated and '
            "will be converted on each startup in containerd v2.0, use `containerd config "
            'migrate` after upgrading to containerd 2.0 to avoid conversion on startup"',
            "1",
        ),
        (
            _CD + 'level=warning msg="Configuration migrated from version 2, use `containerd '
            'config migrate` to avoid migration" t="4.513µs"',
            "2",
        ),
    ],
)
def test_containerds_migration_note_is_harmless(
    read: Read, matrix: Matrix, line: str, version: str
) -> None:
    text = line + "\n"
    findings = findings_of(read, matrix, text)
    (found,) = error_lines(findings, "containerd-config-migrated")
    assert found.severity is Severity.INFO
    assert f"(version {version})" in found.detail
    assert warn_or_error(findings) == []
    # the migration note is no unsupported version
    assert not error_lines(findings, "containerd-config-version-unsupported")


@pytest.mark.parametrize(
    ("line", "runtime", "why"),
    [
        (
            _CRIO + 'level=warning msg="Runtime handler \\"nvidia\\" is being ignored due to: '
            "invalid runtime_path for runtime 'nvidia': stat /usr/bin/nvidia-container-runtime: "
            'no such file or directory"',
            "nvidia",
            "stat /usr/bin/nvidia-container-runtime: no such file or directory)",
        ),
        (
            'level=warning msg="Runtime handler \\"nvidia\\" is being ignored due to: '
            '\\"nvidia\\" not found in $PATH: exec: \\"nvidia\\": executable file not found in '
            '$PATH"',
            "nvidia",
            "executable file not found in $PATH)",
        ),
        (
            'Runtime handler "kata" is being ignored due to: invalid runtime_path for runtime '
            "'kata': stat /usr/bin/kata-runtime: no such file or directory",
            "kata",
            "stat /usr/bin/kata-runtime: no such file or directory)",
        ),
    ],
)
def test_crio_dropping_a_runtime_handler_is_named(
    read: Read, matrix: Matrix, line: str, runtime: str, why: str
) -> None:
    (found,) = named_lines(read, matrix, line + "\n", "crio-runtime-handler-ignored")
    assert found.severity is Severity.ERROR
    assert f"dropped its `{runtime}` runtime handler" in found.detail
    # the reason ends at the message, without the log record's closing quote
    assert why in found.detail
    assert f"runtimes.{runtime}" in found.fix


def test_crios_healthy_runtime_lines_are_not_named(read: Read) -> None:
    text = (
        _CRIO
        + 'level=info msg="Using runtime handler crun version 1.14.4"\n'
        + _CRIO
        + 'level=info msg="Found valid runtime \\"nvidia\\" for runtime_path '
        '\\"/usr/bin/nvidia-container-runtime\\""\n'
    )
    assert no_fact_read(read, text)


@pytest.mark.parametrize(
    "line",
    [
        'Error: failed to create containerd container: failed to find runtime handler "nvidia"',
        'failed to find runtime handler \\"nvidia-cdi\\"',
    ],
)
def test_containerds_own_missing_handler_is_the_missing_nvidia_runtime(
    read: Read, matrix: Matrix, line: str
) -> None:
    (found,) = named_lines(read, matrix, line + "\n", "containerd-no-nvidia-runtime")
    assert found.severity is Severity.ERROR


def test_another_handler_missing_is_not_the_nvidia_runtime(read: Read, matrix: Matrix) -> None:
    text = 'Error: failed to create containerd container: failed to find runtime handler "kata"\n'
    assert no_fact_read(read, text) or not named_lines(
        read, matrix, text, "containerd-no-nvidia-runtime"
    )


@pytest.mark.parametrize(
    ("line", "what"),
    [
        (
            'E1203 10:11:12.123456    2345 server.go:145] "Bad registration request from device '
            'plugin with resource" err="requested API version \\"v1alpha\\" is not supported by '
            'kubelet. Supported version is [\\"v1beta1\\"]" resourceName="nvidia.com/gpu"',
            "v1alpha",
        ),
        (
            'E1203 10:11:12.123456    2345 server.go:151] "Bad registration request from device '
            'plugin" err="the ResourceName \\"gpu\\" is invalid"',
            "the ResourceName",
        ),
    ],
)
def test_the_kubelet_refusing_a_plugins_registration_is_named(
    read: Read, matrix: Matrix, line: str, what: str
) -> None:
    (found,) = named_lines(read, matrix, line + "\n", "kubelet-device-plugin-registration-refused")
    assert found.severity is Severity.ERROR
    assert what in found.detail
    assert "nvidia.com/gpu" in found.fix


def test_the_kubelets_accepted_registration_is_not_named(read: Read, matrix: Matrix) -> None:
    text = (
        'I1203 10:11:12.123456    2345 server.go:144] "Got registration request from device '
        'plugin with resource" resourceName="nvidia.com/gpu"\n'
        'I1203 10:11:12.123456    2345 client.go:91] "State pushed for device plugin" '
        'resource="nvidia.com/gpu" resourceCapacity=8\n'
    )
    findings = findings_of(read, matrix, text)
    assert not error_lines(findings, "kubelet-device-plugin-registration-refused")
    assert warn_or_error(findings) == []


@pytest.mark.parametrize("device", ["/dev/nvidiactl", "/dev/nvidia-uvm"])
def test_gkes_device_plugin_failing_to_start_is_named(
    read: Read, matrix: Matrix, device: str
) -> None:
    line = (
        "E1203 10:11:12.123456       1 nvidia_gpu.go:181] failed to start GPU device manager: "
        f"stat {device}: no such file or directory"
    )
    (found,) = named_lines(read, matrix, line + "\n", "gke-device-plugin-start-failed")
    assert found.severity is Severity.ERROR
    assert f"(stat {device}: no such file or directory)" in found.detail
    assert "gpu-driver-version" in found.fix


def test_gkes_device_plugin_starting_is_not_named(read: Read, matrix: Matrix) -> None:
    text = (
        "I1203 10:11:12.123456       1 nvidia_gpu.go:75] device-plugin started\n"
        'I1203 10:11:12.123456       1 manager.go:95] Found Nvidia GPU "nvidia0"\n'
        "I1203 10:11:12.123456       1 manager.go:271] device-plugin registered with the kubelet\n"
    )
    findings = findings_of(read, matrix, text)
    assert not error_lines(findings, "gke-device-plugin-start-failed")
    assert warn_or_error(findings) == []
