"""Cluster schedulers describing a GPU node, as their tools print it:

- `kubectl describe node` (or `get node --show-labels`, `-o yaml`, `-o json`): GPU feature
  discovery's labels (nvidia.com/cuda.driver.major/.minor/.rev or cuda.driver-version.*,
  gpu.product, gpu.count, gpu.memory in MiB, gpu.compute.major/.minor), the System Info lines
  (Kernel Version, Architecture, Container Runtime Version), and nvidia.com/gpu under the node's
  Capacity/Allocatable (or under a pod's Limits/Requests: what it asks for).
- `kubectl get nodes -o wide`: each node's KERNEL-VERSION and CONTAINER-RUNTIME (kept when the
  rows agree: one paste is one host).
- `kubectl get pods` (-n gpu-operator, -A): the NVIDIA pods and their STATUS ("Init:1/4": one
  of four init containers completed); `kubectl describe pod` of one: its init containers'
  states (pod_describe.py).
- `kubectl exec POD -- nvidia-smi` (its table, -L or --query-gpu): the GPUs the pod itself sees,
  counted from what the command printed up to the next command (a pod of the NVIDIA stack left
  out: it sees every GPU by design).
- Slurm's `scontrol show node` / `sinfo -o %G`: "Gres=gpu:a100:4" (the GPU count the node is
  configured with), "Arch=x86_64", "OS=Linux 5.15.0-...".
"""

from __future__ import annotations

import re

from gpudoctor.facts import STACK_POD_PREFIXES, StackPod
from gpudoctor.pasted import pod_describe
from gpudoctor.pasted.draft import Draft, put
from gpudoctor.pasted.scan import iter_lines

NAME = "cluster tools"
DESCRIPTION = (
    "`kubectl describe node` (GPU feature discovery labels), `kubectl get pods`, "
    "Slurm `scontrol show node` / `sinfo` GRES"
)

