"""Small helpers over pandas frames whose strings are Arrow-backed (pandas ≥ 3).

pandas' own `Series.isin` converts an Arrow value set element by element; pyarrow's `is_in` hashes it
natively and is an order of magnitude faster on millions of ids, so membership tests go through here.
"""

from __future__ import annotations

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


def isin(series: pd.Series, values: object) -> np.ndarray:
    """series.isin(values) as a numpy bool array; nulls are never members."""
    if len(series) == 0:
        return np.zeros(0, dtype=bool)
    left = arrow(series)
    value_set = arrow(values)  # type: ignore[arg-type]
    if len(value_set) == 0:
        return np.zeros(len(series), dtype=bool)
    if value_set.type != left.type:
        try:
            value_set = value_set.cast(left.type)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return series.isin(pd.Series(value_set.to_pylist())).to_numpy(dtype=bool)
    hit = pc.fill_null(pc.is_in(left, value_set=value_set), False)
    return hit.to_numpy(zero_copy_only=False).astype(bool, copy=False)


def unique_strings(parts: list[pd.Series] | list[pa.Array]) -> pa.Array:
    """The distinct non-null values of several string columns (pandas or Arrow), as one Arrow array."""
    arrays = [p if isinstance(p, pa.Array) else arrow(p.astype("str")) for p in parts if len(p)]
    if not arrays:
        return pa.array([], type=pa.large_string())
    arrays = [a.cast(pa.large_string()) for a in arrays]
    return pc.unique(pc.drop_null(pa.concat_arrays(arrays)))


def fixed_width_bytes(series: pd.Series, width: int) -> np.ndarray:
    """ASCII strings right-padded with spaces to `width`, as an (n, width) uint8 matrix, without
    creating a Python object per row. Longer strings are cut."""
    if len(series) == 0:
        return np.zeros((0, width), dtype=np.uint8)
    array = pc.utf8_slice_codeunits(pc.utf8_rpad(arrow(series.fillna("")), width=width, padding=" "), 0, width)
    array = array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array
    offset_type = np.int64 if pa.types.is_large_string(array.type) else np.int32
    offsets = np.frombuffer(array.buffers()[1], dtype=offset_type)[array.offset : array.offset + len(array) + 1]
    data = np.frombuffer(array.buffers()[2], dtype=np.uint8)[offsets[0] : offsets[-1]]
    return data.reshape(len(array), width)


def use_lean_memory_pool() -> None:
    """Prefer Arrow's jemalloc pool where the build has it: it hands freed memory back to the system
    sooner than the default, which lowers an audit's peak (4.4 -> 4.1 GB on 13M rows)."""
    try:
        pa.set_memory_pool(pa.jemalloc_memory_pool())
    except (NotImplementedError, pa.ArrowNotImplementedError):
        pass
