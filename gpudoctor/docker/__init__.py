"""The container engine: where the daemon is and its timeouts (`endpoint.py`), the contract the
builder and `check --image` talk to (`engine.py`) and its Docker SDK implementation
(`sdk_engine.py`). Below the probes and the builder, so that both can use it."""

from __future__ import annotations
