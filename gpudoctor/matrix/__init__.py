"""The compatibility matrix: typed model, validated loading, queries and resolution.

Public API (import from here):
- load_matrix(path=None) -> Matrix         matrix/load.py (None: the shipped matrices/compat.toml)
- resolve(matrix, request) -> ResolvedRow      matrix/resolve.py (raises NoMatchingRow)
- queries in matrix/queries.py (see their docstrings)
"""
