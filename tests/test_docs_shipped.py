"""Every `docs/...` path the code points a user at exists where `resources.data_root()` says:
the finding anchors in docs/findings.md and the files error hints and help texts name. The wheel
ships docs/ as package data (tests/matrix/test_matrix_wheel.py checks the installed copy)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from gpudoctor.builder.verify_codes import CATALOGUE as VERIFY
from gpudoctor.checks.catalogue import CATALOGUE
from gpudoctor.findings import Finding, Severity
from gpudoctor.resources import data_root

PACKAGE = Path(__file__).resolve().parents[1] / "gpudoctor"
_DOC_PATH = re.compile(r"docs/[a-z0-9-]+\.md")


def test_every_finding_docs_anchor_exists() -> None:
    doc = (data_root() / "docs" / "findings.md").read_text(encoding="utf-8")
    for code in [*CATALOGUE, *VERIFY]:
        link = Finding(code, Severity.OK, "x", "t").docs
        path, anchor = link.split("#")
        assert (data_root() / path).is_file()
        assert f'<a id="{anchor}"></a>' in doc, code


def test_every_docs_file_the_code_names_exists() -> None:
    named = {m for p in PACKAGE.rglob("*.py") for m in _DOC_PATH.findall(p.read_text())}
    assert named, "the code names no docs/ file: the pattern is wrong"
    missing = sorted(n for n in named if not (data_root() / n).is_file())
    assert missing == []


# References to documents outside this repository a reader cannot open (spelled in pieces so
# that this file does not match itself).
_UNOPENABLE = re.compile(
    "|".join(
        [
            r"\.\./" + "shared",
            "DES" + "IGN",
            "STYLE" + " habit",
            "doctors-and-" + "host-facts",
            "image-" + "builders",
            "style-" + "anchors",
            "cheat" + "-sheet",
        ]
    )
)
_SKIP = {".git", ".venv", "images", "__pycache__", "node_modules", "dist", "build"}


def _repository_files(root: Path) -> list[Path]:
    """What the repository holds: git's tracked and not-ignored files (so any virtual environment
    or cache, whatever its name, stays out); every file outside the skipped folders elsewhere."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=root,
            capture_output=True,
            check=True,
            timeout=60,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return [p for p in root.rglob("*") if not set(p.relative_to(root).parts) & _SKIP]
    return [root / name for name in listed.decode("utf-8", "replace").split("\0") if name]


def test_no_reference_a_reader_cannot_open() -> None:
    root = PACKAGE.parent
    hits = []
    for path in _repository_files(root):
        parts = set(path.relative_to(root).parts)
        if not path.is_file() or parts & _SKIP or path.suffix in {".pyc", ".so", ".whl", ".gz"}:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        hits += [f"{path.relative_to(root)}: {m.group()}" for m in _UNOPENABLE.finditer(text)]
    assert hits == []
