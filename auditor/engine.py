"""Running rules over a loaded bundle and turning their hits into findings."""

from __future__ import annotations

import functools
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from concurrent.futures import ALL_COMPLETED, FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from auditor.frames import arrow, is_arrow_text, iso_arrow, iso_text, text_array, text_series
from auditor.figures import GAME_FIGURES, game_figures, table_figures
from auditor.i18n import label
from auditor.loading import Bundle
from auditor.loading.bundle import LOAD_THREADS, BundleLoad
from auditor.memory import MANY_FINDINGS, release_before_outputs, release_between_games
from auditor.rules import Rule
from auditor.rules.base import HIT_COLUMNS, Context
from auditor.ruleset import Ruleset
from auditor.schema import SHARED_GAME, TABLES

if TYPE_CHECKING:
    from auditor.spill import FindingRuns, Spilled

# Findings held in memory before they are sorted and written to disk (`auditor.spill`, which this
# module's sort serves, so imports it where used): about 0.35 GB.
SPILL_ROWS = 1_000_000
# A rule's hits turned into findings this many at a time: each slice may be spilled before the next.
FINDINGS_AT_ONCE = 1_000_000

FINDING_COLUMNS = [
    "rule", "name", "severity", "game", "table_id", "round_id", "item_id", "ts",
    "expected", "observed", "message", "citation", "source",
]
SORT_KEYS = ["game", "table_id", "ts", "round_id", "rule", "item_id"]
A = TypeVar("A", np.ndarray, pa.Array)
# Hits held before they are turned into findings together (`findings_of`): some rules' worth of the
# usual few hundred each, never millions.
BATCH_HITS = 100_000
# Two games at once: on 13M rows, 10.7 s -> 8.4 s for 3.3 -> 3.6 GB at peak (bench/MEASUREMENTS.md).
DEFAULT_WORKERS = min(2, os.cpu_count() or 1)


@dataclass
class AuditResult:
    bundle: Bundle
    ruleset: Ruleset
    rules_run: list[Rule]
    rules_not_run: dict[str, str]
    findings: pd.DataFrame
    timings: dict[str, float] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)  # rules that failed to run: the audit is incomplete
    notes: list[str] = field(default_factory=list)  # what the reader of a run should know about how it ran (on stderr)
    # The wall clock seconds a whole audit spent loading tables ("load": waiting for a turn's tables
    # with no rule of the turn before left running) and running rules ("rules": the rest, the next
    # turn's tables installed meanwhile), summed over its turns, and the CPU seconds of every thread
    # meanwhile ("load_cpu", "rules_cpu"): the benchmark's phases.
    marks: dict[str, float] = field(default_factory=dict)
    # Set when the findings passed the audit's bound in memory (`--findings-in-memory`): every finding
    # is then in these sorted runs on disk, and `findings` holds only the first of each (rule, table).
    spilled: Spilled | None = None


def format_ts(values: pd.Series) -> pd.Series:
    """ISO 8601 in UTC with an explicit offset, microseconds only when there are some; null stays null."""
    if values.empty:
        return pd.Series(None, index=values.index, dtype=object)
    return pd.Series(iso_text(_utc(values), micro=True), index=values.index, dtype=object, copy=False)


def _utc(values: pd.Series) -> pd.Series:
    """Times (or dates, taken as UTC midnight) in UTC; anything else missing."""
    ts = values if isinstance(values.dtype, pd.DatetimeTZDtype) else pd.to_datetime(values, utc=True, errors="coerce")
    return ts.dt.tz_convert("UTC")


def _utc_instants(values: pd.Series) -> np.ndarray:
    """`_utc`'s times as UTC's wall clock, datetime64[ns] (NaT where missing): a column of times,
    zoned or not, read as it is held, where `_utc` converts each part in pandas (68 rules' hits:
    some 10 ms, holding the interpreter's lock)."""
    if values.dtype.kind == "M" or isinstance(values.dtype, pd.DatetimeTZDtype):
        return values.to_numpy(dtype="datetime64[ns]")  # a zoned column's instants, in UTC
    return _utc(values).dt.tz_localize(None).to_numpy(dtype="datetime64[ns]")


def _as_text(values: pd.Series) -> pa.Array:
    """Values as message text (whole floats without ".0"), null where missing: text and integer
    columns, the kinds rules report, are converted by Arrow in C; any other kind value by value."""
    try:
        text = text_array(values)
        if text is not None:
            return text
        if pd.api.types.infer_dtype(values, skipna=True) == "integer":
            return pa.array(values.to_numpy(dtype=object), type=pa.int64(), from_pandas=True).cast(pa.large_string())
    except (pa.ArrowException, OverflowError):
        pass  # past int64, or text Arrow would not take as it is: value by value

    def one(v: object) -> str:
        if isinstance(v, float) and v.is_integer():
            return str(int(v))
        return str(v)

    return pa.array(values.map(one, na_action="ignore").to_numpy(dtype=object), type=pa.large_string(), from_pandas=True)


