"""The executors' one table: the CLI's choices and the config's isolations are read from it."""

from __future__ import annotations

import subprocess
import sys

import click

from bugsmith.harness import config
from bugsmith.harness.cli import run
from bugsmith.harness.executors.table import EXECUTORS, LOCAL, executor_choices, executor_factory, local_executor


def test_every_local_executor_is_an_isolation_and_every_other_an_executor_choice() -> None:
    """A new row in EXECUTORS reaches `--isolation` (local) or `--executor` (elsewhere) by itself."""
    assert set(config.ISOLATIONS) == {name for name, kind in EXECUTORS.items() if kind.local}
    assert executor_choices() == [LOCAL, *(name for name, kind in EXECUTORS.items() if not kind.local)]
    option = next(p for p in run.params if p.name == "executor")
    assert isinstance(option.type, click.Choice)
    assert list(option.type.choices) == executor_choices()


def test_the_local_choice_opens_the_isolation_the_options_name() -> None:
    assert executor_factory(LOCAL) is local_executor


def test_the_command_line_does_not_import_dask_until_a_run_asks_for_it() -> None:
    """`distributed` costs more to import than bugsmith itself; every command and test that
    starts `bugsmith` would pay for it. A fresh interpreter that loads the CLI has not imported it."""
    probe = "import sys, bugsmith.harness.cli; print('distributed' in sys.modules)"
    shown = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "False", shown.stderr
