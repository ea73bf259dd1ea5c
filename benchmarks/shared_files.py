"""Do workers that share a test folder give the verdicts of one worker? (issue 43)

    python benchmarks/shared_files.py                 # 10 rounds, 2 and 4 workers against 1
    python benchmarks/shared_files.py --rounds 3 --jobs 2
    BUGSMITH_PRIVATE_VIEW=0 python benchmarks/shared_files.py   # the jobs share their files

The project is the one of tests/harness/test_shared_files.py: an autouse fixture removes and
re-creates `test/tmp` (found from `__file__`) around every test, the tests write there and under
a fixed name in the system's temporary folder. Each round builds it afresh, runs bugsmith with
one worker, then with each of `--jobs`, and compares every verdict by mutant id. It prints one
line per run (green baseline or the error, verdicts that differ) and a summary; exit status 1
when any run was red or differed.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bugsmith import harness
from bugsmith.errors import BugsmithError
from bugsmith.harness.config import resolve

TESTS = Path(__file__).resolve().parents[1] / "tests" / "harness" / "test_shared_files.py"


def _project_builder() -> Callable[[Path], Path]:
    """The test module's `build_shelf` (it imports only pytest and bugsmith)."""
    spec = importlib.util.spec_from_file_location("shared_files_project", TESTS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.build_shelf


def _verdicts(root: Path, jobs: int) -> dict[str, str] | str:
    shutil.rmtree(root / ".bugsmith", ignore_errors=True)  # every run from a fresh store
    try:
        result = harness.run(resolve(root, jobs=jobs))
    except BugsmithError as error:
        return str(error).splitlines()[0][:160]
    return {outcome.mutant_id: outcome.status.value for outcome in result.outcomes}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--jobs", type=int, nargs="+", default=[2, 4])
    args = parser.parse_args(argv)
    build = _project_builder()
    bad = runs = 0
    started = time.monotonic()
    for number in range(1, args.rounds + 1):
        with tempfile.TemporaryDirectory(prefix="bugsmith-shared-files-") as folder:
            root = build(Path(folder) / "shelfproj")
            alone = _verdicts(root, 1)
            if isinstance(alone, str):
                print(f"round {number}: --jobs 1 red: {alone}")
                bad += 1
                continue
            for jobs in args.jobs:
                runs += 1
                found = _verdicts(root, jobs)
                if isinstance(found, str):
                    print(f"round {number}: --jobs {jobs} red: {found}")
                    bad += 1
                    continue
                differ = sorted(i for i in alone if found.get(i) != alone[i])
                print(f"round {number}: --jobs {jobs}: {len(found)} verdicts, {len(differ)} differ from --jobs 1"
                      + (f": {', '.join(f'{i} {alone[i]}->{found.get(i)}' for i in differ[:5])}" if differ else ""))
                bad += bool(differ)
    print(f"{runs} runs against --jobs 1 in {args.rounds} rounds: {bad} red or different "
          f"({time.monotonic() - started:.0f} s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
