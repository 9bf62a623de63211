"""xFormers' import warning names the torch and Python it was built for, then the ones installed
("(you have ...)"). The installed ones are the facts; the build's torch must not be read as the
installed torch (it was, by the prose rule for "PyTorch 2.2.0+cu121")."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.facts import HostFacts

Read = Callable[[str], HostFacts]

WARNING = (
    "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
    "    PyTorch 2.2.0+cu121 with CUDA 1201 (you have 2.2.0+cpu)\n"
    "    Python  3.11.7 (you have 3.11.0)\n"
    "  Please reinstall xformers (see https://github.com/facebookresearch/xformers#installing-xformers)\n"
)


def _torch(facts: HostFacts) -> str | None:
    return next((fw.version for fw in facts.frameworks if fw.name == "torch"), None)


def test_the_installed_torch_and_python_are_the_you_have_ones(read: Read) -> None:
    facts = read(WARNING)
    assert _torch(facts) == "2.2.0+cpu"
    assert facts.platform.python_version == "3.11.0"


def test_a_build_without_cuda_in_the_warning(read: Read) -> None:
    text = (
        "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
        "    PyTorch 2.0.1+cu118 with CUDA 1108 (you have 2.1.0+cu121)\n"
    )
    assert _torch(read(text)) == "2.1.0+cu121"


def test_pytorch_named_in_prose_is_still_read(read: Read) -> None:
    # Without xFormers' warning, "PyTorch 2.2.0+cu121" is the installed torch, as before.
    assert _torch(read("I run PyTorch 2.2.0+cu121 on this box\n")) == "2.2.0+cu121"