_LABEL = re.compile(
    r"nvidia\.com/(?P<key>cuda\.driver(?:-version)?\.(?:major|minor|rev|revision)|"
    r"cuda\.runtime(?:-version)?\.(?:major|minor)|gpu\.(?:product|count|memory|compute\.major|"
    r"compute\.minor))\"?[=:]\s{0,4}\"?(?P<v>[\w.-]{0,80})"
)
_SYSTEM_INFO = re.compile(
    r"^\s{2,4}(?P<key>Kernel Version|Architecture|Container Runtime Version):"
    r"\s{1,30}(?P<v>[^\n]{1,80}?)\s{0,4}$"
)
# "  nvidia.com/gpu:  4" (describe), '    nvidia.com/gpu: "4"' (-o yaml), '"nvidia.com/gpu": "4",'
_RESOURCE = re.compile(r"^\s{1,16}\"?nvidia\.com/gpu\"?:\s{1,30}\"?(?P<n>\d{1,4})\"?,?\s{0,4}$")
# the key a resource line sits under: the node's Capacity/Allocatable (describe, -o yaml/json)
# or a pod's Limits/Requests (describe pod, a pod spec)
_HEADING = re.compile(
    r"^\s{0,12}\"?(?P<key>[Cc]apacity|[Aa]llocatable|[Ll]imits|[Rr]equests)\"?:", re.MULTILINE
)
_HEADING_REACH = 4000
# a pod's Limits key on a line of its own (`describe pod`'s "Limits:", a spec's "limits:")
_LIMITS = re.compile(r"^(?P<indent>\s{0,16})[Ll]imits:\s{0,4}$")
# a resource line under it: "cpu:  1", '  memory: "8Gi"', "nvidia.com/gpu: 1"
_LIMIT_LINE = re.compile(r"^(?P<indent>\s{1,24})\"?(?P<name>[\w./-]{1,80})\"?:\s{1,30}\S")
# the name of the pod or container a spec belongs to, above its Limits
_POD_NAME = re.compile(r"^\s{0,12}(?:- )?[Nn]ame:\s{1,30}(?P<name>\S{1,120})\s{0,4}$", re.MULTILINE)
# the NVIDIA stack's own pods (device plugin, GFD, DCGM exporter, operator operands) ask for no
# GPU resource by design: they see the GPUs through the NVIDIA runtime, not a limit
_STACK_POD = (
    "nvidia-device-plugin",
    "nvidia-dcgm",
    "dcgm-exporter",
    "nvidia-operator-validator",
    "nvidia-container-toolkit",
    "nvidia-driver-daemonset",
    "nvidia-mig-manager",
    "gpu-feature-discovery",
    "gpu-operator",
    "nvdp-",
)
# A MIG device resource the device plugin's mixed strategy advertises ("nvidia.com/mig-1g.10gb: 6")
_MIG_RESOURCE = re.compile(
    r"^\s{2,16}\"?nvidia\.com/mig-\d{1,2}g\.\d{1,3}gb(?:\+[a-z]{1,8})?\"?:\s{1,30}\"?(?P<n>\d{1,4})"
    r"\"?,?\s{0,4}$"
)
# a `kubectl get nodes -o wide` row's last two columns: "5.15.0-105-generic   containerd://1.7.12"
_WIDE_ROW = re.compile(
    r"\s(?P<kernel>\d{1,2}\.\d{1,3}\.\d{1,3}[\w.+~-]{0,60})\s{1,20}"
    r"(?P<engine>containerd|cri-o|docker)://(?P<version>\d[\w.+~-]{0,40})\s{0,4}$"
)
_GOARCH = {"amd64": "x86_64", "arm64": "aarch64", "ppc64le": "ppc64le", "s390x": "s390x"}
_READY = re.compile(r"^\d{1,2}/\d{1,2}$")
_FINE = ("Running", "Completed", "Succeeded")
# A pod's STATUS as `kubectl get pods` prints it (the phase, or the reason of the container that
# holds it: kubernetes/pkg/printers/internalversion/printers.go, printPod): rows grepped out of
# the table (`kubectl get pods -A | grep nvidia`) lose the header, so without it a row is read
# only when its STATUS is one of these
_STATUS = re.compile(
    r"^(?:Running|Completed|Succeeded|Pending|Failed|Unknown|Terminating|Evicted|Error|"
    r"OOMKilled|ContainerCreating|PodInitializing|CrashLoopBackOff|ImagePullBackOff|"
    r"ErrImagePull|CreateContainerError|CreateContainerConfigError|RunContainerError|"
    r"StartError|Init:[\w/]{1,30})$"
)
_GRES = re.compile(
    r"(?:^|[\s=])gpu:(?:(?P<type>[A-Za-z][\w.-]{0,40}):)?(?P<n>\d{1,3})(?=\(|\s|,|$)"
)
_SLURM_ARCH = re.compile(r"\bArch=(?P<m>x86_64|aarch64|ppc64le)\b")
_SLURM_OS = re.compile(r"\bOS=Linux (?P<release>\d\.\d{1,2}\.\d{1,3}-[\w.+~-]{1,60})")


def parse(text: str, draft: Draft) -> None:
    _labels(text, draft)
    _resources(text, draft)
    _spec_requests(text, draft)
    _system_info(text, draft)
    _nodes_wide(text, draft)
    _pods(text, draft)
    if "kubectl exec" in text:
        _exec_gpus(text, draft)
    described = pod_describe.parse(text, draft) if "Init Containers:" in text else set()
    if "restarting failed container" in text:
        pod_describe.parse_backoff(text, draft, described)
    _slurm(text, draft)


# Labels that mark a node with an NVIDIA GPU: the GPU Operator's (via NFD) and NFD's own PCI
# vendor label for NVIDIA (vendor id 10de); and the managed services' own, which they put on
# every node of a GPU node pool whether or not a device plugin runs there: GKE's
# cloud.google.com/gke-accelerator=nvidia-<model> (the key GKE's nvidia-driver-installer
# DaemonSets select their nodes by, GoogleCloudPlatform/container-engine-accelerators) and AKS's
# kubernetes.azure.com/accelerator=nvidia (AKS docs, "Use labels": reserved system labels).
_GPU_NODE = re.compile(
    r"(?:nvidia\.com/gpu\.present|feature\.node\.kubernetes\.io/pci-(?:0302_|0300_)?10de"
    r"\.present)\"?[=:]\s{0,4}\"?true\b"
    r"|(?P<service>cloud\.google\.com/gke|kubernetes\.azure\.com/)-?accelerator\"?[=:]\s{0,4}"
    r"\"?nvidia\b"
)
_SERVICE = {"cloud.google.com/gke": "gke", "kubernetes.azure.com/": "aks"}


