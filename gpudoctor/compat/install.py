"""The one install-command builder: every pip line gpudoctor prints (finding fixes, intent lines,
`matrix resolve`, `matrix list`) and every rendered requirements file comes from here, so each
names the framework with its companions at matching versions: torch with the torchvision and
torchaudio of that release, from the matrix; TensorFlow as its row's requirement
(`tensorflow[and-cuda]==X` where its CUDA libraries come from pip). Pure; no I/O.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gpudoctor.compat.builds import FACT_NAMES

if TYPE_CHECKING:
    from gpudoctor.compat.builds import Build
    from gpudoctor.compat.request import ResolvedRow
    from gpudoctor.compat.tiers import Verdict


def command(requirements: Sequence[str], index_url: str | None, flags: str = "") -> str:
    """`pip install torch==2.5.1 torchvision==0.20.1 torchaudio==2.5.1 --index-url URL`: the
    pinned requirements (quoted where a shell needs it), the index (none: PyPI), then `flags`
    (" --force-reinstall")."""
    pins = " ".join(shlex.quote(r) for r in requirements)
    index = f" --index-url {index_url}" if index_url else ""
    return f"pip install {pins}{index}{flags}"


def requirement_lines(requirements: Sequence[str]) -> list[str]:
    """The same requirements, one a line, for a requirements file."""
    return [f"{r}\n" for r in requirements]


def unread_clause(unread: Sequence[str]) -> str:
    """ " (cuDNN pin, arch list not read from the wheel)": which facts came from elsewhere."""
    if not unread:
        return ""
    return f" ({', '.join(FACT_NAMES.get(f, f) for f in unread)} not read from the wheel)"


def for_verdict(verdict: Verdict, flags: str = "") -> str:
    """The command that installs a judged build on its host (the index for the host's
    machine), with the unread-facts clause."""
    build = verdict.build
    return command(build.requirements, verdict.index_url, flags) + unread_clause(verdict.unread)


def for_build(build: Build, index_url: str | None, flags: str = "") -> str:
    return command(build.requirements, index_url, flags)


def for_row(row: ResolvedRow, flags: str = "") -> str:
    """The command of a resolved image row, with the unread-facts clause."""
    return command(row.requirements, row.index_url, flags) + unread_clause(row.unread)
