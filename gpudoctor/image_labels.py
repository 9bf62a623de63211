"""The label namespace of the images gpudoctor builds: `builder/spec.py` writes the resolved row
as `io.gpudoctor.*` labels, and `probes/image.py` (`check --image`) reads them back. Neutral, so
that the probe need not import the builder."""

from __future__ import annotations

LABEL_PREFIX = "io.gpudoctor."
