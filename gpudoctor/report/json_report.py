"""The JSON report: a versioned envelope, a contract for machines (pinned by a test).

Shape (schema "gpudoctor.check/v1"): schema, tool_version, exit_code, strict, summary (count per
severity), intent, areas [{area, title, headline, status}], findings [{code, severity, area,
subject, title, detail, fix, evidence{}, docs}], facts (the HostFacts snapshot judged).
Additive changes keep v1; renaming or removing a key makes v2.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from gpudoctor import __version__
from gpudoctor.areas import title as area_title
from gpudoctor.facts_json import to_dict

if TYPE_CHECKING:
    from gpudoctor.checks import CheckRun, Intent
    from gpudoctor.facts import HostFacts
    from gpudoctor.findings import Finding

SCHEMA = "gpudoctor.check/v1"


def finding_dict(f: Finding) -> dict[str, Any]:
    return {
        "code": f.code,
        "severity": f.severity.value,
        "area": f.area,
        "subject": f.subject,
        "title": f.title,
        "detail": f.detail,
        "fix": f.fix,
        "evidence": dict(f.evidence),
        "docs": f.docs,
    }


def envelope(run: CheckRun, facts: HostFacts, intent: Intent) -> dict[str, Any]:
    areas = []
    for area in run.areas():
        areas.append(
            {
                "area": area,
                "title": area_title(area),
                "headline": run.headlines.get(area, ""),
                "status": run.area_status(area).value,
            }
        )
    return {
        "schema": SCHEMA,
        "tool_version": __version__,
        "exit_code": run.exit_code,
        "strict": run.strict,
        "summary": run.counts(),
        "intent": {
            "framework": intent.framework,
            "framework_version": intent.framework_version,
            "cuda": intent.cuda,
            "requirements": [r.text for r in intent.requirements],
        },
        "areas": areas,
        "findings": [finding_dict(f) for f in run.findings],
        "facts": to_dict(facts),
    }


def render_json(run: CheckRun, facts: HostFacts, intent: Intent) -> str:
    text = json.dumps(envelope(run, facts, intent), indent=2, ensure_ascii=False, allow_nan=False)
    return text + "\n"
