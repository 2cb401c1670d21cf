"""Chemin de fer, epígraf 8 (CDF101–CDF134).

Every check reads `cdf_replay.coups(ctx)`: the coups of each table in time order, replayed from their
cards, with the table's limits, the stake aggregates and the table's previous coup alongside.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pyarrow as pa

from auditor.frames import among, cumsum_in_runs, differs_from_previous, equal, in_sorted, masked_numbers, positions, run_starts, sums_by, unique_inverse
from auditor.rules import cdf_replay as cdf
from auditor.rules.base import Context, Offending, at_least, hits, no_hits, rule

COUPS = ("cdf_coups",)
STAKES = ("cdf_coups", "cdf_stakes")
EP = "8"


def round_share(base: np.ndarray, rate: object, mode: str, unit: int) -> np.ndarray:
    """rate × base (integer cents) rounded to `unit` cents, in exact integer arithmetic (no float
    rounding drift). `rate`: one value, or a Series of the value in force on each row."""
    if not isinstance(rate, pd.Series):
        return _rounded_share(base, rate, mode, unit)
    out = np.zeros(len(base), dtype=np.int64)
    for value in rate.unique():
        rows = (rate == value).to_numpy(dtype=bool)
        out[rows] = _rounded_share(base[rows], value, mode, unit)
    return out


def _rounded_share(base: np.ndarray, rate: object, mode: str, unit: int) -> np.ndarray:
    frac = Fraction(str(rate))
    den = frac.denominator * unit
    q, r = np.divmod(base.astype(np.int64, copy=False) * frac.numerator, den)
    if mode == "half_up":
        q = q + (2 * r >= den)
    elif mode == "half_even":
        q = q + ((2 * r > den) | ((2 * r == den) & (q % 2 == 1)))
    elif mode == "up":
        q = q + (r > 0)
    return q * unit


def _drew(column: str):
    def observed(f: pd.DataFrame) -> pd.Series:
        return pd.Series(np.where(f[column], "drew", "stood"), index=f.index)

    return observed


# --- Money -------------------------------------------------------------------------------------------


@rule(
    "CDF101", "cagnotte-rate", "critical", "chemin_de_fer", (EP, "V", "deducció en benefici de l'establiment 5 per 100 quantitats guanyades pel banquer"),
    tables=COUPS, params=("cagnotte_rate", "cagnotte_rounding", "cagnotte_rounding_unit_cents", "cagnotte_tolerance_cents", "cagnotte_on_abonaments"),
    en="The cagnotte is not the regulated share of the banker's win",
    ca="La cagnotte no és la part reglamentària del guany del banquer",
)
def cagnotte_rate(ctx: Context) -> pd.DataFrame:
    """A settled coup the banker won (by its cards) carries a deduction equal to
    `cagnotte_rate × banker_result_cents`, rounded as `cagnotte_rounding` says to
    `cagnotte_rounding_unit_cents`, within `cagnotte_tolerance_cents`. With
    `cagnotte_on_abonaments = true` the base also counts what abonaments won. A recorded result
    below zero on a coup the cards gave the banker is a base of 0: that money is CDF110's and
    CDF128's. With `cagnotte_on_abonaments = true` a coup is not judged when a stake of the coup
    was left out of the audit (quarantined, LOG001, or its id repeated, LOG002), or the bundle
    holds no stakes.

    Passes: banker wins 10,050 → cagnotte 503 (5 %, half up). Fails: banker wins 10,000 → cagnotte 600.
    """
    c = cdf.coups(ctx)
    # numpy's integers throughout, not pandas' Series (1M coups: the rule 60 -> 25 ms). A coup the
    # banker won is settled, and its result was required: its missing (NA) cells are other coups'.
    won = (c["settled"] & (c["true_outcome"] == "banker")).to_numpy(dtype=bool)
    result, _ = masked_numbers(c["banker_result_cents"])
    base = np.where(won, np.maximum(result, 0), 0).astype(np.int64)
    on_abon = np.asarray(ctx.param("cagnotte_on_abonaments", c["ts"]), dtype=bool)
    base = base + np.where(on_abon, c["abonament_won"].to_numpy(), 0)
    mode = str(ctx.param("cagnotte_rounding"))
    unit = int(ctx.param("cagnotte_rounding_unit_cents"))  # type: ignore[call-overload]
    expected = round_share(base, ctx.param("cagnotte_rate", c["ts"]), mode, unit)
    tolerance = np.asarray(ctx.param("cagnotte_tolerance_cents", c["ts"]))
    cagnotte, _ = masked_numbers(c["cagnotte_cents"])
    # A base that adds the abonaments' winnings needs every stake of the coup.
    bad = won & (c["stakes_known"].to_numpy(dtype=bool) | ~on_abon) & (np.abs(cagnotte - expected) > tolerance)
    return hits(c, bad, round_col="coup_id", expected=pd.Series(expected, index=c.index, copy=False), observed=c["cagnotte_cents"])


@rule(
    "CDF102", "cagnotte-without-win", "critical", "chemin_de_fer", (EP, "V, VII", "Si el guanyador ha estat el banquer, el crupier fa la deducció"),
    tables=COUPS,
    en="A cagnotte was taken on a coup the banker did not win",
    ca="S'ha pres cagnotte en una jugada que el banquer no ha guanyat",
)
def cagnotte_without_win(ctx: Context) -> pd.DataFrame:
    """No deduction when the banker did not win: a tie, a punt's win (by the cards) or a void coup.

    Passes: punt wins, cagnotte 0. Fails: tie (7 against 7), cagnotte 50.
    """
    c = cdf.coups(ctx)
    not_won = ~c["settled"] | (c["true_outcome"] != "banker")
    bad = not_won & (c["cagnotte_cents"] != 0)
    return hits(c, bad, round_col="coup_id", expected=0, observed=c["cagnotte_cents"])


@rule(
    "CDF103", "bank-maximum", "major", "chemin_de_fer", (EP, "V", "El màxim de la banca ha de ser equivalent a 100 vegades el mínim"),
    tables=COUPS + ("tables",), params=("bank_max_multiple",),
    en="The bank in play exceeds its maximum",
    ca="La banca en joc supera el seu màxim",
)
def bank_maximum(ctx: Context) -> pd.DataFrame:
    """bank_cents ≤ `bank_max_multiple` × the table's point minimum, unless the table is
    `bank_unlimited`.

    Passes: minimum 1,000, bank 100,000. Fails: minimum 1,000, bank 100,100.
    """
    c = cdf.coups(ctx)
    limit = c["min_cents"] * ctx.param("bank_max_multiple", c["ts"])
    bad = (~c["bank_unlimited"] & (c["bank_cents"] > limit)).fillna(False)
    return hits(c, bad, round_col="coup_id", expected=lambda f: limit[f.index].astype("Int64").astype(object), observed=c["bank_cents"])


@rule(
    "CDF104", "bank-minimum", "major", "chemin_de_fer", (EP, "V", "el mínim de la banca no pot ser inferior al d'aquest"),
    tables=COUPS + ("tables",),
    en="The bank in play is below the point minimum",
    ca="La banca en joc és inferior al mínim del punt",
)
def bank_minimum(ctx: Context) -> pd.DataFrame:
    """bank_cents ≥ the table's point minimum (min_cents).

    Passes: minimum 1,000, bank 1,000. Fails: minimum 1,000, bank 900.
    """
    c = cdf.coups(ctx)
    bad = (c["bank_cents"] < c["min_cents"]).fillna(False)
    return hits(c, bad, round_col="coup_id", expected=lambda f: f["min_cents"].astype("Int64"), observed=c["bank_cents"])


@rule(
    "CDF105", "point-minimum", "major", "chemin_de_fer", (EP, "V", "mínim de punt quantitat mínima per poder jugar com a punt contra la banca"),
    tables=STAKES + ("tables",),
    en="A stake against the bank is below the point minimum",
    ca="Una aposta contra la banca és inferior al mínim del punt",
)
def point_minimum(ctx: Context) -> pd.DataFrame:
    """Every punt-side stake (punt, banc, banc_amb_la_taula, banc_seguit) is at least the table's
    point minimum. Abonaments, in favour of the bank, are not punts.

    Passes: minimum 1,000, punt 1,000. Fails: minimum 1,000, punt 500.
    """
    s = cdf.stakes(ctx)
    bad = (among(s["kind"], cdf.PUNT_SIDE) & (s["amount_cents"] < s["min_cents"])).fillna(False)
    return hits(s, bad, round_col="coup_id", item_col="stake_id", expected=lambda f: f["min_cents"].astype("Int64"), observed=s["amount_cents"])


@rule(
    "CDF106", "point-maximum", "major", "chemin_de_fer", (EP, "V, VI", "El màxim del punt quantitat màxima que pot exposar un jugador la que té la banca"),
    tables=STAKES,
    en="Stakes exceed what the bank covers",
    ca="Les apostes superen el que cobreix la banca",
)
def point_maximum(ctx: Context) -> pd.DataFrame:
    """Every stake is at most bank_cents (reported on the stake), and the punt-side stakes of a coup
    together are at most bank_cents plus the coup's abonaments (reported on the coup). The
    coup's total is not judged when a stake of the coup was left out of the audit (quarantined,
    LOG001, or its id repeated, LOG002), or the bundle holds no stakes.

    Passes: bank 10,000, punts 6,000 + 4,000. Fails: bank 10,000, one punt of 12,000; or punts
    8,000 + 4,000 with no abonament.
    """
    s = cdf.stakes(ctx)
    each = hits(s, s["amount_cents"] > s["bank_cents"], round_col="coup_id", item_col="stake_id", expected=s["bank_cents"], observed=s["amount_cents"])
    c = cdf.coups(ctx)
    cover = c["bank_cents"] + c["abonament_total"]
    total = hits(c, c["stakes_known"] & (c["punt_side_total"] > cover), round_col="coup_id", expected=cover, observed=c["punt_side_total"])
    return pd.concat([each, total], ignore_index=True)


@rule(
    "CDF107", "table-minimum-authorised", "major", "chemin_de_fer", (EP, "V", "ni pot ser inferior en cap cas al mínim autoritzat per l'autoritat competent"),
    tables=("tables",),
    en="The table's point minimum is below the minimum the CRAJ authorised",
    ca="El mínim del punt de la taula és inferior al mínim autoritzat pel CRAJ",
)
def table_minimum_authorised(ctx: Context) -> pd.DataFrame:
    """A chemin de fer table's min_cents is at least its authorised_min_cents (where recorded).

    Passes: min 1,000, authorised 1,000. Fails: min 500, authorised 1,000.
    """
    t = ctx.frame("tables")
    t = t[t["game"] == "chemin_de_fer"]
    bad = (t["min_cents"] < t["authorised_min_cents"]).fillna(False)
    return hits(t, bad, round_col=None, ts_col=None, expected=t["authorised_min_cents"], observed=t["min_cents"])


def _stint_starts(c: pd.DataFrame) -> np.ndarray:
    """For each coup, the position of the first coup of its stint: consecutive coups of a table with
    the same banker (a shoe carry-over continues it). A gap in coup_no does not end a stint: the
    same banker on both sides held the bank."""
    return run_starts(differs_from_previous(c["table_id"]) | differs_from_previous(c["banker_id"]))


@rule(
    "CDF108", "voluntary-garage", "major", "chemin_de_fer", (EP, "V a)", "Garatge voluntari sempre que la seva suma superi 50 vegades el mínim del punt meitat de la banca a partir de la segona"),
    tables=COUPS + ("tables",), params=("voluntary_garage_multiple",),
    en="A voluntary garage was made without the right to it",
    ca="S'ha fet un garatge voluntari sense tenir-hi dret",
)
def voluntary_garage(ctx: Context) -> pd.DataFrame:
    """A `voluntary` garage is allowed when (a) the banker's winnings in the stint so far
    (Σ banker_result − cagnotte over the stint's coups up to this one) exceed
    `voluntary_garage_multiple` × the point minimum and the garage does not exceed them, or (b) from
    the banker's second coup of the stint on, the garage is at most half of
    `bank_cents + banker_result_cents − cagnotte_cents` (rounded down). A stint is the run of
    consecutive coups of a table with the same banker (a shoe carry-over continues it). A garage of
    0 cents is no garage, whatever garage_kind says. A garage is not judged once the stint so far
    has a coup missing from the log (a gap in coup_no, LOG005's; a quarantined coup, LOG001's), nor
    when the stint's first coup in the log kept a bank (`retained`, `shoe_carryover`) from a coup
    that is missing: the winnings and the coups of the stint before it are unknown.

    Passes: second coup, bank 10,000, won 10,000, cagnotte 500 → garage 9,750. Fails: first coup of
    the stint, garage 5,000 with winnings of 9,500 and minimum 1,000.
    """
    c = cdf.coups(ctx)
    starts = _stint_starts(c)
    # Where the stint lost a coup: a coup without its true predecessor, past the stint's first, or
    # its first when the bank came from that missing coup.
    first = starts == np.arange(len(c))
    kept_bank = among(c["bank_event"], ("retained", "shoe_carryover"))
    lost = ~c["has_prev"].to_numpy(dtype=bool) & (~first | kept_bank)
    unknown = cumsum_in_runs(lost.astype(np.int64), starts) > 0
    net = c["banker_result_cents"] - c["cagnotte_cents"]
    winnings = pd.Series(cumsum_in_runs(net.to_numpy(), starts), index=c.index, copy=False)
    position = np.arange(len(c)) - starts + 1
    multiple = ctx.param("voluntary_garage_multiple", c["ts"])
    rule_a = (winnings > c["min_cents"] * multiple).fillna(False) & (c["garage_cents"] <= winnings)
    half = (c["bank_cents"] + net) // 2
    rule_b = (position >= 2) & (c["garage_cents"] <= half)
    voluntary = (c["garage_kind"] == "voluntary").fillna(False) & (c["garage_cents"] > 0)
    bad = voluntary & ~(rule_a | rule_b) & ~unknown
    allowed = pd.Series(np.maximum(np.where(rule_a.to_numpy(), winnings, 0), np.where(position >= 2, half, 0)), index=c.index, copy=False)
    return hits(c, bad, round_col="coup_id", expected=lambda f: "<= " + allowed[f.index].astype(str), observed=c["garage_cents"])


@rule(
    "CDF109", "improper-garage", "major", "chemin_de_fer", (EP, "V c)", "Garatge impropi part de la banca que excedeix la quantitat màxima permesa"),
    tables=COUPS + ("tables",), params=("bank_max_multiple",),
    en="The bank left in play exceeds the maximum: the excess was not put in the garage",
    ca="La banca que queda en joc supera el màxim: l'excés no s'ha passat al garatge",
)
def improper_garage(ctx: Context) -> pd.DataFrame:
    """bank_after_cents ≤ `bank_max_multiple` × the point minimum, unless the table is
    `bank_unlimited`: what exceeds must go to the (improper) garage.

    Passes: minimum 1,000, bank after 100,000. Fails: minimum 1,000, bank after 104,500.
    """
    c = cdf.coups(ctx)
    limit = c["min_cents"] * ctx.param("bank_max_multiple", c["ts"])
    bad = (~c["bank_unlimited"] & (c["bank_after_cents"] > limit)).fillna(False)
    return hits(c, bad, round_col="coup_id", expected=lambda f: limit[f.index].astype("Int64").astype(object), observed=c["bank_after_cents"])


@rule(
    "CDF110", "bank-continuity", "critical", "chemin_de_fer", (EP, "V, VII", "Els guanys del banquer passen a formar part de la banca"),
    tables=COUPS,
    en="The bank's accounts do not add up",
    ca="Els comptes de la banca no quadren",
)
def bank_continuity(ctx: Context) -> pd.DataFrame:
    """On a settled coup, `banker_result_cents = −Σ result_cents` of its stakes, and
    `bank_after_cents = bank_cents + banker_result_cents − cagnotte_cents − garage_cents`. The
    first is not judged when a stake of the coup was left out of the audit (quarantined, LOG001,
    or its id repeated, LOG002), when the coup's own id is on two rows (its stakes may be either
    coup's), or when the bundle holds no stakes: the sum would not be the coup's (one unreadable
    stake made a clean coup's accounts look wrong).

    Passes: bank 10,000, stakes −6,000 and −4,000, result +10,000, cagnotte 500, garage 0, after
    19,500. Fails: the same with after 20,000.
    """
    c = cdf.coups(ctx)
    zero_sum = -c["stake_result_sum"]
    after = c["bank_cents"] + c["banker_result_cents"] - c["cagnotte_cents"] - c["garage_cents"]
    bad_sum = c["settled"] & c["stakes_known"] & (c["banker_result_cents"] != zero_sum)
    bad_after = c["settled"] & (c["bank_after_cents"] != after)
    def expected(f: pd.DataFrame) -> pd.Series:
        i = f.index
        return pd.Series(np.where(bad_sum[i], "banker_result_cents = " + zero_sum[i].astype(str), "bank_after_cents = " + after[i].astype(str)), index=i)

    def observed(f: pd.DataFrame) -> pd.Series:
        return pd.Series(np.where(bad_sum[f.index], f["banker_result_cents"].astype(str), f["bank_after_cents"].astype(str)), index=f.index)

    return hits(c, bad_sum | bad_after, round_col="coup_id", expected=expected, observed=observed)


@rule(
    "CDF111", "bank-never-decreased", "major", "chemin_de_fer", (EP, "V", "pot ser augmentat pel jugador però mai disminuïda"),
    tables=COUPS,
    en="The bank was decreased while the same banker kept it",
    ca="La banca s'ha disminuït mentre el mateix banquer la mantenia",
)
def bank_never_decreased(ctx: Context) -> pd.DataFrame:
    """On a coup whose bank_event is `retained` or `shoe_carryover`, bank_cents is at least the
    bank_after_cents of the table's previous coup: a bank may grow, never shrink.

    Passes: previous coup left 19,500, this coup's bank 19,500. Fails: this coup's bank 15,000.
    """
    c = cdf.coups(ctx)
    kept = among(c["bank_event"], ("retained", "shoe_carryover")) & c["has_prev"]
    bad = kept & (c["bank_cents"] < c["prev_bank_after_cents"]).fillna(False)
    return hits(c, bad, round_col="coup_id", expected=lambda f: at_least(f["prev_bank_after_cents"]), observed=c["bank_cents"])


@rule(
    "CDF112", "losing-banker-cedes", "major", "chemin_de_fer", (EP, "V", "El jugador pot retenir la banca mentre guanya però en el cas que perdi ha de cedir-la"),
    tables=COUPS, params=("losing_banker_no_carryover",),
    en="A banker who lost kept the bank",
    ca="Un banquer que ha perdut ha retingut la banca",
)
def losing_banker_cedes(ctx: Context) -> pd.DataFrame:
    """A banker who lost a coup (the punt won, by the cards) does not hold the bank on the table's
    next coup as `retained`, nor, with `losing_banker_no_carryover` (the default), carry it over into
    the next shoe as `shoe_carryover` (only the banker who won a shoe's last coup may continue, VII).

    Passes: banker loses; next coup `rotation` with another banker. Fails: next coup `retained`.
    """
    c = cdf.coups(ctx)
    carryover = (c["bank_event"] == "shoe_carryover") & ctx.param_array("losing_banker_no_carryover", c["ts"]).astype(bool)
    bad = c["prev_lost"] & ((c["bank_event"] == "retained") | carryover)
    return hits(c, bad, round_col="coup_id", expected="rotation", observed=c["bank_event"])


@rule(
    "CDF113", "first-bank-seat-1", "minor", "chemin_de_fer", (EP, "V", "La banca s'adjudica inicialment al jugador assegut davant del departament número 1"),
    tables=COUPS,
    en="The first bank of the game did not go to seat 1",
    ca="La primera banca de la partida no s'ha adjudicat al departament 1",
)
def first_bank_seat_1(ctx: Context) -> pd.DataFrame:
    """A coup with bank_event `initial` has banker_seat 1.

    Passes: initial, seat 1. Fails: initial, seat 3 (or a standing banker).
    """
    c = cdf.coups(ctx)
    bad = (c["bank_event"] == "initial") & (c["banker_seat"] != 1).fillna(True)
    return hits(c, bad, round_col="coup_id", expected=1, observed=c["banker_seat"])


@rule(
    "CDF114", "takeover-amount", "major", "chemin_de_fer", (EP, "V", "el jugador que agafa la banca ho ha de fer, com a mínim, amb la mateixa quantitat"),
    tables=COUPS,
    en="The bank was taken over for less than the bank that was passed",
    ca="La banca s'ha pres per menys que la banca passada",
)
def takeover_amount(ctx: Context) -> pd.DataFrame:
    """When the table's previous coup was not lost by its banker (a voluntary pass) and this coup's
    bank_event is `rotation`, `auction` or `reacquired`, bank_cents ≥ the previous coup's
    bank_after_cents.

    Passes: banker wins leaving 20,000 and passes; the next banker starts with 20,000. Fails: 15,000.
    """
    c = cdf.coups(ctx)
    passed = c["has_prev"] & ~c["prev_lost"] & among(c["bank_event"], ("rotation", "auction", "reacquired"))
    bad = passed & (c["bank_cents"] < c["prev_bank_after_cents"]).fillna(False)
    return hits(c, bad, round_col="coup_id", expected=lambda f: at_least(f["prev_bank_after_cents"]), observed=c["bank_cents"])


# --- Table and shoe ---------------------------------------------------------------------------------


@rule(
    "CDF120", "minimum-players", "major", "chemin_de_fer", (EP, "VII", "és imprescindible que hi hagi com a mínim quatre jugadors a la taula"),
    tables=COUPS, params=("min_players",),
    en="Fewer players at the table than the game requires",
    ca="Hi ha menys jugadors a la taula dels que exigeix el joc",
)
def minimum_players(ctx: Context) -> pd.DataFrame:
    """players_seated ≥ `min_players` at every coup, settled or void.

    Passes: 5 seated. Fails: 3 seated.
    """
    c = cdf.coups(ctx)
    need = ctx.param("min_players", c["ts"])
    return hits(c, c["players_seated"] < need, round_col="coup_id", expected=need if not isinstance(need, pd.Series) else need, observed=c["players_seated"])


@rule(
    "CDF121", "six-decks", "critical", "chemin_de_fer", (EP, "II.1", "S'utilitzen sis baralles de 52 cartes"),
    tables=COUPS, params=("decks",),
    en="The shoe dealt more cards than six decks hold",
    ca="El sabot ha donat més cartes de les que tenen sis baralles",
)
def six_decks(ctx: Context) -> pd.DataFrame:
    """Within a shoe (table_id, shoe_id), taking coups in coup_no order, no card (rank and suit) is
    dealt more than `decks` times and no more than `decks` × 52 cards are dealt. Every coup that
    deals a card beyond its last copy, or a card beyond the shoe's size, is reported.

    Passes: a shoe of 70 coups. Fails: the seventh K♥ of a shoe; the 313th card.
    """
    c = cdf.coups(ctx)
    if c.empty:
        return no_hits()
    # The cards as the replay parsed them: six small integer columns sorted, not the hands' text.
    order = cdf.in_shoe_order(c, cdf.CARD_CODES)
    slots = [order[name].to_numpy() for name in cdf.CARD_CODES]  # a card code a coup each, -1 = no card
    # Coups are sorted by shoe, so each shoe's cards are one contiguous run.
    new_shoe = ~cdf.same_shoe_as_previous(order).to_numpy(dtype=bool)
    small = len(order) * 53 < 2**31
    index = np.int32 if small else np.int64
    shoe = np.cumsum(new_shoe, dtype=index) - 1
    in_force = ctx.param("decks", order["ts"])
    decks = in_force.to_numpy() if isinstance(in_force, pd.Series) else np.asarray(in_force)  # a coup's (one value: never changed)
    # Worked out a coup at a time, then card by card for the few coups that may break a limit: a card
    # a shoe holds more often than the fewest decks in force, or a coup past the shoe's size. Arrays
    # of a card each (6M cards a million coups) cost this rule most of its time in fresh memory, so
    # the cards are counted a slot (a column of a card a coup) at a time.
    dealt: np.ndarray = np.zeros(len(order), dtype=index)
    for codes_of_slot in slots:
        np.add(dealt, codes_of_slot >= 0, out=dealt)
    before = cumsum_in_runs(dealt, run_starts(new_shoe)) - dealt  # cards the shoe dealt before each coup
    shoes = len(shoe) and int(shoe[-1]) + 1
    # 53 bins a shoe: a bin for no card (code -1), then its 52 cards, so that a slot's bin is its
    # card code past its shoe's first card bin, dealt or not, with no mask to apply.
    first_bin = shoe.astype(np.intp) * 53 + 1

    def bins(j: int) -> np.ndarray:
        """The bin of the card each coup dealt in slot `j`: its shoe's and its card's."""
        return first_bin + slots[j]

    held = np.zeros(shoes * 53, dtype=np.intp)
    for j in range(len(slots)):
        held += np.bincount(bins(j), minlength=shoes * 53)
    often = held > np.min(decks)
    often[::53] = False  # no card is never one too many
    suspect_coup = np.zeros(len(order), dtype=bool)  # a coup dealing a card its shoe holds too often
    if often.any():
        for j in range(len(slots)):
            suspect_coup |= often[bins(j)]
    coups = np.flatnonzero(suspect_coup | (before + dealt > decks * 52))
    if not len(coups):
        return no_hits()
    # The cards of those coups, in dealing order (a coup's punt cards, then its banker's).
    codes = np.stack([codes_of_slot[coups] for codes_of_slot in slots], axis=1)  # the coups' × 6, -1 = no card
    key = first_bin[coups, None] + codes
    suspect = often[key]  # every copy of a card some shoe holds more often than the fewest decks
    theirs = codes >= 0
    at_coup, slot = np.nonzero(theirs)
    rows = coups[at_coup]
    flat = codes[at_coup, slot]
    nth = before[rows] + np.cumsum(theirs, axis=1, dtype=index)[at_coup, slot]
    decks_of = decks[rows] if np.ndim(decks) else decks
    # The n-th copy of a suspect card within its shoe: every copy of it is a suspect, so counting among
    # them counts every copy dealt; any other card is within any limit.
    counted = np.flatnonzero(suspect[at_coup, slot])
    copies_at = np.ones(len(rows), dtype=np.int64)
    keys = key[at_coup[counted], slot[counted]]
    copies_at[counted] = pd.Series(keys).groupby(keys, sort=False).cumcount().to_numpy() + 1
    over_card = copies_at > decks_of
    over_shoe = nth > decks_of * 52
    over = np.flatnonzero(over_card | over_shoe)
    if not len(over):
        return no_hits()
    flagged = pd.DataFrame({"row": rows[over], "card": flat[over], "copies": copies_at[over], "nth": nth[over],
                            "oc": over_card[over], "os": over_shoe[over]})
    first = flagged.groupby("row", sort=True).first()
    names = np.array([r + s for r in cdf.RANKS for s in cdf.SUITS])
    decks_at = pd.Series(ctx.param_array("decks", order["ts"].iloc[first.index.to_numpy()]), index=first.index)
    expected = np.where(first["oc"], "<= " + decks_at.astype(str) + " × " + names[first["card"]], "<= " + (decks_at * 52).astype(str) + " cards")
    observed = np.where(first["oc"], first["copies"].astype(str) + " × " + names[first["card"]], first["nth"].astype(str) + " cards")
    sel = order.iloc[first.index.to_numpy()]
    return hits(sel, round_col="coup_id", expected=pd.Series(expected, index=sel.index), observed=pd.Series(observed, index=sel.index))


@rule(
    "CDF122", "stop-card", "major", "chemin_de_fer", (EP, "VII", "L'aparició d'aquesta carta determina el final de la partida i no es pot fer cap jugada més"),
    tables=COUPS,
    en="A coup was dealt after the stop card came out",
    ca="S'ha jugat una jugada després de sortir la carta-bloqueig",
)
def stop_card(ctx: Context) -> pd.DataFrame:
    """No coup of a shoe (table_id, shoe_id) comes after, in coup_no order, the coup in which the stop
    card came out; every later coup is reported.

    Passes: the stop card comes out in the shoe's last coup. Fails: two more coups after it.
    """
    order = cdf.in_shoe_order(cdf.coups(ctx), ["stop_card"])
    stop = order["stop_card"].to_numpy(dtype=np.int64)
    # Coups in shoe order: each shoe is a run of rows.
    seen = cumsum_in_runs(stop, run_starts(~cdf.same_shoe_as_previous(order).to_numpy()))
    bad = seen - stop > 0
    # A reported coup's shoe has a stop card before it: the latest first stop card of a shoe up to it.
    first = np.maximum.accumulate(np.where((stop == 1) & (seen == 1), np.arange(len(order)), 0)) if len(order) else stop
    stop_at = pd.Series(order["coup_no"].to_numpy()[first], index=order.index, copy=False)
    return hits(order, bad, round_col="coup_id", expected=lambda f: "no coup after coup " + stop_at[f.index].astype("Int64").astype(str), observed=order["coup_no"])


# --- Cards --------------------------------------------------------------------------------------------


@rule(
    "CDF123", "outcome", "critical", "chemin_de_fer", (EP, "VI", "Guanya el joc que té puntuació nou o la més acostada. Si hi ha empat la jugada es considera nul·la"),
    tables=COUPS,
    en="The recorded outcome is not the one the cards give",
    ca="El resultat registrat no és el que donen les cartes",
)
def outcome(ctx: Context) -> pd.DataFrame:
    """The recorded outcome of a settled coup is the one its cards give: the score nearer 9 wins
    (sum of card values modulo 10), equal scores are a tie.

    Passes: punt 9S 8H (7), banker 2C 3D (5) → player. Fails: the same recorded as banker.
    """
    c = cdf.coups(ctx)
    bad = c["settled"] & ~equal(c["outcome"], c["true_outcome"])
    return hits(c, bad, round_col="coup_id", expected=c["true_outcome"], observed=c["outcome"])


@rule(
    "CDF124", "naturals", "critical", "chemin_de_fer", (EP, "VI", "puntuació és de vuit o nou, les descobreix i abat el joc"),
    tables=COUPS,
    en="A third card was drawn although a side had a natural",
    ca="S'ha tret una tercera carta tot i que una part tenia un natural",
)
def naturals(ctx: Context) -> pd.DataFrame:
    """When either side has 8 or 9 with its first two cards, nobody draws a third card (any mode).
    Void coups are not judged here nor by CDF125–CDF127: the coup was annulled, and a misdeal is one
    reason to annul it; its cards still count in the shoe (CDF121).

    Passes: punt 9S 9H (8), banker 2C 3D; no third cards. Fails: the banker drew 4H.
    """
    c = cdf.coups(ctx)
    drew = c["player_drew"] | c["banker_drew"]
    bad = c["settled"] & c["natural"] & drew
    def observed(f: pd.DataFrame) -> pd.Series:
        return pd.Series(np.select([f["player_drew"] & f["banker_drew"], f["player_drew"]], ["both drew", "punt drew"], "banker drew"), index=f.index)

    return hits(c, bad, round_col="coup_id", expected="no third card", observed=observed)


@rule(
    "CDF125", "player-drawing", "major", "chemin_de_fer", (EP, "VI a)-c)", "Quan té 0, 1, 2, 3, o 4 ha de demanar carta. Quan té 5 pot optar. Quan té 6 o 7 s'ha de plantar"),
    tables=COUPS, params=("player_optional_5",),
    en="The punt did not follow the drawing rules",
    ca="El punt no ha seguit les regles de tirada",
)
def player_drawing(ctx: Context) -> pd.DataFrame:
    """In `rules` mode, without a natural, the punt draws on 0–4 and stands on 6–7; on 5 it may
    choose (`player_optional_5`).

    Passes: punt on 4 draws; punt on 5 stands. Fails: punt on 3 stands; punt on 6 draws.
    """
    c = cdf.coups(ctx)
    play = c["settled"] & (c["mode"] == "rules") & ~c["natural"]
    must = c["player_rule"]
    bad = play & (((must == cdf.DRAW) & ~c["player_drew"]) | ((must == cdf.STAND) & c["player_drew"]))
    def expected(f: pd.DataFrame) -> pd.Series:
        return pd.Series(np.where(f["player_rule"] == cdf.DRAW, "draw on ", "stand on ") + f["p2"].astype(str), index=f.index)

    return hits(c, bad, round_col="coup_id", expected=expected, observed=_drew("player_drew"))


@rule(
    "CDF126", "banker-drawing", "major", "chemin_de_fer", (EP, "VI", "regles per a la banca incloses en el joc de punto i banca, amb les dos excepcions"),
    tables=COUPS, params=("banker_optional_3_vs_9", "banker_optional_5_vs_4"),
    en="The banker did not follow the drawing tableau",
    ca="El banquer no ha seguit la taula de tirada",
)
def banker_drawing(ctx: Context) -> pd.DataFrame:
    """In `rules` mode, without a natural, the banker follows the punto-banco tableau: on 0–2 draw;
    3 draw unless the punt's third card is 8 (9 optional); 4 draw on 2–7; 5 draw on 5–7 (4
    optional); 6 draw on 6–7; 7 stand; if the punt stood, draw on 0–5 and stand on 6–7. A banker on
    0 who stands is CDF127's, not reported twice.

    Passes: banker 4, punt's third card 2 → draws. Fails: banker 6, punt stood → draws.
    """
    c = cdf.coups(ctx)
    play = c["settled"] & (c["mode"] == "rules") & ~c["natural"] & (c["b2"] != 0)
    must = c["banker_rule"]
    bad = play & (((must == cdf.DRAW) & ~c["banker_drew"]) | ((must == cdf.STAND) & c["banker_drew"]))
    def expected(f: pd.DataFrame) -> pd.Series:
        against = np.where(f["third_card"] >= 0, "against a " + f["third_card"].astype(str), "punt stood")
        return pd.Series(np.where(f["banker_rule"] == cdf.DRAW, "draw on ", "stand on ") + f["b2"].astype(str) + " " + against, index=f.index)

    return hits(c, bad, round_col="coup_id", expected=expected, observed=_drew("banker_drew"))


@rule(
    "CDF127", "banker-draws-on-baccarat", "major", "chemin_de_fer", (EP, "VI", "excepte quan té zero (bacarà); llavors és obligatori sol·licitar una tercera carta"),
    tables=COUPS,
    en="A banker on zero (baccarat) did not draw",
    ca="Un banquer amb zero (bacarà) no ha demanat carta",
)
def banker_draws_on_baccarat(ctx: Context) -> pd.DataFrame:
    """A banker with 0 on two cards draws a third card, in any mode, unless the punt has a natural.

    Passes: banker KS TD (0) draws. Fails: banker KS TD stands, punt on 6.
    """
    c = cdf.coups(ctx)
    bad = c["settled"] & (c["b2"] == 0) & ~c["natural"] & ~c["banker_drew"]
    return hits(c, bad, round_col="coup_id", expected="draw on 0", observed="stood")


@rule(
    "CDF128", "settlement", "critical", "chemin_de_fer", (EP, "VI, VII", "el crupier paga al guanyador"),
    tables=STAKES, params=("void_result_may_be_empty",),
    en="The stake was not settled at even money as the cards say",
    ca="L'aposta no s'ha liquidat a la par com diuen les cartes",
)
def settlement(ctx: Context) -> pd.DataFrame:
    """Each stake of a settled coup is paid even money as the cards say: punt-side stakes +amount
    when the punt wins, −amount when the banker wins, 0 on a tie; abonaments the opposite; every
    stake of a void coup 0. The log format requires result_cents on settled coups only: with
    `void_result_may_be_empty = true` an empty one on a void coup records no payment and passes.

    Passes: banker wins, punt of 5,000 → −5,000, abonament of 1,000 → +1,000. Fails: punt → −4,000.
    """
    s = cdf.stakes(ctx)
    sign = np.select([s["true_outcome"] == "player", s["true_outcome"] == "banker"], [1, -1], 0)
    sign = np.where(s["kind"] == "abonament", -sign, sign)
    sign = np.where(s["settled"], sign, 0)
    expected = s["amount_cents"] * sign
    # A stake of a settled coup without a result never gets here: the load quarantines it (LOG001).
    empty_ok = np.asarray(ctx.param("void_result_may_be_empty", s["ts"]), dtype=bool)
    bad = (s["result_cents"] != expected).fillna(True) & (s["result_cents"].notna() | (~s["settled"] & ~empty_ok))
    return hits(s, bad, round_col="coup_id", item_col="stake_id", expected=expected, observed=s["result_cents"])


@rule(
    "CDF129", "abonaments", "major", "chemin_de_fer", (EP, "VI", "Un cop coberta la banca ... abonar ... El nombre d'abonaments permès serà un màxim de tres"),
    tables=STAKES, params=("max_abonaments",),
    en="Abonaments beyond those allowed, or on a bank that was not covered",
    ca="Abonaments per sobre dels permesos, o sobre una banca no coberta",
)
def abonaments(ctx: Context) -> pd.DataFrame:
    """At most `max_abonaments` abonaments on a coup, and only on a coup where the bank was covered
    (a `banc` or `banc_seguit` stake). Whether the bank was covered is not judged when a stake
    of the coup was left out of the audit (quarantined, LOG001, or its id repeated, LOG002), or
    the bundle holds no stakes.

    Passes: a banc and two abonaments. Fails: four abonaments; one abonament with only punts.
    """
    c = cdf.coups(ctx)
    limit = ctx.param("max_abonaments", c["ts"])
    too_many = c["abonaments"] > limit
    uncovered = (c["abonaments"] > 0) & (c["bancs"] == 0) & c["stakes_known"]
    limits = pd.Series(limit, index=c.index)

    def expected(f: pd.DataFrame) -> pd.Series:
        return pd.Series(np.where(too_many[f.index], "<= " + limits[f.index].astype(str) + " abonaments", "a banc before any abonament"), index=f.index)

    def observed(f: pd.DataFrame) -> pd.Series:
        return pd.Series(np.where(too_many[f.index], f["abonaments"].astype(str) + " abonaments", "abonament without banc"), index=f.index)

    return hits(c, too_many | uncovered, round_col="coup_id", expected=expected, observed=observed)


@rule(
    "CDF130", "banc-amb-la-taula", "major", "chemin_de_fer", (EP, "VII", "banca amb la taula la quantitat de l'aposta ha de ser la meitat de la banca"),
    tables=STAKES,
    en="A banc amb la taula is not half the bank",
    ca="Una banca amb la taula no és la meitat de la banca",
)
def banc_amb_la_taula(ctx: Context) -> pd.DataFrame:
    """A `banc_amb_la_taula` stake is half the bank: bank_cents // 2.

    Passes: bank 10,001, stake 5,000. Fails: bank 10,000, stake 4,000.
    """
    s = cdf.stakes(ctx)
    half = s["bank_cents"] // 2
    bad = (s["kind"] == "banc_amb_la_taula") & (s["amount_cents"] != half)
    return hits(s, bad, round_col="coup_id", item_col="stake_id", expected=half, observed=s["amount_cents"])


@rule(
    "CDF131", "banc-amount", "major", "chemin_de_fer", (EP, "V", "Quan un jugador arriba a l'esmentada quantitat es diu que fa banc"),
    tables=STAKES,
    en="A banc is not the whole bank",
    ca="Un banc no és tota la banca",
)
def banc_amount(ctx: Context) -> pd.DataFrame:
    """A `banc` or `banc_seguit` stake equals bank_cents.

    Passes: bank 10,000, banc 10,000. Fails: bank 10,000, banc 9,000.
    """
    s = cdf.stakes(ctx)
    bad = among(s["kind"], cdf.BANC_KINDS) & (s["amount_cents"] != s["bank_cents"])
    return hits(s, bad, round_col="coup_id", item_col="stake_id", expected=s["bank_cents"], observed=s["amount_cents"])


@rule(
    "CDF132", "banc-seguit-right", "major", "chemin_de_fer", (EP, "VII", "Té dret a demanar banca seguida el jugador que ha fet banc i ha perdut"),
    tables=STAKES,
    en="A banc seguit by a player who had not made banc and lost on the previous coup",
    ca="Una banca seguida d'un jugador que no havia fet banc i perdut a la jugada anterior",
)
def banc_seguit_right(ctx: Context) -> pd.DataFrame:
    """A `banc_seguit` is made by a player who made `banc` or `banc_seguit` on the table's previous
    coup and lost it (the banker won that coup, by the cards). Not judged when the previous coup is
    not in the log (a gap in coup_no, which LOG005 reports), nor when a stake of the previous coup
    was left out of the audit (LOG001, LOG002).

    Passes: P7 makes banc and loses; next coup P7 makes banc_seguit. Fails: P8 makes banc_seguit.
    """
    s = cdf.stakes(ctx)
    # Without the table's previous coup (missing or quarantined: LOG005's) the right cannot be judged.
    # Nor when a stake of the previous coup was left out (LOG001, LOG002): it may be the lost banc.
    c = cdf.coups(ctx)
    at = s["coup_pos"].to_numpy()
    prev_known = np.r_[False, c["stakes_known"].to_numpy(dtype=bool)[:-1]] if len(c) else np.zeros(0, dtype=bool)
    is_seguit = ((s["kind"] == "banc_seguit") & s["has_prev"]).to_numpy(dtype=bool) & prev_known[at]
    if not is_seguit.any():
        return no_hits()
    lost_coup = (c["settled"] & (c["true_outcome"] == "banker")).to_numpy(dtype=bool)
    # (coup position, player code) pairs as integers; the previous coup is the row before in `c`.
    code, players = cdf.stake_players(ctx)
    n_players = len(players) + 1
    banc = among(s["kind"], cdf.BANC_KINDS) & lost_coup[at]
    lost_pairs = at[banc] * n_players + code[banc]
    seguit = np.flatnonzero(is_seguit)
    bad = np.zeros(len(s), dtype=bool)
    bad[seguit[~in_sorted((at[seguit] - 1) * n_players + code[seguit], lost_pairs)]] = True
    return hits(s, bad, round_col="coup_id", item_col="stake_id", expected="banc lost on the previous coup", observed=lambda f: f["player_id"].astype(object))


def _player_totals(coup: np.ndarray, player: np.ndarray, amounts: np.ndarray, n_players: int) -> tuple[np.ndarray, np.ndarray]:
    """(pairs, totals): each (coup, player) pair of some stakes, as `coup × n_players + player`, in
    increasing order of coup, and the exact sum of its stakes' amounts. Stakes come grouped by their
    coup, a few a coup, and a player mostly stakes once: then no pair repeats within a few rows of
    itself (two of one coup lie closer than its stakes are many), each stake is its own pair, and
    nothing is sorted (1.4M seated stakes: 28 -> 6 ms). Otherwise the pairs are sorted and summed."""
    keys = coup * n_players + player
    if len(keys) > 1 and (coup[1:] >= coup[:-1]).all():
        widest = int(np.diff(np.flatnonzero(np.r_[True, coup[1:] != coup[:-1], True])).max())
        if widest <= 16 and not any((keys[d:] == keys[:-d]).any() for d in range(1, widest)):
            return keys, amounts
    pairs, group = unique_inverse(keys)
    # Exact sums (amounts are never negative: -1 is "no seated stake"), compared with each other.
    return pairs, sums_by(group, amounts, len(pairs))


@rule(
    "CDF133", "cards-to-highest-stake", "minor", "chemin_de_fer", (EP, "VII", "Si ningú no fa banca, ni banca amb la taula, les cartes es donen al jugador assegut l'aposta del qual sigui la més alta"),
    tables=STAKES,
    en="The cards did not go to the seated player with the highest stake",
    ca="Les cartes no s'han donat al jugador assegut amb l'aposta més alta",
)
def cards_to_highest_stake(ctx: Context) -> pd.DataFrame:
    """When nobody made banc (of any kind), the punt (player_id of the coup) is a seated player whose
    `punt` stakes on the coup are the highest (abonaments play for the bank, not against it);
    among equal highest stakes any of them may hold the cards. Coups without seated punt stakes
    are not judged, nor coups where a stake of the coup was left out of the audit (quarantined,
    LOG001, or its id repeated, LOG002), or the bundle holds no stakes.

    Passes: seated stakes 3,000 (P2) and 1,000 (P3), cards to P2. Fails: cards to P3.
    """
    c = cdf.coups(ctx)
    s = cdf.stakes(ctx)
    # The seated punts' rows: a gather by position, where numpy's cut by a mask of some two thirds
    # of the rows took three times as long (2.1M stakes: 9.7 against 2.8 ms a column).
    seated = np.flatnonzero((s["seat"].notna() & (s["kind"] == "punt")).to_numpy(dtype=bool))
    # Integers throughout: the coup by its position in `c`, the player by its code among the
    # (few) players of the stakes.
    code, players = cdf.stake_players(ctx)
    n_players = len(players) + 1
    pairs, totals = _player_totals(s["coup_pos"].to_numpy()[seated], code[seated], s["amount_cents"].to_numpy(dtype=np.int64)[seated], n_players)
    pair_coup = pairs // n_players  # in increasing order
    # What the punt staked, where a pair is the punt's own (at most one a coup): the punt holds the
    # cards rightly when no pair of the coup staked more. Told by comparing each pair with its
    # coup's punt, not by each coup's highest total (a maximum by coup: 30 of the rule's 130 ms).
    # The punt's code by the coups' few player names (a Categorical's), not by hashing 1M cells.
    punt_code = positions(c["player_id"], players)
    punt_code = np.where(punt_code >= 0, punt_code, n_players - 1)
    punts = np.flatnonzero(pairs % n_players == punt_code[pair_coup])
    punt_total = np.full(len(c), -1, dtype=np.int64)  # -1: the punt has no seated stake on the coup
    punt_total[pair_coup[punts]] = totals[punts]
    beaten = np.zeros(len(c), dtype=bool)  # a coup without seated stakes is never beaten: not judged
    beaten[pair_coup[totals > punt_total[pair_coup]]] = True
    bad = (c["any_banc"] == 0).to_numpy() & c["stakes_known"].to_numpy(dtype=bool) & beaten

    def expected(f: Offending) -> pd.Series:
        rows = c.index.get_indexer(f.index)
        # The pairs of the reported coups (each coup's are one run of the sorted pairs, and a
        # reported coup has at least one), then the pairs that staked the run's most: its leaders.
        lo, hi = np.searchsorted(pair_coup, rows, "left"), np.searchsorted(pair_coup, rows, "right")
        mine = np.concatenate([np.arange(a, b) for a, b in zip(lo, hi, strict=True)]) if len(rows) else np.zeros(0, dtype=np.int64)
        most = np.maximum.reduceat(totals[mine], np.cumsum(hi - lo) - (hi - lo)) if len(mine) else np.zeros(0, dtype=np.int64)
        mine = pairs[mine[totals[mine] == np.repeat(most, hi - lo)]]
        # The leaders' names alone: the stakes' players are tens of thousands.
        names = np.asarray(players.take(pa.array(mine % n_players)).to_pylist(), dtype=object)
        by_coup = pd.Series(names, index=mine // n_players).groupby(level=0).agg(lambda p: "|".join(sorted(map(str, p))))
        return pd.Series(by_coup.reindex(rows).to_numpy(), index=f.index, dtype=object)

    return hits(c, bad, round_col="coup_id", expected=expected, observed=lambda f: f["player_id"].astype(object))


@rule(
    "CDF134", "third-card-face-up", "minor", "chemin_de_fer", (EP, "VI", "la tercera carta es dona sempre descoberta"),
    tables=COUPS,
    en="A third card was dealt face down",
    ca="S'ha donat una tercera carta tapada",
)
def third_card_face_up(ctx: Context) -> pd.DataFrame:
    """When a third card was dealt, third_face_up is not false (null means not recorded).

    Passes: punt drew, third_face_up true. Fails: punt drew, third_face_up false.
    """
    c = cdf.coups(ctx)
    bad = (c["player_drew"] | c["banker_drew"]) & (c["third_face_up"] == False).fillna(False)  # noqa: E712
    return hits(c, bad, round_col="coup_id", expected=True, observed=False)
