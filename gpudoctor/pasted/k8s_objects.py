"""Kubernetes objects pasted whole, read as objects: pods (and the pod templates of Deployments,
Jobs, DaemonSets, KubeRay groups), nodes, and the NVIDIA device plugin's config file.

One reader for the forms people paste: YAML (`kubectl get -o yaml`, a manifest, a ConfigMap
whose `config.yaml: |` holds the plugin's config), JSON (`kubectl get -o json`, which
clean.py turns into YAML's shape when the paste starts with it, or a document further down),
and `kubectl describe` (its `Limits:`/`Allocatable:` blocks are YAML's shape; its `Labels:` and
`Node-Selectors:` lines are `key=value`).

What is kept (facts.PlatformFacts):
- a node's extended resources (names with a `/`: nvidia.com/gpu, nvidia.com/gpu.shared,
  nvidia.com/mig-1g.10gb, volcano.sh/vgpu-number, aliyun.com/gpu-mem) under Allocatable, else
  Capacity, and its nvidia.com/ labels (GPU feature discovery's);
- the first pod that asks for a GPU resource in its containers' limits: those resources (the
  largest of its containers) and the nvidia.com/ labels its nodeSelector and required node
  affinity name (one term: Kubernetes ORs terms, so several cannot be judged one by one);
- the device plugin's config (NVIDIA/k8s-device-plugin api/config/v1: `sharing.timeSlicing` or
  `sharing.mps` with renameByDefault, failRequestsGreaterThanOne and resources [{name, rename,
  replicas}], `flags.migStrategy`);
- a KubeRay group's rayStartParams num-gpus and its Ray container's nvidia.com/gpu limit.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from gpudoctor.facts import K8sItem
from gpudoctor.pasted import node_columns
from gpudoctor.pasted.draft import Draft, put
from gpudoctor.pasted.node_columns import GPU_PLUGIN, node_counts
from gpudoctor.pasted.scan import iter_lines

NAME = "Kubernetes objects"
DESCRIPTION = (
    "Kubernetes pods, nodes and the NVIDIA device plugin's config (YAML, JSON, kubectl describe)"
)

_NEEDLES = (
    "nvidia.com/",
    "Allocatable:",
    "allocatable:",
    '"allocatable"',
    ".status.allocatable",
    ".status.capacity",
    "custom-columns=",
    "volcano.sh/",
    "aliyun.com/",
    "sharing:",
    '"sharing"',
    "migStrategy",
    "rayStartParams",
)
_MAX_TEXT = 400_000  # the part of a paste read for objects (a manifest is kilobytes)
_MAX_DEPTH = 40
_MAX_JSON = 40  # JSON documents tried further down a paste

# one line of YAML: its indent, an item's dash, a key and what follows it
_LINE = re.compile(
    r"^(?P<indent>[ ]{0,80})(?P<dash>-[ ]{1,8}|-$)?(?:(?:\"(?P<dq>[^\"\n]{1,200})\"|"
    r"'(?P<sq>[^'\n]{1,200})'|(?P<key>[^\s\"'#{}\[\],:][^:\n]{0,200}?))[ ]{0,4}:"
    r"(?:[ ]{1,40}(?P<value>[^\n]{0,4000}))?$|(?P<scalar>[^\n]{0,4000}))$"
)
_BRACKETS = frozenset({"{", "}", "},", "[", "]", "],", "{}", "[]", "{},", "[],"})
_DOCUMENT_END = re.compile(r"^(?:---|\.\.\.)[ \t]{0,4}$", re.MULTILINE)
_BLOCK_SCALAR = re.compile(r"^[|>][+-]?\d?$")
_DESCRIBE_LABEL = re.compile(
    r"^(?P<head>[ \t]{0,4}(?:Labels|Node-Selectors):[ \t]{1,30}|[ \t]{10,40})"
    r"(?P<key>[A-Za-z0-9][\w./-]{0,120})=(?P<value>[\w.-]{0,63})[ \t]{0,4}$"
)
_SHOWN_LABEL = re.compile(r"(?:^|[\s,])(nvidia\.com/[\w.-]{1,80})=([\w.-]{0,63})(?=,|\s|$)")
_DESCRIBE_HEADING = re.compile(r"^[ \t]{0,4}(?P<name>[A-Z][\w -]{0,40}):")

# resources a pod asks that mark it a GPU pod (the above, and what the sharing schedulers read
# from a pod without a node advertising it: HAMi's gpumem/gpucores, Volcano's vgpu-memory)
_GPU_ASK = re.compile(r"gpu|/mig-", re.IGNORECASE)


@dataclass
class _Found:
    node_resources: dict[str, str] = field(default_factory=dict)
    node_capacity: dict[str, str] = field(default_factory=dict)
    node_labels: dict[str, list[str]] = field(default_factory=dict)
    pod_resources: dict[str, int] | None = None
    pod_selector: dict[str, str] = field(default_factory=dict)
    sharing: dict[str, Any] | None = None
    mig_strategy: str | None = None
    ray: list[tuple[int, int]] = field(default_factory=list)


def parse(text: str, draft: Draft) -> None:
    if not any(needle in text for needle in _NEEDLES):
        return
    text = text[:_MAX_TEXT]
    found = _Found()
    for document in yaml_documents(text):
        if node_columns.resource_map(document):  # a node's resource map alone: Allocatable
            _member("allocatable", document, found, None)
        else:
            _walk(document, found, 0, None)
    lines = text.split("\n")
    for document, at in _json_documents(text):
        _json_document(document, found, node_columns.kind(lines, text.count("\n", 0, at)))
    for line in node_columns.read(text, found.node_capacity, found.node_resources):
        draft.named.append(("gpu-column-empty", line))
    _describe(text, found)
    _show_labels(text, found)
    _keep(found, text, draft)


def _keep(found: _Found, text: str, draft: Draft) -> None:
    p = draft.platform
    kept = False
    if found.node_resources or found.node_capacity:
        put(p, "k8s_node_allocatable", _items(found.node_resources))
        put(p, "k8s_node_capacity", _items(found.node_capacity))
        _read_node_lines(found, text, draft)
        kept = True
    labels = {k: ",".join(v) for k, v in found.node_labels.items() if k.startswith("nvidia.com/")}
    if labels:
        put(p, "k8s_node_labels", _items(labels))
        kept = True
        if found.mig_strategy is None and labels.get("nvidia.com/mig.strategy"):
            found.mig_strategy = labels["nvidia.com/mig.strategy"]
    if found.pod_resources:
        put(p, "k8s_pod_resources", _items({k: str(v) for k, v in found.pod_resources.items()}))
        kept = True
        _asked(p, found.pod_resources.get("nvidia.com/gpu"))
        if found.pod_selector:
            put(p, "k8s_pod_selector", _items(found.pod_selector))
    if found.sharing is not None:
        for key, value in found.sharing.items():
            put(p, key, value)
        kept = True
    if found.mig_strategy in ("none", "single", "mixed"):
        put(p, "k8s_mig_strategy", found.mig_strategy)
        kept = True
    if found.ray:
        # a group whose num-gpus differs from its limit, else the first (the head's "0")
        wanted, limit = next((g for g in found.ray if g[0] != g[1]), found.ray[0])
        put(p, "k8s_ray_num_gpus", wanted)
        put(p, "k8s_ray_gpu_limit", limit)
        kept = True
    if kept:
        put(p, "kubernetes", True)
        draft.read_at(NAME, text, 0)


def _items(values: dict[str, str]) -> tuple[K8sItem, ...]:
    return tuple(K8sItem(name=k, value=v) for k, v in values.items())


# --- YAML, as far as Kubernetes objects need it ---------------------------------------------


@dataclass
class _Token:
    indent: int  # the dash's column for an item, else the key's
    item: bool
    key_indent: int  # the column of the key (after an item's dash)
    key: str | None
    value: str | None


def _tokens(lines: list[str]) -> list[_Token]:
    out: list[_Token] = []
    item_next = False
    for raw in lines:
        line = raw.rstrip()
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped in _BRACKETS:
            # a JSON array's object on a line of its own (clean.py's YAML shape keeps it): the
            # keys below it are one item
            item_next = item_next or stripped == "{"
            continue
        found = _LINE.match(line.expandtabs(2))
        if found is None:
            continue
        indent = len(found.group("indent"))
        dash = found.group("dash")
        key = found.group("dq") or found.group("sq") or found.group("key")
        if key is None:
            if dash is None:
                continue  # prose, a table row, a describe continuation: not YAML's
            scalar = (found.group("scalar") or "").strip()
            out.append(_Token(indent, True, indent + len(dash), None, scalar or None))
            continue
        value = found.group("value")
        if found.group("dq") is not None and value is not None:
            # a JSON line of a fragment clean.py did not reshape (`"status": {`, `"cpu": "8",`)
            value = value.rstrip().rstrip(",")
            value = None if value in ("{", "[") else value
        key = key.strip()
        if dash is not None:
            out.append(_Token(indent, True, indent + len(dash), key, value))
        elif item_next:
            out.append(_Token(max(0, indent - 2), True, indent, key, value))
        else:
            out.append(_Token(indent, False, indent, key, value))
        item_next = False
    return out


def yaml_documents(text: str) -> list[Any]:
    """The YAML-shaped documents of a text, as dicts and lists of strings; lines that are not
    YAML's (prose, tables, log lines) are left out, so a document pasted among them is read."""
    documents: list[Any] = []
    for part in _DOCUMENT_END.split(text):
        for tokens in _by_style(_tokens(part.split("\n"))):
            at = 0
            while at < len(tokens):
                value, after = _value(tokens, at, 0)
                if value is not None:
                    documents.append(value)
                at = max(after, at + 1)
    return documents


