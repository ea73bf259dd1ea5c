"""The one exception family that crosses bugsmith's module boundaries.

The CLI turns any `BugsmithError` into a one-line message and a non-zero exit status; anything
else escaping the library is a bug in bugsmith.
"""


class BugsmithError(Exception):
    """Base of every error bugsmith reports to its user."""

    exit_code = 2


class ConfigError(BugsmithError):
    """Bad options, paths or `[tool.bugsmith]` settings."""


class SourceError(BugsmithError):
    """A source file cannot be read or parsed."""


class BaselineError(BugsmithError):
    """The unmutated code fails its own tests, so no verdict would mean anything."""


class HarnessError(BugsmithError):
    """The machinery itself failed (a worker's control run, a lost worker, a broken store)."""


class UnknownMutantError(BugsmithError):
    """A mutant id that no stored run knows."""
