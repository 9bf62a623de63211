"""A pasted report's error lines (matrices/signatures.toml, checks/pasted_report.py) and the
markdown reply."""

from __future__ import annotations

from gpudoctor.checks import run_checks
from gpudoctor.checks.catalogue import CATALOGUE
from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from gpudoctor.matrix.signatures import load_signatures
from gpudoctor.pasted.dispatch import read_report
from gpudoctor.report.markdown import escape, render_markdown

SMI = (
    "| NVIDIA-SMI 570.86.16              Driver Version: 570.86.16      CUDA Version: 12.8     |\n"
    "|   0  NVIDIA GeForce RTX 5090        Off |   00000000:01:00.0  On |                  N/A |\n"
    "|  0%   45C    P8             20W /  575W |     682MiB /  32607MiB |      2%      Default |\n"
)


def _read(text: str, matrix: Matrix) -> HostFacts:
    return read_report(text, "paste.txt", matrix.architectures)


def test_every_signature_finds_its_example_and_names_real_findings() -> None:
    catalogue = load_signatures()
    assert len(catalogue.signatures) >= 30
    for known in catalogue.signatures:
        assert known.examples, known.code
        for example in known.examples:
            assert known.compiled.search(example), known.code
        assert set(known.predicted_by) <= CATALOGUE.keys(), known.code
    assert not any(s.compiled.search("everything works fine") for s in catalogue.signatures)


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
    assert read.title == "read nvidia-smi from paste.txt (nvidia-smi lines 1-3 of 4)"
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


def test_found_version_is_explained_with_its_own_number(matrix: Matrix) -> None:
    text = "RuntimeError: The NVIDIA driver on your system is too old (found version 12080).\n"
    facts = _read(text, matrix)
    assert facts.nvml.cuda_driver_version == "12.8"
    run = run_checks(facts, matrix)
    (line,) = [f for f in run.findings if f.code == "report-error"]
    assert "CUDA up to 12.8 (found version 12080" in line.detail
    assert "11040" not in line.detail
    assert "11.4" not in line.detail
    assert "CUDA 12.8 or older" in line.fix


def test_an_a100_missing_sm_80_gets_a_fix_for_sm_80(matrix: Matrix) -> None:
    text = (
        "UserWarning: NVIDIA A100-SXM4-80GB with CUDA capability sm_80 is not compatible with "
        "the current PyTorch installation.\n"
    )
    run = run_checks(_read(text, matrix), matrix)
    (line,) = [f for f in run.findings if f.code == "report-error"]
    assert "sm_80" in line.detail
    assert "compute capability 8.0" in line.detail
    assert "sm_80" in line.fix
    assert "sm_120" not in line.fix
    assert "cu128" not in line.fix
    assert "pip install torch==" in line.fix  # the compatibility model's build, not canned
    assert "does not show the driver" in line.fix


def test_the_install_fix_follows_the_host_when_the_driver_is_known(matrix: Matrix) -> None:
    text = SMI + "torch==2.5.1+cu124\nAssertionError: Torch not compiled with CUDA enabled\n"
    run = run_checks(_read(text, matrix), matrix)
    (line,) = [f for f in run.findings if f.subject == "torch-not-compiled-with-cuda"]
    assert "pip install torch==" in line.fix
    assert "does not show the driver" not in line.fix


def test_a_gpu_without_a_driver_does_not_crash_a_check(matrix: Matrix) -> None:
    text = "NVIDIA A100-SXM4-80GB with CUDA capability sm_80 is not compatible with the current "
    text += "PyTorch installation.\n"  # a GPU, and nothing of the driver (NVML not run)
    run = run_checks(_read(text, matrix), matrix)
    assert not [f for f in run.findings if f.code == "check-crashed"]
    (mismatch,) = [f for f in run.findings if f.code == "driver-library-mismatch"]
    assert mismatch.severity is Severity.UNKNOWN


def test_a_pasted_cpu_only_torch_next_to_nvidia_gpus_is_flagged(matrix: Matrix) -> None:
    from tests.support.pasted_samples import COLLECT_ENV

    cpu = COLLECT_ENV.replace("2.5.1+cu124", "2.5.1").replace(
        "CUDA used to build PyTorch: 12.4", "CUDA used to build PyTorch: Could not collect"
    )
    run = run_checks(_read(cpu, matrix), matrix)
    (cpu_only,) = [f for f in run.findings if f.code == "framework-cpu-only"]
    assert cpu_only.severity in (Severity.ERROR, Severity.WARN)


def test_triton_raises_a_cuda_driver_error_by_its_own_words(matrix: Matrix) -> None:
    facts = _read("RuntimeError: Triton Error [CUDA]: device kernel image is invalid\n", matrix)
    assert facts.report is not None
    # its own entry: the CUDA code looked up by the message, and what it means under Triton
    assert [e.code for e in facts.report.errors] == ["triton-cuda-error"]
    (found,) = [f for f in run_checks(facts, matrix).findings if f.code == "report-error"]
    assert "(200)" in found.detail  # the code, looked up by the message Triton prints
    # near miss: Triton's compile errors are not CUDA's
    other = _read(
        "torch==2.5.1+cu124\ntriton.compiler.errors.CompilationError: at 12:4: invalid syntax\n",
        matrix,
    )
    assert other.report is not None
    assert not other.report.errors


def test_every_example_is_named_by_its_own_entry_first() -> None:
    """A line is named by the first entry in catalogue order that matches it: an entry listed
    after a more generic one that also matches its lines would never speak."""
    catalogue = load_signatures()
    shadowed = []
    for known in catalogue.signatures:
        for example in known.examples:
            first = next(s for s in catalogue.signatures if s.compiled.search(example))
            if first.code != known.code:
                shadowed.append(f"{known.code}'s example is named {first.code}: {example[:60]}")
    assert shadowed == []
