#!/usr/bin/env bash
# The whole test suite, from a fresh machine, leaving the system Python alone:
#   1. scripts/venv.sh: create .venv (installing python3-venv first when it is missing and this
#      is root), `pip install -e '.[dev]'` into it, put .venv/bin first on PATH;
#   2. scripts/ensure-docker.sh: make a Docker Engine reachable (docker tests build real images);
#   3. scripts/ensure-prometheus.sh: Debian's prometheus and promtool (the exporter and alert tests);
#   4. pytest from .venv; exit 5 (no test collected) fails the run.
# Extra arguments go to pytest, e.g. `bash scripts/test.sh -m manual` for the tests that run only
# when selected, or `-m "not slow and not docker"` for a quick run.
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=scripts/venv.sh
source scripts/venv.sh
bash scripts/ensure-docker.sh || echo "test.sh: no Docker Engine; docker tests will be skipped" >&2
bash scripts/ensure-prometheus.sh ||
    echo "test.sh: no prometheus/promtool; their tests will be skipped (failed in CI)" >&2

# pytest exits 5 when no test ran: that fails the run too (it means the suite went missing).
exec python -m pytest "$@"
