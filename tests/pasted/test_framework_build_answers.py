"""What a paste shows of a framework's build by its own answers, without a version: TensorFlow's
`tf.test.is_built_with_cuda()`, build info and GPU list, and torch's
`torch.backends.cudnn.version()`. Each is judged like the live probe's facts, with a near miss
that must not be read and a GPU build that must raise nothing."""

from __future__ import annotations

from gpudoctor.facts import VERSION_NOT_SHOWN
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import Read, findings_of, warn_or_error

_GPU = "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-5a1b2c3d-1111-2222-3333-444455556666)\n"


def test_tensorflow_without_a_version_keeps_its_cpu_only_answer(read: Read) -> None:
    facts = read(
        ">>> tf.test.is_built_with_cuda()\nFalse\n>>> tf.config.list_physical_devices('GPU')\n[]\n"
    )
    (tf,) = facts.frameworks
    assert (tf.name, tf.version, tf.cpu_only) == ("tensorflow", VERSION_NOT_SHOWN, True)
    (deep,) = facts.deep
    assert (deep.cuda_available, deep.version) == (False, None)  # no version invented


def test_tensorflow_build_info_alone_is_a_framework(read: Read) -> None:
    facts = read(
        ">>> tf.sysconfig.get_build_info()\nOrderedDict([('cpu_compiler', '/usr/bin/clang'), "
        "('is_cuda_build', False), ('is_rocm_build', False), ('is_tensorrt_build', False)])\n"
    )
    assert [(f.name, f.version, f.cpu_only) for f in facts.frameworks] == [
        ("tensorflow", VERSION_NOT_SHOWN, True)
    ]


def test_a_versionless_cpu_only_tensorflow_on_a_gpu_host_is_an_error(
    read: Read, matrix: Matrix
) -> None:
    found = findings_of(
        read,
        matrix,
        _GPU
        + '$ python -c "import tensorflow as tf; print(tf.test.is_built_with_cuda())"\nFalse\n',
    )
    (cpu_only,) = [f for f in found if f.code == "framework-cpu-only"]
    assert cpu_only.severity == Severity.ERROR
    assert "tensorflow[and-cuda]" in cpu_only.fix
    assert "==" not in cpu_only.fix  # no release is pinned that the paste does not show
    assert cpu_only.fix.endswith("(pin the release `pip show tensorflow` names)")


def test_a_tensorflow_question_without_its_answer_is_no_framework(read: Read) -> None:
    facts = read(_GPU + ">>> tf.test.is_built_with_cuda()\n>>> x = 1\n")
    assert facts.frameworks == ()


def test_a_versionless_tensorflow_gpu_build_raises_nothing(read: Read, matrix: Matrix) -> None:
    found = findings_of(
        read,
        matrix,
        _GPU
        + ">>> tf.test.is_built_with_cuda()\nTrue\n>>> tf.config.list_physical_devices('GPU')\n"
        "[PhysicalDevice(name='/physical_device:GPU:0', device_type='GPU')]\n",
    )
    (cpu_only,) = [f for f in found if f.code == "framework-cpu-only"]
    assert cpu_only.severity == Severity.OK
    assert [w for w in warn_or_error(found) if w[0].startswith("framework")] == []


def test_torch_cudnn_version_none_is_a_build_without_cudnn(read: Read) -> None:
    facts = read(">>> torch.__version__\n'2.5.1+cpu'\n>>> torch.backends.cudnn.version()\nNone\n")
    (torch,) = facts.frameworks
    assert (torch.cpu_only, torch.cudnn) == (True, None)
    assert facts.report is not None
    assert any("has no cuDNN" in n for n in facts.report.notes)


def test_torch_cudnn_version_number_is_the_cudnn_it_loads(read: Read, matrix: Matrix) -> None:
    text = _GPU + ">>> torch.__version__\n'2.5.1+cu124'\n>>> torch.backends.cudnn.version()\n"
    facts = read(text + "90100\n")
    assert [f.cudnn for f in facts.frameworks] == ["9.1.0"]
    assert [f.cudnn for f in read(text + "8902\n").frameworks] == ["8.9.2"]  # cuDNN 8's form
    ok = [f for f in findings_of(read, matrix, text + "90100\n") if f.code == "framework-cudnn"]
    assert [f.severity for f in ok] == [Severity.OK]
    bad = [f for f in findings_of(read, matrix, text + "8902\n") if f.code == "framework-cudnn"]
    assert [f.severity for f in bad] == [Severity.ERROR]
    assert "8.9.2" in bad[0].title


