"""Containers read from text: the container toolkit's versions and log, Docker and the other
engines, their runtimes (daemon.json, `docker info`), Singularity/Apptainer, images (FROM,
NGC, Jetson's L4T images) and containerd or CRI-O configs."""

from __future__ import annotations

import re

from gpudoctor import cri_config
from gpudoctor.pasted.draft import Draft, put
from gpudoctor.pasted.facts_scan.rule import NAME, _Rule, _rx, _says


def _toolkit(m: re.Match[str], d: Draft) -> bool:
    put(d.runtime, "toolkit_version", m.group("v"))
    return True


def _docker(m: re.Match[str], d: Draft) -> bool:
    put(d.runtime, "docker_version", m.group("v"))
    return True


_ENGINES = {"containerd": "containerd", "runc": "runc", "podman": "Podman", "crio": "CRI-O"}


def _engine(m: re.Match[str], d: Draft) -> bool:
    """A container engine's version (no fact holds it: the note does). CRI-O runs only as a
    Kubernetes node's CRI runtime."""
    name = m.group("name").lower().replace("-", "")
    d.note(f"{_ENGINES[name]} {m.group('v')} is named")
    if name == "crio":
        put(d.platform, "kubernetes", True)
    return True


def _crictl_runtime(m: re.Match[str], d: Draft) -> bool:
    """`crictl version`'s "RuntimeName: containerd": crictl asks a Kubernetes node's CRI."""
    d.note(f"crictl reaches the CRI runtime {m.group('name').lower()} (a Kubernetes node's)")
    put(d.platform, "kubernetes", True)
    return True


def _cri_config(text: str, draft: Draft) -> None:
    """A containerd or CRI-O config (or `containerd config dump`): its runtimes and default,
    and whether containerd's CRI plugin is disabled. A `disabled_plugins` line alone (Docker's
    containerd.io config) says nothing of Kubernetes: it is kept, the node is not assumed."""
    disabled = cri_config.cri_disabled(text)
    if disabled is not None:
        put(draft.runtime, "cri_plugin_disabled", disabled)
        at = text.find("disabled_plugins")
        number = text.count("\n", 0, at) + 1
        draft.section(NAME)
        draft.ranges.append((NAME, number, number))
    if "runtime" not in text:
        return
    found = cri_config.read(text)
    if found is None:
        return
    put(draft.runtime, "cri_engine", found.engine)
    put(draft.runtime, "cri_runtimes", found.runtimes)
    put(draft.runtime, "cri_default_runtime", found.default_runtime)
    if found.ignored_runtimes:
        put(draft.runtime, "cri_ignored_runtimes", found.ignored_runtimes)
    put(draft.platform, "kubernetes", True)  # a CRI engine's config: a Kubernetes node
    first = min(i for i in (text.find(".runtimes."), text.find("default_runtime")) if i >= 0)
    number = text.count("\n", 0, first) + 1
    draft.section(NAME)
    draft.ranges.append((NAME, number, number))


def _container(m: re.Match[str], d: Draft) -> bool:
    put(d.platform, "container", m.group("kind").lower())
    return True


_SINGULARITY_VERSION = (
    r"\b(?P<name>singularity-ce|singularity|apptainer) version "
    r"(?P<v>\d{1,2}\.\d{1,2}\.\d{1,3})"
)


def _singularity(m: re.Match[str], d: Draft) -> bool:
    put(d.runtime, "singularity_version", f"{m.group('name').lower()} {m.group('v')}")
    return True


def _nvccli(m: re.Match[str], d: Draft) -> bool:
    put(d.runtime, "singularity_nvccli", True)
    return True


def _daemon_json(m: re.Match[str], d: Draft) -> bool:
    """/etc/docker/daemon.json registering the NVIDIA runtime (its "path" line)."""
    put(d.runtime, "daemon_json_runtimes", ("nvidia",))
    return True


def _jetson_image(m: re.Match[str], d: Draft) -> bool:
    """A Jetson container image and its L4T tag ("dustynv/l4t-ml:r35.4.1", "nvcr.io/nvidia/
    l4t-base:r32.7.1"); a space after the colon, as prose writes it, is dropped."""
    image = f"{m.group('repo')}:{m.group('tag')}"
    if image not in d.images:
        d.images.append(image)
        d.note(f"Jetson container image {image}")
    d.named.append(("jetson", d.scan_line))
    if _RUNS_IMAGE.search(m.string):
        # L4T images are built for arm64 (Jetson) only: the host that runs one is aarch64
        put(d.platform, "machine", "aarch64")
    return True


