"""One answer on AMD hosts too: on every recorded host with AMD GPUs, every ROCm pip line that
any finding prints (the intent line, the CUDA/CPU-torch fix, the gfx-list fix) names the build
of the one ROCm rule (`compat.rocm.newest_for_host`), in the one command shape
(`compat.install.command`: torch with its release's torchvision/torchaudio, the ROCm index)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gpudoctor.checks import Intent, run_checks
from gpudoctor.compat import rocm
from gpudoctor.compat.builds import torch_pins
from gpudoctor.compat.install import command
from gpudoctor.facts_json import load
from gpudoctor.matrix.load import load_matrix
from gpudoctor.matrix.model import Matrix
from gpudoctor.resources import default_matrix_path

DATA = Path(__file__).resolve().parents[1] / "data"
AMD_HOSTS = [p for p in sorted(DATA.glob("hosts/*.json")) if load(p).amd.seen]
_ROCM_PIP = re.compile(r"pip install [^;()`\n]+/whl/rocm[\d.]+")


@pytest.fixture(scope="module")
def shipped() -> Matrix:
    return load_matrix(default_matrix_path())


def test_the_recorded_amd_hosts_are_here() -> None:
    assert len(AMD_HOSTS) >= 4, [p.stem for p in AMD_HOSTS]


@pytest.mark.parametrize("path", AMD_HOSTS, ids=lambda p: p.stem)
def test_every_rocm_line_names_the_one_rocm_build(path: Path, shipped: Matrix) -> None:
    facts = load(path)
    gfx = [t.gfx for t in rocm.host_targets(facts, shipped)]
    best = rocm.newest_for_host(shipped, gfx)
    lines = {
        line.strip()
        for intent in (Intent(), Intent(framework="pytorch"))
        for f in run_checks(facts, shipped, intent).findings
        for line in _ROCM_PIP.findall(f.fix)
    }
    if best is None:
        assert lines == set()
        return
    release = next(r for r in shipped.pytorch if r.version == best.variant.pytorch)
    shape = command(torch_pins(release), best.variant.index_url)
    assert lines <= {shape}, (lines, shape)
    assert best.install.startswith(shape)


def test_some_amd_host_is_offered_a_rocm_line(shipped: Matrix) -> None:
    """The rule above must not hold only because no finding prints a ROCm line."""
    printed = [
        p.stem
        for p in AMD_HOSTS
        for f in run_checks(load(p), shipped, Intent(framework="pytorch")).findings
        if _ROCM_PIP.search(f.fix)
    ]
    assert printed, "no recorded AMD host is offered a ROCm build"
