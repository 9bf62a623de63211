"""Reporters: present a CheckRun as text, JSON, JUnit XML or GitHub annotations. No judging here."""

from __future__ import annotations

FORMATS = ("text", "json", "junit", "github")
