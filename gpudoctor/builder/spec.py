"""ImageSpec: everything the template and the build need, from a resolved row plus user options.

`make_spec` is the one place user values enter the builder; each goes through validate.py, and
the row's own values (matrix data that reaches FROM, pip and LABEL) are checked the same way.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from pathlib import Path

from gpudoctor import __version__, versions
from gpudoctor.builder import validate
from gpudoctor.compat.request import ResolvedRow
from gpudoctor.errors import UsageError
from gpudoctor.image_labels import LABEL_PREFIX

VENV = "/opt/venv"
USER = "gpudoctor"
# Not 1000: nvidia/cuda ubuntu24.04 images already have the `ubuntu` user at 1000.
USER_UID = 10001
VERIFY_SCRIPT = "verify_image.py"


@dataclass(frozen=True)
class BuildOptions:
    """User options of `gpudoctor build` / `render` beyond row resolution (all unvalidated)."""

    pip: tuple[str, ...] = ()
    tag: str | None = None
    base_image: str | None = None
    build_args: tuple[str, ...] = ()  # "KEY=VALUE"
    index_url: str | None = None  # overrides the row's framework index (a mirror)
    wheelhouse: Path | None = None


@dataclass(frozen=True)
class ImageSpec:
    """A validated, deterministic description of one image (sorted where order is free)."""

    row: ResolvedRow
    base_image: str  # what FROM names: repo:tag[@digest]
    base_pinned: bool
    tag: str
    requirements: tuple[str, ...]  # the row's pins, sorted
    extra_requirements: tuple[str, ...] = ()  # --pip, sorted
    index_url: str | None = None
    wheelhouse: Path | None = None
    # Where pip finds the wheelhouse: served on 127.0.0.1 to a host-network build (the wheels
    # never enter the context: a rebuild does not send gigabytes again), or None: copied into
    # the context (a daemon on another host or network namespace cannot reach this one).
    wheel_url: str | None = None
    # The served wheels' identity (wheelhouse.wheel_manifest), COPYed before the pip step: the
    # layer cache must miss when the wheels change, as it did when they were in the context.
    wheel_manifest: str = ""
    build_args: tuple[tuple[str, str], ...] = ()
    warnings: tuple[str, ...] = field(default=(), compare=False)

    @property
    def python(self) -> str:
        return self.row.python

    @property
    def platform(self) -> str:
        """The OCI platform the image is built for: "linux/amd64", "linux/arm64"."""
        return self.row.platform

    @property
    def require_cuda(self) -> str:
        """NVIDIA_REQUIRE_CUDA: the compatibility model's rule for the build (`cuda>=12.0` for
        any cu12x build: every driver at or above the 12.x minor-version floor), ORed with
        whatever the base declares. nvidia/cuda bases declare `cuda>=12.4` plus NVIDIA's
        `brand=...,driver>=...` clauses (forward compatibility through the cuda-compat
        package they ship); replacing that value would drop those clauses, so the Dockerfile
        keeps it after ours (space-separated constraints are ORed by the NVIDIA Container
        Toolkit). A plain base declares nothing, and the value is the model's rule alone."""
        return f"{self.row.require_cuda}${{NVIDIA_REQUIRE_CUDA:+ }}${{NVIDIA_REQUIRE_CUDA}}"

    @property
    def labels(self) -> tuple[tuple[str, str], ...]:
        return tuple(sorted(image_labels(self).items()))

    @property
    def python_env(self) -> tuple[tuple[str, str], ...]:
        """Set in the Python stage: the venv first on PATH, pip quiet and cache-free."""
        return (
            ("PATH", f"{VENV}/bin:${{PATH}}"),
            ("PIP_DISABLE_PIP_VERSION_CHECK", "1"),
            ("PIP_NO_CACHE_DIR", "1"),
            ("PYTHONUNBUFFERED", "1"),
            ("VIRTUAL_ENV", VENV),
        )

    @property
    def runtime_env(self) -> tuple[tuple[str, str], ...]:
        """The NVIDIA container runtime reads these at container start."""
        return (
            ("NVIDIA_DRIVER_CAPABILITIES", "compute,utility"),
            ("NVIDIA_REQUIRE_CUDA", self.require_cuda),
            ("NVIDIA_VISIBLE_DEVICES", "all"),
        )


def cuda_tag(cuda: str) -> str:
    """ "12.4" -> "cu124", the wheel-index naming PyTorch uses."""
    return versions.cuda_tag(cuda)


def image_name(row: ResolvedRow) -> str:
    """ "pytorch:2.5.1-cu124-py3.11-ubuntu22.04-runtime": every axis rows of one release differ
    by (a devel and a runtime build of one version must never share a tag)."""
    tag = f"{row.version}-{cuda_tag(row.cuda)}-py{row.python}-{row.distro}-{row.flavor}"
    return f"{row.framework}:{tag}"


def default_tag(row: ResolvedRow) -> str:
    """The image name plus the platform's architecture ("-amd64", "-arm64"): an image is built
    for one platform, and an arm64 build must not replace the amd64 one under the same tag."""
    return f"gpudoctor/{image_name(row)}-{row.platform.rpartition('/')[2]}"


