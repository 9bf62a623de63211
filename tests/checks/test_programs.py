"""The documented minimum compute capability of GPU programs ([[program]] rows of the matrix)
against the GPUs: found live as installed distributions, or named in a paste."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from gpudoctor.checks.base import Intent
from gpudoctor.checks.programs import check_program_min_cc
from gpudoctor.errors import MatrixError
from gpudoctor.facts import HostFacts, InstalledProgram
from gpudoctor.findings import Severity
from gpudoctor.matrix.load import parse_matrix
from gpudoctor.matrix.model import Matrix
from gpudoctor.probes.frameworks import probe_programs
from tests.support.hosts import host
from tests.support.probe_fakes import write_dist


def _judge(facts: HostFacts, matrix: Matrix, *programs: InstalledProgram) -> list[Severity]:
    found = check_program_min_cc(replace(facts, programs=programs), matrix, Intent())
    return [f.severity for f in found]


@pytest.mark.parametrize(
    ("fixture", "program", "severity"),
    [
        ("p100-r470", InstalledProgram("flash-attn", "2.5.8"), Severity.ERROR),  # 6.0 < 8.0
        ("a100-8x-r535", InstalledProgram("flash-attn", "2.5.8"), Severity.OK),
        ("p100-r470", InstalledProgram("vllm", "0.4.2"), Severity.ERROR),  # 6.0 < 7.0
        ("v100-r550", InstalledProgram("vllm", "0.4.2"), Severity.OK),  # 7.0 documented
        ("v100-r550", InstalledProgram("vllm", "0.21.0"), Severity.ERROR),  # 7.5 from 0.21
        ("v100-r550", InstalledProgram("vllm", "0.17.0"), Severity.NA),  # no row read
        ("p100-r470", InstalledProgram("ollama", "0.3.12"), Severity.OK),  # 5.0+
        ("p100-r470", InstalledProgram("flash-attn", "1.0.9"), Severity.NA),  # 2.x rows only
    ],
)
def test_programs_against_the_gpus(
    fixture: str, program: InstalledProgram, severity: Severity, matrix: Matrix
) -> None:
    assert _judge(host(fixture), matrix, program) == [severity]


def test_without_programs_or_gpus_nothing_is_judged(matrix: Matrix) -> None:
    assert _judge(host("p100-r470"), matrix) == [Severity.NA]
    no_gpu = host("no-gpu-toolkit-only")
    assert _judge(no_gpu, matrix, InstalledProgram("vllm", "0.4.2")) == [Severity.NA]


def test_the_error_names_the_gpu_and_the_source(matrix: Matrix) -> None:
    facts = replace(host("p100-r470"), programs=(InstalledProgram("flash-attn", "2.5.8"),))
    (found,) = check_program_min_cc(facts, matrix, Intent())
    assert "needs compute capability 8.0 or newer" in found.title
    assert "(6.0)" in found.title
    assert "github.com/Dao-AILab/flash-attention" in found.detail


def test_the_probe_finds_installed_programs(tmp_path: Path) -> None:
    write_dist(tmp_path, "flash_attn", "2.6.3")
    write_dist(tmp_path, "vllm", "0.6.3")
    write_dist(tmp_path, "ollama", "0.4.1")  # the pip client, not the server: not a program
    found, issues = probe_programs(paths=[tmp_path])
    assert issues == []
    assert found == (InstalledProgram("vllm", "0.6.3"), InstalledProgram("flash-attn", "2.6.3"))


def test_a_paste_names_programs_from_pip_lines_and_logs(matrix: Matrix) -> None:
    from gpudoctor.pasted.dispatch import read_report

    facts = read_report(
        "INFO 05-01 10:00:00 api_server.py:149] vLLM API server version 0.4.2\n"
        "flash_attn==2.5.8\nollama version is 0.3.12\n",
        "p.txt",
        matrix.architectures,
    )
    assert set(facts.programs) == {
        InstalledProgram("vllm", "0.4.2"),
        InstalledProgram("flash-attn", "2.5.8"),
        InstalledProgram("ollama", "0.3.12"),
    }


def test_program_rows_are_validated(tmp_path: Path) -> None:
    base = (Path(__file__).resolve().parents[1] / "data" / "matrix" / "small.toml").read_text()
    bad = base + '\n[[program]]\nname = "vllm"\nversions = "~~0.4"\nmin_compute_capability = "7"\n'
    with pytest.raises(MatrixError) as raised:
        parse_matrix(bad, tmp_path / "m.toml")
    message = raised.value.message
    assert '[[program]] row 1 (name "vllm")' in message
    assert "key 'versions': expected a PEP 440 specifier" in message
    assert "key 'min_compute_capability'" in message
    assert "missing key 'source'" in message
