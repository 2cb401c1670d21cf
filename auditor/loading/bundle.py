"""A bundle on disk to typed frames, with every row accounted for.

Rows that break the format are quarantined (LOG001), later occurrences of an id are quarantined
(LOG002); both are kept in `Bundle.quarantine` so the outputs can name them and count them.
For every file: rows read = rows audited + rows quarantined.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import re
from collections.abc import Callable, Hashable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import TypeVar, cast

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from pandas.api.types import union_categoricals

from auditor.frames import arrow, coded, is_arrow_text, is_text_categories, isin, kept_rising, later_occurrences, note_rising, positions, rows_holding, without_rows
from auditor.loading.coerce import as_text, coerce, finalize_dtypes
from auditor.loading.readers import (
    LineError, ParquetRows, ParquetRun, RawTable, UnreadableFile, file_format, frames_of, partition_values, read_parquet_rows, read_raw,
)
from auditor.once import BuildLocks
from auditor.schema import (
    ITEM_ROUNDS,
    NAMED_BY_OTHERS,
    REPORTED_ON,
    ROUND_TABLES_OF_ITEMS,
    SETTLED_VIA_PARENT,
    SHARED_GAME,
    TABLES,
    Table,
)

T = TypeVar("T")

SUFFIXES = (".csv", ".csv.gz", ".jsonl", ".jsonl.gz", ".parquet")
QUARANTINE_COLUMNS = ["rule", "table", "file", "line", "column", "reason", "value", "table_id", "round_id", "item_id"]
# No quarantine record: read-only, shared.
_NO_RECORDS = pd.DataFrame(columns=QUARANTINE_COLUMNS)

Progress = Callable[[str], None]
LOAD_THREADS = min(2, os.cpu_count() or 1)


class BundleError(Exception):
    """The bundle cannot be audited at all (missing, not a directory)."""


@dataclass
class SourceFile:
    name: str
    table: str
    sha256: str
    rows_read: int = 0
    rows_quarantined: int = 0
    error: str | None = None

    @property
    def rows_audited(self) -> int:
        return self.rows_read - self.rows_quarantined


@dataclass
class Bundle:
    path: Path
    files: list[SourceFile]
    frames: dict[str, pd.DataFrame]
    quarantine: pd.DataFrame
    ids_seen: dict[str, pa.Array]  # every id read of each table others name, quarantined rows' included
    manifest: dict[str, object] | None = None
    manifest_error: str | None = None
    ignored: list[str] = field(default_factory=list)
    # Tables with a file that could not be read (or was refused): the ids it holds are unknown, so a
    # record naming none of the ids read cannot be called an orphan.
    unread: set[str] = field(default_factory=set)
    # Items (stakes, bets) whose round is not among the audited rounds, in file order: orphans
    # (LOG003's) or items of a quarantined round. No game rule judges them; `frames` does not hold
    # them (`split_items`).
    unmatched: dict[str, pd.DataFrame] = field(default_factory=dict)
    # Each table's quarantine records (`rounds_missing_items`, `tables_missing_rows`), by table: set as
    # each table is installed, since a game's rules start before `quarantine` is put together; in
    # the audit by partition, the unpartitioned tables' and every group's so far (a stake may be
    # read a group before its coup). None: read from `quarantine`.
    left_out: dict[str, pd.DataFrame] | None = None
    # Each round table's ids on more than one row read that are not one round written again cell for
    # cell (`_told_apart`): their items are set aside (`split_items`), and their sums not judged (`rounds_missing_items`).
    ambiguous_rounds: dict[str, pa.Array] = field(default_factory=dict)
    # The rows left out of a round table whose sequence does not show a round missing (`TIMED_GAPS`:
    # throws, and coups at a shoe's end): each one's table and time, where both could be read
    # (`gap_rows`; a coup's with its time NaT where only its table could), by table.
    gaps: dict[str, pd.DataFrame] = field(default_factory=dict)
    # The first and last round times (`ts`, `ts_open`) of each table whose frame the whole audit let go
    # once its game was audited (`BundleLoad.let_go`): the frame then holds only the rows findings name.
    times: dict[str, tuple[pd.Timestamp, pd.Timestamp]] = field(default_factory=dict)
    _derived: dict[Hashable, object] = field(default_factory=dict, repr=False, compare=False)
    _locks: BuildLocks = field(default_factory=BuildLocks, repr=False, compare=False)

    @property
    def name(self) -> str:
        return self.path.resolve().name

    def seeing(self, tables: list[str]) -> Bundle:
        """The bundle with only `tables`' frames in `frames` (those it holds), sharing everything else,
        what is derived included: a whole audit's turn, whose rules run while the next turn's tables
        are installed and the last turn's let go, sees its own tables and no others (LOG003 reads
        every frame it is given)."""
        return replace(self, frames={t: self.frames[t] for t in tables if t in self.frames})

    def derived(self, key: Hashable, build: Callable[[], T]) -> T:
        """`build()`, computed once per bundle: what several rules or outputs read (the items' round
        positions, the per-table figures), by whichever thread asks first."""
        return self._locks.build_once(self._derived, key, build)

    def _left_out(self, table: str) -> pd.DataFrame:
        """The quarantine records of `table`'s rows: from `left_out` where the bundle keeps them by
        table, else from `quarantine`."""
        if self.left_out is not None:
            return self.left_out.get(table, _NO_RECORDS)
        q = self.quarantine
        return q[q["table"].astype(object).to_numpy() == table] if len(q) else _NO_RECORDS

    def _named_by_left_out(self, table: str, column: str) -> tuple[pa.Array, bool]:
        """The `column` values (round or table ids) that `table`'s rows left out name, and whether a
        row was left out that names none (its cell empty, or a file that could not be read)."""
        ids = self._left_out(table)[column].astype(object).to_numpy()
        told = pd.notna(ids) & (ids != "")
        return pa.array(ids[told].astype(str), type=pa.large_string()), bool((~told).any()) or table in self.unread

    def rounds_missing_items(self, items: str) -> tuple[pa.Array, bool]:
        """(ids, untold) for an item table (`ITEM_ROUNDS`): the ids of the rounds some of whose items
        were left out of the audit (a row quarantined: a bad cell, a repeated id, a stake of a settled
        coup without its result), or cannot be told from another round's (the round's own id on two
        rows that differ: `ambiguous_rounds`, its items set aside); and whether items were left out whose round
        cannot be told (a file that could not be read, a row whose round id is missing). A sum or
        count of a round's items is then not the round's own: a rule that judges one leaves those
        rounds unjudged, LOG001 and LOG002 report why."""
        ids, untold = self._named_by_left_out(items, "round_id")
        twice = self.ambiguous_rounds.get(ITEM_ROUNDS[items][1])
        return (pa.concat_arrays([ids, twice.cast(pa.large_string())]) if twice is not None else ids), untold

    def tables_missing_rows(self, table: str) -> tuple[pa.Array, bool]:
        """(table ids, untold) for a table of rows per gaming table (wheel_layouts): the tables some of
        whose rows were quarantined, and whether a row was left out whose table cannot be told (no
        table_id, or a file that could not be read). What was read of those tables' rows is not
        all of them: a rule that judges them whole leaves those tables unjudged."""
        return self._named_by_left_out(table, "table_id")

    def parent_positions(self, child: str, key: str, parent: str) -> np.ndarray:
        """For each row of `child`, the row position in `parent` of the record its `key` names, -1
        when the parent has no such (audited) record. Computed once per bundle: the rules that join
        items to their rounds and the rule on orphans share one lookup."""
        id_column = TABLES[parent].id_column
        assert id_column, f"{parent} has no id column"
        return self.derived(positions_key(child, key, parent), lambda: positions(self.frames[child][key], self.frames[parent][id_column]))


# Round tables whose rounds carry no number (dice throws): a row left out of the audit leaves no gap
# in any sequence the log shows, so its table and time are kept (`Bundle.gaps`) for the rules that
# compare a round with the table's previous one (BFR308-BFR310). A coup has its coup_no; a wheel's
# sequence rule (WHL209) can only miss a breach for want of a spin, never make one up.
# Each with what those rules read of a round: a repeated id's row (LOG002) equal on these to the
# kept row it repeats is that round written twice, which hides nothing from them, not a round
# missing (a file delivered twice would otherwise stop BFR308-BFR310 on every throw it holds).
# Coups carry numbers, but a coup missing at the end of a shoe leaves no gap in them: a coup left
# out may have been its shoe's last (`cdf_replay._shoe_ended`), and its time says which shoe's end
# it may be; one whose time cannot be read is kept with none (NaT), its whole table in doubt.
TIMED_GAPS: dict[str, tuple[str, ...]] = {"dice_throws": ("table_id", "ts", "dice_set_id", "launcher_id", "null_reason"),
                                          "cdf_coups": ("table_id", "ts", "shoe_id", "coup_no")}
UNTIMED_GAPS_KEPT = frozenset({"cdf_coups"})


def gap_rows(typed: pd.DataFrame, left: np.ndarray, table: str) -> pd.DataFrame:
    """The table and time of the typed rows that `left` marks (left out of the audit: a bad cell, a
    repeated id), those whose table and time could both be read; a row without them cannot be placed
    in any table's sequence. For a table of `UNTIMED_GAPS_KEPT`, a row whose table alone was read
    is kept too, its time NaT."""
    rows = typed.loc[left, ["table_id", "ts"]] if left.any() else typed.iloc[0:0][["table_id", "ts"]]
    known = rows["table_id"].notna().to_numpy(dtype=bool)
    if table not in UNTIMED_GAPS_KEPT:
        known = known & rows["ts"].notna().to_numpy(dtype=bool)
    return pd.DataFrame({"table_id": rows["table_id"].astype(object).to_numpy()[known], "ts": rows["ts"].array[known]})


def row_digests(table: Table, rows: pd.DataFrame, columns: tuple[str, ...] | None = None) -> np.ndarray:
    """A 64-bit digest of each row's cells in the format's columns (or in `columns`), equal for a
    row written twice whatever dtype each read gave a column (text or categories, plain or nullable
    integers, time units; missing equal to missing): only the rows whose id repeats, but all of a
    file delivered twice (4M bets: seconds, not a Python call a cell)."""
    out = np.zeros(len(rows), dtype=np.uint64)
    for name in columns or table.names:
        if name in rows.columns:
            out = (out * np.uint64(1_000_003)) ^ _cell_digests(rows[name])
    return out


_MISSING = np.uint64(0x9E3779B97F4A7C15)  # any missing cell, whatever the column's dtype


def _cell_digests(values: pd.Series) -> np.ndarray:
    missing = values.isna().to_numpy(dtype=bool)
    kind = values.dtype
    if isinstance(kind, pd.CategoricalDtype):
        codes = values.array.codes
        categories = values.cat.categories
        if not len(categories):
            hashed = np.zeros(len(values), dtype=np.uint64)
        elif len(values) < len(categories):
            # A few rows of an id held as codes among a million: their own text digested, not every
            # category's (the repeats of 4M bets with 0.2 % repeated: 0.27 s, four calls a table).
            hashed = pd.util.hash_array(categories.take(np.maximum(codes, 0)).astype(str).to_numpy(dtype=object))
        else:  # the categories' text, each digested once
            hashed = pd.util.hash_array(categories.astype(str).to_numpy(dtype=object))[np.maximum(codes, 0)]
    elif pd.api.types.is_datetime64_any_dtype(kind):
        ticks = (values.dt.tz_convert("UTC") if getattr(kind, "tz", None) else values).dt.as_unit("ns")
        hashed = pd.util.hash_array(ticks.to_numpy(dtype="datetime64[ns]").view(np.int64))
    elif pd.api.types.is_bool_dtype(kind) or pd.api.types.is_integer_dtype(kind):
        hashed = pd.util.hash_array(values.astype("Int64").to_numpy(dtype=np.int64, na_value=0))
    else:  # text, or anything else by its text
        text = values.to_numpy(dtype=object, na_value="") if pd.api.types.is_string_dtype(kind) else np.array(
            ["" if m else str(v) for v, m in zip(values.astype(object).to_numpy(), missing, strict=True)], dtype=object)
        hashed = pd.util.hash_array(text, categorize=False)
    return np.where(missing, _MISSING, hashed)


def _records(parts: list[pd.DataFrame]) -> pd.DataFrame:
    """Quarantine records put together: the parts that hold any."""
    parts = [p for p in parts if len(p)]
    return pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0] if parts else _NO_RECORDS


def positions_key(child: str, key: str, parent: str) -> Hashable:
    """Where `Bundle.parent_positions` keeps its answer among the bundle's derived values: the load
    stores the positions it found there, and must find them to drop them."""
    return ("positions", child, key, parent)


def split_items(keys: pd.Series, keep: np.ndarray, round_ids: pd.Series, ambiguous: pa.Array | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(kept, aside, positions) for the rows of an item table that `keep` marks: `kept` those whose
    `keys` name one of `round_ids` (the audited rounds), `aside` the others (orphans, LOG003's, or
    items of a quarantined round: no game rule judges them), and each kept row's round position.
    An item naming an `ambiguous` id (one on more than one row of its round table, not one round
    written again cell for cell: `_told_apart`) is set aside as well: which of those rounds it
    belongs to cannot be told.
    Items are set aside once, at load, not by each game joining them to their rounds: the join
    would copy millions of items beside the bundle's own."""
    at = positions(keys, round_ids)
    known = at >= 0
    if ambiguous is not None and len(ambiguous) and known.any():
        # Marked on the first row holding each, as `at` finds an item's round: the few ambiguous ids
        # looked up among the rounds, not the million items' keys among them (4M bets: 28 -> 15 ms).
        marked = np.zeros(len(round_ids), dtype=bool)
        rows = positions(ambiguous, round_ids)
        marked[rows[rows >= 0]] = True
        known[known] = ~marked[at[known]]
    kept = keep & known
    return kept, keep & ~known, at[kept]