# the image is started on this host (not a Dockerfile's FROM, which may be built elsewhere)
_RUNS_IMAGE = re.compile(r"\b(?:docker|podman|nerdctl|jetson-containers) run\b", re.IGNORECASE)


def _ngc_image(m: re.Match[str], d: Draft) -> bool:
    """An NGC image named outside a Dockerfile's FROM line (`docker run`, a pod's `image:`,
    `docker inspect`): the container the report is about. Its tag is the container release
    (YY.MM), not a framework version; Jetson's L4T images are `_jetson_image`'s."""
    repo, tag = m.group("repo"), m.group("tag")
    if repo.startswith("l4t") or m.string.lstrip().upper().startswith("FROM"):
        return False
    image = f"nvcr.io/nvidia/{repo}:{tag}"
    if image not in d.images:
        d.images.append(image)
        d.note(f"NGC image {image}")
    return True


def _docker_runtimes(m: re.Match[str], d: Draft) -> bool:
    """`docker info`'s " Runtimes: io.containerd.runc.v2 nvidia runc"."""
    put(d.runtime, "runtimes", tuple(m.group("names").split()))
    put(d.runtime, "docker_reachable", True)
    return True


def _docker_default(m: re.Match[str], d: Draft) -> bool:
    put(d.runtime, "default_runtime", m.group("name"))
    put(d.runtime, "docker_reachable", True)
    return True


def _toolkit_log(m: re.Match[str], d: Draft) -> bool:
    """A line of the NVIDIA Container Toolkit's own log (time=... level=warning msg=...)."""
    tools = d.runtime.get("toolkit_tools", ())
    if m.group("tool").lower() not in tools:
        d.runtime["toolkit_tools"] = (*tools, m.group("tool").lower())
    d.note(f"the text holds {m.group('tool')}'s own log (NVIDIA Container Toolkit)")
    return True


def _from_line(m: re.Match[str], d: Draft) -> bool:
    image = m.group("image")
    cuda = m.groupdict().get("cuda")
    d.note(f"Dockerfile base image {image}" + (f" (CUDA {cuda})" if cuda else ""))
    if cuda:
        put(d.image, "cuda", cuda)
    return True


RULES: tuple[_Rule, ...] = (
    _Rule(
        ("toolkit", "nvidia-ctk"),
        _rx(
            r"(?:nvidia[- ]container[- ]toolkit|container toolkit cli|\bnvidia-ctk)"
            r"(?:\s{1,4}version)?\s{0,4}[:=(]?\s{0,4}v?(?P<v>1\.\d{1,2}\.\d{1,3})"
        ),
        _toolkit,
    ),
    _Rule(
        "cli-version",
        _rx(r"^\s{0,8}cli-version:\s{0,4}(?P<v>1\.\d{1,2}\.\d{1,3})"),
        _toolkit,
    ),
    _Rule(
        "docker",
        _rx(
            # `docker --version`'s "Docker version 24.0.7, build afdd53b", a list's "Docker:
            # 24.0.7", dpkg's "docker-ce  5:24.0.7-1~ubuntu..." (its epoch before the colon);
            # Docker's releases are numbered from 17 on (not nvidia-docker's "2.13.0")
            # (an image's tag is glued to its colon: "docker:24.0.7-dind" is no Docker installed)
            r"(?<![\w-])docker(?:-ce|\s{1,2}engine)?(?:\s{1,2}version)?(?:\s{0,4}[:=]\s|\s)"
            r"\s{0,40}(?:\d:)?v?(?P<v>(?:1[7-9]|2\d)\.\d{1,2}\.\d{1,3})(?![\d])"
        ),
        _docker,
    ),
    _Rule(
        ("containerd", "runc", "podman", "crio", "cri-o"),
        _rx(
            # `containerd --version`: "containerd github.com/containerd/containerd v1.7.2 <rev>"
            # (containerd.io's: "containerd containerd.io 1.6.21 <rev>"); `runc --version`,
            # `podman --version`, `crio --version`: "<name> version 1.1.7"; a list's
            # "containerd: 1.7.13"; dpkg's "containerd.io  1.6.26-1"
            r"(?<![\w./-])(?P<name>containerd|runc|podman|cri-o|crio)(?:\.io)?"
            r"(?:\s{1,2}(?:github\.com/containerd/containerd|containerd\.io))?"
            r"(?:\s{1,2}version)?(?:\s{0,4}[:=]\s|\s)\s{0,40}v?(?P<v>[1-5]\.\d{1,2}\.\d{1,3})(?![\d])"
        ),
        _engine,
    ),
    _Rule(
        "runtimename:",
        # `crictl version`: the CRI runtime the kubelet uses
        _rx(r"^\s{0,4}RuntimeName:\s{1,8}(?P<name>containerd|cri-o)\s{0,4}$"),
        _crictl_runtime,
    ),
)


