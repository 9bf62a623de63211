"""A fake `torch` package written into tmp_path, for the deep probe's real subprocess path.

Only what templates/verify_image.py touches: torch.__version__, torch.version.cuda,
torch.backends.cudnn, torch.cuda (is_available, device_count, get_arch_list, get_device_name,
get_device_capability) and torch.arange(...) * 2 .sum().item(). `init` is the code that runs
first in torch/__init__.py: the scenario's import-time behaviour (raise, hang, crash).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

_INIT = """\
{init}
from torch import backends, cuda, version
from torch.version import __version__

float32 = "float32"


class _Tensor:
    def __init__(self, values):
        self.values = values

    def __mul__(self, factor):
        return _Tensor([v * factor for v in self.values])

    def sum(self):
        return _Tensor([sum(self.values)])

    def item(self):
        return float(self.values[0])


def arange(n, dtype=None, device=None):
    {kernel}
    return _Tensor(list(range(n)))
"""

_CUDA = """\
import warnings

DEVICES = {devices!r}
ARCH_LIST = {arch_list!r}


def is_available():
    {available}


def device_count():
    return len(DEVICES)


def get_arch_list():
    return list(ARCH_LIST)


def get_device_name(i):
    return DEVICES[i][0]


def get_device_capability(i):
    return DEVICES[i][1]
"""

_CUDNN = """\
def is_available():
    return {cudnn!r} is not None


def version():
    return {cudnn!r}
"""

NO_KERNEL_IMAGE = "CUDA error: no kernel image is available for execution on the device"


def make_fake_torch(
    site: Path,
    *,
    version: str = "2.5.1+cu124",
    cuda: str | None = "12.4",
    cudnn: int | None = 90100,
    devices: tuple[tuple[str, tuple[int, int]], ...] = (("NVIDIA H100 80GB HBM3", (9, 0)),),
    arch_list: tuple[str, ...] = ("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"),
    available: str = "return bool(DEVICES)",
    kernel: str = "pass",
    init: str = "",
    dist_info: bool = True,
) -> Path:
    """Write torch/ (and its dist-info, so that the frameworks probe finds it) under `site`."""
    pkg = site / "torch"
    (pkg / "cuda").mkdir(parents=True)
    (pkg / "backends").mkdir()
    files = {
        pkg / "__init__.py": _INIT.format(init=textwrap.dedent(init), kernel=kernel),
        pkg / "version.py": f"__version__ = {version!r}\ncuda = {cuda!r}\nhip = None\n",
        pkg / "cuda" / "__init__.py": _CUDA.format(
            devices=devices, arch_list=arch_list, available=available
        ),
        pkg / "backends" / "__init__.py": "from torch.backends import cudnn\n",
        pkg / "backends" / "cudnn.py": _CUDNN.format(cudnn=cudnn if cuda else None),
    }
    if dist_info:
        info = site / f"torch-{version}.dist-info"
        info.mkdir()
        files[info / "METADATA"] = f"Metadata-Version: 2.1\nName: torch\nVersion: {version}\n"
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
    return site