def set_aside_unmatched(
    frames: dict[str, pd.DataFrame], ids_seen: dict[str, pa.Array], ambiguous: dict[str, pa.Array] | None = None
) -> tuple[dict[str, pd.DataFrame], dict[str, pd.DataFrame], dict[Hashable, object]]:
    """(frames, unmatched, positions) for frames already loaded (the audit by partition's groups):
    `split_items` on each item table whose round table has a file, the items set aside moved from
    `frames` to `unmatched`, and the kept items' round positions (`Bundle.parent_positions`' cache).
    An item table whose round table has no file is left whole (LOG003 reports it once a file)."""
    out = dict(frames)
    unmatched: dict[str, pd.DataFrame] = {}
    cache: dict[Hashable, object] = {}
    for child, (key, parent) in ITEM_ROUNDS.items():
        if child not in out or parent not in out or parent not in ids_seen:
            continue
        items = out[child]
        kept, aside, at = split_items(items[key], np.ones(len(items), dtype=bool), out[parent][TABLES[parent].id_column], (ambiguous or {}).get(parent))
        if aside.any():
            out[child], unmatched[child] = items[kept].reset_index(drop=True), items[aside].reset_index(drop=True)
        cache[positions_key(child, key, parent)] = at
    return out, unmatched, cache


