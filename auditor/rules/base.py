"""What a rule is: a code, a name, a severity, the article it enforces, the parameters it reads, and a
vectorised check that returns the offending rows.

A check takes the audit `Context` and returns a frame of hits made with `hits()`: one row per
finding, naming the round (and item) the catalogue says. The engine adds the rule's metadata,
message and citation.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
import pyarrow as pa

from auditor.frames import is_arrow_text, isin, iso_arrow, masked_numbers, stable_sorted, take_sorted, text_array, text_series
from auditor.loading import Bundle
from auditor.once import BuildLocks
from auditor.ruleset import Ruleset

Severity = Literal["critical", "major", "minor"]
Game = Literal["chemin_de_fer", "wheel_of_fortune", "banca_francesa", "tournament", "log"]
SEVERITY_RANK: dict[str, int] = {"minor": 1, "major": 2, "critical": 3}
HIT_COLUMNS = ["table_id", "round_id", "item_id", "ts", "expected", "observed", "file", "line", "detail"]
EPIGRAF_FILES: dict[str, str] = {
    "8": "08-chemin-de-fer.txt",
    "24": "24-roda-de-la-fortuna.txt",
    "25": "25-banca-francesa.txt",
    "annex II": "annex-ii-tornejos.txt",
}


@dataclass(frozen=True)
class Citation:
    epigraf: str  # "8", "24", "25", "annex II", or "" for the log format
    section: str  # "V", "VI a)-c)", "II.1"
    quote: str  # the words of the article the rule enforces, as in the catalogue

    def __str__(self) -> str:
        if not self.epigraf:
            return "Log bundle format, version 1"
        where = "annex II" if self.epigraf == "annex II" else f"epígraf {self.epigraf}"
        return f"Decret 455/2025, {where}, {self.section}" if self.section else f"Decret 455/2025, {where}"


Check = Callable[["Context"], pd.DataFrame]


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    severity: Severity
    game: Game
    citation: Citation
    parameters: tuple[str, ...]
    tables: tuple[str, ...]
    summary: dict[str, str]  # one sentence per language: what went wrong
    check: Check = field(compare=False)

    @property
    def doc(self) -> str:
        return inspect.cleandoc(self.check.__doc__ or "")

    def as_dict(self) -> dict[str, object]:
        return {
            "code": self.code,
            "name": self.name,
            "severity": self.severity,
            "game": self.game,
            "citation": str(self.citation),
            "quote": self.citation.quote,
            "parameters": list(self.parameters),
            "tables": list(self.tables),
            "summary": self.summary["en"],
        }


_DEFINED: dict[str, Rule] = {}


def rule(
    code: str,
    name: str,
    severity: Severity,
    game: Game,
    cites: tuple[str, str, str],
    *,
    tables: tuple[str, ...],
    en: str,
    ca: str,
    params: tuple[str, ...] = (),
) -> Callable[[Check], Check]:
    """Declare a rule; the decorated function is its check and its docstring its documentation."""

    def register(check: Check) -> Check:
        if code in _DEFINED:
            raise ValueError(f"rule {code} is defined twice")
        if not (check.__doc__ or "").strip():
            raise ValueError(f"rule {code} has no docstring")
        _DEFINED[code] = Rule(code, name, severity, game, Citation(*cites), params, tables, {"en": en, "ca": ca}, check)
        return check

    return register


def defined_rules() -> dict[str, Rule]:
    return dict(_DEFINED)


class Context:
    """What a check sees: the bundle's frames, the ruleset, and derived frames computed once."""

    def __init__(self, bundle: Bundle, ruleset: Ruleset) -> None:
        self.bundle = bundle
        self.ruleset = ruleset
        self._cache: dict[str, object] = {}
        self._locks = BuildLocks()

    def has(self, table: str) -> bool:
        return table in self.bundle.frames

    def frame(self, table: str) -> pd.DataFrame:
        return self.bundle.frames[table]

    def prepared(self, key: str, build: Callable[[Context], object]) -> object:
        """`build(self)`, built once and kept for the game's other rules, which may run in other
        threads at the same time: a second thread asking for it while it is built waits for it."""
        return self._locks.build_once(self._cache, key, lambda: build(self))

    def in_order(self, table: str, by: list[str]) -> pd.DataFrame:
        """The table's rows sorted by `by` (stable), each with `_row`, its position in the bundle's frame."""
        frame = self.frame(table)
        return stable_sorted(frame.assign(_row=np.arange(len(frame))), by).reset_index(drop=True)

    def round_positions(self, items: str, key: str, rounds: str, ordered: pd.DataFrame) -> np.ndarray:
        """For each row of `items`, the position in `ordered` (the `rounds` table from `in_order`) of
        the round its `key` names; -1 when there is none (an orphan, LOG003's). When the rounds were
        in that order already (as logs write them) these are the bundle's own positions, uncopied:
        read them, never write to them."""
        at = self.bundle.parent_positions(items, key, rounds)
        rows = ordered["_row"].to_numpy()
        if len(rows) == len(self.frame(rounds)) and (rows == np.arange(len(rows))).all():
            return at
        where = np.empty(len(ordered), dtype=np.int64)
        where[rows] = np.arange(len(ordered))
        return np.where(at >= 0, where[np.maximum(at, 0)] if len(where) else -1, -1)

    def items_known(self, items: str, round_ids: pd.Series, counts: np.ndarray | Callable[[], np.ndarray]) -> np.ndarray:
        """Whether every one of each round's `items` (stakes, bets) is in the audit, for the rounds
        `round_ids` with `counts` items each (`Bundle.rounds_missing_items`): a rule that judges a
        sum or count of a round's items judges only these. None is, where the bundle has no such
        table: a round's items cannot be summed from a log that does not hold them. `counts` may be
        a function that counts them, called only when they are needed (items left out whose round
        is unknown): counting 4M bets by throw took 12 ms."""
        if not self.has(items):
            return np.zeros(len(round_ids), dtype=bool)
        missing, untold = self.bundle.rounds_missing_items(items)
        known = ~isin(round_ids, missing)
        if not untold:
            return known
        # Items left out whose round is unknown (a file that could not be read): a round with items
        # in the audit had them read; one with none may have lost them all.
        return known & ((counts() if callable(counts) else counts) > 0)

    def param_array(self, name: str, when: pd.Series) -> np.ndarray:
        """The parameter's value in force at each row, as an array (broadcast when it never changed)."""
        value = self.ruleset.series(name, when)
        if isinstance(value, pd.Series):
            return value.to_numpy()
        return np.full(len(when), value)

    def payouts(self, odds: str, keys: pd.Series, stakes: pd.Series, wins: np.ndarray, when: pd.Series) -> pd.Series:
        """What each winning row is due, stake × the odds of its key in force at `when` (the table
        parameter `odds`), rounded half to even to the cent; 0 for every other row. The odds are
        looked up and multiplied for the winners alone: a tenth of millions of bets."""
        won = np.flatnonzero(wins)
        due = np.zeros(len(stakes), dtype=np.int64)
        if len(won):
            # The winners' times are gathered only for odds that changed over time: the lookup of
            # odds with one value never reads them. The winners' stakes are made floats alone, not
            # the 4M bets' (a rule's payouts: some 60 -> 40 ms).
            dated = self.ruleset.param(odds).dated
            rate = self.ruleset.lookup(odds, keys.iloc[won], when.iloc[won] if dated else None).to_numpy(dtype="float64")
            amounts, missing = masked_numbers(stakes)
            staked = amounts[won].astype("float64")
            if missing is not None:
                staked[missing[won]] = np.nan
            due[won] = np.round(staked * rate)
        return pd.Series(due, index=stakes.index, copy=False)

    def param(self, name: str, when: pd.Series | None = None) -> object:
        if when is None:
            return self.ruleset.value(name)
        return self.ruleset.series(name, when)


