"""`python -m bugsmith_grading.replay`: call the submission's functions as the reference suite did.

Reads the recorded calls (function, pickled arguments) and method-call sequences (class,
then each method with its pickled arguments) the grader wrote, replays each on the
submission's code under a time limit per call, and sends what it did as data
(`values.observe`, `sequences.play`).
The grader compares that with what the reference did; nothing sent from here is run.
"""

from __future__ import annotations

import base64
import importlib
import pickle
import signal
import sys
from typing import Any

from .channel import request, send
from .sequences import Hung, arm, play, public_class
from .values import NotData, TooLarge, observe


def _function(key: str) -> Any:
    module, _, qualname = key.partition(":")
    found: Any = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    if not callable(found):
        raise TypeError(f"{key} is not callable")
    return found


def _replay(call: dict[str, Any], seconds: float) -> dict[str, Any]:
    try:
        function = _function(call["function"])
        args, kwargs = pickle.loads(base64.b64decode(call["args"]))
    except Exception as error:  # noqa: BLE001 - the submission has no such function, or it breaks on import
        return {"unavailable": f"{type(error).__name__}: {error}"[:300]}
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return observe(function, args, kwargs)
    except Hung:
        return {"timeout": seconds}
    except (NotData, TooLarge, RecursionError) as error:
        return {"unavailable": f"the result cannot be compared: {type(error).__name__}"}
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _replay_sequence(sequence: dict[str, Any], seconds: float) -> list[dict[str, Any]]:
    try:
        module, _, name = sequence["class"].partition(":")
        cls = public_class(module, name)
        steps = [(step["method"], *pickle.loads(base64.b64decode(step["args"]))) for step in sequence["steps"]]
    except Exception as error:  # noqa: BLE001 - the submission has no such class, or it breaks on import
        return [{"unavailable": f"{type(error).__name__}: {error}"[:300]}]
    return play(cls, steps, seconds)


def main() -> int:
    wanted = request()
    for path in reversed(wanted["paths"]):
        sys.path.insert(0, path)
    arm()
    for call in wanted["calls"]:
        send({"event": "start", "id": call["id"]})
        send({"event": "outcome", "id": call["id"], "outcome": _replay(call, wanted["seconds"])})
    for sequence in wanted.get("sequences", ()):
        send({"event": "sequence-outcome", "id": sequence["id"],
              "outcomes": _replay_sequence(sequence, wanted["seconds"])})
    send({"event": "done"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
