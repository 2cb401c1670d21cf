"""Running rules over a loaded bundle and turning their hits into findings."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from auditor.i18n import label
from auditor.loading import Bundle
from auditor.rules import Rule
from auditor.rules.base import HIT_COLUMNS, Context
from auditor.ruleset import Ruleset

FINDING_COLUMNS = [
    "rule", "name", "severity", "game", "table_id", "round_id", "item_id", "ts",
    "expected", "observed", "message", "citation", "source",
]
SORT_KEYS = ["game", "table_id", "ts", "round_id", "rule", "item_id"]


@dataclass
class AuditResult:
    bundle: Bundle
    ruleset: Ruleset
    rules_run: list[Rule]
    rules_not_run: dict[str, str]
    findings: pd.DataFrame
    timings: dict[str, float] = field(default_factory=dict)
    context: Context | None = None
    errors: dict[str, str] = field(default_factory=dict)  # rules that failed to run: the audit is incomplete


def format_ts(values: pd.Series) -> pd.Series:
    """ISO 8601 in UTC with an explicit offset; dates (tournaments) as YYYY-MM-DD; null stays null."""
    out = pd.Series(None, index=values.index, dtype=object)
    if values.empty:
        return out
    ts = pd.to_datetime(values, utc=True, errors="coerce")
    ok = ts.notna()
    if ok.any():
        sub = ts[ok]
        text = sub.dt.strftime("%Y-%m-%dT%H:%M:%S")
        frac = sub.dt.microsecond != 0
        text = text.where(~frac, text + "." + sub.dt.strftime("%f"))
        out[ok] = (text + "+00:00").to_numpy(dtype=object)
    return out


def _as_text(values: pd.Series) -> pd.Series:
    def one(v: object) -> str:
        if isinstance(v, float) and v.is_integer():
            return str(int(v))
        return str(v)

    return values.map(one, na_action="ignore").astype(object)


def _messages(summary: str, hits: pd.DataFrame, lang: str, with_values: bool) -> pd.Series:
    msg = pd.Series(summary, index=hits.index, dtype=object)
    detail = hits["detail"]
    has_detail = detail.notna()
    msg = msg.where(~has_detail, msg + ": " + _as_text(detail).fillna(""))
    exp, obs = hits["expected"], hits["observed"]
    has_values = (exp.notna() | obs.notna()) & with_values
    tail = (
        " (" + label("expected", lang) + " " + _as_text(exp).fillna("—") + ", "
        + label("observed", lang) + " " + _as_text(obs).fillna("—") + ")"
    )
    msg = msg.where(~has_values, msg + tail)
    return msg + "."


def _clean_value(v: object) -> object:
    if v is None or (isinstance(v, float) and np.isnan(v)) or v is pd.NA or v is pd.NaT:
        return None
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating | float):
        f = float(v)
        return int(f) if f.is_integer() else f
    if isinstance(v, np.bool_ | bool):
        return bool(v)
    if isinstance(v, pd.Timestamp):
        return format_ts(pd.Series([v])).iloc[0]
    return str(v) if not isinstance(v, int | str) else v


def to_findings(rule: Rule, hits: pd.DataFrame, lang: str) -> pd.DataFrame:
    hits = hits.reindex(columns=HIT_COLUMNS)
    n = len(hits)
    line = pd.to_numeric(hits["line"], errors="coerce").fillna(0).astype("int64")
    file = hits["file"].astype(object).fillna("")

    def ids(col: str) -> np.ndarray:
        values = hits[col].astype(object).to_numpy()
        return np.where(pd.notna(values), values, None)

    columns = {
        "rule": np.full(n, rule.code, dtype=object), "name": np.full(n, rule.name, dtype=object),
        "severity": np.full(n, rule.severity, dtype=object), "game": np.full(n, rule.game, dtype=object),
        "table_id": ids("table_id"), "round_id": ids("round_id"), "item_id": ids("item_id"),
        "ts": format_ts(hits["ts"]).to_numpy() if hits["ts"].notna().any() else np.full(n, None, dtype=object),
        "expected": hits["expected"].map(_clean_value).astype(object).to_numpy(),
        "observed": hits["observed"].map(_clean_value).astype(object).to_numpy(),
        # Log findings' details already quote the offending cell.
        "message": _messages(rule.summary[lang], hits, lang, with_values=rule.game != "log").to_numpy(),
        "citation": np.full(n, str(rule.citation), dtype=object),
        "source": (file + np.where(line > 0, ":" + line.astype(str), "")).astype(object).to_numpy(),
    }
    # dtype=object: pandas 3 would infer a string dtype and turn None into NaN.
    return pd.DataFrame(columns, index=hits.index, dtype=object)


def sort_findings(findings: pd.DataFrame) -> pd.DataFrame:
    if findings.empty:
        return findings.reset_index(drop=True)
    keys = pd.DataFrame({k: findings[k].astype(object).where(findings[k].notna(), "").astype(str) for k in SORT_KEYS})
    keys["source"] = findings["source"].astype(str)
    keys["message"] = findings["message"].astype(str)
    order = keys.sort_values(SORT_KEYS + ["source", "message"], kind="stable").index
    return findings.loc[order].reset_index(drop=True)


def run_audit(
    bundle: Bundle,
    ruleset: Ruleset,
    rules: list[Rule],
    lang: str = "ca",
    progress: Callable[[str], None] | None = None,
) -> AuditResult:
    say = progress or (lambda _m: None)
    ctx = Context(bundle, ruleset)
    parts: list[pd.DataFrame] = []
    not_run: dict[str, str] = {}
    run: list[Rule] = []
    timings: dict[str, float] = {}
    errors: dict[str, str] = {}
    current_game = None
    # Rules run game by game, so each game's prepared frames can be freed before the next game's.
    for i, rule in enumerate(sorted(rules, key=lambda r: (r.game, r.code)), start=1):
        if rule.game != current_game:
            ctx.release()
            current_game = rule.game
        absent = [t for t in rule.tables if t not in bundle.frames]
        if absent:
            not_run[rule.code] = "no " + ", ".join(absent) + " in the bundle"
            continue
        say(f"[{i}/{len(rules)}] {rule.code} {rule.name}")
        started = time.perf_counter()
        try:
            hits = rule.check(ctx)
        except Exception as exc:  # noqa: BLE001 - one broken rule must not hide the others' findings
            errors[rule.code] = f"{type(exc).__name__}: {exc}"
            continue
        timings[rule.game] = timings.get(rule.game, 0.0) + time.perf_counter() - started
        run.append(rule)
        if len(hits):
            parts.append(to_findings(rule, hits, lang))
    findings = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=FINDING_COLUMNS)
    findings = sort_findings(findings[FINDING_COLUMNS])
    return AuditResult(bundle, ruleset, run, not_run, findings, timings, ctx, errors)
