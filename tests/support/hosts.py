"""The recorded host snapshots (tests/data/hosts), their builder script and the golden reports."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from gpudoctor.facts import HostFacts
from gpudoctor.facts_json import load

ROOT = Path(__file__).resolve().parents[2]
HOSTS_DIR = ROOT / "tests" / "data" / "hosts"
GOLDEN_DIR = ROOT / "tests" / "golden" / "reports"
HOST_NAMES = sorted(p.stem for p in HOSTS_DIR.glob("*.json"))
# The frozen matrix the golden reports are judged against (not the shipped one).
GOLDEN_MATRIX = ROOT / "tests" / "data" / "matrix" / "golden-compat.toml"


def make_hosts_module() -> ModuleType:
    """tests/data/hosts/make_hosts.py, imported by path (tests/data is not a package)."""
    spec = importlib.util.spec_from_file_location("make_hosts", HOSTS_DIR / "make_hosts.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("make_hosts", module)
    spec.loader.exec_module(module)
    return module


def host(name: str) -> HostFacts:
    return load(HOSTS_DIR / f"{name}.json")
