"""A headless Chromium driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``).

No Python dependency (no Playwright, Selenium or websocket client): the browser reads JSON
commands on its fd 3 and writes replies and events on its fd 4, each message ended by a NUL.
Used by the HTML viewer tests to load a page, collect console errors, exceptions and log
errors (a blocked network request is one), click, read the DOM and take screenshots.
"""

from __future__ import annotations

import base64
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
         "--disable-extensions", "--mute-audio", "--window-size=1280,900", "--remote-debugging-pipe")


def find_chromium() -> str | None:
    for path in (os.environ.get("CHROMIUM"), *CHROMIUM_CANDIDATES):
        if path and Path(path).is_file() and os.access(path, os.X_OK):
            return path
    return shutil.which("chromium")


class Browser:
    """One Chromium process with one page; every problem the page reports lands in ``errors``."""

    def __init__(self, executable: str, timeout: float = 30.0) -> None:
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="fight-envs-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def wire_fds() -> None:  # in the child: the protocol pipes on fds 3 and 4
            a, b = os.dup(to_browser_r), os.dup(from_browser_w)
            os.dup2(a, 3)
            os.dup2(b, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)

        self.proc = subprocess.Popen([executable, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     preexec_fn=wire_fds, close_fds=False)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._next_id = 0
        self._inbox: queue.Queue[dict[str, Any]] = queue.Queue()
        self._replies: dict[int, dict[str, Any]] = {}
        self.events: list[dict[str, Any]] = []
        self.errors: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable", session=True)

    # ------------------------------------------------------------------ protocol
    def _read(self) -> None:
        buf = b""
        while True:
            try:
                chunk = os.read(self._from_browser, 1 << 16)
            except OSError:
                break
            if not chunk:
                break
            buf += chunk
            while b"\0" in buf:
                raw, buf = buf.split(b"\0", 1)
                self._inbox.put(json.loads(raw))
        self._inbox.put({"closed": True})

    def _pump(self, deadline: float) -> dict[str, Any]:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("Chromium did not answer in time")
        try:
            msg = self._inbox.get(timeout=left)
        except queue.Empty:
            raise TimeoutError("Chromium did not answer in time") from None
        if msg.get("closed"):
            raise RuntimeError("Chromium closed the protocol pipe: "
                               + (self.proc.stderr.read().decode(errors="replace")[-2000:] if self.proc.stderr else ""))
        if "id" in msg:
            self._replies[msg["id"]] = msg
        else:
            self._on_event(msg)
        return msg

    def _on_event(self, msg: dict[str, Any]) -> None:
        self.events.append(msg)
        method, params = msg.get("method"), msg.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert", "warning"):
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
            self.errors.append(f"console.{params['type']}: {text}")
        elif method == "Runtime.exceptionThrown":
            d = params.get("exceptionDetails", {})
            self.errors.append(f"exception: {d.get('exception', {}).get('description', d.get('text'))}")
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") in ("error", "warning"):
            e = params["entry"]
            self.errors.append(f"log {e.get('source')}: {e.get('text')} {e.get('url', '')}")

    def call(self, method: str, params: dict[str, Any] | None = None, session: bool = False) -> dict[str, Any]:
        self._next_id += 1
        mid = self._next_id
        msg: dict[str, Any] = {"id": mid, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while mid not in self._replies:
            self._pump(deadline)
        reply = self._replies.pop(mid)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def wait_for(self, method: str, since: int = 0) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        while True:
            for e in self.events[since:]:
                if e.get("method") == method:
                    return e
            self._pump(deadline)

    def settle(self, seconds: float = 0.3) -> None:
        """Let events that are already on their way arrive."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                self._pump(deadline)
            except TimeoutError:
                return

    # ------------------------------------------------------------------ page
    def open(self, url: str) -> None:
        """Load ``url`` afresh (from a blank page, so a change of ``#fragment`` alone reloads too)."""
        since = len(self.events)
        self.call("Page.navigate", {"url": "about:blank"}, session=True)
        self.wait_for("Page.loadEventFired", since)
        since = len(self.events)
        self.call("Page.navigate", {"url": url}, session=True)
        self.wait_for("Page.loadEventFired", since)
        self.settle()

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True}, session=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression!r} threw: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self) -> bytes:
        return base64.b64decode(self.call("Page.captureScreenshot", {"format": "png"}, session=True)["data"])

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except (RuntimeError, TimeoutError, OSError, queue.Empty):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._to_browser, self._from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)
