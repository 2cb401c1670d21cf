"""report.html: the audit an inspector reads and files. All markup lives in the Jinja2 template,
rendered with autoescape on, so text from the logs can never become markup."""

from __future__ import annotations

import datetime as dt
import functools
import os
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from itertools import islice
from pathlib import Path
from types import FunctionType
from typing import Any, cast

import markupsafe
import numpy as np
import pandas as pd
from jinja2 import Environment, PackageLoader, Template, select_autoescape
from markupsafe import Markup

from auditor.engine import AuditResult
from auditor.frames import rows_holding, text_array
from auditor.i18n import game_name, labels
from auditor.regulation import article_text
from auditor.report.outputs import with_none
from auditor.report.text import visible
from auditor.report.whole import written_whole
from auditor.rules import GAME_ORDER, REGISTRY
from auditor.rules.catalan import HOLDS_CA
from auditor.rules.cdf_replay import parse_hands
from auditor.spill import per_day

PER_RULE = 100  # findings shown per rule; the rest stay in violations.jsonl
PER_TABLE = 500  # gaming tables shown in the figures; all are in summary.json (the report must stay light)
SEVERITIES = ("critical", "major", "minor")


def _env() -> Environment:
    env = Environment(loader=PackageLoader("auditor", "report/templates"), autoescape=select_autoescape(default=True, default_for_string=True),
                      finalize=_shown)
    env.filters["money"] = money
    return env


@functools.cache
def template() -> Template:
    """The report's template, compiled once a process (50 ms): `write.prepare_outputs` compiles it
    beside the audit, so that the outputs, on one thread at the audit's end, find it ready. Its
    values escaped as text (`escaped_as_text`)."""
    compiled = _env().get_template("report.html.j2")
    escaped_as_text(compiled)
    return compiled


# markupsafe's own escaping of a str, the C function its `escape` calls; None where a markupsafe
# release no longer has it (the template then keeps `escape`).
_ESCAPE_TEXT = getattr(markupsafe, "_escape_inner", None)


def _escaped(value: object) -> str:
    """`markupsafe.escape(value)`'s text: a str escaped by markupsafe's own escaping, anything else
    (a number, the report's own markup) by `escape` itself."""
    if type(value) is str and _ESCAPE_TEXT is not None:
        return _ESCAPE_TEXT(value)  # type: ignore[no-any-return]
    return str(markupsafe.escape(value))


def escaped_as_text(compiled: Template) -> bool:
    """Have the compiled template escape each value it prints (every `{{ }}`, autoescape on) by
    `_escaped`, the same text markupsafe's `escape` makes, not wrapped in a `Markup`: Jinja writes
    each one out at once (`yield escape(...)`, nowhere else in this template: its test), and making a
    `Markup` of each, in Python, was most of escaping it (the month's report, 120k values: its
    render 164 -> 110 ms, on the audit's one busy thread at its end; the file the same byte for
    byte). The template's own namespace is changed, nothing of Jinja's or markupsafe's. True if done;
    False where the compiled code does not use markupsafe's `escape` by that name (a Jinja release
    that compiles otherwise: the report is then made as before)."""
    namespace = cast(FunctionType, compiled.root_render_func).__globals__
    if namespace.get("escape") is not markupsafe.escape or _ESCAPE_TEXT is None:
        return False
    namespace["escape"] = _escaped
    return True


def prepare() -> None:
    """What every report needs whatever the audit found, made ready ahead (`write.prepare_outputs`):
    the template, and the article each rule cites, quoted from the regulation's text (40 ms)."""
    template()
    for rule in REGISTRY.values():
        article_text(rule.citation)


def _shown(value: object) -> object:
    """Every value the template prints: log text with its control characters made visible; markup
    the report itself built (charts) passes untouched. A plain str that is all printable (nearly
    every one of the report's 120k values) is returned at once: its render 140-160 -> 125-130 ms."""
    if type(value) is str:
        return value if value.isprintable() else visible(value)
    if isinstance(value, str) and not isinstance(value, Markup):  # a subclass of str (numpy's str_)
        return visible(value)
    return value


