"""Findings from every rule, gathered into the order the output contract fixes."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers import SAMPLES

from auditor.engine import FINDING_COLUMNS, SORT_KEYS, sorted_findings


def _part(rng: np.random.Generator, n: int, rule: str, arrow_text: bool) -> pd.DataFrame:
    def text(values: list[object]) -> pd.Series:
        return pd.Series(values, dtype="str") if arrow_text else pd.Series(values, dtype=object)

    def same(value: str) -> pd.Series:  # as to_findings writes a rule's own fields
        return pd.Series(pd.Categorical([value] * n))

    pick = lambda options: [options[i] for i in rng.integers(0, len(options), n)]  # noqa: E731
    return pd.DataFrame({
        "rule": same(rule), "name": same("x"), "severity": same("major"),
        "game": text(pick(["wheel_of_fortune", "chemin_de_fer"])), "table_id": text(pick(["T1", "T2", None])),
        "round_id": text(pick(["R1", "R2"])), "item_id": text(pick(["B1", None, "B2"])),
        "ts": text(pick(["2026-03-01T21:00:00+00:00", None, "2026-03-01T20:59:59+00:00"])),
        "expected": pd.Series(pick([2500, "before 21:00", None]), dtype=object),
        "observed": pd.Series(pick([2000, "late", None]), dtype=object),
        "message": text(pick(["b.", "a.", "é."])), "citation": same("Decret 455/2025"),
        "source": text(pick(["wheel_bets.csv:3", "wheel_bets.csv:12", "dice_bets.csv:3"])),
    })


def test_findings_are_sorted_by_the_spec_keys_then_source_and_message_across_parts() -> None:
    rng = np.random.default_rng(3)
    parts = [_part(rng, 300, "WHL208", True), _part(rng, 200, "CDF101", False), _part(rng, 1, "LOG003", True)]
    everything = pd.concat(parts, ignore_index=True)
    keys = SORT_KEYS + ["source", "message"]
    # The oracle: pandas' stable sort on the same keys, missing values first as "".
    expected = everything.assign(**{f"_{k}": everything[k].astype(object).where(everything[k].notna(), "") for k in keys})
    expected = expected.sort_values([f"_{k}" for k in keys], kind="stable")[FINDING_COLUMNS].reset_index(drop=True)

    got = sorted_findings(parts)

    assert list(got.columns) == FINDING_COLUMNS
    pd.testing.assert_frame_equal(got.astype(object).where(got.notna(), None), expected.astype(object).where(expected.notna(), None))
    assert parts == []  # consumed: never held twice
    # Grouping by a rule's fields orders as grouping their text would (the report's chart, junit).
    assert list(got.groupby("rule").size().index) == sorted({"WHL208", "CDF101", "LOG003"})


def test_no_findings_is_an_empty_frame_with_every_column() -> None:
    assert list(sorted_findings([]).columns) == FINDING_COLUMNS
    assert sorted_findings([pd.DataFrame(columns=FINDING_COLUMNS)]).empty


def test_findings_with_no_detail_and_no_values_have_the_rules_summary_as_message() -> None:
    from auditor.engine import to_findings
    from auditor.rules import REGISTRY

    hits = pd.DataFrame({"table_id": ["T1", "T2"], "round_id": ["R1", "R2"], "item_id": [None, None],
                         "ts": pd.to_datetime(["2026-03-01T21:00:00Z", None], utc=True), "expected": None, "observed": None,
                         "file": ["a.csv", "a.csv"], "line": [3, 4], "detail": None})
    for code in ("LOG005", "CDF120"):  # a log rule (values never in its message) and a game rule
        rule = REGISTRY[code]
        f = to_findings(rule, hits, "en")
        assert list(f["message"]) == [rule.summary["en"] + "."] * 2 and list(f["source"]) == ["a.csv:3", "a.csv:4"]


def test_several_rules_hits_made_findings_at_once_are_each_rules_findings_alone() -> None:
    """A game's hits are turned into findings a few rules at a time (`findings_of`): each rule's rows
    must read as they would alone, whatever the other rules' columns hold (text or numbers, times in
    another unit or none, details or not, values in the message or not)."""
    from auditor.engine import findings_of, to_findings
    from auditor.rules import REGISTRY

    late = pd.DataFrame({"table_id": pd.Series(["W1", None], dtype="str"), "round_id": pd.Series(["S1", "S2"], dtype="str"),
                         "item_id": pd.Series(["B1", "B2"], dtype="str"),
                         "ts": pd.to_datetime(["2026-03-01T21:00:00.250Z", "2026-03-01T21:00:01.000Z"], utc=True).as_unit("us"),
                         "expected": pd.Series(["before 21:00", None], dtype=object), "observed": pd.Series([2000, None], dtype=object),
                         "file": pd.Categorical(["wheel_bets.csv", "wheel_bets.csv"]), "line": np.array([3, 9]),
                         "detail": pd.Series([None, "touched"], dtype=object)})
    cagnotte = pd.DataFrame({"table_id": ["C1"], "round_id": ["K1"], "item_id": [None],
                             "ts": pd.to_datetime(["2026-03-01T22:00:00.000000001Z"], utc=True), "expected": [2500], "observed": [2400],
                             "file": ["cdf_coups.parquet"], "line": [1], "detail": [None]})
    orphan = pd.DataFrame({"table_id": [None], "round_id": [None], "item_id": ["X9"], "ts": [pd.NaT], "expected": ["a spin"],
                           "observed": ["none"], "file": [None], "line": [0], "detail": ["spin_id S404"]})
    ruled = [(REGISTRY["WHL208"], late), (REGISTRY["CDF101"], cagnotte), (REGISTRY["LOG003"], orphan)]

    together = findings_of(ruled, "ca")
    alone = [to_findings(rule, hits, "ca") for rule, hits in ruled]

    assert list(together.columns) == FINDING_COLUMNS and len(together) == 4
    def plain(frame: pd.DataFrame) -> list[dict[str, object]]:
        return frame.astype(object).where(frame.notna(), None).to_dict("records")
    assert plain(together) == [row for part in alone for row in plain(part)]
    assert list(together["source"]) == ["wheel_bets.csv:3", "wheel_bets.csv:9", "cdf_coups.parquet:1", ""]
    assert list(together["ts"].iloc[:3]) == ["2026-03-01T21:00:00.250000+00:00", "2026-03-01T21:00:01+00:00", "2026-03-01T22:00:00+00:00"]
    assert list(together["rule"]) == ["WHL208", "WHL208", "CDF101", "LOG003"]
    assert "(" not in together["message"].iloc[3]  # a log rule's message never carries its values


def test_findings_times_and_ids_read_as_held_are_each_rules_own_whatever_their_kind() -> None:
    """A finding's time is its hit's instant in UTC, and its ids its hit's ids as
    text, missing as missing, whatever kind of column each rule's hits hold them in: times zoned in
    another zone, naive (UTC), in seconds or nanoseconds, dates, none at all; ids as Arrow text,
    Python strings, categories, numbers."""
    import datetime as dt

    from auditor.engine import findings_of
    from auditor.rules import REGISTRY

    times = [pd.Series(pd.to_datetime(["2026-03-28T23:30:00.5Z", None], utc=True).tz_convert("Europe/Andorra")),
             pd.Series(pd.to_datetime(["2026-03-29T01:00:00.000000001", "1970-01-01T00:00:00.000000000"]).as_unit("ns")),
             pd.Series(pd.to_datetime(["2026-03-01T21:00:00", "2026-03-01T21:00:01"]).as_unit("s")),
             pd.Series([dt.date(2026, 3, 2), None], dtype=object),
             pd.Series(np.full(2, np.datetime64("NaT", "ns")))]
    ids = [pd.Series(["T1", None], dtype="str"), pd.Series(["T2", None], dtype=object),
           pd.Series(pd.Categorical(["T3", None])), pd.Series(["T4", "T5"], dtype="str"), pd.Series([7, None], dtype=object)]
    parts = [pd.DataFrame({"table_id": table, "round_id": table, "item_id": pd.Series([None, "I"], dtype=object), "ts": ts,
                           "expected": None, "observed": None, "file": "f.csv", "line": [1, 2], "detail": None})
             for ts, table in zip(times, ids, strict=True)]
    found = findings_of([(REGISTRY["CDF120"], part) for part in parts], "en")
    assert [None if pd.isna(v) else v for v in found["ts"]] == [
        "2026-03-28T23:30:00.500000+00:00", None, "2026-03-29T01:00:00+00:00", "1970-01-01T00:00:00+00:00",  # a nanosecond: no microsecond
        "2026-03-01T21:00:00+00:00", "2026-03-01T21:00:01+00:00", "2026-03-02T00:00:00+00:00", None, None, None]
    shown = [None if pd.isna(v) else v for v in found["table_id"]]
    assert shown == ["T1", None, "T2", None, "T3", None, "T4", "T5", 7, None]
    assert shown == [None if pd.isna(v) else v for v in found["round_id"]]
    texts = findings_of([(REGISTRY["CDF120"], part) for part in parts[:4]], "en")  # every part's ids text: read by Arrow
    assert [None if pd.isna(v) else v for v in texts["table_id"]] == shown[:8] and str(texts["table_id"].dtype) == "str"


def test_the_findings_are_the_same_however_a_games_rules_were_batched() -> None:
    """Which rules' hits are made findings together depends on which thread took them (`_GameWork`):
    a text rule's missing value must read the same, batched with text rules only (Arrow text) or
    with a rule whose values are numbers (Python values), once every part is sorted together."""
    from auditor.engine import findings_of
    from auditor.rules import REGISTRY

    def hits(expected: list[object], observed: list[object], round_id: str) -> pd.DataFrame:
        n = len(expected)
        return pd.DataFrame({"table_id": pd.Series(["T1"] * n, dtype="str"), "round_id": pd.Series([round_id] * n, dtype="str"),
                             "item_id": pd.Series([None] * n, dtype="str"),
                             "ts": pd.to_datetime(["2026-03-01T21:00:00Z"] * n, utc=True),
                             "expected": pd.Series(expected, dtype="str" if all(isinstance(v, str) or v is None for v in expected) else object),
                             "observed": pd.Series(observed, dtype="str" if all(isinstance(v, str) or v is None for v in observed) else object),
                             "file": pd.Categorical(["a.csv"] * n), "line": np.arange(1, n + 1), "detail": pd.Series([None] * n, dtype=object)})

    text_a = (REGISTRY["WHL208"], hits(["before 21:00", "before 21:00"], ["late", None], "R1"))
    text_b = (REGISTRY["CDF120"], hits(["9H", None], ["TC", "TC 6H"], "R2"))
    numbers = (REGISTRY["CDF101"], hits([2500], [2400], "R3"))

    text_first = sorted_findings([findings_of([text_a, text_b], "en"), findings_of([numbers], "en")])
    mixed_first = sorted_findings([findings_of([text_a, numbers], "en"), findings_of([text_b], "en")])
    one_by_one = sorted_findings([findings_of([r], "en") for r in (text_a, text_b, numbers)])

    pd.testing.assert_frame_equal(text_first, mixed_first)
    pd.testing.assert_frame_equal(text_first, one_by_one)
    observed = text_first["observed"]
    assert observed.dtype == object and [v for v in observed if not isinstance(v, (str, int))] == [None]  # JSON's null, never NaN


def test_hits_hands_a_rules_functions_the_offending_rows_only() -> None:
    """`hits` cuts whole-frame Series to the offending rows, and a function of the rows sees those
    rows alone, by index and by column name, whatever the frame's index labels."""
    from auditor.rules.base import hits

    frame = pd.DataFrame({"coup_id": pd.array(["C1", "C2", "C3", "C4"], dtype="str"), "bank": [10, 20, 30, 40],
                          "ts": pd.to_datetime(["2026-03-01T21:00:00Z"] * 4, utc=True)}, index=[40, 30, 20, 10])
    seen: list[list[int]] = []

    def expected(rows: object) -> pd.Series:
        seen.append(list(rows.index))  # type: ignore[attr-defined]
        return "<= " + rows["bank"].astype(str)  # type: ignore[index]

    found = hits(frame, frame["bank"] > 15, round_col="coup_id", expected=expected, observed=frame["bank"] * 2, detail=lambda rows: rows["coup_id"])
    assert seen == [[30, 20, 10]]
    assert list(found["round_id"]) == ["C2", "C3", "C4"]
    assert list(found["expected"]) == ["<= 20", "<= 30", "<= 40"] and list(found["observed"]) == [40, 60, 80]
    assert list(found["detail"]) == ["C2", "C3", "C4"]
    assert hits(frame, frame["bank"] > 99, round_col="coup_id").empty
    # Text with a missing value stays Python values, None kept (JSON's null): pandas 3 would make
    # an object array of text a string column, None NaN, unless told its dtype.
    missing = hits(frame, frame["bank"] > 25, round_col="coup_id", expected=None,
                   observed=pd.Series(["a", None, "c", None], index=frame.index, dtype=object))
    assert missing["observed"].dtype == object and list(missing["observed"]) == ["c", None]
    assert missing["expected"].dtype == object and list(missing["expected"]) == [None, None]
    assert list(missing.index) == [0, 1]


