"""The image builder: spec (row + options) -> Dockerfile -> context -> engine build -> verify.

Each step is its own module and function; `pipeline.build_row` chains them.
"""
