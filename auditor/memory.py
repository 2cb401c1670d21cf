"""How an audit's process takes and gives back memory.

An audit allocates and frees gigabytes of short-lived arrays: each column read, each mask, each
joined or sorted copy. With the allocators' defaults most of them are fresh memory (glibc maps each
block above its threshold, 128 KiB rising to 32 MiB, apart and unmaps it when freed; Arrow's jemalloc
pool keeps a heap of its own, and the audit trimmed both after each game), and the kernel zeroes every
page of fresh memory on first touch: a quarter of an audit's CPU went there. So a whole audit, with glibc, keeps what it frees in one heap and reuses it (Arrow's buffers
too, through the system allocator, so that numpy and Arrow reuse each other's: pyarrow's pool and
Arrow's own default, which must be set before pyarrow loads: `arrow_pool_on_the_heap`), and hands the unused
part back to the system once, when its games have run, before the findings are sorted. Measured on
the benchmark's 13M rows (six alternating runs each): page faults 0.91-1.00M -> 0.64-0.71M, CPU
10.0-12.2 -> 8.4-8.7 s, whole audit 5.5-6.7 -> 4.8-5.0 s, peak 2.92-3.03 -> 2.95-3.17 GiB; with 4M
findings 26.2 -> 23.9 s, peak 5.3 -> 6.0 GiB (5.8-6.1 GiB in three make bench runs, 5.2-5.3 before:
what the games freed is kept until they are all done).

An audit by partition does not: it is the audit of a bundle larger than memory, and kept memory
fragments across its steps (three copies of the month: peak 1.68 -> 2.12 GiB). It hands memory back
after the load and after each game, as the whole audit did before.

Both run with one malloc arena for all their threads, set by the command's entry point before any
import starts a thread (`one_arena`): set later, it holds only for some of them.

Neither switches off transparent huge pages: numpy asks for them on its large arrays (where the
system's setting is `madvise`, the common default), and the rest of the heap keeps small pages. On
the benchmark's machine (a VM whose host takes back freed memory) that mix costs the kernel least:
2026-12-05, the month's 13M rows, alternating pairs, each process timed start to exit: huge pages
off (as before, `PR_SET_THP_DISABLE`) 4.72-6.34 s, the kernel's 2.14-4.63 s for 0.40-0.44M page
faults; numpy's huge pages 4.15-5.27 s, the kernel's 1.42-2.64 s for 0.29-0.35M (17 pairs, 16 of
them faster); the whole heap in huge pages too (`GLIBC_TUNABLES=glibc.malloc.hugetlb=1`) 5.01-5.60
s, the kernel's 2.76-3.63 s for 27k (7 runs). By partition, two pairs: 19.1-19.5 -> 18.2-19.0 s,
peak 0.79 -> 0.86 GiB. (On 2026-12-01, before one arena and kept memory, the same switch measured
no faster either way, and a steadier kernel share off: the host's price of fresh memory drifts by
the hour, which is why only alternating pairs count.)
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import gc
import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

# mallopt's parameters (glibc's malloc.h).
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _M_ARENA_MAX = -1, -3, -8
# mallopt takes an int: the largest threshold it can be given. An array beyond 2 GB is mapped on its
# own, which costs little beside its size.
_KEEP_UP_TO = 2**31 - 1


@functools.cache
def _glibc() -> ctypes.CDLL | None:
    """The C library when it is glibc (whose mallopt and malloc_trim this module relies on); None
    elsewhere (macOS, musl), where the process keeps the allocators' defaults."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.gnu_get_libc_version  # noqa: B018 - only glibc has it
        libc.mallopt, libc.malloc_trim  # noqa: B018
    except (OSError, AttributeError):
        return None
    return libc


_keeping = False


def one_arena() -> bool:
    """One malloc arena for every thread of the process (glibc's M_ARENA_MAX), set before the first
    import that starts a thread: numpy's OpenBLAS and pyarrow each start one as they are imported,
    and the first of them to allocate makes an arena of its own, to which glibc then hands every
    other new thread in turn, whatever limit is set after (the audit's workers, Arrow's pool). A
    thread's arena maps each large block apart from the heap and unmaps it when freed, so the memory
    `keep_freed_memory` keeps for reuse was kept for half the threads. Set first (2026-12-01, the
    benchmark's 13M rows, six alternating pairs): page faults 0.66-0.73M -> 0.60-0.62M, the kernel's
    time 1.49-1.73 -> 1.39-1.53 s, peak 2.12-2.21 -> 2.06-2.11 GiB, the wall clock the same (4.00-4.36
    s against 3.99-4.40 s, and one run of 5.63 s); by partition the same in two pairs. Called by the
    command's entry point (`auditor.entry`, through `before_imports`) before anything else; this
    module imports neither numpy nor pyarrow at its top. True if set; False where the C library is
    not glibc."""
    libc = _glibc()
    return bool(libc is not None and libc.mallopt(_M_ARENA_MAX, 1))


