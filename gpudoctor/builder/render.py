"""Render templates/Dockerfile.j2 for an ImageSpec: a pure function from spec to text.

Jinja2 runs with StrictUndefined (a missing value is an error, not an empty string),
keep_trailing_newline, and no autoescaping (this is a Dockerfile, not HTML). Labels and
environment arrive sorted, so equal specs render byte-identical Dockerfiles.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpudoctor import __version__
from gpudoctor.builder.spec import USER, USER_UID, VENV, ImageSpec
from gpudoctor.compat.install import requirement_lines
from gpudoctor.errors import RenderError

if TYPE_CHECKING:
    import jinja2

TEMPLATE_NAME = "Dockerfile.j2"
WHEELS_DIR = "/tmp/gpudoctor/wheels"
WHEEL_MANIFEST = "wheelhouse.txt"  # the served wheels' names and content digests


def requirements_files(spec: ImageSpec) -> dict[str, str]:
    """The requirement files the Dockerfile COPYs: name -> content (one requirement a line)."""
    files = {"requirements.txt": "".join(requirement_lines(spec.requirements))}
    if spec.extra_requirements:
        files["extra-requirements.txt"] = "".join(f"{r}\n" for r in spec.extra_requirements)
    if spec.wheelhouse is not None and spec.wheel_url is not None:
        files[WHEEL_MANIFEST] = spec.wheel_manifest
    return files


def wheel_source(spec: ImageSpec) -> str:
    """Where pip finds the wheelhouse: its URL on this host, else the copy in the context."""
    return spec.wheel_url or WHEELS_DIR


def framework_source(spec: ImageSpec) -> str:
    """pip flags naming where the framework comes from: the wheelhouse, the row's index, PyPI."""
    if spec.wheelhouse is not None:
        return f"--no-index --find-links {wheel_source(spec)}"
    if spec.index_url is not None:
        return f"--index-url {spec.index_url}"
    return "--index-url https://pypi.org/simple"


def extra_source(spec: ImageSpec) -> str:
    """Extra --pip packages come from PyPI, or from the wheelhouse when building offline."""
    if spec.wheelhouse is not None:
        return f"--no-index --find-links {wheel_source(spec)}"
    return "--index-url https://pypi.org/simple"


def template_values(spec: ImageSpec) -> dict[str, Any]:
    return {
        "gpudoctor_version": __version__,
        "row_id": spec.row.id,
        "base_image": spec.base_image,
        "python": spec.python,
        "venv": VENV,
        "user": USER,
        "uid": USER_UID,
        "python_env": spec.python_env,
        "context_files": sorted(requirements_files(spec)),
        "wheelhouse": spec.wheelhouse is not None and spec.wheel_url is None,  # COPY wheels/
        "framework_source": framework_source(spec),
        "extra_requirements": bool(spec.extra_requirements),
        "extra_source": extra_source(spec),
        "labels": spec.labels,
        "runtime_env": spec.runtime_env,
    }


def _dq(value: object) -> str:
    """A double-quoted Dockerfile word (JSON escaping is what the Dockerfile parser reads)."""
    text = str(value)
    if any(ch in text for ch in "\n\r"):
        raise RenderError(f"value {text!r} holds a line break and cannot go into a Dockerfile")
    return json.dumps(text)


@functools.lru_cache(maxsize=8)
def _environment(template_dir: Path) -> jinja2.Environment:
    """One environment per template folder: it keeps the compiled template (compiling is most
    of `render --all`'s time) and recompiles when the file changes (auto_reload)."""
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template_dir)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=True,
    )
    env.filters["dq"] = _dq
    return env


def render_dockerfile(spec: ImageSpec, template_dir: Path) -> str:
    """The Dockerfile text for `spec`.

    Raises:
        RenderError: the template is missing or malformed, or it uses a value the spec does not
            provide (StrictUndefined).
    """
    import jinja2

    try:
        template = _environment(template_dir).get_template(TEMPLATE_NAME)
        return template.render(**template_values(spec))
    except jinja2.TemplateNotFound:
        raise RenderError(
            f"template {template_dir / TEMPLATE_NAME} not found",
            hint="reinstall gpudoctor, or point at a folder holding Dockerfile.j2",
        ) from None
    except jinja2.TemplateError as exc:
        where = f" (line {exc.lineno})" if isinstance(exc, jinja2.TemplateSyntaxError) else ""
        raise RenderError(
            f"template {template_dir / TEMPLATE_NAME}{where}: {exc.message or exc}",
            hint="fix the template; every value it uses comes from render.template_values",
        ) from None
