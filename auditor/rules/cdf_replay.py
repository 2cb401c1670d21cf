"""Replay of chemin de fer coups from their cards, vectorised (epígraf 8, VI).

Cards are parsed once into integer arrays (the strings have fixed width: "9S 8H" or "9S 8H 7D"), scores
computed with modular sums, and the drawing rules looked up in small tables indexed by total and card.
`prepare_coups` returns one row per coup with the replay, the table's limits, stake aggregates and the
previous coup of the same table, which every CDF rule reads.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from auditor.frames import (
    among, arrow, as_categories, coded, differs_from_previous, first_words, fixed_width_bytes, in_words, isin, join_on_key, row_sums, stable_sorted, sums_by,
)
from auditor.rules.base import Context, after_gap
from auditor.schema import RANKS, REPLAY_ORDER, SUITS

PUNT_SIDE = ("punt", "banc", "banc_amb_la_taula", "banc_seguit")
BANC_KINDS = ("banc", "banc_seguit")
# A shoe's coups in dealing order. Of two coups with one coup_no the repeat is the one dealt later
# (row order carries no meaning); at one time too, the coup_id decides, then file order (a repeated id).
SHOE_ORDER = ["table_id", "shoe_id", "coup_no", "ts", "coup_id", "_file", "_line"]


def in_shoe_order(coups: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """`columns` of `coups`, with the shoe keys and what a finding names, in SHOE_ORDER. Only these
    are copied when the coups are not in that order already (rows in time order, or in none): the
    prepared coups carry some sixty columns."""
    keep = list(dict.fromkeys([*SHOE_ORDER, *columns]))  # SHOE_ORDER holds coup_id, what a finding names
    return stable_sorted(coups[keep], SHOE_ORDER)


def same_shoe_as_previous(order: pd.DataFrame) -> pd.Series:
    """For coups in SHOE_ORDER, whether each was dealt from the same shoe as the row before it."""
    new = differs_from_previous(order["table_id"]) | differs_from_previous(order["shoe_id"])
    return pd.Series(~new, index=order.index, copy=False)

# byte -> card value (A=1, 2-9 face, T J Q K = 0), rank index, suit index; 255 = no card.
_VALUE = np.full(256, 255, dtype=np.int16)
_RANK = np.full(256, -1, dtype=np.int16)
_SUIT = np.full(256, -1, dtype=np.int16)
for _i, _r in enumerate(RANKS):
    _VALUE[ord(_r)] = min(_i + 1, 10) % 10
    _RANK[ord(_r)] = _i
for _i, _s in enumerate(SUITS):
    _SUIT[ord(_s)] = _i

DRAW, STAND, OPTION = 1, 0, 2
# Each coup's cards as 0-51 codes (-1: no third card), the punt's three then the banker's.
CARD_CODES = [f"{side}_card_{i}" for side in ("player", "banker") for i in (1, 2, 3)]


# PLAYER_TABLEAU[option, total]: must the punt draw on a two-card `total` (0-9)? Draws on 0-4, may
# choose on 5 where the ruleset grants it (option 1; epígraf 8, VI b), else draws; stands on 6-9.
# One lookup a coup, where np.select's three conditions took 9 ms a million coups.
PLAYER_TABLEAU = np.array([[DRAW] * 6 + [STAND] * 4, [DRAW] * 5 + [OPTION] + [STAND] * 4], dtype=np.int64)


def banker_tableau(option_3_vs_9: bool = True, option_5_vs_4: bool = True) -> np.ndarray:
    """BANKER[total, c + 1]: must the banker draw on a two-card `total` (0-7) when the punt's third card
    is worth c (0-9), or stood (c = -1)? Written from the published punto-banco chart with this
    regulation's two options (epígraf 8, VI): 3 against a 9, 5 against a 4."""
    table = np.full((10, 11), STAND, dtype=np.int8)
    stood = {0: DRAW, 1: DRAW, 2: DRAW, 3: DRAW, 4: DRAW, 5: DRAW, 6: STAND, 7: STAND}
    for total, decision in stood.items():
        table[total, 0] = decision
    for c in range(10):
        table[0:3, c + 1] = DRAW
        table[3, c + 1] = STAND if c == 8 else DRAW
        table[4, c + 1] = DRAW if 2 <= c <= 7 else STAND
        table[5, c + 1] = DRAW if 4 <= c <= 7 else STAND
        table[6, c + 1] = DRAW if 6 <= c <= 7 else STAND
        table[7, c + 1] = STAND
    if option_3_vs_9:
        table[3, 9 + 1] = OPTION
    if option_5_vs_4:
        table[5, 4 + 1] = OPTION
    return table


