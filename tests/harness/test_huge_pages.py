"""The worker's memory moved into huge pages before it forks: same bytes, fewer page tables."""

from __future__ import annotations

import os

from bugsmith.harness.child import huge_pages

MAPS = """\
00400000-00401000 r--p 00000000 08:01 123 /usr/bin/python3.11
01000000-01a00000 rw-p 00000000 00:00 0 [heap]
7f0000100000-7f0000700000 rw-p 00000000 00:00 0
7f0000800000-7f0000900000 rw-p 00000000 00:00 0
7f0000a00000-7f0000e00000 rw-p 00000000 08:01 77 /usr/lib/libopenblas.so
7f0001000000-7f0001400000 rw-s 00000000 00:01 9 /dev/zero (deleted)
7f0002000000-7f0002400000 r--p 00000000 00:00 0
7ffc00000000-7ffc00400000 rw-p 00000000 00:00 0 [stack]
"""


def test_only_the_aligned_huge_parts_of_writable_private_anonymous_memory_and_the_heap() -> None:
    assert huge_pages.regions(MAPS) == [
        (0x01000000, 0x01a00000),  # the heap, already aligned
        (0x7f0000200000, 0x7f0000600000),  # 6 MiB from 1 MiB past a boundary: two huge pages
    ]  # not 1 MiB alone, a file, shared memory, a read-only mapping or the stack


def test_collapse_keeps_every_byte_and_a_forked_child_sees_them() -> None:
    data = bytearray(os.urandom(1 << 16)) * 128  # 8 MiB of the heap or an anonymous mapping
    before = bytes(data)
    assert huge_pages.collapse() >= 0  # 0 where the kernel cannot
    assert data == before
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        data[0] ^= 1  # a copy-on-write fault, in the child only
        os.write(write, b"1" if data[1:] == before[1:] else b"0")
        os._exit(0)
    os.close(write)
    assert os.read(read, 1) == b"1"
    os.close(read)
    os.waitpid(pid, 0)
    assert data == before
