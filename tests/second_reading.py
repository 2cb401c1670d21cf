"""A second, independent reading of the game rules: row by row, in plain Python, from
../shared/spec/rules.md and the ruleset's default parameters, with none of the auditor's code.
Slow and simple on purpose: it judges the vectorised rules on small mutated bundles
(test_second_reading.py). Readings the catalogue leaves open follow the rules' documented choices.
Reads CSV bundles only."""
from __future__ import annotations

import calendar
import csv
import itertools
import json
from collections import Counter, defaultdict
from collections.abc import Callable
from datetime import date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

Row = dict[str, str | None]
Key = tuple[str, str, str | None]

WHEEL_ODDS = {"24": 1, "15": 2, "7": 5, "4": 10, "2": 20, "figura_1": 45, "figura_2": 45}
DICE_ODDS = {"asos": 61, "petit": 1, "gran": 1}


def rows(path: Path) -> list[Row]:
    """A CSV file's rows, an empty cell as None."""
    if not path.exists():
        return []
    with path.open(newline="", encoding="utf-8-sig") as fh:
        return [{k: (v if v != "" else None) for k, v in r.items()} for r in csv.DictReader(fh)]


def ts(v: str | None) -> datetime | None:
    return None if v is None else datetime.fromisoformat(v)


def readable_time(v: str | None) -> bool:
    """Whether `v` is a time with its offset, as the log format writes one."""
    try:
        return v is not None and datetime.fromisoformat(v).tzinfo is not None
    except ValueError:
        return False


def day(v: str | None) -> date | None:
    return None if v is None else date.fromisoformat(v)


def b(v: str | None) -> bool | None:
    return None if v is None else v in ("true", "1")


def i(v: str | None) -> int | None:
    return None if v is None else int(v)


LEFT_OUT = "left_out.json"  # beside the rows a quarantine kept: the rounds whose items were not all kept


def complete_rounds(bundle: Path, round_table: str, items: dict[str | None, list[Row]]) -> Callable[[str | None], bool]:
    """Whether a round's items were all kept (`quarantine` writes which were not): the rules that sum
    or count a round's items judge only those. A round named by an item left out, or whose own id
    was repeated, is not; where an item left out named no round, neither is a round with no item kept."""
    path = bundle / LEFT_OUT
    noted = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    named = set(noted.get("rounds", {}).get(round_table, []))
    untold = round_table in noted.get("untold", [])
    return lambda rid: rid not in named and not (untold and not items.get(rid))


