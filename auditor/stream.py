"""Auditing a partitioned bundle partition group by partition group, with bounded memory.

A bundle whose round and item tables are directories of Parquet parts (one file a day, say) is read
one group of same-named parts at a time. Every sequence rule looks backwards only, so a group is
audited with the rows of the previous groups it still needs carried over as context: the shoes
each chemin de fer table has dealt from since its current shoe began and its current banker stint
(with their stakes), the last spin of each wheel, the current dice-set and launcher stints of each
dice table. Findings on context rows were reported with their own group and are dropped. A first
pass reads only id columns, for orphans (LOG003) and duplicates (LOG002) across groups, the
round each stake and bet names, for the items filed in another part than their round's, and each
round's table and time, for the rounds filed late (`Strays`): such a part is read with the group
that audits them, its other rows waiting for their own. It keeps the
round ids only (stakes and bets name rounds; nothing names a bet). The small tables (tables,
layouts, dice sets, tournaments and their entries) are loaded whole once, as files or directories;
their own rules, and the manifest check, run once at the end.

The result equals the whole-bundle audit's, byte for byte, with these exceptions. A part whose footer
and id column read but whose other data is corrupt is found unreadable only when its group is read.
The first pass has its ids, so LOG003 is decided as if it had been read (a record naming one of
them is no orphan, any other orphan is reported one by one), where the whole audit, which never
read its ids, gives one finding per file of records whose parent it cannot know. And a log that
LOG005 finds out of order across a part edge — a coup timed into a later part than coups numbered
after it, or recorded under a shoe the table left before the current one began — is judged with
the rows each part holds: the part that had the later coups judged them without it, so card counts
(CDF121), the stop card (CDF122) and LOG005's detail near that edge can differ from the whole
audit's. LOG005 reports the coup either way; audit such a bundle whole for the shoe-order findings.
A round filed late (a record that arrived after its day was written, with the next day's) goes back
to the last group holding rounds of its table when it was played before their last and after the
group before's (`_audited_with`); one filed farther is judged after the groups before, so LOG005 may report a gap
and the rules that compare a round with the one before may differ from the whole audit's, which
orders every round by time; the first pass counts such rounds (`_out_of_time`) and the audit's
notes say so. Last, a round id written in two parts whose first row breaks the format (LOG001): its
items go with the first part's group, where they are set aside, while the whole audit judges them
with the later, clean row (the first pass reads ids, not whether a row is clean).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TypeVar

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from auditor.engine import DEFAULT_WORKERS, AuditResult, run_audit
from auditor.figures import combine_figures, table_figures
from auditor.frames import arrow, bools, isin, later_occurrences, positions, repeated_ids, stable_sorted, written_again
from auditor.loading.bundle import LOAD_THREADS, TIMED_GAPS, Bundle, LoadedFiles, SourceFile, gap_rows, row_digests, load_files, _settled_requires, clean_rows, discover, duplicate_rows, inside_bundle, load_bundle, manifest_period, missing_required, part_order, set_aside_unmatched
from auditor.loading.coerce import NS_PER_TICK, as_text, parse_column, ticks_out_of_range
from auditor.loading.readers import UnreadableFile, open_parquet, parquet_frame, partition_values, repeated_names, with_path_columns
from auditor.report.outputs import data_period
from auditor.rules import Rule
from auditor.ruleset import Ruleset
from auditor.spill import KEEP, SPILL_ROWS, FindingRuns
from auditor.schema import ITEM_ROUNDS, NAMED_BY_OTHERS, REPLAY_ORDER, REPORTED_ON, ROUND_TABLES_OF_ITEMS, TABLES, Column

BIG = ("cdf_coups", "cdf_stakes", "wheel_spins", "wheel_bets", "dice_throws", "dice_bets")
LOG_EVERYWHERE = ("LOG001", "LOG002", "LOG003")
# The tables whose quarantined rows leave a round's items, a gaming table's layout, or its shoes'
# ends (`cdf_replay._shoe_ended`) incomplete: kept from group to group.
LEFT_OUT_TABLES = [*ITEM_ROUNDS, "wheel_layouts", "cdf_coups"]
T = TypeVar("T")


class StreamError(Exception):
    """The bundle is not laid out for an audit by partition."""


@dataclass
class Layout:
    parts: dict[str, dict[str, Path]]  # partitioned table -> group key -> part file
    static: set[str]  # tables held in single files

    @property
    def groups(self) -> list[str]:
        return sorted({key for keyed in self.parts.values() for key in keyed}, key=part_order)

    def batches(self, max_rows: int) -> list[list[str]]:
        """Consecutive group keys batched up to about `max_rows` rows (from Parquet metadata): fewer,
        larger steps cost less per-step overhead; the budget bounds memory."""
        out: list[list[str]] = []
        rows = 0
        for key in self.groups:
            n = 0
            for keyed in self.parts.values():
                if key in keyed:
                    try:
                        n += pq.ParquetFile(keyed[key]).metadata.num_rows
                    except (pa.ArrowException, OSError, ValueError):  # ValueError: a footer naming a column in bad UTF-8
                        pass
            if out and rows + n <= max_rows:
                out[-1].append(key)
                rows += n
            else:
                out.append([key])
                rows = n
        return out


def layout(path: Path) -> Layout:
    """Which tables are audited part group by part group (the round and item tables) and which are
    read whole once. The small tables (tables, layouts, dice sets, tournaments and their entries) are
    read whole however they are stored: a tournament's entries filed under another day than the
    tournament would otherwise be judged without it. A bundle with no round or item table at all (a
    day of tournaments only) is then audited whole: what it holds is read whole either way, so
    refusing it would only fail a pipeline that always asks for `--by-partition`."""
    found, _ = discover(path)
    parts: dict[str, dict[str, Path]] = {}
    static: set[str] = set()
    for table, files in found.items():
        inside = [f for f in files if f.parent != path]
        if table not in BIG:
            static.add(table)
        elif inside and len(inside) == len(files):
            parts[table] = {f.relative_to(path / table).as_posix(): f for f in inside}
        elif inside:
            raise StreamError(f"{table} is both a directory and a file: audit the bundle whole")
        else:
            static.add(table)
    single = sorted(t for t in BIG if t in static)
    if single:
        raise StreamError(f"{', '.join(single)} not partitioned (a directory of Parquet parts): audit the bundle whole")
    return Layout(parts, static)


@dataclass
class _PartIds:
    """What the first pass reads of one partitioned table, part by part in group order (unreadable
    parts left out): its ids and, for an item table, the rows that name a round of no same-named
    part of the round table (the rest need nothing more: their round is in their group)."""
    keys: list[str]
    ids: list[pa.Array] | None  # None: the table has no id column, or its ids are no longer needed (`_repeats`)
    broken: bool  # a part could not be read (the second pass reports the part itself)
    sizes: dict[str, int] = field(default_factory=dict)  # rows of each part
    away: list[tuple[str, np.ndarray, pa.Array]] = field(default_factory=list)  # (part key, rows, the rounds they name)
    played: list[tuple[pa.Array, np.ndarray]] = field(default_factory=list)  # a round table: each row's table_id and time (ns UTC; NO_TIME unknown)
    audited: list[np.ndarray] = field(default_factory=list)  # a round table: the group that audits each row (`_audited_with`)
    joined: pa.Array | None = None  # the ids of every part, once concatenated (`hold_once`)
    repeated: set[str] = field(default_factory=set)  # ids that occur more than once (`_repeats`)
    distinct: pa.Array | None = None  # a table others name: its distinct ids (`_repeats`)

    def every_id(self) -> pa.Array | None:
        if self.ids is None:
            return None
        if self.joined is not None:
            return self.joined
        return pa.concat_arrays(self.ids) if self.ids else pa.array([], type=pa.large_string())

    def hold_once(self, every: pa.Array) -> None:
        """Keep the parts' ids as slices of `every` (their concatenation): one copy, not two."""
        starts = np.cumsum([0, *(len(a) for a in self.ids or [])])
        self.ids = [every.slice(int(a), int(b - a)) for a, b in zip(starts[:-1], starts[1:], strict=True)]
        self.joined = every