def _by_style(tokens: list[_Token]) -> list[list[_Token]]:
    """The tokens cut where a top-level key changes style: `kubectl describe` writes its keys
    capitalised ("Name:", "Allocatable:"), an object's YAML in camelCase ("apiVersion:"), so a
    describe pasted right after a manifest is an object of its own."""
    groups: list[list[_Token]] = [[]]
    style = None
    for token in tokens:
        if token.indent == 0 and not token.item and token.key:
            upper = token.key[0].isupper()
            if style is not None and upper != style and groups[-1]:
                groups.append([])
            style = upper
        groups[-1].append(token)
    return groups


def _value(tokens: list[_Token], at: int, depth: int) -> tuple[Any, int]:
    token = tokens[at]
    if depth > _MAX_DEPTH:
        return None, at + 1
    if token.item:
        return _sequence(tokens, at, depth)
    return _mapping(tokens, at, token.indent, depth, first_is_item=False)


def _sequence(tokens: list[_Token], at: int, depth: int) -> tuple[list[Any], int]:
    items: list[Any] = []
    indent = tokens[at].indent
    while at < len(tokens) and tokens[at].item and tokens[at].indent == indent:
        token = tokens[at]
        if token.key is not None:
            mapping, at = _mapping(tokens, at, token.key_indent, depth + 1, first_is_item=True)
            items.append(mapping)
        elif token.value is not None:
            items.append(_scalar(token.value))
            at += 1
        elif at + 1 < len(tokens) and tokens[at + 1].indent > indent:
            child, at = _value(tokens, at + 1, depth + 1)
            items.append(child)
        else:
            items.append(None)
            at += 1
    return items, at


