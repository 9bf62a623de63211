"""The package's layering, read from the source (every import: module level, in functions and
under TYPE_CHECKING): no import cycle anywhere inside gpudoctor, and no layer importing one it
must not (checks are pure functions of facts and matrix, so they never reach for probes)."""

from __future__ import annotations

import ast
from pathlib import Path

import gpudoctor

PACKAGE = Path(gpudoctor.__file__).parent

# layer -> the layers it must not import
FORBIDDEN = {
    "checks": ("probes", "cli"),
    "compat": ("checks", "probes", "cli", "builder", "report"),
    "matrix": ("checks", "probes", "cli", "builder"),
    "report": ("probes", "cli", "builder"),
    # serve's schedule and HTTP side take the judge as a parameter: cli/serve_cmd.py wires probes.
    "exporter": ("probes", "cli", "builder"),
}
# The docs generator documents the builder's verify codes beside the check codes.
ALLOWED = {("gpudoctor.cli.docgen", "gpudoctor.builder.verify_codes")}


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = ("gpudoctor", *path.relative_to(PACKAGE).with_suffix("").parts)
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def import_graph() -> dict[str, set[str]]:
    """module -> the gpudoctor modules it imports (`from a.b import c` counts as a.b.c when c is
    a module, else as a.b)."""
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [
                    f"{node.module}.{a.name}"
                    if f"{node.module}.{a.name}" in modules
                    else node.module
                    for a in node.names
                ]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            graph[name].update(t for t in targets if t in modules and t != name)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_inside_gpudoctor() -> None:
    assert cycles(import_graph()) == []


def test_no_layer_imports_one_it_must_not() -> None:
    wrong = []
    for module, targets in import_graph().items():
        layer = module.split(".")[1] if module.count(".") >= 1 else ""
        for target in targets:
            other = target.split(".")[1] if target.count(".") >= 1 else ""
            if other in FORBIDDEN.get(layer, ()) and (module, target) not in ALLOWED:
                wrong.append(f"{module} -> {target}")
    assert wrong == []


def test_tests_import_helpers_only_from_tests_support() -> None:
    """No test imports a conftest or another test module: shared helpers live in tests/support
    (pytest runs with --import-mode=importlib, which does not put test folders on sys.path)."""
    tests = PACKAGE.parent / "tests"
    wrong = []
    for path in tests.rglob("*.py"):
        if "data" in path.relative_to(tests).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            for name in names:
                last = name.rsplit(".", 1)[-1]
                if last == "conftest" or last.startswith("test_"):
                    wrong.append(f"{path.relative_to(tests)}: {name}")
    assert wrong == []
