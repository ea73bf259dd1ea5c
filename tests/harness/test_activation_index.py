"""The worker's index of live functions sees a heap the suite froze after collection."""

from __future__ import annotations

import gc

from bugsmith.harness.child.activation import index_functions

SOURCE = "def first(x):\n    return x + 1\n\n\nclass Box:\n    def size(self):\n        return 3\n"


def test_functions_frozen_by_a_conftest_are_still_found():
    """A conftest that calls gc.freeze() after collection (the reference suites do, to spare
    the collector) must not send every mutant to a fresh interpreter."""
    namespace: dict[str, object] = {}
    exec(compile(SOURCE, "/project/frozen_module.py", "exec"), namespace)
    gc.freeze()
    try:
        index = index_functions(frozenset({"/project/frozen_module.py"}))
        assert gc.get_freeze_count() > 0  # the suite's freeze is kept
    finally:
        gc.unfreeze()
    assert index[("/project/frozen_module.py", "first")] == [namespace["first"]]
    assert index[("/project/frozen_module.py", "Box.size")] == [namespace["Box"].size]
