"""A user's small src-layout project, configured for exercises only by its pyproject.toml."""

from __future__ import annotations

import textwrap
from pathlib import Path

CORE = '''\
"""Summaries of a stream of readings."""

from windowstats._validate import require_window


def trailing_mean(values, window):
    """Mean of each trailing window; None until the window is full."""
    require_window(window)
    means = []
    total = 0.0
    for i, value in enumerate(values):
        total += value
        if i >= window:
            total -= values[i - window]
        means.append(total / window if i >= window - 1 else None)
    return means


def rank(values, x):
    """Share of values below x, counting values equal to x as half below."""
    below = sum(1 for v in values if v < x)
    equal = sum(1 for v in values if v == x)
    return (below + 0.5 * equal) / len(values)


def histogram(values, edges):
    """Counts per bin [edges[i], edges[i + 1]); the last bin also holds its right edge."""
    counts = [0] * (len(edges) - 1)
    for v in values:
        for i in range(len(edges) - 1):
            last = i == len(edges) - 2
            if edges[i] <= v < edges[i + 1] or (last and v == edges[i + 1]):
                counts[i] += 1
                break
    return counts
'''

VALIDATE = '''\
"""Argument checks shared by the summaries."""


def require_window(window):
    if window < 1:
        raise ValueError("window must be at least 1")
'''

INIT = '''\
"""Rolling summaries of readings."""

from windowstats.core import histogram, rank, trailing_mean

__all__ = ["histogram", "rank", "trailing_mean"]
'''

CONFTEST = '''\
import pytest


@pytest.fixture
def readings():
    return [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0]
'''

HELPERS = '''\
def close(a, b, tol=1e-9):
    """Lists equal up to rounding, with None in the same places."""
    return len(a) == len(b) and all(
        (x is None and y is None) or (x is not None and y is not None and abs(x - y) <= tol)
        for x, y in zip(a, b)
    )
'''

VISIBLE = '''\
from helpers import close

from windowstats import histogram, rank, trailing_mean


def test_trailing_mean_of_three(readings):
    expected = [None, None, 8 / 3, 2.0, 10 / 3, 5.0, 16 / 3, 17 / 3]
    assert close(trailing_mean(readings, 3), expected)


def test_rank_in_the_middle(readings):
    assert rank(readings, 4.0) == (4 + 0.5) / 8


def test_histogram_counts_every_reading(readings):
    assert histogram(readings, [0, 3, 6, 9]) == [3, 3, 2]
'''

MORE = '''\
import pytest
from helpers import close

from windowstats import histogram, rank, trailing_mean


def test_window_of_one_is_the_series(readings):
    assert close(trailing_mean(readings, 1), readings)


def test_window_longer_than_the_series(readings):
    assert trailing_mean(readings, 9) == [None] * 8


def test_bad_window_is_refused(readings):
    with pytest.raises(ValueError):
        trailing_mean(readings, 0)


def test_rank_at_the_ends(readings):
    assert rank(readings, 0.0) == 0.0
    assert rank(readings, 10.0) == 1.0
    assert rank(readings, 1.0) == 1 / 8


def test_histogram_edges(readings):
    assert histogram([0, 3, 9], [0, 3, 6, 9]) == [1, 1, 1]
    assert histogram([10, -1], [0, 3, 6, 9]) == [0, 0, 0]
'''

STATEMENT = '''\
# Rolling summaries

`windowstats` summarises a stream of sensor readings: a trailing mean over a fixed window,
the rank of a value among the readings, and a histogram over given bin edges.
'''

PYPROJECT = '''\
[project]
name = "windowstats"
version = "0.1.0"
requires-python = ">=3.11"

{pytest}
[tool.bugsmith]
paths = ["src/windowstats"]
tests = ["tests"]
jobs = 2

[tool.bugsmith.exercises.core]
statement = "docs/core.md"
paths = ["src/windowstats/core.py"]
visible = ["tests/test_core.py"]
{extra}'''


def make_project(root: Path, *, pytest: str | None = 'pythonpath = ["src"]\ntestpaths = ["tests"]\n',
                 extra: str = "") -> Path:
    """Write the project under `root`: `pytest` is its [tool.pytest.ini_options] (None: no table),
    `extra` lines go into the exercise's table."""
    table = "" if pytest is None else f"[tool.pytest.ini_options]\n{pytest}"
    files = {
        "src/windowstats/__init__.py": INIT,
        "src/windowstats/core.py": CORE,
        "src/windowstats/_validate.py": VALIDATE,
        "tests/conftest.py": CONFTEST,
        "tests/helpers.py": HELPERS,
        "tests/test_core.py": VISIBLE,
        "tests/test_core_more.py": MORE,
        "docs/core.md": STATEMENT,
        "pyproject.toml": PYPROJECT.format(pytest=table, extra=textwrap.dedent(extra)),
    }
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return root