def wheel_and_dice(bundle: Path) -> set[Key]:
    """(rule, round or dice set, item) of every WHL202-WHL212 and BFR301-BFR314 breach."""
    out: set[Key] = set()
    tables = {r["table_id"]: r for r in rows(bundle / "tables.csv")}
    # ---------------- wheel
    layout: dict[str | None, dict[int, set[str | None]]] = defaultdict(dict)
    for r in rows(bundle / "wheel_layouts.csv"):
        layout[r["table_id"]].setdefault(int(r["slot"]), set()).add(r["symbol"])
    spins = {r["spin_id"]: r for r in rows(bundle / "wheel_spins.csv")}
    bets = rows(bundle / "wheel_bets.csv")
    by_spin = defaultdict(list)
    for x in bets:
        by_spin[x["spin_id"]].append(x)
    prev_settled = {}
    per_table = defaultdict(list)
    for s in spins.values():
        per_table[s["table_id"]].append(s)
    for t, ss in per_table.items():
        ss.sort(key=lambda s: (ts(s["ts_open"]), ts(s["ts_no_more_bets"])))
        for a, c in itertools.pairwise(ss):
            prev_settled[c["spin_id"]] = ts(a["ts_settled"])
    for sid, s in spins.items():
        settled = s["status"] == "settled"
        if settled and float(s["revolutions"]) < 4:
            out.add(("WHL202", sid, None))
        if settled and b(s["on_pivot"]):
            out.add(("WHL203", sid, None))
        if settled and b(s["obstructed"]):
            out.add(("WHL204", sid, None))
        lay = layout.get(s["table_id"])
        symbols = lay.get(i(s["stop_slot"]), set()) if lay is not None and s["stop_slot"] is not None else set()
        slot_symbol = next(iter(symbols)) if len(symbols) == 1 else None  # a slot listed twice names no symbol
        if settled and s["symbol"] not in symbols:
            out.add(("WHL206", sid, None))
        o, n, st, se = (ts(s[c]) for c in ("ts_open", "ts_no_more_bets", "ts_stop", "ts_settled"))
        if not (o < n < st <= se):
            out.add(("WHL212", sid, None))
        winning = slot_symbol if slot_symbol is not None else s["symbol"]
        paid = []
        for x in by_spin.get(sid, []):
            bid = x["bet_id"]
            stake, payout, back = int(x["stake_cents"]), int(x["payout_cents"]), b(x["stake_returned"])
            placed, wd = ts(x["ts_placed"]), ts(x["ts_withdrawn"])
            if not settled and (payout != 0 or not back):
                out.add(("WHL205", sid, bid))
            if settled:
                withdrawn = wd is not None and wd < n
                win = not withdrawn and x["symbol"] == winning
                exp_pay = stake * WHEEL_ODDS[x["symbol"]] if win else 0
                exp_back = win or withdrawn
                if payout != exp_pay or back != exp_back:
                    out.add(("WHL207", sid, bid))
                if payout > 0:
                    paid.append((i(x["paid_seq"]), payout))
            if placed >= n or (wd is not None and wd >= n):
                out.add(("WHL208", sid, bid))
            p = prev_settled.get(sid)
            if p is not None and placed < p:
                out.add(("WHL209", sid, bid))
            t = tables.get(s["table_id"])
            if t is not None:
                lo, hi = i(t["min_cents"]), i(t["max_cents"])
                if stake < lo or (hi is not None and stake > hi):
                    out.add(("WHL211", sid, bid))
        paid.sort(key=lambda p: (p[0] is None, p[0] or 0, p[1]))
        if any(q[1] < p[1] for p, q in itertools.pairwise(paid)):
            out.add(("WHL210", sid, None))
    # ---------------- dice
    throws = {r["throw_id"]: r for r in rows(bundle / "dice_throws.csv")}
    dbets = defaultdict(list)
    for x in rows(bundle / "dice_bets.csv"):
        dbets[x["throw_id"]].append(x)
    all_bets_of = complete_rounds(bundle, "dice_throws", dbets)
    noted = json.loads((bundle / LEFT_OUT).read_text(encoding="utf-8")) if (bundle / LEFT_OUT).exists() else {}
    gaps_of = defaultdict(list)  # throws left out, by table: the throws either side are not consecutive
    for table_id, when in noted.get("throw_gaps", []):
        gaps_of[table_id].append(ts(when))

    def consecutive(a: Row, c: Row) -> bool:
        return not any(ts(a["ts"]) <= g <= ts(c["ts"]) for g in gaps_of[c["table_id"]])
    per_table = defaultdict(list)
    for t in throws.values():
        per_table[t["table_id"]].append(t)
    for tt in per_table.values():
        tt.sort(key=lambda t: ts(t["ts"]))
        for a, c in itertools.pairwise(tt):
            if a["null_reason"] in ("off_table", "defect", "foreign_substance") and a["dice_set_id"] == c["dice_set_id"] and consecutive(a, c):
                out.add(("BFR308", c["throw_id"], None))
        for col, code in (("dice_set_id", "BFR309"), ("launcher_id", "BFR310")):
            start = None
            for k, c in enumerate(tt):
                now = ts(c["ts"])
                if k == 0 or c[col] != tt[k - 1][col] or now - ts(tt[k - 1]["ts"]) > timedelta(minutes=60) or not consecutive(tt[k - 1], c):
                    start = now
                if now - start > timedelta(minutes=60):
                    out.add((code, c["throw_id"], None))
    for thid, t in throws.items():
        settled = t["status"] == "settled"
        true = None
        if settled:
            total = int(t["die1"]) + int(t["die2"]) + int(t["die3"])
            true = "asos" if total == 3 else "petit" if 5 <= total <= 7 else "gran" if 14 <= total <= 16 else "none"
            if t["result"] != true:
                out.add(("BFR301", thid, None))
        if t["null_reason"] is not None and settled:
            out.add(("BFR306", thid, None))
        touched = b(t["touched_before_announce"]) is True
        tab = tables.get(t["table_id"])
        mn = i(tab["min_cents"]) if tab else None
        mx = i(tab["max_cents"]) if tab else None
        collects, pays = [], []
        for x in dbets.get(thid, []):
            bid = x["bet_id"]
            chips, payout, coll = int(x["chips_cents"]), int(x["payout_cents"]), b(x["collected"])
            boundary = x["placement"] == "boundary"
            played = chips // 2 if boundary else chips
            if settled:
                win = x["target"] == true
                exp_pay = played * DICE_ODDS[x["target"]] if win else 0
                if not touched:
                    exp_coll = true != "none" and not win
                    if payout != exp_pay or coll != exp_coll:
                        out.add(("BFR302", thid, bid))
                else:
                    if payout != exp_pay or coll:
                        out.add(("BFR312", thid, bid))
            else:
                if payout != 0 or coll:
                    out.add(("BFR307", thid, bid))
            if mn is not None:
                sb_max = 200 * mn if mx is None else min(200 * mn, mx)
                if x["target"] == "asos":
                    if played > 6 * mn:
                        out.add(("BFR303", thid, bid))
                elif played > sb_max:
                    out.add(("BFR303", thid, bid))
                if played < mn:
                    out.add(("BFR304", thid, bid))
                if boundary and (x["target"] == "asos" or chips < 2 * mn or chips > 2 * sb_max):
                    out.add(("BFR305", thid, bid))
            elif boundary and x["target"] == "asos":
                out.add(("BFR305", thid, bid))
            if x["seat"] is not None and int(x["seat"]) > 12:
                out.add(("BFR314", thid, bid))
            if coll and x["collect_seq"] is not None:
                collects.append((int(x["collect_seq"]), x["target"]))
            if payout > 0 and x["paid_seq"] is not None:
                pays.append(int(x["paid_seq"]))
        bad = False
        if collects and pays and max(c[0] for c in collects) >= min(pays):
            bad = True
        first = min(c[0] for c in collects) if collects else None
        if collects and all_bets_of(thid) and any(c[1] == "asos" for c in collects) and any(c[1] != "asos" for c in collects if c[0] == first):
            bad = True
        if bad:
            out.add(("BFR311", thid, None))
    for d in rows(bundle / "dice_sets.csv"):
        e = float(d["edge_mm"])
        if not (12 <= e <= 15) or not b(d["opposite_faces_sum_7"]):
            out.add(("BFR313", d["dice_set_id"], None))
    return out