def _messages(summaries: list[str], parts: list[pd.DataFrame], lang: str, with_values: list[bool]) -> pa.Array:
    """"<summary>[: <detail>][ (expected <e>, observed <o>)]." for each hit of `parts` (each part a
    rule's hits, `summaries` and `with_values` that rule's), joined by Arrow in one pass for all:
    a part's text is converted by its own kind, the joins are made once."""
    def t(value: str) -> pa.Scalar:
        return pa.scalar(value, type=pa.large_string())

    empty = t("")
    # One rule's summary (or one for all) is a scalar of the join: never repeated for each of its hits.
    summary: pa.Scalar | pa.Array = t(summaries[0]) if len(set(summaries)) == 1 else _end_to_end(
        [pa.repeat(t(text), len(h)) for text, h in zip(summaries, parts, strict=True)])
    details = _end_to_end([_as_text(h["detail"]) for h in parts])
    detail: pa.Scalar | pa.Array = empty
    if details.null_count < len(details):
        detail = pc.fill_null(pc.binary_join_element_wise(t(": "), details, empty), empty)
    shown = [_either_present(h["expected"], h["observed"]) if wanted else np.zeros(len(h), dtype=bool)
             for h, wanted in zip(parts, with_values, strict=True)]
    has_values = _end_to_end(shown)
    values: list[pa.Scalar | pa.Array] = []
    if has_values.any():
        def text_of(column: str) -> pa.Array:
            # A part with no value to show is not converted: its text is never read.
            return _end_to_end([_as_text(h[column]) if any_shown.any() else pa.nulls(len(h), type=pa.large_string())
                                for h, any_shown in zip(parts, shown, strict=True)])

        values = [t(" (" + label("expected", lang) + " "), pc.fill_null(text_of("expected"), t("—")),
                  t(", " + label("observed", lang) + " "), pc.fill_null(text_of("observed"), t("—")), t(")")]
        if not has_values.all():  # null where a hit has neither value: its part of the join is then empty
            values[0] = pc.if_else(pa.array(has_values), values[0], pa.scalar(None, type=pa.large_string()))
            values = [pc.fill_null(pc.binary_join_element_wise(*values, empty), empty)]
    joined = pc.binary_join_element_wise(summary, detail, *values, t("."), empty)
    # Every part a scalar (no hit has a detail or a value): Arrow gives one scalar, the same for all.
    return pa.repeat(joined, sum(len(h) for h in parts)) if isinstance(joined, pa.Scalar) else joined


def _either_present(first: pd.Series, second: pd.Series) -> np.ndarray:
    """Whether each row has either value: the arrays' own masks, not pandas' Series operations
    (68 rules' hits: 22-30 -> 4 ms, every call of them holding the interpreter's lock)."""
    return ~(np.asarray(first.array.isna(), dtype=bool) & np.asarray(second.array.isna(), dtype=bool))


def _clean_value(v: object) -> object:
    if v is None or (isinstance(v, float) and np.isnan(v)) or v is pd.NA or v is pd.NaT:
        return None
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating | float):
        f = float(v)
        return int(f) if f.is_integer() else f
    if isinstance(v, np.bool_ | bool):
        return bool(v)
    if isinstance(v, pd.Timestamp):
        return format_ts(pd.Series([v])).iloc[0]
    return str(v) if not isinstance(v, int | str) else v


def _clean_values(values: pd.Series) -> np.ndarray:
    """`_clean_value` over a column: text and integers, the common kinds, in one pass each."""
    kind = pd.api.types.infer_dtype(values, skipna=True)
    if kind in ("string", "empty"):
        # One conversion, missing values as None on the way (a copy to object and a `where` after
        # it: 0.46 -> 0.09 ms a rule's 570 hits; the month's 80 text columns: some 23 ms).
        return values.to_numpy(dtype=object, na_value=None)
    if kind == "integer":
        try:
            return pd.array(values.to_numpy(dtype=object), dtype="Int64").to_numpy(dtype=object, na_value=None)
        except (TypeError, ValueError, OverflowError):
            pass  # past int64: one by one
    # Not Series.map: it would infer a float column from [2500, None] and write 2500.0.
    return np.array([_clean_value(v) for v in values], dtype=object)


@functools.cache
def _categories(values: tuple[str, ...]) -> pd.CategoricalDtype:
    return pd.CategoricalDtype(list(values))


def to_findings(rule: Rule, hits: pd.DataFrame, lang: str) -> pd.DataFrame:
    """One rule's hits as findings (`findings_of`)."""
    return findings_of([(rule, hits)], lang)


