"""`harness.run(options) -> RunResult` (`run`, here): the whole mutation run, as a library call.

discover files -> plan: enumerate mutants, baseline (stored, partly re-run or fresh) -> execute:
keys, verdicts that still hold, the rest run on an executor, every outcome stored as it comes
-> RunResult. Read top-down:

- `planning`: what the run has to do (`Plan`), and the facts other rooms read too (the worker
  setup, the test files' digests, the stored baseline);
- `warm_baseline`: the baseline a run starts from;
- `executor_lifecycle`: the run's executor, entered, narrowed, widened, controlled, closed;
- `execution`: keys, reused verdicts, jobs, and the verdicts as they come;
- `verdict_reuse`: the kills and passes that still hold, renamed locals' verdicts;
- `kill_order`: the adaptive order of a mutant's tests;
- `progress`: the record the run reports its progress with.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from bugsmith.errors import HarnessError
from bugsmith.harness.baseline import Baseline
from bugsmith.harness.config import RunOptions
from bugsmith.harness.discovery import discover
from bugsmith.harness.executors.base import ExecutorFactory
from bugsmith.harness.executors.project_copy import changes, snapshot
from bugsmith.harness.executors.table import local_executor
from bugsmith.harness.mutation_run.execution import execute
from bugsmith.harness.mutation_run.executor_lifecycle import Executors
from bugsmith.harness.mutation_run.planning import plan, worker_setup
from bugsmith.harness.mutation_run.progress import Progress, ProgressCallback
from bugsmith.harness.outcome import RunResult
from bugsmith.harness.shared import preload
from bugsmith.harness.since import check_ref
from bugsmith.harness.store import Store, hold, is_damage, set_aside
from bugsmith.harness.store_cap import MB, keep_under

if TYPE_CHECKING:  # libcst takes a second to import: a warm run imports it only to parse edited files
    from bugsmith.mutators.base import Mutator

__all__ = ["run", "tree_warnings"]


def run(
    options: RunOptions,
    progress: ProgressCallback | None = None,
    executor_factory: ExecutorFactory | None = None,
    mutators: Sequence[Mutator] | None = None,
) -> RunResult:
    """Run every mutant the options select; resume from stored verdicts where they still hold.

    `executor_factory` opens the Executor that runs the jobs (default: `local_executor`, the
    fork pool or the subprocess mode as the options say); `mutators` replaces the registry's
    selection (for libraries and tests that bring their own).
    """
    started = time.monotonic()
    started_at = datetime.now(UTC).isoformat(timespec="seconds")
    if options.since:  # before any worker starts: a bad ref is a one-line error, not a wasted baseline
        check_ref(options.root, options.since)
    tree = snapshot(options.root)  # the user's tree, checked again when the run ends
    with hold(options.store_path.parent):
        files, skipped = discover(options)
        store = Store.open(options.store_path)
        notes = ([f"the store was damaged: moved it aside to {store.moved_aside.name} and started a new one"]
                 if store.moved_aside else [])
        notes += [f"skipped {s.file}: {s.reason}" for s in skipped]
        executors = Executors(executor_factory or local_executor, worker_setup(options, files), options)
        try:
            if progress:  # the baseline can take a while: say that the run has started
                progress(Progress(done=0, total=0, counts={}, elapsed=0.0, stage="baseline"))
            the_plan = plan(options, store, mutators, executors, tree)
            result = execute(the_plan, store, started, started_at, progress, executors, notes)
            executors.wait_for_control()  # a control still running in the baseline's thread (no job ran)
            executors.close()  # the workers are gone: nothing of the run can still write
            preload.leave()  # for the next run, now that this one has ended well (harness.shared.preload)
            warnings = tree_warnings(the_plan.baseline, changes(tree, snapshot(options.root)))
            if warnings:  # after the ones the run stored while it ran
                earlier = (store.extras_at("warnings", started_at) or {}).get("warnings", [])
                store.put_extra("warnings", started_at, {"warnings": [*earlier, *warnings]})
            keep_under(store, options.store_cap_mb * MB)  # after the run, never during it
            return replace(result, warnings=result.warnings + warnings)
        except sqlite3.DatabaseError as error:  # damage met by a query (opening reads only a few pages)
            if not is_damage(error):
                raise
            store.close()
            aside = set_aside(options.store_path)
            raise HarnessError(f"the store was found damaged during the run ({error}): moved it aside to"
                               f" {aside.name}; run again to start a new one") from None
        finally:
            executors.close()
            preload.stay()  # an interrupted or failed run leaves no process behind
            store.close()


def tree_warnings(baseline: Baseline, changed: Sequence[str]) -> tuple[str, ...]:
    """What the run must say about the project's tree: the suite writes into it (seen in the
    private copy by the baseline), or the tree changed while the run ran (by a test, a mutant
    that escaped the copy, or a person editing)."""
    warnings = []
    if baseline.writes:
        warnings.append("the test suite itself changes files of its tree (bugsmith ran it in a private "
                        f"copy): {', '.join(baseline.writes[:5])}" + (" ..." if len(baseline.writes) > 5 else ""))
    if baseline.escapes:
        warnings.append("the test suite writes into the project itself, by absolute path (each job's private "
                        f"view kept it out): {', '.join(baseline.escapes[:5])}"
                        + (" ..." if len(baseline.escapes) > 5 else ""))
    for test in baseline.order_dependent:
        warnings.append(f"{test.split(' ', 1)[0]} fails on the unmutated code when it runs after other tests"
                        f"{' ' + test.split(' ', 1)[1] if ' ' in test else ''} but passes alone: it depends on"
                        " the tests before it, so no verdict counts it")
    if baseline.shared_view and (baseline.writes or baseline.escapes):
        warnings.append(f"the jobs shared the files they wrote ({baseline.shared_view}): a verdict may "
                        "depend on what another job wrote at the same time")
    if changed:
        warnings.append(f"the project's tree changed during the run ({len(changed)} paths): "
                        + ", ".join(changed[:5]) + (" ..." if len(changed) > 5 else ""))
    return tuple(warnings)
