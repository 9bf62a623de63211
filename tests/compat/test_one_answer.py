"""One compatibility model, one answer: on every recorded host and for every framework, the
selection rule (`compat.choose.pick`), the intent verdict, the newest-row line, every finding's
pip fix, `matrix resolve --from` and `build --dry-run --from` name the same build, and every pip
line is printed in the one command shape (`compat.install.command`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpudoctor.checks import Intent, run_checks
from gpudoctor.cli.app import run
from gpudoctor.compat.choose import choices, pick
from gpudoctor.compat.host import from_facts
from gpudoctor.compat.install import command, for_row
from gpudoctor.compat.request import ResolveRequest
from gpudoctor.compat.resolve import resolve
from gpudoctor.errors import NoMatchingRow
from gpudoctor.facts import HostFacts
from gpudoctor.facts_json import load
from gpudoctor.facts_view import has_gpu
from gpudoctor.matrix.load import load_matrix
from gpudoctor.matrix.model import Matrix
from gpudoctor.resources import default_matrix_path

DATA = Path(__file__).resolve().parents[1] / "data"
HOSTS = sorted([*DATA.glob("hosts/*.json"), *DATA.glob("real-hosts/*.json")])
FRAMEWORKS = ("pytorch", "tensorflow")


def _judgeable(path: Path) -> bool:
    """A host the model can judge a build on: a GPU and a known driver version."""
    facts = load(path)
    return has_gpu(facts) and facts.nvml.driver_version is not None


# Chosen at collection, so hosts without a GPU or driver are not reported as skipped tests.
JUDGEABLE = [p for p in HOSTS if _judgeable(p)]


def test_most_recorded_hosts_are_judged() -> None:
    assert len(JUDGEABLE) >= len(HOSTS) // 2, [p.stem for p in JUDGEABLE]


@pytest.fixture(scope="module")
def shipped() -> Matrix:
    return load_matrix(default_matrix_path())


def _finding(facts: object, matrix: Matrix, framework: str, code: str) -> tuple[str, str]:
    found = run_checks(facts, matrix, Intent(framework=framework), only=frozenset({code}))  # type: ignore[arg-type]
    (one,) = found.findings
    return one.title, one.fix


# A pip command as gpudoctor prints it: up to a clause in parentheses, a ";", a backtick or the
# end (no command holds one of those).
_PIP = re.compile(r"pip install [^;()`\n]+")
_FRAMEWORK_PIN = {"pytorch": "torch==", "tensorflow": "'tensorflow"}


def _framework_commands(text: str, framework: str) -> list[str]:
    """The pip commands in a fix that install `framework` (not cuDNN, NumPy, nvidia-ml-py)."""
    return [
        c.strip()
        for c in _PIP.findall(text)
        if c.split()[2].startswith(_FRAMEWORK_PIN[framework])
        or c.split()[2].startswith(_FRAMEWORK_PIN[framework].strip("'"))
    ]


def _offered(facts: HostFacts, matrix: Matrix, framework: str) -> set[str]:
    """Every command the one selection rule may offer on this host: per installed framework
    the installed release in a variant that runs here, and the newest build that runs here."""
    from gpudoctor import framework_names

    host = from_facts(facts)
    installed = [
        fw.version
        for fw in facts.frameworks
        if framework_names.MATRIX_NAME.get(fw.name) == framework
    ]
    out: set[str] = set()
    for version in [*installed, None]:
        for _, verdict in choices(matrix, host, framework, version):
            out.add(command(verdict.build.requirements, verdict.index_url))
    return out


@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize("path", JUDGEABLE, ids=lambda p: p.stem)
def test_every_consumer_names_the_same_build(
    path: Path, framework: str, shipped: Matrix, capsys: pytest.CaptureFixture[str]
) -> None:
    facts = load(path)
    verdict, fix = _finding(facts, shipped, framework, "intent-verdict")
    newest, newest_fix = _finding(facts, shipped, framework, "intent-newest-row")
    best = pick(shipped, from_facts(facts), framework)
    request = ResolveRequest(framework=framework, host=from_facts(facts))
    try:
        row = resolve(shipped, request)
    except NoMatchingRow:
        # Nothing that exists runs here: no newest row, and the verdict names no build.
        assert best is None
        assert newest.startswith(f"no {framework} image row"), newest
        assert "will not run" in verdict, (verdict, fix)
        assert run(["build", "--framework", framework, "--from", str(path), "--dry-run"]) == 2
        assert run(["matrix", "resolve", "--framework", framework, "--from", str(path)]) == 2
        return
    # The selection rule (pick) and resolve name the same build.
    assert best is not None
    assert (best.build.version, best.build.cuda) == (row.version, row.cuda)
    shape = command(row.requirements, row.index_url)
    # intent verdict: "pytorch runs here: pytorch 2.14.1 cu126 ..." and its one command
    if framework == "pytorch":
        tag = "cu" + row.cuda.replace(".", "")
        assert f"runs here: pytorch {row.version} {tag}" in verdict, verdict
        assert row.index_url is None or row.index_url.endswith(f"/{tag}"), row.index_url
        assert [
            f"torch=={row.version}",
            f"torchvision=={shipped_release(shipped, row.version)}",
        ] == list(row.requirements[:2])
    else:
        assert f"runs here: tensorflow {row.version} (CUDA {row.cuda})" in verdict, verdict
    assert fix == for_row(row), fix
    # newest-row line: "newest pytorch this host runs: 2.14.1 with CUDA 12.6 ..."
    assert f"runs: {row.version} with CUDA {row.cuda}" in newest, newest
    assert newest_fix == fix
    # minor-version compatibility is said, with its limits, wherever it is the tier
    if row.tier == "minor-version":
        assert "minor-version" in verdict
        assert "minor-version" in newest
        assert "PTX" in verdict
    # Every finding's fix on this host (the checks run with no intent, as a plain `check`):
    # every framework pip line is one the selection rule offers, in the one command shape.
    offered = _offered(facts, shipped, framework)
    assert shape in offered
    for f in run_checks(facts, shipped, Intent()).findings:
        for cmd in _framework_commands(f.fix, framework):
            if "/whl/rocm" in cmd:  # ROCm lines: the one ROCm rule, test_one_answer_rocm.py
                continue
            assert cmd.removesuffix(" --force-reinstall") in offered, (f.code, cmd, offered)
    # matrix resolve --from: the same row and the same command
    capsys.readouterr()
    assert run(["matrix", "resolve", "--framework", framework, "--from", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == row.id
    assert _framework_commands(out, framework) == [shape], out
    # build --dry-run --from: the rendered Dockerfile names the same row and index
    capsys.readouterr()
    assert run(["build", "--framework", framework, "--from", str(path), "--dry-run"]) == 0
    dockerfile = capsys.readouterr().out
    rendered = re.search(r"from matrix row (\S+)\.", dockerfile)
    assert rendered is not None
    assert rendered[1] == row.id
    if row.index_url:
        assert f"--index-url {row.index_url}" in dockerfile


def shipped_release(matrix: Matrix, version: str) -> str:
    return next(r.torchvision for r in matrix.pytorch if r.version == version)


def test_fixtures_span_generations_branches_and_classes() -> None:
    """The recorded hosts cover Pascal to Blackwell, R470 to R580, GeForce and data-center."""
    ccs, branches, brands = set(), set(), set()
    for path in HOSTS:
        facts = load(path)
        branches.add((facts.nvml.driver_version or "0").split(".")[0])
        for g in facts.nvml.gpus:
            ccs.add(g.compute_capability)
            brands.add(g.brand)
    assert {"6.0", "6.1", "7.0", "8.0", "8.6", "8.9", "9.0", "10.0", "12.0"} <= ccs
    assert {"470", "535", "550", "560", "570", "580"} <= branches
    assert {"geforce", "nvidia"} <= brands