# The variable Arrow's C++ library reads, once, as it loads, to choose its own default memory pool.
ARROW_POOL_VARIABLE = "ARROW_DEFAULT_MEMORY_POOL"


def arrow_pool_on_the_heap() -> bool:
    """Arrow's C++ default memory pool the C library's heap ("system"), set in the environment before
    pyarrow is first imported. pyarrow's `set_memory_pool` (`keep_freed_memory`) sets only the pool
    its Python calls default to; Arrow's own code that asks for the library's default pool keeps
    mimalloc, pyarrow's build default: the Parquet reader's buffers (each file's bytes, read once),
    and `to_numpy` of boolean columns (every table's flags). mimalloc hands back what is freed some
    milliseconds later (`madvise(MADV_DONTNEED)`), so each audit faulted those pages in afresh,
    which the kernel zeroes: 2026-12-05, the month's 13M rows, 240 such calls an audit, some 260 MB
    (72-99 of the system's huge pages, all of them faulted by the audit run again, 0-15 with the
    heap). Four alternating triples, each process after 10 s idle, the same audit in each: run again
    3.10-3.19 -> 2.70-2.88 s (CPU 5.19-5.25 -> 4.61-4.82 s, the kernel's 0.65-0.87 -> 0.14-0.35 s),
    a fresh process 5.73-7.41 -> 5.34-5.97 s. Called by the command's entry point (`before_imports`)
    only where the C library is glibc, whose heap `keep_freed_memory` keeps; a pool the user chose
    in the environment is left as it is. True if the heap is Arrow's default pool from now on; False
    once pyarrow is imported (too late: the library read the variable as it loaded)."""
    if _glibc() is None or "pyarrow" in sys.modules:
        return False
    return os.environ.setdefault(ARROW_POOL_VARIABLE, "system") == "system"


# The variable numpy's OpenBLAS reads, once, as numpy loads, for how many threads of its own to start.
BLAS_THREADS_VARIABLE = "OPENBLAS_NUM_THREADS"


def one_blas_thread() -> bool:
    """numpy's OpenBLAS without a thread of its own, set in the environment before numpy is first
    imported. The audit does no linear algebra, but OpenBLAS starts a thread for each other core as
    numpy loads, which spins waiting for work before it sleeps: 2026-12-06, `import numpy` alone,
    0.22-0.27 -> 0.10-0.13 s of CPU (the other core's, while the command's imports go on), each time
    the command starts. A count the user chose is left as it is. True if OpenBLAS runs on the
    caller's thread alone from now on; False once numpy is imported (too late: it read the variable
    as it loaded)."""
    if "numpy" in sys.modules:
        return False
    return os.environ.setdefault(BLAS_THREADS_VARIABLE, "1") == "1"


def before_imports() -> None:
    """What the command's entry point (and the benchmark's processes, as it) sets before the first
    import of numpy or pyarrow: one malloc arena (`one_arena`), Arrow's own pool on the heap
    (`arrow_pool_on_the_heap`), no OpenBLAS thread (`one_blas_thread`)."""
    one_arena()
    arrow_pool_on_the_heap()
    one_blas_thread()


def keep_freed_memory() -> bool:
    """Have freed memory kept for reuse rather than handed back at once, for a whole audit: big
    allocations from the heap (not a mapping of their own, unmapped when freed), the heap not
    trimmed on each free, one arena for all threads (`one_arena`: a thread's own arena maps any
    large block apart; for threads started before, only its earlier call makes it hold), and Arrow
    allocating through the same heap. Called before the audit's first allocation of any size; it
    holds for the rest of the process (the CLI's runs one audit). True if done; False where the C
    library is not glibc."""
    global _keeping
    libc = _glibc()
    if libc is None:
        return False
    if not (one_arena() and libc.mallopt(_M_MMAP_THRESHOLD, _KEEP_UP_TO) and libc.mallopt(_M_TRIM_THRESHOLD, _KEEP_UP_TO)):
        return False
    import pyarrow as pa

    pa.set_memory_pool(pa.system_memory_pool())
    _keeping = True
    return True


# A text table file (CSV, JSONL) this large or larger: a whole audit of its bundle does not keep what
# it frees. Its text is held whole while it is parsed, then its columns as text while they are typed:
# blocks of hundreds of megabytes that the typed columns, a fraction of their size, do not fill once
# freed, so kept memory fragments. The month as CSV (1.1 GB, 13M rows, 2026-12-04): heap 4.1 GiB for
# at most 1.6 GiB in use, peak 3.5-3.8 GiB; handed back as an audit by partition does, 2.3 GiB, in
# the same time (12.7-13.6 s against 12.2-13.5). Set where a file of a month's largest table is
# well past it and a day's (some 40 MB) is below: not measured in between. A gzip file counts as
# eight times its size on disk (text compresses some five to ten times).
LARGE_TEXT_FILE = 128 << 20
_GZIP_RATIO = 8


