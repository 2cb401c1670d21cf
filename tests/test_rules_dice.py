"""Banca francesa (BFR301-BFR314): tiny inline throws that pass and that fail."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from helpers import audit, dbet, dice, found, ruleset_with, throw, write_bundle

from auditor.engine import run_audit
from auditor.loading import load_bundle
from auditor.rules import select_rules
from auditor.rules.dice import played_cents
from auditor.ruleset import load_ruleset


def test_lawful_throws_pass_every_dice_rule(tmp_path: Path) -> None:
    throws = [throw("T1", 1, (2, 2, 3)), throw("T2", 2, (1, 1, 1)), throw("T3", 3, (3, 3, 3))]
    bets = [dbet("B1", "T1", "asos", 500, collected=True, collect_seq=1), dbet("B2", "T1", "gran", 1000, collected=True, collect_seq=2),
            dbet("B3", "T1", "petit", 1000, payout_cents=1000, paid_seq=3),
            dbet("B4", "T2", "asos", 500, payout_cents=30500, paid_seq=2), dbet("B5", "T2", "petit", 1000, collected=True, collect_seq=1),
            dbet("B6", "T3", "petit", 1000), dbet("B7", "T1", "gran", 2000, placement="boundary", collected=True, collect_seq=3)]
    bets[2]["paid_seq"] = 4
    sets = [{"dice_set_id": "DS1", "edge_mm": 14.0, "opposite_faces_sum_7": True, "same_colour": True, "numbered": True}]
    assert found(audit(tmp_path, dice(throws, bets, sets), "BFR")) == []


@pytest.mark.parametrize(("dice_", "result"), [((1, 1, 1), "asos"), ((1, 1, 2), "none"), ((1, 1, 3), "petit"), ((2, 2, 3), "petit"),
                                              ((2, 3, 3), "none"), ((4, 4, 5), "none"), ((4, 5, 5), "gran"), ((5, 5, 6), "gran"), ((5, 6, 6), "none")])
def test_bfr301_throw_result(tmp_path: Path, dice_: tuple[int, int, int], result: str) -> None:
    assert found(audit(tmp_path, dice([throw("T1", 1, dice_)]), "BFR301")) == []
    wrong = "gran" if result != "gran" else "petit"
    assert found(audit(tmp_path / "w", dice([throw("T1", 1, dice_, result=wrong)]), "BFR301")) == [("T1", None)]


def test_bfr302_payout_odds(tmp_path: Path) -> None:
    throws = [throw("T1", 1, (1, 1, 1)), throw("T2", 2, (3, 3, 4))]  # asos; none
    bets = [dbet("B1", "T1", "asos", 500, payout_cents=30500), dbet("B2", "T1", "asos", 500, payout_cents=30000),
            dbet("B3", "T1", "gran", 1000), dbet("B4", "T2", "petit", 1000, collected=True),
            dbet("B5", "T1", "petit", 2000, collected=True)]
    assert found(audit(tmp_path, dice(throws, bets), "BFR302")) == [("T1", "B2"), ("T1", "B3"), ("T2", "B4")]


def test_bfr302_boundary_plays_half(tmp_path: Path) -> None:
    bets = [dbet("B1", placement="boundary", chips=2000, payout_cents=1000), dbet("B2", placement="boundary", chips=2000, payout_cents=2000)]
    assert found(audit(tmp_path, dice([throw()], bets), "BFR302")) == [("T1", "B2")]


def test_a_boundary_bet_plays_half_its_chips_rounded_down() -> None:
    """The stake a bet plays (epígraf 25, V): its chips, half of them rounded down for a boundary bet
    (an odd or a negative amount too, as Python's floor division gives it); a bet of another or no
    placement plays all of its chips."""
    chips = [2000, 1001, 1, -3, 0, 1001, 1001, 2**62 + 1]
    placement = ["boundary", "boundary", "boundary", "boundary", "boundary", "simple", None, "boundary"]
    bets = pd.DataFrame({"chips_cents": pd.array(chips, dtype="int64"),
                         "placement": pd.Categorical(placement, categories=["simple", "boundary"])})
    expected = [c // 2 if p == "boundary" else c for c, p in zip(chips, placement, strict=True)]
    assert played_cents(bets).tolist() == expected == [1000, 500, 0, -2, 0, 1001, 1001, 2**61]


def test_bfr303_stake_maximum(tmp_path: Path) -> None:
    bets = [dbet("B1", target="asos", chips=3000, collected=True), dbet("B2", target="asos", chips=3500, collected=True),
            dbet("B3", target="gran", chips=100000, collected=True), dbet("B4", target="gran", chips=100500, collected=True)]
    assert found(audit(tmp_path, dice([throw()], bets), "BFR303")) == [("T1", "B2"), ("T1", "B4")]


def test_bfr304_stake_minimum(tmp_path: Path) -> None:
    bets = [dbet("B1", chips=500), dbet("B2", chips=400), dbet("B3", target="gran", placement="boundary", chips=800, collected=True)]
    assert found(audit(tmp_path, dice([throw()], bets), "BFR304")) == [("T1", "B2"), ("T1", "B3")]


def test_bfr305_boundary_bet(tmp_path: Path) -> None:
    bets = [dbet("B1", target="gran", placement="boundary", chips=2000, collected=True),
            dbet("B2", target="asos", placement="boundary", chips=1000, collected=True),
            dbet("B3", target="gran", placement="boundary", chips=800, collected=True),
            dbet("B4", target="gran", placement="boundary", chips=200002, collected=True)]
    assert found(audit(tmp_path, dice([throw()], bets), "BFR305")) == [("T1", "B2"), ("T1", "B3"), ("T1", "B4")]


def test_bfr305_says_which_rule_of_a_boundary_bet_was_broken(tmp_path: Path) -> None:
    """What an inspector reads: the wrong target named, or the chips against twice the limits."""
    bets = [dbet("B1", target="gran", chips=400), dbet("B2", target="asos", placement="boundary", chips=1000, collected=True),
            dbet("B3", "T2", target="gran", placement="boundary", chips=800, collected=True), dbet("B4", "T2")]
    findings = audit(tmp_path, dice([throw(), throw("T2", 2)], bets), "BFR305").set_index("item_id")
    assert findings.loc["B2", ["expected", "observed"]].tolist() == ["petit or gran", "asos"]
    assert findings.loc["B3", ["expected", "observed"]].tolist() == ["chips 1000–200000", "chips 800"]
    assert list(findings.index) == ["B2", "B3"]


def test_bfr306_307_null_throws(tmp_path: Path) -> None:
    throws = [throw("T1", 1, null_reason="off_table", status="settled"),
              throw("T2", 2, null_reason="retained_in_cup", status="void", result=None, dice_set_id="DS2")]
    bets = [dbet("B1", "T2"), dbet("B2", "T2", collected=True)]
    assert found(audit(tmp_path, dice(throws, bets), "BFR306")) == [("T1", None)]
    assert found(audit(tmp_path / "b", dice(throws, bets), "BFR307")) == [("T2", "B2")]


def test_bfr308_dice_replaced_after_fault(tmp_path: Path) -> None:
    void = {"status": "void", "result": None}
    throws = [throw("T1", 1, null_reason="off_table", **void), throw("T2", 2, dice_set_id="DS2"),
              throw("T3", 3, dice_set_id="DS2", null_reason="defect", **void), throw("T4", 4, dice_set_id="DS2"),
              throw("T5", 5, dice_set_id="DS2", null_reason="not_isolated", **void), throw("T6", 6, dice_set_id="DS2")]
    assert found(audit(tmp_path, dice(throws), "BFR308")) == [("T4", None)]


@pytest.mark.parametrize("later_id_first", [False, True])
def test_bfr308_two_throws_at_one_time_are_replayed_in_id_order_whatever_the_row_order(tmp_path: Path, later_id_first: bool) -> None:
    throws = [throw("T1", 1, null_reason="off_table", status="void", result=None), throw("T2", 1)]  # same set, same instant
    if later_id_first:
        throws.reverse()
    assert found(audit(tmp_path, dice(throws), "BFR308")) == [("T2", None)]


@pytest.mark.parametrize(("rule", "column"), [("BFR309", "dice_set_id"), ("BFR310", "launcher_id")])
def test_bfr309_310_rotation(tmp_path: Path, rule: str, column: str) -> None:
    throws = [throw(f"T{m}", m) for m in (0, 30, 60, 61, 65)]  # same set and launcher from minute 0
    throws.append(throw("T66", 66, **{column: "OTHER"}))
    throws += [throw("T200", 200), throw("T230", 230)]  # after a 134-minute pause: a new stint
    assert found(audit(tmp_path, dice(throws), rule)) == [("T61", None), ("T65", None)]


def test_bfr311_collect_before_pay(tmp_path: Path) -> None:
    throws = [throw("T1", 1, (1, 1, 1)), throw("T2", 2, (1, 1, 1)), throw("T3", 3, (2, 2, 2))]
    bets = [dbet("B1", "T1", "petit", collected=True, collect_seq=1), dbet("B2", "T1", "asos", 500, payout_cents=30500, paid_seq=2),
            dbet("B3", "T2", "asos", 500, payout_cents=30500, paid_seq=1), dbet("B4", "T2", "petit", collected=True, collect_seq=2),
            dbet("B5", "T3", "gran", collected=True, collect_seq=1), dbet("B6", "T3", "asos", 500, collected=True, collect_seq=2),
            dbet("B7", "T3", "petit", payout_cents=1000, paid_seq=3)]
    assert found(audit(tmp_path, dice(throws, bets), "BFR311")) == [("T2", None), ("T3", None)]


def test_bfr311_a_payment_at_the_same_step_as_a_collection_is_not_after_it(tmp_path: Path) -> None:
    throws = [throw("T1", 1, (2, 2, 3)), throw("T2", 2, (2, 2, 3))]
    bets = [dbet("B1", "T1", "gran", collected=True, collect_seq=1), dbet("B2", "T1", "petit", payout_cents=1000, paid_seq=1),
            dbet("B3", "T2", "gran", collected=True, collect_seq=1), dbet("B4", "T2", "petit", payout_cents=1000, paid_seq=2)]
    f = audit(tmp_path, dice(throws, bets), "BFR311")
    assert found(f) == [("T1", None)]
    assert list(f["observed"]) == ["a payment at the same step as a collection"]


@pytest.mark.parametrize("asos_row_first", [True, False])
def test_bfr311_a_collection_at_the_same_step_as_the_first_asos_is_not_after_it(tmp_path: Path, asos_row_first: bool) -> None:
    """Row order carries no meaning: an asos and a petit both collected at step 1 do not show the
    asos collected first, whichever row the file lists first."""
    asos = dbet("B1", "T1", "asos", 500, collected=True, collect_seq=1)
    petit = dbet("B2", "T1", "petit", collected=True, collect_seq=1)
    two_asos = [dbet("B3", "T2", "asos", 500, collected=True, collect_seq=1), dbet("B4", "T2", "asos", 500, collected=True, collect_seq=1),
                dbet("B5", "T2", "petit", collected=True, collect_seq=2)]
    bets = ([asos, petit] if asos_row_first else [petit, asos]) + two_asos
    throws = [throw("T1", 1, (5, 5, 5)), throw("T2", 2, (5, 5, 5))]
    f = audit(tmp_path, dice(throws, bets), "BFR311")
    assert found(f) == [("T1", None)]
    assert list(f["observed"]) == ["first collection on asos and petit at the same step"]


def test_bfr311_does_not_judge_the_first_collection_of_a_throw_whose_bet_was_quarantined(tmp_path: Path) -> None:
    # T1's asos bet collected first has an unreadable chips cell: of the bets left, a petit looks
    # collected before the other asos. T2, read whole, shows just that and is reported.
    t1 = [dbet("B1", "T1", "asos", "five", collected=True, collect_seq=1), dbet("B2", "T1", "petit", collected=True, collect_seq=2),  # type: ignore[arg-type]
          dbet("B3", "T1", "asos", 500, collected=True, collect_seq=3)]
    t2 = [dbet("B4", "T2", "petit", collected=True, collect_seq=1), dbet("B5", "T2", "asos", 500, collected=True, collect_seq=2)]
    throws = [throw("T1", 1, (5, 5, 5)), throw("T2", 2, (5, 5, 5))]
    assert found(audit(tmp_path, dice(throws, t1 + t2), "BFR311", quarantine_ok=True)) == [("T2", None)]


def test_bfr311_judges_a_throw_with_bets_read_when_a_bet_of_no_known_throw_was_left_out(tmp_path: Path) -> None:
    # B9's throw cannot be read (LOG001): it may be any throw's, but a throw with bets in the audit
    # had them read, and T2's show a petit collected before its asos.
    t2 = [dbet("B4", "T2", "petit", collected=True, collect_seq=1), dbet("B5", "T2", "asos", 500, collected=True, collect_seq=2)]
    lost = [dbet("B9", None, "asos", 500, collected=True, collect_seq=1)]  # type: ignore[arg-type]
    throws = [throw("T1", 1, (5, 5, 5)), throw("T2", 2, (5, 5, 5))]
    assert found(audit(tmp_path, dice(throws, t2 + lost), "BFR311", quarantine_ok=True)) == [("T2", None)]


def test_bfr312_touched_dice(tmp_path: Path) -> None:
    t = throw("T1", 1, (5, 5, 5), touched_before_announce=True)
    bets = [dbet("B1", target="gran", payout_cents=1000), dbet("B2", target="petit"), dbet("B3", target="petit", collected=True),
            dbet("B4", target="gran", chips=2000)]
    assert found(audit(tmp_path, dice([t], bets), "BFR312")) == [("T1", "B3"), ("T1", "B4")]


def test_bfr313_dice_specification(tmp_path: Path) -> None:
    sets = [{"dice_set_id": s, "edge_mm": e, "opposite_faces_sum_7": o, "same_colour": None, "numbered": None}
            for s, e, o in (("DS1", 12.0, True), ("DS2", 15.0, True), ("DS3", 16.0, True), ("DS4", 11.9, True), ("DS5", 14.0, False))]
    f = audit(tmp_path, dice([throw()], sets=sets), "BFR313")
    assert list(f["item_id"]) == ["DS3", "DS4", "DS5"]


def test_bfr314_seats(tmp_path: Path) -> None:
    bets = [dbet("B1", seat=12), dbet("B2", seat=13), dbet("B3", seat=None)]
    assert found(audit(tmp_path, dice([throw()], bets), "BFR314")) == [("T1", "B2")]


def test_bfr303_314_take_the_limits_in_force_on_each_throws_day(tmp_path: Path) -> None:
    """From 2026-03-04 (dated ruleset values) ten seats and asos up to twice the minimum: the same
    bets pass on the day before."""
    custom = ruleset_with(tmp_path / "dated.toml", {"table_seats": ("values = { 2025-12-10 = 12 }", "values = { 2025-12-10 = 12, 2026-03-04 = 10 }"),
                                                    "asos_max_multiple": ("values = { 2025-12-10 = 6 }", "values = { 2025-12-10 = 6, 2026-03-04 = 2 }")})
    throws = [throw("T1", 1, (5, 5, 5)), throw("T2", 2 * 1440, (5, 5, 5))]  # 2026-03-02, then 03-04; no decision
    bets = [dbet("B1", "T1", seat=11), dbet("B2", "T1", "asos", 3000), dbet("B3", "T2", seat=11), dbet("B4", "T2", "asos", 1500)]
    bundle = load_bundle(write_bundle(tmp_path / "b", dice(throws, bets)))
    f = run_audit(bundle, load_ruleset(custom), select_rules("BFR303,BFR314"), lang="en").findings
    assert sorted(zip(f["rule"], f["item_id"], f["expected"], strict=True)) == [("BFR303", "B4", "<= 1000"), ("BFR314", "B3", "<= 10")]


def test_a_throw_left_out_between_two_breaks_the_pair_and_the_stint(tmp_path: Path) -> None:
    """Throws carry no number: a throw quarantined between two is known by its time alone. BFR308
    does not compare the throws on either side of it (the left-out throw may have used another set),
    and BFR309 starts the set's stint again after it; a throw missing from the log altogether is
    not seen, and the throws either side are judged as consecutive."""
    fault = throw("T1", 1, null_reason="off_table", status="void", result=None)
    between = throw("T2", 2, dice_set_id="DS2", die1=9)  # LOG001: a die above 6
    after = throw("T3", 3)
    assert found(audit(tmp_path / "a", dice([fault, between, after]), "BFR308", quarantine_ok=True)) == []
    assert found(audit(tmp_path / "b", dice([fault, after]), "BFR308")) == [("T3", None)]
    # One set from minute 0 to minute 70, a throw left out at minute 50: its stint starts again at 70.
    served = [throw("T0", 0), throw("T40", 40), throw("T70", 70)]
    assert found(audit(tmp_path / "c", dice([*served, throw("T50", 50, die1=9)]), "BFR309", quarantine_ok=True)) == []
    assert found(audit(tmp_path / "d", dice(served), "BFR309")) == [("T70", None)]


def test_a_throw_written_twice_is_no_gap_unless_the_copy_differs_in_what_the_rules_read(tmp_path: Path) -> None:
    """A repeated throw_id (LOG002) equal to the kept throw on table, time, set, launcher and null
    reason is that throw written twice, as a file delivered again writes every throw: the rules go
    on judging around it. A copy that differs there may be another throw under a reused id: a gap."""
    fault = throw("T1", 1, null_reason="off_table", status="void", result=None)
    after = throw("T3", 3)
    assert found(audit(tmp_path / "a", dice([fault, fault, after]), "BFR308", quarantine_ok=True)) == [("T3", None)]
    assert found(audit(tmp_path / "b", dice([fault, after, after]), "BFR308", quarantine_ok=True)) == [("T3", None)]
    other_set = throw("T1", 2, dice_set_id="DS2")
    assert found(audit(tmp_path / "c", dice([fault, other_set, after]), "BFR308", quarantine_ok=True)) == []
    served = [throw("T0", 0), throw("T40", 40), throw("T70", 70)]
    assert found(audit(tmp_path / "d", dice([*served, throw("T40", 40)]), "BFR309", quarantine_ok=True)) == [("T70", None)]
