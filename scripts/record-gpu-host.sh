#!/usr/bin/env bash
# Record a real GPU host for the test suite and run the checks that need a GPU, in one bounded
# pass (a borrowed GPU machine is lent for minutes, so every step has its own time limit and a
# failing step never stops the next one).
#
#   bash scripts/record-gpu-host.sh OUTDIR
#
# Runs from the repository root with the `python3` on PATH (PYTHON=... to choose another); the
# package is imported from the checkout, so nothing is installed. OUTDIR receives:
#   snapshot.json     `gpudoctor snapshot --deep` (redacted: no hostname, UUIDs or serials)
#   check.json        the live `gpudoctor check --deep --format json`
#   nvidia-smi.txt    `nvidia-smi` and `nvidia-smi -q`, serials and UUIDs masked: pastes the
#   collect_env.txt   PyTorch's collect_env                  report reader is tested on
#   pytest-gpu.log    the `gpu`-marked tests
#   pytest-fast.log   the quick suite on a GPU host (tests must not assume there is no GPU)
#   log.txt           every step's command, exit status and milliseconds, and the host's outline
set -u
out=${1:?usage: record-gpu-host.sh OUTDIR}
mkdir -p "$out"
py=${PYTHON:-python3}
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
log="$out/log.txt"

# step SECONDS FILE CMD...: run CMD under a time limit, its output to FILE (appended), and log
# the command, its exit status and how long it took.
step() {
    local limit=$1 file=$2 start rc
    shift 2
    start=$(date +%s%N)
    printf '\n$ %s\n' "$*" >>"$file"
    timeout --kill-after=5 "$limit" "$@" >>"$file" 2>&1
    rc=$?
    printf '== rc=%s ms=%s: %s\n' "$rc" "$((($(date +%s%N) - start) / 1000000))" "$*" | tee -a "$log"
}

# Serial numbers, UUIDs and the GPU PDI are the machine's identity, not facts any check reads.
mask() {
    sed -E -e 's/(Serial Number[[:space:]]*:[[:space:]]*)[^[:space:]].*/\1[masked]/' \
        -e 's/(GPU PDI[[:space:]]*:[[:space:]]*)0x[0-9a-fA-F]+/\10x0000000000000000/' \
        -e 's/(GPU|MIG)-[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}/\1-00000000-0000-0000-0000-000000000000/g'
}

{
    echo "recorded $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    uname -srm
    "$py" -V
    "$py" -c 'import importlib.metadata as m
for n in ("torch", "jax", "jaxlib", "cupy-cuda13x", "nvidia-ml-py", "typer", "docker", "pytest"):
    try:
        print(n, m.version(n))
    except m.PackageNotFoundError:
        print(n, "not installed")'
    cat /proc/driver/nvidia/version 2>&1 | head -3
    command -v nvidia-smi nvcc
    ls /dev/nvidia* 2>&1 | head -20
} >>"$log" 2>&1

step 180 "$log" "$py" -m gpudoctor snapshot --deep --deep-timeout 90 -o "$out/snapshot.json"
step 60 "$log" "$py" -m gpudoctor check
step 180 "$log" "$py" -m gpudoctor check --deep --deep-timeout 90 --format json -o "$out/check.json"
step 30 "$log" "$py" -m gpudoctor check --from "$out/snapshot.json" -v

{
    nvidia-smi 2>&1
    echo
    nvidia-smi -q 2>&1
} | mask >"$out/nvidia-smi.txt"
timeout 90 "$py" -m torch.utils.collect_env 2>&1 | mask >"$out/collect_env.txt"
step 30 "$log" "$py" -m gpudoctor check --from "$out/nvidia-smi.txt" -v
step 30 "$log" "$py" -m gpudoctor check --from "$out/collect_env.txt" -v

step 90 "$out/pytest-gpu.log" "$py" -m pytest -p no:cacheprovider -rA -m gpu tests
# pytest-xdist spreads the quick suite over the machine's cores when it is installed;
# PYTEST_ARGS adds arguments (e.g. "--ignore=tests/pyz" where no package index answers).
xdist=()
"$py" -c 'import xdist' 2>/dev/null && xdist=(-n "$(nproc)")
read -ra extra <<<"${PYTEST_ARGS:-}"
step 180 "$out/pytest-fast.log" "$py" -m pytest -p no:cacheprovider -q -rfE "${xdist[@]}" \
    "${extra[@]}" -m "not docker and not slow and not manual and not gpu" tests
tail -3 "$out/pytest-fast.log" >>"$log"
exit 0
