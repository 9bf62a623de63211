"""Where gpudoctor imports what, and what `check` imports.

- Outside the command-line layer (`gpudoctor/cli/`, whose command modules load on demand so that
  `--help` stays fast), gpudoctor's own modules are imported at the top of each module: a
  module's dependencies are read from its top. The few exceptions are marked `# lazy:` on the
  import and each names a module that `check` is shown below to leave out.
- A third-party or standard-library module imported inside a function is one whose import costs
  start-up time (about a millisecond or more) on a path that does not need it: each is listed in
  `LAZY` with the reason, and none is one that every start loads anyway.
- `check` on this host imports only what judging this host needs (the budget: at most 0.1x
  `python -m torch.utils.collect_env`, bench/README.md)."""

from __future__ import annotations

import ast
import ctypes
import os
import subprocess
import sys
from pathlib import Path

import pytest

import gpudoctor

PACKAGE = Path(gpudoctor.__file__).parent
LAZY_MARK = "# lazy:"

# module -> why a plain `check` (no --from, no --deep, no --framework, a kernel log without
# XIDs, the matrix cache warm) leaves it out
_NOT_NEEDED = {
    "gpudoctor.fleet_summary": "only for --from naming several snapshots",
    "gpudoctor.matrix.xid": "only when the kernel log holds XIDs",
    "gpudoctor.checks.deep_causes": "only to explain a failed --deep import or kernel",
    "gpudoctor.probes.deep": "only for --deep",
    "gpudoctor.matrix.signatures": "only for a report with known error lines",
    "gpudoctor.compat.resolve": "only for --framework or --cuda (the newest image row)",
    "gpudoctor.compat.request": "only for --framework or --cuda (the newest image row)",
    "gpudoctor.exporter": "only for serve",
    "importlib.metadata": "dist_info.py reads the few METADATA headers the probes need",
    "email": "importlib.metadata's parser",
    "prometheus_client": "only for --format prometheus and serve",
    "packaging.requirements": "only to read a requirement of the matrix or a wheel",
    "packaging.specifiers": "only for version ranges (--cuda, matrix rows)",
    "jinja2": "only for build and render",
    "multiprocessing": "only for a fleet's worker processes",
    "concurrent.futures": "only for a fleet's worker processes",
    "zipfile": "only when running from the single-file zipapp",
    "tempfile": "only when unpacking the zipapp's data",
}

# module -> why `check --from SNAPSHOT.json` (a recorded host replayed) leaves it out
_NOT_NEEDED_FOR_A_SNAPSHOT = {
    "gpudoctor.pasted.dispatch": "only for a pasted text report (and with it every shape's reader)",
    "gpudoctor.probes": "a recorded host is judged, not probed",
}
SNAPSHOT = PACKAGE.parent / "tests" / "data" / "hosts" / "h100-8x-healthy.json"

# third-party or standard-library module imported inside a function -> why it is not at the top
LAZY = {
    "argparse": "probes/nvml.py's `python -m` entry point only",
    "concurrent.futures": "fleet_summary: only a fleet of several hosts runs workers",
    "csv": "dist_info's RECORD reader only (nvml's owner lookup)",
    "ctypes": "loaded only where a library must be loaded (NVML, prctl for fleet workers)",
    "docker": "the Docker SDK: build and the SDK fallback of the Docker probe only",
    "docker.errors": "the Docker SDK: build only",
    "docker.types": "the Docker SDK: build only",
    "hashlib": "build's wheel manifest only",
    "jinja2": "build and render only",
    "json": "probes/nvml.py's `python -m` entry point only",
    "multiprocessing": "fleet_summary: only a fleet of several hosts runs workers",
    "packaging.requirements": "reading requirements of the matrix and of wheels only",
    "packaging.specifiers": "version ranges only",
    "packaging.version": "gpudoctor/versions.py: only once a version is compared",
    "pickle": "the matrix cache only (--help and --version never read the matrix)",
    "prometheus_client": "--format prometheus and serve only",
    "prometheus_client.core": "--format prometheus and serve only",
    "pynvml": "only once libnvidia-ml.so.1 loads (without it, library_not_found unimported)",
    "requests.exceptions": "the Docker SDK's transport: build only",
    "socket": "the Docker probe's raw request and its error wording only",
    "tempfile": "unpacking the zipapp's data only",
    "tomli": "the TOML parser on Python < 3.11: only an uncached matrix or a catalogue",
    "tomllib": "the TOML parser: only an uncached matrix or a catalogue",
    "zipfile": "running from the single-file zipapp only",
}


