"""Planting breaches into lawful play, one rule at a time.

Each planter picks a round where the breach can be made without breaking any other rule (a tie, so
that changing a stake moves no money; a third card worth nothing, so that a draw changes no score),
changes it, and records the findings an audit must report, in the violations.jsonl shape. Rounds next
to a planted one are not used again, so two breaches never interact. The simulator scores cards with
its own code (`cards.py`): nothing here calls the auditor's rules.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from auditor.simulate.cards import DECK, score, value

ZERO_CODES = [c for c in DECK if value(c) == 0]
BANC_KINDS = ("banc", "banc_seguit", "banc_amb_la_taula")
GAME_OF_PREFIX = {"CDF": "cdf_coups", "WHL": "wheel_spins", "BFR": "dice_throws", "TRN": "tournaments", "LOG": None}


@dataclass
class Planter:
    frames: dict[str, pd.DataFrame]
    rng: np.random.Generator
    planted: list[dict[str, object]] = field(default_factory=list)
    wrong_digests: set[str] = field(default_factory=set)
    used: dict[str, set[int]] = field(default_factory=dict)
    _orders: dict[str, Iterator[int]] = field(default_factory=dict)
    _index: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)
    extra: dict[str, list[dict[str, object]]] = field(default_factory=dict)
    drop: dict[str, set[int]] = field(default_factory=dict)

    def record(self, rule: str, table_id: object = None, round_id: object = None, item_id: object = None) -> None:
        self.planted.append({"rule": rule, "table_id": _s(table_id), "round_id": _s(round_id), "item_id": _s(item_id)})

    def candidates(self, key: str, table: str) -> Iterator[int]:
        """Rows of `table` in a random order that persists across calls for the same planter key."""
        if key not in self._orders:
            n = len(self.frames[table])
            self._orders[key] = iter(self.rng.permutation(n).tolist())
        return self._orders[key]

    def find(self, key: str, table: str, ok: Callable[[int], bool]) -> int | None:
        used = self.used.setdefault(table, set())
        for i in self.candidates(key, table):
            if i in used:
                continue
            if ok(i):
                return i
        return None

    def claim(self, table: str, *rows: int) -> None:
        used = self.used.setdefault(table, set())
        for r in rows:
            used.update((r - 1, r, r + 1))

    def children(self, table: str, key: str) -> dict[str, np.ndarray]:
        if table not in self._index:
            self._index[table] = self.frames[table].groupby(key, sort=False).indices if len(self.frames[table]) else {}
        return self._index[table]

    def set(self, table: str, row: int, **values: object) -> None:
        frame = self.frames[table]
        for col, v in values.items():
            if frame[col].dtype != object and v is None:
                frame[col] = frame[col].astype(object)
            frame.at[row, col] = v


def _s(v: object) -> str | None:
    return None if v is None or (isinstance(v, float) and np.isnan(v)) else str(v)


# --- chemin de fer helpers ------------------------------------------------------------------------------


def _hands(row: pd.Series) -> tuple[list[str], list[str]]:
    return str(row["player_cards"]).split(), str(row["banker_cards"]).split()


def _truth(row: pd.Series) -> str:
    p, b = _hands(row)
    ps, bs = score(p), score(b)
    return "player" if ps > bs else "banker" if bs > ps else "tie"


def _natural(row: pd.Series) -> bool:
    p, b = _hands(row)
    return score(p[:2]) >= 8 or score(b[:2]) >= 8


def _same_table(c: pd.DataFrame, i: int, j: int) -> bool:
    return 0 <= j < len(c) and c.at[i, "table_id"] == c.at[j, "table_id"]


def _stakes_of(p: Planter, coup_id: str) -> pd.DataFrame:
    idx = p.children("cdf_stakes", "coup_id").get(coup_id, np.array([], dtype=int))
    return p.frames["cdf_stakes"].loc[idx]


def _table_min(p: Planter, table_id: str) -> int:
    t = p.frames["tables"]
    return int(t.loc[t["table_id"] == table_id, "min_cents"].iloc[0])


def _unlimited(p: Planter, table_id: str) -> bool:
    t = p.frames["tables"]
    return bool(t.loc[t["table_id"] == table_id, "bank_unlimited"].iloc[0])


def _same_shoe(c: pd.DataFrame, row: int) -> pd.Series:
    """The coups dealt from the shoe of coup `row` (a shoe id names a shoe within its table)."""
    return (c["shoe_id"] == c.at[row, "shoe_id"]) & (c["table_id"] == c.at[row, "table_id"])


def _shoe_counts(p: Planter, row: int, before_only: bool) -> dict[str, int]:
    c = p.frames["cdf_coups"]
    shoe = c.index[_same_shoe(c, row)]
    counts: dict[str, int] = {}
    for i in shoe:
        if before_only and c.at[i, "coup_no"] >= c.at[row, "coup_no"]:
            continue
        for card in (str(c.at[i, "player_cards"]) + " " + str(c.at[i, "banker_cards"])).split():
            counts[card] = counts.get(card, 0) + 1
    return counts


def _spare_zero(p: Planter, row: int) -> str | None:
    counts = _shoe_counts(p, row, before_only=False)
    spare = [c for c in ZERO_CODES if counts.get(c, 0) < 6]
    return spare[0] if spare else None


def _settled(c: pd.DataFrame, i: int) -> bool:
    return c.at[i, "status"] == "settled"


def _plain_tie(p: Planter, i: int) -> bool:
    c = p.frames["cdf_coups"]
    return _settled(c, i) and _truth(c.loc[i]) == "tie" and int(c.at[i, "garage_cents"]) == 0


def _only_punts(p: Planter, coup_id: str) -> pd.DataFrame | None:
    s = _stakes_of(p, coup_id)
    return s if len(s) and (s["kind"] == "punt").all() else None


def _prev_lost(p: Planter, i: int) -> bool:
    c = p.frames["cdf_coups"]
    return _same_table(c, i, i - 1) and _settled(c, i - 1) and _truth(c.loc[i - 1]) == "player"


def _coup(p: Planter, rule: str, i: int, item: object = None) -> None:
    c = p.frames["cdf_coups"]
    p.record(rule, c.at[i, "table_id"], c.at[i, "coup_id"], item)
    p.claim("cdf_coups", i)


def _shift_bank(p: Planter, i: int, delta: int) -> None:
    c = p.frames["cdf_coups"]
    p.set("cdf_coups", i, bank_cents=int(c.at[i, "bank_cents"]) + delta, bank_after_cents=int(c.at[i, "bank_after_cents"]) + delta)


def cdf101(p: Planter) -> bool:
    c = p.frames["cdf_coups"]
    i = p.find("CDF101", "cdf_coups", lambda i: _settled(c, i) and _truth(c.loc[i]) == "banker" and int(c.at[i, "banker_result_cents"]) > 0 and int(c.at[i, "garage_cents"]) == 0)
    if i is None:
        return False
    p.set("cdf_coups", i, cagnotte_cents=int(c.at[i, "cagnotte_cents"]) + 1, bank_after_cents=int(c.at[i, "bank_after_cents"]) - 1)
    _coup(p, "CDF101", i)
    return True


def cdf102(p: Planter) -> bool:
    c = p.frames["cdf_coups"]
    i = p.find("CDF102", "cdf_coups", lambda i: _plain_tie(p, i))
    if i is None:
        return False
    p.set("cdf_coups", i, cagnotte_cents=100, bank_after_cents=int(c.at[i, "bank_after_cents"]) - 100)
    _coup(p, "CDF102", i)
    return True


def cdf103(p: Planter) -> bool:
    c = p.frames["cdf_coups"]

    def ok(i: int) -> bool:
        return (_settled(c, i) and int(c.at[i, "garage_cents"]) == 0 and not _unlimited(p, c.at[i, "table_id"])
                and _only_punts(p, c.at[i, "coup_id"]) is not None)

    i = p.find("CDF103", "cdf_coups", ok)
    if i is None:
        return False
    delta = _table_min(p, c.at[i, "table_id"]) * 100 + 100 - int(c.at[i, "bank_cents"])
    p.set("cdf_coups", i, bank_cents=int(c.at[i, "bank_cents"]) + delta, garage_cents=delta, garage_kind="improper")
    _coup(p, "CDF103", i)
    return True


def cdf104(p: Planter) -> bool:
    c = p.frames["cdf_coups"]
    s = p.frames["cdf_stakes"]

    def ok(i: int) -> bool:
        if not (_settled(c, i) and c.at[i, "bank_event"] == "rotation" and _prev_lost(p, i)):
            return False
        if _stakes_of(p, c.at[i, "coup_id"])["kind"].isin(BANC_KINDS).any():
            return False
        return not (_same_table(c, i, i + 1) and _stakes_of(p, c.at[i + 1, "coup_id"])["kind"].eq("banc_seguit").any())

    i = p.find("CDF104", "cdf_coups", ok)
    if i is None:
        return False
    bank = _table_min(p, c.at[i, "table_id"]) - 100
    p.drop.setdefault("cdf_stakes", set()).update(s.index[s["coup_id"] == c.at[i, "coup_id"]].tolist())
    p.set("cdf_coups", i, bank_cents=bank, banker_result_cents=0, cagnotte_cents=0, garage_cents=0, garage_kind=None, bank_after_cents=bank)
    _coup(p, "CDF104", i)
    return True


def cdf105(p: Planter) -> bool:
    c = p.frames["cdf_coups"]
    s = p.frames["cdf_stakes"]

    def ok(i: int) -> bool:
        if not _plain_tie(p, i):
            return False
        st = _stakes_of(p, c.at[i, "coup_id"])
        return bool(((st["kind"] == "punt") & (st["player_id"] != c.at[i, "player_id"])).any())

    i = p.find("CDF105", "cdf_coups", ok)
    if i is None:
        return False
    st = _stakes_of(p, c.at[i, "coup_id"])
    j = st.index[(st["kind"] == "punt") & (st["player_id"] != c.at[i, "player_id"])][0]
    p.set("cdf_stakes", j, amount_cents=_table_min(p, c.at[i, "table_id"]) - 100)
    _coup(p, "CDF105", i, s.at[j, "stake_id"])
    return True


def cdf106(p: Planter) -> bool:
    c = p.frames["cdf_coups"]
    s = p.frames["cdf_stakes"]

    def ok(i: int) -> bool:
        if not _plain_tie(p, i):
            return False
        st = _only_punts(p, c.at[i, "coup_id"])
        return st is not None and bool(((st["player_id"] == c.at[i, "player_id"]) & st["seat"].notna()).any())

    i = p.find("CDF106", "cdf_coups", ok)
    if i is None:
        return False
    st = _stakes_of(p, c.at[i, "coup_id"])
    j = st.index[st["player_id"] == c.at[i, "player_id"]][0]
    p.set("cdf_stakes", j, amount_cents=int(c.at[i, "bank_cents"]) + 100)
    _coup(p, "CDF106", i, s.at[j, "stake_id"])
    p.record("CDF106", c.at[i, "table_id"], c.at[i, "coup_id"], None)
    return True


def cdf107(p: Planter) -> bool:
    t = p.frames["tables"]
    rows = t.index[(t["game"] == "chemin_de_fer") & (t["authorised_min_cents"] == t["min_cents"])]
    free = [r for r in rows if r not in p.used.setdefault("tables", set())]
    if not free:
        return False
    r = free[0]
    p.set("tables", r, authorised_min_cents=int(t.at[r, "min_cents"]) + 100)
    p.used["tables"].add(r)
    p.record("CDF107", t.at[r, "table_id"])
    return True


def cdf108(p: Planter) -> bool:
    c = p.frames["cdf_coups"]

    def ok(i: int) -> bool:
        if not (_settled(c, i) and _truth(c.loc[i]) == "banker" and int(c.at[i, "garage_cents"]) == 0):
            return False
        if _same_table(c, i, i - 1) and c.at[i - 1, "banker_id"] == c.at[i, "banker_id"]:
            return False
        net = int(c.at[i, "banker_result_cents"]) - int(c.at[i, "cagnotte_cents"])
        return 100 <= net <= 50 * _table_min(p, c.at[i, "table_id"])

    i = p.find("CDF108", "cdf_coups", ok)
    if i is None:
        return False
    p.set("cdf_coups", i, garage_cents=100, garage_kind="voluntary", bank_after_cents=int(c.at[i, "bank_after_cents"]) - 100)
    _coup(p, "CDF108", i)
    return True


def cdf109(p: Planter) -> bool:
    c = p.frames["cdf_coups"]

    def ok(i: int) -> bool:
        last = not _same_table(c, i, i + 1) or c.at[i + 1, "bank_event"] == "initial"
        return (last and _settled(c, i) and _truth(c.loc[i]) == "banker" and int(c.at[i, "garage_cents"]) == 0
                and not _unlimited(p, c.at[i, "table_id"]) and _only_punts(p, c.at[i, "coup_id"]) is not None
                and int(c.at[i, "banker_result_cents"]) > int(c.at[i, "cagnotte_cents"]))

    i = p.find("CDF109", "cdf_coups", ok)
    if i is None:
        return False
    top = _table_min(p, c.at[i, "table_id"]) * 100
    p.set("cdf_coups", i, bank_cents=top, bank_after_cents=top + int(c.at[i, "banker_result_cents"]) - int(c.at[i, "cagnotte_cents"]))
    _coup(p, "CDF109", i)
    return True


def cdf110(p: Planter) -> bool:
    c = p.frames["cdf_coups"]
    i = p.find("CDF110", "cdf_coups", lambda i: _settled(c, i) and int(c.at[i, "garage_cents"]) == 0 and int(c.at[i, "bank_after_cents"]) >= 100)
    if i is None:
        return False
    p.set("cdf_coups", i, bank_after_cents=int(c.at[i, "bank_after_cents"]) - 100)
    _coup(p, "CDF110", i)
    return True


def _can_lower_bank(p: Planter, i: int) -> bool:
    c = p.frames["cdf_coups"]
    st = _only_punts(p, c.at[i, "coup_id"])
    bank = int(c.at[i, "bank_cents"])
    return (st is not None and int(st["amount_cents"].sum()) <= bank - 100 and bank - 100 >= _table_min(p, c.at[i, "table_id"])
            and int(c.at[i, "garage_cents"]) == 0 and _settled(c, i))


def cdf111(p: Planter) -> bool:
    c = p.frames["cdf_coups"]
    i = p.find("CDF111", "cdf_coups", lambda i: c.at[i, "bank_event"] == "retained" and _same_table(c, i, i - 1) and _can_lower_bank(p, i)
               and int(c.at[i, "bank_cents"]) == int(c.at[i - 1, "bank_after_cents"]))
    if i is None:
        return False
    _shift_bank(p, i, -100)
    _coup(p, "CDF111", i)
    return True


def cdf112(p: Planter) -> bool:
    c = p.frames["cdf_coups"]
    # The coup's own banker must not hold the next coup: handing this coup to the previous banker
    # would otherwise start the next coup's stint afresh and change what its garage may be.
    i = p.find("CDF112", "cdf_coups", lambda i: c.at[i, "bank_event"] == "rotation" and _prev_lost(p, i) and int(c.at[i, "garage_cents"]) == 0
               and int(c.at[i, "bank_cents"]) >= int(c.at[i - 1, "bank_after_cents"])
               and not (_same_table(c, i, i + 1) and c.at[i + 1, "banker_id"] == c.at[i, "banker_id"]))
    if i is None:
        return False
    p.set("cdf_coups", i, banker_id=c.at[i - 1, "banker_id"], banker_seat=c.at[i - 1, "banker_seat"], bank_event="retained")
    _coup(p, "CDF112", i)
    return True


def cdf113(p: Planter) -> bool:
    c = p.frames["cdf_coups"]
    i = p.find("CDF113", "cdf_coups", lambda i: c.at[i, "bank_event"] == "initial")
    if i is None:
        return False
    p.set("cdf_coups", i, banker_seat=3)
    _coup(p, "CDF113", i)
    return True


def cdf114(p: Planter) -> bool:
    c = p.frames["cdf_coups"]

    def ok(i: int) -> bool:
        return (c.at[i, "bank_event"] in ("rotation", "auction") and _same_table(c, i, i - 1) and not _prev_lost(p, i)
                and int(c.at[i, "bank_cents"]) == int(c.at[i - 1, "bank_after_cents"]) and _can_lower_bank(p, i))

    i = p.find("CDF114", "cdf_coups", ok)
    if i is None:
        return False
    _shift_bank(p, i, -100)
    _coup(p, "CDF114", i)
    return True


def cdf120(p: Planter) -> bool:
    i = p.find("CDF120", "cdf_coups", lambda i: True)
    if i is None:
        return False
    p.set("cdf_coups", i, players_seated=3)
    _coup(p, "CDF120", i)
    return True


def cdf121(p: Planter) -> bool:
    c = p.frames["cdf_coups"]
    for _ in range(200):
        i = p.find("CDF121", "cdf_coups", lambda i: bool(c.at[i, "stop_card"]) and _settled(c, i))
        if i is None:
            return False
        pc, bc = _hands(c.loc[i])
        before = _shoe_counts(p, i, before_only=True)
        here = set(pc + bc)
        spent = [card for card in DECK if before.get(card, 0) == 6 and value(card) == value(pc[0]) and card not in here]
        if spent:
            p.set("cdf_coups", i, player_cards=" ".join([spent[0]] + pc[1:]))
            _coup(p, "CDF121", i)
            # The breach rests on the cards dealt before it in the shoe: no later plant may change them.
            shoe = _same_shoe(c, i) & (c["coup_no"] < c.at[i, "coup_no"])
            p.claim("cdf_coups", *c.index[shoe])
            return True
        p.claim("cdf_coups", i)
    return False


def cdf122(p: Planter) -> bool:
    c = p.frames["cdf_coups"]
    i = p.find("CDF122", "cdf_coups", lambda i: bool(c.at[i, "stop_card"]) and _same_table(c, i, i - 1) and c.at[i - 1, "shoe_id"] == c.at[i, "shoe_id"])
    if i is None:
        return False
    p.set("cdf_coups", i - 1, stop_card=True)
    _coup(p, "CDF122", i)
    return True


def cdf123(p: Planter) -> bool:
    c = p.frames["cdf_coups"]
    i = p.find("CDF123", "cdf_coups", lambda i: _settled(c, i))
    if i is None:
        return False
    truth = _truth(c.loc[i])
    p.set("cdf_coups", i, outcome="player" if truth != "player" else "banker")
    _coup(p, "CDF123", i)
    return True


def _add_zero_card(p: Planter, key: str, hand: str, ok: Callable[[int], bool]) -> int | None:
    c = p.frames["cdf_coups"]
    for _ in range(200):
        i = p.find(key, "cdf_coups", ok)
        if i is None:
            return None
        spare = _spare_zero(p, i)
        if spare:
            p.set("cdf_coups", i, **{hand: str(c.at[i, hand]) + " " + spare, "third_face_up": True})
            return i
        p.claim("cdf_coups", i)
    return None


def cdf124(p: Planter) -> bool:
    c = p.frames["cdf_coups"]
    i = _add_zero_card(p, "CDF124", "player_cards", lambda i: _settled(c, i) and _natural(c.loc[i]) and len(_hands(c.loc[i])[0]) == 2 and len(_hands(c.loc[i])[1]) == 2)
    if i is None:
        return False
    _coup(p, "CDF124", i)
    return True


def cdf125(p: Planter) -> bool:
    c = p.frames["cdf_coups"]

    def ok(i: int) -> bool:
        if not (_settled(c, i) and c.at[i, "mode"] == "rules" and not _natural(c.loc[i])):
            return False
        pc, bc = _hands(c.loc[i])
        return len(pc) == 2 and score(pc) in (6, 7) and score(bc[:2]) in (0, 1, 2, 3, 6, 7)

    i = _add_zero_card(p, "CDF125", "player_cards", ok)
    if i is None:
        return False
    _coup(p, "CDF125", i)
    return True


def cdf126(p: Planter) -> bool:
    c = p.frames["cdf_coups"]

    def ok(i: int) -> bool:
        pc, bc = _hands(c.loc[i])
        return _settled(c, i) and c.at[i, "mode"] == "rules" and not _natural(c.loc[i]) and len(bc) == 2 and score(bc) == 7

    i = _add_zero_card(p, "CDF126", "banker_cards", ok)
    if i is None:
        return False
    _coup(p, "CDF126", i)
    return True


def cdf127(p: Planter) -> bool:
    c = p.frames["cdf_coups"]

    def ok(i: int) -> bool:
        pc, bc = _hands(c.loc[i])
        return _settled(c, i) and not _natural(c.loc[i]) and len(bc) == 3 and score(bc[:2]) == 0 and value(bc[2]) == 0

    i = p.find("CDF127", "cdf_coups", ok)
    if i is None:
        return False
    pc, bc = _hands(c.loc[i])
    p.set("cdf_coups", i, banker_cards=" ".join(bc[:2]))
    _coup(p, "CDF127", i)
    return True


def cdf128(p: Planter) -> bool:
    c = p.frames["cdf_coups"]
    s = p.frames["cdf_stakes"]
    i = p.find("CDF128", "cdf_coups", lambda i: _plain_tie(p, i) and bool(_stakes_of(p, c.at[i, "coup_id"])["kind"].eq("punt").any()))
    if i is None:
        return False
    st = _stakes_of(p, c.at[i, "coup_id"])
    j = st.index[st["kind"] == "punt"][0]
    amount = int(s.at[j, "amount_cents"])
    p.set("cdf_stakes", j, result_cents=amount)
    p.set("cdf_coups", i, banker_result_cents=int(c.at[i, "banker_result_cents"]) - amount, bank_after_cents=int(c.at[i, "bank_after_cents"]) - amount)
    _coup(p, "CDF128", i, s.at[j, "stake_id"])
    return True


def cdf129(p: Planter) -> bool:
    c = p.frames["cdf_coups"]
    i = p.find("CDF129", "cdf_coups", lambda i: _plain_tie(p, i) and _only_punts(p, c.at[i, "coup_id"]) is not None)
    if i is None:
        return False
    stake_id = f"{c.at[i, 'coup_id']}-ABON"
    p.extra.setdefault("cdf_stakes", []).append({"stake_id": stake_id, "coup_id": c.at[i, "coup_id"], "player_id": f"{c.at[i, 'table_id']}-AB1",
                                                 "seat": None, "kind": "abonament", "amount_cents": 100, "result_cents": 0})
    _coup(p, "CDF129", i)
    return True


def _tie_stake(p: Planter, key: str, kind: str, min_left: int) -> tuple[int, int] | None:
    c = p.frames["cdf_coups"]

    def ok(i: int) -> bool:
        if not _plain_tie(p, i):
            return False
        st = _stakes_of(p, c.at[i, "coup_id"])
        hit = st[st["kind"] == kind]
        return len(hit) > 0 and int(hit["amount_cents"].iloc[0]) - min_left >= _table_min(p, c.at[i, "table_id"])

    i = p.find(key, "cdf_coups", ok)
    if i is None:
        return None
    st = _stakes_of(p, c.at[i, "coup_id"])
    return i, int(st.index[st["kind"] == kind][0])


def cdf130(p: Planter) -> bool:
    found = _tie_stake(p, "CDF130", "banc_amb_la_taula", 100)
    if found is None:
        return False
    i, j = found
    s = p.frames["cdf_stakes"]
    p.set("cdf_stakes", j, amount_cents=int(s.at[j, "amount_cents"]) - 100)
    _coup(p, "CDF130", i, s.at[j, "stake_id"])
    return True


def cdf131(p: Planter) -> bool:
    found = _tie_stake(p, "CDF131", "banc", 100)
    if found is None:
        return False
    i, j = found
    s = p.frames["cdf_stakes"]
    p.set("cdf_stakes", j, amount_cents=int(s.at[j, "amount_cents"]) - 100)
    _coup(p, "CDF131", i, s.at[j, "stake_id"])
    return True


def cdf132(p: Planter) -> bool:
    c = p.frames["cdf_coups"]

    def ok(i: int) -> bool:
        st = _stakes_of(p, c.at[i, "coup_id"])
        banc = st[st["kind"] == "banc"]
        if banc.empty:
            return False
        if not _same_table(c, i, i - 1):
            return True
        prev = _stakes_of(p, c.at[i - 1, "coup_id"])
        return not prev["player_id"].eq(banc["player_id"].iloc[0]).any()

    i = p.find("CDF132", "cdf_coups", ok)
    if i is None:
        return False
    st = _stakes_of(p, c.at[i, "coup_id"])
    j = st.index[st["kind"] == "banc"][0]
    p.set("cdf_stakes", j, kind="banc_seguit")
    _coup(p, "CDF132", i, p.frames["cdf_stakes"].at[j, "stake_id"])
    return True


def cdf133(p: Planter) -> bool:
    c = p.frames["cdf_coups"]

    def ok(i: int) -> bool:
        st = _stakes_of(p, c.at[i, "coup_id"])
        if st.empty or st["kind"].isin(BANC_KINDS).any():
            return False
        seated = st[(st["kind"] == "punt") & st["seat"].notna()]
        return len(seated) >= 2 and seated["amount_cents"].nunique() >= 2

    i = p.find("CDF133", "cdf_coups", ok)
    if i is None:
        return False
    st = _stakes_of(p, c.at[i, "coup_id"])
    seated = st[(st["kind"] == "punt") & st["seat"].notna()]
    low = seated[seated["amount_cents"] < seated["amount_cents"].max()]
    p.set("cdf_coups", i, player_id=low["player_id"].iloc[0])
    _coup(p, "CDF133", i)
    return True


def cdf134(p: Planter) -> bool:
    c = p.frames["cdf_coups"]
    i = p.find("CDF134", "cdf_coups", lambda i: c.at[i, "third_face_up"] is True or c.at[i, "third_face_up"] == True)  # noqa: E712
    if i is None:
        return False
    p.set("cdf_coups", i, third_face_up=False)
    _coup(p, "CDF134", i)
    return True


# --- wheel --------------------------------------------------------------------------------------------


# Rounds and their items, the same way for wheel spins and dice throws.
ROUND_OF = {"wheel_spins": ("spin_id", "wheel_bets"), "dice_throws": ("throw_id", "dice_bets")}


def _round(p: Planter, rule: str, table: str, i: int) -> None:
    """Record a finding on round `i` of `table` and keep its neighbours out of later plants."""
    rounds = p.frames[table]
    p.record(rule, rounds.at[i, "table_id"], rounds.at[i, ROUND_OF[table][0]])
    p.claim(table, i)


def _round_item(p: Planter, key: str, table: str, round_ok: Callable[[int], bool],
                item_ok: Callable[[pd.DataFrame], pd.Series]) -> tuple[int, int] | None:
    """A round of `table` passing `round_ok` with an item passing `item_ok`: (round row, item row)."""
    id_col, item_table = ROUND_OF[table]
    rounds, items = p.frames[table], p.frames[item_table]
    kids = p.children(item_table, id_col)

    def ok(i: int) -> bool:
        idx = kids.get(rounds.at[i, id_col])
        return idx is not None and round_ok(i) and bool(item_ok(items.loc[idx]).any())

    i = p.find(key, table, ok)
    if i is None:
        return None
    mine = items.loc[kids[rounds.at[i, id_col]]]
    return i, int(mine.index[item_ok(mine).to_numpy()][0])


def _round_item_record(p: Planter, rule: str, table: str, i: int, j: int) -> None:
    id_col, item_table = ROUND_OF[table]
    rounds, items = p.frames[table], p.frames[item_table]
    p.record(rule, rounds.at[i, "table_id"], rounds.at[i, id_col], items.at[j, "bet_id"])
    p.claim(table, i)


def _spin(p: Planter, rule: str, i: int) -> None:
    _round(p, rule, "wheel_spins", i)


def _spin_bet(p: Planter, key: str, spin_ok: Callable[[int], bool], bet_ok: Callable[[pd.DataFrame], pd.Series]) -> tuple[int, int] | None:
    return _round_item(p, key, "wheel_spins", spin_ok, bet_ok)


def _bet(p: Planter, rule: str, i: int, j: int) -> None:
    _round_item_record(p, rule, "wheel_spins", i, j)


def _loser(bets: pd.DataFrame) -> pd.Series:
    return (bets["payout_cents"] == 0) & ~bets["stake_returned"].astype(bool)


def whl201(p: Planter) -> bool:
    tables = p.frames["tables"]
    n = sum(1 for r in p.planted if r["rule"] == "WHL201") + 1
    table_id = f"WHL-LAYOUT-{n}"
    p.extra.setdefault("tables", []).append({"table_id": table_id, "game": "wheel_of_fortune", "min_cents": 500, "max_cents": 50000,
                                             "authorised_min_cents": 500, "bank_unlimited": None, "seats": 7})
    symbols = ["24"] * 25 + ["15"] * 14 + ["7"] * 7 + ["4"] * 4 + ["2"] * 2 + ["figura_1", "figura_2"]
    for slot, sym in enumerate(symbols):
        p.extra.setdefault("wheel_layouts", []).append({"table_id": table_id, "slot": slot, "symbol": sym})
    p.record("WHL201", table_id)
    return len(tables) >= 0


def _settled_spin(p: Planter, i: int) -> bool:
    return p.frames["wheel_spins"].at[i, "status"] == "settled"


def whl202(p: Planter) -> bool:
    i = p.find("WHL202", "wheel_spins", lambda i: _settled_spin(p, i))
    if i is None:
        return False
    p.set("wheel_spins", i, revolutions=3.5)
    _spin(p, "WHL202", i)
    return True


def whl203(p: Planter) -> bool:
    i = p.find("WHL203", "wheel_spins", lambda i: _settled_spin(p, i))
    if i is None:
        return False
    p.set("wheel_spins", i, on_pivot=True)
    _spin(p, "WHL203", i)
    return True


def whl204(p: Planter) -> bool:
    i = p.find("WHL204", "wheel_spins", lambda i: _settled_spin(p, i))
    if i is None:
        return False
    p.set("wheel_spins", i, obstructed=True)
    _spin(p, "WHL204", i)
    return True


def whl205(p: Planter) -> bool:
    found = _spin_bet(p, "WHL205", lambda i: not _settled_spin(p, i), lambda b: b["ts_withdrawn"].isna())
    if found is None:
        return False
    i, j = found
    p.set("wheel_bets", j, payout_cents=int(p.frames["wheel_bets"].at[j, "stake_cents"]))
    _bet(p, "WHL205", i, j)
    return True


def whl206(p: Planter) -> bool:
    s = p.frames["wheel_spins"]
    i = p.find("WHL206", "wheel_spins", lambda i: _settled_spin(p, i) and pd.notna(s.at[i, "stop_slot"]))
    if i is None:
        return False
    p.set("wheel_spins", i, symbol="2" if s.at[i, "symbol"] != "2" else "24")
    _spin(p, "WHL206", i)
    return True


def whl207(p: Planter) -> bool:
    found = _spin_bet(p, "WHL207", lambda i: _settled_spin(p, i), lambda b: _loser(b) & b["ts_withdrawn"].isna())
    if found is None:
        return False
    i, j = found
    p.set("wheel_bets", j, stake_returned=True)
    _bet(p, "WHL207", i, j)
    return True


def whl208(p: Planter) -> bool:
    s = p.frames["wheel_spins"]
    found = _spin_bet(p, "WHL208", lambda i: _settled_spin(p, i), lambda b: _loser(b) & b["ts_withdrawn"].isna())
    if found is None:
        return False
    i, j = found
    p.set("wheel_bets", j, ts_placed=s.at[i, "ts_no_more_bets"] + pd.Timedelta(seconds=1))
    _bet(p, "WHL208", i, j)
    return True


def whl209(p: Planter) -> bool:
    s = p.frames["wheel_spins"]
    found = _spin_bet(p, "WHL209", lambda i: i > 0 and s.at[i - 1, "table_id"] == s.at[i, "table_id"], lambda b: _loser(b) & b["ts_withdrawn"].isna())
    if found is None:
        return False
    i, j = found
    p.set("wheel_bets", j, ts_placed=s.at[i - 1, "ts_settled"] - pd.Timedelta(seconds=1))
    _bet(p, "WHL209", i, j)
    return True


def whl210(p: Planter) -> bool:
    b = p.frames["wheel_bets"]
    kids = p.children("wheel_bets", "spin_id")
    s = p.frames["wheel_spins"]

    def ok(i: int) -> bool:
        idx = kids.get(s.at[i, "spin_id"])
        if idx is None:
            return False
        pays = b.loc[idx, "payout_cents"]
        return _settled_spin(p, i) and pays[pays > 0].nunique() >= 2

    i = p.find("WHL210", "wheel_spins", ok)
    if i is None:
        return False
    win = b.loc[kids[s.at[i, "spin_id"]]]
    win = win[win["payout_cents"] > 0].sort_values("paid_seq")
    first, last = win.index[0], win.index[-1]
    p.set("wheel_bets", first, paid_seq=int(win.at[last, "paid_seq"]))
    p.set("wheel_bets", last, paid_seq=int(win.at[first, "paid_seq"]))
    _spin(p, "WHL210", i)
    return True


def whl211(p: Planter) -> bool:
    found = _spin_bet(p, "WHL211", lambda i: _settled_spin(p, i), lambda b: _loser(b) & b["ts_withdrawn"].isna())
    if found is None:
        return False
    i, j = found
    t = p.frames["tables"]
    top = int(t.loc[t["table_id"] == p.frames["wheel_spins"].at[i, "table_id"], "max_cents"].iloc[0])
    p.set("wheel_bets", j, stake_cents=top + 100)
    _bet(p, "WHL211", i, j)
    return True


def whl212(p: Planter) -> bool:
    s = p.frames["wheel_spins"]
    i = p.find("WHL212", "wheel_spins", lambda i: True)
    if i is None:
        return False
    p.set("wheel_spins", i, ts_stop=s.at[i, "ts_no_more_bets"] - pd.Timedelta(seconds=1))
    _spin(p, "WHL212", i)
    return True


# --- dice ---------------------------------------------------------------------------------------------


def _throw(p: Planter, rule: str, i: int) -> None:
    _round(p, rule, "dice_throws", i)


def _dice_bet(p: Planter, key: str, throw_ok: Callable[[int], bool], bet_ok: Callable[[pd.DataFrame], pd.Series]) -> tuple[int, int] | None:
    return _round_item(p, key, "dice_throws", throw_ok, bet_ok)


def _dice_record(p: Planter, rule: str, i: int, j: int) -> None:
    _round_item_record(p, rule, "dice_throws", i, j)


def _plain_throw(p: Planter, i: int) -> bool:
    t = p.frames["dice_throws"]
    return t.at[i, "status"] == "settled" and t.at[i, "touched_before_announce"] is not True and t.at[i, "touched_before_announce"] != True  # noqa: E712


def _dice_min(p: Planter, i: int) -> int:
    return _table_min(p, p.frames["dice_throws"].at[i, "table_id"])


def bfr301(p: Planter) -> bool:
    t = p.frames["dice_throws"]
    i = p.find("BFR301", "dice_throws", lambda i: t.at[i, "status"] == "settled")
    if i is None:
        return False
    p.set("dice_throws", i, result="none" if t.at[i, "result"] != "none" else "petit")
    _throw(p, "BFR301", i)
    return True


def bfr302(p: Planter) -> bool:
    found = _dice_bet(p, "BFR302", lambda i: _plain_throw(p, i), lambda b: b["collected"].astype(bool))
    if found is None:
        return False
    i, j = found
    p.set("dice_bets", j, collected=False, collect_seq=None)
    _dice_record(p, "BFR302", i, j)
    return True


def _collected_asos(b: pd.DataFrame) -> pd.Series:
    return b["collected"].astype(bool) & (b["target"] == "asos") & (b["placement"] == "normal")


def bfr303(p: Planter) -> bool:
    found = _dice_bet(p, "BFR303", lambda i: _plain_throw(p, i), _collected_asos)
    if found is None:
        return False
    i, j = found
    p.set("dice_bets", j, chips_cents=6 * _dice_min(p, i) + 100)
    _dice_record(p, "BFR303", i, j)
    return True


def bfr304(p: Planter) -> bool:
    found = _dice_bet(p, "BFR304", lambda i: _plain_throw(p, i), lambda b: b["collected"].astype(bool) & (b["placement"] == "normal"))
    if found is None:
        return False
    i, j = found
    p.set("dice_bets", j, chips_cents=_dice_min(p, i) - 100)
    _dice_record(p, "BFR304", i, j)
    return True


def bfr305(p: Planter) -> bool:
    found = _dice_bet(p, "BFR305", lambda i: _plain_throw(p, i), _collected_asos)
    if found is None:
        return False
    i, j = found
    b = p.frames["dice_bets"]
    p.set("dice_bets", j, placement="boundary", chips_cents=int(b.at[j, "chips_cents"]) * 2)
    _dice_record(p, "BFR305", i, j)
    return True


def bfr306(p: Planter) -> bool:
    t = p.frames["dice_throws"]
    i = p.find("BFR306", "dice_throws", lambda i: t.at[i, "status"] == "settled")
    if i is None:
        return False
    p.set("dice_throws", i, null_reason="not_isolated")
    _throw(p, "BFR306", i)
    return True


def bfr307(p: Planter) -> bool:
    t = p.frames["dice_throws"]
    found = _dice_bet(p, "BFR307", lambda i: t.at[i, "status"] == "void", lambda b: ~b["collected"].astype(bool))
    if found is None:
        return False
    i, j = found
    p.set("dice_bets", j, collected=True)
    _dice_record(p, "BFR307", i, j)
    return True


def bfr308(p: Planter) -> bool:
    t = p.frames["dice_throws"]

    def ok(i: int) -> bool:
        return (t.at[i, "status"] == "void" and t.at[i, "null_reason"] not in ("off_table", "defect", "foreign_substance")
                and i + 1 < len(t) and t.at[i + 1, "table_id"] == t.at[i, "table_id"] and t.at[i + 1, "dice_set_id"] == t.at[i, "dice_set_id"])

    i = p.find("BFR308", "dice_throws", ok)
    if i is None:
        return False
    p.set("dice_throws", i, null_reason="defect")
    p.record("BFR308", t.at[i + 1, "table_id"], t.at[i + 1, "throw_id"])
    p.claim("dice_throws", i, i + 1)
    return True


def _merge_stints(p: Planter, key: str, column: str, rule: str) -> bool:
    t = p.frames["dice_throws"]

    def ok(i: int) -> bool:
        return (i > 0 and t.at[i - 1, "table_id"] == t.at[i, "table_id"] and t.at[i - 1, column] != t.at[i, column]
                and t.at[i, "ts"] - t.at[i - 1, "ts"] <= pd.Timedelta(minutes=60)
                and t.at[i - 1, "null_reason"] not in ("off_table", "defect", "foreign_substance")
                and t.at[i - 1, "dice_set_id"] == t.at[i, "dice_set_id"] if column == "launcher_id" else
                i > 0 and t.at[i - 1, "table_id"] == t.at[i, "table_id"] and t.at[i - 1, column] != t.at[i, column]
                and t.at[i, "ts"] - t.at[i - 1, "ts"] <= pd.Timedelta(minutes=60)
                and t.at[i - 1, "null_reason"] not in ("off_table", "defect", "foreign_substance"))

    i = p.find(key, "dice_throws", ok)
    if i is None:
        return False
    old, new = t.at[i - 1, column], t.at[i, column]
    start = i - 1
    while start > 0 and t.at[start - 1, "table_id"] == t.at[i, "table_id"] and t.at[start - 1, column] == old and t.at[start, "ts"] - t.at[start - 1, "ts"] <= pd.Timedelta(minutes=60):
        start -= 1
    j = i
    rows = []
    while j < len(t) and t.at[j, "table_id"] == t.at[i, "table_id"] and t.at[j, column] == new and t.at[j, "ts"] - t.at[j - 1, "ts"] <= pd.Timedelta(minutes=60):
        rows.append(j)
        j += 1
    for r in rows:
        p.set("dice_throws", r, **{column: old})
    since = t.at[start, "ts"]
    hit = [r for r in range(start, j) if t.at[r, "ts"] - since > pd.Timedelta(minutes=60)]
    for r in hit:
        p.record(rule, t.at[r, "table_id"], t.at[r, "throw_id"])
    p.claim("dice_throws", *range(start, j))
    return bool(hit)


def bfr309(p: Planter) -> bool:
    return _merge_stints(p, "BFR309", "dice_set_id", "BFR309")


def bfr310(p: Planter) -> bool:
    return _merge_stints(p, "BFR310", "launcher_id", "BFR310")


def bfr311(p: Planter) -> bool:
    def both(b: pd.DataFrame) -> pd.Series:
        has = b["collect_seq"].notna().any() and b["paid_seq"].notna().any()
        return pd.Series(has, index=b.index)

    found = _dice_bet(p, "BFR311", lambda i: _plain_throw(p, i), both)
    if found is None:
        return False
    i, _ = found
    b = p.frames["dice_bets"]
    bets = b.loc[p.children("dice_bets", "throw_id")[p.frames["dice_throws"].at[i, "throw_id"]]]
    last_c = bets["collect_seq"].astype("float64").idxmax()
    first_p = bets["paid_seq"].astype("float64").idxmin()
    c_seq, p_seq = int(b.at[last_c, "collect_seq"]), int(b.at[first_p, "paid_seq"])
    p.set("dice_bets", last_c, collect_seq=p_seq)
    p.set("dice_bets", first_p, paid_seq=c_seq)
    _throw(p, "BFR311", i)
    return True


def bfr312(p: Planter) -> bool:
    t = p.frames["dice_throws"]

    def losing(b: pd.DataFrame) -> pd.Series:
        return (b["payout_cents"] == 0) & ~b["collected"].astype(bool)

    found = _dice_bet(p, "BFR312", lambda i: t.at[i, "status"] == "settled" and t.at[i, "touched_before_announce"] == True and t.at[i, "result"] != "none", losing)  # noqa: E712
    if found is None:
        return False
    i, j = found
    p.set("dice_bets", j, collected=True)
    _dice_record(p, "BFR312", i, j)
    return True


def bfr313(p: Planter) -> bool:
    d = p.frames["dice_sets"]
    i = p.find("BFR313", "dice_sets", lambda i: True)
    if i is None:
        return False
    p.set("dice_sets", i, edge_mm=16.0)
    p.used["dice_sets"].add(i)
    p.record("BFR313", None, None, d.at[i, "dice_set_id"])
    return True


def bfr314(p: Planter) -> bool:
    found = _dice_bet(p, "BFR314", lambda i: True, lambda b: b["seat"].notna())
    if found is None:
        return False
    i, j = found
    p.set("dice_bets", j, seat=13)
    _dice_record(p, "BFR314", i, j)
    return True


# --- tournaments ----------------------------------------------------------------------------------------


def _tour(p: Planter, key: str, change: Callable[[pd.DataFrame, int], dict[str, object]]) -> bool:
    t = p.frames["tournaments"]
    i = p.find(key, "tournaments", lambda i: True)
    if i is None:
        return False
    p.set("tournaments", i, **change(t, i))
    p.used["tournaments"].add(i)
    p.record(key, None, t.at[i, "tournament_id"])
    return True


def _entry(p: Planter, key: str, change: Callable[[pd.DataFrame, int], dict[str, object]]) -> bool:
    e = p.frames["tournament_entries"]
    i = p.find(key, "tournament_entries", lambda i: True)
    if i is None:
        return False
    p.set("tournament_entries", i, **change(e, i))
    p.used["tournament_entries"].add(i)
    p.record(key, None, e.at[i, "tournament_id"], e.at[i, "player_id"])
    return True


def _starts(p: Planter, tid: str) -> pd.Timestamp:
    t = p.frames["tournaments"]
    return t.loc[t["tournament_id"] == tid, "starts_on"].iloc[0]


PLANTERS: dict[str, Callable[[Planter], bool]] = {
    "CDF101": cdf101, "CDF102": cdf102, "CDF103": cdf103, "CDF104": cdf104, "CDF105": cdf105, "CDF106": cdf106,
    "CDF107": cdf107, "CDF108": cdf108, "CDF109": cdf109, "CDF110": cdf110, "CDF111": cdf111, "CDF112": cdf112,
    "CDF113": cdf113, "CDF114": cdf114, "CDF120": cdf120, "CDF121": cdf121, "CDF122": cdf122, "CDF123": cdf123,
    "CDF124": cdf124, "CDF125": cdf125, "CDF126": cdf126, "CDF127": cdf127, "CDF128": cdf128, "CDF129": cdf129,
    "CDF130": cdf130, "CDF131": cdf131, "CDF132": cdf132, "CDF133": cdf133, "CDF134": cdf134,
    "WHL201": whl201, "WHL202": whl202, "WHL203": whl203, "WHL204": whl204, "WHL205": whl205, "WHL206": whl206,
    "WHL207": whl207, "WHL208": whl208, "WHL209": whl209, "WHL210": whl210, "WHL211": whl211, "WHL212": whl212,
    "BFR301": bfr301, "BFR302": bfr302, "BFR303": bfr303, "BFR304": bfr304, "BFR305": bfr305, "BFR306": bfr306,
    "BFR307": bfr307, "BFR308": bfr308, "BFR309": bfr309, "BFR310": bfr310, "BFR311": bfr311, "BFR312": bfr312,
    "BFR313": bfr313, "BFR314": bfr314,
    "TRN401": lambda p: _tour(p, "TRN401", lambda t, i: {"organisation_costs_cents": int(t.at[i, "fees_cents"]) // 4 + 100}),
    "TRN402": lambda p: _tour(p, "TRN402", lambda t, i: {"prizes_cents": int(t.at[i, "fees_cents"]) - int(t.at[i, "organisation_costs_cents"]) - 100}),
    "TRN403": lambda p: _tour(p, "TRN403", lambda t, i: {"notified_on": t.at[i, "starts_on"] - pd.Timedelta(days=5)}),
    "TRN404": lambda p: _tour(p, "TRN404", lambda t, i: {"authorised_to": t.at[i, "authorised_from"] + pd.DateOffset(years=1) + pd.Timedelta(days=1)}),
    "TRN405": lambda p: _entry(p, "TRN405", lambda e, i: {"birth_date": _starts(p, e.at[i, "tournament_id"]) - pd.DateOffset(years=17)}),
    "TRN406": lambda p: _entry(p, "TRN406", lambda e, i: {"excluded": True}),
    "TRN407": lambda p: _entry(p, "TRN407", lambda e, i: {"registered": False}),
    "TRN408": lambda p: _tour(p, "TRN408", lambda t, i: {"venue": "external", "external_authorised": None}),
}


def _log_bet(p: Planter, key: str) -> tuple[int, pd.Series] | None:
    b = p.frames["wheel_bets"]
    found = _spin_bet(p, key, lambda i: _settled_spin(p, i), lambda x: _loser(x) & x["ts_withdrawn"].isna())
    if found is None:
        return None
    i, j = found
    p.claim("wheel_spins", i)
    return j, b.loc[j]


def log001(p: Planter) -> bool:
    found = _log_bet(p, "LOG001")
    if found is None:
        return False
    j, bet = found
    p.set("wheel_bets", j, stake_cents=-500)
    p.record("LOG001", None, bet["spin_id"], bet["bet_id"])
    return True


def log002(p: Planter) -> bool:
    found = _log_bet(p, "LOG002")
    if found is None:
        return False
    _, bet = found
    p.extra.setdefault("wheel_bets", []).append(bet.to_dict())
    p.record("LOG002", None, bet["spin_id"], bet["bet_id"])
    return True


def log003(p: Planter) -> bool:
    found = _log_bet(p, "LOG003")
    if found is None:
        return False
    _, bet = found
    n = sum(1 for r in p.planted if r["rule"] == "LOG003") + 1
    orphan = bet.to_dict() | {"bet_id": f"WB-ORPHAN-{n}", "spin_id": f"W-MISSING-{n}"}
    p.extra.setdefault("wheel_bets", []).append(orphan)
    p.record("LOG003", None, orphan["spin_id"], orphan["bet_id"])
    return True


def log004(p: Planter) -> bool:
    if "tournaments" in p.wrong_digests or "tournaments" not in p.frames:
        return False
    p.wrong_digests.add("tournaments")
    p.record("LOG004")
    return True


def log005(p: Planter) -> bool:
    c = p.frames["cdf_coups"]

    def ok(i: int) -> bool:
        return (not bool(c.at[i, "stop_card"]) and _same_table(c, i, i - 1) and c.at[i - 1, "shoe_id"] == c.at[i, "shoe_id"]
                and int(c.at[i, "coup_no"]) >= 2)

    i = p.find("LOG005", "cdf_coups", ok)
    if i is None:
        return False
    shoe = _same_shoe(c, i) & (c["coup_no"] >= c.at[i, "coup_no"])
    c.loc[shoe, "coup_no"] = c.loc[shoe, "coup_no"] + 1
    _coup(p, "LOG005", i)
    p.claim("cdf_coups", *np.flatnonzero(shoe.to_numpy()).tolist())
    return True


PLANTERS.update({"LOG001": log001, "LOG002": log002, "LOG003": log003, "LOG004": log004, "LOG005": log005})
NEEDS: dict[str, str] = {"LOG001": "wheel_spins", "LOG002": "wheel_spins", "LOG003": "wheel_spins", "LOG004": "tournaments", "LOG005": "cdf_coups"}


def _needs(code: str) -> str:
    return NEEDS.get(code) or str(GAME_OF_PREFIX[code[:3]])


def plant(frames: dict[str, pd.DataFrame], rng: np.random.Generator, rate: float, rules: list[str] | None):
    """Plant breaches: `rate` × rounds of each game spread over its rules (at least one each), or one
    of each rule in `rules` when no rate is given. Returns the Simulation with what was planted."""
    from auditor.simulate import Simulation

    for name in list(frames):
        frames[name] = frames[name].reset_index(drop=True).copy()
    p = Planter(frames, rng)
    wanted = sorted(PLANTERS) if not rules else sorted({c for r in rules for c in PLANTERS if c.startswith(r.upper())})
    unknown = [r for r in (rules or []) if not any(c.startswith(r.upper()) for c in PLANTERS)]
    if unknown:
        from auditor.simulate import SimulateError

        raise SimulateError(f"no planter for {', '.join(unknown)}")
    wanted = [c for c in wanted if _needs(c) in frames]
    per_game: dict[str, list[str]] = {}
    for code in wanted:
        per_game.setdefault(_needs(code), []).append(code)
    for table, codes in per_game.items():
        rounds = len(frames[table])
        each = max(1, int(round(rate * rounds / len(codes)))) if rate > 0 else 1
        for code in codes:
            for _ in range(each):
                if not PLANTERS[code](p):
                    break
    for name, rows in p.drop.items():
        frames[name] = frames[name].drop(index=sorted(rows)).reset_index(drop=True)
    for name, added in p.extra.items():
        frames[name] = pd.concat([frames[name], pd.DataFrame(added)], ignore_index=True)
    return Simulation(frames, p.planted, p.wrong_digests)
