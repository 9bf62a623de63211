"""DCGM's diagnostic refusing MIG layouts, NVIDIA's DRA driver for GPUs and its MIG devices,
mig-parted's profile lookup, and the toolkit pointed at the containerd config that RKE2/K3s
render themselves: each line is named by its own signature, and a near miss (the same
program's line with another cause, or a setting that is right) is not."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.checks import run_checks
from gpudoctor.errors import FactsError
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Finding
from gpudoctor.matrix.model import Matrix

Read = Callable[[str], HostFacts]


def _codes(facts: HostFacts) -> list[str]:
    return [e.code for e in facts.report.errors] if facts.report else []


@pytest.mark.parametrize(
    ("text", "code"),
    [
        (
            "cmd: dcgmi diag -r 1\nprint: GPU 0's MIG configuration is incompatible with the "
            "diagnostic because it prevents access to the entire GPU.\n",
            "dcgm-diag-mig-incompatible",
        ),
        (
            "Error: Cannot run diagnostic: CUDA does not support enumerating GPUs with MIG mode "
            "enabled, yet GPU 1 is MIG enabled and the diagnostic is attempting to run on 8 "
            "GPUs.\n",
            "dcgm-diag-mig-incompatible",
        ),
        (
            "Error: Cannot run diagnostic: MIG is enabled, but no compute instances are "
            "configured. CUDA needs to execute on a compute instance if MIG is enabled.\n",
            "dcgm-diag-mig-no-compute-instances",
        ),
        (
            "Error: unable to sync prepared devices from CRD: MIG devices found that aren't "
            "prepared to any claim\n",
            "dra-premade-mig-devices",
        ),
        (
            "E0301 10:00:00.000000       1 device_state.go:420] startup: "
            "obliterateStaleMIGDevices failed: error visiting devices: could not delete "
            "unexpected MIG device (gpu-0-mig-1g24gb-14-4): error destroying GPU Instance: In "
            "use by another client\n",
            "dra-stale-mig-teardown-failed",
        ),
        (
            "prepare devices failed: error creating MIG device: error creating GPU instance for "
            "'gpu-0-mig-1g10gb-19-0': Insufficient Resources\n",
            "dra-mig-create-failed",
        ),
        (
            'level=error msg="Error applying MIG configuration: MIG profile \\"1g.10gb\\" not '
            'found on this GPU"\n',
            "mig-parted-profile-not-on-gpu",
        ),
        (
            'level=fatal msg="error parsing config file: read error: open '
            '/mig-parted-config/config.yaml: no such file or directory"\n',
            "mig-parted-config-file-unreadable",
        ),
        (
            "toolkit:\n  env:\n  - name: CONTAINERD_CONFIG\n"
            "    value: /var/lib/rancher/rke2/agent/etc/containerd/config.toml\n"
            '  - name: CONTAINERD_SET_AS_DEFAULT\n    value: "true"\n',
            "toolkit-rancher-rendered-containerd-config",
        ),
        (
            "export CONTAINERD_CONFIG=/var/lib/rancher/k3s/agent/etc/containerd/config.toml\n",
            "toolkit-rancher-rendered-containerd-config",
        ),
    ],
)
def test_line_is_named(read: Read, text: str, code: str) -> None:
    assert _codes(read(text))[:1] == [code]


def _finding(facts: HostFacts, matrix: Matrix, subject: str) -> Finding:
    findings = run_checks(facts, matrix).findings
    (found,) = [f for f in findings if f.code == "report-error" and f.subject == subject]
    return found


def test_cause_carries_the_lines_values(read: Read, matrix: Matrix) -> None:
    line = (
        "could not delete unexpected MIG device (gpu-3-mig-2g20gb-5-0): error destroying GPU "
        "Instance: In use by another client\n"
    )
    found = _finding(read(line), matrix, "dra-stale-mig-teardown-failed")
    assert "gpu-3-mig-2g20gb-5-0" in found.detail
    assert "gpu-3-mig-2g20gb-5-0" in found.fix
    line = "CONTAINERD_CONFIG=/var/lib/rancher/k3s/agent/etc/containerd/config.toml\n"
    found = _finding(read(line), matrix, "toolkit-rancher-rendered-containerd-config")
    assert "k3s's generated containerd config.toml" in found.detail
    assert "config.toml.tmpl" in found.fix


@pytest.mark.parametrize(
    ("text", "not_code"),
    [
        # a diagnostic that ran; and the other DCGM refusal is not the layout one
        (
            "Successfully ran diagnostic for group.\nGPU 0's MIG mode: Enabled\n",
            "dcgm-diag-mig-incompatible",
        ),
        (
            "Cannot run diagnostic: MIG is enabled, but no compute instances are configured.\n",
            "dcgm-diag-mig-incompatible",
        ),
        # the DRA plugin's own informational lines: a teardown it is attempting, a claim undone
        (
            "W0301 10:00:00.000000 1 nvlib.go:436] Found unexpected MIG device "
            "(gpu-0-mig-1g24gb-14-4), attempt to tear down\n",
            "dra-stale-mig-teardown-failed",
        ),
        (
            "I0301 10:00:00.000000 1 driver.go:304] Unprepared devices for claim 'default/x'\n",
            "dra-premade-mig-devices",
        ),
        # another prepare failure of the same driver has its own entry
        (
            "prepare devices failed: MPS is not yet supported when using "
            "featureGates.DynamicMIG=true\n",
            "dra-mig-create-failed",
        ),
        # a profile name from another release is mig-parted's other message
        (
            "Error applying MIG configuration: error attempting multiple config orderings: "
            "unsupported MIG Device specified 3g.40gb, expected 3g.39gb instead\n",
            "mig-parted-profile-not-on-gpu",
        ),
        # mig-parted's hooks file is not its MIG config
        (
            "Error: error parsing hooks file: read error: open /hooks.yaml: no such file or "
            "directory\n",
            "mig-parted-config-file-unreadable",
        ),
        # the device plugin's config reader words its failure the same after its own prefix
        (
            "E0601 10:00:00.000000 1 main.go:132] error starting plugins: unable to load config: "
            "unable to finalize config: unable to parse config file: error parsing config file: "
            "read error: open /config/config.yaml: no such file or directory\n",
            "mig-parted-config-file-unreadable",
        ),
        # the template, and a plain containerd's own config, are the right files
        (
            "  - name: CONTAINERD_CONFIG\n"
            "    value: /var/lib/rancher/rke2/agent/etc/containerd/config.toml.tmpl\n",
            "toolkit-rancher-rendered-containerd-config",
        ),
        (
            "  - name: CONTAINERD_CONFIG\n    value: /etc/containerd/config.toml\n",
            "toolkit-rancher-rendered-containerd-config",
        ),
    ],
)
def test_near_miss_is_not_named(read: Read, text: str, not_code: str) -> None:
    try:
        codes = _codes(read(text))
    except FactsError:  # a text with no fact at all is not read: nothing is named
        codes = []
    assert not_code not in codes
