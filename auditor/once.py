"""Values built once, whatever the number of threads that ask for them at the same time."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, MutableMapping
from typing import Any, TypeVar

T = TypeVar("T")


class BuildLocks:
    """A lock a key of a cache, so that two threads asking for the same value at once (two rules of
    one game, or a rule and the game's figures, run side by side) build it once: the second waits
    for the first's. Reentrant: building one value may ask for another, or the same thread again."""

    def __init__(self) -> None:
        self._locks: dict[Hashable, threading.RLock] = {}
        self._guard = threading.Lock()

    def build_once(self, cache: MutableMapping[Any, Any], key: Hashable, build: Callable[[], T]) -> T:
        """`cache[key]`, built by `build()` first if it is not there yet."""
        if key in cache:
            return cache[key]  # type: ignore[no-any-return]
        with self._guard:
            lock = self._locks.setdefault(key, threading.RLock())
        with lock:
            if key not in cache:
                cache[key] = build()
        return cache[key]  # type: ignore[no-any-return]
