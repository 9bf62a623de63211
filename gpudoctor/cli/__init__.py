"""The command line. Only this package wires real edges (NVML, filesystem root, Docker)."""
