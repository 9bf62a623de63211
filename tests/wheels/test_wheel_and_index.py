"""Reading wheels (METADATA, torch/version.py, fatbins) locally and over a 127.0.0.1 index, with
and without range support, through JSON and HTML simple pages; pip's configured index."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from packaging.version import Version

from gpudoctor.netread import Client
from gpudoctor.wheels import index, release
from gpudoctor.wheels.fields import release_fields
from gpudoctor.wheels.index import MalformedIndexPage
from gpudoctor.wheels.remote import IndexUnreachable
from gpudoctor.wheels.wheel import parse_version_py, read_wheel
from tests.support.wheels import Index, serve, torch_wheel, wheel

ARCHES = [("sass", 75, ""), ("sass", 90, ""), ("sass", 90, "a"), ("sass", 120, "")]


def test_read_wheel_without_importing_it() -> None:
    data = torch_wheel("2.9.1", "12.8", "9.10.2.21", ARCHES)
    facts = read_wheel(
        io.BytesIO(data), "torch-2.9.1-cp312-cp312-manylinux_2_28_x86_64.whl", fatbins=True
    )
    assert facts.requires_python == ">=3.9"
    assert facts.torch_version_py["cuda"] == "12.8"
    assert facts.pins() == {"nvidia-cudnn-cu12": "9.10.2.21"}
    assert facts.fatbin_libraries == ("torch/lib/libtorch_cuda.so",)
    wheels = release.ReleaseWheels("torch", Version("2.9.1"), ())
    by_key = {f.key: f for f in release_fields(wheels, facts)}
    assert by_key["cuda"].value == "12.8"
    assert by_key["cudnn"].value == "9.10.2.21"
    assert "nvidia-cudnn-cu12==9.10.2.21" in by_key["cudnn"].evidence
    assert by_key["arch_list"].value == ("7.5", "9.0", "9.0a", "12.0")
    assert "PTX: none" in by_key["arch_list"].evidence


def test_version_py_is_parsed_not_executed() -> None:
    text = "import os\nos.system('false')\ncuda = '13.0'\nhip = None\nx = compute()\n"
    assert parse_version_py(text) == {"cuda": "13.0", "hip": ""}


def test_tensorflow_cuda_and_cudnn_from_the_and_cuda_extra() -> None:
    data = wheel(
        "tensorflow",
        "2.21.0",
        requires=(
            'nvidia-cuda-runtime-cu12<13.0,>=12.5.82; extra == "and-cuda"',
            "nvidia-cudnn-cu12 (==8.9.4.25) ; extra == 'and-cuda'",
        ),
    )
    facts = read_wheel(io.BytesIO(data), "tensorflow-2.21.0-cp312-cp312-manylinux_2_27_x86_64.whl")
    wheels = release.ReleaseWheels("tensorflow", Version("2.21.0"), ())
    by_key = {f.key: f for f in release_fields(wheels, facts)}
    assert by_key["cuda"].value == "12.5"
    assert by_key["cudnn"].value == "8.9"


@pytest.mark.parametrize("json_pages", [True, False], ids=["pep691-json", "pep503-html"])
@pytest.mark.parametrize("ranges", [True, False], ids=["range", "no-range"])
def test_release_read_over_http(json_pages: bool, ranges: bool) -> None:
    served = Index(json_pages=json_pages, ranges=ranges)
    data = torch_wheel("2.9.1", "12.8", "9.10.2.21", ARCHES)
    for tag in ("cp311", "cp312", "cp313t"):
        served.add("torch", f"torch-2.9.1-{tag}-{tag}-manylinux_2_28_x86_64.whl", data)
    served.add("torch", "torch-2.9.1-cp312-none-macosx_11_0_arm64.whl", b"")
    served.add("torch", "torch-2.10.0rc1-cp312-cp312-manylinux_2_28_x86_64.whl", b"")
    with serve(served) as url:
        found = release.releases("torch", index.project_files(Client(), url, "torch"))
        assert list(found) == [Version("2.9.1")]
        wheels = found[Version("2.9.1")]
        assert wheels.pythons == ("3.11", "3.12")  # free-threaded and macOS wheels don't count
        facts = release.read(Client(), wheels.representative(), fatbins=True)
    assert facts.torch_version_py["cuda"] == "12.8"
    assert len(facts.fatbins) == 1
    assert len(facts.fatbins[0]) == 4


def test_range_requests_fetch_only_what_is_read() -> None:
    served = Index()
    noise = os.urandom(3_000_000)  # incompressible: stays 3 MB inside the zip
    data = torch_wheel("2.9.1", "12.8", "9.10.2.21", ARCHES, extra={"torch/lib/big.so": noise})
    served.add("torch", "torch-2.9.1-cp312-cp312-manylinux_2_28_x86_64.whl", data)
    with serve(served) as url:
        wheels = release.releases("torch", index.project_files(Client(), url, "torch"))[
            Version("2.9.1")
        ]
        facts = release.read(Client(), wheels.representative())
    assert facts.torch_version_py["cuda"] == "12.8"
    assert not facts.fatbins  # not asked for
    assert served.bytes_sent < len(data) // 2


def test_malformed_page_is_reported() -> None:
    served = Index(broken={"torch"})
    served.add("torch", "x.whl", b"")
    with serve(served) as url, pytest.raises(MalformedIndexPage, match="not a simple-API page"):
        index.project_files(Client(), url, "torch")


def test_unreachable_index_is_an_environment_error() -> None:
    with serve(Index()) as url:
        dead = url
    with pytest.raises(IndexUnreachable) as caught:
        index.project_files(Client(), dead, "torch")
    assert caught.value.exit_code == 3
    assert caught.value.hint


def test_pip_index_url_from_environment_and_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PIP_INDEX_URL", raising=False)
    low = tmp_path / "etc.conf"
    low.write_text("[global]\nindex-url = https://low.example/simple\n")
    high = tmp_path / "user.conf"
    high.write_text("[download]\nindex-url = https://mirror.example/simple\n")
    assert index.pip_index_url([low, high]) == "https://mirror.example/simple"
    assert index.pip_index_url([low]) == "https://low.example/simple"
    assert index.pip_index_url([tmp_path / "absent.conf"]) == index.PYPI
    monkeypatch.setenv("PIP_INDEX_URL", "https://env.example/simple")
    assert index.pip_index_url([low, high]) == "https://env.example/simple"
