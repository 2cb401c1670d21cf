"""Lawful wheel-of-fortune play (epígraf 24): the standard 54-slot wheel, two impulses, at least four
revolutions (or a void spin), bets closed at "no hi van més apostes", winners paid from the smallest
payout to the largest, no bets while the previous spin is being paid."""

from __future__ import annotations

import numpy as np
import pandas as pd

from auditor.simulate.chemin_de_fer import Columns

ODDS = {"24": 1, "15": 2, "7": 5, "4": 10, "2": 20, "figura_1": 45, "figura_2": 45}
COUNTS = {"24": 24, "15": 15, "7": 7, "4": 4, "2": 2, "figura_1": 1, "figura_2": 1}
SYMBOL_WEIGHTS = np.array([0.35, 0.25, 0.15, 0.1, 0.08, 0.035, 0.035])


def standard_layout(rng: np.random.Generator) -> list[str]:
    slots = [sym for sym, n in COUNTS.items() for _ in range(n)]
    return [slots[i] for i in rng.permutation(len(slots))]


def simulate(rng: np.random.Generator, n_spins: int, start: pd.Timestamp) -> dict[str, pd.DataFrame]:
    n_tables = int(max(2, min(8, n_spins // 500)))
    tables, layouts = [], Columns()
    spins, bets = Columns(), Columns()
    symbols = list(ODDS)
    spin_no, bet_no = 1, 1
    per_table = [n_spins // n_tables + (1 if i < n_spins % n_tables else 0) for i in range(n_tables)]
    for t, n in enumerate(per_table):
        table_id = f"WHL{t + 1:02d}"
        minimum = int(rng.choice([200, 500, 1000]))
        maximum = minimum * int(rng.choice([50, 100]))
        tables.append({"table_id": table_id, "game": "wheel_of_fortune", "min_cents": minimum, "max_cents": maximum,
                       "authorised_min_cents": minimum, "bank_unlimited": None, "seats": 7})
        layout = standard_layout(rng)
        for slot, sym in enumerate(layout):
            layouts.add(table_id=table_id, slot=slot, symbol=sym)
        clock = start + pd.Timedelta(minutes=3 * t)
        croupier = f"{table_id}-K{int(rng.integers(100, 999))}"
        for i in range(n):
            if i and i % 400 == 0:
                clock += pd.Timedelta(hours=int(rng.integers(8, 14)))
            if i % 60 == 0:
                croupier = f"{table_id}-K{int(rng.integers(100, 999))}"
            ts_open = clock + pd.Timedelta(seconds=int(rng.integers(2, 20)))
            ts_nmb = ts_open + pd.Timedelta(seconds=int(rng.integers(15, 30)))
            r = rng.random()
            revolutions = round(float(rng.uniform(4.05, 9.0)), 2)
            on_pivot = obstructed = False
            if r < 0.01:
                revolutions = round(float(rng.uniform(2.0, 3.95)), 2)
            elif r < 0.02:
                on_pivot = True
            elif r < 0.025:
                obstructed = True
            void = r < 0.025
            ts_stop = ts_nmb + pd.Timedelta(seconds=int(8 + revolutions * 3))
            slot = int(rng.integers(54))
            win = None if void else layout[slot]
            spin_id = f"W{spin_no:08d}"
            spin_no += 1
            winners: list[tuple[int, int]] = []  # (payout, index into bets of this spin)
            placed: list[dict[str, object]] = []
            for _ in range(int(rng.integers(0, 9))):
                sym = symbols[int(rng.choice(len(symbols), p=SYMBOL_WEIGHTS / SYMBOL_WEIGHTS.sum()))]
                stake = minimum * int(rng.integers(1, 21))
                stake = min(stake, maximum)
                ts_placed = ts_open + pd.Timedelta(seconds=float(rng.uniform(0, (ts_nmb - ts_open).total_seconds() - 2)))
                withdrawn = ts_placed + pd.Timedelta(seconds=1) if rng.random() < 0.02 else None
                if withdrawn is not None and withdrawn >= ts_nmb:
                    withdrawn = None
                wins = not void and withdrawn is None and sym == win
                payout = stake * ODDS[sym] if wins else 0
                returned = bool(void or withdrawn is not None or wins)
                placed.append({"bet_id": f"WB{bet_no:09d}", "spin_id": spin_id, "player_id": f"{table_id}-J{int(rng.integers(100, 999))}",
                               "symbol": sym, "stake_cents": stake, "ts_placed": ts_placed.floor("s"), "ts_withdrawn": withdrawn.floor("s") if withdrawn is not None else None,
                               "payout_cents": payout, "stake_returned": returned, "paid_seq": None})
                bet_no += 1
                if payout:
                    winners.append((payout, len(placed) - 1))
            for seq, (_, idx) in enumerate(sorted(winners, key=lambda w: (w[0], w[1])), start=1):
                placed[idx]["paid_seq"] = seq
            ts_settled = ts_stop + pd.Timedelta(seconds=int(rng.integers(5, 10) + 3 * len(placed)))
            spins.add(spin_id=spin_id, table_id=table_id, croupier_id=croupier, ts_open=ts_open, ts_no_more_bets=ts_nmb,
                      ts_stop=ts_stop, ts_settled=ts_settled, revolutions=revolutions, stop_slot=None if on_pivot else slot,
                      on_pivot=on_pivot, obstructed=obstructed, symbol=win, status="void" if void else "settled")
            for b in placed:
                bets.add(**b)
            clock = ts_settled
    return {"tables": pd.DataFrame(tables), "wheel_layouts": layouts.frame(), "wheel_spins": spins.frame(), "wheel_bets": bets.frame()}
