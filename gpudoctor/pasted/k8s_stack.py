"""The NVIDIA GPU stack on Kubernetes as people paste it outside its objects: `kubectl get
daemonsets` rows of the GPU Operator's operands, the MIG strategy the device plugin was given
(Helm's `--set migStrategy=single`, its MIG_STRATEGY variable, its `--mig-strategy` flag, the
operator's `mig.strategy`), and a sentence saying the device plugin crash-loops. The objects
themselves (labels, Capacity, the plugin's config file) are k8s_objects.py's, read first: what
they say wins (`put` keeps the first value)."""

from __future__ import annotations

import re

from gpudoctor.facts import STACK_POD_PREFIXES, K8sDaemonSet, K8sItem
from gpudoctor.pasted.draft import Draft, put
from gpudoctor.pasted.scan import ascii_lower, iter_lines

NAME = "Kubernetes GPU stack"
DESCRIPTION = (
    "kubectl get daemonsets of the NVIDIA GPU stack, the device plugin's MIG strategy as set "
    "(Helm values, MIG_STRATEGY, --mig-strategy), a device plugin said to crash-loop"
)

# `kubectl get ds` (NAMESPACE first with -A; `kubectl get all` writes daemonset.apps/NAME):
# NAME DESIRED CURRENT READY UP-TO-DATE AVAILABLE NODE SELECTOR AGE
_DS_ROW = re.compile(
    r"^[ \t]{0,8}(?:[a-z0-9][a-z0-9.-]{0,62}[ \t]{1,40})?(?:daemonset\.apps/)?"
    r"(?P<name>[a-z0-9][a-z0-9.-]{0,252})[ \t]{1,40}(?P<desired>\d{1,5})[ \t]{1,40}"
    r"(?P<current>\d{1,5})[ \t]{1,40}(?P<ready>\d{1,5})[ \t]{1,40}\d{1,5}[ \t]{1,40}"
    r"(?P<available>\d{1,5})(?:[ \t]{1,40}(?P<selector>[^\s]{1,300}))?"
)
# NFD's worker is deployed by the operator (gpu-operator-node-feature-discovery-worker) or on
# its own (node-feature-discovery-worker, nfd-worker)
_DS_PREFIXES = (*STACK_POD_PREFIXES, "node-feature-discovery", "nfd-worker")
# `kubectl get nodes --show-labels`: NAME STATUS ROLES AGE VERSION LABELS (NotReady, or Ready
# with SchedulingDisabled when cordoned)
_NODE_ROW = re.compile(
    r"^[ \t]{0,8}(?P<name>[a-z0-9][a-z0-9.-]{0,252})[ \t]{1,40}"
    r"(?P<status>NotReady|Ready,SchedulingDisabled|NotReady,SchedulingDisabled)[ \t]"
)
_MAX_NODES = 200
# a `kubectl get nodes` header, and a label column of the NVIDIA stack's labels under -L
_HEADER = re.compile(r"^[ \t]{0,4}NAME[ \t]{1,40}STATUS[ \t]{1,40}ROLES[ \t]")
_GPU_COLUMN = re.compile(r"\b(?:GPU|MIG|CUDA|GFD)\.[A-Z0-9.-]{2,60}")
# the MIG strategy as each place spells its key: the plugin's config and Helm value migStrategy,
# its variable MIG_STRATEGY and flag --mig-strategy, the operator's Helm value mig.strategy
_STRATEGY = re.compile(
    r"(?<![\w.])(?:--)?mig[_.-]?strategy[\"']?[ \t]{0,3}[=:][ \t]{0,3}[\"']?"
    r"(?P<s>none|single|mixed)\b",
    re.IGNORECASE,
)
# "nvidia-device-plugin container crash loop", "the device plugin pod keeps crashing"
_PLUGIN = re.compile(r"device[ _-]?plugin|gpu-feature-discovery", re.IGNORECASE)
_CRASH = re.compile(r"crash[ -]?loop|crashing|keeps? restarting", re.IGNORECASE)


def parse(text: str, draft: Draft) -> None:
    if "DESIRED" in text and "AVAILABLE" in text:
        _daemonsets(text, draft)
    if "ROLES" in text and ("GPU." in text or "MIG." in text):
        _label_columns(text, draft)
    # lower-cased only where a word it looks for may be there (a long log costs a copy)
    if not any(
        w in text for w in ("trateg", "TRATEG", "rash", "RASH", "estart", "otReady", "ingDisabled")
    ):
        return
    lower = ascii_lower(text)
    if "strategy" in lower:
        _strategy(text, lower, draft)
    if "crash" in lower or "restart" in lower:
        _crashing(text, lower, draft)
    if "nvidia.com/gpu" in text and ("notready" in lower or "schedulingdisabled" in lower):
        _node_states(text, draft)


