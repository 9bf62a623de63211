"""The areas a report groups findings in: each area's name, its title, its place in a report and
whether its checks need a GPU, declared once. Every finding code belongs to one area
(`checks/catalogue.py`, `builder/verify_codes.py`); `checks.REGISTRY` puts each check in the area
of the codes it reports. Neutral: the checks, the builder's verify codes, the reporters and the
docs generator read it.
"""

from __future__ import annotations

from typing import NamedTuple


# A NamedTuple, not a dataclass: this module is on every `check`'s start-up path.
class Area(NamedTuple):
    name: str
    title: str
    # On a host without an NVIDIA GPU its checks checked nothing: the area shows n/a, not ok.
    needs_gpu: bool = False


# The check areas, in report order.
CHECK_AREAS = (
    Area("report", "Pasted report"),
    Area("driver", "NVIDIA driver", needs_gpu=True),
    Area("gpu", "GPUs", needs_gpu=True),
    Area("platform", "Platform"),
    Area("runtime", "Container runtime", needs_gpu=True),
    Area("software", "Frameworks and CUDA libraries"),
    Area("multigpu", "Multi-GPU and multi-node", needs_gpu=True),
    Area("amd", "AMD GPUs and ROCm"),
    Area("intent", "Will it run here"),
    Area("requirements", "Requirements"),
)
# The builder's verify codes: an area of `gpudoctor build`'s report, not of `check`'s.
IMAGE = Area("image", "Image verification (`gpudoctor build`)")

AREAS = tuple(a.name for a in CHECK_AREAS)
AREA_TITLES = {a.name: a.title for a in CHECK_AREAS}
GPU_AREAS = tuple(a.name for a in CHECK_AREAS if a.needs_gpu)


def title(area: str) -> str:
    """The title a report shows for a check area (its name for one it does not know)."""
    return AREA_TITLES.get(area, area)