PUNT_SIDE = ("punt", "banc", "banc_amb_la_taula", "banc_seguit")


def val(card: str) -> int:
    r = card[0]
    return 1 if r == "A" else int(r) if r.isdigit() else 0


def score(cards: list[str]) -> int:
    return sum(val(c) for c in cards) % 10


def banker_should_draw(b2: int, c: int | None) -> set[bool]:
    """Allowed choices (True = draw) for the banker on two cards b2 (no natural), punt's third card c."""
    if c is None:
        return {True} if b2 <= 5 else {False}
    if b2 <= 2:
        return {True}
    if b2 == 3:
        return {False} if c == 8 else {True, False} if c == 9 else {True}
    if b2 == 4:
        return {True} if 2 <= c <= 7 else {False}
    if b2 == 5:
        return {True} if 5 <= c <= 7 else {True, False} if c == 4 else {False}
    if b2 == 6:
        return {True} if 6 <= c <= 7 else {False}
    return {False}


def chemin_de_fer(bundle: Path) -> set[Key]:
    """(rule, coup or table, stake) of every CDF101-CDF134 and LOG005 breach."""
    out: set[Key] = set()
    tables = {r["table_id"]: r for r in rows(bundle / "tables.csv")}
    coups = rows(bundle / "cdf_coups.csv")
    stakes = defaultdict(list)
    for s in rows(bundle / "cdf_stakes.csv"):
        stakes[s["coup_id"]].append(s)
    all_stakes_of = complete_rounds(bundle, "cdf_coups", stakes)
    noted = json.loads((bundle / LEFT_OUT).read_text(encoding="utf-8")) if (bundle / LEFT_OUT).exists() else {}
    coups_left_out = set(noted.get("coup_tables", []))  # None: a coup left out that names no table
    coup_gaps = defaultdict(list)  # table -> the times of its coups left out (None: unread)
    for table_id, when in noted.get("coup_gaps", []):
        coup_gaps[table_id].append(ts(when) if when is not None else None)

    def last_of_its_shoe(prev: Row, c: Row) -> bool:
        """Whether `prev` is known to end its shoe, `c` being its table's next coup: the stop card came
        out in it, or no coup of its table was left out between them, nor one at a time unread (one
        left out might have been the shoe's last)."""
        if b(prev["stop_card"]):
            return True
        if None in coups_left_out:
            return False
        return not any(g is None or ts(prev["ts"]) <= g <= ts(c["ts"]) for g in coup_gaps[prev["table_id"]])

    for t in tables.values():
        if t["game"] == "chemin_de_fer" and t["authorised_min_cents"] is not None and int(t["min_cents"]) < int(t["authorised_min_cents"]):
            out.add(("CDF107", t["table_id"], None))
    info = {}
    for c in coups:
        cid = c["coup_id"]
        pc, bc = c["player_cards"].split(), c["banker_cards"].split()
        settled = c["status"] == "settled"
        ps, bs = score(pc), score(bc)
        true = "banker" if bs > ps else "player" if ps > bs else "tie"
        info[cid] = (true, settled)
        t = tables.get(c["table_id"])
        m = int(t["min_cents"]) if t else None
        unlimited = bool(t and b(t["bank_unlimited"]))
        bank, res, cag, gar, after = (int(c[k]) for k in ("bank_cents", "banker_result_cents", "cagnotte_cents", "garage_cents", "bank_after_cents"))
        if settled and true == "banker":
            exp = int((Decimal(max(res, 0)) * Decimal("0.05")).quantize(Decimal(1), rounding=ROUND_HALF_UP))
            if cag != exp:
                out.add(("CDF101", cid, None))
        elif cag != 0:
            out.add(("CDF102", cid, None))
        if m is not None:
            if not unlimited and bank > 100 * m:
                out.add(("CDF103", cid, None))
            if bank < m:
                out.add(("CDF104", cid, None))
            if not unlimited and after > 100 * m:
                out.add(("CDF109", cid, None))
        ss = stakes.get(cid, [])
        summed = all_stakes_of(cid) and res != -sum(int(s["result_cents"] or 0) for s in ss)
        if settled and (summed or after != bank + res - cag - gar):
            out.add(("CDF110", cid, None))
        if c["bank_event"] == "initial" and c["banker_seat"] != "1":
            out.add(("CDF113", cid, None))
        if int(c["players_seated"]) < 4:
            out.add(("CDF120", cid, None))
        p2, b2 = score(pc[:2]), score(bc[:2])
        natural = p2 >= 8 or b2 >= 8
        if settled and c["outcome"] != true:
            out.add(("CDF123", cid, None))
        if settled and natural and (len(pc) > 2 or len(bc) > 2):
            out.add(("CDF124", cid, None))
        if settled and not natural:
            if c["mode"] == "rules":
                if (p2 <= 4 and len(pc) == 2) or (p2 >= 6 and len(pc) == 3):
                    out.add(("CDF125", cid, None))
                third = val(pc[2]) if len(pc) == 3 else None
                if b2 != 0 and (len(bc) == 3) not in banker_should_draw(b2, third):
                    out.add(("CDF126", cid, None))
            if b2 == 0 and len(bc) == 2:
                out.add(("CDF127", cid, None))
        if (len(pc) > 2 or len(bc) > 2) and b(c["third_face_up"]) is False:
            out.add(("CDF134", cid, None))
        punt_total = abon_total = abons = 0
        bancs = any_banc = 0
        for s in ss:
            amt, kind = int(s["amount_cents"]), s["kind"]
            if m is not None and kind in PUNT_SIDE and amt < m:
                out.add(("CDF105", cid, s["stake_id"]))
            if amt > bank:
                out.add(("CDF106", cid, s["stake_id"]))
            if kind in PUNT_SIDE:
                punt_total += amt
            else:
                abon_total += amt
                abons += 1
            bancs += kind in ("banc", "banc_seguit")
            any_banc += kind in ("banc", "banc_seguit", "banc_amb_la_taula")
            sign = {"player": 1, "banker": -1, "tie": 0}[true] * (1 if kind in PUNT_SIDE else -1)
            exp = sign * amt if settled else 0
            if settled and int(s["result_cents"]) != exp or not settled and s["result_cents"] is not None and int(s["result_cents"]) != 0:
                out.add(("CDF128", cid, s["stake_id"]))
            if kind == "banc_amb_la_taula" and amt != bank // 2:
                out.add(("CDF130", cid, s["stake_id"]))
            if kind in ("banc", "banc_seguit") and amt != bank:
                out.add(("CDF131", cid, s["stake_id"]))
        if punt_total > bank + abon_total and all_stakes_of(cid):
            out.add(("CDF106", cid, None))
        if abons > 3 or (abons and not bancs and all_stakes_of(cid)):
            out.add(("CDF129", cid, None))
        seated = Counter()
        for s in ss:
            if s["seat"] is not None and s["kind"] == "punt":
                seated[s["player_id"]] += int(s["amount_cents"])
        if not any_banc and seated and all_stakes_of(cid):
            top = max(seated.values())
            if seated.get(c["player_id"]) != top:
                out.add(("CDF133", cid, None))
    # sequences: per table in time order
    per_table = defaultdict(list)
    for c in coups:
        per_table[c["table_id"]].append(c)
    for tid, cs in per_table.items():
        cs.sort(key=lambda c: (ts(c["ts"]), c["shoe_id"], int(c["coup_no"])))
        stint_won = 0
        stint_len = 0
        stint_lost = False
        m = int(tables[tid]["min_cents"]) if tid in tables else None
        for k, c in enumerate(cs):
            cid = c["coup_id"]
            prev = cs[k - 1] if k else None
            has_prev = prev is not None and ((prev["shoe_id"] == c["shoe_id"] and int(c["coup_no"]) == int(prev["coup_no"]) + 1)
                                             or (prev["shoe_id"] != c["shoe_id"] and c["coup_no"] == "1" and last_of_its_shoe(prev, c)))
            if prev is not None and prev["banker_id"] == c["banker_id"]:
                stint_len += 1
                stint_lost = stint_lost or not has_prev  # a coup of the stint missing: its winnings unknown
            else:
                stint_len, stint_won = 1, 0
                stint_lost = not has_prev and c["bank_event"] in ("retained", "shoe_carryover")  # kept from a missing coup
            stint_won += int(c["banker_result_cents"]) - int(c["cagnotte_cents"])
            if c["garage_kind"] == "voluntary" and int(c["garage_cents"]) > 0 and not stint_lost:
                g = int(c["garage_cents"])
                a = m is not None and stint_won > 50 * m and g <= stint_won
                bb = stint_len >= 2 and g <= (int(c["bank_cents"]) + int(c["banker_result_cents"]) - int(c["cagnotte_cents"])) // 2
                if not (a or bb):
                    out.add(("CDF108", cid, None))
            if not has_prev:
                continue
            ptrue, psettled = info[prev["coup_id"]]
            lost = psettled and ptrue == "player"
            ev = c["bank_event"]
            if ev in ("retained", "shoe_carryover") and int(c["bank_cents"]) < int(prev["bank_after_cents"]):
                out.add(("CDF111", cid, None))
            if lost and ev in ("retained", "shoe_carryover"):
                out.add(("CDF112", cid, None))
            if not lost and ev in ("rotation", "auction", "reacquired") and int(c["bank_cents"]) < int(prev["bank_after_cents"]):
                out.add(("CDF114", cid, None))
            for s in stakes.get(cid, []):
                if s["kind"] == "banc_seguit" and all_stakes_of(prev["coup_id"]):
                    made = any(p["player_id"] == s["player_id"] and p["kind"] in ("banc", "banc_seguit") for p in stakes.get(prev["coup_id"], []))
                    if not (made and psettled and ptrue == "banker"):
                        out.add(("CDF132", cid, s["stake_id"]))
    # shoes in coup_no order
    shoes = defaultdict(list)
    for c in coups:
        shoes[(c["table_id"], c["shoe_id"])].append(c)
    for cs in shoes.values():
        cs.sort(key=lambda c: (int(c["coup_no"]), ts(c["ts"])))
        for k, c in enumerate(cs):
            want = int(cs[k - 1]["coup_no"]) + 1 if k else 1
            if int(c["coup_no"]) != want or (k and ts(c["ts"]) < ts(cs[k - 1]["ts"])):
                out.add(("LOG005", c["coup_id"], None))
        seen = Counter()
        n = 0
        stopped = False
        for c in cs:
            if stopped:
                out.add(("CDF122", c["coup_id"], None))
            stopped = stopped or b(c["stop_card"])
            over = False
            for card in c["player_cards"].split() + c["banker_cards"].split():
                seen[card] += 1
                n += 1
                over = over or seen[card] > 6 or n > 312
            if over:
                out.add(("CDF121", c["coup_id"], None))
    return out