def _label_columns(text: str, draft: Draft) -> None:
    """`kubectl get nodes -L nvidia.com/gpu.present -L nvidia.com/mig.config.state ...`: kubectl
    heads each label's column with the key's last path part in upper case (GPU.PRESENT), and
    leaves it blank for a node without the label, so the values are cut at the header's column
    starts. The GPU labels' columns become nvidia.com/ labels; a GPU node's STATUS, its state."""
    for start, line in iter_lines(text, text, "STATUS"):
        header = _HEADER.match(line)
        if header is None or not _GPU_COLUMN.search(line):
            continue
        starts = [m.start() for m in re.finditer(r"\S+", line)]
        names = line.split()
        labels: dict[str, list[str]] = {}
        states: list[K8sItem] = []
        rows = text[start + len(line) + 1 :].split("\n", _MAX_NODES)[:_MAX_NODES]
        for row in rows:
            if not row.strip() or row.split()[0] == "NAME":
                break
            cells = _cut(row, starts)
            gpu = False
            for name, cell in zip(names, cells):
                if _GPU_COLUMN.fullmatch(name) and cell:
                    key = "nvidia.com/" + name.lower()
                    values = labels.setdefault(key, [])
                    if cell not in values:
                        values.append(cell)
                    gpu = gpu or not (name == "GPU.PRESENT" and cell != "true")
            status = cells[1] if len(cells) > 1 else ""
            if gpu and status != "Ready" and status.split(",")[0] in ("Ready", "NotReady"):
                states.append(K8sItem(cells[0], status))
        if labels:
            put(
                draft.platform,
                "k8s_node_labels",
                tuple(K8sItem(k, ",".join(v)) for k, v in labels.items()),
            )
            put(draft.platform, "kubernetes", True)
            if states:
                put(draft.platform, "k8s_gpu_node_states", tuple(states))
            draft.read_at(NAME, text, start, len(rows))
            return


def _cut(row: str, starts: list[int]) -> list[str]:
    """The cells of a fixed-width row at the header's column starts."""
    ends = [*starts[1:], len(row) + 1]
    return [row[a:b].strip() if a < len(row) else "" for a, b in zip(starts, ends)]


def _node_states(text: str, draft: Draft) -> None:
    """GPU nodes (a row that carries nvidia.com/gpu labels) not Ready, or cordoned."""
    states: list[K8sItem] = []
    first = -1
    for start, line in iter_lines(text, text, "nvidia.com/gpu"):
        found = _NODE_ROW.match(line)
        if found is None or len(states) >= _MAX_NODES:
            continue
        states.append(K8sItem(found.group("name"), found.group("status")))
        first = start if first < 0 else first
    if states:
        put(draft.platform, "k8s_gpu_node_states", tuple(states))
        put(draft.platform, "kubernetes", True)
        draft.read_at(NAME, text, first, len(states))


def _daemonsets(text: str, draft: Draft) -> None:
    header = text.find("DESIRED")
    if header == -1 or "AVAILABLE" not in text[header : header + 200]:
        return
    rows: dict[str, tuple[int, K8sDaemonSet]] = {}
    first = -1
    for needle in ("nvidia-", "gpu-", "feature-discovery", "nfd-"):
        for start, line in iter_lines(text, text, needle):
            found = _DS_ROW.match(line) if start > header else None
            if found is None or not found.group("name").startswith(_DS_PREFIXES):
                continue
            name = found.group("name")
            row = K8sDaemonSet(
                name=name,
                desired=int(found.group("desired")),
                ready=int(found.group("ready")),
                available=int(found.group("available")),
                node_selector=found.group("selector") or "",
            )
            rows.setdefault(name, (start, row))
            first = start if first < 0 or start < first else first
    if not rows:
        return
    # in the listing's order (each needle found its own rows)
    put(draft.platform, "k8s_daemonsets", tuple(r for _, r in sorted(rows.values(), key=_at)))
    put(draft.platform, "kubernetes", True)
    draft.read_at(NAME, text, first, len(rows))


def _at(row: tuple[int, K8sDaemonSet]) -> int:
    return row[0]


def _strategy(text: str, lower: str, draft: Draft) -> None:
    seen: list[str] = []
    first = -1
    for start, line in iter_lines(lower, text, "strategy"):
        for found in _STRATEGY.finditer(line):
            value = found.group("s").lower()
            if value not in seen:
                seen.append(value)
            first = start if first < 0 else first
    if len(seen) == 1:  # a paste that tried two strategies does not say which one ran
        put(draft.platform, "k8s_mig_strategy", seen[0])
        put(draft.platform, "kubernetes", True)
        draft.read_at(NAME, text, first)
    elif seen:
        draft.note("the paste names several MIG strategies: " + ", ".join(seen))


def _crashing(text: str, lower: str, draft: Draft) -> None:
    for needle in ("crash", "restart"):
        for start, line in iter_lines(lower, text, needle):
            if _PLUGIN.search(line) and _CRASH.search(line):
                put(draft.platform, "k8s_plugin_crashing", True)
                put(draft.platform, "kubernetes", True)
                draft.read_at(NAME, text, start)
                return
