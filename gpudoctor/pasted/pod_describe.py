"""`kubectl describe pod` of a pod of the NVIDIA stack: its "Init Containers:" section.

Each init container is a block under the section, its name at the section's indent plus two
("  toolkit-validation:"), then its "State:" (Waiting, Running, Terminated) with the state's
"Reason:" (CrashLoopBackOff, PodInitializing, Error, Completed) and, for a container that
ended, "Exit Code:"; a restarted one adds "Last State:" with the previous run's reason and exit
code. Init containers run one at a time in their listed order (Kubernetes docs, "Init
Containers"), so the first one not Terminated with reason Completed is where the pod stands.
"""

from __future__ import annotations

import re

from gpudoctor.facts import STACK_POD_PREFIXES, StackPod
from gpudoctor.pasted.draft import Draft

NAME = "kubectl describe pod"
_SECTION = re.compile(r"^(?P<indent>[ \t]{0,8})Init Containers:[ \t]{0,4}$", re.MULTILINE)
_POD_NAME = re.compile(r"^[ \t]{0,8}Name:[ \t]{1,30}(?P<name>[a-z0-9][a-z0-9.-]{0,200})[ \t]{0,4}$")
_CONTAINER = re.compile(r"^(?P<indent>[ \t]{1,12})(?P<name>[a-z0-9][a-z0-9-]{0,62}):[ \t]{0,4}$")
_FIELD = re.compile(
    r"^[ \t]{2,16}(?P<key>State|Last State|Reason|Exit Code):[ \t]{1,30}(?P<v>\S{1,60})"
)
# The kubelet's back-off of a container that keeps failing names the container and its pod
# (format.Pod: name_namespace(uid)), as its log line ("back-off 5m0s restarting failed
# container=C pod=P_NS(uid)") or as the pod's BackOff event ("Back-off restarting failed
# container C in pod P_NS(uid)"): kubernetes/kubernetes, pkg/kubelet/kuberuntime/
# kuberuntime_manager.go, doBackOff.
_BACKOFF = re.compile(
    r"restarting failed container(?:=| )(?P<container>[a-z0-9][a-z0-9-]{0,62})"
    r"(?: in pod | pod=)(?P<pod>[a-z0-9][a-z0-9.-]{0,200})_",
    re.IGNORECASE,
)
_REACH = 3000  # how far above the section its pod's Name: line may be
_SPAN = 8000  # how far the section may run


def parse(text: str, draft: Draft) -> set[str]:
    """Reads each stack pod's section; returns the names of the pods whose section was read
    (their init containers' states now outrank a back-off line from before)."""
    described: set[str] = set()
    for section in _SECTION.finditer(text):
        name = _pod_name(text, section.start())
        if name is None:
            continue
        described.add(name)
        blocks = _blocks(text, section.end() + 1, len(section.group("indent")))
        pod = _standing(name, blocks)
        if pod is not None:
            draft.stack_pods.append(pod)
            draft.read_at(NAME, text, section.start(), 1 + sum(len(b[1]) + 1 for b in blocks))
    return described


def parse_backoff(text: str, draft: Draft, described: set[str]) -> None:
    """A stack pod's container in the kubelet's back-off: the pod is held there (an init
    container's name is a stage the GPU Operator check knows); a row of the same pod read
    from `kubectl get pods` keeps its STATUS. A pod whose `kubectl describe pod` was read is
    judged by its init containers' states, not by a back-off event that may be old."""
    for found in _BACKOFF.finditer(text):
        name, container = found.group("pod"), found.group("container")
        if not name.startswith(STACK_POD_PREFIXES) or name in described:
            continue
        at = next((i for i, p in enumerate(draft.stack_pods) if p.name == name), None)
        row = draft.stack_pods[at] if at is not None else None
        if row is not None and row.init_failed is not None:
            continue  # `kubectl describe pod` already named where it stands
        status = row.status if row is not None else ""
        pod = StackPod(name=name, status=status, init_failed=container, init_reason=_CRASH)
        if at is not None:
            draft.stack_pods[at] = pod
        else:
            draft.stack_pods.append(pod)


_CRASH = "CrashLoopBackOff"


def _pod_name(text: str, at: int) -> str | None:
    """The pod's name: the last "Name:" line above the section, where it is the NVIDIA stack's."""
    name = None
    for line in text[max(0, at - _REACH) : at].split("\n"):
        found = _POD_NAME.match(line)
        if found:
            name = found.group("name")
    return name if name is not None and name.startswith(STACK_POD_PREFIXES) else None


def _blocks(text: str, at: int, indent: int) -> list[tuple[str, list[str]]]:
    """(init container, its lines) in order, until a line at the section's indent or less."""
    blocks: list[tuple[str, list[str]]] = []
    for line in text[at : at + _SPAN].split("\n"):
        stripped = line.strip()
        if not stripped:
            continue
        if len(line) - len(line.lstrip()) <= indent:
            break
        found = _CONTAINER.match(line)
        if found and len(found.group("indent")) <= indent + 4:
            blocks.append((found.group("name"), []))
        elif blocks:
            blocks[-1][1].append(line)
    return blocks


def _standing(name: str, blocks: list[tuple[str, list[str]]]) -> StackPod | None:
    """The pod with its first init container that has not completed; None when all did."""
    for container, lines in blocks:
        state, reason, code = _state(lines)
        if state is None:
            continue
        if state == "Terminated" and reason == "Completed" and code in (None, 0):
            continue
        return StackPod(
            name=name,
            status="",
            init_failed=container,
            init_reason=reason or state,
            init_exit_code=code,
        )
    return None


def _state(lines: list[str]) -> tuple[str | None, str | None, int | None]:
    """The container's State, the reason under it, and the exit code of its State or (when it
    waits to be restarted) of its Last State."""
    state = reason = None
    code = None
    current = ""
    for line in lines:
        found = _FIELD.match(line)
        if found is None:
            continue
        key, value = found.group("key"), found.group("v")
        if key in ("State", "Last State"):
            current = key
            if key == "State":
                state = value
        elif key == "Reason" and current == "State":
            reason = value
        elif key == "Exit Code" and value.isdecimal() and code is None:
            code = int(value)
    return state, reason, code
