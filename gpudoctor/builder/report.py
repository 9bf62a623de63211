"""BuildReport: what `gpudoctor build` produced, as text for people and versioned JSON for CI."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any

from gpudoctor.builder.spec import ImageSpec
from gpudoctor.compat.install import unread_clause
from gpudoctor.docker.engine import BuildOutcome, ImageInfo
from gpudoctor.findings import MARKS, Finding

REPORT_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class BuildReport:
    spec: ImageSpec
    image_id: str
    tags: tuple[str, ...]
    size: int
    outcome: BuildOutcome
    context_files: tuple[str, ...]
    notes: tuple[str, ...] = ()
    findings: tuple[Finding, ...] = ()
    pushed: bool = False
    install_stage: ImageInfo | None = None  # left behind as the next build's layer cache

    def to_dict(self) -> dict[str, Any]:
        spec = self.spec
        return {
            "schema_version": REPORT_SCHEMA_VERSION,
            "image": {"id": self.image_id, "tags": list(self.tags), "size": self.size},
            "row": dataclasses.asdict(spec.row),
            "base_image": {"reference": spec.base_image, "pinned": spec.base_pinned},
            "extra_requirements": list(spec.extra_requirements),
            "build": {
                "steps": self.outcome.steps,
                "cached": self.outcome.cached,
                "all_cached": self.outcome.all_cached,
                "context_files": len(self.context_files),
            },
            "verify": [_finding_dict(f) for f in self.findings],
            "pushed": self.pushed,
            "notes": list(self.notes),
            "install_stage": None
            if self.install_stage is None
            else {
                "id": self.install_stage.id,
                "size": self.install_stage.size,
                "remove": remove_stage_command(self.install_stage.id),
            },
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=True) + "\n"

    def to_text(self) -> str:
        row = self.spec.row
        lines = [
            f"built {', '.join(self.tags)} ({self.image_id[:19]}, {self.size / 1e6:.1f} MB)",
            f"  row {row.id}: {row.framework} {row.version}, CUDA {row.cuda}, "
            f"cuDNN {row.cudnn or '-'}, Python {row.python}, driver >= {row.min_driver_linux}",
            f"  base {self.spec.base_image}" + ("" if self.spec.base_pinned else " (tag only)"),
            f"  {self.outcome.steps} steps, {self.outcome.cached} from cache",
        ]
        if row.unread:
            clause = unread_clause(row.unread).strip(" ()")
            lines.append(f"  {clause}: checked inside the image below")
        lines += [f"  {MARKS[f.severity]} {f.title}" for f in self.findings]
        if self.pushed:
            lines.append(f"  pushed {self.spec.tag}")
        stage = self.install_stage
        if stage is not None:
            short = stage.id.removeprefix("sha256:")[:12]
            lines.append(
                f"  kept the install stage as the layer cache of the next build: image {short} "
                f"({stage.size / 1e9:.1f} GB with its base layers); remove it with "
                f"`{remove_stage_command(stage.id)}`, or every such stage with "
                f"`{PRUNE_STAGES}`"
            )
        return "\n".join(lines) + "\n"


PRUNE_STAGES = "docker image prune -f --filter label=io.gpudoctor.stage=install"


def remove_stage_command(image_id: str) -> str:
    return f"docker image rm {image_id.removeprefix('sha256:')[:12]}"


def _finding_dict(finding: Finding) -> dict[str, Any]:
    return {
        "code": finding.code,
        "severity": str(finding.severity),
        "title": finding.title,
        "detail": finding.detail,
        "evidence": dict(finding.evidence),
    }