def money(cents: object) -> str:
    try:
        value = int(cents)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return "—"
    return _euros(value)


@functools.lru_cache(maxsize=4096)
def _euros(cents: int) -> str:
    """Cents as the report prints an amount, each amount made once: the month's report prints 17.5k
    amounts of 2.1k values (its evidence 32 -> 19 ms, on the audit's one busy thread at its end)."""
    sign = "−" if cents < 0 else ""
    euros, rest = divmod(abs(cents), 100)
    return f"{sign}{euros:,}.{rest:02d} €".replace(",", " ")


def _text(v: object) -> str:
    if v is None or (isinstance(v, float) and v != v) or v is pd.NA or v is pd.NaT:
        return "—"
    if isinstance(v, pd.Timestamp):
        return v.strftime("%Y-%m-%d %H:%M:%S") if (v.hour or v.minute or v.second) else v.strftime("%Y-%m-%d")
    return str(v)


# The columns of each table that the evidence shows: only these are boxed, row by row.
EVIDENCE_COLUMNS = {
    "cdf_coups": ["player_cards", "banker_cards", "mode", "outcome", "bank_cents", "banker_result_cents", "cagnotte_cents",
                  "garage_cents", "garage_kind", "bank_after_cents", "bank_event", "banker_id"],
    "wheel_spins": ["revolutions", "stop_slot", "symbol", "status", "on_pivot", "obstructed"],
    "dice_throws": ["die1", "die2", "die3", "result", "dice_set_id", "launcher_id", "status", "null_reason"],
    "tournaments": ["fees_cents", "organisation_costs_cents", "prizes_cents", "starts_on", "notified_on", "authorised_from", "authorised_to", "venue"],
    "cdf_stakes": ["kind", "amount_cents", "result_cents", "player_id"],
    "wheel_bets": ["symbol", "stake_cents", "payout_cents", "stake_returned"],
    "dice_bets": ["target", "placement", "chips_cents", "payout_cents", "collected"],
}


def _lookup(result: AuditResult, table: str, key: str, ids: set[str]) -> dict[str, dict[str, object]]:
    frame = result.bundle.frames.get(table)
    if frame is None or not ids:
        return {}
    shown = frame[[key, *(c for c in EVIDENCE_COLUMNS[table] if c in frame.columns and c != key)]]
    return {str(r[key]): r for r in _records(shown.take(rows_holding(frame[key], sorted(ids))))}


def _columns(frame: pd.DataFrame) -> dict[str, list[object]]:
    """The frame's values by column, boxed a column at a time (`tolist`): pandas'
    to_dict("records") boxes each cell on its own (the month's report: its context 0.36 -> 0.25 s,
    evidence and findings shown)."""
    return {name: frame[name].tolist() for name in frame.columns}


def _records(frame: pd.DataFrame) -> list[dict[str, object]]:
    """The rows as dicts (`_columns`)."""
    columns = _columns(frame)
    return [dict(zip(columns, values, strict=True)) for values in zip(*columns.values(), strict=True)]


def _shown_rows(findings: pd.DataFrame, per_rule: int) -> pd.DataFrame:
    """At most `per_rule` findings of each rule, in the findings' order, as they are held."""
    return findings.groupby("rule", sort=False).head(per_rule) if len(findings) else findings


def _python_values(values: pd.Series) -> list[object]:
    """The column's values as Python objects, None for any missing one: text converted by Arrow in
    C, anything else by pandas (`with_none`)."""
    text = text_array(values)
    return text.to_pylist() if text is not None else with_none(values).tolist()  # type: ignore[no-any-return]


def _distinct_text(values: pd.Series) -> set[str]:
    """The column's distinct values, missing ones left out, as text: each looked at once."""
    return set(map(str, values.dropna().unique()))


