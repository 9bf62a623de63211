"""A package index read through the simple repository API that pip uses: PEP 691 JSON when the
index offers it, PEP 503 HTML otherwise; PEP 658 metadata files where served.

The default index is pip's own: PIP_INDEX_URL, else `index-url` from pip's configuration files
(global, then download sections), else PyPI, so `matrix update` works behind a mirror.
"""

from __future__ import annotations

import configparser
import json
import os
import stat
import sys
import urllib.parse
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from gpudoctor import versions
from gpudoctor.errors import EnvironmentUnavailable
from gpudoctor.netread import PAGE_CAP, Client
from gpudoctor.redaction import split_credentials
from gpudoctor.wheels import remote

PYPI = "https://pypi.org/simple"
_ACCEPT = (
    "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, "
    "text/html;q=0.01"
)


class MalformedIndexPage(EnvironmentUnavailable):
    """The index answered, but not with a simple-API page gpudoctor can read."""

    default_reference = "malformed-index-page"


@dataclass(frozen=True)
class IndexFile:
    filename: str
    url: str  # absolute, without the #hash fragment
    requires_python: str | None = None
    metadata_url: str | None = None  # PEP 658/714: the wheel's METADATA alone
    yanked: bool = False


def normalize(name: str) -> str:
    """PEP 503 project name normalisation."""
    return versions.canonical_name(name)


def pip_config_files() -> list[Path]:
    """pip's configuration files, lowest priority first (pip's own order on Linux and macOS)."""
    home = Path.home()
    xdg_dirs = os.environ.get("XDG_CONFIG_DIRS", "/etc/xdg").split(":")
    files = [Path(d) / "pip" / "pip.conf" for d in xdg_dirs] + [Path("/etc/pip.conf")]
    xdg_home = Path(os.environ.get("XDG_CONFIG_HOME", home / ".config"))
    files += [home / ".pip" / "pip.conf", xdg_home / "pip" / "pip.conf"]
    if sys.prefix != sys.base_prefix:
        files.append(Path(sys.prefix) / "pip.conf")
    if os.environ.get("PIP_CONFIG_FILE"):
        files.append(Path(os.environ["PIP_CONFIG_FILE"]))
    return files


def pip_index_url(files: list[Path] | None = None) -> str:
    """The index pip would download from."""
    if os.environ.get("PIP_INDEX_URL"):
        return os.environ["PIP_INDEX_URL"].strip()
    found = PYPI
    for path in pip_config_files() if files is None else files:
        parser = configparser.RawConfigParser()
        text = _config_text(path)
        if text is None:
            continue
        try:
            parser.read_string(text, str(path))
        except configparser.Error:
            continue
        for section in ("global", "download"):
            if parser.has_option(section, "index-url"):
                found = parser.get(section, "index-url").strip()
    return found


_CONFIG_CAP = 1 << 20  # a pip.conf is a few lines


def _config_text(path: Path) -> str | None:
    """A pip configuration file's text, or None: missing, unreadable, not UTF-8, too large, or
    not a regular file (a FIFO planted as PIP_CONFIG_FILE would block the read forever)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as stream:
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            data = stream.read(_CONFIG_CAP + 1)
        except OSError:
            return None
    if len(data) > _CONFIG_CAP:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def project_url(index_url: str, project: str) -> str:
    """A project's page under an index, without the index's credentials."""
    clean, _user, _password = split_credentials(index_url)
    return f"{clean.rstrip('/')}/{normalize(project)}/"


def project_files(client: Client, index_url: str, project: str) -> list[IndexFile]:
    """Every file the index lists for a project (the page at most PAGE_CAP bytes)."""
    client.add_credentials(index_url)
    url = project_url(index_url, project)
    body, content_type, final_url = remote.get(client, url, accept=_ACCEPT, cap=PAGE_CAP)
    try:
        if "json" in content_type:
            return _from_json(body, final_url)
        return _from_html(body, final_url)
    except RecursionError:
        raise MalformedIndexPage(
            f"the index page {url} is nested too deeply to be a simple-API page",
            hint="point --index-url at a PEP 503/691 simple index",
        ) from None
    except (ValueError, KeyError, TypeError, UnicodeDecodeError, AssertionError) as exc:
        raise MalformedIndexPage(
            f"the index page {url} is not a simple-API page: {str(exc)[:200]}",
            hint="point --index-url at a PEP 503/691 simple index (the URL pip's --index-url "
            "takes, e.g. https://pypi.org/simple)",
        ) from exc


def _metadata_url(url: str, flag: object) -> str | None:
    return f"{url}.metadata" if flag not in (None, False) else None


def _from_json(body: bytes, base: str) -> list[IndexFile]:
    document = json.loads(body.decode("utf-8"))
    if not isinstance(document, dict) or not isinstance(document.get("files"), list):
        raise ValueError("no 'files' array")
    out = []
    for entry in document["files"]:
        if not isinstance(entry, dict) or not isinstance(entry.get("filename"), str):
            raise ValueError("a file entry has no 'filename'")
        if not isinstance(entry.get("url"), str):
            raise ValueError("a file entry has no 'url'")
        url = urllib.parse.urljoin(base, entry["url"]).split("#")[0]
        metadata = entry.get("core-metadata", entry.get("dist-info-metadata"))
        requires = entry.get("requires-python")
        out.append(
            IndexFile(
                filename=entry["filename"],
                url=url,
                requires_python=requires if isinstance(requires, str) else None,
                metadata_url=_metadata_url(url, metadata),
                yanked=bool(entry.get("yanked")),
            )
        )
    return out


class _Anchors(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.anchors: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self.anchors.append(dict(attrs))


def _from_html(body: bytes, base: str) -> list[IndexFile]:
    text = body.decode("utf-8")
    if "<a" not in text.lower() and "<html" not in text.lower():
        raise ValueError("neither HTML nor JSON")
    parser = _Anchors()
    parser.feed(text)
    out = []
    for attrs in parser.anchors:
        href = attrs.get("href")
        if not href:
            continue
        url = urllib.parse.urljoin(base, href).split("#")[0]
        filename = urllib.parse.unquote(url.rsplit("/", 1)[-1])
        has_metadata = any(k in attrs for k in ("data-core-metadata", "data-dist-info-metadata"))
        flag = attrs.get("data-core-metadata") or attrs.get("data-dist-info-metadata")
        out.append(
            IndexFile(
                filename=filename,
                url=url,
                requires_python=attrs.get("data-requires-python"),
                metadata_url=f"{url}.metadata" if has_metadata and flag != "false" else None,
                yanked="data-yanked" in attrs,
            )
        )
    return out
