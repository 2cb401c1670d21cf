"""The broken samples written again in other forms the log format allows (../shared/spec/log-format.md),
audited end to end through the command line: the same findings, the same rows read and the same
figures. The casinos' systems will not write their logs as the simulator does; a bundle that follows
the format is audited the same whatever its file kind, column order, integer width, time zone,
encoding of text or order of rows.

The column types below are the format's, written out from the spec here, not taken from the
auditor's own schema: a type the auditor got wrong would otherwise be written the same wrong way.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers import SAMPLES
from typer.testing import CliRunner

from auditor.cli import app


# The format's columns by type (log-format.md); every column named *_cents is an integer too.
INTEGERS = {"coup_no", "players_seated", "banker_seat", "seat", "slot", "stop_slot", "die1", "die2", "die3", "collect_seq", "paid_seq"}
FLOATS = {"revolutions", "edge_mm"}
BOOLEANS = {"bank_unlimited", "third_face_up", "stop_card", "on_pivot", "obstructed", "stake_returned", "touched_before_announce",
            "collected", "opposite_faces_sum_7", "same_colour", "numbered", "external_authorised", "excluded", "registered"}
DATES = {"birth_date", "starts_on", "notified_on", "authorised_from", "authorised_to"}
TIMES = {"ts", "ts_open", "ts_no_more_bets", "ts_stop", "ts_settled", "ts_placed", "ts_withdrawn"}

Tables = dict[str, pd.DataFrame]  # each sample table's cells as its CSV holds them ("" = null)


def _is_integer(column: str) -> bool:
    return column.endswith("_cents") or column in INTEGERS


def sample_tables(name: str) -> Tables:
    return {f.stem: pd.read_csv(f, dtype=str, keep_default_na=False) for f in sorted((SAMPLES / name).glob("*.csv"))}


def _other_offset(text: str, row: int) -> str:
    """The same instant written with another of the offsets ISO 8601 allows, by row: Z, +05:30,
    Andorra's own with microseconds, -05:00 (New York)."""
    if not text:
        return text
    t = pd.Timestamp(text)
    kind = row % 4
    if kind == 0:
        return t.tz_convert("UTC").strftime("%Y-%m-%dT%H:%M:%SZ")
    if kind == 1:
        return t.tz_convert("Asia/Kolkata").isoformat()
    if kind == 2:
        return t.tz_convert("Europe/Andorra").isoformat(timespec="microseconds")
    return t.tz_convert("America/New_York").isoformat()


def write_quirky_csv(tables: Tables, out: Path) -> None:
    """CSV with a byte-order mark and CRLF lines, its columns in reverse order, a column the format
    does not list (holding commas and quotes), booleans as 1/0 and times at other offsets."""
    for name, df in tables.items():
        df = df[list(reversed(df.columns))].copy()
        df["note_from_the_pit"] = 'a, "quoted" note'
        for column in df.columns:
            if column in BOOLEANS:
                df[column] = df[column].map({"true": "1", "false": "0", "": ""})
            elif column in TIMES:
                df[column] = [_other_offset(v, i) for i, v in enumerate(df[column])]
        (out / f"{name}.csv").write_bytes(b"\xef\xbb\xbf" + df.to_csv(index=False, lineterminator="\r\n").encode("utf-8"))


def _json_value(column: str, text: str) -> object:
    if column in BOOLEANS:
        return text == "true"
    if _is_integer(column):
        return int(text)
    if column in FLOATS:
        return float(text)
    return text


def write_gzipped_jsonl(tables: Tables, out: Path) -> None:
    """JSONL, gzipped: numbers and booleans as JSON's own, a null cell left out on one row and
    written null on the next."""
    for name, df in tables.items():
        lines = []
        for i, row in enumerate(df.to_dict(orient="records")):
            record = {k: (None if v == "" else _json_value(k, v)) for k, v in row.items() if v != "" or i % 2}
            lines.append(json.dumps(record, ensure_ascii=False))
        (out / f"{name}.jsonl.gz").write_bytes(gzip.compress(("\n".join(lines) + "\n").encode("utf-8")))


def _arrow_column(column: str, cells: pd.Series, time_type: pa.DataType) -> pa.Array:
    values = [None if v == "" else v for v in cells]
    if _is_integer(column):
        return pa.array([None if v is None else int(v) for v in values], type=pa.int32())
    if column in FLOATS:
        return pa.array([None if v is None else float(v) for v in values], type=pa.float32() if column == "edge_mm" else pa.float64())
    if column in BOOLEANS:
        return pa.array([None if v is None else v == "true" for v in values], type=pa.bool_())
    if column in TIMES:
        return pa.array([None if v is None else pd.Timestamp(v) for v in values], type=time_type)
    if column in DATES:
        return pa.array([None if v is None else pd.Timestamp(v).date() for v in values], type=pa.date32())
    return pa.array(values, type=pa.string()).dictionary_encode()


