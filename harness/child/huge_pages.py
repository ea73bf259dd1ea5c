"""Fewer page tables to copy at each fork: the worker's heap moved into transparent huge pages.

A fork copies the parent's page tables, and tearing the child down frees them again: for a
worker that imported pytest, numpy, pandas and scikit-learn (a large heap in many mappings)
that is most of a mutant's fixed cost, and it grows with every megabyte mapped in 4 KiB pages.
Memory the kernel maps with 2 MiB pages needs one entry where it needed 512. Where transparent
huge pages are enabled only on request (the `madvise` mode most distributions ship), the worker asks
for them on its writable anonymous memory once its suite is collected and frozen
(MADV_HUGEPAGE), and has the kernel move what is already there into them now (MADV_COLLAPSE,
Linux 6.1+). A child's first write to such a page still copies 4 KiB only: the kernel splits
the huge mapping on a copy-on-write fault.

Pages are moved, never changed: what a test sees is the same memory. Where the kernel cannot
(another OS, an older kernel, THP disabled, no free huge page), nothing happens.
"""

from __future__ import annotations

import ctypes
import sys

MADV_HUGEPAGE = 14
MADV_NOHUGEPAGE = 15
MADV_COLLAPSE = 25
HUGE_PAGE = 2 << 20
ENABLED = "/sys/kernel/mm/transparent_hugepage/enabled"


def collapse() -> int:
    """Move this process's writable anonymous memory (the heap and anonymous mappings) into
    huge pages; the bytes moved, 0 where nothing could be."""
    if not sys.platform.startswith("linux") or not _enabled():
        return 0
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        madvise = libc.madvise
    except (OSError, AttributeError):
        return 0
    madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    madvise.restype = ctypes.c_int
    try:
        with open("/proc/self/maps", encoding="ascii", errors="replace") as maps:
            listing = maps.read()
    except OSError:
        return 0
    moved = 0
    for start, end in regions(listing):
        if madvise(start, end - start, MADV_HUGEPAGE) != 0:
            continue
        if madvise(start, end - start, MADV_COLLAPSE) == 0:
            moved += end - start
        else:  # nothing there to move (a thread's malloc arena), no huge page free, an old kernel
            # Else later faults in the region would stall to assemble huge pages (defrag on request).
            madvise(start, end - start, MADV_NOHUGEPAGE)
    return moved


def _enabled() -> bool:
    """True unless transparent huge pages are off (`[never]`) or the kernel has none."""
    try:
        with open(ENABLED, encoding="ascii") as mode:
            return "[never]" not in mode.read()
    except OSError:
        return False


def regions(maps: str) -> list[tuple[int, int]]:
    """The 2 MiB-aligned parts, at least one huge page long, of the writable private anonymous
    mappings and the heap in `maps` (the text of /proc/PID/maps), as (start, end) addresses."""
    found: list[tuple[int, int]] = []
    for line in maps.splitlines():
        fields = line.split(maxsplit=5)
        if len(fields) < 5 or not fields[1].startswith("rw") or fields[1][3] != "p":
            continue
        name = fields[5].strip() if len(fields) > 5 else ""
        if name and name != "[heap]":
            continue  # a file, the stack, vdso: not ours to move
        low, high = (int(bound, 16) for bound in fields[0].split("-"))
        start, end = -(-low // HUGE_PAGE) * HUGE_PAGE, high // HUGE_PAGE * HUGE_PAGE
        if end - start >= HUGE_PAGE:
            found.append((start, end))
    return found
