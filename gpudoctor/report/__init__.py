"""Reporters: present a CheckRun (text, JSON, JUnit XML, GitHub annotations, markdown,
Prometheus) or a fleet of them. No judging here."""

from __future__ import annotations

# `check --format`: every format one host's report is written in (a module of this package each)
FORMATS = ("text", "json", "junit", "github", "prometheus", "markdown")
# the formats a fleet (several hosts in one run) is written in: report/fleet.py
FLEET_FORMATS = ("text", "json")
