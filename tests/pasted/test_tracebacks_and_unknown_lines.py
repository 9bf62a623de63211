"""A paste that holds a fact is read: a Python traceback's frame paths (the packages installed
in site-packages, the Python), the lines that say something failed where no known line is in
the paste (quoted as unknown errors, info only), and a script's device answers."""

from __future__ import annotations

import pytest

from gpudoctor.errors import FactsError
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import Read, findings_of, no_fact_read, warn_or_error

TB = "Traceback (most recent call last):\n"


def _frame(path: str, line: int = 10, func: str = "f", code: str = "x = f()") -> str:
    """A frame as CPython's traceback module prints it."""
    return f'  File "{path}", line {line}, in {func}\n    {code}\n'


# --- traceback frames --------------------------------------------------------------------------


def test_a_frame_in_site_packages_names_the_package_and_python(read: Read) -> None:
    facts = read(
        TB
        + _frame("/home/ana/train.py", 12, "<module>")
        + _frame("/home/ana/.venv/lib/python3.10/site-packages/torch/nn/modules/module.py", 1145)
        + "ValueError: expected sequence of length 3 at dim 1 (got 4)\n"
    )
    assert facts.report is not None
    assert "traceback paths" in facts.report.sections
    (note,) = [n for n in facts.report.notes if "site-packages" in n]
    assert "Python 3.10: torch" in note
    assert "versions are not in the paste" in note
    assert facts.platform.python_version == "3.10"
    # a package without a version is no framework fact: nothing judges a version it lacks
    assert facts.frameworks == ()


def test_windows_installer_folder_names_the_python(read: Read) -> None:
    path = (
        r"C:\Users\kim\AppData\Local\Programs\Python\Python310\lib\site-packages"
        r"\torch\serialization.py"
    )
    facts = read(TB + _frame(path, 791, "load") + "FileNotFoundError: [Errno 2] No such file\n")
    assert facts.platform.python_version == "3.10"
    assert facts.report is not None
    assert any("Python 3.10: torch" in n for n in facts.report.notes)


def test_dist_packages_and_several_packages(read: Read) -> None:
    facts = read(
        TB
        + _frame("/usr/local/lib/python3.10/dist-packages/vllm/engine/llm_engine.py", 300)
        + _frame("/usr/local/lib/python3.10/dist-packages/transformers/utils/hub.py", 40)
        + _frame("/usr/local/lib/python3.10/dist-packages/six.py", 7)
        + "AssertionError\n"
    )
    assert facts.report is not None
    (note,) = [n for n in facts.report.notes if "site-packages" in n]
    assert "vllm, transformers, six" in note


def test_a_package_whose_version_the_paste_gives_is_not_repeated(read: Read) -> None:
    facts = read(
        "torch==2.1.0\n"
        + TB
        + _frame("/opt/conda/lib/python3.10/site-packages/torch/cuda/__init__.py", 107)
        + "RuntimeError: boom\n"
    )
    assert facts.report is not None
    assert "traceback paths" not in facts.report.sections
    assert [f.version for f in facts.frameworks] == ["2.1.0"]


def test_near_misses_of_frame_paths(read: Read) -> None:
    # pip's "in <folder>" names the folder, no package below it; the CUDA wheels' library
    # folder is facts_scan's; a wheel's metadata folder is no package
    for text in (
        "Location: /usr/local/lib/python3.10/dist-packages\n",
        "/usr/local/lib/python3.10/site-packages/torch-2.1.0.dist-info/METADATA\n",
        "libcudnn.so.8 => /home/u/.venv/lib/python3.10/site-packages/nvidia/cudnn/x\n",
    ):
        facts = read(text)  # the Python of the path is facts_scan's
        assert facts.report is not None
        assert "traceback paths" not in facts.report.sections