def findings_of(ruled: list[tuple[Rule, pd.DataFrame]], lang: str) -> pd.DataFrame:
    """The hits of several rules as findings, one frame in the order given. Each part's columns are
    converted by their own kinds, then every column is built once for all the parts: a rule at a
    time cost some twenty pandas and Arrow calls a rule, however few its hits (the month's 68
    firing rules: 0.30 s on one thread)."""
    if not ruled:
        return pd.DataFrame(columns=FINDING_COLUMNS)
    parts = [h if list(h.columns) == HIT_COLUMNS else h.reindex(columns=HIT_COLUMNS) for _, h in ruled]
    rules = [rule for rule, _ in ruled]
    sizes = [len(h) for h in parts]
    index = pd.RangeIndex(sum(sizes))
    line = _end_to_end([_line_numbers(h["line"]) for h in parts])

    def same(values: list[str]) -> pd.Series:
        # The rules' own fields: a category a rule and a byte per finding, not the text again per
        # finding (5 columns of 4M findings: 440 MB as text). Its dtype made once a set of values,
        # and its codes taken as they are: pandas checks a category list on each Categorical it builds.
        names = sorted(set(values))
        number = {name: i for i, name in enumerate(names)}
        codes = np.repeat(np.array([number[v] for v in values], dtype=np.int8 if len(names) < 128 else np.int16), sizes)
        return pd.Series(pd.Categorical.from_codes(codes, dtype=_categories(tuple(names)), validate=False), index=index, copy=False)

    def joined(columns: list[pd.Series]) -> pd.Series:
        # Arrow text stays Arrow text, laid end to end; other kinds are joined as pandas would.
        if len(columns) > 1 and all(is_arrow_text(c) for c in columns):
            return text_series(pa.concat_arrays([arrow(c).cast(pa.large_string()) for c in columns]), index)
        return _joined(columns)

    def ids(columns: list[pd.Series]) -> pd.Series:
        # Each part's ids as Arrow text laid end to end, made a pandas column once: a pandas column
        # of each part first, then Arrow again, cost some 0.15 ms a part and column (68 rules' hits:
        # 30 ms, holding the interpreter's lock). Any other kind of ids (never seen) as `_ids`.
        texts = [text_array(c) for c in columns]
        if all(text is not None for text in texts):
            return text_series(_end_to_end(cast(list[pa.Array], texts)), index)
        return joined([_ids(c) for c in columns])

    def values(columns: list[pd.Series]) -> pd.Series:
        # Text only (times, bounds, cards: most rules' values): Arrow text, missing NaN, never a
        # Python string per finding (4M late bets: 0.7 GB for a moment). Mixed with numbers, which
        # the JSON lines must write as numbers: Python values, dtype=object (pandas 3 would infer
        # a string dtype and turn None into NaN).
        if all(is_arrow_text(c) for c in columns):
            return joined(columns)
        return pd.Series(_end_to_end([_clean_values(c) for c in columns]), index=index, dtype=object, copy=False)

    files = _end_to_end([_file_text(h["file"]) for h in parts])
    numbered = pc.binary_join_element_wise(files, pa.array(line).cast(pa.large_string()), pa.scalar(":", type=pa.large_string()))
    columns = {
        "rule": same([r.code for r in rules]), "name": same([r.name for r in rules]),
        "severity": same([r.severity for r in rules]), "game": same([r.game for r in rules]),
        "table_id": ids([h["table_id"] for h in parts]), "round_id": ids([h["round_id"] for h in parts]),
        "item_id": ids([h["item_id"] for h in parts]),
        "ts": text_series(iso_arrow(pd.Series(_end_to_end([_utc_instants(h["ts"]) for h in parts]), index=index, copy=False), micro=True),
                          index),  # missing: NaN
        "expected": values([h["expected"] for h in parts]), "observed": values([h["observed"] for h in parts]),
        # Message and source are never missing: Arrow-backed text, without a Python string per finding
        # (4M findings: gigabytes and seconds). Log findings' details already quote the offending cell.
        "message": text_series(_messages([r.summary[lang] for r in rules], parts, lang, [r.game != "log" for r in rules]), index),
        "citation": same([str(r.citation) for r in rules]),
        "source": text_series(pc.if_else(pa.array(line > 0), numbered, files), index),
    }
    return pd.DataFrame(columns, index=index, copy=False)


def _line_numbers(values: pd.Series) -> np.ndarray:
    line = values.to_numpy()
    return line if line.dtype.kind == "i" else pd.to_numeric(values, errors="coerce").fillna(0).astype("int64").to_numpy()


def _end_to_end(arrays: list[A]) -> A:
    """The arrays (one at least) laid end to end; one array as it is, never copied."""
    if len(arrays) == 1:
        return arrays[0]
    return np.concatenate(arrays) if isinstance(arrays[0], np.ndarray) else pa.concat_arrays(arrays)  # type: ignore[return-value]


def _file_text(values: pd.Series) -> pa.Array:
    """Each hit's file name as Arrow text ("" where none): a rule's rows name their files by category
    code, and `text_array` gathers the few names rather than one Python string per finding."""
    text = text_array(values)
    if text is None:
        text = pa.array(values.astype(object).fillna("").to_numpy(dtype=object), type=pa.large_string())
    return pc.fill_null(text, "")


def _ids(values: pd.Series) -> pd.Series:
    """Ids as Arrow-backed text, missing as NaN: one kind of column for every rule's findings, so that
    concatenating them copies no Python strings. A column of other values (never seen: ids are text)
    stays as it is."""
    if is_arrow_text(values):
        return values
    text = text_array(values)
    if text is None:
        raw = values.to_numpy(dtype=object)
        return pd.Series(np.where(pd.notna(raw), raw, None), index=values.index, dtype=object, copy=False)
    return text_series(text, values.index)


