"""Lawful banca francesa play (epígraf 25): three dice, asos/petit/gran, boundary bets playing half
their chips, null throws made void (the set replaced after a die fell, was defective or soiled),
losing bets collected starting with asos before any payment, dice sets and launching croupiers
rotated within the hour, seats 1-12."""

from __future__ import annotations

import numpy as np
import pandas as pd

from auditor.simulate.chemin_de_fer import Columns

NULLS = ("foreign_object", "off_table", "defect", "foreign_substance", "not_all_in_cup", "retained_in_cup", "not_isolated")
REPLACE = ("off_table", "defect", "foreign_substance")
ODDS = {"asos": 61, "petit": 1, "gran": 1}


def result_of(total: int) -> str:
    if total == 3:
        return "asos"
    if 5 <= total <= 7:
        return "petit"
    if 14 <= total <= 16:
        return "gran"
    return "none"


def simulate(rng: np.random.Generator, n_throws: int, start: pd.Timestamp) -> dict[str, pd.DataFrame]:
    n_tables = int(max(2, min(8, n_throws // 500)))
    tables, sets = [], Columns()
    throws, bets = Columns(), Columns()
    throw_no, bet_no, set_no = 1, 1, 1
    per_table = [n_throws // n_tables + (1 if i < n_throws % n_tables else 0) for i in range(n_tables)]
    for t, n in enumerate(per_table):
        table_id = f"BFR{t + 1:02d}"
        minimum = int(rng.choice([500, 1000]))
        maximum = minimum * int(rng.choice([100, 200]))
        tables.append({"table_id": table_id, "game": "banca_francesa", "min_cents": minimum, "max_cents": maximum,
                       "authorised_min_cents": minimum, "bank_unlimited": None, "seats": 12})
        clock = start + pd.Timedelta(minutes=5 * t)

        def new_set() -> str:
            nonlocal set_no
            sid = f"DS{set_no:06d}"
            set_no += 1
            sets.add(dice_set_id=sid, edge_mm=float(rng.choice([12.7, 14.0, 15.0])), opposite_faces_sum_7=True,
                     same_colour=True, numbered=True)
            return sid

        launchers = iter(range(1, 10**9))
        dice_set, set_since = new_set(), clock
        launcher, launcher_since = f"{table_id}-L{next(launchers):04d}", clock
        for i in range(n):
            if i and i % 300 == 0:
                clock += pd.Timedelta(hours=int(rng.integers(6, 14)))
                dice_set, set_since = new_set(), clock
                launcher, launcher_since = f"{table_id}-L{next(launchers):04d}", clock
            clock += pd.Timedelta(seconds=int(rng.integers(30, 70)))
            if clock - set_since > pd.Timedelta(minutes=float(rng.uniform(45, 58))):
                dice_set, set_since = new_set(), clock
            if clock - launcher_since > pd.Timedelta(minutes=float(rng.uniform(40, 58))):
                launcher, launcher_since = f"{table_id}-L{next(launchers):04d}", clock
            dice = [int(d) for d in rng.integers(1, 7, size=3)]
            null = NULLS[int(rng.integers(len(NULLS)))] if rng.random() < 0.01 else None
            touched = bool(rng.random() < 0.005) and null is None
            truth = result_of(sum(dice))
            throw_id = f"D{throw_no:08d}"
            throw_no += 1
            throws.add(throw_id=throw_id, table_id=table_id, ts=clock, dice_set_id=dice_set, launcher_id=launcher,
                       die1=None if null else dice[0], die2=None if null else dice[1], die3=None if null else dice[2],
                       null_reason=null, touched_before_announce=True if touched else (False if rng.random() < 0.5 else None),
                       result=None if null else truth, status="void" if null else "settled")
            placed: list[dict[str, object]] = []
            for _ in range(int(rng.integers(0, 9))):
                target = str(rng.choice(["asos", "petit", "gran"], p=[0.1, 0.45, 0.45]))
                boundary = target != "asos" and rng.random() < 0.1
                top = minimum * 6 if target == "asos" else min(maximum, minimum * 200)
                played = minimum * int(rng.integers(1, max(2, min(20, top // minimum) + 1)))
                played = min(played, top)
                chips = played * 2 if boundary else played
                wins = null is None and target == truth
                collected = null is None and not touched and truth != "none" and not wins
                seat = int(rng.integers(1, 13)) if rng.random() < 0.7 else None
                placed.append({"bet_id": f"DB{bet_no:09d}", "throw_id": throw_id, "player_id": f"{table_id}-J{int(rng.integers(100, 999))}",
                               "seat": seat, "target": target, "placement": "boundary" if boundary else "normal", "chips_cents": chips,
                               "payout_cents": played * ODDS[target] if wins else 0, "collected": collected, "collect_seq": None, "paid_seq": None})
                bet_no += 1
            seq = 1
            # Collection first, starting with asos; then payments.
            for b in sorted((b for b in placed if b["collected"]), key=lambda b: b["target"] != "asos"):
                b["collect_seq"] = seq
                seq += 1
            for b in placed:
                if b["payout_cents"]:
                    b["paid_seq"] = seq
                    seq += 1
            for b in placed:
                bets.add(**b)
            if null in REPLACE:
                dice_set, set_since = new_set(), clock
    return {"tables": pd.DataFrame(tables), "dice_sets": sets.frame(), "dice_throws": throws.frame(), "dice_bets": bets.frame()}