# The same as one lookup each: a card's value by its rank byte (-1: no card), its 0-51 code by its
# rank and suit bytes together (rank byte × 256 + suit byte; -1: no card). One gather a table, not
# three lookups and the arithmetic between them (1M hands: 74 -> 45 ms).
_CARD_VALUE = np.where(_VALUE == 255, -1, _VALUE).astype(np.int8)
_CARD_CODE = np.where(_RANK[:, None] >= 0, _RANK[:, None] * 4 + _SUIT[None, :], -1).astype(np.int16).reshape(-1)


# The same by a card's two bytes (rank, suit) read little-endian as one 16-bit number (the rank its
# low byte): its value and its 0-51 code, -1 for two bytes that are no card of the format.
_PAIR_VALUE = np.full(1 << 16, -1, dtype=np.int16)
_PAIR_CODE = np.full(1 << 16, -1, dtype=np.int16)
for _r in RANKS:
    for _s in SUITS:
        _PAIR_VALUE[ord(_r) | ord(_s) << 8] = _CARD_VALUE[ord(_r)]
        _PAIR_CODE[ord(_r) | ord(_s) << 8] = _CARD_CODE[ord(_r) << 8 | ord(_s)]


def parse_hands(cards: pd.Series) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(values[n, 3], codes[n, 3], count[n]): card values and 0-51 codes, -1 where there is no card.

    Hands as the load lets them through ("9S 8H", "TC 5D TH": 5 or 8 bytes, none missing) are read
    from each one's first eight bytes as a word (`frames.first_words`), a card's two bytes at a
    time, read in place (`frames.in_words`) (1M hands, timed in turns: 54-70 -> 48-51 ms, where Arrow
    padded every hand to a grid of eight bytes and numpy gathered its columns; then 42 -> 35 ms);
    any other column through that grid."""
    text = arrow(cards)
    if len(text) and not text.null_count:
        words, lengths = first_words(text)
        if ((lengths == 5) | (lengths == 8)).all():
            # A two-card hand's third pair is the next hand's second and third bytes (a suit, a
            # space) or the zeros after the last: never a card.
            card_values = np.empty((len(text), 3), dtype=np.int16)
            card_codes = np.empty((len(text), 3), dtype=np.int16)
            for k in range(3):
                pair = in_words(words, 3 * k, "<u2").astype(np.intp)
                card_values[:, k] = _PAIR_VALUE.take(pair)
                card_codes[:, k] = _PAIR_CODE.take(pair)
            return card_values, card_codes, row_sums(card_values >= 0, np.int8)
    grid = fixed_width_bytes(cards, 8)
    # Bytes as numpy's index type before they index the tables: a uint8 or uint16 index goes
    # through numpy's casting path (1M hands' values: 7.6 -> 3.0 ms; their codes 9.9 -> 7.5).
    ranks = grid[:, [0, 3, 6]].astype(np.intp)
    values = _CARD_VALUE[ranks]
    present = values >= 0  # a space (2-card hand) is no card
    codes = _CARD_CODE[(ranks << 8) | grid[:, [1, 4, 7]]]
    return values.astype(np.int16), codes, row_sums(present, np.int8)


def replay(coups: pd.DataFrame, ctx: Context) -> pd.DataFrame:
    pv, pc, pn = parse_hands(coups["player_cards"])
    bv, bc, bn = parse_hands(coups["banker_cards"])
    p2 = (pv[:, 0] + pv[:, 1]) % 10
    b2 = (bv[:, 0] + bv[:, 1]) % 10
    # A third card's value where one was drawn, else 0 (or -1, no card): multiplied by whether it
    # was, which is np.where's answer for integers without its branch on each row's mask (some half
    # of the coups draw: 1M coups 5.6 -> 0.3 ms).
    p_drew, b_drew = pn == 3, bn == 3
    p_final = (p2 + pv[:, 2] * p_drew) % 10
    b_final = (b2 + bv[:, 2] * b_drew) % 10
    third_card = (pv[:, 2] + 1) * p_drew - 1
    # The columns gathered first and made a frame at once: a column set at a time costs pandas an
    # insertion each (some 20 columns: 17 ms).
    out: dict[str, object] = {"p2": p2, "b2": b2, "p_final": p_final, "b_final": b_final,
                              "player_drew": p_drew, "banker_drew": b_drew, "third_card": third_card,
                              "natural": (p2 >= 8) | (b2 >= 8)}
    for i, name in enumerate(CARD_CODES):  # kept for CDF121, which counts each card a shoe deals
        out[name] = (pc if i < 3 else bc)[:, i % 3]
    # A Categorical of the outcome enum's names: the rules compare it with a name, a code comparison.
    # 0 player, 1 banker, 2 tie, as arithmetic on the comparisons (np.select over 1M coups: 8 ms).
    outcome = (p_final < b_final).astype(np.int8) + 2 * (p_final == b_final).astype(np.int8)
    out["true_outcome"] = coded(outcome, ["player", "banker", "tie"], coups.index)

    opt5 = np.asarray(ctx.param("player_optional_5", coups["ts"]), dtype=bool)
    out["player_rule"] = PLAYER_TABLEAU[opt5.astype(np.intp), p2]
    o39 = np.asarray(ctx.param("banker_optional_3_vs_9", coups["ts"]), dtype=bool)
    o54 = np.asarray(ctx.param("banker_optional_5_vs_4", coups["ts"]), dtype=bool)
    column = third_card + 1
    total = np.clip(b2, 0, 9)
    strict = banker_tableau(False, False)[total, column]
    # The two options of VI only widen the chart: apply them where the ruleset grants them.
    widened = np.where(o39 & (total == 3) & (column == 10), OPTION, strict)
    out["banker_rule"] = np.where(o54 & (total == 5) & (column == 5), OPTION, widened)
    return pd.DataFrame(out, index=coups.index, copy=False)


# What `_stake_aggregates` gives each coup.
STAKE_AGGREGATES = ("stake_result_sum", "punt_side_total", "abonament_total", "abonament_won", "abonaments", "bancs", "any_banc", "stakes")


def _stake_aggregates(stakes: pd.DataFrame, at: np.ndarray, n: int) -> dict[str, np.ndarray]:
    """Per coup (by position; -1 = a stake of no coup, left out): sums and counts of its stakes."""
    mine = at >= 0
    at = at[mine]
    kind = stakes["kind"][mine]
    punt_side = among(kind, PUNT_SIDE)
    abon = (kind == "abonament").to_numpy(dtype=bool)
    res = stakes["result_cents"][mine].fillna(0).to_numpy(dtype=np.int64)
    amount = stakes["amount_cents"][mine].to_numpy(dtype=np.int64)

    # Exact sums: compared with the coup's own integers. The few abonaments are summed alone, not as
    # a column of millions of zeros (2M stakes: 30 -> 3 ms).
    at_abon = at[abon]
    return {
        "stake_result_sum": sums_by(at, res, n),
        "punt_side_total": sums_by(at, np.where(punt_side, amount, 0), n),
        "abonament_total": sums_by(at_abon, amount[abon], n),
        "abonament_won": sums_by(at_abon, np.clip(res[abon], 0, None), n),
        "abonaments": np.bincount(at_abon, minlength=n),
        "bancs": np.bincount(at[among(kind, BANC_KINDS)], minlength=n),
        "any_banc": np.bincount(at[among(kind, (*BANC_KINDS, "banc_amb_la_taula"))], minlength=n),
        "stakes": np.bincount(at, minlength=n),
    }


def prepare_coups(ctx: Context) -> pd.DataFrame:
    coups = ctx.in_order("cdf_coups", REPLAY_ORDER["cdf_coups"])
    rp = replay(coups, ctx)
    df = pd.concat([coups, rp], axis=1)
    if ctx.has("tables"):
        df = join_on_key(df, ctx.frame("tables"), "table_id", "table_id", ["min_cents", "authorised_min_cents", "bank_unlimited"])
    else:
        df["min_cents"] = pd.NA
        df["authorised_min_cents"] = pd.NA
        df["bank_unlimited"] = pd.NA
    df["min_cents"] = df["min_cents"].astype("Float64")
    df["bank_unlimited"] = df["bank_unlimited"].astype("boolean").fillna(False).astype(bool)
    if ctx.has("cdf_stakes"):
        # Each stake's coup by position in the sorted coups: aggregated here, joined in `stakes`.
        at = ctx.round_positions("cdf_stakes", "coup_id", "cdf_coups", df)
        aggregates = _stake_aggregates(ctx.frame("cdf_stakes"), at, len(df))
    else:
        aggregates = {col: np.zeros(len(df), dtype=np.int64) for col in STAKE_AGGREGATES}
    # Joined at once: a column set at a time costs pandas an insertion each.
    df = pd.concat([df, pd.DataFrame({col: aggregates[col].astype(np.int64, copy=False) for col in STAKE_AGGREGATES}, index=df.index, copy=False)], axis=1)
    # Whether the coup's stakes are all in the audit: its sums and counts of stakes are judged only then.
    df["stakes_known"] = ctx.items_known("cdf_stakes", df["coup_id"], df["stakes"].to_numpy())
    # The table's previous coup, in time order: sequence rules compare with it. Only a true
    # predecessor counts (the next coup_no of the same shoe, or coup 1 of a new shoe): when a coup in
    # between is missing or quarantined, the pair cannot be judged and LOG005 reports the gap.
    same_shoe = ~differs_from_previous(df["shoe_id"])
    no = df["coup_no"].to_numpy()
    next_no = np.zeros(len(df), dtype=bool)
    next_no[1:] = no[1:] == no[:-1] + 1
    same = ~differs_from_previous(df["table_id"]) & ((same_shoe & next_no) | (~same_shoe & (no == 1) & _shoe_ended(ctx, df)))
    df["has_prev"] = same
    df["prev_bank_after_cents"] = df["bank_after_cents"].shift().where(same)
    df["settled"] = df["status"] == "settled"
    # Shifted as booleans, not as the text columns they come from: a string shift copies every id.
    lost = (df["settled"] & (df["true_outcome"] == "player")).to_numpy(dtype=bool)
    lost_before = np.zeros_like(lost)
    lost_before[1:] = lost[:-1]
    df["prev_lost"] = same & lost_before
    return df


def _shoe_ended(ctx: Context, df: pd.DataFrame) -> np.ndarray:
    """For each coup (of `df`, in table and time order), whether the coup before it is known to be
    its shoe's last. A shoe's coups are numbered, so a coup missing inside a shoe shows as a gap, but
    one missing at its end does not: a coup of the table left out of the audit (quarantined,
    LOG001/LOG002) between the two (both times included) may have been the shoe's last, and only
    the coup in which the stop card came out (after which no coup starts, CDF122) is known to be.
    A coup left out whose time cannot be read may be any shoe's last of its table, and one whose
    table cannot be read (or a coups file that could not be) any table's. Otherwise the table's
    previous coup is its shoe's last, as a log of every coup holds it.

    Passes: T1 coups 1-60 of shoe S1 at 20:00-21:00, a coup left out at 22:30, coup 1 of S2 at
    21:05: the left-out coup came after S2 began, so S1's coup 60 ended S1 (CDF rules compare them).
    Fails to be known: the same coup left out at 21:02, between coup 60 and coup 1 of S2."""
    stop = np.zeros(len(df), dtype=bool)
    stop[1:] = df["stop_card"].to_numpy(dtype=bool, na_value=False)[:-1]
    _, untold = ctx.bundle.tables_missing_rows("cdf_coups")
    if untold:
        return stop
    gaps = ctx.bundle.gaps.get("cdf_coups")
    if gaps is None or not len(gaps):
        return np.ones(len(df), dtype=bool)
    untimed = gaps["ts"].isna().to_numpy(dtype=bool)
    return stop | (~isin(df["table_id"], gaps["table_id"][untimed].unique()) & ~after_gap(df, gaps[~untimed]))


def coups(ctx: Context) -> pd.DataFrame:
    return ctx.prepared("cdf_coups", prepare_coups)  # type: ignore[return-value]


def stakes(ctx: Context) -> pd.DataFrame:
    """Stakes with their coup's replay and limits (inner join: orphans are LOG003's)."""

    def build(c: Context) -> pd.DataFrame:
        # Only what the stake rules read: every column is copied to each of millions of stakes.
        cols = ["coup_id", "table_id", "ts", "bank_cents", "min_cents", "true_outcome", "settled", "has_prev"]
        sorted_coups = coups(c)
        at = c.round_positions("cdf_stakes", "coup_id", "cdf_coups", sorted_coups)
        # The coup's table and true outcome as categories: a code a stake, not its text.
        sorted_coups = sorted_coups.assign(table_id=as_categories(sorted_coups["table_id"]), true_outcome=as_categories(sorted_coups["true_outcome"]))
        return join_on_key(c.frame("cdf_stakes"), sorted_coups, "coup_id", "coup_id", cols[1:], how="inner", position="coup_pos", at=at)  # type: ignore[arg-type]

    return ctx.prepared("cdf_stakes", build)  # type: ignore[return-value]


def stake_players(ctx: Context) -> tuple[np.ndarray, pa.Array]:
    """Each stake's player (of `stakes`) as a code among the stakes' players, and those players: the
    rules that pair players with coups (CDF132, CDF133) compare integers, and the 2M stakes' ids
    are encoded once. A missing player takes the code after the last."""

    def build(c: Context) -> tuple[np.ndarray, pa.Array]:
        players = pc.dictionary_encode(arrow(stakes(c)["player_id"]))
        return pc.fill_null(players.indices, len(players.dictionary)).to_numpy(zero_copy_only=False), players.dictionary

    return ctx.prepared("cdf_stake_players", build)  # type: ignore[return-value]
