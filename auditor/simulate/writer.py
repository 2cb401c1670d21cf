"""Writing frames as a bundle in the log format: CSV, JSONL or Parquet, typed from the schema."""

from __future__ import annotations

import csv
import json
from collections.abc import Set as AbstractSet
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from auditor.loading.bundle import sha256_of
from auditor.schema import TABLES

ARROW_TYPES = {
    "str": pa.string(), "enum": pa.string(), "cards": pa.string(), "int": pa.int64(), "float": pa.float64(),
    "bool": pa.bool_(), "timestamp": pa.timestamp("us", tz="UTC"), "date": pa.date32(),
}


def typed(frame: pd.DataFrame, table: str) -> pd.DataFrame:
    """Columns cast to the schema's types (nullable where the data has nulls); extra columns kept."""
    out = frame.copy()
    for col in TABLES[table].columns:
        if col.name not in out:
            continue
        s = out[col.name]
        if col.type == "int":
            out[col.name] = pd.to_numeric(s, errors="coerce").astype("Int64") if s.dtype == object or s.isna().any() else s.astype("int64")
        elif col.type == "bool":
            out[col.name] = s.astype("boolean")
        elif col.type == "float":
            out[col.name] = s.astype("float64")
        elif col.type == "timestamp":
            out[col.name] = pd.to_datetime(s, utc=True)
        elif col.type == "date":
            out[col.name] = pd.to_datetime(s).dt.normalize()
    return out


def _text_frame(frame: pd.DataFrame, table: str) -> pd.DataFrame:
    out = frame.copy()
    for col in TABLES[table].columns:
        if col.name not in out:
            continue
        s = out[col.name]
        if col.type == "timestamp" and pd.api.types.is_datetime64_any_dtype(s.dtype):
            out[col.name] = s.dt.strftime("%Y-%m-%dT%H:%M:%S+00:00").astype(object).where(s.notna(), None)
        elif col.type == "date" and pd.api.types.is_datetime64_any_dtype(s.dtype):
            out[col.name] = s.dt.strftime("%Y-%m-%d").astype(object).where(s.notna(), None)
        elif col.type == "bool":
            out[col.name] = s.map({True: "true", False: "false"}, na_action="ignore").astype(object).where(s.notna(), None)
    return out


def write_table(frame: pd.DataFrame, table: str, directory: Path, fmt: str, quote_all: bool = False) -> Path:
    """`frame` as the file of `table` in `directory` in `fmt` (csv, jsonl or parquet); `quote_all`: every
    CSV cell quoted, an empty one as "" (as csv.QUOTE_ALL writes it), as some systems write CSV."""
    frame = typed(frame, table)
    if fmt == "parquet":
        path = directory / f"{table}.parquet"
        fields = []
        for name in frame.columns:
            col = next((c for c in TABLES[table].columns if c.name == name), None)
            fields.append(pa.field(name, ARROW_TYPES[col.type] if col else pa.string()))
        pq.write_table(pa.Table.from_pandas(frame, schema=pa.schema(fields), preserve_index=False), path)
        return path
    text = _text_frame(frame, table)
    if fmt == "csv":
        path = directory / f"{table}.csv"
        text.to_csv(path, index=False, lineterminator="\n", quoting=csv.QUOTE_ALL if quote_all else csv.QUOTE_MINIMAL)
        return path
    path = directory / f"{table}.jsonl"
    records = text.astype(object).where(text.notna(), None).to_dict(orient="records")
    with path.open("w", encoding="utf-8") as fh:
        for rec in records:
            fh.write(json.dumps({k: (v.item() if hasattr(v, "item") else v) for k, v in rec.items()}, ensure_ascii=False) + "\n")
    return path


sha256 = sha256_of  # the digest the auditor verifies (LOG004)


def write_manifest(directory: Path, casino: str, period: tuple[str, str], files: list[Path], wrong: AbstractSet[str] = frozenset()) -> None:
    """manifest.json with each file's digest; names in `wrong` get a planted wrong digest (LOG004)."""
    digests = {}
    for f in sorted(files, key=lambda p: p.name):
        d = sha256(f)
        digests[f.name] = "sha256:" + (d[::-1] if f.name in wrong else d)
    manifest = {"format": "casino-audit-log", "version": 1, "casino": casino,
                "period": {"from": period[0], "to": period[1]}, "files": digests}
    (directory / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
