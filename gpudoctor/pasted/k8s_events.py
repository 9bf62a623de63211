"""Kubernetes Warning events no line of the signature catalogue names.

An event's type is Normal or Warning; the API's own definition (k8s.io/api core/v1 types.go,
EventTypeWarning: "Warning event type. It means something is not as expected") makes a Warning
event a symptom whatever its reason: a pod that cannot mount its volume, a probe that fails, a
sandbox the CNI plugin did not set up, a DaemonSet whose pods admission refuses. Where the
catalogue knows the message (Insufficient nvidia.com/gpu, no runtime for "nvidia", a failed
container's back-off) its entry names it; the events read here are the rest, quoted with their
reason and line number so that a paste of only them is not judged as if nothing failed.

Two shapes, as kubectl prints them:
- `kubectl describe`'s "Events:" table: `  Warning  FailedMount  2m (x3 over 9m)  kubelet  ...`
  (TYPE, REASON, AGE, FROM, MESSAGE; the AGE may hold spaces);
- `kubectl get events` (and `kubectl events`): `4m  Warning  FailedCreate  daemonset/x  ...`
  (LAST SEEN, TYPE, REASON, OBJECT, MESSAGE; with -A the NAMESPACE first).

A few Warning reasons the kubelet posts where nothing is broken are left out (`_HARMLESS`).
"""

from __future__ import annotations

import re

from gpudoctor.facts import ReportError
from gpudoctor.pasted.draft import Draft
from gpudoctor.pasted.scan import LineCounter, iter_lines

NAME = "Kubernetes events"
DESCRIPTION = (
    "a Kubernetes Warning event (`kubectl describe`'s Events table, `kubectl get events`) that "
    "no known line names, quoted with its reason"
)

MAX_EVENTS = 5  # events kept: the first ones, a describe repeats its reasons
_MAX_TEXT = 300
_REASON = r"(?P<reason>[A-Z][A-Za-z]{2,60})"
# Case-sensitive: the TYPE column is written "Warning" by kubectl; "WARNING:" is a log level.
_DESCRIBE = re.compile(
    rf"^[ \t]{{0,8}}Warning[ \t]{{1,12}}{_REASON}[ \t]{{1,40}}"
    r"(?P<age>(?:<unknown>|<invalid>|\d{1,5}[smhdy][\w]{0,12})(?: \(x\d{1,6} over [\w]{1,16}\))?)"
    r"[ \t]{1,40}(?P<rest>\S[^\n]{0,2000})$"
)
_GET = re.compile(
    r"^[ \t]{0,8}(?:[a-z0-9][a-z0-9.-]{0,62}[ \t]{1,40})?"  # NAMESPACE (-A)
    r"(?:<unknown>|<invalid>|\d{1,5}[smhdy][\w]{0,12}(?: \(x\d{1,6} over [\w]{1,16}\))?)"
    rf"[ \t]{{1,40}}Warning[ \t]{{1,12}}{_REASON}[ \t]{{1,40}}"
    r"(?P<rest>[a-z][\w.-]{0,60}/[\w.:-]{1,253}[ \t]{1,40}\S[^\n]{0,2000})$"
)
# Warning events the kubelet posts where nothing is broken (pkg/kubelet/events/event.go and
# their callers): InvalidDiskCapacity until cAdvisor has measured the image filesystem after a
# kubelet start, DNSConfigForming when the node's resolv.conf holds more nameservers or search
# domains than a pod may (the extra ones are left out), CgroupV1's notice that cgroup v1 is in
# maintenance mode.
_HARMLESS = frozenset({"InvalidDiskCapacity", "DNSConfigForming", "CgroupV1"})


def parse(text: str, draft: Draft) -> None:
    seen: set[str] = set()
    lines = LineCounter(text)
    # the lines that hold the word, found by str.find (a long log without events stays fast)
    for start, line in iter_lines(text, text, "Warning"):
        found = _DESCRIBE.match(line) or _GET.match(line)
        if found is None:
            continue
        number = lines.at(start)
        reason = found.group("reason")
        if number in draft.named_lines or reason in _HARMLESS:
            continue
        draft.section(NAME)
        draft.ranges.append((NAME, number, number))
        if reason in seen or len(draft.warning_events) >= MAX_EVENTS:
            continue  # repeats and the ones past the first few: read, not quoted again
        seen.add(reason)
        draft.warning_events.append(
            ReportError(code=reason, text=line.strip()[:_MAX_TEXT], line=number)
        )
