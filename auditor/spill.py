"""Findings past a bound, held on disk: an audit's findings in bounded memory.

An audit's findings can outnumber what its memory should hold: a month of a table whose clock runs
late is a finding a bet (4M), and an audit by partition holds a group of parts at a time but the
bundle's findings. `FindingRuns` gathers findings a part at a time (a rule's, a group's) and, once
they pass `spill_rows`, sorts them and writes them to a Parquet file of their own (a run): the text of
each one's JSON line and its sort key, nothing else. What the outputs need of them besides the
lines is kept as they are written (`Tally`: counts by rule, severity, (rule, table) and day) and so
are the first `keep` findings of each (rule, table), the most any output shows of one. The lines of
violations.jsonl are then the runs merged (`Spilled.lines`), a slice of each at a time.

The merged order is the in-memory order (`engine.sorted_findings`): the spec's keys, then source and
message, each compared as text with missing as "", equal findings in the order they were found.
`sort_key` puts those eight texts in one binary value whose byte order is that order: each text's
NUL bytes written as NUL 0x01, and the texts joined by NUL NUL, which sorts below any byte a text
can hold in its place.
"""

from __future__ import annotations

import tempfile
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from auditor.engine import SORT_KEYS, SPILL_ROWS, sorted_findings
from auditor.frames import text_array
from auditor.report.outputs import case_counts, counts_by, first_of_cases, violation_lines

KEEP = 200  # findings kept in memory of each (rule, table): the most any output shows (junit's MAX_LISTED)
# Rows of all the runs held at once while merging, shared among them (the late-bet month's eight
# runs: 400k, 0.91 GiB at peak; 100k, 0.40 GiB; 50k, 0.31 GiB; the merge's time the same, its
# writing of 2.2 GB most of it).
MERGE_ROWS = 100_000
WRITE_ROWS = 200_000  # findings encoded and written to a run at a time
# Rows of a run's row group: the merge reads a whole group of each run at once (200k rows: 166 MB,
# and the late-bet month's eight runs merged at 1.18 GiB).
RUN_GROUP_ROWS = 10_000
MERGE_KEYS = [*SORT_KEYS, "source", "message"]
_SEP = pa.scalar(b"\x00\x00", type=pa.large_binary())


class SpillError(Exception):
    """Findings could not be written to disk (no room, no temporary directory): the audit stops."""


def sort_key(findings: pd.DataFrame) -> pa.Array:
    """Each finding's MERGE_KEYS as one binary value, ordered bytewise as the findings sort."""
    parts = []
    for name in MERGE_KEYS:
        text = text_array(findings[name])
        if text is None:  # not text (no rule reports such): compared as its text
            text = pa.array(findings[name].astype(object).where(findings[name].notna(), None).map(str, na_action="ignore"),
                            type=pa.large_string())
        text = pc.fill_null(text, "").cast(pa.large_binary())
        parts.append(pc.replace_substring(text, b"\x00", b"\x00\x01"))
    return pc.binary_join_element_wise(*parts, _SEP)


