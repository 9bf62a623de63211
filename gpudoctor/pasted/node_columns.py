"""A node's resources as kubectl prints them outside an object: `-o custom-columns` tables and
`-o jsonpath` answers (k8s_objects.py reads the objects, and calls this for the rest).

- custom-columns (kubectl's printer, k8s.io/cli-runtime printers/customcolumn.go): the command
  names each column as HEADER:.json.path, the table's first line holds the headers and each row
  one object's values ("<none>" where the path is not there). A column whose path is
  `.status.capacity.<resource>` or `.status.allocatable.<resource>` (the "." of the resource's
  name escaped: nvidia\\.com/gpu) gives that resource's count; the command must be in the
  paste, a header alone does not say which path it printed.
- jsonpath: `-o jsonpath='{.status.allocatable}'` prints the map as one line of JSON
  ({"cpu":"64",...,"nvidia.com/gpu":"8","pods":"110"}); which of the two it is, the nearest
  command above names (a map with no command above is taken as Allocatable, what a node offers
  pods).
"""

from __future__ import annotations

import json
import re
from typing import Any

# a resource a GPU device plugin advertises: NVIDIA's, or a GPU-sharing scheduler's own (Volcano's
# vGPU device plugin: volcano.sh/vgpu-number; Alibaba's gpushare: aliyun.com/gpu-mem)
GPU_PLUGIN = re.compile(r"nvidia\.com/|volcano\.sh/vgpu-|aliyun\.com/gpu-")

_COLUMNS = re.compile(r"custom-columns=[\"']?(?P<spec>[^\s\"']{1,600})")
_PATH = re.compile(
    r"^\{?\.status\.(?P<kind>capacity|allocatable)\.(?P<name>[\w\\./-]{1,80}?)\}?$", re.IGNORECASE
)
_MAP_LINE = re.compile(r"^[ \t]{0,8}(?P<map>\{\"[^\n]{1,2000}\"pods\"[^\n]{0,2000}\})[ \t]{0,4}$")
_KIND = re.compile(r"\b(?P<kind>allocatable|capacity)\b", re.IGNORECASE)
# a Markdown quote's "> " before each line of a table pasted in a reply
_QUOTE = re.compile(r"^[ \t]{0,4}>[ \t]?")
# kubectl prints <none> where a node has no such resource; a Markdown renderer takes <none> for a
# tag, and the reader then copies "none"
_ABSENT = ("<none>", "none")
_MAX_ROWS = 200
_KIND_REACH = 3  # lines above a jsonpath answer that may hold its command


def resource_map(value: Any) -> bool:
    """A node's resource list (Capacity or Allocatable): it names cpu and pods."""
    return isinstance(value, dict) and isinstance(value.get("cpu"), str) and "pods" in value


def node_counts(resources: dict[str, Any]) -> dict[str, str]:
    """The extended resources (names with a "/") a node's Capacity or Allocatable counts, with
    nvidia.com/gpu 0 where a whole resource list (cpu, pods) holds no GPU device plugin's: the
    plugin registered none there (the kubelet adds nvidia.com/gpu once a plugin registers it)."""
    counts = {
        name: count
        for name, count in resources.items()
        if "/" in name and isinstance(count, str) and count.isdecimal()
    }
    if resource_map(resources) and not any(GPU_PLUGIN.match(name) for name in counts):
        counts["nvidia.com/gpu"] = "0"
    return counts


def most(target: dict[str, str], counts: dict[str, str]) -> None:
    """Keep each resource's largest count (several nodes: the most any one has)."""
    for name, count in counts.items():
        if name not in target or int(count) > int(target[name]):
            target[name] = count


def read(text: str, capacity: dict[str, str], allocatable: dict[str, str]) -> list[int]:
    """Fill the counts; return the line of each custom-columns table whose GPU column is empty in
    every row it lists (no node of the listing advertises the GPU resource asked for)."""
    empty: list[int] = []
    for spec in _COLUMNS.finditer(text):
        if _table(text, spec.group("spec"), spec.end(), capacity, allocatable):
            empty.append(text.count("\n", 0, spec.start()) + 1)
    lines = text.split("\n")
    for at, line in enumerate(lines):
        if '"pods"' not in line:
            continue
        found = _MAP_LINE.match(line)
        counts = _map(found.group("map")) if found else None
        if counts is None:
            continue
        most(allocatable if kind(lines, at) == "allocatable" else capacity, counts)
    return empty


def _table(
    text: str, spec: str, after: int, capacity: dict[str, str], allocatable: dict[str, str]
) -> bool:
    """Read the table; True where it has a GPU column and no row counts one there."""
    columns: list[tuple[str, str, str, bool]] = []  # header, kind, resource, a GPU's
    headers: list[str] = []
    for part in spec.split(","):
        header, colon, path = part.partition(":")
        if not colon or not header:
            return False
        headers.append(header)
        found = _PATH.match(path)
        if found is not None:
            name = found.group("name").replace("\\", "")
            gpu = GPU_PLUGIN.match(name) is not None
            columns.append((header, found.group("kind").lower(), name, gpu))
    if not columns:
        return False
    # the header within its first 8 lines, then at most _MAX_ROWS rows: the rest stays unsplit
    rows = [_QUOTE.sub("", row) for row in text[after:].split("\n", 8 + _MAX_ROWS)]
    start = next((i for i, row in enumerate(rows[:8]) if row.split() == headers), None)
    if start is None:
        return False
    gpu_rows = gpus = 0
    for row in rows[start + 1 : start + 1 + _MAX_ROWS]:
        values = row.split()
        if len(values) != len(headers):
            break
        for header, kind, name, gpu in columns:
            value = values[headers.index(header)]
            target = capacity if kind == "capacity" else allocatable
            gpu_rows += gpu
            if value.isdecimal() and len(value) < 7:
                most(target, {name: value})
                gpus += gpu and int(value) > 0
            elif value in _ABSENT and name == "nvidia.com/gpu":
                most(target, {name: "0"})  # the node lists no nvidia.com/gpu
    return gpu_rows > 0 and gpus == 0


def _map(text: str) -> dict[str, str] | None:
    """A node's resource map as JSON (it names cpu and pods): its extended resources, with
    nvidia.com/gpu 0 where it lists no GPU device plugin's."""
    try:
        value: Any = json.loads(text)
    except ValueError:
        return None
    if not isinstance(value, dict) or "cpu" not in value or "pods" not in value:
        return None
    # (a count of 7 digits or more is no device count; cpu and pods only mark the list)
    listed = {str(k): str(v) for k, v in value.items()}
    return node_counts({k: v for k, v in listed.items() if len(v) < 7 or k in ("cpu", "pods")})


def kind(lines: list[str], at: int) -> str:
    """Which of a node's resource lists a map printed at line `at` is: the one the nearest
    command above names, else Allocatable."""
    for line in reversed(lines[max(0, at - _KIND_REACH) : at]):
        kinds = _KIND.findall(line)
        if kinds:
            return str(kinds[-1]).lower()  # the last one the command names
    return "allocatable"
