"""Kubernetes Warning events that no known line names (pasted/k8s_events.py reads them).

A Warning event says that something is not as expected (k8s.io/api core/v1, EventTypeWarning),
so a paste of a pod's or a node's events that holds one is not a healthy cluster, even where
the catalogue does not know its message. The finding quotes the first ones with their reasons
and says what the component that posts each reason was doing (the reasons are the kubelet's,
pkg/kubelet/events/event.go, and the controllers'); it is a warning, not an error, because the
cause is not known: next to an error that names one it is info, the state that cause left
behind (checks/pasted_report.py, `link_error_lines`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpudoctor.checks.base import finding
from gpudoctor.findings import WARN

if TYPE_CHECKING:
    from gpudoctor.checks.base import Intent
    from gpudoctor.facts import HostFacts
    from gpudoctor.findings import Finding
    from gpudoctor.matrix.model import Matrix

CODE = "k8s-warning-event"

# What the component that posts a reason was doing when it failed (Kubernetes's sources).
_DOING = {
    "FailedScheduling": "the scheduler found no node for the pod (the message names, per node, "
    "what did not fit)",
    "FailedMount": "the kubelet could not mount one of the pod's volumes (a hostPath that is "
    "not there yet, a Secret or ConfigMap that does not exist, a CSI driver)",
    "FailedAttachVolume": "the volume could not be attached to the node",
    "FailedCreatePodSandBox": "the container runtime could not create the pod's sandbox (its "
    "network, set up by the CNI plugin, or the runtime handler)",
    "FailedKillPod": "the kubelet could not stop the pod (the CNI plugin or the runtime failed "
    "to tear down its sandbox)",
    "Unhealthy": "a liveness, readiness or startup probe of a container failed",
    "Failed": "the kubelet could not pull an image or create or start a container",
    "FailedCreate": "a controller (a DaemonSet, a ReplicaSet, a Job) could not create its pods: "
    "admission refused them or a quota was reached",
    "FailedPostStartHook": "a container's postStart hook failed",
    "FailedPreStopHook": "a container's preStop hook failed",
    "Evicted": "the kubelet evicted the pod to reclaim a resource the node ran short of",
    "NodeNotReady": "the node stopped reporting Ready",
    "FreeDiskSpaceFailed": "the kubelet could not free disk space for images",
    "ImageGCFailed": "the kubelet's image garbage collection failed",
    "ContainerGCFailed": "the kubelet's container garbage collection failed",
    "FailedSync": "the kubelet could not sync the pod",
}


def check_k8s_warning_events(facts: HostFacts, matrix: Matrix, intent: Intent) -> list[Finding]:
    report = facts.report
    if report is None or not report.warning_events:
        return []
    events = report.warning_events
    first = events[0]
    reasons = list(dict.fromkeys(e.code for e in events))
    doing = "; ".join(f"{r}: {_DOING[r]}" for r in reasons if r in _DOING)
    shown = ", ".join(f"line {e.line} ({e.code})" for e in events)
    return [
        finding(
            CODE,
            WARN,
            f"Kubernetes reported a Warning event ({', '.join(reasons)}): {first.text}",
            detail=(f"{doing}; " if doing else "")
            + f"the Warning events read ({shown}) are Kubernetes's own word that something is "
            "not as expected; their message says what, the catalogue does not know it"
            + ("; the others: " + "; ".join(e.text for e in events[1:]) if events[1:] else ""),
            fix="read the event's message for the object it names: `kubectl describe` that pod "
            "or node, `kubectl get events -n NAMESPACE --field-selector type=Warning`, and the "
            "logs of the component that failed (`kubectl logs POD -c CONTAINER --previous`, "
            "`journalctl -u kubelet` on the node); paste those for a verdict",
            evidence=[("reasons", tuple(reasons)), ("lines", tuple(e.line for e in events))],
        )
    ]


CHECKS = (check_k8s_warning_events,)
