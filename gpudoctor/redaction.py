"""The one redaction rule for text gpudoctor shows or records: URL credentials and user names.

Neutral (every layer may use it): the probes apply it to every recorded string, the matrix
updater and the builder to every URL they print, the CLI to every error line and hint, and the
reporters to every finding.

- `user:password@` of a URL is removed, up to the authority's *last* `@` (as urllib and pip
  split it), so a password holding `@` never leaves its tail behind as part of the host name;
- the user name of a home directory (`/home/alice/...` -> `/home/<user>/...`) and a login's
  `/run/user/1000` (-> `/run/user/<uid>`) are replaced.
"""

from __future__ import annotations

import re
import urllib.parse

# scheme://, then the authority up to its last '@' (greedy, stopping at the path, query,
# fragment or a space): everything before that '@' is userinfo.
_CREDENTIALS = re.compile(r"(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*://)[^/?#\s]*@")
_HOME = re.compile(r"(?P<base>/(?:home|Users)/)(?P<user>[^/\s:'\"]+)")
_RUN_USER = re.compile(r"/run/user/\d+")


def url_without_credentials(value: str) -> str:
    """`value` with the `user:password@` of every URL in it removed (error texts too)."""
    return _CREDENTIALS.sub(r"\g<scheme>", value) if "://" in value else value


def text(value: str) -> str:
    """A string without URL credentials or home-directory user names."""
    if "/" not in value:
        return value
    value = url_without_credentials(value)
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