def per_day(ts: pd.Series, timezone: str) -> dict[str, int]:
    """How many findings a day of the casino's calendar (the summary's period: a night's play is one
    day), in day order; findings without a time are in no day. The findings' times as they write
    them (ISO 8601, UTC) are read by Arrow in C, and each distinct second put in its day once (the
    month's 32k findings: 17 -> 5 ms, on the audit's one busy thread at its end); times Arrow does
    not read so, each distinct one by pandas (`_per_day_parsed`)."""
    text = text_array(ts) if len(ts) else None
    try:
        instants = pc.cast(text, pa.timestamp("us", tz="UTC")) if text is not None else None
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        instants = None
    if instants is None:
        return _per_day_parsed(ts, timezone)
    micros = instants.drop_null().to_numpy(zero_copy_only=False).astype("datetime64[us]").view(np.int64)
    seconds, counts = np.unique(micros // 1_000_000, return_counts=True)
    local = pd.to_datetime(seconds, unit="s", utc=True).tz_convert(timezone).tz_localize(None).normalize()
    days = pd.Series(counts, index=local).groupby(level=0).sum()
    return {day.strftime("%Y-%m-%d"): int(n) for day, n in days.items()}


def _per_day_parsed(ts: pd.Series, timezone: str) -> dict[str, int]:
    """`per_day`, each distinct time parsed once by pandas (a rule firing on millions of bets
    repeats its spins' times)."""
    stamps = ts.value_counts() if len(ts) else pd.Series([], dtype=np.int64)
    when = pd.to_datetime(stamps.index.to_series(), utc=True, errors="coerce", format="ISO8601").dt.tz_convert(timezone)
    # Grouped by the local midnight, and only the days formatted: strftime a distinct time took 26 ms.
    days = stamps.groupby(when.dt.tz_localize(None).dt.normalize().to_numpy()).sum().sort_index()
    return {day.strftime("%Y-%m-%d"): int(n) for day, n in days.items()}


@dataclass
class Tally:
    """What the outputs count of findings that are not all in memory."""

    total: int = 0
    by_rule: Counter[str] = field(default_factory=Counter)
    by_severity: Counter[str] = field(default_factory=Counter)
    by_case: Counter[tuple[str, str | None]] = field(default_factory=Counter)  # (rule, table_id; None: no table)
    by_day: Counter[str] = field(default_factory=Counter)

    def add(self, findings: pd.DataFrame, timezone: str) -> None:
        if findings.empty:
            return
        self.total += len(findings)
        self.by_rule.update(counts_by(findings, "rule"))
        self.by_severity.update(counts_by(findings, "severity"))
        self.by_case.update(case_counts(findings))
        self.by_day.update(per_day(findings["ts"], timezone))

    def days(self) -> dict[str, int]:
        return dict(sorted(self.by_day.items()))


class Spilled:
    """Every finding of an audit as sorted runs on disk, their tally, and their merged lines. The
    runs live in a temporary directory (under TMPDIR), removed by `close` or when this is let go."""

    def __init__(self, directory: tempfile.TemporaryDirectory[str], runs: list[Path], tally: Tally) -> None:
        self._directory = directory
        self.runs = runs
        self.tally = tally

    def lines(self, merge_rows: int = MERGE_ROWS) -> Iterator[pa.Array]:
        """violations.jsonl's lines in order, a slice at a time: each run is read a batch at a time,
        and whatever of every batch sorts at or below the smallest of their last keys is sorted
        together (stably, runs in order) and given out."""
        # Not buffered ahead, nor read by threads: each would hold more of every run at once.
        files = [pq.ParquetFile(run, pre_buffer=False) for run in self.runs]
        batch = max(1_000, merge_rows // max(len(files), 1))
        readers = [f.iter_batches(batch_size=batch, use_threads=False) for f in files]
        held: list[pa.RecordBatch | None] = [_next(r) for r in readers]
        while True:
            live = [i for i, b in enumerate(held) if b is not None]
            if not live:
                return
            # Every row still to come of run i sorts at or above its batch's last key.
            bound = min(held[i].column("key")[-1].as_py() for i in live)  # type: ignore[union-attr]
            bound_key = pa.scalar(bound, type=pa.large_binary())
            taken = []
            for i in live:
                b = held[i]
                assert b is not None
                n = pc.sum(pc.less_equal(b.column("key"), bound_key)).as_py() or 0  # a prefix: the batch is sorted
                if n:
                    taken.append(b.slice(0, n))
                held[i] = b.slice(n) if n < len(b) else _next(readers[i])
            table = pa.Table.from_batches(taken)
            order = pc.sort_indices(table.column("key"))  # stable: a tie keeps the earlier run first
            yield table.column("line").take(order).combine_chunks()

    def close(self) -> None:
        self._directory.cleanup()


def _next(reader: Iterator[pa.RecordBatch]) -> pa.RecordBatch | None:
    for b in reader:
        if len(b):
            return b
    return None


class FindingRuns:
    """The findings of an audit, given a part at a time (`add`, from any thread), held in memory
    until there are `spill_rows` of them (None: all), then sorted and written as a run. `finish`
    gives them back: all in memory (none was spilled) as `engine.sorted_findings` sorts them, or the
    first `keep` of each (rule, table) and the runs (`Spilled`). Equal findings keep the order they
    were added in: a rule's parts are added in order by the one thread that finds them."""

    def __init__(self, timezone: str, spill_rows: int | None = SPILL_ROWS, keep: int = KEEP) -> None:
        self.timezone = timezone
        self.spill_rows = spill_rows
        self.keep = keep
        self.pending: list[pd.DataFrame] = []
        self.held = 0
        self.count = 0  # every finding added
        self._lock = threading.Lock()
        self.first: pd.DataFrame | None = None  # of the findings spilled, the first `keep` of each case
        self.tally = Tally()
        self.runs: list[Path] = []
        self._directory: tempfile.TemporaryDirectory[str] | None = None

    @property
    def spilled(self) -> bool:
        return bool(self.runs)

    @property
    def due(self) -> bool:
        """Whether the findings held have reached `spill_rows`."""
        return self.spill_rows is not None and self.held >= self.spill_rows

    def add(self, findings: pd.DataFrame, spill: bool = True) -> None:
        """Hold `findings`; once `due`, spill them all now, or (`spill` False) when the caller says
        (`spill`), at a point where it holds less memory of its own."""
        if findings.empty:
            return
        with self._lock:  # a spill holds the other threads' findings back until it is written
            self.pending.append(findings)
            self.held += len(findings)
            self.count += len(findings)
            if spill and self.due:
                self._spill()

    def spill(self) -> None:
        with self._lock:
            self._spill()

    def _spill(self) -> None:
        run = sorted_findings(self.pending)  # empties `pending`
        self.held = 0
        if run.empty:
            return
        self.tally.add(run, self.timezone)
        first = first_of_cases(run, self.keep)
        # Runs are in the order found: a tie between the held and the new sorts the held first.
        self.first = first if self.first is None else first_of_cases(sorted_findings([self.first, first]), self.keep)
        try:
            if self._directory is None:
                self._directory = tempfile.TemporaryDirectory(prefix="auditor-findings-")
            path = Path(self._directory.name) / f"run-{len(self.runs):05d}.parquet"
            schema = pa.schema([("key", pa.large_binary()), ("line", pa.large_string())])
            with pq.ParquetWriter(path, schema, compression="lz4") as writer:
                for start in range(0, len(run), WRITE_ROWS):
                    part = run.iloc[start : start + WRITE_ROWS]
                    writer.write_table(pa.table({"key": sort_key(part), "line": violation_lines(part)}, schema=schema), row_group_size=RUN_GROUP_ROWS)
        except OSError as exc:
            where = self._directory.name if self._directory is not None else tempfile.gettempdir()
            raise SpillError(f"cannot write the findings past {self.spill_rows or 0:,} to {where}: {exc} "
                             "(set TMPDIR to a directory with room, or raise --findings-in-memory)") from exc
        self.runs.append(path)

    def kept_ids(self) -> tuple[pa.Array, pa.Array]:
        """The round and item ids of the findings an output may still show: those held, and the first
        of each case of those spilled (the rows the report shows as evidence are looked up by them),
        each once, as Arrow text. Never a Python string an id: the findings of every turn so far are
        asked again at each turn's end (the month: 0.22 s of Python sets)."""
        with self._lock:  # the next game's rules may be adding findings, or spilling them, meanwhile
            parts = [*self.pending, *([self.first] if self.first is not None else [])]

        def as_text(values: pd.Series) -> pa.Array:
            text = text_array(values)
            if text is None:  # ids of another kind (never seen: ids are text), as the rows would show them
                text = pa.array(values.dropna().astype(str).to_numpy(dtype=object), type=pa.large_string())
            return text.drop_null() if text.null_count else text

        def distinct(column: str) -> pa.Array:
            held = [as_text(p[column]) for p in parts]
            return pc.unique(pa.concat_arrays(held)) if held else pa.array([], type=pa.large_string())

        return distinct("round_id"), distinct("item_id")

    def finish(self) -> tuple[pd.DataFrame, Spilled | None]:
        if not self.runs:
            return sorted_findings(self.pending), None
        self._spill()
        assert self.first is not None and self._directory is not None
        return self.first.reset_index(drop=True), Spilled(self._directory, self.runs, self.tally)


__all__ = ["KEEP", "SPILL_ROWS", "FindingRuns", "SpillError", "Spilled", "Tally", "per_day", "sort_key"]
