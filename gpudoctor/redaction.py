"""The one redaction rule for text gpudoctor shows or records: URL credentials, secrets and user
names.

Neutral (every layer may use it): the probes apply it to every recorded string, the matrix
updater and the builder to every URL they print, the CLI to every error line and hint, and the
reporters to every finding.

- `user:password@` of a URL is removed, up to the authority's *last* `@` (as urllib and pip
  split it), so a password holding `@` never leaves its tail behind as part of the host name;
- secrets (`secrets_removed`): the value of a variable, option or key whose name says it is one
  (`HF_TOKEN=`, `AWS_SECRET_ACCESS_KEY=`, `password:`, `client-key-data:`, `"auth":`), the
  credentials of an `Authorization:` header, the password of a `docker login -p`, and tokens
  known by their own shape wherever they stand (NGC `nvapi-`, Hugging Face `hf_`, AWS key ids,
  GitHub, GitLab and OpenAI keys, JSON web tokens as kubeconfigs hold them); the facts read
  from a pasted report are cleared of them, and every finding and error line before it is
  shown;
- the user name of a home directory (`/home/alice/...` -> `/home/<user>/...`) and a login's
  `/run/user/1000` (-> `/run/user/<uid>`) are replaced.
"""

from __future__ import annotations

import re
import urllib.parse

from gpudoctor.needles import any_needle

# scheme://, then the authority up to its last '@' (greedy, stopping at the path, query,
# fragment or a space): everything before that '@' is userinfo.
_CREDENTIALS = re.compile(r"(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*://)[^/?#\s]*@")
_HOME = re.compile(r"(?P<base>/(?:home|Users)/)(?P<user>[^/\s:'\"]+)")
_RUN_USER = re.compile(r"/run/user/\d+")


_REDACTED = "<redacted>"
# A name that says its value is secret: the keyword ends a word ("HF_TOKEN", "client-secret",
# "db_password"), never sits inside one ("tokenizer", "max_tokens", "author"); then `=`, `:` or
# `": "`, and the value up to a space or a quote. The keyword leads the pattern, so a match is
# tried only where one begins (linear time on a line of any length).
_NAMED = re.compile(
    r"(?P<name>(?:token|secret|passw(?:or)?d|passphrase|api[_-]?key|access[_-]?key"
    r"|private[_-]?key|key[_-]data|credentials?|auth)"
    r"(?![A-Za-z0-9])[\"']?[ \t]{0,4}[=:][ \t]{0,4}[\"']?)"
    r"(?P<value>(?![\"'<])[^\s\"',;]{1,4096})",
    re.IGNORECASE,
)
_HEADER = re.compile(
    r"(?P<name>authorization[\"']?[ \t]{0,4}[=:][ \t]{0,4}[\"']?"
    r"(?:(?:bearer|basic|token|digest)[ \t]{1,4})?)(?P<value>(?!<)[^\s\"',;]{1,4096})",
    re.IGNORECASE,
)
# `docker login -p SECRET`, `--password SECRET`, `--password=SECRET` (podman, helm and nerdctl
# take the same options); only on a line that logs in, where `-p` is never a port.
_LOGIN_PASSWORD = re.compile(
    r"(?P<name>(?<!\S)(?:-p|--password)(?:=|[ \t]{1,4}))(?P<value>(?![-<])[^\s\"']{1,4096})"
)
_ECHOED = re.compile(
    r"(?P<name>(?<![A-Za-z0-9])(?:echo|printf)[ \t]{1,4}(?:-n[ \t]{1,4})?)"
    r"(?P<value>(?!<)[^\s|]{1,4096})"
)
# Tokens known by their own shape, wherever they stand.
_SHAPED = re.compile(
    r"(?<![A-Za-z0-9])(?:nvapi-[A-Za-z0-9_-]{16,}|hf_[A-Za-z0-9]{20,}|(?:AKIA|ASIA)[0-9A-Z]{16}"
    r"|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{16,}"
    r"|sk-[A-Za-z0-9_-]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}"
    r"|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{0,4096})"
)
# Lower-case words every secret above holds: the regexes run only on the lines holding one.
_NEEDLES = (
    "token",
    "secret",
    "passw",
    "passphrase",
    "key",
    "credential",
    "auth",
    "login",
    "nvapi-",
    "hf_",
    "akia",
    "asia",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "glpat-",
    "sk-",
    "xox",
    "eyj",
)


