"""Typing and validation of raw cells against the log format, vectorised column by column.

`coerce` returns the typed rows that satisfy the contract and, for every row that does not, the
column, the reason and the cell as written: the loader quarantines those rows as LOG001.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from auditor.frames import (
    arrow, bools, coded, codes_in, first_words, fixed_width, in_words, is_arrow_text, is_text_categories, masked_numbers, text_array, text_bytes, text_offsets,
)
from auditor.loading.readers import JsonText
from auditor.schema import CARD_PATTERN, RANKS, SUITS, Column, Table

# Digits are ASCII: Python's \d also takes other scripts' digits ("١٢"), which no integer or time of
# the format holds (and Arrow refused to cast, ending the audit). Blanks are Python's \s, spelled out
# (the characters str.isspace() takes): pandas runs a pattern holding \s or \d through Python's re a
# cell at a time, and these through Arrow (1M cells: 0.23 s -> 0.02 s).
SPACE = "[\t-\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"
# An integral decimal ("3.0", as pandas writes a nullable integer column) holds an integer exactly and
# is accepted; "3.5" is not an integer and is quarantined.
INT_PATTERN = SPACE + r"*[+-]?[0-9]{1,18}(\.0*)?" + SPACE + "*"
PLAIN_INT = r"-?[0-9]{1,18}"  # the integers of INT_PATTERN as written, nothing to strip or rewrite
FLOAT_PATTERN = SPACE + r"*[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?" + SPACE + "*"
TS_PATTERN = r"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,9})?)?(Z|[+-][0-9]{2}(:?[0-9]{2})?)"  # ISO 8601 offsets: Z, ±hh, ±hhmm, ±hh:mm
TS_NO_OFFSET = r"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,9})?)?"
DATE_PATTERN = r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
TRUE = ("true", "1")
FALSE = ("false", "0")

STRING = "str"  # pandas 3: Arrow-backed, NaN for null, numpy bools from comparisons


@dataclass
class CellErrors:
    """Bad cells: positions into the raw frame, with column, reason and the raw value."""

    positions: np.ndarray
    column: str
    reason: str
    values: pd.Series


def _scalar_text(value: object) -> object:
    if isinstance(value, bool | np.bool_):
        return "true" if value else "false"
    if isinstance(value, dt.datetime):
        return value.isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, float) and value.is_integer():
        return repr(value)
    return str(value)


def as_text(series: pd.Series) -> pd.Series:
    """Cells as text (nulls kept); JSON and Parquet values are written the way CSV would hold them."""
    if series.dtype == object:
        series = series.map(_scalar_text, na_action="ignore")
    elif pd.api.types.is_datetime64_any_dtype(series.dtype):
        far = _out_of_range(series)
        if far.any():
            # Beyond what a calendar date can print: say the raw count the file holds.
            ticks = pd.Series(series.array.asi8, index=series.index).astype(STRING) + f" {series.dt.unit} since 1970-01-01"
            return series.where(~far).astype(STRING).where(~far, ticks)
    return series.astype(STRING)


def _fullmatch(text: pd.Series, pattern: str) -> pd.Series:
    """Which cells of `text` `pattern` matches whole (a missing cell: False). In a column of Arrow
    text, the cells a quicker test finds surely matching (`_surely_matching`) are not put to the
    expression; the others are, so the answer is always the expression's. A CSV month's 50M integer
    cells and 14M times took the expression (Arrow's RE2) 1.4 s and 0.9 s of a 9.2 s load."""
    sure = _surely_matching(arrow(text), pattern) if is_arrow_text(text) else None
    if sure is None:
        return text.str.fullmatch(pattern).fillna(False).astype(bool)
    undecided = ~sure & text.notna().to_numpy()
    if undecided.any():
        sure[undecided] = text[undecided].str.fullmatch(pattern).fillna(False).to_numpy(dtype=bool)
    return pd.Series(sure, index=text.index)


def _surely_matching(text: pa.Array, pattern: str) -> np.ndarray | None:
    """Cells of `text` that surely fullmatch `pattern` (a writable mask; False: not known), where
    there is a quicker test than the expression; None where there is none."""
    if pattern == PLAIN_INT:
        return _short_digits(text)
    if pattern == CARD_PATTERN:
        return _card_hands(text)
    if pattern in _ONE_SHAPE and _one_shape(text, pattern):
        return bools(text.is_valid())
    return None


def _any_non_digit(values: np.ndarray) -> bool:
    """Whether any of these bytes is not an ASCII digit: a byte below "0" wraps around past 9 as
    unsigned, so one comparison tells."""
    return bool(((values - np.uint8(ord("0"))) > 9).any())


def _short_digits(text: pa.Array) -> np.ndarray:
    """Cells of 1 to 18 ASCII digits (each matches PLAIN_INT; a cell with a sign, or anything else,
    is left to the expression). Where the column's bytes are all digits (nearly every column of
    integers: no sign), told from the cells' lengths alone: 4M cells 25-70 -> some 10 ms."""
    if _any_non_digit(text_bytes(text)):
        digits = pc.and_(pc.ascii_is_decimal(text), pc.less_equal(pc.binary_length(text), 18))
        return bools(digits)
    lengths = np.diff(text_offsets(text))
    short = (lengths >= 1) & (lengths <= 18)
    if text.null_count:
        short &= bools(text.is_valid())
    return short


# Whether two bytes, a rank then a suit, are a card of the format: looked up by the 16-bit number
# they make read little-endian (the rank its low byte).
_CARD = np.zeros(1 << 16, dtype=bool)
for _rank in RANKS:
    for _suit in SUITS:
        _CARD[ord(_rank) | ord(_suit) << 8] = True


def _card_hands(text: pa.Array) -> np.ndarray:
    """Cells that match CARD_PATTERN ("9S 8H", "TC 5D TH"): 5 or 8 bytes, a card, a space, a card,
    and for 8 a space and a card, each card a rank and a suit of the format (a writable mask). Each
    cell's first eight bytes are read as one word, where they begin (a two-card hand's last three
    are the next cell's, and never looked at), and its cards and spaces read from the word's bytes
    in place (`in_words`): 1M hands 45-60 -> 25-40 ms, where Arrow's RE2 ran the expression over
    every hand."""
    if not len(text):
        return np.zeros(0, dtype=bool)
    words, lengths = first_words(text)
    three = lengths == 8
    sure = three | (lengths == 5)
    sure &= _CARD[in_words(words, 0, "<u2").astype(np.intp)]
    sure &= in_words(words, 2, "u1") == ord(" ")
    sure &= _CARD[in_words(words, 3, "<u2").astype(np.intp)]
    sure &= ~three | ((in_words(words, 5, "u1") == ord(" ")) & _CARD[in_words(words, 6, "<u2").astype(np.intp)])
    if text.null_count:  # a missing cell's slot may hold bytes
        sure &= bools(text.is_valid())
    return sure


# Patterns whose text has one layout a column: digits where the pattern takes any digit, every other
# character fixed. A column of one width whose cells are all its first cell with other digits, that
# first cell matching, matches whole: the pattern takes every digit alike ([0-9]) and tells its
# alternatives apart by the other characters alone.
_ONE_SHAPE = frozenset({TS_PATTERN, TS_NO_OFFSET, DATE_PATTERN})
_SHAPE_ROWS = 1 << 14  # cells compared a block at a time, the block in the CPU's cache


def _one_shape(text: pa.Array, pattern: str) -> bool:
    """Whether every present cell of `text` is its first with other digits, that first matching
    `pattern` (one of _ONE_SHAPE); False when not, or when no cell is present."""
    width = fixed_width(text)
    present = len(text) - text.null_count
    data = text_bytes(text)
    # Missing cells hold no bytes (else their bytes would be in the way of the rows of `width`).
    if width is None or len(data) != present * width:
        return False
    rows = data.reshape(present, width)
    first = rows[0]
    if first.max() >= 0x80 or re.fullmatch(pattern, first.tobytes().decode("ascii")) is None:
        return False
    digit = (first >= ord("0")) & (first <= ord("9"))
    fixed = first[~digit]
    for start in range(0, present, _SHAPE_ROWS):
        block = rows[start : start + _SHAPE_ROWS]
        if _any_non_digit(block[:, digit]) or (block[:, ~digit] != fixed).any():
            return False
    return True


def _every_cell(ok: pd.Series, text: pd.Series) -> bool:
    """Whether every cell of `text` but the missing ones is `ok`: a column written as the format
    writes it, whose text needs no copy stripped, blanked or rewritten before it is converted (each
    such copy of 4M cells is 100-300 MB more at a table's peak)."""
    return bool((ok | text.isna()).all())


def _parse_int(raw: pd.Series) -> tuple[pd.Series, pd.Series, str]:
    if pd.api.types.is_integer_dtype(raw.dtype) and not pd.api.types.is_bool_dtype(raw.dtype):
        if pd.api.types.is_unsigned_integer_dtype(raw.dtype) and raw.dtype.itemsize == 8:
            # A uint64 past int64 would wrap to a negative amount when cast.
            bad = (raw > np.iinfo(np.int64).max).fillna(False).astype(bool)
            if bad.any():
                return raw.where(~bad).astype("Int64"), bad, "an integer beyond the 64-bit range"
        # Already integers (Parquet): keep the column as it is, no copy.
        return raw, pd.Series(False, index=raw.index), ""
    if pd.api.types.is_float_dtype(raw.dtype):
        # A float holds whole numbers no int64 can (1e308, infinity): a bad cell, not a failed cast.
        whole = (raw == np.floor(raw)).fillna(False).astype(bool)
        fits = ((raw >= -(2.0**63)) & (raw < 2.0**63)).fillna(False).astype(bool)
        bad = raw.notna() & ~(whole & fits)
        reason = np.where(whole, "an integer beyond the 64-bit range", "not a whole number")
        return raw.where(~bad).astype("Int64"), bad, reason  # type: ignore[return-value]
    text = as_text(raw)
    if _every_cell(_fullmatch(text, PLAIN_INT), text):  # as the format writes them: cast as they are
        return _exact_ints(text_array(text), raw.index), pd.Series(False, index=raw.index), ""
    ok = _fullmatch(text, INT_PATTERN)
    bad = text.notna() & ~ok
    digits = text.where(ok).str.strip()
    if digits.str.contains(".", regex=False).any():  # "3.0": the integer before the point
        digits = digits.str.replace(r"\.0*$", "", regex=True)
    if digits.str.startswith("+").any():  # Arrow's cast takes "-5" but not "+5"
        digits = digits.str.lstrip("+")
    return _exact_ints(pa.array(digits, from_pandas=True), raw.index), bad, "not an integer of at most 18 digits"


def _exact_ints(digits: pa.Array | pa.ChunkedArray | None, index: pd.Index) -> pd.Series:
    """Text of whole numbers of at most 18 digits (and nulls) as a nullable int64 column, cast by
    Arrow: pandas' to_numeric goes through float64 when there are nulls and rounds large amounts."""
    assert digits is not None  # text, as `as_text` makes it
    ints = digits.cast(pa.int64())
    mask = bools(ints.is_null())
    return pd.Series(pd.arrays.IntegerArray(ints.fill_null(0).to_numpy(), mask), index=index)  # never through float64


def _parse_float(raw: pd.Series) -> tuple[pd.Series, pd.Series, object]:
    if pd.api.types.is_numeric_dtype(raw.dtype) and not pd.api.types.is_bool_dtype(raw.dtype):
        values, bad = raw.astype("float64"), pd.Series(False, index=raw.index)
    else:
        text = as_text(raw)
        ok = _fullmatch(text, FLOAT_PATTERN)
        if raw.dtype == object and not _every_cell(ok, text):
            # A JSON number past a float's range (1e400), read line by line, is Python's infinity,
            # whose text ("inf") is no number: judged as the number it is, as CSV's "1e400" is.
            ok |= raw.map(lambda v: isinstance(v, float) and math.isinf(v), na_action="ignore").fillna(False).astype(bool)
        bad = text.notna() & ~ok
        # Stripped first: to_numeric takes no blank but an ASCII space, and would make "\xa05" a silent null.
        values = pd.to_numeric(text.where(ok).str.strip(), errors="coerce").astype("float64")
    # Parquet holds infinities, and "1e999" is one: no measurement is infinite, and JSON cannot write it.
    infinite = pd.Series(np.isinf(values.to_numpy()), index=raw.index) & ~bad
    if not infinite.any():
        return values, bad, "not a number"
    return values.where(~infinite), bad | infinite, np.where(infinite, "not a finite number", "not a number")


def _parse_bool(raw: pd.Series) -> tuple[pd.Series, pd.Series, str]:
    if pd.api.types.is_bool_dtype(raw.dtype):
        return raw, pd.Series(False, index=raw.index), ""
    text = as_text(raw)
    is_true = text.isin(TRUE).fillna(False).astype(bool)
    is_false = text.isin(FALSE).fillna(False).astype(bool)
    if not _every_cell(is_true | is_false, text):  # blanks or capitals: judged as stripped, in lower case
        text = text.str.strip().str.lower()
        is_true = text.isin(TRUE).fillna(False).astype(bool)
        is_false = text.isin(FALSE).fillna(False).astype(bool)
    bad = text.notna() & ~is_true & ~is_false
    values = pd.Series(pd.NA, index=raw.index, dtype="boolean")
    values[is_true] = True
    values[is_false] = False
    return values, bad, "not a boolean (true/false)"


# Parquet holds times far beyond the calendar Python and pandas can print or compare in nanoseconds
# (years past 9999): such a cell is a bad cell, not a crash of the report.
EARLIEST, LATEST = pd.Timestamp("1678-01-01"), pd.Timestamp("2261-12-31 23:59:59")
OUT_OF_RANGE = "a time outside the years 1678-2261"
NS_PER_TICK = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}  # the units Arrow and pandas hold times in


