"""Reporters: present a CheckRun (text, JSON, JUnit XML, GitHub annotations, markdown,
Prometheus) or a fleet of them. No judging here."""

from __future__ import annotations

FORMATS = ("text", "json", "junit", "github")
