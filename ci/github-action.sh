#!/usr/bin/env bash
# The logic of the gpudoctor GitHub Action (action.yml), kept here so it runs and is tested locally.
#
#   ci/github-action.sh install   create a venv under $RUNNER_TEMP and pip install gpudoctor into it
#   ci/github-action.sh check     detect a GPU, run `gpudoctor check`, set outputs, exit with its code
#
# Inputs come as INPUT_* environment variables (action.yml maps them; never interpolated into the
# script, so an input cannot inject shell): INPUT_REQUIRE, INPUT_FRAMEWORK, INPUT_CUDA,
# INPUT_STRICT, INPUT_FORMAT, INPUT_OUTPUT, INPUT_FROM, INPUT_SKIP_WITHOUT_GPU, INPUT_PYTHON.
# GPUDOCTOR / GPUDOCTOR_PYTHON name the installed command and its interpreter.
# Outputs (appended to $GITHUB_OUTPUT): exit-code, result, gpu-present, snapshot.
set -euo pipefail

say() { printf 'gpudoctor-action: %s\n' "$*"; }

# name value: an action output, also echoed for local runs. A value with a line break (an input
# such as INPUT_FROM can hold one) goes in GitHub's delimiter form with a random delimiter it
# cannot contain; as `name=value` its second line would set another output (result=passed).
# The echo shows line breaks as \n, so a value cannot start a workflow command on stdout.
output() {
    local shown=${2//$'\r'/\\r} delimiter
    say "output $1=${shown//$'\n'/\\n}"
    if [ -z "${GITHUB_OUTPUT:-}" ]; then return; fi
    case "$2" in
        *$'\n'* | *$'\r'*)
            delimiter="ghadelimiter_$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
            while [[ "$2" == *"$delimiter"* ]]; do delimiter="${delimiter}x"; done
            printf '%s<<%s\n%s\n%s\n' "$1" "$delimiter" "$2" "$delimiter" >>"$GITHUB_OUTPUT"
            ;;
        *) printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT" ;;
    esac
}

summary() {
    if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then printf '%s\n' "$*" >>"$GITHUB_STEP_SUMMARY"; fi
}

trim() {
    local s=$1
    s=${s#"${s%%[![:space:]]*}"}
    printf '%s' "${s%"${s##*[![:space:]]}"}"
}

boolean() {  # variable input-name value: sets variable to true or false; else bad input (exit 2)
    case "$(printf '%s' "$3" | tr '[:upper:]' '[:lower:]')" in
        true | yes | 1) printf -v "$1" true ;;
        false | no | 0 | "") printf -v "$1" false ;;
        *)
            echo "::error title=gpudoctor::input $2 must be true or false, not '$3'"
            exit 2
            ;;
    esac
}

# Requirement expressions, one per line or comma-separated; blanks and empty pieces are dropped.
split_requirements() {
    local text=${1//$'\r'/} item
    REQUIRES=()
    while IFS= read -r item; do
        item=$(trim "$item")
        if [ -n "$item" ]; then REQUIRES+=("$item"); fi
    done <<<"${text//,/$'\n'}"
}

# "true" when the snapshot shows an NVIDIA GPU (NVML or the PCI bus), "false" when it shows none.
# A GPU on the PCI bus that NVML cannot see counts as present: that runner is broken, not CPU-only.
# "unknown" for anything else `from` may name (a pasted text report): it describes no runner.
gpu_in_snapshot() {
    "$PYTHON" -c '
import json, sys
try:
    facts = json.load(open(sys.argv[1], encoding="utf-8"))
except (OSError, ValueError):
    print("unknown")
    sys.exit(0)
if not isinstance(facts, dict):
    print("unknown")
    sys.exit(0)
nvml = facts.get("nvml") or {}
pci = (facts.get("kernel") or {}).get("pci_devices") or []
present = (nvml.get("device_count") or 0) > 0 or bool(nvml.get("gpus")) or any(
    d.get("kind") == "gpu" for d in pci
)
print("true" if present else "false")
' "$1"
}

detect_gpu() {  # sets GPU_PRESENT (true|false|unknown) and SNAPSHOT
    if [ -n "${INPUT_FROM:-}" ]; then
        SNAPSHOT=$INPUT_FROM
    else
        SNAPSHOT="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/gpudoctor-snapshot.json"
        if ! "$GPUDOCTOR" snapshot -o "$SNAPSHOT"; then
            say "could not take a snapshot; judging the runner without GPU detection"
            GPU_PRESENT=unknown SNAPSHOT=""
            return
        fi
    fi
    GPU_PRESENT=$(gpu_in_snapshot "$SNAPSHOT") || GPU_PRESENT=unknown
}

result_name() {
    case $1 in
        0) echo passed ;;
        1) echo failed ;;
        2) echo bad-input ;;
        3) echo environment ;;
        *) echo error ;;
    esac
}

