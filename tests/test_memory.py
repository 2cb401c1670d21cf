"""The process's memory policy (`auditor.memory`): a whole audit keeps freed memory for reuse, an
audit by partition hands it back between games. What it changes is speed and peak memory, which the
benchmark measures; these tests hold that the policy takes effect where it should, so that a wrong
mallopt parameter cannot turn it off unnoticed. That findings do not depend on it: every audit by
partition is compared with the whole audit (tests/test_by_partition.py)."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from auditor import memory

GLIBC = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"


# Run in a fresh interpreter, in the order the CLI's process takes (`auditor.entry`): glibc fixes its
# arena limit once threads have made arenas, so the test process, whose earlier tests ran threads,
# would not show it. Six threads at once, as an audit's workers and Arrow's pool: a thread's arena
# other than the heap is handed out to every other new thread, so one thread alone can land well.
_WHERE_MEMORY_LANDS = """
import json, sys, threading
from pathlib import Path
from auditor import memory
if sys.argv[1] == "entry":
    memory.before_imports()
import auditor.cli  # numpy and pyarrow start threads of their own as they are imported
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

def in_heap(address):
    for line in Path("/proc/self/maps").read_text().splitlines():
        if line.endswith("[heap]"):
            lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
            if lo <= address < hi:
                return True
    return False

memory.set_up_audit_process()
kept = memory.keep_freed_memory()
landed = {"kept": kept, "pool": pa.default_memory_pool().backend_name, "numpy": [], "arrow": []}
all_in = threading.Barrier(7)

def allocate():
    array = np.ones(64 * 2**20, dtype=np.uint8)
    buffer = pa.allocate_buffer(64 * 2**20)
    landed["numpy"].append(in_heap(array.ctypes.data))
    landed["arrow"].append(in_heap(buffer.address))
    all_in.wait()  # every thread alive at once: none is a finished one's reused

workers = [threading.Thread(target=allocate) for _ in range(6)]
for worker in workers:
    worker.start()
all_in.wait()
for worker in workers:
    worker.join()
# What Arrow's own code allocates from the library's default pool, not pyarrow's: a boolean column
# with nulls made numpy's, a Parquet file's bytes read.
pa.chunked_array([pa.array([True, None, False] * 400_000)] * 3).to_numpy()
path = Path(sys.argv[2]) / "t.parquet"
pq.write_table(pa.table({"x": np.arange(1_000_000)}), path)
pq.read_table(path)
try:
    landed["mimalloc"] = pa.mimalloc_memory_pool().max_memory()
except NotImplementedError:  # a pyarrow built without it
    landed["mimalloc"] = 0
print(json.dumps(landed))
"""


def _as_a_fresh_shell() -> dict[str, str]:
    """This environment as a fresh shell's: without a pool for Arrow or a count of OpenBLAS threads
    the test run itself was given."""
    return {k: v for k, v in os.environ.items() if k not in (memory.ARROW_POOL_VARIABLE, memory.BLAS_THREADS_VARIABLE)}


def _python_in_a_fresh_shell(code: str, *args: str, variables: dict[str, str] | None = None) -> str:
    """What `code` (with `args`) prints, run by this Python from the project's root in a fresh
    shell's environment (`_as_a_fresh_shell`), with `variables` set in it."""
    run = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parent.parent, env=_as_a_fresh_shell() | (variables or {}))
    return run.stdout


def _where_memory_lands(order: str, tmp: Path) -> dict[str, object]:
    return json.loads(_python_in_a_fresh_shell(_WHERE_MEMORY_LANDS, order, str(tmp)))  # type: ignore[no-any-return]


@pytest.mark.skipif(not GLIBC, reason="the policy needs glibc's mallopt")
def test_a_whole_audit_reuses_one_heap_with_glibc(tmp_path: Path) -> None:
    """Once kept, a 64 MB array made in any worker thread, numpy's or Arrow's, comes from the heap
    the process reuses, not from a mapping of its own that the kernel zeroes afresh each time (a
    wrong mallopt parameter is accepted silently: only where the memory lands shows it); and what
    Arrow's own code allocates (Parquet's bytes, booleans made numpy's) never goes to mimalloc,
    which hands it back to be faulted in again."""
    assert _where_memory_lands("entry", tmp_path) == {"kept": True, "pool": "system", "numpy": [True] * 6, "arrow": [True] * 6, "mimalloc": 0}