def inside_bundle(root: Path, path: Path) -> bool:
    """Whether `path`, links followed, lies within the bundle at `root`: a file outside it (a link
    to a key or a password file in a hostile bundle) is never read, so its lines never reach a report."""
    return path.resolve().is_relative_to(root.resolve())


def sha256_of(path: Path) -> str:
    """The file's SHA-256, its bytes read a chunk at a time into one buffer, not each chunk into a
    fresh bytes object (the month's 208 MB of Parquet: 191-194 -> 172-183 ms)."""
    digest = hashlib.sha256()
    chunk = bytearray(1 << 20)
    view = memoryview(chunk)
    with path.open("rb", buffering=0) as fh:
        while read := fh.readinto(chunk):
            digest.update(view[:read])
    return digest.hexdigest()


def part_order(name: str) -> tuple[object, ...]:
    """How the parts of a partitioned table are ordered: numbers in their names as numbers, so that
    `part-2` comes before `part-10` (pyarrow's and Dask's part names) and `day=2026-3-9` before
    `day=2026-3-10`; zero-padded dates sort as they read. The name itself breaks a tie (`part-010`
    and `part-10`), so that the order never depends on the file system's."""
    return (tuple(int(run) if run.isdigit() else run for run in re.split(r"(\d+)", name)), name)


def discover(path: Path) -> tuple[dict[str, list[Path]], list[str]]:
    """Files of each table in a stable order (a table's parts by `part_order`), and the names of
    files that are not part of the format."""
    found: dict[str, list[Path]] = {}
    ignored: list[str] = []
    for entry in sorted(path.iterdir(), key=lambda p: p.name):
        if entry.name == "manifest.json" or entry.name.startswith("."):
            continue
        table = None
        if entry.is_dir():
            if entry.name in TABLES:
                # A partitioned table is Parquet parts; anything else in it is listed, never silently
                # skipped (a day written as CSV among Parquet days would otherwise vanish).
                inside = sorted((p for p in entry.rglob("*") if p.is_file() and not any(n.startswith(".") for n in p.relative_to(entry).parts)),
                                key=lambda p: part_order(p.relative_to(entry).as_posix()))
                ignored.extend(p.relative_to(path).as_posix() for p in inside if not p.name.endswith(".parquet"))
                parts = [p for p in inside if p.name.endswith(".parquet")]
                if parts:
                    found.setdefault(entry.name, []).extend(parts)
                continue
        else:
            for suffix in SUFFIXES:
                if entry.name.endswith(suffix) and entry.name[: -len(suffix)] in TABLES:
                    table = entry.name[: -len(suffix)]
                    break
        if table is None:
            ignored.append(entry.name + ("/" if entry.is_dir() else ""))
            continue
        found.setdefault(table, []).append(entry)
    return found, ignored


def table_files(path: Path) -> list[Path]:
    """Every file `discover` finds a table in (none where `path` is no directory it can list)."""
    try:
        found, _ = discover(path)
    except OSError:
        return []
    return [p for paths in found.values() for p in paths]


def _cell_quarantine(table: Table, names: np.ndarray, file_code: np.ndarray, lines: np.ndarray, typed_ids: pd.DataFrame, errors: list) -> pd.DataFrame:
    """LOG001 records for rows with bad cells, one per row naming every bad cell; each raw row's file
    is `names[file_code]`, its line `lines`."""
    parts = [
        pd.DataFrame({"pos": err.positions, "column": err.column, "reason": err.reason,
                      "value": as_text(err.values).fillna("").to_numpy(dtype=object)})
        for err in errors
    ]
    if not parts:
        return pd.DataFrame(columns=QUARANTINE_COLUMNS)
    cells = pd.concat(parts, ignore_index=True).sort_values(["pos"], kind="stable")
    detail = cells["column"] + ": " + cells["reason"] + np.where(cells["value"] != "", " (" + cells["value"].str.slice(0, 60) + ")", "")
    if cells["pos"].is_unique:  # a bad cell a row, as nearly always: each row's own record, no grouping
        rows = pd.DataFrame({"pos": cells["pos"].to_numpy(), "column": cells["column"].to_numpy(dtype=object),
                             "reason": detail.to_numpy(dtype=object), "value": cells["value"].to_numpy(dtype=object)})
    else:
        rows = _joined_by_row(cells, detail)
    pos = rows["pos"].to_numpy(dtype=np.int64)
    out = pd.DataFrame(
        {
            "rule": "LOG001", "table": table.name, "file": names[file_code[pos]], "line": lines[pos],
            "column": rows["column"].to_numpy(dtype=object), "reason": rows["reason"].to_numpy(dtype=object),
            "value": rows["value"].to_numpy(dtype=object),
        }
    )
    for key in ("table_id", "round_id", "item_id"):
        out[key] = typed_ids[key].iloc[pos].astype(object).to_numpy() if key in typed_ids else None
    return out


def _joined_by_row(cells: pd.DataFrame, detail: pd.Series) -> pd.DataFrame:
    """For bad cells sorted by row (`pos`), some rows with several: a record a row, its first cell's
    column and value, and every cell's `detail` joined by "; ". Joined in Arrow over the runs of
    each row's cells: a pandas groupby joining them in Python took 0.2 s for 8,700 rows."""
    pos = cells["pos"].to_numpy(dtype=np.int64)
    first = np.flatnonzero(np.r_[True, pos[1:] != pos[:-1]])
    text = pa.array(detail.to_numpy(dtype=object), type=pa.large_string())
    runs = pa.LargeListArray.from_arrays(pa.array(np.append(first, len(pos)), type=pa.int64()), text)
    return pd.DataFrame({
        "pos": pos[first], "column": cells["column"].to_numpy(dtype=object)[first],
        "reason": pc.binary_join(runs, pa.scalar("; ", type=pa.large_string())).to_numpy(zero_copy_only=False),
        "value": cells["value"].to_numpy(dtype=object)[first],
    })


def _line_quarantine(table: Table, file: str, line_errors: list[LineError]) -> pd.DataFrame:
    """LOG001 records for lines that could not be split into cells."""
    return pd.DataFrame(
        {
            "rule": "LOG001", "table": table.name, "file": file, "line": [e.line for e in line_errors], "column": None,
            "reason": [e.reason for e in line_errors], "value": [e.text for e in line_errors],
            "table_id": None, "round_id": None, "item_id": None,
        }
    )


def _raw_ids(table: Table, raw: pd.DataFrame) -> pd.DataFrame:
    """The table, round and item a finding on each raw row names (REPORTED_ON), and the row's own id."""
    ids = pd.DataFrame(index=raw.index)
    round_col, item_col = REPORTED_ON[table.name]
    for key, col in (("table_id", "table_id"), ("round_id", round_col), ("item_id", item_col), ("own_id", table.id_column)):
        if col and col in raw.columns:
            # Text held as codes stays codes: only the quarantined rows' are ever read.
            ids[key] = raw[col] if is_text_categories(raw[col]) else as_text(raw[col])
    return ids


