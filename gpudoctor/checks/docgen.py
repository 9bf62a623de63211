"""Print docs/findings.md: `python -m gpudoctor.checks.docgen > docs/findings.md`.

A separate module so that running it does not re-import the catalogue the package already loaded.
"""

from __future__ import annotations

import sys

from gpudoctor.checks.catalogue import markdown

if __name__ == "__main__":
    sys.stdout.write(markdown())