@pytest.mark.skipif(not GLIBC, reason="the policy needs glibc's mallopt")
def test_the_arena_limit_set_after_the_imports_would_leave_threads_their_own(tmp_path: Path) -> None:
    """Why the entry point sets the limit first: set only once numpy and pyarrow have started their
    threads, some of the workers' arrays are mapped apart from the heap."""
    late = _where_memory_lands("late", tmp_path)
    if all(late["numpy"]):  # type: ignore[call-overload]
        pytest.skip("numpy and pyarrow started no thread that made an arena of its own here")
    assert late["kept"] is True and False in late["numpy"]  # type: ignore[operator]


@pytest.mark.skipif(not GLIBC, reason="the policy needs glibc's mallopt")
def test_arrow_own_pool_set_after_pyarrow_loads_stays_mimalloc(tmp_path: Path) -> None:
    """Why the entry point sets Arrow's pool before pyarrow loads: pyarrow's `set_memory_pool`
    alone leaves Arrow's own allocations with the library's default."""
    try:
        import pyarrow as pa

        pa.mimalloc_memory_pool()
    except NotImplementedError:
        pytest.skip("this pyarrow is built without mimalloc")
    assert _where_memory_lands("late", tmp_path)["mimalloc"] > 0  # type: ignore[operator]


_POOL_CHOSEN = """
import json, os, sys
from auditor import memory
first = memory.arrow_pool_on_the_heap()
import pyarrow
again = memory.arrow_pool_on_the_heap()
print(json.dumps([first, again, os.environ.get(memory.ARROW_POOL_VARIABLE)]))
"""


@pytest.mark.skipif(not GLIBC, reason="the policy needs glibc's mallopt")
@pytest.mark.parametrize(("chosen", "expected"), [(None, [True, False, "system"]), ("jemalloc", [False, False, "jemalloc"])])
def test_arrow_pool_is_set_before_pyarrow_loads_unless_the_user_chose_one(chosen: str | None, expected: list[object]) -> None:
    variables = {memory.ARROW_POOL_VARIABLE: chosen} if chosen is not None else None
    assert json.loads(_python_in_a_fresh_shell(_POOL_CHOSEN, variables=variables)) == expected


_ENTRY_ORDER = """
import json, os, sys
import auditor.entry as entry
seen = {}
before_imports = entry.before_imports
def first():
    seen["numpy or pyarrow imported before"] = "numpy" in sys.modules or "pyarrow" in sys.modules
    return before_imports()
entry.before_imports = first
sys.argv = ["auditor", "version"]
try:
    entry.main()
except SystemExit:
    pass
seen["Arrow's pool"] = os.environ.get("ARROW_DEFAULT_MEMORY_POOL")
seen["OpenBLAS threads"] = os.environ.get("OPENBLAS_NUM_THREADS")
print(json.dumps(seen))
"""


def test_the_command_sets_the_arena_limit_and_arrow_pool_before_numpy_or_pyarrow_is_imported() -> None:
    assert json.loads(_python_in_a_fresh_shell(_ENTRY_ORDER).splitlines()[-1]) == {"numpy or pyarrow imported before": False, "Arrow's pool": "system" if GLIBC else None,
                                                       "OpenBLAS threads": "1"}


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="threads counted in /proc")
def test_numpy_set_up_as_the_command_does_starts_no_thread_of_its_own() -> None:
    """What `one_blas_thread` is for: numpy's import, once the variable is set, leaves the process
    with its one thread (OpenBLAS would start one for each other core)."""
    count = "import os; from auditor import memory; memory.one_blas_thread(); import numpy; print(len(os.listdir('/proc/self/task')))"
    assert _python_in_a_fresh_shell(count).strip() == "1"


_BLAS_CHOSEN = """
import json, os, sys
from auditor import memory
first = memory.one_blas_thread()
import numpy
again = memory.one_blas_thread()
print(json.dumps([first, again, os.environ.get(memory.BLAS_THREADS_VARIABLE)]))
"""


@pytest.mark.parametrize(("chosen", "expected"), [(None, [True, False, "1"]), ("2", [False, False, "2"])])
def test_openblas_threads_are_set_to_one_before_numpy_loads_unless_the_user_chose_a_count(chosen: str | None, expected: list[object]) -> None:
    variables = {memory.BLAS_THREADS_VARIABLE: chosen} if chosen is not None else None
    assert json.loads(_python_in_a_fresh_shell(_BLAS_CHOSEN, variables=variables)) == expected


def test_between_games_memory_is_handed_back_unless_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(memory, "_keeping", False)
    monkeypatch.setattr(memory, "release_unused_memory", lambda: calls.append("released"))
    memory.release_between_games()
    assert calls == ["released"]
    monkeypatch.setattr(memory, "_keeping", True)
    memory.release_between_games()
    assert calls == ["released"]