def sorted_findings(parts: list[pd.DataFrame]) -> pd.DataFrame:
    """Every part's findings in one frame, in the order of the spec's keys, then source and message,
    each compared as text (missing = ""), by stable Arrow sorts: millions of findings sort in seconds.
    The frame is gathered a column at a time straight from the parts, each column let go once placed:
    millions of findings are never held twice (`parts`, the caller's list, is emptied)."""
    pending = [dict(p.items()) for p in parts if len(p)]  # each part's columns, to be let go one by one
    parts.clear()
    if not pending:
        return pd.DataFrame(columns=FINDING_COLUMNS)
    table = pa.table({k: _joined_sort_key([p[k] for p in pending]) for k in SORT_KEYS})
    order = pc.sort_indices(table, sort_keys=[(k, "ascending") for k in SORT_KEYS]).to_numpy().copy()
    # Source and message only break ties of the spec's keys: the tied rows alone are sorted again by
    # (their run, source, message), which puts each run back in its own places.
    same = np.ones(len(order) - 1, dtype=bool)
    for key in SORT_KEYS:  # one ranked key at a time: a sorted copy of all six is held by no step
        column = table.column(key).take(pa.array(order))
        same &= pc.equal(column[1:], column[:-1]).to_numpy(zero_copy_only=False)
    del table, column
    if same.any():
        run = np.concatenate([[0], np.cumsum(~same)])
        tied = np.flatnonzero(np.concatenate([same, [False]]) | np.concatenate([[False], same]))
        rows = order[tied]
        ties = pa.table({"run": run[tied], "source": _sort_key(_gather([p["source"] for p in pending], rows)),
                         "message": _sort_key(_gather([p["message"] for p in pending], rows))})
        order[tied] = rows[pc.sort_indices(ties, sort_keys=[("run", "ascending"), ("source", "ascending"), ("message", "ascending")]).to_numpy()]
    columns = {}
    for col in FINDING_COLUMNS:
        columns[col] = _gather([p.pop(col) for p in pending], order)
    return pd.DataFrame(columns, copy=False)


def _joined(chunks: list[pd.Series]) -> pd.Series:
    return chunks[0].reset_index(drop=True) if len(chunks) == 1 else pd.concat(chunks, ignore_index=True)


def _gather(chunks: list[pd.Series], rows: np.ndarray) -> pd.Series:
    """The values at `rows` of the chunks laid end to end: Arrow text is taken from the chunks as they
    are; other columns are joined first (as pandas' concat would type them)."""
    index = pd.RangeIndex(len(rows))
    if all(isinstance(c.dtype, pd.CategoricalDtype) for c in chunks):
        return pd.Series(_gathered_categories(chunks, rows), index=index, copy=False)
    if all(is_arrow_text(c) for c in chunks):
        # Laid end to end first, the chunks let go, then taken: Arrow's take from chunks held a third
        # copy of the column besides (4M messages of 161 bytes: 1.8 against 1.2 GiB, and slower).
        text = _end_to_end([arrow(c).cast(pa.large_string()) for c in chunks])
        chunks.clear()
        return text_series(text.take(pa.array(rows)), index)
    if any(is_arrow_text(c) for c in chunks):
        # Text beside Python values (a batch of text rules beside one of numbers): its missing as
        # theirs, None. Joined as they are, a finding's missing value would be NaN or None as its
        # rule was batched, which depends on the thread that took it.
        chunks = [pd.Series(_clean_values(c), index=c.index, dtype=object, copy=False) if is_arrow_text(c) else c for c in chunks]
    return pd.Series(_joined(chunks).array.take(rows), index=index, copy=False)


def _gathered_categories(chunks: list[pd.Series], rows: np.ndarray) -> pd.Categorical:
    """The values at `rows` of categorical chunks laid end to end, with the chunks' categories in
    text order (grouping by them then orders as grouping text would). These are a rule's own fields
    (code, name, severity, game, citation), one category per rule: each chunk's codes are recoded
    through a lookup of its few categories. pandas' `union_categoricals` and `get_indexer` cost
    ~0.5 ms a chunk: 0.24 s over the month's 68 chunks of five columns, 17 ms this way."""
    arrays: list[pd.Categorical] = [c.array for c in chunks]  # type: ignore[misc]
    names = [list(a.categories) for a in arrays]
    categories = sorted(set().union(*names))  # the rules' own names: text
    number = {name: i for i, name in enumerate(categories)}
    codes = np.concatenate([np.array([number[n] for n in own] + [-1], dtype=np.int64)[a.codes] for a, own in zip(arrays, names, strict=True)])
    return pd.Categorical.from_codes(codes[rows], categories=pd.Index(categories))


