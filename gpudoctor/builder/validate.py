"""Validators for every user value that reaches the Dockerfile or the build context.

Each returns the value (normalised where that is safe) or raises UsageError naming the option,
the bad value and the fix. The rule for all of them: nothing shell-significant ever reaches a
RUN line; pip requirements reach the image through a requirements file, never the command line.
"""

from __future__ import annotations

import re

from gpudoctor.errors import UsageError

# Characters a shell (or a Dockerfile parser) gives meaning to. Values holding any of them are
# refused outright instead of being quoted: a quoted value is one escaping bug from an injection.
_SHELL_SIGNIFICANT = frozenset("'\"`$;&|<>()\\\n\r\t {}*?!#~")

# distribution/reference grammar (github.com/distribution/reference, reference.go), without
# IPv6 hosts. A domain needs a dot, a colon (port) or to be "localhost" to count as one.
_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN = rf"{_DOMAIN_COMPONENT}(?:\.{_DOMAIN_COMPONENT})*(?::[0-9]+)?"
_NAME = rf"(?:{_DOMAIN}/)?{_COMPONENT}(?:/{_COMPONENT})*"
_TAG = r"[\w][\w.-]{0,127}"
_DIGEST = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}"
_REFERENCE = re.compile(rf"^(?P<name>{_NAME})(?::(?P<tag>{_TAG}))?(?:@(?P<digest>{_DIGEST}))?$")
_NAME_MAX = 255

_PYTHON = re.compile(r"^3\.\d{1,2}$")
_BUILD_ARG_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# The name-extras-specifier part of a PEP 508 requirement, without spaces: "torch==2.5.1",
# "tensorflow[and-cuda]>=2.15,<2.16".
_REQUIREMENT_HEAD = re.compile(
    r"^[A-Za-z0-9][A-Za-z0-9._-]*(?:\[[A-Za-z0-9._,-]+\])?[<>=!~.,*+A-Za-z0-9_-]*$"
)
_URL_SAFE = re.compile(r"^[A-Za-z0-9._~:/?#\[\]@!&'()*+,;=%-]+$")


def _refuse(option: str, value: str, why: str, fix: str) -> UsageError:
    return UsageError(f"{option} {value!r}: {why}", hint=fix)


def _check_plain(option: str, value: str, fix: str) -> None:
    bad = sorted({ch for ch in value if ch in _SHELL_SIGNIFICANT or not ch.isprintable()})
    if bad:
        shown = " ".join(repr(ch) for ch in bad)
        raise _refuse(option, value, f"contains shell-significant characters ({shown})", fix)


def python_version(value: str, option: str = "--python") -> str:
    if not _PYTHON.fullmatch(value):
        raise _refuse(
            option, value, "is not a Python version of the form 3.X", f"use {option} 3.11"
        )
    return value


def image_reference(value: str, option: str) -> str:
    """A docker image reference: name[:tag][@digest]; returns it unchanged."""
    _check_plain(option, value, f"use {option} registry.example.com/team/image:tag")
    match = _REFERENCE.fullmatch(value)
    if match is None or len(match.group("name")) > _NAME_MAX or _bad_first(match.group("name")):
        raise _refuse(
            option,
            value,
            "is not a valid image reference (lower-case name, optional :tag, optional @sha256:...)",
            f"use {option} registry.example.com/team/image:tag",
        )
    return value


def _bad_first(name: str) -> bool:
    """A first component counts as a registry host only with a dot, a port or as localhost;
    otherwise it is a path component and must be lower case (docker: "must be lowercase")."""
    first, sep, _ = name.partition("/")
    if not sep or "." in first or ":" in first or first == "localhost":
        return False
    return re.fullmatch(_COMPONENT, first) is None


def image_tag(value: str, option: str = "--tag") -> str:
    """A name to tag a build with: a reference without a digest."""
    image_reference(value, option)
    if "@" in value:
        raise _refuse(option, value, "a tag cannot carry a digest", f"use {option} name:tag")
    return value


def reference_is_pinned(reference: str) -> bool:
    match = _REFERENCE.fullmatch(reference)
    return bool(match and match.group("digest"))


def split_reference(reference: str) -> tuple[str, str | None]:
    """(repository, tag) of a validated reference without a digest; tag None when absent."""
    match = _REFERENCE.fullmatch(reference)
    if match is None:
        raise ValueError(f"not a validated reference: {reference!r}")
    return match.group("name"), match.group("tag")


def build_arg(value: str) -> tuple[str, str]:
    """KEY=VALUE for --build-arg; the value may be empty but holds nothing shell-significant."""
    key, sep, arg = value.partition("=")
    if not sep or not _BUILD_ARG_NAME.fullmatch(key):
        raise _refuse(
            "--build-arg",
            value,
            "is not KEY=VALUE with KEY a letter or _ then letters, digits or _",
            "use --build-arg HTTPS_PROXY=http://proxy.example:3128",
        )
    _check_plain("--build-arg", value, "use plain values without quotes, spaces or $")
    return key, arg


def index_url(value: str, option: str = "--index-url") -> str:
    """A pip index URL: http, https or file, nothing a shell would act on."""
    fix = f"use {option} https://download.pytorch.org/whl/cu124"
    scheme, sep, rest = value.partition("://")
    if not sep or scheme not in ("https", "http", "file") or not rest:
        raise _refuse(option, value, "is not an http(s):// or file:// URL", fix)
    _check_plain(option, value, fix)
    if not _URL_SAFE.fullmatch(value):
        raise _refuse(option, value, "holds characters a URL does not", fix)
    if "@" in rest.split("/", 1)[0]:
        # The index reaches pip as a build argument and a label, so credentials would be kept in
        # the image's history for anyone who pulls it. docker-py drives the classic builder,
        # which has no build secrets (BuildKit's --secret), so the only safe answer is no.
        raise UsageError(
            f"{option} holds credentials (user:password@), which would be stored in the "
            "image's history and labels for anyone who pulls it",
            hint="download the wheels first (`pip download --index-url URL -d wheels ...`) and "
            "build with --wheelhouse wheels, or use a mirror that needs no credentials in the "
            "URL; for BuildKit secrets, `gpudoctor render` the Dockerfile and build with "
            "`docker buildx build --secret`",
        )
    return value


def pip_requirement(value: str) -> str:
    """A PEP 508 requirement by name (no URL, no path, no pip option), returned normalised.

    The part before the marker must be free of spaces and shell characters; an environment marker
    (after ';') may hold quotes and spaces, because requirements reach pip through a file, but
    never $, backticks, backslashes or line breaks.
    """
    from packaging.requirements import InvalidRequirement, Requirement

    fix = "use --pip 'name==1.2.3' (a PyPI project name with an optional version specifier)"
    head, sep, marker = value.partition(";")
    if not _REQUIREMENT_HEAD.fullmatch(head.strip() if sep else head):
        raise _refuse("--pip", value, "is not a plain requirement (name[extras]specifier)", fix)
    if sep and any(ch in marker for ch in "$`\\\n\r"):
        raise _refuse("--pip", value, "the marker holds shell-significant characters", fix)
    try:
        req = Requirement(value)
    except InvalidRequirement as exc:
        why = str(exc).splitlines()[0] if str(exc) else "unparseable"
        raise _refuse("--pip", value, f"is not a PEP 508 requirement ({why})", fix) from None
    if req.url:
        raise _refuse("--pip", value, "URL and path requirements are not allowed", fix)
    return str(req)
