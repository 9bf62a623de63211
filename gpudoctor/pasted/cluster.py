"""Cluster schedulers describing a GPU node, as their tools print it:

- `kubectl describe node` (or `get node --show-labels`, `-o yaml`): GPU feature discovery's
  labels (nvidia.com/cuda.driver.major/.minor/.rev or cuda.driver-version.*, gpu.product,
  gpu.count, gpu.memory in MiB, gpu.compute.major/.minor) and the System Info lines (Kernel
  Version, Architecture, Container Runtime Version).
- `kubectl get pods` (-n gpu-operator, -A): the NVIDIA pods that are not Running/Completed.
- Slurm's `scontrol show node` / `sinfo -o %G`: "Gres=gpu:a100:4" (the GPU count the node is
  configured with), "Arch=x86_64", "OS=Linux 5.15.0-...".
"""

from __future__ import annotations

import re

from gpudoctor.pasted.draft import Draft, put
from gpudoctor.pasted.scan import facts_head, iter_lines

NAME = "cluster tools"
DESCRIPTION = (
    "`kubectl describe node` (GPU feature discovery labels), `kubectl get pods`, "
    "Slurm `scontrol show node` / `sinfo` GRES"
)

_LABEL = re.compile(
    r"nvidia\.com/(?P<key>cuda\.driver(?:-version)?\.(?:major|minor|rev|revision)|"
    r"cuda\.runtime(?:-version)?\.(?:major|minor)|gpu\.(?:product|count|memory|compute\.major|"
    r"compute\.minor))[=:]\s{0,4}\"?(?P<v>[\w.-]{0,80})"
)
_SYSTEM_INFO = re.compile(
    r"^\s{2,4}(?P<key>Kernel Version|Architecture|Container Runtime Version):"
    r"\s{1,30}(?P<v>[^\n]{1,80}?)\s{0,4}$"
)
# `kubectl describe node` ("  nvidia.com/gpu:  4") and `get node -o yaml` (status.capacity:
# '    nvidia.com/gpu: "4"')
_RESOURCE = re.compile(r"^\s{2,8}nvidia\.com/gpu:\s{1,30}\"?(?P<n>\d{1,4})\"?\s{0,4}$")
# A MIG device resource the device plugin's mixed strategy advertises ("nvidia.com/mig-1g.10gb: 6")
_MIG_RESOURCE = re.compile(
    r"^\s{2,4}nvidia\.com/mig-\d{1,2}g\.\d{1,3}gb(?:\+[a-z]{1,8})?:\s{1,30}(?P<n>\d{1,4})\s{0,4}$"
)
_GOARCH = {"amd64": "x86_64", "arm64": "aarch64", "ppc64le": "ppc64le", "s390x": "s390x"}
_READY = re.compile(r"^\d{1,2}/\d{1,2}$")
_FINE = ("Running", "Completed", "Succeeded")
_GRES = re.compile(
    r"(?:^|[\s=])gpu:(?:(?P<type>[A-Za-z][\w.-]{0,40}):)?(?P<n>\d{1,3})(?=\(|\s|,|$)"
)
_SLURM_ARCH = re.compile(r"\bArch=(?P<m>x86_64|aarch64|ppc64le)\b")
_SLURM_OS = re.compile(r"\bOS=Linux (?P<release>\d\.\d{1,2}\.\d{1,3}-[\w.+~-]{1,60})")


def parse(text: str, draft: Draft) -> None:
    text = facts_head(text)  # a long log: its head, as facts_scan reads it
    _labels(text, draft)
    _resources(text, draft)
    _system_info(text, draft)
    _pods(text, draft)
    _slurm(text, draft)