IDS = {"wheel_spins": "spin_id", "wheel_bets": "bet_id", "dice_throws": "throw_id", "dice_bets": "bet_id",
       "cdf_coups": "coup_id", "cdf_stakes": "stake_id"}
ROUND_OF = {"wheel_bets": ("spin_id", "wheel_spins"), "dice_bets": ("throw_id", "dice_throws"), "cdf_stakes": ("coup_id", "cdf_coups")}


def quarantine(bundle: Path, broken: dict[str, set[int]], kept_dir: Path) -> set[Key]:
    """LOG001-LOG003 of the round and item tables the bundle has, keyed by `file:line` (line 1 = first
    data row), given the rows (0-based) whose cells break the format; the rows left to audit are
    written to `kept_dir`, for `wheel_and_dice` and `chemin_de_fer`. A row is quarantined for a bad
    cell or no id, else for an id an earlier row holds; an audited item naming a round no row has is
    an orphan, and an item of a quarantined round is left out of the game rules without being one."""
    out: set[Key] = set()
    kept: dict[str, list[Row]] = {}
    ids_read: dict[str, set[str | None]] = {}
    differ: dict[str, set[str | None]] = {}  # ids on a broken row, or on a row unlike their first kept one
    left_out: dict[str, set[str]] = defaultdict(set)  # round table -> rounds some of whose items were not kept
    untold: set[str] = set()  # round tables with an item left out that names no round
    # A coup left out that names no table (None) may be any table's shoe's last; one that does, the
    # last of the shoe its table was dealing at its time, or of any of its table's, time unread.
    tables_left: set[str | None] = set()
    coup_gaps: list[tuple[str, str | None]] = []
    throw_gaps: list[tuple[str, str]] = []  # the table and time of each throw left out, where both read
    present = {name: id_col for name, id_col in IDS.items() if (bundle / f"{name}.csv").exists()}
    for name, id_col in present.items():
        read = rows(bundle / f"{name}.csv")
        ids_read[name] = {r[id_col] for r in read}
        seen: dict[str | None, Row] = {}
        differ[name] = set()
        kept[name] = []
        for k, r in enumerate(read):
            source = f"{name}.csv:{k + 1}"
            same_throw = same_coup = False
            if k in broken.get(name, set()) or r[id_col] is None:
                out.add(("LOG001", source, None))
                differ[name].add(r[id_col])
            elif r[id_col] in seen:
                out.add(("LOG002", source, None))
                if r != seen[r[id_col]]:
                    differ[name].add(r[id_col])
                # The throw written again: what BFR308-BFR310 read of it is the kept throw's.
                first = seen[r[id_col]]
                same_throw = name == "dice_throws" and ts(r["ts"]) == ts(first["ts"]) and all(
                    r[c] == first[c] for c in ("table_id", "dice_set_id", "launcher_id", "null_reason"))
                # The coup written again: the same shoe's same coup, at the same time, misses from no shoe.
                same_coup = name == "cdf_coups" and ts(r["ts"]) == ts(first["ts"]) and all(
                    r[c] == first[c] for c in ("table_id", "shoe_id", "coup_no"))
                if r == first:
                    continue  # a row written again, cell for cell: what was kept is whole
            else:
                seen[r[id_col]] = r
                kept[name].append(r | {"_source": source})
                continue
            if name == "cdf_coups" and r["table_id"] is None:
                tables_left.add(None)
            elif name == "cdf_coups" and not same_coup:
                coup_gaps.append((r["table_id"], str(r["ts"]) if readable_time(r["ts"]) else None))
            if name == "dice_throws" and r["table_id"] is not None and readable_time(r["ts"]) and not same_throw:
                throw_gaps.append((r["table_id"], str(r["ts"])))
            if name in ROUND_OF:
                key, parent = ROUND_OF[name]
                if r[key] is None:
                    untold.add(parent)
                else:
                    left_out[parent].add(str(r[key]))
    # A round id on more than one row read (kept or not) whose rows differ, or one of which is broken:
    # whose items are whose cannot be told, so its items are left out of the game rules, and its
    # sums are not judged. A round written again cell for cell is one round: its items are its own.
    twice = {parent: {rid for rid, n in Counter(r[IDS[parent]] for r in rows(bundle / f"{parent}.csv")).items()
                      if n > 1 and rid is not None and rid in differ[parent]}
             for _, parent in ROUND_OF.values() if parent in kept}
    for parent, ids in twice.items():
        left_out[parent] |= {str(rid) for rid in ids}
    audited_rounds = {parent: {r[IDS[parent]] for r in kept[parent]} - twice[parent] for _, parent in ROUND_OF.values() if parent in kept}
    kept_dir.mkdir(parents=True, exist_ok=True)
    (kept_dir / LEFT_OUT).write_text(json.dumps({"rounds": {t: sorted(ids) for t, ids in left_out.items()}, "untold": sorted(untold),
                                                           "coup_tables": sorted(tables_left, key=str), "coup_gaps": coup_gaps, "throw_gaps": throw_gaps}), encoding="utf-8")
    for name, rs in kept.items():
        if name in ROUND_OF:
            key, parent = ROUND_OF[name]
            out |= {("LOG003", str(r["_source"]), None) for r in rs if r[key] not in ids_read[parent]}
            rs = [r for r in rs if r[key] in audited_rounds[parent]]
        write_rows(kept_dir / f"{name}.csv", [{c: v for c, v in r.items() if c != "_source"} for r in rs], list(read_header(bundle / f"{name}.csv")))
    for other in ("tables", "wheel_layouts", "dice_sets"):
        if (bundle / f"{other}.csv").exists():
            (kept_dir / f"{other}.csv").write_bytes((bundle / f"{other}.csv").read_bytes())
    return out


