"""Pasted text reports: read what users paste into bug reports (torch's collect_env, nvidia-smi in
its table, -q, -q -x and -L forms, pip list / freeze, /proc/driver/nvidia/version, TensorFlow's
build info and GPU log lines, error lines) into HostFacts, so that the same checks judge a host
nobody can log into.

One module per shape; each finds its block by its own shape (no flags) and writes only the facts
the text shows into a Draft; `dispatch.read_report` cleans the paste, runs every shape and builds
the HostFacts, with a ReportFacts that says what was recognised and what stayed unknown.
"""