run_check() {
    local strict skip rc=0
    boolean strict strict "${INPUT_STRICT:-false}"
    boolean skip skip-without-gpu "${INPUT_SKIP_WITHOUT_GPU:-false}"
    detect_gpu
    output gpu-present "$GPU_PRESENT"
    output snapshot "$SNAPSHOT"
    if [ "$GPU_PRESENT" = false ] && [ "$skip" = true ]; then
        echo "::notice title=gpudoctor::No NVIDIA GPU on this runner: checks skipped (skip-without-gpu: true)"
        summary "### gpudoctor: skipped"
        summary "No NVIDIA GPU on this runner, and \`skip-without-gpu\` is true: nothing was checked."
        output result skipped
        output exit-code 0
        return 0
    fi
    local cmd=("$GPUDOCTOR" check --format "${INPUT_FORMAT:-github}")
    split_requirements "${INPUT_REQUIRE:-}"
    for req in ${REQUIRES[@]+"${REQUIRES[@]}"}; do cmd+=(--require "$req"); done
    if [ -n "${INPUT_FRAMEWORK:-}" ]; then cmd+=(--framework "$(trim "$INPUT_FRAMEWORK")"); fi
    if [ -n "${INPUT_CUDA:-}" ]; then cmd+=(--cuda "$(trim "$INPUT_CUDA")"); fi
    if [ "$strict" = true ]; then cmd+=(--strict); fi
    if [ -n "${INPUT_FROM:-}" ]; then cmd+=(--from "$INPUT_FROM"); fi
    if [ -n "${INPUT_OUTPUT:-}" ]; then cmd+=(-o "$INPUT_OUTPUT"); fi
    say "running:$(printf ' %q' "${cmd[@]}")"
    "${cmd[@]}" || rc=$?
    if [ "$GPU_PRESENT" = false ]; then
        # A GPU pre-flight on a CPU runner must not pass quietly, whatever the checks concluded.
        echo "::error title=gpudoctor::No NVIDIA GPU on this runner. Run the job on a GPU runner, or set skip-without-gpu: true to skip the checks where there is none."
        summary "**gpudoctor: no NVIDIA GPU on this runner** (set \`skip-without-gpu: true\` to skip instead)."
        if [ "$rc" -eq 0 ]; then rc=1; fi
    fi
    if [ "${INPUT_FORMAT:-github}" != github ]; then
        summary "gpudoctor check: $(result_name "$rc") (exit $rc)"
    fi
    output result "$(result_name "$rc")"
    output exit-code "$rc"
    return "$rc"
}

install() {
    # A venv of its own: system Pythons that follow PEP 668 refuse a plain `pip install`.
    local venv="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/gpudoctor-venv"
    local source=${GPUDOCTOR_SOURCE:?GPUDOCTOR_SOURCE must name what to pip install}
    if ! "${INPUT_PYTHON:-python3}" -m venv "$venv"; then
        echo "::error title=gpudoctor::'${INPUT_PYTHON:-python3} -m venv' failed. Install python3-venv, or run actions/setup-python before this action."
        exit 3
    fi
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$source"
    if [ -n "${GITHUB_ENV:-}" ]; then
        printf 'GPUDOCTOR=%s\nGPUDOCTOR_PYTHON=%s\n' "$venv/bin/gpudoctor" "$venv/bin/python" >>"$GITHUB_ENV"
    fi
    say "installed $("$venv/bin/gpudoctor" --version)"
}

main() {
    GPUDOCTOR=${GPUDOCTOR:-gpudoctor}
    PYTHON=${GPUDOCTOR_PYTHON:-python3}
    case ${1:-check} in
        install) install ;;
        check) run_check ;;
        *)
            echo "usage: $0 [install|check]" >&2
            exit 2
            ;;
    esac
}

main "$@"