def _mapping(
    tokens: list[_Token], at: int, indent: int, depth: int, first_is_item: bool
) -> tuple[dict[str, Any], int]:
    mapping: dict[str, Any] = {}
    first = first_is_item
    while at < len(tokens):
        token = tokens[at]
        if first:
            first = False
        elif token.item or token.indent != indent or token.key is None:
            break
        key, value = token.key, (token.value or "").strip()
        if key in mapping:
            break  # a key again: YAML has none twice, so the next object pasted (describes)
        at += 1
        child: Any = None
        if not value or _BLOCK_SCALAR.match(value):
            # a nested block, or a block scalar whose text is itself YAML (a ConfigMap's
            # config.yaml: | holds the device plugin's config): read as a nested block
            if at < len(tokens) and (
                tokens[at].indent > indent or (tokens[at].item and tokens[at].indent == indent)
            ):
                child, at = _value(tokens, at, depth + 1)
        else:
            child = _flow(value)
        if key is not None:
            mapping[key] = child
    return mapping, at


def _flow(value: str) -> Any:
    """A flow mapping or sequence of scalars (`{nvidia.com/gpu: 1}`, `[0, 1]`), else a scalar."""
    if value.startswith("{") and value.endswith("}"):
        out: dict[str, Any] = {}
        for part in value[1:-1].split(","):
            key, colon, rest = part.partition(":")
            if colon and key.strip():
                out.setdefault(_scalar(key), _scalar(rest))
        return out
    if value.startswith("[") and value.endswith("]"):
        return [_scalar(part) for part in value[1:-1].split(",") if part.strip()]
    return _scalar(value)


