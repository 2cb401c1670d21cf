"""Tornejos (TRN401-TRN408): tiny inline tournaments that pass and that fail."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from helpers import audit, found, ruleset_with, write_bundle

from auditor.engine import run_audit
from auditor.loading import load_bundle
from auditor.rules import select_rules
from auditor.ruleset import load_ruleset

DAY = pd.Timestamp("2026-03-20")


def tour(tid: str = "TR1", **kw: object) -> dict[str, object]:
    row: dict[str, object] = {"tournament_id": tid, "game": "chemin_de_fer", "starts_on": DAY, "notified_on": DAY - pd.Timedelta(days=10),
                              "authorised_from": pd.Timestamp("2026-01-01"), "authorised_to": pd.Timestamp("2026-12-31"), "venue": "casino",
                              "external_authorised": None, "fees_cents": 100000, "organisation_costs_cents": 25000, "prizes_cents": 75000}
    row.update(kw)
    return row


def entry(player: str, born: str, **kw: object) -> dict[str, object]:
    row: dict[str, object] = {"tournament_id": "TR1", "player_id": player, "birth_date": pd.Timestamp(born), "excluded": False, "registered": True}
    row.update(kw)
    return row


def run(tmp_path: Path, tours: list[dict[str, object]], rule: str, entries: list[dict[str, object]] | None = None) -> list:
    tables: dict[str, list[dict[str, object]]] = {"tournaments": tours}
    if entries is not None:
        tables["tournament_entries"] = entries
    return found(audit(tmp_path, tables, rule))


def test_lawful_tournament_passes_every_rule(tmp_path: Path) -> None:
    assert run(tmp_path, [tour()], "TRN", [entry("E1", "2008-03-20")]) == []


def test_trn401_organisation_costs(tmp_path: Path) -> None:
    tours = [tour(), tour("TR2", organisation_costs_cents=25001, prizes_cents=80000), tour("TR3", fees_cents=100001, organisation_costs_cents=25001)]
    f = audit(tmp_path, {"tournaments": tours}, "TRN401")
    assert found(f) == [("TR2", None), ("TR3", None)]
    assert f["expected"].tolist() == ["<= 25000", "<= 25000.25"]


def test_trn402_fees_to_prizes(tmp_path: Path) -> None:
    assert run(tmp_path, [tour(), tour("TR2", prizes_cents=70000)], "TRN402") == [("TR2", None)]


def test_trn403_advance_notice(tmp_path: Path) -> None:
    tours = [tour(), tour("TR2", notified_on=DAY - pd.Timedelta(days=9)), tour("TR3", notified_on=None)]
    assert run(tmp_path, tours, "TRN403") == [("TR2", None), ("TR3", None)]


def test_trn404_authorisation_period(tmp_path: Path) -> None:
    tours = [tour(), tour("TR2", authorised_to=pd.Timestamp("2027-01-01")), tour("TR3", authorised_to=pd.Timestamp("2027-01-02")),
             tour("TR4", starts_on=pd.Timestamp("2027-02-01"), notified_on=pd.Timestamp("2027-01-01")), tour("TR5", authorised_from=None, authorised_to=None)]
    assert sorted(run(tmp_path, tours, "TRN404")) == [("TR3", None), ("TR4", None), ("TR5", None)]


@pytest.mark.parametrize(("born", "finding"), [("2008-03-20", False), ("2008-03-21", True), ("1950-01-01", False)])
def test_trn405_adult_on_the_start_date(tmp_path: Path, born: str, finding: bool) -> None:
    assert bool(run(tmp_path, [tour()], "TRN405", [entry("E1", born)])) is finding


@pytest.mark.parametrize(("starts", "born", "latest"), [
    ("2026-03-25", "2010-05-05", "2008-03-25"),  # leap days between: the same calendar date, not 18 × 365.25 days
    ("2026-02-28", "2008-03-01", "2008-02-29"),  # born 29 February 2008: of age on 28 February 2026
    ("2024-02-29", "2006-03-01", "2006-02-28"),
])
def test_trn405_names_the_last_birth_date_of_age(tmp_path: Path, starts: str, born: str, latest: str) -> None:
    t = tour(starts_on=pd.Timestamp(starts), notified_on=pd.Timestamp(starts) - pd.Timedelta(days=10),
             authorised_from=pd.Timestamp(starts) - pd.Timedelta(days=30), authorised_to=pd.Timestamp(starts) + pd.Timedelta(days=30))
    lawful = entry("E2", latest)
    f = audit(tmp_path, {"tournaments": [t], "tournament_entries": [entry("E1", born), lawful]}, "TRN405")
    assert found(f) == [("TR1", "E1")]
    assert f["expected"].tolist() == [f"born on or before {latest}"]


@pytest.mark.parametrize(("reading", "adult_on_feb_28", "longest_to"), [("february_28", True, "2025-02-28"), ("march_1", False, "2025-03-01")])
def test_leap_day_anniversary_is_a_ruleset_value(tmp_path: Path, reading: str, adult_on_feb_28: bool, longest_to: str) -> None:
    """29 February's anniversary in a common year: 28 February (the default) or 1 March, for an
    18th birthday (TRN405) and for a year of authorisation (TRN404) alike."""
    custom = ruleset_with(tmp_path / "leap.toml", {"leap_day_anniversary": ('"february_28" }', f'"{reading}" }}')})
    starts = pd.Timestamp("2026-02-28")
    t = tour(starts_on=starts, notified_on=starts - pd.Timedelta(days=10), authorised_from=starts - pd.Timedelta(days=30), authorised_to=starts)
    one_year = [tour("TR2", starts_on=pd.Timestamp("2024-03-20"), notified_on=pd.Timestamp("2024-03-01"), authorised_from=pd.Timestamp("2024-02-29"),
                     authorised_to=pd.Timestamp(to)) for to in ("2025-02-28", "2025-03-01")]
    one_year[1]["tournament_id"] = "TR3"
    bundle = load_bundle(write_bundle(tmp_path / "b", {"tournaments": [t, *one_year], "tournament_entries": [entry("E1", "2008-02-29")]}))
    f = run_audit(bundle, load_ruleset(custom), select_rules("TRN404,TRN405"), lang="en").findings
    assert (("TR1", "E1") not in found(f[f["rule"] == "TRN405"])) is adult_on_feb_28
    too_long = {"2025-02-28": "TR2", "2025-03-01": "TR3"}
    assert found(f[f["rule"] == "TRN404"]) == [(too_long[d], None) for d in too_long if d > longest_to]


def test_trn406_407_excluded_and_registered(tmp_path: Path) -> None:
    entries = [entry("E1", "1990-01-01"), entry("E2", "1990-01-01", excluded=True), entry("E3", "1990-01-01", registered=False)]
    assert run(tmp_path, [tour()], "TRN406", entries) == [("TR1", "E2")]
    assert run(tmp_path / "b", [tour()], "TRN407", entries) == [("TR1", "E3")]


def test_trn408_external_venue(tmp_path: Path) -> None:
    tours = [tour(venue="external", external_authorised=True), tour("TR2", venue="external"), tour("TR3", venue="external", external_authorised=False)]
    assert run(tmp_path, tours, "TRN408") == [("TR2", None), ("TR3", None)]



def test_rules_run_when_every_tournament_row_was_quarantined(tmp_path: Path) -> None:
    # Dates written as timestamps are not the format's YYYY-MM-DD: every row goes to LOG001, and the
    # tournament rules must still run on the empty tables rather than fail the audit.
    write_bundle(tmp_path, {"tournaments": [tour()], "tournament_entries": [entry("E1", "2008-03-20")]})
    for name in ("tournaments.csv", "tournament_entries.csv"):
        path = tmp_path / name
        path.write_text(path.read_text().replace("-20,", "-20T00:00:00,"))
    result = run_audit(load_bundle(tmp_path), load_ruleset(), select_rules(), lang="en")
    assert result.errors == {}
    assert sorted(result.findings["rule"]) == ["LOG001", "LOG001"]
