"""What a boot log says of the NVIDIA modules without NVRM's words: the modules that load only on
a loaded nvidia module, the initramfs tools' firmware warning naming the module's release, and
systemd-modules-load refused by Secure Boot."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.errors import FactsError
from gpudoctor.facts import HostFacts
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of

Read = Callable[[str], HostFacts]


@pytest.mark.parametrize(
    ("line", "module"),
    [
        ("[    5.1] nvidia-uvm: Loaded the UVM driver, major device number 510.", "nvidia_uvm"),
        (
            "[    4.2] [drm] Initialized nvidia-drm 0.0.0 20160202 for 0000:01:00.0 on minor 1",
            "nvidia_drm",
        ),
    ],
)
def test_a_module_that_loads_on_nvidia_says_both_are_loaded(
    read: Read, line: str, module: str
) -> None:
    loaded = read(line + "\n").kernel.modules_loaded
    assert "nvidia" in loaded
    assert module in loaded


def test_another_drm_driver_is_no_nvidia_module(read: Read) -> None:
    with pytest.raises(FactsError, match="no report recognised"):
        read("[    4.2] [drm] Initialized i915 1.6.0 20230929 for 0000:00:02.0 on minor 0\n")


@pytest.mark.parametrize(
    "line",
    [
        "W: Possible missing firmware /lib/firmware/nvidia/550.54.15/gsp_ga10x.bin for module "
        "nvidia",
        "==> WARNING: Possible missing firmware /usr/lib/firmware/nvidia/550.54.15/gsp_tu10x.bin "
        "for module nvidia",
    ],
)
def test_the_firmware_warning_names_the_modules_release(read: Read, line: str) -> None:
    facts = read(line + "\n")
    assert facts.nvml.driver_version is None  # installed for the image, not said to run
    assert facts.report is not None
    assert any("550.54.15" in n for n in facts.report.notes)


def test_another_modules_missing_firmware_is_no_driver_fact(read: Read) -> None:
    with pytest.raises(FactsError, match="no report recognised"):
        read("W: Possible missing firmware /lib/firmware/ast_dp501_fw.bin for module ast\n")


def test_systemd_modules_load_refused_by_secure_boot(read: Read, matrix: Matrix) -> None:
    text = (
        "systemd-modules-load[312]: Failed to insert module 'nvidia': Key was rejected by service\n"
    )
    assert error_lines(findings_of(read, matrix, text), "secure-boot-rejected")
    other = (
        "Driver Version: 550.54.15\n"
        "systemd-modules-load[312]: Failed to insert module 'vboxdrv': "
        "Key was rejected by service\n"
    )
    assert not error_lines(findings_of(read, matrix, other), "secure-boot-rejected")
