"""Short answers to "what is your environment?": one command and what it printed, or a line of
prose, read through the reader that owns the command (an IPython session, a question copied
without its prompt, `python -c` with several prints, single-column `nvidia-smi --query-gpu`,
`ollama ps`, os-release's VERSION, deviceQuery's summary line, `ls /dev/nvidia*`, `ls
/usr/local`, an empty `| grep`, `vllm --version`, a Mac named alone), each with the near miss that
must stay unread; the messages such answers show (a missing /proc/driver/nvidia/version, missing
/dev/nvidia*, Ubuntu's "Command 'nvcc' not found"); and healthy short answers that must raise
no warning."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import findings_of, named_lines, no_fact_read, warn_or_error

Read = Callable[[str], HostFacts]


def _framework(facts: HostFacts, name: str) -> tuple[str, str | None]:
    fw = next(f for f in facts.frameworks if f.name == name)
    return fw.version, fw.cuda


def _notes(facts: HostFacts) -> tuple[str, ...]:
    assert facts.report is not None
    return facts.report.notes


def _unread(read: Read, text: str) -> bool:
    """No fact read: "no report recognised", or only the words it names (pasted/words.py)."""
    return no_fact_read(read, text)


# --- a Python session's question and its answer -------------------------------------------


def test_ipython_prompts(read: Read) -> None:
    facts = read("In [1]: torch.__version__\nOut[1]: '2.4.0+cu124'\n")
    assert _framework(facts, "torch") == ("2.4.0+cu124", "12.4")
    facts = read(
        "In [1]: import torch\nIn [2]: torch.__version__\nOut[2]: '2.1.0+cu121'\n"
        "In [3]: torch.cuda.is_available()\nOut[3]: False\n"
    )
    assert [d.cuda_available for d in facts.deep if d.name == "torch"] == [False]


def test_question_copied_without_its_prompt(read: Read) -> None:
    assert _framework(read("torch.__version__\n2.3.1+cu118\n"), "torch") == (
        "2.3.1+cu118",
        "11.8",
    )
    # near miss: code, not a question and its answer
    assert _unread(read, "torch.cuda.is_available()\nprint('done')\n")
    assert _unread(read, "if torch.cuda.is_available():\n    x = 1\n")


def test_jax_questions(read: Read) -> None:
    facts = read(">>> jax.__version__\n'0.4.30'\n")
    assert _framework(facts, "jax")[0] == "0.4.30"
    assert any("'gpu'" in n for n in _notes(read(">>> jax.default_backend()\n'gpu'\n")))
    facts = read(
        ">>> import jax\n>>> jax.__version__\n'0.4.30'\n>>> jax.default_backend()\n'cpu'\n"
    )
    assert [d.cuda_available for d in facts.deep if d.name == "jax"] == [False]
    # near miss: an answer that is no backend
    assert _unread(read, ">>> jax.default_backend()\n'banana'\n")


def test_python_c_with_one_print_per_line(read: Read) -> None:
    facts = read(
        '$ python -c "import torch; print(torch.__version__); print(torch.version.cuda)"\n'
        "2.1.2+cu118\n11.8\n"
    )
    assert _framework(facts, "torch") == ("2.1.2+cu118", "11.8")
    # near miss: fewer printed lines than prints, or words that do not fit them
    assert _unread(
        read, '$ python -c "import torch; print(torch.__version__); print(1)"\nhello world\n'
    )


# --- tools' short outputs -------------------------------------------------------------------


def test_query_gpu_of_one_column(read: Read) -> None:
    facts = read("$ nvidia-smi --query-gpu=compute_cap --format=csv\ncompute_cap\n8.9\n")
    assert [g.compute_capability for g in facts.nvml.gpus] == ["8.9"]
    facts = read("nvidia-smi --query-gpu=mig.mode.current --format=csv,noheader\nEnabled\n")
    assert [g.mig_mode_current for g in facts.nvml.gpus] == [True]
    # near miss: the column's header alone, with no command naming it
    assert _unread(read, "compute_cap\n8.9\n")


@pytest.mark.parametrize(
    ("row", "said"),
    [
        (
            "llama3:70b    bcfb190ca3a7    42 GB    100% GPU     4 minutes from now",
            "100% on the GPU",
        ),
        ("llama3:8b     365c0bd3c000    6.7 GB   100% CPU     4 minutes from now", "on the CPU"),
        (
            "llama3:70b    bcfb190ca3a7    42 GB    48%/52% CPU/GPU    4096    Forever",
            "52% on the GPU",
        ),
    ],
)
def test_ollama_ps(read: Read, matrix: Matrix, row: str, said: str) -> None:
    text = "$ ollama ps\nNAME    ID    SIZE    PROCESSOR    UNTIL\n" + row + "\n"
    facts = read(text)
    assert any(said in n for n in _notes(facts))
    assert not warn_or_error(findings_of(read, matrix, text))


def test_ollama_ps_near_miss(read: Read) -> None:
    assert _unread(read, "the fans spin at 100% GPU load\n")


def test_os_release_with_version_not_version_id(read: Read) -> None:
    facts = read('NAME="Rocky Linux"\nVERSION="9.3 (Blue Onyx)"\nID="rocky"\n')
    assert (facts.platform.os_id, facts.platform.os_version) == ("rocky", "9.3")
    # near miss: an ID= alone says no release
    assert _unread(read, 'ID="rocky"\n')


def test_device_query_summary_line(read: Read) -> None:
    facts = read(
        "deviceQuery, CUDA Driver = CUDART, CUDA Driver Version = 12.4, CUDA Runtime Version ="
        " 12.2, NumDevs = 1\nResult = PASS\n"
    )
    assert facts.nvml.cuda_driver_version == "12.4"
    assert any("12.2 runtime" in n for n in _notes(facts))
    old = read(
        "deviceQuery, CUDA Driver = CUDART, CUDA Driver Version = 7.5, CUDA Runtime Version = "
        "7.5, NumDevs = 2, Device0 = Tesla K80, Device1 = Tesla K80\n"
    )
    assert [g.name for g in old.nvml.gpus] == ["Tesla K80", "Tesla K80"]


def test_device_files_listed_without_l(read: Read) -> None:
    facts = read(
        "$ ls /dev/nvidia*\n/dev/nvidia0  /dev/nvidiactl  /dev/nvidia-modeset  /dev/nvidia-uvm\n"
    )
    paths = [n.path for n in facts.kernel.device_nodes]
    assert paths == ["/dev/nvidia0", "/dev/nvidiactl", "/dev/nvidia-modeset", "/dev/nvidia-uvm"]
    assert all(n.readable is None for n in facts.kernel.device_nodes)
    # near miss: a flag that names a device file is no listing
    assert _unread(read, "docker run --device /dev/nvidia0 ubuntu\n")


def test_toolkits_in_usr_local(read: Read) -> None:
    facts = read("$ ls /usr/local | grep cuda\ncuda\ncuda-11.8\ncuda-12.1\n")
    notes = _notes(facts)
    assert any("CUDA 11.8 toolkit" in n for n in notes)
    assert any("CUDA 12.1 toolkit" in n for n in notes)
    # near miss: a folder of another name
    assert _unread(read, "$ ls /usr/local\nbin\nlib\nshare\n")


@pytest.mark.parametrize(
    ("command", "said"),
    [
        ("lsmod | grep nvidia", "no nvidia kernel module is loaded"),
        ("ldconfig -p | grep libcuda", "has no libcuda"),
        ("which nvcc", "no nvcc on PATH"),
    ],
)
def test_a_grep_that_printed_nothing(read: Read, command: str, said: str) -> None:
    facts = read(f"$ {command}\n$ \n")
    assert any(said in n for n in _notes(facts))


def test_a_grep_that_printed_lines_is_not_empty(read: Read) -> None:
    facts = read("$ lsmod | grep nvidia\nnvidia_uvm   1892352  0\n$ \n")
    assert not any("printed nothing" in n for n in _notes(facts))
    assert "nvidia_uvm" in facts.kernel.modules_loaded
    # near miss: another word grepped for says nothing of the driver
    assert _unread(read, "$ lsmod | grep snd\n$ \n")


def test_vllm_version(read: Read) -> None:
    facts = read("$ vllm --version\n0.6.3.post1\n")
    assert [(p.name, p.version) for p in facts.programs] == [("vllm", "0.6.3.post1")]
    assert _unread(read, "$ vllm --version\nusage: vllm [-h]\n")


@pytest.mark.parametrize(
    "text", ["I'm on an M1 Mac\n", "M2 Max MacBook, 32 GB\n", "running it on a Mac mini\n"]
)
def test_a_mac_named_alone_is_read_and_not_an_error(read: Read, matrix: Matrix, text: str) -> None:
    facts = read(text)
    assert any("names a Mac" in n for n in _notes(facts))
    assert not warn_or_error(findings_of(read, matrix, text))


def test_mac_near_miss(read: Read) -> None:
    assert _unread(read, "the m1 macro expands twice\n")


# --- the messages a short answer shows -------------------------------------------------------


def test_proc_version_missing(read: Read, matrix: Matrix) -> None:
    text = (
        "$ cat /proc/driver/nvidia/version\n"
        "cat: /proc/driver/nvidia/version: No such file or directory\n"
    )
    found = named_lines(read, matrix, text, "nvidia-proc-version-missing")
    assert [f.severity for f in found] == [Severity.ERROR]
    assert "/proc/driver/nvidia/version does not exist" in found[0].detail
    # near miss: the file read
    assert not named_lines(
        read,
        matrix,
        "$ cat /proc/driver/nvidia/version\nNVRM version: NVIDIA UNIX x86_64 Kernel Module  "
        "535.183.01  Sun May 12 19:39:15 UTC 2024\n",
        "nvidia-proc-version-missing",
    )


def test_device_files_missing(read: Read, matrix: Matrix) -> None:
    text = "$ ls /dev/nvidia*\nls: cannot access '/dev/nvidia*': No such file or directory\n"
    found = named_lines(read, matrix, text, "nvidia-device-files-missing")
    assert [f.severity for f in found] == [Severity.ERROR]
    assert "/dev/nvidia* does not exist" in found[0].detail
    # near miss: another device's file
    assert not named_lines(
        read,
        matrix,
        "Ubuntu 22.04\nls: cannot access '/dev/dri': No such file or directory\n",
        "nvidia-device-files-missing",
    )


def test_ubuntus_nvcc_not_found_is_the_missing_compiler(read: Read, matrix: Matrix) -> None:
    text = "$ nvcc --version\nCommand 'nvcc' not found, but can be installed with:\n"
    assert len(named_lines(read, matrix, text, "cuda-compiler-not-found")) == 1
    # near miss: another command's
    other = "$ nvidia-smi\nCommand 'nvidia-smi' not found, but can be installed with:\n"
    assert not named_lines(read, matrix, other, "cuda-compiler-not-found")
    assert named_lines(read, matrix, other, "nvidia-smi-not-found")


# --- healthy short answers raise nothing ------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '$ python -c "import torch; print(torch.__version__, torch.cuda.is_available())"\n'
        "2.1.0+cu121 True\n",
        "In [2]: torch.cuda.is_available()\nOut[2]: True\n",
        ">>> jax.default_backend()\n'gpu'\n",
        "$ nvidia-smi --query-gpu=compute_cap --format=csv\ncompute_cap\n8.9\n",
        'NAME="Rocky Linux"\nVERSION="9.3 (Blue Onyx)"\nID="rocky"\n',
        "deviceQuery, CUDA Driver = CUDART, CUDA Driver Version = 12.4, CUDA Runtime Version = "
        "12.4, NumDevs = 1\nResult = PASS\n",
        "$ ls /dev/nvidia*\n/dev/nvidia0  /dev/nvidiactl  /dev/nvidia-uvm\n",
        "$ ls /usr/local | grep cuda\ncuda\ncuda-12.1\n",
        "$ vllm --version\n0.6.3.post1\n",
    ],
)
def test_healthy_short_answers_raise_nothing(read: Read, matrix: Matrix, text: str) -> None:
    assert not warn_or_error(findings_of(read, matrix, text))


def test_one_line_kept_of_a_package_or_module_answer(read: Read) -> None:
    facts = read("$ apt-cache show nvidia-jetpack | grep Version\nVersion: 6.0+b106\n")
    assert facts.platform.jetpack_release == "6.0"
    facts = read("$ cat /sys/module/nvidia/version\n550.54.15\n")
    assert facts.kernel.nvidia_module_version == "550.54.15"
    assert "nvidia" in facts.kernel.modules_loaded
    facts = read("$ modinfo nvidia | grep ^version\nversion:        550.54.15\n")
    assert any("on disk is 550.54.15" in n for n in _notes(facts))
    assert facts.kernel.nvidia_module_version is None  # on disk, not loaded
    # near miss: another package's Version line
    assert _unread(read, "$ apt-cache show python3 | grep Version\nVersion: 3.10.6-1\n")


def test_torch_version_cuda_none_shows_nothing_in_the_repl(read: Read) -> None:
    facts = read(">>> torch.__version__\n'2.3.0'\n>>> torch.version.cuda\n>>> \n")
    assert [(f.cuda, f.cpu_only) for f in facts.frameworks if f.name == "torch"] == [(None, True)]
    # without it, the same version says nothing of the build
    facts = read(">>> torch.__version__\n'2.3.0'\n")
    assert [f.cpu_only for f in facts.frameworks if f.name == "torch"] == [None]
    # near miss: another question that printed nothing
    assert _unread(read, ">>> torch.manual_seed(0)\n>>> \n")
