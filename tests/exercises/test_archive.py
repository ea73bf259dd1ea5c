"""Reproducible zips and safe extraction."""

from __future__ import annotations

import stat
import zipfile

import pytest

from bugsmith.harness.exercises.pack.archive import UnsafeArchiveError, extract_pack, write_zip

FILES = {"b/two.txt": "2\n", "a/one.py": "print(1)\n"}


def test_same_files_give_byte_identical_archives(tmp_path):
    """Sorted entries, a fixed date and fixed modes: writing twice gives the same bytes."""
    first = write_zip(tmp_path / "1.zip", FILES).read_bytes()
    second = write_zip(tmp_path / "2.zip", dict(reversed(FILES.items()))).read_bytes()
    assert first == second


def test_entries_are_sorted_dated_1980_and_mode_0644(tmp_path):
    """Metadata carries nothing of the machine or the moment that wrote the archive."""
    with zipfile.ZipFile(write_zip(tmp_path / "p.zip", FILES)) as archive:
        infos = archive.infolist()
    assert [i.filename for i in infos] == ["a/one.py", "b/two.txt"]
    assert {i.date_time for i in infos} == {(1980, 1, 1, 0, 0, 0)}
    assert {stat.S_IMODE(i.external_attr >> 16) for i in infos} == {0o644}


def test_extract_round_trips_plain_files(tmp_path):
    """A well-formed pack unpacks to exactly its files."""
    extract_pack(write_zip(tmp_path / "p.zip", FILES), tmp_path / "out")
    assert (tmp_path / "out" / "a" / "one.py").read_text() == "print(1)\n"
    assert (tmp_path / "out" / "b" / "two.txt").read_text() == "2\n"


def _raw_zip(path, name, content=b"x", mode=0o644 | stat.S_IFREG):
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("fine.txt", b"ok")
        info = zipfile.ZipInfo(name)
        info.create_system = 3
        info.external_attr = mode << 16
        archive.writestr(info, content)
    return path


@pytest.mark.parametrize(
    "name", ["../escape.txt", "a/../../escape.txt", "/etc/evil", "C:/evil", "a\\..\\evil"])
def test_entries_that_escape_the_target_are_rejected_before_anything_is_written(tmp_path, name):
    """A `..`, absolute or drive path could overwrite files outside the target: refuse the whole pack."""
    archive = _raw_zip(tmp_path / "bad.zip", name)
    with pytest.raises(UnsafeArchiveError):
        extract_pack(archive, tmp_path / "out")
    assert not (tmp_path / "out" / "fine.txt").exists()
    assert not (tmp_path / "escape.txt").exists()


def test_symlink_entries_are_rejected(tmp_path):
    """A symlink entry could point a later write anywhere on the grader's machine."""
    archive = _raw_zip(tmp_path / "link.zip", "link", b"/etc/passwd", stat.S_IFLNK | 0o777)
    with pytest.raises(UnsafeArchiveError, match="not a regular file"):
        extract_pack(archive, tmp_path / "out")
