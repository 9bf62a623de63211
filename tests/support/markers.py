"""Which marked tests skip themselves, and why: the rule tests/conftest.py applies to every item.

- `manual`: skipped unless the `-m` expression names it (`-m manual`);
- `gpu`: skipped where no NVIDIA GPU answers through NVML;
- `docker`: skipped where no Docker Engine answers, unless the run requires one (CI), where
  the test then fails at setup instead;
- `slow`: never skipped here: the whole suite and CI run it; a quick run deselects it with
  `-m "not slow"`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection


def skip_reason(
    keywords: Collection[str],
    markexpr: str,
    *,
    gpu_present: Callable[[], bool],
    docker_reachable: Callable[[], bool],
    require_docker: bool,
) -> str | None:
    """The reason a test with these markers is skipped, or None when it runs. The probes of the
    host are callables, asked only for a test that carries their marker."""
    if "manual" in keywords and "manual" not in markexpr:
        return "manual test: select it with `-m manual`"
    if "gpu" in keywords and not gpu_present():
        return "needs an NVIDIA GPU with a driver"
    if "docker" in keywords and not require_docker and not docker_reachable():
        return "no Docker Engine reachable"
    return None
