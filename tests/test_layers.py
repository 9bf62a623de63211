"""The package's layering, read from the source (every import: module level, in functions and
under TYPE_CHECKING): no import cycle anywhere inside gpudoctor, and no import between packages
that the one declared order (ORDER, drawn in docs/architecture.md) does not allow."""

from __future__ import annotations

import ast
from pathlib import Path

import gpudoctor

PACKAGE = Path(gpudoctor.__file__).parent

# The package order: each package and the packages it may import. Every package may also import
# the foundation (the top-level modules: facts.py, findings.py, versions.py, ...), which imports
# no package. One order, drawn in docs/architecture.md ("Layers"), which must say the same: from
# the entry point down, each line names only packages on lines below it.
ORDER: dict[str, tuple[str, ...]] = {
    "__main__": ("cli",),
    "cli": (
        "builder",
        "checks",
        "compat",
        "docker",
        "exporter",
        "fleet_summary",
        "matrix",
        "pasted",
        "probes",
        "report",
        "wheels",
    ),
    # serve's schedule and HTTP side take the judge as a parameter: cli/serve_cmd.py wires probes.
    "exporter": ("checks", "report"),
    "builder": ("compat", "docker", "matrix", "probes"),
    # Reporters present a CheckRun (checks) and a fleet's summary; they never probe or build.
    "report": ("checks", "fleet_summary"),
    "fleet_summary": ("checks", "matrix", "pasted"),
    # Checks are pure functions of facts and matrix: they never reach for probes.
    "checks": ("compat", "matrix"),
    "pasted": ("matrix", "probes"),
    "probes": ("compat", "docker"),
    "compat": ("matrix",),
    "matrix": ("wheels",),
    "wheels": (),
    "docker": (),
}
FOUNDATION = "foundation"


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


def package_of(module: str) -> str:
    """gpudoctor.checks.gpu -> checks; a top-level module is the foundation, but for those that
    ORDER names (fleet_summary, __main__)."""
    parts = module.split(".")
    if len(parts) == 2 and parts[1] in ORDER:
        return parts[1]
    if len(parts) <= 2:
        return FOUNDATION
    return parts[1]


def wrong_edges(graph: dict[str, set[str]], order: dict[str, tuple[str, ...]]) -> list[str]:
    """Each import that crosses packages against `order`, named by its modules."""
    wrong = []
    for module, targets in sorted(graph.items()):
        here = package_of(module)
        allowed = {here, FOUNDATION, *order.get(here, ())} if here != FOUNDATION else {here}
        wrong += [
            f"{module} -> {target} ({here} -> {package_of(target)})"
            for target in sorted(targets)
            if package_of(target) not in allowed
        ]
    return wrong


def test_the_edge_finder_names_a_wrong_import() -> None:
    graph = {
        "gpudoctor.checks.gpu": {"gpudoctor.matrix.model", "gpudoctor.probes.nvml"},
        "gpudoctor.facts": {"gpudoctor.checks"},
        "gpudoctor.matrix.model": {"gpudoctor.facts"},
    }
    assert wrong_edges(graph, ORDER) == [
        "gpudoctor.checks.gpu -> gpudoctor.probes.nvml (checks -> probes)",
        "gpudoctor.facts -> gpudoctor.checks (foundation -> checks)",
    ]


def test_the_declared_order_has_no_cycle_and_names_every_package() -> None:
    assert cycles({k: set(v) for k, v in ORDER.items()}) == []
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert packages <= set(ORDER), f"a package ORDER does not place: {packages - set(ORDER)}"
    named = {p for targets in ORDER.values() for p in targets}
    assert named <= set(ORDER)


def test_package_imports_follow_the_declared_order() -> None:
    """No import between packages that ORDER does not allow: so no package-level cycle."""
    assert wrong_edges(import_graph(), ORDER) == []


def _drawn_order() -> dict[str, tuple[str, ...]]:
    """The `name → a, b` lines of the fenced drawing under "## Layers" in the architecture doc."""
    text = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0]
    drawing = section.split("```\n", 2)[1]
    drawn: dict[str, tuple[str, ...]] = {}
    for line in drawing.splitlines():
        name, arrow, targets = line.partition("→")
        if arrow and name.strip() != FOUNDATION:
            drawn[name.strip()] = tuple(t.strip() for t in targets.split(",") if t.strip())
    return drawn


def test_the_architecture_doc_draws_the_same_order() -> None:
    drawn = _drawn_order()
    assert drawn == ORDER
    # Drawn from the top down: a package points only at lines below its own.
    lines = list(drawn)
    assert all(lines.index(t) > lines.index(p) for p, ts in drawn.items() for t in ts)


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