@dataclass
class LoadedFiles:
    """Files of one table read and typed together: every row that split into cells, with `_file`
    and `_line`; their quarantine; each row's own id; which rows passed LOG001."""

    sources: list[SourceFile]
    typed: pd.DataFrame
    quarantine: list[pd.DataFrame]
    ids: pd.Series
    is_clean: np.ndarray


OUTSIDE = "a link to a file outside the bundle: not read, so that no other file's content reaches the report"


def missing_required(table: Table, names: list[str]) -> list[str]:
    """The required columns of `table` a file does not have: it cannot be audited at all."""
    return [c.name for c in table.columns if c.req == "req" and c.name not in names]


def load_files(table: Table, files: list[tuple[Path, str]], root: Path | None = None) -> LoadedFiles:
    """Read each file, then type all their rows at once: one pass per column however many files
    (a month of daily partitions is hundreds of small files). Rows are filtered once, by the caller,
    after duplicates are known: filtering copies every column."""
    sources: list[SourceFile] = []
    # Each file's quarantine records, in the files' order (a Parquet file's once its rows are made pandas).
    notes: list[list[pd.DataFrame]] = []
    read: list[tuple[RawTable | ParquetRows, SourceFile, list[pd.DataFrame]]] = []
    text_columns = [c.name for c in table.columns if c.type in ("str", "enum", "cards", "timestamp", "date")]
    int_columns = [c.name for c in table.columns if c.type == "int"]
    category_columns = [c.name for c in table.columns if c.type == "enum" or c.held_as_codes]
    required_columns = [c.name for c in table.columns if c.req == "req"]
    float_columns = [c.name for c in table.columns if c.type == "float"]
    bool_columns = [c.name for c in table.columns if c.type == "bool"]
    raw: RawTable | ParquetRows | None = None
    for path, name in files:
        note: list[pd.DataFrame] = []
        notes.append(note)
        if root is not None and not inside_bundle(root, path):
            sources.append(SourceFile(name=name, table=table.name, sha256="", error=OUTSIDE))
            note.append(_unreadable(table, name, OUTSIDE))
            continue
        source = SourceFile(name=name, table=table.name, sha256=sha256_of(path))
        sources.append(source)
        path_columns = partition_values(PurePosixPath(name).parts[1:-1], table.names)
        try:
            if file_format(path) == "parquet":
                # Made pandas below, with the table's other files of its schema (`frames_of`).
                raw = read_parquet_rows(path, category_columns, path_columns, table.names)
            else:
                raw = read_raw(path, text_columns=text_columns, int_columns=int_columns, category_columns=category_columns,
                               required_columns=required_columns, float_columns=float_columns,
                               path_columns=path_columns, format_columns=table.names, bool_columns=bool_columns)
            rows = raw_rows(raw)
            missing = missing_required(table, raw_columns(raw))
            if missing and isinstance(raw, ParquetRows):
                # A file that pandas cannot hold is unreadable first, as one read whole is.
                _, failed = frames_of([raw], category_columns, float_columns)
                if failed:
                    raise failed[0]
        except UnreadableFile as exc:
            _unread(table, source, exc, note)
            continue
        source.rows_read = raw.rows_read
        if missing and (rows or not raw.errors):
            source.error = "missing required column(s): " + ", ".join(missing)
            source.rows_quarantined = source.rows_read
            note.append(_unreadable(table, name, source.error, source.rows_read))
            continue
        if rows or raw.errors:
            read.append((raw, source, note))
    frames, kept = _made_pandas(table, read, category_columns, float_columns)
    # The files' own frames let go (CSV's, JSONL's): the cells' columns below are to be their last
    # holders, which the typing lets go of as each is typed.
    del read
    raw = None
    quarantine = [q for note in notes for q in note]
    if not kept:
        return LoadedFiles(sources, pd.DataFrame(), quarantine, pd.Series([], dtype=object), np.zeros(0, dtype=bool))
    frame = frames[0] if len(frames) == 1 else concat_cells(frames)
    del frames
    lines = kept[0][1] if len(kept) == 1 else np.concatenate([lines for _, lines in kept])
    # Each row's file as the Categorical's codes: a byte a row for fewer than 128 files (pandas would
    # narrow wider codes with a copy), the file names looked up only for the rows quarantined.
    code_type = np.int8 if len(kept) < 128 else np.int16 if len(kept) < 2**15 else np.int32
    file_code = np.repeat(np.arange(len(kept), dtype=code_type), [len(lines) for _, lines in kept])
    names = np.array([src.name for src, _ in kept], dtype=object)
    ids = _raw_ids(table, frame)
    # The cells handed to the typing as columns, which it lets go of as each is typed.
    read_from = [source for source, _ in kept]
    cells = dict(frame.items())
    del frame, kept
    typed, errors = coerce(table, cells, consume=True)
    quarantine.append(_cell_quarantine(table, names, file_code, lines, ids, errors))
    bad = np.zeros(len(typed), dtype=bool)
    for err in errors:
        bad[err.positions] = True
    for source, count in zip(read_from, np.bincount(file_code[bad], minlength=len(read_from)), strict=True):
        source.rows_quarantined += int(count)
    # As Series: pandas copies a bare array it is given, and these are made for the frame.
    typed["_file"] = coded(file_code, list(names), typed.index)
    typed["_line"] = pd.Series(lines, index=typed.index, copy=False)
    own = ids["own_id"] if "own_id" in ids else pd.Series([], dtype=object)
    return LoadedFiles(sources, typed, [q for q in quarantine if len(q)], own, ~bad)


def raw_columns(raw: RawTable | ParquetRows) -> list[str]:
    return raw.table.column_names if isinstance(raw, ParquetRows) else list(raw.frame.columns)


def raw_rows(raw: RawTable | ParquetRows) -> int:
    """The rows read into cells (those of bad text left out), a Parquet file's made pandas or not."""
    return raw.rows - len(raw.errors) if isinstance(raw, ParquetRows) else len(raw.frame)


def _unread(table: Table, source: SourceFile, exc: UnreadableFile, note: list[pd.DataFrame]) -> None:
    """A file that cannot be read at all: its error, and its rows, where known, each quarantined."""
    source.error = str(exc)
    if exc.rows is not None:  # rows known, not read: each one quarantined
        source.rows_read = source.rows_quarantined = exc.rows
    note.append(_unreadable(table, source.name, str(exc), exc.rows))


