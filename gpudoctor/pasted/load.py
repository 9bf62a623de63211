"""`check --from FILE` (or `-` for standard input): a gpudoctor snapshot (JSON) or a pasted text
report, told apart by content, not by name."""

from __future__ import annotations

import json
import select
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from gpudoctor import facts_json
from gpudoctor.errors import FactsError
from gpudoctor.pasted.decode import text_of

if TYPE_CHECKING:
    from gpudoctor.facts import HostFacts
    from gpudoctor.matrix.model import Architecture

STDIN = "-"


def read_source(path: Path) -> tuple[str, str]:
    """(text, name shown in messages) of a file, or of standard input for `-`."""
    cap = facts_json.MAX_SNAPSHOT_BYTES  # read here: tests lower it
    what = "snapshot or report"
    if str(path) == STDIN:
        name = "<stdin>"
        data = facts_json.refuse_oversized(_read_stdin(cap + 1), cap, name, what)
    else:
        hint = (
            "check the path; `gpudoctor snapshot -o FILE` writes a snapshot, or save the pasted "
            "report to a file; a pipe (`--from <(nvidia-smi)`) goes to standard input: "
            "`nvidia-smi | gpudoctor check --from -`"
        )
        data = facts_json.read_bytes_capped(path, cap, what, hint, named=False)
        name = str(path)
    # Pastes come in every encoding a browser or terminal produces; an undecodable byte must not
    # stop the report (it only ever sits in text no shape reads).
    return text_of(data, name), name


def _read_stdin(limit: int) -> bytes:
    """Up to `limit` bytes of standard input; FactsError when there is none to read (closed, a
    folder, a descriptor that refuses reading)."""
    stream = getattr(sys.stdin, "buffer", None)
    hint = "pipe a report in: `nvidia-smi | gpudoctor check --from -`"
    if stream is None:
        raise FactsError("standard input is closed", hint=hint)
    chunks: list[bytes] = []
    size = 0
    try:
        if sys.stdin.isatty():  # a person at a terminal: say what is awaited, not a silent wait
            sys.stderr.write("reading a report from the terminal: paste it, then press Ctrl-D\n")
        while size < limit:
            try:
                chunk = stream.read(limit - size)
            except BlockingIOError:  # what some streams raise instead of returning None
                chunk = None
            if chunk is None:
                # a non-blocking descriptor (a parent left O_NONBLOCK set): no data yet, so
                # wait for some, as a blocking read would
                select.select([stream], [], [])
                continue
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except (OSError, ValueError) as exc:  # ValueError: read of a closed file
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise FactsError(f"cannot read standard input: {why}", hint=hint) from None
    return b"".join(chunks)


def load_facts(path: Path, architectures: Sequence[Architecture] = ()) -> HostFacts:
    text, name = read_source(path)
    refuse_empty(text, name)
    if _is_snapshot(text):
        return facts_json.loads(text, name)
    from gpudoctor.pasted.dispatch import read_report  # lazy: a text report only

    try:
        return read_report(text, name, architectures)
    except FactsError:
        if text.lstrip().startswith("{"):  # meant as a snapshot: say what is wrong with the JSON
            return facts_json.loads(text, name)
        raise


# Top-level keys only a gpudoctor snapshot has: any other JSON object (`kubectl get node -o
# json`, `docker inspect`, a structured log record: zap's, Docker's json-file) is a report.
_SNAPSHOT_KEYS = frozenset(
    ("schema_version", "tool_version", "collected_at", "nvml", "container_runtime", "cuda_libs")
)


def _is_snapshot(text: str) -> bool:
    """JSON with a top-level schema_version; a TF build-info dict also starts with `{` but is
    not JSON (single quotes); a truncated snapshot is still a snapshot (its error is clearer)."""
    head = text.lstrip()
    if not head.startswith("{"):
        return False
    if '"schema_version"' in head[:4096] or '"nvml"' in head[:4096]:
        return True
    try:
        data = json.loads(head)
    except (ValueError, RecursionError):
        return False
    return isinstance(data, dict) and not _SNAPSHOT_KEYS.isdisjoint(data)


def refuse_empty(text: str, name: str) -> None:
    """An empty file (or input) is named as empty, not as a report nobody recognised."""
    if text.strip():
        return
    empty = "is empty" if not text else "holds only blank lines"
    if name == "<stdin>":
        raise FactsError(
            f"standard input {empty}",
            hint="pipe a report in: `nvidia-smi | gpudoctor check --from -`",
        )
    raise FactsError(
        f"{name}: the file {empty}",
        hint="save the report into it first (`nvidia-smi > report.txt`, `python -m "
        "torch.utils.collect_env >> report.txt`), or record a snapshot: `gpudoctor snapshot "
        "-o host.json`",
    )


def load_host_list(
    path: Path, architectures: Sequence[Architecture] = ()
) -> list[tuple[str, HostFacts]]:
    """Every host a file holds: a snapshot is one host; a pasted report holds one or more
    (reports that disagree, see pasted.dispatch.read_reports)."""
    text, name = read_source(path)
    refuse_empty(text, name)
    if _is_snapshot(text):
        return [(name, facts_json.loads(text, name))]
    from gpudoctor.pasted.dispatch import read_reports  # lazy: a text report only

    try:
        return read_reports(text, name, architectures)
    except FactsError:
        if text.lstrip().startswith("{"):
            return [(name, facts_json.loads(text, name))]
        raise
