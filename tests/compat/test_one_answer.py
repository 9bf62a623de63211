"""One compatibility model, one answer: on every recorded host and for every framework, the
intent verdict, the newest-row line, the pip fix, `matrix resolve --from`-style resolution and
`build --dry-run --from` name the same build (release and CUDA)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpudoctor.checks import Intent, run_checks
from gpudoctor.cli.app import run
from gpudoctor.compat.host import from_facts
from gpudoctor.compat.request import ResolveRequest
from gpudoctor.compat.resolve import resolve
from gpudoctor.errors import NoMatchingRow
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


@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize("path", JUDGEABLE, ids=lambda p: p.stem)
def test_every_consumer_names_the_same_build(
    path: Path, framework: str, shipped: Matrix, capsys: pytest.CaptureFixture[str]
) -> None:
    facts = load(path)
    verdict, fix = _finding(facts, shipped, framework, "intent-verdict")
    newest, newest_fix = _finding(facts, shipped, framework, "intent-newest-row")
    request = ResolveRequest(framework=framework, host=from_facts(facts))
    try:
        row = resolve(shipped, request)
    except NoMatchingRow:
        # Nothing verified runs here: no newest row, and the verdict names no verified build.
        assert newest.startswith("no verified"), newest
        assert "will not run" in verdict or "verified = false" in fix, (verdict, fix)
        assert run(["build", "--framework", framework, "--from", str(path), "--dry-run"]) == 2
        assert run(["matrix", "resolve", "--framework", framework, "--from", str(path)]) == 2
        return
    tag = "cu" + row.cuda.replace(".", "")
    # intent verdict: "pytorch runs here: pytorch 2.14.1 cu126 ..."
    if framework == "pytorch":
        assert f"runs here: pytorch {row.version} {tag}" in verdict, verdict
        # The index the row names for the host's machine (None: PyPI, aarch64 from 2.11.0).
        index = f" --index-url {row.index_url}" if row.index_url else ""
        assert fix.startswith(f"pip install torch=={row.version}{index}"), fix
        assert row.index_url is None or row.index_url.endswith(f"/{tag}"), row.index_url
    else:
        assert f"runs here: tensorflow {row.version} (CUDA {row.cuda})" in verdict, verdict
        assert fix == f"pip install '{row.requirements[0]}'", fix
    # newest-row line: "newest pytorch this host runs: 2.14.1 with CUDA 12.6 ..."
    assert f"runs: {row.version} with CUDA {row.cuda}" in newest, newest
    assert f"=={row.version}" in newest_fix
    # minor-version compatibility is said, with its limits, wherever it is the tier
    if row.tier == "minor-version":
        assert "minor-version" in verdict
        assert "minor-version" in newest
        assert "PTX" in verdict
    # matrix resolve --from: the same row
    capsys.readouterr()
    assert run(["matrix", "resolve", "--framework", framework, "--from", str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == row.id
    # build --dry-run --from: the rendered Dockerfile names the same row
    capsys.readouterr()
    assert run(["build", "--framework", framework, "--from", str(path), "--dry-run"]) == 0
    dockerfile = capsys.readouterr().out
    rendered = re.search(r"from matrix row (\S+)\.", dockerfile)
    assert rendered is not None
    assert rendered[1] == row.id


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
