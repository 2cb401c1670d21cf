"""Two versions of the auditor, each in a warm process of its own, taking turns on the same audit
(A B B A A B ...), so that each pair of runs meets the host in the same minute:

    .venv/bin/python bench/turns.py bench/out/month-1000k OLD_CHECKOUT NEW_CHECKOUT --turns 10

A developer's probe for changes of a few per cent, not the benchmark: on this machine the host's
speed moves over some twenty seconds (one process's runs of the same audit went from 3.7 to
5.9 s), so that alternated pairs of whole processes, each a minute long, cannot show such a
change. Each checkout is a directory holding an `auditor` package (`git worktree add DIR COMMIT`);
each run is a whole audit with its outputs, as the benchmark's "run again"; the first run of each
process (fresh memory) is left out of the summary. Prints each run, then per side the median and
mean wall clock and CPU, and the ratios B/A of the pairs of turns.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path


def _child(bundle: Path, out: Path) -> None:
    """Audit `bundle` into `out` once for each "go" line read, printing the run's wall and CPU time."""
    from auditor.memory import before_imports, keep_freed_memory_for, set_up_audit_process

    before_imports()  # as the CLI's entry point does, before the imports that start threads or load Arrow
    from auditor.engine import DEFAULT_WORKERS
    from auditor.loading.bundle import table_files
    from run import audit_once  # the benchmark's own whole audit (this script's folder is on the path)

    set_up_audit_process()
    keep_freed_memory_for(table_files(bundle))
    for line in sys.stdin:
        if line.strip() != "go":
            break
        wall, cpu = time.perf_counter(), time.process_time()
        audit_once(bundle, out, DEFAULT_WORKERS)
        print(f"{time.perf_counter() - wall:.3f} {time.process_time() - cpu:.3f}", flush=True)
        gc.collect()


def _start(checkout: Path, bundle: Path, out: Path) -> subprocess.Popen[str]:
    # Run from outside the project, so that the checkout's `auditor` is the one imported.
    env = dict(os.environ, PYTHONPATH=str(checkout.resolve()))
    return subprocess.Popen([sys.executable, str(Path(__file__).resolve()), str(bundle.resolve()), "--child", str(out.resolve())],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd="/")


def _turn(process: subprocess.Popen[str]) -> tuple[float, float]:
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("go\n")
    process.stdin.flush()
    answer = process.stdout.readline().split()
    if len(answer) != 2:
        raise SystemExit(f"a process ended without its run (exit {process.wait()})")
    return float(answer[0]), float(answer[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundle", type=Path)
    parser.add_argument("a", type=Path, nargs="?", help="checkout A (a directory holding `auditor`)")
    parser.add_argument("b", type=Path, nargs="?", help="checkout B")
    parser.add_argument("--turns", type=int, default=10, help="runs of each side (default 10)")
    parser.add_argument("--out", type=Path, default=Path("/tmp/auditor-turns"), help="where each side writes its outputs")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)  # a side's process: where it writes
    args = parser.parse_args()
    if args.child is not None:
        _child(args.bundle, args.child)
        return
    if args.a is None or args.b is None or args.turns < 2:
        parser.error("give two checkouts and at least 2 turns")
    processes = {"A": _start(args.a, args.bundle, args.out / "A"), "B": _start(args.b, args.bundle, args.out / "B")}
    runs: dict[str, list[tuple[float, float]]] = {"A": [], "B": []}
    try:
        for turn in range(args.turns):
            for side in ("A", "B") if turn % 2 == 0 else ("B", "A"):
                wall, cpu = _turn(processes[side])
                runs[side].append((wall, cpu))
                print(f"{side} run {len(runs[side])}: {wall:.2f} s, CPU {cpu:.2f} s", flush=True)
    finally:
        for process in processes.values():
            if process.poll() is None:
                assert process.stdin is not None
                process.stdin.write("stop\n")
                process.stdin.close()
                process.wait()
    for side in ("A", "B"):
        walls, cpus = [w for w, _ in runs[side][1:]], [c for _, c in runs[side][1:]]
        print(f"{side}: wall median {statistics.median(walls):.3f} s, mean {statistics.mean(walls):.3f} s; "
              f"CPU median {statistics.median(cpus):.3f} s, mean {statistics.mean(cpus):.3f} s")
    pairs = list(zip(runs["A"][1:], runs["B"][1:], strict=True))
    wall_ratios, cpu_ratios = [b[0] / a[0] for a, b in pairs], [b[1] / a[1] for a, b in pairs]
    print(f"B/A by pair of turns: wall median {statistics.median(wall_ratios):.3f} (B faster in {sum(r < 1 for r in wall_ratios)} of "
          f"{len(pairs)}), CPU median {statistics.median(cpu_ratios):.3f} (B less in {sum(r < 1 for r in cpu_ratios)} of {len(pairs)})")


if __name__ == "__main__":
    main()
