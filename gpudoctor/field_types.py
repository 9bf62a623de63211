"""The field types of a dataclass, on every supported Python.

Modules here use `from __future__ import annotations`, so annotations are strings such as
`"int | None"`. `typing.get_type_hints` evaluates them with `eval`, where `int | None` raises
before Python 3.10; this reads the same strings with the `ast` module instead, taking `A | B`
as `Union[A, B]`, so one code path serves Python 3.9 to the newest.
"""

from __future__ import annotations

import ast
import builtins
import sys
from typing import Any, Union


def field_types(cls: type) -> dict[str, Any]:
    """Every annotated name of `cls` and its bases, evaluated in the module that wrote it."""
    hints: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        namespace = vars(sys.modules[klass.__module__])
        # The class's own annotations, not inherited ones (inspect.get_annotations is 3.10+).
        own = klass.__dict__.get("__annotations__", {})  # noqa: RUF063
        for name, annotation in own.items():
            text = annotation if isinstance(annotation, str) else None
            hints[name] = annotation if text is None else evaluate(text, namespace)
    return hints


def evaluate(text: str, namespace: dict[str, Any]) -> Any:
    """The type an annotation string names; TypeError for anything but a type expression."""
    return _node(ast.parse(text, mode="eval").body, namespace)


def _node(node: ast.expr, namespace: dict[str, Any]) -> Any:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return Union[_node(node.left, namespace), _node(node.right, namespace)]
    if isinstance(node, ast.Subscript):
        base = _node(node.value, namespace)
        inner = node.slice
        if isinstance(inner, ast.Tuple):
            return base[tuple(_node(e, namespace) for e in inner.elts)]
        return base[_node(inner, namespace)]
    if isinstance(node, ast.Constant) and (node.value is None or node.value is Ellipsis):
        return node.value
    if isinstance(node, ast.Name):
        return namespace[node.id] if node.id in namespace else getattr(builtins, node.id)
    if isinstance(node, ast.Attribute):
        return getattr(_node(node.value, namespace), node.attr)
    raise TypeError(f"not a type expression: {ast.dump(node)}")
