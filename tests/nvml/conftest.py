"""Fixtures of the NVML probe tests; the rig itself is tests/support/nvml_rig.py."""

from __future__ import annotations

import shutil

import pytest

from tests.support.nvml_rig import VARIANTS, FakeNvml, build


@pytest.fixture(scope="session")
def fake_nvml(tmp_path_factory: pytest.TempPathFactory) -> FakeNvml:
    if shutil.which("gcc") is None:
        pytest.skip("gcc is needed to build the stand-in libnvidia-ml.so.1")
    work = tmp_path_factory.mktemp("fake-nvml")
    return FakeNvml({variant: build(variant, work) for variant in VARIANTS}, work)
