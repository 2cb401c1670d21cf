"""Small helpers over pandas frames whose strings are Arrow-backed (pandas ≥ 3).

pandas' own `Series.isin` converts an Arrow value set element by element; pyarrow's `is_in` hashes it
natively and is an order of magnitude faster on millions of ids, so membership tests go through here.
"""

from __future__ import annotations

import functools
import weakref
from dataclasses import dataclass
from typing import Literal, NamedTuple, TypeVar

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc


def arrow(values: pd.Series | pd.Index | pa.Array | pa.ChunkedArray | list[object]) -> pa.Array:
    """The values as one pyarrow array (zero-copy for Arrow-backed pandas strings)."""
    if isinstance(values, pa.ChunkedArray):
        return values.combine_chunks()
    if isinstance(values, pa.Array):
        return values
    if isinstance(values, pd.Index):
        values = values.to_series()
    array = pa.array(values, from_pandas=True)
    return array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array


def plain(values: pa.Array) -> pa.Array:
    """Arrow values as their own type: a dictionary's (a Categorical's) decoded."""
    return values.dictionary_decode() if pa.types.is_dictionary(values.type) else values


def by_code(codes: np.ndarray, answers: np.ndarray) -> np.ndarray:
    """Each row's answer by its code (a Categorical's, a dictionary's), `answers` being one for each
    name; a code of -1 (missing) takes the answer of no name (False, or -1). The codes are made
    numpy's index type first: indexing by int8 or int32 codes goes through numpy's casting path,
    twice the time of the cast and the plain gather (4M enum codes: 9.5 -> 4.5 ms). A byte code
    with a byte answer (an enum's code among a few names, whether it is one) is looked up by Arrow's
    take, which reads byte indices as they are, a code of -1 being byte 255 (4M: 10.7 -> 4 ms)."""
    none = np.zeros(1, dtype=answers.dtype) if answers.dtype == bool else np.full(1, -1, dtype=answers.dtype)
    if codes.dtype == np.int8 and answers.dtype.itemsize == 1 and len(answers) < 128:
        table = np.full(256, none[0], dtype=answers.dtype)
        table[: len(answers)] = answers
        found = pc.take(pa.array(table.view(np.uint8)), pa.array(codes.view(np.uint8)))
        return found.to_numpy().view(answers.dtype).copy()  # Arrow's memory is read-only
    return np.append(answers, none)[codes.astype(np.intp, copy=False)]


def bools(values: pa.Array | pa.ChunkedArray, null: bool = False) -> np.ndarray:
    """A boolean Arrow array as numpy's bools, each null as `null`. Its bits unpacked by numpy: Arrow's
    own conversion (`to_numpy`, `to_pandas`) goes a value at a time (4M values: 7.3 -> 0.5 ms)."""
    if isinstance(values, pa.ChunkedArray):
        if values.num_chunks == 1:
            return bools(values.chunk(0), null)
        return np.concatenate([bools(chunk, null) for chunk in values.chunks]) if values.num_chunks else np.zeros(0, dtype=bool)
    if not pa.types.is_boolean(values.type):
        raise TypeError(f"not a boolean array: {values.type}")
    n = len(values)
    if n == 0:
        return np.zeros(0, dtype=bool)
    validity, data = values.buffers()[:2]
    out = _bits(data, values.offset, n)
    if values.null_count:
        valid = _bits(validity, values.offset, n)
        out = (out | ~valid) if null else (out & valid)
    return out