def local_imports(source: str) -> list[tuple[int, str, bool]]:
    """(line, module, marked `# lazy:`) of every import inside a function body."""
    lines = source.splitlines()
    found = []
    for function in ast.walk(ast.parse(source)):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.ImportFrom):
                module = "." * node.level + (node.module or "")
                names = [_submodule(module, alias.name) for alias in node.names]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            span = lines[node.lineno - 1 : node.end_lineno]
            marked = any(LAZY_MARK in line for line in span)
            found.extend((node.lineno, name, marked) for name in names)
    return sorted(set(found))


def _submodule(module: str, name: str) -> str:
    """`from a.b import c` names the module a.b.c when gpudoctor has one, else a.b."""
    path = PACKAGE.parent.joinpath(*f"{module}.{name}".split("."))
    found = path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()
    return f"{module}.{name}" if found else module


def _own(name: str) -> bool:
    return name.startswith((".", "gpudoctor.")) or name == "gpudoctor"


def _outside_cli() -> dict[str, list[tuple[int, str, bool]]]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE.parent).as_posix()
        if not relative.startswith("gpudoctor/cli/"):
            out[relative] = local_imports(path.read_text(encoding="utf-8"))
    return out


def test_the_scanner_finds_imports_inside_functions_only() -> None:
    source = (
        "import os\n"
        "from gpudoctor import facts\n"
        "def f():\n"
        "    from gpudoctor.matrix import load\n"
        "    class C:\n"
        "        def g(self):\n"
        "            import json, socket  # lazy: why\n"
        "    from . import x\n"
        "    from gpudoctor.matrix.load import toml_loads\n"
    )
    assert local_imports(source) == [
        (4, "gpudoctor.matrix.load", False),
        (7, "json", True),
        (7, "socket", True),
        (8, ".", False),
        (9, "gpudoctor.matrix.load", False),
    ]


def test_own_modules_are_imported_at_the_top_outside_the_cli() -> None:
    """A function-local import of a gpudoctor module needs `# lazy:` and a module that `check`
    (live, or replaying a snapshot) is pinned below to leave out; else it belongs at the top."""
    wrong = [
        f"{path}:{line}: {name}"
        for path, found in _outside_cli().items()
        for line, name, marked in found
        if _own(name) and not (marked and name in {**_NOT_NEEDED, **_NOT_NEEDED_FOR_A_SNAPSHOT})
    ]
    assert wrong == []


def test_every_lazy_third_party_or_standard_import_is_listed() -> None:
    found = {name for found in _outside_cli().values() for _, name, _ in found if not _own(name)}
    assert sorted(found - LAZY.keys()) == [], "import it at the top, or list it in LAZY"
    assert sorted(LAZY.keys() - found) == [], "no longer imported lazily: drop it from LAZY"


_BARE_START = "import contextlib, io, sys\nprint(0, ' '.join(sorted(sys.modules)))\n"


