"""JUnit XML: one testcase per finding (classname gpudoctor.<area>, name code[subject]).

error -> <failure>; warn and unknown -> <failure> with --strict, else a passing testcase with
the message in <system-out>; n/a -> <skipped>; a requirement that cannot be judged fails (the
same policy as the exit code, gpudoctor.checks.fails)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

from gpudoctor.checks import fails
from gpudoctor.findings import Severity

if TYPE_CHECKING:
    from gpudoctor.checks import CheckRun
    from gpudoctor.findings import Finding


def _body(f: Finding) -> str:
    parts = [f.detail, f"fix: {f.fix}" if f.fix else ""]
    parts += [f"{k}: {v}" for k, v in f.evidence]
    return "\n".join(p for p in parts if p)


def render_junit(run: CheckRun) -> str:
    suites = ET.Element("testsuites", name="gpudoctor")
    suite = ET.SubElement(suites, "testsuite", name="gpudoctor check")
    failures = skipped = 0
    for f in run.findings:
        name = f.code + (f"[{f.subject}]" if f.subject else "")
        case = ET.SubElement(suite, "testcase", classname=f"gpudoctor.{f.area}", name=name)
        if fails(f, strict=run.strict):
            failures += 1
            failure = ET.SubElement(case, "failure", message=f.title, type=f.severity.value)
            failure.text = _body(f)
        elif f.severity is Severity.NA:
            skipped += 1
            ET.SubElement(case, "skipped", message=f.title)
        elif f.severity is not Severity.OK:
            ET.SubElement(case, "system-out").text = f"{f.severity.value}: {f.title}\n{_body(f)}"
    for element in (suites, suite):
        element.set("tests", str(len(run.findings)))
        element.set("failures", str(failures))
        element.set("errors", "0")
    suite.set("skipped", str(skipped))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, "unicode") + "\n"
