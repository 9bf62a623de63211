"""`gpudoctor serve`: run the checks on a schedule and serve the last result over HTTP.

`schedule.py` runs a judge (collect facts, run checks, render the metrics) in the background and
keeps the last outcome; `live.py` turns the schedule's state into the exporter's own metrics and
the readiness verdict; `http.py` serves them. A scrape only reads what the schedule kept: it
never runs a check and never waits for one. The probes are wired by `cli/serve_cmd.py`; here the
judge is a parameter, so the tests drive the exporter with stand-in judges (one that hangs).
"""

from __future__ import annotations
