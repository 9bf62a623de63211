# Sourced by scripts/install.sh, scripts/test.sh and .ci/run: create (once) the repository's own
# virtual environment, install gpudoctor into it (with its `dev` extras unless GPUDOCTOR_INSTALL
# names another requirement, e.g. `.` for the tool alone; again only when pyproject.toml or that
# choice changed), and put its bin/ first on PATH (pytest, ruff, mypy and hadolint come from there).
#
# It never installs into the system Python: Debian 12 and Ubuntu 24.04 mark theirs as externally
# managed (PEP 668) and refuse `pip install` there. Set GPUDOCTOR_VENV to use another folder.
# shellcheck shell=bash

_venv_log() { printf 'venv: %s\n' "$*" >&2; }

GPUDOCTOR_VENV="${GPUDOCTOR_VENV:-$PWD/.venv}"

# gpudoctor runs on Python 3.9 and newer (pyproject's requires-python).
_venv_fits() { "$1" -c 'import sys; sys.exit(sys.version_info < (3, 9))' >/dev/null 2>&1; }

if [ -n "${PYTHON:-}" ]; then  # asked for by name: that one or nothing
    _python=$PYTHON
    if ! command -v "$_python" >/dev/null 2>&1; then
        _venv_log "PYTHON=$_python: no such command"
        exit 1
    fi
    if ! _venv_fits "$_python"; then
        _venv_log "PYTHON=$_python is $("$_python" -V 2>&1): gpudoctor needs Python 3.9 or newer"
        exit 1
    fi
elif [ -x "$GPUDOCTOR_VENV/bin/pip" ] && _venv_fits "$GPUDOCTOR_VENV/bin/python"; then
    _python="$GPUDOCTOR_VENV/bin/python"  # made before: keep its interpreter
elif command -v python3 >/dev/null 2>&1 && _venv_fits python3; then
    _python=python3
else
    # An older default python3 (Ubuntu 20.04: 3.8, RHEL 8: 3.6): a newer python3.X beside it.
    _python=""
    for _minor in 14 13 12 11 10 9; do
        if command -v "python3.$_minor" >/dev/null 2>&1 && _venv_fits "python3.$_minor"; then
            _python="python3.$_minor"
            break
        fi
    done
    _default="$(python3 -V 2>&1 || true)"
    if [ -z "$_python" ]; then
        _venv_log "gpudoctor needs Python 3.9 or newer; python3 here is ${_default:-missing} and no python3.9 ... python3.14 is on PATH. Install one, then run this again:"
        _venv_log "  Ubuntu 20.04:            sudo apt-get install python3.9 python3.9-venv"
        _venv_log "  RHEL/Rocky/Alma 8:       sudo dnf install python3.11"
        _venv_log "  any other: Python 3.9 or newer from your distribution or python.org; PYTHON=/path/to/python3.X names it"
        _venv_log "  (without a venv: python3.X gpudoctor.pyz check, the single file scripts/build_pyz.py makes)"
        exit 1
    fi
    _venv_log "python3 is ${_default:-missing} (gpudoctor needs 3.9 or newer): using $_python"
fi

# Debian and Ubuntu ship `venv` without ensurepip unless python3-venv is installed.
if [ ! -x "$GPUDOCTOR_VENV/bin/pip" ] && ! "$_python" -c 'import ensurepip' >/dev/null 2>&1; then
    # The default python3's venv comes in python3-venv; python3.X's in python3.X-venv.
    case "${_python##*/}" in python3.*) _pkg="${_python##*/}-venv" ;; *) _pkg="python3-venv" ;; esac
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        _venv_log "$_python -m venv needs $_pkg: installing it with apt-get"
        DEBIAN_FRONTEND=noninteractive apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$_pkg" >/dev/null
    else
        _venv_log "$_python -m venv needs the $_pkg package, and this is not root:"
        _venv_log "  sudo apt-get install $_pkg     (then run this again)"
        exit 1
    fi
fi

if [ -x "$GPUDOCTOR_VENV/bin/pip" ] && ! _venv_fits "$GPUDOCTOR_VENV/bin/python"; then
    _venv_log "$GPUDOCTOR_VENV has $("$GPUDOCTOR_VENV/bin/python" -V 2>&1), older than 3.9: making it again"
    rm -rf "$GPUDOCTOR_VENV"
fi
if [ ! -x "$GPUDOCTOR_VENV/bin/pip" ]; then
    rm -rf "$GPUDOCTOR_VENV"  # a half-made one (venv without pip) would fail below
    _venv_log "creating $GPUDOCTOR_VENV with $("$_python" -V 2>&1)"
    "$_python" -m venv "$GPUDOCTOR_VENV"
fi

# Install when the venv is new, or pyproject.toml or the requirement changed since the last install.
_spec="${GPUDOCTOR_INSTALL:-.[dev]}"
_stamp="$GPUDOCTOR_VENV/.gpudoctor-installed"
_want="$(cksum < pyproject.toml) $_spec"
if [ ! -f "$_stamp" ] || [ "$(cat "$_stamp")" != "$_want" ]; then
    _venv_log "installing gpudoctor: pip install -e '$_spec'"
    "$GPUDOCTOR_VENV/bin/python" -m pip install -q --disable-pip-version-check -e "$_spec"
    printf '%s\n' "$_want" > "$_stamp"
fi

export VIRTUAL_ENV="$GPUDOCTOR_VENV"
export PATH="$GPUDOCTOR_VENV/bin:$PATH"
unset _python _pkg _spec _stamp _want _minor _default
