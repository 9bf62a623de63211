"""Print docs/findings.md: `python -m gpudoctor.cli.docgen > docs/findings.md`.

The check codes (checks/catalogue.py) and the builder's verify codes (builder/verify_codes.py),
so that every `docs` anchor a finding carries exists, and the outputs a pasted report may hold
(pasted/dispatch.py's shapes), which the "no report recognised" hint points to. It joins the
checks' codes and the builder's, so it sits in `cli/`, the one package above both; a module of
its own so that running it does not re-import the catalogue the package already loaded.
"""

from __future__ import annotations

import sys

from gpudoctor.areas import IMAGE
from gpudoctor.builder.verify_codes import ENTRIES
from gpudoctor.checks.catalogue import markdown
from gpudoctor.pasted.dispatch import SHAPES_ANCHOR, known_shapes


def document() -> str:
    shapes = [
        "",
        f'## <a id="{SHAPES_ANCHOR}"></a>What a pasted report may hold',
        "",
        "`check --from FILE` recognises these outputs by their shape, in any mix and order, "
        "inside a log's envelope or a Markdown issue; what none of them shows stays unknown.",
        "",
        *(f"- {shape}" for shape in known_shapes()),
        "",
    ]
    return markdown(extra=[(IMAGE.title, ENTRIES)]) + "\n".join(shapes)


if __name__ == "__main__":
    sys.stdout.write(document())
