"""Error lines as evidence (checks/error_lines.py, checks/evidence.py) and the markdown reply."""

from __future__ import annotations

from gpudoctor.checks import run_checks
from gpudoctor.checks.catalogue import CATALOGUE
from gpudoctor.checks.error_lines import KNOWN_ERRORS, match_error
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.pasted.dispatch import read_report
from gpudoctor.report.markdown import escape, render_markdown

SMI = (
    "| NVIDIA-SMI 570.86.16              Driver Version: 570.86.16      CUDA Version: 12.8     |\n"
    "|   0  NVIDIA GeForce RTX 5090        Off |   00000000:01:00.0  On |                  N/A |\n"
    "|  0%   45C    P8             20W /  575W |     682MiB /  32607MiB |      2%      Default |\n"
)


def _read(text: str, matrix: Matrix) -> HostFacts:
    return read_report(text, "paste.txt", matrix.architectures)


def test_every_known_error_finds_its_example_and_names_real_findings() -> None:
    for known in KNOWN_ERRORS:
        assert known.example, known.code
        found = match_error(known.example)
        assert found is not None, known.code
        assert found.code == known.code
        assert set(known.predicted_by) <= CATALOGUE.keys(), known.code
    assert match_error("everything works fine") is None


def test_error_line_explained_by_a_fact_finding(matrix: Matrix) -> None:
    text = (
        SMI + "torch==2.5.1+cu124\nRuntimeError: CUDA error: no kernel image is available "
        "for execution on the device\n"
    )
    run = run_checks(_read(text, matrix), matrix)
    (arch,) = [f for f in run.findings if f.code == "framework-arch"]
    assert arch.severity is Severity.ERROR
    assert (
        "the report's error line matches: 'RuntimeError: CUDA error: no kernel image" in arch.detail
    )
    (line,) = [f for f in run.findings if f.code == "report-error"]
    assert line.severity is Severity.INFO
    assert "explained by framework-arch" in line.detail


def test_error_line_nothing_explains_stays_an_error(matrix: Matrix) -> None:
    text = SMI + "test: Test CUDA failure common.cu:941 'system not yet initialized'\n"
    run = run_checks(_read(text, matrix), matrix)
    (line,) = [f for f in run.findings if f.code == "report-error"]
    assert line.severity is Severity.ERROR
    assert line.subject == "system-not-initialized"
    assert "fabric manager" in line.detail
    assert "nvidia-fabricmanager" in line.fix
    assert run.exit_code == 1


def test_report_read_says_what_was_read_and_what_not(matrix: Matrix) -> None:
    run = run_checks(_read(SMI, matrix), matrix)
    (read,) = [f for f in run.findings if f.code == "report-read"]
    assert read.title == "read nvidia-smi from paste.txt"
    assert "not in the report: " in read.detail
    assert "the installed frameworks" in read.detail
    (errors,) = [f for f in run.findings if f.code == "report-error"]
    assert errors.severity is Severity.OK


def test_no_report_findings_for_a_live_host_or_snapshot(matrix: Matrix) -> None:
    codes = {f.code for f in run_checks(HostFacts(), matrix).findings}
    assert not codes & {"report-read", "report-error"}


def test_markdown_reply(matrix: Matrix) -> None:
    text = SMI + "torch==2.5.1+cu124\n"
    facts = _read(text, matrix)
    reply = render_markdown(run_checks(facts, matrix), facts)
    assert reply.startswith("### gpudoctor\n\n✗ **torch 2.5.1\\+cu124 has no kernels")
    assert "#### Findings" in reply
    assert (
        "**Fix:** install a build with kernels for 12.0: the newest build that runs here: "
        "pip install torch==" in reply
    )
    assert "#### What it could not tell" in reply
    assert "- recognised: nvidia-smi, pip list" in reply


def test_markdown_escapes_pasted_text(matrix: Matrix) -> None:
    hostile = SMI.replace("NVIDIA GeForce RTX 5090", "<img src=x> @maintainer [x](y)")
    facts = _read(hostile + "torch==2.5.1+cu124\n", matrix)
    reply = render_markdown(run_checks(facts, matrix), facts)
    assert "<img" not in reply
    assert "@maintainer" not in reply
    assert "](y)" not in reply
    assert escape("a_b *c* <d>") == "a\\_b \\*c\\* \\<d\\>"


def test_fabric_state_in_nvidia_smi_q_explains_error_802(matrix: Matrix) -> None:
    gpu = (
        "GPU 00000000:{bus}:00.0\n"
        "    Product Name                          : NVIDIA H100 80GB HBM3\n"
        "    Fabric\n"
        "        State                             : Not Started\n"
        "        Status                            : N/A\n"
    )
    text = (
        "RuntimeError: CUDA error: system not yet initialized\n"
        "==============NVSMI LOG==============\n"
        "Driver Version                            : 550.54.15\n"
        "CUDA Version                              : 12.4\n"
        "Attached GPUs                             : 2\n"
        + gpu.format(bus="18")
        + gpu.format(bus="2A")
    )
    facts = _read(text, matrix)
    assert [g.fabric.state for g in facts.nvml.gpus if g.fabric] == ["not_started"] * 2
    run = run_checks(facts, matrix)
    (fabric,) = [f for f in run.findings if f.code == "fabric-manager"]
    assert fabric.severity is Severity.ERROR
    assert "the report's error line matches" in fabric.detail
    (line,) = [f for f in run.findings if f.code == "report-error"]
    assert (line.severity, line.subject) == (Severity.INFO, "system-not-initialized")
    assert "explained by fabric-manager" in line.detail