def _joined_sort_key(chunks: list[pd.Series]) -> pa.Array:
    """`_sort_key` of the chunks laid end to end. Text chunks are keyed one by one and their keys
    joined: the rule's own fields are categories of one value each, which pandas would join by
    turning every finding's value into a Python string (4M findings: 0.8 s)."""
    keys = [text_array(c) for c in chunks]
    if all(k is not None for k in keys):
        return pa.concat_arrays([pc.fill_null(k, "") for k in keys])  # type: ignore[union-attr]
    return _sort_key(_joined(chunks))


def _sort_key(values: pd.Series) -> pa.Array:
    """The column as Arrow text (missing = ""), whose byte order is code point order, Python's order
    of str; a column holding other values than text, as the rank of each among them."""
    text = text_array(values)
    if text is not None:
        return pc.fill_null(text, "")
    text = values.astype(object)
    text = text.where(text.notna(), "")
    try:
        codes, _ = pd.factorize(text, sort=True)
    except TypeError:  # values that do not compare with each other: compare as text
        codes, _ = pd.factorize(text.astype(str), sort=True)
    return pa.array(codes, type=pa.int64())


@dataclass
class _GameRun:
    found: FindingRuns  # its findings, with those of the games beside it where they share one
    not_run: dict[str, str] = field(default_factory=dict)
    run: list[Rule] = field(default_factory=list)
    seconds: float = 0.0
    errors: dict[str, str] = field(default_factory=dict)


class _GameWork:
    """One game's rules and figures, taken one at a time by each thread that joins in (`work`): the
    thread that starts the game, and any other that frees up before its last rule is taken, so that
    no thread waits idle while another ends a long game alone. Its rules share one context, whose
    prepared frames die once the last of them ends; findings do not depend on which thread found
    them, nor in what order (they are sorted, ties by their content)."""

    def __init__(self, bundle: Bundle, ruleset: Ruleset, rules: list[Rule], lang: str, say: Callable[[str], None], figures: bool = False,
                 found: FindingRuns | None = None) -> None:
        self.bundle, self.lang, self.say = bundle, lang, say
        self.ctx: Context | None = Context(bundle, ruleset)
        self.todo: deque[Rule] = deque(rules)
        self.game = rules[0].game if rules else ""
        self.figures = figures and self.game in GAME_FIGURES  # still to be worked out, after the rules
        self.out = _GameRun(found if found is not None else _finding_runs(ruleset, spill_rows=None))
        self.lock = threading.Lock()
        self.working = 0  # threads in `work`
        self.ended = False

    def _next(self) -> Rule | None:
        with self.lock:
            return self.todo.popleft() if self.todo else None

    def _take_figures(self) -> bool:
        """Whether this thread works out the game's figures: the first to find no rule left."""
        with self.lock:
            take, self.figures = self.figures, False
            return take

    def work(self) -> _GameRun:
        """Take the game's next rule until none is left; the last thread out lets the context go."""
        with self.lock:
            self.working += 1
            # Another thread at the game's rules. (One that has left them took the figures already.)
            joining = self.working > 1
        waiting: list[tuple[Rule, pd.DataFrame]] = []  # this thread's hits not yet findings
        waiting_rows = 0
        try:
            # A thread joining a game another has started works out the figures first: its next
            # rule would mostly wait for the prepared frame the other is building (the month's coups:
            # 0.3 s), and the figures need none. Otherwise they are the game's last work, as below.
            if joining and self._take_figures():
                game_figures(self.bundle, self.game)
            while (rule := self._next()) is not None:
                hits = self._check(rule)
                # Hits become findings a few rules' at a time (`findings_of`), and many hits at
                # once, alone (laid end to end with others they would be copied): before the next
                # rule builds its own, since a rule firing millions of times holds gigabytes.
                if hits is None or not len(hits):
                    continue
                if len(hits) >= BATCH_HITS:
                    # A slice at a time, which the findings' runs may spill before the next is built.
                    for start in range(0, len(hits), FINDINGS_AT_ONCE):
                        self._add(findings_of([(rule, hits.iloc[start : start + FINDINGS_AT_ONCE])], self.lang))
                else:
                    waiting.append((rule, hits))
                    waiting_rows += len(hits)
                    if waiting_rows >= BATCH_HITS:
                        self._add(findings_of(waiting, self.lang))
                        waiting, waiting_rows = [], 0
                del hits
            if waiting:
                self._add(findings_of(waiting, self.lang))
            del waiting
            if self._take_figures():  # the last of the game's work: its hits and prepared frames let go first
                with self.lock:
                    if self.working == 1:  # and no rule of it running in another thread
                        self.ctx = None
                game_figures(self.bundle, self.game)
        finally:
            with self.lock:
                self.working -= 1
                last = not self.working and not self.todo and not self.ended
                if last:
                    self.ended, self.ctx = True, None  # the game's prepared frames
        if last:
            release_between_games()
        return self.out

    def _add(self, part: pd.DataFrame) -> None:
        self.out.found.add(part)  # thread-safe: the games' threads share it

    def _check(self, rule: Rule) -> pd.DataFrame | None:
        """The rule's hits; None when it cannot run here (why: in `not_run`) or failed (`errors`)."""
        bundle, out = self.bundle, self.out
        absent = [t for t in rule.tables if t not in bundle.frames]
        if absent:
            out.not_run[rule.code] = "no " + ", ".join(absent) + " in the bundle"
            return None
        # A table whose files all failed to read has no rows to check against: a limit rule would
        # pass every bet for want of the table's limits, and say so as if it had checked them.
        unread = [t for t in rule.tables if t in bundle.unread and bundle.frames[t].empty]
        if unread:
            out.not_run[rule.code] = ", ".join(unread) + " could not be read (LOG001)"
            return None
        self.say(f"{rule.code} {rule.name}")
        started = time.perf_counter()
        assert self.ctx is not None  # let go only once no rule is left
        try:
            hits = rule.check(self.ctx)
        except Exception as exc:  # noqa: BLE001 - one broken rule must not hide the others' findings
            out.errors[rule.code] = f"{type(exc).__name__}: {exc}"
            return None
        with self.lock:
            out.seconds += time.perf_counter() - started
            out.run.append(rule)
        return hits