def test_the_pipelined_audit_is_the_audit_of_the_loaded_bundle() -> None:
    """audit_bundle (a game's tables loaded, audited and let go at a time) gives what run_audit gives
    on the bundle load_bundle loads: findings, rules run and not run, files and their counts,
    quarantine, figures, the summary and what the report shows, evidence included; on every sample,
    broken and malformed ones too. Of each game's frames it keeps only the rows findings name, but
    for the last turns' (no table left to load after them, and few findings), kept whole."""
    from auditor.engine import audit_bundle, run_audit
    from auditor.figures import table_figures
    from auditor.loading import load_bundle
    from auditor.loading.bundle import BundleLoad
    from auditor.report.html import build_context
    from auditor.report.outputs import build_summary
    from auditor.rules import select_rules
    from auditor.ruleset import load_ruleset
    from auditor.schema import REPORTED_ON, SHARED_GAME, TABLES

    def shown(result: object, summary: dict[str, object]) -> dict[str, object]:
        context = build_context(result, summary, "en")  # type: ignore[arg-type]
        for group in context["groups"]:  # type: ignore[attr-defined]
            for rule in group["rules"]:
                rule["findings"] = list(rule["findings"])  # each finding's fields and evidence, as the template lists them
        return {k: v for k, v in context.items() if k not in ("generated", "game_name", "L")}

    let_go: set[str] = set()
    for path in sorted(p for p in SAMPLES.iterdir() if p.is_dir()):
        for selected in (select_rules(), select_rules(["CDF", "LOG003"])):
            piped = audit_bundle(path, load_ruleset(), selected, lang="en", workers=2)
            loaded = load_bundle(path)
            whole = run_audit(loaded, load_ruleset(), selected, lang="en", workers=2)
            pd.testing.assert_frame_equal(piped.findings, whole.findings)
            assert [r.code for r in piped.rules_run] == [r.code for r in whole.rules_run]
            assert piped.rules_not_run == whole.rules_not_run and piped.errors == whole.errors
            assert piped.bundle.files == loaded.files and list(piped.bundle.frames) == list(loaded.frames)
            pd.testing.assert_frame_equal(piped.bundle.quarantine, loaded.quarantine)
            pd.testing.assert_frame_equal(table_figures(piped.bundle), table_figures(loaded))
            summary = build_summary(piped, "major")
            assert summary == build_summary(whole, "major")
            assert shown(piped, summary) == shown(whole, summary)
            named = set(piped.findings["round_id"].dropna()) | set(piped.findings["item_id"].dropna())
            shared, games = BundleLoad(path).turns()
            turns = [shared, *games] if shared else games
            whole_to_the_end = {t for n, tables in enumerate(turns) for t in tables if n + 2 >= len(turns) or tables is shared}
            assert len(piped.findings) < 100_000  # few findings: the last turns are not let go
            for table, frame in piped.bundle.frames.items():
                if table in whole_to_the_end:
                    assert len(frame) == len(loaded.frames[table]), table
                    continue
                round_col, item_col = REPORTED_ON[table]
                assert set(frame[item_col or round_col]) <= named if round_col else frame.empty, table
            if turns.index(games[0]) + 2 < len(turns):  # the largest game let go: fewer rows than it read
                let_go.add(path.name)
                assert any(len(piped.bundle.frames[t]) < len(loaded.frames[t]) for t in games[0]), path.name
    assert "casino-month" in let_go