class Offending:
    """The rows of a rule's frame that `hits` reports, as its functions of the offending rows see
    them: their `index` and any column of them (`rows["bank_cents"]`), each column taken from the
    frame when first asked for. A prepared frame holds some sixty columns of a million rows; taking
    every one of them for a few hundred offending rows cost a millisecond a rule."""

    def __init__(self, frame: pd.DataFrame, positions: np.ndarray) -> None:
        self.frame = frame
        self.positions = positions
        self.index = frame.index[positions]
        self._taken: dict[str, pd.Series] = {}

    def __len__(self) -> int:
        return len(self.positions)

    def __contains__(self, name: object) -> bool:
        return name in self.frame.columns

    def __getitem__(self, name: str) -> pd.Series:
        if name not in self._taken:
            # `.iloc[positions]`, but the rows' index is taken once for every column, not again for
            # each (a rule's findings take some six columns: 60-100 µs a column less).
            column = self.frame[name]
            values = column.array
            source = values.__arrow_array__() if is_arrow_text(column) else None
            if isinstance(source, pa.ChunkedArray) and source.num_chunks > 1:  # text read a block or a file at a time
                # Its own dtype kept (missing as NaN or as NA), as `take` keeps it.
                values = pd.arrays.ArrowStringArray(take_sorted(source, self.positions), dtype=column.dtype)
            else:
                values = values.take(self.positions)
            self._taken[name] = pd.Series(values, index=self.index, name=column.name, copy=False)
        return self._taken[name]

    def of(self, values: pd.Series) -> pd.Series:
        """The offending rows' values of `values`: a Series of these rows, or of the whole frame."""
        if values.index.equals(self.index):
            return values
        if values.index.equals(self.frame.index):
            return values.iloc[self.positions]
        return values.loc[self.index]


