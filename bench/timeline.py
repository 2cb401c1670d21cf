"""Where a whole audit's threads spend their time: each table's load, each rule, each prepared frame
built (and each wait for one another thread is building), each game's figures and let-go, by thread,
and the process's CPU use in every tenth of a second, with the core-seconds left idle.

    .venv/bin/python bench/timeline.py bench/out/month-1000k --runs 2 [--steps]

A developer's probe, not the benchmark: it wraps the engine's and the loader's functions in this
process to time them (a little slower than an audit without it), and it writes no outputs. The
first run meets fresh memory; the later ones reuse it, as the benchmark's "again" does. Use it to
find where the two cores are not both busy (a game's end, a prepared frame the other thread waits
for); use `bench/run.py` for the figures the README quotes.
"""

from __future__ import annotations

import argparse
import gc
import threading
import time
from collections.abc import Callable, Hashable, MutableMapping
from pathlib import Path
from typing import Any

from auditor.memory import before_imports, keep_freed_memory_for, set_up_audit_process

before_imports()  # as the CLI's entry point does, before the imports that start threads or load Arrow

import auditor.engine as engine  # noqa: E402
import auditor.loading.bundle as loading  # noqa: E402
from auditor.once import BuildLocks  # noqa: E402
from auditor.rules import select_rules  # noqa: E402
from auditor.ruleset import load_ruleset  # noqa: E402

Event = tuple[str, float, float, float, str]  # thread, start, end (s from the run's start), thread CPU s, what
EVENTS: list[Event] = []
START = [0.0]


def _timed(what: Callable[..., str], func: Callable[..., Any]) -> Callable[..., Any]:
    def timed(*args: Any, **kwargs: Any) -> Any:
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            return func(*args, **kwargs)
        finally:
            EVENTS.append((threading.current_thread().name, wall - START[0], time.perf_counter() - START[0],
                           time.thread_time() - cpu, what(*args, **kwargs)))
    return timed


def _instrument_steps() -> None:
    """Each table's load in its steps, shown indented under it: the file's digest and read (Arrow's
    decoding runs in Arrow's own threads: the step's wall clock, not its thread's CPU), the typing,
    the repeated ids, the items' rounds and the clean rows' copy (an item table's twice: the items
    set aside, then the rows kept); each shown when it takes `--shortest` or longer, as a rule is."""
    loading.sha256_of = _timed(lambda path: f"  digest {path.name}", loading.sha256_of)
    loading.read_raw = _timed(lambda path, *_a, **_k: f"  read {path.name}", loading.read_raw)
    loading.coerce = _timed(lambda table, *_a, **_k: f"  type {table.name}", loading.coerce)
    loading._deduplicate = _timed(lambda table, *_a, **_k: f"  repeated ids {table.name}", loading._deduplicate)
    loading.split_items = _timed(lambda *_a, **_k: "  items' rounds", loading.split_items)
    loading.clean_rows = _timed(lambda table, *_a, **_k: f"  clean rows {table.name}", loading.clean_rows)


def _instrument() -> None:
    loading._load_table = _timed(lambda table, *_a, **_k: f"load {table.name}", loading._load_table)  # type: ignore[assignment]
    engine._GameWork._check = _timed(lambda _self, rule: rule.code, engine._GameWork._check)  # type: ignore[method-assign]
    engine.game_figures = _timed(lambda _b, game: f"figures {game}", engine.game_figures)
    loading.BundleLoad.let_go = _timed(lambda _self, tables, *_a: "let go " + ",".join(tables), loading.BundleLoad.let_go)  # type: ignore[method-assign]
    loading.BundleLoad.finish = _timed(lambda _self: "finish", loading.BundleLoad.finish)  # type: ignore[method-assign]
    engine._result = _timed(lambda *_a: "result", engine._result)
    build_once = BuildLocks.build_once

    def watched(self: BuildLocks, cache: MutableMapping[Any, Any], key: Hashable, build: Callable[[], Any]) -> Any:
        if key in cache:
            return cache[key]
        wall, built = time.perf_counter(), []

        def building() -> Any:
            built.append(True)
            return _timed(lambda: f"build {key}"[:80], build)()
        value = build_once(self, cache, key, building)
        if not built and time.perf_counter() - wall > 0.005:  # another thread built it meanwhile
            EVENTS.append((threading.current_thread().name, wall - START[0], time.perf_counter() - START[0], 0.0, f"wait for {key}"[:80]))
        return value
    BuildLocks.build_once = watched  # type: ignore[method-assign]


def _sample_cpu(samples: list[tuple[float, float]], every: float = 0.02) -> None:
    while True:
        samples.append((time.perf_counter(), time.process_time()))
        time.sleep(every)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundle", type=Path)
    parser.add_argument("--runs", type=int, default=2, help="audits in this process, the first on fresh memory (default 2)")
    parser.add_argument("--shortest", type=float, default=0.04, help="events shorter than this many seconds left out (default 0.04)")
    parser.add_argument("--workers", type=int, default=engine.DEFAULT_WORKERS)
    parser.add_argument("--steps", action="store_true", help="also each table's load in its steps (digest, read, typing, repeated ids, items' rounds, clean rows)")
    args = parser.parse_args()
    _instrument()
    if args.steps:
        _instrument_steps()
    set_up_audit_process()  # as the CLI does
    keep_freed_memory_for(loading.table_files(args.bundle))  # as the CLI does for a whole audit
    samples: list[tuple[float, float]] = []
    threading.Thread(target=_sample_cpu, args=(samples,), daemon=True).start()
    for run in range(args.runs):
        EVENTS.clear()
        gc.collect()
        START[0] = time.perf_counter()
        result = engine.audit_bundle(args.bundle, load_ruleset(), select_rules(), lang="ca", workers=args.workers)
        total = time.perf_counter() - START[0]
        print(f"run {run + 1} ({'fresh memory' if run == 0 else 'memory reused'}): {total:.2f} s, {len(result.findings):,} findings; "
              + ", ".join(f"{k} {v:.2f} s" for k, v in result.marks.items()))
        for thread, start, end, cpu, what in sorted(EVENTS, key=lambda e: e[1]):
            if end - start >= args.shortest or what.startswith(("load", "let go", "figures")):
                print(f"  {thread[-22:]:>22} {start:6.2f} {end:6.2f} {end - start:5.2f} s  cpu {cpu:5.2f} s  {what}")
        points = [(wall - START[0], cpu) for wall, cpu in samples if START[0] <= wall <= START[0] + total]
        tenths: dict[int, list[float]] = {}
        for (w0, c0), (w1, c1) in zip(points, points[1:], strict=False):
            into = tenths.setdefault(int(w0 * 10), [0.0, 0.0])
            into[0] += w1 - w0
            into[1] += c1 - c0
        print("  cores busy, each tenth of a second: " + " ".join(f"{cpu / wall:.1f}" for _, (wall, cpu) in sorted(tenths.items()) if wall))
        cores = min(args.workers, 2)
        print(f"  core-seconds idle (of {cores} cores): {sum(cores * wall - cpu for wall, cpu in tenths.values()):.2f}")
        del result


if __name__ == "__main__":
    main()