def _bits(buffer: pa.Buffer, offset: int, n: int) -> np.ndarray:
    """Bits offset .. offset + n of an Arrow bitmap (least significant bit first) as numpy bools."""
    data = np.frombuffer(buffer, dtype=np.uint8)[offset // 8 : (offset + n + 7) // 8]
    start = offset % 8
    return np.unpackbits(data, bitorder="little")[start : start + n].view(bool)


def text_categories(column: pa.ChunkedArray) -> pd.Categorical:
    """A column of text held as an Arrow dictionary (of at least one chunk, each dictionary's names
    distinct and present) as pandas makes it (`to_pandas`): a Categorical of the chunks' names, in
    the order each first appears chunk by chunk, its codes of the smallest type that holds them,
    -1 where missing. Arrow's own conversion of the month's 25 such columns: 190-220 -> 90 ms."""
    first = column.chunks[0].dictionary
    if not all(chunk.dictionary.equals(first) for chunk in column.chunks[1:]):
        # One dictionary for every chunk, and each chunk's codes rewritten as codes into it, by
        # Arrow's unifier: the names in the order each first appears, chunk by chunk, as
        # `to_pandas` orders them.
        # Its transposition of the codes is a plain loop; Arrow's take, which checks each code's
        # bounds and nulls, took three to four times as long (4M bets' player ids: 35 -> 10 ms).
        # Codes of fewer bits widened first (a file's stored Arrow schema may ask for int8 codes):
        # the unifier refuses names past what the codes' type holds, where each chunk has fewer.
        if column.type.index_type.bit_width < 32:
            column = column.cast(pa.dictionary(pa.int32(), column.type.value_type))
        column = column.unify_dictionaries()
    chunks = column.chunks
    names = chunks[0].dictionary
    codes = np.empty(len(column), dtype=_code_type(len(names)))
    at = 0
    for chunk in chunks:
        indices = chunk.indices
        part = codes[at : at + len(chunk)]
        part[:] = _values(indices)
        if indices.null_count:
            part[bools(indices.is_null())] = -1
        at += len(chunk)
    categories = pd.Index(names.to_pandas(), dtype="str")
    return pd.Categorical.from_codes(codes, dtype=known_categories(categories), validate=False)


def known_categories(categories: pd.Index) -> pd.CategoricalDtype:
    """The unordered dtype of `categories`, names the caller knows to be distinct and none missing
    (a Parquet dictionary Arrow found so: `readers._distinct_names`, `_text_names`). pandas'
    constructor checks them again, hashing every name while it holds the interpreter's lock (the
    month's 25 dictionary columns: some 36 ms of it an audit, the rules' threads waiting); its own
    fastpath skips the check, and is used where this pandas has it."""
    fast = getattr(pd.CategoricalDtype, "_from_fastpath", None)
    return fast(categories, ordered=False) if fast is not None else pd.CategoricalDtype(categories, ordered=False)  # type: ignore[no-any-return]


def masked_integers(column: pa.ChunkedArray) -> pd.arrays.IntegerArray:
    """An Arrow integer column with nulls as pandas' masked integers (Int64 and its kin), as pandas
    makes it (`types_mapper`), but its mask unpacked by numpy (`bools`) and its chunks' values
    copied once (pandas joins the chunks, then copies them): the month's ten such columns, some
    107 -> 50 ms."""
    data = np.concatenate([_values(chunk) for chunk in column.chunks]) if column.num_chunks else np.zeros(0, dtype=column.type.to_pandas_dtype())
    return pd.arrays.IntegerArray(data, bools(pc.is_null(column)))


def _values(array: pa.Array) -> np.ndarray:
    """An Arrow array of numbers as its values buffer holds them, uncopied and read-only: what lies
    under a null is whatever the buffer holds there (`to_numpy` would make floats of integers with
    nulls)."""
    return np.frombuffer(array.buffers()[1], dtype=array.type.to_pandas_dtype())[array.offset : array.offset + len(array)]


def _code_type(n: int) -> type[np.signedinteger]:
    """The codes' type pandas gives a Categorical of `n` categories."""
    for kind in (np.int8, np.int16, np.int32):
        if n < np.iinfo(kind).max:
            return kind
    return np.int64


def dictionary_codes(values: pa.DictionaryArray) -> np.ndarray:
    """An Arrow dictionary's indices as numpy, -1 where missing (as a Categorical's codes)."""
    return pc.fill_null(values.indices, -1).to_numpy(zero_copy_only=False)


def isin(series: pd.Series, values: object) -> np.ndarray:
    """series.isin(values) as a numpy bool array; nulls are never members."""
    if len(series) == 0:
        return np.zeros(0, dtype=bool)
    left = arrow(series)
    value_set = plain(arrow(values))  # type: ignore[arg-type]
    if len(value_set) == 0:
        return np.zeros(len(series), dtype=bool)
    if pa.types.is_dictionary(left.type):  # text held as codes, an enum: its few names looked up
        return by_code(dictionary_codes(left), isin(left.dictionary.to_pandas(), value_set))
    if value_set.type != left.type:
        try:
            value_set = value_set.cast(left.type)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return (series.isin(pd.Series(value_set.to_pylist())) & series.notna()).to_numpy(dtype=bool)
    if len(value_set) > 4 * len(left) and not value_set.null_count:
        # A few values looked up among many (the orphans' ids among a table's million): Arrow hashes
        # the value set, so hash the few and keep the many that are among them (1M ids: 110 -> 8 ms).
        value_set = value_set.filter(pc.is_in(value_set, value_set=pc.unique(left)))
    return bools(pc.is_in(left, value_set=value_set, skip_nulls=True))


def among(values: pd.Series, names: tuple[str, ...]) -> np.ndarray:
    """values.isin(names) as numpy bools, for a few names: an enum column (Categorical) is compared
    by code, a name at a time (pandas' isin of a Categorical: 40 ms for 2M stakes; a code compared:
    1 ms a name); any other column as `isin`."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        codes = values.array.codes
        out = np.zeros(len(values), dtype=bool)
        for code in np.flatnonzero(values.cat.categories.isin(list(names))):
            out |= codes == code
        return out
    return isin(values, list(names))


def rows_holding(values: pd.Series, wanted: pa.Array | list[str]) -> np.ndarray:
    """The positions, in increasing order, of the rows of `values` (a table's ids) that hold one of
    `wanted` (a few thousand ids a report shows; text, in any order). When the ids are of one width
    and each distinct, in increasing order or in a few increasing runs, as logs write them
    (`_search_index`), each wanted id is found by a binary search of their bytes; otherwise every
    row is probed against a hash of the wanted ones (4M bets: 40-60 ms a table)."""
    ids = arrow(values)
    if not len(ids) or not len(wanted):
        return np.zeros(0, dtype=np.int64)
    # Ids in a few runs are not sorted for this alone: a table's ids are looked up so once or twice
    # (its rows that findings name, kept when it is let go; the report's evidence), and sorting 4M
    # bet ids in 254 runs (a month's day files) took 0.3-0.6 s where hashing the wanted ones and
    # probing every row takes 40-60 ms. An index the items' rounds had built is used.
    index = _search_index(ids, _arrow_source(values), merge_runs=False)
    if index is not None and (index.rows is None or not (index.ordered[1:] == index.ordered[:-1]).any()):
        # Measured in bytes by Arrow, not a Python string at a time (the month's 60k ids: 80 -> 2 ms).
        text = arrow(wanted).cast(pa.large_string())
        text = text.drop_null() if text.null_count else text
        probe = text.filter(pc.equal(pc.binary_length(text), index.width))
        if not len(probe):
            return np.zeros(0, dtype=np.int64)
        found = index.rows_of(_found_in_sorted(index.ordered, _as_fixed_bytes(probe, index.width)))
        return np.unique(found[found >= 0])
    return np.flatnonzero(isin(values, wanted))


def positions(keys: pd.Series | pa.Array, ids: pd.Series | pa.Array) -> np.ndarray:
    """For each key, the position of the first row of `ids` that holds it, or -1 (nulls never match)."""
    if len(keys) == 0:
        return np.zeros(0, dtype=np.int64)
    value_set = plain(arrow(ids))
    left = arrow(keys)
    if len(value_set) == 0:
        return np.full(len(keys), -1, dtype=np.int64)
    if pa.types.is_dictionary(left.type):  # text held as codes: its few names looked up
        return by_code(dictionary_codes(left), positions(left.dictionary, value_set))
    source = _arrow_source(ids)
    if value_set.type != left.type:
        value_set, source = value_set.cast(left.type), None
    if len(left) * 8 < len(value_set):
        return _few_positions(left, value_set)
    merged = _sorted_positions(left, value_set, source)
    if merged is not None:
        return merged
    numbered = _numbered_positions(left, value_set)
    if numbered is not None:
        return numbered
    found = pc.index_in(left, value_set=value_set, skip_nulls=True)
    return found.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64, copy=False)


def _few_positions(keys: pa.Array, ids: pa.Array) -> np.ndarray:
    """`positions` of a few keys among many ids (a thousand items filed away from their rounds, among
    a month's million rounds): the keys' distinct values are hashed and every id probed against
    them, each key's first row the first id found holding it; hashing the million ids to look up
    a thousand keys took 0.23 s."""
    distinct = pc.unique(keys.drop_null() if keys.null_count else keys)
    held = pc.fill_null(pc.index_in(ids, value_set=distinct), -1).to_numpy(zero_copy_only=False)
    rows = np.flatnonzero(held >= 0)
    values, first = np.unique(held[rows], return_index=True)
    first_row = np.full(len(distinct), -1, dtype=np.int64)
    first_row[values] = rows[first]
    at = pc.fill_null(pc.index_in(keys, value_set=distinct), -1).to_numpy(zero_copy_only=False).astype(np.int64)
    return np.where(at >= 0, first_row[np.maximum(at, 0)] if len(first_row) else -1, -1)


def _sorted_positions(keys: pa.Array, ids: pa.Array, source: pa.ChunkedArray | None = None) -> np.ndarray | None:
    """`positions` without hashing, for the way logs are written: ids each the same number of bytes
    (C00000001), in increasing order or in a few increasing runs (`_search_index`), and items grouped
    by their round. Each run of equal keys is looked up once, by binary search among the ids
    compared as the fixed-width bytes they are; a key of another length cannot equal any id. None
    (hash instead) when the data is not so. `source`: the pandas column `ids` come from, uncast
    (`_search_index`)."""
    if not pa.types.is_large_string(keys.type) or len(keys) < 2:
        return None
    index = _search_index(ids, source)
    if index is None:
        return None
    change = bools(pc.not_equal(keys[:-1], keys[1:]), null=True)  # a null is a run of its own
    starts = np.flatnonzero(np.r_[True, change])
    if len(starts) > len(keys) // 2:
        return None  # items not grouped by their round: one hash lookup a key is quicker
    run_keys = keys.take(pa.array(starts))
    sized = pc.fill_null(pc.equal(pc.binary_length(run_keys), index.width), False)
    found = np.full(len(starts), -1, dtype=np.int64)
    if pc.any(sized).as_py():
        probe = _as_fixed_bytes(run_keys.filter(sized), index.width)
        found[sized.to_numpy(zero_copy_only=False)] = index.rows_of(_found_in_sorted(index.ordered, probe))
    # Each run's answer repeated over its keys: one pass, where numbering the runs and gathering by
    # run took two more passes over arrays as long as the items (the three item tables: 0.39 -> 0.35 s).
    # Arrow's decoding of runs, not np.repeat, which holds the interpreter's lock throughout (the
    # month's item tables, in the load's threads: some 60 ms an audit the rules' threads waited
    # behind, py-spy --gil), copied out of Arrow's read-only memory: 4M items, 19 ms by np.repeat,
    # 29 ms in all by Arrow, but two threads at once 37 -> 29 ms.
    decoded = pc.run_end_decode(pa.RunEndEncodedArray.from_arrays(np.append(starts[1:], len(keys)), found))
    return decoded.to_numpy(zero_copy_only=False, writable=True)


@dataclass(frozen=True)
class _SearchIndex:
    """Text ids of one width as bytes in increasing order (`ordered`), and the row of each (`rows`;
    None: the ids' own order, which is already increasing)."""

    width: int
    ordered: np.ndarray
    rows: np.ndarray | None

    def rows_of(self, found: np.ndarray) -> np.ndarray:
        """Positions among `ordered` (-1: none) as rows of the ids."""
        if self.rows is None:
            return found
        return np.where(found >= 0, self.rows[np.maximum(found, 0)], -1)


def _arrow_source(values: object) -> pa.ChunkedArray | None:
    """The Arrow data of a pandas column of Arrow text in one chunk, the same object for as long as
    the column lives (a new Series of the same column included); None for anything else (the ids
    of several chunks are a fresh copy joined for each search, which a kept index would hold on to)."""
    if isinstance(values, pd.Series) and is_arrow_text(values):
        source = values.array.__arrow_array__()
        return source if isinstance(source, pa.ChunkedArray) and source.num_chunks == 1 else None
    return None


_Held = TypeVar("_Held")  # what `_remember` keeps for a column

# Each column's search index, by the identity of its Arrow data, kept as long as that lives and no
# longer (a weak reference, whose end removes it): a round table's ids are looked up by the load for
# its items, again by the let-go and the report for the rows findings name (1M ids: 5-15 ms each
# time, their order and widths). Arrow's arrays cannot be a WeakKeyDictionary's keys (unhashable).
_INDEXES: dict[int, tuple[weakref.ref[pa.ChunkedArray], _SearchIndex | None]] = {}

# Columns known to hold ids in strictly increasing order, held as `_INDEXES`: the load's search for
# repeated ids compares each id with the next already (`later_occurrences`), and the search index
# of the rows it keeps need not do it again (the month's three round tables' ids for their items,
# the item tables' for the let-go and the report: 4M ids compared, 27 ms).
_RISING: dict[int, tuple[weakref.ref[pa.ChunkedArray], bool]] = {}


def _remember(held: dict[int, tuple[weakref.ref[pa.ChunkedArray], _Held]], source: pa.ChunkedArray, value: _Held) -> None:
    """`value` kept in `held` for `source` for as long as `source` lives, and no longer."""
    key = id(source)

    def forget(_: weakref.ref[pa.ChunkedArray]) -> None:
        held.pop(key, None)

    held[key] = (weakref.ref(source, forget), value)


def _recalled(held: dict[int, tuple[weakref.ref[pa.ChunkedArray], _Held]], source: pa.ChunkedArray) -> tuple[bool, _Held | None]:
    """(found, value): what `_remember` kept in `held` for `source` itself (not for an object
    gone whose id it reuses)."""
    kept = held.get(id(source))
    return (True, kept[1]) if kept is not None and kept[0]() is source else (False, None)


def note_rising(values: pd.Series) -> None:
    """Mark `values`, a column of ids in strictly increasing order and no null (`kept_rising`), so
    that its search index takes the order as known. Anything but Arrow text in one chunk
    (`_arrow_source`) is left unmarked."""
    source = _arrow_source(values)
    if source is not None:
        _remember(_RISING, source, True)


def _search_index(ids: pa.Array, source: pa.ChunkedArray | None = None, merge_runs: bool = True) -> _SearchIndex | None:
    """`_ids_search_index(ids)`; with `source`, the pandas column `ids` are (`_arrow_source`), worked
    out once for that column (its order taken as known where `note_rising` marked it). Not
    `merge_runs`: None for ids in a few runs whose index is not already worked out; no None is
    remembered then, so that a caller who will search them often still sorts them."""
    if source is None:
        return _ids_search_index(ids, merge_runs=merge_runs)
    found, index = _recalled(_INDEXES, source)
    if not found:
        index = _ids_search_index(ids, rising=_recalled(_RISING, source)[0], merge_runs=merge_runs)
        if index is not None or merge_runs:
            _remember(_INDEXES, source, index)
    return index


def _ids_search_index(ids: pa.Array, rising: bool = False, merge_runs: bool = True) -> _SearchIndex | None:
    """`ids` ready for a binary search of their bytes (`_found_in_sorted`): text, no null, every id
    of one width. Ids in strictly increasing order, as a log writes them, are searched as they are;
    ids in a few increasing runs (a bundle's parts one after another, each in id order: a run a
    part) are first put in order by numpy's stable sort, a merge of the runs (1M ids in 250 runs:
    30 ms, where hashing 4M items' keys among them takes 440), which keeps equal ids in row order,
    so that the search finds each id's first row. None for ids in no such order (hash instead).
    `rising`: the caller knows the ids to be in strictly increasing order (`note_rising`). Not
    `merge_runs`: ids in a few runs are not sorted (None)."""
    if not pa.types.is_large_string(ids.type) or ids.null_count or len(ids) < 2:
        return None
    width = fixed_width(ids)
    if width is None:
        return None
    data = _as_fixed_bytes(ids, width)
    # Ids not above the one before.
    falls = 0 if rising else len(ids) - 1 - int(pc.sum(pc.less(ids[:-1], ids[1:])).as_py() or 0)
    if not falls:
        return _SearchIndex(width, data, None)
    if falls * 32 > len(ids) or not merge_runs:
        return None
    rows = np.argsort(data, kind="stable")
    return _SearchIndex(width, data[rows], rows)


def _found_in_sorted(sorted_ids: np.ndarray, probe: np.ndarray) -> np.ndarray:
    """For each probe (bytes of one width), its position among `sorted_ids` (the same width, in
    increasing order), or -1: a binary search, each find then checked against the probe. What finds
    items' rounds, a few late rows among ids in order, and the rows a report shows.

    Ids in order share their first bytes (C0000...): when the bytes after them fit in eight, each
    id's last eight bytes (all of a shorter id) are searched as one unsigned integer, which orders as
    the bytes do (900k run keys among 1M round ids: 58 -> 25 ms), not by comparing strings at every
    step; a find is then checked by those integers and the few bytes before them (for ids of 9
    bytes, the first), not byte for byte (gathering the 900k ids found and comparing their bytes:
    13-17 ms, the integers 2 ms). A few probes (planted or late rows after 4M ids in order) are
    searched for as bytes: the ids' integers would cost a pass over them all, and fresh memory for
    it (26 -> 0.1 ms)."""
    if not len(probe) or not len(sorted_ids):
        return np.full(len(probe), -1, dtype=np.int64)
    width = sorted_ids.dtype.itemsize
    ids = sorted_ids.view(np.uint8).reshape(-1, width)
    before = max(width - 8, 0)  # the bytes before an id's integer, which every id shares (below)
    if len(probe) * 64 < len(sorted_ids) or (ids[0, :before] != ids[-1, :before]).any():
        at = np.minimum(np.searchsorted(sorted_ids, probe), len(sorted_ids) - 1)
        return np.where(sorted_ids[at] == probe, at, -1)
    # In increasing order, every id shares the bytes the first and the last share: the integers
    # order the ids. A probe of other first bytes gets some position, and its match is refused.
    probes = probe.view(np.uint8).reshape(-1, width)
    id_keys, probe_keys = _last_eight_as_integer(ids), _last_eight_as_integer(probes)
    at = np.minimum(np.searchsorted(id_keys, probe_keys), len(sorted_ids) - 1)
    same = id_keys[at] == probe_keys
    if before:
        same &= (probes[:, :before] == ids[0, :before]).all(axis=1)
    return np.where(same, at, -1)


def _last_eight_as_integer(rows: np.ndarray) -> np.ndarray:
    """Each row's last eight bytes (all of a shorter row, zeros before them), big-endian, as one
    unsigned integer a row: two rows of one width differing only there order as their integers.
    Rows of eight bytes or more, laid end to end, are read in place (1M ids of 9 bytes: 5.4 ->
    0.7 ms)."""
    n, width = rows.shape
    if width >= 8:
        rows = np.ascontiguousarray(rows)  # a no-op for the fixed-width bytes searched here
        return np.ndarray(shape=(n,), dtype=">u8", buffer=rows, offset=width - 8, strides=(width,)).astype(np.uint64)
    padded = np.zeros((n, 8), dtype=np.uint8)
    padded[:, 8 - width:] = rows
    return padded.view(">u8").ravel().astype(np.uint64)


def fixed_width(text: pa.Array) -> int | None:
    """The byte length every value of `text` has, if they all have the same one (not zero)."""
    lengths = pc.min_max(pc.binary_length(text)).as_py()
    return lengths["min"] if lengths["min"] == lengths["max"] and lengths["min"] else None


def _as_fixed_bytes(text: pa.Array, width: int) -> np.ndarray:
    """Text values all `width` bytes long (not zero) as a numpy array of that many bytes each,
    uncopied. numpy compares them as bytes, as Arrow does; the zero padding it strips cannot make
    two values of the same length equal."""
    return text_bytes(text).view(f"S{width}")


def join_on_key(
    left: pd.DataFrame, right: pd.DataFrame, left_on: str, right_key: str, columns: list[str],
    how: Literal["inner", "left"] = "left", position: str | None = None, at: np.ndarray | None = None,
) -> pd.DataFrame:
    """`left.join(right.set_index(right_key)[columns], on=left_on, how=how)` for a `right` whose keys
    are unique (a table's rows after deduplication): the keys are hashed once by Arrow and every
    column is gathered by position, which spares pandas' join of two string indexes. Rows of `left`
    keep their order and index labels; with how="left" a row without a match gets nulls.
    `position` names a column to hold each row's position in `right` (-1: no match), so that rules can
    group items by their round as integers rather than by hashing ids again; `at` passes positions
    already computed with `positions(left[left_on], right[right_key])`."""
    if at is None:
        at = positions(left[left_on], right[right_key])
    if how == "inner":
        kept = at >= 0
        if not kept.all():
            left, at = left[kept], at[kept]
    clash = [c for c in columns if c in left.columns]
    if clash:
        raise ValueError(f"columns {clash} are on both sides of the join")
    missing = at < 0
    out = left.copy(deep=False)
    for col in columns:
        values = right[col].array
        taken = pd.api.extensions.take(values, at, allow_fill=True) if missing.any() else values.take(at)
        out[col] = pd.Series(taken, index=left.index, copy=False)  # pandas would copy the fresh array
    if position:
        out[position] = pd.Series(at, index=left.index, copy=False)  # a bare array would be copied
    return out


def is_sorted(frame: pd.DataFrame, by: list[str]) -> bool:
    """Whether `frame.sort_values(by, kind="stable")` would keep every row where it is. Logs are
    mostly written in the order a replay needs: checking costs a comparison per key and row, where
    sorting costs a factorisation per key and a copy of every column. Keys with nulls answer False
    (the sort would place them last), as do keys of a kind not compared here. Keys are compared
    first to last, until every pair of rows is told apart: a table's rounds are mostly ordered by
    their first two keys (table and time), and the ids after them are then never compared."""
    n = len(frame)
    if n < 2:
        return True
    tied = np.ones(n - 1, dtype=bool)  # rows i and i+1 equal on the keys compared so far
    for key in by:
        values = frame[key]
        sort_key = None if values.isna().any() else _sort_key(values)
        if sort_key is None:
            return False
        a, b = sort_key[:-1], sort_key[1:]
        same = bools(pc.equal(a, b))
        # The first key on which two rows differ must put the earlier one first. A table's or a
        # shoe's id changes between a few rows of a million: only those are compared for order.
        differ = np.flatnonzero(tied & ~same)
        if len(differ):
            if len(differ) * 8 < n:
                at = pa.array(differ)
                before = bools(pc.less(a.take(at), b.take(at)))
            else:
                before = bools(pc.less(a, b))[differ]
            if not before.all():
                return False
        tied &= same
        if not tied.any():
            return True
    return True


def stable_sorted(frame: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """`frame.sort_values(by, kind="stable")`, or `frame` itself when no row would move (labels kept).
    The order is Arrow's stable multi-key sort where every key is of a kind `_sort_key` knows:
    pandas factorises each key first, ids and all (1M coups: 1.2 s, Arrow 0.2 s)."""
    if is_sorted(frame, by):
        return frame
    keys = {f"k{i}": _sort_key(frame[key]) for i, key in enumerate(by)}
    if any(k is None for k in keys.values()):
        return frame.sort_values(by, kind="stable")
    order = pc.sort_indices(pa.table(keys), sort_keys=[(name, "ascending") for name in keys])  # nulls at the end
    return frame.take(order.to_numpy())


def _sort_key(values: pd.Series) -> pa.Array | None:
    """The column as Arrow values that sort as pandas sorts them, missing values last; None for a
    kind not handled here."""
    dtype = values.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        codes = values.array.codes
        return pa.array(codes, mask=codes < 0)  # an unordered categorical sorts by its codes
    if pd.api.types.is_bool_dtype(dtype) or dtype == object:
        return None
    if pd.api.types.is_string_dtype(dtype):
        return text_array(values)  # UTF-8 bytes in order: the order of code points, Python's
    if pd.api.types.is_datetime64_any_dtype(dtype):
        return pa.array(np.asarray(values.array.asi8), mask=values.isna().to_numpy(dtype=bool))  # instants
    if pd.api.types.is_integer_dtype(dtype) or pd.api.types.is_float_dtype(dtype):
        return arrow(values)  # NaN and NA as null
    return None


def first_occurrences(ids: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """For each id, the position of the first row that holds it (-1 for a null), and the distinct
    non-null ids: `later_occurrences` with a position for every row."""
    rows, firsts, distinct, _ = later_occurrences(ids)
    codes = np.arange(len(ids), dtype=np.int64)
    codes[rows] = firsts
    return codes, distinct


class Occurrences(NamedTuple):
    """`later_occurrences`' answer."""

    rows: np.ndarray  # rows, in increasing order, not the first to hold their id (and every null)
    firsts: np.ndarray  # the first row holding each one's id (-1 for a null)
    distinct: pa.Array  # the distinct non-null ids (none where not asked for)
    # The rows i whose next id (row i + 1) is not above theirs, a null either side counting so: a
    # few (one in 32 rows at most); None where more (ids in no order). Empty: every id above the one
    # before it (`kept_rising`).
    falls: np.ndarray | None


def later_occurrences(ids: pa.Array, distinct: bool = True) -> Occurrences:
    """(rows, firsts, distinct, falls): the rows, in increasing order, that are not the first
    occurrence of their id (every null among them, its first -1), the first row holding each one's
    id, the distinct non-null ids, and the rows where the ids' order falls (`Occurrences.falls`,
    for `kept_rising`). Held so rather than as a position for every row: ids repeat at a few rows
    of millions, and a row-sized array and its comparison with each row's own position were two
    passes over fresh memory (4M bets with planted repeats: their deduplication 0.10 -> 0.05 s).
    With `distinct` False (ids no other table names: items) the distinct ids may be left out, where
    gathering them would copy millions of ids for nothing (4M bets: 38 ms and 50 MB).

    Logs are usually written in id order: the longest strictly increasing prefix (the head) holds
    distinct ids by comparison alone, and only the rows after it (the tail) are hashed. Out-of-order
    logs are counted by number when numbered in sequence (`_first_by_number`), else merged by
    sorting when written in a few runs, else hashed by numpy when the ids are of one width, else
    dictionary-encoded by Arrow; every way gives the same answer."""
    n = len(ids)
    none = np.zeros(0, dtype=np.int64)
    if n == 0:
        return Occurrences(none, none, ids, none)
    rising = bools(pc.less(ids[:-1], ids[1:]))
    broken = np.flatnonzero(~rising)
    falls = broken if len(broken) * 32 <= n else None
    k = int(broken[0]) + 1 if len(broken) else n  # rows [0, k) are strictly increasing
    if not ids[0].is_valid:
        k = 0
    if k < max(1, n // 2):
        codes, distinct = _first_anywhere(ids, few_runs=falls is not None)
        rows = np.flatnonzero(codes != np.arange(n))
        return Occurrences(rows, codes[rows], distinct, falls)
    if k == n:
        return Occurrences(none, none, ids, none)
    head, tail = ids[:k], ids[k:]
    in_head = _in_rising(head, tail)
    from_head = in_head >= 0
    # The other tail rows: their first occurrence is within the tail (recursively, the same way).
    rest = np.flatnonzero(~from_head)
    rest_codes, rest_distinct = first_occurrences(tail.take(pa.array(rest, type=pa.int64())))
    first = in_head  # each tail row's first occurrence, in the bundle's positions
    first[rest] = np.where(rest_codes >= 0, k + rest[np.maximum(rest_codes, 0)], -1)
    later = np.flatnonzero(first != np.arange(k, n))
    if not distinct:
        return Occurrences(k + later, first[later], head[:0], falls)
    # Every tail row repeating the head (planted duplicates): the head is the distinct ids, uncopied.
    return Occurrences(k + later, first[later], pa.concat_arrays([head, rest_distinct]) if len(rest_distinct) else head, falls)


def kept_rising(ids: pa.Array, keep: np.ndarray, falls: np.ndarray | None) -> bool:
    """Whether the ids of the rows `keep` marks (two or more), in their order, are each above the
    one before, none null: for ids whose `later_occurrences` gave `falls`. Between two falls the ids
    rise, so only each pair of kept rows on either side of a fall is compared (a bundle's planted
    repeats among 4M ids: a few comparisons, not 4M). False where `falls` is None (ids in no order)."""
    if falls is None:
        return False
    kept = np.flatnonzero(keep)
    if len(kept) < 2:
        return False
    after = np.searchsorted(kept, falls, side="right")  # each fall's first kept row past it
    after = np.unique(after[(after > 0) & (after < len(kept))])
    if not len(after):
        return True
    before_fall = ids.take(pa.array(kept[after - 1]))
    past_fall = ids.take(pa.array(kept[after]))
    return bool(bools(pc.less(before_fall, past_fall)).all())


def _first_anywhere(ids: pa.Array, few_runs: bool) -> tuple[np.ndarray, pa.Array]:
    """`first_occurrences` of ids in no particular order (`few_runs`: increasing in a few runs).
    Ids numbered in sequence are counted by number even in a few runs: the month split by day
    (4M wheel bets' ids in 254 runs), 259 ms where merging the runs by sorting took 621 ms."""
    numbered = _first_by_number(ids)
    if numbered is not None:
        return numbered
    if few_runs:
        merged = _first_by_sorting(ids)
        if merged is not None:
            return merged
    hashed = _first_by_hashing(ids)
    if hashed is not None:
        return hashed
    return _first_by_dictionary(ids)


def _in_rising(head: pa.Array, tail: pa.Array) -> np.ndarray:
    """For each id of `tail`, its position in `head` (strictly increasing ids, no null), or -1.
    Ids of one width in the head are searched for as the bytes they are, a binary search a tail id
    (a few planted rows after 4M ids: 37 ms of hashing and probing the head -> 1 ms); otherwise the
    head is probed against a hash of the (short) tail, then the tail matched against just those
    head rows."""
    width = fixed_width(head) if len(tail) * 64 < len(head) else None
    if width is not None and (pa.types.is_string(head.type) or pa.types.is_large_string(head.type)):
        found = np.full(len(tail), -1, dtype=np.int64)
        sized = np.flatnonzero(bools(pc.equal(pc.binary_length(tail), width)))
        if len(sized):
            found[sized] = _found_in_sorted(_as_fixed_bytes(head, width), _as_fixed_bytes(tail.take(pa.array(sized, type=pa.int64())).cast(head.type), width))
        return found
    shared = np.flatnonzero(bools(pc.is_in(head, value_set=tail)))
    in_head = pc.index_in(tail, value_set=head.take(pa.array(shared, type=pa.int64())), skip_nulls=True)
    in_head = pc.fill_null(in_head, -1).to_numpy(zero_copy_only=False).astype(np.int64)
    return np.where(in_head >= 0, shared[np.maximum(in_head, 0)] if len(shared) else -1, -1)


def _sortable(parts: list[pa.Array]) -> np.ndarray | None:
    """The non-null text ids of `parts` as one numpy array of bytes of one width, which numpy orders
    and compares as Arrow does: one part of ids all of one length uncopied, else every id padded
    with NUL bytes to the longest (S001960238, C00500569-ABON). A part whose ids all have one
    length is padded by numpy as it copies their bytes; any other by Arrow, a character at a time.
    None when they are not text, or cannot be padded apart (an id holding a NUL byte, or characters
    beyond ASCII in a part Arrow pads: it counts characters) or padding would multiply them (one very
    long id among short ones)."""
    present = [p for p in (p.drop_null() if p.null_count else p for p in parts) if len(p)]
    if not present or not all(pa.types.is_string(p.type) or pa.types.is_large_string(p.type) for p in present):
        return None
    widths = [fixed_width(p) for p in present]
    if len(present) == 1 and widths[0] is not None:
        return _as_fixed_bytes(present[0], widths[0])
    rows = sum(len(p) for p in present)
    longest = max(w if w is not None else int(pc.max(pc.binary_length(p)).as_py()) for p, w in zip(present, widths, strict=True))
    data = [text_bytes(p) for p in present]
    if not longest or longest * rows > 2 * sum(len(d) for d in data) + (1 << 20):
        return None
    if any((d == 0).any() for d in data) or not all(pc.all(pc.string_is_ascii(p)).as_py() for p, w in zip(present, widths, strict=True) if w is None):
        return None
    keys = np.zeros(rows, dtype=f"S{longest}")
    start = 0
    # Parts in order, each of one width but for a few (planted rows, orphans): numpy's copy pads
    # (4M bet ids in 254 parts: 126 -> 51 ms).
    for p, w in zip(present, widths, strict=True):
        keys[start:start + len(p)] = _as_fixed_bytes(p, w) if w is not None else _as_fixed_bytes(pc.utf8_rpad(p, width=longest, padding="\x00"), longest)
        start += len(p)
    return keys


def written_again(ids: pa.Array, rows: np.ndarray, firsts: np.ndarray) -> set[str]:
    """The ids of the rows that are not their id's first occurrence (`rows` and `firsts`:
    `later_occurrences`), nulls aside."""
    return set(ids.take(pa.array(rows[firsts >= 0], type=pa.int64())).to_pylist())


def repeated_ids(parts: list[pa.Array]) -> set[str]:
    """The ids that occur more than once among `parts` (nulls aside), as `later_occurrences` of their
    concatenation tells them, with less memory where no positions are needed: the ids as bytes of
    one width (`_sortable`) sorted in place, equal neighbours kept. Ids it cannot take, or holding
    a NUL byte (numpy drops those that end a value), go through `later_occurrences`."""
    keys = _sortable(parts)
    if keys is None or any((text_bytes(p) == 0).any() for p in parts if len(p)):
        every = pa.concat_arrays(parts) if parts else pa.array([], type=pa.large_string())
        return written_again(every, *later_occurrences(every)[:2])
    keys = keys if keys.flags.writeable else keys.copy()  # uncopied Arrow memory is read-only
    # Parts in part order usually hold ids in increasing order, but for a few planted or late rows:
    # numpy's stable sort (a merge of the runs already in order) then beats its quicksort (4M bet
    # ids: 0.53 -> 0.12 s); ids in no order sort faster by quicksort (1.06 s against 1.25 s).
    descents = np.count_nonzero(keys[1:] < keys[:-1])
    keys.sort(kind="stable" if descents * 32 <= len(keys) else "quicksort")
    twice = keys[1:][keys[1:] == keys[:-1]]
    return {value.decode("utf-8") for value in np.unique(twice)}


def _first_by_sorting(ids: pa.Array) -> tuple[np.ndarray, pa.Array] | None:
    """`first_occurrences` for ids written in a few increasing runs (a file a day, or a day's file table
    by table, each in id order): numpy's stable sort of the ids as fixed-width bytes merges the runs
    and brings equal ids together, each group's first row first. 13M ids in 1,300 runs: 1.0 s, where
    hashing them took 2.3 s. None when the ids are not text that can be made of one width."""
    present = ids.drop_null() if ids.null_count else ids
    keys = _sortable([present])
    if keys is None:
        return None
    order = np.argsort(keys, kind="stable")
    ranked = keys[order]
    new = np.empty(len(ranked), dtype=bool)
    new[0] = True
    np.not_equal(ranked[1:], ranked[:-1], out=new[1:])
    firsts = order[new]  # each distinct id's first row among the present ones
    first = np.empty(len(present), dtype=np.int64)
    first[order] = firsts[np.cumsum(new) - 1]
    distinct = present.take(pa.array(np.sort(firsts)))  # in the order they first occur, as hashing gives
    if not ids.null_count:
        return first, distinct
    at = np.flatnonzero(bools(ids.is_valid()))
    codes = np.full(len(ids), -1, dtype=np.int64)
    codes[at] = at[first]
    return codes, distinct


_HASH_ROWS = 1 << 20  # ids hashed a block at a time: a padded copy of every id would be held at once


def _row_hashes(data: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each row of `data` (an (n, width) uint8 matrix): its bytes, padded to whole
    words, mixed a word at a time. Equal rows hash alike; unequal rows rarely do."""
    n, width = data.shape
    hashes = np.empty(n, dtype=np.uint64)
    padded = np.zeros((min(n, _HASH_ROWS), -(-width // 8) * 8), dtype=np.uint8)
    for start in range(0, n, _HASH_ROWS):
        block = data[start : start + _HASH_ROWS]
        padded[: len(block), :width] = block
        h = hashes[start : start + len(block)]
        h[:] = np.uint64(0x9E3779B97F4A7C15)
        for word in padded[: len(block)].view(np.uint64).T:
            np.bitwise_xor(h, word, out=h)
            np.multiply(h, np.uint64(0xBF58476D1CE4E5B9), out=h)
            np.bitwise_xor(h, h >> np.uint64(31), out=h)
    return hashes


def _first_by_hashing(ids: pa.Array) -> tuple[np.ndarray, pa.Array] | None:
    """`first_occurrences` for ids of one byte width in no order (UUIDs, hashes, shuffled rows): a
    32-bit key of each id's hash (`_row_hashes`), and only the ids whose key another id also has are
    compared as text (`_first_by_dictionary`), so the answer is exact whatever the hash. 4M UUIDs: 0.2 s,
    where Arrow's dictionary encoding of them all took 0.66 s. None for ids with nulls or of
    several widths."""
    if ids.null_count or not (pa.types.is_string(ids.type) or pa.types.is_large_string(ids.type)):
        return None
    width = fixed_width(ids)
    if width is None:
        return None
    n = len(ids)
    # The hash's high 32 bits (its best mixed) are the key: numpy sorts 32-bit keys in some 60 % of
    # the time it takes for 64-bit ones, and the rows whose keys collide by chance (some 3,700 of 4M
    # ids) are compared as text with the rows truly repeated. 4M UUIDs with 667 repeated: 490 -> 280 ms.
    keys = (_row_hashes(text_bytes(ids).reshape(n, width)) >> np.uint64(32)).astype(np.uint32)
    ranked = np.sort(keys)
    shared = np.unique(ranked[1:][ranked[1:] == ranked[:-1]])
    codes = np.arange(n, dtype=np.int64)
    if not len(shared):
        return codes, ids
    # The rows holding a shared key: a table of the keys' low 24 bits picks the few that may (a
    # binary search of every row among the shared keys took three times as long as the hashing).
    low = np.uint32((1 << 24) - 1)
    table = np.zeros(1 << 24, dtype=bool)
    table[(shared & low).astype(np.intp)] = True
    maybe = np.flatnonzero(table[(keys & low).astype(np.intp)])
    candidates = maybe[in_sorted(keys[maybe], shared)]
    first, _ = _first_by_dictionary(ids.take(pa.array(candidates)))
    codes[candidates] = candidates[first]
    firsts = codes == np.arange(n)
    return codes, (ids if firsts.all() else ids.filter(pa.array(firsts)))


@dataclass(frozen=True)
class _Numbering:
    """How a log numbers its ids: one `prefix` (text ending in no digit, maybe empty) and a number of
    `digits` decimal digits, zero-padded (WB002805029: "WB" and 9 digits)."""

    prefix: str
    digits: int

    @property
    def width(self) -> int:
        return len(self.prefix.encode()) + self.digits


_SAMPLED_IDS = 33  # ids looked at to tell how a table numbers them
_NUMBERED_AT_LEAST = 1 << 16  # ids fewer than this are hashed: telling their numbering would not pay


def _numbering(ids: pa.Array) -> _Numbering | None:
    """The numbering most of a sample of `ids` follow, or None (UUIDs, names, several numberings)."""
    picks = np.unique(np.linspace(0, len(ids) - 1, _SAMPLED_IDS).astype(np.int64))
    seen: dict[_Numbering, int] = {}
    for value in ids.take(pa.array(picks)).to_pylist():
        if not isinstance(value, str):
            continue
        prefix = value.rstrip("0123456789")  # ASCII digits: other scripts' are never a number's here
        digits = len(value) - len(prefix)
        if 1 <= digits <= 18:  # what an int64 holds
            key = _Numbering(prefix, digits)
            seen[key] = seen.get(key, 0) + 1
    if not seen:
        return None
    best, count = max(seen.items(), key=lambda kv: kv[1])
    return best if count * 2 > len(picks) else None


def _numbers(ids: pa.Array, numbering: _Numbering) -> tuple[np.ndarray, np.ndarray]:
    """(numbered, numbers): which ids are written as `numbering` says (no null among them), and each
    one's number (0 for the others). Two numbered ids are equal exactly when their numbers are: the
    same prefix and as many digits. The digits are each id's last bytes, read from Arrow's buffer
    where they lie."""
    n = len(ids)
    offsets = text_offsets(ids)
    data = text_bytes(ids)
    ends = offsets[1:] - offsets[0]
    numbered = (ends - (offsets[:-1] - offsets[0])) == numbering.width
    if ids.null_count:
        numbered &= bools(ids.is_valid())
    numbers = np.zeros(n, dtype=np.int64)
    if not numbered.any():
        return numbered, numbers
    first = np.where(numbered, ends - numbering.digits, 0)  # where each numbered id's digits start
    # A pass a digit, each reading that digit of every id at once (the buffer from that digit on,
    # taken at the ids' first digits), the number of the last nine held in 32 bits, half the memory
    # to stream through that 64 would be: 4M ids in about 0.1 s.
    digit = np.empty(n, dtype=np.uint8)
    largest = np.zeros(n, dtype=np.uint8)
    last_nine = np.zeros(n, dtype=np.uint32)
    before = None  # the number of the digits before the last nine
    for j in range(numbering.digits):
        if j == numbering.digits - 9:
            before = last_nine.astype(np.int64)
            last_nine[:] = 0
        np.take(data[j:], first, out=digit)
        digit -= 48  # a byte below "0" wraps past 9
        np.maximum(largest, digit, out=largest)
        last_nine *= 10
        last_nine += digit
    numbered &= largest <= 9
    np.copyto(numbers, last_nine, casting="safe")
    if before is not None:
        numbers += before * 1_000_000_000
    if numbering.prefix:
        numbered &= bools(pc.starts_with(ids, pattern=numbering.prefix))
    numbers[~numbered] = 0
    return numbered, numbers


def _dense(numbers: np.ndarray) -> tuple[int, int] | None:
    """(lowest, span) of `numbers` when a table of one entry a number in that span is small, as
    numbers given in sequence are (at most twice as many entries as numbers); None otherwise."""
    if not len(numbers):
        return None
    lowest, highest = int(numbers.min()), int(numbers.max())
    span = highest - lowest + 1
    return (lowest, span) if span <= 2 * len(numbers) + 1024 else None


def _first_of_numbers(numbers: np.ndarray, rows: np.ndarray, lowest: int, span: int) -> tuple[np.ndarray, np.ndarray]:
    """(repeated, first): the `rows` whose number another of them also holds, and the first of those
    rows holding each one's number; `rows` increasing, `numbers` theirs, within `span` of `lowest`."""
    entry = numbers - lowest
    twice = np.flatnonzero(np.bincount(entry, minlength=span) > 1)
    if not len(twice):  # as in most logs: no number held twice, and no row to look at again
        return rows[:0], rows[:0]
    marked = np.zeros(span, dtype=bool)
    marked[twice] = True
    repeated = np.flatnonzero(marked[entry])
    # Each number's first occurrence among the repeated (in row order), for each of them.
    _, first, inverse = np.unique(numbers[repeated], return_index=True, return_inverse=True)
    return rows[repeated], rows[repeated[first[inverse]]]


@dataclass(frozen=True)
class _NumberedIds:
    """Ids most of which are numbered in sequence (`_Numbering`): which are (`numbered`, rows
    `rows`), their `numbers`, all within `span` of `lowest`."""

    numbered: np.ndarray
    numbers: np.ndarray
    rows: np.ndarray
    lowest: int
    span: int
    numbering: _Numbering


def _numbered_ids(ids: pa.Array) -> _NumberedIds | None:
    """`ids` as numbers where most are numbered in sequence, densely enough for a table of one entry
    a number (`_dense`); None otherwise (UUIDs, names, numbers far apart, several numberings)."""
    if not (pa.types.is_string(ids.type) or pa.types.is_large_string(ids.type)):
        return None
    numbering = _numbering(ids)
    if numbering is None:
        return None
    numbered, numbers = _numbers(ids, numbering)
    rows = np.flatnonzero(numbered)
    dense = _dense(numbers[rows]) if len(rows) * 2 > len(ids) else None
    return None if dense is None else _NumberedIds(numbered, numbers, rows, *dense, numbering)


def _first_by_number(ids: pa.Array) -> tuple[np.ndarray, pa.Array] | None:
    """`first_occurrences` of ids numbered in sequence (`_Numbering`) in no order (a log shuffled, or
    written in time order across tables): equal ids are equal numbers, counted in a table of one
    entry a number; the few ids numbered otherwise (planted, orphans) are hashed among themselves,
    as no numbered id can equal them. 4M shuffled bets' ids: 0.19 s, where Arrow's dictionary
    encoding took 0.6 s. None when most ids are not numbered so, or too sparsely."""
    n = len(ids)
    got = _numbered_ids(ids) if n >= _NUMBERED_AT_LEAST else None
    if got is None:
        return None
    codes = np.arange(n, dtype=np.int64)
    if ids.null_count:
        codes[bools(ids.is_null())] = -1
    repeated, first = _first_of_numbers(got.numbers[got.rows], got.rows, got.lowest, got.span)
    codes[repeated] = first
    others = np.flatnonzero(~got.numbered & (codes >= 0))
    if len(others):
        within, _ = _first_by_dictionary(ids.take(pa.array(others)))
        codes[others] = others[within]
    firsts = codes == np.arange(n)
    return codes, (ids if firsts.all() else ids.filter(pa.array(firsts)))


def _numbered_positions(keys: pa.Array, ids: pa.Array) -> np.ndarray | None:
    """`positions` where the ids are numbered in sequence (`_Numbering`) and the keys in no order
    (items of a log shuffled, or written in time order across tables): each id's row put in a
    table of one entry a number, each numbered key looked up there; keys numbered otherwise can
    only equal ids numbered otherwise, and are hashed among those. 4M shuffled bets among 1M spins:
    0.16-0.18 s, where Arrow's `index_in` took 0.55-0.58 s. None when most ids are not numbered
    so, or too sparsely."""
    got = _numbered_ids(ids) if len(keys) >= _NUMBERED_AT_LEAST and keys.type == ids.type else None
    if got is None:
        return None
    numbers, rows = got.numbers, got.rows
    table = np.full(got.span, -1, dtype=np.int64)
    table[numbers[rows] - got.lowest] = rows  # an id held by several rows: one of them, put right below
    repeated, first = _first_of_numbers(numbers[rows], rows, got.lowest, got.span)
    table[numbers[repeated] - got.lowest] = first  # the same value for each row of a number: its first
    key_numbered, key_numbers = _numbers(keys, got.numbering)
    found = np.full(len(keys), -1, dtype=np.int64)
    at = np.flatnonzero(key_numbered)
    entry = key_numbers[at] - got.lowest
    inside = (entry >= 0) & (entry < got.span)
    found[at[inside]] = table[entry[inside]]
    odd_ids = np.flatnonzero(~got.numbered & bools(ids.is_valid()))
    if len(odd_ids):
        odd_keys = np.flatnonzero(~key_numbered & bools(keys.is_valid()))
        if len(odd_keys):
            index = pc.index_in(keys.take(pa.array(odd_keys)), value_set=ids.take(pa.array(odd_ids)))
            index = pc.fill_null(index, -1).to_numpy(zero_copy_only=False).astype(np.int64)
            hit = index >= 0
            found[odd_keys[hit]] = odd_ids[index[hit]]
    return found


def _first_by_dictionary(ids: pa.Array) -> tuple[np.ndarray, pa.Array]:
    n = len(ids)
    encoded = pc.dictionary_encode(ids)
    if len(encoded.dictionary) == n - ids.null_count:
        # Every id once (ids in no order, as hashes or UUIDs are): each row is its own first, and the
        # distinct ids are the column itself, not a second copy of every id held for the audit.
        distinct = ids if not ids.null_count else ids.drop_null()
        codes = np.arange(n, dtype=np.int64)
        if ids.null_count:
            codes[bools(ids.is_null())] = -1
        return codes, distinct
    codes = pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False).astype(np.int64)
    known = codes >= 0
    if not known.any():
        return np.full(n, -1, dtype=np.int64), encoded.dictionary
    first = np.full(len(encoded.dictionary), n, dtype=np.int64)
    np.minimum.at(first, codes[known], np.flatnonzero(known))
    return np.where(known, first[np.maximum(codes, 0)], -1), encoded.dictionary


def masked_numbers(values: pd.Series) -> tuple[np.ndarray, np.ndarray | None]:
    """(numbers, missing) of a number column as numpy, with no copy: the column itself, or the
    values and mask of pandas' nullable array (missing None: none can be; a float column's NaN
    then stands for missing). Bound checks on them skip pandas' masks and fills around each
    comparison (16 bound checks of the benchmark's columns: 0.16 -> 0.03 s), and a rule reading a
    nullable column of millions takes them as held; integers compare exactly."""
    if isinstance(values.dtype, np.dtype) and values.dtype.kind in "iuf":
        return values.to_numpy(), None
    array = values.array
    data, mask = getattr(array, "_data", None), getattr(array, "_mask", None)  # pandas' masked arrays since 1.0
    if isinstance(data, np.ndarray) and isinstance(mask, np.ndarray) and data.dtype.kind in "iuf":
        return data, mask
    return values.to_numpy(dtype="float64", na_value=np.nan), None  # NaN: no comparison holds


def instants(values: pd.Series) -> np.ndarray:
    """A column of times as numpy's datetime64 in the unit it is held in (a zoned column's instants,
    in UTC), NaT where missing: the column's own memory, not a copy. numpy's comparisons with NaT
    are False, as pandas' are once their missing answers are filled with False; two columns of
    different units compare as the instants they are. 4M wheel bets' times compared: 20 -> 8 ms."""
    if not (isinstance(values.dtype, pd.DatetimeTZDtype) or values.dtype.kind == "M"):
        raise TypeError(f"instants: {values.name!r} holds {values.dtype}, not times")
    return values.to_numpy(dtype=values.dtype.base)


def differs_from_previous(values: pd.Series) -> np.ndarray:
    """`(values != values.shift()).to_numpy()`: whether each row's value differs from the row
    before, the first row and a missing value on either side always differing. Compares each row
    with the next in place (codes of a Categorical, Arrow text, numbers), where the shift copies the
    column first (1M ids: a copy of their text per comparison)."""
    n = len(values)
    out = np.ones(n, dtype=bool)
    if n < 2:
        return out
    if isinstance(values.dtype, pd.CategoricalDtype):
        codes = values.array.codes
        out[1:] = (codes[1:] != codes[:-1]) | (codes[1:] < 0)
        return out
    if is_arrow_text(values):
        text = arrow(values)
        out[1:] = bools(pc.not_equal(text[1:], text[:-1]), null=True)
        return out
    if isinstance(values.dtype, np.dtype) and values.dtype.kind in "iub":
        raw = values.to_numpy()
        out[1:] = raw[1:] != raw[:-1]
        return out
    out[1:] = (values != values.shift()).to_numpy(dtype=bool)[1:]
    return out


def largest_magnitude(values: np.ndarray) -> int:
    """The largest absolute value among integer `values` (0 for none), as a Python integer."""
    return max(abs(int(values.min())), abs(int(values.max()))) if len(values) else 0


def sums_by(codes: np.ndarray, values: np.ndarray, n: int, *, nonnegative: bool = False) -> np.ndarray:
    """The sum of the integer `values` of each code in 0..n-1, as int64 arithmetic gives it (past
    int64 it wraps, as pandas' sums do): the integers themselves added (np.add.at), exact whatever
    the amounts. numpy's bincount, which this used while no partial sum could pass 2**53, adds in
    float64 after a bound on the values (a min and a max), and two threads of it ran no faster
    than one after the other; np.add.at (numpy 1.25 and later) is the faster by 2-5x on one
    thread (the month's 4M wheel bets by table: 20.7 -> 4.4 ms; 2M stakes by coup: 6.6 -> 3.0 ms).
    `nonnegative`: the caller knows no code is negative (each of several sums by the same codes
    would check them again: a pass over 4M codes, 2.5 ms)."""
    out = np.zeros(n, dtype=np.int64)
    if len(values):
        # np.add.at would take a negative code from the end, as an index, where bincount refused it.
        if not nonnegative and codes.min() < 0:
            raise ValueError("sums_by: a negative code")
        np.add.at(out, codes, np.asarray(values, dtype=np.int64))
    return out


# Groups at most that `sums_by_each` sums by Arrow's grouping: its hash table of codes costs little
# for a bundle's tables, where for a million rounds it took 12 times np.add.at's time.
ARROW_GROUPS = 4096

# Rows from which `sums_by_each` looks for runs of codes to sum first: below it, the look costs
# more than it saves.
RUNS_AT_LEAST = 4096


def sums_by_each(codes: np.ndarray, columns: list[np.ndarray], n: int, *, nonnegative: bool = False) -> list[np.ndarray]:
    """`sums_by` of each of the integer `columns` by the same `codes`, int64 arithmetic's answers (a
    sum wraps past int64, as there). For a few codes (a bundle's tables: `ARROW_GROUPS`) they are
    summed by one Arrow grouping of them all, which lets go of the interpreter's lock while it
    works, where np.add.at holds it throughout (the figures' sums of the month's bets: some 80 ms an
    audit that the other threads' Python waited behind; three sums of 4M bets among 40 tables, 35
    ms by np.add.at, 30 by Arrow).

    Codes that come in runs, as a table's of items grouped by their round do, are first summed a
    run at a time (`np.add.reduceat`, a pass at the speed of memory), and the runs' sums then
    grouped: the month's 4M bets in 1M throws, three sums, 47 -> 20 ms. The sums are the same in
    int64 arithmetic, which adds in any order."""
    if len(codes) >= RUNS_AT_LEAST and columns:
        starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
        if len(starts) * 2 <= len(codes):
            codes = codes[starts]
            columns = [np.add.reduceat(np.asarray(values, dtype=np.int64), starts) for values in columns]
    if n > ARROW_GROUPS or not len(codes) or not columns:
        return [sums_by(codes, values, n, nonnegative=nonnegative) for values in columns]
    if not nonnegative and codes.min() < 0:
        raise ValueError("sums_by_each: a negative code")
    if codes.max() >= n:
        raise IndexError("sums_by_each: a code past n")
    names = [f"v{i}" for i in range(len(columns))]
    table = pa.table({"code": np.asarray(codes, dtype=np.int64), **{name: np.asarray(v, dtype=np.int64) for name, v in zip(names, columns, strict=True)}})
    grouped = table.group_by("code", use_threads=False).aggregate([(name, "sum") for name in names])
    at = grouped.column("code").to_numpy()
    out = []
    for name in names:
        sums = np.zeros(n, dtype=np.int64)
        sums[at] = grouped.column(name + "_sum").to_numpy()
        out.append(sums)
    return out


def row_sums(values: np.ndarray, dtype: type[np.integer]) -> np.ndarray:
    """`values.sum(axis=1, dtype=dtype)` for a 2-D array of a few columns (a coup's six cards), the
    columns added one after another: numpy's reduction along rows of six is the slower by far (1M
    coups' cards: 19 -> 2.3 ms)."""
    out = np.zeros(len(values), dtype=dtype)
    for j in range(values.shape[1]):
        out += values[:, j]
    return out


def run_starts(new: np.ndarray) -> np.ndarray:
    """For rows in consecutive runs (a run begins at each row where `new` holds, and at row 0), the
    position of the first row of each row's run: each run's start repeated over its rows, where a
    running maximum of every row's own position took a pass more and a slow one (1M coups in runs
    of some fifty: 4.3 -> 0.7 ms)."""
    n = len(new)
    if not n:
        return np.zeros(0, dtype=np.int64)
    first = np.flatnonzero(new)
    if not len(first) or first[0] != 0:
        first = np.concatenate(([0], first))
    return np.repeat(first, np.diff(np.append(first, n)))


def cumsum_in_runs(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """`values.groupby(run).cumsum()` for integers in runs (`starts` from `run_starts`): one running
    sum, less what it held before each run began. Exact, and wrapping past int64 as pandas' does."""
    total = np.cumsum(values)
    return total - (total[starts] - values[starts]) if len(total) else total


def reduce_by(op: np.ufunc, values: np.ndarray, groups: np.ndarray, n: int, empty: float) -> np.ndarray:
    """`op.at(out, groups, values)` on `out = np.full(n, empty)`: each group's minimum or maximum
    (`op`), `empty` for a group with no value. Items come grouped by their round, and then one
    `reduceat` over the runs of each group does what ufunc.at does an element at a time (2M dice
    bets' last collection: 22 -> 4 ms); groups in no order go through ufunc.at."""
    out = np.full(n, empty, dtype=np.result_type(values.dtype, np.min_scalar_type(empty)))
    if len(groups) and (groups[1:] >= groups[:-1]).all():
        if groups[0] < 0:  # both paths would take a negative group from the end, as an index (as `sums_by`)
            raise ValueError("reduce_by: a negative group")
        runs = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
        at = groups[runs]
        out[at] = op(out[at], op.reduceat(values, runs))
    elif len(groups):
        if groups.min() < 0:
            raise ValueError("reduce_by: a negative group")
        op.at(out, groups, values)
    return out


def in_sorted(values: np.ndarray, members: np.ndarray) -> np.ndarray:
    """np.isin(values, members) for integer keys, by binary search in the sorted members (np.isin
    sorts both sides every time)."""
    members = np.sort(members)
    if len(members) == 0:
        return np.zeros(len(values), dtype=bool)
    at = np.searchsorted(members, values)
    return members[np.minimum(at, len(members) - 1)] == values


def order_by(*keys: np.ndarray) -> np.ndarray:
    """`np.lexsort(keys[::-1])`: the stable order of rows by `keys`, the first the most significant.
    Keys of whole numbers (floats included, as exact integers) whose ranges multiply below 2**62
    are packed into one integer key sorted by timsort, which takes in a pass the runs a log comes
    in (items grouped by their round): 1.5M winning bets by spin and paid_seq, 0.3-0.9 s -> 10-15
    ms. Other keys (NaN, fractions, wide ranges) go to lexsort."""
    n = len(keys[0]) if keys else 0
    if n < 2:
        return np.arange(n)
    spans: list[tuple[int, int]] = []
    total = 1
    for key in keys:
        if not _whole_numbers(key):
            return np.lexsort(keys[::-1])
        low, high = int(key.min()), int(key.max())
        total *= high - low + 1
        if total >= 2**62:
            return np.lexsort(keys[::-1])
        spans.append((low, high - low + 1))
    packed = np.zeros(n, dtype=np.int64)
    for key, (low, span) in zip(keys, spans):
        packed *= span
        packed += key.astype(np.int64) - low if key.dtype.kind == "f" else (key - low).astype(np.int64)
    return np.argsort(packed, kind="stable")


def _whole_numbers(key: np.ndarray) -> bool:
    """Integers, or floats that all hold integers exactly (no NaN, no fraction, below 2**53)."""
    if key.dtype.kind in "iu":
        return True
    return key.dtype.kind == "f" and bool(np.isfinite(key).all() and (np.abs(key) < 2.0**53).all() and (key == np.floor(key)).all())


def unique_inverse(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`np.unique(values, return_inverse=True)` for one-dimensional integers, by timsort: items come
    grouped by their round, nearly in order, runs it takes in a pass (2M stake keys: 14 ms, the
    quicksort of np.unique 93 ms); on values in no order (a shuffled log) it is a quarter slower."""
    if len(values) == 0:
        return values.copy(), np.zeros(0, dtype=np.intp)
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    new = np.r_[True, ordered[1:] != ordered[:-1]]
    inverse = np.empty(len(values), dtype=np.intp)
    inverse[order] = np.cumsum(new) - 1
    return ordered[new], inverse


def fixed_width_bytes(series: pd.Series, width: int) -> np.ndarray:
    """ASCII strings right-padded with spaces to `width`, as an (n, width) uint8 matrix, without
    creating a Python object per row. Longer strings are cut."""
    if len(series) == 0:
        return np.zeros((0, width), dtype=np.uint8)
    array = pc.utf8_rpad(arrow(series.fillna("")), width=width, padding=" ")
    if pc.max(pc.binary_length(array)).as_py() > width:  # only then: a second pass over every string
        array = pc.utf8_slice_codeunits(array, 0, width)
    array = array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array
    return text_bytes(array).reshape(len(array), width)


def first_words(text: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """(words, lengths): each cell's first eight bytes as one little-endian unsigned word, read
    where the cell begins (a shorter cell's word ends with the bytes after it, zeros past the
    last), and each cell's length in bytes. Short fixed layouts (a hand of cards) are then told
    apart by shifts and masks of a word, not by a grid of their bytes padded by Arrow."""
    offsets = text_offsets(text)
    data = np.concatenate([text_bytes(text), np.zeros(8, dtype=np.uint8)])
    words = np.ndarray(shape=(len(data) - 7,), dtype="<u8", buffer=data, strides=(1,))[offsets[:-1] - offsets[0]]
    return words, np.diff(offsets)


def in_words(words: np.ndarray, offset: int, dtype: str) -> np.ndarray:
    """The little-endian `dtype` value ("<u2", "u1") that starts `offset` bytes into each of
    `words` (`first_words`' words), uncopied: a strided view of their bytes, where shifting and
    masking each word took a pass and a fresh array a step (a hand's three cards, 1M hands: the
    load's check 45 -> 32 ms, the replay's parse 42 -> 35 ms)."""
    if words.dtype != np.dtype("<u8") or not words.flags.c_contiguous or not 0 <= offset <= 8 - np.dtype(dtype).itemsize:
        raise ValueError("in_words: little-endian words laid end to end, and a value within a word")
    return np.ndarray(shape=words.shape, dtype=dtype, buffer=words, offset=offset, strides=(8,))


def text_offsets(array: pa.Array) -> np.ndarray:
    """Where each value of `array` (string, binary or their large forms) begins in its data buffer,
    and where the last ends: its slice's len + 1 offsets, uncopied."""
    large = pa.types.is_large_string(array.type) or pa.types.is_large_binary(array.type)
    return np.frombuffer(array.buffers()[1], dtype=np.int64 if large else np.int32)[array.offset : array.offset + len(array) + 1]


def text_bytes(array: pa.Array) -> np.ndarray:
    """The bytes of every value of `array` (string, binary or their large forms), one after the
    other, uncopied."""
    offsets = text_offsets(array)
    data = array.buffers()[2]
    return np.frombuffer(data, dtype=np.uint8)[offsets[0] : offsets[-1]] if data is not None else np.zeros(0, dtype=np.uint8)


def is_arrow_text(values: pd.Series) -> bool:
    """Whether the column is pandas' Arrow-backed text (pandas 3's "str"), missing values NaN."""
    return isinstance(values.dtype, pd.StringDtype) and values.dtype.storage == "pyarrow"


def is_text_categories(values: pd.Series) -> bool:
    """Whether the column is a Categorical of text (as read from a Parquet dictionary of text)."""
    return isinstance(values.dtype, pd.CategoricalDtype) and pd.api.types.is_string_dtype(values.dtype.categories.dtype)


def text_array(values: pd.Series) -> pa.Array | None:
    """The column as Arrow large_string, null where missing: uncopied for pandas' Arrow-backed text,
    converted in C for an object column of str; None when it holds anything but text."""
    if is_arrow_text(values):
        return arrow(values).cast(pa.large_string())
    if isinstance(values.dtype, pd.CategoricalDtype):
        names = values.cat.categories
        if len(names) and pd.api.types.infer_dtype(names, skipna=False) != "string":
            return None
        # The few names, then each value's by its code (-1, missing: null).
        codes = values.array.codes
        return pa.array(list(names), type=pa.large_string()).take(pa.array(codes, mask=codes < 0)) if len(names) else (
            pa.nulls(len(values), type=pa.large_string()))
    if pd.api.types.infer_dtype(values, skipna=True) in ("string", "empty"):
        return pa.array(values.to_numpy(dtype=object), type=pa.large_string(), from_pandas=True)
    return None


def as_categories(values: pd.Series) -> pd.Series:
    """A text column of few distinct values (a round's table, a replay's outcome) as a Categorical,
    for a join to gather to millions of items: a code a row, not its text (4M bets' table_id: 50
    MiB and 30-50 ms of gathered text -> 4 MiB and a few ms). Any other column is returned as it is."""
    text = None if isinstance(values.dtype, pd.CategoricalDtype) else text_array(values)
    if text is None:
        return values
    encoded = pc.dictionary_encode(text)
    codes = pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False)
    return coded(codes, pd.Index(encoded.dictionary.to_pylist(), dtype=object), values.index)


def coded(codes: np.ndarray, names: list[str] | pd.Index, index: pd.Index) -> pd.Series:
    """`names[code]` for each code (-1: missing) as a Categorical of `names`: a code a row, for a
    value of an enum (a replay's outcome or result, a typed enum column, a row's file) that rules
    compare with a name or another enum by code (`named` gives the same values as text)."""
    return pd.Series(pd.Categorical.from_codes(codes, categories=names), index=index, copy=False)


def named(codes: np.ndarray, names: list[str], index: pd.Index) -> pd.Series:
    """`names[code]` for each code (-1: missing) as pandas' Arrow-backed text, gathered by Arrow from
    the few names: numpy's text from `np.select` becomes pandas text a Python string at a time
    (1M coups' outcomes: 85 ms, here 5)."""
    return text_series(pa.array(names, type=pa.large_string()).take(pa.array(codes, mask=codes < 0)), index)


def without_rows(values: pa.Array | pa.ChunkedArray, dropped: np.ndarray) -> pa.Array:
    """`values` less the rows at `dropped` (positions in increasing order), as one array: the runs of
    rows kept between them, laid end to end by Arrow, a copy of each run's bytes at once (a column
    of several chunks, the parts of a bundle, is sliced as it is, not joined first). For a few rows
    dropped among millions (a log's quarantined rows): Arrow's filter looks at every row's bit
    (4M ids less 2,001: 28 -> 14 ms); a Python step a run, so many runs are the filter's."""
    starts = np.r_[0, dropped + 1].tolist()
    ends = np.r_[dropped, len(values)].tolist()
    runs = [values.slice(start, end - start) for start, end in zip(starts, ends, strict=True) if end > start]
    parts = [chunk for run in runs for chunk in (run.chunks if isinstance(run, pa.ChunkedArray) else [run])]
    return pa.concat_arrays(parts) if parts else pa.array([], type=values.type)


# pandas' "str" dtype: Arrow-backed text, missing values NaN.
STR = pd.StringDtype(storage="pyarrow", na_value=np.nan)


def text_series(text: pa.Array, index: pd.Index) -> pd.Series:
    """Arrow text (string or large_string) as a pandas str column (missing: NaN), without copying
    it: wrapped as pandas' own array of it, where `to_pandas` took 2.5 times as long (40-50 against
    17-20 µs a call; a rule's hits and findings make some of them each)."""
    return pd.Series(pd.arrays.ArrowStringArray(text, dtype=STR), index=index, copy=False)


# How many chunks `take_sorted` takes from one by one at most: a chunk's own take costs some 20 µs of
# Python, Arrow's joining of 4M ids some 14 ms.
TAKE_CHUNKS_APART = 200


def take_sorted(values: pa.ChunkedArray, positions: np.ndarray) -> pa.Array | pa.ChunkedArray:
    """`values` at `positions` (in increasing order), taken from each chunk on its own where they
    fall in a few chunks. Arrow's `take` of a column in several chunks (text read from CSV or JSONL
    a block at a time, or from a table's several files) joins them all first: a rule's 700 findings
    among 4M bets in 16 chunks took 14 ms a column that way, 0.9 ms so; past `TAKE_CHUNKS_APART`
    chunks touched, Arrow's way is the quicker."""
    starts = np.zeros(values.num_chunks + 1, dtype=np.int64)
    np.cumsum([len(chunk) for chunk in values.chunks], out=starts[1:])
    at = np.searchsorted(starts, positions, side="right") - 1  # each position's chunk
    edges = np.flatnonzero(np.diff(at)) + 1
    if len(edges) >= TAKE_CHUNKS_APART:
        return values.take(pa.array(positions, type=pa.int64()))
    parts = [
        values.chunk(int(at[lo])).take(pa.array(positions[lo:hi] - starts[at[lo]]))
        for lo, hi in zip(np.r_[0, edges].tolist(), np.r_[edges, len(positions)].tolist(), strict=True)
        if hi > lo
    ]
    return pa.concat_arrays(parts) if parts else pa.array([], type=values.type)


_PER_SECOND = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}
_UTC = b"+00:00"


def iso_text(values: pd.Series, micro: bool, missing_as: object = None) -> np.ndarray:
    """`iso_arrow` as an object array of str, `missing_as` where the time is missing."""
    text = iso_arrow(values, micro)
    out = text.to_numpy(zero_copy_only=False)
    if text.null_count:
        out[~bools(text.is_valid())] = missing_as
    return out


def iso_arrow(values: pd.Series, micro: bool) -> pa.Array:
    """Each time's wall clock in its own zone as "YYYY-MM-DDTHH:MM:SS+00:00" (the second it falls
    in), or with ".ffffff" before the offset where `micro` and the time has microseconds; Arrow text,
    null where the time is missing. The digits are computed in numpy, a row at a time in C: strftime
    and numpy's own formatting cost a Python call or a parse per value, and a rule can fire on
    millions of bets. Years 1678-2261 (the loader's range) have four digits."""
    naive = values.dt.tz_localize(None) if isinstance(values.dtype, pd.DatetimeTZDtype) else values
    raw = naive.to_numpy()
    n = len(raw)
    if n == 0:
        return pa.array([], type=pa.large_string())
    missing = np.isnat(raw)
    unit, _ = np.datetime_data(raw.dtype)
    seconds, fraction = np.divmod(np.where(missing, 0, raw.view(np.int64)), _PER_SECOND[unit])
    micros = fraction * 10**6 // _PER_SECOND[unit] if micro else np.zeros(n, dtype=np.int64)
    fractional = micros != 0
    wide = bool(fractional.any())
    # One fixed-width row per time: date and time, then ".ffffff" (wide rows only), then the offset.
    rows = np.empty((n, 32 if wide else 25), dtype=np.uint8)
    rows[:, :19] = _civil_digits(seconds)
    if wide:
        rows[:, 19] = ord(".")
        rows[:, 20:26] = _digit_columns(micros, 6)
    rows[:, -6:] = np.frombuffer(_UTC, dtype=np.uint8)
    width = np.full(n, 25, dtype=np.int64)
    if wide:
        width[fractional] = 32
        keep = np.ones(rows.shape, dtype=bool)
        keep[~fractional, 19:26] = False
        data = rows[keep]
    else:
        data = rows.reshape(-1)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(width, out=offsets[1:])
    valid = pa.py_buffer(np.packbits(~missing, bitorder="little")) if missing.any() else None
    return pa.Array.from_buffers(pa.large_string(), n, [valid, pa.py_buffer(offsets), pa.py_buffer(data)])


def _digit_columns(values: np.ndarray, width: int) -> np.ndarray:
    """Non-negative integers as (n, width) ASCII digits, zero-padded."""
    out = np.empty((len(values), width), dtype=np.uint8)
    for i in range(width - 1, -1, -1):
        values, digit = np.divmod(values, 10)
        out[:, i] = 48 + digit
    return out


def _civil_digits(seconds: np.ndarray) -> np.ndarray:
    """"YYYY-MM-DDTHH:MM:SS" of seconds since 1970-01-01 as (n, 19) ASCII. A rule firing on every bet
    formats millions of times that fall on a few days: each day's date and each second of the day is
    formatted once, then gathered (4M times: 1.1 s -> 0.1 s, and no temporaries per digit)."""
    days, second_of_day = np.divmod(seconds, 86400)
    n = len(seconds)
    rows = np.empty(n, dtype=[("date", "S10"), ("t", "S1"), ("clock", "S8")])
    if n:
        first, last = int(days.min()), int(days.max())
        if last - first < max(n, 4096):
            rows["date"] = _date_digits(np.arange(first, last + 1)).view("S10").ravel()[days - first]
        else:  # days scattered over centuries (a hostile log): each formatted where it stands
            rows["date"] = _date_digits(days).view("S10").ravel()
    rows["t"] = b"T"
    rows["clock"] = _clock_of_day()[second_of_day]
    return rows.view(np.uint8).reshape(n, 19)


def _date_digits(days: np.ndarray) -> np.ndarray:
    """"YYYY-MM-DD" of days since 1970-01-01 as (n, 10) ASCII, by the proleptic Gregorian calendar
    (H. Hinnant's days-to-civil algorithm, in integer arithmetic)."""
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    month = np.where(mp < 10, mp + 3, mp - 9)
    year = yoe + era * 400 + (month <= 2)
    out = np.empty((len(days), 10), dtype=np.uint8)
    out[:, [4, 7]] = ord("-")
    for col, values, width in ((0, year, 4), (5, month, 2), (8, doy - (153 * mp + 2) // 5 + 1, 2)):
        out[:, col : col + width] = _digit_columns(values, width)
    return out


@functools.cache
def _clock_of_day() -> np.ndarray:
    """"HH:MM:SS" for each second of a day, as 86,400 eight-byte strings."""
    hour, rest = np.divmod(np.arange(86400), 3600)
    minute, second = np.divmod(rest, 60)
    out = np.empty((86400, 8), dtype=np.uint8)
    out[:, [2, 5]] = ord(":")
    for col, values in ((0, hour), (3, minute), (6, second)):
        out[:, col : col + 2] = _digit_columns(values, 2)
    return out.view("S8").ravel()


def codes_in(values: pd.Series, categories: pd.Index | list[str]) -> np.ndarray:
    """Each value's position among `categories` (an enum column's names), -1 where it is missing or
    not one of them: a value of one column compared with an enum column by code, not as text.
    int64, or int8 for a Categorical among fewer than 127 names (a byte a row: typing a 4M-row enum
    column 30 -> 15 ms)."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        # The few categories looked up, each row taking its category's answer by code.
        own = codes_in(pd.Series(values.cat.categories.astype("str")), categories)
        return by_code(values.array.codes, own.astype(np.int8 if len(categories) < 127 else np.int64))
    names = pa.array([str(c) for c in categories], type=pa.large_string())
    found = pc.index_in(arrow(values.astype("str")), value_set=names)
    return found.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64, copy=False)


def is_code(values: pd.Series, categories: list[str], codes: np.ndarray) -> np.ndarray:
    """Whether each value is `categories[code]` of its row (a code of -1 never matches): a bet's
    symbol or target against its round's answer carried as a code."""
    return (codes >= 0) & (codes_in(values, categories) == codes)


def equal(values: pd.Series, other: pd.Series) -> np.ndarray:
    """values == other row by row as numpy bools, a missing value on either side never equal. An
    enum column (Categorical) is compared by code: the other side's values are located among its
    categories, once per category when the other side is one too."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        own = values.array.codes
        return (own >= 0) & (own == codes_in(other, values.cat.categories))
    if isinstance(other.dtype, pd.CategoricalDtype):
        return equal(other, values)
    return (values == other).to_numpy(dtype=bool, na_value=False)
