"""Read what a built image holds, for `check --image`: its io.gpudoctor.* labels, else its
framework read by one bounded `docker run --rm` (without importing it: torch/version.py and the
installed distributions' metadata). Failures are recorded in the facts, never raised, except an
unreachable daemon (EnvironmentUnavailable, exit 3) and an image that is not there (UsageError).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from gpudoctor import versions
from gpudoctor.compat.image import ImageFacts
from gpudoctor.errors import UsageError
from gpudoctor.image_labels import LABEL_PREFIX
from gpudoctor.verify_report import text

if TYPE_CHECKING:
    from gpudoctor.docker.engine import ImageEngine

RUN_TIMEOUT_S = 60.0
MAX_REPORT_CHARS = 64 << 10  # the snippet's report line is under 200 characters
MARKER = "GPUDOCTOR-IMAGE "
# Runs inside the image with its own python3: standard library only, Python 3.8+ syntax.
_SNIPPET = r"""
import importlib.metadata as m, importlib.util as u, json, os, re
def dist(*names):
    for name in names:
        try:
            return m.version(name)
        except m.PackageNotFoundError:
            pass
out = {"framework": None}
try:
    spec = u.find_spec("torch")
    if spec and spec.origin:
        text = open(os.path.join(os.path.dirname(spec.origin), "version.py")).read()
        v = re.search(r"__version__\s*=\s*['\"]([^'\"]+)", text)
        c = re.search(r"^cuda\s*(?::\s*\S+\s*)?=\s*['\"]([^'\"]+)", text, re.M)
        out = {"framework": "pytorch", "version": v and v.group(1), "cuda": c and c.group(1)}
    elif u.find_spec("tensorflow") is not None:
        v = dist("tensorflow", "tensorflow-gpu", "tensorflow-cpu", "tf-nightly")
        out = {"framework": "tensorflow", "version": v}
except Exception as exc:
    out = {"error": str(exc) or "reading it failed"}
print("GPUDOCTOR-IMAGE " + json.dumps(out))
"""


def probe_image(engine: ImageEngine, reference: str) -> ImageFacts:
    info = engine.inspect(reference)
    if info is None:
        raise UsageError(
            f"image {reference} is not on this Docker daemon",
            hint=f"pull it first (`docker pull {reference}`), or build it with gpudoctor build",
        )
    env = dict(e.partition("=")[::2] for e in info.env if isinstance(e, str))
    require = env.get("NVIDIA_REQUIRE_CUDA")
    # The image's author wrote its labels: only text values count.
    labels = {k: v for k, v in info.labels.items() if isinstance(k, str) and isinstance(v, str)}
    platform = labels.get(LABEL_PREFIX + "platform") or (
        f"linux/{info.architecture}" if info.architecture else None
    )
    if LABEL_PREFIX + "framework" in labels:
        arch = labels.get(LABEL_PREFIX + "arch-list", "")
        return ImageFacts(
            reference=reference,
            source="labels",
            framework=labels.get(LABEL_PREFIX + "framework"),
            version=labels.get(LABEL_PREFIX + "framework-version"),
            cuda=labels.get(LABEL_PREFIX + "cuda"),
            arch_list=tuple(a for a in arch.split(",") if a) or None,
            require_cuda=require,
            platform=platform,
        )
    result = engine.run(reference, ["python3", "-c", _SNIPPET], gpus=False, timeout=RUN_TIMEOUT_S)
    line = next((x for x in result.stdout.splitlines() if x.startswith(MARKER)), None)
    if line is None:
        error = _no_report(result.exit_code, result.stderr or result.stdout)
        return ImageFacts(reference, "run", require_cuda=require, error=error, platform=platform)
    data = _report(line[len(MARKER) :])
    if isinstance(data, str):  # the image printed a report line gpudoctor cannot read
        return ImageFacts(reference, "run", require_cuda=require, error=data, platform=platform)
    version = text(data.get("version"))
    framework = text(data.get("framework"))
    return ImageFacts(
        reference=reference,
        source="run",
        framework=framework if framework in ("pytorch", "tensorflow") else None,
        version=version.partition("+")[0] if version else None,
        cuda=_major_minor(text(data.get("cuda"))),
        require_cuda=require,
        error=text(data.get("error")),
        platform=platform,
    )


def _no_report(exit_code: int, output: str) -> str:
    """Why the image's python3 gave no report, in words: its last line without a Python
    exception's class name (an image without python3, or one older than 3.8)."""
    lines = [x.strip() for x in output.strip().splitlines() if x.strip()]
    last = re.sub(r"^[A-Za-z_.]*(Error|Exception|Exit): ", "", lines[-1])[:200] if lines else ""
    if exit_code == 127:
        return f"the image has no python3 to read it with ({last or 'not found'})"
    return f"python3 in the image exited {exit_code} without a report" + (
        f": {last}" if last else ""
    )


def _report(raw: str) -> dict[str, Any] | str:
    """The in-image probe's JSON object, or why it is unreadable (the image may print any
    JSON: a list, a number, nesting without end, strings of megabytes)."""
    try:
        data = json.loads(raw[:MAX_REPORT_CHARS])
    except (ValueError, RecursionError):
        return "unreadable report from the image (not a JSON object gpudoctor wrote)"
    if not isinstance(data, dict):
        return f"unreadable report from the image (a JSON {type(data).__name__}, not an object)"
    return data


def _major_minor(text: object) -> str | None:
    return versions.major_minor(text, pad=False) if isinstance(text, str) else None
