"""Print docs/findings.md: `python -m gpudoctor.cli.docgen > docs/findings.md`.

The check codes (checks/catalogue.py) and the builder's verify codes (builder/verify_codes.py),
so that every `docs` anchor a finding carries exists. It joins the checks' codes and the
builder's, so it sits in `cli/`, the one package above both; a module of its own so that running
it does not re-import the catalogue the package already loaded.
"""

from __future__ import annotations

import sys

from gpudoctor.areas import IMAGE
from gpudoctor.builder.verify_codes import ENTRIES
from gpudoctor.checks.catalogue import markdown


def document() -> str:
    return markdown(extra=[(IMAGE.title, ENTRIES)])


if __name__ == "__main__":
    sys.stdout.write(document())
