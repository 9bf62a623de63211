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
        name = str(op)
        if name in _REPEATS:
            low, high, body = arg
            del low
            repeats = high is _sre.MAXREPEAT or high > 1
            if repeats and inside_repeat:
                return "a repeated part inside another repeat (nested quantifier, like (a+)+)"
            if repeats and _has_branch(list(body)):
                return "a repeat over an alternation (like (a|b)*): use a character class"
            found = _walk(list(body), inside_repeat=inside_repeat or repeats)
            if found:
                return found
        elif name == "SUBPATTERN":
            found = _walk(list(arg[-1]), inside_repeat=inside_repeat)
            if found:
                return found
        elif name == "BRANCH":
            for branch in arg[1]:
                found = _walk(list(branch), inside_repeat=inside_repeat)
                if found:
                    return found
        elif name in ("ASSERT", "ASSERT_NOT"):
            found = _walk(list(arg[1]), inside_repeat=inside_repeat)
            if found:
                return found
        elif name in ("GROUPREF", "GROUPREF_EXISTS"):
            return "a back-reference (it cannot be matched in linear time)"
        elif name == "ATOMIC_GROUP":
            found = _walk(list(arg), inside_repeat=inside_repeat)
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
