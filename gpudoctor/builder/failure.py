"""A failed build step, explained with the options that fix it.

`engine.follow_build` knows the step and its log; this module knows the spec and the user's
options, so the hint can name what to change: a base image that is not there (pull or load it,
or --base-image when none was given), an index the build cannot reach (--download-wheels then
--wheelhouse, or --index-url), a wheelhouse that lacks a wheel (--download-wheels).
"""

from __future__ import annotations

import re

from gpudoctor.builder.activity import clean
from gpudoctor.builder.spec import BuildOptions, ImageSpec
from gpudoctor.errors import BuildFailed

# pip's words for an index it could not reach (requests/urllib3 under pip, pip 20-25).
_UNREACHABLE = re.compile(
    r"Failed to establish a new connection|Temporary failure in name resolution|"
    r"Name or service not known|Network is unreachable|No route to host|"
    r"Max retries exceeded|Could not fetch URL|ConnectTimeoutError|ReadTimeoutError|"
    r"connection timed out",
    re.IGNORECASE,
)
_NO_DISTRIBUTION = re.compile(
    r"No matching distribution found for (\S+)|"
    r"Could not find a version that satisfies the requirement (\S+)"
)
DOWNLOAD = "gpudoctor build ... --download-wheels DIR"


def explain_failure(exc: BuildFailed, spec: ImageSpec, options: BuildOptions) -> BuildFailed:
    """The same failure with a hint naming the option that fixes it, and a clean log tail."""
    tail = tuple(clean(line, colour=False) for line in exc.log_tail)
    hint = _hint(exc.step or "", tail, spec, options) or exc.hint
    return BuildFailed(exc.message, hint=hint, step=exc.step, log_tail=tail)


def _hint(step: str, tail: tuple[str, ...], spec: ImageSpec, options: BuildOptions) -> str | None:
    if " : FROM " in step:  # the classic builder pulls a missing base in its FROM step
        return base_image_hint(spec.base_image, given=options.base_image is not None)
    text = "\n".join(tail)
    missing = _NO_DISTRIBUTION.search(text)
    wanted = (missing.group(1) or missing.group(2)) if missing else None
    if spec.wheelhouse is not None and wanted:
        return (
            f"the wheelhouse {spec.wheelhouse} has no wheel for {wanted} (Python {spec.python}, "
            f"{spec.platform}): fill it with `{DOWNLOAD}` (the same build options, "
            f"DIR={spec.wheelhouse}) where the index is reachable"
        )
    if _UNREACHABLE.search(text):
        index = spec.index_url or "https://pypi.org/simple"
        return (
            f"the build could not reach the package index {index}: build offline instead, "
            f"`{DOWNLOAD}` where the index is reachable, then the same build with "
            f"--wheelhouse DIR here; or give --index-url URL of a mirror this build reaches"
        )
    if wanted:
        index = spec.index_url or "https://pypi.org/simple"
        return (
            f"the index {index} has no {wanted} for Python {spec.python} on {spec.platform}: "
            f"give --index-url URL of an index that has it, or build from a wheelhouse "
            f"(`{DOWNLOAD}`, then --wheelhouse DIR)"
        )
    return None


def base_image_hint(base: str, *, given: bool) -> str:
    """A FROM that failed: the base is neither on the daemon nor pullable from here."""
    if given:
        return (
            f"image {base} is not on this Docker daemon and could not be pulled: `docker pull "
            f"{base}` where its registry is reachable, or `docker load -i FILE.tar` (a "
            f"`docker save` of it); `docker images` lists what is here"
        )
    return (
        f"the base image {base} could not be pulled: `docker pull` it where a registry is "
        f"reachable (or `docker load` a saved copy), or pass --base-image REF (a mirror or a "
        f"locally loaded image)"
    )