def _modules_after(
    argv: list[str], tmp_path: Path, extra_env: dict[str, str] | None = None
) -> set[str]:
    """The modules `gpudoctor ARGV` loaded that a bare start of the same interpreter, in the
    same environment, does not: a real host's site-packages often imports modules at start-up
    (.pth files, a sitecustomize), and those are not gpudoctor's doing."""
    script = (
        "import contextlib, io, sys\n"
        "from gpudoctor.cli.app import run\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        f"        code = run({argv!r})\n"
        "    except SystemExit as exc:\n"
        "        code = exc.code\n"
        "print(code, ' '.join(sorted(sys.modules)))\n"
    )
    # A cache of its own, filled by a first run: the matrix is parsed (TOML, packaging's
    # requirement readers) only when its cache is cold, and the budget is for a warm one.
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), **(extra_env or {})}

    def modules(source: str) -> tuple[str, set[str]]:
        done = subprocess.run(
            [sys.executable, "-c", source],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
            cwd=tmp_path,
            env=env,
        )
        code, *names = done.stdout.split()
        assert code in ("0", "1"), done.stderr  # ran to the end: 1 is a failed check
        return code, set(names)

    modules(script)
    _, imported = modules(script)
    _, at_start = modules(_BARE_START)
    return imported - at_start


def _startup_loading(tmp_path: Path, names: list[str]) -> dict[str, str]:
    """An environment whose interpreter imports `names` at every start, as a sitecustomize
    or a .pth file of a real host's site-packages does."""
    folder = tmp_path / "startup"
    folder.mkdir()
    (folder / "sitecustomize.py").write_text(f"import {', '.join(names)}\n", encoding="utf-8")
    path = os.pathsep.join(p for p in (str(folder), os.environ.get("PYTHONPATH", "")) if p)
    return {"PYTHONPATH": path}


def test_modules_an_interpreter_loads_at_start_are_not_counted(tmp_path: Path) -> None:
    """The GPU host's interpreter loaded tempfile, zipfile and packaging.specifiers at start-up:
    not gpudoctor's imports, so neither test below may count them."""
    loaded = ["tempfile", "zipfile", "packaging.specifiers"]
    env = _startup_loading(tmp_path, loaded)
    probe = subprocess.run(
        [sys.executable, "-c", _BARE_START], capture_output=True, text=True, check=True, env=env
    )
    assert set(loaded) <= set(probe.stdout.split()), "the sitecustomize did not run"
    imported = _modules_after(["--help"], tmp_path, env)
    assert sorted(set(loaded) & imported) == []
    assert "gpudoctor.cli.app" in imported


def test_no_lazy_import_is_of_a_module_every_start_loads(tmp_path: Path) -> None:
    """Importing inside a function what `gpudoctor --help` has loaded already saves nothing."""
    assert sorted(LAZY.keys() & _modules_after(["--help"], tmp_path)) == []


def test_check_leaves_out_the_modules_of_other_runs(tmp_path: Path) -> None:
    from gpudoctor.probes import collect_facts

    facts = collect_facts(include_docker=False, include_nvml=False)
    if facts.multigpu.xid_events:
        pytest.skip("this host's kernel log holds XIDs: check needs the XID catalogue")
    not_needed = set(_NOT_NEEDED)
    if facts.programs or any(fw.bundled for fw in facts.frameworks):
        # a framework with its nvidia-* wheels (NCCL's among them) or a GPU program is judged
        # against the [[nccl]] and [[program]] rows, whose versions are ranges (the H200 host)
        not_needed.discard("packaging.specifiers")
    imported = _modules_after(["check", "-o", str(tmp_path / "report.txt")], tmp_path)
    assert sorted(not_needed & imported) == []


def test_check_of_a_snapshot_leaves_out_the_report_readers_and_the_probes(tmp_path: Path) -> None:
    report = str(tmp_path / "report.txt")
    imported = _modules_after(["check", "--from", str(SNAPSHOT), "-o", report], tmp_path)
    assert sorted(_NOT_NEEDED_FOR_A_SNAPSHOT.keys() & imported) == []


def test_check_without_libnvidia_ml_does_not_import_pynvml(tmp_path: Path) -> None:
    try:
        ctypes.CDLL("libnvidia-ml.so.1")
    except OSError:
        pass
    else:
        pytest.skip("libnvidia-ml.so.1 loads here: the probe needs the binding")
    # nvidia-ml-py imports logging: both cost every run of check on a host without NVML
    imported = _modules_after(["check", "-o", str(tmp_path / "report.txt")], tmp_path)
    assert sorted({"pynvml", "logging"} & imported) == []
