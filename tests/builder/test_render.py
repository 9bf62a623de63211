"""The template renders exact, hadolint-clean Dockerfiles (golden files under tests/data/build).

Every Dockerfile rendered here goes through `hadolint --failure-threshold warning`: a finding at
warning level or above fails the test. Rewrite the goldens with GPUDOCTOR_UPDATE_GOLDEN=1 and
review the diff.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gpudoctor.builder.render import render_dockerfile
from gpudoctor.builder.spec import BuildOptions, make_spec
from gpudoctor.errors import RenderError, UsageError
from gpudoctor.resources import templates_dir
from tests.support.builder import ROW, TF_ROW, hadolint
from tests.support.golden import update_golden

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "build" / "golden"
DIGEST = "sha256:" + "0123456789abcdef" * 4


def render(row=ROW, **options: object) -> str:  # type: ignore[no-untyped-def]
    text = render_dockerfile(make_spec(row, BuildOptions(**options)), templates_dir())  # type: ignore[arg-type]
    hadolint(text)
    return text


CASES = {
    "pytorch-runtime": render,
    "pytorch-digest-extras": lambda: render(
        dataclasses.replace(ROW, base_digest=DIGEST), pip=("numpy<2", "einops==0.8.0")
    ),
    "pytorch-offline-mirror": lambda: render(
        base_image="mirror.example:5000/nvidia/cuda:12.4.1-runtime-ubuntu22.04",
        wheelhouse=Path(__file__).parent,
        pip=("numpy<2",),
    ),
    "tensorflow-runtime": lambda: render(TF_ROW),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_rendered_dockerfile_matches_golden(name: str) -> None:
    text = CASES[name]()
    golden = GOLDEN / f"{name}.Dockerfile"
    if update_golden():
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


def test_every_row_of_the_shipped_matrix_renders_hadolint_clean() -> None:
    from gpudoctor.compat.resolve import all_rows
    from gpudoctor.matrix.load import load_matrix

    rows = all_rows(load_matrix())
    assert rows
    for row in rows:
        text = render_dockerfile(make_spec(row, BuildOptions()), templates_dir())
        assert f"FROM {row.base_image}" in text
        hadolint(text)


def test_rendering_is_deterministic_and_sorted() -> None:
    first = render(pip=("b-pkg", "a-pkg", "b-pkg"))
    assert first == render(pip=("a-pkg", "b-pkg"))
    lines = first.splitlines()
    start = max(i for i, line in enumerate(lines) if line.startswith("LABEL "))
    block = lines[start : start + 20]
    block = block[: next(i for i, line in enumerate(block) if not line.endswith("\\")) + 1]
    keys = [line.removeprefix("LABEL ").strip().split("=")[0] for line in block]
    assert len(keys) >= 15
    assert keys == sorted(keys)
    assert first.endswith("\n")
    assert not first.endswith("\n\n")


def test_pins_and_promises_reach_the_dockerfile() -> None:
    text = render(dataclasses.replace(ROW, base_digest=DIGEST))
    assert f"FROM {ROW.base_image}@{DIGEST} AS python" in text
    assert "--index-url https://download.pytorch.org/whl/cu124" in text
    # the model's rule, ORed with whatever the base declares (NVIDIA's brand clauses)
    assert 'NVIDIA_REQUIRE_CUDA="cuda>=12.0${NVIDIA_REQUIRE_CUDA:+ }${NVIDIA_REQUIRE_CUDA}"' in text
    assert 'NVIDIA_VISIBLE_DEVICES="all"' in text
    assert 'NVIDIA_DRIVER_CAPABILITIES="compute,utility"' in text
    assert 'io.gpudoctor.cudnn="9.1.0.70"' in text
    assert 'io.gpudoctor.min-driver="525.60.13"' in text
    assert 'io.gpudoctor.native-driver="550.54.14"' in text
    assert f'org.opencontainers.image.base.digest="{DIGEST}"' in text
    assert "USER 10001:10001" in text.splitlines()[-2]
    assert "--no-cache-dir" in text
    assert "rm -rf /var/lib/apt/lists/*" in text
    assert "torch==" not in text  # requirements travel in a file, never on a RUN line


def test_user_requirements_never_reach_a_run_line() -> None:
    text = render(pip=("numpy; python_version < '3.12'",))
    assert "numpy" not in text
    assert "-c /tmp/gpudoctor/requirements.txt -r /tmp/gpudoctor/extra-requirements.txt" in text


def test_strict_undefined_names_the_missing_value(tmp_path: Path) -> None:
    (tmp_path / "Dockerfile.j2").write_text("FROM {{ base_image }}\nRUN {{ no_such_value }}\n")
    with pytest.raises(RenderError, match="no_such_value"):
        render_dockerfile(make_spec(ROW, BuildOptions()), tmp_path)


def test_missing_template_is_a_render_error(tmp_path: Path) -> None:
    with pytest.raises(RenderError, match="not found"):
        render_dockerfile(make_spec(ROW, BuildOptions()), tmp_path)


def test_template_syntax_error_names_the_line(tmp_path: Path) -> None:
    (tmp_path / "Dockerfile.j2").write_text("FROM x\n{% if %}\n")
    with pytest.raises(RenderError, match="line 2"):
        render_dockerfile(make_spec(ROW, BuildOptions()), tmp_path)


def test_matrix_values_with_quotes_never_reach_a_label() -> None:
    bad = dataclasses.replace(ROW, version='2.5.1" \\\nRUN id #')
    with pytest.raises(UsageError, match="matrix row"):
        make_spec(bad, BuildOptions())
