"""gpudoctor: make NVIDIA GPU hosts and GPU framework images work the first time.

Nothing here touches NVML, Docker or the filesystem on import: importing the package must
stay cheap and harmless.
"""

from __future__ import annotations

__version__ = "0.1.0"
