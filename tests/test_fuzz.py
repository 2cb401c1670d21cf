"""Seeded fuzzing of the samples: cells of every kind where the log format expects others. Whatever the
input, the audit finishes (exit 0 or 1), its counts reconcile and violations.jsonl is one JSON object
a line. They found a crash on a whole float past int64 in an integer column, and line separators
(U+2028) that split a finding across two lines for readers such as str.splitlines."""

from __future__ import annotations

import csv
import io
import json
import random
import shutil
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers import SAMPLES
from typer.testing import CliRunner

from auditor.cli import app

CELLS = ["", " ", "-1", "1e309", "nan", "inf", "9" * 30, "true", "1", "٣", "\u00a0", "\"", "<b>x</b>", "2026-03-01", "0001-01-01T00:00:00Z",
         "9999-12-31T23:59:59Z", "settled", "AS KH 9D", "XX", "[]", "3.0", "+5", "\u2028", "\x85", "a" * 3000]
JSON_VALUES = [None, 0, -1, 2**70, 1e308, -0.0, 1.5, True, "", "x", [], {"a": None}, "٣", "\u2028"]


def _check(bundle: Path, out: Path) -> None:
    result = CliRunner().invoke(app, ["audit", str(bundle), "--out", str(out), "--format", "html,jsonl,junit"])
    assert result.exit_code in (0, 1), (result.exit_code, result.output, repr(result.exception))
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    totals = summary["totals"]
    assert totals["rows_read"] == totals["rows_audited"] + totals["rows_quarantined"]
    lines = (out / "violations.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == summary["findings"]["total"] and all(isinstance(json.loads(line), dict) for line in lines)


@pytest.mark.parametrize("seed", range(4))
def test_csv_cells_of_any_kind(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    bundle = tmp_path / "b"
    shutil.copytree(SAMPLES / ["malformed-log", "chemin-de-fer-broken", "wheel-broken", "dice-broken"][seed], bundle)
    (bundle / "manifest.json").unlink(missing_ok=True)
    for path in bundle.glob("*.csv"):
        rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
        for _ in range(30):
            row = rows[rng.randrange(1, len(rows))] if len(rows) > 1 else []
            if row:
                row[rng.randrange(len(row))] = rng.choice(CELLS)
        text = io.StringIO()
        csv.writer(text, lineterminator="\n").writerows(rows)
        path.write_text(text.getvalue(), encoding="utf-8")
    _check(bundle, tmp_path / "o")


@pytest.mark.parametrize("seed", range(3))
def test_jsonl_values_of_any_type(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    bundle = tmp_path / "b"
    bundle.mkdir()
    for path in (SAMPLES / ["chemin-de-fer-broken", "wheel-broken", "dice-broken"][seed]).glob("*.csv"):
        records = []
        for row in csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))):
            record: dict[str, object] = {k: (None if v == "" else v) for k, v in row.items()}
            for key in record:
                if rng.random() < 0.02:
                    record[key] = rng.choice(JSON_VALUES)
            records.append(json.dumps(record))
        (bundle / (path.stem + ".jsonl")).write_text("\n".join(records) + "\n", encoding="utf-8")
    _check(bundle, tmp_path / "o")


def _column_of_another_kind(rng: np.random.Generator, n: int) -> pa.Array:
    kind = int(rng.integers(0, 9))
    return [
        lambda: pa.array(rng.integers(-(2**62), 2**62, n)),
        lambda: pa.array(np.where(rng.random(n) < 0.1, np.inf, rng.random(n) * 1e300)),
        lambda: pa.array(rng.choice(["settled", "x", "", "٣", "24"], n)),
        lambda: pa.array(rng.random(n) < 0.5),
        lambda: pa.array(rng.integers(-(2**60), 2**60, n)).cast(pa.timestamp("ns", tz="Asia/Kolkata")),
        lambda: pa.array(rng.integers(0, 2**50, n)).cast(pa.timestamp("us")),
        lambda: pa.array(rng.integers(-100000, 100000, n).astype(np.int32)).cast(pa.date32()),
        lambda: pa.array([[1]] * n),
        lambda: pa.nulls(n),
    ][kind]()


@pytest.mark.parametrize("seed", range(3))
def test_parquet_columns_of_any_type(tmp_path: Path, seed: int) -> None:
    rng = np.random.default_rng(seed)
    bundle = tmp_path / "b"
    bundle.mkdir()
    for path in (SAMPLES / "casino-month").glob("*.parquet"):
        table = pq.read_table(path)
        for _ in range(int(rng.integers(0, table.num_columns + 1))):
            i = int(rng.integers(0, table.num_columns))
            table = table.set_column(i, table.column_names[i], _column_of_another_kind(rng, table.num_rows))
        pq.write_table(table, bundle / path.name)
    _check(bundle, tmp_path / "o")
