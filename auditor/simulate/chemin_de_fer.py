"""Lawful chemin de fer play (epígraf 8), coup by coup.

Six-deck shoes shuffled from the seed with the stop card before the last seven cards; the drawing
rules with the options chosen at random; the bank held while it wins, ceded when it loses, passed
voluntarily at times, carried over a shoe by a winning banker; banc, banc amb la taula, banc
seguit and abonaments; garages (improper above 100 × the point minimum, voluntary of half the bank
from the second coup); 5 % cagnotte rounded half up.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from auditor.simulate.cards import banker_must, half_up, new_shoe, punt_must, score, value

STOP_AFTER = 305  # 312 cards, the stop card before the last seven
RATE_NUM, RATE_DEN = 5, 100
COUPS_PER_SESSION = 420


@dataclass
class Columns:
    rows: dict[str, list[object]] = field(default_factory=dict)

    def add(self, **values: object) -> None:
        for key, v in values.items():
            self.rows.setdefault(key, []).append(v)

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.rows)


class CdfTable:
    def __init__(self, table_id: str, min_cents: int, unlimited: bool, rng: np.random.Generator, start: pd.Timestamp) -> None:
        self.id = table_id
        self.min = min_cents
        self.max = min_cents * 100
        self.unlimited = unlimited
        self.rng = rng
        self.ts = start
        self.shoe_no = 0
        self.coup_in_session = 0
        self.new_session()

    def new_session(self) -> None:
        self.seated = int(self.rng.integers(4, 10))
        # Distinct people: one seat per player (IV), and nobody both seated and standing.
        ids = [int(i) for i in self.rng.choice(np.arange(1000, 10000), size=self.seated + 3, replace=False)]
        self.players = {s: f"{self.id}-P{ids[s - 1]}" for s in range(1, self.seated + 1)}
        self.standing = [f"{self.id}-W{i}" for i in ids[self.seated : self.seated + int(self.rng.integers(0, 4))]]
        self.banker_seat = 1
        self.bank = self._fresh_bank()
        self.event = "initial"
        self.stint_pos = 0
        self.seguit: str | None = None
        self.new_shoe()

    def new_shoe(self) -> None:
        self.shoe_no += 1
        self.shoe = new_shoe(self.rng)
        self.dealt = 0
        self.coup_no = 0

    def _fresh_bank(self) -> int:
        return self.min * int(self.rng.integers(1, 21))

    def _next_seat(self) -> int:
        return self.banker_seat % self.seated + 1

    def _draw(self) -> tuple[str, bool]:
        card = self.shoe[self.dealt]
        self.dealt += 1
        return card, self.dealt > STOP_AFTER

    def _stakes(self, banker: str) -> list[dict[str, object]]:
        rng, bank = self.rng, self.bank
        others = [(s, p) for s, p in self.players.items() if s != self.banker_seat] + [(None, p) for p in self.standing]
        stakes: list[dict[str, object]] = []
        r = rng.random()
        if self.seguit and any(p == self.seguit for _, p in others) and r < 0.6:
            seat = next(s for s, p in others if p == self.seguit)
            stakes.append({"player_id": self.seguit, "seat": seat, "kind": "banc_seguit", "amount_cents": bank})
        elif r < 0.15:
            seat, player = others[int(rng.integers(len(others)))]
            stakes.append({"player_id": player, "seat": seat, "kind": "banc", "amount_cents": bank})
        elif r < 0.22 and bank // 2 >= self.min:
            seat, player = others[int(rng.integers(len(others)))]
            stakes.append({"player_id": player, "seat": seat, "kind": "banc_amb_la_taula", "amount_cents": bank // 2})
            room = bank - bank // 2
            for s, p in others:
                if p != player and room >= self.min and rng.random() < 0.4:
                    amount = self.min * int(rng.integers(1, max(2, room // self.min + 1)))
                    amount = min(amount, room - room % 100) if room >= self.min else 0
                    if amount >= self.min:
                        stakes.append({"player_id": p, "seat": s, "kind": "punt", "amount_cents": amount})
                        room -= amount
        else:
            room = bank
            order = rng.permutation(len(others))
            for i in order[: int(rng.integers(1, 6))]:
                s, p = others[int(i)]
                if room < self.min:
                    break
                amount = min(self.min * int(rng.integers(1, 11)), room)
                amount -= amount % 100
                if amount < self.min:
                    break
                stakes.append({"player_id": p, "seat": s, "kind": "punt", "amount_cents": amount})
                room -= amount
        if stakes and stakes[0]["kind"] in ("banc", "banc_seguit") and rng.random() < 0.3:
            takers = [(s, p) for s, p in others if p != stakes[0]["player_id"]]
            budget = bank // 2
            for s, p in takers[: int(rng.integers(1, 4))]:
                amount = min(self.min * int(rng.integers(1, 4)), budget)
                amount -= amount % 100
                if amount <= 0:
                    break
                stakes.append({"player_id": p, "seat": s, "kind": "abonament", "amount_cents": amount})
                budget -= amount
        return stakes

    @staticmethod
    def _holder(stakes: list[dict[str, object]]) -> str | None:
        for st in stakes:
            if st["kind"] in ("banc", "banc_seguit", "banc_amb_la_taula"):
                return str(st["player_id"])
        seated = [st for st in stakes if st["kind"] == "punt" and st["seat"] is not None]
        pool = seated or [st for st in stakes if st["kind"] == "punt"]
        if not pool:
            return None
        best = max(int(st["amount_cents"]) for st in pool)  # type: ignore[call-overload]
        return str(next(st for st in pool if st["amount_cents"] == best)["player_id"])

    def play(self, coups: Columns, stakes_out: Columns, ids: dict[str, int]) -> None:
        rng = self.rng
        if self.coup_in_session >= COUPS_PER_SESSION:
            self.ts += pd.Timedelta(hours=int(rng.integers(10, 16)))
            self.coup_in_session = 0
            self.new_session()
        self.coup_no += 1
        self.coup_in_session += 1
        self.ts += pd.Timedelta(seconds=int(rng.integers(40, 90)))
        banker = self.players[self.banker_seat]
        self.stint_pos += 1
        stakes = self._stakes(banker)
        holder = self._holder(stakes) or (self.standing[0] if self.standing else self.players[self._next_seat()])
        if not stakes:
            holder = self.players[self._next_seat()]
        void = rng.random() < 0.003
        mode = "rules" if rng.random() < 0.9 else "free"
        stop = False
        p: list[str] = []
        b: list[str] = []
        for hand in (p, b, p, b):
            card, out = self._draw()
            hand.append(card)
            stop |= out
        p2, b2 = score(p), score(b)
        if not void and p2 < 8 and b2 < 8:
            decision = punt_must(p2) if mode == "rules" else "choose"
            if decision == "draw" or (decision == "choose" and rng.random() < 0.5):
                card, out = self._draw()
                p.append(card)
                stop |= out
            third = value(p[2]) if len(p) == 3 else None
            if b2 == 0:
                must = "draw"
            elif mode == "rules":
                must = banker_must(b2, third)
            else:
                must = "choose"
            if must == "draw" or (must == "choose" and rng.random() < 0.5):
                card, out = self._draw()
                b.append(card)
                stop |= out
        pf, bf = score(p), score(b)
        outcome = None if void else ("player" if pf > bf else "banker" if bf > pf else "tie")
        sign = {"player": 1, "banker": -1, "tie": 0, None: 0}[outcome]
        coup_id = f"C{ids['coup']:08d}"
        ids["coup"] += 1
        banker_result = 0
        lost_banc: str | None = None
        for st in stakes:
            s = sign if st["kind"] != "abonament" else -sign
            result = int(st["amount_cents"]) * s  # type: ignore[call-overload]
            banker_result -= result
            if st["kind"] in ("banc", "banc_seguit") and outcome == "banker":
                lost_banc = str(st["player_id"])
            stakes_out.add(stake_id=f"S{ids['stake']:09d}", coup_id=coup_id, player_id=st["player_id"], seat=st["seat"],
                           kind=st["kind"], amount_cents=st["amount_cents"], result_cents=result)
            ids["stake"] += 1
        cagnotte = half_up(banker_result * RATE_NUM, RATE_DEN) if outcome == "banker" and banker_result > 0 else 0
        net_bank = self.bank + banker_result - cagnotte
        garage, kind = 0, None
        if not self.unlimited and net_bank > self.max:
            garage, kind = net_bank - self.max, "improper"
        elif outcome == "banker" and self.stint_pos >= 2 and rng.random() < 0.05:
            garage, kind = net_bank // 2, "voluntary"
        after = net_bank - garage
        coups.add(
            coup_id=coup_id, table_id=self.id, shoe_id=f"{self.id}-SH{self.shoe_no:05d}", coup_no=self.coup_no,
            ts=self.ts, players_seated=self.seated, banker_id=banker, banker_seat=self.banker_seat,
            bank_event=self.event, bank_cents=self.bank, mode=mode, player_id=holder,
            player_cards=" ".join(p), banker_cards=" ".join(b),
            third_face_up=True if (len(p) == 3 or len(b) == 3) else None, outcome=outcome,
            banker_result_cents=banker_result, cagnotte_cents=cagnotte, garage_cents=garage, garage_kind=kind,
            bank_after_cents=after, stop_card=stop, status="void" if void else "settled",
        )
        self._next_bank(outcome, after, stop)
        self.seguit = lost_banc
        if stop:
            self.ts += pd.Timedelta(seconds=int(rng.integers(180, 400)))
            self.new_shoe()

    def _next_bank(self, outcome: str | None, after: int, shoe_ended: bool) -> None:
        rng = self.rng
        if outcome is None:
            self.event = "retained" if not shoe_ended else "shoe_carryover"
            return
        if outcome == "player":
            self.banker_seat = self._next_seat()
            self.bank = self._fresh_bank()
            self.event = "rotation"
            self.stint_pos = 0
            return
        keep = rng.random() < 0.8
        if shoe_ended:
            keep = keep and outcome == "banker"
        if keep and after >= self.min:
            self.event = "shoe_carryover" if shoe_ended else "retained"
            self.bank = after
            if rng.random() < 0.1 and (self.unlimited or after + self.min <= self.max):
                self.bank = after + self.min
            return
        self.banker_seat = self._next_seat()
        self.event = "auction" if rng.random() < 0.2 else "rotation"
        self.stint_pos = 0
        self.bank = max(after, self.min)


def simulate(rng: np.random.Generator, n_coups: int, start: pd.Timestamp) -> dict[str, pd.DataFrame]:
    n_tables = int(max(2, min(12, n_coups // 400)))
    tables = []
    sims = []
    for i in range(n_tables):
        minimum = int(rng.choice([500, 1000, 2000, 5000]))
        unlimited = i % 5 == 4
        tables.append({"table_id": f"CDF{i + 1:02d}", "game": "chemin_de_fer", "min_cents": minimum, "max_cents": None,
                       "authorised_min_cents": minimum, "bank_unlimited": unlimited, "seats": 9})
        sims.append(CdfTable(f"CDF{i + 1:02d}", minimum, unlimited, rng, start + pd.Timedelta(minutes=7 * i)))
    coups, stakes = Columns(), Columns()
    ids = {"coup": 1, "stake": 1}
    per_table = [n_coups // n_tables + (1 if i < n_coups % n_tables else 0) for i in range(n_tables)]
    for sim, n in zip(sims, per_table, strict=True):
        for _ in range(n):
            sim.play(coups, stakes, ids)
    return {"tables": pd.DataFrame(tables), "cdf_coups": coups.frame(), "cdf_stakes": stakes.frame()}
