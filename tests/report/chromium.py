"""Drive headless Chromium over the DevTools protocol on a pipe, with the standard library only.

`--remote-debugging-pipe` makes Chromium read commands from fd 3 and write replies and events
to fd 4, each a JSON message ended by a NUL byte. That is enough to load a page, click, read
the DOM, take screenshots and collect console errors, without Selenium or a websocket client.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

FLAGS = (
    "--headless",
    "--no-sandbox",  # we run as root in a container
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--no-first-run",
    "--no-default-browser-check",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
)


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


class BrowserError(RuntimeError):
    pass


class Chromium:
    """One headless browser with one page; use as a context manager."""

    def __init__(self, executable: str, *, width: int = 1400, height: int = 1800, timeout: float = 30.0):
        self._timeout = timeout
        self._profile = tempfile.TemporaryDirectory(prefix="bugsmith-chromium-")
        to_browser, self._write = os.pipe()
        self._read, from_browser = os.pipe()

        def wire() -> None:  # in the child: the protocol's fixed descriptors 3 and 4
            # Move both ends above 4 first: a pipe end may already be fd 3 or 4, and dup2 onto
            # itself would neither clear close-on-exec nor survive the other dup2.
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_browser, from_browser)]
            for target, fd in zip((3, 4), high):
                os.dup2(fd, target)
                os.close(fd)

        self._process = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={self._profile.name}", f"--window-size={width},{height}"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=wire,
            close_fds=False,
        )
        os.close(to_browser)
        os.close(from_browser)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        self._session = ""

    def __enter__(self) -> Chromium:
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self._session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable", session=True)
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.call("Browser.close")
        except (BrowserError, OSError):
            pass
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        os.close(self._write)
        os.close(self._read)
        self._profile.cleanup()

    def call(self, method: str, *, session: bool = False, **params: Any) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self._session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._receive()
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def load(self, url: str) -> None:
        """Navigate and wait for the load event (the page's own script has run by then)."""
        self.call("Page.navigate", session=True, url=url)
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        result = self.call(
            "Runtime.evaluate", session=True, expression=expression, returnByValue=True, awaitPromise=True
        )
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression!r} raised {result['exceptionDetails']}")
        return result["result"].get("value")

    def click(self, selector: str) -> None:
        """Click the centre of the first element matching `selector` with real mouse events."""
        box = self.evaluate(
            f"(() => {{ const el = document.querySelector({json.dumps(selector)});"
            " el.scrollIntoView({block: 'center'}); const r = el.getBoundingClientRect();"
            " return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
        for kind in ("mousePressed", "mouseReleased"):
            self.call(
                "Input.dispatchMouseEvent", session=True, type=kind, x=box[0], y=box[1], button="left", clickCount=1
            )

    def screenshot(self, path: Path, *, full_page: bool = False) -> None:
        params: dict[str, Any] = {"format": "png", "captureBeyondViewport": full_page}
        data = self.call("Page.captureScreenshot", session=True, **params)["data"]
        path.write_bytes(base64.b64decode(data))

    def console_errors(self) -> list[str]:
        """Uncaught exceptions, console.error calls and error log entries seen so far."""
        errors = []
        for event in self.events:
            params = event.get("params", {})
            if event.get("method") == "Runtime.exceptionThrown":
                errors.append(json.dumps(params["exceptionDetails"])[:500])
            elif event.get("method") == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                errors.append(json.dumps(params.get("args"))[:500])
            elif event.get("method") == "Log.entryAdded" and params["entry"].get("level") == "error":
                errors.append(params["entry"].get("text", "")[:500])
        return errors

    def wait_for(self, method: str) -> dict[str, Any]:
        for event in self.events:
            if event.get("method") == method:
                self.events.remove(event)
                return event
        while True:
            event = self._receive()
            if event.get("method") == method:
                return event
            self.events.append(event)

    def _receive(self) -> dict[str, Any]:
        deadline = time.monotonic() + self._timeout
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._read], [], [], left)[0]:
                raise BrowserError("no reply from chromium in time")
            chunk = os.read(self._read, 1 << 20)
            if not chunk:
                raise BrowserError("chromium closed the pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)
