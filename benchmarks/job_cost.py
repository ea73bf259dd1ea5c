"""The fixed cost of one mutant in a fork-server worker, measured without the coordinator.

    python benchmarks/job_cost.py                       # 300 jobs, 3 rounds
    python benchmarks/job_cost.py --jobs 500 --repeat 5
    python benchmarks/job_cost.py --hypothesis          # the test is a hypothesis test with a database
    python benchmarks/job_cost.py --file-kb 64          # the mutated file is 64 KB, as a real module's may be

Starts one worker (harness.child.worker) on a copy of the whole `reference/` corpus (so that its
heap, imports and collected tests are a real worker's) with one trivial problem added, waits
until it has collected, then sends `--jobs` jobs, each swapping the unchanged code of the trivial
function back in (the same work as a real mutant's activation) and running its one test, which
passes in microseconds. The worker's /proc/PID/stat before the first job and after the last gives its own CPU
and minor faults and those of the children it forked (reaped, so counted); the figures are per
job. No verdict is stored: this measures only the machinery around a test. With `--hypothesis`
the one test is a hypothesis test (5 examples) that keeps an example database, as one with
hypothesis' default settings does (the corpus' own profile has none), so each job also reads
that database through its read-only view (harness.child.hypothesis_view). With `--file-kb N` the
trivial module carries N KB of comments, so each job carries a file of that size (a job sends
its whole mutated file) for the worker to read and decode.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bugsmith.harness.shared.interpreter import module_command, worker_env
from bugsmith.harness.shared.protocol import Job, Ready, TestOutcome, Verdict, WorkerSetup, encode, receive, send

REPOSITORY = Path(__file__).resolve().parent.parent
TICKS = os.sysconf("SC_CLK_TCK")


def stat(pid: int) -> dict[str, float]:
    """Own and reaped children's CPU seconds and minor faults of `pid`."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    # After the ")": state is field 3 of proc(5), so field n is fields[n - 3].
    return {"minflt": int(fields[7]), "cminflt": int(fields[8]),
            "cpu": (int(fields[11]) + int(fields[12])) / TICKS,
            "ccpu": (int(fields[13]) + int(fields[14])) / TICKS}


TRIVIAL = {
    "__init__.py": "",
    "trivial.py": "def add(a, b):\n    return a + b\n",
    "tests/test_trivial.py": "from reference.jobcost.trivial import add\n\n\n"
                             "def test_add():\n    assert add(1, 2) == 3\n",
}


# A passing test: hypothesis reads the database (nothing saved there) and draws 5 examples.
HYPOTHESIS_TEST = (
    "from hypothesis import given, settings, strategies as st\n"
    "from hypothesis.database import DirectoryBasedExampleDatabase\n\n"
    "from reference.jobcost.trivial import add\n\n\n"
    "@settings(database=DirectoryBasedExampleDatabase('.hypothesis-jobcost'), max_examples=5)\n"
    "@given(st.integers())\n"
    "def test_add(x):\n    assert add(x, 0) == x\n")


def padded(source: str, kilobytes: int) -> str:
    """`source` with `kilobytes` KB of comment lines after it."""
    line = "# " + "x" * 77 + "\n"
    return source + line * (kilobytes * 1024 // len(line))


def trivial_job(mutant_id: str, path: str, source: str) -> Job:
    """A job that swaps `add`'s code, from `source`, back in and runs its one test."""
    return Job(mutant_id=mutant_id, module="reference.jobcost.trivial", path=path, function="add",
               source=source, tests=("reference/jobcost/tests/test_trivial.py::test_add",), timeout=30.0)


def one_round(root: Path, jobs: int) -> dict[str, float]:
    source_path = str(root / "reference" / "jobcost" / "trivial.py")
    setup = WorkerSetup(root=str(root), pytest_args=(), test_paths=("reference",),
                        sources=(source_path,), memory_limit_mb=4096)
    worker = subprocess.Popen(module_command("bugsmith.harness.child.worker"), stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=root,
                              env=worker_env(root))
    assert worker.stdin is not None and worker.stdout is not None
    send(worker.stdin, setup)
    ready = receive(worker.stdout, Ready.from_dict)
    assert ready is not None and ready.error is None, ready
    source = Path(source_path).read_text()
    # A first job outside the measure: the worker collapses its heap into huge pages then.
    send(worker.stdin, trivial_job("warm", source_path, source))
    receive(worker.stdout, Verdict.from_dict)
    before, started = stat(worker.pid), time.perf_counter()
    elapsed, cpu = [], []
    for n in range(jobs):
        send(worker.stdin, trivial_job(str(n), source_path, source))
        verdict = receive(worker.stdout, Verdict.from_dict)
        assert verdict is not None and verdict.results and verdict.results[0].outcome == TestOutcome.PASSED, verdict
        elapsed.append(verdict.elapsed)
        cpu.append(verdict.cpu or 0.0)
    wall = time.perf_counter() - started
    after = stat(worker.pid)
    worker.stdin.close()
    worker.wait()
    return {
        "wall_ms": 1000 * wall / jobs,
        "child_elapsed_ms": 1000 * statistics.median(elapsed),
        "child_cpu_ms": 1000 * (after["ccpu"] - before["ccpu"]) / jobs,
        "worker_cpu_ms": 1000 * (after["cpu"] - before["cpu"]) / jobs,
        "child_faults": (after["cminflt"] - before["cminflt"]) / jobs,
        "worker_faults": (after["minflt"] - before["minflt"]) / jobs,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--hypothesis", action="store_true", help="a hypothesis test with an example database")
    parser.add_argument("--file-kb", type=int, default=0, help="pad the mutated file to about this many KB")
    arguments = parser.parse_args()
    files = {**TRIVIAL, "trivial.py": padded(TRIVIAL["trivial.py"], arguments.file_kb)}
    if arguments.hypothesis:
        files["tests/test_trivial.py"] = HYPOTHESIS_TEST
    with tempfile.TemporaryDirectory(prefix="bugsmith-jobcost-") as folder:
        root = Path(folder)
        shutil.copytree(REPOSITORY / "reference", root / "reference")
        shutil.copy(REPOSITORY / "pyproject.toml", root / "pyproject.toml")
        for name, text in files.items():
            (root / "reference" / "jobcost" / name).parent.mkdir(parents=True, exist_ok=True)
            (root / "reference" / "jobcost" / name).write_text(text)
        rounds = [one_round(root, arguments.jobs) for _ in range(arguments.repeat)]
    print(f"load {os.getloadavg()[0]:.1f}; {arguments.jobs} jobs x {arguments.repeat}; "
          f"a job of {len(encode(trivial_job('0', 'trivial.py', files['trivial.py']))) / 1024:.0f} KB")
    for key in rounds[0]:
        values = [r[key] for r in rounds]
        print(f"{key:>18}: median {statistics.median(values):8.2f}  ({', '.join(f'{v:.2f}' for v in values)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
