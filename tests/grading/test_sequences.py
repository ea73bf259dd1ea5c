"""The output check on stateful classes: method-call sequences recorded on the reference, replayed on a submission.

A small package stands in for a problem: `Tally` (a stateful class: what `total` returns
depends on the calls before it), `Item` (a contract dataclass passed as an argument) and
`Sampler` (a class that draws at random from a seed). The reference's suite runs once in a
sandbox with the recorder; each submission's code is replayed alone in another.
"""

from __future__ import annotations

import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from bugsmith.harness.exercises.judge.differential import Differential, record, replay
from bugsmith.harness.exercises.judge.grading import _Places
from tests.grading.submissions import requires_bwrap

pytestmark = [pytest.mark.slow, requires_bwrap]

INIT = "from .core import Item, Sampler, Tally\n"

REFERENCE = textwrap.dedent('''
    import random
    from dataclasses import dataclass


    @dataclass(frozen=True)
    class Item:
        name: str
        price: int


    class Tally:
        def __init__(self, limit):
            if limit < 1:
                raise ValueError("limit must be at least 1")
            self.limit = limit
            self.items = []

        def add(self, item):
            if len(self.items) >= self.limit:
                raise OverflowError("full")
            self.items.append(item)

        def total(self):
            return sum(item.price for item in self.items)

        def names(self):
            return [item.name for item in self.items]


    class Sampler:
        def __init__(self, random_state=None):
            self.rng = random.Random(random_state)

        def draw(self, n):
            return [self.rng.random() for _ in range(n)]
''')

# Written apart: other module, other names, other order of checks, and other random draws.
REWRITE = textwrap.dedent('''
    import random
    from dataclasses import dataclass


    @dataclass(frozen=True)
    class Item:
        name: str
        price: int


    class Tally:
        def __init__(self, limit):
            if not limit >= 1:
                raise ValueError(f"bad limit {limit}")
            self._cap, self._bag = limit, []

        def total(self):
            return sum(entry.price for entry in self._bag)

        def names(self):
            return [entry.name for entry in self._bag]

        def add(self, item):
            if len(self._bag) == self._cap:
                raise OverflowError
            self._bag = self._bag + [item]


    class Sampler:
        def __init__(self, random_state=None):
            self._seed = (random_state or 0) + 12345

        def draw(self, n):
            rng = random.Random(self._seed)
            self._seed += 1
            return [rng.random() for _ in range(n)]
''')

TESTS = textwrap.dedent('''
    import pytest

    from shop import Item, Sampler, Tally


    def test_total_after_adds():
        tally = Tally(3)
        tally.add(Item("a", 2))
        tally.add(Item("b", 5))
        assert tally.total() == 7
        assert tally.names() == ["a", "b"]


    def test_full_tally_refuses_and_keeps_its_total():
        tally = Tally(1)
        tally.add(Item("a", 4))
        with pytest.raises(OverflowError):
            tally.add(Item("b", 1))
        assert tally.total() == 4


    def test_bad_limit():
        with pytest.raises(ValueError):
            Tally(0)


    def test_draws_are_in_the_unit_interval():
        draws = Sampler(random_state=3).draw(4)
        assert len(draws) == 4 and all(0 <= d < 1 for d in draws)
''')


def _check(code: dict[str, str]) -> Differential:
    """Record the suite on the reference, replay it on `code`, in two sandboxes."""
    with tempfile.TemporaryDirectory(prefix="bugsmith-sequences-") as scratch:
        places = _Places(Path(scratch), isolated=True, hidden=())
        kit = Path(scratch) / "tests"
        kit.mkdir()
        (kit / "test_shop.py").write_text(TESTS, encoding="utf-8")
        reference = places.folder("reference", kit, {"shop/__init__.py": INIT, "shop/core.py": REFERENCE})
        submitted = places.folder("submitted", None, code)
        deadline = time.monotonic() + 300
        recording = record(places.sandbox(reference, places.input("record")),
                           places.input("record") / "request.json", ["shop/__init__.py", "shop/core.py"],
                           ["test_shop.py"], deadline=deadline)
        assert recording.sequences, recording
        return replay(places.sandbox(submitted, places.input("replay")), places.input("replay") / "request.json",
                      recording, deadline=deadline)


def test_a_correct_rewrite_in_other_modules_agrees_and_the_seeded_class_by_shape_only():
    """Every step of every sequence is compared (the constructor, each add, total, names, an add
    refused with OverflowError); the rewrite's classes live in another module and its draws
    differ, yet it agrees: a drawn value is compared by kind and shape, and the note says so."""
    check = _check({"shop/__init__.py": "from .impl import Item, Sampler, Tally\n", "shop/impl.py": REWRITE})
    assert check.agrees, check.examples
    assert check.calls >= 11  # 3 + 2 + 3 + 1 constructor steps and calls, and Sampler(...).draw
    assert {"Tally.add", "Tally.total", "Tally.names", "Sampler.draw"} <= set(check.functions)
    assert "Sampler" in check.note and "shapes" in check.note


@pytest.mark.parametrize(("bug", "before", "after"), [
    ("total", "return sum(item.price for item in self.items)", "return sum(item.price for item in self.items[1:])"),
    ("limit", "if len(self.items) >= self.limit:", "if len(self.items) > self.limit:"),
    ("validation", "if limit < 1:", "if limit < 0:"),
    ("draws", "return [self.rng.random() for _ in range(n)]", "return [self.rng.random() for _ in range(n + 1)]"),
])
def test_a_bug_in_a_stateful_class_shows_as_a_mismatch(bug, before, after):
    """A wrong total, a limit off by one, a validation that lets 0 through, one draw too many:
    each differs from the reference at the step where it shows."""
    assert before in REFERENCE
    check = _check({"shop/__init__.py": INIT, "shop/core.py": REFERENCE.replace(before, after)})
    assert not check.agrees, bug