def _column(rows: Offending, value: Any) -> object:
    """`hits`' expected, observed or detail for the offending rows: a scalar, a Series, or a function
    of the rows returning either (a Series of the whole frame is cut to the rows)."""
    if callable(value):
        # Formatting is done on the offending rows only, never on the whole frame.
        value = value(rows)
    if isinstance(value, pd.Series):
        value = rows.of(value)
        # Arrow text stays Arrow text: messages are joined from it without a Python string per row.
        return value.array if is_arrow_text(value) else value.to_numpy(dtype=object)
    if isinstance(value, np.ndarray):
        raise TypeError("pass a Series aligned to the frame, not a bare array")
    return value


def hits(
    frame: pd.DataFrame,
    mask: pd.Series | np.ndarray | None = None,
    *,
    round_col: str | None,
    item_col: str | None = None,
    ts_col: str | None = "ts",
    expected: object = None,
    observed: object = None,
    detail: object = None,
) -> pd.DataFrame:
    """The rows of `frame` where `mask` holds, as findings of the rule that calls it.

    `expected`, `observed` and `detail` are a scalar, a Series aligned with `frame`, or a function
    of the offending rows (an `Offending`: their index, and their columns by name) returning one,
    for text that is costly to build for every row.
    """
    positions = np.flatnonzero(np.asarray(mask, dtype=bool)) if mask is not None else np.arange(len(frame))
    if not len(positions):
        return no_hits()
    rows = Offending(frame, positions)
    n = len(rows)

    def col(name: str | None) -> object:
        return rows[name].astype(object).to_numpy() if name and name in rows else None

    def ids(name: str | None) -> object:
        # Arrow text stays Arrow text: no Python string per finding (a rule can fire millions of times).
        if name and name in rows and is_arrow_text(rows[name]):
            return rows[name].array
        if name and name in rows and isinstance(rows[name].dtype, pd.CategoricalDtype):  # ids gathered as codes (`frames.as_categories`)
            text = text_array(rows[name])
            if text is not None:
                return text_series(text, rows.index).array
        return col(name)

    columns = {
        "table_id": ids("table_id"), "round_id": ids(round_col), "item_id": ids(item_col),
        # The times as they are (not Timestamp objects, one per finding): to_findings formats them.
        "ts": rows[ts_col].array if ts_col and ts_col in rows else np.full(n, np.datetime64("NaT", "ns")),
        "expected": _column(rows, expected), "observed": _column(rows, observed),
        # A Categorical stays one: to_findings gathers the few file names by code.
        "file": rows["_file"].array if "_file" in rows and isinstance(rows["_file"].dtype, pd.CategoricalDtype) else col("_file"),
        "line": rows["_line"].to_numpy() if "_line" in rows else 0, "detail": _column(rows, detail),
    }
    # Each column a Series of one index, the frame's: a Series of its own index each would be
    # aligned on it first (a union of indexes, a reindex a column: a rule's hits 0.7 -> 0.3 ms).
    index = pd.RangeIndex(n)
    return pd.DataFrame({k: _hit_column(k, v, index) for k, v in columns.items()}, index=index, copy=False)