def _labels(text: str, draft: Draft) -> None:
    labels: dict[str, str] = {}
    first = -1
    for start, line in iter_lines(text, text, "nvidia.com/"):
        for found in _LABEL.finditer(line):
            key = found.group("key").replace("-version", "").replace("revision", "rev")
            labels.setdefault(key, found.group("v"))
            first = start if first < 0 else first
    if not labels:
        return
    put(draft.platform, "kubernetes", True)
    major, minor = labels.get("cuda.driver.major", ""), labels.get("cuda.driver.minor", "")
    if len(major) == 3 and major.isdecimal() and minor.isdecimal():
        rev = labels.get("cuda.driver.rev", "")
        put(draft.nvml, "driver_version", f"{major}.{minor}" + (f".{rev}" if rev else ""))
    cuda = (labels.get("cuda.runtime.major", ""), labels.get("cuda.runtime.minor", ""))
    if all(part.isdecimal() for part in cuda):
        draft.notes.append(f"the node's GPU feature discovery labels name CUDA {'.'.join(cuda)}")
    _label_gpus(labels, draft)
    draft.read_at(NAME, text, first)


def _label_gpus(labels: dict[str, str], draft: Draft) -> None:
    """gpu.product/.count: the node's GPUs (GFD writes the product name with dashes for spaces:
    "NVIDIA-A100-SXM4-80GB"); one model per node, as GFD labels it."""
    product = labels.get("gpu.product", "")
    count = labels.get("gpu.count", "")
    if len(product) < 2 or draft.gpus:
        return
    name = re.sub(r"-(?:SHARED|MIG-\S{1,40})$", "", product).replace("-", " ")
    cc = (labels.get("gpu.compute.major", ""), labels.get("gpu.compute.minor", ""))
    memory = labels.get("gpu.memory", "")
    for index in range(min(int(count), 64) if count.isdecimal() and count != "0" else 1):
        gpu = draft.gpu(index)
        put(gpu, "name", name)
        if all(part.isdecimal() for part in cc):
            put(gpu, "compute_capability", ".".join(cc))
        if memory.isdecimal():
            put(gpu, "memory_total_bytes", int(memory) << 20)


def _resources(text: str, draft: Draft) -> None:
    """Capacity/Allocatable's "nvidia.com/gpu: 4": the GPUs the device plugin advertises."""
    said: dict[str, str] = {}
    for start, line in iter_lines(text, text, "nvidia.com/gpu:"):
        found = _RESOURCE.match(line)
        if found is None:
            continue
        heading = _heading(text, "apacity:", start), _heading(text, "llocatable:", start)
        kind = "allocatable" if heading[1] > heading[0] else "capacity"
        if max(heading) == -1 or kind in said:
            continue
        said[kind] = found.group("n")
        draft.read_at(NAME, text, start)
    _mig_resources(text, draft)
    if said:
        put(draft.platform, "kubernetes", True)
        for kind, n in said.items():
            put(draft.platform, f"k8s_gpu_{kind}", int(n))
        draft.notes.append(
            "the node advertises nvidia.com/gpu: "
            + ", ".join(f"{kind} {n}" for kind, n in sorted(said.items(), reverse=True))
        )


def _heading(text: str, word: str, before: int) -> int:
    """Where the last "Capacity:"/"Allocatable:" heading (`word` without its first letter, which
    `-o yaml` writes in lower case) before `before` is, or -1: at a line's start, or after a
    markdown fence or quote a paste glued to it ("```Allocatable:")."""
    at = text.rfind(word, 0, before)
    while at != -1:
        line_start = text.rfind("\n", 0, at) + 1
        if (
            at > line_start
            and text[at - 1] in "CcAa"
            and not text[line_start : at - 1].strip(" \t`>")
        ):
            return at
        at = text.rfind(word, 0, at)
    return -1


