"""`python -m bugsmith_grading.replay`: call the submission's functions as the reference suite did.

Reads the recorded calls (function, pickled arguments) the grader wrote, calls each on the
submission's code under a time limit, and sends what it did as data (`values.observe`).
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
from .values import NotData, TooLarge, observe


class _Hung(BaseException):
    """Raised by the alarm in a call that runs past its time."""


def _alarm(signum: int, frame: Any) -> None:
    raise _Hung


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
    except _Hung:
        return {"timeout": seconds}
    except (NotData, TooLarge, RecursionError) as error:
        return {"unavailable": f"the result cannot be compared: {type(error).__name__}"}
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def main() -> int:
    wanted = request()
    for path in reversed(wanted["paths"]):
        sys.path.insert(0, path)
    signal.signal(signal.SIGALRM, _alarm)
    for call in wanted["calls"]:
        send({"event": "start", "id": call["id"]})
        send({"event": "outcome", "id": call["id"], "outcome": _replay(call, wanted["seconds"])})
    send({"event": "done"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
