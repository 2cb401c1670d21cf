"""Loading: every format, typing, quarantine with file:line, reconciled counts, unreadable files."""

from __future__ import annotations

import csv
import gzip
import hashlib
import json
import re
import shutil
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from helpers import CDF_TABLE, SAMPLES, at, bet, cdf, coup, dice, json_record, spin, stake_row, throw, wheel, write_bundle
from helpers import values as cells
from typer.testing import CliRunner

from auditor.cli import app
from auditor.engine import run_audit
from auditor.loading import load_bundle, readers
from auditor.frames import is_arrow_text
from auditor.loading.bundle import BundleError, part_order, sha256_of, taken
from auditor.rules import select_rules
from auditor.ruleset import load_ruleset
from auditor.schema import TABLES

CDF_COUPS = TABLES["cdf_coups"]

HEADER = "coup_id,table_id,shoe_id,coup_no,ts,players_seated,banker_id,banker_seat,bank_event,bank_cents,mode,player_id,player_cards,banker_cards,third_face_up,outcome,banker_result_cents,cagnotte_cents,garage_cents,garage_kind,bank_after_cents,stop_card,status"
GOOD = "C{n},T1,S1,{n},2026-03-01T21:0{n}:05+01:00,5,B1,1,initial,10000,rules,P2,9S 8H,TC 7D,,tie,0,0,0,,10000,false,settled"


def _bundle(tmp_path: Path, lines: list[str], name: str = "cdf_coups.csv", newline: str = "\n", bom: bool = False) -> Path:
    write_bundle(tmp_path, {"tables": [CDF_TABLE]})
    text = newline.join([HEADER, *lines]) + newline
    data = (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")
    (tmp_path / name).write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    return tmp_path


def _reasons(bundle) -> dict[int, str]:
    q = bundle.quarantine
    return dict(zip(q["line"], q["reason"], strict=True))


@pytest.mark.parametrize(("cell", "value", "reason"), [
    ("ts", "2026-03-01T21:04:05", "without a UTC offset"),
    ("ts", "yesterday", "not an ISO 8601 timestamp"),
    ("coup_no", "three", "not an integer"),
    ("coup_no", "2.5", "not an integer"),
    ("bank_cents", "4611686018427387904", "not an integer of at most 18 digits"),
    ("bank_cents", "-100", "negative amount of money"),
    ("coup_no", "0", "below 1"),
    ("banker_seat", "-1", "below 0"),
    ("bank_event", "stolen", "not one of"),
    ("player_cards", "9S 8X", "malformed cards"),
    ("player_cards", "9S", "malformed cards"),
    ("banker_id", "", "required value missing"),
    ("stop_card", "maybe", "not a boolean"),
    ("outcome", "", "required value missing"),
])
def test_a_bad_cell_quarantines_its_row_with_line_column_and_reason(tmp_path: Path, cell: str, value: str, reason: str) -> None:
    cells = GOOD.format(n=2).split(",")
    cells[HEADER.split(",").index(cell)] = value
    bundle = load_bundle(_bundle(tmp_path, [GOOD.format(n=1), ",".join(cells), GOOD.format(n=3)]))
    reasons = _reasons(bundle)
    assert list(reasons) == [2]
    assert reasons[2].startswith(cell + ":") and reason in reasons[2]
    assert list(bundle.frames["cdf_coups"]["coup_id"]) == ["C1", "C3"]
    f = next(x for x in bundle.files if x.name == "cdf_coups.csv")
    assert (f.rows_read, f.rows_audited, f.rows_quarantined) == (3, 2, 1)


@pytest.mark.parametrize("odd", ["", "blank", "open quote", "value across lines"])
def test_csv_columns_the_format_does_not_list_are_read_as_if_they_were_not_there(tmp_path: Path, odd: str) -> None:
    """Columns not listed are ignored, never made columns of the table (300,000 of them in a 2.6 MB
    file took the audit 195 s and 3 GB), in pyarrow's reading, around lines set aside and line by
    line alike; each line's cells are still counted against the whole header."""
    lines = [GOOD.format(n=n) for n in (1, 2, 3)]
    extra = {"": None, "blank": "", "open quote": 'C9,"T1', "value across lines": 'C9,"T\n1"'}[odd]
    if extra is not None:
        lines.insert(1, extra)
    expected = load_bundle(_bundle(tmp_path / "plain", lines))
    wide_header = "note," + HEADER.replace(",ts,", ',"x,1",ts,') + "".join(f",x{i}" for i in range(2000))
    wide = [line if line in ("", extra) else '"a, b",' + line.replace(",2026-", ',"[1, 2]",2026-') + ",7" * 2000 for line in lines]
    write_bundle(tmp_path / "wide", {"tables": [CDF_TABLE]})
    (tmp_path / "wide" / "cdf_coups.csv").write_text("\n".join([wide_header, *wide, "C4,too few"]) + "\n")
    raw = readers.read_raw(tmp_path / "wide" / "cdf_coups.csv", format_columns=CDF_COUPS.names)
    assert set(raw.frame.columns) == set(CDF_COUPS.names)
    read = load_bundle(tmp_path / "wide")
    pd.testing.assert_frame_equal(read.frames["cdf_coups"].drop(columns="_file"), expected.frames["cdf_coups"].drop(columns="_file"))
    reasons = _reasons(read)
    too_few = "\n".join(wide).count("\n") + 2  # the line after them
    assert reasons.pop(too_few).startswith(f"expected {len(wide_header.split(',')) - 1} cells")  # "x,1" is one name
    width = re.compile(r"expected \d+ cells")  # the header's width differs
    assert {n: width.sub("expected N cells", r) for n, r in reasons.items()} == {n: width.sub("expected N cells", r) for n, r in _reasons(expected).items()}


def test_a_row_with_several_bad_cells_is_one_record_naming_each(tmp_path: Path) -> None:
    """One LOG001 record a row, its first bad cell's column, every bad cell's reason in the order of
    the format's columns; a row with one bad cell beside it keeps its own record."""
    two = GOOD.format(n=2).split(",")
    two[HEADER.split(",").index("coup_no")] = "three"
    two[HEADER.split(",").index("player_cards")] = "9S 8X"
    one = GOOD.format(n=3).split(",")
    one[HEADER.split(",").index("stop_card")] = "maybe"
    bundle = load_bundle(_bundle(tmp_path, [GOOD.format(n=1), ",".join(two), ",".join(one)]))
    q = bundle.quarantine.set_index("line")
    assert list(q.index) == [2, 3]
    assert q.loc[2, "column"] == "coup_no" and q.loc[2, "value"] == "three"
    assert q.loc[2, "reason"] == ("coup_no: not an integer of at most 18 digits (three); player_cards: malformed cards "
                                  "(2 or 3 of rank A23456789TJQK + suit SHDC, space separated) (9S 8X)")
    assert q.loc[3, "reason"].startswith("stop_card: not a boolean") and q.loc[3, "value"] == "maybe"
    assert list(bundle.frames["cdf_coups"]["coup_id"]) == ["C1"]


def test_a_quote_left_open_costs_only_its_own_line(tmp_path: Path) -> None:
    broken = GOOD.format(n=2).replace(",B1,", ',"B1,')
    bundle = load_bundle(_bundle(tmp_path, [GOOD.format(n=1), broken, GOOD.format(n=3), GOOD.format(n=4)]))
    assert list(_reasons(bundle)) == [2]
    assert list(bundle.frames["cdf_coups"]["coup_id"]) == ["C1", "C3", "C4"]
    f = next(x for x in bundle.files if x.name == "cdf_coups.csv")
    assert (f.rows_read, f.rows_audited, f.rows_quarantined) == (4, 3, 1)


@pytest.mark.parametrize("ts", ["2026-03-01T21:01:05+01:00", "2026-03-01T21:01:05+0100", "2026-03-01T21:01:05+01",
                                "2026-03-01 20:01:05Z", "2026-03-01T19:31:05.000-00:30"])
def test_offsets_are_normalised_to_utc(tmp_path: Path, ts: str) -> None:
    row = GOOD.format(n=1).split(",")
    row[HEADER.split(",").index("ts")] = ts
    bundle = load_bundle(_bundle(tmp_path, [",".join(row)]))
    assert bundle.quarantine.empty
    assert bundle.frames["cdf_coups"]["ts"].iloc[0] == pd.Timestamp("2026-03-01T20:01:05Z")


def test_bom_crlf_and_gzip(tmp_path: Path) -> None:
    bundle = load_bundle(_bundle(tmp_path, [GOOD.format(n=1), GOOD.format(n=2)], name="cdf_coups.csv.gz", newline="\r\n", bom=True))
    assert bundle.quarantine.empty
    assert list(bundle.frames["cdf_coups"]["coup_id"]) == ["C1", "C2"]


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_row_after_a_blank_line_is_named_by_its_own_line(tmp_path: Path, newline: str) -> None:
    # Line 1 = first data row, blank lines counted: the inspector opens the file at the named line.
    bad = GOOD.format(n=3).replace(",5,B1,", ",x,B1,")
    bundle = load_bundle(_bundle(tmp_path, [GOOD.format(n=1), "", GOOD.format(n=2), bad], newline=newline))
    assert set(_reasons(bundle)) == {4}
    assert list(bundle.frames["cdf_coups"]["_line"]) == [1, 3]


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_rows_after_a_quoted_line_break_are_named_by_their_own_line(tmp_path: Path, newline: str) -> None:
    # RFC 4180 lets a quoted value hold a line break: the record is read, and the rows after it keep
    # the lines they are on (they were named by their record's number, a line too early).
    spread = GOOD.format(n=2).replace(",P2,", f',"P{newline}2",')
    bad = GOOD.format(n=4).replace(",5,B1,", ",x,B1,")
    bundle = load_bundle(_bundle(tmp_path, [GOOD.format(n=1), spread, GOOD.format(n=3), bad], newline=newline))
    assert list(_reasons(bundle)) == [5]
    coups = bundle.frames["cdf_coups"]
    assert list(coups["_line"]) == [1, 2, 4] and coups["player_id"].iloc[1] == f"P{newline}2"
    f = next(x for x in bundle.files if x.name == "cdf_coups.csv")
    assert (f.rows_read, f.rows_audited, f.rows_quarantined) == (4, 3, 1)


def test_two_quotes_left_open_do_not_make_one_cell_of_the_rows_between(tmp_path: Path) -> None:
    # pyarrow, lenient, read from the first to the second as one record of 23 cells, the rows between
    # inside one of them: strict CSV refuses it, and each open quote costs its own line.
    open_quote = [GOOD.format(n=n).replace(",B1,", ',"B1,') for n in (1, 4)]
    bundle = load_bundle(_bundle(tmp_path, [open_quote[0], GOOD.format(n=2), GOOD.format(n=3), open_quote[1]]))
    assert list(_reasons(bundle)) == [1, 4]
    assert list(bundle.frames["cdf_coups"]["_line"]) == [2, 3]


def test_a_quoted_line_break_beside_a_blank_line_is_one_record(tmp_path: Path) -> None:
    # Read line by line (for the blank line), the record's lines are joined as pyarrow would read them.
    spread = GOOD.format(n=2).replace(",P2,", ',"P\n2",')
    bundle = load_bundle(_bundle(tmp_path, [GOOD.format(n=1), spread, "", GOOD.format(n=3)]))
    assert bundle.quarantine.empty
    coups = bundle.frames["cdf_coups"]
    assert list(coups["_line"]) == [1, 2, 5] and coups["player_id"].iloc[1] == "P\n2"


@pytest.mark.parametrize("beside", ["", "blank line"])
@pytest.mark.parametrize(("cell", "broken"), [
    (",10000,rules,", ',"100"00,rules,'),  # text after a closing quote: pyarrow read 10000
    (",P2,", ',"P,"2,'),  # a quote closed after a comma: read as "P,2"
    (",P2,", ',""P2,'),  # an empty quoted cell, then text: read as "P2"
])
def test_text_after_a_closing_quote_is_a_bad_line_not_a_value(tmp_path: Path, cell: str, broken: str, beside: str) -> None:
    # Strict CSV (RFC 4180) refuses '"100"00'; pyarrow, lenient, read it as 10000, a value the file
    # does not hold, and only where the file had no other bad line (then it was read line by line,
    # strictly). It is now quarantined either way, and the rows around it keep their lines.
    lines = [GOOD.format(n=1), GOOD.format(n=2).replace(cell, broken), GOOD.format(n=3)]
    if beside:
        lines.append("")
    bundle = load_bundle(_bundle(tmp_path, lines))
    reasons = _reasons(bundle)
    assert list(reasons) == [2]
    assert "quote" in reasons[2]
    assert list(bundle.frames["cdf_coups"]["_line"]) == [1, 3]
    f = next(x for x in bundle.files if x.name == "cdf_coups.csv")
    assert (f.rows_read, f.rows_audited, f.rows_quarantined) == (3, 2, 1)


@pytest.mark.parametrize("quoted", ['a"b', 'a""b', 'x "y"'])
def test_a_quote_inside_an_unquoted_cell_is_kept_as_text(tmp_path: Path, quoted: str) -> None:
    # Strict CSV takes a quote inside a cell that does not begin with one as a character of it.
    lines = [GOOD.format(n=1), GOOD.format(n=2).replace(",P2,", f",{quoted},"), GOOD.format(n=3)]
    bundle = load_bundle(_bundle(tmp_path, lines))
    assert bundle.quarantine.empty
    assert list(bundle.frames["cdf_coups"]["player_id"]) == ["P2", quoted, "P2"]


def test_quoted_cells_everywhere_read_as_unquoted(tmp_path: Path) -> None:
    plain = [GOOD.format(n=n) for n in (1, 2, 3)]
    quoted = [",".join(f'"{c}"' if c else c for c in line.split(",")) for line in plain]
    quoted[1] = quoted[1].replace('"P2"', '"P""2"')
    bundle = load_bundle(_bundle(tmp_path, quoted))
    assert bundle.quarantine.empty
    assert list(bundle.frames["cdf_coups"]["player_id"]) == ["P2", 'P"2', "P2"]
    assert list(bundle.frames["cdf_coups"]["bank_cents"]) == [10000] * 3


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_carriage_return_inside_a_row_costs_only_its_row(tmp_path: Path, newline: str) -> None:
    # A line ends in LF or CRLF (log format): a return alone is not a line end, though pyarrow ends a
    # row there. Read as one, row 2 became two bad records and every row after it one line too far.
    broken = GOOD.format(n=2).replace(",B1,", ",B\r1,")
    bad = GOOD.format(n=4).replace(",5,B1,", ",x,B1,")
    bundle = load_bundle(_bundle(tmp_path, [GOOD.format(n=1), broken, GOOD.format(n=3), bad], newline=newline))
    reasons = _reasons(bundle)
    assert list(reasons) == [2, 4]
    assert "carriage return inside an unquoted cell" in reasons[2]
    assert list(bundle.frames["cdf_coups"]["_line"]) == [1, 3]
    f = next(x for x in bundle.files if x.name == "cdf_coups.csv")
    assert (f.rows_read, f.rows_audited, f.rows_quarantined) == (4, 2, 2)


def test_a_carriage_return_inside_a_quoted_cell_is_part_of_the_cell(tmp_path: Path) -> None:
    quoted = GOOD.format(n=2).replace(",P2,", ',"P\r2",')
    bundle = load_bundle(_bundle(tmp_path, [GOOD.format(n=1), quoted, GOOD.format(n=3)]))
    assert bundle.quarantine.empty
    assert list(bundle.frames["cdf_coups"]["player_id"]) == ["P2", "P\r2", "P2"]


@pytest.mark.parametrize(("header", "reason"), [
    (HEADER.replace(",shoe_id,", ",shoe\r_id,"), "header row: malformed CSV: a carriage return inside an unquoted cell"),
    (HEADER + ',"' + "x" * 200_000 + '"', "header row: malformed CSV: field larger than field limit"),
    (HEADER.replace(",status", ',"status'), "header row: a quote left open"),
    (HEADER.replace(",status", ',"stat"us'), "header row: malformed CSV: text after the quote that closes a quoted cell"),
])
def test_a_header_that_csv_refuses_makes_the_file_a_finding_not_a_crash(tmp_path: Path, header: str, reason: str) -> None:
    _bundle(tmp_path, [GOOD.format(n=1)])
    (tmp_path / "cdf_coups.csv").write_bytes((header + "\n" + GOOD.format(n=1) + "\n").encode())
    result = CliRunner().invoke(app, ["audit", str(tmp_path), "--out", str(tmp_path / "out")])
    assert result.exit_code == 1, result.output
    lines = [json.loads(line) for line in (tmp_path / "out" / "violations.jsonl").read_text().splitlines()]
    assert any(f["rule"] == "LOG001" and f["source"].startswith("cdf_coups.csv") and reason in f["message"] for f in lines)


@pytest.mark.parametrize("block", [1, 3, 7, 1 << 24])
def test_bytes_are_counted_per_line_across_block_edges(monkeypatch: pytest.MonkeyPatch, block: int) -> None:
    from auditor.loading import readers

    monkeypatch.setattr(readers, "_TEXT_BLOCK", block)
    rng = np.random.default_rng(block)
    data = rng.choice(np.frombuffer(b'ab"\n\xc3\xa9', dtype=np.uint8), 500).tobytes()
    lines = data.split(b"\n")
    newlines = readers._positions_of(data, 10)
    for byte, at_least, count in ((ord('"'), False, lambda line: line.count(b'"')), (128, True, lambda line: sum(b >= 128 for b in line))):
        found, counts = readers._line_counts(data, newlines, byte, at_least)
        expected = {i: count(line) for i, line in enumerate(lines) if count(line)}
        assert dict(zip(found.tolist(), counts.tolist(), strict=True)) == expected


@pytest.mark.parametrize("block", [1, 2, 3, 7, 1 << 24])
def test_every_line_strict_csv_refuses_has_a_loose_quote(monkeypatch: pytest.MonkeyPatch, block: int) -> None:
    # The fast reading leaves to pyarrow every line in which `_loose_quotes` finds nothing: each must
    # be one strict CSV reads. Random lines of an even number of quotes, across block edges.
    from auditor.loading import readers

    monkeypatch.setattr(readers, "_TEXT_BLOCK", block)
    rng = np.random.default_rng(block)
    lines = [rng.choice(np.frombuffer(b'a,""', dtype=np.uint8), int(rng.integers(0, 9))).tobytes() for _ in range(3000)]
    lines = [line for line in lines if line.count(b'"') % 2 == 0]
    text = b"\n".join([b'"h",h', *lines]) + b"\r\n"
    loose = readers._loose_quotes(text, readers._after_header(text), len(text) - 2)
    flagged = set((np.searchsorted(readers._positions_of(text, 10), loose) - 1).tolist())
    refused = set()
    for i, line in enumerate(lines):
        try:
            next(csv.reader([line.decode()], strict=True))
        except csv.Error:
            refused.add(i)
    assert refused and refused <= flagged
    assert flagged - refused  # a quote inside an unquoted cell ('a"a') is found too, and strict CSV keeps its line


# An open quote that swallows a line of bad UTF-8 would make pyarrow fail inside its row handler and
# print a traceback on the user's terminal: bad UTF-8 is looked for before pyarrow reads.
@pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.parametrize("seed", range(80))
def test_csv_with_blank_lines_bad_utf8_or_open_quotes_reads_as_line_by_line_would(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """Blank lines, lines of bad UTF-8, quotes left open and carriage returns inside a line are set
    aside and the rest read by pyarrow: rows, their line numbers and the bad lines' reasons are those
    of reading the file line by line, a quoted value across lines included (its record named by its
    first line). Half the files are scanned in blocks of 7 bytes, so that lines cross block edges."""
    from auditor.loading import readers
    from auditor.loading.readers import _header, _read_csv_slow, read_csv

    if seed % 2:
        monkeypatch.setattr(readers, "_TEXT_BLOCK", 7)

    rng = np.random.default_rng(seed)
    kinds = [b"good"] * 6 + [b"", b"\r", b"bad-utf8", b"extra-cell", b"quoted", b"open-quote", b"lone-return", b"quoted-return", b"two-returns",
                             b"spread", b"spread-bad", b"after-close", b"literal", b"all-quoted", b"null-like"]
    lines = []
    for n in range(1, int(rng.integers(1, 40))):
        kind = kinds[int(rng.integers(0, len(kinds)))]
        row = GOOD.format(n=n % 10).encode()
        lines.append({b"good": row, b"bad-utf8": row.replace(b"P2", b"P\xff"), b"extra-cell": row + b",x",
                      b"quoted": row.replace(b",B1,", b',"B,1",'), b"open-quote": row.replace(b",B1,", b',"B1,'),
                      b"lone-return": row.replace(b",B1,", b",B\r1,"), b"quoted-return": row.replace(b",B1,", b',"B\r1",'),
                      b"two-returns": row + b"\r", b"spread": row.replace(b",P2,", b',"P\n2",'),
                      b"spread-bad": row.replace(b",P2,", b',"P\n2",') + b",x", b"after-close": row.replace(b",B1,", b',"B"1,'),
                      b"literal": row.replace(b",B1,", b',B"1",'), b"all-quoted": b",".join(b'"%s"' % c if c else c for c in row.split(b",")),
                      b"null-like": row.replace(b",B1,", b",NA,").replace(b",P2,", b',"null",')}.get(kind, kind))
    newline = b"\r\n" if seed % 3 == 0 else b"\n"
    data = (b"\xef\xbb\xbf" if seed % 4 == 1 else b"") + newline.join([HEADER.encode(), *lines]) + (newline if seed % 5 else b"")
    (tmp_path / "cdf_coups.csv").write_bytes(data)
    ours, theirs = read_csv(tmp_path / "cdf_coups.csv"), _read_csv_slow(data, _header(data), _header(data))
    assert ours.lines.tolist() == theirs.lines.tolist()
    assert [(e.line, e.reason) for e in ours.errors] == [(e.line, e.reason) for e in theirs.errors]
    as_text = lambda f: [[None if pd.isna(v) else str(v) for v in row] for row in f.astype(object).itertuples(index=False)]  # noqa: E731
    assert as_text(ours.frame) == as_text(theirs.frame)


@pytest.mark.parametrize("seed", range(60))
def test_sample_csv_with_bytes_inserted_reads_as_line_by_line_would(tmp_path: Path, seed: int) -> None:
    """The samples' CSV files with quotes, line ends and returns inserted at random: the rows, their
    lines and the lines set aside are those of reading the file line by line. (It found a quote
    left open read up to a later one as one record, a header read differently by the two, and a
    line such as '"ab"c,...', which strict CSV refuses, read by pyarrow as "abc".)"""
    from auditor.loading.readers import UnreadableFile, _header, _read_csv_slow, read_csv

    rng = np.random.default_rng(seed)
    sources = sorted(SAMPLES.glob("*/*.csv"))
    data = bytearray(sources[int(rng.integers(0, len(sources)))].read_bytes()[:4000])
    for _ in range(int(rng.integers(1, 8))):
        at = int(rng.integers(0, len(data)))
        data[at:at] = [b'"', b"\n", b"\r", b"\r\n", b",", b'""', b"\n\n", b'"\n"'][int(rng.integers(0, 8))]
    path = tmp_path / "t.csv"
    path.write_bytes(bytes(data))
    try:
        names = _header(bytes(data))
    except UnreadableFile:
        return
    ours, theirs = read_csv(path), _read_csv_slow(bytes(data), names, names)
    assert ours.lines.tolist() == theirs.lines.tolist()
    assert [(e.line, e.reason) for e in ours.errors] == [(e.line, e.reason) for e in theirs.errors]


def test_wrong_number_of_cells_and_bad_utf8(tmp_path: Path) -> None:
    lines = [GOOD.format(n=1), GOOD.format(n=2) + ",extra", GOOD.format(n=3)]
    path = _bundle(tmp_path, lines)
    raw = (path / "cdf_coups.csv").read_bytes() + GOOD.format(n=4).replace("P2", "P\xff").encode("latin-1") + b"\n"
    (path / "cdf_coups.csv").write_bytes(raw)
    bundle = load_bundle(path)
    reasons = _reasons(bundle)
    assert set(reasons) == {2, 4}
    assert "cells" in reasons[2] and "UTF-8" in reasons[4]
    assert list(bundle.frames["cdf_coups"]["coup_id"]) == ["C1", "C3"]
    f = bundle.files[-1]
    assert f.rows_read == f.rows_audited + f.rows_quarantined == 4


def _jsonl_lines(tmp_path: Path, edit: Callable[[list[str]], None]) -> Path:
    write_bundle(tmp_path, {"tables": [CDF_TABLE]})
    rows = [coup(f"C{n}") for n in (1, 2, 3)]
    lines = [json.dumps(json_record(r)) for r in rows]
    edit(lines)
    (tmp_path / "cdf_coups.jsonl").write_text("\n".join(lines) + "\n")
    return tmp_path


@pytest.mark.parametrize("spelling", ["absent", "null", "escaped-null", "as-a-value", "after-an-escaped-quote", "blank-before-colon"])
@pytest.mark.parametrize("bad_line", [False, True])
def test_a_jsonl_file_without_a_required_key_is_read_the_same_by_pyarrow_and_line_by_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spelling: str, bad_line: bool) -> None:
    """No line gives `table_id`: a missing required column, the file not audited. Each line gives it
    as null: a missing value in each row. pyarrow, told of the column, gives it back null either way;
    the text tells which, as Python's json does line by line."""
    rows = []
    for i in (1, 2):
        row = json_record(coup(f"C{i}"))
        del row["table_id"]
        text = json.dumps(row)[1:]
        key = {"absent": "", "null": '"table_id": null, ', "escaped-null": '"t\\u0061ble_id": null, ', "as-a-value": '"note": "table_id", ',
               "after-an-escaped-quote": '"x\\"table_id": 1, ', "blank-before-colon": '"table_id"\t : null,'}[spelling]
        rows.append("{" + key + text)
    lines = [rows[0], *(["{cut"] if bad_line else []), rows[1]]
    write_bundle(tmp_path, {"tables": [CDF_TABLE]})
    (tmp_path / "cdf_coups.jsonl").write_text("\n".join(lines) + "\n")

    def read() -> tuple[str | None, list[tuple[int, str]]]:
        bundle = load_bundle(tmp_path)
        coups = next(f for f in bundle.files if f.name == "cdf_coups.jsonl")
        q = bundle.quarantine
        return coups.error, sorted(zip(q["line"], q["reason"], strict=True))

    by_pyarrow = read()
    if spelling in ("absent", "as-a-value", "after-an-escaped-quote"):
        assert by_pyarrow[0] == "missing required column(s): table_id"
    else:
        assert by_pyarrow[0] is None
        assert [line for line, reason in by_pyarrow[1] if "table_id" in reason] == [1, 3 if bad_line else 2]
    monkeypatch.setattr(readers, "_read_jsonl_arrow", lambda *_: None)
    assert read() == by_pyarrow


def test_a_jsonl_line_that_gives_a_key_twice_is_a_bad_line(tmp_path: Path) -> None:
    # Which of the two banks is meant cannot be told: Python's json kept the last, silently.
    def twice(lines: list[str]) -> None:
        lines[1] = lines[1].replace('"bank_cents": ', '"bank_cents": 1, "bank_cents": ', 1)

    bundle = load_bundle(_jsonl_lines(tmp_path, twice))
    reasons = _reasons(bundle)
    assert list(reasons) == [2] and "bank_cents" in reasons[2] and "more than once" in reasons[2]
    assert list(bundle.frames["cdf_coups"]["coup_id"]) == ["C1", "C3"]


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity"])
def test_a_jsonl_number_json_does_not_have_is_a_bad_line(tmp_path: Path, value: str) -> None:
    # Python's json reads them; JSON has none: NaN was read as a missing bank ("required value missing").
    def constant(lines: list[str]) -> None:
        lines[1] = lines[1].replace('"bank_cents": 10000', f'"bank_cents": {value}', 1)

    reasons = _reasons(load_bundle(_jsonl_lines(tmp_path, constant)))
    assert list(reasons) == [2] and f"{value} is not a JSON value" in reasons[2]


@pytest.mark.parametrize("value", ["NaN", "Infinity"])
def test_a_jsonl_nan_read_by_pyarrow_is_a_bad_line_too(tmp_path: Path, value: str) -> None:
    # pyarrow reads NaN and Infinity into a number column (revolutions), where Python's json, told
    # they are not JSON, refuses the line: both readings give the same bad line.
    from auditor.loading import readers

    write_bundle(tmp_path, wheel([spin(f"W1-{n}", n=n) for n in (1, 2, 3)]), fmt="jsonl")
    path = tmp_path / "wheel_spins.jsonl"
    lines = path.read_text().splitlines()
    lines[1] = re.sub(r'"revolutions": [0-9.]+', f'"revolutions": {value}', lines[1])
    path.write_text("\n".join(lines) + "\n")
    reasons = _reasons(load_bundle(tmp_path))
    assert list(reasons) == [2] and f"{value} is not a JSON value" in reasons[2]
    text = path.read_bytes()
    read = readers._read_json(text, pa.schema([("spin_id", pa.string())]))
    assert read is not None and readers._jsonl_checked(read, 3, ["spin_id"], [], (), lambda: [text]) is None


@pytest.mark.parametrize("line", ["null", "{}"])
def test_a_jsonl_line_of_null_reads_as_line_by_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, line: str) -> None:
    # pyarrow reads `null` as a row of nulls (each cell "required value missing"); it is not a JSON
    # object. `{}` is one, with every value missing.
    from auditor.loading import readers

    def replace(lines: list[str]) -> None:
        lines[1] = line

    path = _jsonl_lines(tmp_path, replace)
    reasons = sorted(_reasons(load_bundle(path)).items())
    assert [n for n, _ in reasons] == [2] and ("not a JSON object" in reasons[0][1]) == (line == "null")
    monkeypatch.setattr(readers, "_read_jsonl_arrow", lambda *_: None)
    assert sorted(_reasons(load_bundle(path)).items()) == reasons


