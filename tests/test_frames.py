"""The frame helpers must agree with pandas' own operations they replace."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from auditor.frames import (
    _search_index, _sortable, among, arrow, as_categories, bools, by_code, codes_in, cumsum_in_runs, differs_from_previous, equal, first_occurrences, first_words, in_sorted, in_words, instants, is_sorted, isin, iso_text, join_on_key,
    kept_rising, later_occurrences, masked_integers, named, note_rising, order_by, positions, reduce_by, repeated_ids, row_sums, rows_holding, run_starts, stable_sorted, sums_by, sums_by_each, take_sorted, text_categories, unique_inverse, without_rows,
)


def _frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    rounds = pd.DataFrame(
        {
            "round_id": pd.array(["r1", "r2", "r3"], dtype="str"),
            "ts": pd.to_datetime(["2026-01-01T10:00Z", "2026-01-01T10:01Z", "2026-01-01T10:02Z"], utc=True),
            "min_cents": np.array([100, 200, 300], dtype=np.int64),
            "settled": np.array([True, False, True]),
            "symbol": pd.array(["a", None, "c"], dtype="str"),
        },
        index=[10, 11, 12],
    )
    items = pd.DataFrame(
        {
            "item_id": pd.array(["i1", "i2", "i3", "i4", "i5"], dtype="str"),
            "round_id": pd.array(["r3", "r1", "orphan", "r3", None], dtype="str"),
            "stake": np.arange(5, dtype=np.int64),
        },
        index=[7, 3, 5, 1, 9],
    )
    return rounds, items


@pytest.mark.parametrize("how", ["inner", "left"])
def test_join_on_key_matches_pandas_join(how: str) -> None:
    rounds, items = _frames()
    cols = ["ts", "min_cents", "settled", "symbol"]
    ours = join_on_key(items, rounds, "round_id", "round_id", cols, how=how)  # type: ignore[arg-type]
    theirs = items.join(rounds.set_index("round_id")[cols], on="round_id", how=how)  # type: ignore[arg-type]
    pd.testing.assert_frame_equal(ours, theirs)


def test_join_on_key_keeps_numpy_dtypes_when_every_key_matches() -> None:
    rounds, items = _frames()
    items = items[items["round_id"].isin(["r1", "r3"])]
    out = join_on_key(items, rounds, "round_id", "round_id", ["min_cents", "settled"], how="left")
    assert out["min_cents"].dtype == np.int64 and out["settled"].dtype == bool
    assert out["min_cents"].tolist() == [300, 100, 300]


def test_join_on_key_refuses_a_column_on_both_sides() -> None:
    rounds, items = _frames()
    with pytest.raises(ValueError, match="both sides"):
        join_on_key(items, rounds, "round_id", "round_id", ["round_id"], how="left")


def test_positions_never_match_nulls() -> None:
    ids = pd.Series(["a", None, "b"], dtype="str")
    keys = pd.Series([None, "b", "x", "a"], dtype="str")
    assert positions(keys, ids).tolist() == [-1, 2, -1, 0]


def _first_position(keys: list[str | None], ids: list[str | None]) -> list[int]:
    first: dict[str, int] = {}
    for i, v in enumerate(ids):
        if v is not None:
            first.setdefault(v, i)
    return [first.get(k, -1) if k is not None else -1 for k in keys]


@pytest.mark.parametrize("seed", range(40))
def test_positions_of_logs_written_in_order_match_a_dictionary(seed: int) -> None:
    """Items grouped by round take the binary-search path; disorder, gaps, keys before the first or
    after the last id, ids of other lengths, non-ASCII ids and nulls must give what a dict gives."""
    rng = random.Random(seed)  # numpy's strings would drop trailing NULs
    width = rng.randint(1, 3)
    alphabet = ["0", "1", "9", "\x00", "é"][: rng.randint(2, 5 if seed % 5 else 4)]  # é: two bytes
    pool = sorted({"".join(rng.choices(alphabet, k=width)) for _ in range(40)})
    ids = [v for v in pool if rng.random() < 0.7] or pool[:1]
    keys: list[str | None] = sorted(rng.choices(pool, k=rng.randint(2, 60)))
    if seed % 5 == 1:  # one key out of order
        i = rng.randrange(len(keys) - 1)
        keys[i], keys[-1] = keys[-1], keys[i]
    if seed % 5 == 2:
        ids = ids + ["0" * (width + 1)]  # an id of another length
    if seed % 5 == 3 and len(ids) > 1:
        ids = ids[::-1]  # ids not increasing
    if seed % 5 == 4:
        keys = keys + [None]
    got = positions(pd.Series(keys, dtype="str"), pd.Series(ids, dtype="str"))
    assert got.tolist() == _first_position(keys, ids)


def test_positions_by_binary_search_finds_runs_gaps_and_other_lengths() -> None:
    ids = pd.Series([f"C{i:04d}" for i in range(0, 20, 2)], dtype="str")  # C0000, C0002, ... C0018
    keys = pd.Series(["B9999", "C0000", "C0000", "C0001", "C0002", "C0018", "C0018", "C0019", "D0000",
                      "C000", None, None, "C00022", "C0004", "C0004", "C0002"], dtype="str")
    assert positions(keys, ids).tolist() == [-1, 0, 0, -1, 1, 9, 9, -1, -1, -1, -1, -1, -1, 2, 2, 1]


@pytest.mark.parametrize("template", ["C{:08d}", "{:02d}-0123456789abcdef-{:02d}"])
def test_positions_by_binary_search_on_ids_sharing_their_first_bytes_or_not(template: str) -> None:
    """Ids in order share their first bytes (C000000xx): the rest is searched as integers, and a key
    of another prefix with the same rest is no id, nor one that differs from an id within its last
    eight bytes but before the rest (each id's last eight bytes are its integer). Ids that differ
    early are searched as bytes."""
    def name(i: int) -> str:
        return template.format(i, i) if template.count("{") == 2 else template.format(i)

    ids = pd.Series([name(i) for i in range(0, 40, 2)], dtype="str")
    other = "D" + name(4)[1:]  # the same bytes as an id after its first
    inside = name(4)[:1] + "9" + name(4)[2:]  # another second byte: among the last eight of C00000004
    runs = [(name(0), 0), (name(1), -1), (name(4), 2), (other, -1), (inside, -1), (name(38), 19), (name(39), -1)]
    keys = pd.Series([key for key, _ in runs for _ in range(3)], dtype="str")  # items grouped by round
    assert positions(keys, ids).tolist() == [at for _, at in runs for _ in range(3)]


@pytest.mark.parametrize("seed", range(20))
def test_positions_among_ids_in_a_few_increasing_runs_find_each_ids_first_row(seed: int) -> None:
    """A bundle's parts one after another: each part's ids in increasing order, the parts' ids
    interleaved, an id written again in a later part. The ids are put in order by a stable sort
    (`_search_index`) and each key finds the first row holding it, as a dict of first rows does."""
    rng = random.Random(seed)
    pool = [f"W{i:05d}" for i in range(0, 4000, 2)]
    runs = [sorted(rng.sample(pool, rng.randint(50, 200))) for _ in range(rng.randint(2, 6))]
    ids = [v for run in runs for v in run]
    assert len(set(ids)) < len(ids) or seed % 4  # mostly repeats across parts
    index = _search_index(arrow(pd.Series(ids, dtype="str")))
    assert index is not None and index.rows is not None  # the sorted path, not the hash
    # Items grouped by their round, a few each (keys all distinct would be hashed instead).
    keys: list[str | None] = [k for k in sorted(rng.choices(pool + ["W00001", "W0000", "X00000"], k=100)) for _ in range(3)]
    if seed % 3 == 0:
        keys.append(None)
    got = positions(pd.Series(keys, dtype="str"), pd.Series(ids, dtype="str"))
    assert got.tolist() == _first_position(keys, ids)


@pytest.mark.parametrize("seed", range(10))
def test_positions_of_a_few_keys_among_many_ids_find_each_ids_first_row(seed: int) -> None:
    """A few keys, in no order, among many more ids (items filed away from their rounds): the ids
    are probed against the keys' hash, not hashed themselves; the answer is a dict's of first rows,
    an id written twice, a null id and a null or absent key included."""
    rng = random.Random(seed)
    ids: list[str | None] = ["S00001"] + [f"S{rng.randrange(3000):05d}" for _ in range(2000)] + [None, "S00001"]
    keys: list[str | None] = rng.sample([v for v in ids if v], 40) + ["S99999", "", None, "S00001"]
    rng.shuffle(keys)
    assert len(keys) * 8 < len(ids)
    got = positions(pd.Series(keys, dtype="str"), pd.Series(ids, dtype="str"))
    assert got.tolist() == _first_position(keys, ids)


def test_ids_in_no_order_are_hashed_not_sorted() -> None:
    ids = pd.Series([f"W{(i * 7919) % 1000:05d}" for i in range(1000)], dtype="str")  # a descent a few ids
    assert _search_index(arrow(ids)) is None
    keys = pd.Series(["W00000", "W00000", "W00999", "W01000"], dtype="str")
    assert positions(keys, ids).tolist() == _first_position(keys.tolist(), ids.tolist())


def test_in_sorted_is_isin() -> None:
    rng = np.random.default_rng(7)
    values, members = rng.integers(-50, 50, 1000), rng.integers(-40, 40, 30)
    assert (in_sorted(values, members) == np.isin(values, members)).all()
    assert not in_sorted(values, np.array([], dtype=np.int64)).any()


@pytest.mark.parametrize(
    "values",
    [
        ["B1", "B2", "B3", "B4", "B5", "B6", "B2", "B7", "B4", None, "B9", "B9", "B2"],  # in order, repeats after
        ["B1", "B1", "B2"],
        [None],
        [None, None, "B1"],
        ["B3", "B2", "B1", "B2"],
    ],
)
def test_first_occurrences_examples(values: list[str | None]) -> None:
    codes, distinct = first_occurrences(pa.array(values, type=pa.string()))
    assert codes.tolist() == _naive_first(values)
    assert sorted(distinct.to_pylist()) == sorted({v for v in values if v is not None})


@pytest.mark.parametrize("seed", range(20))
def test_later_occurrences_are_the_rows_not_first_of_their_id(seed: int) -> None:
    """The sparse answer: the rows, in increasing order, whose id an earlier row holds (and every
    null row, its first -1), each with the first row holding its id."""
    rng = np.random.default_rng(seed)
    values: list[str | None] = [f"B{i:04d}" for i in range(int(rng.integers(1, 400)))]
    for _ in range(int(rng.integers(0, 12))):
        values.insert(int(rng.integers(0, len(values) + 1)), None if rng.random() < 0.2 else values[int(rng.integers(0, len(values)))])
    for ordered in (values, values[::-1]):
        rows, firsts, distinct, falls = later_occurrences(pa.array(ordered, type=pa.large_string()))
        naive = _naive_first(ordered)
        expected = [i for i, f in enumerate(naive) if f != i]
        assert rows.tolist() == expected
        assert firsts.tolist() == [naive[i] for i in expected]
        assert sorted(distinct.to_pylist()) == sorted({v for v in ordered if v is not None})
        told = [i for i, (a, b) in enumerate(zip(ordered, ordered[1:])) if a is None or b is None or not a < b]
        assert (falls.tolist() if falls is not None else None) == (told if len(told) * 32 <= len(ordered) else None)
        # Without the distinct ids (an item table's): the same rows and their firsts.
        no_distinct = later_occurrences(pa.array(ordered, type=pa.large_string()), distinct=False)
        assert no_distinct[0].tolist() == expected and no_distinct[1].tolist() == firsts.tolist()


def _naive_first(ids: list[str | None]) -> list[int]:
    seen: dict[str, int] = {}
    return [-1 if v is None else seen.setdefault(v, i) for i, v in enumerate(ids)]


@pytest.mark.parametrize("seed", range(40))
def test_first_occurrences_agrees_with_a_dictionary(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 60))
    # Mostly in order (as logs are), then some rows out of order, repeated or missing.
    ids: list[str | None] = [f"B{i:04d}" for i in range(n)]
    for _ in range(int(rng.integers(0, 6))):
        kind, at = rng.integers(0, 4), int(rng.integers(0, n + 1))
        if kind == 0 and n:
            where = at if rng.random() < 0.5 else len(ids) - int(rng.integers(0, 3))  # often near the end
            ids.insert(where, ids[int(rng.integers(0, n))])  # a repeated id
        elif kind == 1:
            ids.insert(at, None)
        elif kind == 2:
            ids.append(f"A{int(rng.integers(0, 5))}")  # out of order, maybe repeated
        elif n:
            ids[at % n], ids[-1] = ids[-1], ids[at % n]
    for values in (ids, ids[::-1], sorted(set(v for v in ids if v)), [None, *ids]):
        codes, distinct = first_occurrences(pa.array(values, type=pa.string()))
        assert codes.tolist() == _naive_first(values)
        assert sorted(distinct.to_pylist()) == sorted({v for v in values if v is not None})


@pytest.mark.parametrize("seed", range(12))
def test_first_occurrences_of_a_few_rows_after_ids_in_order(seed: int) -> None:
    """Thousands of ids in order, then a few rows (planted or late) that repeat some of them, are
    new, null, or of another length: those rows are searched for among the ids in order."""
    rng = np.random.default_rng(seed)
    head = [f"B{i:06d}" for i in range(0, 20000, 2)]
    tail: list[str | None] = [head[int(i)] for i in rng.integers(0, len(head), 20)]
    tail += [f"B{int(i) * 2 + 1:06d}" for i in rng.integers(0, 9999, 5)]  # one width, never in the head
    tail += [None, "B00000", "B0000020", "A000001", head[-1], head[0], tail[0]]
    values = head + [tail[int(i)] for i in rng.permutation(len(tail))]
    for kind in (pa.string(), pa.large_string()):
        codes, distinct = first_occurrences(pa.array(values, type=kind))
        assert codes.tolist() == _naive_first(values)
        assert sorted(distinct.to_pylist()) == sorted({v for v in values if v is not None})


@pytest.mark.parametrize("seed", range(30))
def test_first_occurrences_of_ids_written_in_runs_agree_with_a_dictionary(seed: int) -> None:
    """Files a day, each in id order: a few increasing runs, merged by sorting rather than hashed.
    Repeats within and across runs, nulls, ids of several lengths, and ids that cannot be padded
    to one width (a NUL byte, two-byte characters) must all give what a dictionary gives."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(300, 3000))
    ids: list[str | None] = [f"B{i:05d}" for i in range(n)]
    cut = sorted({0, n, *map(int, rng.integers(0, n, int(rng.integers(2, 8))))})
    runs = [ids[a:b] for a, b in zip(cut[:-1], cut[1:], strict=True)]
    rng.shuffle(runs)  # type: ignore[arg-type]
    values: list[str | None] = [v for run in runs for v in run]
    for _ in range(int(rng.integers(0, 8))):  # repeats, each inside a run or across runs
        values.insert(int(rng.integers(0, len(values))), values[int(rng.integers(0, len(values)))])
    if seed % 3 == 1:
        values[int(rng.integers(0, len(values)))] = None
    if seed % 4 == 2:  # another kind of id, longer: C00012-ABON
        values[int(rng.integers(0, len(values)))] = "C00012-ABON"
        values.append("C00012-ABON")
    if seed % 5 == 3:
        values[int(rng.integers(0, len(values)))] = ["B00001\x00", "Bé", ""][seed % 3]
    for kind in (pa.string(), pa.large_string()):
        codes, distinct = first_occurrences(pa.array(values, type=kind))
        assert codes.tolist() == _naive_first(values)
        assert distinct.to_pylist() == list(dict.fromkeys(v for v in values if v is not None))


@pytest.mark.parametrize("seed", range(4))
def test_numbered_ids_written_in_a_few_runs_are_counted_by_number_alike(seed: int) -> None:
    """A month of numbered ids in files a day (a few increasing runs, past the size where ids are
    counted by number): repeats within and across runs, a null, and ids of another numbering give
    what a dictionary gives."""
    rng = np.random.default_rng(seed)
    n = 70_000 + int(rng.integers(0, 5_000))
    ids = [f"WB{i:09d}" for i in range(1, n + 1)]
    cut = sorted({0, n, *map(int, rng.integers(0, n, 40))})
    runs = [ids[a:b] for a, b in zip(cut[:-1], cut[1:], strict=True)]
    rng.shuffle(runs)  # type: ignore[arg-type]
    values: list[str | None] = [v for run in runs for v in run]
    for _ in range(20):
        values.insert(int(rng.integers(0, len(values))), values[int(rng.integers(0, len(values)))])
    values[int(rng.integers(0, len(values)))] = None
    values += ["C00012-ABON", "WB000000007", "C00012-ABON"]
    array = pa.array(values, type=pa.large_string())
    assert len(np.flatnonzero(~bools(pc.less(array[:-1], array[1:])))) * 32 <= len(values)  # a few runs
    codes, distinct = first_occurrences(array)
    assert codes.tolist() == _naive_first(values)
    assert distinct.to_pylist() == list(dict.fromkeys(v for v in values if v is not None))


def test_one_very_long_id_among_runs_of_short_ones_is_not_padded_to_its_length() -> None:
    # Padding 200,000 ids to the length of one of a million characters would take 200 GB.
    values = [f"B{i:06d}" for i in range(100_000, 200_000)] + [f"B{i:06d}" for i in range(0, 100_000)] + ["X" * 1_000_000, "B000007"]
    codes, distinct = first_occurrences(pa.array(values, type=pa.large_string()))
    assert codes[-1] == 100_007 and codes[-2] == len(values) - 2 and len(distinct) == len(values) - 1


def test_ids_that_differ_only_by_trailing_nul_bytes_stay_apart() -> None:
    values = [f"B{i:03d}" for i in range(200, 400)] + [f"B{i:03d}" for i in range(0, 200)] + ["B001\x00", "B001"]
    codes, distinct = first_occurrences(pa.array(values, type=pa.large_string()))
    assert codes.tolist() == _naive_first(values)
    assert len(distinct) == 401


@pytest.mark.parametrize("seed", range(30))
def test_repeated_ids_across_parts_agree_with_a_dictionary(seed: int) -> None:
    """The ids written more than once across a table's parts (LOG002's candidates by partition):
    within a part or across parts, nulls aside, ids of several lengths, and ids that cannot be
    padded to one width (a NUL byte, two-byte characters, the empty id) must give what a
    dictionary gives."""
    rng = np.random.default_rng(seed)
    alphabet = [["B", "C", "7"], ["B", "\x00"], ["é", "B"], ["B", "C-ABON"]][seed % 4]
    parts: list[pa.Array] = []
    for _ in range(int(rng.integers(0, 6))):
        values = ["".join(rng.choice(alphabet, int(rng.integers(0 if seed % 7 == 0 else 1, 5)))) for _ in range(int(rng.integers(0, 40)))]
        values = [None if rng.random() < 0.1 else v for v in values]
        parts.append(pa.array(values, type=pa.large_string()))
    if seed % 3 == 0:  # a part of nulls only (rows whose id cell is empty)
        parts.insert(int(rng.integers(0, len(parts) + 1)), pa.array([None, None], type=pa.large_string()))
    seen: set[str] = set()
    twice = {v for part in parts for v in part.to_pylist() if v is not None and (v in seen or seen.add(v))}
    assert repeated_ids(parts) == twice


def test_repeated_ids_across_parts_each_of_one_width_padded_as_bytes() -> None:
    """Parts whose ids each have one length, the lengths differing (a day's ids, a part of orphans
    named otherwise, ids with two-byte characters): each part is padded to the longest as bytes, and
    an id is repeated only where the same id is written again, not where padding makes it look so."""
    parts = [
        pa.array(["B001", "B002", "Bé1"], type=pa.large_string()),  # four bytes each
        pa.array(["B002", "B0010"], type=pa.large_string()),  # "B002" again; B0010 is not B001
        pa.array(["Bé1", "Bé2"], type=pa.large_string()),
        pa.array(["B-ORPHAN-1", None], type=pa.large_string()),
    ]
    assert _sortable(parts) is not None  # padded, not hashed
    assert repeated_ids(parts) == {"B002", "Bé1"}


@pytest.mark.parametrize("seed", range(10))
def test_repeated_ids_of_parts_in_id_order_with_a_few_repeats(seed: int) -> None:
    """A day's part after another, each in id order, as logs are split: the few ids written again
    (a later day repeating an earlier day's bet, a part repeating its own) are found, and only they."""
    rng = np.random.default_rng(seed)
    ids = [f"WB{i:09d}" for i in range(3000)]
    again = sorted(set(rng.choice(3000, 12, replace=False).tolist()))
    rows = list(ids)
    for at in again:  # each repeated id written again a little later
        rows.insert(min(len(rows), at + int(rng.integers(1, 400))), ids[at])
    cuts = sorted(rng.choice(np.arange(1, len(rows)), 6, replace=False).tolist())
    parts = [pa.array(rows[a:b], type=pa.large_string()) for a, b in zip([0, *cuts], [*cuts, len(rows)], strict=True)]
    assert repeated_ids(parts) == {ids[at] for at in again}


def _keeps_order(frame: pd.DataFrame, by: list[str]) -> bool:
    return bool((frame.sort_values(by, kind="stable").index == frame.index).all())


@pytest.mark.parametrize("seed", range(40))
def test_is_sorted_agrees_with_sort_values(seed: int) -> None:
    """A replay skips its sort only when the sort would move no row (strings, instants in any zone,
    file order as a categorical, integers; ties left to the later keys)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 40))
    ts = pd.Timestamp("2026-03-01T20:00:00+01:00") + pd.to_timedelta(rng.integers(0, 4, n), unit="min")
    frame = pd.DataFrame({
        "table_id": pd.Series(rng.choice(["T1", "T10", "T2", "Ç3", "t1"], n), dtype="str"),
        "ts": pd.Series(ts).dt.tz_convert("UTC"),
        "_file": pd.Categorical.from_codes(rng.integers(0, 3, n), categories=["b.csv", "a.csv", "c.csv"]),
        "_line": rng.integers(0, 5, n),
    })
    by = ["table_id", "ts", "_file", "_line"]
    ordered = frame.sort_values(by, kind="stable").reset_index(drop=True)
    assert is_sorted(ordered, by)
    assert is_sorted(frame, by) == _keeps_order(frame, by)
    swapped = ordered.iloc[::-1].reset_index(drop=True)
    assert is_sorted(swapped, by) == _keeps_order(swapped, by)


@pytest.mark.parametrize("seed", range(12))
def test_is_sorted_compares_only_where_keys_change_but_sees_every_step_back(seed: int) -> None:
    """Long runs of one table (the order of few changes), with one row of a table or a time put
    out of place: the answer is still the sort's."""
    rng = np.random.default_rng(seed)
    n = 400
    frame = pd.DataFrame({
        "table_id": pd.Series(np.repeat(["T1", "T2", "T3", "T4"], n // 4), dtype="str"),
        "ts": pd.Series(pd.Timestamp("2026-03-01T20:00:00Z") + pd.to_timedelta(np.arange(n) % 100, unit="min")),
        "_line": np.arange(n),
    })
    by = ["table_id", "ts", "_line"]
    assert is_sorted(frame, by)
    moved = frame.copy()
    i, j = (int(x) for x in rng.integers(0, n, 2))
    column = ["table_id", "ts", "_line"][seed % 3]
    moved.loc[i, column], moved.loc[j, column] = frame.loc[j, column], frame.loc[i, column]
    assert is_sorted(moved, by) == _keeps_order(moved, by)


def test_is_sorted_answers_false_on_nulls_so_the_sort_places_them() -> None:
    frame = pd.DataFrame({"table_id": pd.Series(["T1", None, "T2"], dtype="str"), "n": [1, 2, 3]})
    assert not is_sorted(frame, ["table_id", "n"])
    assert is_sorted(frame, ["n"])
    # Rows the first key already tells apart keep their places whatever a later key holds.
    assert is_sorted(frame, ["n", "table_id"]) and _keeps_order(frame, ["n", "table_id"])
    assert not is_sorted(frame.iloc[::-1].reset_index(drop=True), ["n", "table_id"])


@pytest.mark.parametrize("seed", range(40))
def test_stable_sorted_orders_rows_as_sort_values(seed: int) -> None:
    """A replay's order, worked out by Arrow, is pandas' stable sort: text by code point (ids of
    several lengths, characters beyond ASCII), instants in any zone, file order as a categorical of
    unsorted categories, integers nullable or not, floats; missing values last in every key, ties
    left to the later keys and then to the rows' own order; index labels kept."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 60))
    ts = pd.Timestamp("2026-03-01T20:00:00+01:00") + pd.to_timedelta(rng.integers(0, 4, n), unit="min")

    def holes(values: pd.Series) -> pd.Series:
        return values.mask(pd.Series(rng.random(n) < (0.1 if seed % 2 else 0.0), index=values.index))

    frame = pd.DataFrame({
        "table_id": holes(pd.Series(rng.choice(["T1", "T10", "T2", "Ç3", "t1", "é"], n), dtype="str")),
        "ts": holes(pd.Series(ts).dt.tz_convert("UTC")),
        "coup_no": pd.array(rng.integers(0, 4, n), dtype="Int64" if seed % 3 else "int64"),
        "x": holes(pd.Series(rng.choice([0.5, -1.0, 2.0, np.inf], n))),
        "_file": pd.Categorical.from_codes(rng.integers(-1 if seed % 2 else 0, 3, n), categories=["b.csv", "a.csv", "c.csv"]),
        "_line": rng.integers(0, 5, n),
    }, index=rng.permutation(n) * 3)
    if seed % 3 == 0:
        frame.loc[frame.index[: n // 4], "coup_no"] = pd.NA if frame["coup_no"].dtype == "Int64" else 0
    for by in (["table_id", "ts", "coup_no", "_file", "_line"], ["ts", "x"], ["_file", "table_id"], ["coup_no"]):
        pd.testing.assert_frame_equal(stable_sorted(frame, by), frame.sort_values(by, kind="stable"))


def _python_iso(t: pd.Timestamp, micro: bool) -> str:
    """The oracle: Python's own calendar and formatting."""
    d = t.to_pydatetime()
    text = d.strftime("%Y-%m-%dT%H:%M:%S")
    return text + (f".{d.microsecond:06d}" if micro and d.microsecond else "") + "+00:00"


@pytest.mark.parametrize("micro", [True, False])
def test_iso_text_agrees_with_python_across_the_loaders_years(micro: bool) -> None:
    fixed = ["1678-01-01T00:00:00", "1969-12-31T23:59:59.999999", "1970-01-01T00:00:00", "2000-02-29T12:00:00.5",
             "2026-03-01T23:59:59", "2100-03-01T00:00:01", "2261-12-31T23:59:59.000001"]
    rng = np.random.default_rng(7)
    lo, hi = pd.Timestamp("1678-01-02", tz="UTC").value // 1000, pd.Timestamp("2261-12-30", tz="UTC").value // 1000
    spread = pd.to_datetime(rng.integers(lo, hi, 2000), unit="us", utc=True)
    # A month of play, dates gathered from one formatting per day; times spread over centuries, each formatted alone.
    a_month = pd.to_datetime(rng.integers(0, 31 * 86400 * 10**6, 2000) + pd.Timestamp("2026-02-15", tz="UTC").value // 1000, unit="us", utc=True)
    times = pd.Series(pd.to_datetime(fixed, utc=True, format="ISO8601").append(spread).append(a_month)).dt.as_unit("us")
    for values in (times, times.iloc[len(fixed):len(fixed) + 2000], times.iloc[-2000:], times.iloc[:1]):
        assert list(iso_text(values, micro=micro)) == [_python_iso(t, micro) for t in values]


def test_iso_text_keeps_missing_times_missing() -> None:
    values = pd.Series(pd.to_datetime(["2026-03-01T21:04:05Z", None], utc=True))
    assert list(iso_text(values, micro=True, missing_as="?")) == ["2026-03-01T21:04:05+00:00", "?"]
    assert list(iso_text(values.iloc[:0], micro=True)) == []


def test_text_array_of_categories_is_each_values_text() -> None:
    from auditor.frames import text_array

    assert text_array(pd.Series(pd.Categorical(["b", None, "a", "b"]))).to_pylist() == ["b", None, "a", "b"]  # type: ignore[union-attr]
    assert text_array(pd.Series(pd.Categorical([None, None], categories=[]))).to_pylist() == [None, None]  # type: ignore[union-attr]
    assert text_array(pd.Series(pd.Categorical([1, 2]))) is None  # not text: the caller ranks the values instead


def test_positions_of_slices_of_larger_columns() -> None:
    """Rows filtered out of a frame leave its Arrow text sliced (an offset into shared buffers)."""
    ids = pd.Series([f"C{i:04d}" for i in range(0, 40, 2)], dtype="str")
    keys = pd.Series(sorted([f"C{i:04d}" for i in range(40)] * 3), dtype="str")
    for skip_keys, skip_ids in [(0, 1), (1, 0), (5, 3)]:
        k, i = keys.iloc[skip_keys:], ids.iloc[skip_ids:]
        assert positions(k, i).tolist() == _first_position(k.tolist(), i.tolist())


@pytest.mark.parametrize("nulls", [0, 3])
def test_ids_in_no_order_each_once_are_their_own_firsts(nulls: int) -> None:
    rng = random.Random(nulls)
    values: list[str | None] = [f"{rng.getrandbits(64):016x}" for _ in range(5000)]
    for at in rng.sample(range(len(values)), nulls):
        values[at] = None
    codes, distinct = first_occurrences(pa.array(values, type=pa.large_string()))
    assert codes.tolist() == _naive_first(values)
    assert distinct.to_pylist() == [v for v in values if v is not None]


@pytest.mark.parametrize("collide", ["no", "some", "all"])
def test_ids_of_one_width_in_no_order_hashed_agree_with_a_dictionary(monkeypatch: pytest.MonkeyPatch, collide: str) -> None:
    """UUIDs in no order, some repeated, hashed in blocks of 7 rows; with the hashes' keys made to
    collide, some of them (64 values) or all, the ids are still told apart by their text."""
    import uuid

    from auditor import frames

    monkeypatch.setattr(frames, "_HASH_ROWS", 7)
    if collide == "all":
        monkeypatch.setattr(frames, "_row_hashes", lambda data: np.zeros(len(data), dtype=np.uint64))
    if collide == "some":
        hashes = frames._row_hashes
        monkeypatch.setattr(frames, "_row_hashes", lambda data: (hashes(data) % np.uint64(64)) << np.uint64(32))
    rng = random.Random(5)
    pool = [str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(300)]
    values = [rng.choice(pool) if rng.random() < 0.3 else str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(2000)]
    for array in (pa.array(values, type=pa.large_string()), pa.array(["x" * 36, *values], type=pa.string())[1:]):
        codes, distinct = first_occurrences(array)
        assert codes.tolist() == _naive_first(values)
        assert distinct.to_pylist() == list(dict.fromkeys(values))
    every_once = list(dict.fromkeys(values))
    rng.shuffle(every_once)
    codes, distinct = first_occurrences(pa.array(every_once, type=pa.large_string()))
    assert codes.tolist() == list(range(len(every_once))) and distinct.to_pylist() == every_once



def test_named_codes_are_the_same_text_column_pandas_makes_of_the_names() -> None:
    out = named(np.array([2, 0, -1, 1, 2]), ["player", "banker", "tie"], pd.RangeIndex(5, 10))
    expected = pd.Series(["tie", "player", None, "banker", "tie"], index=pd.RangeIndex(5, 10), dtype="str")
    pd.testing.assert_series_equal(out, expected)
    assert (out == "tie").tolist() == [True, False, False, False, True]


@pytest.mark.parametrize("many", [3, 1000])
def test_isin_answers_alike_for_few_or_many_values_and_never_for_a_missing_one(many: int) -> None:
    """A value set many times the size of the column is reduced to the members the column can hold
    before Arrow hashes it: the answer must not change."""
    values = pd.Series([f"C{i:05d}" for i in range(many)], dtype="str")
    column = pd.Series(["C00002", "X", None, "C00002", "C00000", ""], dtype="str")
    expected = [True, False, False, True, True, False]
    assert isin(column, values).tolist() == expected
    assert isin(column, pa.array(values.tolist(), type=pa.string())).tolist() == expected  # another Arrow type


@pytest.mark.parametrize("names", [3, 300])
def test_isin_and_positions_of_text_held_as_codes_answer_as_the_text_does(names: int) -> None:
    """A table's ids read from a month's Parquet are a Categorical (`Column.held_as_codes`), on
    either side of a lookup: the answers are those the text gives, past 127 names (Arrow's codes of
    one byte cannot take the other side's names), a missing value never a member nor found."""
    rng = np.random.default_rng(names)
    pool = [f"T{i:03d}" for i in range(names)]
    ids = pd.Series(list(rng.permutation(pool)[: max(2, names // 2)]) + [None], dtype="str")
    keys = pd.Series([*rng.choice(pool, 40).tolist(), None, "nowhere", pool[0]], dtype="str")
    found, member = positions(keys, ids).tolist(), isin(keys, ids).tolist()
    as_codes = [pd.Series(pd.Categorical(keys)), pd.Series(pd.Categorical(keys, categories=sorted(set(pool) | {"nowhere"}, reverse=True)))]
    for coded_keys in as_codes:
        for other in (ids, pd.Series(pd.Categorical(ids))):
            assert positions(coded_keys, other).tolist() == found
            assert isin(coded_keys, other).tolist() == member
        assert positions(keys, pd.Series(pd.Categorical(ids))).tolist() == found
        assert isin(keys, pd.Series(pd.Categorical(ids))).tolist() == member
    assert member == [k in set(ids.dropna()) for k in keys.astype(object).tolist()]


OUTCOMES = ["banker", "player", "tie"]


def _enum(values: list[str | None], categories: list[str] = OUTCOMES) -> pd.Series:
    return pd.Series(pd.Categorical(values, categories=categories))


@pytest.mark.parametrize(
    "other",
    [
        pd.Series(["tie", "banker", "player", None, "tie", "nine"], dtype="str"),  # a replay's text
        _enum(["tie", "banker", "player", None, "tie", None]),  # the same enum
        _enum(["tie", "banker", "player", None, "tie", None], ["tie", "player", "banker"]),  # other order
    ],
)
def test_equal_compares_an_enum_column_by_value_and_a_missing_value_never_equals(other: pd.Series) -> None:
    """What `outcome != true_outcome` and a bet's symbol against its spin's were, as text: an enum
    column is compared by code, whatever the other side's categories or their order."""
    recorded = _enum(["tie", "player", "player", None, None, "banker"])
    expected = [True, False, True, False, False, False]
    assert equal(recorded, other).tolist() == expected
    assert equal(other, recorded).tolist() == expected
    as_text = recorded.astype("str")
    assert equal(as_text, other.astype("str")).tolist() == expected  # plain text columns alike


def test_codes_in_locates_text_and_enum_values_among_names() -> None:
    names = ["asos", "petit", "gran"]
    assert codes_in(pd.Series(["gran", None, "none", "asos"], dtype="str"), names).tolist() == [2, -1, -1, 0]
    assert codes_in(_enum(["gran", None, "none", "asos"], ["none", "asos", "gran"]), names).tolist() == [2, -1, -1, 0]


@pytest.mark.parametrize("seed", range(8))
def test_by_code_gives_each_row_its_codes_answer_and_a_missing_code_none(seed: int) -> None:
    """Each row takes the answer of its code (a Categorical's, a dictionary's), -1 (missing) that of
    no name (False, or -1): byte codes with byte answers (looked up by Arrow), wider codes or
    answers (by numpy) alike; the answer is the caller's to write."""
    rng = np.random.default_rng(seed)
    names = int(rng.integers(1, 128))
    for code_type in (np.int8, np.int16, np.int32):
        codes = rng.integers(-1, names, 500).astype(code_type)
        for answers in (rng.integers(-1, names, names).astype(np.int8), rng.random(names) < 0.5, rng.integers(-1, 10**6, names)):
            none = False if answers.dtype == bool else -1
            got = by_code(codes, answers)
            assert got.dtype == answers.dtype and got.flags.writeable
            assert got.tolist() == [answers[c] if c >= 0 else none for c in codes.tolist()]


@pytest.mark.parametrize("enum", [True, False])
def test_among_is_isin_for_an_enum_or_text_column_and_a_missing_value_is_never_among(enum: bool) -> None:
    values = ["banc", None, "punt", "banc_seguit", "abonament", "banc"]
    series = _enum(values, ["punt", "banc", "banc_seguit", "abonament"]) if enum else pd.Series(values, dtype="str")
    for names in [("banc", "banc_seguit"), ("punt",), ("nowhere",), ("banc", "nowhere"), ()]:
        expected = series.isin(names).to_numpy(dtype=bool) & series.notna().to_numpy()
        assert among(series, names).tolist() == expected.tolist(), names


def _keys(kind: str, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """Two sort keys as rules pass them: items grouped by their round (nearly in order), shuffled,
    whole floats (a nullable integer column as floats), fractions and NaN, or ranges too wide to
    pack into one integer."""
    rounds = np.repeat(np.arange(300), rng.integers(1, 5, 300))
    seq = rng.integers(-3, 4, len(rounds))
    if kind == "shuffled":
        at = rng.permutation(len(rounds))
        return rounds[at], seq[at]
    if kind == "whole floats":
        return rounds, seq.astype("float64")
    if kind == "fractions and NaN":
        frac = seq / 2.0
        frac[::7] = np.nan
        return rounds, frac
    if kind == "wide":
        return rounds.astype(np.int64) * 2**40, seq.astype(np.int64) * 2**30
    return rounds, seq


@pytest.mark.parametrize("kind", ["grouped", "shuffled", "whole floats", "fractions and NaN", "wide"])
def test_order_by_is_numpys_lexsort_with_the_first_key_most_significant(kind: str) -> None:
    keys = _keys(kind, np.random.default_rng(7))
    assert np.array_equal(order_by(*keys), np.lexsort(keys[::-1]))


def test_order_by_orders_nothing_and_one_row() -> None:
    assert order_by(np.zeros(0, dtype=np.int64)).tolist() == [] and order_by(np.array([5]), np.array([2.5])).tolist() == [0]


@pytest.mark.parametrize("kind", ["grouped", "shuffled"])
def test_unique_inverse_is_numpys_unique_with_its_inverse(kind: str) -> None:
    rounds, seq = _keys(kind, np.random.default_rng(11))
    values = rounds.astype(np.int64) * 10 + seq
    distinct, inverse = unique_inverse(values)
    expected_distinct, expected_inverse = np.unique(values, return_inverse=True)
    assert np.array_equal(distinct, expected_distinct) and np.array_equal(inverse, expected_inverse)
    assert len(unique_inverse(np.zeros(0, dtype=np.int64))[0]) == 0


def test_as_categories_keeps_every_value_and_missing_and_leaves_other_columns_alone() -> None:
    text = pd.Series(pd.array(["T2", None, "T1", "T2", "T1"], dtype="str"), index=[5, 6, 7, 8, 9])
    cats = as_categories(text)
    assert isinstance(cats.dtype, pd.CategoricalDtype) and list(cats.index) == list(text.index)
    assert cats.astype(object).where(cats.notna(), None).tolist() == ["T2", None, "T1", "T2", "T1"]
    numbers = pd.Series([1, 2, 3])
    assert as_categories(numbers) is numbers and as_categories(cats) is cats


def test_hits_name_a_table_gathered_as_categories_as_the_text_it_was() -> None:
    from auditor.rules.base import hits

    frame = pd.DataFrame({"table_id": pd.array(["T1", "T2", None], dtype="str"), "round_id": pd.array(["r1", "r2", "r3"], dtype="str"),
                          "ts": pd.to_datetime(["2026-01-01T10:00Z"] * 3, utc=True)})
    as_text = hits(frame, np.array([True, False, True]), round_col="round_id")
    as_codes = hits(frame.assign(table_id=as_categories(frame["table_id"])), np.array([True, False, True]), round_col="round_id")
    pd.testing.assert_frame_equal(as_codes, as_text)


@pytest.mark.parametrize("cuts", [[], [0, 0, 3], [1, 2, 3, 4, 5, 6, 7, 8, 9], [5, 5, 5, 10]])
@pytest.mark.parametrize("seed", range(3))
def test_take_sorted_gives_arrows_take_of_the_column_in_any_chunks(cuts: list[int], seed: int) -> None:
    """Rows taken chunk by chunk are the rows Arrow's take of the joined column gives: empty chunks,
    missing values, a chunk touched once or not at all; past `TAKE_CHUNKS_APART` chunks, Arrow's own."""
    import auditor.frames as frames

    rng = np.random.default_rng(seed)
    values = pa.array([None if v % 7 == 3 else f"B{v:04d}" for v in range(12)], type=pa.large_string())
    bounds = [0, *cuts, len(values)]
    chunked = pa.chunked_array([values.slice(a, b - a) for a, b in zip(bounds, bounds[1:])], type=pa.large_string())
    for k in range(len(values) + 1):
        positions = np.sort(rng.choice(len(values), k, replace=False)).astype(np.int64)
        taken = take_sorted(chunked, positions)
        assert pa.chunked_array([taken]).combine_chunks().equals(values.take(pa.array(positions, type=pa.int64())))
    frames_apart = frames.TAKE_CHUNKS_APART
    try:
        frames.TAKE_CHUNKS_APART = 1
        positions = np.arange(len(values), dtype=np.int64)
        assert pa.chunked_array([take_sorted(chunked, positions)]).combine_chunks().equals(values)
    finally:
        frames.TAKE_CHUNKS_APART = frames_apart


def test_hits_of_text_in_chunks_are_those_of_the_same_text_in_one() -> None:
    """A column read a block or a file at a time (several Arrow chunks) names the same rows in a
    rule's findings as the column in one chunk."""
    from auditor.rules.base import hits

    ids = ["B1", "B2", None, "B4", "B5", "B6"]
    whole = pd.Series(pd.array(ids, dtype="str"))
    chunked = pa.chunked_array([pa.array(ids[:2], pa.large_string()), pa.array(ids[2:2], pa.large_string()), pa.array(ids[2:], pa.large_string())])
    in_chunks = pd.Series(pd.arrays.ArrowStringArray(chunked, dtype=whole.dtype))
    assert in_chunks.array.__arrow_array__().num_chunks == 3
    frame = pd.DataFrame({"table_id": "T1", "round_id": whole, "ts": pd.to_datetime(["2026-01-01T10:00Z"] * 6, utc=True)})
    mask = np.array([False, True, True, False, True, True])
    one = hits(frame, mask, round_col="round_id", observed=lambda rows: rows["round_id"])
    several = hits(frame.assign(round_id=in_chunks), mask, round_col="round_id", observed=lambda rows: rows["round_id"])
    pd.testing.assert_frame_equal(several, one)
    assert list(several["round_id"].astype(object).where(several["round_id"].notna(), None)) == ["B2", None, "B5", "B6"]
    # A rule's function sees the column's own dtype, missing as NA where the column holds NA.
    with_na = pd.Series(pd.arrays.ArrowStringArray(chunked, dtype=pd.StringDtype("pyarrow")))
    seen: list[pd.Series] = []
    hits(frame.assign(round_id=with_na), mask, round_col="round_id", observed=lambda rows: seen.append(rows["round_id"]) or rows["round_id"])
    assert seen[0].dtype == with_na.dtype and seen[0].isna().tolist() == [False, True, False, False]


@pytest.mark.parametrize("values", [
    pd.Series(["T1", "T1", "T2", None, None, "T2", "T2"], dtype="str"),
    pd.Series(pd.Categorical(["a", "a", None, None, "b", "a", "a"], categories=["b", "a"])),
    pd.Series([3, 3, 4, 4, 4, 3, 5], dtype=np.int64),
    pd.Series([True, True, False, False, True, True, True]),
    pd.Series([1.5, 1.5, np.nan, np.nan, 2.0, 2.0, 1.5]),
    pd.Series(pd.to_datetime(["2026-01-01T10:00Z", "2026-01-01T10:00Z", None, "2026-01-01T10:01Z", "2026-01-01T10:01Z", None, None], utc=True)),
    pd.Series([], dtype="str"),
    pd.Series(["only"], dtype="str"),
])
def test_differs_from_previous_is_the_shifted_comparison(values: pd.Series) -> None:
    """A row differs from the one before unless both hold the same value: the first row and a
    missing value on either side always differ, as `values != values.shift()` says."""
    assert differs_from_previous(values).tolist() == (values != values.shift()).tolist()


def test_run_sums_and_starts_match_groupby() -> None:
    rng = np.random.default_rng(7)
    new = rng.random(500) < 0.1
    values = rng.integers(-10**6, 10**6, 500)
    runs = pd.Series(np.cumsum(new | (np.arange(500) == 0)))
    starts = run_starts(new)
    assert (np.arange(500) - starts).tolist() == runs.groupby(runs).cumcount().tolist()
    assert cumsum_in_runs(values, starts).tolist() == pd.Series(values).groupby(runs).cumsum().tolist()
    # Row 0 begins a run whether `new` says so or not; a run of one row is its own start.
    assert run_starts(np.array([False, False, True, False])).tolist() == [0, 0, 2, 2]
    assert run_starts(np.array([True, True, False])).tolist() == [0, 1, 1]
    assert run_starts(np.array([False])).tolist() == [0] and run_starts(np.zeros(3, dtype=bool)).tolist() == [0, 0, 0]


def test_run_sums_wrap_past_int64_as_pandas_does() -> None:
    values = np.array([2**62, 2**62, 2**62, 5, 2**62, 2**62], dtype=np.int64)
    new = np.array([True, False, False, True, False, False])
    runs = pd.Series(np.cumsum(new))
    assert cumsum_in_runs(values, run_starts(new)).tolist() == pd.Series(values).groupby(runs).cumsum().tolist()
    assert run_starts(np.zeros(0, dtype=bool)).tolist() == [] and cumsum_in_runs(values[:0], run_starts(new[:0])).tolist() == []


def test_row_sums_are_numpys_along_rows() -> None:
    rng = np.random.default_rng(7)
    cards = rng.random((300, 6)) < 0.7  # a coup's six card slots, some empty
    assert row_sums(cards, np.int8).tolist() == cards.sum(axis=1).tolist()
    assert row_sums(cards, np.int8).dtype == np.int8
    counts = rng.integers(0, 100, (50, 3))
    assert row_sums(counts, np.int64).tolist() == counts.sum(axis=1).tolist()
    empty = np.zeros((0, 6), dtype=bool)
    assert row_sums(empty, np.int32).tolist() == []
    assert row_sums(np.zeros((4, 0), dtype=bool), np.int8).tolist() == [0] * 4


@pytest.mark.parametrize("order", ["grouped", "shuffled"])
@pytest.mark.parametrize("op, empty", [(np.maximum, -np.inf), (np.minimum, np.inf)])
def test_reduce_by_is_ufunc_at(order: str, op: np.ufunc, empty: float) -> None:
    """Each group's minimum or maximum, `empty` where a group has none, whether the items come
    grouped (one reduceat) or in no order (ufunc.at)."""
    rng = np.random.default_rng(3)
    groups = np.sort(rng.integers(0, 40, 300))
    values = rng.integers(-50, 50, 300).astype("float64")
    if order == "shuffled":
        at = rng.permutation(300)
        groups, values = groups[at], values[at]
    expected = np.full(45, empty)
    op.at(expected, groups, values)
    assert reduce_by(op, values, groups, 45, empty).tolist() == expected.tolist()
    assert reduce_by(op, values[:0], groups[:0], 3, empty).tolist() == [empty] * 3
    with pytest.raises(ValueError, match="negative group"):  # numpy would take it from the end
        reduce_by(op, values, np.where(groups == groups[0], -1, groups), 45, empty)


@pytest.mark.parametrize("order", ["increasing", "reversed", "in runs", "in runs, one repeated"])
def test_rows_holding_are_the_rows_isin_finds(order: str) -> None:
    """The rows a report looks up, by binary search among ids in order (or in a few increasing
    runs, sorted first) or by hash otherwise: the same rows either way, every row of an id held
    twice, ids of another length or absent found nowhere."""
    ids = [f"B{i:05d}" for i in range(0, 3000, 3)]
    if order == "reversed":
        ids = ids[::-1]
    if order.startswith("in runs"):
        ids = ids[500:] + ids[:500]
    if order.endswith("repeated"):
        ids = ids + ["B01500"]
    values = pd.Series(ids, dtype="str")
    wanted = ["B00000", "B00003", "B02997", "B00001", "B0000", "B000033", "B01500", "Bé0000", "zzz"]
    expected = np.flatnonzero(values.isin(wanted).to_numpy())
    assert rows_holding(values, wanted).tolist() == expected.tolist()
    # As `FindingRuns.kept_ids` gives them: Arrow text, in no order, a missing id naming no row.
    assert rows_holding(values, pa.array([*wanted[::-1], None], type=pa.large_string())).tolist() == expected.tolist()
    assert rows_holding(values, []).tolist() == [] and rows_holding(values.iloc[:0], wanted).tolist() == []


def test_ids_in_runs_are_not_sorted_for_a_lookup_of_their_rows_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """A table's rows that findings name are looked up once or twice (the let-go, the report):
    ids in a few runs (files a day) are then hashed, not sorted (4M bet ids: 0.3-0.6 s), and no
    index is remembered; the items' rounds, searched for by millions of keys, still sort them, and
    the lookups after use that index."""
    import auditor.frames as frames

    sorts: list[int] = []
    argsort = np.argsort
    monkeypatch.setattr(frames.np, "argsort", lambda a, *args, **kw: sorts.append(len(a)) or argsort(a, *args, **kw))
    ids = [f"B{i:05d}" for i in range(0, 3000, 3)]
    values = pd.Series(ids[500:] + ids[:500], dtype="str")
    wanted = ["B00000", "B02997", "B00001"]
    assert rows_holding(values, wanted).tolist() == [499, 500]
    assert sorts == []
    keys = pd.Series([k for k in ("B00003", "B01500", "B00004") for _ in range(70)], dtype="str")  # enough to be searched for
    assert positions(keys, values).tolist() == [k for k in (501, 0, -1) for _ in range(70)]
    assert sorts == [1000]
    assert rows_holding(values, wanted).tolist() == [499, 500] and sorts == [1000]


@pytest.mark.parametrize("seed", range(10))
def test_rows_dropped_from_text_leave_what_a_filter_leaves(seed: int) -> None:
    """`without_rows` is Arrow's filter by the rows kept, for any rows dropped (none, every one, the
    first, the last, runs of them), on text with nulls, of a slice that starts inside its buffer,
    and on the same text in chunks."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 60))
    cells = [None if rng.random() < 0.2 else "é" * int(rng.integers(0, 3)) + str(i) for i in range(n + 5)]
    text = pa.array(cells, type=pa.large_string()).slice(5) if seed % 2 else pa.array(cells[:n], type=pa.large_string())
    for drop in (np.zeros(n, dtype=bool), np.ones(n, dtype=bool), rng.random(n) < 0.3, np.arange(n) < 2, np.arange(n) >= n - 2):
        got = without_rows(text, np.flatnonzero(drop))
        assert got.equals(text.filter(pa.array(~drop))), drop
        assert got.type == text.type
        cuts = sorted(rng.integers(0, n + 1, 3).tolist())  # the same text in chunks, some empty
        chunked = pa.chunked_array([text.slice(a, b - a) for a, b in zip([0, *cuts], [*cuts, n], strict=True)], type=text.type)
        assert without_rows(chunked, np.flatnonzero(drop)).equals(got), drop


def test_a_columns_search_index_is_worked_out_once_and_let_go_with_the_column(monkeypatch: pytest.MonkeyPatch) -> None:
    """A round table's ids are searched by the load (its items' rounds), the let-go and the report
    (the rows findings name): the index of a column is worked out once and kept while the column's
    data lives, a new Series of the same column included; a column of several chunks (joined
    afresh for each search) is not kept; the answers are those of a fresh index."""
    import gc

    import auditor.frames as frames

    worked: list[int] = []
    fresh = frames._ids_search_index
    monkeypatch.setattr(frames, "_ids_search_index", lambda ids, rising=False, merge_runs=True: worked.append(len(ids)) or fresh(ids, rising, merge_runs))
    frame = pd.DataFrame({"id": pd.Series([f"C{i:05d}" for i in range(0, 900, 3)], dtype="str")})
    # Items grouped by their round, enough of them to be searched for (a few would be hashed).
    keys = pd.Series([k for k in ["C00000", "C00003", "C00004", "C00897", None] for _ in range(10)], dtype="str")
    expected = [at for at in [0, 1, -1, 299, -1] for _ in range(10)]
    assert positions(keys, frame["id"]).tolist() == expected
    assert rows_holding(frame["id"], ["C00003", "C00897", "C00004"]).tolist() == [1, 299]
    assert positions(keys, frame["id"]).tolist() == expected
    assert worked == [300]  # once, for the three searches
    held = len(frames._INDEXES)
    del frame
    gc.collect()
    assert len(frames._INDEXES) == held - 1
    two = pd.concat([pd.DataFrame({"id": pd.Series(["C00000", "C00003"], dtype="str")}),
                     pd.DataFrame({"id": pd.Series(["C00006", "C00009"], dtype="str")})], ignore_index=True)["id"]
    assert two.array.__arrow_array__().num_chunks == 2
    assert positions(pd.Series(["C00006", "C00006", "C00001"], dtype="str"), two).tolist() == [2, 2, -1]
    assert rows_holding(two, ["C00009"]).tolist() == [3]
    assert worked == [300, 4, 4]


def _wrapped(total: int) -> int:
    """A Python integer as int64 arithmetic leaves it (modulo 2**64, signed)."""
    return (total + 2**63) % 2**64 - 2**63


def test_sums_by_code_are_int64_sums_whatever_the_amounts() -> None:
    rng = np.random.default_rng(11)
    codes = rng.integers(0, 7, 400)
    for values in (rng.integers(-10**6, 10**6, 400),  # a casino's amounts
                   rng.integers(-(2**62), 2**62, 400),  # past 2**53: no float holds them; sums wrap past int64
                   np.array([2**53 + 1] * 400)):  # one odd integer past 2**53, which rounds in a float
        expected = [_wrapped(sum(int(v) for v, c in zip(values, codes, strict=True) if c == k)) for k in range(8)]
        got = sums_by(codes, values, 8)
        assert got.dtype == np.int64 and got.tolist() == expected
    assert sums_by(codes[:0], np.zeros(0, dtype=np.int64), 3).tolist() == [0, 0, 0]
    # A code out of 0..n-1 is refused, never summed into another code's total.
    with pytest.raises(ValueError):
        sums_by(np.array([0, -1]), np.array([5, 7]), 2)
    with pytest.raises(IndexError):
        sums_by(np.array([0, 2]), np.array([5, 7]), 2)


@pytest.mark.parametrize("n", [1, 7, 5000])  # by Arrow's grouping (a bundle's tables), and by np.add.at past ARROW_GROUPS
def test_sums_by_each_are_sums_by_of_each(n: int) -> None:
    rng = np.random.default_rng(n)
    codes = rng.integers(0, n, 3000)
    columns = [rng.integers(-10**6, 10**6, 3000), rng.integers(-(2**62), 2**62, 3000), np.full(3000, 2**53 + 1)]
    got = sums_by_each(codes, columns, n + 2)  # the last two codes have no row: their sums are 0
    for values, sums in zip(columns, got, strict=True):
        expected = [_wrapped(sum(int(v) for v, c in zip(values, codes, strict=True) if c == k)) for k in range(n + 2)]
        assert sums.dtype == np.int64 and sums.tolist() == expected
    assert [s.tolist() for s in sums_by_each(codes[:0], [np.zeros(0, dtype=np.int64)], 3)] == [[0, 0, 0]]
    assert sums_by_each(codes, [], n) == []
    with pytest.raises(ValueError):
        sums_by_each(np.array([0, -1]), [np.array([5, 7])], 2)
    with pytest.raises(IndexError):
        sums_by_each(np.array([0, 2]), [np.array([5, 7])], 2)


def test_instants_compare_as_pandas_times_do_with_missing_ones_never_holding() -> None:
    """Times of either unit, zoned or not, compare in numpy as pandas compares them, a missing time
    (NaT) never before, after or at another; the column's memory is read, not copied."""
    placed = pd.Series(pd.to_datetime(["2026-01-01T10:00:00Z", "2026-01-01T10:00:05Z", None, "2026-01-01T10:00:09Z"], utc=True)).astype("datetime64[us, UTC]")
    closed = pd.Series(pd.to_datetime(["2026-01-01T10:00:05Z", "2026-01-01T10:00:05Z", "2026-01-01T10:00:05Z", None], utc=True)).astype("datetime64[ns, UTC]")
    for op in (np.less, np.greater_equal, np.equal):
        assert op(instants(placed), instants(closed)).tolist() == op(placed, closed).fillna(False).tolist()
    assert (instants(placed) >= instants(closed)).tolist() == [False, True, False, False]
    assert np.shares_memory(instants(placed), placed.array._ndarray)
    naive = pd.Series(pd.to_datetime(["2026-03-01", None]))
    assert instants(naive).dtype.kind == "M" and np.isnat(instants(naive)).tolist() == [False, True]
    with pytest.raises(TypeError):
        instants(pd.Series(["2026-01-01"]))


@pytest.mark.parametrize("n", [3, 40, 5000])
def test_sums_by_each_of_codes_in_runs_are_sums_by_of_each(n: int) -> None:
    """Codes in runs (items grouped by their round, rounds by their table) are summed a run at a
    time first: the sums are still each code's, wrapped as int64's, and a bad code is still refused."""
    rng = np.random.default_rng(n)
    codes = np.repeat(rng.integers(0, n, 3000), rng.integers(1, 6, 3000))  # runs, a code in several
    rows = len(codes)
    columns = [rng.integers(-10**6, 10**6, rows), rng.integers(-(2**62), 2**62, rows), np.full(rows, 2**53 + 1)]
    got = sums_by_each(codes, columns, n + 2)
    for values, sums in zip(columns, got, strict=True):
        expected = [0] * (n + 2)
        for v, c in zip(values.tolist(), codes.tolist(), strict=True):
            expected[c] += v
        assert sums.dtype == np.int64 and sums.tolist() == [_wrapped(e) for e in expected]
    with pytest.raises(ValueError):
        sums_by_each(np.r_[codes, [-1] * 5], [np.ones(rows + 5, dtype=np.int64)], n)
    with pytest.raises(IndexError):
        sums_by_each(np.r_[codes, [n + 2] * 5], [np.ones(rows + 5, dtype=np.int64)], n + 2)


def _numbered_log(rng: np.random.Generator, n: int, prefix: str, digits: int, first: int) -> list[str | None]:
    """Ids numbered in sequence from `first` (`prefix` and `digits` zero-padded digits), in no order,
    with what a log also holds: an id written twice, nulls, orphans and planted ids of the same
    width that are not numbered so (another prefix, a letter among the digits, a sign), and ids of
    other widths."""
    values: list[str | None] = [f"{prefix}{x:0{digits}d}" for x in rng.permutation(n) + first]
    for _ in range(int(rng.integers(0, 40))):
        kind, at = int(rng.integers(0, 8)), int(rng.integers(0, len(values) + 1))
        some = f"{first + int(rng.integers(0, n)):0{digits}d}"
        values.insert(at, [
            values[int(rng.integers(0, n))],  # written twice
            None,
            f"{prefix}-ORPHAN-{int(rng.integers(0, 5))}",
            f"{prefix}{int(rng.integers(0, 99))}",  # fewer digits
            ("X" + prefix + some)[: len(prefix) + digits] if prefix else "X" + some[1:],  # the same width, another prefix
            f"{prefix}{some[:-1]}x",  # a letter where the last digit is due
            f"{prefix}+{some[1:]}",  # a sign: no digit
            f"{prefix}{some}0",  # one digit more
        ][kind])
    return values


@pytest.mark.parametrize("seed", range(24))
def test_numbered_ids_in_no_order_agree_with_a_dictionary(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ids numbered in sequence, shuffled (a log written in time order across tables): their first
    rows and the items' rounds are found by number, and must be what hashing the text finds."""
    import pyarrow.compute as pc

    from auditor import frames

    monkeypatch.setattr(frames, "_NUMBERED_AT_LEAST", 1)  # small logs too, so that many cases are tried
    rng = np.random.default_rng(seed)
    prefix, digits = [("WB", 9), ("", 6), ("é-", 12), ("T1-", 18)][seed % 4]
    n = int(rng.integers(200, 3000))
    # Past nine digits: numbers beyond 32 bits, running across a billion (the last nine digits wrap).
    first = int(rng.integers(0, 1000)) if digits <= 9 else int(rng.integers(1, 9)) * 10 ** (digits - 1) + 10**9 - n // 2
    values = _numbered_log(rng, n, prefix, digits, first)
    for kind in (pa.string(), pa.large_string()):
        ids = pa.array(values, type=kind)
        taken = frames._first_by_number(ids)
        assert taken is not None  # numbered: this path, not the hashing after it
        codes, distinct = taken
        assert codes.tolist() == _naive_first(values)
        assert distinct.to_pylist() == frames._first_by_dictionary(ids)[1].to_pylist()  # in order of first rows
        assert first_occurrences(ids)[0].tolist() == _naive_first(values)
        # Items of those rounds, in no order: mostly known ids, some unknown numbers, odd ids, nulls.
        picks = rng.integers(0, len(values), 4 * len(values))
        keys: list[str | None] = [values[int(i)] if rng.random() < 0.9 else f"{prefix}{first + int(rng.integers(-n, 2 * n)):0{digits}d}" for i in picks]
        keys[:: 97] = [None] * len(keys[:: 97])
        items = pa.array(keys, type=kind)
        found = frames._numbered_positions(items, ids)
        assert found is not None
        expected = pc.fill_null(pc.index_in(items, value_set=ids, skip_nulls=True), -1).to_numpy(zero_copy_only=False)
        assert found.tolist() == expected.tolist() == _first_position(keys, values)
        assert positions(items, ids).tolist() == expected.tolist()


def test_ids_not_numbered_in_sequence_are_hashed(monkeypatch: pytest.MonkeyPatch) -> None:
    """UUIDs, numbers too sparse for a table of them, several numberings: the numbered path declines
    (None), and the answer is the hashing's."""
    from auditor import frames

    monkeypatch.setattr(frames, "_NUMBERED_AT_LEAST", 1)
    rng = random.Random(7)
    uuids = [f"{rng.getrandbits(128):032x}" for _ in range(500)]
    sparse = [f"B{rng.getrandbits(40):013d}" for _ in range(500)]
    mixed = [f"{'ABCDEFGHIJ'[i % 10]}{i:05d}" for i in range(500)]
    for values in (uuids, sparse, mixed):
        ids = pa.array(values + values[:3], type=pa.large_string())
        assert frames._first_by_number(ids) is None
        assert frames._numbered_positions(ids, ids) is None
        assert first_occurrences(ids)[0].tolist() == _naive_first(values + values[:3])


def test_a_large_shuffled_log_is_numbered_without_help() -> None:
    """At its own threshold: a hundred thousand bets' ids in no order, one written twice."""
    from auditor import frames

    rng = np.random.default_rng(3)
    values: list[str | None] = [f"WB{i:09d}" for i in rng.permutation(100_000)]
    values.insert(70_000, values[5])
    ids = pa.array(values, type=pa.large_string())
    assert len(ids) >= frames._NUMBERED_AT_LEAST and frames._first_by_number(ids) is not None
    rows, firsts, _, falls = later_occurrences(ids)
    assert rows.tolist() == [70_000] and firsts.tolist() == [5] and falls is None


@pytest.mark.parametrize("shape", ["empty", "other-script digits", "nul prefix", "emoji prefix", "nineteen digits", "mostly null", "digits only"])
def test_odd_id_shapes_give_what_hashing_gives(shape: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever a hostile or odd log holds as ids, the first rows and the items' rounds are the text's."""
    import pyarrow.compute as pc

    from auditor import frames

    monkeypatch.setattr(frames, "_NUMBERED_AT_LEAST", 1)
    rng = np.random.default_rng(11)
    n = 3000
    order = rng.permutation(n)
    values: list[str | None] = {
        "empty": [""] * n,
        "other-script digits": [f"١٢٣{i}" for i in order],  # Arabic-Indic digits, then ASCII ones of several widths
        "nul prefix": [f"\x00{i:07d}" for i in order],
        "emoji prefix": [f"😀{i:06d}" for i in order],
        "nineteen digits": [f"{i:019d}" for i in order],  # past what an int64 holds: hashed
        "mostly null": [None if i % 10 else f"B{i:06d}" for i in order],
        "digits only": [f"{i % 2000:05d}" for i in order],  # every other id written twice
    }[shape]
    ids = pa.array(values, type=pa.large_string())
    assert first_occurrences(ids)[0].tolist() == _naive_first(values)
    keys = pa.array([values[int(i)] for i in rng.integers(0, n, 5000)], type=pa.large_string())
    expected = pc.fill_null(pc.index_in(keys, value_set=ids, skip_nulls=True), -1).to_numpy(zero_copy_only=False)
    assert positions(keys, ids).tolist() == expected.tolist()


@pytest.mark.parametrize("null", [False, True])
def test_bools_are_arrows_own_answer_at_any_offset_with_nulls_as_told(null: bool) -> None:
    rng = random.Random(7)
    values = [rng.choice([True, False, None]) for _ in range(203)]
    whole = pa.array(values, type=pa.bool_())
    for start in range(0, 17):
        for length in (0, 1, 7, 8, 9, 64, 150):
            piece = whole.slice(start, length)
            want = np.array([null if v is None else v for v in piece.to_pylist()], dtype=bool)
            assert bools(piece, null=null).tolist() == want.tolist()
    chunked = pa.chunked_array([whole.slice(3, 20), whole.slice(50, 9), whole.slice(0, 0)])
    assert bools(chunked, null=null).tolist() == [null if v is None else v for v in chunked.to_pylist()]
    with pytest.raises(TypeError):
        bools(pa.array([1, 2]))


def _pandas_categorical(column: pa.ChunkedArray) -> pd.Series:
    return pa.table({"c": column}).to_pandas()["c"]


@pytest.mark.parametrize("many", [False, True])
def test_text_categories_are_the_categorical_pandas_makes_of_a_dictionary(many: bool) -> None:
    """Chunks with the same dictionary, with dictionaries in other orders holding names the others
    lack, missing values, and more names than int8 codes hold: the same categories in the same
    order, the same codes of the same type."""
    names = [f"P{i:04d}" for i in range(300 if many else 5)]
    rng = random.Random(3)
    def chunk(pool: list[str], n: int) -> pa.DictionaryArray:
        return pa.array([rng.choice(pool) if rng.random() > 0.1 else None for _ in range(n)], type=pa.string()).dictionary_encode()
    first = chunk(names[:-2], 400)
    same = pa.DictionaryArray.from_arrays(pa.array([0, 1, None, 2], type=pa.int32()), first.dictionary)

    def small_codes(pool: list[str]) -> pa.DictionaryArray:  # int8 codes, as a stored pandas Categorical's
        coded = chunk(pool, 300)
        return pa.DictionaryArray.from_arrays(coded.indices.cast(pa.int8()), coded.dictionary)

    wide = [f"Q{i:03d}" for i in range(300)]
    cases = [
        pa.chunked_array([first]),
        pa.chunked_array([first, same]),
        pa.chunked_array([first, chunk(list(reversed(names)), 500), same.slice(1)]),
        # Each chunk's names fit int8 codes; together (300 names) they do not.
        pa.chunked_array([small_codes(wide[:100]), small_codes(wide[100:200]).slice(7), small_codes(wide[200:])]),
    ]
    for column in cases:
        got, want = pd.Series(text_categories(column)), _pandas_categorical(column)
        assert got.dtype == want.dtype
        assert list(got.cat.categories) == list(want.cat.categories)
        assert got.cat.categories.dtype == want.cat.categories.dtype
        assert got.cat.codes.dtype == want.cat.codes.dtype
        assert got.cat.codes.tolist() == want.cat.codes.tolist()


def test_a_dtype_of_names_known_distinct_is_the_dtype_pandas_checks_them_into() -> None:
    """`known_categories` skips pandas' check of names the load found distinct and present: the
    dtype is the one pandas makes of them, equal, of one hash, and a Categorical of it compares,
    looks up and groups by its names alike."""
    from auditor.frames import known_categories

    names = pd.Index([f"P{i:05d}" for i in range(20_000)] + ["", "a b", "é"], dtype="str")
    fast, checked = known_categories(names), pd.CategoricalDtype(names, ordered=False)
    assert fast == checked and hash(fast) == hash(checked) and not fast.ordered
    assert list(fast.categories) == list(names) and fast.categories.dtype == names.dtype
    codes = np.array([0, 20_001, -1, 3, 20_002, 3], dtype=np.int16)
    got = pd.Series(pd.Categorical.from_codes(codes, dtype=fast, validate=False))
    want = pd.Series(pd.Categorical.from_codes(codes, dtype=checked, validate=False))
    assert got.equals(want) and (got == "P00003").tolist() == (want == "P00003").tolist()
    assert got.isin(["a b", "é"]).tolist() == [False, True, False, False, True, False]
    assert got.value_counts().to_dict() == want.value_counts().to_dict()


@pytest.mark.parametrize(("kind", "nullable"), [(pa.int64(), pd.Int64Dtype()), (pa.int32(), pd.Int32Dtype()), (pa.uint64(), pd.UInt64Dtype()), (pa.int8(), pd.Int8Dtype())])
def test_masked_integers_are_pandas_nullable_integers(kind: pa.DataType, nullable: pd.api.extensions.ExtensionDtype) -> None:
    column = pa.chunked_array([pa.array([1, None, 3], kind), pa.array([None, 5], kind), pa.array([7, None, 9, None], kind).slice(1, 2)])
    got, want = pd.Series(masked_integers(column)), column.to_pandas(types_mapper={kind: nullable}.get)
    assert got.dtype == want.dtype
    assert got.equals(want)
    assert got.isna().tolist() == [False, True, False, True, False, True, False]


def test_in_words_reads_each_cells_bytes_where_they_sit_in_its_word() -> None:
    # A hand's cards are two bytes each at 0, 3 and 6, its spaces at 2 and 5; a shorter cell's word
    # runs on into the next cell's bytes, and past the last into zeros.
    text = pa.array(["9S 8H", "TC 5D TH", "KD"], type=pa.large_string())
    words, lengths = first_words(text)
    assert lengths.tolist() == [5, 8, 2]
    for offset, dtype in [(0, "<u2"), (3, "<u2"), (6, "<u2"), (2, "u1"), (5, "u1"), (7, "u1")]:
        size = np.dtype(dtype).itemsize
        expected = [(int(w) >> (8 * offset)) & ((1 << (8 * size)) - 1) for w in words]
        assert in_words(words, offset, dtype).tolist() == expected
    assert in_words(words, 3, "<u2")[1] == ord("5") | ord("D") << 8
    assert in_words(words, 5, "u1")[1] == ord(" ")
    assert bytes(in_words(words, 0, "<u2")[2:].view(np.uint8)) == b"KD"
    with pytest.raises(ValueError, match="within a word"):
        in_words(words, 7, "<u2")
    with pytest.raises(ValueError, match="little-endian"):
        in_words(words.astype(np.int64), 0, "<u2")
    with pytest.raises(ValueError, match="laid end to end"):
        in_words(words[::2], 0, "u1")


@pytest.mark.parametrize("seed", range(30))
def test_kept_rows_rise_exactly_when_each_kept_id_is_above_the_one_kept_before(seed: int) -> None:
    """`kept_rising`, told from the falls alone, against every kept pair compared: ids in order
    with repeats, nulls and late rows planted, some rows left out."""
    rng = np.random.default_rng(seed)
    values: list[str | None] = [f"B{i:04d}" for i in range(int(rng.integers(2, 300)))]
    for _ in range(int(rng.integers(0, 6))):
        values.insert(int(rng.integers(0, len(values) + 1)), None if rng.random() < 0.2 else values[int(rng.integers(0, len(values)))])
    ids = pa.array(values, type=pa.large_string())
    falls = later_occurrences(ids).falls
    for _ in range(5):
        keep = rng.random(len(values)) < rng.choice([0.5, 0.97, 1.0])
        for row in rng.integers(0, len(values), int(rng.integers(0, 3))):
            keep[row] = False  # the planted rows left out, as the load leaves repeats and bad rows
        kept = [values[i] for i in np.flatnonzero(keep)]
        truth = len(kept) >= 2 and None not in kept and all(a < b for a, b in zip(kept, kept[1:]))  # type: ignore[operator]
        assert kept_rising(ids, keep, falls) == (truth and falls is not None)


_FORTY = [f"B{i:02d}" for i in range(40)]


@pytest.mark.parametrize(("ids", "falls"), [(["B1", "B2", "B3"], []), ([], []), ([*_FORTY[:10], "B09", *_FORTY[10:]], [9]),
                                            (["B1", "B1", "B2"], None), (["B2", "B1"] * 40, None), (["B1", None, "B3"], None)])
def test_later_occurrences_tell_where_the_ids_order_falls(ids: list[str | None], falls: list[int] | None) -> None:
    got = later_occurrences(pa.array(ids, type=pa.large_string())).falls
    assert (got.tolist() if got is not None else None) == falls


def test_a_column_marked_rising_is_searched_as_one_whose_order_was_checked() -> None:
    """`note_rising` spares the search index its check of the order, and nothing else: the rows a
    search finds are those of a column searched without the mark."""
    ids = [f"B{i:06d}" for i in range(0, 20_000, 3)]
    marked = pd.Series(pd.array(ids, dtype="str"))
    unmarked = pd.Series(pd.array(ids, dtype="str"))
    note_rising(marked)
    from auditor import frames

    source = frames._arrow_source(marked)
    assert source is not None and frames._recalled(frames._RISING, source) == (True, True)
    wanted = ["B000003", "B019998", "B000004", "nope", "B00000", "B000000"]
    assert rows_holding(marked, wanted).tolist() == rows_holding(unmarked, wanted).tolist() == [0, 1, 6666]
    index, checked = frames._search_index(arrow(marked), source), frames._ids_search_index(arrow(unmarked))
    assert index is not None and checked is not None and index.rows is None and checked.rows is None
    assert index.width == checked.width and (index.ordered == checked.ordered).all()
    assert positions(pd.Series(pd.array(["B000006", "x", "B019998"], dtype="str")), marked).tolist() == [2, -1, 6666]

