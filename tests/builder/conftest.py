"""Fixtures of the builder tests: the stand-in base image, a real engine, and tag cleanup.

The stand-in base (scripts/make-base-image.sh: Debian bookworm minbase + Python 3.11, made with
debootstrap and `docker import`) is made once and kept across runs, cached by its tag; every
image a test builds is tagged under gpudoctor-test/build and removed after the test, together
with the dangling install-stage images its builds left.
"""

from __future__ import annotations

import contextlib
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from gpudoctor.docker.sdk_engine import DockerSdkEngine
from tests.support.builder import STANDIN_BASE, TEST_TAG_PREFIX, make_fake_torch, make_wheel

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "build"


@pytest.fixture(scope="session")
def standin_base() -> str:
    """The stand-in base image's tag, made on first use (about a minute, once per machine)."""
    done = subprocess.run(
        ["bash", str(REPO / "scripts" / "make-base-image.sh"), STANDIN_BASE],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        pytest.fail(f"could not make the stand-in base image:\n{done.stderr[-2000:]}")
    return STANDIN_BASE


@pytest.fixture(scope="session")
def engine() -> DockerSdkEngine:
    return DockerSdkEngine.connect()


@pytest.fixture(scope="session")
def stage_leftovers() -> Iterator[None]:
    """The install stage of each build is an untagged image; keep nothing dangling, but prune
    once, when the session ends: a prune while another build runs (this session's next test,
    or another test run on the same daemon) takes that build's cache and parent images."""
    yield
    import docker

    client = docker.from_env()
    with contextlib.suppress(docker.errors.APIError):
        client.images.prune(filters={"dangling": True, "label": "io.gpudoctor.stage=install"})
    client.close()


@pytest.fixture
def test_tag(engine: DockerSdkEngine, stage_leftovers: None) -> Iterator[str]:
    """A unique tag for this test's image; the image goes afterwards (stage leftovers at the
    end of the session)."""
    import docker

    tag = f"{TEST_TAG_PREFIX}:{uuid.uuid4().hex[:12]}"
    yield tag
    client = docker.from_env()
    with contextlib.suppress(docker.errors.ImageNotFound, docker.errors.APIError):
        client.images.remove(tag, force=True)
    client.close()


@pytest.fixture
def wheelhouse(tmp_path: Path) -> Path:
    """A wheelhouse with a fake CUDA torch 2.5.1+cu124 (cuDNN 9.1.0) and a fake torchvision."""
    house = tmp_path / "wheels"
    house.mkdir()
    make_fake_torch(house)
    make_wheel(
        house,
        "torchvision",
        "0.20.1+cu124",
        {"torchvision/__init__.py": "__version__ = '0.20.1+cu124'\n"},
        requires=("torch==2.5.1",),
    )
    return house


@pytest.fixture
def cpu_wheelhouse(tmp_path: Path) -> Path:
    """Like `wheelhouse` but torch is a CPU-only build (torch.version.cuda is None)."""
    house = tmp_path / "cpu-wheels"
    house.mkdir()
    make_fake_torch(house, version="2.5.1+cpu", cuda=None)
    make_wheel(
        house,
        "torchvision",
        "0.20.1",
        {"torchvision/__init__.py": "__version__ = '0.20.1'\n"},
        requires=("torch==2.5.1",),
    )
    return house


@pytest.fixture(autouse=True)
def _renders_for_x86_64(monkeypatch: pytest.MonkeyPatch) -> None:
    """`render` without --platform or a target host renders for the machine it runs on; the
    builder's golden Dockerfiles are x86_64 ones, so pin that machine for every test here."""
    import platform

    monkeypatch.setattr(platform, "machine", lambda: "x86_64")