@pytest.mark.parametrize(("value", "kept"), [('{"x": "P2"}', False), ('["P2"]', False), ("12345", True)])
def test_a_structure_where_the_format_has_text_is_a_bad_cell(tmp_path: Path, value: str, kept: bool) -> None:
    # Its text ('{"x": "P2"}') passed for a player id. A number is text as written (an id a system
    # keeps as a number).
    def structure(lines: list[str]) -> None:
        lines[1] = lines[1].replace('"player_id": "P2"', f'"player_id": {value}', 1)

    bundle = load_bundle(_jsonl_lines(tmp_path, structure))
    reasons = _reasons(bundle)
    if kept:
        assert not reasons and bundle.frames["cdf_coups"]["player_id"].iloc[1] == value
    else:
        assert list(reasons) == [2] and "player_id" in reasons[2] and "structure" in reasons[2]
        assert list(bundle.frames["cdf_coups"]["coup_id"]) == ["C1", "C3"]


def test_a_parquet_struct_where_the_format_has_text_is_a_bad_cell(tmp_path: Path) -> None:
    write_bundle(tmp_path, {"tables": [CDF_TABLE], "cdf_coups": [coup("C1"), coup("C2")]}, fmt="parquet")
    path = tmp_path / "cdf_coups.parquet"
    table = pq.read_table(path)
    at = table.schema.get_field_index("player_id")
    pq.write_table(table.set_column(at, "player_id", pa.StructArray.from_arrays([table["player_id"].combine_chunks()], names=["x"])), path)
    bundle = load_bundle(tmp_path)
    reasons = _reasons(bundle)
    assert list(reasons) == [1, 2] and all("structure" in r for r in reasons.values())


def test_jsonl_keeps_types_and_reports_bad_lines(tmp_path: Path) -> None:
    write_bundle(tmp_path, {"tables": [CDF_TABLE]})
    rows = [coup("C1"), coup("C2")]
    lines = [json.dumps(json_record(r)) for r in rows]
    lines.insert(1, "{not json")
    (tmp_path / "cdf_coups.jsonl").write_text("\n".join(lines) + "\n")
    bundle = load_bundle(tmp_path)
    assert _reasons(bundle).keys() == {2}
    assert list(bundle.frames["cdf_coups"]["coup_id"]) == ["C1", "C2"]


def test_jsonl_half_a_surrogate_pair_is_a_bad_line_not_a_crash(tmp_path: Path) -> None:
    # "\ud800" is valid JSON but no character: it used to crash the audit when the outputs were written.
    write_bundle(tmp_path, {"tables": [CDF_TABLE]})
    rows = [coup("C1"), coup("C2", player_id="P\ud800"), coup("C3", player_id="\U0001F600")]
    lines = [json.dumps(json_record(r)) for r in rows]
    (tmp_path / "cdf_coups.jsonl").write_text("\n".join(lines) + "\n")
    assert '"P\\ud800"' in lines[1] and "\\ud83d\\ude00" in lines[2]  # json.dumps escapes both; only one is half a pair
    bundle = load_bundle(tmp_path)
    assert set(_reasons(bundle)) == {2} and "surrogate" in _reasons(bundle)[2]
    assert list(bundle.frames["cdf_coups"]["player_id"]) == ["P2", "\U0001F600"]
    result = CliRunner().invoke(app, ["audit", str(tmp_path), "--out", str(tmp_path / "out"), "--format", "html,jsonl,junit"])
    assert result.exit_code == 1 and (tmp_path / "out" / "violations.jsonl").exists(), result.output


@pytest.mark.parametrize("gz", [False, True])
def test_jsonl_string_or_key_of_bad_utf8_is_a_bad_line_not_a_crash(tmp_path: Path, gz: bool) -> None:
    # pyarrow's JSON reader passes the byte into a string; a rule or the outputs made it a Python
    # string and the audit ended. Now the line is set aside as a CSV line of bad UTF-8 is.
    write_bundle(tmp_path, {"tables": [CDF_TABLE]})
    rows = [coup("C1"), coup("C2"), coup("C3")]
    lines = [json.dumps(json_record(r)).encode() for r in rows]
    lines[1] = lines[1].replace(b'"P2"', b'"P\xff2"')
    lines[2] = lines[2].replace(b'"C3"', b'"C3", "note\xff": 1')  # a key of bad UTF-8 cost the whole file
    data = b"\n".join(lines) + b"\n"
    (tmp_path / ("cdf_coups.jsonl.gz" if gz else "cdf_coups.jsonl")).write_bytes(gzip.compress(data) if gz else data)
    bundle = load_bundle(tmp_path)
    reasons = _reasons(bundle)
    at = lines[1].index(b"\xff") + 1
    assert list(reasons) == [2, 3] and reasons[2] == f"not UTF-8 text at byte {at}", reasons
    assert list(bundle.frames["cdf_coups"]["coup_id"]) == ["C1"]
    result = CliRunner().invoke(app, ["audit", str(tmp_path), "--out", str(tmp_path / "out")])
    assert result.exit_code == 1, result.output


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "parquet"])
def test_every_format_loads_the_same_rows(tmp_path: Path, fmt: str) -> None:
    tables = {"tables": [CDF_TABLE], "cdf_coups": [coup("C1"), coup("C2", banker_seat=None)], "cdf_stakes": [stake_row("S1", "C1", seat=None)]}
    bundle = load_bundle(write_bundle(tmp_path, tables, fmt))
    assert bundle.quarantine.empty
    c = bundle.frames["cdf_coups"]
    assert list(c["coup_id"]) == ["C1", "C2"] and c["banker_seat"].isna().tolist() == [False, True]
    assert str(c["ts"].dt.tz) == "UTC" and c["bank_cents"].dtype == "int64"


def test_parquet_columns_the_format_does_not_list_are_never_read(tmp_path: Path) -> None:
    """Columns not listed are allowed and ignored: objects, lists, times, text of bad UTF-8 beside a
    coup's cells leave its row as the file without them reads (they are not read at all: pandas made
    a Python object of each cell of objects). A name given twice is refused as a CSV header's is."""
    write_bundle(tmp_path, {"tables": [CDF_TABLE]})
    plain = pa.Table.from_pandas(pd.DataFrame([coup("C1"), coup("C2")]), preserve_index=False)
    pq.write_table(plain, tmp_path / "cdf_coups.parquet")
    expected = load_bundle(tmp_path).frames["cdf_coups"]
    extra = plain.append_column("device", pa.array([{"id": "D1", "tags": [1, 2]}, None]))
    extra = extra.append_column("logged_at", pa.array([pd.Timestamp("2026-03-01T21:00Z"), None]))
    extra = extra.append_column("note", pa.array([b"ok", b"\xff bad"], pa.binary()).view(pa.string()))
    pq.write_table(extra, tmp_path / "cdf_coups.parquet")
    bundle = load_bundle(tmp_path)
    assert bundle.quarantine.empty
    pd.testing.assert_frame_equal(bundle.frames["cdf_coups"], expected)
    pq.write_table(pa.Table.from_arrays([*plain.columns, pa.array([1, 2]), pa.array([3, 4])], names=[*plain.column_names, "note", "note"]),
                   tmp_path / "cdf_coups.parquet")
    refused = next(f for f in load_bundle(tmp_path).files if f.table == "cdf_coups")
    assert refused.error == "columns repeat a name: ['note']"


