"""Machine-readable outputs (../shared/spec/outputs.md): byte-for-byte deterministic."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from auditor import __version__
from auditor.engine import FINDING_COLUMNS, AuditResult
from auditor.figures import table_figures
from auditor.loading.bundle import manifest_notes, manifest_period
from auditor.rules import REGISTRY, SEVERITY_RANK


def _json_default(value: object) -> object:
    if hasattr(value, "item"):
        return value.item()
    return str(value)


# One encoder for every line: json.dumps with options builds a new one per call.
_ENCODER = json.JSONEncoder(ensure_ascii=False, default=_json_default)


def _plain(values: pd.Series) -> list[object]:
    """The column as Python values, every kind of missing value (None, NaN, NA) as None."""
    out = values.astype(object)
    missing = out.isna()
    return (out.where(~missing, None) if missing.any() else out).tolist()


def _t(text: str) -> pa.Scalar:
    return pa.scalar(text, type=pa.large_string())


_NULL = _t("null")
_QUOTE = _t('"')
# What json.dumps escapes in a string with ensure_ascii=False: quote, backslash, control characters.
_NEEDS_ESCAPE = r'["\\\x00-\x1f]'


def _json_values(values: pd.Series) -> pa.Array:
    """Each value as json.dumps writes it (missing values as null). Text and integer columns are
    written by Arrow in C; a value that needs escaping, and columns of other kinds, by the encoder
    itself, so the output is the same byte for byte."""
    raw = values.to_numpy(dtype=object)
    kind = pd.api.types.infer_dtype(raw, skipna=True)
    try:
        if kind in ("string", "empty"):
            text = pa.array(raw, type=pa.large_string(), from_pandas=True)
            quoted = pc.binary_join_element_wise(_QUOTE, text, _QUOTE, _t(""))
            special = pc.fill_null(pc.match_substring_regex(text, _NEEDS_ESCAPE), False)
            if pc.any(special).as_py():
                at = np.flatnonzero(special.to_numpy(zero_copy_only=False))
                escaped = pa.array([_ENCODER.encode(v) for v in raw[at]], type=pa.large_string())
                quoted = pc.replace_with_mask(quoted, special, escaped)
            return pc.fill_null(quoted, _NULL)
        if kind == "integer":
            return pc.fill_null(pa.array(raw, type=pa.int64(), from_pandas=True).cast(pa.large_string()), _NULL)
    except (pa.ArrowException, OverflowError):
        pass  # past int64, or text Arrow will not hold (a lone surrogate): value by value
    plain = _plain(values)
    return pa.array(["null" if v is None else _ENCODER.encode(v) for v in plain], type=pa.large_string())


WRITE_ROWS = 200_000  # findings encoded at a time: bounds the memory the text of the lines takes


def write_violations(findings: pd.DataFrame, path: Path) -> None:
    """One finding a line, as json.dumps(dict) with the fields in FINDING_COLUMNS order writes it."""
    with path.open("wb") as fh:
        for start in range(0, len(findings), WRITE_ROWS):
            part = findings.iloc[start : start + WRITE_ROWS]
            pieces: list[pa.Array | pa.Scalar] = []
            for i, column in enumerate(FINDING_COLUMNS):
                pieces += [_t(("{" if i == 0 else ", ") + f'"{column}": '), _json_values(part[column])]
            lines = pc.binary_join_element_wise(*pieces, _t("}\n"), _t(""))
            offsets = np.frombuffer(lines.buffers()[1], dtype=np.int64)[lines.offset : lines.offset + len(lines) + 1]
            fh.write(memoryview(lines.buffers()[2])[offsets[0] : offsets[-1]])


def failing(findings: pd.DataFrame, fail_on: str) -> int:
    if fail_on == "never" or findings.empty:
        return 0
    threshold = SEVERITY_RANK[fail_on]
    return int(findings["severity"].map(SEVERITY_RANK).ge(threshold).sum())


def period_of(result: AuditResult) -> dict[str, str | None]:
    stated = manifest_period(result.bundle.manifest)
    if stated:
        return stated  # type: ignore[return-value]
    stamps = [f[c] for t, f in result.bundle.frames.items() for c in ("ts", "ts_open") if c in f and len(f)]
    if not stamps:
        return {"from": None, "to": None, "source": None}
    lo = min(s.min() for s in stamps)
    hi = max(s.max() for s in stamps)
    return data_period(lo, hi, result.ruleset.timezone)


def data_period(lo: pd.Timestamp, hi: pd.Timestamp, timezone: str) -> dict[str, str | None]:
    """The days of play from the first and last round times, as calendar days of the ruleset's country
    (a night's play in Andorra that passes midnight UTC is still that night's day)."""
    return {"from": lo.tz_convert(timezone).strftime("%Y-%m-%d"), "to": hi.tz_convert(timezone).strftime("%Y-%m-%d"), "source": "data"}


def build_summary(result: AuditResult, fail_on: str, figures: pd.DataFrame | None = None,
                  period: dict[str, str | None] | None = None) -> dict[str, object]:
    """The summary; `figures` and `period` are given when the bundle was audited in parts."""
    bundle, findings = result.bundle, result.findings
    files = [
        {
            "name": f.name,
            "table": f.table,
            "sha256": f.sha256,
            "rows_read": f.rows_read,
            "rows_audited": f.rows_audited,
            "rows_quarantined": f.rows_quarantined,
            "error": f.error,
        }
        for f in sorted(bundle.files, key=lambda f: f.name)
    ]
    by_rule = findings.groupby("rule").size().to_dict() if len(findings) else {}
    by_sev = findings.groupby("severity").size().to_dict() if len(findings) else {}
    figures = table_figures(bundle) if figures is None else figures
    manifest = bundle.manifest if isinstance(bundle.manifest, dict) else {}
    failing_count = failing(findings, fail_on)
    return {
        "auditor": {"name": "auditor", "version": __version__},
        "bundle": {"name": bundle.name, "casino": manifest.get("casino"), "period": period or period_of(result), "ignored_files": bundle.ignored,
                   "manifest_notes": manifest_notes(bundle.manifest)},
        "ruleset": {"id": result.ruleset.id, "version": result.ruleset.version, "source": result.ruleset.source},
        "verdict": {
            "compliant": failing_count == 0,
            "fail_on": fail_on,
            "findings_at_or_above_fail_on": failing_count,
        },
        "files": files,
        "totals": {
            "rows_read": sum(f["rows_read"] for f in files),
            "rows_audited": sum(f["rows_audited"] for f in files),
            "rows_quarantined": sum(f["rows_quarantined"] for f in files),
        },
        "rules": {
            "run": [r.code for r in result.rules_run],
            "not_run": dict(sorted(result.rules_not_run.items())),
            "failed": dict(sorted(result.errors.items())),
        },
        "findings": {
            "total": int(len(findings)),
            "by_severity": {s: int(by_sev.get(s, 0)) for s in ("critical", "major", "minor")},
            "by_rule": {code: int(by_rule[code]) for code in sorted(by_rule)},
        },
        "tables": [
            {k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()}
            for row in figures.to_dict(orient="records")
        ],
        "rule_catalogue_size": len(REGISTRY),
    }


def write_summary(summary: dict[str, object], path: Path) -> None:
    path.write_text(json.dumps(summary, ensure_ascii=False, indent=2, default=_json_default) + "\n", encoding="utf-8")
