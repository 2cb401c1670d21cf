"""Machine-readable outputs (../shared/spec/outputs.md): byte-for-byte deterministic."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, wait
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from auditor import __version__
from auditor.engine import FINDING_COLUMNS, AuditResult
from auditor.figures import table_figures
from auditor.frames import is_arrow_text, text_array, text_bytes
from auditor.loading.bundle import manifest_notes, manifest_period, round_times
from auditor.report.whole import Whole, written_whole
from auditor.rules import REGISTRY, SEVERITY_RANK
from auditor.ruleset import Ruleset


def _json_default(value: object) -> object:
    if hasattr(value, "item"):
        return value.item()
    return str(value)


# One encoder for every line: json.dumps with options builds a new one per call.
_ENCODER = json.JSONEncoder(ensure_ascii=False, default=_json_default)


def with_none(values: pd.DataFrame) -> pd.DataFrame:
    """Findings (or a column of them) as Python values, every kind of missing value (None, NaN, NA)
    as None: what the report, junit and the encoder print (ids and times are Arrow text, NaN when
    missing)."""
    out = values.astype(object)
    missing = out.isna()
    return out.where(~missing, None) if missing.to_numpy().any() else out


def _t(text: str) -> pa.Scalar:
    return pa.scalar(text, type=pa.large_string())


_NULL = _t("null")
_QUOTE = _t('"')
_EMPTY = _t("")
# Control characters, which json.dumps writes as escapes of its own (\n, \u001b ...).
_CONTROL = r"[\x00-\x1f]"
# What each Python type of value is written as: 0 text, 1 integer (by Arrow), 3 by the encoder.
_KINDS: dict[type, int] = {str: 0, int: 1, np.int64: 1, np.int32: 1, np.int16: 1, np.int8: 1, np.uint8: 1, np.uint16: 1, np.uint32: 1}


def _json_text(text: pa.Array) -> pa.Array:
    """Strings as JSON strings (nulls as null), as json.dumps(ensure_ascii=False) writes them: quote
    and backslash escaped by Arrow; a string with a control character by the encoder itself. The
    bytes are looked at once first: most columns hold none of these."""
    data = text_bytes(text)
    escaped = text
    if ((data == 34) | (data == 92)).any():
        escaped = pc.replace_substring(pc.replace_substring(text, "\\", "\\\\"), '"', '\\"')
    quoted = pc.binary_join_element_wise(_QUOTE, escaped, _QUOTE, _EMPTY)
    if (data < 0x20).any():
        control = pc.fill_null(pc.match_substring_regex(text, _CONTROL), False)
        encoded = [_ENCODER.encode(v) for v in text.filter(control).to_pylist()]
        quoted = pc.replace_with_mask(quoted, control, pa.array(encoded, type=pa.large_string()))
    return pc.fill_null(quoted, _NULL) if text.null_count else quoted


def _json_values(values: pd.Series) -> pa.Array:
    """Each value as json.dumps writes it, missing values (None, NaN, NA) as null. Text and integers
    are written by Arrow in C, whatever their mix in the column; any other value by the encoder
    itself, so the output is the same byte for byte."""
    if isinstance(values.dtype, pd.CategoricalDtype) and len(values.cat.categories):
        # Each of the few names written once, then each row's by its code (a missing value: null):
        # a finding's rule, name, severity, game and citation (32k findings: 10 -> 1.5 ms).
        names = text_array(pd.Series(values.cat.categories, dtype=object))
        if names is not None:
            codes = values.array.codes
            return pc.fill_null(_json_text(names).take(pa.array(codes, mask=codes < 0)), _NULL)
    text = text_array(values) if is_arrow_text(values) or isinstance(values.dtype, pd.CategoricalDtype) else None
    if text is not None:
        return _json_text(text)
    raw = values.to_numpy(dtype=object)
    inferred = pd.api.types.infer_dtype(raw, skipna=True)
    if inferred in ("string", "empty", "integer"):  # one kind: no need to look at each value's type
        kind = np.full(len(raw), 1 if inferred == "integer" else 0, dtype=np.int8)
    else:
        kind = np.fromiter((_KINDS.get(t, 3) for t in map(type, raw)), dtype=np.int8, count=len(raw))
    kind[pd.isna(raw)] = 2
    groups = {name: np.flatnonzero(kind == code) for code, name in enumerate(("text", "integer", "null", "other"))}
    parts: list[pa.Array] = []
    for name, at in groups.items():
        if not len(at):
            continue
        if name == "text":
            try:
                parts.append(_json_text(pa.array(raw[at], type=pa.large_string())))
                continue
            except pa.ArrowException:  # text Arrow will not hold (a lone surrogate): value by value
                pass
        elif name == "integer":
            try:
                parts.append(pa.array(raw[at], type=pa.int64()).cast(pa.large_string()))
                continue
            except (pa.ArrowException, OverflowError):  # past int64: value by value
                pass
        elif name == "null":
            parts.append(pa.repeat(_NULL, len(at)))
            continue
        parts.append(pa.array([_ENCODER.encode(v) for v in raw[at]], type=pa.large_string()))
    order = np.concatenate([at for at in groups.values() if len(at)])
    if len(parts) == 1 and (order == np.arange(len(order))).all():
        return parts[0]
    back = np.empty(len(order), dtype=np.int64)
    back[order] = np.arange(len(order))
    return pa.concat_arrays(parts).take(pa.array(back))


WRITE_ROWS = 200_000  # findings encoded at a time: bounds the memory the text of the lines takes


def violation_chunks(result: AuditResult) -> Iterator[pa.Buffer]:
    """The bytes of violations.jsonl a chunk at a time: the findings in memory encoded WRITE_ROWS
    at a time, or the lines of the findings spilled to disk (`auditor.spill`) in their merged order."""
    if result.spilled is not None:
        for lines in result.spilled.lines():
            yield text_bytes(lines).data
        return
    findings = result.findings
    for start in range(0, len(findings), WRITE_ROWS):
        yield text_bytes(violation_lines(findings.iloc[start : start + WRITE_ROWS])).data


def write_violations(result: AuditResult, path: Path) -> None:
    """violations.jsonl, each chunk (`violation_chunks`) written as it is made, whole or not at all
    (`written_whole`)."""
    with written_whole(path) as fh:
        for chunk in violation_chunks(result):
            fh.write(chunk)


def write_violations_behind(result: AuditResult, path: Path, writer: Executor) -> Callable[[], None]:
    """violations.jsonl, its chunks made on this thread and written by `writer` (one thread), each
    write going on while the next chunk is made, and the last one while this thread goes on to the
    next output (the report): the file's write is the kernel's work, taking the lines into the page
    cache (the month's 15 MB: 5-85 ms by what the machine's host holds), which lets go of the
    interpreter's lock. At most two chunks are held: one being written, the next being made.
    Returns what waits for the last write and the file's close, and raises the first error of any;
    an error making a chunk is raised once the write before it is done and the file closed. What it
    saves is the write's kernel time, which the host's state sets: the outputs of a fresh process
    after the month's audit, alternated pairs, 0.36-0.46 -> 0.27-0.38 s in an hour when their
    kernel time was 85-195 ms (six pairs), medians 0.35 -> 0.33 s in one when it was 20-175 ms
    (eight); run again in one process, where it is 10-20 ms, the same (0.256 and 0.252 s, thirty pairs).
    Written whole or not at all (`Whole`): the file replaces violations.jsonl in `finish`, after the
    last write, and is removed on any error (`Whole.fail`)."""
    whole = Whole(path)
    pending: Future[int] | None = None
    try:
        for chunk in violation_chunks(result):
            if pending is not None:
                pending.result()
            pending = writer.submit(whole.file.write, chunk)
    except BaseException as exc:
        try:
            if pending is not None:
                wait([pending])
        finally:
            whole.fail(exc)
    last = pending

    def finish() -> None:
        try:
            if last is not None:
                last.result()
        except BaseException as exc:
            whole.fail(exc)
        whole.done()

    return finish


def violation_lines(findings: pd.DataFrame) -> pa.Array:
    """One finding a line (each ending in a line feed), as json.dumps(dict) with the fields in
    FINDING_COLUMNS order writes it, but for the three characters some readers take for line ends
    (`_LINE_BREAKS`), written as escapes."""
    pieces: list[pa.Array | pa.Scalar] = []
    for i, column in enumerate(FINDING_COLUMNS):
        pieces += [_t(("{" if i == 0 else ", ") + f'"{column}": '), _json_values(findings[column])]
    return _one_line(pc.binary_join_element_wise(*pieces, _t("}\n"), _t("")))


# Characters that JSON leaves as they are but that many line readers (Python's str.splitlines among
# them) take for line ends: escaped, so that each finding is one line for every reader.
_LINE_BREAKS = {"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def _one_line(lines: pa.Array) -> pa.Array:
    if not has_line_breaks(text_bytes(lines)):
        return lines
    for char, escape in _LINE_BREAKS.items():
        lines = pc.replace_substring(lines, char, escape)
    return lines


_BLOCK = 1 << 20


def has_line_breaks(data: np.ndarray) -> bool:
    """Whether UTF-8 bytes hold one of `_LINE_BREAKS` (C2 85, E2 80 A8, E2 80 A9). Looked at a megabyte
    at a time, so that the masks stay small and their memory is reused (4M findings, 2.2 GB of lines:
    2.5-3.8 s -> 0.4 s, where masks the size of each 110 MB chunk were fresh memory to fault in)."""
    for start in range(0, len(data), _BLOCK):
        part = data[start : start + _BLOCK + 2]  # and the two bytes after it: a break across the edge
        lead = part[:_BLOCK]
        at = np.flatnonzero((lead == 0xC2) | (lead == 0xE2))
        if not len(at):
            continue
        # Past the end, take() reads the last byte again: C2, E2 or a byte after E2, never 85, A8 or A9.
        first, second, third = part[at], part.take(at + 1, mode="clip"), part.take(at + 2, mode="clip")
        if np.any(((first == 0xC2) & (second == 0x85)) | ((first == 0xE2) & (second == 0x80) & ((third == 0xA8) | (third == 0xA9)))):
            return True
    return False


CASE = ["rule", "table_id"]  # what junit.xml makes a test case of, and spilled findings keep the first of


def counts_by(findings: pd.DataFrame, column: str) -> dict[str, int]:
    """How many findings hold each value of `column` (rule, severity)."""
    return {str(k): int(v) for k, v in findings.groupby(column, observed=True).size().items()}


def case_counts(findings: pd.DataFrame) -> dict[tuple[str, str | None], int]:
    """How many findings each (rule, table) has; table None: they name none."""
    sizes = findings.groupby(CASE, dropna=False, sort=False, observed=True).size()
    return {(str(code), None if pd.isna(table) else str(table)): int(n) for (code, table), n in sizes.items()}


def first_of_cases(findings: pd.DataFrame, keep: int) -> pd.DataFrame:
    """The first `keep` findings of each (rule, table), in their order."""
    return findings.groupby(CASE, dropna=False, sort=False, observed=True).head(keep)


def finding_counts(result: AuditResult) -> tuple[int, dict[str, int], dict[str, int]]:
    """(every finding, how many of each rule, how many of each severity): counted as they were
    spilled when they were (`auditor.spill`), else from the findings in memory."""
    if result.spilled is not None:
        tally = result.spilled.tally
        return tally.total, dict(tally.by_rule), dict(tally.by_severity)
    findings = result.findings
    return len(findings), counts_by(findings, "rule"), counts_by(findings, "severity")


def failing(by_severity: dict[str, int], fail_on: str) -> int:
    """How many findings are at or above `fail_on`, from the count of each severity."""
    if fail_on == "never":
        return 0
    threshold = SEVERITY_RANK[fail_on]
    return sum(n for s, n in by_severity.items() if SEVERITY_RANK[s] >= threshold)


def period_of(result: AuditResult) -> dict[str, str | None]:
    stated = manifest_period(result.bundle.manifest)
    if stated:
        return stated  # type: ignore[return-value]
    bundle = result.bundle
    # A table's frame let go once its game was audited (a whole audit's turns) left its times.
    bounds = [b for t, f in bundle.frames.items() if t not in bundle.times and (b := round_times(f)) is not None]
    bounds += bundle.times.values()
    if not bounds:
        return {"from": None, "to": None, "source": None}
    lo = min(b[0] for b in bounds)
    hi = max(b[1] for b in bounds)
    return data_period(lo, hi, result.ruleset.timezone)


def ruleset_notes(ruleset: Ruleset, period: dict[str, str | None]) -> list[str]:
    """Play the ruleset does not govern: days before its first values take effect were audited under
    those values all the same, and an inspector should know it."""
    start = period.get("from")
    first = ruleset.in_force_from.isoformat()
    if start and start < first:
        note = (f"the play audited starts on {start}, before the ruleset's first values take effect ({first}): "
                "those days were audited under the values of that date")
        return [note]
    return []


def data_period(lo: pd.Timestamp, hi: pd.Timestamp, timezone: str) -> dict[str, str | None]:
    """The days of play from the first and last round times, as calendar days of the ruleset's country
    (a night's play in Andorra that passes midnight UTC is still that night's day)."""
    return {"from": lo.tz_convert(timezone).strftime("%Y-%m-%d"), "to": hi.tz_convert(timezone).strftime("%Y-%m-%d"), "source": "data"}


def build_summary(result: AuditResult, fail_on: str, figures: pd.DataFrame | None = None,
                  period: dict[str, str | None] | None = None) -> dict[str, object]:
    """The summary; `figures` and `period` are given when the bundle was audited in parts."""
    bundle = result.bundle
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
    total, by_rule, by_sev = finding_counts(result)
    figures = table_figures(bundle) if figures is None else figures
    manifest = bundle.manifest if isinstance(bundle.manifest, dict) else {}
    failing_count = failing(by_sev, fail_on)
    period = period or period_of(result)
    return {
        "auditor": {"name": "auditor", "version": __version__},
        "bundle": {"name": bundle.name, "casino": manifest.get("casino"), "period": period, "ignored_files": bundle.ignored,
                   "manifest_notes": manifest_notes(bundle.manifest, [f.name for f in bundle.files])},
        "ruleset": {"id": result.ruleset.id, "version": result.ruleset.version, "source": result.ruleset.source,
                    "notes": ruleset_notes(result.ruleset, period)},
        "verdict": {
            "compliant": failing_count == 0,
            "fail_on": fail_on,
            "findings_at_or_above_fail_on": failing_count,
        },
        "files": files,
        "totals": {
            "rows_read": sum(f.rows_read for f in bundle.files),
            "rows_audited": sum(f.rows_audited for f in bundle.files),
            "rows_quarantined": sum(f.rows_quarantined for f in bundle.files),
        },
        "rules": {
            "run": [r.code for r in result.rules_run],
            "not_run": dict(sorted(result.rules_not_run.items())),
            "failed": dict(sorted(result.errors.items())),
        },
        "findings": {
            "total": total,
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
    text = json.dumps(summary, ensure_ascii=False, indent=2, default=_json_default) + "\n"
    with written_whole(path) as fh:
        fh.write(text.encode("utf-8"))
