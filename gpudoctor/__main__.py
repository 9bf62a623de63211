"""`python -m gpudoctor` runs the same command line as the `gpudoctor` script."""

from __future__ import annotations

from gpudoctor.cli.app import main

if __name__ == "__main__":
    main()