class Evidence:
    """The findings the report shows (`shown`) and the rows of the tables their evidence comes
    from, looked up in two threads started at once: each lookup searches a whole table's ids in
    Arrow and numpy, which let go of the interpreter's lock, so that the lookups (the month's
    report: 0.10 s) run beside whatever the caller does next, violations.jsonl above all, which
    holds it. `write.write_outputs` starts them before the other outputs (the benchmark's month,
    four sets of twenty alternating runs: outputs' median 0.53-0.57 -> 0.49-0.53 s); `found` waits."""

    def __init__(self, result: AuditResult, per_rule: int = PER_RULE) -> None:
        self.per_rule = per_rule
        rows = _shown_rows(result.findings, per_rule)
        self._lookups: list[Future[dict[str, dict[str, object]]]] = []
        if len(rows):
            # The lookups started first, from the ids as held, and the shown findings made Python
            # values while they run (the month's: 22 -> 11 ms before they start).
            rounds, items = _distinct_text(rows["round_id"]), _distinct_text(rows["item_id"])
            wanted = [("cdf_coups", "coup_id", rounds), ("wheel_spins", "spin_id", rounds), ("dice_throws", "throw_id", rounds),
                      ("tournaments", "tournament_id", rounds), ("cdf_stakes", "stake_id", items), ("wheel_bets", "bet_id", items),
                      ("dice_bets", "bet_id", items)]
            pool = ThreadPoolExecutor(max_workers=min(2, os.cpu_count() or 1), thread_name_prefix="evidence")
            self._lookups = [pool.submit(_lookup, result, *w) for w in wanted]
            pool.shutdown(wait=False)  # its threads end once the lookups are done
        self.shown = rows
        # The fields the report reads (`SHOWN`), as Python values (`_python_values`): every field
        # made Python values by pandas, then boxed again, took 10 ms of the month's 5.8k (25 beside
        # the lookups).
        self.fields = {name: _python_values(rows[name]) for name in SHOWN}

    def found(self) -> list[dict[str, dict[str, object]]]:
        """Each table's rows by id, in the order of `wanted`; an error of a lookup is raised here."""
        return [lookup.result() for lookup in self._lookups]


class _EvidenceOf:
    """(label, value) pairs of a shown finding (`shown` row `i`): the round's cards or dice, the
    stakes and payouts, made when asked (`_Listed`). What all need is made once: the rows looked up
    (`Evidence.found`), every shown coup's hand totals parsed at once."""

    def __init__(self, evidence: Evidence) -> None:
        fields = evidence.fields
        self.rounds = [str(v) for v in fields["round_id"]]
        self.items = [str(v) for v in fields["item_id"]]
        self.games = fields["game"]
        self.found = evidence.found()  # none when nothing is shown (no lookup started): then never called
        coups = self.found[0] if self.found else {}
        hands = pd.Series([c[col] for c in coups.values() for col in ("player_cards", "banker_cards")], dtype=object)
        values, _, _ = parse_hands(hands)
        totals = np.where(values >= 0, values, 0).sum(axis=1) % 10 if len(hands) else []
        self.score = {(rid, side): int(totals[2 * i + side]) for i, rid in enumerate(coups) for side in (0, 1)}

    def __call__(self, i: int) -> list[tuple[str, str]]:
        coups, spins, throws, tours, stakes, wbets, dbets = self.found
        rid, iid, game = self.rounds[i], self.items[i], self.games[i]
        ev: list[tuple[str, str]] = []
        if game == "chemin_de_fer" and rid in coups:
            c = coups[rid]
            scores = [self.score[(rid, 0)], self.score[(rid, 1)]]
            ev += [("ev_punt", f"{c['player_cards']} ({scores[0]})"), ("ev_banca", f"{c['banker_cards']} ({scores[1]})"),
                   ("ev_mode", _text(c["mode"])), ("ev_outcome", _text(c["outcome"])), ("ev_bank", money(c["bank_cents"])),
                   ("ev_banker_result", money(c["banker_result_cents"])), ("ev_cagnotte", money(c["cagnotte_cents"])),
                   ("ev_garage", f"{money(c['garage_cents'])} {_text(c['garage_kind']) if c['garage_cents'] else ''}".strip()),
                   ("ev_bank_after", money(c["bank_after_cents"])), ("ev_event", f"{c['bank_event']} · {c['banker_id']}")]
            if iid in stakes:
                s = stakes[iid]
                ev += [("ev_stake", f"{s['kind']} {money(s['amount_cents'])} → {money(s['result_cents'])} ({s['player_id']})")]
        elif game == "wheel_of_fortune" and rid in spins:
            s = spins[rid]
            ev += [("ev_revolutions", _text(s["revolutions"])), ("ev_slot", _text(s["stop_slot"])), ("ev_symbol", _text(s["symbol"])),
                   ("ev_status", _text(s["status"])), ("ev_pivot", f"{_text(s['on_pivot'])}/{_text(s['obstructed'])}")]
            if iid in wbets:
                b = wbets[iid]
                ev += [("ev_bet", f"{b['symbol']} {money(b['stake_cents'])} → {money(b['payout_cents'])}, returned {_text(b['stake_returned'])}")]
        elif game == "banca_francesa" and rid in throws:
            t = throws[rid]
            ev += [("ev_dice", f"{_text(t['die1'])} {_text(t['die2'])} {_text(t['die3'])}"), ("ev_result", _text(t["result"])),
                   ("ev_set", f"{t['dice_set_id']} / {t['launcher_id']}"), ("ev_status", _text(t["status"]))]
            if pd.notna(t.get("null_reason")):
                ev.append(("ev_null", _text(t["null_reason"])))
            if iid in dbets:
                b = dbets[iid]
                ev += [("ev_bet", f"{b['target']} {b['placement']} {money(b['chips_cents'])} → {money(b['payout_cents'])}, collected {_text(b['collected'])}")]
        elif game == "tournament" and rid in tours:
            t = tours[rid]
            ev += [("ev_fees", money(t["fees_cents"])), ("ev_costs", money(t["organisation_costs_cents"])), ("ev_prizes", money(t["prizes_cents"])),
                   ("ev_starts", _text(t["starts_on"])), ("ev_notified", _text(t["notified_on"])),
                   ("ev_authorised", f"{_text(t['authorised_from'])} – {_text(t['authorised_to'])}"), ("ev_venue", _text(t["venue"]))]
        return ev


