"""Rulesets: dated parameters with references, validated at load, never executed."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pandas as pd
import pytest

from auditor.rules import REGISTRY
from auditor.ruleset import PARAMETERS, RULESET_DIR, RulesetError, load_ruleset


def test_the_shipped_ruleset_has_every_parameter_with_reference_and_date() -> None:
    rs = load_ruleset("decret-455-2025")
    assert set(rs.parameters) == set(PARAMETERS)
    for p in rs.parameters.values():
        assert p.reference.strip() and p.description.strip() and p.values[0][0] == dt.date(2025, 12, 10)
    assert rs.value("cagnotte_rate") == 0.05 and rs.value("bank_max_multiple") == 100 and rs.value("min_revolutions") == 4


def test_every_parameter_a_rule_reads_exists() -> None:
    read = {p for r in REGISTRY.values() for p in r.parameters}
    assert read <= set(PARAMETERS)


def _write(tmp_path: Path, edit: str, old: str) -> Path:
    text = (RULESET_DIR / "decret-455-2025.toml").read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "custom.toml"
    path.write_text(text.replace(old, edit), encoding="utf-8")
    return path


@pytest.mark.parametrize(("old", "new", "message"), [
    ("values = { 2025-12-10 = 0.05 }", "values = { 2025-12-10 = \"five\" }", "cagnotte_rate"),
    ("values = { 2025-12-10 = 100 }", "values = { }", "bank_max_multiple"),
    ("values = { 2025-12-10 = \"half_up\" }", "values = { 2025-12-10 = \"banker's\" }", "must be one of"),
    ("[parameters.min_players]", "[parameters.min_playerz]", "not a parameter any rule reads"),
    ("id = \"decret-455-2025\"", "id = [", "not valid TOML"),
    # TOML's nan passes every bound: a cagnotte rate of nan judged no coup and said nothing.
    ("values = { 2025-12-10 = 0.05 }", "values = { 2025-12-10 = nan }", "cagnotte_rate.*must be a finite number"),
    ("values = { 2025-12-10 = 0.05 }", "values = { 2025-12-10 = -inf }", "cagnotte_rate.*must be a finite number"),
    ('{ "24" = 1, "15" = 2,', '{ "24" = inf, "15" = 2,', "wheel_odds.*finite number"),
    ("values = { 2025-12-10 = 100 }", "values = { 2025-12-10 = 1" + "0" * 400 + " }", "bank_max_multiple.*within 64 bits"),
    ('{ "24" = 1, "15" = 2,', '{ "24" = 1' + "0" * 400 + ', "15" = 2,', "wheel_odds.*within 64 bits"),
    ("values = { 2025-12-10 = 100 }", "values = { 2025-12-10 = 1" + "0" * 5000 + " }", "not valid TOML: Exceeds the limit"),
])
def test_malformed_rulesets_are_refused_with_the_parameter_named(tmp_path: Path, old: str, new: str, message: str) -> None:
    with pytest.raises(RulesetError, match=message):
        load_ruleset(_write(tmp_path, new, old))


def test_unknown_ruleset_name() -> None:
    with pytest.raises(RulesetError, match="no such ruleset"):
        load_ruleset("decret-999")


def test_a_value_applies_from_its_date(tmp_path: Path) -> None:
    rs = load_ruleset(_write(tmp_path, "values = { 2025-12-10 = 0.05, 2026-07-01 = 0.04 }", "values = { 2025-12-10 = 0.05 }"))
    when = pd.Series(pd.to_datetime(["2026-03-01T10:00Z", "2026-07-01T00:00Z", "2025-01-01T00:00Z"]))
    assert list(rs.series("cagnotte_rate", when)) == [0.05, 0.04, 0.05]
    assert rs.value("cagnotte_rate", dt.date(2026, 8, 1)) == 0.04


def test_a_rule_uses_the_value_in_force_on_each_rounds_date(tmp_path: Path) -> None:
    from helpers import at, audit, cdf, coup

    from auditor.engine import run_audit
    from auditor.loading import load_bundle
    from auditor.rules import select_rules

    ruleset = load_ruleset(_write(tmp_path, "values = { 2025-12-10 = 4, 2026-03-03 = 5 }", "values = { 2025-12-10 = 4 }"))
    coups = [coup("C1", players_seated=4, ts=at(0)), coup("C2", players_seated=4, ts=at(86400))]  # 2 March, then 3 March
    assert audit(tmp_path / "b", cdf(coups), "CDF120").empty  # the default ruleset (4 players throughout)
    findings = run_audit(load_bundle(tmp_path / "b"), ruleset, select_rules("CDF120"), lang="en").findings
    assert list(findings["round_id"]) == ["C2"] and findings.iloc[0]["expected"] == 5


def test_a_table_valued_parameter_is_looked_up_per_row_by_date(tmp_path: Path) -> None:
    old = "values = { 2025-12-10 = { asos = 61, petit = 1, gran = 1 } }"
    rs = load_ruleset(_write(tmp_path, old[:-2] + ", 2026-07-01 = { asos = 60, petit = 1, gran = 1 } }", old))
    keys = pd.Series(["asos", "petit", "asos", "unknown", None], dtype="str", index=[4, 3, 2, 1, 0])
    when = pd.Series(pd.to_datetime(["2026-03-01T10:00Z", "2026-08-01T00:00Z", "2026-07-01T00:00Z", "2026-03-01T00:00Z", "2026-03-01T00:00Z"]), index=keys.index)
    odds = rs.lookup("dice_odds", keys, when)
    assert list(odds.index) == [4, 3, 2, 1, 0]
    assert odds.iloc[:3].tolist() == [61.0, 1.0, 60.0] and odds.iloc[3:].isna().all()
    assert load_ruleset("decret-455-2025").lookup("dice_odds", keys, when).iloc[:3].tolist() == [61.0, 1.0, 61.0]
    # An enum column as loaded (a Categorical, here with a category the table lacks): the same answers.
    enum = pd.Series(pd.Categorical(keys, categories=["gran", "unknown", "petit", "asos"]), index=keys.index)
    pd.testing.assert_series_equal(rs.lookup("dice_odds", enum, when), odds)


def test_a_value_takes_effect_at_midnight_in_andorra_not_in_utc(tmp_path: Path) -> None:
    rs = load_ruleset(_write(tmp_path, "values = { 2025-12-10 = 0.05, 2026-01-01 = 0.04, 2026-07-01 = 0.03 }", "values = { 2025-12-10 = 0.05 }"))
    assert rs.timezone == "Europe/Andorra"
    # 23:30 UTC on 31 December is 00:30 on 1 January in Andorra (CET); 22:30 UTC on 30 June is 00:30 on 1 July (CEST).
    when = pd.Series(pd.to_datetime(["2025-12-31T22:30Z", "2025-12-31T23:30Z", "2026-06-30T21:30Z", "2026-06-30T22:30Z"]))
    assert list(rs.series("cagnotte_rate", when)) == [0.05, 0.04, 0.04, 0.03]
    keys = pd.Series(["asos"] * 2, dtype="str")
    old = "values = { 2025-12-10 = { asos = 61, petit = 1, gran = 1 } }"
    odds = load_ruleset(_write(tmp_path, old[:-2] + ", 2026-01-01 = { asos = 60, petit = 1, gran = 1 } }", old))
    assert odds.lookup("dice_odds", keys, when.iloc[:2]).tolist() == [61.0, 60.0]


def test_an_unknown_time_zone_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RulesetError, match="not a known time zone"):
        load_ruleset(_write(tmp_path, 'timezone = "Mars/Olympus"', 'timezone = "Europe/Andorra"'))


def test_play_before_the_ruleset_takes_effect_is_noted(tmp_path: Path) -> None:
    # Logs of 2024 audited under Decret 455/2025 (in force from 2025-12-10): the values of that date
    # were applied to play they did not govern, and the inspector is told.
    import json

    from helpers import cdf, coup, write_bundle
    from typer.testing import CliRunner

    from auditor.cli import app

    early = pd.Timestamp("2024-06-01T20:00:00", tz="UTC")
    write_bundle(tmp_path / "b", cdf([coup("C1", ts=early), coup("C2", coup_no=2, ts=early + pd.Timedelta(minutes=2))]))
    result = CliRunner().invoke(app, ["audit", str(tmp_path / "b"), "--out", str(tmp_path / "o")])
    notes = json.loads((tmp_path / "o" / "summary.json").read_text())["ruleset"]["notes"]
    assert len(notes) == 1 and "starts on 2024-06-01, before the ruleset's first values take effect (2025-12-10)" in notes[0]
    assert "before the ruleset's first values take effect" in result.output
    assert "before the ruleset&#39;s first values take effect" in (tmp_path / "o" / "report.html").read_text(encoding="utf-8")
    write_bundle(tmp_path / "c", cdf([coup("C1")]))
    CliRunner().invoke(app, ["audit", str(tmp_path / "c"), "--out", str(tmp_path / "p")])
    assert json.loads((tmp_path / "p" / "summary.json").read_text())["ruleset"]["notes"] == []
