"""MIG lines as users paste them: NVIDIA's MIG Manager (the GPU Operator's nvidia-mig-manager)
and nvidia-mig-parted, whose messages are their sources' own, and nvidia-smi's MIG mode and
instance commands, as the MIG user guide shows them. Each test pastes a line of the kind the
entry is for, checks the finding, its severity and the values it carries, and a near miss (the
same program's healthy line) that must not be named."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Finding, Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import error_lines, findings_of, warn_or_error
from tests.support.pasted_samples import SMI_TABLE_A100 as _TABLE

Read = Callable[[str], HostFacts]
# A fact line, so that a near miss alone is still a report that is read.
HOST = "Driver Version: 550.54.15\n"
_TS = 'time="2025-03-04T10:12:01Z" '


def test_selected_mig_config_not_present(read: Read, matrix: Matrix) -> None:
    for line in (
        _TS + 'level=fatal msg="Error selecting MIG config: selected mig-config not present: '
        'all-2g.35gb"',
        "Selected mig-config not present: all-2g.35gb",
    ):
        (found,) = error_lines(findings_of(read, matrix, line + "\n"), "mig-config-not-present")
        assert found.severity is Severity.ERROR
        assert "'all-2g.35gb'" in found.detail  # the layout the line names, not a canned one
        assert "nvidia.com/mig.config" in found.fix
        assert "all-2g.35gb" in found.fix
    # Near miss: the MIG Manager's own log when the layout is there.
    ok = _TS + 'level=info msg="Selected MIG config is already applied"\n'
    findings = findings_of(read, matrix, HOST + ok)
    assert not error_lines(findings, "mig-config-not-present")
    assert warn_or_error(findings) == []


def test_mig_manager_log_explains_the_failed_state_label(read: Read, matrix: Matrix) -> None:
    paste = (
        "                    nvidia.com/mig.config=all-2g.35gb\n"
        "                    nvidia.com/mig.config.state=failed\n"
        + _TS
        + 'level=fatal msg="Selected mig-config not present: all-2g.35gb"\n'
        + _TS
        + 'level=error msg="Error: failed to validate MIG configuration: exit status 1"\n'
    )
    findings = findings_of(read, matrix, paste)
    (state,) = error_lines(findings, "mig-manager-failed")
    (step,) = error_lines(findings, "mig-manager-step-failed")
    (cause,) = error_lines(findings, "mig-config-not-present")
    # The label and the step only say that it failed; the mig-parted line says why.
    assert state.severity is Severity.INFO
    assert step.severity is Severity.INFO
    assert "mig-config-not-present" in state.detail
    assert cause.severity is Severity.ERROR


@pytest.mark.parametrize(
    ("line", "step"),
    [
        (
            _TS + 'level=error msg="Error: failed to validate MIG configuration: exit status 1"',
            "'validate MIG configuration'",
        ),
        (
            _TS + 'level=error msg="Error: failed to apply MIG configuration: exit status 1"',
            "'apply MIG configuration'",
        ),
        (
            'level=error msg="Error: failed to shutdown Kubernetes GPU clients: device-plugin pod '
            'did not shutdown: timed out waiting for the condition"',
            "'shutdown Kubernetes GPU clients'",
        ),
    ],
)
def test_mig_manager_step_failed(read: Read, matrix: Matrix, line: str, step: str) -> None:
    (found,) = error_lines(findings_of(read, matrix, line + "\n"), "mig-manager-step-failed")
    assert found.severity is Severity.ERROR
    assert step in found.detail
    assert "nvidia.com/mig.config.state=failed" in found.detail


def test_mig_manager_healthy_log_names_nothing(read: Read, matrix: Matrix) -> None:
    log = "".join(
        _TS + f'level=info msg="{m}"\n'
        for m in (
            "Updating to MIG config: all-1g.10gb",
            "Asserting that the requested configuration is present in the configuration file",
            "Checking if the MIG mode setting in the selected config is currently applied or not",
            "If the state is 'rebooting', we expect this to always return true",
            "Applying the selected MIG config to the node",
            "Successfully updated to MIG config: all-1g.10gb",
        )
    )
    findings = findings_of(read, matrix, HOST + log)
    assert warn_or_error(findings) == []
    assert not [f for f in findings if f.code == "report-error" and f.subject.startswith("mig")]


def test_mode_change_not_in_effect_after_the_reboot(read: Read, matrix: Matrix) -> None:
    line = (
        'level=error msg="Error: failed to check if a MIG mode change is required: MIG mode '
        'change did not take effect after rebooting"\n'
    )
    findings = findings_of(read, matrix, line)
    (found,) = error_lines(findings, "mig-mode-change-not-effective")
    assert found.severity is Severity.ERROR
    assert "-mig 1" in found.fix
    # The more specific entry names the line, not the MIG Manager's generic step failure.
    assert not error_lines(findings, "mig-manager-step-failed")


def test_assertion_before_applying_is_a_notice(read: Read, matrix: Matrix) -> None:
    line = _TS + 'level=fatal msg="Assertion failure: selected configuration not currently applied"'
    findings = findings_of(read, matrix, HOST + line + "\n")
    (found,) = error_lines(findings, "mig-assert-not-applied")
    assert found.severity is Severity.INFO
    assert warn_or_error(findings) == []


def test_destroying_an_instance_in_use(read: Read, matrix: Matrix) -> None:
    paste = (
        "$ sudo nvidia-smi mig -dgi\n"
        "Unable to destroy GPU instance ID  3 from GPU  1: In use by another client\n"
        "Failed to destroy GPU instances: In use by another client\n"
    )
    findings = findings_of(read, matrix, paste)
    (found,) = error_lines(findings, "mig-instance-in-use")  # one finding for the two lines
    assert found.severity is Severity.ERROR
    assert "-dci" in found.fix
    assert "a GPU instance" in found.detail
    summary = "Failed to destroy compute instances: In use by another client\n"
    (found,) = error_lines(findings_of(read, matrix, summary), "mig-instance-in-use")
    assert "a compute instance" in found.detail
    # Not the GPU reset entry, whose cause is a MIG mode change.
    assert not error_lines(findings, "gpu-reset-in-use")
    # Near miss: nvidia-smi -r's own line for a GPU it could not reset stays that entry.
    reset = "The following GPUs could not be reset:\n"
    reset += "  GPU 00000000:01:00.0: In use by another client\n"
    findings = findings_of(read, matrix, reset)
    assert error_lines(findings, "gpu-reset-in-use")
    assert not error_lines(findings, "mig-instance-in-use")
    # Near miss: the success line.
    ok = "Successfully destroyed GPU instance ID  3 from GPU  1\n"
    assert warn_or_error(findings_of(read, matrix, HOST + ok)) == []


def test_instances_that_do_not_fit(read: Read, matrix: Matrix) -> None:
    line = (
        "Unable to create a compute instance on GPU  3 GPU instance ID  1 using profile 2: "
        "Insufficient Resources\n"
    )
    (found,) = error_lines(findings_of(read, matrix, line), "mig-insufficient-resources")
    assert "GPU 3" in found.detail
    assert "compute instance profile 2" in found.detail
    # The summary nvidia-smi prints after the per-instance lines, pasted on its own.
    summary = "Failed to create compute instances: Insufficient Resources\n"
    findings = findings_of(read, matrix, summary)
    (found,) = error_lines(findings, "mig-instances-not-created")
    assert found.severity is Severity.ERROR
    assert "every compute instance" in found.detail
    assert not error_lines(findings, "mig-insufficient-resources")
    # Under the per-instance line that names the GPU and the profile, the summary is its
    # symptom: one error, not two for one refusal.
    both = findings_of(read, matrix, line + summary)
    (summary_line,) = [f for f in both if f.subject == "mig-instances-not-created"]
    assert summary_line.severity is Severity.INFO
    assert [c for c, _ in warn_or_error(both)] == ["report-error"]
    # Near miss: a refusal for another reason is mig-command-refused.
    refused = "Failed to create GPU instances: Invalid Argument\n"
    findings = findings_of(read, matrix, refused)
    assert not error_lines(findings, "mig-instances-not-created")
    assert error_lines(findings, "mig-command-refused")


@pytest.mark.parametrize(
    "line",
    [
        "00000000:0B:00.0 is currently being used by one or more other processes (e.g. CUDA "
        "application or a monitoring application such as another instance of nvidia-smi). Please "
        "first kill all processes using the device and retry the command or reboot the system to "
        "make MIG mode effective.",
        "Reboot the system or try nvidia-smi --gpu-reset to make MIG mode effective on GPU "
        "00000000:00:03.0",
        "Warning: MIG mode is in pending disable state for GPU 00000000:07:00.0:Timeout",
    ],
)
def test_mig_mode_pending_lines(read: Read, matrix: Matrix, line: str) -> None:
    (found,) = error_lines(findings_of(read, matrix, line + "\n"), "mig-pending-reset")
    assert found.severity is Severity.WARN
    assert "reboot" in found.fix
    assert "?" not in found.detail  # no group the line leaves empty


def test_mig_mode_enabled_is_no_pending_change(read: Read, matrix: Matrix) -> None:
    paste = "$ sudo nvidia-smi -i 0 -mig 1\nEnabled MIG Mode for GPU 00000000:07:00.0\nAll done.\n"
    findings = findings_of(read, matrix, HOST + paste)
    assert not error_lines(findings, "mig-pending-reset")
    assert warn_or_error(findings) == []


def test_gpu_reset_not_allowed_in_a_vm(read: Read, matrix: Matrix) -> None:
    line = "Resetting GPU 00000000:00:05.0 is not supported.\n"
    (found,) = error_lines(findings_of(read, matrix, line), "gpu-reset-not-supported")
    assert "00000000:00:05.0" in found.detail
    assert "reboot the VM" in found.fix
    # Near miss: the reset that worked.
    ok = "GPU 00000000:00:05.0 was successfully reset.\n"
    assert not error_lines(findings_of(read, matrix, HOST + ok), "gpu-reset-not-supported")


_LGI = """\
$ nvidia-smi mig -lgi
+-------------------------------------------------------+
| GPU instances:                                        |
| GPU   Name             Profile  Instance   Placement  |
|                          ID       ID       Start:Size |
|=======================================================|
|   0  MIG 1g.5gb          19        7          0:1     |
+-------------------------------------------------------+
|   0  MIG 1g.5gb          19        8          1:1     |
+-------------------------------------------------------+
|   0  MIG 3g.20gb          9        2          4:4     |
+-------------------------------------------------------+
$ sudo nvidia-smi mig -cgi 9 -C
Successfully created GPU instance ID  2 on GPU  0 using profile MIG 3g.20gb (ID  9)
Successfully created compute instance ID  0 on GPU  0 GPU instance ID  2 using profile \
MIG 3g.20gb (ID  2)
"""


def test_benign_mig_listing_raises_nothing(read: Read, matrix: Matrix) -> None:
    findings = findings_of(read, matrix, HOST + _LGI)
    assert warn_or_error(findings) == []
    assert not [f for f in findings if f.code == "report-error" and f.subject.startswith("mig")]


_L_ONE = "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-5a4e3c2b-1d0f-4e9a-8b7c-6d5e4f3a2b1c)\n"
_L_TWO = _L_ONE + "GPU 1: NVIDIA A100-SXM4-80GB (UUID: GPU-6b5f4d3c-2e1a-4f0b-9c8d-7e6f5a4b3c2d)\n"
_NO_GI = "$ nvidia-smi mig -lgi\nNo GPU instances found: Not Found\n"


def _mig_mode(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.code == "mig-mode"]


def test_no_gpu_instances_on_the_one_gpu_is_mig_on_with_nothing(read: Read, matrix: Matrix) -> None:
    # After a reboot: the MIG mode stayed, the instances are gone, and -lgi says so.
    facts = read("After a reboot the MIG devices are gone.\n" + _L_ONE + _NO_GI)
    (gpu,) = facts.nvml.gpus
    assert gpu.mig_mode_current is True
    (mig,) = _mig_mode(findings_of(read, matrix, _L_ONE + _NO_GI))
    assert mig.severity is Severity.WARN
    assert "no MIG instances" in mig.title
    assert "reboot" in mig.detail
    assert "at every boot" in mig.fix
    # Near miss: with two GPUs -lgi does not say which is in MIG mode: left unknown.
    facts = read(_L_TWO + _NO_GI)
    assert [g.mig_mode_current for g in facts.nvml.gpus] == [None, None]
    # Near miss: the paste goes on to create instances; the listing was before them.
    created = _NO_GI + (
        "$ sudo nvidia-smi mig -cgi 9 -C\n"
        "Successfully created GPU instance ID  2 on GPU  0 using profile MIG 3g.40gb (ID  9)\n"
    )
    (gpu,) = read(_L_ONE + created).nvml.gpus
    assert gpu.mig_mode_current is None


def test_pending_warning_gives_the_gpus_pending_mode(read: Read, matrix: Matrix) -> None:
    warning = (
        "$ sudo nvidia-smi -i 0 -mig 1\n"
        "Warning: MIG mode is in pending enable state for GPU 00000000:07:00.0:In use by another "
        "client\n"
    )
    (gpu,) = read(_TABLE + warning).nvml.gpus
    assert gpu.mig_mode_current is False
    assert gpu.mig_mode_pending is True
    findings = findings_of(read, matrix, _TABLE + warning)
    (pending,) = [f for f in findings if f.code == "mig-mode-pending"]
    assert pending.severity is Severity.WARN
    assert "off -> on" in pending.title
    # Near miss: the warning names another GPU's bus id: nothing is said of this one.
    other = warning.replace("00000000:07:00.0", "00000000:0F:00.0")
    (gpu,) = read(_TABLE + other).nvml.gpus
    assert gpu.mig_mode_pending is None


@pytest.mark.parametrize(
    "prose",
    [
        "After rebooting the node all my MIG devices are gone.",
        "Our A100 had 7 MIG instances, after a reboot they are gone.",
        "The MIG configuration is lost on restart of the server.",
        "MIG devices do not persist across reboots, how do I keep them?",
        "I reboot the system and the MIGs (7x 1g.5gb) are destroyed.",
    ],
)
def test_prose_that_the_instances_went_at_a_reboot(read: Read, matrix: Matrix, prose: str) -> None:
    # Beside a table that shows the GPU in MIG mode without its MIG devices block (cut off).
    table = _TABLE.replace("            Disabled |", "             Enabled |")
    (mig,) = _mig_mode(findings_of(read, matrix, prose + "\n" + table))
    assert mig.severity is Severity.WARN
    assert "gone after a reboot" in mig.title
    assert "MIG mode survives a reboot" in mig.detail
    assert "at every boot" in mig.fix
    # Without the prose the table does not say whether the GPU has instances.
    (mig,) = _mig_mode(findings_of(read, matrix, table))
    assert mig.severity is Severity.UNKNOWN
    # With the prose alone, on a GPU the text names that has MIG.
    (mig,) = _mig_mode(findings_of(read, matrix, "NVIDIA A100-SXM4-80GB. " + prose + "\n"))
    assert mig.severity is Severity.WARN


@pytest.mark.parametrize(
    "prose",
    [
        "I rebooted and the MIG devices work fine.",
        "After the reboot nvidia-smi shows MIG mode enabled but the GPU is gone.",
        "The MIG devices are gone.",
        "After a reboot I destroyed the MIGs on purpose and the GPU works.",
    ],
)
def test_prose_near_misses_say_nothing_of_a_reboot(read: Read, matrix: Matrix, prose: str) -> None:
    table = _TABLE.replace("            Disabled |", "             Enabled |")
    (mig,) = _mig_mode(findings_of(read, matrix, prose + "\n" + table))
    assert mig.severity is Severity.UNKNOWN
    # A GPU without MIG stays n/a whatever the text says.
    rtx = "NVIDIA GeForce RTX 4090. After rebooting the node all my MIG devices are gone.\n"
    (mig,) = _mig_mode(findings_of(read, matrix, rtx))
    assert mig.severity is Severity.NA
