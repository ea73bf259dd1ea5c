"""Run chosen mutants (alone or several together) against chosen tests, every test reported.

The exercise builder needs to know *every* test a bug fails, not only the first (FAIL_TO_PASS,
PASS_TO_PASS), and K bugs activated together; triage needs the suite's baseline. Both reuse
the run's machinery: the cached baseline, the fork-server pool and the raw Verdicts.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from bugsmith.harness.baseline import Baseline
from bugsmith.harness.config import RunOptions
from bugsmith.harness.discovery import source_files
from bugsmith.harness.executors.base import Executor
from bugsmith.harness.executors.table import local_executor
from bugsmith.harness.job_plan import timed
from bugsmith.harness.mutation_run.planning import load_baseline, test_file_hashes, worker_setup
from bugsmith.harness.outcome import TestInfo
from bugsmith.harness.shared.protocol import Job, Patch, Verdict
from bugsmith.harness.store import Store
from bugsmith.mutators.mutant import Mutant
from bugsmith.mutators.source_file import read_source


def combined_source(source: str, mutants: Sequence[Mutant]) -> str:
    """`source` with every mutant applied; the mutants must not overlap."""
    ordered = sorted(mutants, key=lambda m: m.span.offsets(source)[0], reverse=True)
    text = source
    previous_start = len(source) + 1
    for mutant in ordered:
        start, end = mutant.span.offsets(source)
        if end > previous_start:
            raise ValueError(f"mutants {mutant.id} and another overlap")
        text = text[:start] + mutant.mutated + text[end:]
        previous_start = start
    return text


class Evaluator:
    """A pool of workers over one project, for many evaluations. Use as a context manager."""

    def __init__(self, options: RunOptions) -> None:
        self.options = options
        root = options.root.resolve()
        files = source_files(options)
        self.sources = {f.relative_to(root).as_posix(): read_source(f) for f in files}
        self.setup = worker_setup(options, files)
        self.baseline: Baseline | None = None
        self.tests: dict[str, TestInfo] = {}
        self._pool: Executor | None = None

    def __enter__(self) -> Evaluator:
        """Start the workers, and take the stored baseline or run one on them."""
        pool = self._pool = local_executor(self.setup, self.options)
        pool.__enter__()
        store = Store.open(self.options.store_path)
        try:
            self.baseline = load_baseline(self.options, self.setup, self.sources, store,
                                          test_file_hashes(self.options), lambda: pool)
        except BaseException:
            pool.__exit__()
            raise
        finally:
            store.close()
        self.tests = {t.id: t for t in self.baseline.tests}
        return self

    def __exit__(self, *exc: object) -> None:
        if self._pool is not None:
            self._pool.__exit__(*exc)

    def job(self, key: str, mutants: Sequence[Mutant], tests: Sequence[str] | None = None,
            stop_on_failure: bool = False) -> Job:
        """A job that activates all `mutants` together and runs `tests` (default: all)."""
        chosen = tuple(tests) if tests is not None else tuple(
            sorted(self.tests, key=lambda t: (self.tests[t].duration, t)))
        by_file: dict[str, list[Mutant]] = defaultdict(list)
        for mutant in mutants:
            by_file[mutant.file].append(mutant)
        patches = []
        for file, group in by_file.items():
            source = combined_source(self.sources[file], group)
            path = str((self.options.root / file).resolve())
            for mutant in group:
                patches.append(Patch(module=mutant.module, path=path, function=mutant.function, source=source))
        first, *rest = patches or [Patch(module="", path="", function=None, source="")]
        # Each test's own limit, and the short limit of a first run, as in a mutation run: a bug
        # that hangs a test costs that test's limit, not the whole job's, before it is confirmed.
        job = Job(mutant_id=key, module=first.module, path=first.path, function=first.function,
                  source=first.source, tests=chosen, timeout=0.0, stop_on_failure=stop_on_failure,
                  extra=tuple(rest))
        return timed(job, chosen, self.tests, self.options)

    def run(self, jobs: Sequence[Job]) -> dict[str, Verdict]:
        assert self._pool is not None, "use Evaluator as a context manager"
        verdicts: dict[str, Verdict] = {}
        self._pool.run(jobs, lambda job, verdict: verdicts.__setitem__(job.mutant_id, verdict))
        return verdicts
