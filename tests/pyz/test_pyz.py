"""dist/gpudoctor.pyz (scripts/build_pyz.py): built once per session, then run as a user would
copy and run it, with `python3 -I` (isolated: no site-packages of the user, no PYTHON* variables)
from an empty folder, on every supported CPython this machine has (pyenv's 3.9 to 3.14)."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import gpudoctor
from tests.support.nvml_rig import SCENARIOS, build
from tests.support.pythons import SUPPORTED_MINORS, find_old_python, find_python

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "build_pyz.py"
CACHE = ROOT / "build" / "pyz-cache"  # the script's default: downloaded once, then reused
HOST = ROOT / "tests" / "data" / "hosts" / "driver-too-old.json"


def run_build(out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(out), *args],
        capture_output=True,
        text=True,
        timeout=600,  # an empty cache downloads the wheels first
        check=False,
    )


@pytest.fixture(scope="session")
def pyz(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("pyz") / "gpudoctor.pyz"
    done = run_build(out)
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture(params=SUPPORTED_MINORS, ids=lambda minor: f"3.{minor}")
def python(request: pytest.FixtureRequest) -> Path:
    found = find_python(request.param)
    if found is None:
        pytest.skip(f"no CPython 3.{request.param} here (pyenv install 3.{request.param})")
    return found


class Runner:
    """Runs the .pyz with one interpreter in an empty folder, with a private home and cache."""

    def __init__(self, python: Path, pyz: Path, tmp: Path) -> None:
        self.python, self.pyz = python, pyz
        self.cwd = tmp / "empty"
        self.cwd.mkdir()
        self.env = {
            "PATH": os.environ["PATH"],
            "HOME": str(tmp / "home"),
            "XDG_CACHE_HOME": str(tmp / "cache"),
            "TMPDIR": str(tmp / "tmp"),
            "LANG": "C.UTF-8",
        }
        (tmp / "tmp").mkdir()

    def __call__(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.python), "-I", str(self.pyz), *args],
            cwd=self.cwd,
            env={**self.env, **env},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )


@pytest.fixture
def run(python: Path, pyz: Path, tmp_path: Path) -> Runner:
    return Runner(python, pyz, tmp_path)


@functools.cache
def venv_gpudoctor(*args: str) -> subprocess.CompletedProcess[str]:
    """The installed gpudoctor the suite runs on, for comparison."""
    return subprocess.run(
        [sys.executable, "-m", "gpudoctor", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


# --- the archive ----------------------------------------------------------------------------


def test_two_builds_are_byte_identical(pyz: Path, tmp_path: Path) -> None:
    again = tmp_path / "again.pyz"
    done = run_build(again, "--offline")
    assert done.returncode == 0, done.stderr
    assert again.read_bytes() == pyz.read_bytes()
    assert os.access(again, os.X_OK)


def test_archive_is_sorted_stamped_and_free_of_machine_code(pyz: Path) -> None:
    assert pyz.read_bytes().startswith(b"#!/usr/bin/env python3\n")
    with zipfile.ZipFile(pyz) as archive:
        infos = archive.infolist()
    names = [i.filename for i in infos]
    assert names == sorted(names)
    assert {i.date_time for i in infos} == {(1980, 1, 1, 0, 0, 0)}
    assert not [n for n in names if n.endswith((".so", ".pyd", ".pyc", ".c"))]
    assert "__main__.py" in names
    # The data where the wheel puts them, and the dependencies vendored beside gpudoctor.
    for name in (
        "gpudoctor/_data/matrices/compat.toml",
        "gpudoctor/_data/templates/Dockerfile.j2",
        "gpudoctor/_data/docs/findings.md",
        "pynvml.py",
        "markupsafe/_native.py",
        "typer/main.py",
        "docker/api/client.py",
        "tomli/_parser.py",
        "prometheus_client/exposition.py",
    ):
        assert name in names, name
    assert "example.py" not in names  # nvidia-ml-py's stray top-level module


def test_every_runtime_dependency_is_pinned_for_the_pyz() -> None:
    """A dependency added to pyproject.toml must reach the .pyz too (with the ones it needs)."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    from gpudoctor import tomlread

    project = tomlread.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    needed = {canonicalize_name(Requirement(r).name) for r in project["dependencies"]}
    pinned = set()
    for line in (ROOT / "scripts" / "pyz-requirements.txt").read_text("utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            pinned.add(canonicalize_name(line.split("==")[0]))
    assert needed <= pinned, needed - pinned


def test_offline_build_with_an_empty_cache_names_what_is_missing(tmp_path: Path) -> None:
    done = run_build(tmp_path / "x.pyz", "--offline", "--cache", str(tmp_path / "empty"))
    assert done.returncode == 1
    assert "--offline, and" in done.stderr
    assert "markupsafe==" in done.stderr
    assert not (tmp_path / "x.pyz").exists()


def test_a_wheel_that_does_not_match_its_pinned_hash_is_refused(pyz: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    shutil.copytree(CACHE, cache)
    wheel = next(cache.glob("jinja2-*.whl"))
    wheel.write_bytes(wheel.read_bytes() + b"\0")
    done = run_build(tmp_path / "x.pyz", "--offline", "--cache", str(cache))
    assert done.returncode == 1
    assert f"{wheel} has sha256" in done.stderr
    assert not (tmp_path / "x.pyz").exists()


# --- run on each interpreter ----------------------------------------------------------------


def test_every_file_compiles_on_this_python(python: Path, pyz: Path) -> None:
    """Each module of gpudoctor and its vendored dependencies parses on this version (a
    dependency that needs newer syntax would fail here, not on a user's host)."""
    script = (
        "import sys, zipfile\n"
        "bad = []\n"
        "with zipfile.ZipFile(sys.argv[1]) as z:\n"
        "    for name in z.namelist():\n"
        "        if name.endswith('.py'):\n"
        "            try:\n"
        "                compile(z.read(name), name, 'exec', dont_inherit=True)\n"
        "            except SyntaxError as exc:\n"
        "                bad.append('%s: %s' % (name, exc))\n"
        "print('\\n'.join(bad))\n"
    )
    done = subprocess.run(
        [str(python), "-I", "-c", script, str(pyz)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert done.stdout.strip() == ""


def test_version_and_help(run: Runner) -> None:
    version = run("--version")
    assert version.returncode == 0, version.stderr
    assert gpudoctor.__version__ in version.stdout
    helped = run("--help")
    assert helped.returncode == 0, helped.stderr
    for command in ("check", "snapshot", "matrix", "render", "build"):
        assert command in helped.stdout


def test_check_this_host(run: Runner) -> None:
    done = run("check", "--format", "json")
    assert done.returncode in (0, 1), done.stderr  # passed or failed: this host's business
    assert "Traceback" not in done.stderr
    report = json.loads(done.stdout)
    assert report["findings"]


def test_snapshot_then_check_it(run: Runner) -> None:
    done = run("snapshot", "-o", "host.json")
    assert done.returncode == 0, done.stderr
    facts = json.loads((run.cwd / "host.json").read_text(encoding="utf-8"))
    assert facts["tool_version"] == gpudoctor.__version__
    judged = run("check", "--from", "host.json")
    assert judged.returncode in (0, 1), judged.stderr


def test_check_of_a_recorded_host_matches_the_installed_tool(run: Runner) -> None:
    """Same matrix, same checks, same words: the .pyz judges a host as the venv's gpudoctor."""
    done = run("check", "--from", str(HOST), "--format", "json")
    assert done.returncode == 1, done.stderr
    installed = venv_gpudoctor("check", "--from", str(HOST), "--format", "json")
    assert done.stdout == installed.stdout
    assert "driver" in done.stdout
    # Through prometheus_client; the same series but the time of the run.
    metrics = run("check", "--from", str(HOST), "--format", "prometheus")
    assert metrics.returncode == 1, metrics.stderr
    installed = venv_gpudoctor("check", "--from", str(HOST), "--format", "prometheus")

    def series(text: str) -> list[str]:
        return [line for line in text.splitlines() if "last_run_timestamp" not in line]

    assert series(metrics.stdout) == series(installed.stdout)
    assert "gpudoctor_build_info" in metrics.stdout


def test_render_matches_the_installed_tool(run: Runner) -> None:
    """Jinja2 with MarkupSafe's pure-Python escaping and the template unpacked from the zip
    write the same Dockerfile as the venv's gpudoctor."""
    args = ("render", "--framework", "pytorch", "--cuda", "12.4", "--platform", "linux/amd64")
    done = run(*args)
    assert done.returncode == 0, done.stderr
    assert done.stdout == venv_gpudoctor(*args).stdout
    assert "FROM " in done.stdout


def test_markupsafe_runs_its_pure_python_fallback(python: Path, pyz: Path) -> None:
    probe = (
        "import sys; sys.path.insert(0, sys.argv[1]); import jinja2, markupsafe; "
        "print(markupsafe._escape_inner.__module__, jinja2.Template('{{ x|e }}').render(x='<a>'))"
    )
    done = subprocess.run(
        [str(python), "-I", "-c", probe, str(pyz)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.split() == ["markupsafe._native", "&lt;a&gt;"]


def test_data_are_unpacked_once_into_a_private_cache(run: Runner) -> None:
    first = run("matrix", "list", "--format", "json")
    assert first.returncode == 0, first.stderr
    (unpacked,) = (Path(run.env["XDG_CACHE_HOME"]) / "gpudoctor").glob("pyz-data-*")
    assert unpacked.stat().st_mode & 0o777 == 0o700
    shipped = unpacked / "matrices" / "compat.toml"
    assert shipped.read_bytes() == (ROOT / "matrices" / "compat.toml").read_bytes()
    stamp = shipped.stat().st_mtime_ns
    again = run("matrix", "list", "--format", "json")
    assert again.stdout == first.stdout
    assert shipped.stat().st_mtime_ns == stamp  # reused, not written again


def test_without_a_usable_cache_the_data_live_for_one_run(run: Runner) -> None:
    done = run("matrix", "list", XDG_CACHE_HOME="relative/cache", HOME="relative")
    assert done.returncode == 0, done.stderr
    assert list(Path(run.env["TMPDIR"]).iterdir()) == []  # the temporary copy is gone
    assert not (run.cwd / "relative").exists()


def test_nvml_binding_inside_loads_the_hosts_library(run: Runner, tmp_path: Path) -> None:
    """nvidia-ml-py in the zip loads libnvidia-ml.so.1 through the loader's search, as from a
    venv: here the NVML tests' stand-in library, found through LD_LIBRARY_PATH."""
    if shutil.which("gcc") is None:
        pytest.skip("gcc is needed to build the stand-in libnvidia-ml.so.1")
    work = tmp_path / "nvml"
    work.mkdir()
    lib = build("current", work)
    scenario = str(SCENARIOS / "healthy_8x_h100.txt")
    done = run("snapshot", "-o", "host.json", LD_LIBRARY_PATH=str(lib), FAKE_NVML_SCENARIO=scenario)
    assert done.returncode == 0, done.stderr
    nvml = json.loads((run.cwd / "host.json").read_text(encoding="utf-8"))["nvml"]
    assert (nvml["status"], nvml["device_count"]) == ("ok", 8)
    assert nvml["driver_version"] == "550.90.07"


def test_an_older_python_gets_one_line_and_a_hint(pyz: Path, tmp_path: Path) -> None:
    old = find_old_python()
    if old is None:
        pytest.skip("no CPython older than 3.9 here")
    done = subprocess.run(
        [str(old), "-I", str(pyz), "check"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("error: gpudoctor needs Python 3.9 or newer; this is Python 3.")
    assert "hint: run it with a newer one" in done.stderr
