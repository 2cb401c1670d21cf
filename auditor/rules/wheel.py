"""Roda de la fortuna, epígraf 24 (WHL201–WHL212).

Spins and bets are joined once (`_bets`); spins of each table are taken in time order for the rule on
bets placed while the previous spin was being paid.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from auditor.frames import as_categories, codes_in, differs_from_previous, instants, is_code, isin, join_on_key, masked_numbers, named, order_by, positions
from auditor.rules.base import Context, Offending, at_least, hits, iso, no_hits, rule
from auditor.schema import REPLAY_ORDER, TABLES

EP = "24"
SPINS = ("wheel_spins",)
BETS = ("wheel_spins", "wheel_bets")
# Slots 0-53: the loader quarantines a layout row or a stop slot outside them (LOG001).
SYMBOLS = list(TABLES["wheel_bets"].column("symbol").values)
SLOTS = int(TABLES["wheel_layouts"].column("slot").maximum or 0) + 1


def _layouts_whole(ctx: Context, table_ids: pd.Series) -> np.ndarray:
    """Whether each of `table_ids`' layout was read whole: none of its rows quarantined (LOG001).
    Where a quarantined row names no table (or a layout file could not be read), a layout read with
    fewer than 54 rows may be the one that lost it."""
    missing, untold = ctx.bundle.tables_missing_rows("wheel_layouts")
    whole = ~isin(table_ids, missing)
    if untold:
        rows = ctx.frame("wheel_layouts")["table_id"].value_counts()
        whole &= isin(table_ids, rows.index[rows.to_numpy() >= SLOTS].to_series())
    return whole


def _spins(ctx: Context) -> pd.DataFrame:
    def build(c: Context) -> pd.DataFrame:
        s = c.in_order("wheel_spins", REPLAY_ORDER["wheel_spins"])
        s["ts"] = s["ts_no_more_bets"]
        same = ~differs_from_previous(s["table_id"])
        s["prev_ts_settled"] = s["ts_settled"].shift().where(same)
        s["settled"] = s["status"] == "settled"
        if c.has("wheel_layouts"):
            lay = c.frame("wheel_layouts")[["table_id", "slot", "symbol"]].drop_duplicates()
            # A slot listed with two symbols (WHL201's finding) has no symbol of its own, whichever row
            # comes first: its spins are judged by their recorded symbol when it is one of them.
            twice = lay.duplicated(["table_id", "slot"], keep=False).to_numpy()
            code = _layout_codes(lay[~twice], s)
            s["layout_symbol"] = named(code, SYMBOLS, s.index)
            s["layout_code"] = code.astype(np.int8)
            both = lay[twice]
            if len(both):
                # Only the spins that stopped on such a slot are looked up by table and slot: a
                # MultiIndex of every spin's took 0.12-0.27 s a million spins, for one slot listed twice.
                rows = np.flatnonzero(_stopped_on(both, s))
                on = s.iloc[rows]
                key = pd.MultiIndex.from_arrays([on["table_id"], on["stop_slot"].astype("float64").fillna(-1).astype("int64")])
                choices = both.groupby(["table_id", "slot"], observed=True)["symbol"].agg(lambda v: "|".join(sorted(map(str, v))))
                layout_choices = np.full(len(s), np.nan, dtype=object)  # as a reindex leaves a key it lacks
                layout_choices[rows] = choices.reindex(key).to_numpy()
                # Held as objects, as where no slot is listed twice: pandas would make text of a
                # million objects first (90 ms).
                s["layout_choices"] = pd.Series(layout_choices, index=s.index, dtype=object, copy=False)
                recorded = pd.MultiIndex.from_arrays([key.get_level_values(0), key.get_level_values(1), on["symbol"]])
                among = np.zeros(len(s), dtype=bool)
                among[rows] = recorded.isin(pd.MultiIndex.from_frame(both))
                s["symbol_among_choices"] = among
            else:
                s["layout_choices"] = None
                s["symbol_among_choices"] = False
        else:
            s["layout_symbol"] = np.nan
            s["layout_code"] = np.full(len(s), -1, dtype=np.int8)
            s["layout_choices"] = None
            s["symbol_among_choices"] = False
        if c.has("tables"):
            s = join_on_key(s, c.frame("tables"), "table_id", "table_id", ["min_cents", "max_cents"])
        else:
            s["min_cents"] = np.nan
            s["max_cents"] = np.nan
        return s

    return ctx.prepared("wheel_spins", build)  # type: ignore[return-value]


def _stopped_on(slots: pd.DataFrame, spins: pd.DataFrame) -> np.ndarray:
    """Which spins stopped on one of `slots` (a layout's rows: table and slot)."""
    return _at_stop_slot(slots, np.True_, spins, np.False_)


def _layout_codes(layout: pd.DataFrame, spins: pd.DataFrame) -> np.ndarray:
    """The symbol of the slot each spin stopped on, from `layout` (one symbol a table and slot), as
    its code among SYMBOLS (the layout's symbol is of that enum); -1 without a stop slot or a layout."""
    return _at_stop_slot(layout, codes_in(layout["symbol"], SYMBOLS), spins, np.int64(-1))


def _at_stop_slot(slots: pd.DataFrame, values: np.ndarray | np.generic, spins: pd.DataFrame, missing: np.generic) -> np.ndarray:
    """For each spin, the value `values` gives the row of `slots` (a layout's rows: table and slot)
    for the slot it stopped on; `missing` without a stop slot or such a row. A table of slots a row
    each, looked up by position (a MultiIndex of 1M spins' tables and slots took 0.1 s)."""
    tables = slots["table_id"].drop_duplicates()
    grid = np.full(len(tables) * SLOTS, missing)
    grid[positions(slots["table_id"], tables) * SLOTS + slots["slot"].to_numpy(dtype=np.int64)] = values
    table = positions(spins["table_id"], tables)
    slot = spins["stop_slot"].astype("float64").to_numpy()
    known = (table >= 0) & ~np.isnan(slot)
    out = np.full(len(spins), missing)
    out[known] = grid[table[known] * SLOTS + slot[known].astype(np.int64)]
    return out


def _bets(ctx: Context) -> pd.DataFrame:
    def build(c: Context) -> pd.DataFrame:
        # Only what the bet rules read: every column is copied to each of millions of bets.
        # (the table's limits, which WHL211 alone reads, it gathers itself)
        cols = ["table_id", "ts_no_more_bets", "winning_code", "settled", "prev_ts_settled"]
        spins = _spins(c)
        # Payouts are judged by the slot the wheel stopped on; a wrong recorded symbol is WHL206's.
        # As a code among the bets' symbols: a bet is judged by comparing codes, no text per bet;
        # the spin's table as a category likewise.
        spins = spins.assign(winning_code=_winning_codes(spins), table_id=as_categories(spins["table_id"]))
        at = c.round_positions("wheel_bets", "spin_id", "wheel_spins", spins)
        b = join_on_key(c.frame("wheel_bets"), spins, "spin_id", "spin_id", cols, how="inner", position="spin_pos", at=at)
        b["ts"] = b["ts_no_more_bets"]  # a spin's ts is its ts_no_more_bets: one gathered column, not two
        return b

    return ctx.prepared("wheel_bets", build)  # type: ignore[return-value]


def _winning_codes(spins: pd.DataFrame) -> np.ndarray:
    """Each spin's winning symbol as its code among SYMBOLS (int8, -1: none): the slot's symbol in
    the layout, or the recorded symbol where the layout gives none. The layout's own codes, the
    recorded text looked up only for the spins without them (1M spins: 34 -> ~3 ms)."""
    code = spins["layout_code"].to_numpy(dtype=np.int8, copy=True)
    missing = code < 0
    if missing.any():
        code[missing] = codes_in(spins["symbol"][missing], SYMBOLS)
    return code


def _paid(f: pd.DataFrame) -> pd.Series:
    return "payout " + f["payout_cents"].astype(str) + ", stake returned " + f["stake_returned"].astype(str).str.lower()


@rule(
    "WHL201", "wheel-layout", "critical", "wheel_of_fortune", (EP, "II", "Conté dos cercles concèntrics compostos de 54 caselles"),
    tables=("wheel_layouts",), params=("wheel_layout",),
    en="The wheel's layout is not the regulated 54 slots",
    ca="La distribució de la roda no és la de 54 caselles reglamentària",
)
def wheel_layout(ctx: Context) -> pd.DataFrame:
    """A table's layout has 54 slots (0–53, each once) holding 24 × `24`, 15 × `15`, 7 × `7`,
    4 × `4`, 2 × `2`, 1 × `figura_1` and 1 × `figura_2` (`wheel_layout`). Reported on the table.
    A table some of whose layout rows were quarantined (LOG001) is not judged: what was read of it
    is not its layout.

    Passes: the standard wheel. Fails: 25 slots of `24` and 14 of `15`; slot 17 twice.
    """
    lay = ctx.frame("wheel_layouts")
    if lay.empty:
        return no_hits()
    wanted = ctx.param("wheel_layout")
    counts = lay.groupby(["table_id", "symbol"], observed=True).size().unstack(fill_value=0)
    counts = counts.reindex(columns=list(wanted), fill_value=0)  # type: ignore[call-overload]
    slots = lay.groupby("table_id", observed=True)["slot"].agg(["nunique", "size"])
    want = pd.Series(wanted, dtype="int64")  # type: ignore[arg-type]
    bad_counts = (counts != want).any(axis=1)
    bad_slots = (slots["nunique"] != 54) | (slots["size"] != 54)
    bad = (bad_counts | bad_slots.reindex(counts.index, fill_value=True)) & _layouts_whole(ctx, counts.index.to_series())
    if not bad.any():
        return no_hits()
    # The counts as text for the tables reported alone, a symbol at a time (row by row, 675 layouts: 20 ms).
    shown = counts[bad.to_numpy()]
    observed = pd.Series("", index=shown.index, dtype=object)
    for i, symbol in enumerate(shown.columns):
        observed = observed + ("" if i == 0 else " ") + f"{symbol}×" + shown[symbol].astype(str)
    observed = observed + " (" + slots["size"].reindex(shown.index).astype(str) + " rows)"
    expected = " ".join(f"{k}×{v}" for k, v in want.items()) + " (54 rows)"
    first = lay.drop_duplicates("table_id").set_index("table_id")
    sel = first.loc[bad[bad].index].reset_index()
    return hits(sel, round_col=None, ts_col=None, expected=expected, observed=sel["table_id"].map(observed))


@rule(
    "WHL202", "minimum-revolutions", "critical", "wheel_of_fortune", (EP, "V", "la roda fa com a mínim 4 revolucions completes"),
    tables=SPINS, params=("min_revolutions",),
    en="A spin with too few revolutions was settled instead of void",
    ca="S'ha liquidat una jugada amb menys revolucions de les exigides en lloc d'anul·lar-la",
)
def minimum_revolutions(ctx: Context) -> pd.DataFrame:
    """A settled spin made at least `min_revolutions` full revolutions after the second impulse;
    one that did not must be void.

    Passes: 5.2 revolutions, settled; 3.1 revolutions, void. Fails: 3.9 revolutions, settled.
    """
    s = _spins(ctx)
    need = ctx.param("min_revolutions", s["ts"])
    bad = s["settled"] & (s["revolutions"] < need)
    return hits(s, bad, round_col="spin_id", expected=lambda f: ">= " + pd.Series(need, index=s.index, copy=False)[f.index].astype(str), observed=s["revolutions"])


@rule(
    "WHL203", "pointer-on-pivot", "critical", "wheel_of_fortune", (EP, "V", "Si la peça que reté s'atura sobre el pivot entre dos caselles la jugada es considera nul·la"),
    tables=SPINS,
    en="A spin whose pointer stopped on a pivot was settled instead of void",
    ca="S'ha liquidat una jugada amb la peça sobre un pivot en lloc d'anul·lar-la",
)
def pointer_on_pivot(ctx: Context) -> pd.DataFrame:
    """A spin whose pointer stopped on a pivot between two slots is void.

    Passes: on_pivot true, status void. Fails: on_pivot true, status settled.
    """
    s = _spins(ctx)
    return hits(s, s["on_pivot"] & s["settled"], round_col="spin_id", expected="void", observed="settled")


@rule(
    "WHL204", "obstruction", "critical", "wheel_of_fortune", (EP, "V", "si alguna persona o objecte obstaculitza el lliure moviment giratori de la roda"),
    tables=SPINS,
    en="An obstructed spin was settled instead of void",
    ca="S'ha liquidat una jugada obstaculitzada en lloc d'anul·lar-la",
)
def obstruction(ctx: Context) -> pd.DataFrame:
    """A spin during which a person or object hindered the wheel is void.

    Passes: obstructed true, status void. Fails: obstructed true, status settled.
    """
    s = _spins(ctx)
    return hits(s, s["obstructed"] & s["settled"], round_col="spin_id", expected="void", observed="settled")


@rule(
    "WHL205", "void-spin-settlement", "critical", "wheel_of_fortune", (EP, "V", "la jugada es considera nul·la, s'atura el joc i es reprèn el cicle complet"),
    tables=BETS,
    en="A bet on a void spin was paid or not returned",
    ca="Una aposta d'una jugada nul·la s'ha pagat o no s'ha retornat",
)
def void_spin_settlement(ctx: Context) -> pd.DataFrame:
    """On a void spin every bet is paid nothing and its stake returned.

    Passes: void spin, payout 0, stake_returned true. Fails: void spin, payout 500.
    """
    b = _bets(ctx)
    void = ~b["settled"]
    bad = void & ((b["payout_cents"] != 0) | ~b["stake_returned"])
    return hits(b, bad, round_col="spin_id", item_col="bet_id", expected="payout 0, stake returned true", observed=_paid)


@rule(
    "WHL206", "winning-symbol", "critical", "wheel_of_fortune", (EP, "V", "la peça que la reté assenyala una determinada casella i, per tant, la combinació guanyadora"),
    tables=("wheel_spins", "wheel_layouts"),
    en="The recorded winning symbol is not the one at the stop slot",
    ca="El símbol guanyador registrat no és el de la casella on s'ha aturat",
)
def winning_symbol(ctx: Context) -> pd.DataFrame:
    """On a settled spin, the recorded symbol is the layout's symbol at stop_slot (a settled spin
    with no stop_slot, or a slot the layout lacks, is reported too). A slot the layout lists with
    two symbols (WHL201's finding) accepts either: the log cannot say which one the wheel bears.
    A slot missing from a layout some of whose rows were quarantined (LOG001) is not judged.

    Passes: stop_slot 12, layout slot 12 = `7`, symbol `7`. Fails: symbol `2`.
    """
    s = _spins(ctx)
    bad = s["settled"] & (s["symbol"] != s["layout_symbol"]).fillna(True) & ~s["symbol_among_choices"]
    # The slot's row may be the one quarantined: no symbol to compare with.
    unread = s["stop_slot"].notna() & s["layout_symbol"].isna() & s["layout_choices"].isna()
    if unread.any():
        bad &= ~(unread & ~_layouts_whole(ctx, s["table_id"]))

    def expected(f: Offending) -> pd.Series:
        # Of the offending spins only: over every spin, the layout's symbol or its choices (text
        # and Python objects) took 70 ms a million spins.
        symbol = f["layout_symbol"]
        return symbol.where(symbol.notna(), f["layout_choices"])

    return hits(s, bad, round_col="spin_id", expected=expected, observed=s["symbol"])


@rule(
    "WHL207", "payout-odds", "critical", "wheel_of_fortune", (EP, "V", "taula de premis es paga als guanyadors 1 per 1 2 per 1 5 per 1 10 per 1 20 per 1 45 per 1"),
    tables=BETS, params=("wheel_odds",),
    en="The bet was not paid by the table of prizes",
    ca="L'aposta no s'ha pagat segons la taula de premis",
)
def payout_odds(ctx: Context) -> pd.DataFrame:
    """On a settled spin, a winning bet (its symbol is the one at the stop slot in the table's layout,
    or the recorded symbol where there is no layout or it lists the slot twice) is paid stake × 1, 2, 5, 10, 20
    or 45 (`24`, `15`, `7`, `4`, `2`, figures; `wheel_odds`) and its stake returned; a losing bet is
    paid nothing and not returned; a bet withdrawn before ts_no_more_bets is not in play (paid
    nothing, stake returned).

    Passes: 1,000 on `7` wins → payout 5,000, returned. Fails: payout 4,000; a loser returned.
    """
    b = _bets(ctx)
    withdrawn = pd.Series(instants(b["ts_withdrawn"]) < instants(b["ts_no_more_bets"]), index=b.index, copy=False)
    wins = pd.Series(is_code(b["symbol"], SYMBOLS, b["winning_code"].to_numpy()), index=b.index, copy=False) & ~withdrawn
    pay = ctx.payouts("wheel_odds", b["symbol"], b["stake_cents"], wins.to_numpy(), b["ts"])
    back = wins | withdrawn
    # As numpy's arrays: every column here is required, or worked out, and none is missing.
    wrong = (b["payout_cents"].to_numpy() != pay.to_numpy()) | (b["stake_returned"].to_numpy(dtype=bool) != back.to_numpy(dtype=bool))
    bad = b["settled"].to_numpy(dtype=bool) & wrong
    def expected(f: pd.DataFrame) -> pd.Series:
        return "payout " + pay[f.index].astype(str) + ", stake returned " + back[f.index].astype(str).str.lower()

    return hits(b, bad, round_col="spin_id", item_col="bet_id", expected=expected, observed=_paid)


@rule(
    "WHL208", "late-bet", "critical", "wheel_of_fortune", (EP, "V", "A partir d'aquest moment no s'admeten ni noves apostes ni que aquestes apostes es toquin ni es retirin"),
    tables=BETS,
    en="A bet was placed, touched or withdrawn after \"no hi van més apostes\"",
    ca="S'ha fet, tocat o retirat una aposta després de \"no hi van més apostes\"",
)
def late_bet(ctx: Context) -> pd.DataFrame:
    """No bet is placed, touched or withdrawn at or after ts_no_more_bets.

    Passes: placed 21:00:05, no more bets 21:00:20. Fails: placed 21:00:20; withdrawn 21:00:25.
    """
    b = _bets(ctx)
    closed = instants(b["ts_no_more_bets"])
    late = (instants(b["ts_placed"]) >= closed) | (instants(b["ts_withdrawn"]) >= closed)

    def observed(f: Offending) -> pd.Series:
        # The time that broke the rule, worked out for the offending bets alone: its placing where
        # that was late, else its withdrawal.
        placed = f["ts_placed"]
        return iso(placed.where(placed >= f["ts_no_more_bets"], f["ts_withdrawn"]))

    return hits(b, late, round_col="spin_id", item_col="bet_id",
                expected=lambda f: "before " + iso(f["ts_no_more_bets"]), observed=observed)


@rule(
    "WHL209", "bet-during-payout", "major", "wheel_of_fortune", (EP, "V", "No s'admet l'emplaçament d'apostes durant el pagament de les apostes guanyadores"),
    tables=BETS,
    en="A bet was placed while the previous spin was still being paid",
    ca="S'ha fet una aposta mentre encara es pagava la jugada anterior",
)
def bet_during_payout(ctx: Context) -> pd.DataFrame:
    """No bet of a spin is placed before ts_settled of the table's previous spin.

    Passes: previous spin settled 21:00:50, bet placed 21:00:55. Fails: bet placed 21:00:45.
    """
    b = _bets(ctx)
    bad = instants(b["ts_placed"]) < instants(b["prev_ts_settled"])
    return hits(b, bad, round_col="spin_id", item_col="bet_id",
                expected=lambda f: at_least(f["prev_ts_settled"]), observed=lambda f: iso(f["ts_placed"]))


@rule(
    "WHL210", "payout-order", "minor", "wheel_of_fortune", (EP, "V", "Les apostes guanyadores es paguen de menor a major"),
    tables=BETS,
    en="Winning bets were not paid from the smallest payout to the largest",
    ca="Les apostes guanyadores no s'han pagat de menor a major",
)
def payout_order(ctx: Context) -> pd.DataFrame:
    """The winning bets of a settled spin (payout > 0), taken in paid_seq order, have payouts that
    never decrease. Bets given the same paid_seq, or none (taken as paid last), are not ordered
    among themselves. Reported on the spin.

    Passes: paid_seq 1, 2, 3 with payouts 500, 2,000, 2,000. Fails: 2,000 then 500.
    """
    b = _bets(ctx)
    # The winners' three columns gathered as arrays by position, not as a frame cut by a mask of
    # the 4M bets (`.loc`: 35 of the rule's 95 ms).
    payouts, no_payout = masked_numbers(b["payout_cents"])
    paid = b["settled"].to_numpy(dtype=bool) & (payouts > 0)
    w = np.flatnonzero(paid & ~no_payout if no_payout is not None else paid)
    if not len(w):
        return no_hits()
    # By spin position, then paid_seq (unrecorded last): integers, no id hashed.
    at = b["spin_pos"].to_numpy()[w]
    steps, no_step = masked_numbers(b["paid_seq"])
    seq = steps[w].astype("float64")
    seq[np.isnan(seq) if no_step is None else no_step[w]] = np.inf
    finite = np.isfinite(seq)
    last = seq[finite].max() + 1 if finite.any() else 0.0
    order = order_by(at, np.where(finite, seq, last))
    at, seq, payout = at[order], seq[order], payouts[w].astype("float64")[order]
    # Bets paid at one step (a paid_seq given twice, or none) are not ordered among themselves:
    # between two steps of a spin, the largest payout of the first must not exceed the smallest of
    # the next.
    step = np.flatnonzero(np.r_[True, (at[1:] != at[:-1]) | (seq[1:] != seq[:-1])])
    most, least, spin = np.maximum.reduceat(payout, step), np.minimum.reduceat(payout, step), at[step]
    bad = np.unique(spin[1:][(spin[1:] == spin[:-1]) & (least[1:] < most[:-1])])
    if not len(bad):
        return no_hits()
    s = _spins(ctx)
    sel = s.iloc[bad]
    # The flagged spins' payouts in paid order, a step's smallest first: sorted by spin, each
    # spin's are one run, and the runs come in the order of `bad`.
    flagged = np.zeros(len(s), dtype=bool)
    flagged[bad] = True
    mine = flagged[at]  # np.isin sorted the million winners' spins for a few flagged ones
    shown = np.lexsort((payout[mine], seq[mine], at[mine]))
    spin, paid = at[mine][shown], payout[mine][shown].astype(np.int64).astype(str)
    starts = np.flatnonzero(spin[1:] != spin[:-1]) + 1
    observed = [" ".join(run) for run in np.split(paid, starts)]
    return hits(sel, round_col="spin_id", expected="payouts in increasing order", observed=pd.Series(observed, index=sel.index, dtype=object))


@rule(
    "WHL211", "stake-limits", "major", "wheel_of_fortune", (EP, "V", "El mínim i màxim de les apostes"),
    tables=BETS + ("tables",),
    en="The stake is outside the table's limits",
    ca="L'aposta és fora dels límits de la taula",
)
def stake_limits(ctx: Context) -> pd.DataFrame:
    """min_cents ≤ stake_cents ≤ max_cents of the bet's table (no maximum recorded: only the minimum).

    Passes: limits 500–50,000, stake 1,000. Fails: stake 400; stake 60,000.
    """
    b = _bets(ctx)
    # The spin's table limits for each bet, gathered here alone: not held beside 4M bets for the game,
    # and as numpy's numbers and masks, not pandas' nullable arrays (their gathers and comparisons
    # with missing values: 60 of the rule's 65 ms).
    at, s = b["spin_pos"].to_numpy(), _spins(ctx)
    stake, no_stake = masked_numbers(b["stake_cents"])
    bad = np.zeros(len(b), dtype=bool)
    for column, outside in (("min_cents", np.less), ("max_cents", np.greater)):
        limit, no_limit = masked_numbers(s[column])
        beyond = outside(stake, limit[at])  # a missing limit held as NaN: no comparison holds
        bad |= beyond & ~no_limit[at] if no_limit is not None else beyond
    if no_stake is not None:
        bad &= ~no_stake

    def limits(f: Offending) -> pd.Series:
        spins = at[f.positions]
        # A limit not recorded is left empty ("500–": no maximum), not the whole text missing.
        minimum, maximum = (pd.Series(s[column].array.take(spins), index=f.index).astype("Int64").astype(str).fillna("") for column in ("min_cents", "max_cents"))
        return minimum + "–" + maximum

    return hits(b, bad, round_col="spin_id", item_col="bet_id", expected=limits, observed=b["stake_cents"])


@rule(
    "WHL212", "second-impulse", "major", "wheel_of_fortune", (EP, "V", "Abans que la roda s'aturi, el crupier li dona un nou impuls alhora que anuncia no hi van més apostes"),
    tables=SPINS,
    en="The spin's times are out of order (opening, second impulse, stop, settlement)",
    ca="Els temps de la jugada no segueixen l'ordre (obertura, segon impuls, aturada, liquidació)",
)
def second_impulse(ctx: Context) -> pd.DataFrame:
    """ts_open < ts_no_more_bets < ts_stop ≤ ts_settled: the second impulse comes before the wheel
    stops.

    Passes: 21:00:00, 21:00:20, 21:00:40, 21:00:50. Fails: no more bets at 21:00:45, after the stop.
    """
    s = _spins(ctx)
    ok = (s["ts_open"] < s["ts_no_more_bets"]) & (s["ts_no_more_bets"] < s["ts_stop"]) & (s["ts_stop"] <= s["ts_settled"])
    def observed(f: pd.DataFrame) -> pd.Series:
        t = [f[c].dt.strftime("%H:%M:%S") for c in ("ts_open", "ts_no_more_bets", "ts_stop", "ts_settled")]
        return t[0] + " < " + t[1] + " < " + t[2] + " <= " + t[3]

    return hits(s, ~ok, round_col="spin_id", expected="open < no more bets < stop <= settled", observed=observed)
