"""The sandbox on its own: what a command in it can see, reach and start, and how long that lives."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import bugsmith
from bugsmith.harness.shared.sandbox import NOBODY, Limits, Mount, Sandbox, bugsmith_folders, command, tasks_of
from tests.grading.submissions import processes_with, requires_bwrap

pytestmark = requires_bwrap

ENV = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8"}


def _folder(path: Path, files: dict[str, str]) -> Path:
    path.mkdir(parents=True)
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    for found in [path, *path.rglob("*")]:
        found.chmod(0o755 if found.is_dir() else 0o644)
    return path


def _run(sandbox: Sandbox, script: str, timeout: float = 120) -> dict:
    launch = command(sandbox, [sys.executable, "-c", textwrap.dedent(script)])
    done = subprocess.run(launch.argv, env=launch.env, cwd=launch.cwd, capture_output=True, text=True,
                          timeout=timeout, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def _sandbox(work: Path, **changes) -> Sandbox:
    return Sandbox(mounts=(Mount(source=work, target="/sandbox/work"),), workdir="/sandbox/work", env=ENV,
                   hidden=bugsmith_folders(), **changes)


def test_a_sandboxed_command_sees_its_folder_and_the_interpreter_only(tmp_path):
    """Its folder read-only, a private /tmp, numpy; not the host's files, the checkout or bugsmith;
    no network; only the environment it was given; `nobody` when started by root."""
    work = _folder(tmp_path / "work", {"given.txt": "hello"})
    secret = _folder(tmp_path / "secret", {"answer-key.md": "the bug is on line 31"}) / "answer-key.md"
    checkout = Path(bugsmith.__file__).resolve().parents[1]
    found = _run(_sandbox(work), f"""
        import json, os, socket
        def fails(action):
            try:
                action()
            except Exception:
                return True
            return False
        def connect():
            socket.create_connection(("1.1.1.1", 53), timeout=2)
        import numpy
        print(json.dumps({{
            "given": open("/sandbox/work/given.txt").read(),
            "secret": os.path.exists({str(secret)!r}),
            "checkout": os.path.exists({str(checkout / "reference")!r}),
            "bugsmith": not fails(lambda: __import__("bugsmith.reference")),
            "write_work": not fails(lambda: open("/sandbox/work/new.txt", "w")),
            "write_tmp": not fails(lambda: open("/tmp/new.txt", "w").write("x")),
            "network": not fails(connect),
            "interfaces": [name for _, name in socket.if_nameindex()],
            "uid": os.getuid(),
            "env": sorted(os.environ),
        }}))
    """)
    assert found["given"] == "hello" and found["write_tmp"]
    assert not found["secret"] and not found["checkout"] and not found["bugsmith"]
    assert not found["write_work"] and not found["network"] and found["interfaces"] == ["lo"]
    assert set(found["env"]) <= {*ENV, "PWD", "LC_CTYPE"}  # bubblewrap sets PWD; python may set LC_CTYPE
    assert found["uid"] == (NOBODY if os.geteuid() == 0 else os.getuid())
    assert not (work / "new.txt").exists()


def test_hidden_paths_inside_a_mount_are_covered(tmp_path):
    """A folder listed as hidden inside a mounted folder is empty in the sandbox, a file unreadable."""
    work = _folder(tmp_path / "work", {"keep.txt": "k", "key/answer.md": "a", "solution.patch": "p"})
    found = _run(Sandbox(mounts=(Mount(source=work, target="/sandbox/work"),), workdir="/sandbox/work", env=ENV,
                         hidden=(work / "key", work / "solution.patch")), """
        import json, os
        try:
            patch = open("/sandbox/work/solution.patch").read()
        except OSError:
            patch = ""
        print(json.dumps([sorted(os.listdir("/sandbox/work/key")), patch, open("/sandbox/work/keep.txt").read()]))
    """)
    assert found == [[], "", "k"]


def test_a_process_left_behind_dies_with_the_sandbox(tmp_path):
    """A process started in its own session, still running when the command exits, does not survive it."""
    work = _folder(tmp_path / "work", {})
    seconds = f"{1000 + uuid.uuid4().int % 1000}.5"
    _run(_sandbox(work), f"""
        import json, subprocess
        subprocess.Popen(["sleep", "{seconds}"], start_new_session=True)
        print(json.dumps("started"))
    """)
    assert processes_with(f"sleep\0{seconds}") == []


def _tasks_settled(uid: int, within: float = 30.0) -> None:
    """Wait until `uid` runs as many tasks for half a second on end.

    The process limit is counted from the tasks the sandbox's user runs when the command is
    built, so one of an earlier test's sandboxes still being torn down then (killed, not yet
    reaped) leaves one more slot once it is gone.
    """
    deadline = time.monotonic() + within
    seen = tasks_of(uid)
    steady_since = time.monotonic()
    while time.monotonic() < deadline and time.monotonic() - steady_since < 0.5:
        time.sleep(0.05)
        now = tasks_of(uid)
        if now != seen:
            seen, steady_since = now, time.monotonic()


def test_the_process_limit_stops_a_fork_bomb(tmp_path):
    """Past `Limits.processes` new processes fail to start, and none outlives the sandbox."""
    work = _folder(tmp_path / "work", {})
    _tasks_settled(NOBODY if os.geteuid() == 0 else os.getuid())
    found = _run(_sandbox(work, limits=Limits(processes=20)), """
        import json, subprocess
        started = []
        try:
            for _ in range(200):
                started.append(subprocess.Popen(["sleep", "77.25"]))
        except OSError:
            pass
        print(json.dumps(len(started)))
    """)
    assert 0 < found < 20
    assert processes_with("sleep\x0077.25") == []


def test_the_command_line_unshares_everything_but_what_is_asked():
    """No network unless asked; its own process tree and session; tied to its parent; a clean environment."""
    closed = command(_sandbox(Path("/nonexistent")), ["true"]).argv
    for flag in ("--unshare-net", "--unshare-pid", "--unshare-ipc", "--die-with-parent", "--new-session", "--clearenv"):
        assert flag in closed
    assert "--unshare-net" not in command(_sandbox(Path("/nonexistent"), network=True), ["true"]).argv
    assert closed[0].endswith("prlimit") and any(a.startswith("--nproc=") for a in closed)
