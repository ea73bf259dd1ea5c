"""A Gradescope autograder bundle for one exercise of a pack (`bugsmith pack autograder`).

The zip holds, at its root as Gradescope asks: `setup.sh` (bubblewrap, Python 3.11 or later and
bugsmith, from a wheel of the running bugsmith in `wheels/`), `run_autograder` (the module
`run_autograder` of this package, copied as it is), `requirements.txt` (what setup.sh installs),
`bugsmith-autograder.json` (the exercise and the grading settings), `README.md`, and the pack's
instructor part under `instructor/`. Gradescope never shows the bundle to students; what they
see is results.json (`judge.gradescope` decides what is in it). The zip is byte-reproducible.

One bundle grades one exercise, because one Gradescope assignment is one exercise: choosing
the exercise from what a student uploads could grade a submission against another key.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bugsmith.harness.exercises.pack import run_autograder
from bugsmith.harness.exercises.pack.archive import write_zip
from bugsmith.harness.exercises.pack.bugsmith_wheel import running_wheel
from bugsmith.harness.exercises.pack.pack import instructor_folder, load_exercise
from bugsmith.harness.exercises.records import ExerciseError
from bugsmith.harness.exercises.sources.handout_names import pack_names

CONFIG = run_autograder.CONFIG
FORMAT = "bugsmith-autograder/1"
EXECUTABLE = ("setup.sh", "run_autograder")
DEFAULT_TIMEOUT = 480.0  # under Gradescope's default limit of ten minutes, so results.json is written


@dataclass(frozen=True, slots=True, kw_only=True)
class AutograderOptions:
    exercise: str | None = None  # None: the pack's only exercise
    points: float = 1.0  # a passing submission's score: set it to the assignment's autograder points
    timeout: float = DEFAULT_TIMEOUT
    test_timeout: float = 60.0
    sandbox: bool = True
    requirements: tuple[str, ...] = ()  # pip requirements the problem's code needs, beyond bugsmith's


def write_autograder(pack: Path, out: Path, options: AutograderOptions) -> Path:
    """Write the bundle for one exercise of `pack` (its folder, its zip, or its instructor part) to `out`."""
    if out.suffix != ".zip":
        raise ExerciseError(f"{out}: the bundle is a zip; give a path ending in .zip")
    return write_zip(out, autograder_files(pack, options), executable=EXECUTABLE)


def autograder_files(pack: Path, options: AutograderOptions) -> dict[str, str | bytes]:
    """Every file of the bundle, by its path inside the zip."""
    with tempfile.TemporaryDirectory(prefix="bugsmith-autograder-") as scratch:
        instructor = instructor_folder(pack, Path(scratch))
        exercise_id = _exercise_id(instructor, options.exercise)
        exercise = load_exercise(instructor, exercise_id)
        files: dict[str, str | bytes] = {f"instructor/{p.relative_to(instructor).as_posix()}": p.read_bytes()
                                         for p in sorted(instructor.rglob("*")) if p.is_file()}
        corpus = not (instructor / exercise_id / "layout.json").is_file()
        names = pack_names(instructor / exercise_id, exercise.problem)
    wheel_name, wheel = running_wheel()
    # Where the files with bugs are in what students upload: their folder as it was handed out.
    config = {"format": FORMAT, "exercise": exercise_id, "problem": exercise.problem, "points": options.points,
              "timeout": options.timeout, "test_timeout": options.test_timeout, "sandbox": options.sandbox,
              "bug_files": sorted(names.path(f) for f in exercise.buggy)}
    requirement = f"./wheels/{wheel_name}" + ("[corpus]" if corpus else "")
    files.update({
        "setup.sh": SETUP,
        "run_autograder": Path(run_autograder.__file__).read_text(encoding="utf-8"),
        "requirements.txt": "".join(f"{line}\n" for line in (_REQUIREMENTS_HEAD, requirement, *options.requirements)),
        CONFIG: json.dumps(config, indent=2, sort_keys=True) + "\n",
        f"wheels/{wheel_name}": wheel,
        "README.md": _readme(exercise_id, exercise.problem, options, wheel_name),
    })
    return files


def _exercise_id(instructor: Path, wanted: str | None) -> str:
    found = sorted(p.parent.name for p in instructor.glob("*/exercise.json"))
    if wanted is not None:
        if wanted not in found:
            raise ExerciseError(f"no exercise {wanted!r} in the pack (it has {', '.join(found) or 'none'})")
        return wanted
    if len(found) != 1:
        raise ExerciseError(f"the pack has {len(found)} exercises ({', '.join(found)}): choose one with --exercise"
                            " (a Gradescope assignment grades one exercise)")
    return found[0]


_REQUIREMENTS_HEAD = ("# What setup.sh installs (pip, from this folder): bugsmith from the wheel in this bundle,"
                      " and the libraries the problem's code and tests need.")

SETUP = """\
#!/usr/bin/env bash
# Gradescope runs this once, when it builds the autograder image (see README.md): bubblewrap
# (the grading sandbox), Python 3.11 or later, and bugsmith from the wheel in this bundle, in a
# venv of its own with what requirements.txt lists. Online (apt, and PyPI for the libraries);
# bugsmith itself comes from this bundle.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="${AUTOGRADER_ROOT:-/autograder}/bugsmith-venv"
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends bubblewrap util-linux ca-certificates python3
if python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    python=python3
    apt-get install -y --no-install-recommends python3-venv
