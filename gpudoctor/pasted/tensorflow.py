"""`tf.sysconfig.get_build_info()`: the dict (or OrderedDict) TensorFlow was built with; its
cuda_version / cudnn_version / is_cuda_build keys, read with the same reader as the installed
build_info.py (probes/frameworks.py)."""

from __future__ import annotations

import re

from gpudoctor.pasted.clean import version_text
from gpudoctor.pasted.draft import Draft, put
from gpudoctor.probes.frameworks import tf_value

NAME = "tf build info"
DESCRIPTION = "`tf.sysconfig.get_build_info()`"
START = re.compile(
    r"""(?:OrderedDict\(\[|\{)[ \t]{0,4}\(?['"]"""
    r"""(?:cpu_compiler|cuda_compute_capabilities|cuda_version|is_cuda_build)['"]"""
)


def parse(block: str, draft: Draft) -> None:
    text = block[:8192]  # the dict is one line of a few hundred characters
    cuda = tf_value(text, "cuda_version")
    is_cuda = tf_value(text, "is_cuda_build")
    if cuda is None and is_cuda is None:
        return
    draft.section(NAME)
    put(draft.tensorflow, "cuda", version_text(cuda))
    put(draft.tensorflow, "cudnn", version_text(tf_value(text, "cudnn_version")))
    if is_cuda is not None:
        put(
            draft.tensorflow,
            "cpu_only",
            is_cuda == "False" and tf_value(text, "is_rocm_build") != "True",
        )
