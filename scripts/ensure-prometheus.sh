#!/usr/bin/env bash
# Make Debian's Prometheus server and promtool available for the test suite, idempotently:
# install the `prometheus` package when `prometheus` or `promtool` is missing. Nothing is
# started here: the tests start their own server on 127.0.0.1 with a temporary configuration
# (tests/prometheus/test_real_prometheus.py), and the package's own service is left alone.
set -euo pipefail

log() { printf 'ensure-prometheus: %s\n' "$*" >&2; }

if command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1; then
    log "prometheus and promtool already installed"
    exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    log "prometheus is not installed and this is not root on Debian/Ubuntu:"
    log "  sudo apt-get install prometheus     (then rerun; the real-Prometheus tests skip until then)"
    exit 3
fi
log "installing prometheus from Debian's packages"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# --no-install-recommends: the server and promtool only, not node-exporter and its friends.
apt-get install -y -qq --no-install-recommends prometheus >/dev/null
command -v prometheus >/dev/null && command -v promtool >/dev/null
log "prometheus $(prometheus --version 2>&1 | head -n 1)"