def _scalar(value: str) -> str:
    value = value.strip()
    if " #" in value and not value.startswith(("'", '"')):
        value = value.split(" #", 1)[0].rstrip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _json_document(document: Any, found: _Found, kind: str) -> None:
    """An object, or a part of one printed alone (`jq .status.capacity`, `jq .metadata.labels`):
    a node's resource map is its Capacity or Allocatable as the command above it names (`kind`),
    a map of GPU feature discovery's labels the node's labels."""
    if node_columns.resource_map(document):
        _member(kind, document, found, None)
    elif isinstance(document, dict) and "kind" not in document and _gfd_labels(document):
        _member("labels", document, found, None)
    else:
        _walk(document, found, 0, None)


def _json_documents(text: str) -> list[tuple[Any, int]]:
    """JSON documents that start on a line of their own further down a paste (one at its start
    clean.py has already turned into YAML's shape), with where each starts: an object, the
    device plugin's config, or a map jq printed alone (a node's resources, its labels)."""
    documents: list[Any] = []
    decoder = json.JSONDecoder()
    tried = 0
    for start in re.finditer(r"^[ \t]{0,40}\{[ \t]{0,4}(?:\"|$)", text, re.MULTILINE):
        if tried >= _MAX_JSON:
            break
        at = text.index("{", start.start())
        if documents and at < documents[-1][1]:
            continue
        window = text[at : at + 400]
        if not any(k in window for k in _JSON_KEYS):
            continue
        tried += 1
        try:
            document, end = decoder.raw_decode(text, at)
        except ValueError:
            continue
        documents.append((document, end, at))
    return [(_stringly(document), at) for document, _, at in documents]


# keys that mark a JSON document worth reading: an object's, the plugin config's, a node's
# resource map's ("pods") or GPU feature discovery's labels
_JSON_KEYS = ('"kind"', '"apiVersion"', '"sharing"', '"version"', '"pods"', '"nvidia.com/')