def _start(pool: ThreadPoolExecutor, work: _GameWork, threads: int = 2) -> list[Future[_GameRun]]:
    """A game handed to the pool `threads` times (two at most): the first thread free starts it, the
    next one free helps with the rules left, if any."""
    return [pool.submit(work.work) for _ in range(max(1, min(threads, 2)))]


def _ended(futures: list[Future[_GameRun]]) -> _GameRun:
    """A game's run once every thread working on it is done."""
    return [f.result() for f in futures][0]


def _run_game(bundle: Bundle, ruleset: Ruleset, rules: list[Rule], lang: str, say: Callable[[str], None], figures: bool = False,
              found: FindingRuns | None = None) -> _GameRun:
    """One game's rules in this thread, with a context of its own, whose prepared frames die with
    it; `figures`: then the game's per-table figures."""
    return _GameWork(bundle, ruleset, rules, lang, say, figures, found).work()


def run_audit(
    bundle: Bundle,
    ruleset: Ruleset,
    rules: list[Rule],
    lang: str = "ca",
    progress: Callable[[str], None] | None = None,
    workers: int = DEFAULT_WORKERS,
    figures: bool = True,
    found: FindingRuns | None = None,
) -> AuditResult:
    """Run `rules` over `bundle`. Games are independent: with `workers` > 1 they run in threads
    (numpy, pandas and Arrow release the GIL for most of their work), sharing the read-only frames.
    `figures`: also work out the bundle's per-table figures in the same threads, for the outputs.
    `found`: where the findings go (by default, past SPILL_ROWS they are written to sorted runs on
    disk: `auditor.spill`)."""
    found = found if found is not None else _finding_runs(ruleset)
    say = progress or (lambda _m: None)
    release_between_games()  # what the load freed
    by_game = _by_game(rules)
    if workers > 1 and len(by_game) > 1:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            # Largest games first, so the two threads finish together.
            order = sorted(by_game, key=lambda g: -sum(len(bundle.frames.get(t, ())) for r in by_game[g] for t in r.tables))
            # Each game's per-table figures, which the outputs will show, by the threads that ran its
            # rules: the threads' work ends together (worked out after them, on one core, they cost
            # the audit 0.27 s of 13M rows).
            futures = {g: _start(pool, _GameWork(bundle, ruleset, by_game[g], lang, say, figures, found)) for g in order}
            runs = {g: _ended(futures[g]) for g in by_game}
    else:
        runs = {g: _run_game(bundle, ruleset, game_rules, lang, say, found=found) for g, game_rules in by_game.items()}
    if figures and workers > 1:
        table_figures(bundle)  # any game's whose rules were not selected, then all put together
    return _result(bundle, ruleset, runs, found)


def _finding_runs(ruleset: Ruleset, spill_rows: int | None = SPILL_ROWS) -> FindingRuns:
    from auditor.spill import FindingRuns  # it sorts with this module's sorted_findings

    return FindingRuns(ruleset.timezone, spill_rows)


def _by_game(rules: list[Rule]) -> dict[str, list[Rule]]:
    by_game: dict[str, list[Rule]] = {}
    for rule in sorted(rules, key=lambda r: (r.game, r.code)):
        by_game.setdefault(rule.game, []).append(rule)
    return by_game


def _result(bundle: Bundle, ruleset: Ruleset, runs: dict[str, _GameRun], found: FindingRuns) -> AuditResult:
    """The audit's result from its games' runs: their findings (`found`) in the spec's order."""
    release_before_outputs(found.count)
    findings, spilled = found.finish()
    return AuditResult(
        bundle, ruleset,
        sorted((rule for r in runs.values() for rule in r.run), key=lambda r: r.code),
        {code: why for r in runs.values() for code, why in r.not_run.items()},
        findings,
        {g: r.seconds for g, r in runs.items() if r.run},
        {code: why for r in runs.values() for code, why in r.errors.items()},
        spilled=spilled,
    )


