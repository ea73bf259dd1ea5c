"""Whether bubblewrap can start a sandbox on this machine, asked once before grading starts.

`bwrap` being installed is not enough: it needs unprivileged user namespaces, or root allowed to
create namespaces, and many containers (Docker's defaults, hosted autograders such as
Gradescope's) allow neither. There every sandboxed test process dies before it starts, and the
grade would read as if the submission had silenced its own tests ("tampered with"): a correct
fix failed for a reason that is not its own. Asking first turns that into one line that says
what is missing.
"""

from __future__ import annotations

import shutil
import subprocess

from bugsmith.harness.shared.sandbox import Sandbox, SandboxUnavailable, command, require_bwrap

PROBE_SECONDS = 60.0  # a generous guard: an empty sandbox starts in milliseconds


def check_sandbox() -> None:
    """SandboxUnavailable, with bubblewrap's own reason on one line, unless an empty sandbox runs here."""
    require_bwrap()
    launch = command(Sandbox(mounts=(), workdir="/"), [shutil.which("true") or "/bin/true"])
    try:
        done = subprocess.run(launch.argv, env=launch.env, cwd=launch.cwd, capture_output=True, text=True,
                              timeout=PROBE_SECONDS, check=False)
    except subprocess.TimeoutExpired:
        raise SandboxUnavailable(_unavailable(f"an empty sandbox did not finish in {PROBE_SECONDS:.0f} s")) from None
    if done.returncode != 0:
        said = [line.strip() for line in done.stderr.splitlines() if line.strip()]
        raise SandboxUnavailable(_unavailable(said[0] if said else f"exit status {done.returncode}"))


def _unavailable(reason: str) -> str:
    return (f"bubblewrap cannot start a sandbox here ({reason}): it needs unprivileged user namespaces, or root"
            " allowed to create namespaces (a container must permit them); grade with --no-sandbox only code"
            " you trust")
