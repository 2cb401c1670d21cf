"""A value asked for by two threads at once is built once (`auditor.once.BuildLocks`)."""

from __future__ import annotations

import threading

from auditor.once import BuildLocks


def test_two_threads_asking_at_once_get_one_build() -> None:
    locks, cache = BuildLocks(), {}
    building, release = threading.Event(), threading.Event()
    builds: list[str] = []

    def slow() -> object:
        builds.append(threading.current_thread().name)
        building.set()
        release.wait(10)
        return object()

    got: dict[str, object] = {}

    def ask(name: str) -> None:
        got[name] = locks.build_once(cache, "key", slow)

    first = threading.Thread(target=ask, args=("first",), name="first")
    first.start()
    assert building.wait(10)
    second = threading.Thread(target=ask, args=("second",), name="second")
    second.start()
    second.join(0.2)
    assert second.is_alive()  # waiting for the first's build, not building its own
    release.set()
    first.join(10)
    second.join(10)
    assert builds == ["first"] and got["first"] is got["second"] is cache["key"]


def test_a_build_may_ask_for_another_value_and_the_same_thread_again() -> None:
    locks, cache = BuildLocks(), {}
    inner = locks.build_once(cache, "outer", lambda: ("outer", locks.build_once(cache, "inner", lambda: "inner")))
    assert inner == ("outer", "inner") and cache == {"outer": ("outer", "inner"), "inner": "inner"}
    assert locks.build_once(cache, "outer", lambda: "never built") == ("outer", "inner")