def _gpu_node(text: str, draft: Draft) -> None:
    for needle in ("gpu.present", "10de.present", "accelerator"):
        for start, line in iter_lines(text, text, needle):
            found = _GPU_NODE.search(line)
            if found:
                draft.named.append(("gpu-node", text.count("\n", 0, start) + 1))
                put(draft.platform, "kubernetes", True)
                if found.group("service"):
                    put(draft.platform, "k8s_distribution", _SERVICE[found.group("service")])
                draft.read_at(NAME, text, start)
                return


def _labels(text: str, draft: Draft) -> None:
    _gpu_node(text, draft)
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


def _heading(text: str, start: int) -> str | None:
    """The nearest Capacity/Allocatable/Limits/Requests key above `start`, lower-cased."""
    window = text[max(0, start - _HEADING_REACH) : start]
    key = None
    for found in _HEADING.finditer(window):
        key = found.group("key").lower()
    return key


def _resources(text: str, draft: Draft) -> None:
    """ "nvidia.com/gpu: 4" under a pod's Limits or Requests (`kubectl describe pod`, a pod
    spec): the GPUs a pod asks for (a note). A node's Capacity/Allocatable are read as objects
    (k8s_objects.py), their one reader."""
    asked: str | None = None
    for start, line in iter_lines(text, text, "nvidia.com/gpu"):
        found = _RESOURCE.match(line)
        kind = _heading(text, start) if found else None
        if found is None or kind not in ("limits", "requests"):
            continue
        asked = max(asked or "0", found.group("n"), key=int)
        draft.read_at(NAME, text, start)
    _mig_resources(text, draft)
    if asked is None and _limits_without_gpu(text):
        asked = "0"
        draft.notes.append("a pod's Limits name no GPU resource: it asks for no GPU")
    if asked is not None:
        put(draft.platform, "kubernetes", True)
        put(draft.platform, "k8s_gpu_requested", int(asked))
        draft.notes.append(f"a pod asks for nvidia.com/gpu: {asked}")


def _limits_without_gpu(text: str) -> bool:
    """A pod's Limits block (`kubectl describe pod`, a pod spec) that names resources, none of
    them a GPU: the pod asks for no GPU (Kubernetes gives an extended resource such as
    nvidia.com/gpu only to a container that names it in its limits). Blocks of the NVIDIA stack's
    own pods are left out: they get their GPUs through the NVIDIA runtime."""
    for needle in ("Limits:", "limits:"):
        for start, line in iter_lines(text, text, needle):
            heading = _LIMITS.match(line)
            if heading is None or _stack_pod(text, start):
                continue
            names = _block_names(text, start + len(line) + 1, len(heading.group("indent")))
            if names and not any("gpu" in n or "nvidia.com/" in n for n in names):
                return True
    return False


def _block_names(text: str, at: int, indent: int) -> list[str]:
    """The resource names of the lines below a Limits key, indented deeper than it."""
    names: list[str] = []
    for line in text[at : at + 1200].split("\n")[:16]:
        found = _LIMIT_LINE.match(line)
        if found is None or len(found.group("indent")) <= indent:
            break
        names.append(found.group("name").lower())
    return names


def _stack_pod(text: str, start: int) -> bool:
    """Whether the nearest pod or container name above `start` is one of the NVIDIA stack's."""
    name = None
    for found in _POD_NAME.finditer(text[max(0, start - _HEADING_REACH) : start]):
        name = found.group("name").strip("\"'").lower()
    return name is not None and name.startswith(_STACK_POD)


def _mig_resources(text: str, draft: Draft) -> None:
    """MIG devices the node advertises under Capacity/Allocatable: with the device plugin's
    mixed strategy a GPU in MIG mode counts under nvidia.com/mig-<profile>, not nvidia.com/gpu
    (its README, "MIG strategies"), so "nvidia.com/gpu: 0" beside them is expected."""
    for start, line in iter_lines(text, text, "nvidia.com/mig-"):
        found = _MIG_RESOURCE.match(line)
        if found is None or found.group("n") == "0":
            continue
        if _heading(text, start) not in ("capacity", "allocatable"):
            continue
        draft.read_at(NAME, text, start)
        draft.named.append(("mig-devices", text.count("\n", 0, start) + 1))
        draft.notes.append("the node advertises MIG devices (nvidia.com/mig-*)")
        return