def image_labels(spec: ImageSpec) -> dict[str, str]:
    """OCI labels plus io.gpudoctor.* labels holding the resolved row (what verify reads back).

    No `org.opencontainers.image.created`: a timestamp would change every build and defeat the
    layer cache of a no-op rebuild; `docker inspect` has Created anyway.
    """
    row = spec.row
    name, _, digest = spec.base_image.partition("@")
    labels = {
        "org.opencontainers.image.title": f"{row.framework} {row.version} ({row.id})",
        "org.opencontainers.image.description": (
            f"{row.framework} {row.version} built for CUDA {row.cuda}, Python {row.python}, "
            f"by gpudoctor from a known-good matrix row"
        ),
        "org.opencontainers.image.version": row.version,
        "org.opencontainers.image.base.name": name,
        LABEL_PREFIX + "builder-version": __version__,
        LABEL_PREFIX + "row-id": row.id,
        LABEL_PREFIX + "framework": row.framework,
        LABEL_PREFIX + "framework-version": row.version,
        LABEL_PREFIX + "cuda": row.cuda,
        LABEL_PREFIX + "cuda-release": row.cuda_release or "none",
        LABEL_PREFIX + "cuda-from": row.cuda_from,
        LABEL_PREFIX + "native-driver": row.native_driver_linux or "unknown",
        LABEL_PREFIX + "require-cuda": row.require_cuda,
        LABEL_PREFIX + "cudnn": row.cudnn or "none",
        LABEL_PREFIX + "python": row.python,
        LABEL_PREFIX + "min-driver": row.min_driver_linux,
        LABEL_PREFIX + "arch-list": ",".join(row.arch_list),
        LABEL_PREFIX + "base-image": spec.base_image,
        LABEL_PREFIX + "platform": row.platform,
    }
    if digest:
        labels["org.opencontainers.image.base.digest"] = digest
    return labels


def make_spec(row: ResolvedRow, options: BuildOptions) -> ImageSpec:
    """Validate options (and the row's values that reach the Dockerfile) into an ImageSpec."""
    base, pinned, warnings = _base_image(row, options.base_image)
    validate.python_version(row.python, "matrix python")
    index = options.index_url or row.index_url
    if index is not None:
        validate.index_url(index, "--index-url" if options.index_url else "matrix index_url")
    for value in (row.id, row.version, row.cuda, row.cuda_release or "none", row.min_driver_linux):
        _check_row_value(row, value)
    wheelhouse = _wheelhouse(options.wheelhouse)
    extras = tuple(sorted({validate.pip_requirement(p) for p in options.pip}))
    return ImageSpec(
        row=row,
        base_image=base,
        base_pinned=pinned,
        tag=validate.image_tag(options.tag) if options.tag else default_tag(row),
        requirements=tuple(sorted(_row_requirement(row, r) for r in row.requirements)),
        extra_requirements=extras,
        index_url=index,
        wheelhouse=wheelhouse,
        wheel_url=wheel_url(wheel_port(row.id, extras)) if wheelhouse is not None else None,
        build_args=tuple(sorted(validate.build_arg(a) for a in options.build_args)),
        warnings=warnings,
    )


def _base_image(row: ResolvedRow, override: str | None) -> tuple[str, bool, tuple[str, ...]]:
    if override is not None:
        base = validate.image_reference(override, "--base-image")
    else:
        base = validate.image_reference(row.base_image, "matrix base_image")
        if row.base_digest and "@" not in base:
            base = validate.image_reference(f"{base}@{row.base_digest}", "matrix base_digest")
    if validate.reference_is_pinned(base):
        return base, True, ()
    return base, False, (tag_only_warning(base),)


TAG_ONLY = "is pinned by tag only"


def tag_only_warning(base: str, digest: str | None = None) -> str:
    """The base names a tag, which registries re-publish and delete; `digest`: the one the
    daemon's copy was pulled with (RepoDigests), to pin exactly what was built from."""
    pin = f"{base.rpartition(':')[0] if ':' in base.rpartition('/')[2] else base}@{digest}"
    return (
        f"base image {base} {TAG_ONLY}: tags are mutable (registries re-publish and delete "
        f"them), so a rebuild may get different bits; pin it with --base-image "
        + (pin if digest else f"{base}@sha256:<digest>")
    )


def _row_requirement(row: ResolvedRow, value: str) -> str:
    try:
        return validate.pip_requirement(value)
    except UsageError as exc:
        raise UsageError(
            f"matrix row {row.id}: requirement {value!r} is unusable: {exc.message}",
            hint="fix the row in the matrix (gpudoctor matrix validate)",
        ) from None


def _check_row_value(row: ResolvedRow, value: str) -> None:
    if not value or any(not (ch.isalnum() or ch in "._+-") for ch in value):
        raise UsageError(
            f"matrix row {row.id!r}: value {value!r} holds characters a label cannot",
            hint="fix the row in the matrix (gpudoctor matrix validate)",
        )


WHEEL_PORTS = (20000, 40000)  # the range a wheelhouse's preferred port is taken from


def wheel_port(row_id: str, extra_requirements: tuple[str, ...]) -> int:
    """The port a wheelhouse is served on for one image: the same for the same row and extras
    (wherever the folder is), so the pip step's line, which names it, and so its layer cache
    stay the same from one build to the next."""
    low, high = WHEEL_PORTS
    key = "\n".join((row_id, *extra_requirements)).encode("utf-8")
    return low + zlib.crc32(key) % (high - low)


def wheel_url(port: int) -> str:
    return f"http://127.0.0.1:{port}/"


def _wheelhouse(path: Path | None) -> Path | None:
    if path is None:
        return None
    if not path.is_dir():
        raise UsageError(
            f"--wheelhouse {path}: not a directory",
            hint="point --wheelhouse at a folder of .whl files (pip download -d DIR ...)",
        )
    return path.resolve()
