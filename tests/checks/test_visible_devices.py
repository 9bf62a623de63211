"""CUDA_VISIBLE_DEVICES against the GPUs and MIG devices present: indexes, GPU- and MIG- UUIDs
(and their unique prefixes), the redacted forms a snapshot keeps. One rule, used by the live
check and by a pasted report that states the variable."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gpudoctor.checks import platform
from gpudoctor.checks.base import Intent
from gpudoctor.checks.platform import check_cuda_visible
from gpudoctor.facts import HostFacts, MigDevice
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.dispatch import BLOCKS, LINES
from tests.support.hosts import host

GPU0 = "GPU-5d5ba0d6-d33d-2b2c-524d-9e3d8d2b8a77"
GPU1 = "GPU-5d5ba0d6-1111-2b2c-524d-9e3d8d2b8a78"
MIG0 = "MIG-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f"


def _host(value: str, *, uuids: bool = True) -> HostFacts:
    facts = host("a100-8x-r535")
    gpus = list(facts.nvml.gpus[:2])
    if uuids:
        gpus[0] = replace(gpus[0], uuid=GPU0, mig_devices=(MigDevice(index=0, uuid=MIG0),))
        gpus[1] = replace(gpus[1], uuid=GPU1)
    nvml = replace(facts.nvml, gpus=tuple(gpus), device_count=2)
    return replace(facts, nvml=nvml, platform=replace(facts.platform, cuda_visible_devices=value))


def _judge(facts: HostFacts, matrix: Matrix) -> tuple[Severity, str, str]:
    (f,) = check_cuda_visible(facts, matrix, Intent())
    return f.severity, f.title, f.detail


@pytest.mark.parametrize(
    "value",
    ["0", "1,0", GPU0, GPU1[:20], MIG0, "0:0", f"{GPU1},0"],
)
def test_entries_that_name_devices_here_are_ok(value: str, matrix: Matrix) -> None:
    severity, title, _ = _judge(_host(value), matrix)
    assert severity is Severity.OK, title


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("2", "'2' is no GPU index here (GPUs 0 to 1)"),
        ("0,7", "'7' is no GPU index here"),
        ("GPU-ffffffff-0000", "is a UUID of no GPU here"),
        ("MIG-ffffffff", "is a UUID of no MIG device here"),
        ("GPU-5d5ba0d6", "prefix of more than one device"),
        ("GPU-<redacted>", "is a UUID of no GPU or MIG device on this host"),
        ("0:3", "names MIG device 3 of GPU 0, which has no such device"),
        ("all", "neither an index nor a GPU-/MIG- UUID"),
    ],
)
def test_entries_that_name_nothing_here_are_a_warning(
    value: str, words: str, matrix: Matrix
) -> None:
    severity, title, detail = _judge(_host(value), matrix)
    assert severity is Severity.WARN
    assert words in title
    assert "CUDA makes visible only the devices listed before" in detail


def test_what_stays_visible_is_said(matrix: Matrix) -> None:
    _, _, detail = _judge(_host("1,5,0"), matrix)
    assert "ignores '5', '0' and shows 1" in detail
    _, _, none = _judge(_host("9"), matrix)
    assert "no GPU is visible" in none


def test_uuids_not_recorded_are_not_judged(matrix: Matrix) -> None:
    severity, _, _ = _judge(_host("GPU-ffffffff", uuids=False), matrix)
    assert severity is Severity.OK


def test_a_pasted_value_is_judged_by_the_same_rule(matrix: Matrix) -> None:
    from gpudoctor.pasted.dispatch import read_report
    from tests.support.pasted_samples import SMI_TABLE

    facts = read_report(
        SMI_TABLE + "$ CUDA_VISIBLE_DEVICES=1 python train.py\n", "p.txt", matrix.architectures
    )
    assert facts.platform.cuda_visible_devices == "1"
    severity, title, _ = _judge(facts, matrix)
    assert severity is Severity.WARN
    assert "'1' is no GPU index here (GPUs 0 to 0)" in title


@pytest.mark.parametrize(
    ("line", "value"),
    [
        ('export CUDA_VISIBLE_DEVICES=""', ""),
        ("CUDA_VISIBLE_DEVICES= python train.py", ""),
        ("set CUDA_VISIBLE_DEVICES=", ""),
        ('$env:CUDA_VISIBLE_DEVICES=""', ""),
        ('os.environ["CUDA_VISIBLE_DEVICES"] = ""', ""),
        ("os.environ['CUDA_VISIBLE_DEVICES']='1'", "1"),
        ("CUDA_VISIBLE_DEVICES = 0", "0"),
        ("export CUDA_VISIBLE_DEVICES=-1", "-1"),
    ],
)
def test_the_variable_is_read_wherever_a_paste_sets_it(
    line: str, value: str, matrix: Matrix
) -> None:
    from gpudoctor.pasted.dispatch import read_report
    from tests.support.pasted_samples import SMI_TABLE

    facts = read_report(SMI_TABLE + line + "\n", "p.txt", matrix.architectures)
    assert facts.platform.cuda_visible_devices == value
    severity, title, _ = _judge(facts, matrix)
    if value in ("", "-1"):  # hides every GPU of a host that has one
        assert severity is Severity.WARN
        assert "hides every GPU from CUDA" in title


def test_an_empty_value_alone_is_read_and_judged_without_a_gpu(matrix: Matrix) -> None:
    from gpudoctor.pasted.dispatch import read_report

    facts = read_report('export CUDA_VISIBLE_DEVICES=""\n', "p.txt", matrix.architectures)
    severity, title, _ = _judge(facts, matrix)
    assert (severity, title) == (Severity.INFO, "CUDA_VISIBLE_DEVICES='' hides every GPU from CUDA")


def test_a_value_the_shell_expands_or_a_command_is_not_read_as_the_value(matrix: Matrix) -> None:
    from gpudoctor.errors import FactsError
    from gpudoctor.pasted.dispatch import read_report
    from tests.support.pasted_samples import SMI_TABLE

    facts = read_report(
        SMI_TABLE + "CUDA_VISIBLE_DEVICES=$GPU python x.py\n", "p.txt", matrix.architectures
    )
    assert facts.platform.cuda_visible_devices is None
    with pytest.raises(FactsError):
        read_report("CUDA_VISIBLE_DEVICES=$GPU python x.py\n", "p.txt", matrix.architectures)


def test_the_sections_that_list_every_gpu_are_section_names_the_reader_gives() -> None:
    # The check names the reader's sections as text (checks do not import the reader): a
    # renamed section would quietly turn every pasted nvidia-smi into "a program's own list".
    given = {shape.name for shape in (*BLOCKS, *LINES)}
    assert set(platform._EVERY_GPU_LISTED) - given == set()


MIG1 = "MIG-cba663e8-9bed-5b25-b243-5985ef7c9beb"


def _two_migs(value: str) -> HostFacts:
    facts = _host(value)
    gpus = list(facts.nvml.gpus)
    migs = (MigDevice(index=0, uuid=MIG0), MigDevice(index=1, uuid=MIG1))
    gpus[0] = replace(gpus[0], mig_devices=migs)
    return replace(facts, nvml=replace(facts.nvml, gpus=tuple(gpus)))


def test_several_mig_devices_warn_that_a_process_sees_one(matrix: Matrix) -> None:
    # The MIG user guide: a CUDA process enumerates a single MIG device (CUDA 11/R450, 12/R525).
    severity, title, detail = _judge(_two_migs(f"{MIG0},{MIG1}"), matrix)
    assert severity is Severity.WARN
    assert "lists 2 MIG devices" in title
    assert "invalid device ordinal" in detail


def test_one_mig_device_or_a_wrong_one_keeps_its_verdict(matrix: Matrix) -> None:
    # Near misses: one MIG device is the documented use; a UUID of no device keeps that warning.
    assert _judge(_two_migs(MIG1), matrix)[0] is Severity.OK
    severity, title, _ = _judge(_two_migs(f"{MIG0},MIG-ffffffff"), matrix)
    assert severity is Severity.WARN
    assert "is a UUID of no MIG device here" in title
