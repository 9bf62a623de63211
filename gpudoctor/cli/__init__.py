"""The command line: the commands hand the real edges to the layers below, which take them as
parameters (`probes.collect_facts`, whose defaults are the real filesystem root, NVML and
Docker; the Docker SDK engine of `build`)."""
