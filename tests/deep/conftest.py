"""Deep-probe tests import the fake torch helper from this folder."""

from __future__ import annotations