def _made_pandas(table: Table, read: list[tuple[RawTable | ParquetRows, SourceFile, list[pd.DataFrame]]], categories: list[str],
                 floats: list[str]) -> tuple[list[pd.DataFrame], list[tuple[SourceFile, np.ndarray]]]:
    """The cells of the files `read` as frames, their rows in the files' order, and each file with
    rows, its source and each row's line: a run of Parquet files made pandas at once (`frames_of`),
    a file pandas cannot hold made unreadable then. A file's lines of bad text are quarantined
    (`_line_quarantine`) once the file is known to be readable."""
    frames: list[pd.DataFrame] = []
    kept: list[tuple[SourceFile, np.ndarray]] = []
    at = 0
    while at < len(read):
        raw, source, note = read[at]
        if isinstance(raw, RawTable):
            parts: list[tuple[RawTable | ParquetRows, SourceFile, list[pd.DataFrame]]] = [read[at]]
            runs = [ParquetRun(raw.frame, [0])]
            at += 1
        else:
            end = at + 1
            while end < len(read) and isinstance(read[end][0], ParquetRows):
                end += 1
            parts = read[at:end]
            runs, failed = frames_of([cast(ParquetRows, r) for r, _, _ in parts], categories, floats)
            for i, exc in failed.items():
                _, source, note = parts[i]
                _unread(table, source, exc, note)
            at = end
        for run in runs:
            for i in run.files:
                raw, source, note = parts[i]
                source.rows_quarantined = len(raw.errors)
                if raw.errors:
                    note.append(_line_quarantine(table, source.name, raw.errors))
                if raw_rows(raw):
                    kept.append((source, raw.lines() if isinstance(raw, ParquetRows) else raw.lines))
            if len(run.frame):
                frames.append(run.frame)
    return frames, kept