Away = Callable[[str, pa.Array], np.ndarray]  # (part key, the round each row names) -> rows to look up elsewhere


@dataclass
class Strays:
    """Rows audited with another group than their part's: stakes and bets written to a part of
    another group than their round's (a bet placed after midnight, filed under the next day, on a
    spin that opened before it), each audited with its round (judged with part of its stakes, a
    coup's bank would not balance); and rounds filed late, audited with the group of their time."""
    group: dict[str, dict[str, np.ndarray]]  # table -> part key -> the group that audits each row, for parts holding such a row
    reach: dict[str, dict[int, str]]  # table -> group -> the last part (in part order) holding rows it audits

    def parts_needed(self, table: str, group: int, order: list[str], group_of: dict[str, int]) -> int:
        """How many of `table`'s parts (`order`: its part keys in part order) must have been read
        when `group` is audited: its own and those before, and every part up to the last holding
        rows it audits. Only those: a later part of the same group waits for its own step."""
        own = sum(group_of[key] <= group for key in order)
        last = self.reach.get(table, {}).get(group)
        return max(own, order.index(last) + 1 if last is not None else 0)


def _first_pass(
    path: Path, lay: Layout, group_of: dict[str, int], threads: int = 1
) -> tuple[dict[str, pa.Array], dict[str, set[str]], set[str], Strays, dict[str, int], dict[str, list[str]]]:
    """Every id of each partitioned table that others name (for LOG003), the ids that occur more than
    once in any (the candidates for LOG002, decided in the second pass among the rows that pass
    LOG001, as the whole audit does), the tables with a part that cannot be audited (its ids
    unknown, as `Bundle.unread`), the items filed away from their round's group, and how many rounds
    of each table are filed out of time order (`_out_of_time`): reads id columns, the tables and
    times of rounds, and footers only, `threads` tables at once; round tables first, so that each item part
    is checked against its round ids as it is read and only the items filed away are kept. Last,
    for each round table that items name, its parts holding an id written more than once, in part
    order (`_ambiguous_rounds` reads them again)."""
    def ids_of(table: str, away: Away | None = None) -> _PartIds:
        return _repeats(table, _table_ids(path, table, lay.parts[table], away))

    # Each table's ids are worked out as soon as it is read, so that no two tables' ids are held at
    # once but the rounds' (items name them).
    read = dict(_each_table(ids_of, [t for t in lay.parts if t not in ITEM_ROUNDS], threads))
    strays = Strays({}, {})
    late: dict[str, int] = {}
    for table in REPLAY_ORDER:
        if table in read and read[table].played:
            rounds = read[table]
            codes = pc.fill_null(pc.dictionary_encode(pa.concat_arrays([t for t, _ in rounds.played])).indices, -1)
            frame = pd.DataFrame({
                "table": codes.to_numpy(zero_copy_only=False).astype(np.int64),  # -1: no table (a quarantined row)
                "when": np.concatenate([w for _, w in rounds.played]),
                "group": np.repeat(np.array([group_of[k] for k in rounds.keys], dtype=np.int64), [len(w) for _, w in rounds.played]),
            })
            audited = _audited_with(frame)
            rounds.audited = np.split(audited, np.cumsum([len(w) for _, w in rounds.played])[:-1])
            rounds.played = []
            _note_moves(strays, table, rounds.keys, group_of, rounds.audited)
            if n := _out_of_time(frame.assign(group=audited)):
                late[table] = n
    items = [t for t in lay.parts if t in ITEM_ROUNDS]
    homes = {t: _away_from_home(read, t, group_of) for t in items}
    read.update(_each_table(lambda t: ids_of(t, homes[t]), items, threads))
    _strays(read, group_of, strays)
    repeated = {t: got.repeated for t, got in read.items() if got.repeated}
    ids = {t: got.distinct for t, got in read.items() if got.distinct is not None}
    unread = {t for t, got in read.items() if got.broken}
    holding: dict[str, list[str]] = {}
    for table, got in read.items():
        if table in ROUND_TABLES_OF_ITEMS and got.repeated and got.ids is not None:
            twice = pa.array(sorted(got.repeated), type=pa.large_string())
            holding[table] = [key for key, part in zip(got.keys, got.ids, strict=True) if pc.any(pc.is_in(part, value_set=twice)).as_py()]
    return ids, repeated, unread, strays, late, holding


