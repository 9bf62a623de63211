"""`kubectl logs --prefix` (and `-l`, `--all-containers`) puts "[pod/NAME/CONTAINER] " before each
line (kubernetes/kubectl, pkg/cmd/logs/logs.go): the GPU Operator's validator prints nvidia-smi
that way. The prefix is an envelope: the table under it is read as the nvidia-smi table it is,
on the same line numbers."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.facts import HostFacts
from tests.support.pasted_samples import SMI_TABLE_A100 as _TABLE

Read = Callable[[str], HostFacts]


def _prefixed(prefix: str) -> str:
    return "".join(prefix + line + "\n" for line in _TABLE.splitlines())


def test_a_prefixed_nvidia_smi_table_is_read_as_one(read: Read) -> None:
    facts = read(_prefixed("[pod/nvidia-operator-validator-lg2lf/toolkit-validation] "))
    assert facts.report.sections == ("nvidia-smi",)
    (gpu,) = facts.nvml.gpus
    assert (gpu.name, gpu.mig_mode_current) == ("NVIDIA A100-SXM4-40GB", False)
    assert facts.nvml.driver_version == "535.104.05"
    # the same lines as the table without its prefixes
    assert facts.report.ranges == read(_TABLE).report.ranges


def test_near_miss_a_bracket_that_is_no_kubectl_prefix_stays(read: Read) -> None:
    # not kubectl's "pod/NAME/CONTAINER": the table is not read as a table
    facts = read(_prefixed("[Pod/Validator_Pod/toolkit] "))
    assert "nvidia-smi" not in facts.report.sections
    # an unprefixed table reads as before
    assert read(_TABLE).report.sections == ("nvidia-smi",)