def concat_cells(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """The cells of several files, one after another. A column every file read as categories stays
    categories (pandas would decode it to text when the files' categories differ, as they do when a
    file holds a value outside the format's, or holds them in another order)."""
    dtypes = [f.dtypes.to_dict() for f in frames]

    def differ(c: str) -> bool:
        kinds = [d.get(c) for d in dtypes]
        if not all(isinstance(k, pd.CategoricalDtype) for k in kinds):
            return False
        named = {tuple(k.categories) for k in kinds}  # type: ignore[union-attr]
        # union_categoricals takes categories of one kind only (text, here)
        return len(named) > 1 and len({k.categories.dtype for k in kinds}) == 1  # type: ignore[union-attr]

    differing = [c for c, kind in dtypes[0].items() if isinstance(kind, pd.CategoricalDtype) and differ(c)]
    frame = pd.concat([f.drop(columns=differing) for f in frames] if differing else frames, ignore_index=True)
    for c in differing:
        frame[c] = pd.Series(union_categoricals([f[c] for f in frames]), index=frame.index, copy=False)
    return frame


def clean_rows(table: Table, typed: pd.DataFrame, keep: np.ndarray, consume: bool = False) -> pd.DataFrame:
    """The rows to audit, with plain dtypes for their required columns: `typed` itself when every row
    is kept. `consume`: `typed` is not used again, and each of its columns is dropped from it once
    copied (so never after a call that may have returned `typed` itself)."""
    if keep.all():
        return finalize_dtypes(typed, table)
    return finalize_dtypes(taken(typed, keep, consume), table)


def taken(frame: pd.DataFrame, keep: np.ndarray, consume: bool = False) -> pd.DataFrame:
    """`frame[keep]` (`keep` a boolean mask) with a fresh RangeIndex, a column at a time. With
    `consume`, each column is dropped from `frame` once copied, so that the next column's copy can
    reuse its memory: a few quarantined rows cost a copy of the whole table, and fresh memory costs
    the kernel a page fault a page (4M wheel bets less 667: 50k page faults and 0.2-0.6 s -> 10k and
    0.13 s). A mask, not positions. Text of which a few rows are dropped is copied a run of kept
    rows at a time (`without_rows`): 4M bets' ids less 2,001, 28 -> 14 ms a column."""
    if not frame.columns.is_unique:  # never from a reader (a repeated name makes a file unreadable)
        return frame[keep].reset_index(drop=True)
    dropped = np.flatnonzero(~keep)
    few = len(dropped) * 1000 <= len(keep)
    columns: dict[str, object] = {}
    for name in list(frame.columns):
        values = frame[name].array
        if few and is_arrow_text(frame[name]):
            columns[name] = without_rows(values.__arrow_array__(), dropped).to_pandas().array
        else:
            columns[name] = values.to_numpy()[keep] if isinstance(values, pd.arrays.NumpyExtensionArray) else values[keep]
        if consume:
            del frame[name], values
    return pd.DataFrame(columns, copy=False)


def _unreadable(table: Table, name: str, reason: str, rows: int | None = None) -> pd.DataFrame:
    note = reason if rows is None else f"{reason} ({rows} rows quarantined)"
    return pd.DataFrame(
        [{"rule": "LOG001", "table": table.name, "file": name, "line": 0, "column": None,
          "reason": "file cannot be audited: " + note, "value": "", "table_id": None, "round_id": None, "item_id": None}]
    )


def _deduplicate(table: Table, frame: pd.DataFrame, ids: pd.Series, clean: np.ndarray) -> tuple[np.ndarray, np.ndarray, pd.DataFrame, pa.Array, pa.Array, np.ndarray | None]:
    """Later occurrences of an id among the clean rows of `frame` (all rows read, typed; `clean`
    marks those that passed LOG001; `ids` the own id of each of its rows): their mask, the row each
    repeats (its id's first clean row, one for each row the mask marks, in row order) and their
    LOG002 records, and, for a table others name, every distinct id its rows hold (quarantined rows
    included, for LOG003; for any other table they may be left out), and, for a round table that
    items name, its ids on more than one row read (`Bundle.ambiguous_rounds`); last, where the ids'
    order falls (`Occurrences.falls`: whether the rows kept rise is then told by `kept_rising`).

    The ids of every row read are matched once (`later_occurrences`): the rows whose id an earlier
    row holds are found without hashing an id twice."""
    none = pd.DataFrame(columns=QUARANTINE_COLUMNS)
    no_dup = np.zeros(len(frame), dtype=bool)
    no_rows = np.zeros(0, dtype=np.int64)
    nothing = pa.array([], type=pa.large_string())
    if not len(ids):
        return no_dup, no_rows, none, nothing, nothing, None
    if len(ids) != len(frame):
        raise AssertionError(f"{table.name}: {len(ids)} ids for {len(frame)} rows")
    own = arrow(ids)
    later_rows, firsts, seen, falls = later_occurrences(own, distinct=table.name in NAMED_BY_OTHERS)
    named = firsts >= 0  # not the rows of a missing id
    # A round table's ids on more than one row read, clean or not: whose items are whose cannot be told.
    twice = pc.unique(own.take(pa.array(later_rows[named], type=pa.int64()))) if named.any() and table.name in ROUND_TABLES_OF_ITEMS else nothing
    if not table.id_column or not clean.any() or not named.any():
        return no_dup, no_rows, none, seen, twice, falls
    # Only the rows whose id an earlier row holds, and those earlier rows, can be repeats: a few
    # among millions (working out every clean row's first clean occurrence took three passes over 4M bets).
    repeats, first_of = later_rows[named], firsts[named]
    held = np.union1d(first_of, repeats)
    held = held[clean[held]]
    # Each held row's first occurrence: a repeat's is listed, any other row is its id's first.
    listed = np.minimum(np.searchsorted(repeats, held), len(repeats) - 1)
    first_of_held = np.where(repeats[listed] == held, first_of[listed], held)
    # First clean row of each such id; every other clean row holding it is a later occurrence.
    ids_of, group = np.unique(first_of_held, return_inverse=True)
    first_clean = np.full(len(ids_of), len(frame), dtype=np.int64)
    np.minimum.at(first_clean, group, held)
    first_row = first_clean[group]
    later = first_row != held
    if not later.any():
        return no_dup, no_rows, none, seen, twice, falls
    dup = no_dup
    dup[held[later]] = True
    at = first_row[later]  # `held` is in row order: one for each row `dup` marks, in its order
    rows = frame[dup]
    first_at = frame["_file"].iloc[at].to_numpy(dtype=object) + ":" + frame["_line"].to_numpy()[at].astype(str).astype(object)
    return dup, at, duplicate_rows(table.name, rows, first_at), seen, twice, falls


def duplicate_rows(table: str, rows: pd.DataFrame, first_at: np.ndarray | list[str]) -> pd.DataFrame:
    """Quarantine records (LOG002) for `rows`, each a later occurrence of the id first seen at `first_at`."""
    id_col = TABLES[table].id_column
    round_col, item_col = REPORTED_ON[table]
    return pd.DataFrame(
        {
            "rule": "LOG002",
            "table": table,
            "file": rows["_file"].astype(str).to_numpy(dtype=object),
            "line": rows["_line"].to_numpy(),
            "column": id_col,
            "reason": "duplicate " + str(id_col) + ", first at " + np.asarray(first_at, dtype=object),
            "value": rows[id_col].astype(str).to_numpy(dtype=object),
            "table_id": rows["table_id"].astype(object).to_numpy() if "table_id" in rows else None,
            "round_id": rows[round_col].astype(str).to_numpy(dtype=object) if round_col else None,
            "item_id": rows[item_col].astype(str).to_numpy(dtype=object) if item_col else None,
        }
    )


def _settled_requires(frames: dict[str, pd.DataFrame], only: str | None = None) -> list[pd.DataFrame]:
    """Columns required only when the parent round is settled (cdf_stakes.result_cents): the rows of
    `frames` (of the child table `only`, if given) that lack them are taken out and returned as
    quarantine records."""
    out: list[pd.DataFrame] = []
    for child, (key, parent, columns) in SETTLED_VIA_PARENT.items():
        if child not in frames or parent not in frames or (only is not None and child != only):
            continue
        kids, rounds = frames[child], frames[parent]
        settled_ids: pd.Series | None = None  # the settled rounds' ids, copied only once a row lacks a value
        for col in columns:
            # Only rows without the value can break this: look up just their rounds.
            empty = np.flatnonzero(kids[col].isna().to_numpy())
            if not len(empty):
                continue  # nothing to look up (1M coups' settled ids: 16 ms spared)
            if settled_ids is None:
                settled_ids = rounds.loc[(rounds["status"] == "settled").to_numpy(dtype=bool), TABLES[parent].id_column]
            bad = np.zeros(len(kids), dtype=bool)
            bad[empty[isin(kids[key].iloc[empty], settled_ids)]] = True
            if not bad.any():
                continue
            rows = kids[bad]
            out.append(
                pd.DataFrame(
                    {
                        "rule": "LOG001", "table": child, "file": rows["_file"].to_numpy(dtype=object),
                        "line": rows["_line"].to_numpy(), "column": col,
                        "reason": col + ": required value missing (the " + parent.split("_")[-1][:-1] + " is settled)",
                        "value": "", "table_id": None, "round_id": rows[key].astype(str).to_numpy(dtype=object),
                        "item_id": rows[TABLES[child].id_column].astype(str).to_numpy(dtype=object),
                    }
                )
            )
            frames[child] = kids[~bad].reset_index(drop=True)
            kids = frames[child]
    return out


MAX_MANIFEST_BYTES = 64 << 20  # a manifest lists file digests: kilobytes, even for thousands of partitions


def read_manifest(path: Path) -> tuple[dict[str, object] | None, str | None]:
    manifest_path = path / "manifest.json"
    if not manifest_path.exists() and not manifest_path.is_symlink():
        return None, None
    if not inside_bundle(path, manifest_path):
        return None, "manifest.json links outside the bundle: not read"
    if not manifest_path.is_file():
        return None, "manifest.json is not a file"
    if manifest_path.stat().st_size > MAX_MANIFEST_BYTES:
        return None, f"manifest.json is larger than {MAX_MANIFEST_BYTES:,} bytes: not read"
    try:
        data = json.loads(manifest_path.read_bytes().decode("utf-8-sig"))
    except (ValueError, UnicodeDecodeError, RecursionError, OSError) as exc:
        # RecursionError: nesting deeper than the parser's stack, e.g. "[[[[...".
        return None, f"manifest.json is not valid JSON: {type(exc).__name__}: {str(exc)[:200]}"
    if not isinstance(data, dict):
        return None, "manifest.json is not a JSON object"
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:  # "\ud800": valid JSON, no character; a rule naming it ended the audit
        return None, "manifest.json is not valid text: an escape of half a surrogate pair (\\ud800-\\udfff)"
    files = data.get("files", {})
    if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
        return data, "manifest.json: `files` must map file names to \"sha256:<hex>\""
    return data, None


FORMAT, FORMAT_VERSION = "casino-audit-log", 1
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def manifest_period(manifest: object) -> dict[str, str] | None:
    """The period the manifest states, when it is two dates YYYY-MM-DD with from ≤ to; None otherwise
    (the audit then takes its period from the round times)."""
    period = manifest.get("period") if isinstance(manifest, dict) else None
    if not isinstance(period, dict):
        return None
    days = [period.get(k) for k in ("from", "to")]
    try:
        lo, hi = (dt.date.fromisoformat(d) for d in days if isinstance(d, str) and _DATE.fullmatch(d))
    except ValueError:  # fewer than two dates, or a day that does not exist
        return None
    return {"from": lo.isoformat(), "to": hi.isoformat(), "source": "manifest"} if lo <= hi else None


def some_of(names: list[str], shown: int = 5) -> str:
    """The first `shown` names, and how many more: a note stays one line however many files."""
    return ", ".join(names[:shown]) + (f" and {len(names) - shown} more" if len(names) > shown else "")


def manifest_notes(manifest: object, read: list[str] | None = None) -> list[str]:
    """What in a readable manifest the audit could not take as written (its digests are LOG004's),
    and the files read (`read`, names in the bundle) that a manifest listing digests does not vouch for."""
    if not isinstance(manifest, dict):
        return []
    notes: list[str] = []
    listed = manifest.get("files")
    if isinstance(listed, dict) and listed and read:
        vouched = {Path(str(name)).as_posix() for name in listed}
        unlisted = sorted(name for name in read if name not in vouched)
        if unlisted:
            notes.append(f"{len(unlisted)} file(s) audited are not listed in the manifest, so no digest vouches for them: {some_of(unlisted)}")
    declared = (manifest.get("format"), manifest.get("version"))
    if declared != (FORMAT, FORMAT_VERSION) and declared != (None, None):
        shown = ", ".join(repr(v)[:60] for v in declared)
        notes.append(f"the manifest declares format and version {shown}; this auditor reads {FORMAT} version {FORMAT_VERSION}")
    period = manifest.get("period")
    unstated = period is None or (isinstance(period, dict) and not any(period.get(k) for k in ("from", "to")))
    if not unstated and manifest_period(manifest) is None:
        notes.append("the manifest's period is not two dates YYYY-MM-DD, from no later than to: the period is taken from the round times")
    return notes


def _told_apart(ids: pd.Series, twice: pa.Array, dup: np.ndarray, copies: np.ndarray, clean: np.ndarray) -> pa.Array:
    """Of a round table's ids on more than one row read (`twice`), those whose rows are not one
    round written again: an id whose every later row is a copy of its first clean row (`copies`,
    one for each row `dup` marks) names one round, and its items are that round's. An id on a
    quarantined row (LOG001) stays ambiguous: what the row held cannot be known."""
    differ = ~clean
    differ[np.flatnonzero(dup)[~copies] if len(copies) else np.flatnonzero(dup)] = True
    if not differ.any():
        return twice[:0]
    return twice.filter(pc.is_in(twice, value_set=pc.unique(arrow(ids).filter(pa.array(differ)))))


@dataclass
class _TableLoad:
    files: list[SourceFile]
    frame: pd.DataFrame
    quarantine: list[pd.DataFrame]  # LOG001, counted in its file's record
    duplicates: pd.DataFrame  # LOG002, counted afterwards
    seen: pa.Array | None
    unmatched: pd.DataFrame | None = None  # items of no audited round (`split_items`)
    round_positions: np.ndarray | None = None  # of each item in `frame`
    repeated: pa.Array | None = None  # a round table's ids on more than one row read (`_deduplicate`)
    gaps: pd.DataFrame | None = None  # the rows left out, as `Bundle.gaps`
    copies: np.ndarray | None = None  # which of `duplicates` repeat their first row's every cell

    def left_out(self) -> pd.DataFrame:
        """The records of the rows left out that may hide a row (`Bundle.left_out`): a copy of a
        kept row hides none, so a file delivered twice leaves every round's items whole."""
        dups = self.duplicates if self.copies is None or not len(self.copies) else self.duplicates[~self.copies]
        return _records([*self.quarantine, dups])


def _load_table(
    table: Table, paths: list[Path], root: Path, say: Progress, round_ids: Callable[[], tuple[pd.Series, pa.Array | None] | None] | None = None
) -> _TableLoad:
    """Every file of one table: clean rows in file order, their quarantine, and the ids they name.
    For an item table, `round_ids` gives the ids of its audited rounds (None: the round table has no
    file), waited for only once the items are read: the items of no audited round are set aside in
    the same copy that leaves out the quarantined rows."""
    say(f"reading {table.name} ({len(paths)} file{'s' if len(paths) > 1 else ''})")
    loaded = load_files(table, [(p, p.relative_to(root).as_posix()) for p in paths], root)
    if not len(loaded.typed):
        seen = pa.array([], type=pa.large_string()) if loaded.sources else None
        return _TableLoad(loaded.sources, _empty(table), loaded.quarantine, pd.DataFrame(columns=QUARANTINE_COLUMNS), seen)
    dup, repeats, dups, seen, twice, falls = _deduplicate(table, loaded.typed, loaded.ids, loaded.is_clean)
    keep = loaded.is_clean & ~dup
    # Which repeats are their first row again: in every cell (a copy, hiding nothing), and in the
    # cells the sequence rules read (no gap, `TIMED_GAPS`).
    columns = TIMED_GAPS.get(table.name)
    copies, no_gap = np.zeros(0, dtype=bool), np.zeros(0, dtype=bool)
    if len(repeats):
        again, firsts = loaded.typed[dup], loaded.typed.iloc[repeats]
        copies = row_digests(table, again) == row_digests(table, firsts)
        if columns:
            no_gap = row_digests(table, again, columns) == row_digests(table, firsts, columns)
    if len(twice):
        twice = _told_apart(loaded.ids, twice, dup, copies, loaded.is_clean)
    gaps = None
    if columns:
        left = ~keep
        left[np.flatnonzero(dup)[no_gap]] = False
        gaps = gap_rows(loaded.typed, left, table.name)
    unmatched = at = None
    rounds = round_ids() if round_ids is not None else None
    if rounds is not None:
        keep, aside, at = split_items(loaded.typed[ITEM_ROUNDS[table.name][0]], keep, *rounds)
        unmatched = clean_rows(table, loaded.typed, aside) if aside.any() else None
    # The last use of the rows read: each column let go once its clean rows are copied, unless every
    # row was set aside (`unmatched` is then the frame itself).
    clean = clean_rows(table, loaded.typed, keep, consume=unmatched is not loaded.typed)
    if table.id_column and kept_rising(arrow(loaded.ids), keep, falls):
        note_rising(clean[table.id_column])  # a search of the ids kept skips the check of their order
    return _TableLoad(loaded.sources, clean, loaded.quarantine, dups,
                      seen if table.name in NAMED_BY_OTHERS else None, unmatched, at, twice, gaps, copies)


def round_times(frame: pd.DataFrame) -> tuple[pd.Timestamp, pd.Timestamp] | None:
    """The first and last round time (`ts`, `ts_open`) of a table's frame; None where it has none:
    what the report's period is worked out from (`Bundle.times` keeps them for frames let go)."""
    stamps = [frame[c] for c in ("ts", "ts_open") if c in frame and frame[c].notna().any()]
    return (min(s.min() for s in stamps), max(s.max() for s in stamps)) if stamps else None


class BundleLoad:
    """A bundle's tables being loaded, and the `bundle` they make. `submit` hands every table's load
    to a pool of threads (round tables first: their items wait for the rounds' ids), `install` takes
    a loaded table into `bundle` (a game can be audited once its tables are in), and `finish` puts
    together what needs every table: the files, the quarantine, the ids others name. Installing
    tables in any order gives the same bundle."""

    def __init__(self, path: Path, progress: Progress | None = None, tables: set[str] | None = None) -> None:
        if not path.exists():
            raise BundleError(f"no such bundle: {path}")
        if not path.is_dir():
            raise BundleError(f"a bundle is a directory of table files: {path} is not a directory")
        self.path = path
        self.say = progress or (lambda _msg: None)
        self.found, ignored = discover(path)
        self.wanted = [t for t in TABLES if t in self.found and (tables is None or t in tables)]
        self.rounds_of = {child: parent for child, (_, parent) in ITEM_ROUNDS.items() if child in self.wanted and parent in self.wanted}
        self.size = {t: sum(p.stat().st_size for p in self.found[t]) for t in self.wanted}  # bytes on disk of each table
        self.loads: dict[str, _TableLoad] = {}
        self.pending: dict[str, Future[_TableLoad]] = {}
        self.settled: set[str] = set()  # item tables whose requirements on their settled rounds are checked
        self.settled_quarantine: list[pd.DataFrame] = []
        self.kept: dict[str, pd.DataFrame] = {}  # the rows findings name of each table let go (`let_go`)
        self.bundle = Bundle(path, [], {}, pd.DataFrame(columns=QUARANTINE_COLUMNS), {}, ignored=ignored, left_out={})

    def order(self) -> list[str]:
        """Round tables first (their items wait for their ids; a pool takes tasks in order, so a round
        table is always under way before its items wait for it), then the other tables, the largest
        first in each. Largest first, because a whole audit keeps the memory it frees for reuse: what
        the largest reads leave behind, in a heap still small, is reused by the smaller tables and the
        games, where the smaller ones loaded first (so that their games started beside the largest
        loads) left the largest to grow the heap past them (2026-12-02, the benchmark's 13M rows, six
        alternating pairs: peak 2.05-2.15 -> 1.96-2.08 GiB, the kernel's time 2.25-3.24 -> 1.91-2.67
        s, the whole audit 4.54-5.29 -> 4.29-5.10 s, faster in every pair)."""
        size, rounds = self.size, set(self.rounds_of.values())
        return sorted(self.wanted, key=lambda t: (t not in rounds, -size[t]))

    def _round_ids(self, child: str) -> Callable[[], tuple[pd.Series, pa.Array | None] | None] | None:
        if child not in self.rounds_of:
            return None
        parent = self.rounds_of[child]

        def ids() -> tuple[pd.Series, pa.Array | None] | None:
            done = self.loads[parent] if parent in self.loads else self.pending[parent].result()
            return None if done.seen is None else (done.frame[TABLES[parent].id_column], done.repeated)
        return ids

    def load_one(self, table: str) -> _TableLoad:
        return _load_table(TABLES[table], self.found[table], self.path, self.say, self._round_ids(table))

    def submit(self, pool: ThreadPoolExecutor, tables: list[str] | None = None) -> dict[str, Future[_TableLoad]]:
        """Every table's load (or those of `tables`), in `order`; each future stored before the next
        task can ask for it."""
        submitted = {}
        for t in self.order():
            if tables is None or t in tables:
                submitted[t] = self.pending[t] = pool.submit(self.load_one, t)
        return submitted

    def turns(self) -> tuple[list[str], list[list[str]]]:
        """(shared, games): the bundle's tables in the turns of a whole audit, which loads, audits and
        lets go of a game's tables at a time (`engine.audit_bundle`, `let_go`). `shared`: the tables
        of no one game (the gaming tables), loaded first and kept to the end; `games`: each game's
        tables, the largest game first, so that what it frees the smaller ones reuse. A table's
        parents are in its own turn or among the shared (`tests/test_engine.py`)."""
        by_game: dict[str, list[str]] = {}
        for t in self.order():
            by_game.setdefault(TABLES[t].game, []).append(t)
        shared = by_game.pop(SHARED_GAME, [])
        return shared, sorted(by_game.values(), key=lambda tables: -sum(self.size[t] for t in tables))

    def let_go(self, tables: list[str], rounds: pa.Array, items: pa.Array) -> None:
        """Once a turn's games are audited: each of its tables' frame keeps only the rows that findings
        name (`rounds`, `items`: the report's evidence is looked up there), its first and last round
        times kept in `Bundle.times`; its items set aside, its items' round positions and its load's
        own frames are let go. What is still to be put together (`finish`) is kept; the frames are
        the bundle's again once it is."""
        bundle = self.bundle
        for t in tables:
            frame = bundle.frames[t]
            if (bounds := round_times(frame)) is not None:
                bundle.times[t] = bounds
            round_col, item_col = REPORTED_ON[t]
            ids = items if item_col else rounds
            # A table no finding is reported on by row (gaming tables, layouts): no rows left to show.
            shown = rows_holding(frame[item_col or round_col], ids) if round_col else np.zeros(0, dtype=np.int64)
            # Out of the bundle's frames until `finish`: the next turns' rules on every frame (orphans) must not see them.
            self.kept[t] = frame.take(shown)
            del bundle.frames[t]
            bundle.unmatched.pop(t, None)
            load = self.loads[t]
            load.frame, load.unmatched, load.round_positions = self.kept[t], None, None
        gone = set(tables)
        # A copy of the keys taken at once: the next turn's rules, running meanwhile, add their own.
        for key in [k for k in list(bundle._derived) if isinstance(k, tuple) and k[0] == "positions" and gone & set(k[1:])]:
            bundle._derived.pop(key, None)

    def install(self, table: str, load: _TableLoad) -> None:
        """Take a loaded table into the bundle: its frame, its items set aside and their rounds'
        positions; then the requirements on settled rounds of an item table whose rounds are in."""
        self.loads[table] = load
        bundle = self.bundle
        bundle.frames[table] = load.frame
        if load.seen is not None:  # a turn's rule on orphans reads them before `finish`
            bundle.ids_seen[table] = load.seen
        assert bundle.left_out is not None
        bundle.left_out[table] = load.left_out()
        if load.repeated is not None and len(load.repeated):
            bundle.ambiguous_rounds[table] = load.repeated
        if load.unmatched is not None:
            bundle.unmatched[table] = load.unmatched
        if load.gaps is not None and len(load.gaps):
            bundle.gaps[table] = load.gaps
        if load.round_positions is not None:
            bundle._derived[positions_key(table, ITEM_ROUNDS[table][0], self.rounds_of[table])] = load.round_positions
        if any(f.error for f in load.files):
            bundle.unread.add(table)
        for child, (key, parent, _) in SETTLED_VIA_PARENT.items():
            if child in self.settled or child not in self.loads or (parent in self.wanted and parent not in self.loads):
                continue
            before = bundle.frames[child]
            late = _settled_requires(bundle.frames, child)
            self.settled_quarantine.extend(late)
            bundle.left_out[child] = _records([bundle.left_out[child], *late])
            if bundle.frames[child] is not before:  # rows left out since: looked up again when needed
                bundle._derived.pop(positions_key(child, key, parent), None)
            self.settled.add(child)

    def finish(self) -> Bundle:
        """The bundle, once every table is installed: what needs them all put together."""
        bundle, loads = self.bundle, self.loads
        files = [f for t in self.wanted for f in loads[t].files]
        # Frames in the order of the format's tables whatever order they were loaded in (a new dict,
        # never one that games reading theirs see change under them).
        bundle.frames = {t: bundle.frames[t] if t in bundle.frames else self.kept.pop(t) for t in self.wanted}
        bundle.unmatched = {t: bundle.unmatched[t] for t in self.wanted if t in bundle.unmatched}
        quarantine = [q for t in self.wanted for q in loads[t].quarantine]
        bundle.ids_seen = {t: seen for t in self.wanted if (seen := loads[t].seen) is not None}
        # Rows quarantined after their file was counted: repeated ids, then settled requirements.
        late = [loads[t].duplicates for t in self.wanted if len(loads[t].duplicates)] + self.settled_quarantine
        loads.clear()
        self.pending.clear()
        _count_late_quarantine(files, late)
        parts = [x for x in quarantine + late if len(x)]
        bundle.quarantine = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=QUARANTINE_COLUMNS)
        bundle.files = files
        bundle.manifest, bundle.manifest_error = read_manifest(self.path)
        return bundle


