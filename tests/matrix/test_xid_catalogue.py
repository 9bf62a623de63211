"""matrices/xid.toml goes through the one data-file reader: every problem named by file, table,
row and key, all at once, and `matrix validate` checks it."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudoctor.cli.app import run
from gpudoctor.errors import MatrixError
from gpudoctor.matrix.xid import load_xid_catalogue, parse_xid_catalogue

GOOD = """schema_version = 1

[[action]]
name = "RESET_GPU"
meaning = "reset the GPU"
severity = "error"
reset_due = true
drain_due = true

[[xid]]
xid = 79
description = "GPU has fallen off the bus"
action = "RESET_GPU"
source = "https://docs.nvidia.com/deploy/xid-errors/index.html"
"""


def test_a_good_catalogue_loads(tmp_path: Path) -> None:
    catalogue = parse_xid_catalogue(GOOD, tmp_path / "xid.toml")
    assert catalogue.lookup(79) is not None
    assert catalogue.action(79).reset_due
    assert catalogue.action(80) is catalogue.unknown


def test_the_shipped_catalogue_names_an_action_for_every_xid() -> None:
    catalogue = load_xid_catalogue()
    assert catalogue.xids
    assert {e.action for e in catalogue.xids} <= set(catalogue.by_name)


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            'severity = "error"',
            'severity = "fatal"',
            "[[action]] row 1 (name \"RESET_GPU\"): key 'severity'",
        ),
        ("reset_due = true\n", "", "missing key 'reset_due' (expected true or false)"),
        (
            "xid = 79",
            'xid = "79"',
            "[[xid]] row 1 (xid \"79\"): key 'xid': expected a positive integer",
        ),
        (
            'action = "RESET_GPU"',
            'action = "REBOOT"',
            "key 'action': 'REBOOT' is not an [[action]]",
        ),
        ("source =", "sorce =", "unknown key 'sorce'"),
        ("[[xid]]", "[[xids]]", "unknown top-level table 'xids' (valid: action, xid)"),
    ],
)
def test_a_broken_row_is_named_by_file_table_row_and_key(
    tmp_path: Path, old: str, new: str, expected: str
) -> None:
    path = tmp_path / "xid.toml"
    with pytest.raises(MatrixError) as caught:
        parse_xid_catalogue(GOOD.replace(old, new, 1), path)
    assert str(path) in caught.value.message
    assert expected in caught.value.message
    assert caught.value.hint


def test_a_listed_twice_xid_is_refused(tmp_path: Path) -> None:
    twice = GOOD + GOOD[GOOD.index("[[xid]]") :]
    with pytest.raises(MatrixError, match="xid 79 listed twice"):
        parse_xid_catalogue(twice, tmp_path / "xid.toml")


def test_matrix_validate_checks_an_xid_catalogue(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "xid.toml"
    path.write_text(GOOD)
    assert run(["matrix", "validate", str(path)]) == 0
    assert "1 XIDs and 1 actions" in capsys.readouterr().out
    path.write_text(GOOD.replace("drain_due = true", "drain_due = 1"))
    assert run(["matrix", "validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert "key 'drain_due': expected true or false, found the number 1" in err
