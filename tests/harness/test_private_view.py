"""A job's private view: what it writes under the copy and the temporary folder, nobody else
sees, and it is gone when the job ends; the paths stay the same."""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from bugsmith.harness.child import private_view
from bugsmith.harness.shared.protocol import WorkerSetup

PR_SET_DUMPABLE = 4
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="mount namespaces are Linux's")


def _in_child(work, *, user: int | None = None) -> dict:
    """Run `work()` in a forked child (as `user` if given) and return what it sends back."""
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(reader)
        try:
            if user is not None:
                os.setgroups([])
                os.setgid(user)
                os.setuid(user)
                # A process that changed its ids is not dumpable, and /proc/self is then root's.
                ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
            answer = work()
        except BaseException as error:  # noqa: BLE001 - sent back to the test
            answer = {"error": repr(error)}
        os.write(writer, json.dumps(answer).encode())
        os._exit(0)
    os.close(writer)
    with os.fdopen(reader, "rb") as stream:
        data = stream.read()
    os.waitpid(pid, 0)
    return json.loads(data)


@pytest.fixture
def place() -> Iterator[tuple[Path, Path, Path]]:
    """A tree, a scratch folder and a temporary folder that any user may reach (pytest's own
    tmp_path sits in a folder only its user can enter)."""
    top = Path(tempfile.mkdtemp(prefix="bugsmith-view-"))
    tree, scratch, temp = top / "tree", top / "scratch", top / "temp"
    for folder in (tree, scratch, temp):
        folder.mkdir()
    (tree / "data").mkdir()
    (tree / "data" / "kept.csv").write_text("a,b\n")
    for path in (top, *top.rglob("*")):
        path.chmod(0o777)
    yield tree, scratch, temp
    shutil.rmtree(top)


def _work(tree: Path, scratch: Path, temp: Path):
    def work() -> dict:
        os.chdir(tree)
        view = private_view.enter((str(tree), str(temp)), str(scratch))
        if isinstance(view, str):
            return {"refused": view}
        Path("data/kept.csv").unlink()  # relative to the working directory: through the view
        Path("data/new.csv").write_text("x")
        (temp / "fixed-name.txt").write_text("y")
        return {"sees": sorted(os.listdir(tree / "data")), "uid": os.getuid(),
                "written": list(view.written(str(tree))), "temp": list(view.written(str(temp)))}
    return work


@pytest.mark.parametrize("user", [None, 65534], ids=["as-root-or-self", "as-an-unprivileged-user"])
def test_what_a_job_writes_stays_in_its_view(place, user) -> None:
    """Inside, the job sees its own writes at the same paths; outside, nothing changed."""
    if user is not None and os.geteuid() != 0:
        pytest.skip("needs root to become another user")
    tree, scratch, temp = place
    if user is not None:  # the user's own copy, as bugsmith's is: overlayfs keeps a file's owner on copy-up
        for path in (tree.parent, *tree.parent.rglob("*")):
            os.chown(path, user, user)
    seen = _in_child(_work(tree, scratch, temp), user=user)
    assert "error" not in seen, seen
    if "refused" in seen:
        pytest.skip(f"this machine gives no private view: {seen['refused']}")
    assert seen["sees"] == ["new.csv"]
    assert seen["uid"] == (os.getuid() if user is None else user)  # ids map to themselves
    assert sorted(seen["written"]) == ["data/kept.csv", "data/new.csv"]  # a deletion, a new file
    assert seen["temp"] == ["fixed-name.txt"]
    assert sorted(p.name for p in (tree / "data").iterdir()) == ["kept.csv"]
    assert list(temp.iterdir()) == [] and list(scratch.iterdir()) == []


def test_two_jobs_do_not_see_each_other(place) -> None:
    """The second job starts from the synced files, not from what the first left."""
    tree, scratch, temp = place
    first = _in_child(_work(tree, scratch, temp))
    if "refused" in first:
        pytest.skip(f"this machine gives no private view: {first['refused']}")
    assert _in_child(_work(tree, scratch, temp)) == first


def test_folders_inside_each_other_are_covered_by_the_outermost(place) -> None:
    """A copy in a project in the temporary folder (three deep, as in a project under /tmp):
    one overlay covers all (overlayfs stacks two deep at most), and each folder's changes are
    told from it."""
    tree, scratch, temp = place
    outer = tree.parent
    inner = tree / "data"

    def work() -> dict:
        view = private_view.enter((str(inner), str(tree), str(outer)), str(scratch))
        if isinstance(view, str):
            return {"refused": view}
        (tree / "inner.txt").write_text("x")
        (outer / "outer.txt").write_text("x")
        return {"tree": list(view.written(str(tree))), "outer": list(view.written(str(outer)))}

    seen = _in_child(work)
    if "refused" in seen:
        pytest.skip(f"this machine gives no private view: {seen['refused']}")
    assert seen == {"tree": ["inner.txt"], "outer": ["outer.txt", "tree/inner.txt"]}
    assert not (tree / "inner.txt").exists() and not (outer / "outer.txt").exists()


def test_a_path_overlayfs_cannot_name_is_refused_with_the_reason(tmp_path: Path) -> None:
    odd = tmp_path / "a,b"
    odd.mkdir()
    assert _in_child(lambda: {"refused": private_view.enter((str(odd),), str(tmp_path))}) == {
        "refused": f"overlayfs cannot name the path {str(odd)!r}"}


def test_a_kept_folder_under_a_covered_one_stays_the_hosts(place) -> None:
    """The test tools' state (Hypothesis' database) written in the view reaches the host."""
    tree, scratch, temp = place
    state = temp / "tool-state"
    state.mkdir()

    def work() -> dict:
        view = private_view.enter((str(temp),), str(scratch), keep=(str(state),))
        if isinstance(view, str):
            return {"refused": view}
        (state / "examples").write_text("kept")
        (temp / "other").write_text("private")
        return {"written": list(view.written(str(temp)))}

    seen = _in_child(work)
    if "refused" in seen:
        pytest.skip(f"this machine gives no private view: {seen['refused']}")
    assert seen == {"written": ["other"]}
    assert (state / "examples").read_text() == "kept" and not (temp / "other").exists()


def test_a_machine_that_refuses_a_view_is_found_out_in_a_throwaway_child(place) -> None:
    """The job itself never enters a namespace whose mounts are then refused: the reason comes
    from a child that is thrown away, and none where a view is to be had or none asked for."""
    tree, scratch, temp = place
    setup = WorkerSetup(root=str(tree), pytest_args=(), test_paths=(), sources=(), memory_limit_mb=0,
                        origin=str(tree), scratch=str(scratch))
    assert _in_child(lambda: {"refused": private_view.refused(setup)}) == {"refused": None}
    odd = scratch / "a,b"
    odd.mkdir()
    assert private_view.refused(replace(setup, scratch=str(odd))) == f"overlayfs cannot name the path {str(odd)!r}"
    assert private_view.refused(replace(setup, scratch="")) is None
