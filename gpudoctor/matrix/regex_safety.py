"""A conservative static check that a regular expression cannot backtrack catastrophically.

Patterns of the signature catalogue (matrices/signatures.toml) run over every line of pasted
logs that may be megabytes long, in Python's backtracking engine. Exponential blow-up needs a
repeated part that can match the same text in more than one way: a quantifier over something
that itself repeats (`(a+)+`, `(\\w*\\s?)*`) or over an alternation (`(a|a)*`). This check
refuses every such shape, whether or not the branches really overlap (conservative: a
safe-but-refused pattern can always be rewritten with bounded classes), and refuses
back-references. It reads the parsed pattern (`re`'s own parser), never runs it.
"""

from __future__ import annotations

import re
from typing import Any

try:  # Python 3.11+ moved the parser under re; 3.9 and 3.10 keep it as sre_parse
    from re import _parser as _sre  # type: ignore[attr-defined, unused-ignore]
except ImportError:  # pragma: no cover - Python < 3.11
    import sre_parse as _sre  # type: ignore[no-redef, unused-ignore]

_REPEATS = ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")


def problem(pattern: str) -> str | None:
    """Why `pattern` is refused (invalid, or a nested/alternated repeat), or None when it is
    safe."""
    try:
        parsed = _sre.parse(pattern)
    except (re.error, RecursionError, OverflowError) as exc:
        return f"not a valid regular expression: {exc}"
    return _walk(list(parsed), inside_repeat=False)


def _walk(items: list[Any], *, inside_repeat: bool) -> str | None:
    for op, arg in items:
        found = _item(str(op), arg, inside_repeat=inside_repeat)
        if found:
            return found
    return None


def _item(name: str, arg: Any, *, inside_repeat: bool) -> str | None:
    """The problem of one parsed item, or None; sub-patterns are walked with the same rule."""
    if name in ("GROUPREF", "GROUPREF_EXISTS"):
        return "a back-reference (it cannot be matched in linear time)"
    if name in _REPEATS:
        _, high, body = arg
        repeats = high is _sre.MAXREPEAT or high > 1
        if repeats and inside_repeat:
            return "a repeated part inside another repeat (nested quantifier, like (a+)+)"
        if repeats and _has_branch(list(body)):
            return "a repeat over an alternation (like (a|b)*): use a character class"
        return _walk(list(body), inside_repeat=inside_repeat or repeats)
    bodies: list[Any] = []
    if name == "SUBPATTERN":
        bodies = [arg[-1]]
    elif name == "BRANCH":
        bodies = list(arg[1])
    elif name in ("ASSERT", "ASSERT_NOT"):
        bodies = [arg[1]]
    elif name == "ATOMIC_GROUP":
        bodies = [arg]
    for body in bodies:
        found = _walk(list(body), inside_repeat=inside_repeat)
        if found:
            return found
    return None


def _has_branch(items: list[Any]) -> bool:
    for op, arg in items:
        name = str(op)
        if name == "BRANCH":
            return True
        if name == "SUBPATTERN" and _has_branch(list(arg[-1])):
            return True
    return False
