"""The documented minimum compute capability of the programs people run on GPUs (vLLM,
flash-attention, bitsandbytes, FlashInfer, ollama: the matrix's [[program]] rows, each from the
program's own documentation) against the GPUs present. A program found but below its minimum on
a GPU is an error; a release no row covers is not judged."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpudoctor import versions
from gpudoctor.checks.base import Intent, finding
from gpudoctor.facts_view import live_gpus
from gpudoctor.findings import ERROR, NA, OK, Finding

if TYPE_CHECKING:
    from gpudoctor.facts import HostFacts, InstalledProgram
    from gpudoctor.matrix.model import Matrix, ProgramMinimum

CODE = "program-min-compute-capability"


def row_for(matrix: Matrix, program: InstalledProgram) -> ProgramMinimum | None:
    """The [[program]] row of this program whose `versions` holds its version."""
    from packaging.specifiers import SpecifierSet

    name = versions.canonical_name(program.name)
    for row in matrix.programs:
        if versions.canonical_name(row.name) != name:
            continue
        if not row.versions:
            return row
        try:
            if SpecifierSet(row.versions).contains(
                versions.pep440(program.version), prereleases=True
            ):
                return row
        except ValueError:  # a version packaging cannot read: not judged
            return None
    return None


def check_program_min_cc(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    if not facts.programs:
        return [finding(CODE, NA, "no GPU program (vLLM, flash-attn, bitsandbytes, ollama) found")]
    gpus = [g for g in live_gpus(facts) if g.compute_capability]
    out = []
    for program in facts.programs:
        label = f"{program.name} {program.version}"
        row = row_for(matrix, program)
        if row is None or not gpus:
            why = "no documented minimum for this release" if row is None else "no GPU known"
            out.append(finding(CODE, NA, f"{label}: {why}", subject=program.name))
            continue
        floor = versions.numeric(row.min_compute_capability)
        below = [g for g in gpus if versions.numeric(g.compute_capability or "0.0") < floor]
        ev = [("minimum", row.min_compute_capability), ("source", row.source)]
        if not below:
            out.append(
                finding(
                    CODE,
                    OK,
                    f"{label} supports every GPU here (compute capability "
                    f"{row.min_compute_capability} or newer)",
                    evidence=ev,
                    subject=program.name,
                )
            )
            continue
        names = ", ".join(f"GPU {g.index} {g.name} ({g.compute_capability})" for g in below)
        out.append(
            finding(
                CODE,
                ERROR,
                f"{label} needs compute capability {row.min_compute_capability} or newer: {names}",
                detail=f"its documentation: {row.source}" + (f"; {row.notes}" if row.notes else ""),
                fix=f"run {program.name} on a GPU of compute capability "
                f"{row.min_compute_capability} or newer, or use a program that supports "
                f"{below[0].compute_capability}",
                evidence=[*ev, ("gpus_below", names)],
                subject=program.name,
            )
        )
    return out


CHECKS = (check_program_min_cc,)
