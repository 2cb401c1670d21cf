"""Raw readers: bytes on disk to a frame of untyped cells, with the line number of every row.

Each reader returns every row it could split into cells, and a list of lines it could not (wrong
number of cells, bad UTF-8, not JSON). Typing and validation happen in `coerce`; nothing here drops
a row without recording it.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import re
import zlib
from array import array
from collections import Counter, deque
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.json as pajson
import pyarrow.parquet as pq

from auditor.frames import bools, masked_integers, text_bytes, text_categories, text_offsets


@dataclass
class LineError:
    line: int
    reason: str
    text: str = ""


@dataclass
class RawTable:
    """Cells as read, one row per parsed line; `lines` holds each row's line number (1 = first data row)."""

    frame: pd.DataFrame
    lines: np.ndarray
    errors: list[LineError] = field(default_factory=list)

    @property
    def rows_read(self) -> int:
        return len(self.frame) + len(self.errors)


class UnreadableFile(Exception):
    """The file cannot be read at all (not the declared format, truncated, empty). `rows`: how many
    rows it holds, where that is known though its rows cannot be read (a Parquet file's footer)."""

    def __init__(self, message: str, rows: int | None = None) -> None:
        super().__init__(message)
        self.rows = rows


def file_format(path: Path) -> str:
    name = path.name.lower()
    if path.is_dir():
        return "parquet_dir"
    for suffix in (".csv.gz", ".csv", ".jsonl.gz", ".jsonl", ".parquet"):
        if name.endswith(suffix):
            return suffix.lstrip(".")
    raise UnreadableFile(f"unknown file type: {path.name}")


# What reading a file can raise for what the file holds. TypeError/OverflowError: a column of a type
# pandas cannot hold (an unknown time zone, ...).
READ_ERRORS = (OSError, EOFError, zlib.error, pa.ArrowException, ValueError, UnicodeDecodeError, TypeError, OverflowError)


def read_raw(
    path: Path, text_columns: list[str] | None = None, int_columns: list[str] | None = None,
    category_columns: list[str] | None = None, required_columns: Collection[str] = (), float_columns: Collection[str] = (),
    path_columns: Mapping[str, str | None] | None = None, format_columns: Collection[str] | None = None, bool_columns: Collection[str] = (),
) -> RawTable:
    """`text_columns`: columns the format holds as text (ids, enums, times), read as strings as written;
    `int_columns`: the integers, read as written (JSONL); `category_columns`: the enums and the text
    held as codes (`Column.held_as_codes`), read from Parquet as categories where the file holds them
    as text; `required_columns`: those a file must have (a JSONL file's keys: `_keys_absent`);
    `float_columns`: the measurements (a Parquet NaN among them: `parquet_frame`); `bool_columns`: the
    booleans (with the integers and numbers, their types told pyarrow in JSONL: `_read_rest`); `path_columns`:
    a Parquet part's columns its directories name (`partition_values`); `format_columns`: all the
    format's columns (the only ones a Parquet file is read for, and pyarrow's reading of JSONL keeps)."""
    fmt = file_format(path)
    try:
        if fmt in ("csv", "csv.gz"):
            return read_csv(path, format_columns)
        if fmt in ("jsonl", "jsonl.gz"):
            return read_jsonl(path, text_columns, int_columns, required_columns, format_columns, float_columns, bool_columns)
        if fmt == "parquet":
            return read_parquet(path, category_columns, float_columns, path_columns, format_columns)
    except UnreadableFile:
        raise
    except READ_ERRORS as exc:
        raise UnreadableFile(f"{type(exc).__name__}: {exc}") from exc
    raise UnreadableFile(f"{path.name}: a directory is read with read_parquet_file per part")


# A CSV or JSONL file is held in memory whole (several times over while it is typed): past this size
# the audit would exhaust memory, and a few megabytes of gzip can claim to hold terabytes. Bigger
# tables belong in Parquet partitions (`--by-partition`); the limit can be raised for a bigger machine.
MAX_TEXT_BYTES = 2 << 30


# Parquet compresses a column of one repeated value to almost nothing: a file of 1.4 MB can hold
# 200M rows, which no audit in memory survives. A month of a busy casino is ~5M rows in its largest
# table; a file beyond this many rows belongs in partitions.
MAX_PARQUET_ROWS = 50_000_000