def secrets_removed(value: str) -> str:
    """`value` with URL credentials and every secret it states replaced by `<redacted>`; the
    line structure (and so every line number) is kept."""
    value = url_without_credentials(value)
    # one character per character (str.lower lengthens some, which would shift the offsets)
    lower = value.encode("ascii", "replace").decode("ascii").lower()
    if not _holds_needle(lower):
        return value
    if "\n" not in value:
        return _line_without_secrets(value, lower)
    # A long paste: the regexes run only on the lines that hold a needle (str.find is C
    # speed; a case-blind regex tried at every position of 60 MB is not).
    spans: set[tuple[int, int]] = set()
    for needle in _NEEDLES:
        pos = lower.find(needle)
        while pos != -1:
            start = lower.rfind("\n", 0, pos) + 1
            end = lower.find("\n", pos)
            end = len(lower) if end == -1 else end
            spans.add((start, end))
            pos = lower.find(needle, end)
    parts, done = [], 0
    for start, end in sorted(spans):
        parts += [value[done:start], _line_without_secrets(value[start:end], lower[start:end])]
        done = end
    parts.append(value[done:])
    return "".join(parts)


def may_hold_secrets(value: str) -> bool:
    """False when `value` holds no secret `secrets_removed` would remove (a fast test: a text
    without one needs no further look)."""
    return "://" in value or _holds_needle(value.lower())


def _holds_needle(lower: str) -> bool:
    if len(lower) < _ONE_PASS_FROM:
        return any(needle in lower for needle in _NEEDLES)
    return any_needle(lower, _NEEDLES).search(lower) is not None  # one pass, not one per needle


_ONE_PASS_FROM = 1 << 18  # characters: below this a find per needle costs less than the pattern


def _line_without_secrets(line: str, lower: str) -> str:
    line = _NAMED.sub(_keep_name, line)
    if "authorization" in lower:
        line = _HEADER.sub(_keep_name, line)
    if "login" in lower:
        line = _LOGIN_PASSWORD.sub(_keep_name, line)
    if "password-stdin" in lower:  # `echo SECRET | docker login --password-stdin`
        line = _ECHOED.sub(_keep_name, line)
    return _SHAPED.sub(_REDACTED, line)


def _keep_name(found: re.Match[str]) -> str:
    return found.group("name") + _REDACTED


def url_without_credentials(value: str) -> str:
    """`value` with the `user:password@` of every URL in it removed (error texts too)."""
    return _CREDENTIALS.sub(r"\g<scheme>", value) if "://" in value else value


def text(value: str) -> str:
    """A string without URL credentials, secrets or home-directory user names."""
    value = secrets_removed(value)
    if "/" not in value:
        return value
    value = _HOME.sub(r"\g<base><user>", value)
    return _RUN_USER.sub("/run/user/<uid>", value)


def split_credentials(url: str) -> tuple[str, str | None, str | None]:
    """(the URL without its userinfo, user, password), both percent-decoded as pip does;
    (url, None, None) when it holds none."""
    parts = urllib.parse.urlsplit(url)
    if "@" not in parts.netloc:
        return url, None, None
    userinfo, _, host = parts.netloc.rpartition("@")
    user, sep, password = userinfo.partition(":")
    clean = urllib.parse.urlunsplit(parts._replace(netloc=host))
    return (
        clean,
        urllib.parse.unquote(user),
        urllib.parse.unquote(password) if sep else None,
    )
