"""Chemin de fer (CDF101-CDF134): for each rule, tiny inline coups that pass and that fail."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers import (
    CDF_TABLE,
    T0,
    at,
    audit,
    cdf,
    coup,
    found,
    lost,
    outcome_of,
    ruleset_with,
    stake_row,
    won,
    write_bundle,
)

from auditor.engine import run_audit
from auditor.loading import load_bundle
from auditor.rules import select_rules
from auditor.ruleset import load_ruleset


def test_lawful_coups_pass_every_cdf_rule(tmp_path: Path) -> None:
    c1, s1 = won("C1", bank_event="initial")
    c2, s2 = won("C2", bank_cents=c1["bank_after_cents"], bank_event="retained")
    c3, s3 = lost("C3", bank_cents=c2["bank_after_cents"], bank_event="retained")
    c4 = coup("C4", banker_id="B2", banker_seat=2, bank_event="rotation", bank_cents=5000, bank_after_cents=5000)
    assert found(audit(tmp_path, cdf([c1, c2, c3, c4], s1 + s2 + s3), "CDF")) == []


def test_cdf101_cagnotte_rate(tmp_path: Path) -> None:
    ok, s = won("C1", stake=10050)
    assert ok["cagnotte_cents"] == 503  # 502.5 rounded half up
    bad, s2 = won("C2", stake=10000, bank_event="retained")
    bad.update(cagnotte_cents=600, bank_after_cents=10000 + 10000 - 600)
    f = audit(tmp_path, cdf([ok, bad], s + s2), "CDF101")
    assert found(f) == [("C2", None)]
    assert f.iloc[0]["expected"] == 500 and f.iloc[0]["observed"] == 600


def test_cdf101_rounds_as_the_ruleset_says_with_the_rate_in_force_on_the_day(tmp_path: Path) -> None:
    """5 % until 2026-03-03 (Andorra's day), then 4 %; half to even; a cent of tolerance."""
    ruleset = ruleset_with(tmp_path / "ruleset.toml", {
        "cagnotte_rate": ("values = { 2025-12-10 = 0.05 }", "values = { 2025-12-10 = 0.05, 2026-03-03 = 0.04 }"),
        "cagnotte_rounding": ('values = { 2025-12-10 = "half_up" }', 'values = { 2025-12-10 = "half_even" }'),
        "cagnotte_tolerance_cents": ("values = { 2025-12-10 = 0 }", "values = { 2025-12-10 = 1 }"),
    })
    next_day = pd.Timestamp("2026-03-03T12:00:00Z")
    played = [("C1", 10050, 502, T0), ("C2", 10150, 506, T0), ("C3", 10000, 501, T0),  # 502.5 -> 502; 507.5 -> 508; 500 ± 1
              ("C4", 10000, 500, next_day), ("C5", 10025, 401, next_day + pd.Timedelta(minutes=1))]  # 400; 401
    coups, stakes = [], []
    for n, (coup_id, win, cagnotte, ts) in enumerate(played):
        c, s = won(coup_id, stake=win, ts=ts + pd.Timedelta(minutes=n), bank_event="initial" if n == 0 else "retained")
        c.update(cagnotte_cents=cagnotte)
        coups.append(c)
        stakes += s
    bundle = load_bundle(write_bundle(tmp_path / "b", cdf(coups, stakes)))
    f = run_audit(bundle, load_ruleset(ruleset), select_rules("CDF101"), lang="en").findings
    assert found(f) == [("C2", None), ("C4", None)]
    assert list(f["expected"]) == [508, 400] and list(f["observed"]) == [506, 500]


def test_cdf101_on_abonaments_adds_what_they_won_to_the_base(tmp_path: Path) -> None:
    """The banker wins 10,000 net and the abonament with the bank 2,000: 5 % of 10,000 by the
    shipped reading, of 12,000 where the ruleset counts abonaments in."""
    c, s = won("C1", stake=10000)
    c.update(cagnotte_cents=600)
    s.append(stake_row("C1-A1", "C1", player="A1", seat=None, kind="abonament", amount=2000, result=2000))
    tables = cdf([c], s)
    assert [(x["expected"], x["observed"]) for _, x in audit(tmp_path / "a", tables, "CDF101").iterrows()] == [(500, 600)]
    ruleset = ruleset_with(tmp_path / "ruleset.toml", {"cagnotte_on_abonaments": ("values = { 2025-12-10 = false }", "values = { 2025-12-10 = true }")})
    bundle = load_bundle(write_bundle(tmp_path / "b", tables))
    assert found(run_audit(bundle, load_ruleset(ruleset), select_rules("CDF101"), lang="en").findings) == []


def test_cdf102_cagnotte_without_win(tmp_path: Path) -> None:
    tie = coup("C1", cagnotte_cents=50, bank_after_cents=9950)
    lose, s = lost("C2", bank_event="rotation", banker_id="B2")
    f = audit(tmp_path, cdf([tie, lose], s), "CDF102")
    assert found(f) == [("C1", None)]


@pytest.mark.parametrize(("bank", "unlimited", "expected"), [(100000, False, []), (100100, False, [("C1", None)]), (100100, True, [])])
def test_cdf103_bank_maximum(tmp_path: Path, bank: int, unlimited: bool, expected: list) -> None:
    table = CDF_TABLE | {"bank_unlimited": unlimited}
    f = audit(tmp_path, cdf([coup("C1", bank_cents=bank, bank_after_cents=bank)], table=table), "CDF103")
    assert found(f) == expected


def test_cdf104_bank_minimum(tmp_path: Path) -> None:
    f = audit(tmp_path, cdf([coup("C1", bank_cents=1000, bank_after_cents=1000), coup("C2", bank_cents=900, bank_after_cents=900, bank_event="rotation")]), "CDF104")
    assert found(f) == [("C2", None)]


def test_cdf105_point_minimum(tmp_path: Path) -> None:
    stakes = [stake_row("S1", amount=1000), stake_row("S2", player="P3", seat=3, amount=500), stake_row("S3", player="P4", kind="abonament", amount=100)]
    assert found(audit(tmp_path, cdf([coup("C1")], stakes), "CDF105")) == [("C1", "S2")]


def test_cdf106_point_maximum_each_and_total(tmp_path: Path) -> None:
    over = [stake_row("S1", amount=12000)]
    total = [stake_row("S2", "C2", amount=8000), stake_row("S3", "C2", player="P3", seat=3, amount=4000)]
    fine = [stake_row("S4", "C3", amount=6000), stake_row("S5", "C3", player="P3", seat=3, amount=4000)]
    f = audit(tmp_path, cdf([coup("C1"), coup("C2"), coup("C3")], over + total + fine), "CDF106")
    assert sorted(found(f), key=str) == sorted([("C1", "S1"), ("C1", None), ("C2", None)], key=str)


def test_cdf107_table_minimum_authorised(tmp_path: Path) -> None:
    bad = CDF_TABLE | {"table_id": "T2", "min_cents": 500}
    tables = {"tables": [CDF_TABLE, bad], "cdf_coups": [coup("C1")]}
    f = audit(tmp_path, tables, "CDF107")
    assert list(f["table_id"]) == ["T2"]


def test_cdf108_voluntary_garage(tmp_path: Path) -> None:
    c1, s1 = won("C1", bank_event="initial")  # bank after 19,500
    c2, s2 = won("C2", bank_cents=19500, bank_event="retained")
    half = (19500 + 10000 - 500) // 2
    c2.update(garage_cents=half, garage_kind="voluntary", bank_after_cents=19500 + 10000 - 500 - half)  # second coup: half allowed
    c3, s3 = won("C3", banker_id="B2", banker_seat=2, bank_event="rotation", bank_cents=10000)
    c3.update(garage_cents=5000, garage_kind="voluntary", bank_after_cents=10000 + 9500 - 5000)  # first coup, 9,500 < 50 × 1,000
    f = audit(tmp_path, cdf([c1, c2, c3], s1 + s2 + s3), "CDF108")
    assert found(f) == [("C3", None)]


def test_cdf108_large_winnings_allow_a_garage_on_the_first_coup(tmp_path: Path) -> None:
    c1, s1 = won("C1", stake=60000, bank_cents=60000)  # net 57,000 > 50,000
    c1.update(garage_cents=57000, garage_kind="voluntary", bank_after_cents=60000)
    assert found(audit(tmp_path, cdf([c1], s1), "CDF108")) == []


def test_cdf108_a_stint_that_lost_a_coup_is_not_judged(tmp_path: Path) -> None:
    # B1's first coup is unreadable (LOG001): in the log B1's stint starts at C2, whose bank it kept
    # from C1, so neither the winnings so far nor whether C2 is the stint's second coup can be told.
    # B2's stint, read whole, is judged: its first coup may not put half in the garage.
    c1, s1 = won("C1", bank_event="initial", players_seated="four")
    c2, s2 = won("C2", bank_cents=19500, bank_event="retained")
    half = (19500 + 10000 - 500) // 2
    c2.update(garage_cents=half, garage_kind="voluntary", bank_after_cents=19500 + 10000 - 500 - half)
    c3, s3 = won("C3", banker_id="B2", banker_seat=2, bank_event="rotation", bank_cents=10000)
    c3.update(garage_cents=5000, garage_kind="voluntary", bank_after_cents=10000 + 9500 - 5000)
    f = audit(tmp_path, cdf([c1, c2, c3], s1 + s2 + s3), "CDF108", quarantine_ok=True)
    assert found(f) == [("C3", None)]


def test_cdf109_improper_garage(tmp_path: Path) -> None:
    ok, s1 = won("C1", bank_cents=95000)
    ok.update(garage_cents=4500, garage_kind="improper", bank_after_cents=100000)
    bad, s2 = won("C2", bank_cents=95000, bank_event="rotation", banker_id="B2")
    f = audit(tmp_path, cdf([ok, bad], s1 + s2), "CDF109")
    assert found(f) == [("C2", None)]


def test_cdf110_bank_continuity(tmp_path: Path) -> None:
    ok, s1 = won("C1")
    bad_after, s2 = won("C2", bank_event="rotation", banker_id="B2")
    bad_after["bank_after_cents"] += 100
    bad_sum, s3 = won("C3", bank_event="rotation", banker_id="B3")
    s3[0]["result_cents"] = -9000
    f = audit(tmp_path, cdf([ok, bad_after, bad_sum], s1 + s2 + s3), "CDF110")
    assert found(f) == [("C2", None), ("C3", None)]


def test_cdf111_bank_never_decreased(tmp_path: Path) -> None:
    c1, s1 = won("C1")  # leaves 19,500
    c2 = coup("C2", bank_cents=19500, bank_after_cents=19500, bank_event="retained")
    c3 = coup("C3", bank_cents=15000, bank_after_cents=15000, bank_event="retained")
    assert found(audit(tmp_path, cdf([c1, c2, c3], s1), "CDF111")) == [("C3", None)]


def test_cdf112_losing_banker_cedes(tmp_path: Path) -> None:
    c1, s1 = lost("C1")
    c2 = coup("C2", bank_event="rotation", banker_id="B2", banker_seat=2)
    c3, s3 = lost("C3", banker_id="B2", banker_seat=2)
    c4 = coup("C4", bank_event="retained", banker_id="B2", banker_seat=2, bank_cents=10000)
    f = audit(tmp_path, cdf([c1, c2, c3, c4], s1 + s3), "CDF112")
    assert found(f) == [("C4", None)]


def test_cdf112_a_losing_banker_does_not_carry_the_bank_into_the_next_shoe(tmp_path: Path) -> None:
    c1, s1 = lost("C1", stop_card=True)  # the shoe's last coup, lost by B1
    c2 = coup("C2", shoe_id="S2", coup_no=1, bank_event="shoe_carryover", bank_cents=10000)
    tables = cdf([c1, c2], s1)
    assert found(audit(tmp_path / "a", tables, "CDF112")) == [("C2", None)]
    # The catalogue's letter (only `retained`) is one ruleset value away.
    custom = ruleset_with(tmp_path / "letter.toml", {"losing_banker_no_carryover": ("values = { 2025-12-10 = true }", "values = { 2025-12-10 = false }")})
    bundle = load_bundle(write_bundle(tmp_path / "b", tables))
    assert run_audit(bundle, load_ruleset(custom), select_rules("CDF112"), lang="en").findings.empty


def test_cdf112_a_shoe_whose_last_coup_was_quarantined_is_not_judged_across(tmp_path: Path) -> None:
    c1, s1 = lost("C1")  # lost by B1, but not the shoe's last coup: no stop card yet
    c2, s2 = won("C2", stop_card=True, bank_event="rotation")  # the shoe's last, won by B1: quarantined below
    c2["cagnotte_cents"] = -5
    c3 = coup("C3", shoe_id="S2", coup_no=1, bank_event="shoe_carryover", bank_cents=10000)
    f = audit(tmp_path / "a", cdf([c1, c2, c3], s1 + s2), "CDF112", quarantine_ok=True)
    assert found(f) == []  # C3 carries over C2's bank, which the audit could not read: not C1's loss
    # The stop card shows C1 was its shoe's last coup: a coup left out elsewhere changes nothing.
    c1, s1 = lost("C1", stop_card=True)
    late = coup("C9", shoe_id="S2", coup_no=9, cagnotte_cents=-5)
    f = audit(tmp_path / "b", cdf([c1, c3, late], s1), "CDF112", quarantine_ok=True)
    assert found(f) == [("C3", None)]


def test_cdf112_a_coup_left_out_is_placed_by_its_time(tmp_path: Path) -> None:
    # C1 (no stop card) lost by B1, then coup 1 of shoe S2 at C1's time + 60 s carries the bank over.
    # A coup of the table left out later on (in shoe S2, at +1 h) cannot have been S1's last: C3
    # is judged. Left out between C1 and C3, or with a time that cannot be read, it may have been.
    import csv

    def judged(path: Path, tables: dict[str, list[dict[str, object]]], untimed: bool = False) -> list[tuple[str, str | None]]:
        write_bundle(path, tables)
        if untimed:  # C9's time garbled in the file: quarantined (LOG001), its time unknown
            with (path / "cdf_coups.csv").open(newline="", encoding="utf-8") as fh:
                rows = list(csv.DictReader(fh))
            for row in rows:
                if row["coup_id"] == "C9":
                    row["ts"] = "not a time"
            with (path / "cdf_coups.csv").open("w", newline="", encoding="utf-8") as fh:
                writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
                writer.writeheader()
                writer.writerows(rows)
        bundle = load_bundle(path)
        assert (bundle.quarantine["rule"] == "LOG001").sum() == 1
        return found(run_audit(bundle, load_ruleset(), select_rules("CDF112"), lang="en").findings)

    c1, s1 = lost("C1")
    c3 = coup("C3", shoe_id="S2", coup_no=1, bank_event="shoe_carryover", bank_cents=10000, ts=at(120))
    later = coup("C9", shoe_id="S2", coup_no=9, cagnotte_cents=-5, ts=at(3600))
    assert judged(tmp_path / "a", cdf([c1, c3, later], s1)) == [("C3", None)]
    between = coup("C9", shoe_id="S1", coup_no=2, cagnotte_cents=-5, ts=at(90))
    assert judged(tmp_path / "b", cdf([c1, c3, between], s1)) == []
    assert judged(tmp_path / "c", cdf([c1, c3, coup("C9", shoe_id="S2", coup_no=9, ts=at(3600))], s1), untimed=True) == []
    # Another table's coup left out, whatever its time, leaves T1's shoes known.
    other = coup("C9", table_id="T2", shoe_id="X1", coup_no=2, ts=at(90))
    tables = cdf([c1, c3, other], s1) | {"tables": [CDF_TABLE, CDF_TABLE | {"table_id": "T2"}]}
    assert judged(tmp_path / "d", tables, untimed=True) == [("C3", None)]


def test_cdf113_first_bank_seat_1(tmp_path: Path) -> None:
    ok = coup("C1")
    bad = coup("C9", table_id="T2", shoe_id="S9", coup_no=1, bank_event="initial", banker_seat=3)
    tables = {"tables": [CDF_TABLE, CDF_TABLE | {"table_id": "T2"}], "cdf_coups": [ok, bad]}
    assert found(audit(tmp_path, tables, "CDF113")) == [("C9", None)]


def test_cdf114_takeover_amount(tmp_path: Path) -> None:
    c1, s1 = won("C1")  # won, bank after 19,500, passed voluntarily
    c2 = coup("C2", bank_event="rotation", banker_id="B2", banker_seat=2, bank_cents=15000, bank_after_cents=15000)
    c3 = coup("C3", bank_event="auction", banker_id="B3", banker_seat=3, bank_cents=15000, bank_after_cents=15000)
    f = audit(tmp_path, cdf([c1, c2, c3], s1), "CDF114")
    assert found(f) == [("C2", None)]


def test_cdf114_after_a_loss_any_amount(tmp_path: Path) -> None:
    c1, s1 = lost("C1")
    c2 = coup("C2", bank_event="rotation", banker_id="B2", banker_seat=2, bank_cents=2000, bank_after_cents=2000)
    assert found(audit(tmp_path, cdf([c1, c2], s1), "CDF114")) == []


def test_cdf120_minimum_players(tmp_path: Path) -> None:
    f = audit(tmp_path, cdf([coup("C1", players_seated=4), coup("C2", players_seated=3)]), "CDF120")
    assert found(f) == [("C2", None)]


def test_cdf121_six_decks(tmp_path: Path) -> None:
    coups = [coup(f"C{i}", player_cards="KH KH", banker_cards="QS 7D") for i in range(1, 5)]  # KH 2, 4, 6, 8 times
    f = audit(tmp_path, cdf(coups), "CDF121")
    assert found(f) == [("C4", None)]
    assert f.iloc[0]["observed"] == "7 × KH"


def test_cdf121_counts_each_shoe_of_each_table_apart(tmp_path: Path) -> None:
    kh = {"player_cards": "KH KH", "banker_cards": "QS 7D"}
    coups = [coup(f"C{i}", **kh) for i in range(1, 4)]  # T1/S1: 6 × KH
    coups += [coup(f"C{i}", table_id="T2", coup_no=i - 10, **kh) for i in range(11, 14)]  # T2/S1: another shoe, 6 × KH
    coups += [coup(f"C{i}", shoe_id="S2", coup_no=i - 20, ts=at(3600 + 60 * i), **kh) for i in range(21, 25)]  # T1/S2: 8 × KH
    tables = cdf(coups)
    tables["tables"] = [CDF_TABLE, CDF_TABLE | {"table_id": "T2"}]
    assert found(audit(tmp_path, tables, "CDF121")) == [("C24", None)]


def test_cdf121_takes_the_decks_in_force_on_each_coups_day(tmp_path: Path) -> None:
    """A shoe of one deck from 2026-03-03 (a dated ruleset value): the same two K♥ pass the day before."""
    custom = ruleset_with(tmp_path / "one-deck.toml", {"decks": ("values = { 2025-12-10 = 6 }", "values = { 2025-12-10 = 6, 2026-03-03 = 1 }")})
    kh = {"player_cards": "KH KH", "banker_cards": "QS 7D"}
    coups = [coup("C1", **kh), coup("C2", shoe_id="S2", coup_no=1, ts=at(86400), **kh)]  # 2026-03-02, then 03-03
    bundle = load_bundle(write_bundle(tmp_path / "b", cdf(coups)))
    f = run_audit(bundle, load_ruleset(custom), select_rules("CDF121"), lang="en").findings
    assert found(f) == [("C2", None)]
    assert (f.iloc[0]["expected"], f.iloc[0]["observed"]) == ("<= 1 × KH", "2 × KH")


def test_cdf121_the_313th_card_of_a_shoe(tmp_path: Path) -> None:
    cards = [r + s for r in "A23456789TJQK" for s in "SHDC"]  # 52 cards, 6 to a coup: 52 coups deal 312
    deck = cards * 6
    coups = [coup(f"C{i + 1}", player_cards=" ".join(deck[6 * i : 6 * i + 3]), banker_cards=" ".join(deck[6 * i + 3 : 6 * i + 6]))
             for i in range(52)]
    assert audit(tmp_path / "a", cdf(coups), "CDF121").empty
    f = audit(tmp_path / "b", cdf([*coups, coup("C53", player_cards="AS 2S", banker_cards="3S 4S")]), "CDF121")
    assert found(f) == [("C53", None)] and f.iloc[0]["observed"] == "7 × AS"


def test_cdf121_a_card_past_the_shoe_that_is_no_copy_too_many(tmp_path: Path) -> None:
    """With one deck in force, a shoe that dealt a second A♠ early (its coup reported for the copy)
    then deals its 53rd card, the first Q♣ it deals: reported for the shoe's size, not for a copy,
    and the coups between pass."""
    custom = ruleset_with(tmp_path / "one-deck.toml", {"decks": ("values = { 2025-12-10 = 6 }", "values = { 2025-12-10 = 1 }")})
    deck = [r + s for r in "A23456789TJQK" for s in "SHDC"]
    dealt = ["AS", *(c for c in deck if c not in ("KC", "QC")), "KC", "QC"]  # 53 cards, the second the only repeat
    hands = [dealt[i : i + 6] for i in range(0, 48, 6)] + [dealt[48:]]  # eight coups of six, one of five
    coups = [coup(f"C{i + 1}", coup_no=i + 1, ts=at(60 * i), player_cards=" ".join(h[:3]), banker_cards=" ".join(h[3:])) for i, h in enumerate(hands)]
    bundle = load_bundle(write_bundle(tmp_path / "b", cdf(coups)))
    f = run_audit(bundle, load_ruleset(custom), select_rules("CDF121"), lang="en").findings
    assert found(f) == [("C1", None), ("C9", None)]
    assert list(zip(f["expected"], f["observed"], strict=True)) == [("<= 1 × AS", "2 × AS"), ("<= 52 cards", "53 cards")]


def test_cdf122_stop_card(tmp_path: Path) -> None:
    coups = [coup("C1"), coup("C2", stop_card=True), coup("C3"), coup("C4", shoe_id="S2", coup_no=1, ts=at(600))]
    f = audit(tmp_path, cdf(coups), "CDF122")
    assert found(f) == [("C3", None)]


def test_cdf123_outcome(tmp_path: Path) -> None:
    f = audit(tmp_path, cdf([coup("C1"), coup("C2", outcome="banker"), coup("C3", status="void", outcome=None)]), "CDF123")
    assert found(f) == [("C2", None)]


def test_cdf124_naturals(tmp_path: Path) -> None:
    ok = coup("C1", player_cards="9S 9H", banker_cards="TC 3D", outcome="player")
    bad = coup("C2", player_cards="9S 9H", banker_cards="TC 3D 4H", outcome="player", third_face_up=True)
    f = audit(tmp_path, cdf([ok, bad]), "CDF124")
    assert found(f) == [("C2", None)]


@pytest.mark.parametrize(("cards", "drew", "finding"), [
    ("TS 4H", True, False), ("TS 4H", False, True), ("TS 5H", False, False), ("TS 5H", True, False),
    ("TS 6H", True, True), ("TS 7H", False, False), ("TS KH", False, True),
])
def test_cdf125_player_drawing(tmp_path: Path, cards: str, drew: bool, finding: bool) -> None:
    hand = cards + (" KD" if drew else "")
    c = coup("C1", player_cards=hand, banker_cards="TC 7D", third_face_up=True if drew else None, outcome=outcome_of(hand, "TC 7D"))
    assert bool(found(audit(tmp_path, cdf([c]), "CDF125"))) is finding


def test_cdf125_a_punt_on_5_must_draw_where_the_ruleset_grants_no_option(tmp_path: Path) -> None:
    """`player_optional_5` false from 2026-03-01 (the day before the coups): a punt on 5 that stood is
    reported, one that drew is not; on 4 and 6 nothing changes. Under the shipped ruleset (true)
    both choices on 5 pass."""
    coups = [coup("C1", player_cards="TS 5H", banker_cards="TC 7D", outcome=outcome_of("TS 5H", "TC 7D")),
             coup("C2", coup_no=2, player_cards="TS 5H KD", banker_cards="TC 7D", third_face_up=True, outcome=outcome_of("TS 5H KD", "TC 7D")),
             coup("C3", coup_no=3, player_cards="TS 4H", banker_cards="TC 7D", outcome=outcome_of("TS 4H", "TC 7D")),
             coup("C4", coup_no=4, player_cards="TS 6H", banker_cards="TC 7D", outcome=outcome_of("TS 6H", "TC 7D"))]
    tables = cdf(coups)
    assert found(audit(tmp_path / "a", tables, "CDF125")) == [("C3", None)]
    strict = ruleset_with(tmp_path / "strict.toml", {"player_optional_5": ("values = { 2025-12-10 = true }", "values = { 2025-12-10 = true, 2026-03-01 = false }")})
    bundle = load_bundle(write_bundle(tmp_path / "b", tables))
    assert found(run_audit(bundle, load_ruleset(strict), select_rules("CDF125"), lang="en").findings) == [("C1", None), ("C3", None)]


def test_cdf125_free_mode_is_not_judged(tmp_path: Path) -> None:
    c = coup("C1", mode="free", player_cards="TS 6H KD", third_face_up=True, outcome="banker")
    assert found(audit(tmp_path, cdf([c]), "CDF125")) == []


# The punto-banco chart as published, with this regulation's options: rows are the banker's two-card
# total 0-7; columns the punt stood (first) or the value 0-9 of the punt's third card.
# D = must draw, S = must stand, O = may choose.
CHART = {
    0: "D DDDDDDDDDD",
    1: "D DDDDDDDDDD",
    2: "D DDDDDDDDDD",
    3: "D DDDDDDDDSO",
    4: "D SSDDDDDDSS",
    5: "D SSSSODDDSS",
    6: "S SSSSSSDDSS",
    7: "S SSSSSSSSSS",
}
RANK = "KA23456789"  # a card of each value 0-9


def _tableau_coups() -> list[tuple[dict[str, object], str]]:
    coups = []
    n = 0
    for total, row in CHART.items():
        decisions = [row[0]] + list(row[2:])
        for col, must in enumerate(decisions):
            third = None if col == 0 else col - 1
            for banker_draws in (True, False):
                n += 1
                punt = "TS 7H" if third is None else "TS 2H " + RANK[third] + "C"
                banker = ("TD " + RANK[total] + "D") + (" KC" if banker_draws else "")
                expect = must == ("S" if banker_draws else "D")  # a finding when the banker did the forbidden thing
                c = coup(f"C{n}", shoe_id=f"S{n}", coup_no=1, bank_event="initial", player_cards=punt, banker_cards=banker,
                         third_face_up=True if (third is not None or banker_draws) else None, outcome=outcome_of(punt, banker))
                coups.append((c, "finding" if expect else "pass"))
    return coups


def test_cdf126_banker_tableau_every_total_against_every_third_card(tmp_path: Path) -> None:
    cases = _tableau_coups()
    f = audit(tmp_path, cdf([c for c, _ in cases]), "CDF126,CDF127")
    flagged = {r for r, _ in found(f, "CDF126")}
    baccarat = {r for r, _ in found(f, "CDF127")}
    for c, verdict in cases:
        total = int(RANK.index(str(c["banker_cards"])[3]))
        if verdict == "finding" and total == 0:
            assert c["coup_id"] in baccarat and c["coup_id"] not in flagged, c
        elif verdict == "finding":
            assert c["coup_id"] in flagged, c
        else:
            assert c["coup_id"] not in flagged and c["coup_id"] not in baccarat, c
    assert len(cases) == 8 * 11 * 2


def test_cdf126_options_follow_the_ruleset(tmp_path: Path) -> None:
    # Banker 3 against a 9 stands: allowed only because the ruleset grants the option.
    c = coup("C1", player_cards="TS 2H 9C", banker_cards="TD 3D", third_face_up=True)
    assert found(audit(tmp_path, cdf([c]), "CDF126")) == []


def test_cdf127_banker_draws_on_baccarat_in_free_mode(tmp_path: Path) -> None:
    ok = coup("C1", mode="free", banker_cards="TD KD 5C", third_face_up=True)
    bad = coup("C2", mode="free", banker_cards="TD KD", player_cards="TS 6H")
    natural = coup("C3", mode="free", banker_cards="TD KD", player_cards="TS 8H")
    f = audit(tmp_path, cdf([ok, bad, natural]), "CDF127")
    assert found(f) == [("C2", None)]


def test_cdf128_settlement(tmp_path: Path) -> None:
    c1, s1 = won("C1")
    s1.append(stake_row("C1-A", "C1", player="P5", seat=None, kind="abonament", amount=1000, result=1000))
    c1.update(banker_result_cents=9000, cagnotte_cents=450, bank_after_cents=10000 + 9000 - 450)
    c2, s2 = won("C2", bank_event="rotation", banker_id="B2")
    s2[0]["result_cents"] = -8000
    void = coup("C3", status="void", outcome=None, bank_event="rotation", banker_id="B3")
    s3 = [stake_row("C3-S1", "C3", result=1000)]
    f = audit(tmp_path, cdf([c1, c2, void], s1 + s2 + s3), "CDF128")
    assert found(f) == [("C2", "C2-S1"), ("C3", "C3-S1")]


def test_cdf128_an_empty_result_on_a_void_coup_records_no_payment(tmp_path: Path) -> None:
    # The format requires result_cents on settled coups only: left empty on a void coup it is no
    # payment (the ruleset's reading), where a written 1000 is one. The strict reading reports both.
    void = [coup("C1", status="void", outcome=None), coup("C2", status="void", outcome=None, bank_event="rotation", banker_id="B2")]
    stakes = [stake_row("S1", "C1", result=None), stake_row("S2", "C2", result=1000)]  # type: ignore[arg-type]
    assert found(audit(tmp_path / "a", cdf(void, stakes), "CDF128")) == [("C2", "S2")]
    strict = ruleset_with(tmp_path / "strict.toml", {"void_result_may_be_empty": ("values = { 2025-12-10 = true }", "values = { 2025-12-10 = false }")})
    bundle = load_bundle(write_bundle(tmp_path / "b", cdf(void, stakes)))
    assert found(run_audit(bundle, load_ruleset(strict), select_rules("CDF128"), lang="en").findings) == [("C1", "S1"), ("C2", "S2")]


def test_cdf129_abonaments(tmp_path: Path) -> None:
    banc = [stake_row("S1", "C1", kind="banc", amount=10000)] + [stake_row(f"A{i}", "C1", player=f"A{i}", kind="abonament", amount=100) for i in range(3)]
    four = [stake_row("S2", "C2", kind="banc", amount=10000)] + [stake_row(f"B{i}", "C2", player=f"B{i}", kind="abonament", amount=100) for i in range(4)]
    uncovered = [stake_row("S3", "C3", amount=1000), stake_row("C1X", "C3", player="X", kind="abonament", amount=100)]
    f = audit(tmp_path, cdf([coup("C1"), coup("C2"), coup("C3")], banc + four + uncovered), "CDF129")
    assert found(f) == [("C2", None), ("C3", None)]


def test_cdf130_banc_amb_la_taula(tmp_path: Path) -> None:
    stakes = [stake_row("S1", "C1", kind="banc_amb_la_taula", amount=5000), stake_row("S2", "C2", kind="banc_amb_la_taula", amount=4000)]
    f = audit(tmp_path, cdf([coup("C1", bank_cents=10001, bank_after_cents=10001), coup("C2")], stakes), "CDF130")
    assert found(f) == [("C2", "S2")]


def test_cdf131_banc_amount(tmp_path: Path) -> None:
    stakes = [stake_row("S1", "C1", kind="banc", amount=10000), stake_row("S2", "C2", kind="banc_seguit", amount=9000)]
    assert found(audit(tmp_path, cdf([coup("C1"), coup("C2")], stakes), "CDF131")) == [("C2", "S2")]


def test_cdf132_banc_seguit_right(tmp_path: Path) -> None:
    c1 = coup("C1", banker_cards="TC 9D", outcome="banker", banker_result_cents=10000, cagnotte_cents=500, bank_after_cents=19500)
    s1 = [stake_row("S1", "C1", player="P7", kind="banc", amount=10000, result=-10000)]
    c2 = coup("C2", bank_cents=19500, bank_after_cents=19500)
    s2 = [stake_row("S2", "C2", player="P7", kind="banc_seguit", amount=19500), stake_row("S3", "C2", player="P8", kind="banc_seguit", amount=19500)]
    f = audit(tmp_path, cdf([c1, c2], s1 + s2), "CDF132")
    assert found(f) == [("C2", "S3")]


def test_cdf133_cards_to_highest_stake(tmp_path: Path) -> None:
    good = [stake_row("S1", "C1", player="P2", seat=2, amount=3000), stake_row("S2", "C1", player="P3", seat=3, amount=1000)]
    bad = [stake_row("S3", "C2", player="P2", seat=2, amount=3000), stake_row("S4", "C2", player="P3", seat=3, amount=1000)]
    banc = [stake_row("S5", "C3", player="P3", seat=3, kind="banc", amount=10000)]
    # A player's stakes on the coup count together; equal highest stakes may each hold the cards.
    summed = [stake_row("S6", "C4", player="P2", seat=2, amount=1500), stake_row("S7", "C4", player="P3", seat=3, amount=2500),
              stake_row("S8", "C4", player="P2", seat=2, amount=1500)]
    tie = [stake_row("S9", "C5", player="P2", seat=2, amount=2000), stake_row("S10", "C5", player="P3", seat=3, amount=2000)]
    outsummed = [stake_row(f"SX{n}", "C6", player=p, seat=s, amount=a) for n, (p, s, a) in enumerate([("P2", 2, 1500), ("P3", 3, 2500), ("P2", 2, 1500)])]
    # The cards to a player with no seated stake on the coup, where two others tie for the highest.
    unseated = [stake_row("S11", "C7", player="P3", seat=3, amount=2000), stake_row("S12", "C7", player="P2", seat=2, amount=2000),
                stake_row("S13", "C7", player="P5", seat=5, amount=500)]
    coups = [coup("C1", player_id="P2"), coup("C2", player_id="P3"), coup("C3", player_id="P3"), coup("C4", player_id="P2"),
             coup("C5", player_id="P3"), coup("C6", player_id="P3"), coup("C7", player_id="P4")]
    f = audit(tmp_path, cdf(coups, good + bad + banc + summed + tie + outsummed + unseated), "CDF133")
    assert found(f) == [("C2", None), ("C6", None), ("C7", None)]
    assert list(f["expected"]) == ["P2", "P2", "P2|P3"] and list(f["observed"]) == ["P3", "P3", "P4"]


@pytest.mark.parametrize("seed", range(6))
def test_cdf133_player_totals_are_each_pairs_sum_however_the_stakes_come(seed: int) -> None:
    """Each (coup, player) pair's total, as a dictionary sums them: stakes grouped by coup (seeds
    0-3) or in no order, each player once a coup (even seeds: each stake its own pair) or not."""
    from auditor.rules.chemin_de_fer import _player_totals

    rng = np.random.default_rng(seed)
    coup, player = rng.integers(0, 400, 2000), rng.integers(0, 50, 2000)
    if seed < 4:
        coup = np.sort(coup)
    if seed % 2 == 0:  # a stake whose pair came before left out
        seen: set[tuple[int, int]] = set()
        once = np.array([(c, p) not in seen and not seen.add((c, p)) for c, p in zip(coup.tolist(), player.tolist(), strict=True)])
        coup, player = coup[once], player[once]
    amounts = rng.integers(0, 10**6, len(coup))
    pairs, totals = _player_totals(coup, player, amounts, 51)
    expected: dict[int, int] = {}
    for c, p, a in zip(coup.tolist(), player.tolist(), amounts.tolist(), strict=True):
        expected[c * 51 + p] = expected.get(c * 51 + p, 0) + a
    assert len(pairs) == len(expected) and dict(zip(pairs.tolist(), totals.tolist(), strict=True)) == expected
    assert ((pairs // 51)[1:] >= (pairs // 51)[:-1]).all()


def test_cdf133_a_player_staking_first_and_last_on_the_coup_with_most_stakes_is_one_pair() -> None:
    from auditor.rules.chemin_de_fer import _player_totals

    pairs, totals = _player_totals(np.array([0, 0, 0, 1, 1]), np.array([5, 6, 5, 7, 8]), np.array([100, 200, 300, 400, 500]), 10)
    assert pairs.tolist() == [5, 6, 17, 18] and totals.tolist() == [400, 200, 400, 500]


def test_cdf134_third_card_face_up(tmp_path: Path) -> None:
    coups = [coup("C1", player_cards="TS 4H KD", third_face_up=True), coup("C2", player_cards="TS 4H KD", third_face_up=False),
             coup("C3", player_cards="TS 4H KD", third_face_up=None), coup("C4", third_face_up=False)]
    assert found(audit(tmp_path, cdf(coups), "CDF134")) == [("C2", None)]


def test_cdf110_stake_sums_are_exact_past_the_floats_integers(tmp_path: Path) -> None:
    """Parquet holds any int64: a result of 2**53 + 1 cents is no integer a float64 holds, and the
    stakes' sum must still equal it exactly (no finding), or differ from it by one cent (a finding)."""
    big = 2**53 + 1
    ok, s1 = won("C1", stake=big, bank_cents=big)
    ok["cagnotte_cents"], ok["bank_after_cents"] = 0, 2 * big
    off, s2 = won("C2", stake=big, bank_cents=big, bank_event="rotation", banker_id="B2")
    off["cagnotte_cents"], off["bank_after_cents"] = 0, 2 * big
    s2[0]["result_cents"] = -(big + 1)  # a cent more than the banker took
    f = audit(tmp_path, cdf([ok, off], s1 + s2), "CDF110", fmt="parquet")
    assert found(f) == [("C2", None)]


def test_cdf133_stakes_a_cent_apart_past_the_floats_integers(tmp_path: Path) -> None:
    """Totals of 2**53 + 1 and 2**53 cents are one cent apart, which no float64 tells: the punt with
    the lower one does not hold the highest stake."""
    big = 2**53
    stakes = [stake_row("S1", "C1", player="P2", seat=2, amount=big + 1), stake_row("S2", "C1", player="P3", seat=3, amount=big)]
    f = audit(tmp_path, cdf([coup("C1", player_id="P3")], stakes), "CDF133", fmt="parquet")
    assert found(f) == [("C1", None)] and list(f["expected"]) == ["P2"]


# --- A coup some of whose stakes were left out ----------------------------------------------------


def test_cdf110_does_not_sum_a_coup_whose_stake_was_quarantined_or_repeated(tmp_path: Path) -> None:
    # C1's second stake has an unreadable amount (LOG001), C2's a stake id already used (LOG002):
    # the sum of what is left is not the coup's, and a lawful coup must not read as a critical
    # breach. C3, all of its stakes read, is still judged, and so is C1's bank after the coup.
    c1, s1 = won("C1", stake=12000)
    s1 = [stake_row("C1-S1", "C1", amount=10000, result=-10000), stake_row("C1-S2", "C1", player="P3", seat=3, amount="lots", result=-2000)]  # type: ignore[arg-type]
    c1["bank_after_cents"] += 1
    c2, s2 = won("C2", stake=12000, bank_event="rotation", banker_id="B2")
    s2 = [stake_row("C2-S1", "C2", amount=10000, result=-10000), stake_row("C1-S1", "C2", player="P3", seat=3, amount=2000, result=-2000)]
    c3, s3 = won("C3", bank_event="rotation", banker_id="B3")
    s3[0]["result_cents"] = -9000
    f = audit(tmp_path, cdf([c1, c2, c3], s1 + s2 + s3), "CDF110", quarantine_ok=True)
    assert found(f) == [("C1", None), ("C3", None)]
    assert list(f["expected"]) == ["bank_after_cents = 21400", "banker_result_cents = 9000"]


def test_cdf110_sums_a_coup_whose_stake_was_written_twice_cell_for_cell(tmp_path: Path) -> None:
    # A stakes file delivered twice repeats every stake: each copy is LOG002, but what was kept is the
    # coup's every stake, so its sum is still judged (C1's stake result does not match the banker's).
    # A stake id reused with another amount may be a stake of its own: C2's sum is not judged.
    c1, s1 = won("C1")
    s1[0]["result_cents"] = -9000
    c2, s2 = won("C2", bank_event="rotation", banker_id="B2")
    s2[0]["result_cents"] = -9000
    reused = dict(s2[0], amount_cents=s2[0]["amount_cents"] + 100)
    f = audit(tmp_path, cdf([c1, c2], s1 + s2 + [dict(s1[0]), reused]), "CDF110", quarantine_ok=True)
    assert found(f) == [("C1", None)]
    assert list(f["expected"]) == ["banker_result_cents = 9000"]


def test_cdf110_sums_the_stakes_of_a_coup_written_twice_cell_for_cell(tmp_path: Path) -> None:
    # A coups file delivered twice repeats every coup: each copy is LOG002, but whose stakes are whose
    # is still plain, so C1's sum is judged. A coup id reused for another coup (C2, another bank)
    # leaves its stakes unjudged: they may be the other coup's.
    c1, s1 = won("C1")
    s1[0]["result_cents"] = -9000
    c2, s2 = won("C2", bank_event="rotation", banker_id="B2")
    s2[0]["result_cents"] = -9000
    other = dict(c2, bank_cents=c2["bank_cents"] + 100)
    f = audit(tmp_path, cdf([c1, c2, dict(c1), other], s1 + s2), "CDF110", quarantine_ok=True)
    assert found(f) == [("C1", None)]


def test_cdf110_without_a_stakes_table_judges_the_bank_after_the_coup_only(tmp_path: Path) -> None:
    c1, _ = won("C1")
    c2, _ = won("C2", bank_event="rotation", banker_id="B2")
    c2["bank_after_cents"] += 1
    assert found(audit(tmp_path, cdf([c1, c2]), "CDF110")) == [("C2", None)]


def test_cdf110_with_the_stakes_file_unreadable_judges_no_sum(tmp_path: Path) -> None:
    c1, s1 = won("C1")
    write_bundle(tmp_path, cdf([c1], s1))
    (tmp_path / "cdf_stakes.csv").write_text("stake_id,coup_id\nS1,C1\n", encoding="utf-8")  # no required columns
    bundle = load_bundle(tmp_path)
    assert bundle.files[-1].error or any(f.error for f in bundle.files if f.table == "cdf_stakes")
    assert run_audit(bundle, load_ruleset(), select_rules("CDF110"), lang="en").findings.empty


def test_cdf129_and_cdf133_do_not_judge_a_coup_whose_banc_was_quarantined(tmp_path: Path) -> None:
    # The banc that covered C1's bank is unreadable: its abonament then looks uncovered, and the cards
    # look to have gone to the lower stake. Neither can be told; C2, read whole, is judged.
    s1 = [stake_row("S1", "C1", player="P3", seat=3, kind="banc", amount="x"),  # type: ignore[arg-type]
          stake_row("S2", "C1", player="P4", seat=4, kind="abonament", amount=100), stake_row("S3", "C1", player="P2", seat=2, amount=500)]
    s2 = [stake_row("S4", "C2", player="P4", seat=4, kind="abonament", amount=100), stake_row("S5", "C2", player="P2", seat=2, amount=500),
          stake_row("S6", "C2", player="P5", seat=5, amount=900)]
    coups = [coup("C1", player_id="P3"), coup("C2", player_id="P2")]
    assert found(audit(tmp_path / "a", cdf(coups, s1 + s2), "CDF129", quarantine_ok=True)) == [("C2", None)]
    assert found(audit(tmp_path / "b", cdf(coups, s1 + s2), "CDF133", quarantine_ok=True)) == [("C2", None)]


def test_cdf132_does_not_judge_a_banc_seguit_after_a_coup_whose_banc_was_quarantined(tmp_path: Path) -> None:
    c1 = coup("C1", banker_cards="TC 9D", outcome="banker", banker_result_cents=10000, cagnotte_cents=500, bank_after_cents=19500)
    s1 = [stake_row("S1", "C1", player="P7", kind="banc", amount=10000, result="lost")]  # type: ignore[arg-type]
    c2 = coup("C2", bank_cents=19500, bank_after_cents=19500)
    s2 = [stake_row("S2", "C2", player="P7", kind="banc_seguit", amount=19500)]
    assert found(audit(tmp_path, cdf([c1, c2], s1 + s2), "CDF132", quarantine_ok=True)) == []


def test_stakes_of_a_coup_id_written_twice_are_judged_against_neither_coup(tmp_path: Path) -> None:
    # Two different coups logged under one id (LOG002 on the second): the stakes naming it may be
    # either's, so none is judged against the first (a punt the second coup's player won would read
    # as wrongly paid, CDF128, and the first coup's accounts as unbalanced, CDF110). C3 is judged.
    c1, s1 = won("C1")
    c2, s2 = lost("C2", bank_event="rotation", banker_id="B2")
    c2["coup_id"] = "C1"
    s2 = [stake_row("C2-S1", "C1", amount=10000, result=10000)]
    c3, s3 = won("C3", bank_event="rotation", banker_id="B3")
    s3[0]["result_cents"] = -9000
    f = audit(tmp_path, cdf([c1, c2, c3], s1 + s2 + s3), "CDF110,CDF128", quarantine_ok=True)
    assert found(f) == [("C3", None), ("C3", "C3-S1")]


def test_hands_are_read_card_by_card_as_the_format_writes_them() -> None:
    """Each hand's cards as values (A=1, 2-9, T J Q K = 0) and 0-51 codes (rank × 4 + suit), -1 where a
    two-card hand has no third, and its count of cards: every two-card hand and random three-card
    hands, read from each hand's bytes as the load lets hands through, and the same read through
    the padded grid a column of any other text takes (a missing hand, a cell of six bytes)."""
    import random

    from auditor.rules.cdf_replay import RANKS, SUITS, parse_hands

    rng = random.Random(7)
    cards = [r + s for r in RANKS for s in SUITS]
    hands = [f"{a} {b}" for a in cards for b in cards] + [" ".join(rng.sample(cards, 3)) for _ in range(3000)]
    rng.shuffle(hands)

    def expected(hand: str) -> tuple[list[int], list[int], int]:
        held = hand.split()
        values = [min(RANKS.index(c[0]) + 1, 10) % 10 for c in held] + [-1] * (3 - len(held))
        codes = [RANKS.index(c[0]) * 4 + SUITS.index(c[1]) for c in held] + [-1] * (3 - len(held))
        return values, codes, len(held)

    want = [expected(h) for h in hands]
    for column in (hands, [*hands, None], [*hands, "AS KS "], [*hands, "AS K", "S 9H"]):
        values, codes, count = parse_hands(pd.Series(column, dtype="str"))
        assert values[: len(hands)].tolist() == [v for v, _, _ in want]
        assert codes[: len(hands)].tolist() == [c for _, c, _ in want]
        assert count[: len(hands)].tolist() == [n for _, _, n in want]
        # Whichever way a column is read, each cell reads as the grid of its bytes reads it (a
        # missing cell after the column makes it take the grid).
        grid = parse_hands(pd.Series([*column, None], dtype="str"))
        assert all(np.array_equal(got, by_grid[: len(column)]) for got, by_grid in zip((values, codes, count), grid, strict=True))
    values, codes, count = parse_hands(pd.Series([*hands[:3], None], dtype="str"))
    assert values[3].tolist() == codes[3].tolist() == [-1, -1, -1] and count[3] == 0  # a missing hand holds no card