class _Listed:
    """A rule's shown findings as the template lists them: each one's fields by name, its time as
    the report prints it and its evidence, made as the template reaches it and let go after its
    row is written, so that a rule's hundred at most are held as Python objects at once, not every
    shown finding's (the month's 5.8k: some 150k objects, 2.8k pages of fresh memory)."""

    def __init__(self, columns: dict[str, list[object]], rows: list[int], evidence_of: _EvidenceOf) -> None:
        self.columns, self.rows, self.evidence_of = columns, rows, evidence_of

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[dict[str, object]]:
        for i in self.rows:
            record = {name: values[i] for name, values in self.columns.items()}
            record["evidence"] = self.evidence_of(i)
            # The time as the report prints it (UTC, without its offset), made here rather than by
            # two of the template's filters a finding.
            ts = record["ts"]
            record["shown_ts"] = str(ts).replace("T", " ").replace("+00:00", "") if ts else "—"
            yield record


# A shown finding's fields the report prints (besides its evidence and its time as printed).
LISTED = ("table_id", "round_id", "item_id", "ts", "message", "source")
# The fields of the shown findings the report reads: its game and rule, and those it prints.
SHOWN = ("game", "rule", *LISTED)


def _bars(counts: dict[str, int]) -> list[dict[str, object]]:
    top = max(counts.values(), default=0) or 1
    return [{"label": k, "value": v, "pct": round(100 * v / top, 1)} for k, v in counts.items()]


