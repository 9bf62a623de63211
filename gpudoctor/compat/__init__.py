"""The one compatibility model: does framework build B run on host H, and which build should
this host run. Every command asks it (check's findings and intent lines, the pip fixes,
`matrix resolve`, `build`, `render --all`, the image labels); nothing else judges a build.

- `host.Host`: the facts the model reads (driver, each GPU's compute capability and class,
  forward-compatibility libraries, machine); made from a snapshot or from flags.
- `builds.Build` / `builds.enumerate_builds`: the one enumerator of candidate framework builds.
- `tiers.judge`: a build on a host -> `Verdict` (tier, reasons, limits, way out, kernels per GPU).
- `choose.rank` / `choose.pick`: "what should I run here", the same answer for every consumer.

The rules are written out in docs/matrix-format.md ("The compatibility model").
"""