def _mig_resources(text: str, draft: Draft) -> None:
    """MIG devices the node advertises under Capacity/Allocatable: with the device plugin's
    mixed strategy a GPU in MIG mode counts under nvidia.com/mig-<profile>, not nvidia.com/gpu
    (its README, "MIG strategies"), so "nvidia.com/gpu: 0" beside them is expected."""
    for start, line in iter_lines(text, text, "nvidia.com/mig-"):
        found = _MIG_RESOURCE.match(line)
        if found is None or found.group("n") == "0":
            continue
        if max(_heading(text, "apacity:", start), _heading(text, "llocatable:", start)) == -1:
            continue
        draft.read_at(NAME, text, start)
        draft.named.append(("mig-devices", text.count("\n", 0, start) + 1))
        draft.notes.append("the node advertises MIG devices (nvidia.com/mig-*)")
        return


def _system_info(text: str, draft: Draft) -> None:
    if "Kubelet Version:" not in text:  # the System Info block of `kubectl describe node`
        return
    # its OS Image line ("Ubuntu 22.04.4 LTS") is read by facts_scan's OS rules
    for needle in ("Kernel Version:", "Architecture:", "Container Runtime Version:"):
        for start, line in iter_lines(text, text, needle):
            found = _SYSTEM_INFO.match(line)
            if found is None:
                continue
            key, value = found.group("key"), found.group("v")
            if key == "Kernel Version":
                put(draft.kernel, "release", value)
            elif key == "Architecture":
                put(draft.platform, "machine", _GOARCH.get(value, value))
            else:
                engine = value.split("://", 1)[0].lower()
                put(draft.runtime, "cri_engine", "cri-o" if engine == "cri-o" else engine)
            put(draft.platform, "kubernetes", True)
            draft.read_at(NAME, text, start)
            break


def _pods(text: str, draft: Draft) -> None:
    """`kubectl get pods`: NAME READY STATUS RESTARTS AGE (NAMESPACE first with -A)."""
    at = text.find("READY")
    if at == -1 or "STATUS" not in text[at : at + 200]:
        return
    bad: list[str] = []
    first = -1
    for needle in ("nvidia-", "gpu-"):
        for start, line in iter_lines(text, text, needle):
            words = line.split()
            ready = next((i for i, w in enumerate(words) if _READY.match(w)), None)
            if ready is None or ready == 0 or ready + 1 >= len(words):
                continue
            name, status = words[ready - 1], words[ready + 1]
            if not (name.startswith(("nvidia-", "gpu-"))) or f"{name}: {status}" in bad:
                continue
            first = start if first < 0 or start < first else first
            if status not in _FINE:
                bad.append(f"{name}: {status}")
    if first < 0:
        return
    put(draft.platform, "kubernetes", True)
    if bad:
        draft.notes.append("NVIDIA pods not running: " + "; ".join(bad[:8]))
    else:
        draft.notes.append("the NVIDIA pods listed are all Running or Completed")
    draft.read_at(NAME, text, first)


def _slurm(text: str, draft: Draft) -> None:
    for start, line in iter_lines(text, text, "gpu:"):
        found = _GRES.search(line)
        # scontrol's "Gres=", or a row under sinfo's GRES header; never a job's --gres request
        if found is None or "--gres" in line or not ("Gres=" in line or "GRES" in text[:2000]):
            continue
        count = int(found.group("n"))
        kind = found.group("type")
        draft.notes.append(
            f"Slurm: the node is configured with {count} GPU(s)"
            + (f" of GRES type {kind}" if kind else "")
        )
        # the type names the model only as the admin wrote it: a model number ("a100") or none
        if kind and count and any(c.isdecimal() for c in kind):
            draft.named_gpus.append((kind, count, text.count("\n", 0, start) + 1))
        draft.read_at(NAME, text, start)
        break
    if "NodeName=" not in text:
        return
    for start, line in iter_lines(text, text, "Arch="):
        found = _SLURM_ARCH.search(line)
        if found:
            put(draft.platform, "machine", found.group("m"))
            draft.read_at(NAME, text, start)
            break
    for start, line in iter_lines(text, text, "OS=Linux"):
        found_os = _SLURM_OS.search(line)
        if found_os:
            put(draft.kernel, "release", found_os.group("release"))
            draft.read_at(NAME, text, start)
            break