def build_context(result: AuditResult, summary: dict[str, object], lang: str, per_rule: int = PER_RULE,
                  evidence: Evidence | None = None) -> dict[str, object]:
    """What the template shows. `evidence`: the shown findings and their rows, looked up ahead
    (`Evidence` of the same result; its `per_rule` then holds); looked up here when not given."""
    findings = result.findings
    if evidence is None:
        evidence = Evidence(result, per_rule)
    per_rule = evidence.per_rule
    # Each shown finding's row put with its rule's in one pass, not a pandas filter a rule. Only the
    # fields the template prints are boxed, and made a finding's record (`_Listed`): the month's 5.8k
    # shown findings, 13 fields each, took 23 ms of records where these 6 take 11.
    columns = evidence.fields
    fields = {name: columns[name] for name in LISTED}
    listed: dict[tuple[str, str], list[int]] = {}  # (game, rule): the rows of its findings shown
    for i, key in enumerate(zip(map(str, columns["game"]), map(str, columns["rule"]), strict=True)):
        listed.setdefault(key, []).append(i)
    evidence_of = _EvidenceOf(evidence)
    totals: dict[str, int] = summary["findings"]["by_rule"]  # type: ignore[index]  # counted once, by the summary
    groups = []
    for game in GAME_ORDER:
        rules = []
        for code in sorted(c for g, c in listed if g == game):
            rule = REGISTRY[code]
            rules.append({
                "rule": rule, "doc": HOLDS_CA[code] if lang == "ca" else rule.doc.split("\n\n")[0],
                "article": article_text(rule.citation), "total": int(totals[code]),
                "findings": _Listed(fields, listed[(game, code)], evidence_of),
            })
        if rules:
            groups.append({"game": game, "name": game_name(game, lang), "rules": rules})
    by_rule = pd.Series(totals, dtype=np.int64).sort_values(ascending=False).to_dict()
    days = result.spilled.tally.days() if result.spilled is not None else per_day(findings["ts"], result.ruleset.timezone)
    tables = cast(list[dict[str, Any]], summary["tables"])
    top_staked = max((t["staked_cents"] for t in tables), default=0) or 1
    sev = summary["findings"]["by_severity"]  # type: ignore[index]
    return {
        "L": labels(lang),
        "lang": lang,
        "summary": summary,
        "verdict": summary["verdict"],
        "severity_counts": [(s, sev[s]) for s in SEVERITIES],
        "groups": groups,
        "by_rule": _bars({k: int(v) for k, v in by_rule.items()}),
        "per_day": _bars(days),
        "tables": [dict(t, pct=round(100 * t["staked_cents"] / top_staked, 1), game_name=game_name(t["game"], lang)) for t in tables[:PER_TABLE]],
        "tables_total": len(tables),
        "parameters": [
            {"name": p.name, "dated": [(str(d), v) for d, v in p.values], "description": p.description, "reference": p.reference}
            for p in result.ruleset.parameters.values()
        ],
        "not_run": sorted(result.rules_not_run.items()),
        "failed": sorted(result.errors.items()),
        "per_rule": per_rule,
        "generated": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "game_name": lambda g: game_name(g, lang),
    }


def render(result: AuditResult, summary: dict[str, object], lang: str = "ca", per_rule: int = PER_RULE,
           evidence: Evidence | None = None) -> str:
    return template().render(**build_context(result, summary, lang, per_rule, evidence))


def write_html(result: AuditResult, summary: dict[str, object], path: Path, lang: str = "ca", per_rule: int = PER_RULE,
               evidence: Evidence | None = None) -> None:
    """`render`'s report written to `path` as the template makes it (`write_streamed`), not held
    whole first."""
    write_streamed(template().generate(**build_context(result, summary, lang, per_rule, evidence)), path)


PIECES_AT_ONCE = 2000  # pieces of the template's output joined and written at a time


def write_streamed(pieces: Iterator[str], path: Path, at_once: int = PIECES_AT_ONCE) -> None:
    """The text of `pieces` written to `path` as UTF-8, `at_once` pieces at a time, so that the
    template's output (the month's report: some 300k pieces, 4 MB) is never held whole as pieces,
    as a string and as its bytes: that memory was fresh pages for the kernel to fault in on the
    audit's last, single-threaded step (a fresh process after the month's audit, six alternated
    triples: outputs 0.35-0.46 -> 0.27-0.36 s, page faults 7.5-7.7k -> 4.4-4.5k). Written whole or
    not at all (`written_whole`): a report cut short by an error is never left for a reader to take
    for a whole one."""
    with written_whole(path) as fh:
        while chunk := list(islice(pieces, at_once)):  # a list: pieces may be empty strings
            fh.write("".join(chunk).encode("utf-8"))