# a container's `resources:` key in a pod spec (YAML), and the keys and lines of its block
_RESOURCES_KEY = re.compile(r"^(?P<indent>\s{0,24})(?:- )?resources:\s{0,4}$")
_SPEC_KIND = re.compile(
    r"^(?P<indent>\s{1,28})(?P<kind>limits|requests):\s{0,4}(?P<rest>\{[^\n]{0,200})?$"
)
_SPEC_GPU = re.compile(r"\"?(?P<name>nvidia\.com/[\w.-]{1,40})\"?:\s{0,30}[\"']?(?P<n>\d{1,4})\b")


def _spec_requests(text: str, draft: Draft) -> None:
    """A pod spec (YAML) whose container asks for an nvidia.com/ resource under `requests`, with
    no limit of it or a different one: the API server rejects it (an extended resource cannot
    be overcommitted: its limit must be set and equal its request; Kubernetes docs, "Schedule
    GPUs"). The first such container, else the first that names one in its requests."""
    chosen: tuple[int, str, int, int | None] | None = None
    for start, line in iter_lines(text, text, "resources:"):
        found = _RESOURCES_KEY.match(line)
        if found is None:
            continue
        asked = _spec_block(text, start + len(line) + 1, len(found.group("indent")))
        wrong = [
            (start, name, n, asked["limits"].get(name))
            for name, n in asked["requests"].items()
            if asked["limits"].get(name) != n
        ]
        if wrong:
            chosen = wrong[0]
            break
        if chosen is None and asked["requests"]:
            name, n = next(iter(asked["requests"].items()))
            chosen = (start, name, n, n)
    if chosen is None:
        return
    at, name, n, limit = chosen
    put(draft.platform, "kubernetes", True)
    put(draft.platform, "k8s_gpu_spec_resource", name)
    put(draft.platform, "k8s_gpu_spec_requests", n)
    put(draft.platform, "k8s_gpu_spec_limits", limit)
    draft.read_at(NAME, text, at)


def _spec_block(text: str, at: int, indent: int) -> dict[str, dict[str, int]]:
    """The nvidia.com/ resources under a `resources:` block's limits and requests (block style,
    or flow style: `limits: {nvidia.com/gpu: 1}`)."""
    asked: dict[str, dict[str, int]] = {"limits": {}, "requests": {}}
    kind = None
    kind_indent = indent
    for line in text[at : at + 1500].split("\n")[:24]:
        if not line.strip():
            continue
        depth = len(line) - len(line.lstrip())
        if depth <= indent:
            break
        key = _SPEC_KIND.match(line)
        if key is not None:
            kind, kind_indent = key.group("kind"), len(key.group("indent"))
            for gpu in _SPEC_GPU.finditer(key.group("rest") or ""):
                asked[kind].setdefault(gpu.group("name"), int(gpu.group("n")))
            continue
        gpu_line = _SPEC_GPU.match(line.strip())
        if kind is not None and depth > kind_indent and gpu_line is not None:
            asked[kind].setdefault(gpu_line.group("name"), int(gpu_line.group("n")))
    return asked


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


def _nodes_wide(text: str, draft: Draft) -> None:
    """`kubectl get nodes -o wide`: under its header, each node's kernel and container runtime;
    kept only when every row agrees (nodes that differ are hosts this paste cannot tell apart)."""
    header = text.find("CONTAINER-RUNTIME")
    if header == -1 or "KERNEL-VERSION" not in text[max(0, header - 300) : header]:
        return
    rows = []
    for start, line in iter_lines(text, text, "://"):
        found = _WIDE_ROW.search(line) if start > header else None
        if found:
            rows.append((start, found))
    if not rows:
        return
    put(draft.platform, "kubernetes", True)
    draft.read_at(NAME, text, rows[0][0], len(rows))
    kernels = {found.group("kernel") for _, found in rows}
    engines = {found.group("engine") for _, found in rows}
    if len(kernels) == 1:
        put(draft.kernel, "release", kernels.pop())
    if len(engines) == 1:
        put(draft.runtime, "cri_engine", engines.pop())
    if len(rows) > 1:
        draft.notes.append(f"kubectl get nodes lists {len(rows)} nodes")


