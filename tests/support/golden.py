"""The golden-file switch: GPUDOCTOR_UPDATE_GOLDEN=1 rewrites golden files instead of comparing."""

from __future__ import annotations

import os


def update_golden() -> bool:
    return os.environ.get("GPUDOCTOR_UPDATE_GOLDEN") == "1"