def test_a_cudnn_answer_that_is_no_version_is_not_read(read: Read) -> None:
    facts = read(
        ">>> torch.__version__\n'2.5.1+cu124'\n>>> torch.backends.cudnn.version()\n'abc'\n"
    )
    assert [f.cudnn for f in facts.frameworks] == [None]


def test_tensorflow_on_windows_in_prose_reaches_the_windows_verdict(
    read: Read, matrix: Matrix
) -> None:
    said = ">>> tf.config.list_physical_devices('GPU')\n[]\n"
    text = "tensorflow 2.15 installed with pip on Windows, my RTX 3060 is not found\n" + said
    assert read(text).platform.os_pretty == "Windows"
    (cpu_only,) = [f for f in findings_of(read, matrix, text) if f.code == "framework-cpu-only"]
    assert cpu_only.severity == Severity.ERROR
    assert "native Windows" in cpu_only.title
    wsl = read("I run tensorflow 2.15 on Windows via WSL2 with an RTX 3060\n" + said)
    assert wsl.platform.os_pretty is None  # WSL2 is Linux: TensorFlow's GPU path there


def test_a_versionless_tensorflow_that_lists_a_gpu_is_a_gpu_build(
    read: Read, matrix: Matrix
) -> None:
    text = (
        "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1886] Created device "
        "/job:localhost/replica:0/task:0/device:GPU:0 with 13949 MB memory:  -> device: 0, "
        "name: Tesla T4, pci bus id: 0000:00:04.0, compute capability: 7.5\n"
    )
    assert [(f.version, f.cpu_only) for f in read(text).frameworks] == [(VERSION_NOT_SHOWN, False)]
    found = {f.code: f for f in findings_of(read, matrix, text)}
    assert found["framework-cpu-only"].severity == Severity.OK
    assert found["framework-import"].title == "import tensorflow works"  # no "(None)"


def test_device_count_and_is_gpu_available_answers_are_read(read: Read) -> None:
    torch = ">>> torch.__version__\n'2.1.0+cu121'\n"
    none = read(torch + ">>> torch.cuda.device_count()\n0\n")
    assert [(d.name, d.cuda_available) for d in none.deep] == [("torch", False)]
    two = read(torch + '$ python -c "import torch; print(torch.cuda.device_count())"\n2\n')
    assert [(d.name, d.cuda_available) for d in two.deep] == [("torch", True)]
    tf = read(">>> tf.__version__\n'2.15.0'\n>>> tf.test.is_gpu_available()\nFalse\n")
    assert [(d.name, d.cuda_available) for d in tf.deep] == [("tensorflow", False)]
    # near miss: a count that is no number is no answer
    odd = read(torch + ">>> torch.cuda.device_count()\nTraceback (most recent call last):\n")
    assert [(d.name, d.cuda_available) for d in odd.deep] in ([], [("torch", None)])


def test_an_echoed_environment_variable_is_read_as_set(read: Read) -> None:
    facts = read("$ echo $CUDA_VISIBLE_DEVICES\n0,1\n")
    assert facts.platform.cuda_visible_devices == "0,1"
    braced = read('$ echo "${CUDA_VISIBLE_DEVICES}"\nGPU-5a8c1e2f-0000-1111-2222-333344445555\n')
    assert braced.platform.cuda_visible_devices == "GPU-5a8c1e2f-0000-1111-2222-333344445555"
    # near miss: an echo whose next line is the next prompt printed nothing to read
    listing = "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-5a8c1e2f-0000-1111-2222-333344445555)\n"
    silent = read("$ echo $CUDA_VISIBLE_DEVICES\n$ nvidia-smi -L\n" + listing)
    assert silent.platform.cuda_visible_devices is None