def _ambiguous_rounds(path: Path, lay: Layout, holding: dict[str, list[str]], repeated: dict[str, set[str]]) -> dict[str, pa.Array]:
    """For each round table of `holding` (its parts holding an id written more than once), the ids
    whose items cannot be told to be one round's, as the whole audit decides them (`_told_apart`):
    an id on a row that fails LOG001, or on clean rows that differ in a cell. A round written again
    cell for cell (a file delivered twice) is one round, its items its own. The parts are read
    again one at a time, and only the repeated ids' digests kept: memory stays bounded by a part."""
    out: dict[str, pa.Array] = {}
    for table, keys in holding.items():
        twice = sorted(repeated[table])
        seen: list[pd.DataFrame] = []
        for key in keys:
            part = lay.parts[table][key]
            loaded = load_files(TABLES[table], [(part, part.relative_to(path).as_posix())], path)
            rows = np.flatnonzero(isin(loaded.ids, twice)) if len(loaded.typed) else np.zeros(0, dtype=np.int64)
            if len(rows):
                seen.append(pd.DataFrame({"id": loaded.ids.iloc[rows].astype(object).to_numpy(),
                                          "digest": row_digests(TABLES[table], loaded.typed.iloc[rows]),
                                          "unclean": ~loaded.is_clean[rows]}))
        ambiguous: set[object] = set()
        if seen:
            every = pd.concat(seen, ignore_index=True)
            unclean = every["unclean"].to_numpy(dtype=bool)
            varied = every[~unclean].groupby("id", sort=False)["digest"].nunique()
            ambiguous = set(every["id"][unclean]) | set(varied.index[varied.to_numpy() > 1])
        out[table] = pa.array(sorted(str(i) for i in ambiguous), type=pa.large_string())
    return out


def _repeats(table: str, got: _PartIds) -> _PartIds:
    """What the first pass keeps of a table's ids once read: the ids that occur more than once and,
    for a table others name, its distinct ids (the parts' ids held as one copy); an item table's
    ids themselves are let go."""
    if got.ids is None:
        return got
    if table not in NAMED_BY_OTHERS:
        got.repeated = repeated_ids(got.ids)
        got.ids = None
        return got
    every = got.every_id()
    rows, firsts, got.distinct, _ = later_occurrences(every)
    got.repeated = written_again(every, rows, firsts)
    got.hold_once(every)
    return got


def _audited_with(rounds: pd.DataFrame) -> np.ndarray:
    """The group that audits each round (`rounds`: table code, time, group of its part): its own
    part's, but a round filed late (a record that arrived after its day was written, and went with
    the next day's) goes back to the last group before in which its table has rounds, when it was
    played before that group's last round of its table and after the last of the group before, so
    that every table is replayed in time order. Only that far back: a step reads early at most the
    parts up to the table's next rounds, and a bogus time cannot pull a table's parts into one step;
    a round farther out of time stays, and the audit's notes name it (`_out_of_time`)."""
    table, when, group = (rounds[c].to_numpy(dtype=np.int64) for c in ("table", "when", "group"))
    known = (when != NO_TIME) & (table >= 0)
    span = rounds[known].groupby(["table", "group"])["when"].agg(["max"])
    # For each table and group: the group before in which the table has rounds, its latest round,
    # and the latest round of the group before that one. A round played between those two goes back.
    same = span.index.get_level_values("table").to_series(index=span.index)
    one, two = same == same.shift(), same == same.shift(2)
    before = pd.DataFrame({
        "group": span.index.get_level_values("group").to_series(index=span.index).shift(fill_value=-1).where(one, -1),
        "hi": span["max"].shift(fill_value=NO_TIME).where(one, NO_TIME),
        "lo": span["max"].shift(2, fill_value=NO_TIME).where(two, NO_TIME),
    }).astype(np.int64)
    prior = before.reindex(pd.MultiIndex.from_arrays([table, group]), fill_value=-1)
    to = prior["group"].to_numpy(dtype=np.int64)
    back = known & (to >= 0) & (prior["lo"].to_numpy(dtype=np.int64) <= when) & (when < prior["hi"].to_numpy(dtype=np.int64))
    return np.where(back, to, group)


def _note_moves(strays: Strays, table: str, keys: list[str], group_of: dict[str, int], audited: list[np.ndarray]) -> None:
    """Record the rows of `table`'s parts audited with another group than their own part's."""
    for key, group in zip(keys, audited, strict=True):
        own = group_of[key]
        moved = group != own
        if not moved.any():
            continue
        strays.group.setdefault(table, {})[key] = group
        reach = strays.reach.setdefault(table, {})
        for g in np.unique(group[moved]):
            reach[int(g)] = max(reach.get(int(g), key), key, key=part_order)