def _arrow_bytes() -> int:
    """What every Arrow memory pool holds: the Parquet reader takes Arrow's own default pool, which
    is not pyarrow's once an audit in this process has set that (`memory.set_up_audit_process`)."""
    total = 0
    for pool in ("system_memory_pool", "mimalloc_memory_pool", "jemalloc_memory_pool"):
        try:
            total += getattr(pa, pool)().bytes_allocated()
        except NotImplementedError:  # a pyarrow built without it
            pass
    return total


def test_a_parquet_file_read_holds_its_table_not_its_bytes_too(tmp_path: Path) -> None:
    """The reader keeps no copy of the file's bytes beside the table it decoded (pyarrow's default
    pre-buffering held the whole file until the reader was gone, through the conversion to pandas):
    a table of 16 MB of random ids and its 16 MB file take 16 MB of Arrow's memory, not 32."""
    rng = np.random.default_rng(7)
    ids = pa.array(rng.integers(97, 123, size=(400_000, 40), dtype=np.uint8).view("S40").ravel()).cast(pa.string())
    path = tmp_path / "ids.parquet"
    pq.write_table(pa.table({"bet_id": ids}), path, compression="none", use_dictionary=False, row_group_size=100_000)
    before = _arrow_bytes()
    parquet = readers.open_parquet(path)
    table = parquet.read()
    held = _arrow_bytes() - before
    assert table.column("bet_id").to_pylist()[:3] == ids.to_pylist()[:3]
    assert held < table.nbytes + path.stat().st_size // 4, (held, table.nbytes, path.stat().st_size)


def test_parquet_directory_of_partitions(tmp_path: Path) -> None:
    write_bundle(tmp_path, {"tables": [CDF_TABLE]})
    part = tmp_path / "cdf_coups"
    part.mkdir()
    for day, ids in (("2026-03-01", ["C1", "C2"]), ("2026-03-02", ["C3"])):
        frame = pd.DataFrame([coup(i) for i in ids])
        write_bundle(tmp_path / "tmp", {"cdf_coups": frame.to_dict("records")}, "parquet")
        (tmp_path / "tmp" / "cdf_coups.parquet").rename(part / f"{day}.parquet")
    bundle = load_bundle(tmp_path)
    assert list(bundle.frames["cdf_coups"]["coup_id"]) == ["C1", "C2", "C3"]
    assert [f.name for f in bundle.files if f.table == "cdf_coups"] == ["cdf_coups/2026-03-01.parquet", "cdf_coups/2026-03-02.parquet"]


def test_a_tables_parquet_files_made_pandas_together_keep_each_row_s_file_and_line(tmp_path: Path) -> None:
    """A table's Parquet files of one schema are made pandas at once (`readers.frames_of`), a file
    of another schema between them on its own: each row still names its own file and line, the
    rows of bad text and the bad cells are quarantined under theirs, and the files' counts reconcile."""
    write_bundle(tmp_path, {"tables": [CDF_TABLE]})
    part = tmp_path / "cdf_coups"
    part.mkdir()
    days = {
        "2026-03-01": [coup("C1"), coup("C2", coup_no=2)],
        "2026-03-02": [coup("C3", coup_no=3), coup("C4", coup_no=4), coup("C5", coup_no=5, bank_event="stolen"), coup("C6", coup_no=6)],
        "2026-03-03": [coup("C7", coup_no=7)],  # its mode written as bytes: another schema
        "2026-03-04": [coup("C8", coup_no=8), coup("C9", coup_no=9)],
    }

    def rewrite(day: str, table: pa.Table) -> pa.Table:
        if day == "2026-03-02":
            bad = _bad_utf8(table["player_id"].to_pylist(), 1, pa.string()).cast(pa.binary()).cast(pa.large_binary())
            return _replaced(table, "player_id", bad.view(table.schema.field("player_id").type))
        if day == "2026-03-03":
            return _replaced(table, "mode", table["mode"].cast(pa.binary()))
        return table

    _write_days(part, days, rewrite)
    schemas = [pq.read_schema(part / f"{day}.parquet") for day in days]
    assert schemas[0].equals(schemas[1]) and schemas[1].equals(schemas[3]) and not schemas[1].equals(schemas[2])
    bundle = load_bundle(tmp_path)
    q = bundle.quarantine
    assert list(zip(q["file"], q["line"], strict=True)) == [("cdf_coups/2026-03-02.parquet", 2), ("cdf_coups/2026-03-02.parquet", 3)]
    assert q.iloc[0]["reason"] == "player_id: not UTF-8 text at byte 2" and q.iloc[1]["reason"].startswith("bank_event: not one of")
    c = bundle.frames["cdf_coups"]
    assert list(c["coup_id"]) == ["C1", "C2", "C3", "C6", "C7", "C8", "C9"]
    assert [(f.split("/")[-1][:10], int(n)) for f, n in zip(c["_file"].astype(str), c["_line"], strict=True)] == [
        ("2026-03-01", 1), ("2026-03-01", 2), ("2026-03-02", 1), ("2026-03-02", 4), ("2026-03-03", 1), ("2026-03-04", 1), ("2026-03-04", 2)]
    assert list(c["mode"].astype(str)) == ["rules"] * 7
    counts = {f.name.split("/")[-1][:10]: (f.rows_read, f.rows_quarantined) for f in bundle.files if f.table == "cdf_coups"}
    assert counts == {"2026-03-01": (2, 0), "2026-03-02": (4, 2), "2026-03-03": (1, 0), "2026-03-04": (2, 0)}


def test_parquet_files_of_one_schema_pandas_cannot_hold_are_each_unreadable_the_others_read(tmp_path: Path) -> None:
    """Where the files of one schema cannot be made pandas together (a time zone no database
    knows), each is made pandas on its own: those that cannot are unreadable, their rows counted
    as quarantined, and the table's other files are read."""
    write_bundle(tmp_path, {"tables": [CDF_TABLE]})
    part = tmp_path / "cdf_coups"
    part.mkdir()
    days = {"2026-03-01": [coup("C1")], "2026-03-02": [coup("C2", coup_no=2), coup("C3", coup_no=3)], "2026-03-03": [coup("C4", coup_no=4)]}

    def rewrite(day: str, table: pa.Table) -> pa.Table:
        if day == "2026-03-03":
            return table
        ts = pa.array(np.zeros(table.num_rows, dtype=np.int64)).cast(pa.timestamp("us", tz="Mars/Olympus"))
        return _replaced(table, "ts", ts)

    _write_days(part, days, rewrite)
    bundle = load_bundle(tmp_path)
    files = {f.name.split("/")[-1][:10]: f for f in bundle.files if f.table == "cdf_coups"}
    assert [(d, f.rows_read, f.rows_quarantined, bool(f.error)) for d, f in files.items()] == [
        ("2026-03-01", 1, 1, True), ("2026-03-02", 2, 2, True), ("2026-03-03", 1, 0, False)]
    assert all("zoneinfo" in f.error for f in list(files.values())[:2])
    assert list(bundle.frames["cdf_coups"]["coup_id"]) == ["C4"]
    assert sorted(bundle.quarantine["file"]) == ["cdf_coups/2026-03-01.parquet", "cdf_coups/2026-03-02.parquet"]


def _as_dataset(target: Path, rows: list[dict[str, object]], columns: list[str]) -> None:
    """`rows` written as pyarrow writes a dataset partitioned by `columns`: a directory a value
    (`table_id=T1/mode=rules/<uuid>-0.parquet`), the columns left out of the files."""
    table = pa.Table.from_pandas(pd.DataFrame(rows), preserve_index=False)
    pq.write_to_dataset(table, target, partition_cols=columns)


@pytest.mark.parametrize("dictionary_rows", [0, 10**9])
def test_columns_a_partitioned_dataset_keeps_in_its_directory_names_are_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                              dictionary_rows: int) -> None:
    """pyarrow's `write_to_dataset`, Spark and Hive keep a partition column in the directories'
    names, not in the files: `cdf_coups/table_id=T1/mode=free/...` holds coups without either
    column, each of them required. They are the rows' cells, percent-decoded as written, enums
    typed as the file's own (0: read as categories)."""
    monkeypatch.setattr(readers, "DICTIONARY_ROWS", dictionary_rows)
    write_bundle(tmp_path, {"tables": [CDF_TABLE, {**CDF_TABLE, "table_id": "T 2/é"}]})
    rows = [coup("C1"), coup("C2", mode="free"), coup("C3", table_id="T 2/é", coup_no=1, bank_event="initial")]
    _as_dataset(tmp_path / "cdf_coups", rows, ["table_id", "mode"])
    assert not any("table_id" in pq.read_schema(p).names for p in (tmp_path / "cdf_coups").rglob("*.parquet"))
    bundle = load_bundle(tmp_path)
    assert bundle.quarantine.empty
    coups = bundle.frames["cdf_coups"].set_index("coup_id")
    assert coups.loc[["C1", "C2", "C3"], "table_id"].tolist() == ["T1", "T1", "T 2/é"]
    assert coups.loc[["C1", "C2", "C3"], "mode"].tolist() == ["rules", "free", "rules"]
    assert sorted(f.name.split("/")[1] for f in bundle.files if f.table == "cdf_coups") == ["table_id=T%202%2F%C3%A9", "table_id=T1", "table_id=T1"]


def test_a_null_partition_value_is_a_missing_cell_and_a_file_s_own_column_is_read_as_written(tmp_path: Path) -> None:
    """A null table_id is the directory `table_id=__HIVE_DEFAULT_PARTITION__`: its rows are
    quarantined (required value missing), named by their file and row. A file that holds the
    column itself is read as it holds it, whatever its directory says."""
    write_bundle(tmp_path, {"tables": [CDF_TABLE]})
    _as_dataset(tmp_path / "cdf_coups", [coup("C1"), coup("C2", table_id=None)], ["table_id"])
    held = tmp_path / "cdf_coups" / "table_id=T9"
    held.mkdir()
    pq.write_table(pa.Table.from_pandas(pd.DataFrame([coup("C3")]), preserve_index=False), held / "own.parquet")
    bundle = load_bundle(tmp_path)
    q = bundle.quarantine
    assert q["file"].tolist() == [next(f.name for f in bundle.files if "__HIVE_DEFAULT_PARTITION__" in f.name)]
    assert q["line"].tolist() == [1] and q["reason"].tolist() == ["table_id: required value missing"]
    coups = bundle.frames["cdf_coups"].set_index("coup_id")
    assert coups.loc[["C1", "C3"], "table_id"].tolist() == ["T1", "T1"]


@pytest.mark.parametrize(("directories", "expected"), [
    (["table_id=T%201"], {"table_id": "T 1"}),
    (["day=2026-03-01"], {}),  # no column of the format: left out, as a column a file holds would be
    (["table_id=T1", "shoe_id=S%2F1"], {"table_id": "T1", "shoe_id": "S/1"}),
    (["table_id=T1", "table_id=T2"], {"table_id": "T2"}),
    (["table_id=__HIVE_DEFAULT_PARTITION__"], {"table_id": None}),
    (["table_id="], {"table_id": ""}),
    (["table_id=a=b"], {"table_id": "a=b"}),
    (["table_id=%FF"], {"table_id": "%FF"}),  # not UTF-8 once decoded: the name as written
    (["table_id=T\udcff"], {"table_id": "T\ufffd"}),  # a name of bytes that are not UTF-8
    (["2026", "03"], {}),
])
def test_partition_values(directories: list[str], expected: dict[str, str | None]) -> None:
    assert readers.partition_values(directories, TABLES["cdf_coups"].names) == expected


def _replaced(table: pa.Table, name: str, values: pa.Array | pa.ChunkedArray) -> pa.Table:
    return table.set_column(table.schema.get_field_index(name), name, values)


def _read_as_categories(path: Path, column: str) -> bool:
    """Whether the reader gives `column` of the Parquet file at `path` as categories when asked to."""
    return isinstance(readers.read_raw(path, category_columns=[column]).frame[column].dtype, pd.CategoricalDtype)


def _write_days(part: Path, days: dict[str, list[dict[str, object]]], rewrite: Callable[[str, pa.Table], pa.Table]) -> None:
    """A partitioned table, a Parquet file a day, each day's rows as Arrow makes them, then as
    `rewrite` changes them (the way another writer would hold the same values)."""
    for day, rows in days.items():
        table = pa.Table.from_pandas(pd.DataFrame(rows), preserve_index=False).replace_schema_metadata(None)
        pq.write_table(rewrite(day, table), part / f"{day}.parquet")


@pytest.mark.parametrize("dictionary_rows", [0, 10**9])
def test_parquet_enums_are_typed_alike_however_each_partition_holds_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dictionary_rows: int) -> None:
    # Enum columns of big files are read from Parquet as categories (0: every file's), each file with
    # its own: plain text, a value outside the format, Arrow dictionaries in another order, text
    # without the UTF-8 annotation.
    monkeypatch.setattr(readers, "DICTIONARY_ROWS", dictionary_rows)
    write_bundle(tmp_path, {"tables": [CDF_TABLE]})
    part = tmp_path / "cdf_coups"
    part.mkdir()
    days = {
        "2026-03-01": [coup("C1"), coup("C2", outcome="banker")],
        "2026-03-02": [coup("C3", bank_event="stolen"), coup("C4", outcome="player")],
        "2026-03-03": [coup("C5", status="void", outcome=None), coup("C6", mode="free")],
        "2026-03-04": [coup("C7", bank_event="auction")],
    }
    def rewrite(day: str, table: pa.Table) -> pa.Table:
        if day == "2026-03-03":  # dictionaries whose order is not the format's
            for name in ("status", "outcome", "mode", "bank_event"):
                table = _replaced(table, name, table[name].dictionary_encode())
        if day == "2026-03-04":  # text written as bytes
            table = _replaced(table, "mode", table["mode"].cast(pa.binary()))
        return table

    _write_days(part, days, rewrite)
    assert _read_as_categories(part / "2026-03-02.parquet", "bank_event") == (dictionary_rows == 0)
    bundle = load_bundle(tmp_path)
    q = bundle.quarantine
    assert list(zip(q["file"], q["line"], q["value"], strict=True)) == [("cdf_coups/2026-03-02.parquet", 1, "stolen")]
    assert q.iloc[0]["reason"].startswith("bank_event: not one of initial|")
    c = bundle.frames["cdf_coups"].set_index("coup_id")
    assert list(c.index) == ["C1", "C2", "C4", "C5", "C6", "C7"]
    assert [None if pd.isna(v) else v for v in c["outcome"]] == ["tie", "banker", "player", None, "tie", "tie"]
    assert c["status"].astype(str).tolist() == ["settled"] * 3 + ["void"] + ["settled"] * 2
    assert c["mode"].astype(str).tolist() == ["rules"] * 4 + ["free", "rules"]
    assert c["bank_event"].astype(str).tolist() == ["initial", "retained", "retained", "retained", "retained", "auction"]
    for name in ("outcome", "status", "mode", "bank_event"):
        assert list(c[name].cat.categories) == list(CDF_COUPS.column(name).values), name


@pytest.mark.parametrize("dictionary_rows", [0, 10**9])
def test_text_held_as_codes_keeps_its_values_however_each_partition_holds_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dictionary_rows: int) -> None:
    # A bet's player (text no rule reads) is read from big Parquet files as categories (0: every
    # file's): each partition with its own dictionary, one as plain text, one as bytes; its values,
    # its missing cell and the findings are the same as text would give.
    monkeypatch.setattr(readers, "DICTIONARY_ROWS", dictionary_rows)
    assert TABLES["wheel_bets"].column("player_id").held_as_codes
    write_bundle(tmp_path, wheel([spin("W1-1"), spin("W1-2", n=2)]), "parquet")
    part = tmp_path / "wheel_bets"
    part.mkdir()
    days = {
        "2026-03-01": [bet("B1", player_id="J1"), bet("B2", player_id="J2")],
        "2026-03-02": [bet("B3", "W1-2", n=2, player_id="J2"), bet("B4", "W1-2", n=2, player_id="J3")],
        "2026-03-03": [bet("B5", "W1-2", n=2, player_id=None), bet("B6", "W1-2", n=2, player_id="J1", stake=10**9)],
    }
    def rewrite(day: str, table: pa.Table) -> pa.Table:
        if day == "2026-03-02":  # a dictionary of another order than the first file's
            return _replaced(table, "player_id", pa.array(["J3", "J2"]).dictionary_encode().take(pa.array([1, 0])))
        if day == "2026-03-03":  # text written as bytes
            return _replaced(table, "player_id", table["player_id"].cast(pa.binary()))
        return table

    _write_days(part, days, rewrite)
    assert _read_as_categories(part / "2026-03-01.parquet", "player_id") == (dictionary_rows == 0)
    bundle = load_bundle(tmp_path)
    assert bundle.quarantine[["file", "line", "reason"]].values.tolist() == [["wheel_bets/2026-03-03.parquet", 1, "player_id: required value missing"]]
    b = bundle.frames["wheel_bets"].set_index("bet_id")
    assert b["player_id"].astype(str).to_dict() == {"B1": "J1", "B2": "J2", "B3": "J2", "B4": "J3", "B6": "J1"}
    findings = run_audit(bundle, load_ruleset(), select_rules("WHL211")).findings
    assert set(findings["item_id"]) == {"B6"}  # the bet over the table's maximum, named by its id


@pytest.mark.parametrize(("dictionary_rows", "as_codes"), [(0, True), (2, False), (10**9, False)])
def test_a_round_s_ids_read_as_codes_in_some_partitions_and_as_text_in_others_are_audited_alike(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dictionary_rows: int, as_codes: bool) -> None:
    # A throw's table, dice set and launcher (text held as codes, which rules read) are read from
    # Parquet files of DICTIONARY_ROWS rows or more as categories: with 2, the first day's file as
    # categories and the second's as text, which together are text.
    monkeypatch.setattr(readers, "DICTIONARY_ROWS", dictionary_rows)
    write_bundle(tmp_path, dice([throw("T0")]), "parquet")
    (tmp_path / "dice_throws.parquet").unlink()
    part = tmp_path / "dice_throws"
    part.mkdir()
    days = {"2026-03-01": [throw("T1", 1), throw("T2", 2, launcher_id="L2")],
            "2026-03-02": [throw("T3", 3, dice=(1, 1, 1), result="petit", dice_set_id="DS2")]}
    _write_days(part, days, lambda _day, table: table)
    assert _read_as_categories(part / "2026-03-01.parquet", "launcher_id") == (dictionary_rows <= 2)
    bundle = load_bundle(tmp_path)
    assert bundle.quarantine.empty
    t = bundle.frames["dice_throws"]
    ids = ("table_id", "dice_set_id", "launcher_id")
    assert [t[c].astype(str).tolist() for c in ids] == [["D1"] * 3, ["DS1", "DS1", "DS2"], ["L1", "L2", "L1"]]
    assert all(isinstance(t[c].dtype, pd.CategoricalDtype) == as_codes and (as_codes or is_arrow_text(t[c])) for c in ids)
    findings = run_audit(bundle, load_ruleset(), select_rules("BFR")).findings
    wrong = findings[findings["round_id"] == "T3"]
    assert len(wrong) and set(wrong["table_id"]) == {"D1"}  # the wrong result, named by its table


