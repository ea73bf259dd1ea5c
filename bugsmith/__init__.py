"""bugsmith: inject realistic bugs into correct Python code, prove a suite catches each one,
and turn the caught bugs into debugging exercises.

One import name for everything: `bugsmith.mutators` (libcst rewrites and the Mutant record),
`bugsmith.harness` (runs, reports, exercises, the CLI) and `bugsmith.reference` (the built-in
problems). In a checkout those live in the top-level folders `mutators/`, `harness/` and
`reference/`; `pyproject.toml` maps them under this package.
"""

from importlib import metadata

try:
    __version__ = metadata.version("bugsmith")
except metadata.PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0+unknown"
