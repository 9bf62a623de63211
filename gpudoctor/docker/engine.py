"""The container engine contract (ping, build, run, inspect, push) and build-progress following.

The builder only talks to an `ImageEngine`; `sdk_engine.DockerSdkEngine` is the Docker SDK
implementation, and tests pass fakes. Values crossing the interface are plain dataclasses, never
SDK objects, so that a `docker buildx` engine can join later (repo2docker's ContainerEngine).
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from gpudoctor.errors import BuildFailed

# "pull": the base image's layers arriving in a FROM step (docker's {"status": ...} chunks),
# progress for the ticker, not log lines.
EventKind = Literal["step", "cache", "log", "image", "error", "pull"]
_STEP = re.compile(r"^Step (\d+)/(\d+) : (.*)$")
_BUILT = re.compile(r"^Successfully built ([0-9a-f]+)$")
_LAYER = re.compile(r"^\s*---> ([0-9a-f]{12,64})$")  # the image a step ended with
LOG_TAIL_LINES = 25


@dataclass(frozen=True)
class BuildEvent:
    """One thing the engine reported while building (a "Step N/M : ..." line is kind "step")."""

    kind: EventKind
    text: str
    step: int | None = None
    total: int | None = None


@dataclass(frozen=True)
class DaemonInfo:
    version: str
    runtimes: tuple[str, ...] = ()
    default_runtime: str | None = None
    architecture: str | None = None  # /info "Architecture": "x86_64", "aarch64"
    # Its builds share this host's network namespace with network_mode=host (a local rootful
    # daemon), so a server on 127.0.0.1 here is reachable from a build step.
    shares_host_network: bool = False

    @property
    def has_nvidia_runtime(self) -> bool:
        return "nvidia" in self.runtimes


@dataclass(frozen=True)
class ImageInfo:
    id: str
    tags: tuple[str, ...]
    size: int
    labels: Mapping[str, str] = field(default_factory=dict)
    env: tuple[str, ...] = ()
    user: str = ""
    architecture: str | None = None  # the image config's "Architecture": "amd64", "arm64"
    # "repo@sha256:..." for each registry the image was pulled from or pushed to; none for an
    # image that exists only here (built, `docker load`ed, `docker import`ed).
    repo_digests: tuple[str, ...] = ()


@dataclass(frozen=True)
class RunResult:
    exit_code: int
    stdout: str
    stderr: str


class ImageEngine(Protocol):
    """What the builder needs from a container engine. Every method raises
    `EnvironmentUnavailable` when the engine cannot be reached."""

    def ping(self) -> DaemonInfo:
        """Check the engine answers; report its version and registered runtimes."""
        ...

    def build(
        self,
        context: Path,
        *,
        tag: str,
        nocache: bool,
        build_args: Mapping[str, str],
        platform: str | None = None,
        sent: Callable[[int], None] | None = None,
        host_network: bool = False,
    ) -> Iterator[BuildEvent]:
        """Build the tar `context` (holding a Dockerfile) as `tag` for `platform` ("linux/arm64";
        None: the daemon's own), yielding progress events; `sent` is told the bytes of the
        context sent so far while it uploads (before the first event); `host_network`: the
        steps run in the daemon host's network namespace (to reach a server on 127.0.0.1).
        A failed step is an "error" event, not an exception (follow_build turns it into one)."""
        ...

    def run(self, image: str, command: Sequence[str], *, gpus: bool, timeout: float) -> RunResult:
        """Run `command` (as the entrypoint) in a throw-away container of `image`."""
        ...

    def inspect(self, image: str) -> ImageInfo | None:
        """The image's id, tags, size and config; None when there is no such image."""
        ...

    def push(self, tag: str) -> Iterator[str]:
        """Push `tag`, yielding progress lines; raises EnvironmentUnavailable when refused."""
        ...


def parse_build_output(chunks: Iterable[Mapping[str, Any]]) -> Iterator[BuildEvent]:
    """Turn the classic builder's JSON stream (`{"stream": ...}`, `{"error": ...}`,
    `{"aux": {"ID": ...}}`) into BuildEvents, one per line of output."""
    for chunk in chunks:
        if not isinstance(chunk, Mapping):
            continue  # the engine's stream holds objects; anything else says nothing
        if "error" in chunk:
            detail = chunk.get("errorDetail")
            message = detail.get("message") if isinstance(detail, Mapping) else None
            yield BuildEvent("error", str(message or chunk["error"]).strip())
        elif "aux" in chunk and isinstance(chunk["aux"], Mapping) and "ID" in chunk["aux"]:
            yield BuildEvent("image", str(chunk["aux"]["ID"]))
        elif "stream" in chunk:
            for line in str(chunk["stream"]).splitlines():
                if line.strip():
                    yield _line_event(line.rstrip())
        elif chunk.get("status"):
            words = (chunk.get("status"), chunk.get("id"), chunk.get("progress"))
            yield BuildEvent("pull", " ".join(str(w) for w in words if w))


def _line_event(line: str) -> BuildEvent:
    step = _STEP.match(line)
    if step:
        return BuildEvent("step", line, int(step.group(1)), int(step.group(2)))
    if line.strip() == "---> Using cache":
        return BuildEvent("cache", line.strip())
    built = _BUILT.match(line.strip())
    if built:
        return BuildEvent("image", built.group(1))
    return BuildEvent("log", line)


@dataclass(frozen=True)
class BuildOutcome:
    image_id: str
    steps: int  # "Step N/M" lines seen
    from_steps: int  # of which FROM (never cached: they name a base)
    cached: int  # "Using cache" hits
    # The image each stage but the last ended with: in a multi-stage build these stay behind
    # untagged (the layer cache of the next build), and the report names them.
    stage_images: tuple[str, ...] = ()

    @property
    def all_cached(self) -> bool:
        return self.steps > 0 and self.cached == self.steps - self.from_steps


def follow_build(
    events: Iterable[BuildEvent], progress: Callable[[BuildEvent], None]
) -> BuildOutcome:
    """Pass every event to `progress`, count steps and cache hits, keep the log tail.

    Raises:
        BuildFailed: the engine reported an error; it names the failing step and carries the
            last LOG_TAIL_LINES lines of output.
    """
    tail: deque[str] = deque(maxlen=LOG_TAIL_LINES)
    step: BuildEvent | None = None
    steps = from_steps = cached = 0
    image_id = layer = ""
    stages: list[str] = []
    for event in events:
        progress(event)
        if event.kind == "step":
            step, steps = event, steps + 1
            if " : FROM " in event.text:
                from_steps += 1
                if layer:  # the previous stage ended with this image
                    stages.append(layer)
            tail.clear()
        elif event.kind == "cache":
            cached += 1
        elif event.kind == "image" and not image_id.startswith(f"sha256:{event.text}"):
            image_id = event.text  # the aux ID (sha256:...) beats the short "Successfully built"
        elif event.kind == "error":
            raise _failed(step, tail, event.text)
        elif event.kind == "log":
            found = _LAYER.match(event.text)
            layer = found.group(1) if found else layer
        elif event.kind == "pull":
            continue  # a progress bar, not the step's log
        tail.append(event.text)
    if not image_id:
        raise _failed(step, tail, "the engine ended the build without an image id")
    return BuildOutcome(
        image_id=image_id,
        steps=steps,
        from_steps=from_steps,
        cached=cached,
        stage_images=tuple(stages),
    )


def _failed(step: BuildEvent | None, tail: deque[str], message: str) -> BuildFailed:
    where = step.text if step else "before the first step"
    # builder/failure.py words the hints that need the spec and options (base image, index).
    hint = "read the step's log above; fix the cause (or the matrix row) and build again"
    return BuildFailed(
        f"image build failed at {where}: {message}",
        hint=hint,
        step=step.text if step else None,
        log_tail=(*tail, message),
    )