def _out_of_range(values: pd.Series) -> pd.Series:
    """Times before EARLIEST or after LATEST (missing ones are not), compared as the integers of the
    column's unit: pandas compares 4M times with a timestamp at ~13 ms, the integers at ~2."""
    tz = getattr(values.dtype, "tz", None)
    lo, hi = (EARLIEST.tz_localize(tz), LATEST.tz_localize(tz)) if tz else (EARLIEST, LATEST)
    times = values.array
    if not isinstance(times, pd.arrays.DatetimeArray):
        return ((values < lo) | (values > hi)).fillna(False).astype(bool)
    return pd.Series(ticks_out_of_range(times.asi8, times.unit, lo, hi), index=values.index)


def ticks_out_of_range(ticks: np.ndarray, unit: str, lo: pd.Timestamp = EARLIEST, hi: pd.Timestamp = LATEST) -> np.ndarray:
    """Which times, as integers of `unit` since 1970 (the smallest int64: no time, never out of
    range), fall before `lo` or after `hi` (UTC, or the times' own zone when they carry one)."""
    ns_per_tick = NS_PER_TICK[unit]
    low, high = -(-lo.value // ns_per_tick), hi.value // ns_per_tick
    # The column's extremes first (nearly every column's times are within the years): two passes, no
    # mask (4M times: 4.5 -> 2.8 ms); a missing time (the smallest int64) sends the check on.
    if not len(ticks) or (ticks.min() >= low and ticks.max() <= high):
        return np.zeros(len(ticks), dtype=bool)
    return (ticks != np.iinfo(np.int64).min) & ((ticks < low) | (ticks > high))


def _parse_timestamp(raw: pd.Series) -> tuple[pd.Series, pd.Series, str]:
    if isinstance(raw.dtype, pd.DatetimeTZDtype):
        values = raw.dt.tz_convert("UTC")
        far = _out_of_range(values)
        return (values.where(~far) if far.any() else values), far, OUT_OF_RANGE
    if pd.api.types.is_datetime64_dtype(raw.dtype):
        return (
            pd.Series(pd.NaT, index=raw.index, dtype="datetime64[ns, UTC]"),
            raw.notna(),
            "timestamp without a time zone",
        )
    text = as_text(raw)
    ok = _fullmatch(text, TS_PATTERN)
    if not _every_cell(ok, text):  # blanks around a time, or no time: judged as stripped
        text = text.str.strip()
        ok = _fullmatch(text, TS_PATTERN)
    values = _iso_times(text, ok)
    parsed = values.notna()
    bad = text.notna() & ~(ok & parsed)
    far = _out_of_range(values) & ~bad
    bad = bad | far
    if not bad.any():
        return values, bad, "not an ISO 8601 timestamp"
    # Each bad cell's reason, worked out for the bad cells only (a clean column of 1M times costs none).
    no_offset = pd.Series(False, index=text.index)
    no_offset[bad] = _fullmatch(text[bad], TS_NO_OFFSET)
    reason = np.where(far, OUT_OF_RANGE, np.where(no_offset, "timestamp without a UTC offset", "not an ISO 8601 timestamp"))
    return values.where(~bad), bad, reason  # type: ignore[return-value]


def _iso_times(text: pd.Series, ok: pd.Series) -> pd.Series:
    """The cells `ok` marks (text of TS_PATTERN) as UTC times, the others missing. Arrow's ISO 8601
    cast reads them without a Python string per cell, where pandas' to_datetime made one (4M times:
    1.1 s and some 300 MB of strings -> 0.1 s); it reads the same forms the pattern lets through
    (offsets Z, ±hh, ±hhmm, ±hh:mm, a space or T) to the same instants. It refuses the whole column
    for one cell it cannot read (30 February, 24:00, a 60th second, an offset past 23:59, a fraction
    finer than a microsecond), and then the column is read by pandas, whose answer is the reference:
    a cell it refuses too is a bad cell, and nanoseconds are kept."""
    text_ok = text_array(text if _every_cell(ok, text) else text.where(ok))
    if text_ok is not None and text_ok.null_count < len(text_ok):
        try:
            times = pc.cast(text_ok, pa.timestamp("us", tz="UTC"))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            pass
        else:
            return pd.Series(times.to_pandas().array, index=text.index, copy=False)
    return pd.to_datetime(text.where(ok), format="ISO8601", utc=True, errors="coerce")


def _parse_date(raw: pd.Series) -> tuple[pd.Series, pd.Series, str]:
    if pd.api.types.is_datetime64_any_dtype(raw.dtype):
        values = (raw.dt.tz_localize(None) if isinstance(raw.dtype, pd.DatetimeTZDtype) else raw).dt.normalize()
        far = _out_of_range(values)
        return (values.where(~far) if far.any() else values), far, OUT_OF_RANGE
    text = as_text(raw).str.strip()
    ok = _fullmatch(text, DATE_PATTERN)
    values = pd.to_datetime(text.where(ok), format="%Y-%m-%d", errors="coerce")
    bad = text.notna() & ~(ok & values.notna())
    return (values.where(~bad) if bad.any() else values), bad, "not a date YYYY-MM-DD"


# What a reader gives for a structure: a JSON object or array (`JsonText`), a Parquet struct (dict),
# list (array) or map (list of pairs).
_STRUCTURES = (JsonText, dict, list, tuple, np.ndarray)


def _structures(raw: pd.Series) -> pd.Series:
    """Which cells hold a structure rather than a value: only a column of Python objects can (a
    column of text, numbers or categories cannot), one read line by line or from an odd file."""
    if raw.dtype != object:
        return pd.Series(False, index=raw.index)
    found = np.fromiter((isinstance(v, _STRUCTURES) for v in raw.to_numpy()), dtype=bool, count=len(raw))
    return pd.Series(found, index=raw.index)


def _parse_str(raw: pd.Series, column: Column) -> tuple[pd.Series, pd.Series, str]:
    """Text as text. A column held as codes (`Column.held_as_codes`) that the reader gave as
    categories of text (Parquet) stays those categories: any text is a lawful value, so there is
    nothing to look up. Any other column is text whatever scalar the file held (an id a writer
    stored as a number or as a dictionary): the rules read ids as text. A structure is not a value:
    its text (`{'x': 'P2'}`) would pass for an id, so it is a bad cell."""
    if column.held_as_codes and is_text_categories(raw):
        return raw, pd.Series(False, index=raw.index), ""
    bad = _structures(raw)
    text = as_text(raw)
    return (text.where(~bad) if bad.any() else text), bad, "not text but a structure (a JSON object or array; a Parquet struct, list or map)"


def _enum_cells(raw: pd.Series) -> pd.Series:
    """An enum column's cells: as read when the reader gave categories (Parquet text in a big file),
    compared a category at a time rather than decoded to text a row at a time; otherwise as text."""
    return raw if isinstance(raw.dtype, pd.CategoricalDtype) else as_text(raw)


def _parse_enum(raw: pd.Series, column: Column) -> tuple[pd.Series, pd.Series, str]:
    """An enum column as a Categorical of the format's names (a value outside them is a bad cell,
    and missing among the values): a byte a row instead of its text, compared by code. The rules
    compare enums with scalars or through `frames.equal`/`codes_in`; 13M rows of the benchmark:
    whole audit 4.55-5.03 -> 4.08-4.36 s, peak 3.2-3.5 -> 2.8-3.0 GB (four alternating runs).
    Cells read as categories (Parquet text) are looked up a category at a time (`_enum_cells`)."""
    text = _enum_cells(raw)
    names = list(column.values)
    codes = codes_in(text, names)
    if isinstance(text.dtype, pd.CategoricalDtype) and text.cat.categories.isin(names).all():
        bad = np.zeros(len(text), dtype=bool)  # every name read is the format's: no cell can be bad
    else:
        bad = text.notna().to_numpy() & (codes < 0)
    return coded(codes, names, text.index), pd.Series(bad, index=text.index), "not one of " + "|".join(names)


def _parse_cards(raw: pd.Series) -> tuple[pd.Series, pd.Series, str]:
    text = as_text(raw)
    bad = text.notna() & ~_fullmatch(text, CARD_PATTERN)
    return (text.where(~bad) if bad.any() else text), bad, "malformed cards (2 or 3 of rank A23456789TJQK + suit SHDC, space separated)"


def parse_column(raw: pd.Series, column: Column) -> tuple[pd.Series, pd.Series, object]:
    kind = column.type
    if kind == "int":
        return _parse_int(raw)
    if kind == "float":
        return _parse_float(raw)
    if kind == "bool":
        return _parse_bool(raw)
    if kind == "timestamp":
        return _parse_timestamp(raw)
    if kind == "date":
        return _parse_date(raw)
    if kind == "enum":
        return _parse_enum(raw, column)
    if kind == "cards":
        return _parse_cards(raw)
    return _parse_str(raw, column)


def _null_frame(column: Column, n: int, index: pd.Index) -> pd.Series:
    dtype = {
        "int": "Int64",
        "float": "float64",
        "bool": "boolean",
        "timestamp": "datetime64[ns, UTC]",
        "date": "datetime64[ns]",
    }.get(column.type, STRING)
    return pd.Series(pd.NA if dtype not in ("float64",) else np.nan, index=index, dtype=dtype)


def _beyond(numbers: tuple[np.ndarray, np.ndarray | None], bound: float, below: bool) -> np.ndarray:
    data, missing = numbers
    out = data < bound if below else data > bound
    return out & ~missing if missing is not None else out


def coerce(table: Table, raw: pd.DataFrame | dict[str, pd.Series], consume: bool = False) -> tuple[pd.DataFrame, list[CellErrors]]:
    """Type every column of `table`; returns the typed frame (all rows) and the bad cells. `raw`:
    the cells as read, a frame or its columns (a Series each, of one length). `consume`: `raw` is
    a dict of columns the caller holds no other reference to, each taken out of it once typed, so
    that a table's cells as read and as typed are not all held at once (a CSV file's text columns
    are several times their typed size: 4M wheel bets, 974 -> 732 MiB of heap at the peak). Taken
    out of a dict, not deleted from a frame: each deletion rebuilt the frame's blocks and its Arrow
    index of names, a dozen calls into Arrow a column that the load's thread waited on for the
    interpreter's lock held by the rules' (the month's 107 columns: 118-143 ms, 35-45 of it CPU)."""
    if consume and not isinstance(raw, dict):
        raise TypeError("coerce(consume=True) takes the columns as a dict, which it empties")
    columns = raw if isinstance(raw, dict) else dict(raw.items())
    n = len(raw) if isinstance(raw, pd.DataFrame) else len(next(iter(raw.values()), ()))
    index = pd.RangeIndex(n)
    for name, values in columns.items():
        if not values.index.equals(index):  # as reset_index(drop=True) would
            columns[name] = values.reset_index(drop=True)
    out: dict[str, pd.Series] = {}
    errors: list[CellErrors] = []
    status = None
    settled: pd.Series | None = None  # rows whose status is settled, worked out once for every column required then
    if "status" in columns:
        status = _enum_cells(columns["status"])
    for column in table.columns:
        if column.name in columns:
            cells = columns[column.name]
        elif column.req == "settled" and status is not None:
            # A column required for settled rows, left out of the file, is missing from every one of
            # them: typed and checked as if each cell were empty (as for a partition without it).
            cells = pd.Series(None, index=index, dtype=object)
        else:
            out[column.name] = _null_frame(column, n, index)
            continue
        values, bad, reason = parse_column(cells, column)
        bad = bad.fillna(False).astype(bool) if isinstance(bad, pd.Series) else bad
        if bad.any():
            reasons = pd.Series(reason, index=index)[bad] if not isinstance(reason, str) else None
            if reasons is None:
                errors.append(CellErrors(np.flatnonzero(bad.to_numpy()), column.name, str(reason), cells[bad]))
            else:
                for why, idx in reasons.groupby(reasons).groups.items():
                    pos = index.get_indexer(idx)
                    errors.append(CellErrors(pos, column.name, str(why), cells.iloc[pos]))
        any_bad = bool(bad.any())
        checked = values.where(~bad) if any_bad else values
        if column.type in ("int", "float"):
            numbers = masked_numbers(checked)  # bad cells are missing in `checked`: never beyond a bound
            if column.name.endswith("_cents") and not column.signed:
                neg = _beyond(numbers, 0, below=True)
                if neg.any():
                    errors.append(CellErrors(np.flatnonzero(neg), column.name, "negative amount of money", cells[neg]))
            if column.minimum is not None:
                low = _beyond(numbers, column.minimum, below=True)
                if low.any():
                    errors.append(CellErrors(np.flatnonzero(low), column.name, f"below {column.minimum:g}", cells[low]))
            if column.maximum is not None:
                high = _beyond(numbers, column.maximum, below=False)
                if high.any():
                    errors.append(CellErrors(np.flatnonzero(high), column.name, f"above {column.maximum:g}", cells[high]))
        # Only a column that can be required is checked for missing values (an optional one never is).
        if column.req == "req" or (column.req == "settled" and status is not None):
            missing = cells.isna() & ~bad if any_bad else cells.isna()
            if column.req == "settled" and status is not None:
                if settled is None:
                    settled = status.eq("settled").fillna(False).astype(bool)
                missing = missing & settled
            if missing.any():
                errors.append(CellErrors(np.flatnonzero(missing.to_numpy()), column.name, "required value missing", cells[missing]))
        out[column.name] = checked
        if consume and column.name in columns:
            del columns[column.name], cells
    return pd.DataFrame(out, index=index, copy=False), errors


def finalize_dtypes(frame: pd.DataFrame, table: Table) -> pd.DataFrame:
    """Required columns of clean rows have no nulls: give them plain numpy dtypes for fast checks."""
    for column in table.columns:
        if column.req != "req":
            continue
        if column.type == "int" and frame[column.name].dtype != "int64":
            frame[column.name] = frame[column.name].astype("int64")
        elif column.type == "bool" and frame[column.name].dtype != bool:
            frame[column.name] = frame[column.name].astype(bool)
    return frame