def _away_from_home(read: dict[str, _PartIds], child: str, group_of: dict[str, int]) -> Away | None:
    """For an item table whose round table was read: the rows of an item part whose round is not
    among the rounds audited with its part's group in the round table's part of the same name, or
    whose round id is written twice (its items go with its first occurrence, wherever it is)."""
    rounds = read.get(ITEM_ROUNDS[child][1])
    if rounds is None or rounds.ids is None:
        return None
    by_key: dict[str, pa.Array] = {}
    for key, ids, audited in zip(rounds.keys, rounds.ids, rounds.audited, strict=True):
        kept = audited == group_of[key]
        by_key[key] = ids if kept.all() else ids.filter(pa.array(kept))
    twice = pa.array(sorted(rounds.repeated), type=pa.large_string())

    def away(key: str, names: pa.Array) -> np.ndarray:
        home = by_key.get(key)
        found = pc.is_in(names, value_set=home) if home is not None else pa.nulls(len(names), pa.bool_())
        if len(twice):
            found = pc.and_kleene(found, pc.invert(pc.is_in(names, value_set=twice)))
        return np.flatnonzero(~bools(found))

    return away


def _strays(read: dict[str, _PartIds], group_of: dict[str, int], strays: Strays) -> None:
    """Where each item read away from home has its round audited: the group of the first part holding
    its round's id (the load keeps an id's first occurrence), or the group that round goes back to.
    An item whose round is nowhere (an orphan) or in an unreadable part stays with its own part."""
    for child, (_, parent) in ITEM_ROUNDS.items():
        items, rounds = read.get(child), read.get(parent)
        if items is None or rounds is None or rounds.ids is None or not items.away:
            continue
        group_of_round = np.concatenate(rounds.audited) if rounds.audited else np.zeros(0, dtype=np.int64)
        at = positions(pa.concat_arrays([names for _, _, names in items.away]), rounds.every_id())
        filed = np.where(at >= 0, group_of_round[np.maximum(at, 0)] if len(group_of_round) else -1, -1)
        start = 0
        for key, rows, _ in items.away:
            to, start = filed[start:start + len(rows)], start + len(rows)
            group = np.full(items.sizes[key], group_of[key], dtype=np.int64)
            group[rows[to >= 0]] = to[to >= 0]
            _note_moves(strays, child, [key], group_of, [group])


def _table_ids(path: Path, table: str, keyed: dict[str, Path], away: Away | None = None) -> _PartIds:
    """The ids of every readable part of `table`, in group order; with `away` (an item table), the
    rows of each part whose round must be looked up in other parts."""
    column = TABLES[table].id_column
    round_column = ITEM_ROUNDS[table][0] if away is not None else None
    texts = [c for c in (column, round_column) if c]
    played = REPLAY_ORDER[table][:2] if table in REPLAY_ORDER else []  # table_id and when: `_out_of_time`
    wanted = [*texts, *played]
    got = _PartIds([], [] if column else None, broken=False)
    for key in sorted(keyed, key=part_order):
        try:
            if not inside_bundle(path, keyed[key]):
                raise UnreadableFile("outside the bundle")  # never read (reported by the second pass)
            part = open_parquet(keyed[key])
            held = part.schema_arrow.names
            named = partition_values(PurePosixPath(key).parts[:-1], TABLES[table].names)  # as the second pass's load adds them
            if repeated_names(held) or missing_required(TABLES[table], [*held, *named]):
                raise UnreadableFile("refused by the second pass")
            if not wanted:
                continue
            read = with_path_columns(part.read(columns=[n for n in wanted if n in held]), named)
            values = _ids_as_read(read, [*texts, *played[:1]])
            size = read.num_rows
            when = _times_as_read(read.column(played[1]), TABLES[table].column(played[1])) if played else None
        except (pa.ArrowException, OSError, KeyError, ValueError, TypeError, OverflowError, UnreadableFile):
            got.broken = True
            continue
        got.keys.append(key)
        got.sizes[key] = size
        if column and got.ids is not None:
            got.ids.append(values[column])
        if away is not None and round_column:
            rows = away(key, values[round_column])
            if len(rows):
                got.away.append((key, rows, values[round_column].take(pa.array(rows))))
        if when is not None:  # a round table: its tables and times
            got.played.append((values[played[0]], when))
    return got


def _ids_as_read(part: pa.Table, names: list[str]) -> dict[str, pa.Array]:
    """Text columns of a part as the second pass's load reads them (`parquet_frame`, then `as_text`),
    as large_string: taken straight from Arrow where the file holds them as text, as logs write
    ids, since the load's conversion gives those back unchanged (1,331 parts of a month: 1.2 s of
    conversion through pandas, 0.1 s without); through that conversion itself otherwise (numbers,
    dictionaries, bytes without the UTF-8 annotation)."""
    if all(pa.types.is_string(t) or pa.types.is_large_string(t) for t in (part.schema.field(n).type for n in names)):
        return {n: part.column(n).combine_chunks().cast(pa.large_string()) for n in names}
    frame = parquet_frame(part.select(names))
    return {n: arrow(as_text(frame[n])).cast(pa.large_string()) for n in names}


NO_TIME = np.iinfo(np.int64).min


def _times_as_read(values: pa.ChunkedArray, column: Column) -> np.ndarray:
    """A part's round times as `_nanoseconds` gives them. Times Parquet holds as instants (a time
    zone in their type, as logs write them) are taken from Arrow's integers, in range as the load
    checks it (`ticks_out_of_range`): a month's 665 round parts, 0.55-0.62 s through pandas and its
    parse, 0.06-0.08 s so."""
    kind = values.type
    if column.type != "timestamp" or not pa.types.is_timestamp(kind) or kind.tz is None:
        return _nanoseconds(parquet_frame(pa.table({column.name: values}))[column.name], column)
    ticks = pc.fill_null(values.combine_chunks().view(pa.int64()), NO_TIME).to_numpy(zero_copy_only=False)
    known = (ticks != NO_TIME) & ~ticks_out_of_range(ticks, kind.unit)
    out = np.full(len(ticks), NO_TIME, dtype=np.int64)
    out[known] = ticks[known] * NS_PER_TICK[kind.unit]
    return out


