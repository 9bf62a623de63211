"""Facts read from released wheels without importing them: METADATA, torch/version.py, and the
GPU architectures compiled into their shared libraries; and the package index that serves them."""
