"""dist_info reads what importlib.metadata reads, without importing it: held equal on every
distribution installed here and on the header shapes METADATA files take."""

from __future__ import annotations

import email
import sys
from importlib import metadata
from pathlib import Path

import pytest

from gpudoctor.probes import dist_info
from gpudoctor.probes.dist_info import DistInfo, Headers

_INSTALLED = [
    Path(entry) / name
    for entry in sys.path
    if entry and Path(entry).is_dir()
    for name in sorted(p.name for p in Path(entry).iterdir())
    if name.endswith((".dist-info", ".egg-info"))
]


def test_some_distributions_are_installed() -> None:
    assert len(_INSTALLED) > 10


@pytest.mark.parametrize("path", _INSTALLED, ids=lambda p: p.name)
def test_installed_distribution_reads_as_importlib_metadata_reads_it(path: Path) -> None:
    ours, theirs = DistInfo(path), metadata.PathDistribution(path)
    for field in ("Name", "Version", "Summary", "Requires-Python"):
        # .get: from Python 3.12 a missing field through [] warns (and will raise KeyError).
        assert ours.metadata[field] == theirs.metadata.get(field)
    assert ours.version == theirs.version
    assert ours.metadata.get_all("Requires-Dist") == theirs.metadata.get_all("Requires-Dist")
    if path.suffix == ".dist-info":
        assert ours.requires == theirs.requires
    if (path / "RECORD").is_file():
        assert ours.files == [str(p) for p in theirs.files or ()]
    assert ours.locate_file("x/y.py") == theirs.locate_file("x/y.py")


def test_find_is_importlib_metadata_distribution() -> None:
    for name in ("pytest", "Packaging", "typer", "nvidia_ml_py"):
        found = dist_info.find(name)
        assert found is not None
        assert found.version == metadata.version(name)
        assert found.locate_file("") == metadata.distribution(name).locate_file("")
    assert dist_info.find("no-such-distribution-here") is None


@pytest.mark.parametrize(
    "text",
    [
        "Metadata-Version: 2.1\nName: torch\nVersion: 2.5.1+cu124\n\nName: body, not a header\n",
        "Name: a\nSummary: first line\n  continued\n\tand tabbed\nVersion: 1\n",
        "Name: a\r\nVersion: 1\r\nRequires-Dist: b\r\nRequires-Dist: c ; extra == 'x'\r\n\r\n",
        "Name:   spaced   \nName: second wins not\nVersion:1\n",
        "Name: a\nnot a header line\nVersion: 2\n",
        "Name: a\nEmpty:\nVersion: 3",
        "",
    ],
)
def test_headers_parse_as_email_compat32(text: str) -> None:
    theirs = email.message_from_string(text)  # what importlib.metadata wraps (policy compat32)
    ours = Headers(text)
    assert len(ours) == len(theirs)
    for field in ("Name", "Version", "Summary", "Requires-Dist", "Empty", "Missing"):
        assert ours[field] == theirs[field]
        assert ours.get_all(field) == theirs.get_all(field)


def test_record_paths_with_commas_are_unquoted(tmp_path: Path) -> None:
    info = tmp_path / "odd-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Name: odd\nVersion: 1.0\n", encoding="utf-8")
    (info / "RECORD").write_text(
        'odd/__init__.py,sha256=abc,10\n"odd/a,b ""q"".py",sha256=def,3\n'
        "odd-1.0.dist-info/RECORD,,\n",
        encoding="utf-8",
    )
    # The listed files exist: importlib.metadata from Python 3.12 leaves out missing ones.
    (tmp_path / "odd").mkdir()
    (tmp_path / "odd" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "odd" / 'a,b "q".py').write_text("", encoding="utf-8")
    files = metadata.PathDistribution(info).files or []
    assert DistInfo(info).files == [str(p) for p in files]
    assert DistInfo(info).files == ["odd/__init__.py", 'odd/a,b "q".py', "odd-1.0.dist-info/RECORD"]


def test_record_entries_whose_files_are_missing_read_as_importlib_reads_them(
    tmp_path: Path,
) -> None:
    """The shape a GPU host's site-packages showed: RECORD lists files that are not there (a
    `pip install --target` script under ../../bin, a .pyc the image dropped). importlib.metadata
    leaves them out from Python 3.12 on and lists them before; DistInfo follows the running
    Python, as in the test over every installed distribution above."""
    site = tmp_path / "lib" / "site"
    info = site / "tool-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Name: tool\nVersion: 1.0\n", encoding="utf-8")
    (info / "RECORD").write_text(
        "../../bin/tool,sha256=abc,10\r\n"
        "tool/__init__.py,sha256=def,3\r\n"
        "tool/__pycache__/__init__.cpython-312.pyc,,\r\n"
        "tool/__pycache__/gone.cpython-312.pyc,,\r\n"
        "tool-1.0.dist-info/RECORD,,\r\n",
        encoding="utf-8",
    )
    (site / "tool" / "__pycache__").mkdir(parents=True)
    (site / "tool" / "__init__.py").write_text("", encoding="utf-8")
    (site / "tool" / "__pycache__" / "__init__.cpython-312.pyc").write_bytes(b"")
    present = [
        "tool/__init__.py",
        "tool/__pycache__/__init__.cpython-312.pyc",
        "tool-1.0.dist-info/RECORD",
    ]
    listed = ["../../bin/tool", *present[:2], "tool/__pycache__/gone.cpython-312.pyc", present[2]]
    files = metadata.PathDistribution(info).files or []
    assert DistInfo(info).files == [str(p) for p in files]
    assert DistInfo(info).files == (present if sys.version_info >= (3, 12) else listed)


def test_record_lines_read_as_csv_reads_them(tmp_path: Path) -> None:
    """Quoted fields as csv.reader reads them (a quote closed before the comma, an unquoted
    field with a quote inside), paths normalized as importlib's PackagePath; a blank line, on
    which importlib.metadata raises TypeError, passed over."""
    info = tmp_path / "odd-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Name: odd\nVersion: 1.0\n", encoding="utf-8")
    record = 'odd/x"y.py,,\n"odd/q"z.py,,\n./odd//n.py,,\nodd-1.0.dist-info/RECORD,,\n'
    (info / "RECORD").write_text(record, encoding="utf-8")
    (tmp_path / "odd").mkdir()
    for name in ('x"y.py', "qz.py", "n.py"):
        (tmp_path / "odd" / name).write_text("", encoding="utf-8")
    expected = ['odd/x"y.py', "odd/qz.py", "odd/n.py", "odd-1.0.dist-info/RECORD"]
    assert [str(p) for p in metadata.PathDistribution(info).files or []] == expected
    assert DistInfo(info).files == expected
    (info / "RECORD").write_text(record.replace("\n", "\n\n", 1), encoding="utf-8")
    assert DistInfo(info).files == expected


def test_egg_info_requirements_keep_their_names(tmp_path: Path) -> None:
    egg = tmp_path / "tf_thing-1.0.egg-info"
    egg.mkdir()
    (egg / "PKG-INFO").write_text("Name: tf-thing\nVersion: 1.0\n", encoding="utf-8")
    (egg / "requires.txt").write_text("numpy>=1\n\n[and-cuda]\nnvidia-cudnn-cu12==9.1\n")
    theirs = metadata.PathDistribution(egg).requires or []
    assert DistInfo(egg).requires == ["numpy>=1", "nvidia-cudnn-cu12==9.1"]
    assert [r.split(";")[0].strip() for r in theirs] == DistInfo(egg).requires
    assert DistInfo(egg).version == "1.0"