def _nanoseconds(values: pd.Series, column: Column) -> np.ndarray:
    """Times as nanoseconds since 1970 UTC, parsed as the load parses them (`parse_column`); NO_TIME
    where the load finds no time (a quarantined row, which no group audits)."""
    times, _, _ = parse_column(values, column)
    out = np.full(len(times), NO_TIME, dtype=np.int64)
    ok = times.notna().to_numpy(dtype=bool)
    out[ok] = times[ok].dt.tz_convert("UTC").dt.as_unit("ns").array.asi8
    return out


def _out_of_time(rounds: pd.DataFrame) -> int:
    """How many rounds (table code, time, the group that audits them) are still audited in a later
    group than a round of their table played after them (filed more than a group late, or a log
    whose times go backwards across a part edge). The groups before judged their table without them:
    by partition such a bundle's sequence findings can differ from the whole audit's, which orders
    every round by time."""
    frame = rounds[(rounds["when"] != NO_TIME) & (rounds["table"] >= 0)]  # quarantined rows: no group audits them
    # The latest time of each table in the groups before each group.
    latest = frame.groupby(["table", "group"], sort=True)["when"].max().groupby(level="table").cummax()
    before = latest.groupby(level="table").shift(fill_value=NO_TIME)
    prior = before.reindex(pd.MultiIndex.from_frame(frame[["table", "group"]])).to_numpy(dtype=np.int64)
    return int((frame["when"].to_numpy() < prior).sum())


def _load_group(path: Path, parts: dict[str, list[Path]], threads: int) -> list[tuple[str, tuple[LoadedFiles, pd.DataFrame | None]]]:
    """Each table's parts of one group, read and typed (`load_files`) with their clean rows (None:
    no row), in the order of `parts`: `threads` tables at once, as the whole audit loads them."""
    def one(table: str) -> tuple[LoadedFiles, pd.DataFrame | None]:
        loaded = load_files(TABLES[table], [(part, part.relative_to(path).as_posix()) for part in parts[table]], path)
        return loaded, (clean_rows(TABLES[table], loaded.typed, loaded.is_clean) if len(loaded.typed) else None)

    return _each_table(one, list(parts), threads)


def _each_table(work: Callable[[str], T], tables: list[str], threads: int) -> list[tuple[str, T]]:
    """`work` on each table, `threads` at once (Arrow's reading and hashing release the GIL), the
    answers in the order of `tables`."""
    if threads <= 1 or len(tables) <= 1:
        return [(t, work(t)) for t in tables]
    with ThreadPoolExecutor(max_workers=threads) as pool:
        futures = [pool.submit(work, t) for t in tables]
        return [(t, f.result()) for t, f in zip(tables, futures, strict=True)]


def _quarantine_duplicates(
    table: str, clean: pd.DataFrame, repeated: set[str], first_seen: dict[str, tuple[str, int, int]],
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, np.ndarray]:
    """(rows kept, LOG002 records, rows left out that may hide a round, which records are copies):
    later occurrences of an id among the rows that passed LOG001, in file order across parts (as
    the whole audit decides them). `first_seen` carries where each candidate id first stood and two
    digests of that row (`row_digests`), as `_load_table` compares them: of every cell (a repeat
    with the same is a copy, hiding nothing) and, for a table of `TIMED_GAPS`, of the cells its
    sequence rules read (a repeat with the same is no gap)."""
    id_col = TABLES[table].id_column
    if not repeated or clean.empty or not id_col:
        return clean, pd.DataFrame(), clean.iloc[0:0], np.zeros(0, dtype=bool)
    candidates = np.flatnonzero(isin(clean[id_col], list(repeated)))
    rows = clean.iloc[candidates]
    columns = TIMED_GAPS.get(table)
    every = row_digests(TABLES[table], rows)
    timed = row_digests(TABLES[table], rows, columns) if columns else np.zeros(len(rows), dtype=np.uint64)
    later: list[int] = []
    first_at: list[str] = []
    copies: list[bool] = []
    gap: list[bool] = []
    for pos, digest, timed_digest in zip(candidates, every, timed, strict=True):
        key = str(clean[id_col].iat[pos])
        if key in first_seen:
            later.append(int(pos))
            where, first_digest, first_timed = first_seen[key]
            first_at.append(where)
            copies.append(bool(digest == first_digest))
            gap.append(bool(timed_digest != first_timed))
        else:
            first_seen[key] = (f"{clean['_file'].iat[pos]}:{clean['_line'].iat[pos]}", int(digest), int(timed_digest))
    if not later:
        return clean, pd.DataFrame(), clean.iloc[0:0], np.zeros(0, dtype=bool)
    mask = np.zeros(len(clean), dtype=bool)
    mask[later] = True
    again = clean[mask]
    return (clean[~mask].reset_index(drop=True), duplicate_rows(table, again, first_at),
            again[np.array(gap, dtype=bool)] if columns else again.iloc[0:0], np.array(copies, dtype=bool))


def _last_runs(f: pd.DataFrame, column: str, gap: pd.Timedelta | None = None) -> np.ndarray:
    """Labels of the rows of each table's last run of equal `column` values in `f` (rows in replay
    order); a pause longer than `gap` ends a run."""
    new = (f["table_id"] != f["table_id"].shift()) | (f[column] != f[column].shift())
    if gap is not None:
        new = new | ((f["ts"] - f["ts"].shift()) > gap).fillna(True)
    run = new.cumsum()
    last = run.groupby(f["table_id"], observed=True).transform("max")
    return f.index[(run == last).to_numpy()].to_numpy()