RULES_2: tuple[_Rule, ...] = (
    _Rule(
        "container",
        _rx(
            r"\b(?:inside|in|within|from) (?:an? |the |my |our )?(?P<kind>docker|podman|lxc) "
            r"containers?\b"
        ),
        _container,
    ),
    _Rule(
        "from ",
        _rx(
            r"^\s{0,8}FROM\s{1,8}(?:--platform=\S{1,40}\s{1,8})?(?P<image>(?:nvcr\.io/nvidia"
            r"/\S{1,80}|(?:docker\.io/)?nvidia/cuda:(?P<cuda>\d{1,2}\.\d{1,2})\S{0,60}|(?:do"
            r"cker\.io/)?pytorch/pytorch:\S{1,80}|(?:docker\.io/)?tensorflow/tensorflow:\S{1"
            r",60}|vllm/vllm-openai:\S{1,40}|ollama/ollama\S{0,40}))"
        ),
        _from_line,
    ),
)


RULES_3: tuple[_Rule, ...] = (
    _Rule("singularity", _rx(_SINGULARITY_VERSION), _singularity),
    _Rule("apptainer", _rx(_SINGULARITY_VERSION), _singularity),
    _Rule(
        "--nvccli",
        _rx(r"\b(?:singularity|apptainer)\b[^\n]{0,200}\s--nvccli\b"),
        _nvccli,
    ),
)


RULES_4: tuple[_Rule, ...] = (
    _Rule(
        "nvidia-container-runtime",
        _rx(r"\"path\"\s{0,4}:\s{0,4}\"(?P<path>[^\"\n]{0,80}nvidia-container-runtime)\""),
        _daemon_json,
    ),
    _Rule(
        "--gpus",
        # the container engine's GPU request ("docker run --gpus all", "podman run --gpus=all")
        _rx(
            r"\b(?P<engine>docker|podman|nerdctl)(?: container)? (?:run|create)\b"
            r"[^\n]{0,400}?--gpus[ =]"
        ),
        _says("the text starts a container with GPUs (`--gpus`): the host's container runtime"),
    ),
    _Rule(
        "driver:",
        _rx(r"^\s{0,16}-?\s{0,2}driver:\s{0,4}[\"']?nvidia[\"']?\s{0,4}$"),
        _says("a Compose file asks for NVIDIA GPUs (a device reservation with driver: nvidia)"),
    ),
)


RULES_5: tuple[_Rule, ...] = (
    _Rule(
        "nvcr.io/nvidia/",
        _rx(
            r"\bnvcr\.io/nvidia/(?P<repo>[a-z0-9][\w.-]{0,40}(?:/[\w.-]{1,40})?):(?P<tag>\w[\w.-]{0,40})"
        ),
        _ngc_image,
    ),
    _Rule(
        ("l4t-", "dustynv/"),
        _rx(
            r"\b(?P<repo>(?:nvcr\.io/nvidia/|dustynv/)[\w.-]{1,60}|[\w.-]{1,40}/l4t-[\w.-]{1,40}|"
            r"l4t-[\w.-]{1,40}):\s?(?P<tag>[\w.-]{0,30}?r\d{2}\.\d{1,2}(?:\.\d{1,2})?[\w.-]{0,30})"
        ),
        _jetson_image,
    ),
)


RULES_6: tuple[_Rule, ...] = (
    _Rule(
        "runtimes:",
        _rx(r"^\s{0,4}Runtimes:\s{1,4}(?P<names>[\w. -]{2,400}?)\s{0,4}$"),
        _docker_runtimes,
    ),
    _Rule(
        "default runtime:",
        _rx(r"^\s{0,4}Default Runtime:\s{1,4}(?P<name>[\w.-]{2,60})\s{0,4}$"),
        _docker_default,
    ),
    _Rule(
        ("level=", "nvidia-ctk", "nvidia-container-runtime"),
        _rx(
            r"\b(?P<tool>nvidia-ctk|nvidia-container-runtime(?:-hook)?|nvidia-cdi-hook)\b[^\n]{0,80}"
            r"\blevel=(?P<level>info|warning|error|debug)\b"
        ),
        _toolkit_log,
    ),
)
