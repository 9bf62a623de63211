"""Lines an Arm host (a Jetson, Grace) prints when an image or tool is not for it: Docker's and
containerd's "no manifest for this platform" (the platform named in the cause), and nvidia-smi
missing as Ubuntu's command-not-found words it, which is expected on a Jetson older than Orin
(L4T R35 or older, no nvidia-smi there) and stays an error elsewhere."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import findings_of, named_lines

Read = Callable[[str], HostFacts]


def test_dockers_no_matching_manifest_names_the_platform(read: Read, matrix: Matrix) -> None:
    text = (
        "$ docker pull nvcr.io/nvidia/tritonserver:21.08-py3\n"
        "21.08-py3: Pulling from nvidia/tritonserver\n"
        "no matching manifest for linux/arm64/v8 in the manifest list entries\n"
    )
    (found,) = named_lines(read, matrix, text, "image-no-platform-manifest")
    assert found.severity is Severity.ERROR
    assert "no image for linux/arm64/v8" in found.detail
    assert "--platform linux/arm64/v8" in found.fix


def test_a_missing_tag_is_not_a_missing_platform(read: Read, matrix: Matrix) -> None:
    text = (
        "docker: Error response from daemon: manifest for nvidia/cuda:11.0-base not found: "
        "manifest unknown: manifest unknown.\n"
    )
    assert named_lines(read, matrix, text, "image-no-platform-manifest") == []
    assert named_lines(read, matrix, text, "image-no-platform-match") == []


def test_containerds_no_match_for_platform(read: Read, matrix: Matrix) -> None:
    text = (
        '  Warning  Failed  12s  kubelet  Failed to pull image "myorg/trainer:1.0": rpc error: '
        'code = NotFound desc = failed to pull and unpack image "docker.io/myorg/trainer:1.0": '
        "no match for platform in manifest: not found\n"
    )
    (found,) = named_lines(read, matrix, text, "image-no-platform-match")
    assert found.severity is Severity.ERROR
    assert "kubernetes.io/arch" in found.fix


_UBUNTU = (
    "$ nvidia-smi\n"
    "Command 'nvidia-smi' not found, but can be installed with:\n"
    "sudo apt install nvidia-utils-510\n"
)


def _smi_line(read: Read, matrix: Matrix, before: str) -> Severity:
    (found,) = named_lines(read, matrix, before + _UBUNTU, "nvidia-smi-not-found")
    return found.severity


def test_ubuntus_command_not_found_on_an_older_jetson_is_expected(
    read: Read, matrix: Matrix
) -> None:
    # a Xavier module runs L4T R35 at most: no nvidia-smi there, the L4T release unstated
    xavier = "$ cat /proc/device-tree/model\nNVIDIA Jetson Xavier NX Developer Kit\n"
    assert _smi_line(read, matrix, xavier) is Severity.INFO
    findings = findings_of(read, matrix, xavier + _UBUNTU)
    (line,) = [f for f in findings if f.subject == "nvidia-smi-not-found"]
    assert "nvidia-utils" in line.detail
    assert "does not belong on a Jetson" in line.detail


def test_ubuntus_command_not_found_stays_an_error_elsewhere(read: Read, matrix: Matrix) -> None:
    assert _smi_line(read, matrix, "Architecture:        x86_64\n") is Severity.ERROR
    # an Orin of unknown L4T may run JetPack 6, which ships nvidia-smi
    orin = "$ cat /proc/device-tree/model\nNVIDIA Jetson AGX Orin Developer Kit\n"
    assert _smi_line(read, matrix, orin) is Severity.ERROR


def test_another_command_not_found_is_not_nvidia_smis(read: Read, matrix: Matrix) -> None:
    text = "Command 'nvidia-settings' not found, but can be installed with:\ntorch 2.1.0\n"
    assert named_lines(read, matrix, text, "nvidia-smi-not-found") == []
