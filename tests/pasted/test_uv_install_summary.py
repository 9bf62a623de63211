"""uv's install summary (`uv pip install`, `uv add`, `uv sync`): " + name==version" for what it
installed and " - name==version" for what it removed. The installed versions are read as a
`pip list` would give them; a removed one is not the installed one."""

from __future__ import annotations

from collections.abc import Callable

from gpudoctor.facts import HostFacts

Read = Callable[[str], HostFacts]


def _torch(facts: HostFacts) -> str | None:
    return next((fw.version for fw in facts.frameworks if fw.name == "torch"), None)


def test_an_upgrade_reads_the_version_uv_installed(read: Read) -> None:
    text = (
        "Resolved 24 packages in 1.12s\n"
        "Uninstalled 1 package in 210ms\n"
        "Installed 1 package in 95ms\n"
        " - torch==2.4.0\n"
        " + torch==2.5.1\n"
    )
    assert _torch(read(text)) == "2.5.1"


def test_both_onnxruntime_packages_installed_by_uv_are_told(read: Read) -> None:
    text = (
        "Installed 10 packages in 34ms\n"
        " + onnxruntime==1.20.1\n"
        " + onnxruntime-gpu==1.20.1\n"
        " + torch==2.5.1\n"
    )
    notes = read(text).report.notes  # type: ignore[union-attr]
    assert any("both onnxruntime 1.20.1 (CPU) and onnxruntime-gpu 1.20.1" in n for n in notes)


def test_a_list_item_outside_a_uv_summary_is_still_read(read: Read) -> None:
    # Without uv's "Installed N packages" line, " - torch==2.1.0" is a list item (a conda
    # environment's pip section, a bulleted requirement), read as before.
    assert _torch(read(" - torch==2.1.0\n")) == "2.1.0"
