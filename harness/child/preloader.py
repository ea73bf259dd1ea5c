"""The preloader's side of harness.shared.preload: import the suite's third-party modules, then fork a
zygote for each run that asks, until nobody has asked for a while.

Started by a fork pool as it closes, `python -P -m bugsmith.harness.child.preloader`, with the
environment a zygote gets and a `Start` on its standard input. It forks at once; the started
process exits once the forked one listens, so the pool waits for no import, the preloader is
nobody's child, and a run that starts after the pool has closed finds it. It listens before it
imports (a run that asks meanwhile waits for it, rather than import the same modules beside it),
and answers once its imports are done.

Its own imports stay out of the module level: a test that starts a `spawn` multiprocessing
child re-imports `__main__`, which is this module in a forked zygote.
"""

from __future__ import annotations

import os
import sys


def main() -> int:
    import json
    import socket

    from bugsmith.harness.shared.preload import Start

    start = Start.from_dict(json.loads(sys.stdin.buffer.read()))
    listening, told = os.pipe()
    if os.fork() != 0:
        os.close(told)
        os.read(listening, 1)  # the preloader listens (or could not): the pool may go on
        os._exit(0)
    os.close(listening)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(start.address)
        listener.listen(16)
    except OSError as error:  # another preloader took the name first
        print(f"bugsmith preloader {os.getpid()}: not listening: {error}", file=sys.stderr, flush=True)
        return 0
    finally:
        os.close(told)
    from bugsmith.harness.child.preloading import Preloader

    spawned = Preloader(start).serve(listener)  # returns in a forked zygote too
    return spawned()


if __name__ == "__main__":
    sys.exit(main())
