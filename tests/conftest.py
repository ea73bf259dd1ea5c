"""Fixtures shared by the framework's own tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

CODE = "def double(x):\n    return x * 2\n\n\ndef positive(x):\n    return x > 0\n"
TESTS = ("from {package} import double, positive\n\n\n"
         "def test_double():\n    assert double(3) == 6\n\n\n"
         "def test_positive():\n    assert positive(2)\n    assert not positive(-2)\n")


def _make_project(root: Path, package: str = "calc", table: bool = True) -> Path:
    (root / package).mkdir(parents=True)
    (root / package / "__init__.py").write_text(CODE)
    (root / "tests").mkdir()
    (root / "tests" / "test_calc.py").write_text(TESTS.format(package=package))
    pyproject = '[project]\nname = "calc"\nversion = "0"\n'
    if table:
        pyproject += f'\n[tool.bugsmith]\npaths = ["{package}"]\ntests = ["tests"]\njobs = 1\n'
    (root / "pyproject.toml").write_text(pyproject)
    return root


@pytest.fixture
def small_project() -> Callable[..., Path]:
    """A factory: `small_project(root, package="calc", table=True)` writes a two-function
    package, its tests and a pyproject.toml (with a [tool.bugsmith] table unless told not)."""
    return _make_project


@pytest.fixture(autouse=True)
def _no_preloader(monkeypatch: pytest.MonkeyPatch) -> None:
    """`bugsmith run` leaves a preloader for the next run (harness.shared.preload), a process that
    outlives it: the suite's CLI runs, in-process and in subprocesses, leave none;
    tests/harness/test_preload.py turns it on where it tests it."""
    monkeypatch.setenv("BUGSMITH_PRELOAD", "0")