def _hit_column(name: str, value: object, index: pd.RangeIndex) -> pd.Series:
    """A column of `hits`' frame. Object columns but for the times and line numbers: pandas 3 would
    infer a string dtype and turn None into NaN, even from an object array not in a Series."""
    if isinstance(value, pd.api.extensions.ExtensionArray):
        return pd.Series(value, index=index, copy=False)
    values = value if isinstance(value, np.ndarray) else np.full(len(index), value, dtype=object)
    return pd.Series(values, index=index, dtype=None if name in ("ts", "line") else object, copy=False)


def no_hits() -> pd.DataFrame:
    return pd.DataFrame(columns=HIT_COLUMNS)


def at_least(values: pd.Series) -> pd.Series:
    """'>= n' for each value (whole numbers, or ISO times)."""
    if pd.api.types.is_datetime64_any_dtype(values.dtype):
        return ">= " + iso(values)
    return ">= " + values.astype("Int64").astype(str)


def iso(values: pd.Series) -> pd.Series:
    """Each time as "YYYY-MM-DDTHH:MM:SS+00:00" (the second it falls in), NaN for a missing one:
    Arrow-backed text, so that a rule firing on millions of bets builds no Python string per time."""
    return text_series(iso_arrow(values, micro=False), values.index)


def after_gap(t: pd.DataFrame, gaps: pd.DataFrame | None) -> np.ndarray:
    """For each round (rows of `t` by table, in time order), whether a round of its table left out of
    the audit (`Bundle.gaps`, times known) was played between the row before and it (both times
    included: of two rounds at one time, either may have come first). A loop over the few tables
    with such a round, not the rows: each table's rounds are a run of rows, its gaps' times
    searched among theirs."""
    out = np.zeros(len(t), dtype=bool)
    if gaps is None or not len(gaps) or not len(t):
        return out
    tables = t["table_id"].astype(object).to_numpy()
    times = t["ts"].to_numpy(dtype="datetime64[ns]")
    starts = np.flatnonzero(np.r_[True, tables[1:] != tables[:-1]])
    ends = np.r_[starts[1:], len(t)]
    first_row = dict(zip(tables[starts], zip(starts, ends, strict=True), strict=True))
    for table, when in gaps.groupby("table_id", sort=False)["ts"]:
        if table not in first_row:
            continue
        lo, hi = first_row[table]
        gap = np.sort(when.to_numpy(dtype="datetime64[ns]"))
        own = times[lo:hi]
        # Gaps at or before each round, less those before the round before it: one or more between.
        up_to = np.searchsorted(gap, own, side="right")
        before_prev = np.searchsorted(gap, np.r_[own[:1], own[:-1]], side="left")
        out[lo + 1:hi] = (up_to - before_prev)[1:] > 0
    return out
