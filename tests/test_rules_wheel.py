"""Roda de la fortuna (WHL201-WHL212): tiny inline spins that pass and that fail."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from helpers import LAYOUT, WHEEL_TABLE, at, audit, bet, found, layout, spin, wheel


def test_lawful_spins_pass_every_wheel_rule(tmp_path: Path) -> None:
    spins = [spin("W1-1", 1, slot=40), spin("W1-2", 2, slot=0)]
    bets = [bet("B1", symbol="7", stake=1000, payout_cents=5000, stake_returned=True, paid_seq=2),
            bet("B2", symbol="figura_1", stake=500),
            bet("B3", symbol="7", stake=500, payout_cents=2500, stake_returned=True, paid_seq=1),
            bet("B4", "W1-2", symbol="24", stake=1000, n=2, payout_cents=1000, stake_returned=True, paid_seq=1)]
    assert found(audit(tmp_path, wheel(spins, bets), "WHL")) == []


def test_whl201_wheel_layout(tmp_path: Path) -> None:
    bad = ["24"] * 25 + ["15"] * 14 + LAYOUT[39:]
    tables = wheel([spin()], layouts=layout("W1") + layout("W2", bad))
    tables["tables"].append(WHEEL_TABLE | {"table_id": "W2"})
    f = audit(tmp_path, tables, "WHL201")
    assert list(f["table_id"]) == ["W2"]


def test_whl201_missing_slot(tmp_path: Path) -> None:
    assert list(audit(tmp_path, wheel([spin()], layouts=layout()[:-1]), "WHL201")["table_id"]) == ["W1"]


def test_whl201_and_whl206_do_not_judge_a_layout_that_lost_a_row(tmp_path: Path) -> None:
    # W1's slot 40 row has an unreadable symbol (LOG001): its layout as read has 53 slots, and its
    # spin on slot 40 has no symbol to compare with. W2 lacks slot 53 in the log itself: judged.
    lost = layout("W1")
    lost[40]["symbol"] = "seven"
    tables = wheel([spin("W1-1", 1, slot=40), spin("W2-1", 1, slot=53, table_id="W2")], layouts=lost + layout("W2")[:-1])
    tables["tables"].append(WHEEL_TABLE | {"table_id": "W2"})
    assert list(audit(tmp_path / "a", tables, "WHL201", quarantine_ok=True)["table_id"]) == ["W2"]
    assert found(audit(tmp_path / "b", tables, "WHL206", quarantine_ok=True)) == [("W2-1", None)]


@pytest.mark.parametrize(("revolutions", "status", "finding"), [(4.0, "settled", False), (3.9, "settled", True), (3.9, "void", False)])
def test_whl202_minimum_revolutions(tmp_path: Path, revolutions: float, status: str, finding: bool) -> None:
    s = spin(revolutions=revolutions, status=status, symbol=None if status == "void" else "7")
    assert bool(found(audit(tmp_path, wheel([s]), "WHL202"))) is finding


@pytest.mark.parametrize("rule,field", [("WHL203", "on_pivot"), ("WHL204", "obstructed")])
def test_whl203_204_must_be_void(tmp_path: Path, rule: str, field: str) -> None:
    spins = [spin("W1-1", 1, **{field: True}), spin("W1-2", 2, **{field: True, "status": "void", "symbol": None})]
    assert found(audit(tmp_path, wheel(spins), rule)) == [("W1-1", None)]


def test_whl205_void_spin_settlement(tmp_path: Path) -> None:
    s = spin(status="void", symbol=None, on_pivot=True, stop_slot=None)
    bets = [bet("B1", stake_returned=True), bet("B2", payout_cents=500, stake_returned=True), bet("B3", stake_returned=False)]
    assert found(audit(tmp_path, wheel([s], bets), "WHL205")) == [("W1-1", "B2"), ("W1-1", "B3")]


def test_whl206_winning_symbol(tmp_path: Path) -> None:
    spins = [spin("W1-1", 1, slot=40), spin("W1-2", 2, slot=40, symbol="2")]
    f = audit(tmp_path, wheel(spins), "WHL206")
    assert found(f) == [("W1-2", None)] and f.iloc[0]["expected"] == "7"


def test_whl206_each_spin_is_judged_by_its_own_tables_layout(tmp_path: Path) -> None:
    """Two tables whose slot 40 differs, a table with no layout, and a settled spin with no stop slot."""
    other = LAYOUT[:40] + ["2"] + LAYOUT[41:]
    spins = [spin("W1-1", 1), spin("W2-1", 1, table_id="W2"), spin("W2-2", 2, table_id="W2", symbol="2"),
             spin("W3-1", 1, table_id="W3"), spin("W1-2", 2, stop_slot=None)]
    tables = wheel(spins, layouts=layout("W1") + layout("W2", other))
    tables["tables"] += [WHEEL_TABLE | {"table_id": "W2"}, WHEEL_TABLE | {"table_id": "W3"}]
    f = audit(tmp_path, tables, "WHL206")
    assert sorted(found(f)) == [("W1-2", None), ("W2-1", None), ("W3-1", None)]
    expected = dict(zip(f["round_id"], f["expected"], strict=True))
    assert expected["W2-1"] == "2" and pd.isna(expected["W1-2"]) and pd.isna(expected["W3-1"])


@pytest.mark.parametrize("extra_first", [True, False])
def test_whl206_207_a_slot_listed_with_two_symbols_accepts_either_whatever_the_row_order(tmp_path: Path, extra_first: bool) -> None:
    """Slot 40 listed as `7` and as `2` (WHL201's finding): a spin recorded on either is not WHL206's,
    and its bets are paid by the recorded symbol; a third symbol is reported, naming both."""
    extra = {"table_id": "W1", "slot": 40, "symbol": "2"}
    rows = [extra, *layout()] if extra_first else [*layout(), extra]
    spins = [spin("W1-1", 1, slot=40, symbol="7"), spin("W1-2", 2, slot=40, symbol="2"), spin("W1-3", 3, slot=40, symbol="24")]
    bets = [bet("B1", "W1-2", symbol="2", stake=1000, n=2, payout_cents=20000, stake_returned=True, paid_seq=1),
            bet("B2", "W1-2", symbol="7", stake=1000, n=2)]
    tables = wheel(spins, bets, layouts=rows)
    f = audit(tmp_path / "206", tables, "WHL206")
    assert found(f) == [("W1-3", None)] and list(f["expected"]) == ["2|7"]
    assert found(audit(tmp_path / "207", tables, "WHL207")) == []


def test_whl206_a_slot_listed_twice_is_its_own_tables_and_slots_only(tmp_path: Path) -> None:
    """W1 lists slot 40 as `7` and as `2`; W2's layout is whole. Spins on W1's slot 40 recorded as
    either symbol pass; W2's slot 40 and W1's slot 41 are judged by their one symbol, and a settled
    spin with no stop slot is reported with no symbol expected, among many lawful spins."""
    tables = wheel([spin("W1-1", 1, slot=40, symbol="2"), spin("W1-2", 2, slot=40, symbol="7"), spin("W2-1", 1, slot=40, table_id="W2", symbol="2"),
                    spin("W1-3", 3, slot=41, symbol="2"), spin("W1-4", 4, stop_slot=None),
                    *(spin(f"W3-{n}", n, slot=n % 54, table_id="W3") for n in range(1, 200))],
                   layouts=[*layout("W1"), {"table_id": "W1", "slot": 40, "symbol": "2"}, *layout("W2"), *layout("W3")])
    tables["tables"] += [WHEEL_TABLE | {"table_id": "W2"}, WHEEL_TABLE | {"table_id": "W3"}]
    f = audit(tmp_path, tables, "WHL206")
    assert sorted(found(f)) == [("W1-3", None), ("W1-4", None), ("W2-1", None)]
    expected = dict(zip(f["round_id"], f["expected"], strict=True))
    assert expected["W2-1"] == "7" and expected["W1-3"] == "7" and pd.isna(expected["W1-4"])


@pytest.mark.parametrize(("symbol", "slot", "odds"), [("24", 0, 1), ("15", 24, 2), ("7", 40, 5), ("4", 46, 10), ("2", 50, 20), ("figura_1", 52, 45), ("figura_2", 53, 45)])
def test_whl207_payout_odds_table(tmp_path: Path, symbol: str, slot: int, odds: int) -> None:
    good = bet("B1", symbol=symbol, stake=1000, payout_cents=1000 * odds, stake_returned=True, paid_seq=1)
    assert found(audit(tmp_path, wheel([spin(slot=slot)], [good]), "WHL207")) == []
    short = bet("B1", symbol=symbol, stake=1000, payout_cents=1000 * odds - 100, stake_returned=True, paid_seq=1)
    assert found(audit(tmp_path / "bad", wheel([spin(slot=slot)], [short]), "WHL207")) == [("W1-1", "B1")]


def test_whl207_bets_are_paid_by_the_layouts_slot_else_by_the_recorded_symbol(tmp_path: Path) -> None:
    """A spin recorded as `2` on slot 40 (a `7`, WHL206's finding) pays the `7`s; a table with no
    layout, and a settled spin with no stop slot, are judged by the recorded symbol."""
    spins = [spin("W1-1", 1, slot=40, symbol="2"), spin("W3-1", 1, slot=40, table_id="W3", symbol="2"),
             spin("W1-2", 2, stop_slot=None, symbol="2")]
    seven_paid = {"payout_cents": 5000, "stake_returned": True, "paid_seq": 1}
    two_paid = {"payout_cents": 20000, "stake_returned": True, "paid_seq": 2}
    bets = [bet("B1", "W1-1", symbol="7", **seven_paid), bet("B2", "W1-1", symbol="2", **two_paid),
            bet("B3", "W3-1", symbol="2", **two_paid), bet("B4", "W3-1", symbol="7", **seven_paid),
            bet("B5", "W1-2", symbol="2", n=2, **two_paid)]
    tables = wheel(spins, bets)
    tables["tables"].append(WHEEL_TABLE | {"table_id": "W3"})
    assert sorted(found(audit(tmp_path, tables, "WHL207"))) == [("W1-1", "B2"), ("W3-1", "B4")]


def test_whl207_losers_and_withdrawn(tmp_path: Path) -> None:
    bets = [bet("B1", symbol="24", stake_returned=True),  # a loser returned
            bet("B2", symbol="7", ts_withdrawn=at(130), stake_returned=True),  # withdrawn before: not in play
            bet("B3", symbol="24")]
    assert found(audit(tmp_path, wheel([spin()], bets), "WHL207")) == [("W1-1", "B1")]


def test_whl208_late_bet(tmp_path: Path) -> None:
    bets = [bet("B1", ts_placed=at(139)), bet("B2", ts_placed=at(140)), bet("B3", ts_placed=at(130), ts_withdrawn=at(145), stake_returned=True)]
    assert found(audit(tmp_path, wheel([spin()], bets), "WHL208")) == [("W1-1", "B2"), ("W1-1", "B3")]


def test_whl209_bet_during_payout(tmp_path: Path) -> None:
    spins = [spin("W1-1", 1), spin("W1-2", 2)]  # W1-1 settled at 180 s
    bets = [bet("B1", "W1-2", ts_placed=at(181), symbol="24"), bet("B2", "W1-2", ts_placed=at(175), symbol="24")]
    assert found(audit(tmp_path, wheel(spins, bets), "WHL209")) == [("W1-2", "B2")]


@pytest.mark.parametrize("later_id_first", [False, True])
def test_whl209_two_spins_at_one_time_are_replayed_in_id_order_whatever_the_row_order(tmp_path: Path, later_id_first: bool) -> None:
    # Both open and close bets at the same instants; W1-1 settles at 180 s, W1-2 at 170 s.
    spins = [spin("W1-1", 1), spin("W1-2", 1, ts_settled=at(170))]
    bets = [bet("B1", "W1-1", ts_placed=at(125)), bet("B2", "W1-2", ts_placed=at(125))]
    if later_id_first:
        spins.reverse()
    assert found(audit(tmp_path, wheel(spins, bets), "WHL209")) == [("W1-2", "B2")]


def test_whl210_payout_order(tmp_path: Path) -> None:
    spins = [spin("W1-1", 1), spin("W1-2", 2)]
    bets = [bet("B1", symbol="7", stake=1000, payout_cents=5000, stake_returned=True, paid_seq=1),
            bet("B2", symbol="7", stake=500, payout_cents=2500, stake_returned=True, paid_seq=2),
            bet("B3", "W1-2", n=2, symbol="7", stake=500, payout_cents=2500, stake_returned=True, paid_seq=1),
            bet("B4", "W1-2", n=2, symbol="7", stake=500, payout_cents=2500, stake_returned=True, paid_seq=2),
            # Listed out of order, paid in order: judged by paid_seq, not by the file's order.
            bet("B5", "W1-3", n=3, symbol="7", stake=1000, payout_cents=5000, stake_returned=True, paid_seq=2),
            bet("B6", "W1-3", n=3, symbol="7", stake=500, payout_cents=2500, stake_returned=True, paid_seq=1)]
    f = audit(tmp_path, wheel([*spins, spin("W1-3", 3)], bets), "WHL210")
    assert found(f) == [("W1-1", None)] and list(f["observed"]) == ["5000 2500"]


def test_whl210_bets_paid_at_one_step_are_not_ordered_among_themselves(tmp_path: Path) -> None:
    win = {"symbol": "7", "stake_returned": True}
    bets = [  # W1-1: two bets at step 1 (2,000 and 500), then 1,000 at step 2: 2,000 came before 1,000
            bet("B1", payout_cents=2000, paid_seq=1, **win), bet("B2", payout_cents=500, paid_seq=1, **win),
            bet("B3", payout_cents=1000, paid_seq=2, **win),
            # W1-2: 500 and 500 at step 1, then 2,000; unrecorded steps count as paid last
            bet("B4", "W1-2", n=2, payout_cents=2000, paid_seq=2, **win), bet("B5", "W1-2", n=2, payout_cents=500, paid_seq=1, **win),
            bet("B6", "W1-2", n=2, payout_cents=500, paid_seq=1, **win), bet("B7", "W1-2", n=2, payout_cents=3000, paid_seq=None, **win),
            bet("B8", "W1-2", n=2, payout_cents=2500, paid_seq=None, **win),
            # W1-3: an unrecorded step (paid last) smaller than a recorded one
            bet("B9", "W1-3", n=3, payout_cents=2000, paid_seq=1, **win), bet("B10", "W1-3", n=3, payout_cents=500, paid_seq=None, **win)]
    f = audit(tmp_path, wheel([spin("W1-1", 1), spin("W1-2", 2), spin("W1-3", 3)], bets), "WHL210")
    assert found(f) == [("W1-1", None), ("W1-3", None)] and list(f["observed"]) == ["500 2000 1000", "2000 500"]


def test_whl211_stake_limits(tmp_path: Path) -> None:
    bets = [bet("B1", stake=500, symbol="24"), bet("B2", stake=400, symbol="24"), bet("B3", stake=50000, symbol="24"), bet("B4", stake=50100, symbol="24")]
    assert found(audit(tmp_path, wheel([spin()], bets), "WHL211")) == [("W1-1", "B2"), ("W1-1", "B4")]


def test_whl211_a_table_without_a_maximum_judges_the_minimum_alone(tmp_path: Path) -> None:
    data = wheel([spin(), spin("W2-1", 1, table_id="W2")], [bet("B1", stake=400, symbol="24"), bet("B2", stake=10**9, symbol="24"),
                                                           bet("B3", "W2-1", stake=400, symbol="24"), bet("B4", "W2-1", stake=10**9, symbol="24")])
    data["tables"].append(WHEEL_TABLE | {"table_id": "W2", "max_cents": None})
    f = audit(tmp_path, data, "WHL211")
    assert found(f) == [("W1-1", "B1"), ("W1-1", "B2"), ("W2-1", "B3")]
    assert list(f["expected"]) == ["500–50000", "500–50000", "500–"]


def test_whl212_second_impulse(tmp_path: Path) -> None:
    spins = [spin("W1-1", 1), spin("W1-2", 2, ts_no_more_bets=at(290)), spin("W1-3", 3, ts_settled=at(399)), spin("W1-4", 4, ts_settled=at(520))]
    assert found(audit(tmp_path, wheel(spins), "WHL212")) == [("W1-2", None), ("W1-3", None)]