def audit_bundle(
    path: Path,
    ruleset: Ruleset,
    rules: list[Rule],
    lang: str = "ca",
    progress: Callable[[str], None] | None = None,
    workers: int = DEFAULT_WORKERS,
    found: FindingRuns | None = None,
) -> AuditResult:
    """`run_audit(load_bundle(path), ...)` a game at a time, so that no more than two games' tables
    are held at once, not the bundle's (`BundleLoad.turns`): the gaming tables first, kept to the
    end; then each game's tables are loaded (two at a time), its rules run (and the log's that read
    those tables: orphans, sequence) by `workers` threads sharing them (`_GameWork`), its figures
    and round times worked out, and its frames let go but for the rows that findings name, which the
    report shows as evidence (`BundleLoad.let_go`). The next game's tables load while a game's rules
    run: one game at a time, the load threads and the rules' took turns, and the audit run again in
    its process was a second slower. They are installed as soon as they are loaded, and the game's
    rules queued behind the last game's, so that a thread left with no rule of a game takes the
    next game's at once, while the other ends the game and the main thread lets it go; each turn's
    rules see the shared tables and their own only (`Bundle.seeing`). The log rules that read no
    frame (format, repeated ids, manifest) run once every table is in. The findings, figures, files, quarantine and period are
    run_audit's on the loaded bundle; the result's frames hold the evidence rows, and the items set
    aside are let go. The benchmark's 13M rows (2026-12-03, eight alternating runs): peak 2.0-2.2
    -> 1.6-1.7 GiB, medians 8.4 -> 6.6 s fresh (the kernel's price for fresh memory, which grows
    with the peak on this machine), 5.0 -> 5.0 s run again in the process (bench/MEASUREMENTS.md)."""
    found = found if found is not None else _finding_runs(ruleset)
    say = progress or (lambda _m: None)
    load = BundleLoad(path, say)
    shared, games = load.turns()
    turns = [(tables, False) for tables in [shared] if tables] + [(tables, True) for tables in games]
    turn_of = {t: n for n, (tables, _) in enumerate(turns) for t in tables}
    game_turn = {TABLES[t].game: n for t, n in turn_of.items() if TABLES[t].game != SHARED_GAME}
    at_turn: list[list[Rule]] = [[] for _ in turns]
    at_end: list[Rule] = []
    for rule in rules:
        if rule.code in EVERY_TURN:
            for todo in at_turn:
                todo.append(rule)
            continue
        # A rule reads one game's tables and the shared ones (`test_a_rule_reads_one_turn`): a game's
        # rule runs in its game's turn (its figures are worked out there), a log rule in its tables'.
        # One with none of its tables in the bundle runs at the end, to say so.
        own = [turn_of[t] for t in rule.tables if t in turn_of]
        if rule.game in game_turn:
            at_turn[game_turn[rule.game]].append(rule)
        else:
            (at_turn[max(own)] if own else at_end).append(rule)
    timer = dict.fromkeys(("load", "load_cpu", "rules", "rules_cpu"), 0.0)
    runs: list[dict[str, _GameRun]] = []
    threads = min(workers, 2)
    with ThreadPoolExecutor(max_workers=threads) as pool, ThreadPoolExecutor(max_workers=LOAD_THREADS) as loads:
        # A turn's tables queue for the load threads behind the previous turn's, so that a thread
        # freed early from one turn's (its smaller tables) starts the next's; a turn after that is
        # queued once the one before last is let go: two turns' frames at most.
        ahead = [load.submit(loads, tables) for tables, _ in turns[:2]]

        def ended(turn: _Turn) -> None:
            more = turn.n + 2 < len(turns)  # a turn whose tables wait for this one's frames to be let go
            runs.append(_end_turn(load, turn, found, let_go=turn.let_go and (more or found.count >= MANY_FINDINGS)))
            if more:
                ahead.append(load.submit(loads, turns[turn.n + 2][0]))

        last: _Turn | None = None  # the turn whose rules run while the next one's tables are installed
        for n, ((tables, let_go), todo) in enumerate(zip(turns, at_turn, strict=True)):
            loading = {future: table for table, future in ahead[n].items()}
            while loading:
                # Only the last turn's threads still running are waited for: a thread already done
                # (the first of a game's two to find no rule left, or a short game beside a long one)
                # would end every wait at once, and this thread would spin, taking the interpreter's
                # lock from the rules' threads, until the turn ended.
                running: list[Future[Any]] = [f for f in last.futures if not f.done()] if last is not None else []
                if last is not None and not running:
                    # Tables about to come in are waited for a moment before the last turn is let
                    # go: the let-go, on this thread, held back the start of the turn whose tables
                    # came in meanwhile, both rule threads idle (the month's banca francesa: 0.06-0.1
                    # s). Once they are in, the last turn is let go beside the new turn's rules, as
                    # below; tables slower to come (text) still find it let go.
                    with _timed(timer, "load"):
                        done, _ = wait(list(loading), timeout=LET_GO_AFTER, return_when=ALL_COMPLETED)
                        for future in done:
                            load.install(loading.pop(future), future.result())
                    if not loading:
                        break
                    with _timed(timer, "rules"):
                        ended(last)
                    last = None
                # Waiting for tables is the load's time only once no rule of the last turn is left to end.
                with _timed(timer, "rules" if last is not None else "load"):
                    done, _ = wait([*loading, *running], return_when=FIRST_COMPLETED)
                    for future in [f for f in done if f in loading]:
                        load.install(loading.pop(future), future.result())
                    if last is not None and last.done:
                        ended(last)
                        last = None
            with _timed(timer, "rules"):
                # The turn's rules queue for the pool's threads behind the last turn's: each thread
                # left with none of those takes this turn's at once, not after the last turn is let go.
                seen = load.bundle.seeing([*shared, *tables])  # the shared turn: its tables, once
                turn = _Turn(n, tables, let_go, seen, _start_games(pool, seen, ruleset, todo, lang, say, threads, found))
                if last is not None:
                    ended(last)
                last = turn
        with _timed(timer, "rules"):
            if last is not None:
                ended(last)
        with _timed(timer, "load"):
            bundle = load.finish()
        with _timed(timer, "rules"):
            runs.append(_run_games(pool, bundle, ruleset, at_end, lang, say, threads, found))
    table_figures(bundle)  # every game's, worked out in its turn, put together
    result = _result(bundle, ruleset, _merged(runs), found)
    result.marks.update(timer)
    return result