else  # Ubuntu 22.04's python3 is 3.10
    python=python3.11
    apt-get install -y --no-install-recommends python3.11 python3.11-venv
fi
"$python" -m venv "$venv"
cd "$here"
"$venv/bin/python" -m pip install --no-cache-dir -r requirements.txt
"$venv/bin/bugsmith" --version
"""


def _readme(exercise_id: str, problem: str, options: AutograderOptions, wheel: str) -> str:
    sandbox = ("on (bubblewrap)" if options.sandbox else
               "OFF (built with --no-sandbox): submissions run unconfined, see below")
    return f"""\
# Gradescope autograder: {exercise_id} ({problem})

Made by `bugsmith pack autograder`. Upload this zip as the autograder of a Gradescope programming
assignment (Configure Autograder, Ubuntu 22.04 or later base image). Students submit their
exercise folder as handed out (zipped whole, or its files), or only the files they fixed.

- `setup.sh` installs bubblewrap, Python 3.11 or later and bugsmith ({wheel}, the wheel of the
  bugsmith that made this bundle) into /autograder/bugsmith-venv, with `requirements.txt`.
- `run_autograder` copies /autograder/submission to a work folder, puts the code where the
  exercise expects it, and runs `bugsmith grade --format gradescope --output
  /autograder/results/results.json` on the exercise named in `bugsmith-autograder.json`.
- `bugsmith-autograder.json`: the exercise, the points a passing submission scores
  ({options.points:g}: set it to the assignment's autograder points), the time limits (the whole
  grading {options.timeout:g} s, one test {options.test_timeout:g} s: keep the first under the
  assignment's autograder timeout) and whether the sandbox is used: {sandbox}.
- `instructor/`: the pack's instructor part (held-back tests, solutions). Gradescope does not
  show the bundle to students, and results.json holds no held-back test's message and nothing of
  the solution.

## Scoring and what students see

All or nothing: the points when every test passes (the held-back ones too), no canary test is
reported passed and the code's outputs agree with the reference's; 0 otherwise. The summary (the
verdict, and how many visible and held-back tests fail) is shown on every submission; each
visible test is listed with its message; held-back tests are listed, without messages, only
once you publish the grades. If students may resubmit, the verdict tells them whether the
held-back tests pass: limit resubmissions if that matters. The autograder's standard output
(every test with its message) is shown to you only.

## The sandbox: what it needs, and what happens without it

Each submission runs in a bubblewrap sandbox that sees neither this folder nor the network.
bubblewrap needs unprivileged user namespaces, or root allowed to create namespaces. Gradescope
runs the autograder as root in a container; where the container does not permit namespaces,
nothing is graded: every submission gets a score of 0 and the one-line reason ("bubblewrap cannot
start a sandbox here (...)"), never a silent pass. Try the "Test Autograder" button with a
correct submission before you release the assignment.

If the sandbox cannot run there, either grade outside Gradescope (download the submissions and
run `bugsmith grade` on a machine where bubblewrap works), or rebuild the bundle with
`--no-sandbox`. That opt-out trusts every submission: its code then runs as root in the
container, with the limits on memory, processes and time but nothing else, so it could read the
held-back tests and solutions in /autograder/source or rewrite results.json. The verdict is still
decided from the tests, the canaries and the outputs, and results.json then shows no test
message at all (a message could carry what the code read). Use it only for code you trust.
"""
