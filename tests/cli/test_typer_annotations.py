"""Typer reads each command's signature at run time. Before Python 3.10 it cannot see the
`Annotated[..., typer.Option(...)]` inside string annotations, so a command module with
`from __future__ import annotations` silently loses its option names there (`--from` became
`--from-files`). This pins the rule on every Python, not only where CI runs the oldest one."""

from __future__ import annotations

import ast
from pathlib import Path

import gpudoctor.cli

CLI = Path(gpudoctor.cli.__file__).parent


def _declares_options(annotation: ast.expr) -> bool:
    """An annotation that carries typer metadata: Annotated[..., typer.Option(...)] or one of the
    option aliases (names ending in Opt, as in cli/build_options.py)."""
    for node in ast.walk(annotation):
        if isinstance(node, ast.Attribute) and node.attr in {"Option", "Argument"}:
            return True
        name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
        if isinstance(name, str) and name.endswith("Opt"):
            return True
    return False


def _command_modules() -> list[Path]:
    found = []
    for path in sorted(CLI.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
        if any(
            a.annotation is not None and _declares_options(a.annotation)
            for f in functions
            for a in (*f.args.args, *f.args.kwonlyargs)
        ):
            found.append(path)
    return found


def _future_annotations(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(
        isinstance(n, ast.ImportFrom)
        and n.module == "__future__"
        and any(a.name == "annotations" for a in n.names)
        for n in tree.body
    )


def test_command_modules_are_found() -> None:
    names = {p.stem for p in _command_modules()}
    assert {"check_cmd", "build_cmd", "snapshot_cmd", "matrix_cmd", "render_cmd"} <= names


def test_no_command_module_stringifies_its_annotations() -> None:
    offenders = [p.name for p in _command_modules() if _future_annotations(p)]
    assert offenders == [], f"drop `from __future__ import annotations` from {offenders}"
