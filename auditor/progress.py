"""Progress on a terminal; silence when stderr is a pipe or a file (CI logs stay clean)."""

from __future__ import annotations

import sys
import threading
import time


class Progress:
    def __init__(self, enabled: bool | None = None) -> None:
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.started = time.perf_counter()
        self._width = 0
        self._lock = threading.Lock()  # tables load, and games may run, in threads

    def __call__(self, message: str) -> None:
        if not self.enabled:
            return
        text = f"[{time.perf_counter() - self.started:6.1f}s] {message}"[:100]
        with self._lock:
            sys.stderr.write("\r" + text.ljust(self._width))
            sys.stderr.flush()
            self._width = len(text)

    def done(self) -> None:
        if self.enabled and self._width:
            sys.stderr.write("\r" + " " * self._width + "\r")
            sys.stderr.flush()