def _last_shoes(f: pd.DataFrame) -> np.ndarray:
    """Labels of every row of the shoes each table has dealt from since its last shoe began (its last
    coup numbered 1; rows in replay order), or of the last shoe it dealt from when no shoe began in
    `f`. Not only the last run of one shoe_id: a coup recorded under another shoe near a part's end
    (LOG005's to report) must not make the next part forget the shoe's earlier cards and stop card."""
    table = f["table_id"].to_numpy()
    row = np.arange(len(f))
    starts = pd.Series(np.where((f["coup_no"] == 1).to_numpy(dtype=bool), row, -1)).groupby(table, sort=False).transform("max").to_numpy()
    recent = (row >= starts) & (starts >= 0)
    recent[np.flatnonzero(np.r_[table[1:] != table[:-1], True])] = True  # each table's last row (rows are by table)
    pairs = pd.MultiIndex.from_arrays([f["table_id"].to_numpy()[recent], f["shoe_id"].to_numpy()[recent]])
    mine = pd.MultiIndex.from_arrays([f["table_id"], f["shoe_id"]]).isin(pairs)
    return f.index[mine].to_numpy()


def _context(frames: dict[str, pd.DataFrame], ruleset: Ruleset) -> dict[str, pd.DataFrame]:
    """The rows the next group's sequence rules still need. The group's round tables come in replay
    order already (`audit_by_partition` sorts them once, before the group's rules): each sort here
    only finds them so."""
    out: dict[str, pd.DataFrame] = {}
    coups = frames.get("cdf_coups")
    if coups is not None and len(coups):
        ordered = stable_sorted(coups, REPLAY_ORDER["cdf_coups"])
        keep = np.union1d(_last_shoes(ordered), _last_runs(ordered, "banker_id"))
        out["cdf_coups"] = coups.loc[keep]
        stakes = frames.get("cdf_stakes")
        if stakes is not None and len(stakes):
            out["cdf_stakes"] = stakes[isin(stakes["coup_id"], out["cdf_coups"]["coup_id"])]
    spins = frames.get("wheel_spins")
    if spins is not None and len(spins):
        s = stable_sorted(spins, REPLAY_ORDER["wheel_spins"])
        out["wheel_spins"] = s.groupby("table_id", observed=True).tail(1)
    throws = frames.get("dice_throws")
    if throws is not None and len(throws):
        ordered = stable_sorted(throws, REPLAY_ORDER["dice_throws"])
        gap = pd.Timedelta(minutes=float(ruleset.value("session_gap_minutes")))  # type: ignore[arg-type]
        keep = np.union1d(_last_runs(ordered, "dice_set_id", gap), _last_runs(ordered, "launcher_id", gap))
        out["dice_throws"] = throws.loc[keep]
    return out


def _route(
    table: str, clean: pd.DataFrame, now: int, group: dict[str, np.ndarray], group_of: dict[str, int],
    waiting: dict[int, list[pd.DataFrame]],
) -> pd.DataFrame:
    """The rows of `clean` (parts of `table` just read) to audit with group `now`; the rows a later
    group audits (`Strays`: an item with its round, a late round with its time's group) wait for it
    in `waiting`. A part is read no later than every group its rows belong to, so no row's group has
    passed (were one, it is audited now, not dropped)."""
    codes = clean["_file"].array.codes
    lines = clean["_line"].to_numpy()
    to = np.empty(len(clean), dtype=np.int64)
    for code, name in enumerate(clean["_file"].cat.categories):
        key = str(name)[len(table) + 1:]
        rows = np.flatnonzero(codes == code)
        to[rows] = group_of[key]
        if key in group:  # a part rewritten since the first pass has rows it did not see: they stay
            seen = lines[rows] <= len(group[key])
            to[rows[seen]] = group[key][lines[rows[seen]] - 1]
    later = to > now
    if not later.any():
        return clean
    for g in np.unique(to[later]):
        waiting.setdefault(int(g), []).append(clean[to == g].reset_index(drop=True))
    return clean[~later].reset_index(drop=True)


def _sources(frame: pd.DataFrame) -> set[str]:
    return set(frame["_file"].astype(str) + ":" + frame["_line"].astype(str))


def _concat(*frames: pd.DataFrame | None) -> pd.DataFrame:
    """Rows of one table from several reads (the context, rows read with earlier groups, the group's
    own), in that order. Each read names its files by categories of its own: they are recoded to
    the files of all, in part order as the whole audit's load lists them (as text, a group's 2M
    rows of file names cost 2.4 s of a 41 s audit by partition on one thread)."""
    parts = [x for x in frames if x is not None and len(x)]
    if len(parts) > 1:
        files = [p["_file"] for p in parts]
        if all(isinstance(f.dtype, pd.CategoricalDtype) for f in files):
            names = sorted(set().union(*(f.cat.categories for f in files)), key=lambda n: part_order(str(n)))
            return pd.concat([p.assign(_file=f.cat.set_categories(names)) for p, f in zip(parts, files, strict=True)], ignore_index=True)
        return pd.concat([p.assign(_file=p["_file"].astype(str)) for p in parts], ignore_index=True)
    if parts:
        return parts[0]
    return next(x for x in reversed(frames) if x is not None)


DEFAULT_BATCH_ROWS = 2_000_000


def _keep_evidence(evidence: dict[str, list[pd.DataFrame]], rounds: pa.Array, items: pa.Array) -> None:
    """Each table's rows held as evidence, but only those of the given round and item ids."""
    for table, held in evidence.items():
        round_col, item_col = REPORTED_ON[table]
        ids = items if item_col else rounds
        kept = [rows[isin(rows[item_col or round_col], ids)] for rows in held]
        evidence[table] = [rows for rows in kept if len(rows)]