def test_a_game_shared_by_two_threads_finds_what_one_thread_finds() -> None:
    """A game's rules taken by two threads at once (`_GameWork`, as a whole audit's threads share the
    last game): every rule run once, the same findings, not-run reasons and figures as one thread."""
    import threading

    from auditor.engine import _GameWork, _run_game
    from auditor.figures import game_figures
    from auditor.loading import load_bundle
    from auditor.rules import select_rules
    from auditor.ruleset import load_ruleset

    path = SAMPLES / "casino-month"
    rules = [r for r in select_rules() if r.game == "chemin_de_fer"]
    alone_bundle = load_bundle(path)
    alone = _run_game(alone_bundle, load_ruleset(), rules, "en", lambda _m: None, figures=True)

    bundle = load_bundle(path)
    both_started = threading.Barrier(2, timeout=10)
    first_rule: dict[str, str] = {}

    def say(message: str) -> None:  # each thread waits, at its first rule, until the other has one too
        name = threading.current_thread().name
        if name not in first_rule:
            first_rule[name] = message.split()[0]
            both_started.wait()

    work = _GameWork(bundle, load_ruleset(), rules, "en", say, figures=True)
    threads = [threading.Thread(target=work.work, name=f"t{i}") for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    shared = work.out
    assert len(first_rule) == 2 and len(set(first_rule.values())) == 2  # both took rules, not the same one
    assert sorted(r.code for r in shared.run) == sorted(r.code for r in alone.run) == sorted({r.code for r in shared.run})
    assert shared.not_run == alone.not_run and shared.errors == alone.errors == {}
    pd.testing.assert_frame_equal(shared.found.finish()[0], alone.found.finish()[0])
    assert work.ctx is None  # the prepared frames let go once the last rule ended
    pd.testing.assert_frame_equal(game_figures(bundle, "chemin_de_fer"), game_figures(alone_bundle, "chemin_de_fer"))


def test_a_rule_that_fails_is_reported_and_hides_no_other_finding() -> None:
    """A rule raising in the middle of a game its two threads share: its error is recorded, it is
    not counted as run, and every other rule's findings are those of the audit without it."""
    import dataclasses

    from auditor.engine import audit_bundle
    from auditor.rules import select_rules
    from auditor.ruleset import load_ruleset

    def broken(ctx: object) -> pd.DataFrame:
        raise RuntimeError("a broken rule")

    path = SAMPLES / "casino-month"
    rules = select_rules()
    victim = next(r for r in rules if r.code == "CDF105")
    with_broken = [dataclasses.replace(r, check=broken) if r is victim else r for r in rules]
    failed = audit_bundle(path, load_ruleset(), with_broken, lang="en", workers=2)
    whole = audit_bundle(path, load_ruleset(), [r for r in rules if r is not victim], lang="en", workers=2)
    assert failed.errors == {"CDF105": "RuntimeError: a broken rule"}
    assert "CDF105" not in {r.code for r in failed.rules_run}
    assert [r.code for r in failed.rules_run] == [r.code for r in whole.rules_run]
    pd.testing.assert_frame_equal(failed.findings, whole.findings)


def test_a_rule_reads_one_turn() -> None:
    """A whole audit holds one game's tables at a time, beside the shared ones (`BundleLoad.turns`):
    so every rule reads the tables of one game at most, besides the shared ones; a table names its
    parents in its own game or among the shared; and a shared table names none, so that the rule
    on orphans, run over each turn's tables with the shared ones beside them, reports each row once."""
    from auditor.rules import select_rules
    from auditor.schema import SHARED_GAME, TABLES

    for rule in select_rules():
        games = {TABLES[t].game for t in rule.tables} - {SHARED_GAME}
        assert len(games) <= 1, rule.code
        assert rule.game == SHARED_GAME or games <= {rule.game}, rule.code
    for table in TABLES.values():
        for _, parent in table.parents:
            assert TABLES[parent].game in (table.game, SHARED_GAME), table.name
        if table.game == SHARED_GAME:
            assert not table.parents, table.name


def test_a_turns_rules_do_not_judge_an_earlier_turns_frames(tmp_path: Path) -> None:
    """The rule on orphans runs in every turn over the frames its turn sees: a game's frames let go
    of in an earlier turn (their rows that findings name, kept as evidence) must not be judged
    again. A coup on a wheel table (LOG003) is reported once, as the loaded bundle's audit does."""
    from helpers import CDF_TABLE, WHEEL_TABLE, coup, stake_row, write_bundle
    from test_rules_tournaments import entry, tour

    from auditor.engine import audit_bundle, run_audit
    from auditor.loading import load_bundle
    from auditor.loading.bundle import BundleLoad
    from auditor.rules import select_rules
    from auditor.ruleset import load_ruleset

    write_bundle(tmp_path, {"tables": [CDF_TABLE, WHEEL_TABLE], "cdf_coups": [coup("C1"), coup("C2", table_id="W1", coup_no=2)],
                            "cdf_stakes": [stake_row("S1", "C1"), stake_row("S2", "C2")],
                            "tournaments": [tour("TR1")], "tournament_entries": [entry("P1", "1990-01-01", tournament_id="TR9")]})
    _, games = BundleLoad(tmp_path).turns()
    assert [t for turn in games for t in turn].index("cdf_coups") < len(games) - 1  # a turn comes after chemin de fer's
    piped = audit_bundle(tmp_path, load_ruleset(), select_rules(), lang="en")
    whole = run_audit(load_bundle(tmp_path), load_ruleset(), select_rules(), lang="en")
    pd.testing.assert_frame_equal(piped.findings, whole.findings)
    orphans = piped.findings[piped.findings["rule"] == "LOG003"]
    assert sorted(orphans["round_id"]) == ["C2", "TR9"]


def test_a_whole_audit_holds_two_games_tables_at_most(monkeypatch: pytest.MonkeyPatch) -> None:
    """A whole audit's memory is bounded by two games' tables, not by the bundle's: a game's tables
    start loading only once the game two turns before it is let go (the next game's load runs beside
    a game's rules). The month sample: four games."""
    from auditor.engine import audit_bundle
    from auditor.loading.bundle import BundleLoad
    from auditor.rules import select_rules
    from auditor.ruleset import load_ruleset

    samples = SAMPLES / "casino-month"
    events: list[tuple[str, str]] = []
    lock = threading.Lock()
    load_one, let_go = BundleLoad.load_one, BundleLoad.let_go

    def loading(self: BundleLoad, table: str):  # type: ignore[no-untyped-def]
        with lock:
            events.append(("load", table))
        return load_one(self, table)

    def letting_go(self: BundleLoad, tables: list[str], rounds: set[str], items: set[str]) -> None:
        with lock:
            events.append(("let go", ",".join(sorted(tables))))
        let_go(self, tables, rounds, items)

    monkeypatch.setattr(BundleLoad, "load_one", loading)
    monkeypatch.setattr(BundleLoad, "let_go", letting_go)
    shared, games = BundleLoad(samples).turns()
    assert len(games) == 4
    result = audit_bundle(samples, load_ruleset(), select_rules(), lang="en")
    assert not result.errors
    loaded = [table for what, table in events if what == "load"]
    assert sorted(loaded) == sorted(shared + [t for turn in games for t in turn])  # each table once
    first = {table: n for n, (what, table) in enumerate(events) if what == "load"}
    gone = {tables: n for n, (what, tables) in enumerate(events) if what == "let go"}
    for k, turn in enumerate(games[2:], start=2):
        earlier = gone[",".join(sorted(games[k - 2]))]
        assert all(first[t] > earlier for t in turn), (turn, events)
    # Every game's tables let go once, in its turn's order, but for the last two turns': once no table
    # is left to load, their frames stay whole to the end (the findings are few).
    assert [tables for what, tables in events if what == "let go"] == [",".join(sorted(turn)) for turn in games[:-2]]


def test_a_games_rules_run_beside_the_next_games_install_and_see_their_own_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    """The next game's tables are installed while a game's rules still run, so that the threads
    left with no rule of the game take the next game's at once; each turn's rules see the shared
    tables and their own only (LOG003 judges every frame it sees: another game's would be judged
    twice). Here each game's LOG003 waits until the next game's tables are in, which never happens
    if installing them waits for the game's rules to end. The month sample."""
    import dataclasses

    from auditor.engine import audit_bundle
    from auditor.loading.bundle import BundleLoad, _TableLoad
    from auditor.rules import select_rules
    from auditor.rules.base import Context
    from auditor.ruleset import load_ruleset

    samples = SAMPLES / "casino-month"
    shared, games = BundleLoad(samples).turns()
    assert len(games) == 4
    installed: set[str] = set()
    game_in = [threading.Event() for _ in games]  # each game's tables all installed
    install = BundleLoad.install

    def installing(self: BundleLoad, table: str, load: _TableLoad) -> None:
        install(self, table, load)
        installed.add(table)
        for n, turn in enumerate(games):
            if installed >= set(turn):
                game_in[n].set()

    seen: list[frozenset[str]] = []
    waited: list[bool] = []
    rules = select_rules()
    (orphans,) = [r for r in rules if r.code == "LOG003"]

    def judging(ctx: Context) -> pd.DataFrame:
        playing = [n for n, turn in enumerate(games) if turn[0] in ctx.bundle.frames]
        if playing and playing[0] + 1 < len(games):
            waited.append(game_in[playing[0] + 1].wait(timeout=20))
        seen.append(frozenset(ctx.bundle.frames))
        return orphans.check(ctx)

    monkeypatch.setattr(BundleLoad, "install", installing)
    rules = [dataclasses.replace(r, check=judging) if r is orphans else r for r in rules]
    result = audit_bundle(samples, load_ruleset(), rules, lang="en", workers=2)
    assert not result.errors
    assert waited == [True] * (len(games) - 1)
    assert sorted(seen, key=sorted) == sorted([frozenset(shared)] + [frozenset(shared + turn) for turn in games], key=sorted)


def test_the_main_thread_waits_for_a_turn_without_spinning(monkeypatch: pytest.MonkeyPatch) -> None:
    """While the next game's tables load and a game's rules run, the main thread sleeps until one of
    them ends. A thread of the game already done (the first of its two to find no rule left) must not
    end each wait at once: the main thread would spin, taking the interpreter's lock from the rules'
    threads, for as long as the game's last rule ran. Here that rule takes half a second, and so do
    the next game's loads: a spin waits thousands of times, a sleep a few. The month sample."""
    import dataclasses
    import time

    import auditor.engine as engine
    from auditor.loading.bundle import BundleLoad
    from auditor.rules import select_rules
    from auditor.ruleset import load_ruleset
    from auditor.schema import TABLES

    samples = SAMPLES / "casino-month"
    _, games = BundleLoad(samples).turns()
    first_game, later = TABLES[games[0][0]].game, set(games[1])
    load_one, wait = BundleLoad.load_one, engine.wait
    waits = [0]

    def slow_load(self: BundleLoad, table: str):  # type: ignore[no-untyped-def]
        if table in later:
            time.sleep(0.5)
        return load_one(self, table)

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        waits[0] += 1
        return wait(*args, **kwargs)

    rules = select_rules()
    slow = next(r for r in rules if r.game == first_game)

    def slow_check(ctx):  # type: ignore[no-untyped-def]
        time.sleep(0.5)
        return slow.check(ctx)

    monkeypatch.setattr(BundleLoad, "load_one", slow_load)
    monkeypatch.setattr(engine, "wait", counted)
    rules = [dataclasses.replace(r, check=slow_check) if r is slow else r for r in rules]
    result = engine.audit_bundle(samples, load_ruleset(), rules, lang="en", workers=2)
    assert not result.errors
    assert waits[0] < 100, waits[0]