def read_header(path: Path) -> list[str]:
    with path.open(newline="", encoding="utf-8-sig") as fh:
        return next(csv.reader(fh))


def write_rows(path: Path, rs: list[Row], header: list[str]) -> None:
    """Rows as a CSV file with `header`, None as an empty cell."""
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=header)
        w.writeheader()
        for r in rs:
            w.writerow({k: ("" if v is None else v) for k, v in r.items()})


def anniversary(born: date, years: int) -> date:
    """The same calendar date `years` later; 29 February in a common year is 28 February (the
    ruleset's default `leap_day_anniversary`)."""
    year = born.year + years
    return date(year, born.month, min(born.day, calendar.monthrange(year, born.month)[1]))


def tournaments(bundle: Path) -> set[Key]:
    """(rule, tournament, player) of every TRN401-TRN408 breach, with the ruleset's defaults: costs at
    most 25 % of fees, notice 10 days, authorisation at most a year, participants 18 or older."""
    out: set[Key] = set()
    held = {r["tournament_id"]: r for r in rows(bundle / "tournaments.csv")}
    for tid, t in held.items():
        assert tid is not None
        fees, costs, prizes = i(t["fees_cents"]), i(t["organisation_costs_cents"]), i(t["prizes_cents"])
        assert fees is not None and costs is not None and prizes is not None
        if costs * 4 > fees:
            out.add(("TRN401", tid, None))
        if prizes < fees - costs:
            out.add(("TRN402", tid, None))
        starts, notified = day(t["starts_on"]), day(t["notified_on"])
        assert starts is not None
        if notified is None or notified > starts - timedelta(days=10):
            out.add(("TRN403", tid, None))
        start, end = day(t["authorised_from"]), day(t["authorised_to"])
        if start is None or end is None or end > anniversary(start, 1) or not start <= starts <= end:
            out.add(("TRN404", tid, None))
        if t["venue"] == "external" and b(t["external_authorised"]) is not True:
            out.add(("TRN408", tid, None))
    for e in rows(bundle / "tournament_entries.csv"):
        t = held.get(e["tournament_id"])
        if t is None:
            continue  # an orphan, LOG003's
        key = (str(e["tournament_id"]), e["player_id"])
        born, starts = day(e["birth_date"]), day(t["starts_on"])
        assert born is not None and starts is not None
        if anniversary(born, 18) > starts:
            out.add(("TRN405", *key))
        if b(e["excluded"]):
            out.add(("TRN406", *key))
        if not b(e["registered"]):
            out.add(("TRN407", *key))
    return out