def load_bundle(
    path: Path, progress: Progress | None = None, tables: set[str] | None = None, threads: int = LOAD_THREADS
) -> Bundle:
    """Read, type and check every table of the bundle at `path`. Tables are independent until the
    checks across them (settled stakes), so `threads` of them load at once: Arrow's reading and
    hashing release the GIL. The result does not depend on `threads`."""
    load = BundleLoad(path, progress, tables)
    if threads > 1 and len(load.wanted) > 1:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            futures = load.submit(pool)
            for t in load.wanted:
                load.install(t, futures[t].result())
    else:
        for t in load.order():
            load.install(t, load.load_one(t))
    return load.finish()


def _count_late_quarantine(files: list[SourceFile], late: list[pd.DataFrame]) -> None:
    """LOG002 and settled-only requirements quarantine rows after the per-file count: add them in."""
    if not any(len(x) for x in late):
        return
    counts = pd.concat([x for x in late if len(x)]).groupby("file").size().to_dict()
    for source in files:
        source.rows_quarantined += int(counts.get(source.name, 0))


def _empty(table: Table) -> pd.DataFrame:
    frame, _ = coerce(table, pd.DataFrame({c.name: pd.Series([], dtype=object) for c in table.columns}))
    frame = finalize_dtypes(frame, table)
    frame["_file"] = pd.Series([], dtype="category")
    frame["_line"] = pd.Series([], dtype=np.int64)
    return frame