def text_file_bytes(path: Path) -> int:
    """About how many bytes of text the file at `path` holds: its size, eight times it gzipped; 0 for
    a file that is not text (Parquet) or cannot be looked at. Its format as the reader names it."""
    from auditor.loading.readers import UnreadableFile, file_format

    try:
        fmt, size = file_format(path), path.stat().st_size
    except (UnreadableFile, OSError):
        return 0
    return {"csv": size, "jsonl": size, "csv.gz": size * _GZIP_RATIO, "jsonl.gz": size * _GZIP_RATIO}.get(fmt, 0)


def keep_freed_memory_for(files: Iterable[Path]) -> bool:
    """`keep_freed_memory` for a whole audit of these table files, unless one of them is text of
    LARGE_TEXT_FILE bytes or more (`text_file_bytes`): then the process hands back what it frees, as
    an audit by partition does. True if freed memory is kept."""
    if any(text_file_bytes(f) >= LARGE_TEXT_FILE for f in files):
        return False
    return keep_freed_memory()


def use_lean_memory_pool() -> None:
    """Where freed memory cannot be kept for reuse: Arrow's jemalloc pool if the build has it; it
    hands freed memory back to the system sooner than the default, which lowers an audit's peak
    (4.4 -> 4.1 GB on 13M rows)."""
    import pyarrow as pa

    try:
        pa.set_memory_pool(pa.jemalloc_memory_pool())
    except (NotImplementedError, pa.ArrowNotImplementedError):
        pass


def set_up_audit_process() -> None:
    """What an audit's process does once, after its imports, the CLI's and the benchmark's alike:
    Arrow's lean pool (a whole audit then keeps
    freed memory instead: `keep_freed_memory`); then what is loaded by now (the interpreter,
    pandas, pyarrow, the rules), which lives as long as the process, kept out of the collector's
    generations, so that it is not walked again each time the report's many small objects set off
    a collection (outputs of 13M rows: 0.70 s -> 0.60 s)."""
    use_lean_memory_pool()
    gc.freeze()


def release_unused_memory() -> None:
    """Hand the memory the process holds but no longer uses back to the system: Arrow's pool's, and
    the free pages of the C library's heap. Called once an audit's games have run, whatever the
    audit: what they freed would otherwise stay mapped through the outputs (4M findings: peak 6.8 ->
    6.0 GiB kept; an audit by partition: one step's memory, not the most any step needed)."""
    import pyarrow as pa

    pa.default_memory_pool().release_unused()
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)


# Findings from which the outputs' own memory (the findings' sort, the lines of violations.jsonl)
# is worth handing back first what the games freed.
MANY_FINDINGS = 100_000


def release_before_outputs(findings: int) -> None:
    """Once the games have run, before their `findings` are sorted and the outputs written: hand back
    what the games freed (`release_unused_memory`) where the outputs will need much memory of their
    own (4M findings: peak 6.8 -> 6.0 GiB), or where the process does not keep freed memory (an audit
    by partition). A whole audit of fewer findings keeps it: its outputs reuse it, where handed back
    it was mapped and faulted in again on the audit's one busy thread at its end (the benchmark's
    32k findings: the trim 0.03-0.05 s, then some 170 MB faulted in again; eight alternating runs,
    the outputs' median 0.79 -> 0.72 s)."""
    if findings >= MANY_FINDINGS or not _keeping:
        release_unused_memory()


def release_between_games() -> None:
    """After the load and after each game: hand back what it freed, unless the process keeps freed
    memory for the next game to reuse (a whole audit, with glibc). Handed back, the peak of an audit
    by partition stays that of its largest step; and where memory is not kept, Arrow's pool would
    hold a game's freed buffers, which fragment memory so that the next fresh arrays cost the kernel
    compaction to fault in (rules 3.87 s -> 3.63 s, mean of 9 alternating runs on 13M rows, for the
    call after the load)."""
    if not _keeping:
        release_unused_memory()


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cycle collector off for a short phase that builds many small objects and frees them at its
    end, as the outputs do (the report's shown findings, their evidence, the template's output): each
    full collection walks every object made since the start. The outputs of the benchmark's 13M rows
    (2026-12-01, four alternating runs): 243, 22 and 2 collections of the three generations, 0.07 s
    of 0.47-0.53 s, on the audit's one busy thread at its end. Whatever cycles the phase leaves are
    collected as usual once it is over; a collector already off stays off."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
