"""Time `render --all` over the shipped matrix: in-process by step, and as a command.

    python bench/bench_render.py [--runs N]

Prints markdown tables (median, min, max of N runs, seconds) for bench/README.md, section
"Render". Commands write into a temporary folder: the first command run renders into an empty
one (every file written), later runs find every file up to date (nothing written), which is the
common case of a regeneration. Budget: `render --all` < 1 s; the script
exits 1 when the command's median is over.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

BUDGET_S = 1.0


def _prefix() -> list[str]:
    script = shutil.which("gpudoctor")
    return [script] if script else [sys.executable, "-m", "gpudoctor"]


def time_call(call: Callable[[], object], runs: int, *, warm: bool = True) -> list[float]:
    if warm:
        call()  # imports, the template's compilation
    walls = []
    for _ in range(runs):
        started = time.perf_counter()
        call()
        walls.append(time.perf_counter() - started)
    return walls


def in_process(runs: int, work: Path) -> list[tuple[str, list[float]]]:
    from gpudoctor.builder.images import plan_images, render_images, tag_prefix
    from gpudoctor.builder.images_tree import write_tree
    from gpudoctor.compat.resolve import all_rows
    from gpudoctor.matrix.load import parse_matrix
    from gpudoctor.resources import default_matrix_path, templates_dir

    path = default_matrix_path()
    matrix = parse_matrix(path.read_text(encoding="utf-8"), path)
    template_dir = templates_dir()
    image_set = render_images(matrix, template_dir, context_root="images")
    fresh = iter(range(runs + 1))
    return [
        ("all_rows()", time_call(lambda: all_rows(matrix), runs)),
        (
            "specs (make_spec per row)",
            time_call(lambda: plan_images(all_rows(matrix), tag_prefix(None)), runs),
        ),
        (
            f"render_images(): {len(image_set.images)} Dockerfiles, README, bake",
            time_call(lambda: render_images(matrix, template_dir, context_root="images"), runs),
        ),
        (
            f"write_tree() into an empty folder ({len(image_set.files)} files)",
            time_call(
                lambda: write_tree(work / f"empty{next(fresh)}", image_set.files), runs, warm=False
            ),
        ),
        (
            "write_tree() with every file up to date",
            time_call(lambda: write_tree(work / "empty0", image_set.files), runs),
        ),
    ]


def time_command(out: Path, runs: int) -> tuple[float, list[float]]:
    """(the first run into an empty folder, the later runs with everything up to date)."""
    argv = [*_prefix(), "render", "--all", "--out", str(out)]
    walls = []
    for _ in range(runs + 1):
        started = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        walls.append(time.perf_counter() - started)
    return walls[0], walls[1:]


def row(name: str, values: list[float]) -> str:
    return f"| {name} | {statistics.median(values):.3f} | {min(values):.3f} | {max(values):.3f} |"


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory(prefix="gpudoctor-bench-render-") as tmp:
        work = Path(tmp)
        print(f"runs: {runs}; command: {' '.join(Path(p).name for p in _prefix())}\n")
        print("| in-process | median s | min s | max s |\n| --- | --- | --- | --- |")
        for name, walls in in_process(runs, work):
            print(row(name, walls))
        first, walls = time_command(work / "cli" / "images", runs)
        print("\n| command | median s | min s | max s |\n| --- | --- | --- | --- |")
        print(row("`gpudoctor render --all` into an empty folder (one run)", [first]))
        print(row("`gpudoctor render --all`, everything up to date", walls))
        size = sum(p.stat().st_size for p in (work / "cli" / "images").rglob("*") if p.is_file())
        print(f"\nimages/ holds {size / 1024:.0f} KiB of files")
    median = statistics.median(walls)
    verdict = "within" if median < BUDGET_S else "OVER"
    print(f"`gpudoctor render --all`: {median:.3f} s, {verdict} the {BUDGET_S} s budget")
    return 0 if median < BUDGET_S and first < BUDGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