# --- unknown error lines -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (TB + _frame("main.py", 4, "<module>") + "KeyError: 'a'\n", 4),
        (TB + _frame("/srv/x.py") + "requests.exceptions.ConnectionError: Max retries\n", 4),
        (TB + _frame("/srv/x.py") + "    ^^^^^^^^\nStopIteration\n", 5),
        ("$ python infer.py\nLoading model...\nSegmentation fault\n", 3),
        ("Aborted (core dumped)\n", 1),
        ("$ python train.py\nEpoch 1/10\nKilled\n", 3),
        ("./run.sh: line 3: 12345 Killed                  python train.py\n", 1),
        ("Process finished with exit code 139 (interrupted by signal 11: SIGSEGV)\n", 1),
        ("subprocess.CalledProcessError: Command 'ninja' returned non-zero exit status 1.\n", 1),
        ("error: command '/usr/bin/gcc' failed with exit code 1\n", 1),
        ("fatal error: Python.h: No such file or directory\n", 1),
        ("src/x.c:12:3: error: unknown type name 'foo'\n", 1),
        ("2024-05-01 10:00:01,123 ERROR worker.py:88 -- task failed\n", 1),
        ("F0501 10:00:01.123456 12345 main.cc:42] Check failed: x == y (1 vs. 2)\n", 1),
        ('time="2024-05-01T10:00:01Z" level=error msg="failed to start"\n', 1),
        ("[ERROR] Failed to initialize the backend service\n", 1),
        ("E: Unable to locate package foo\n", 1),
    ],
)
def test_an_error_line_not_in_the_catalogue_is_read_and_quoted(
    read: Read, matrix: Matrix, text: str, line: int
) -> None:
    facts = read(text)
    assert facts.report is not None
    assert facts.report.errors == ()
    assert [e.line for e in facts.report.unknown_lines] == [line]
    found = findings_of(read, matrix, text)
    (unknown,) = [f for f in found if f.code == "report-unknown-line"]
    assert unknown.severity is Severity.INFO
    quoted = text.splitlines()[line - 1].strip()
    assert quoted in unknown.title
    assert f"line {line}: {quoted}" in unknown.detail
    assert "nvidia-smi" in unknown.fix
    assert "collect_env" in unknown.fix
    assert warn_or_error(found) == []


@pytest.mark.parametrize(
    "text",
    [
        "The error rate dropped after tuning; no errors in the last run.\n",
        "Errors: 0\nWarnings: 0\n",
        "Process finished with exit code 0\n",
        "program exited with exit status 0\n",
        "I killed the process and restarted it, same thing.\n",
        '    logger.error("failed: %s", e)\n',
        "except RuntimeError: pass\n",
        "2024-05-01 10:00:01,123 INFO server.py:12 -- listening on 0.0.0.0:8000\n",
        "MAX_ERROR_COUNT=0\n",
        "F0501 is the form's number\n",
    ],
)
def test_near_misses_of_error_lines_are_not_read(read: Read, text: str) -> None:
    with pytest.raises(FactsError):
        read(text)


def test_unknown_lines_beside_a_known_one_are_left_to_it(read: Read, matrix: Matrix) -> None:
    text = (
        "Segmentation fault (core dumped)\n"
        "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    )
    facts = read(text)
    assert facts.report is not None
    assert facts.report.errors
    assert facts.report.unknown_lines == ()
    assert not [f for f in findings_of(read, matrix, text) if f.code == "report-unknown-line"]


def test_an_unknown_line_keeps_no_secret_and_at_most_five_lines(read: Read) -> None:
    text = "ERROR: login failed with token=hf_abcdefghijklmnopqrstuvwxyz0123\n" + "".join(
        f"ERROR: step {n} failed\n" for n in range(9)
    )
    facts = read(text)
    assert facts.report is not None
    first, *rest = facts.report.unknown_lines
    assert "hf_abcdefghij" not in first.text
    assert "<redacted>" in first.text
    assert [e.line for e in rest] == [2, 3, 4, 5]


def test_a_long_log_of_error_lines_is_read_in_linear_time(read: Read) -> None:
    import time

    text = "ERROR " * 2 + "x\n" + ("INFO step ok, no error here at all\n" * 200_000)
    began = time.perf_counter()
    facts = read(text)
    assert time.perf_counter() - began < 10
    assert facts.report is not None
    assert len(facts.report.unknown_lines) == 1


# --- device answers ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "name", "cc"),
    [
        ("Device name: NVIDIA GeForce RTX 2080 Ti\n", "GeForce RTX 2080 Ti", "7.5"),
        ("cuda device: NVIDIA A100-SXM4-40GB\n", "A100", "8.0"),
        # a model the matrix does not list: its name, its compute capability unknown
        ("torch.cuda.get_device_name(): NVIDIA Tegra X1\n", "NVIDIA Tegra X1", None),
        ("gpu_name = NVIDIA Hypothetical 9000\n", "NVIDIA Hypothetical 9000", None),
        ("device name 'NVIDIA Future Board'\n", "NVIDIA Future Board", None),
    ],
)
def test_a_gpu_name_after_a_device_key_is_read(
    read: Read, text: str, name: str, cc: str | None
) -> None:
    facts = read(text)
    (gpu,) = facts.nvml.gpus
    assert name in (gpu.name or "")
    assert gpu.compute_capability == cc
    if cc is None:
        assert facts.report is not None
        assert any("the matrix does not list" in n for n in facts.report.notes)