def audit_by_partition(
    path: Path, ruleset: Ruleset, rules: list[Rule], lang: str = "ca", progress: Callable[[str], None] | None = None,
    batch_rows: int = DEFAULT_BATCH_ROWS, workers: int = DEFAULT_WORKERS, threads: int = LOAD_THREADS,
    spill_rows: int = SPILL_ROWS, keep: int = KEEP,
) -> tuple[AuditResult, pd.DataFrame, dict[str, str | None] | None]:
    """(result, per-table figures, period) of an audit group by group; `threads` tables are read at
    once (the result does not depend on it). Past `spill_rows` findings in memory they are written
    to sorted runs on disk (`auditor.spill`): the result's `spilled` then holds them all, and its
    `findings` the first `keep` of each rule and table, those the outputs show."""
    say = progress or (lambda _m: None)
    lay = layout(path)
    partitioned = set(lay.parts)
    static = load_bundle(path, progress=say, tables=lay.static, threads=threads)
    batches = lay.batches(batch_rows)
    group_of = {key: n for n, keys in enumerate(batches) for key in keys}
    say("reading ids of every part")
    ids, repeated, unread, strays, out_of_time, holding = _first_pass(path, lay, group_of, threads)
    unread |= static.unread
    first_seen: dict[str, dict[str, tuple[str, int, int]]] = {table: {} for table in repeated}
    if holding:
        say("reading again the parts of rounds whose id is written twice")
    # Round ids on more than one row of any part, not one round written again, as the whole audit finds them.
    ambiguous = {**static.ambiguous_rounds, **_ambiguous_rounds(path, lay, holding, repeated)}
    ids_seen = {**static.ids_seen, **ids}
    group_rules = [r for r in rules if set(r.tables) & partitioned or r.code in LOG_EVERYWHERE]
    static_rules = [r for r in rules if not set(r.tables) & partitioned]
    context: dict[str, pd.DataFrame] = {}
    found = FindingRuns(ruleset.timezone, spill_rows, keep)
    figures: list[pd.DataFrame] = []
    files: list[SourceFile] = []
    # Every group's quarantined items and repeated rounds so far: an item may be read a group before
    # its round (`Bundle.rounds_missing_items`).
    left_out: list[pd.DataFrame] = [rows for rows in (static.left_out or {}).values() if len(rows)]
    # Every group's rows so far left out of a table of unnumbered rounds, by their time (`Bundle.gaps`).
    gaps: dict[str, pd.DataFrame] = dict(static.gaps)

    def add_gaps(table: str, rows: pd.DataFrame) -> None:
        if len(rows):
            gaps[table] = pd.concat([gaps[table], rows], ignore_index=True) if table in gaps else rows
    evidence: dict[str, list[pd.DataFrame]] = {}
    run: dict[str, Rule] = {}
    errors: dict[str, str] = {}
    timings: dict[str, float] = {}
    lo: pd.Timestamp | None = None
    hi: pd.Timestamp | None = None
    order = {t: sorted(keyed, key=part_order) for t, keyed in lay.parts.items()}
    done = {t: 0 for t in lay.parts}  # each table's parts are read in part order: how many so far
    waiting: dict[str, dict[int, list[pd.DataFrame]]] = {t: {} for t in strays.group}
    for n, keys in enumerate(batches):
        say(f"part group {n + 1}/{len(batches)}: {keys[0]}" + (f" … {keys[-1]}" if len(keys) > 1 else ""))
        own: dict[str, pd.DataFrame] = {}
        group_q: list[pd.DataFrame] = []
        group_left: list[pd.DataFrame] = []  # of `group_q`, the records of rows that may hide one (no copies)
        group_sources: list[SourceFile] = []
        group_parts: dict[str, list[Path]] = {}
        for t, keyed in lay.parts.items():
            upto = max(done[t], strays.parts_needed(t, n, order[t], group_of))
            reading = order[t][done[t]:upto]
            group_parts[t] = [keyed[k] for k in reading]
            early = sum(group_of[k] > n for k in reading)
            if early:  # memory: what is read early waits for its own group
                say(f"{t}: {early} later part(s) read now: they hold rows this group audits")
            done[t] = upto
        for table, (loaded, clean) in _load_group(path, {t: p for t, p in group_parts.items() if p}, threads):
            group_sources += loaded.sources
            group_q += loaded.quarantine
            group_left += loaded.quarantine
            if table in TIMED_GAPS and len(loaded.typed):
                add_gaps(table, gap_rows(loaded.typed, ~loaded.is_clean, table))
            if clean is None:
                continue
            clean, dq, repeats, copies = _quarantine_duplicates(table, clean, repeated.get(table, set()), first_seen.get(table, {}))
            if table in TIMED_GAPS and len(repeats):
                add_gaps(table, gap_rows(repeats, np.ones(len(repeats), dtype=bool), table))
            if len(dq):
                group_q.append(dq)
                group_left.append(dq[~copies])
                later = dq["file"].value_counts()
                for source in loaded.sources:
                    source.rows_quarantined += int(later.get(source.name, 0))
            if table in waiting:
                clean = _route(table, clean, n, strays.group[table], group_of, waiting[table])
            if len(clean):
                own[table] = clean
        for table, held in waiting.items():
            if n in held:
                own[table] = _concat(*held.pop(n), own.get(table))
        combined = {t: _concat(context.get(t), own.get(t)) for t in set(own) | set(context)}
        late = _settled_requires(combined)  # drops those rows from `combined` itself
        for extra in late:
            for src in [*files, *group_sources]:  # a stake read with an earlier group counts in its part
                src.rows_quarantined += int((extra["file"] == src.name).sum())
            table = str(extra["table"].iloc[0])
            rows = own[table]
            gone = np.zeros(len(rows), dtype=bool)
            for name, lines in extra.groupby("file")["line"]:  # a few files: no loop over the rows
                gone |= ((rows["_file"] == name) & rows["_line"].isin(lines)).to_numpy(dtype=bool)
            own[table] = rows[~gone]
        group_q += late
        group_left += late
        for table in REPLAY_ORDER:
            if table in combined and len(combined[table]):
                # The group's rounds put in replay order once, here: its parts' rows are each in order,
                # the group's are not. The replay's own sort then finds them in order (`is_sorted`),
                # and so does the context for the next group, which sorted them again.
                combined[table] = stable_sorted(combined[table], REPLAY_ORDER[table]).reset_index(drop=True)
        frames, unmatched, known = set_aside_unmatched({**static.frames, **combined}, ids_seen, ambiguous)
        q = pd.concat(group_q, ignore_index=True) if group_q else static.quarantine.iloc[0:0]
        left_out += [part for part in group_left if len(part) and isin(part["table"], LEFT_OUT_TABLES).any()]
        so_far = pd.concat(left_out, ignore_index=True) if left_out else q.iloc[0:0]
        bundle = Bundle(path, group_sources, frames, q, ids_seen, unread=unread, unmatched=unmatched, _derived=known,
                        left_out={str(t): rows for t, rows in so_far.groupby("table", sort=False)}, ambiguous_rounds=ambiguous,
                        gaps=dict(gaps))
        # A group's own rows are summed below; its findings are spilled, if at all, by `found`, once filtered.
        result = run_audit(bundle, ruleset, group_rules, lang=lang, workers=workers, figures=False,
                            found=FindingRuns(ruleset.timezone, spill_rows=None))
        mine = {s.name for s in group_sources}.union(*(map(str, frame["_file"].unique()) for frame in own.values()))
        carried = set().union(*(_sources(c) for c in context.values())) if context else set()
        f = result.findings
        if len(f):
            file_of = f["source"].str.rsplit(":", n=1).str[0]
            f = f[file_of.isin(mine).to_numpy() & ~f["source"].isin(carried).to_numpy()]
            found.add(f, spill=False)  # spilled once the group's frames are let go, below
            for table, (round_col, item_col) in REPORTED_ON.items():
                if table in own and round_col:
                    keys = f["item_id"] if item_col else f["round_id"]
                    hit = own[table][isin(own[table][item_col or round_col], keys.dropna().astype(str).unique())]
                    if len(hit):
                        evidence.setdefault(table, []).append(hit)
        run.update({r.code: r for r in result.rules_run})
        errors.update(result.errors)
        for game, secs in result.timings.items():
            timings[game] = timings.get(game, 0.0) + secs
        # The figures leave out the items of a round id written twice, as the whole audit's do (`split_items`).
        counted = {t: rows[~isin(rows[ITEM_ROUNDS[t][0]], ambiguous[ITEM_ROUNDS[t][1]])] if t in ITEM_ROUNDS and ITEM_ROUNDS[t][1] in ambiguous else rows
                   for t, rows in own.items()}
        own_bundle = Bundle(path, [], {**{t: v for t, v in static.frames.items() if t == "tables"}, **counted}, q, ids_seen)
        figures.append(table_figures(own_bundle))
        for frame in own.values():
            for col in ("ts", "ts_open"):
                if col in frame and len(frame):
                    lo = frame[col].min() if lo is None else min(lo, frame[col].min())
                    hi = frame[col].max() if hi is None else max(hi, frame[col].max())
        files += group_sources
        context = _context(combined, ruleset)
        # Sorted and written with the group's frames still held, its findings peaked with them (the
        # late-bet split: 2.38 GiB); so they are let go first.
        del own, combined, frames, bundle, result, own_bundle, counted
        if found.due:
            found.spill()
            _keep_evidence(evidence, *found.kept_ids())  # the rows of the findings an output may still show
    say("auditing the unpartitioned tables and the manifest")
    static.ids_seen = ids_seen
    static.unread = unread
    final = run_audit(static, ruleset, static_rules, lang=lang, workers=workers, found=FindingRuns(ruleset.timezone, spill_rows=None))
    found.add(final.findings)
    run.update({r.code: r for r in final.rules_run})
    errors.update(final.errors)
    if found.spilled:
        say("merging the findings spilled to disk")
    all_findings, spilled = found.finish()
    figures.append(table_figures(static))
    fig = combine_figures(figures)
    frames = {**static.frames, **{t: pd.concat(v, ignore_index=True) for t, v in evidence.items()}}
    tables = list(TABLES)
    in_file_order = sorted(static.files + files, key=lambda f: (tables.index(f.table), part_order(f.name)))  # the whole audit's
    # The groups' quarantine records are not held to the end: each is a LOG001 or LOG002 finding of
    # its group, and each file's count is in its record; a feed broken for months has millions.
    everything = Bundle(path, in_file_order, frames, static.quarantine,
                        ids_seen, static.manifest, static.manifest_error, static.ignored, unread)
    not_run = {code: why for code, why in final.rules_not_run.items() if code not in run}
    for rule in group_rules:
        if rule.code not in run and rule.code not in not_run:
            not_run[rule.code] = "no " + ", ".join(t for t in rule.tables if t not in lay.parts and t not in lay.static) + " in the bundle"
    notes = [f"{n} round(s) of {t} are filed in a later part than a round of their table played after them: "
             "by partition their table's sequence findings (LOG005, and rules that compare a round with the one before) "
             "can differ from the whole audit's; audit this bundle whole" for t, n in out_of_time.items()]
    result = AuditResult(everything, ruleset, sorted(run.values(), key=lambda r: r.code), not_run, all_findings, timings, errors, notes,
                         spilled=spilled)
    period = None
    if lo is not None and hi is not None and manifest_period(static.manifest) is None:
        period = data_period(lo, hi, ruleset.timezone)
    return result, fig, period


__all__ = ["StreamError", "audit_by_partition", "layout"]
