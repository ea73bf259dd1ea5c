"""The one exception family that crosses bugsmith's module boundaries.

A neutral module (it imports nothing of ours), so that `bugsmith.mutators`, `bugsmith.harness`
and the helper interpreters can all raise and catch the same errors without importing each
other. The CLI turns any `BugsmithError` into a one-line message and its `exit_code`; anything
else escaping the library is a bug in bugsmith (exit 4).

Exit statuses (README, "Exit statuses"): 0 ok; 1 the score is under `--fail-under` (or a
graded submission fails); 2 usage or configuration error; 3 the unmutated code fails its own
tests; 4 bugsmith itself failed; 130 interrupted.
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

    exit_code = 3


class HarnessError(BugsmithError):
    """The machinery itself failed (a worker's control run, a lost worker, a broken store)."""

    exit_code = 4


class UnknownMutantError(BugsmithError):
    """A mutant id that no stored run knows."""