def test_a_gpu_listing_wins_over_a_device_answer(read: Read) -> None:
    facts = read("GPU 0: Tesla T4 (UUID: GPU-1234)\nDevice name: NVIDIA Future Board\n")
    assert [g.name for g in facts.nvml.gpus] == ["Tesla T4"]


@pytest.mark.parametrize(
    "text",
    [
        "GPU: NVIDIA Corporation Device 2684\n",  # lspci's vendor, no model
        "GPU: NVIDIA\n",
        "device: cuda:0\n",
        "My GPU is an NVIDIA card\n",
        "x = torch.zeros(3, device='cuda:0')\n",  # code, not torch's output
        "Using cuda devices is easy\n",
    ],
)
def test_near_misses_of_device_answers(read: Read, text: str) -> None:
    assert no_fact_read(read, text)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("CUDA available: True\n", "the paste says CUDA is available"),
        ("GPU available? False\n", "the paste says CUDA is not available"),
        ("Using device: cuda\n", "uses the device cuda"),
        ("Using device: cpu\n", "uses the device cpu"),
        ("Using cuda device\n", "uses the device cuda"),  # PyTorch's quickstart tutorial
        ("tensor([0.1000, 0.2000], device='cuda:0')\n", "tensor on a CUDA device"),
        ("tensor([[1., 2.],\n        [3., 4.]], device='cuda:0')\n", "tensor on a CUDA device"),
    ],
)
def test_device_answers_are_notes(read: Read, matrix: Matrix, text: str, said: str) -> None:
    facts = read(text)
    assert facts.report is not None
    assert any(said in n for n in facts.report.notes)
    assert warn_or_error(findings_of(read, matrix, text)) == []


def test_torch_said_available_is_torchs_answer(read: Read) -> None:
    facts = read("torch cuda available: False\n")
    assert facts.report is not None
    assert "device answers" in facts.report.sections
    assert not any("which framework" in n for n in facts.report.notes)


def test_is_available_true_alone_is_read(read: Read) -> None:
    # (facts_scan reads it; its fact was not counted as a line read)
    facts = read("torch.cuda.is_available(): True\n")
    assert facts.report is not None
    assert facts.report.sections == ("facts in text",)


def test_a_shorter_name_of_the_same_gpu_is_no_other_model(read: Read) -> None:
    facts = read("Device name: NVIDIA GeForce RTX 2080 Ti\n")
    assert facts.report is not None
    assert not any("other GPU models" in n for n in facts.report.notes)
    # near miss: another model whose name is a part of the first one's letters is one
    other = read("GPUs: 4x A100 and 1x A10\n")
    assert other.report is not None
    assert any("other GPU models named in the text: A10" in n for n in other.report.notes)


@pytest.mark.parametrize(
    "line",
    [
        "ls: cannot access '/usr/local/cuda': No such file or directory",
        "bash: /usr/local/cuda/bin/nvcc: Permission denied",
        "sh: 1: deviceQuery: not found",
        "The kernel appears to have died. It will restart automatically.",
        "The Kernel crashed while executing code in the current cell or a previous cell.",
        "zsh: command not found: conda",
        "'python' is not recognized as an internal or external command,",
        "python : The term 'python' is not recognized as the name of a cmdlet, function, script "
        "file, or operable program.",
    ],
)
def test_system_call_failures_and_dead_kernels_are_unknown_lines(read: Read, line: str) -> None:
    facts = read(line + "\n")
    assert facts.report is not None
    assert [u.text for u in facts.report.unknown_lines] == [line]


@pytest.mark.parametrize(
    "line",
    [
        "No such file or directory is expected here, the docs say",  # prose, no program
        "the kernel module was not found by modprobe yesterday",
    ],
)
def test_prose_with_errno_words_is_no_unknown_line(read: Read, line: str) -> None:
    with pytest.raises(FactsError):
        read(line + "\n")
