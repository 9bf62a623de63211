"""The corpus's own loader, `bench/corpus_cases.py`, as a module the tests can call (bench/ is
scripts, not a package)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def corpus_cases() -> ModuleType:
    """bench/corpus_cases.py, loaded once per test process."""
    loaded = sys.modules.get("corpus_cases")
    if loaded is not None:
        return loaded
    spec = importlib.util.spec_from_file_location(
        "corpus_cases", ROOT / "bench" / "corpus_cases.py"
    )
    assert spec
    assert spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["corpus_cases"] = module
    spec.loader.exec_module(module)
    return module