def test_a_dictionary_that_repeats_a_name_or_holds_a_null_is_read_as_its_values() -> None:
    # Parquet does not forbid a writer such a dictionary page (pyarrow's own writer re-encodes, so the
    # table is made here as the reader would hand it over); pandas refuses it as categories, which
    # made the whole file unreadable.
    repeated = pa.DictionaryArray.from_arrays(pa.array([0, 1, None, 2], pa.int32()), pa.array(["D1", "D1", None]))
    lawful = pa.DictionaryArray.from_arrays(pa.array([1, 0, None, 1], pa.int32()), pa.array(["void", "settled"]))
    frame = readers.parquet_frame(pa.table({"table_id": repeated, "status": lawful}), ["table_id", "status"])
    assert cells(frame["table_id"]) == ["D1", "D1", None, None]
    assert isinstance(frame["status"].dtype, pd.CategoricalDtype)  # a lawful dictionary stays categories
    assert cells(frame["status"].astype(object)) == ["settled", "void", None, "settled"]


def test_ids_a_writer_stored_as_dictionaries_are_audited_as_text(tmp_path: Path) -> None:
    """A writer may store any text column as a Parquet dictionary (pandas writes its Categoricals so):
    ids are typed to text all the same, since the rules read them as text; only a column held as
    codes stays categories. The findings are those of the same rows written as plain text."""
    tables = wheel([spin("W1-1"), spin("W1-2", n=2)],
                   [bet("B1", player_id="J1"), bet("B2", stake=10**9, player_id="J2"), bet("B3", "W1-2", n=2, ts_placed=at(300), player_id="J1")])
    plain, coded = write_bundle(tmp_path / "plain", tables, "parquet"), write_bundle(tmp_path / "coded", tables, "parquet")
    for name, columns in (("wheel_spins", ["spin_id", "table_id"]), ("wheel_bets", ["bet_id", "spin_id", "player_id"])):
        table = pq.read_table(coded / f"{name}.parquet").replace_schema_metadata(None)
        for column in columns:
            table = _replaced(table, column, table[column].dictionary_encode())
        pq.write_table(table, coded / f"{name}.parquet")
    assert pa.types.is_dictionary(pq.read_schema(coded / "wheel_bets.parquet").field("bet_id").type)
    # Decoded as read, but for the columns the typing takes as categories.
    raw = readers.read_raw(coded / "wheel_bets.parquet", category_columns=["symbol", "player_id"]).frame
    assert [str(raw[c].dtype) for c in ("bet_id", "spin_id", "player_id")] == ["str", "str", "category"]
    audits = [run_audit(load_bundle(b), load_ruleset(), select_rules("WHL,LOG"), lang="en") for b in (plain, coded)]
    as_text, as_dictionaries = (a.findings[["rule", "round_id", "item_id", "expected", "observed"]] for a in audits)
    assert len(as_text) and as_dictionaries.equals(as_text)
    bets = audits[1].bundle.frames["wheel_bets"]
    assert bets["bet_id"].dtype == "str" and bets["spin_id"].dtype == "str" and isinstance(bets["player_id"].dtype, pd.CategoricalDtype)


def test_parquet_timestamp_without_time_zone_is_refused(tmp_path: Path) -> None:
    write_bundle(tmp_path, {"tables": [CDF_TABLE]})
    frame = pd.DataFrame([coup("C1")])
    frame["ts"] = frame["ts"].dt.tz_localize(None)
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), tmp_path / "cdf_coups.parquet")
    assert "without a time zone" in _reasons(load_bundle(tmp_path))[1]


def _coups_parquet(path: Path, change) -> pa.Table:
    """Two coups written by pandas (with its metadata), then one column rewritten in Arrow: a file an
    independent system could write, whose pandas metadata no longer matches its columns."""
    write_bundle(path, {"tables": [CDF_TABLE]})
    frame = pd.DataFrame([coup("C1"), coup("C2", coup_no=2)])
    frame["stop_card"] = frame["stop_card"].astype("boolean")  # metadata then names pandas' nullable type
    table = pa.Table.from_pandas(frame, preserve_index=False)
    name, values = change(table)
    table = table.set_column(table.schema.get_field_index(name), name, values)
    pq.write_table(table, path / "cdf_coups.parquet")
    return table


@pytest.mark.parametrize(("name", "values", "reason"), [
    ("stop_card", pa.array(["true", "maybe"]), "not a boolean"),  # metadata still says bool
    ("players_seated", pa.array([5.0, 5.5]), "not a whole number"),  # metadata still says int64
    ("ts", pa.array([0, 2**62], pa.int64()).cast(pa.timestamp("us", tz="UTC")), "outside the years 1678-2261"),
    ("bank_cents", pa.array([1000, 2**64 - 5], pa.uint64()), "beyond the 64-bit range"),
    ("banker_seat", pa.array([None, -1], pa.int64()), "below 0"),  # nulls: pandas' nullable integers
    ("players_seated", pa.array([4.0, -2.0], pa.float64()), "below 0"),
])
def test_parquet_is_typed_by_its_arrow_types_not_its_pandas_metadata(tmp_path: Path, name: str, values: pa.Array, reason: str) -> None:
    _coups_parquet(tmp_path, lambda t: (name, values))
    q = load_bundle(tmp_path).quarantine
    assert list(q["line"]) == [2] and list(q["column"]) == [name] and reason in q.iloc[0]["reason"], q.to_dict("records")


def _bad_utf8(values: list[str], row: int, kind: pa.DataType) -> pa.Array:
    """`values` as `kind`, one byte of row `row` made 0xFF: text no UTF-8 reader accepts, which Arrow
    holds in a string column without a check (as a file's string column can)."""
    cells = [v.encode() for v in values]
    cells[row] = cells[row][:1] + b"\xff" + cells[row][1:]
    return pa.array(cells, pa.binary()).view(kind)


def test_a_parquet_dictionary_entry_of_bad_utf8_no_row_uses_is_left_out(tmp_path: Path) -> None:
    # pandas makes a category of every entry, used or not: that one ended the audit.
    _coups_parquet(tmp_path, lambda t: ("player_id", pa.DictionaryArray.from_arrays(pa.array([0, 0], pa.int32()), _bad_utf8(["P2", "P3"], 1, pa.string()))))
    bundle = load_bundle(tmp_path)
    assert bundle.quarantine.empty and list(bundle.frames["cdf_coups"]["player_id"]) == ["P2", "P2"]


@pytest.mark.parametrize("kind", ["string", "dictionary", "binary"])
def test_a_parquet_cell_of_bad_utf8_quarantines_its_row_only(tmp_path: Path, kind: str) -> None:
    """A string column is the file's claim that its cells are UTF-8; Parquet's reader does not check
    it. A bad cell ended the audit where a rule made it a Python string, and in a column of bytes
    (no UTF-8 annotation) made every cell Python's b'...' text. Now the row is set aside, named by
    its column and byte, and the other rows are read as text."""
    def change(t: pa.Table) -> tuple[str, pa.Array]:
        values = t["player_id"].to_pylist()
        if kind == "dictionary":
            return "player_id", pa.DictionaryArray.from_arrays(pa.array([0, 1], pa.int32()), _bad_utf8(values, 1, pa.string()))
        return "player_id", _bad_utf8(values, 1, pa.string() if kind == "string" else pa.binary())

    _coups_parquet(tmp_path, change)
    bundle = load_bundle(tmp_path)
    q = bundle.quarantine
    assert list(q["line"]) == [2] and q.iloc[0]["reason"] == "player_id: not UTF-8 text at byte 2", q.to_dict("records")
    assert q.iloc[0]["value"] == "P\ufffd2"
    assert list(bundle.frames["cdf_coups"]["player_id"]) == ["P2"]
    f = next(x for x in bundle.files if x.name == "cdf_coups.parquet")
    assert (f.rows_read, f.rows_audited, f.rows_quarantined) == (2, 1, 1)
    result = CliRunner().invoke(app, ["audit", str(tmp_path), "--out", str(tmp_path / "out")])
    assert result.exit_code == 1, result.output


