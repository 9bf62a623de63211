"""The CUDA libraries NVIDIA's pip wheels bring, by wheel: `nvidia-cusparse-cu12` installs
libcusparse.so.12, and so on. The probe looks for system copies of these libraries on the
loader's path (probes/cudalibs.py), and the shadowing check pairs each copy with the wheel that
brings the same soname (checks/shadowing.py). A wheel's version is its library's version
(nvidia-cusparse-cu12 12.1.0.106 ships libcusparse.so.12.1.0.106). Neutral: probes and checks
read it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from gpudoctor import versions

# wheel name without its -cuXX suffix -> the libraries (file-name stems) it ships
WHEEL_LIBRARIES: dict[str, tuple[str, ...]] = {
    "nvidia-cudnn": ("libcudnn",),
    "nvidia-cublas": ("libcublas", "libcublasLt"),
    "nvidia-nccl": ("libnccl",),
    "nvidia-nvjitlink": ("libnvJitLink",),
    "nvidia-cusparse": ("libcusparse",),
    "nvidia-cusparselt": ("libcusparseLt",),
    "nvidia-cufft": ("libcufft",),
    "nvidia-curand": ("libcurand",),
    "nvidia-cusolver": ("libcusolver",),
    "nvidia-cuda-runtime": ("libcudart",),
    "nvidia-cuda-nvrtc": ("libnvrtc",),
    "nvidia-cuda-cupti": ("libcupti",),
    "nvidia-cufile": ("libcufile",),
}
LIBRARIES = tuple(lib for libs in WHEEL_LIBRARIES.values() for lib in libs)
# "libcusparse.so.12.1.0.106" -> ("libcusparse", "12.1.0.106"); "libcublasLt.so.12" too.
LIBRARY_FILE = re.compile(
    r"^(" + "|".join(sorted(LIBRARIES, key=len, reverse=True)) + r")\.so(?:\.(\d[\w.]*))?$"
)
_WHEEL = re.compile(r"^(nvidia-[a-z-]+?)(?:-cu\d+)?$")


def wheel_libraries(package: str) -> tuple[str, ...]:
    """The libraries an installed nvidia-* wheel ships (none for an unknown wheel)."""
    match = _WHEEL.match(package)
    return WHEEL_LIBRARIES.get(match.group(1), ()) if match else ()


_RUNTIME_WHEEL = re.compile(r"^nvidia-cuda-runtime-cu(\d+)$")


def runtime_cuda(wheels: Iterable[tuple[str, str]], major: str | None = None) -> str | None:
    """The CUDA release ("12.2") of the nvidia-cuda-runtime-cuNN wheel among installed `wheels`
    ((package, version) pairs): the libcudart a framework that takes its CUDA from NVIDIA's
    wheels loads (torch's PyPI wheels, tensorflow[and-cuda], JAX's cuda plugins), so what the
    driver must run. `major`: only that wheel ("12" for jax-cuda12-plugin). A wheel whose
    version is not of its name's major is not counted."""
    for package, version in wheels:
        match = _RUNTIME_WHEEL.match(package)
        if match is None or (major is not None and match.group(1) != major):
            continue
        release = versions.release(version) or ()
        if len(release) >= 2 and release[0] == int(match.group(1)):
            return f"{release[0]}.{release[1]}"
    return None
