"""`tf.sysconfig.get_build_info()`: the dict (or OrderedDict) TensorFlow was built with; its
cuda_version / cudnn_version / is_cuda_build keys, read with the same reader as the installed
build_info.py (probes/frameworks.py)."""

from __future__ import annotations

from gpudoctor.pasted.clean import version_text
from gpudoctor.pasted.draft import Draft, put
from gpudoctor.pasted.scan import lines_with
from gpudoctor.probes.frameworks import tf_arch_list, tf_value

NAME = "tf build info"
DESCRIPTION = "`tf.sysconfig.get_build_info()`"
_NEEDLES = ("'is_cuda_build'", '"is_cuda_build"', "'cuda_version'", '"cuda_version"')


def starts(text: str) -> list[int]:
    """The line holding the build-info dict (one line, as Python prints it); a dict split over
    lines starts at the first line naming one of its keys."""
    lines = lines_with(text, text, _NEEDLES)
    return [lines[0][0]] if lines else []


def parse(block: str, draft: Draft) -> None:
    text = block[:8192]  # the dict is one line of a few hundred characters
    cuda = tf_value(text, "cuda_version")
    is_cuda = tf_value(text, "is_cuda_build")
    if cuda is None and is_cuda is None:
        return
    draft.section(NAME)
    put(draft.tensorflow, "cuda", version_text(cuda))
    put(draft.tensorflow, "cudnn", version_text(tf_value(text, "cudnn_version")))
    put(draft.tensorflow, "build_cudnn", version_text(tf_value(text, "cudnn_version")))
    put(draft.tensorflow, "arch_list", tf_arch_list(text) or None)
    if is_cuda is not None:
        put(
            draft.tensorflow,
            "cpu_only",
            is_cuda == "False" and tf_value(text, "is_rocm_build") != "True",
        )
    # Without a TensorFlow version (pip list, tf.__version__) there is no framework to hang
    # these on: the note keeps what the build states in the report.
    said = [f"CUDA {draft.tensorflow['cuda']}"] if draft.tensorflow.get("cuda") else []
    if draft.tensorflow.get("build_cudnn"):
        said.append(f"cuDNN {draft.tensorflow['build_cudnn']}")
    if draft.tensorflow.get("arch_list"):
        said.append("kernels for " + ", ".join(draft.tensorflow["arch_list"]))
    if is_cuda == "False" and tf_value(text, "is_rocm_build") != "True":
        said.append("a CPU-only build")
    if said:
        draft.notes.append("TensorFlow's build info: " + "; ".join(said))