def _pods(text: str, draft: Draft) -> None:
    """`kubectl get pods`: NAME READY STATUS RESTARTS AGE (NAMESPACE first with -A)."""
    at = text.find("READY")
    headed = at != -1 and "STATUS" in text[at : at + 200]
    bad: list[str] = []
    seen: set[str] = set()
    first = -1
    for needle in ("nvidia-", "gpu-"):
        for start, line in iter_lines(text, text, needle):
            words = line.split()
            ready = next((i for i, w in enumerate(words) if _READY.match(w)), None)
            if ready is None or ready == 0 or ready + 1 >= len(words):
                continue
            name, status = words[ready - 1], words[ready + 1]
            # headerless: STATUS must be a pod's, then RESTARTS (a count) or the row's end
            if not headed and not (
                _STATUS.match(status) and (ready + 2 == len(words) or words[ready + 2].isdecimal())
            ):
                continue
            # `kubectl get all` names each row by its kind: pod/nvidia-device-plugin-...
            name = name[4:] if name.startswith("pod/") else name
            # the NVIDIA stack's pods only: a workload named gpu-test is judged by its own row
            if not name.startswith(STACK_POD_PREFIXES) or name in seen:
                continue
            seen.add(name)
            first = start if first < 0 or start < first else first
            draft.stack_pods.append(StackPod(name=name, status=status))
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


# `kubectl exec [flags] POD [-c CONTAINER] -- nvidia-smi [...]`; what stands between exec and
# "--" holds the pod (_pod_of)
_EXEC = re.compile(
    r"kubectl\b[^\n]{0,200}?\bexec\b(?P<between>[^\n]{1,300}?)[ \t]--[ \t]{1,4}"
    r"(?:[\w/]{0,40}/)?nvidia-smi\b[^\n|>]{0,200}$"
)
# exec's flags that take a value as the next word
_VALUE_FLAGS = frozenset({"-n", "--namespace", "-c", "--container", "--context", "--kubeconfig"})
# a GPU as each form lists it: -L's "GPU 0: ...", the table's row with its bus id,
# --query-gpu's CSV row that starts with an index
_EXEC_GPU = re.compile(
    r"^(?:GPU \d{1,3}: |\|[ \t]{1,6}\d{1,3}[ \t][^\n]{1,60}\|[ \t]{0,4}[0-9A-Fa-f]{4,8}:"
    r"[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d|\d{1,3}, )"
)
# where the command's output ends: the next command (a prompt, another kubectl)
_NEXT_COMMAND = re.compile(
    r"^\s{0,4}(?:\$|#|>|[\w.-]{1,60}@[\w.-]{1,60}[:\s][^\n]{0,200}?[#$])\s|kubectl "
)
_EXEC_LINES = 400


def _exec_gpus(text: str, draft: Draft) -> None:
    """The GPUs `kubectl exec POD -- nvidia-smi` listed: what the pod sees, whatever it asked."""
    most = None
    for start, line in iter_lines(text, text, "kubectl"):
        found = _EXEC.search(line)
        if found is None or _pod_of(found.group("between")).startswith(STACK_POD_PREFIXES):
            continue
        end = text.find("\n", start)
        count = 0
        for out in [] if end < 0 else text[end + 1 :].split("\n", _EXEC_LINES)[:_EXEC_LINES]:
            if _NEXT_COMMAND.match(out):
                break
            if _EXEC_GPU.match(out.strip()):
                count += 1
        if count and (most is None or count > most):
            most = count
            draft.read_at(NAME, text, start)
    if most is not None:
        put(draft.platform, "kubernetes", True)
        put(draft.platform, "k8s_exec_gpus", most)


def _pod_of(between: str) -> str:
    """The pod `kubectl exec` names: its first word that is no flag nor a flag's value."""
    words = between.split()
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word in _VALUE_FLAGS:
            skip = True
        elif not word.startswith("-"):
            return word.split("/")[-1]  # pod/NAME
    return ""


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