def _limit(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    if not value.isdigit():
        raise UnreadableFile(f"{name}={value!r} is not a whole number")
    return int(value)


# Reading an enum column as categories saves ~18 ns a row and costs ~1.2 ms a file (pandas builds
# and compares each file's categories, and stacks them): worth it from some 65k rows a file. A month
# in one file a table gains (its 4M bets); a month in a file a day, of 4k-130k rows, lost 7-10 %.
DICTIONARY_ROWS = 100_000

# pyarrow pre-buffers by default: it reads every column chunk of the file into memory before
# decoding, which pays on object stores (fewer, larger requests) and holds the file's bytes beside
# its decoded table until the reader is gone, through the conversion to pandas. A bundle is local
# files. 2026-12-05, alternating pairs of fresh CLI audits: the month with UUID ids (213 MB of wheel
# bets) peak 2.65-2.92 -> 2.50-2.68 GB, page faults 623-691k -> 584-628k, faster in 5 of 6 pairs
# (8.1-11.0 -> 7.7-10.0 s); the month as it is (66 MB) and split by day, the same times and peaks.
PRE_BUFFER = False


def open_parquet(path: Path, categories: list[str] | None = None) -> pq.ParquetFile:
    """The file opened (its footer read), refused (UnreadableFile) when the footer claims more rows
    than AUDITOR_MAX_PARQUET_ROWS. `categories`: columns to read as Arrow dictionaries (pandas
    categories) where the file holds them as text, top-level, in a file of DICTIONARY_ROWS or more.

    Read without pre-buffering (`PRE_BUFFER`): each column chunk's bytes are read as it is decoded
    and let go after, not the whole file's held until the table is converted."""
    limit = _limit("AUDITOR_MAX_PARQUET_ROWS", MAX_PARQUET_ROWS)
    parquet = pq.ParquetFile(path, pre_buffer=PRE_BUFFER)
    rows = parquet.metadata.num_rows
    if rows > limit:
        raise UnreadableFile(f"{rows:,} rows, more than {limit:,} (AUDITOR_MAX_PARQUET_ROWS): not read; "
                             "split the table into Parquet partitions and audit it --by-partition")
    if rows < DICTIONARY_ROWS:
        return parquet
    schema = parquet.schema_arrow
    # Arrow asks for a dictionary by name and fails on a name the file lacks; a nested or repeated
    # name is left to the ordinary read (and to `parquet_frame`, which refuses repeated names).
    text = [n for n in categories or () if schema.get_field_index(n) >= 0
            and (pa.types.is_string(t := schema.field(n).type) or pa.types.is_large_string(t))]
    if text:
        parquet = pq.ParquetFile(path, metadata=parquet.metadata, read_dictionary=text, pre_buffer=PRE_BUFFER)
    return parquet


def _open_bytes(path: Path) -> bytes:
    limit = _limit("AUDITOR_MAX_TEXT_BYTES", MAX_TEXT_BYTES)
    too_big = (f"more than {limit:,} bytes of text (AUDITOR_MAX_TEXT_BYTES): not read; "
               "split the table into Parquet partitions and audit it --by-partition")
    if path.name.lower().endswith(".gz"):
        with gzip.open(path, "rb") as fh:
            data = fh.read(limit + 1)  # never more than the limit in memory, whatever the file claims
    else:
        if path.stat().st_size > limit:
            raise UnreadableFile(too_big)
        data = path.read_bytes()
    if len(data) > limit:
        raise UnreadableFile("decompresses to " + too_big)
    return data


def _end_of_text(data: bytes) -> int:
    """Where `data` ends without its trailing line ends: `len(data.rstrip(b"\r\n"))` without the copy
    of the whole text that rstrip makes (a gigabyte held twice while the file is parsed)."""
    tail = data[-4096:]
    kept = tail.rstrip(b"\r\n")
    return len(data) - len(tail) + len(kept) if kept or len(tail) == len(data) else len(data.rstrip(b"\r\n"))


def _is_utf8(data: bytes | memoryview | np.ndarray) -> bool:
    """Whether `data` is valid UTF-8, checked by Arrow in place (a 300 MB text in about 10 ms)."""
    text = pa.Array.from_buffers(pa.large_string(), 1, [None, pa.py_buffer(np.array([0, len(data)], dtype=np.int64)), pa.py_buffer(data)])
    try:
        text.validate(full=True)
    except pa.ArrowInvalid:
        return False
    return True


# Bytes looked at side by side a block at a time, the blocks' masks made once and filled again for
# each (`out=`): they stay in the CPU's cache, and no block's mask is fresh memory (253 MB with CRLF
# line ends: its lone returns 117 ms in blocks of 16 MiB, 260 ms in blocks of 1 MiB each mask
# allocated anew, 35 ms so).
_SCAN_BLOCK = 1 << 20


def _has_blank_line(data: bytes, end: int) -> bool:
    """Whether `data[:end]` holds an empty line (LF or CRLF): pyarrow skips one, and numbers the rows
    after it one line too early. Line ends side by side are looked for by numpy a block at a time
    (each block with the two bytes after it: a blank line across its edge), LF then CR then LF only
    where the text holds a CR at all. 253 MB: Python's regular expression 138 ms, two `bytes.find`
    passes 416 ms, this 34 ms (with CRLF line ends 50 ms)."""
    view = np.frombuffer(data, dtype=np.uint8, count=end)
    returns = data.find(b"\r", 0, end) >= 0
    newline, mask = np.empty(_SCAN_BLOCK + 2, dtype=bool), np.empty(_SCAN_BLOCK + 2, dtype=bool)
    for start in range(0, end, _SCAN_BLOCK):
        part = view[start : start + _SCAN_BLOCK + 2]
        n = len(part)
        line_end = np.equal(part, ord("\n"), out=newline[:n])
        if np.logical_and(line_end[:-1], line_end[1:], out=mask[: n - 1]).any():
            return True
        if returns and n > 2:
            between = np.equal(part[1:-1], ord("\r"), out=mask[: n - 2])
            np.logical_and(between, line_end[:-2], out=between)
            if np.logical_and(between, line_end[2:], out=between).any():
                return True
    return False


def _has_lone_return(data: bytes, end: int) -> bool:
    """Whether `data[:end]` holds a carriage return that does not end its line (a line of the format
    ends in LF or CRLF; a return at `end` ends none). pyarrow ends a row at one: the row would be cut
    in two and every row after it named one line too far. A text without any return is told by one
    `find` (287 MB: 9 ms); one with CRLF line ends (as Python's csv module writes them) by numpy a
    block at a time from its first return, each block with the byte after it (Python's regular
    expression: 253 MB with CRLF, 137 ms; this 35 ms)."""
    first = data.find(b"\r", 0, end)
    if first < 0:
        return False
    if data[end - 1] == ord("\r"):
        return True
    view = np.frombuffer(data, dtype=np.uint8, count=end)
    is_return, not_newline = np.empty(_SCAN_BLOCK, dtype=bool), np.empty(_SCAN_BLOCK, dtype=bool)
    for start in range(first, end, _SCAN_BLOCK):
        part = view[start : start + _SCAN_BLOCK + 1]
        n = len(part) - 1
        returns = np.equal(part[:-1], ord("\r"), out=is_return[:n])
        if np.logical_and(returns, np.not_equal(part[1:], ord("\n"), out=not_newline[:n]), out=returns).any():
            return True
    return False


def csv_problem(exc: csv.Error) -> str:
    """Why Python's csv refused a line, said for the inspector: its own words for a carriage return
    inside an unquoted cell ("new-line character seen in unquoted field - do you need to open the
    file in universal-newline mode?") speak of how a program opens a file."""
    if "new-line character" in str(exc):
        return "malformed CSV: a carriage return inside an unquoted cell (a line ends in LF or CRLF)"
    if "expected after" in str(exc):  # "',' expected after '\"'"
        return "malformed CSV: text after the quote that closes a quoted cell (a quote inside a quoted cell is written twice)"
    return f"malformed CSV: {exc}"


def _open_text(path: Path) -> bytes:
    """`_open_bytes` without a UTF-8 byte-order mark."""
    data = _open_bytes(path)
    return data[3:] if data.startswith(b"\xef\xbb\xbf") else data


def repeated_names(names: list[str]) -> list[str]:
    """Column names a file gives more than once: which of its columns is meant cannot be told."""
    return sorted(n for n, k in Counter(names).items() if k > 1)


def _refuse_repeated(names: list[str]) -> None:
    """A Parquet file whose columns repeat a name is unreadable (`repeated_names`)."""
    repeated = repeated_names(names)
    if repeated:
        raise UnreadableFile(f"columns repeat a name: {repeated[:10]}")


def _header(data: bytes) -> list[str]:
    newline = data.find(b"\n")
    first = (data[:newline] if newline >= 0 else data).rstrip(b"\r")  # not split(): it copies the rest
    if first.startswith(b"\xef\xbb\xbf"):
        first = first[3:]
    try:
        text = first.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableFile(f"header is not UTF-8 text: {exc}") from exc
    if text.count('"') % 2:
        # pyarrow would read the names on into the next lines, a record short of its rows' cells.
        raise UnreadableFile("header row: a quote left open (a column name across lines cannot be told from a broken one)")
    try:
        names = next(csv.reader([text], strict=True), [])
    except csv.Error as exc:  # a carriage return inside a name, text after a closing quote, a name past csv's field size limit
        raise UnreadableFile(f"header row: {csv_problem(exc)}") from exc
    if not names or all(not n.strip() for n in names):
        raise UnreadableFile("no header row")
    repeated = repeated_names(names)
    if repeated:
        raise UnreadableFile(f"header repeats a column name: {repeated[:10]}")
    return names


def read_csv(path: Path, format_columns: Collection[str] | None = None) -> RawTable:
    """`format_columns`: the format's columns, the only ones read into the table (None: every one).
    A column the format does not list is ignored, never made a column: a 2.6 MB file of 300,000
    columns took the audit 195 s and 3 GB as a table of them all. Each line's cells are still
    counted against the header's."""
    data = _open_bytes(path)
    if not data or data.isspace():
        raise UnreadableFile("the file is empty (no header row)")
    names = _header(data)
    # At least one column, so that pyarrow counts the rows of a file with none of the format's
    # (refused as it lacks them, its rows counted as read): given none, it would read every one.
    kept = [n for n in names if format_columns is None or n in format_columns] or names[:1]
    end = _end_of_text(data)
    # Bad UTF-8 is looked for first: in a row pyarrow reports as bad, it fails pyarrow's own handler,
    # which prints a traceback on stderr before the read fails.
    if not _has_blank_line(data, end) and not _has_lone_return(data, end) and _is_utf8(data) and not len(_loose_quotes(data, _after_header(data), end)):
        parsed = _csv_arrow_table(data, names, kept)
        lines = _record_lines(data, end, parsed[0].num_rows + len(parsed[1]), len(names)) if parsed is not None else None
        if parsed is not None and lines is not None and all(e.line >= 1 for e in parsed[1]):
            # The text let go before its cells become pandas columns: both at once were the peak of
            # a table's load (a 313 MB file: 1.1 GiB of heap in use -> 0.8 GiB).
            del data
            table, bad = parsed
            del parsed
            read = _numbered(table, bad, lines, [])
            assert read is not None  # as many numbers as records, and every bad record numbered
            return read
    # A blank line, bad UTF-8 (pyarrow fails the whole file), a quote left open (pyarrow reads on
    # into the next lines) or a quote strict CSV refuses (pyarrow reads '"10"0' as 100): those lines
    # are set aside and the others read by pyarrow, each row named by its own line. Read line by
    # line instead, a 313 MB file with one such line took the audit 46 s and 1.9 GB more.
    aside = _set_aside(data, names)
    del data
    mended = _read_csv_kept(*aside, names, kept) if aside is not None else None
    del aside
    return mended if mended is not None else _read_csv_slow(_open_bytes(path), names, kept)


def _after_header(data: bytes) -> int:
    """Where the line after the header begins (the text's end when there is none)."""
    newline = data.find(b"\n")
    return newline + 1 if newline >= 0 else len(data)


# Where strict CSV (RFC 4180) puts a quote: one that opens a quoted cell comes at the cell's start
# (after a comma or a line end), one that closes it at the cell's end (before a comma or a line end);
# a quote written twice inside a quoted cell is a closing one straight before an opening one.
_OPENS_AFTER = np.zeros(256, dtype=bool)
_OPENS_AFTER[[ord(","), ord("\n"), ord('"')]] = True
_CLOSES_BEFORE = np.zeros(256, dtype=bool)
_CLOSES_BEFORE[[ord(","), ord("\n"), ord("\r"), ord('"')]] = True


def _loose_quotes(data: bytes, start: int, end: int) -> np.ndarray:
    """Offsets in `data[start:end]` (`start` a line's start, outside quotes) of the quotes not where
    strict CSV puts them, each taken for one that opens or one that closes a quoted cell by how many
    come before it: '"10"0' (text after a closing quote), '"a,"b', '""b'. pyarrow, lenient, reads such
    a line ('"10"0' as 100, a value the file does not hold) where Python's strict csv refuses it.

    None found: every quote opens or closes a quoted cell (or is written twice inside one) as strict
    CSV reads it, so pyarrow's cells are strict CSV's. Some found: their lines are for strict CSV to
    judge, one at a time. A quote inside a cell that does not begin with one (`a"b`) is one of the
    cell's characters to both readers; it is found here too (an opening quote not at a cell's start),
    and the quotes after it in its line are then taken for the other kind, so only a line of an even
    number of quotes stands for itself alone. A block at a time, the quotes only: a text of quoted
    cells holds about one quote in five bytes (394 MB of them: 0.45-0.55 s, 0.2 s of it finding
    them); a text without any, one `find`."""
    if data.find(b'"', start, end) < 0:
        return np.zeros(0, dtype=np.int64)
    view = np.frombuffer(data, dtype=np.uint8)
    found: list[np.ndarray] = []
    seen = 0
    for block in range(start, end, _TEXT_BLOCK):
        stop = min(block + _TEXT_BLOCK, end)
        at = np.flatnonzero(view[block:stop] == 34)  # from the block's start
        if not len(at):
            continue
        first = seen % 2  # the first of them that opens a quoted cell
        seen += len(at)
        opening, closing = at[first::2], at[1 - first :: 2]
        # The bytes before and after each, read through views shifted by one (no offsets made); a
        # quote at the text's start or end has its cell's edge on that side.
        before = view[block - 1 : stop - 1] if block else np.concatenate([[10], view[: stop - 1]]).astype(np.uint8)
        bad_open = ~_OPENS_AFTER[before[opening]]
        if stop == end and len(closing) and closing[-1] == stop - block - 1:
            closing = closing[:-1]
        bad_close = ~_CLOSES_BEFORE[view[block + 1 : stop + 1][closing]]
        if bad_open.any():
            found.append(opening[bad_open] + block)
        if bad_close.any():
            found.append(closing[bad_close] + block)
    return np.sort(np.concatenate(found)) if found else np.zeros(0, dtype=np.int64)


def _record_lines(data: bytes, end: int, records: int, width: int) -> np.ndarray | None:
    """The line each of the `records` records after the header begins on (1 = the line after the
    header), as pyarrow reads them from `data[:end]`: a record a line, unless a quoted value holds a
    line break (RFC 4180 allows it), when a record's later lines are not counted as records and the
    rows after it were named one line too early. A line break ends a record only outside quotes,
    after an even number of them. In 32 bits where they fit, as for Parquet: every row of the bundle
    carries one. None when the records are not those that reading line by line finds: a record
    across lines that is not one of `width` cells to strict CSV (`quoted_record`), such as a quote
    left open up to a later one, which pyarrow, lenient, reads as one cell of the lines between."""
    dtype = np.int32 if records < 2**31 - 1 else np.int64
    if data.find(b'"', 0, end) < 0 or data.count(b"\n", 0, end) == records:
        return np.arange(1, records + 1, dtype=dtype)
    newlines = _positions_of(data, 10)
    newlines = newlines[newlines < end]
    quoted, quotes = _line_counts(data, newlines, ord('"'))
    odd = np.zeros(len(newlines) + 1, dtype=bool)
    odd[quoted[quotes % 2 == 1]] = True
    inside = np.cumsum(odd) % 2 == 1  # after each line: inside a quoted value
    starts = np.flatnonzero(~inside[:-1]) + 1  # the lines after one that ends outside quotes
    if len(starts) != records:
        return None
    line_starts = np.concatenate([[0], newlines + 1])
    line_ends = np.append(newlines, end)
    nexts = np.append(starts[1:], len(newlines) + 1)
    for first, after in zip(starts[nexts - starts > 1].tolist(), nexts[nexts - starts > 1].tolist(), strict=True):
        if quoted_record([data[line_starts[j] : line_ends[j]] for j in range(first, after)], 0, width) is None:
            return None
    return starts.astype(dtype)


def _csv_arrow_table(data: bytes, names: list[str], kept: list[str]) -> tuple[pa.Table, list[LineError]] | None:
    """pyarrow's reading of a CSV text, every cell as text, with the rows of another number of cells
    (numbered as records, the header being 0). None when pyarrow cannot read it, or a quote left open
    swallowed the lines after it into one bad record ("rows read 5" for a file of 1,500 lines) or
    ran to the end of the text."""
    bad: list[LineError] = []

    def on_invalid(row: pacsv.InvalidRow) -> str:
        # The handler's number is the physical line; the header is line 1 of the file.
        line = (row.number - 1) if row.number is not None else -1
        bad.append(LineError(line, f"expected {row.expected_columns} cells, found {row.actual_columns}", row.text))
        return "skip"

    try:
        table = pacsv.read_csv(
            io.BytesIO(data),
            read_options=pacsv.ReadOptions(use_threads=False, block_size=1 << 24),
            parse_options=pacsv.ParseOptions(invalid_row_handler=on_invalid, newlines_in_values=True),
            convert_options=pacsv.ConvertOptions(
                column_types={n: pa.string() for n in kept},
                include_columns=kept,  # of the header's `names`, which each row's cells are still counted against
                # Only an empty cell is null (the format's contract): pyarrow's default also takes
                # "NA", "null", "NaN", "N/A" and others for one, which made a player "NA" missing.
                null_values=[""],
                strings_can_be_null=True,
                quoted_strings_can_be_null=True,
            ),
        )
    except pa.ArrowInvalid:
        return None
    if any("\n" in e.text or e.text.count('"') % 2 for e in bad):
        return None  # a quote left open, in the last line too: judged line by line, as reading does
    return table, bad


def _numbered(table: pa.Table, bad: list[LineError], numbers: np.ndarray, errors: list[LineError]) -> RawTable | None:
    """pyarrow's rows and bad rows (numbered as records) named by `numbers`, the line of each record,
    with the `errors` found before; None when the records are not one a line."""
    if table.num_rows + len(bad) != len(numbers) or any(e.line < 1 for e in bad):
        return None
    is_bad = np.zeros(len(numbers), dtype=bool)
    for e in bad:
        is_bad[e.line - 1] = True
        e.line = int(numbers[e.line - 1])
    # A column at a time, each of pyarrow's let go once converted (the caller keeps no other use of it).
    frame = table.to_pandas(split_blocks=True, self_destruct=True)
    del table
    return RawTable(frame, numbers[~is_bad], sorted(errors + bad, key=lambda e: e.line))


def _set_aside(data: bytes, names: list[str]) -> tuple[bytes, np.ndarray, list[LineError]] | None:
    """The CSV text without its blank lines, its lines of bad UTF-8, its lines with a quote left open
    and its lines with a carriage return before their end (the header first), the number of each line
    kept (the header is line 0), and each bad line reported as `_read_csv_slow` does. None when a line
    with an odd number of quotes or such a return reads well on its own (a quote or a return inside a
    quoted cell): only reading line by line gives it as that reading does. A byte-order
    mark stays with the header, for pyarrow to drop as it does when it reads the whole text (slicing
    it off would copy the text)."""
    newlines = _positions_of(data, 10)
    starts = np.concatenate([[0], newlines + 1])
    ends = np.concatenate([newlines, [len(data)]])
    if starts[-1] == len(data):  # the text ends with a line end: no line after it
        starts, ends = starts[:-1], ends[:-1]
    width = ends - starts
    dropped = width == 0
    one = np.flatnonzero(width == 1)
    dropped[one] = np.frombuffer(data, dtype=np.uint8)[starts[one]] == 13  # "\r" alone: blank too
    dropped[0] = False  # the header (`_header` has checked it)
    errors: list[LineError] = []
    past_ascii, _ = _line_counts(data, newlines, 128, at_least=True)
    for k in past_ascii[past_ascii > 0]:  # only a line with a byte past ASCII can be bad UTF-8
        raw = data[starts[k] : ends[k]].rstrip(b"\r")
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            errors.append(LineError(int(k), f"not UTF-8 text at byte {exc.start + 1}", raw[:80].decode("utf-8", "replace")))
            dropped[k] = True
    quoted, quotes = _line_counts(data, newlines, ord('"'))
    odd = quoted[quotes % 2 == 1]
    odd_lines = set(odd.tolist())
    suspect = odd
    if _has_lone_return(data, len(data)):
        # A line with a return before its end (or two at its end): judged on its own as a quote is.
        returns, count = _line_counts(data, newlines, 13)
        last = np.frombuffer(data, dtype=np.uint8)[np.maximum(ends[returns] - 1, 0)]
        suspect = np.union1d(suspect, returns[(count > 1) | (last != 13)])
    for k in suspect:
        if k == 0 or dropped[k]:
            continue
        text = data[starts[k] : ends[k]].rstrip(b"\r").decode("utf-8")
        if not text:  # returns only ("\r\r\n"): blank, as reading line by line finds it
            dropped[k] = True
            continue
        problem = _csv_line(text, len(names))[1]
        if problem is None:
            return None
        if k in odd_lines and _opens_quoted_record(data, starts, ends, odd, int(k), len(names)):
            return None  # a quoted value across lines: read line by line, the lines joined as one record
        errors.append(LineError(int(k), problem, text[:80]))
        dropped[k] = True
    kept = _kept_text(data, starts, ends, dropped)
    # Quotes strict CSV refuses in the lines kept: each of these has an even number of quotes (the
    # others are judged above), so that each begins outside quotes in the text of them alone.
    loose = _loose_quotes(kept, _after_header(kept), len(kept))
    if len(loose):
        line_of = np.flatnonzero(~dropped)  # the line of each kept line
        for i in np.unique(np.searchsorted(_positions_of(kept, 10), loose)).tolist():
            k = int(line_of[i])
            text = data[starts[k] : ends[k]].rstrip(b"\r").decode("utf-8")
            problem = _csv_line(text)[1]
            if problem is not None:
                errors.append(LineError(k, problem, text[:80]))
                dropped[k] = True
        if np.count_nonzero(~dropped) < len(line_of):
            kept = _kept_text(data, starts, ends, dropped)
    return kept, np.flatnonzero(~dropped)[1:], errors


def _kept_text(data: bytes, starts: np.ndarray, ends: np.ndarray, dropped: np.ndarray) -> bytes:
    """The lines of `data` (from `starts` to `ends`) not `dropped`, joined by line feeds."""
    gone = np.flatnonzero(dropped)
    runs = zip(np.concatenate([[0], gone + 1]), np.concatenate([gone, [len(starts)]]), strict=True)  # runs of kept lines
    return b"\n".join(data[starts[a] : ends[b - 1]] for a, b in runs if b > a)


def _opens_quoted_record(data: bytes, starts: np.ndarray, ends: np.ndarray, odd: np.ndarray, k: int, width: int) -> bool:
    """Whether line `k` of `data` (its lines from `starts` to `ends`; `odd`, in order, those with an
    odd number of quotes, `k` among them) begins a record whose quoted value runs across lines
    (`quoted_record`): the lines up to the next with an odd number of quotes, which closes it."""
    at = int(np.searchsorted(odd, k, side="right"))
    if at == len(odd):
        return False
    last = int(odd[at])
    return quoted_record([data[starts[i] : ends[i]] for i in range(k, last + 1)], 0, width) is not None


def _read_csv_kept(text: bytes, numbers: np.ndarray, errors: list[LineError], names: list[str], kept: list[str]) -> RawTable | None:
    """pyarrow's reading of the kept lines, each row and bad row named by its line's number. None
    when the kept lines still need reading line by line (a quote left open, a value across lines)."""
    if _has_lone_return(text, _end_of_text(text)):
        return None  # a carriage return alone ends a row for pyarrow, not a line here
    read = _csv_arrow_table(text, names, kept)
    return _numbered(*read, numbers.astype(np.int64), errors) if read is not None else None  # None: a value across lines


def _positions_of(data: bytes | bytearray | memoryview | np.ndarray, byte: int) -> np.ndarray:
    """Offsets in `data` of `byte`, found a block at a time so that no mask the size of the text is
    made (for line ends: one offset a line), the block's mask made once and filled again for each
    (where the heap is not kept, a mask made anew is fresh memory each block: `_SCAN_BLOCK`)."""
    view = np.frombuffer(data, dtype=np.uint8)
    mask = np.empty(min(_TEXT_BLOCK, len(view)), dtype=bool)
    found = [np.zeros(0, dtype=np.int64)]
    for start in range(0, len(view), _TEXT_BLOCK):
        part = view[start : start + _TEXT_BLOCK]
        found.append(np.flatnonzero(np.equal(part, byte, out=mask[: len(part)])) + start)
    return np.concatenate(found)


def _line_counts(data: bytes, newlines: np.ndarray, byte: int, at_least: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The lines (by index, the header 0) holding `byte` (or, `at_least`, any byte from it up) and how
    many each holds, counted a block at a time: a text of Chinese names or of quoted cells would
    otherwise make an offset array eight times its size."""
    view = np.frombuffer(data, dtype=np.uint8)
    lines, counts = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)]
    for start in range(0, len(view), _TEXT_BLOCK):
        part = view[start : start + _TEXT_BLOCK]
        at = np.flatnonzero(part >= byte if at_least else part == byte)
        if len(at):
            line, count = np.unique(np.searchsorted(newlines, at + start), return_counts=True)
            lines.append(line)
            counts.append(count)
    line, where = np.unique(np.concatenate(lines), return_inverse=True)  # a line across two blocks: summed
    return line, np.bincount(where, weights=np.concatenate(counts), minlength=len(line)).astype(np.int64)


_TEXT_BLOCK = 1 << 24


def _read_csv_slow(data: bytes, names: list[str], kept: list[str]) -> RawTable:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    physical = data.split(b"\n")
    if physical and physical[-1] == b"":
        physical.pop()
    rows: list[list[str | None]] = []
    lines: list[int] = []
    errors: list[LineError] = []
    number = 0
    while number + 1 < len(physical):
        number += 1
        raw = physical[number].rstrip(b"\r")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            errors.append(LineError(number, f"not UTF-8 text at byte {exc.start + 1}", raw[:80].decode("utf-8", "replace")))
            continue
        if not text:
            continue
        cells, problem = _csv_line(text, len(names))
        if problem is not None and raw.count(b'"') % 2:
            record = quoted_record(physical, number, len(names))
            if record is not None:  # a quoted value across lines: the record is named by its first
                cells, last = record
                rows.append([c if c != "" else None for c in cells])
                lines.append(number)
                number = last
                continue
        if problem is not None:
            errors.append(LineError(number, problem, text[:80]))
            continue
        rows.append([c if c != "" else None for c in cells])
        lines.append(number)
    wanted = set(kept)  # in the header's order, each once: `names.index` a name would be quadratic in a wide header
    at = [i for i, name in enumerate(names) if name in wanted]
    frame = pd.DataFrame([[row[i] for i in at] for row in rows] if rows else None, columns=kept, dtype=object)
    return RawTable(frame, np.asarray(lines, dtype=np.int64), errors)


def _csv_line(text: str, width: int | None = None) -> tuple[list[str], str | None]:
    """A CSV line (not blank) read alone by strict csv, as RFC 4180 reads it: its cells, and why it
    is a bad line, None when it is not: strict csv refuses it, or (`width` given) it has another
    number of cells."""
    try:
        cells = next(csv.reader([text], strict=True))
    except csv.Error as exc:
        return [], csv_problem(exc)
    return cells, None if width is None or len(cells) == width else f"expected {width} cells, found {len(cells)}"


def quoted_record(physical: list[bytes], first: int, width: int) -> tuple[list[str], int] | None:
    """The record of `width` cells that begins on line `first` of `physical` (the text's lines, without
    their LF) and holds a quoted line break (RFC 4180), and its last line: the lines up to the first
    that leaves an even number of quotes, read as one text (their CRLF kept inside the value, as
    pyarrow keeps it). None when they are not such a record: then the first line is judged alone,
    as a quote left open costs only its own line."""
    quotes = physical[first].count(b'"')
    last = first
    while quotes % 2 and last + 1 < len(physical):
        last += 1
        quotes += physical[last].count(b'"')
    if quotes % 2:
        return None
    try:
        text = b"\n".join(physical[first : last + 1]).rstrip(b"\r").decode("utf-8")
    except UnicodeDecodeError:
        return None
    cells, problem = _csv_line(text, width)
    return None if problem is not None else (cells, last)


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class JsonText(str):
    """The JSON text of an object or array that a JSONL line holds where a value belongs: text that
    can be shown and compared like any cell, and that the typing knows for a structure (a bad cell
    where the format has text: `{"x": "P2"}` is no player id)."""


def _json_cell(value: object) -> object:
    if isinstance(value, (dict, list)):
        return JsonText(json.dumps(value, ensure_ascii=False, sort_keys=True))
    return value


# A line end before a line that is blank (empty, or blanks only) or begins, after blanks, with
# anything but `{`; the first line so.
_UNFIT_NEXT = re.compile(rb"\n[ \t\r]*(?:[^{ \t\r\n]|\n)")
_UNFIT_FIRST = re.compile(rb"[ \t\r]*(?:[^{ \t\r\n]|\n)")


def _unfit_lines(text: bytes, end: int) -> bool:
    """Whether a line of a JSONL text, up to `end` (its end without its trailing line ends), is one
    pyarrow must not read: one that is not an object (pyarrow's JSON reader, 26.0, ends the process
    with a segmentation fault on a row `null` at the start of one of its blocks, wherever that
    falls), or one that is blank (which it reads as no row at all: beside a line of two objects,
    which it reads as two rows, the count of rows would match the lines', every row after them
    named by the wrong line). Such a line is judged by Python (`_lines_apart`). One pass of the
    expression, which skips from line end to line end (267 MB: 0.1 s)."""
    if _UNFIT_FIRST.match(text, 0, end) is not None or _UNFIT_NEXT.search(text, 0, end) is not None:
        return True
    last = text.rfind(b"\n", 0, end)  # the last line, which the expressions do not see whole
    return not text[last + 1 : end].strip(b" \t\r")


# pyarrow's JSON reader reads a text in blocks, each parsed apart, and infers the type of a column
# from each block. When two blocks disagree (booleans in one, numbers in the next; numbers, then
# lists or objects) pyarrow 26 ends the process with a segmentation fault, where within one block the
# same switch is a clean error. So it is never handed more than one block: the text is cut at line
# ends into pieces of about this size, each read alone as a single block, and their tables are put
# together by `_one_table`, to which a disagreement is a refusal.
_JSON_BLOCK = 1 << 24
_JSON_ERRORS = (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError)

JsonSource = bytes | str | tuple[bytes, int, int]  # a text, a file's path, or a span of a text


def _span(source: bytes | tuple[bytes, int, int]) -> tuple[bytes, int, int]:
    """A text in memory as the span it is read from: the whole of it, or the span given."""
    return (source, 0, len(source)) if isinstance(source, bytes) else source


def _after_last_line_end(text: np.ndarray) -> int:
    """Where the text after `text`'s last line end begins (0: it holds none), looked for from its end,
    64 KiB at a time."""
    for stop in range(len(text), 0, -(1 << 16)):
        found = np.flatnonzero(text[max(0, stop - (1 << 16)) : stop] == ord("\n"))
        if len(found):
            return max(0, stop - (1 << 16)) + int(found[-1]) + 1
    return 0


def _json_pieces(source: JsonSource) -> Iterator[tuple[int, pa.Buffer]]:
    """`source`'s text in pieces of about `_JSON_BLOCK` bytes (more where a line is longer), each
    ending at a line end or the text's end, with the offset each begins at; a file is read a block
    at a time, never held whole."""
    if isinstance(source, str):
        with open(source, "rb") as f:
            carried = np.zeros(0, dtype=np.uint8)  # the text after the last line end read
            at = 0
            while True:
                # Each piece its own memory, read into in place after what was carried (pyarrow
                # reads pieces while the next is read): joining the carried text to each block
                # read copied the whole text once more (the month's 3.4 GB: 2.4 s).
                room = np.empty(len(carried) + _JSON_BLOCK, dtype=np.uint8)
                room[: len(carried)] = carried
                read = f.readinto(room[len(carried) :].data)
                if not read:
                    break
                filled = room[: len(carried) + read]
                cut = _after_last_line_end(filled)
                if not cut:
                    carried = filled.copy()  # a line longer than a block: read on
                    continue
                yield at, pa.py_buffer(filled[:cut])
                at += cut
                carried = filled[cut:].copy()
            if len(carried):
                yield at, pa.py_buffer(carried)
        return
    data, start, stop = _span(source)
    whole = pa.py_buffer(data)
    while start < stop:
        cut = data.find(b"\n", min(start + _JSON_BLOCK, stop), stop)
        end = stop if cut < 0 else cut + 1
        yield start, whole.slice(start, end - start)
        start = end


@dataclass(frozen=True)
class _Piece:
    """A piece of a JSONL text (`_json_pieces`), `data[start:stop]`, and pyarrow's reading of it:
    None when it refused it."""

    start: int
    stop: int
    table: pa.Table | None


# pyarrow's JSON parser recurses a level of nesting at a time: a line nested some 20,000 deep
# (`[[[[...`) ends the process with a segmentation fault (pyarrow 26, a thread's 8 MiB stack), where
# Python's json refuses about 1,000 levels (RecursionError: a bad line). And it makes a column of
# every key: a line of a million keys (18 MB) took it 28 s and 2.5 GB, where Python reads it in a
# second. A piece holding a line of more than `_MAX_OPENS` brackets `[` and `{`, or of more than
# `_MAX_KEYS` colons, is never handed to pyarrow: it is judged as a piece pyarrow refused, such a
# line by Python. `_MAX_OPENS` is below Python's limit, so that every line pyarrow reads, Python
# would read too.
_MAX_OPENS = 500
_MAX_KEYS = 10_000


def _not_for_pyarrow(text: np.ndarray, ends: np.ndarray) -> bool:
    """Whether a line of a piece (`text`, its bytes; `ends`: its line ends; lines that each begin with
    `{`, as every text handed to pyarrow's JSON reader does: `_unfit_lines`) may hold more than
    `_MAX_OPENS` brackets `[` and `{` (a bound on how deep it nests) or more than `_MAX_KEYS` colons
    (a bound on its keys). Only a line longer than those bounds may; for the brackets, first the
    piece as a whole: each line's own `{` aside, the brackets left in the piece are more than any
    one line holds (a log's flat records: none at all). 16 MiB of flat records in about 5 ms, numpy
    letting go of the interpreter's lock."""
    longest = int(np.diff(ends, prepend=-1, append=len(text)).max())
    if longest > _MAX_OPENS:
        opens = (text == ord("{")) | (text == ord("["))
        count = int(np.count_nonzero(opens))
        if count > _MAX_OPENS and count - len(ends) + 1 > _MAX_OPENS and _most_in_a_line(opens, ends) > _MAX_OPENS:
            return True
    return longest > _MAX_KEYS and _most_in_a_line(text == ord(":"), ends) > _MAX_KEYS


def _most_in_a_line(found: np.ndarray, ends: np.ndarray) -> int:
    """The most bytes `found` (a mask of a text's bytes) marks in one line of it (`ends`: its line ends)."""
    at = np.flatnonzero(found)
    return int(np.bincount(np.searchsorted(ends, at)).max()) if len(at) else 0


# pyarrow's JSON reader makes a column of every key it meets, each as long as the text it reads:
# lines each giving keys no other line gives cost it the square of their number (20,000 lines of
# one new key each, 1.1 MB: 20 s and 5.5 GB; a 16 MiB piece of them, terabytes). So no text is
# handed to it that could make more than `_MAX_CELLS` cells: a piece's first chunk of about
# `_CHUNK_BYTES` (split in halves while its lines times its colons, a bound on its cells, each key,
# nested ones too, having its colon, pass `_MAX_CELLS`) is read first, then the rest with only the
# first chunk's columns allowed (its lines times those columns within `_MAX_CELLS`), or else a chunk
# at a time, each part keeping only the format's columns (`_Parts`); and a part read into more than
# `_MAX_FIELDS` columns, nested ones counted, or mostly nulls (`_SPARSE`), or parts that make too
# many columns or cells together, send the file to be read line by line (`_TooWide`), in time
# linear in its size. A log's piece so costs what it cost whole (16 MiB of coups: 99 ms against 102 ms);
# at most 2^25 cells: some 0.4 GB and 1.7 s of pyarrow's.
_CHUNK_BYTES = 256 << 10
_MAX_CELLS = 1 << 25
_MAX_FIELDS = 1024
# A chunk whose table holds this many times more cells than its text holds keys is mostly nulls:
# lines each giving few of many keys (a line of one key among a thousand: 1,000 cells a key), which
# Python reads in time of the keys given and pyarrow of the cells it makes. A log's table holds
# at most about one cell a key (the month's first chunks: 0.50-0.92, times holding colons of their
# own), optional columns absent from many lines a few.
_SPARSE = 32


# The format's columns a JSONL text is read for (`read_jsonl`), each with the Arrow type its values
# take where pyarrow would infer one (integers int64, numbers float64, booleans), None for text
# (declared as strings from the first chunk on). pyarrow's reading keeps only these columns
# (`_kept_columns`); the types declare, for the rest of a piece, the columns its first chunk held
# only nulls in or did not have (`_read_rest`).
Kept = Mapping[str, pa.DataType | None]


class _TooWide(Exception):
    """A chunk of a JSONL text pyarrow read into more than `_MAX_FIELDS` columns, or mostly nulls
    (`_SPARSE`), or a piece's parts that together would make too many columns or cells (`_Parts`):
    every other reading of the text by pyarrow (the search for its bad lines by halves, the reading
    of its good lines) would cost as much again for nothing, so the file is read line by line."""


def _chunks(text: np.ndarray, ends: np.ndarray) -> list[tuple[int, int]]:
    """A piece (`text`, its bytes; `ends`: its line ends) as spans of whole lines, each of about
    `_CHUNK_BYTES` or less, its lines times its colons at most `_MAX_CELLS` (a line alone is a span
    whatever it holds: `_not_for_pyarrow` bounds its keys)."""
    size = len(text)
    at = np.searchsorted(ends, np.arange(_CHUNK_BYTES, size, _CHUNK_BYTES))  # the line end at or after each multiple
    cuts = np.unique(ends[at[at < len(ends)]] + 1)
    bounds = [0, *(int(cut) for cut in cuts if cut < size), size]
    todo = [(bounds[i], bounds[i + 1]) for i in range(len(bounds) - 1)][::-1]
    spans: list[tuple[int, int]] = []
    while todo:
        start, stop = todo.pop()
        first, last = np.searchsorted(ends, [start, stop - 1])
        lines = int(last - first) + 1  # the line ends in the span, and one for a last line without its own
        if lines * ((stop - start) // 4) > _MAX_CELLS and lines * int(np.count_nonzero(text[start:stop] == ord(":"))) > _MAX_CELLS:
            # At the line end nearest its middle, before its last line's.
            near = min(int(np.searchsorted(ends, (start + stop) // 2)), int(last) - 1)
            middle = int(ends[near]) + 1 if near >= 0 else start
            if start < middle < stop:
                todo += [(middle, stop), (start, middle)]
                continue
        spans.append((start, stop))
    return spans


def _fields(schema: pa.Schema) -> int:
    """How many columns a table of `schema` holds, the fields of its objects and lists counted."""
    count, left = 0, list(schema.types)
    while left:
        kind = left.pop()
        count += 1
        if pa.types.is_struct(kind):
            left.extend(kind.field(i).type for i in range(kind.num_fields))
        elif pa.types.is_list(kind) or pa.types.is_large_list(kind):
            left.append(kind.value_type)
    return count


def _read_piece(piece: pa.Buffer, schema: pa.Schema | None, kept: Kept | None = None) -> pa.Table | None:
    """pyarrow's reading of one piece (`schema`: columns declared, the others inferred); None when it
    refuses it. Its first chunk (`_chunks`) is read first; then the rest at once with no column but
    the first chunk's, each of the type read there, and the format's columns of the format's types
    (`_read_rest`: pyarrow refuses a key or a type it is not told, so no line can make a column of its
    own: a log's piece is read in two calls, as fast as whole); where it refuses that, the rest a
    chunk at a time. The parts' tables are put
    together as pyarrow puts its blocks together (`_one_table`). `kept`: see `_kept_columns`.
    Raises `_TooWide`."""
    text = np.frombuffer(piece, dtype=np.uint8)
    ends = np.flatnonzero(text == ord("\n"))
    if _not_for_pyarrow(text, ends):
        return None
    spans = _chunks(text, ends)
    first = _read_chunk(piece.slice(0, spans[0][1]), schema)
    if first is None:
        return None
    seen = first.schema  # every column of the first chunk, those the format does not list too
    parts = _Parts(kept)
    if not parts.add(first):
        return None
    if len(spans) > 1:
        rest_lines = len(ends) - int(np.searchsorted(ends, spans[0][1])) + 1
        rest = _read_rest(piece.slice(spans[0][1]), seen, kept, rest_lines)
        if rest is not None:
            if not parts.add(rest):
                return None
        else:
            for start, stop in spans[1:]:
                if not parts.add(_read_chunk(piece.slice(start, stop - start), schema)):
                    return None
    table = _one_table(parts.tables, schema)
    # One array a column, not one a chunk, where the piece was read a chunk at a time (some 64 of them).
    return table if table is None or len(parts.tables) <= 2 else table.combine_chunks()


def _read_rest(rest: pa.Buffer, seen: pa.Schema, kept: Kept | None, lines: int) -> pa.Table | None:
    """The rest of a piece after its first chunk (`_read_piece`; `lines`: its lines), read in one call
    with no column but the first chunk's (`seen`), each of the type read there, and a format column
    the first chunk held only nulls in of the format's type (`kept`; pyarrow's null type refuses any
    value after it: a flag null but in a few lines sent the rest a chunk at a time); None when
    pyarrow refuses it. Where it is refused so, it is read once more with the format's columns the
    first chunk did not have (a log that leaves out a key whose value is null) declared too; one of
    those that holds nothing in the rest is left out unless a line of the rest gives its key, as a
    reading a chunk at a time would have it. Not when the first chunk holds objects or lists, whose
    inner keys the search for a key would find, nor where the search cannot tell (`_keys_absent`)."""
    types = kept or {}

    def read(declared: pa.Schema) -> pa.Table | None:
        """The rest with `declared`'s columns alone, where its lines times them are within `_MAX_CELLS`."""
        return _read_chunk(rest, declared, known=True) if lines * _fields(declared) <= _MAX_CELLS else None

    schema = pa.schema([pa.field(f.name, types[f.name]) if pa.types.is_null(f.type) and types.get(f.name) is not None else f for f in seen])
    table = read(schema)
    if table is not None or any(pa.types.is_nested(t) for t in seen.types):
        return table
    late = [pa.field(name, kind) for name, kind in types.items() if kind is not None and seen.get_field_index(name) < 0]
    table = read(pa.schema([*schema, *late])) if late else None
    blank = [f.name for f in late if table is not None and table.column(f.name).null_count == table.num_rows]
    if table is None or not blank:
        return table
    absent = _keys_absent([memoryview(rest)], blank)
    return None if absent is None else table.drop_columns(absent)


class _Parts:
    """The tables of a piece's parts (`_read_piece`), each with only the columns `kept` as read
    (`_kept_columns`) as soon as it is added, so that no more is held than the format's columns."""

    def __init__(self, kept: Kept | None) -> None:
        self.kept = kept
        self.tables: list[pa.Table] = []
        self.names: set[str] = set()
        self.rows = 0

    def add(self, table: pa.Table | None) -> bool:
        """Whether `table` (a part as pyarrow read it; None: refused) was added: not when refused, or
        when it holds a value Python's json refuses in a column the format does not list (its line is
        a bad one). Raises `_TooWide` when the parts together hold more than `_MAX_FIELDS` columns,
        or more than `_MAX_CELLS` cells once put together (`_one_table` makes each as wide as all)."""
        table = None if table is None else _kept_columns(table, self.kept)
        if table is None:
            return False
        self.tables.append(table)
        self.names.update(table.column_names)
        self.rows += table.num_rows
        if len(self.names) > _MAX_FIELDS or len(self.names) * self.rows > _MAX_CELLS:
            raise _TooWide
        return True


def _read_chunk(chunk: pa.Buffer, schema: pa.Schema | None, known: bool = False) -> pa.Table | None:
    """pyarrow's reading of a chunk of a piece (`_read_piece`), as one block: `schema`'s columns
    declared, the others inferred, or, `known`, refused; None when it refuses it. Raises `_TooWide`
    when it holds more than `_MAX_FIELDS` columns, or (its columns inferred) more than `_SPARSE`
    cells a key of its text."""
    parse = pajson.ParseOptions(explicit_schema=schema, unexpected_field_behavior="error" if known else "infer", newlines_in_values=False)
    block = min(chunk.size + 1, (1 << 31) - 1)  # the whole chunk, one block
    try:
        table = pajson.read_json(pa.BufferReader(chunk), read_options=pajson.ReadOptions(block_size=block, use_threads=False), parse_options=parse)
        table.column_names
    except (*_JSON_ERRORS, UnicodeDecodeError):
        return None  # UnicodeDecodeError: a key of bad UTF-8, which pyarrow holds and Python cannot name
    fields = _fields(table.schema)
    if fields > _MAX_FIELDS:
        raise _TooWide
    if not known and table.num_rows * fields > _SPARSE * (int(np.count_nonzero(np.frombuffer(chunk, dtype=np.uint8) == ord(":"))) + table.num_rows):
        raise _TooWide
    return table


def _kept_columns(table: pa.Table, kept: Kept | None) -> pa.Table | None:
    """`table` with only the columns of the format, `kept` (None: every one). A column the format
    does not list is ignored (its values, read as objects, lists or times, would send a file to the
    reading line by line: an extra ISO time a line made a JSONL file 11 times slower); None when
    one of its values is one Python's json does not read alike (`_as_python_reads_it`): its line is
    a bad one, for Python to judge as the reading line by line does."""
    if kept is None:
        return table
    # By position: a name looked up, or a column dropped, costs a pass over all of them (a line of
    # 300,000 keys: minutes).
    names = table.column_names
    listed = [i for i, name in enumerate(names) if name in kept]
    if len(listed) == len(names):
        return table
    if not all(_as_python_reads_it(c) for name, c in zip(names, table.columns, strict=True) if name not in kept):
        return None
    return table.select(listed)


def _as_python_reads_it(column: pa.ChunkedArray) -> bool:
    """Whether every value pyarrow read from JSON into `column` is one Python's json reads too: no
    NaN or Infinity (not JSON), no text of bad UTF-8 (pyarrow does not check it), at any depth of
    lists and objects."""
    left: list[pa.Array] = list(column.chunks)
    while left:
        values = left.pop()
        kind = values.type
        if pa.types.is_struct(kind):
            left.extend(values.field(i) for i in range(kind.num_fields))
        elif pa.types.is_list(kind) or pa.types.is_large_list(kind):
            left.append(values.flatten())
        elif pa.types.is_floating(kind) and len(values) and _not_finite(values):
            return False
        elif (pa.types.is_string(kind) or pa.types.is_large_string(kind)) and len(invalid_utf8(values)):
            return False
    return True


def _read_pieces(source: JsonSource, schema: pa.Schema | None, every: bool = False, kept: Kept | None = None) -> list[_Piece] | None:
    """pyarrow's reading of the JSON lines of `source` (`schema`: columns declared, the others
    inferred; `kept`: see `_kept_columns`), a piece of `_JSON_BLOCK` at a time, on as many threads as
    there are cores, a few pieces in flight at once. `every`: every piece, each one pyarrow refuses
    without its table (to find the bad lines in only those); otherwise None at the first it refuses."""
    if not isinstance(source, str):
        data, start, stop = _span(source)
        if 0 < stop - start <= _JSON_BLOCK:  # one piece (a half, a run between bad lines): no threads to start
            table = _read_piece(pa.py_buffer(data).slice(start, stop - start), schema, kept)
            return [_Piece(start, stop, table)] if every or table is not None else None
    workers = max(1, os.cpu_count() or 1)
    read: list[_Piece] = []
    pending: deque[tuple[int, int, Future[pa.Table | None]]] = deque()

    def take() -> bool:
        start, stop, future = pending.popleft()
        read.append(_Piece(start, stop, future.result()))
        return every or read[-1].table is not None

    with ThreadPoolExecutor(workers) as pool:
        try:
            for start, piece in _json_pieces(source):
                pending.append((start, start + piece.size, pool.submit(_read_piece, piece, schema, kept)))
                if len(pending) > workers and not take():
                    return None
            while pending:
                if not take():
                    return None
        finally:
            for *_, left in pending:
                left.cancel()
    return read


def _read_json(source: JsonSource, schema: pa.Schema | None, kept: Kept | None = None) -> pa.Table | None:
    """pyarrow's reading of the JSON lines of `source` (`schema`: columns declared, the others
    inferred; `kept`: see `_kept_columns`) as one table (`_one_table`); None when it refuses them."""
    pieces = _read_pieces(source, schema, kept=kept)
    return None if pieces is None else _one_table([p.table for p in pieces if p.table is not None], schema)


def _one_table(tables: list[pa.Table], schema: pa.Schema | None) -> pa.Table | None:
    """The pieces' tables as one, as pyarrow puts its blocks together: a column absent from a piece,
    or null all through it, takes the type the others give it; integers in one and fractions in
    another are numbers (float64). None when two pieces read a column as two other types, or a
    column of lists or objects (every reader's caller refuses them; pyarrow's arrays of them are
    not always valid ones, and cannot be put together)."""
    if len(tables) == 1:
        return tables[0]
    if not tables:
        return (schema or pa.schema([])).empty_table()
    names = list(dict.fromkeys(name for table in tables for name in table.column_names))
    fields = []
    for name in names:
        types = {table.schema.field(name).type for table in tables if name in table.column_names} - {pa.null()}
        if any(pa.types.is_nested(t) for t in types):
            return None
        if types == {pa.int64(), pa.float64()}:
            types = {pa.float64()}
        if len(types) > 1:
            return None
        fields.append(pa.field(name, types.pop() if types else pa.null()))
    return pa.concat_tables([
        pa.table([table.column(f.name).cast(f.type, safe=False) if f.name in table.column_names else pa.nulls(table.num_rows, f.type)
                  for f in fields], schema=pa.schema(fields))
        for table in tables
    ])


def _fit_for_arrow(data: bytes) -> bool:
    """Whether pyarrow may read `data`, its lines numbered as its records: nothing blank before the
    first line, no line that is blank or not an object (`_unfit_lines`)."""
    end = _end_of_text(data)
    return bool(end) and not data[:1].isspace() and not _unfit_lines(data, end)


def _jsonl_checked(table: pa.Table | None, lines: int, text_columns: list[str], int_columns: list[str], required: Collection[str],
                   texts: Callable[[], Iterable[bytes | memoryview]]) -> pa.Table | None:
    """pyarrow's reading of a JSONL text of `lines` lines (`texts`: its text, in parts), text columns
    declared as strings so that no value is reinterpreted (an ISO string inferred as a timestamp
    would hide a missing offset), when it can be used; None when it cannot: a malformed line, a
    value of another JSON type, an integer column that is not all integers of at most 18 digits
    (read as written instead), records that are not one a line, a string of bad UTF-8. A text
    column comes back whether a line gives its key or none does: one of the `required` ones that
    is null all through is left out when no line gives its key (`_keys_absent`), as it is when the
    file is read line by line (a missing column, not a missing value in every row)."""
    if table is None:
        return None
    if any(pa.types.is_struct(f.type) or pa.types.is_list(f.type) or pa.types.is_timestamp(f.type) for f in table.schema):
        return None
    if any(not pa.types.is_integer(f.type) and not pa.types.is_null(f.type) for f in table.schema if f.name in int_columns):
        # An integer column holding a fraction, a string, a boolean is read as floats or text: floats
        # round integers past 2**53 (9007199254740993 becomes ...992) and print -5 as -5.0. The
        # careful path reads each number as written, as a CSV cell is read.
        return None
    if any(pa.types.is_integer(f.type) and _beyond_18_digits(table.column(f.name)) for f in table.schema if f.name in int_columns):
        return None  # the careful path refuses an integer of more digits, as a CSV cell's reading does
    if not _a_row_a_line(table, lines):
        return None
    if any(pa.types.is_string(f.type) and any(len(invalid_utf8(c)) for c in table.column(f.name).chunks) for f in table.schema):
        return None  # pyarrow's JSON reader passes bad UTF-8 into a string: the line is found bad one by one
    blank = [n for n in text_columns if n in required and table.column(n).null_count == table.num_rows]
    absent = _keys_absent(texts(), blank) if blank else []
    return None if absent is None else table.drop_columns(absent)


_ESCAPE = re.compile(rb"\\")


def _keys_absent(texts: Iterable[bytes | memoryview], names: list[str]) -> list[str] | None:
    """Of `names`, the keys no line of a JSONL text (`texts`: its parts, each of whole lines) gives,
    in a text pyarrow has read (so valid JSON, no nested object: `_jsonl_checked`). There a key is
    `"name"` after `{`, `,` or a blank and before a colon, and nothing else is: a quote inside a
    string is escaped. None when one is not found so and the text holds an escape, with which a
    key can be spelled (`"t\\u0061ble_id"`): told line by line then. Found by a literal search
    (a month's wheel bets, 970 MB, for a key no line gives: 0.5 s)."""
    keys = {name: re.compile(b'"' + re.escape(name.encode()) + rb'"[ \t\r]*:') for name in names}
    absent, escaped = list(names), False
    for part in texts:
        text = memoryview(part)
        absent = [name for name in absent if not any(m.start() and text[m.start() - 1] in b"{, \t\r\n" for m in keys[name].finditer(text))]
        escaped = escaped or _ESCAPE.search(text) is not None
        if not absent:
            return []
    return None if escaped else absent


@dataclass(frozen=True)
class _TextShape:
    """What `_fit_for_arrow` asks of a text before pyarrow reads it, found in its file a block at a time
    (`_plain_jsonl_shape`)."""

    end: int  # its length without its trailing line ends
    lines: int  # its line ends before `end`, and one
    starts_blank: bool  # its first byte is white space
    bom: bool  # it starts with a UTF-8 byte-order mark
    unfit_lines: bool  # a line before `end` is blank or not an object (`_unfit_lines`)


def _lines_fit(buffer: bytearray, n: int) -> tuple[int, bool]:
    """How many line ends `buffer[:n]` holds, and whether `_UNFIT_NEXT` finds none there (no line
    after a line end is blank or begins with anything but `{`). The line ends are found by numpy
    (`_positions_of`), and where each is followed by `{` (every line of a JSONL log as written) the
    expression is not run: it cannot match. Otherwise it answers. The month's JSONL (3.4 GB): the
    expression and `count` 2.4 s."""
    view = np.frombuffer(buffer, dtype=np.uint8, count=n)
    after = _positions_of(view, ord("\n")) + 1
    objects = bool((view[after[after < n]] == ord("{")).all())
    return len(after), objects or _UNFIT_NEXT.search(buffer, 0, n) is None


def _text_shape(path: Path, block: int = 64 << 20) -> _TextShape | None:
    """`path`'s `_TextShape`, reading it a block at a time, never whole; None when more than 4 KiB of
    line ends close it (its end then found in memory, as `_end_of_text` does)."""
    size = path.stat().st_size
    with path.open("rb") as f:
        f.seek(max(0, size - 4096))
        tail = f.read()
        kept = tail.rstrip(b"\r\n")
        if not kept and len(tail) < size:
            return None
        end = size - len(tail) + len(kept)
        f.seek(0)
        first = f.read(3)
        f.seek(0)
        newlines, at = 0, 0
        unfit = not first.startswith(b"{")
        line_start = b""  # the end of the last block from its last line end, when only blanks follow it
        buffer = bytearray(max(1, min(block, end)))  # one block's room, filled again for each block
        while at < end:
            n = f.readinto(memoryview(buffer)[: min(block, end - at)])
            if not n:
                break
            # A line across two blocks begins with what this one's first bytes hold (a line of more
            # blanks than that is taken for an unfit one: read in memory instead).
            if line_start:
                head = line_start + buffer[: min(256, n)]
                unfit = unfit or _UNFIT_NEXT.match(head) is not None or not head.strip(b" \t\r\n")
            count, fit = _lines_fit(buffer, n)
            unfit = unfit or not fit
            last = buffer.rfind(b"\n", 0, n)
            line_start = bytes(buffer[last:n]) if last >= 0 and not buffer[last + 1 : n].strip(b" \t\r") else b""
            newlines += count
            at += n
    # Blanks after the last line end, up to `end`: a last line of blanks (`end` leaves out line ends only).
    unfit = unfit or bool(line_start)
    return _TextShape(end, newlines + 1, first[:1].isspace(), first.startswith(b"\xef\xbb\xbf"), unfit)


def _plain_jsonl_shape(path: Path) -> _TextShape | None:
    """The shape of a JSONL file that pyarrow can read from the file itself, the text never held
    whole beside its parsing (a month's wheel bets, 970 MB: 1.9 -> 0.9 GiB of heap in use at the
    peak): not gzipped, within AUDITOR_MAX_TEXT_BYTES, its lines numbered as its records (no blank
    line, no byte-order mark or white space before the first). None otherwise: then it is read into
    memory as before."""
    if not path.name.lower().endswith(".jsonl") or path.stat().st_size > _limit("AUDITOR_MAX_TEXT_BYTES", MAX_TEXT_BYTES):
        return None
    shape = _text_shape(path)
    if shape is None or not shape.end or shape.starts_blank or shape.bom or shape.unfit_lines:
        return None
    return shape


def _a_row_a_line(table: pa.Table, lines: int) -> bool:
    """Whether pyarrow's reading of a JSONL text of `lines` lines is one row a line, each one that
    Python's json reads as an object too: not two objects on a line, no row of nulls (a line `null`
    is not an object to Python's json), no NaN or Infinity in a number column (pyarrow reads them,
    JSON has not them, and Python's json, told so by `_not_json`, finds such lines bad; 1e400 pyarrow
    refuses)."""
    if table.num_rows != lines or _has_empty_row(table):
        return False
    return not any(pa.types.is_floating(f.type) and _not_finite(table.column(f.name)) for f in table.schema)


def _has_empty_row(table: pa.Table) -> bool:
    """Whether a row of `table` is null in every column (as pyarrow reads a line `null`, or `{}`).
    Told at once when some column has no null at all, as an id column has."""
    if not table.num_rows:
        return False
    if not table.num_columns:
        return True
    if any(column.null_count == 0 for column in table.columns):
        return False
    empty = pc.is_null(table.column(0))
    for column in table.columns[1:]:
        empty = pc.and_(empty, pc.is_null(column))
    return bool(pc.any(empty).as_py())


def _not_finite(values: pa.ChunkedArray) -> bool:
    """Whether a float column holds a NaN or an infinity."""
    return bool(pc.any(pc.invert(pc.is_finite(values))).as_py())


def _beyond_18_digits(values: pa.ChunkedArray) -> bool:
    """Whether an integer column holds a value of more than 18 digits (INT_PATTERN's limit)."""
    low_high = pc.min_max(values).as_py()
    return low_high["min"] is not None and (low_high["min"] <= -(10**18) or low_high["max"] >= 10**18)


def _line_a_record(table: pa.Table) -> RawTable:
    """pyarrow's reading of a whole JSONL text, a record a line, the rows numbered as they come."""
    rows = table.num_rows
    return RawTable(exact_frame(table), np.arange(1, rows + 1, dtype=np.int64))


def read_jsonl(path: Path, text_columns: list[str] | None = None, int_columns: list[str] | None = None,
               required_columns: Collection[str] = (), format_columns: Collection[str] | None = None,
               float_columns: Collection[str] = (), bool_columns: Collection[str] = ()) -> RawTable:
    """`format_columns`: every column of the format, the only ones read by pyarrow (`_read_piece`;
    None: every column). Read line by line, a file's other columns are read too, and left by the typing.
    `int_columns`, `float_columns`, `bool_columns`: the format's integers, numbers and booleans, which
    pyarrow is told the type of where a piece's first chunk does not show it (`_read_rest`)."""
    kept: Kept | None = None
    if format_columns is not None:
        types = {**dict.fromkeys(int_columns or [], pa.int64()), **dict.fromkeys(float_columns, pa.float64()), **dict.fromkeys(bool_columns, pa.bool_())}
        kept = {name: types.get(name) for name in format_columns}
    try:
        read = _read_jsonl_arrow(path, text_columns or [], int_columns or [], required_columns, kept)
    except _TooWide:
        read = None
    return read if read is not None else _read_jsonl_careful(_open_text(path), kept)


def _read_jsonl_arrow(path: Path, columns: list[str], ints: list[str], required: Collection[str], kept: Kept | None) -> RawTable | None:
    """The file read by pyarrow (`_read_pieces`, `_jsonl_checked`), its bad lines found around it
    (`_around_bad_lines`); None when pyarrow cannot read its good lines either (a number where the
    format has text, values of several JSON types in one column): then it is read line by line."""
    schema = pa.schema([(name, pa.string()) for name in columns])
    shape = _plain_jsonl_shape(path)
    pieces = None
    if shape is not None:
        pieces = _read_pieces(str(path), schema, every=True, kept=kept)
        table = _all_read(pieces, schema, shape.lines, columns, ints, required, lambda: (memoryview(p) for _, p in _json_pieces(str(path))))
        if table is not None:
            return _line_a_record(table)
    data = _open_text(path)
    # Not read from the file itself, it is from the same text in memory.
    if shape is None and _fit_for_arrow(data):
        pieces = _read_pieces(data, schema, every=True, kept=kept)
        lines = data.count(b"\n", 0, _end_of_text(data)) + 1
        table = _all_read(pieces, schema, lines, columns, ints, required, lambda: [data])
        if table is not None:
            del data, pieces  # the text, no longer needed, goes before the frame is made
            return _line_a_record(table)
    around = _around_bad_lines(data, pieces if pieces is not None else _pieces_apart(data, schema, kept), schema, kept, columns, ints, required)
    del data, pieces
    if around is None:
        return None
    table, numbers, errors = around
    return RawTable(exact_frame(table), numbers, errors)


def _all_read(pieces: list[_Piece] | None, schema: pa.Schema, lines: int, columns: list[str], ints: list[str], required: Collection[str],
              texts: Callable[[], Iterable[bytes | memoryview]]) -> pa.Table | None:
    """The pieces' tables as one (`_one_table`, `_jsonl_checked`), when pyarrow read every piece."""
    if pieces is None or any(p.table is None for p in pieces):
        return None
    return _jsonl_checked(_one_table([p.table for p in pieces], schema), lines, columns, ints, required, texts)


def _around_bad_lines(data: bytes, pieces: list[_Piece], schema: pa.Schema, kept: Kept | None, columns: list[str], ints: list[str],
                      required: Collection[str]) -> tuple[pa.Table, np.ndarray, list[LineError]] | None:
    """Some line of `data` is bad (or blank): the pieces pyarrow read one object a line (and of good
    UTF-8, which it does not check) are kept as read; in each of the others the bad lines are found
    (`_good_lines`), and the good lines of all of them read by pyarrow at once, as if the bad ones
    were not there. The table of the good lines in order, their numbers and the bad lines; None
    when pyarrow cannot read them. A file whose last line is cut short is read once, and its last
    piece searched (the month as JSONL, each large file's last line cut: 83 -> 32 s, when all its
    good lines were read twice more). Reading every line into Python objects instead took a 1 GB
    file with one bad line 55 s and 7 GB."""
    end = _end_of_text(data)
    parts: list[pa.Table | list[tuple[int, int]]] = []  # a piece's table, or the runs of good lines of one refused
    numbers: list[np.ndarray] = []
    errors: list[LineError] = []
    number = 1
    for piece in pieces:
        lines = _lines_begun(data, piece.start, piece.stop, end)
        if piece.table is not None and _a_row_a_line(piece.table, lines) and _is_utf8(memoryview(data)[piece.start : piece.stop]):
            parts.append(piece.table)
            numbers.append(np.arange(number, number + lines, dtype=np.int64))
        else:
            # Its last line end left out: pyarrow has refused the rest, which holds no line set apart.
            stop = piece.stop - 1 if data[piece.stop - 1 : piece.stop] == b"\n" else piece.stop
            runs, good, bad = _good_lines(data, piece.start, stop, number, kept)
            parts.append(runs)
            numbers.append(good)
            errors.extend(bad)
        number += data.count(b"\n", piece.start, piece.stop)
    runs = [run for part in parts if isinstance(part, list) for run in part]
    runs_read: pa.Table | None = None
    if runs:
        text = b"\n".join(data[start:stop] for start, stop in runs)
        runs_read = _read_json(text, schema, kept) if _fit_for_arrow(text) else None
        del text
        if runs_read is None or runs_read.num_rows != sum(len(n) for n, part in zip(numbers, parts, strict=True) if isinstance(part, list)):
            return None
    tables, at = [], 0
    for part, found in zip(parts, numbers, strict=True):
        if not isinstance(part, list):
            tables.append(part)
        elif runs_read is not None and len(found):
            tables.append(runs_read.slice(at, len(found)))
            at += len(found)
    if not tables:
        return None
    spans: list[tuple[int, int]] = []  # the good text, for `_keys_absent`
    for piece, part in zip(pieces, parts, strict=True):
        spans.extend(part if isinstance(part, list) else [(piece.start, piece.stop)])
    good_lines = np.concatenate(numbers)
    table = _jsonl_checked(_one_table(tables, schema), len(good_lines), columns, ints, required,
                           lambda: (memoryview(data)[start:stop] for start, stop in spans))
    if table is None:
        return None
    return table, good_lines, sorted(errors, key=lambda e: e.line)


def _pieces_apart(data: bytes, schema: pa.Schema, kept: Kept | None) -> list[_Piece]:
    """A text pyarrow must not be handed whole (`_fit_for_arrow`) in pieces: each line it must not
    read (`_lines_apart`: blank, or not an object) a piece of its own, not read; the text between
    them read by pyarrow a piece at a time (`_read_pieces`). One piece, not read, when there are
    too many such lines."""
    apart = _lines_apart(data)
    if apart is None:
        return [_Piece(0, len(data), None)]
    pieces: list[_Piece] = []
    start = 0
    for line in apart:
        if line > start:
            pieces += _read_pieces((data, start, line), schema, every=True, kept=kept) or []
        end = data.find(b"\n", line)
        start = len(data) if end < 0 else end + 1
        pieces.append(_Piece(line, start, None))
    if start < len(data):
        pieces += _read_pieces((data, start, len(data)), schema, every=True, kept=kept) or []
    return pieces


def _lines_begun(data: bytes, start: int, stop: int, end: int) -> int:
    """How many lines of `data` begin in `data[start:stop]` (which begins one) before `end`, the
    text's end without its trailing line ends."""
    if start >= end:
        return 0
    stop = min(stop, end)
    return data.count(b"\n", start, stop) + (data[stop - 1 : stop] != b"\n")


class _KeysGivenTwice(dict):  # type: ignore[type-arg]
    """A JSON object that gives a key more than once (holding the last value, as Python's json
    keeps it), with the keys it repeats."""

    repeated: list[str]


def _json_object(pairs: list[tuple[str, object]]) -> dict[str, object]:
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    twice = _KeysGivenTwice(obj)
    twice.repeated = sorted(k for k, n in Counter(k for k, _ in pairs).items() if n > 1)
    return twice


def _not_json(name: str) -> object:
    # Python's json reads NaN and Infinity, which JSON (RFC 8259) does not have: a NaN amount read
    # as a missing one would be quarantined for the wrong reason ("required value missing").
    raise ValueError(f"{name} is not a JSON value")


# One decoder for every line (json.loads with an option builds one per call), over text decoded as
# UTF-8, as the format says (json.loads would take bytes for UTF-16, or UTF-8 with surrogates).
_JSON = json.JSONDecoder(object_pairs_hook=_json_object, parse_constant=_not_json)


def _parse_line(raw: bytes, number: int, record: bool = True) -> tuple[dict[str, object] | None, LineError | None]:
    """One stripped, non-blank JSONL line: its record (its cells as `_json_cell` gives them; with
    `record` false, only judged), or why it is a bad line. A line that gives a key twice is bad:
    which value is meant cannot be told (pyarrow refuses such a line too)."""
    try:
        obj = _JSON.decode(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:  # said as a CSV line's is
        return None, LineError(number, f"not UTF-8 text at byte {exc.start + 1}", raw[:80].decode("utf-8", "replace"))
    except (ValueError, RecursionError) as exc:
        # RecursionError: a line nested deeper than the parser's stack, e.g. "[[[[...".
        return None, LineError(number, f"not a JSON object: {type(exc).__name__}: {str(exc)[:120]}", raw[:80].decode("utf-8", "replace"))
    if not isinstance(obj, dict):
        return None, LineError(number, "not a JSON object", raw[:80].decode("utf-8", "replace"))
    if isinstance(obj, _KeysGivenTwice):
        keys = ", ".join(obj.repeated[:5]) + (" ..." if len(obj.repeated) > 5 else "")
        return None, LineError(number, f"a key given more than once in one record: {keys[:120]}", raw[:80].decode("utf-8", "replace"))
    if not record and b"\\u" not in raw:
        return obj, None
    cells = {k: _json_cell(v) for k, v in obj.items()}
    if b"\\u" in raw and any(_LONE_SURROGATE.search(t) for t in (*cells, *cells.values()) if isinstance(t, str)):
        # JSON can escape half of a surrogate pair ("\ud800"): no character, and not writable as UTF-8.
        return None, LineError(number, "not valid text: an escape of half a surrogate pair (\\ud800-\\udfff)", raw[:80].decode("utf-8", "replace"))
    return cells, None


# Lines judged one by one once a run is this short; the bytes pyarrow may read, as a multiple of
# the text's, before the rest is judged line by line (a file whose lines disagree on a column's
# type fails pyarrow in every half, though each line is good JSON).
_LEAF_LINES = 256
_HALVES_BUDGET = 3
_MAX_APART = 10_000


def _good_lines(data: bytes, start: int, stop: int, number: int, kept: Kept | None) -> tuple[list[tuple[int, int]], np.ndarray, list[LineError]]:
    """Of the lines of `data[start:stop]` (the first numbered `number`; `kept`: see `_kept_columns`),
    the byte spans of the runs of good ones (in order), the number of each good one, and the bad
    ones; blank lines are neither. The lines set apart (`_lines_apart`: blank, or not beginning
    as an object does, which pyarrow must never see) are judged one by one by Python's json
    (`_judge_lines`); pyarrow judges the text between them a half at a time: a half it reads whole,
    one JSON object a line (`_all_objects`), is a run of good lines; another is halved again, down
    to runs of `_LEAF_LINES` judged by Python. Given a piece pyarrow refused (`_around_bad_lines`),
    or a text it must not read whole, this costs about one more of pyarrow's readings of it rather
    than Python's parse of every line (a 267 MB text whose last line is cut short: 8.2-9.4 -> 5.5-6.9 s,
    when it was given the whole text). Judged line by line: a text of bad UTF-8 (pyarrow passes it
    into a string) or of more than `_MAX_APART` lines set apart, and whatever is left once pyarrow
    has read the text `_HALVES_BUDGET` times over."""
    runs: list[tuple[int, int]] = []
    numbers: list[np.ndarray] = []
    errors: list[LineError] = []
    apart = _lines_apart(data, start, stop) if _is_utf8(memoryview(data)[start:stop]) else None
    if apart is None:
        _judge_lines(data, start, stop, number, runs, numbers, errors)
    else:
        budget = [_HALVES_BUDGET * (stop - start)]
        for line in [*apart, stop + 1]:  # the offset each line set apart begins at; then the text's end
            if line > start:  # the lines from `start` up to the line end before it
                lines = data.count(b"\n", start, line - 1) + 1
                # The whole text, with no line set apart, is known to fail pyarrow (its reading came first).
                _by_halves(data, start, line - 1, number, lines, runs, numbers, errors, budget, kept, known_bad=not apart)
                number += lines
            if line > stop:
                break
            end = data.find(b"\n", line, stop)
            end = stop if end < 0 else end
            _judge_lines(data, line, end, number, runs, numbers, errors)
            number += 1
            start = end + 1
    errors.sort(key=lambda e: e.line)
    return runs, np.concatenate(numbers) if numbers else np.zeros(0, dtype=np.int64), errors


# A line end before a line that is blank (bytes.strip's blanks) or begins, after JSON's blanks, with
# anything but `{`.
_APART_NEXT = re.compile(rb"\n(?=[ \t\r\x0b\x0c]*(?:\n|\Z)|[ \t\r]*[^{ \t\r\n])")


def _lines_apart(data: bytes, start: int = 0, stop: int | None = None) -> list[int] | None:
    """The offsets at which the lines of `data[start:stop]` that pyarrow must not read begin: blank
    ones (the line after a last line end among them), whose numbers pyarrow would not keep, and
    those that do not begin as an object does (`_unfit_lines`: a row `null` crashes it). None
    when there are more than `_MAX_APART`."""
    stop = len(data) if stop is None else stop
    first = data.find(b"\n", start, stop)
    head = data[start : first if first >= 0 else stop]
    apart = [start] if not head.strip() or not head.lstrip(b" \t\r").startswith(b"{") else []
    for found in _APART_NEXT.finditer(data, start, stop):
        apart.append(found.start() + 1)
        if len(apart) > _MAX_APART:
            return None
    return apart


def _by_halves(data: bytes, start: int, stop: int, number: int, lines: int, runs: list[tuple[int, int]], numbers: list[np.ndarray],
               errors: list[LineError], budget: list[int], kept: Kept | None, known_bad: bool = False) -> None:
    """The `lines` lines of `data[start:stop]` (no blank line among them; the first numbered
    `number`) into `runs`, `numbers` and `errors`, as `_good_lines` says; `known_bad`: pyarrow has
    already failed on them. A stack of spans, the first half on top, so that the runs come out in
    order; each split counts the line ends of its first half only."""
    spans = [(start, stop, number, lines, known_bad)]
    while spans:
        start, stop, number, lines, bad = spans.pop()
        if lines > _LEAF_LINES and budget[0] > 0:
            if not bad:
                budget[0] -= stop - start
                if _all_objects(data, start, stop, lines, kept):
                    runs.append((start, stop))
                    numbers.append(np.arange(number, number + lines, dtype=np.int64))
                    continue
            middle = data.find(b"\n", (start + stop) // 2, stop)
            if middle < 0:
                middle = data.rfind(b"\n", start, stop)
            first = data.count(b"\n", start, middle) + 1
            spans.append((middle + 1, stop, number + first, lines - first, False))
            spans.append((start, middle, number, first, False))
            continue
        _judge_lines(data, start, stop, number, runs, numbers, errors)


def _all_objects(data: bytes, start: int, stop: int, lines: int, kept: Kept | None) -> bool:
    """Whether pyarrow reads `data[start:stop]` (`lines` lines, none blank, each beginning with `{`:
    see `_lines_apart`) as one JSON object a line that Python's json would read too: no row of
    nulls, no NaN or Infinity (which JSON has not), no nested values (where a NaN or bad text inside
    them would go unseen) but in the columns the format does not list (`kept`: see `_kept_columns`).
    Judged a piece at a time: only whether, not what, so the pieces' tables are never put together."""
    pieces = _read_pieces((data, start, stop), None, kept=kept)
    tables = [p.table for p in pieces or [] if p.table is not None]
    return (pieces is not None and sum(t.num_rows for t in tables) == lines
            and all(_a_row_a_line(t, t.num_rows) and not any(pa.types.is_nested(f.type) for f in t.schema) for t in tables))


def _judge_lines(data: bytes, start: int, stop: int, number: int, runs: list[tuple[int, int]], numbers: list[np.ndarray],
                 errors: list[LineError]) -> None:
    """The lines of `data[start:stop]`, the first numbered `number`, judged one by one by Python's
    json: the runs of good ones into `runs`, their numbers into `numbers`, the bad ones into
    `errors`. Numbers kept in machine integers: a hostile file of millions of blank lines must not
    cost a Python object each."""
    good = array("q")
    run_start = start
    while start <= stop:
        end = data.find(b"\n", start, stop)
        end = stop if end < 0 else end
        raw = data[start:end].strip()
        error = _parse_line(raw, number, record=False)[1] if raw else None
        if raw and not error:
            good.append(number)
        else:
            if error:
                errors.append(error)
            if start > run_start:
                runs.append((run_start, start - 1))
            run_start = end + 1
        start = end + 1
        number += 1
    if stop > run_start:
        runs.append((run_start, stop))
    numbers.append(np.frombuffer(good, dtype=np.int64))


def _read_jsonl_careful(data: bytes, kept: Kept | None = None) -> RawTable:
    """Every line into Python objects: for a file pyarrow cannot read even without its bad lines (a
    number where the format has text, values of several JSON types in one column). `kept`: the
    format's columns, the only ones made columns of the table (None: every key)."""
    records: list[dict[str, object]] = []
    lines: list[int] = []
    errors: list[LineError] = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        raw = raw.strip()
        if not raw:
            continue
        record, error = _parse_line(raw, number)
        if error:
            errors.append(error)
            continue
        records.append(record)  # type: ignore[arg-type]
        lines.append(number)
    # Columns are built as object arrays: pandas would turn an int column with nulls into floats,
    # and "5.0" is not the integer the contract asks for.
    names = [k for k in dict.fromkeys(k for rec in records for k in rec) if kept is None or k in kept]
    frame = pd.DataFrame({n: pd.Series([rec.get(n) for rec in records], dtype=object) for n in names})
    return RawTable(frame, np.asarray(lines, dtype=np.int64), errors)


# How Hive, Spark and pyarrow's `write_to_dataset` name the directory of a null partition value.
HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"


def partition_values(directories: Iterable[str], columns: Collection[str]) -> dict[str, str | None]:
    """The cells a partitioned dataset keeps in its directories' names rather than in its files:
    pyarrow's `write_to_dataset(partition_cols=["table_id"])`, Spark and Hive write a table's rows
    of table T1 to `table_id=T1/part-0.parquet`, the column left out of the file. Each `name=value`
    directory whose name is one of `columns` (the format's), its value percent-decoded as those
    writers encode it (left as written where that is not UTF-8), `__HIVE_DEFAULT_PARTITION__` a null;
    the innermost directory wins a name given twice.

    `table_id=T%201/2026/part-0.parquet` -> {"table_id": "T 1"}; `day=2026-03-01/x.parquet` -> {}
    (`day` is no column of the format)."""
    found: dict[str, str | None] = {}
    for directory in directories:
        name, equals, value = directory.partition("=")
        if equals and name in columns:
            try:
                value = unquote(value, errors="strict")
            except UnicodeDecodeError:
                pass
            # A name of bytes that are not UTF-8 (held by Python as lone surrogates): each such byte
            # a replacement character, a value no id of the bundle is.
            value = value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            found[name] = None if value == HIVE_NULL else value
    return found


def with_path_columns(table: pa.Table, columns: Mapping[str, str | None]) -> pa.Table:
    """`table` with each of `columns` (`partition_values`) that it does not hold itself, its value
    in every row, as the text a file would hold (one dictionary entry, not a string a row). A column
    the file holds is read as the file holds it."""
    rows = table.num_rows
    for name, value in columns.items():
        if name in table.column_names:
            continue
        if value is None:
            table = table.append_column(name, pa.nulls(rows, pa.string()))
        else:
            codes = pa.array(np.zeros(rows, dtype=np.int32))
            table = table.append_column(name, pa.DictionaryArray.from_arrays(codes, pa.array([value], pa.string())))
    return table


@dataclass
class ParquetRows:
    """A Parquet file's rows as read, not yet made pandas (`parquet_frame`): its Arrow table (the
    rows of bad text left out), the file's rows, those kept and the errors of those left out. A
    table's files of one schema are made pandas together (`frames_of`)."""

    table: pa.Table
    rows: int  # the file's rows, those left out included
    keep: np.ndarray | None  # the rows kept (None: every one)
    errors: list[LineError]

    @property
    def rows_read(self) -> int:
        return self.rows

    def lines(self) -> np.ndarray:
        """Each kept row's number in the file (1 = the first), in 32 bits where they fit: every row of
        the bundle carries one (13M rows: 52 MB less to copy and to fault in)."""
        numbers = np.arange(1, self.rows + 1, dtype=np.int32 if self.rows < 2**31 - 1 else np.int64)
        return numbers if self.keep is None else numbers[self.keep]


@dataclass
class ParquetRun:
    """Files of one table made pandas together (`frames_of`): their rows one file after another."""

    frame: pd.DataFrame
    files: list[int]  # the files' places in the list `frames_of` was given


def read_parquet(path: Path, category_columns: list[str] | None = None, float_columns: Collection[str] = (),
                 path_columns: Mapping[str, str | None] | None = None, format_columns: Collection[str] | None = None) -> RawTable:
    """`category_columns` read as categories: a value a few bytes a row, not decoded to 4M strings
    that the typing looks up again one by one (the typing takes their few categories instead);
    `float_columns`: see `parquet_frame`; `path_columns`: the columns the part's directories name
    (`with_path_columns`); `format_columns`: the format's, the only ones read (None: every one).
    A column the format does not list is ignored, never read: pandas would make a Python object of
    each of its cells where it holds objects or lists (4M wheel bets with an object and a text
    column more: 1.9 -> 6.9 s), and a cell of it, whatever it holds, says nothing of its row."""
    rows = read_parquet_rows(path, category_columns, path_columns, format_columns)
    runs, failed = frames_of([rows], category_columns or (), float_columns)
    if failed:
        raise failed[0]
    # The row numbers made once the table is converted: the 4M wheel bets' 16 MB beside the
    # conversion raised its peak by as much.
    return RawTable(runs[0].frame, rows.lines(), rows.errors)


def read_parquet_rows(path: Path, category_columns: list[str] | None = None, path_columns: Mapping[str, str | None] | None = None,
                      format_columns: Collection[str] | None = None) -> ParquetRows:
    """`read_parquet`'s rows, not yet made pandas (`frames_of` does)."""
    try:
        parquet = open_parquet(path, category_columns)
    except UnreadableFile:
        raise
    except READ_ERRORS as exc:  # not Parquet, or its footer unreadable: as `read_raw` says it
        raise UnreadableFile(f"{type(exc).__name__}: {exc}") from exc
    try:
        return _read_parquet_rows(parquet, path_columns, format_columns)
    except UnreadableFile:
        raise
    except READ_ERRORS as exc:
        # The footer read, the rows not: their number is known, and they are counted as quarantined.
        raise UnreadableFile(f"{type(exc).__name__}: {exc}", rows=parquet.metadata.num_rows) from exc


def frames_of(files: list[ParquetRows], categories: Collection[str] = (), floats: Collection[str] = ()) -> tuple[list[ParquetRun], dict[int, UnreadableFile]]:
    """The files' rows made pandas (`parquet_frame`): each run of files of one Arrow schema converted
    at once, in order, and the error that makes a file unreadable (a column pandas cannot hold), by
    the file's place, its rows counted. A conversion a file cost the month split into 1,336 day
    files some 14 % of its CPU, and joining their frames copied every row again: one conversion of
    the same rows, their Arrow tables laid end to end uncopied, costs what the month in a file a
    table does. Lets go of the files' tables (`ParquetRows.table`: an empty table after)."""
    runs: list[ParquetRun] = []
    failed: dict[int, UnreadableFile] = {}
    start = 0
    while start < len(files):
        end = start + 1
        while end < len(files) and files[end].table.schema.equals(files[start].table.schema):
            end += 1
        tables = [f.table for f in files[start:end]]
        for f in files[start:end]:
            f.table = f.table.schema.empty_table()
        try:
            # One file's table is converted as it is, no other holder: `exact_frame` frees each of its
            # columns once converted.
            frame = parquet_frame(tables.pop() if len(tables) == 1 else pa.concat_tables(tables), categories, floats)
        except READ_ERRORS as exc:
            if end - start == 1:
                failed[start] = UnreadableFile(f"{type(exc).__name__}: {exc}", rows=files[start].rows)
            else:
                # Which of the files pandas cannot hold is told by converting each on its own.
                for i, table in zip(range(start, end), tables, strict=True):
                    files[i].table = table
                tables.clear()
                for i in range(start, end):
                    one, error = frames_of([files[i]], categories, floats)
                    runs += [ParquetRun(r.frame, [i]) for r in one]
                    failed.update({i: e for e in error.values()})
        else:
            runs.append(ParquetRun(frame, list(range(start, end))))
        tables.clear()
        start = end
    return runs, failed


def _read_parquet_rows(parquet: pq.ParquetFile, path_columns: Mapping[str, str | None] | None,
                       format_columns: Collection[str] | None) -> ParquetRows:
    names = parquet.schema_arrow.names
    _refuse_repeated(names)  # any column's, as a CSV header's (`_header`) and as the audit by partition refuses it
    table = parquet.read(columns=None if format_columns is None else [n for n in names if n in format_columns])
    if path_columns:
        table = with_path_columns(table, path_columns)
    rows = table.num_rows
    errors, decode = bad_text_rows(table)
    keep = None
    if errors:
        keep = np.ones(rows, dtype=bool)
        keep[[e.line - 1 for e in errors]] = False
        table = table.filter(pa.array(keep))
    for name in decode:
        # A dictionary keeps a bad entry once the rows coded with it are gone (or when none is), and
        # pandas makes a category of every entry: such a column is decoded to its rows' values.
        i = table.schema.get_field_index(name)
        table = table.set_column(i, name, table.column(i).cast(table.schema.field(i).type.value_type))
    return ParquetRows(table, rows, keep, errors)


def bad_text_rows(table: pa.Table) -> tuple[list[LineError], list[str]]:
    """The rows (numbered from 1) with a text or bytes cell that is not UTF-8, the first such cell's
    column and byte named, and the dictionary columns holding an entry that is not. Parquet's
    reader does not check the text it hands over, and a cell of bad UTF-8 ended the audit where a
    rule turned it into a Python string; bytes without the UTF-8 annotation made the whole column
    Python's `b'...'` reprs. A row of bad text is set aside, as a line of bad UTF-8 is in CSV."""
    found: dict[int, LineError] = {}
    decode: list[str] = []
    for name, column in zip(table.column_names, table.columns, strict=True):
        kind = column.type.value_type if pa.types.is_dictionary(column.type) else column.type
        if not (pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_binary(kind) or pa.types.is_large_binary(kind)):
            continue
        start = 0
        for chunk in column.chunks:
            coded = pa.types.is_dictionary(chunk.type)
            cells = chunk.dictionary if coded else chunk
            bad = invalid_utf8(cells)
            if len(bad):
                if coded and name not in decode:
                    decode.append(name)
                # A dictionary's bad entry: every row coded with it (a null row's code means nothing).
                codes = pc.fill_null(chunk.indices, -1).to_numpy(zero_copy_only=False) if coded else np.arange(len(chunk))
                for row in np.flatnonzero(np.isin(codes, bad)).tolist():
                    line = start + row + 1
                    if line not in found:  # a row's first bad cell, in the file's column order
                        found[line] = _bad_text(line, name, cells[int(codes[row])].as_buffer().to_pybytes())
            start += len(chunk)
    return [found[line] for line in sorted(found)], decode


def _bad_text(line: int, name: str, raw: bytes) -> LineError:
    """The reason and cell of a row whose `name` cell `raw` is not UTF-8 (as `invalid_utf8` found)."""
    try:
        raw.decode("utf-8")
        reason = "not UTF-8 text"
    except UnicodeDecodeError as exc:
        reason = f"not UTF-8 text at byte {exc.start + 1}"
    return LineError(line, f"{name}: {reason}", raw[:80].decode("utf-8", "replace"))


_CELL_BLOCK = 1 << 16


def invalid_utf8(array: pa.Array) -> np.ndarray:
    """Positions of the cells of a string or binary `array` that are not UTF-8 (null cells aside).
    Checked in place: text all ASCII by its bytes' maximum (the month's 4M bets' text: 2 ms), other
    text by one check of all its bytes (`_cells_are_utf8`); only a block of cells that fails that is
    looked at a cell at a time."""
    n = len(array)
    data = text_bytes(array) if n else np.zeros(0, dtype=np.uint8)
    if not len(data) or data.max() < 128:
        return np.zeros(0, dtype=np.int64)
    written = text_offsets(array)
    offsets = written.astype(np.int64) - int(written[0])
    if _cells_are_utf8(data, offsets[:-1]):
        return np.zeros(0, dtype=np.int64)
    bad: list[int] = []
    for lo in range(0, n, _CELL_BLOCK):
        hi = min(lo + _CELL_BLOCK, n)
        if _cells_are_utf8(data[offsets[lo] : offsets[hi]], offsets[lo:hi] - offsets[lo]):
            continue
        for i in range(lo, hi):
            try:
                data[offsets[i] : offsets[i + 1]].tobytes().decode("utf-8")
            except UnicodeDecodeError:
                bad.append(i)
    found = np.asarray(bad, dtype=np.int64)
    return found[bools(array.is_valid())[found]] if array.null_count and len(found) else found


def _cells_are_utf8(data: np.ndarray, starts: np.ndarray) -> bool:
    """Whether every cell of `data`, cut at `starts`, is UTF-8: the whole is, and no cell begins on a
    continuation byte (a character run across two cells)."""
    inside = starts[starts < len(data)]
    return _is_utf8(data) and not ((data[inside] & 0xC0) == 0x80).any()


def parquet_frame(table: pa.Table, categories: Collection[str] = (), floats: Collection[str] = ()) -> pd.DataFrame:
    """The table as pandas, typed by its Arrow types alone. The writer's pandas metadata is a claim
    about the data, not the data: a file whose metadata calls a text column boolean, or naive times
    UTC, would otherwise fail to convert or be silently re-zoned. A column the writer stored as a
    dictionary is decoded by Arrow unless it is one of `categories` (the enums, the text held as
    codes): pandas makes a Categorical of it, which for an id (a category a row) costs seconds to
    build and as much again to turn back into text (4M bet ids: 7 s). A NaN in one of `floats` (the
    format's measurements) is a value Parquet holds, not a missing one, which pandas would make it:
    such a column comes as Python objects, each NaN the text "NaN", which the typing finds "not a
    number", as CSV's NaN is."""
    names = table.column_names
    _refuse_repeated(names)
    table = table.replace_schema_metadata(None)
    for i, column in enumerate(table.schema):
        if pa.types.is_dictionary(column.type) and (column.name not in categories or not _distinct_names(table.column(i))):
            table = table.set_column(i, column.name, table.column(i).cast(column.type.value_type))
            column = table.schema.field(i)
        as_text = _times_as_text(column.type)
        if as_text is not None:
            # Dates as the text CSV would hold (2026-03-01), typed as CSV's are: pandas makes a Python
            # date of each (the month's 20k: 60 ms), and a date past year 9999, which Arrow holds and
            # Python cannot, made the whole file unreadable; as text it is one bad cell (in a
            # structure too, itself a bad cell where the format has a value).
            try:
                table = table.set_column(i, column.name, table.column(i).cast(as_text))
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                pass  # a structure Arrow cannot recast: converted as it is
            continue
        if pa.types.is_binary(column.type) or pa.types.is_large_binary(column.type):
            # Text written without Parquet's UTF-8 annotation (older writers): read it as the text it is.
            try:
                table = table.set_column(i, column.name, table.column(i).cast(pa.large_string()))
            except pa.ArrowInvalid:
                pass  # not UTF-8: its cells are reported as written
    nans = {name: _nans(table.column(name)) for name in floats if name in names and pa.types.is_floating(table.schema.field(name).type)}
    frame = exact_frame(table)
    for name, at in nans.items():
        if at is not None:
            values = frame[name].to_numpy(dtype=object)
            values[at] = "NaN"
            frame[name] = pd.Series(values, index=frame.index)
    return frame


def _times_as_text(kind: pa.DataType, nested: bool = False) -> pa.DataType | None:
    """`kind` with every date in it made text, and, inside a struct, list or map, every other time
    too (a timestamp, a duration, a time of day): pandas makes a Python object of each value in a
    structure, and Python's cannot hold what Arrow's can (year 148108). None when it holds none."""
    if pa.types.is_date(kind) or (nested and (pa.types.is_timestamp(kind) or pa.types.is_duration(kind) or pa.types.is_time(kind))):
        return pa.large_string()
    if pa.types.is_struct(kind):
        fields = [kind.field(i) for i in range(kind.num_fields)]
        changed = [_times_as_text(f.type, nested=True) for f in fields]
        if not any(c is not None for c in changed):
            return None
        return pa.struct([f.with_type(c) if c is not None else f for f, c in zip(fields, changed, strict=True)])
    if pa.types.is_map(kind):
        key, item = _times_as_text(kind.key_type, nested=True), _times_as_text(kind.item_type, nested=True)
        return None if key is None and item is None else pa.map_(key or kind.key_type, item or kind.item_type)
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind):
        value = _times_as_text(kind.value_type, nested=True)
        if value is None:
            return None
        if pa.types.is_fixed_size_list(kind):
            return pa.list_(value, kind.list_size)
        return pa.large_list(value) if pa.types.is_large_list(kind) else pa.list_(value)
    return None


def _nans(values: pa.ChunkedArray) -> np.ndarray | None:
    """Where a float column holds NaN (not a null); None when nowhere."""
    at = pc.fill_null(pc.is_nan(values), False)
    return at.to_numpy(zero_copy_only=False) if pc.any(at).as_py() else None


def _distinct_names(column: pa.ChunkedArray) -> bool:
    """Whether every chunk's dictionary holds each name once and no null: what pandas needs of a
    Categorical's categories. Parquet does not forbid a writer a dictionary page that repeats a
    value; such a column is decoded to its values instead, not the file refused."""
    return all(not chunk.dictionary.null_count and len(pc.unique(chunk.dictionary)) == len(chunk.dictionary) for chunk in column.chunks)


def _text_names(column: pa.ChunkedArray) -> bool:
    """Whether a dictionary column's names are text, none missing, in at least one chunk."""
    value = column.type.value_type
    return bool(column.num_chunks) and (pa.types.is_string(value) or pa.types.is_large_string(value)) \
        and not any(chunk.dictionary.null_count for chunk in column.chunks)


def exact_frame(table: pa.Table) -> pd.DataFrame:
    """The table as pandas, integer and boolean columns with nulls as pandas' nullable types: pyarrow
    would make them floats, which round integers past 2**53. Text held as a dictionary (its names
    distinct, as `parquet_frame` leaves them) becomes the Categorical pandas would make of it, by
    `text_categories`. Uses up `table`."""
    flags = [f.name for f in table.schema if pa.types.is_boolean(f.type)]
    nullable = [f.name for f in table.schema if pa.types.is_integer(f.type) and table.column(f.name).null_count]
    extra = {n: pd.Series(masked_integers(table.column(n)), copy=False) for n in nullable}
    # Booleans' bits unpacked by numpy (`bools`), not by Arrow a value at a time (the month's 13M
    # flags: some 25 ms).
    for name in flags:
        column = table.column(name)
        values = bools(column)
        extra[name] = pd.Series(pd.arrays.BooleanArray(values, bools(pc.is_null(column))) if column.null_count else values, copy=False)
    coded = [f.name for f in table.schema if pa.types.is_dictionary(f.type) and _text_names(table.column(f.name))]
    for name in coded:
        extra[name] = pd.Series(text_categories(table.column(name)), copy=False)
    # One block per column (no consolidating copy), each Arrow column freed once converted.
    frame = table.drop_columns(nullable + flags + coded).to_pandas(split_blocks=True, self_destruct=True)
    del table
    for name, series in extra.items():
        series.index = frame.index
        frame[name] = series
    return frame