# The log rule that reads every table's frame: a whole audit runs it in each turn, over that turn's tables.
EVERY_TURN = ("LOG003",)

# Seconds a whole audit waits for a turn's tables, the last turn's rules done, before letting the
# last turn go (`audit_bundle`): Parquet tables mostly come in meanwhile, and the next turn starts first.
LET_GO_AFTER = 0.25


@dataclass
class _Turn:
    """A whole audit's turn under way: its tables, the bundle its rules see (`Bundle.seeing`: the
    shared tables and its own), and each of its games' threads."""

    n: int
    tables: list[str]
    let_go: bool
    bundle: Bundle
    started: dict[str, list[Future[_GameRun]]]

    @property
    def futures(self) -> list[Future[_GameRun]]:
        return [f for game in self.started.values() for f in game]

    @property
    def done(self) -> bool:
        return all(f.done() for f in self.futures)


def _end_turn(load: BundleLoad, turn: _Turn, found: FindingRuns, let_go: bool) -> dict[str, _GameRun]:
    """A turn's games' runs once they end; then every game's figures of its tables while their frames
    are whole (its rules selected or not), and, if `let_go`, its tables let go but for the rows that
    findings name. A game's turn is let go where another turn's tables are still to load, or where
    the findings are many (their outputs need the memory). The last turns' frames, once no table is
    left to load, stay whole to the end: letting them go was the audit's one busy thread at its end
    (the month's last game: 40-50 ms), and the report's evidence is looked up in them just the same."""
    runs = {g: _ended(futures) for g, futures in turn.started.items()}
    for game in sorted({TABLES[t].game for t in turn.tables} & set(GAME_FIGURES)):
        game_figures(turn.bundle, game)
    if let_go:
        load.let_go(turn.tables, *found.kept_ids())
        release_between_games()
    return runs


def _start_games(pool: ThreadPoolExecutor, bundle: Bundle, ruleset: Ruleset, rules: list[Rule], lang: str, say: Callable[[str], None],
                 threads: int, found: FindingRuns) -> dict[str, list[Future[_GameRun]]]:
    """The rules' games handed to `threads` threads of the pool, the largest first (by rows)."""
    by_game = _by_game(rules)
    order = sorted(by_game, key=lambda g: -sum(len(bundle.frames.get(t, ())) for r in by_game[g] for t in r.tables))
    started = {g: _start(pool, _GameWork(bundle, ruleset, by_game[g], lang, say, True, found), threads) for g in order}
    return {g: started[g] for g in by_game}


def _run_games(pool: ThreadPoolExecutor, bundle: Bundle, ruleset: Ruleset, rules: list[Rule], lang: str, say: Callable[[str], None],
               threads: int, found: FindingRuns) -> dict[str, _GameRun]:
    """The rules' games run by `threads` threads of the pool at once, once they all end."""
    return {g: _ended(futures) for g, futures in _start_games(pool, bundle, ruleset, rules, lang, say, threads, found).items()}


def _merged(parts: list[dict[str, _GameRun]]) -> dict[str, _GameRun]:
    """Each game's runs of several turns as one: a rule that failed in any turn did not run."""
    out: dict[str, _GameRun] = {}
    for part in parts:
        for game, run in part.items():
            into = out.setdefault(game, _GameRun(run.found))
            into.not_run.update(run.not_run)
            into.errors.update(run.errors)
            into.run += [rule for rule in run.run if rule not in into.run]
            into.seconds += run.seconds
    for run in out.values():
        run.run = [rule for rule in run.run if rule.code not in run.errors]
    return out


@contextmanager
def _timed(timer: dict[str, float], phase: str) -> Iterator[None]:
    """Adds the wall clock and CPU seconds (every thread's) of the block to `phase` and `phase_cpu`."""
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        yield
    finally:
        timer[phase] += time.perf_counter() - wall
        timer[phase + "_cpu"] += time.process_time() - cpu
