"""Machine-readable outputs (../shared/spec/outputs.md): byte-for-byte deterministic."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

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


def write_violations(findings: pd.DataFrame, path: Path) -> None:
    columns = [_plain(findings[c]) for c in FINDING_COLUMNS]
    encode = _ENCODER.encode
    with path.open("w", encoding="utf-8", newline="\n") as fh:
        for row in zip(*columns, strict=True):
            fh.write(encode(dict(zip(FINDING_COLUMNS, row, strict=True))) + "\n")


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