def test_memory_is_handed_back_before_the_outputs_when_findings_are_many_or_memory_is_not_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """A whole audit keeps what its games freed for outputs of few findings, which reuse it; many
    findings (their sort and lines need memory of their own), or an audit that does not keep freed
    memory (by partition), hand it back first."""
    calls: list[int] = []
    monkeypatch.setattr(memory, "release_unused_memory", lambda: calls.append(1))
    monkeypatch.setattr(memory, "_keeping", True)
    memory.release_before_outputs(memory.MANY_FINDINGS - 1)
    assert calls == []
    memory.release_before_outputs(memory.MANY_FINDINGS)
    assert calls == [1]
    monkeypatch.setattr(memory, "_keeping", False)
    memory.release_before_outputs(0)
    assert calls == [1, 1]


_HUGE_PAGES = """
import json
from pathlib import Path
from auditor import memory
def thp():
    return [line.split()[1] for line in Path("/proc/self/status").read_text().splitlines() if line.startswith("THP_enabled:")]
before = thp()
memory.set_up_audit_process()
print(json.dumps([before, thp()]))
"""


@pytest.mark.skipif(platform.system() != "Linux", reason="THP_enabled is Linux's")
def test_an_audit_process_leaves_transparent_huge_pages_as_the_system_sets_them() -> None:
    """Once set up, the audit's process still takes the transparent huge pages numpy asks for on its
    large arrays: on the benchmark's machine that mix costs the kernel less than small pages alone
    (`auditor.memory`'s docstring). /proc/<pid>/status shows the switch (Linux 5.0 and later)."""
    run = subprocess.run([sys.executable, "-c", _HUGE_PAGES], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parent.parent)
    before, after = json.loads(run.stdout)
    if not before:
        pytest.skip("this kernel's /proc/<pid>/status does not show THP_enabled")
    assert after == before


def test_the_outputs_are_written_with_the_collector_paused_and_it_runs_again_after(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The outputs make hundreds of thousands of small objects (the report's findings and evidence):
    the cycle collector is off while they are written, on again after, and an error on the way does
    not leave it off; a collector the caller had turned off stays off."""
    import gc

    from auditor.report import write

    seen: list[bool] = []

    def summary_written(summary: dict[str, object], path: Path) -> None:
        seen.append(gc.isenabled())
        if summary.get("fail"):
            raise OSError("disk full")

    monkeypatch.setattr(write, "write_summary", summary_written)
    write.write_outputs(None, {}, tmp_path, set(), "ca")  # type: ignore[arg-type]
    assert seen == [False] and gc.isenabled()
    with pytest.raises(OSError):
        write.write_outputs(None, {"fail": True}, tmp_path, set(), "ca")  # type: ignore[arg-type]
    assert gc.isenabled()
    gc.disable()
    try:
        write.write_outputs(None, {}, tmp_path, set(), "ca")  # type: ignore[arg-type]
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_whole_audit_of_large_text_files_hands_back_what_it_frees(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Freed memory is kept for reuse by a whole audit of Parquet or of small text files, not by one
    with a CSV or JSONL file of LARGE_TEXT_FILE bytes or more (a gzip file as eight times its size),
    whose held text fragments the memory kept."""
    from auditor.loading.bundle import table_files

    kept: list[int] = []
    monkeypatch.setattr(memory, "keep_freed_memory", lambda: kept.append(1) or True)

    def sized(name: str, size: int) -> Path:
        path = tmp_path / name
        with path.open("wb") as f:
            f.truncate(size)  # sparse: no disk taken
        return path

    big = memory.LARGE_TEXT_FILE
    assert memory.keep_freed_memory_for([sized("wheel_bets.parquet", 4 * big), sized("tables.csv", big - 1)]) is True
    assert memory.keep_freed_memory_for([sized("cdf_coups.csv", big)]) is False
    assert memory.keep_freed_memory_for([sized("dice_bets.jsonl.gz", big // 8)]) is False
    assert memory.keep_freed_memory_for([sized("wheel_spins.csv.gz", big // 8 - 1)]) is True
    assert kept == [1, 1]
    assert sorted(p.name for p in table_files(tmp_path)) == ["cdf_coups.csv", "dice_bets.jsonl.gz", "tables.csv", "wheel_bets.parquet",
                                                             "wheel_spins.csv.gz"]
    assert table_files(tmp_path / "missing") == []
