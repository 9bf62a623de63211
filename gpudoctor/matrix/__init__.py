"""The compatibility matrix: typed model, validated loading and queries (choosing a build and
its image row is gpudoctor.compat's job: compat/choose.py and compat/resolve.py).

Public API (import from here):
- load_matrix(path=None) -> Matrix         matrix/load.py (None: the shipped matrices/compat.toml)
- queries in matrix/queries.py (see their docstrings)
"""