def write_narrow_parquet(tables: Tables, out: Path) -> None:
    """Parquet as another writer might make it: 32-bit integers, times in milliseconds in
    Andorra's zone, text dictionary-encoded, the rows shuffled and in three row groups."""
    shuffle = random.Random(455)
    for name, df in tables.items():
        table = pa.table({c: _arrow_column(c, df[c], pa.timestamp("ms", tz="Europe/Andorra")) for c in df.columns})
        table = table.take(pa.array(shuffle.sample(range(table.num_rows), table.num_rows)))
        pq.write_table(table, out / f"{name}.parquet", row_group_size=max(1, -(-table.num_rows // 3)))


def write_partitioned_parquet(tables: Tables, out: Path) -> None:
    """Each table a directory of Parquet parts (the first half of its rows and the rest), times in
    nanoseconds, UTC."""
    for name, df in tables.items():
        table = pa.table({c: _arrow_column(c, df[c], pa.timestamp("ns", tz="UTC")) for c in df.columns})
        (out / name).mkdir()
        half = table.num_rows // 2
        pq.write_table(table.slice(0, half), out / name / "part-0.parquet")
        pq.write_table(table.slice(half), out / name / "part-1.parquet")


FORMS: dict[str, Callable[[Tables, Path], None]] = {
    "quirky-csv": write_quirky_csv,
    "gzipped-jsonl": write_gzipped_jsonl,
    "narrow-parquet": write_narrow_parquet,
    "partitioned-parquet": write_partitioned_parquet,
}


def write_form(name: str, form: str, out: Path) -> Path:
    """The sample `name` written in `form` to `out`, with its manifest's period and the digests of the
    files written (a partitioned table's parts are not listed: the manifest's digests are optional)."""
    out.mkdir(parents=True)
    FORMS[form](sample_tables(name), out)
    manifest = json.loads((SAMPLES / name / "manifest.json").read_text(encoding="utf-8"))
    manifest["files"] = {f.name: "sha256:" + hashlib.sha256(f.read_bytes()).hexdigest() for f in sorted(out.iterdir()) if f.is_file()}
    (out / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return out


Audit = tuple[Counter, dict[str, object]]  # an audit's findings (less where in a file) and its summary


def audited(bundle: Path, out: Path, *options: str) -> Audit:
    """The audit's findings, all but where in a file each was found, and its summary."""
    result = CliRunner().invoke(app, ["audit", str(bundle), "--out", str(out), "--format", "jsonl", *options])
    assert result.exit_code in (0, 1), result.output
    records = [json.loads(line) for line in (out / "violations.jsonl").read_text(encoding="utf-8").splitlines()]
    found = Counter(tuple((k, json.dumps(v)) for k, v in r.items() if k != "source") for r in records)
    return found, json.loads((out / "summary.json").read_text(encoding="utf-8"))


BROKEN = ["chemin-de-fer-broken", "wheel-broken", "dice-broken", "tournaments-broken"]


@pytest.fixture(scope="module")
def original(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Audit]:
    """Each broken sample's own audit, run once for every form it is compared with."""

    @functools.cache
    def audit(name: str) -> Audit:
        found, summary = audited(SAMPLES / name, tmp_path_factory.mktemp(name))
        assert found, "the broken sample has findings to compare"
        return found, summary

    return audit


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("name", BROKEN)
def test_a_sample_in_another_form_of_the_format_gives_the_same_findings(tmp_path: Path, original: Callable[[str], Audit], name: str, form: str) -> None:
    expected, summary = original(name)
    found, other = audited(write_form(name, form, tmp_path / form), tmp_path / "out")
    assert found == expected, (f"only in the original: {list((expected - found).elements())[:3]}; "
                               f"only in {form}: {list((found - expected).elements())[:3]}")
    assert other["totals"] == summary["totals"] and other["totals"]["rows_quarantined"] == 0  # type: ignore[index]
    assert other["tables"] == summary["tables"]
    assert other["bundle"]["period"] == summary["bundle"]["period"]  # type: ignore[index]


@pytest.mark.parametrize("name", BROKEN)
def test_a_sample_in_parquet_parts_audited_by_partition_gives_the_same_findings(tmp_path: Path, original: Callable[[str], Audit], name: str) -> None:
    """Tournaments and the small tables are read whole by partition: a bundle of those alone is
    audited as it would be without `--by-partition`, not refused."""
    expected, summary = original(name)
    found, other = audited(write_form(name, "partitioned-parquet", tmp_path / "parts"), tmp_path / "out", "--by-partition")
    assert found == expected
    assert other["totals"] == summary["totals"] and other["tables"] == summary["tables"]
