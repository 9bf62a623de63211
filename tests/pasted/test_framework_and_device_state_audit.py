"""Framework, driver and MIG pastes that show a failure (or a healthy host) in the forms their
programs print: TensorFlow's build info beside nvidia-smi, JAX's environment report and backend
errors, nvidia-smi's own error cells and warnings. Each test pastes the form the rule is for and
a near miss."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.facts import HostFacts
from gpudoctor.findings import Severity
from gpudoctor.matrix.model import Matrix
from tests.support.pasted_findings import findings_of, warn_or_error

Read = Callable[[str], HostFacts]

_SMI_HEAD = (
    "+---------------------------------------------------------------------------------------+\n"
    "| NVIDIA-SMI {drv}              Driver Version: {drv}      CUDA Version: {cuda}     |\n"
    "|-----------------------------------------+----------------------+----------------------+\n"
    "| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
    "| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |\n"
    "|                                         |                      |               MIG M. |\n"
    "|=========================================+======================+======================|\n"
)
_SMI_END = (
    "+-----------------------------------------+----------------------+----------------------+\n"
)


def smi(drv: str, cuda: str, rows: str) -> str:
    """An nvidia-smi table (R535's layout) with the given GPU rows."""
    return _SMI_HEAD.format(drv=drv, cuda=cuda) + rows + _SMI_END


L4_550 = smi(
    "550.54.15",
    "12.4 ",
    "|   0  NVIDIA L4                      Off | 00000000:00:03.0 Off |                    0 |\n"
    "| N/A   40C    P8              12W /  72W |      0MiB / 23034MiB |      0%      Default |\n"
    "|                                         |                      |                  N/A |\n",
)
TF_BUILD_INFO = (
    "OrderedDict([('cpu_compiler', '/usr/lib/llvm-17/bin/clang'), ('cuda_compute_capabilities', "
    "['sm_60', 'sm_70', 'sm_80', 'sm_89', 'compute_90']), ('cuda_version', '12.3'), "
    "('cudnn_version', '8'), ('is_cuda_build', True), ('is_rocm_build', False), "
    "('is_tensorrt_build', True)])\n"
)


def test_tensorflow_build_infos_cudnn_is_what_it_expects_not_a_cudnn_found(
    read: Read, matrix: Matrix
) -> None:
    """get_build_info()'s cudnn_version is the cuDNN the build was compiled against: with no
    nvidia-cudnn wheel in the report it is no cuDNN the framework loads, so it is never judged
    against another release's cuDNN."""
    findings = findings_of(read, matrix, TF_BUILD_INFO + L4_550)
    assert warn_or_error(findings) == []
    (cudnn,) = [f for f in findings if f.code == "framework-cudnn"]
    assert cudnn.severity is not Severity.ERROR
    # Near miss: a cuDNN wheel of another major beside the build is one it loads, and judged.
    wheel = TF_BUILD_INFO + "tensorflow==2.16.1\nnvidia-cudnn-cu12==9.1.0.70\n" + L4_550
    judged = [f for f in findings_of(read, matrix, wheel) if f.code == "framework-cudnn"]
    assert [f.severity for f in judged] == [Severity.ERROR]
    assert "9.1.0.70" in judged[0].title