@pytest.mark.parametrize("seed", range(6))
def test_invalid_utf8_finds_the_cells_a_decoder_refuses(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """Every cell checked by bytes in place, the same as each cell decoded by Python: characters cut
    across two cells, blocks of cells looked at one by one, a slice of an array, nulls."""
    monkeypatch.setattr(readers, "_CELL_BLOCK", 3)
    rng = np.random.default_rng(seed)
    pieces = [b"a", b"\xc3\xa9", b"\xe2\x82\xac", b"\xf0\x9f\x82\xa1", b"\xc3", b"\xa9", b"\xff", b""]
    cells: list[bytes | None] = [b"".join(rng.choice(pieces, int(rng.integers(0, 4)))) for _ in range(60)]
    cells[5] = None
    array = pa.array(cells, pa.binary())[7:]
    expected = []
    for i, cell in enumerate(cells[7:]):
        try:
            cell is None or cell.decode("utf-8")
        except UnicodeDecodeError:
            expected.append(i)
    # A character cut across two cells: the bytes together are UTF-8, neither cell is.
    assert readers.invalid_utf8(pa.array([b"a\xc3", b"\xa9b", b"\xc3\xa9"], pa.binary())).tolist() == [0, 1]
    for kind in (pa.binary(), pa.string(), pa.large_string()):
        assert readers.invalid_utf8(array.cast(pa.large_binary()).view(kind) if kind == pa.large_string() else array.view(kind)).tolist() == expected


def test_parquet_naive_times_are_refused_even_when_the_metadata_says_utc(tmp_path: Path) -> None:
    _coups_parquet(tmp_path, lambda t: ("ts", t["ts"].cast(pa.timestamp("us"))))
    reasons = _reasons(load_bundle(tmp_path))
    assert sorted(reasons) == [1, 2] and all(r.startswith("ts: timestamp without a time zone") for r in reasons.values()), reasons


def test_parquet_integer_columns_with_nulls_stay_exact_and_text_as_bytes_is_read(tmp_path: Path) -> None:
    big = 2**53 + 1  # float64 would round it
    _coups_parquet(tmp_path, lambda t: ("banker_seat", pa.array([big, None], pa.int64())))
    table = pq.read_table(tmp_path / "cdf_coups.parquet").replace_schema_metadata(None)
    table = table.set_column(table.schema.get_field_index("coup_id"), "coup_id", table["coup_id"].cast(pa.binary()))
    pq.write_table(table, tmp_path / "cdf_coups.parquet")
    c = load_bundle(tmp_path).frames["cdf_coups"]
    assert list(c["coup_id"]) == ["C1", "C2"]
    assert c["banker_seat"].iloc[0] == big and c["banker_seat"].isna().tolist() == [False, True]


def test_parquet_with_a_repeated_column_name_cannot_be_audited(tmp_path: Path) -> None:
    table = _coups_parquet(tmp_path, lambda t: ("coup_id", t["coup_id"]))
    pq.write_table(pa.Table.from_arrays([*table.columns, table["ts"]], names=[*table.column_names, "ts"]), tmp_path / "cdf_coups.parquet")
    q = load_bundle(tmp_path).quarantine
    assert len(q) == 1 and "columns repeat a name: ['ts']" in q.iloc[0]["reason"]


@pytest.mark.parametrize(("name", "content"), [("cdf_coups.parquet", b"PAR1 not parquet"), ("cdf_coups.csv", b""), ("cdf_coups.csv.gz", b"not gzip")])
def test_an_unreadable_file_is_one_finding_not_a_crash(tmp_path: Path, name: str, content: bytes) -> None:
    write_bundle(tmp_path, {"tables": [CDF_TABLE]})
    (tmp_path / name).write_bytes(content)
    bundle = load_bundle(tmp_path)
    q = bundle.quarantine
    assert len(q) == 1 and q.iloc[0]["file"] == name and "cannot be audited" in q.iloc[0]["reason"]
    assert next(f for f in bundle.files if f.name == name).error


def test_missing_required_column_quarantines_the_file(tmp_path: Path) -> None:
    _bundle(tmp_path, [GOOD.format(n=1), GOOD.format(n=2)])
    text = (tmp_path / "cdf_coups.csv").read_text().splitlines()
    (tmp_path / "cdf_coups.csv").write_text("\n".join(",".join(line.split(",")[1:]) for line in text) + "\n")
    bundle = load_bundle(tmp_path)
    f = next(x for x in bundle.files if x.table == "cdf_coups")
    assert (f.rows_read, f.rows_quarantined) == (2, 2) and "coup_id" in str(f.error)


def test_stake_result_required_only_for_settled_coups(tmp_path: Path) -> None:
    tables = {"tables": [CDF_TABLE], "cdf_coups": [coup("C1"), coup("C2", status="void", outcome=None)],
              "cdf_stakes": [stake_row("S1", "C1", result=None), stake_row("S2", "C2", result=None)]}
    bundle = load_bundle(write_bundle(tmp_path, tables))
    q = bundle.quarantine
    assert list(q["item_id"]) == ["S1"] and list(bundle.frames["cdf_stakes"]["stake_id"]) == ["S2"]
    f = next(x for x in bundle.files if x.table == "cdf_stakes")
    assert (f.rows_read, f.rows_audited, f.rows_quarantined) == (2, 1, 1)
    # Each stake's coup was found at load, before S1 was left out: the positions follow the rows left.
    assert bundle.parent_positions("cdf_stakes", "coup_id", "cdf_coups").tolist() == [1]


def test_unknown_files_are_listed_not_read(tmp_path: Path) -> None:
    write_bundle(tmp_path, {"tables": [CDF_TABLE]})
    (tmp_path / "notes.txt").write_text("hello")
    assert load_bundle(tmp_path).ignored == ["notes.txt"]


def test_files_in_a_table_directory_that_are_not_parquet_are_listed_not_skipped(tmp_path: Path) -> None:
    # A day of coups written as CSV among Parquet parts, or alone: never read, and never silently.
    write_bundle(tmp_path, cdf([coup("C1")], [stake_row("S1", "C1"), stake_row("S2", "C1")]))
    (tmp_path / "cdf_coups").mkdir()
    (tmp_path / "cdf_coups.csv").rename(tmp_path / "cdf_coups" / "2026-03-01.csv")
    (tmp_path / "cdf_coups" / ".hidden.parquet").write_bytes(b"editor swap")
    bundle = load_bundle(tmp_path)
    assert bundle.ignored == ["cdf_coups/2026-03-01.csv"] and "cdf_coups" not in bundle.frames
    result = CliRunner().invoke(app, ["audit", str(tmp_path), "--out", str(tmp_path / "out"), "--format", "jsonl,html"])
    assert result.exit_code == 1
    assert "1 file(s) not part of the log format were not read: cdf_coups/2026-03-01.csv" in result.output
    assert "cdf_coups/2026-03-01.csv" in (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    lines = (tmp_path / "out" / "violations.jsonl").read_text().splitlines()
    orphans = [json.loads(line) for line in lines if '"LOG003"' in line]
    # One finding for the stake file, with the count, not one per stake.
    assert len(orphans) == 1 and "2 record(s) of cdf_stakes cannot be tied to their cdf_coups" in orphans[0]["message"]


def test_no_such_bundle(tmp_path: Path) -> None:
    with pytest.raises(BundleError, match="no such bundle"):
        load_bundle(tmp_path / "missing")


def test_integral_decimals_are_integers(tmp_path: Path) -> None:
    cells = GOOD.format(n=2).split(",")
    cells[HEADER.split(",").index("banker_seat")] = "1.0"
    cells[HEADER.split(",").index("bank_cents")] = "10000.0"
    bundle = load_bundle(_bundle(tmp_path, [GOOD.format(n=1), ",".join(cells)]))
    assert bundle.quarantine.empty
    c = bundle.frames["cdf_coups"]
    assert c["bank_cents"].tolist() == [10000, 10000] and c["banker_seat"].tolist() == [1, 1]


def test_large_amounts_stay_exact(tmp_path: Path) -> None:
    cells = GOOD.format(n=1).split(",")
    for col in ("bank_cents", "bank_after_cents"):
        cells[HEADER.split(",").index(col)] = "123456789012345678"
    bundle = load_bundle(_bundle(tmp_path, [",".join(cells), GOOD.format(n=2)]))
    assert bundle.frames["cdf_coups"]["bank_cents"].tolist() == [123456789012345678, 10000]


def test_jsonl_fast_and_careful_paths_agree(tmp_path: Path) -> None:
    write_bundle(tmp_path, {"tables": [CDF_TABLE]})
    rows = [json_record(coup(f"C{i}")) for i in (1, 2, 3)]
    rows[1]["ts"] = "2026-03-02T20:02:00"  # no offset: quarantined on either path
    clean = "\n".join(json.dumps(r) for r in rows) + "\n"
    (tmp_path / "cdf_coups.jsonl").write_text(clean)
    fast = load_bundle(tmp_path)
    rows[2]["coup_id"] = 3  # a number where the format says text: pyarrow refuses, the careful path reads it
    (tmp_path / "cdf_coups.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    slow = load_bundle(tmp_path)
    assert list(fast.quarantine["line"]) == list(slow.quarantine["line"]) == [2]
    assert "without a UTC offset" in fast.quarantine.iloc[0]["reason"]
    assert list(fast.frames["cdf_coups"]["coup_id"]) == ["C1", "C3"] and list(slow.frames["cdf_coups"]["coup_id"]) == ["C1", "3"]


def test_jsonl_lines_around_a_bad_one_are_read_as_if_it_were_not_there(tmp_path: Path) -> None:
    """A bad line costs only itself: the other lines are read as a file without it would be, each
    named by its own line (a blank line is no row)."""
    write_bundle(tmp_path, {"tables": [CDF_TABLE]})
    rows = [json_record(coup(f"C{i}")) for i in (1, 2, 3)]
    rows[1]["bank_cents"] = 2**53 + 1
    good = [json.dumps(r) for r in rows]
    (tmp_path / "cdf_coups.jsonl").write_text("\n".join([good[0], "{oops", good[1], "", good[2]]) + "\n")
    bundle = load_bundle(tmp_path)
    assert _reasons(bundle).keys() == {2}
    coups = bundle.frames["cdf_coups"]
    assert list(coups["coup_id"]) == ["C1", "C2", "C3"] and list(coups["_line"]) == [1, 3, 5]
    assert coups["bank_cents"].tolist() == [rows[0]["bank_cents"], 2**53 + 1, rows[2]["bank_cents"]]
    (tmp_path / "cdf_coups.jsonl").write_text("\n".join(good) + "\n")
    whole = load_bundle(tmp_path).frames["cdf_coups"]
    pd.testing.assert_frame_equal(coups.drop(columns=["_file", "_line"]), whole.drop(columns=["_file", "_line"]))


@pytest.mark.parametrize("blank", ["  ", "\t", " \r"])
@pytest.mark.parametrize("last", [False, True])
def test_a_jsonl_line_of_blanks_beside_a_line_of_two_objects_leaves_every_row_on_its_line(tmp_path: Path, blank: str, last: bool) -> None:
    """pyarrow reads a line of blanks as no row and a line of two objects as two: together the rows
    are as many as the lines, and every row between them was named by the line before its own, the
    second object passing for a record (found by the comparison of readers, 2026-12-04)."""
    write_bundle(tmp_path, {"tables": [CDF_TABLE]})
    rows = [json.dumps(json_record(coup(f"C{i}"))) for i in range(1, 9)]
    lines = [*rows[:2], *([] if last else [blank]), *rows[2:4], rows[4] + rows[4], *rows[5:], *([blank] if last else [])]
    (tmp_path / "cdf_coups.jsonl").write_text("\n".join(lines))
    bundle = load_bundle(tmp_path)
    two = 6 if not last else 5
    assert list(bundle.quarantine["line"]) == [two] and "not a JSON object" in bundle.quarantine["reason"].iloc[0]
    frame = bundle.frames["cdf_coups"]
    assert dict(zip(frame["coup_id"], frame["_line"], strict=True)) == {
        f"C{i}": n for i, n in zip([1, 2, 3, 4, 6, 7, 8], [1, 2, 4, 5, 7, 8, 9] if not last else [1, 2, 3, 4, 6, 7, 8], strict=True)}


@pytest.mark.parametrize("bad", ["{cut", "two", "NaN", "twice", "null", "", "[1]", "utf8"])
@pytest.mark.parametrize("block", [1, 700, 1 << 24])
def test_a_jsonl_bad_line_costs_only_itself_and_its_piece(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bad: str, block: int) -> None:
    """pyarrow reads a JSONL file a piece at a time: a bad line sends only its own piece to be
    searched, the others kept as pyarrow read them; no line is read by Python's json but those of
    that piece, and the file is never read line by line (a month's file with its last line cut:
    not every line read again)."""
    write_bundle(tmp_path, {"tables": [CDF_TABLE]})
    rows = [json.dumps(json_record(coup(f"C{i}"))) for i in range(1, 41)]
    rows[17] = {"two": rows[17] + rows[17], "NaN": rows[17].replace('"bank_cents": 10000', '"bank_cents": NaN'),
                "twice": rows[17].replace('"bank_cents": ', '"bank_cents": 5, "bank_cents": ', 1)}.get(bad, bad)
    text = ("\n".join(rows) + "\n").encode()
    (tmp_path / "cdf_coups.jsonl").write_bytes(text.replace(b"\nutf8\n", b"\n" + rows[16].replace("C17", "C18").encode().replace(b"C18", b"C\xff18") + b"\n"))
    monkeypatch.setattr(readers, "_JSON_BLOCK", block)
    monkeypatch.setattr(readers, "_read_jsonl_careful", lambda *_: pytest.fail("read line by line"))
    judged: list[tuple[int, int]] = []
    judge = readers._judge_lines
    monkeypatch.setattr(readers, "_judge_lines", lambda data, start, stop, *rest: (judged.append((start, stop)), judge(data, start, stop, *rest))[1])
    bundle = load_bundle(tmp_path)
    assert list(bundle.frames["cdf_coups"]["_line"]) == [n for n in range(1, 41) if n != 18]
    assert list(bundle.quarantine["line"]) == ([] if bad == "" else [18])
    assert sum(stop - start for start, stop in judged) <= max(len(rows[17]), block + 2 * len(rows[0]))


@pytest.mark.parametrize("block", [300, 1 << 24])
def test_jsonl_columns_the_format_does_not_list_keep_a_file_from_the_reading_line_by_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                                         block: int) -> None:
    """Columns not listed are allowed and ignored: an ISO time (which pyarrow reads as a timestamp),
    an object, a list, a value of another JSON type in another piece (300 bytes: a line or two a
    piece). Such a file is read by pyarrow, never line by line (an extra time a line made it 11
    times slower), and as line by line would. (Values of two JSON types in one piece pyarrow still
    refuses: that piece's lines are judged by Python.)"""
    write_bundle(tmp_path, {"tables": [CDF_TABLE]})
    extras = [{"logged_at": "2026-03-01T21:04:05+01:00"}, {"device": {"id": "D1", "tags": [1, 2], "at": {"a": None}}}, {"notes": ["x", "y"]}, {"seq": 7}]
    lines = [json.dumps({**json_record(coup(f"C{i}")), **extras[i % len(extras)], **extras[(i + 1) % len(extras)]}) for i in range(1, 31)]
    if block == 300:  # a line a piece
        lines = [line.replace('"seq": 7', '"seq": "seven"') if i % 2 else line for i, line in enumerate(lines)]
    (tmp_path / "cdf_coups.jsonl").write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(readers, "_JSON_BLOCK", block)
    careful = readers._read_jsonl_careful
    monkeypatch.setattr(readers, "_read_jsonl_careful", lambda *_: pytest.fail("read line by line"))
    monkeypatch.setattr(readers, "_judge_lines", lambda *_: pytest.fail("lines judged by Python"))
    read = load_bundle(tmp_path).frames["cdf_coups"]
    assert list(read["coup_id"]) == [f"C{i}" for i in range(1, 31)]
    monkeypatch.setattr(readers, "_read_jsonl_careful", careful)
    monkeypatch.setattr(readers, "_read_jsonl_arrow", lambda *_: None)
    pd.testing.assert_frame_equal(read, load_bundle(tmp_path).frames["cdf_coups"], check_dtype=False)  # Int64 read line by line


@pytest.mark.parametrize("seed", range(40))
def test_jsonl_reads_the_same_by_pyarrow_and_line_by_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """Bad and blank lines, and cells of every kind: the rows, their lines and each bad cell's reason
    are the same whether pyarrow reads the file (around its bad lines) or Python reads it line by line.
    One seed in three writes no odd cell, only bad lines: pyarrow then reads the good lines itself."""
    from auditor.loading import readers

    rng = np.random.default_rng(seed)
    write_bundle(tmp_path, {"tables": [CDF_TABLE]})
    odd = [2**53 + 1, 1.5, 3.0, -5, None, "12", 10**18, 2**63, 1e308]
    lines = []
    for i in range(int(rng.integers(1, 30))):
        row = json_record(coup(f"C{i}"))
        pick = rng.random()
        if pick < 0.1:
            twice = json.dumps(row).replace('"bank_cents": ', '"bank_cents": 5, "bank_cents": ', 1)
            lines.append(["{oops", "", "[1, 2]", twice, json.dumps(row).replace('"bank_cents": 10000', '"bank_cents": NaN'),
                          json.dumps(row) + json.dumps(row), json.dumps(row)[:-9]][i % 7])
            continue
        if seed % 3 == 0:
            pass
        elif pick < 0.25:
            row["bank_cents"] = odd[int(rng.integers(0, len(odd)))]
        elif pick < 0.3:
            row["ts"] = ["2026-03-02T20:00:00", "x", None][i % 3]
        elif pick < 0.35:
            row["player_id"] = [{"x": "P2"}, ["P2"], 12345][i % 3]
        if seed % 5 in (2, 3):  # optional columns left out, null or given, as a log that leaves out nulls writes them
            for name, value in (("third_face_up", True), ("banker_seat", 3)):
                given = rng.random()
                if given < 0.4 + 0.3 * (i < 10):  # mostly left out in the first lines, as in a first chunk
                    del row[name]
                else:
                    row[name] = None if given < 0.8 else value
        if seed % 4 == 1:  # a column the format does not list, of a kind a line (or of one kind a file)
            extras = ["2026-03-01T21:04:05+01:00", {"a": [1, {"b": "x"}]}, [1, 2], 5, "text", None,
                      float("nan"), [float("inf")], {"x": float("nan")}, {"x": "bad\udcff"}]
            row["extra"] = extras[int(rng.integers(0, len(extras)))] if seed % 8 == 1 else extras[seed % len(extras)]
        lines.append(json.dumps(row, ensure_ascii="extra" not in row))
    text = ("\n".join(lines) + ("\n" if seed % 2 else "")).encode("utf-8", "surrogateescape")  # \udcff: a byte of bad UTF-8
    (tmp_path / "cdf_coups.jsonl").write_bytes(text)

    def read() -> tuple[list[object], list[list[object]]]:
        bundle = load_bundle(tmp_path)
        frame = bundle.frames["cdf_coups"].drop(columns=["_file"]).astype(object)
        return sorted(zip(bundle.quarantine["line"], bundle.quarantine["reason"], strict=True)), frame.where(frame.notna(), None).values.tolist()

    by_pyarrow = read()
    # Bad lines found by pyarrow a half at a time down to runs of 1, 2 or 3 lines (`_by_halves`), and
    # the budget for it spent at once: the same.
    for leaf, budget in ((1, 3), (2, 3), (3, 1), (2, 0)):
        monkeypatch.setattr(readers, "_LEAF_LINES", leaf)
        monkeypatch.setattr(readers, "_HALVES_BUDGET", budget)
        assert read() == by_pyarrow
    # The text read by pyarrow in pieces of a line or a few (`_read_json`): the same.
    for block in (1, 300, 1000):
        monkeypatch.setattr(readers, "_JSON_BLOCK", block)
        assert read() == by_pyarrow
    # A piece read by pyarrow in chunks of a line or a few (`_chunks`): the same.
    monkeypatch.setattr(readers, "_JSON_BLOCK", 1 << 24)
    for chunk in (1, 300):
        monkeypatch.setattr(readers, "_CHUNK_BYTES", chunk)
        assert read() == by_pyarrow
    monkeypatch.setattr(readers, "_read_jsonl_arrow", lambda *_: None)
    assert read() == by_pyarrow


@pytest.mark.parametrize("seed", range(40))
def test_jsonl_read_in_pieces_is_what_pyarrow_reads_in_one_block(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """pyarrow is handed a JSONL text a piece at a time (it crashes on blocks that disagree): the
    pieces' tables put together are its reading of the whole text as one block, and where that
    fails (a column of two kinds), so does this."""
    import pyarrow.json as pajson

    rng = np.random.default_rng(seed)
    kinds = [7, -2**62, 2.5, True, False, "t", None, [1], {"x": 1}]
    usual = {name: int(rng.integers(0, len(kinds))) for name in "abcd"}
    lines = []
    for _ in range(int(rng.integers(1, 40))):
        row = {}
        for name, kind in usual.items():
            pick = rng.random()
            if pick < 0.1:
                continue  # the key absent from this line
            row[name] = kinds[int(rng.integers(0, len(kinds)))] if pick < 0.13 else kinds[kind]
        lines.append(json.dumps(row))
    text = ("\n".join(lines) + "\n" * int(rng.integers(0, 2))).encode()
    schema = pa.schema([("a", pa.string())]) if seed % 2 else None
    try:
        whole = pajson.read_json(pa.BufferReader(text), read_options=pajson.ReadOptions(block_size=len(text) + 1),
                                 parse_options=pajson.ParseOptions(explicit_schema=schema, unexpected_field_behavior="infer"))
    except pa.ArrowInvalid:
        whole = None
    for block, chunk in ((1, 1 << 18), (50, 1 << 18), (200, 1 << 18), (len(text), 1 << 18), (len(text), 1), (len(text), 100)):
        monkeypatch.setattr(readers, "_JSON_BLOCK", block)
        monkeypatch.setattr(readers, "_CHUNK_BYTES", chunk)  # a piece read by pyarrow a chunk at a time: the same
        pieces = readers._read_json(text, schema)
        bytes_of = [np.frombuffer(piece, dtype=np.uint8) for _, piece in readers._json_pieces(text)]
        parts = sum(len(readers._chunks(b, np.flatnonzero(b == ord("\n")))) for b in bytes_of)
        if whole is None or (any(pa.types.is_nested(t) for t in whole.schema.types) and parts > 1):
            assert pieces is None  # lists and objects are refused in any case, and not put together
        else:
            assert pieces is not None and pieces.equals(whole), (block, pieces, whole)
        assert readers._read_json((b"[1]\n" + text + b"\n[2]", 4, 4 + len(text)), schema) == pieces


def test_the_last_line_end_is_found_from_the_end_in_any_window() -> None:
    from auditor.loading.readers import _after_last_line_end

    for size in (0, 1, 5, (1 << 16) - 1, 1 << 16, (1 << 16) + 1, 200_000):
        for at in (None, 0, size // 3, size - (1 << 16) - 1, size - (1 << 16), size - 1):
            text = bytearray(b"x" * size)
            if at is not None and 0 <= at < size:
                text[at] = ord("\n")
            assert _after_last_line_end(np.frombuffer(bytes(text), dtype=np.uint8)) == bytes(text).rfind(b"\n") + 1, (size, at)


@pytest.mark.parametrize("block", [1, 2, 7, 100, 1 << 24])
def test_a_jsonl_file_is_read_in_pieces_that_end_at_line_ends_and_make_up_the_file(tmp_path: Path, block: int,
                                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A JSONL file read a block at a time (`_json_pieces`) comes in pieces each ending at a line end
    (the last at the file's end), each at the offset it begins at, together the file's bytes: lines
    longer than a block, lines of one byte, no line end at the end, an empty file."""
    from auditor.loading import readers

    monkeypatch.setattr(readers, "_JSON_BLOCK", block)
    rng = np.random.default_rng(block)
    texts = [b"", b"\n", b"{}", b"{}\n", b"{}\n{}", b'{"a": "' + b"x" * 300 + b'"}\n{}\n', b"\n\n\n{}\n",
             b"".join(b"{" + b"y" * int(rng.integers(0, 30)) + b"}\n" for _ in range(200)) + b"{}"]
    for n, text in enumerate(texts):
        path = tmp_path / f"t{n}.jsonl"
        path.write_bytes(text)
        pieces = list(readers._json_pieces(str(path)))
        assert b"".join(piece.to_pybytes() for _, piece in pieces) == text
        sizes = [piece.size for _, piece in pieces]
        assert [at for at, _ in pieces] == [sum(sizes[:i]) for i in range(len(sizes))] and all(sizes)
        assert all(piece.to_pybytes().endswith(b"\n") for _, piece in pieces[:-1])
        # A piece holds the lines of one block read, and what the block before left after its last line end.
        assert all(piece.to_pybytes()[:-1].count(b"\n") <= block for _, piece in pieces)


@pytest.mark.parametrize("late", [None, "extra", "null_then_value", "key_late", "key_late_given_null", "key_late_escaped"])
def test_a_jsonl_piece_is_read_in_two_calls_unless_its_rest_has_a_key_or_kind_its_first_chunk_has_not(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, late: str | None) -> None:
    """A piece of a log is read by pyarrow a first chunk, then the rest at once with only the first
    chunk's columns and types (so no line can make a column of its own), and the format's types for
    its columns the first chunk held only nulls in. A key of the format the first chunk has not (a
    log that leaves out a key whose value is null) gets the rest read once more with the format's
    columns declared, one never given left out; a key the format does not list, or a key the
    search cannot tell (an escape in the text), sends the rest to be read a chunk at a time. Either
    way as line by line."""
    import pyarrow.json as pajson

    write_bundle(tmp_path, {"tables": [CDF_TABLE]})
    rows = [json_record(coup(f"C{i}")) for i in range(1, 41)]
    if late == "extra":
        rows[30]["logged_at"] = "2026-03-01T21:04:05+01:00"
    elif late == "null_then_value":  # a boolean of the format null in the first chunk, true after
        for n, row in enumerate(rows):
            row["third_face_up"] = None if n < 30 else True
    elif late is not None:  # the key left out where the value is null, and one column never given
        for n, row in enumerate(rows):
            del row["banker_seat"]
            if n < 30:
                del row["third_face_up"]
            elif late != "key_late_given_null":
                row["third_face_up"] = True
        if late == "key_late_escaped":
            rows[35]["player_id"] = "P\\u0032"
    (tmp_path / "cdf_coups.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    monkeypatch.setattr(readers, "_CHUNK_BYTES", 2_000)  # four or five lines a chunk
    calls: list[str] = []
    read_json = pajson.read_json
    monkeypatch.setattr(readers.pajson, "read_json", lambda source, **kw: (calls.append(kw["parse_options"].unexpected_field_behavior),
                                                                           read_json(source, **kw))[1])
    monkeypatch.setattr(readers, "_judge_lines", lambda *_: pytest.fail("lines judged by Python"))
    careful = readers._read_jsonl_careful
    monkeypatch.setattr(readers, "_read_jsonl_careful", lambda *_: pytest.fail("read line by line"))
    frame = load_bundle(tmp_path).frames["cdf_coups"]
    monkeypatch.setattr(readers, "_read_jsonl_careful", careful)
    chunks = len(readers._chunks(*(lambda b: (b, np.flatnonzero(b == ord("\n"))))(np.frombuffer((tmp_path / "cdf_coups.jsonl").read_bytes(), dtype=np.uint8))))
    assert chunks > 5
    expected = {None: ["infer", "error"], "null_then_value": ["infer", "error"], "key_late": ["infer", "error", "error"],
                "key_late_given_null": ["infer", "error", "error"], "extra": ["infer", "error", *["infer"] * (chunks - 1)],
                "key_late_escaped": ["infer", "error", "error", *["infer"] * (chunks - 1)]}
    assert calls == expected[late]
    monkeypatch.setattr(readers, "_read_jsonl_arrow", lambda *_: None)
    pd.testing.assert_frame_equal(frame, load_bundle(tmp_path).frames["cdf_coups"], check_dtype=False)


@pytest.mark.parametrize("given", [False, True])
def test_a_required_jsonl_key_no_line_gives_is_a_missing_column_though_a_late_key_declared_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: bool) -> None:
    """The rest of a piece read once more with the format's columns declared (a key its first chunk
    has not): a required column no line gives is still a missing column (the file unreadable), not
    a value missing in every row; given as null in the rest's lines, it is a value missing in those
    rows. As line by line."""
    write_bundle(tmp_path, {"tables": [CDF_TABLE]})
    rows = [json_record(coup(f"C{i}")) for i in range(1, 41)]
    for n, row in enumerate(rows):
        del row["players_seated"]
        if given and n >= 30:
            row["players_seated"] = None
        if n < 30:
            del row["third_face_up"]
        else:
            row["third_face_up"] = True
    (tmp_path / "cdf_coups.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    monkeypatch.setattr(readers, "_CHUNK_BYTES", 2_000)

    def read() -> list[tuple[object, object]]:
        quarantine = load_bundle(tmp_path).quarantine
        return sorted(zip(quarantine["line"].astype(str), quarantine["reason"], strict=True))

    by_pyarrow = read()
    assert any("missing required column" in reason for _, reason in by_pyarrow) is not given
    monkeypatch.setattr(readers, "_read_jsonl_arrow", lambda *_: None)
    assert read() == by_pyarrow


def test_jsonl_with_a_bad_line_and_a_number_for_text_is_read_line_by_line(tmp_path: Path) -> None:
    write_bundle(tmp_path, {"tables": [CDF_TABLE]})
    rows = [json_record(coup(f"C{i}")) for i in (1, 2)]
    rows[1]["coup_id"] = 2  # pyarrow refuses a number where the format says text, with or without the bad line
    (tmp_path / "cdf_coups.jsonl").write_text("\n".join([json.dumps(rows[0]), "[1, 2]", json.dumps(rows[1])]) + "\n")
    bundle = load_bundle(tmp_path)
    assert _reasons(bundle).keys() == {2}
    assert list(bundle.frames["cdf_coups"]["coup_id"]) == ["C1", "2"] and list(bundle.frames["cdf_coups"]["_line"]) == [1, 3]


@pytest.mark.parametrize("sample", ["malformed-log", "casino-month", "casino-month-by-day"])
def test_loading_tables_in_threads_gives_the_same_bundle(sample: str) -> None:
    path = SAMPLES / sample
    one, two = load_bundle(path, threads=1), load_bundle(path, threads=2)
    assert [vars(f) for f in one.files] == [vars(f) for f in two.files]
    pd.testing.assert_frame_equal(one.quarantine, two.quarantine)
    assert list(one.frames) == list(two.frames)
    for name in one.frames:
        pd.testing.assert_frame_equal(one.frames[name], two.frames[name])
    assert {t: a.to_pylist() for t, a in one.ids_seen.items()} == {t: a.to_pylist() for t, a in two.ids_seen.items()}
    assert list(one.unmatched) == list(two.unmatched)
    for name in one.unmatched:
        pd.testing.assert_frame_equal(one.unmatched[name], two.unmatched[name])


@pytest.mark.parametrize("threads", [1, 2])
def test_items_of_no_audited_round_are_set_aside_counted_and_reported_once(tmp_path: Path, threads: int) -> None:
    """A stake of a quarantined coup and a stake of no coup at all leave the game rules' frames (no
    rule can judge a stake without its coup) for `unmatched`, in file order; only the second is an
    orphan (LOG003). Both are rows read and audited, none is quarantined, none is lost."""
    stakes = [stake_row("S1", "C1"), stake_row("S2", "C2"), stake_row("S3", "C404"), stake_row("S4", "C1")]
    write_bundle(tmp_path, cdf([coup("C1"), coup("C2", bank_cents=-1)], stakes))  # C2 is quarantined
    bundle = load_bundle(tmp_path, threads=threads)
    assert list(bundle.frames["cdf_stakes"]["stake_id"]) == ["S1", "S4"]
    assert list(bundle.unmatched["cdf_stakes"]["stake_id"]) == ["S2", "S3"]
    assert list(bundle.unmatched["cdf_stakes"]["_line"]) == [2, 3]
    assert bundle.parent_positions("cdf_stakes", "coup_id", "cdf_coups").tolist() == [0, 0]
    counts = {f.name: (f.rows_read, f.rows_audited, f.rows_quarantined) for f in bundle.files}
    assert counts["cdf_stakes.csv"] == (4, 4, 0) and counts["cdf_coups.csv"] == (2, 1, 1)
    findings = run_audit(bundle, load_ruleset(), select_rules(), lang="en").findings
    assert list(findings.loc[findings["rule"] == "LOG003", "source"]) == ["cdf_stakes.csv:3"]
    assert not findings["item_id"].isin(["S2", "S3"]).to_numpy()[findings["rule"] != "LOG003"].any()


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_a_measurement_past_a_floats_range_is_not_a_finite_number_in_csv_and_jsonl(tmp_path: Path, fmt: str) -> None:
    # pyarrow refuses JSON's 1e400, so the file is read line by line, where Python's json makes it an
    # infinity: its reason was "not a number" there and "not a finite number" in CSV.
    write_bundle(tmp_path, wheel([spin(f"W1-{n}", n=n) for n in (1, 2, 3)]), fmt=fmt)
    path = tmp_path / f"wheel_spins.{fmt}"
    text = path.read_text()
    lines = text.splitlines()
    lines[2] = re.sub(r'"revolutions": [0-9.]+', '"revolutions": -1e400', lines[2]) if fmt == "jsonl" else lines[2]
    if fmt == "csv":
        header = lines[0].split(",")
        cells = lines[2].split(",")
        cells[header.index("revolutions")] = "-1e400"
        lines[2] = ",".join(cells)
    path.write_text("\n".join(lines) + "\n")
    reasons = _reasons(load_bundle(tmp_path))
    assert len(reasons) == 1 and "not a finite number" in next(iter(reasons.values())), reasons


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_a_nan_measurement_is_not_a_number_and_a_null_one_missing(tmp_path: Path, fmt: str) -> None:
    # Parquet holds NaN as a value beside its nulls; pandas makes both missing, and a NaN was read as
    # "required value missing" where CSV's NaN is "not a number".
    write_bundle(tmp_path, wheel([spin(f"W1-{n}", n=n) for n in (1, 2, 3)]), fmt=fmt)
    path = tmp_path / f"wheel_spins.{fmt}"
    if fmt == "parquet":
        table = pq.read_table(path)
        i = table.schema.get_field_index("revolutions")
        values = table.column(i).to_pylist()
        table = table.set_column(i, "revolutions", pa.array([values[0], float("nan"), None], pa.float64()))
        pq.write_table(table, path)
    else:
        lines = path.read_text().splitlines()
        at = lines[0].split(",").index("revolutions")
        for n, cell in ((2, "NaN"), (3, "")):
            cells = lines[n].split(",")
            cells[at] = cell
            lines[n] = ",".join(cells)
        path.write_text("\n".join(lines) + "\n")
    bundle = load_bundle(tmp_path)
    q = bundle.quarantine
    reasons = dict(zip(q["line"], q["reason"], strict=True))
    assert sorted(reasons) == [2, 3] and "not a number" in reasons[2] and "missing" in reasons[3], reasons
    assert list(q.loc[q["line"] == 2, "value"]) == ["NaN"]  # shown as the file holds it
    assert list(bundle.frames["wheel_spins"]["spin_id"]) == ["W1-1"]


NULL_LIKE = ["#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "N/A", "NA", "NULL", "NaN", "n/a",
             "nan", "null"]


@pytest.mark.parametrize("slow", [False, True])
def test_only_an_empty_csv_cell_is_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, slow: bool) -> None:
    # pyarrow's CSV reader takes these for nulls by default: a player "NA" was a missing player and
    # a garage kind "N/A" a missing one, never judged against the format's values.
    if slow:
        monkeypatch.setattr(readers, "_csv_arrow_table", lambda *_: None)
    def row(n: int, player: str) -> str:
        return GOOD.format(n=n).replace(f"21:0{n}:05", f"21:{n:02d}:05").replace(",P2,", f",{player},")

    rows = [row(n, value) for n, value in enumerate([*NULL_LIKE, ""], start=1)]
    bundle = load_bundle(_bundle(tmp_path, rows))
    reasons = _reasons(bundle)
    assert list(reasons) == [17] and "player_id: required value missing" in reasons[17]  # the empty one only
    assert list(bundle.frames["cdf_coups"]["player_id"]) == NULL_LIKE


def test_infinite_numbers_are_bad_cells_in_every_format() -> None:
    from auditor.loading.coerce import parse_column
    from auditor.schema import TABLES

    revolutions = next(c for c in TABLES["wheel_spins"].columns if c.name == "revolutions")
    # As Parquet holds them, as CSV writes them, and as Python's json reads JSON's 1e400 (line by line).
    for raw in (pd.Series([5.5, float("inf"), -float("inf")]), pd.Series(["5.5", "1e999", "-1e999"], dtype="str"),
                pd.Series([5.5, float("inf"), -float("inf")], dtype=object)):
        values, bad, reason = parse_column(raw, revolutions)
        assert bad.tolist() == [False, True, True] and values.iloc[0] == 5.5 and values.iloc[1:].isna().all()
        assert list(reason[1:]) == ["not a finite number"] * 2


# Cells around the edges of "an integer" and "a number" as written in CSV: blanks of every kind Python
# calls whitespace, digits of other scripts, signs, exponents, decimals.
EDGE_CELLS = ["1", " 2 ", "\t3\r", "\x0b4\x0c", "\xa05", "5\u3000", "\u20026\u2028", "7\x1c", "+6", "-7", "8.0", "8.5", "1e3", ".5",
              "5.", "١٢", "٣.٥", "¹", "12\n", "\n12", " ", "x", "1 2", "123456789012345678", "1234567890123456789", "3.000", "0x10"]


@pytest.mark.parametrize("ascii_only", [True, False])
def test_number_cells_are_judged_by_the_contracts_patterns_and_never_crash(ascii_only: bool) -> None:
    import re

    from auditor.loading.coerce import parse_column
    from auditor.schema import TABLES

    # The oracle: the format's integer and number, ASCII digits with any blank Python knows around them,
    # matched by Python's re. Digits of other scripts are bad cells (they ended the audit before).
    oracle = {"int": r"\s*[+-]?[0-9]{1,18}(\.0*)?\s*", "float": r"\s*[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?\s*"}
    cells = [c for c in EDGE_CELLS if c.isascii() or not ascii_only]  # all-ASCII columns take another path in pandas
    columns = {"int": next(c for c in TABLES["cdf_coups"].columns if c.name == "bank_cents"),
               "float": next(c for c in TABLES["wheel_spins"].columns if c.name == "revolutions")}
    for kind, column in columns.items():
        values, bad, _ = parse_column(pd.Series(cells, dtype="str"), column)
        assert bad.tolist() == [re.fullmatch(oracle[kind], c) is None for c in cells], kind
        assert values[~bad].notna().all(), kind  # a cell taken is a value, never a silent null


def test_times_and_dates_in_other_scripts_digits_are_bad_cells(tmp_path: Path) -> None:
    rows = [GOOD.format(n=n).split(",") for n in (1, 2, 3)]
    rows[1][HEADER.split(",").index("ts")] = "٢٠٢٦-03-01T21:02:05+01:00"
    rows[2][HEADER.split(",").index("bank_cents")] = "١٠٠٠٠"
    bundle = load_bundle(_bundle(tmp_path, [",".join(r) for r in rows]))
    assert list(bundle.quarantine["column"]) == ["ts", "bank_cents"] and list(bundle.quarantine["line"]) == [2, 3]


def test_whole_floats_past_int64_in_an_integer_column_are_bad_cells_not_a_crash() -> None:
    from auditor.loading.coerce import parse_column
    from auditor.schema import TABLES

    bank = next(c for c in TABLES["cdf_coups"].columns if c.name == "bank_cents")
    raw = pd.Series([2500.0, 1e308, float("inf"), -float("inf"), 2.0**63, 2.5, float("nan"), -(2.0**63)])
    values, bad, reason = parse_column(raw, bank)
    assert bad.tolist() == [False, True, True, True, True, True, False, False]
    assert values.iloc[0] == 2500 and values.iloc[-1] == -(2**63) and values.iloc[1:7].isna().all()
    assert list(reason[1:6]) == ["an integer beyond the 64-bit range"] * 4 + ["not a whole number"]


@pytest.mark.parametrize("data", [b"", b"a", b"a\nb", b"a\n\nb", b"a\n\r\nb", b"a\r\n\r\nb", b"a\r\nb\r\n", b"a\r\r\nb",
                                  b"a\n\r\r\nb", b"\n\n", b"a\nb\n\n", b"a\nb\n\r\n", b"x" * 5000 + b"\n\n" + b"y",
                                  b"x" * 300 + b"\n\rx\r\n" + b"y" * 300 + b"\r\n\r\n", b"\r\n\r\nx"])
@pytest.mark.parametrize("block", [1, 2, 3, 1 << 24])
def test_a_blank_line_is_found_up_to_the_end_given(data: bytes, block: int, monkeypatch: pytest.MonkeyPatch) -> None:
    from auditor.loading import readers

    monkeypatch.setattr(readers, "_SCAN_BLOCK", block)
    for end in range(len(data) + 1):
        expected = data.find(b"\n\n", 0, end) >= 0 or data.find(b"\n\r\n", 0, end) >= 0
        assert readers._has_blank_line(data, end) == expected, (data[:40], end)


@pytest.mark.parametrize("block", [1, 2, 3, 1 << 24])
def test_a_lone_return_is_found_up_to_the_end_given(block: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A carriage return not followed by a line feed before `end` (one at `end` - 1 included), as
    the expression `\\r(?!\\n)` finds it, across blocks of any size."""
    from auditor.loading import readers

    monkeypatch.setattr(readers, "_SCAN_BLOCK", block)
    rng = np.random.default_rng(block)
    texts = [b"", b"\r", b"\r\n", b"a\rb", b"a\r\nb\r", b"\r\r\n", b"x" * 300 + b"\r\n" * 50 + b"\rx"]
    texts += [rng.choice(np.frombuffer(b"a\r\n", dtype=np.uint8), int(rng.integers(1, 40))).tobytes() for _ in range(60)]
    lone = re.compile(rb"\r(?!\n)")
    for data in texts:
        for end in range(len(data) + 1):
            assert readers._has_lone_return(data, end) == (lone.search(data, 0, end) is not None), (data, end)


@pytest.mark.parametrize("data", [b"", b"\n", b"\r\n\r\n", b"a", b"a\n", b"a\r\n\n", b"a\nb", b"a\n\n" + b"\n" * 5000,
                                  b"\n" * 9000, b"x" * 5000 + b"\r\n", b"x" * 4095 + b"\n", b"\n" * 4095 + b"x" + b"\n" * 4097])
def test_the_end_of_a_text_without_its_line_ends_is_found_without_copying_it(data: bytes) -> None:
    from auditor.loading.readers import _end_of_text

    assert _end_of_text(data) == len(data.rstrip(b"\r\n"))


def test_a_jsonl_integer_beside_a_fraction_keeps_every_digit(tmp_path: Path) -> None:
    """pyarrow types a JSON column holding integers and a fraction as floats, which hold integers
    exactly only up to 2**53: the large amount must come through digit for digit, not one cent off."""
    write_bundle(tmp_path, {"tables": [CDF_TABLE]})
    rows = [json_record(coup(f"C{i}")) for i in (1, 2, 3, 4)]
    rows[0]["bank_cents"] = 2**53 + 1
    rows[1]["bank_cents"] = 1.5
    rows[2]["bank_cents"] = -(2**62) - 1
    rows[3]["bank_cents"] = 1e17  # as in a CSV cell, a float is no integer amount
    (tmp_path / "cdf_coups.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    bundle = load_bundle(tmp_path)
    assert list(bundle.quarantine["line"]) == [2, 3, 4]  # 1.5 and 1e17 are no amounts; -2**62-1 is negative
    assert bundle.frames["cdf_coups"]["bank_cents"].tolist() == [2**53 + 1]


def test_a_jsonl_integer_column_with_a_missing_value_keeps_every_digit(tmp_path: Path) -> None:
    """pyarrow hands pandas an integer column with nulls as floats unless told otherwise."""
    write_bundle(tmp_path, {"tables": [CDF_TABLE]})
    rows = [json_record(coup(f"C{i}")) for i in (1, 2)]
    rows[0]["bank_cents"] = 2**53 + 1
    rows[1]["bank_cents"] = None
    (tmp_path / "cdf_coups.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    bundle = load_bundle(tmp_path)
    assert list(bundle.quarantine["line"]) == [2] and "required" in bundle.quarantine.iloc[0]["reason"]
    assert bundle.frames["cdf_coups"]["bank_cents"].tolist() == [2**53 + 1]


def test_a_jsonl_integer_written_as_a_huge_float_is_quarantined(tmp_path: Path) -> None:
    write_bundle(tmp_path, {"tables": [CDF_TABLE]})
    rows = [json_record(coup(f"C{i}")) for i in (1, 2)]
    rows[1]["bank_cents"] = 1e308
    (tmp_path / "cdf_coups.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    bundle = load_bundle(tmp_path)
    # Read as a CSV cell would be: the number as the file writes it, not as a float prints it.
    assert list(bundle.quarantine["line"]) == [2] and bundle.quarantine.iloc[0]["reason"] == "bank_cents: not an integer of at most 18 digits (1e+308)"


def test_parts_are_ordered_with_numbers_as_numbers() -> None:
    names = ["part-10.parquet", "part-2.parquet", "part-010.parquet", "day=2026-3-10/a.parquet", "day=2026-3-9/a.parquet"]
    assert sorted(names, key=part_order) == ["day=2026-3-9/a.parquet", "day=2026-3-10/a.parquet", "part-2.parquet", "part-010.parquet", "part-10.parquet"]


def test_a_partitioned_table_is_read_in_part_number_order(tmp_path: Path) -> None:
    """Repeated ids (LOG002) are decided in file order: part-2 comes before part-10."""
    (tmp_path / "tables").mkdir()
    row = {"table_id": "T1", "game": "wheel_of_fortune", "min_cents": 100}
    pd.DataFrame([row]).to_parquet(tmp_path / "tables" / "part-10.parquet", index=False)
    pd.DataFrame([row]).to_parquet(tmp_path / "tables" / "part-2.parquet", index=False)
    bundle = load_bundle(tmp_path)
    assert list(bundle.frames["tables"]["_file"].astype(str)) == ["tables/part-2.parquet"]
    assert list(bundle.quarantine["file"]) == ["tables/part-10.parquet"]


@pytest.mark.parametrize("consume", [False, True])
def test_clean_rows_are_copied_a_column_at_a_time_with_every_kind_of_column_kept(consume: bool) -> None:
    frame = pd.DataFrame({
        "id": pd.Series(["a", "b", None, "d"], dtype="str"),
        "n": np.array([1, 2, 3, 4], dtype=np.int64),
        "maybe": pd.array([1, None, 3, None], dtype="Int64"),
        "ts": pd.to_datetime(["2026-03-01T20:00:00Z", None, "2026-03-01T22:00:00Z", "2026-03-01T23:00:00Z"], utc=True),
        "flag": np.array([True, False, True, False]),
        "_file": pd.Categorical.from_codes([0, 1, 1, 0], categories=["a.csv", "b.csv"]),
        "raw": pd.Series([{"x": 1}, "7", None, 2.5], dtype=object),
    }, index=pd.RangeIndex(10, 14))
    expected = frame.take([0, 2, 3]).reset_index(drop=True)
    out = taken(frame, np.array([True, False, True, True]), consume=consume)
    pd.testing.assert_frame_equal(out, expected)
    assert list(frame.columns) == ([] if consume else list(expected.columns))


@pytest.mark.parametrize("dropped", [[0], [4999], [7, 8, 9, 10], [0, 1234, 4999], list(range(2500, 2505)), []])
def test_a_few_rows_dropped_from_many_leave_the_rest_as_they_were(dropped: list[int]) -> None:
    """A few quarantined rows among thousands: text is copied a run of kept rows at a time
    (`frames.without_rows`), the other columns by mask; every column is `frame[keep]`'s, missing
    text included, the first and last rows and runs of dropped rows alike, one chunk or two."""
    n = 5000
    rng = np.random.default_rng(len(dropped))
    ids = [f"B{i:06d}" if i % 7 else None for i in range(n)]
    one = pd.DataFrame({"id": pd.Series(ids, dtype="str"), "n": rng.integers(0, 99, n),
                        "_file": pd.Categorical.from_codes(rng.integers(0, 2, n), categories=["a.csv", "b.csv"])})
    two = pd.concat([one.iloc[:3000], one.iloc[3000:]], ignore_index=True)  # text of two chunks
    for frame in (one, two):
        keep = np.ones(n, dtype=bool)
        keep[dropped] = False
        expected = frame[keep].reset_index(drop=True)
        pd.testing.assert_frame_equal(taken(frame, keep), expected)
        assert taken(frame, keep)["id"].dtype == frame["id"].dtype


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
@pytest.mark.parametrize("tz", [None, "UTC", "Asia/Kolkata"])
def test_times_out_of_range_are_those_pandas_compares_beyond_the_bounds(unit: str, tz: str | None) -> None:
    from auditor.loading.coerce import EARLIEST, LATEST, _out_of_range

    tick = pd.Timedelta(1, unit=unit)
    lo, hi = (EARLIEST.tz_localize(tz), LATEST.tz_localize(tz)) if tz else (EARLIEST, LATEST)
    near = [lo - tick, lo, lo + tick, hi - tick, hi, hi + tick, pd.Timestamp("2026-03-01", tz=tz), None]
    if unit != "ns":  # beyond the years nanoseconds can hold
        near += [pd.Timestamp("1000-01-01", tz=tz).as_unit(unit), pd.Timestamp("3000-01-01", tz=tz).as_unit(unit)]
    values = pd.Series(pd.array([t.as_unit(unit) if t is not None else None for t in near], dtype=f"datetime64[{unit}, {tz}]" if tz else f"datetime64[{unit}]"))
    expected = ((values < lo) | (values > hi)).fillna(False).astype(bool)
    assert _out_of_range(values).tolist() == expected.tolist() and expected.sum() >= 2



def _without_column(path: Path, column: str) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    at = lines[0].split(",").index(column)
    path.write_text("\n".join(",".join(c for i, c in enumerate(line.split(",")) if i != at) for line in lines) + "\n", encoding="utf-8")


def test_a_column_required_for_settled_rows_left_out_quarantines_them_as_empty_cells_would(tmp_path: Path) -> None:
    # Left out of the file, `outcome` is missing from every row: the settled coups cannot be judged
    # (as with the cell empty), the void coup, which needs none, is audited. Once, a rule met the
    # settled rows without it and stopped the audit (exit 2).
    _bundle(tmp_path, [GOOD.format(n=1), GOOD.format(n=2).replace(",settled", ",void"), GOOD.format(n=3)])
    _without_column(tmp_path / "cdf_coups.csv", "outcome")
    bundle = load_bundle(tmp_path)
    assert _reasons(bundle) == {1: "outcome: required value missing", 3: "outcome: required value missing"}
    assert list(bundle.frames["cdf_coups"]["coup_id"]) == ["C2"]
    f = next(x for x in bundle.files if x.name == "cdf_coups.csv")
    assert (f.rows_read, f.rows_audited, f.rows_quarantined, f.error) == (3, 1, 2, None)


def test_an_audit_of_throws_without_their_result_column_runs_to_its_end(tmp_path: Path) -> None:
    bundle = tmp_path / "b"
    shutil.copytree(SAMPLES / "dice-clean", bundle)
    (bundle / "manifest.json").unlink()
    _without_column(bundle / "dice_throws.csv", "result")
    result = CliRunner().invoke(app, ["audit", str(bundle), "--out", str(tmp_path / "o")])
    assert result.exit_code == 1, result.output
    summary = json.loads((tmp_path / "o" / "summary.json").read_text(encoding="utf-8"))
    throws = next(f for f in summary["files"] if f["name"] == "dice_throws.csv")
    assert throws["rows_quarantined"] > 0 and throws["rows_read"] == throws["rows_audited"] + throws["rows_quarantined"]
    assert set(summary["findings"]["by_rule"]) == {"LOG001"}


def test_a_games_rules_started_before_the_load_ends_know_the_rounds_whose_items_were_left_out(tmp_path: Path) -> None:
    # A game's rules start once its own tables are in (`audit_bundle`), before `finish` puts the
    # bundle's quarantine together: what they read of the rows left out must be there already.
    from auditor.loading.bundle import BundleLoad

    c1, c2 = coup("C1"), coup("C2")
    stakes = [stake_row("S1", "C1"), stake_row("S2", "C2", amount="x"), stake_row("S1", "C2")]  # type: ignore[arg-type]
    write_bundle(tmp_path, {"tables": [CDF_TABLE], "cdf_coups": [c1, c2], "cdf_stakes": stakes})
    load = BundleLoad(tmp_path)
    for table in load.order():
        load.install(table, load.load_one(table))
        if table == "cdf_stakes":
            break
    ids, untold = load.bundle.rounds_missing_items("cdf_stakes")
    assert (sorted(ids.to_pylist()), untold) == (["C2", "C2"], False)  # a bad cell, then a repeated id
    assert load.bundle.quarantine.empty  # not yet put together


def _iso_cells(seed: int, n: int) -> list[str]:
    """Text of TS_PATTERN's shape with every part drawn near or past its bounds: years 0000-9999,
    months 00-13, days 00-32, hours 00-24, minutes and seconds 00-60, fractions of 1-9 digits, every
    form of offset (Z, ±hh, ±hhmm, ±hh:mm) up to ±25:60, a T or a space."""
    rng = np.random.default_rng(seed)
    cells = []
    for _ in range(n):
        year = rng.choice([0, 1, 1677, 1678, 1970, 2024, 2026, 2261, 2262, 9999, int(rng.integers(0, 10000))])
        text = f"{year:04d}-{rng.integers(0, 14):02d}-{rng.integers(0, 33):02d}{rng.choice(['T', ' '])}{rng.integers(0, 25):02d}:{rng.integers(0, 61):02d}"
        if rng.random() < 0.8:
            text += f":{rng.integers(0, 61):02d}"
            if rng.random() < 0.4:
                text += "." + "".join(str(d) for d in rng.integers(0, 10, size=int(rng.integers(1, 10))))
        hours, minutes = int(rng.integers(0, 26)), int(rng.integers(0, 61))
        text += str(rng.choice(["Z", f"{rng.choice(['+', '-'])}{hours:02d}", f"+{hours:02d}{minutes:02d}", f"-{hours:02d}:{minutes:02d}"]))
        cells.append(text)
    return cells


@pytest.mark.parametrize("seed", range(4))
def test_times_read_by_arrow_are_those_pandas_reads(seed: int) -> None:
    """A text timestamp column is read by Arrow's ISO 8601 cast, or by pandas' to_datetime when Arrow
    refuses a cell: either way the values, their unit, the bad cells and their reasons are those of
    pandas' reading alone, cell by cell and in columns of cells that Arrow takes whole."""
    import auditor.loading.coerce as coerce

    ts = next(c for c in TABLES["cdf_coups"].columns if c.name == "ts")
    good = "2026-03-01T21:04:05+01:00"
    to_datetime = pd.to_datetime

    def by_pandas(text: pd.Series, ok: pd.Series) -> pd.Series:
        return to_datetime(text.where(ok), format="ISO8601", utc=True, errors="coerce")

    cells = _iso_cells(seed, 400)
    columns = [[c] for c in cells] + [[c, good, None] for c in cells] + [cells, [good, "yesterday", ""], [good, good]]
    by_arrow = 0
    for column in columns:
        raw = pd.Series(column, dtype="str")
        calls: list[int] = []

        def counted(*args: object, **kwargs: object) -> object:
            calls.append(1)
            return to_datetime(*args, **kwargs)  # type: ignore[call-overload]

        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(pd, "to_datetime", counted)
            values, bad, reason = coerce.parse_column(raw, ts)
        by_arrow += not calls
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(coerce, "_iso_times", by_pandas)
            ref_values, ref_bad, ref_reason = coerce.parse_column(raw, ts)
        assert values.dtype == ref_values.dtype, column
        pd.testing.assert_series_equal(values, ref_values)
        assert bad.tolist() == ref_bad.tolist(), column
        assert np.array_equal(np.asarray(reason, dtype=object), np.asarray(ref_reason, dtype=object)), column
    assert by_arrow >= 100  # Arrow read these columns whole: its reading, not pandas', was compared


def _shaped(rng: np.random.Generator, shape: str, n: int) -> list[str]:
    """`n` cells of `shape`, each of its digits ("9") drawn at random."""
    return ["".join(str(rng.integers(0, 10)) if ch == "9" else ch for ch in shape) for _ in range(n)]


def _null_slots_holding_bytes(cells: list[str]) -> pa.Array:
    """`cells` with a null after each, whose slot holds bytes (Arrow allows it; the quick tests must
    not read them as cells)."""
    data, offsets, valid = b"", [0], []
    for cell in cells:
        for text, ok in ((cell, True), ("77", False)):
            data += text.encode()
            offsets.append(len(data))
            valid.append(ok)
    validity = pa.array(valid).buffers()[1]
    return pa.Array.from_buffers(pa.large_string(), len(valid), [validity, pa.py_buffer(np.array(offsets, dtype=np.int64).tobytes()), pa.py_buffer(data)], null_count=len(cells))


@pytest.mark.parametrize("seed", range(3))
def test_the_quick_tests_of_cells_answer_as_the_expression_does(seed: int) -> None:
    """Integers of digits alone and times or dates of one shape are told without the regular
    expression (`_surely_matching`); whatever the column, which cells match is what the expression
    says, cell by cell: columns of one shape, each odd cell among them, random mixes, nulls, null
    slots holding bytes, nothing present."""
    import auditor.loading.coerce as coerce
    from auditor.frames import arrow

    rng = np.random.default_rng(seed)
    odd = ["", " ", "-", "+1", "-1", "--1", "1-", " 1", "1 ", "0x1", "1e3", "1.0", "١٢", "\uff11", "²", "7\n", "a",
           "123456789012345678", "1234567890123456789", "-123456789012345678", "2026-03-01", "2026-03-01T21:04:05Z",
           "2026-03-01 21:04:05+01:00", "2026-03-01T21:04Z", "2026-3-01", "2026-03-01T21:04:05.123456Z", "２０２６-03-01"]
    # Shapes that match, then of one width but not matching (their cells are told by the expression).
    shapes = {
        coerce.PLAIN_INT: ["9", "99999", "999999999999999999", "0009", "-99", "9.9"],
        coerce.TS_PATTERN: ["9999-99-99T99:99:99Z", "9999-99-99 99:99:99.999999+99:99", "9999-99-99T99:99-9999", "9999-99-99T99:99:99+99",
                            "9999-99-99T99:99:99", "9999-99-99X99:99Z"],
        coerce.TS_NO_OFFSET: ["9999-99-99T99:99:99", "9999-99-99 99:99", "9999-99-99T99:99:99Z"],
        coerce.DATE_PATTERN: ["9999-99-99", "9999/99/99", "99-99-9999"],
    }
    for pattern, kinds in shapes.items():
        columns: list[list[str | None]] = []
        for shape in kinds:
            well = _shaped(rng, shape, 50)
            columns += [well, [*well, None], [None, *well]]
            columns += [[*well[:20], cell, *well[20:]] for cell in odd]
            columns += [[cell, *well] for cell in odd]
            # Of the same width, a digit's place holding another character ("/" and ":" lie either side of the digits).
            at = shape.index("9")
            columns += [[*well[:30], well[0][:at] + ch + well[0][at + 1 :], *well[30:]] for ch in "x/:"]
        columns += [list(rng.choice(odd, size=30)) for _ in range(20)] + [[None, None], []]
        quick = 0
        for cells_of in columns:
            text = pd.Series(cells_of, dtype="str")
            expected = text.str.fullmatch(pattern).fillna(False).astype(bool)
            assert coerce._fullmatch(text, pattern).tolist() == expected.tolist(), (pattern, cells_of)
            sure = coerce._surely_matching(arrow(text), pattern) if len(text) else None
            quick += bool(sure is not None and expected.any() and (sure == expected.to_numpy()).all())
        matching = sum(bool(re.fullmatch(pattern, shape)) for shape in kinds)
        assert quick >= 3 * matching  # the well-written columns were answered by the quick test alone
        for shape in kinds:
            slots = pd.Series(pd.arrays.ArrowStringArray(_null_slots_holding_bytes(_shaped(rng, shape, 30))))
            expected = slots.str.fullmatch(pattern).fillna(False).astype(bool)
            assert coerce._fullmatch(slots, pattern).tolist() == expected.tolist(), (pattern, shape)


@pytest.mark.parametrize("seed", range(4))
def test_hands_told_by_their_bytes_match_as_the_expression_does(seed: int) -> None:
    """Cards are told from each cell's first eight bytes (`_card_hands`), not by the expression: the
    cells that match are the expression's, cell by cell (hands of two and three cards, each byte
    of them replaced, cut short or run on, non-ASCII, random text, a hand as the column's last
    cell), in a column sliced anywhere, with nulls, and with null slots holding a lawful hand."""
    import auditor.loading.coerce as coerce
    from auditor.frames import arrow

    rng = np.random.default_rng(seed)
    ranks, suits = "A23456789TJQK", "SHDC"
    others = list("AKS 9TC2HD") + ["a", "s", "1", "0", "X", "é", "\x00", "\n", "\t", "10"]

    def hand(cards: int) -> str:
        return " ".join(rng.choice(list(ranks)) + rng.choice(list(suits)) for _ in range(cards))

    cells: list[str] = []
    for _ in range(150):
        good = hand(int(rng.integers(2, 4)))
        at = int(rng.integers(0, len(good)))
        cells += [good, good[:at] + str(rng.choice(others)) + good[at + 1:], good[:at], good + str(rng.choice(others)),
                  " " + good, good + " " + hand(1), hand(1), hand(4), "".join(rng.choice(others, size=int(rng.integers(0, 10))))]
    cells += ["AS KS", "AS  KS", "AS KS ", "ASKS", "AS\tKS", "1S KS", "AS KX", "as ks", "AS KS QS", "AS KS QS JS", "ÀS KS"]
    for column in (cells, cells[::-1], [*cells, "TC 5D"], ["9S 8H"]):
        text = pd.Series(column, dtype="str")
        expected = text.str.fullmatch(coerce.CARD_PATTERN).to_numpy(dtype=bool)
        assert 0 < expected.sum() < len(column) or len(column) == 1
        assert coerce._card_hands(arrow(text)).tolist() == expected.tolist()
        assert coerce._fullmatch(text, coerce.CARD_PATTERN).tolist() == expected.tolist()
        for start in (1, 5, 8, len(column) - 1):  # a slice: its first cell's bytes lie past the buffer's start
            assert coerce._card_hands(arrow(text).slice(start)).tolist() == expected[start:].tolist()
    with_nulls = pd.Series([None, *cells[:40], None], dtype="str")
    expected = with_nulls.str.fullmatch(coerce.CARD_PATTERN).fillna(False).to_numpy(dtype=bool)
    assert coerce._fullmatch(with_nulls, coerce.CARD_PATTERN).tolist() == expected.tolist()
    data, offsets, valid = b"", [0], []
    for cell in cells[:40]:
        for value, ok in ((cell, True), ("AS KS", False)):
            data += value.encode()
            offsets.append(len(data))
            valid.append(ok)
    slots = pa.Array.from_buffers(pa.large_string(), len(valid), [pa.array(valid).buffers()[1], pa.py_buffer(np.array(offsets, dtype=np.int64).tobytes()),
                                  pa.py_buffer(data)], null_count=40)
    sure = coerce._card_hands(slots)
    assert not sure[1::2].any()  # a null is no hand, whatever its slot holds
    assert sure[::2].tolist() == pd.Series(cells[:40], dtype="str").str.fullmatch(coerce.CARD_PATTERN).tolist()


_CELLS = {
    "int": ["0", "7", "-7", "007", "+7", " 7", "7 ", "7.0", "7.5", "1e3", "123456789012345678", "1234567890123456789", "-", "", "\xa07", "٧"],
    "bool": ["true", "false", "1", "0", "True", "FALSE", " true", "false ", "yes", "", "2", "tru"],
    "timestamp": ["2026-03-01T21:04:05+01:00", " 2026-03-01T21:04:05Z", "2026-03-01T21:04:05Z ", "2026-03-01 21:04Z",
                  "2026-02-30T00:00:00Z", "2026-03-01T21:04:05", "yesterday", "", "2026-03-01T21:04:05.123456789Z"],
}


@pytest.mark.parametrize("kind", sorted(_CELLS))
def test_a_column_written_as_the_format_writes_it_is_typed_as_the_stripped_reading_types_it(kind: str) -> None:
    """Integers, booleans and times that need no stripping nor rewriting are cast as they are, without
    the copies the careful reading makes: the values, the bad cells and their reasons are the same
    as the careful reading's, for columns of well-written cells alone (which take the short way) and
    of each cell beside them (which take the careful one)."""
    import auditor.loading.coerce as coerce

    column = next(c for t in TABLES.values() for c in t.columns if c.type == kind)
    rng = np.random.default_rng(7)
    cells = _CELLS[kind]
    columns = [[c, None] for c in cells] + [list(rng.choice(cells, size=20)) for _ in range(50)] + [[cells[0], None, cells[1]]]
    for cells_of in columns:
        raw = pd.Series(cells_of, dtype="str")
        values, bad, reason = coerce.parse_column(raw, column)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(coerce, "_every_cell", lambda ok, text: False)
            ref_values, ref_bad, ref_reason = coerce.parse_column(raw, column)
        pd.testing.assert_series_equal(values, ref_values)
        assert bad.tolist() == ref_bad.tolist(), cells_of
        assert _bad_reasons(reason, bad) == _bad_reasons(ref_reason, ref_bad), cells_of


def _bad_reasons(reason: object, bad: pd.Series) -> list[str]:
    """The reason given for each bad cell: one for them all, or one a cell."""
    at = bad.to_numpy(dtype=bool)
    return [str(reason)] * int(at.sum()) if isinstance(reason, str) else [str(r) for r in np.asarray(reason, dtype=object)[at]]


@pytest.mark.parametrize("scan", [1, 3, 1 << 20])
@pytest.mark.parametrize("block", [1, 2, 3, 5, 64 << 20])
def test_a_text_file_is_shaped_a_block_at_a_time_as_it_is_whole(tmp_path: Path, block: int, scan: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the JSONL reader asks of a text before pyarrow reads it from its file (its end, lines,
    lines that are blank or not objects, first byte, byte-order mark) is found a block at a time as
    in the text held whole, lines across two blocks included, whatever the blocks numpy scans."""
    from auditor.loading import readers
    from auditor.loading.readers import _end_of_text, _text_shape, _unfit_lines

    monkeypatch.setattr(readers, "_TEXT_BLOCK", scan)

    texts = [b"", b"\n", b"a", b"a\n", b"a\nb", b"a\n\nb", b"a\n\r\nb", b"a\r\n\r\nb", b"ab\ncd\r\n", b"\nab", b" ab\n",
             b"\xef\xbb\xbf{}\n", b"{}\n{}\n\n\n", b"{}\r\n{}\r\n", b"a\r\nb\n\n", b"ab\n\r\n", b"x" * 70 + b"\n\n" + b"y" * 3,
             b"a" + b"\n" * 5000, b"\n" * 5000, b"{}\n{}\n\n{}", b"{}\n  \n{}", b"{}\n \t", b"{}\n" + b" " * 70 + b"\n{}\n",
             b"{}\n{}\r\n\r\n{}", b"{}\n {}\n{}", b"{}\n" * 40 + b"{}", b"{}\n" * 40 + b"x\n{}", b"{}\n" * 40 + b"\n{}\n{}"]
    for n, text in enumerate(texts):
        path = tmp_path / f"t{n}.jsonl"
        path.write_bytes(text)
        shape = _text_shape(path, block)
        if len(text) > 4096 and not text[-4096:].rstrip(b"\r\n"):  # its end is looked for in memory instead
            assert shape is None, text[:20]
            continue
        assert shape is not None, text[:20]
        end = _end_of_text(text)
        assert (shape.end, shape.lines, shape.starts_blank, shape.bom) == (
            end, text.count(b"\n", 0, end) + 1, text[:1].isspace(), text.startswith(b"\xef\xbb\xbf")), text[:20]
        unfit = _unfit_lines(text, end) or not text.startswith(b"{")
        # Never missed; a line beginning with blanks across two blocks may be taken for an unfit one.
        assert shape.unfit_lines == unfit if block > len(text) else shape.unfit_lines or not unfit, text[:20]


# Cells a system may write where the format has another kind, or that a reader may take for
# something else: pyarrow's CSV reader took "NA" and "null" for missing values until fd9e7d1.
ODD_CELLS = ["NA", "null", "NaN", "nan", "N/A", "#N/A", " 5 ", "5.0", "5.5", "1e400", "-1e400", "-0", "+7", "0x10", "١٢", "true", "TRUE",
             " false", "1", "0", "2026-03-01T21:04:05", "2026-03-01T21:04:05Z", "2026-03-01 21:04:05+01:00", "2026-03-01", "x",
             "Infinity", "9" * 19, "-9223372036854775808", "\u00a05", "é", "a,b", 'q"q', "\t", "  "]


@pytest.fixture(scope="module")
def simulated_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from auditor.simulate import simulate

    out = tmp_path_factory.mktemp("simulated") / "bundle"
    simulate(out, seed=11, rounds=40, fmt="csv", plant_rate=0.0)
    return out


@pytest.mark.parametrize("seed", range(12))
def test_the_same_cells_read_the_same_in_csv_jsonl_and_parquet(tmp_path: Path, simulated_csv: Path, seed: int) -> None:
    """A table's cells, some replaced by odd ones, written as CSV, as JSONL strings and as Parquet
    strings: the same rows, the same values, the same quarantined lines with the same reasons."""
    rng = np.random.default_rng(seed)
    names = sorted(p.stem for p in simulated_csv.glob("*.csv"))
    name = names[seed % len(names)]
    with (simulated_csv / f"{name}.csv").open(newline="", encoding="utf-8") as fh:
        header, *rows = list(csv.reader(fh))
    body: list[list[str | None]] = [[c if c != "" else None for c in row] for row in rows]
    for _ in range(int(rng.integers(1, 8))):
        body[int(rng.integers(0, len(body)))][int(rng.integers(0, len(header)))] = ODD_CELLS[int(rng.integers(0, len(ODD_CELLS)))]
    readings = []
    for fmt in ("csv", "jsonl", "parquet"):
        bundle = tmp_path / fmt
        bundle.mkdir()
        path = bundle / f"{name}.{fmt}"
        if fmt == "csv":
            with path.open("w", newline="", encoding="utf-8") as fh:
                csv.writer(fh, lineterminator="\n").writerows([header, *[["" if v is None else v for v in row] for row in body]])
        elif fmt == "jsonl":
            path.write_text("".join(json.dumps(dict(zip(header, row, strict=True)), ensure_ascii=False) + "\n" for row in body), encoding="utf-8")
        else:
            pq.write_table(pa.table({h: pa.array([row[i] for row in body], pa.string()) for i, h in enumerate(header)}), path)
        loaded = load_bundle(bundle)
        q = loaded.quarantine
        frame = loaded.frames[name].drop(columns=["_file"]).astype(object) if name in loaded.frames else pd.DataFrame()
        counts = [(f.rows_read, f.rows_audited, f.rows_quarantined, f.error) for f in loaded.files]
        readings.append((sorted(zip(q["line"], q["reason"], strict=True)), frame.where(frame.notna(), None).values.tolist(), counts))
    assert readings[0] == readings[1] == readings[2]


@pytest.mark.parametrize("rows", [3, 40])
def test_a_cell_held_as_codes_digests_as_its_text(rows: int) -> None:
    """A repeat is told from its first row by digests of their cells (LOG002, `row_digests`): an id
    read as categories (a Parquet dictionary) must digest as the same id read as text, missing as
    missing, whether the rows are fewer than the categories (their own text digested) or more."""
    from auditor.loading.bundle import _cell_digests

    names = [f"P{i:04d}" for i in range(20)]
    codes = np.random.default_rng(rows).integers(-1, len(names), rows)
    held = pd.Series(pd.Categorical.from_codes(codes, categories=names))
    text = pd.Series([names[c] if c >= 0 else None for c in codes], dtype="str")
    assert list(_cell_digests(held)) == list(_cell_digests(text))
    assert len(set(_cell_digests(held)[codes >= 0])) == len(set(codes[codes >= 0]))


def test_items_are_split_from_rounds_however_few_the_rounds() -> None:
    """`split_items` with an ambiguous round id (one on two differing rows): its items are set
    aside with the orphans; with no round at all, every item is (a round table all quarantined)."""
    from auditor.loading.bundle import split_items

    keys = pd.Series(["R1", "R2", "R3", None, "R2"], dtype="str")
    keep = np.array([True, True, True, True, False])
    kept, aside, at = split_items(keys, keep, pd.Series(["R2", "R1"], dtype="str"), pa.array(["R2"], pa.large_string()))
    assert list(kept) == [True, False, False, False, False] and list(aside) == [False, True, True, True, False] and list(at) == [1]
    kept, aside, at = split_items(keys, keep, pd.Series([], dtype="str"), pa.array(["R2"], pa.large_string()))
    assert not kept.any() and list(aside) == list(keep) and len(at) == 0


def test_parquet_dates_are_typed_as_csv_dates_and_one_past_year_9999_is_a_bad_cell(tmp_path: Path) -> None:
    """Arrow holds dates Python cannot (past year 9999): one such birth date used to make the whole
    file unreadable ("year 10000 is out of range"); it is a bad cell of its row, the others read."""
    days = pa.array([20_000, 2_932_897 + 9, None, 0], type=pa.int32()).cast(pa.date32())  # 2024-10-04, 10000-01-10
    entries = pa.table({
        "tournament_id": ["TR1"] * 4, "player_id": ["P1", "P2", "P3", "P4"], "birth_date": days,
        "excluded": [False] * 4, "registered": [True] * 4,
    })
    pq.write_table(entries, tmp_path / "tournament_entries.parquet")
    bundle = load_bundle(tmp_path)
    assert _reasons(bundle) == {2: "birth_date: not a date YYYY-MM-DD (10000-01-10)", 3: "birth_date: required value missing"}
    kept = bundle.frames["tournament_entries"]
    assert list(kept["player_id"]) == ["P1", "P4"]
    assert list(kept["birth_date"]) == [pd.Timestamp("2024-10-04"), pd.Timestamp("1970-01-01")]


@pytest.mark.parametrize("kind", ["struct", "list", "struct of times"])
def test_a_parquet_structure_holding_a_date_past_year_9999_is_a_bad_cell_not_an_unreadable_file(tmp_path: Path, kind: str) -> None:
    """pandas makes a Python object of each value in a structure, which cannot hold what Arrow's
    can: the whole file was unreadable. The structure is one bad cell (it is no value)."""
    far = pa.array([2_932_906, 20_000], type=pa.int32()).cast(pa.date32())
    if kind == "struct of times":
        far = pa.array([2**62, 0], type=pa.int64()).cast(pa.timestamp("us"))  # year 148108
    held = pa.ListArray.from_arrays(pa.array([0, 1, 2], pa.int32()), far) if kind == "list" else pa.StructArray.from_arrays([far], names=["d"])
    _coups_parquet(tmp_path, lambda t: ("player_id", held))
    bundle = load_bundle(tmp_path)
    assert sorted(_reasons(bundle)) == [1, 2] and all("structure" in r for r in _reasons(bundle).values())
    assert not bundle.files[0].error


def test_a_parquet_file_whose_rows_cannot_be_converted_counts_them_quarantined(tmp_path: Path) -> None:
    """Its footer says how many rows it holds: they are read (as the footer counts them) and
    quarantined, so that the summary's counts reconcile (read = audited + quarantined)."""
    _coups_parquet(tmp_path, lambda t: ("ts", pa.array([0, 1], pa.int64()).cast(pa.timestamp("us", tz="Mars/Olympus"))))
    bundle = load_bundle(tmp_path)
    source = next(f for f in bundle.files if f.table == "cdf_coups")
    assert source.error and "zoneinfo" in source.error
    assert (source.rows_read, source.rows_quarantined) == (2, 2)
    assert "(2 rows quarantined)" in bundle.quarantine.iloc[0]["reason"]


_FAR_DAYS = pa.array([2_932_906, 20_000], type=pa.int32()).cast(pa.date32())  # 10000-01-10, 2024-10-04
_FAR_TIMES = pa.array([2**62, 0], type=pa.int64()).cast(pa.timestamp("us"))  # year 148108, 1970
_ARROW_CELLS: dict[str, pa.Array] = {
    "date32": _FAR_DAYS,
    "date64": pa.array([253_402_300_800_000 + 86_400_000, 0], type=pa.int64()).cast(pa.date64()),
    "dictionary of dates": pa.DictionaryArray.from_arrays(pa.array([0, 1], pa.int32()), _FAR_DAYS),
    "timestamp": _FAR_TIMES,
    "duration": pa.array([2**62, 1], type=pa.duration("s")),
    "time of day": pa.array([1, 2], type=pa.int64()).cast(pa.time64("us")),
    "decimal": pa.array([Decimal("1.5"), Decimal("1e30")], type=pa.decimal128(38, 1)),
    "half float": pa.array([1.0, 2.5], type=pa.float64()).cast(pa.float16()),
    "struct of a date": pa.StructArray.from_arrays([_FAR_DAYS], names=["d"]),
    "struct of a time": pa.StructArray.from_arrays([_FAR_TIMES], names=["t"]),
    "list of dates": pa.ListArray.from_arrays(pa.array([0, 1, 2], pa.int32()), _FAR_DAYS),
    "large list of times": pa.LargeListArray.from_arrays(pa.array([0, 1, 2], pa.int64()), _FAR_TIMES),
    "map to dates": pa.MapArray.from_arrays(pa.array([0, 1, 2], pa.int32()), pa.array(["k", "k"]), _FAR_DAYS),
}


@pytest.mark.parametrize("column", ["player_id", "birth_date"])
@pytest.mark.parametrize("kind", list(_ARROW_CELLS))
def test_any_arrow_type_in_a_parquet_column_is_a_value_or_a_bad_cell_never_an_unreadable_file(tmp_path: Path, kind: str, column: str) -> None:
    """Each kind of cell Parquet can hold, Python's own types cannot always (a date past 9999, a time
    in year 148108): written where the format has text (an id) or a date, every row is either read
    or quarantined as a bad cell of its own, and the file's rows are counted."""
    entries = pa.table({
        "tournament_id": ["TR1", "TR1"], "player_id": ["P1", "P2"],
        "birth_date": pa.array([7_000, 8_000], pa.int32()).cast(pa.date32()), "excluded": [False, False], "registered": [True, True],
    })
    at = entries.schema.get_field_index(column)
    pq.write_table(entries.set_column(at, column, _ARROW_CELLS[kind]), tmp_path / "tournament_entries.parquet")
    bundle = load_bundle(tmp_path)
    source = next(f for f in bundle.files if f.table == "tournament_entries")
    assert source.error is None
    assert source.rows_read == 2 and source.rows_read == source.rows_audited + source.rows_quarantined
    assert len(bundle.frames.get("tournament_entries", [])) + len(bundle.quarantine) == 2


def test_parquet_dictionaries_of_small_codes_differing_by_row_group_are_read_whole(tmp_path: Path) -> None:
    """A file whose stored Arrow schema holds a text column as a dictionary of int8 codes (as pyarrow
    writes a pandas Categorical), each row group with a dictionary of its own, fewer than 128 names
    each but more in all: every row's value read as written, and no row quarantined but those the
    sample's own file has. Arrow's dictionary unifier refuses such codes as they are ("requires a
    larger index type"): unwidened, the whole file was unreadable."""
    bundle = tmp_path / "month"
    shutil.copytree(SAMPLES / "casino-month", bundle)
    path = bundle / "wheel_bets.parquet"
    table = pq.read_table(path)
    players = table.column("player_id").combine_chunks()
    chunks = []
    for start in range(0, len(players), 100):
        coded = players.slice(start, 100).dictionary_encode()
        chunks.append(pa.DictionaryArray.from_arrays(coded.indices.cast(pa.int8()), coded.dictionary))
    assert len(pc.unique(players)) > 127 and all(len(c.dictionary) < 128 for c in chunks)
    table = table.set_column(table.schema.get_field_index("player_id"), pa.field("player_id", chunks[0].type), pa.chunked_array(chunks))
    pq.write_table(table, path, row_group_size=100)
    assert pq.read_table(path).column("player_id").type.index_type == pa.int8()  # as written
    loaded, original = load_bundle(bundle), load_bundle(SAMPLES / "casino-month")
    bets = [q[q["table"] == "wheel_bets"].reset_index(drop=True) for q in (loaded.quarantine, original.quarantine)]
    pd.testing.assert_frame_equal(*bets)
    got, want = loaded.frames["wheel_bets"], original.frames["wheel_bets"]
    assert got["player_id"].astype(str).tolist() == want["player_id"].astype(str).tolist()


@pytest.mark.parametrize("size", [0, 1, (1 << 20) - 1, 1 << 20, (1 << 20) + 1, 3 * (1 << 20) + 7])
def test_a_files_digest_is_the_sha256_of_all_its_bytes_across_chunk_edges(tmp_path: Path, size: int) -> None:
    # Read a chunk (1 MiB) at a time into one buffer: the last, short chunk counts only its own bytes.
    data = np.random.default_rng(size).integers(0, 256, size, dtype=np.uint8).tobytes()
    path = tmp_path / "t.parquet"
    path.write_bytes(data)
    assert sha256_of(path) == hashlib.sha256(data).hexdigest()


def test_the_load_marks_the_ids_of_a_table_read_in_increasing_order_and_only_those(tmp_path: Path) -> None:
    """The rows kept of ids each above the one before are marked (`note_rising`): a table's ids in
    order, or in order but for a row repeated (LOG002) and let go; a table whose kept ids fall
    anywhere is not."""
    from auditor import frames

    def marked(frame: pd.DataFrame, column: str) -> bool:
        source = frames._arrow_source(frame[column])
        return source is not None and frames._recalled(frames._RISING, source) == (True, True)

    rising = tmp_path / "rising"
    write_bundle(rising, {"tables": [CDF_TABLE], "cdf_coups": [coup(coup_id=f"C{i}", coup_no=i) for i in range(1, 6)]})
    bundle = load_bundle(rising)
    assert marked(bundle.frames["cdf_coups"], "coup_id")
    falling = tmp_path / "falling"
    write_bundle(falling, {"tables": [CDF_TABLE], "cdf_coups": [coup(coup_id=f"C{9 - i}", coup_no=i) for i in range(1, 6)]})
    assert not marked(load_bundle(falling).frames["cdf_coups"], "coup_id")
    repeated = tmp_path / "repeated"
    # Ids of one width, a fall in 32 rows at most (`later_occurrences`): "C10" after "C09".
    numbers = list(range(10, 50))
    write_bundle(repeated, {"tables": [CDF_TABLE], "cdf_coups": [coup(coup_id=f"C{i}", coup_no=i) for i in [*numbers[:5], 14, *numbers[5:]]]})
    kept = load_bundle(repeated).frames["cdf_coups"]
    assert kept["coup_id"].tolist() == [f"C{i}" for i in numbers] and marked(kept, "coup_id")
    late = tmp_path / "late"
    write_bundle(late, {"tables": [CDF_TABLE], "cdf_coups": [coup(coup_id=f"C{i}", coup_no=i) for i in [*numbers[:5], 16, *numbers[5:6], *numbers[7:]]]})
    kept = load_bundle(late).frames["cdf_coups"]
    assert kept["coup_id"].tolist()[5:7] == ["C16", "C15"] and not marked(kept, "coup_id")