def _stringly(value: Any) -> Any:
    """JSON's numbers and literals as the strings YAML's reader gives."""
    if isinstance(value, dict):
        return {str(k): _stringly(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_stringly(v) for v in value]
    if isinstance(value, bool):
        return "true" if value else "false"
    return None if value is None else str(value)


# --- the objects ----------------------------------------------------------------------------


def _walk(value: Any, found: _Found, depth: int, kind: str | None) -> None:
    if depth > _MAX_DEPTH:
        return
    if isinstance(value, list):
        for item in value:
            _walk(item, found, depth + 1, kind)
        return
    if not isinstance(value, dict):
        return
    own = value.get("kind")
    kind = own if isinstance(own, str) else kind
    if isinstance(value.get("containers"), list):
        _pod_spec(value, found)
    if isinstance(value.get("rayStartParams"), dict):
        _ray_group(value, found)
    for key, child in value.items():
        if isinstance(child, str) and kind == "ConfigMap" and "\n" in child:
            # a ConfigMap's file as a JSON string (`-o json`): the device plugin's config in it
            _walk(yaml_documents(child), found, depth + 1, None)
        if isinstance(child, dict):
            _member(key, child, found, kind)
        if isinstance(child, (dict, list)):
            _walk(child, found, depth + 1, kind)


def _member(key: str, child: dict[str, Any], found: _Found, kind: str | None) -> None:
    """A mapping under `key`: a node's resources or labels, the plugin's sharing or flags,
    `kubectl describe pod`'s Containers."""
    lower = key.lower()
    if lower in ("allocatable", "capacity") and kind != "Pod":
        target = found.node_resources if lower == "allocatable" else found.node_capacity
        # several nodes: the most any one has
        node_columns.most(target, node_counts(child))
    elif key == "labels" and kind in (None, "Node") and _gfd_labels(child):
        for name, label in child.items():
            if isinstance(label, str):
                _label(found, name, label)
    elif key == "sharing" and found.sharing is None:
        found.sharing = _sharing(child)
    elif key == "flags" and isinstance(child.get("migStrategy"), str):
        found.mig_strategy = found.mig_strategy or child["migStrategy"]
    elif key == "Containers" and found.pod_resources is None:
        _describe_containers(child, found)


def _label(found: _Found, name: str, value: str) -> None:
    """A node's label; several nodes' values of one key are all kept (a selector matches a pod
    to any one of them)."""
    values = found.node_labels.setdefault(name, [])
    if value not in values:
        values.append(value)


def _asked(p: dict[str, Any], gpus: int | None) -> None:
    """The pod's nvidia.com/gpu where the object holds it (a JSON pod, a flow mapping) and
    cluster.py's line scan of Limits/Requests blocks found less or none: the most any pod asks
    is what k8s_gpu_requested keeps."""
    if gpus is not None and gpus > (p.get("k8s_gpu_requested") or 0):
        p["k8s_gpu_requested"] = gpus


def _read_node_lines(found: _Found, text: str, draft: Draft) -> None:
    """The lines that gave a node's GPU resources, and a note of its nvidia.com/gpu."""
    names = {n for n in (*found.node_resources, *found.node_capacity) if GPU_PLUGIN.match(n)}
    for name in sorted(names):
        for start, line in iter_lines(text, text, name):
            if _RESOURCE_LINE.search(line):
                draft.read_at(NAME, text, start)
    said = [
        f"{kind} {values['nvidia.com/gpu']}"
        for kind, values in (
            ("capacity", found.node_capacity),
            ("allocatable", found.node_resources),
        )
        if "nvidia.com/gpu" in values
    ]
    if said:
        draft.notes.append("the node advertises nvidia.com/gpu: " + ", ".join(said))


# a resource and its count as a node's YAML, JSON or describe lists it
_RESOURCE_LINE = re.compile(r"[\w./-]{3,80}[\"']?:[ \t]{0,30}[\"']?\d{1,7}\b")


def _gfd_labels(labels: dict[str, Any]) -> bool:
    return any(
        name.startswith(("nvidia.com/gpu.", "nvidia.com/mig.", "nvidia.com/cuda."))
        for name in labels
    )


def _count(value: Any) -> int | None:
    return int(value) if isinstance(value, str) and value.isdecimal() and len(value) < 7 else None


def _gpu_limits(limits: Any) -> dict[str, int]:
    if not isinstance(limits, dict):
        return {}
    out: dict[str, int] = {}
    for name, value in limits.items():
        count = _count(value)
        if "/" in name and _GPU_ASK.search(name) and count is not None:
            out[name] = count
    return out


def _merge(asked: dict[str, int], more: dict[str, int]) -> None:
    for name, count in more.items():
        asked[name] = max(asked.get(name, 0), count)


def _pod_spec(spec: dict[str, Any], found: _Found) -> None:
    """A pod spec (a Pod's, or a template's): its GPU limits and its node selection, for the
    first pod that asks for a GPU resource."""
    if found.pod_resources is not None:
        return
    asked: dict[str, int] = {}
    for container in spec.get("containers") or ():
        if isinstance(container, dict) and isinstance(container.get("resources"), dict):
            _merge(asked, _gpu_limits(container["resources"].get("limits")))
    if not asked:
        return
    found.pod_resources = asked
    selector = spec.get("nodeSelector")
    if isinstance(selector, dict):
        for key, value in selector.items():
            if key.startswith("nvidia.com/") and isinstance(value, str):
                found.pod_selector.setdefault(key, value)
    _affinity(spec.get("affinity"), found)


def _affinity(affinity: Any, found: _Found) -> None:
    """The required node affinity's one term: `In` (any of its values) and `Exists` ("*")."""
    terms = _get(
        affinity,
        "nodeAffinity",
        "requiredDuringSchedulingIgnoredDuringExecution",
        "nodeSelectorTerms",
    )
    if not isinstance(terms, list) or len(terms) != 1 or not isinstance(terms[0], dict):
        return
    for expression in terms[0].get("matchExpressions") or ():
        if not isinstance(expression, dict):
            continue
        key, operator = expression.get("key"), expression.get("operator")
        values = expression.get("values")
        if not isinstance(key, str) or not key.startswith("nvidia.com/"):
            continue
        if operator == "In" and isinstance(values, list) and values:
            found.pod_selector.setdefault(key, ",".join(str(v) for v in values))
        elif operator == "Exists":
            found.pod_selector.setdefault(key, "*")


def _get(value: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _describe_containers(containers: dict[str, Any], found: _Found) -> None:
    """`kubectl describe pod`'s Containers: each container's Limits."""
    asked: dict[str, int] = {}
    for container in containers.values():
        if isinstance(container, dict):
            _merge(asked, _gpu_limits(container.get("Limits")))
    if asked:
        found.pod_resources = asked


def _truth(value: Any) -> bool | None:
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return None


def _sharing(sharing: dict[str, Any]) -> dict[str, Any] | None:
    """The device plugin's sharing section: the strategy whose resources it lists (the plugin
    takes MPS where both are given; api/config/v1/sharing.go SharingStrategy), the names it
    advertises (a resource's rename, else <name>.shared with renameByDefault) and replicas."""
    for key, strategy in (("mps", "mps"), ("timeSlicing", "time-slicing")):
        part = sharing.get(key)
        resources = part.get("resources") if isinstance(part, dict) else None
        if not isinstance(part, dict) or not isinstance(resources, list) or not resources:
            continue
        rename = _truth(part.get("renameByDefault"))
        shared: dict[str, str] = {}
        for resource in resources:
            if not isinstance(resource, dict) or not isinstance(resource.get("name"), str):
                continue
            name = resource["name"]
            renamed = resource.get("rename")
            if isinstance(renamed, str) and renamed:
                name = renamed if "/" in renamed else name.split("/")[0] + "/" + renamed
            elif rename:
                name += ".shared"
            replicas = resource.get("replicas")
            shared.setdefault(name, replicas if isinstance(replicas, str) else "")
        if shared:
            return {
                "k8s_sharing": strategy,
                "k8s_sharing_rename": bool(rename),
                "k8s_sharing_fail_over_one": _truth(part.get("failRequestsGreaterThanOne")),
                "k8s_sharing_resources": _items(shared),
            }
    return None


def _ray_group(group: dict[str, Any], found: _Found) -> None:
    """A KubeRay head or worker group: rayStartParams num-gpus (ray start --num-gpus) and the
    nvidia.com/gpu limit of the group's first container (the Ray container)."""
    wanted = _count(group["rayStartParams"].get("num-gpus"))
    containers = _get(group, "template", "spec", "containers")
    if wanted is None or not isinstance(containers, list) or not containers:
        return
    ray = containers[0]
    limits = _get(ray, "resources", "limits") if isinstance(ray, dict) else None
    limit = _gpu_limits(limits).get("nvidia.com/gpu", 0)
    found.ray.append((wanted, limit))


def _show_labels(text: str, found: _Found) -> None:
    """`kubectl get nodes --show-labels`: a node's labels in its LABELS column, "," between."""
    if "LABELS" not in text:
        return
    for line in text.split("\n"):
        if "nvidia.com/gpu." not in line or "," not in line:
            continue
        for key, value in _SHOWN_LABEL.findall(line):
            _label(found, key, value)


def _describe(text: str, found: _Found) -> None:
    """`kubectl describe`'s `Labels:` (a node's) and `Node-Selectors:` (a pod's) lines, each
    `key=value`, the first on the heading's line and the rest below it."""
    heading = None
    for line in text.split("\n"):
        named = _DESCRIBE_HEADING.match(line)
        if named is not None:
            heading = named.group("name")
        found_label = _DESCRIBE_LABEL.match(line)
        if found_label is None or heading not in ("Labels", "Node-Selectors"):
            continue
        key, value = found_label.group("key"), found_label.group("value")
        if not key.startswith("nvidia.com/"):
            continue
        if heading == "Labels":
            _label(found, key, value)
        else:
            found.pod_selector.setdefault(key, value)
