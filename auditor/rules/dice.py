"""Banca francesa o daus portuguesos, epígraf 25 (BFR301–BFR314).

Throws of each table are taken in time order; bets are joined once with their throw and table.
Stake played = chips_cents, or chips_cents // 2 for a boundary bet (the regulation: "representa la
meitat del valor de les fitxes"; odd chip values round down).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from auditor.frames import among, as_categories, coded, codes_in, differs_from_previous, equal, is_code, join_on_key, masked_numbers, reduce_by, run_starts
from auditor.rules.base import Context, Offending, after_gap, hits, iso, no_hits, rule
from auditor.schema import REPLAY_ORDER, TABLES

EP = "25"
THROWS = ("dice_throws",)
BETS = ("dice_throws", "dice_bets")
REPLACE_AFTER = ("off_table", "defect", "foreign_substance")
TARGETS = list(TABLES["dice_bets"].column("target").values)


def _throws(ctx: Context) -> pd.DataFrame:
    def build(c: Context) -> pd.DataFrame:
        t = c.in_order("dice_throws", REPLAY_ORDER["dice_throws"])
        total = t["die1"].astype("float64") + t["die2"].astype("float64") + t["die3"].astype("float64")
        t["total"] = total
        result = np.select([total == 3, total.between(5, 7), total.between(14, 16), total.isna()], [0, 1, 2, -1], 3)
        # A Categorical of the result enum's names: compared with a name or an enum by code.
        t["true_result"] = coded(result.astype(np.int8), ["asos", "petit", "gran", "none"], t.index)
        t["settled"] = t["status"] == "settled"
        t["touched"] = t["touched_before_announce"].fillna(False).astype(bool)
        # The table's previous throw, unless a throw left out of the audit (`Bundle.gaps`) may lie
        # between: the pair is then not compared (BFR308), and a stint starts again (BFR309, BFR310).
        same = ~differs_from_previous(t["table_id"]) & ~after_gap(t, c.bundle.gaps.get("dice_throws"))
        t["has_prev"] = same
        t["prev_null_reason"] = t["null_reason"].shift().where(same)  # BFR308's, on the table's previous throw
        if c.has("tables"):
            t = join_on_key(t, c.frame("tables"), "table_id", "table_id", ["min_cents", "max_cents"])
        else:
            t["min_cents"] = np.nan
            t["max_cents"] = np.nan
        t["min_cents"] = t["min_cents"].astype("float64")
        t["max_cents"] = t["max_cents"].astype("float64")
        # The stake limits of each throw (BFR303-BFR305), taken by its bets through `_of_throw`.
        t["max_small_big"] = np.fmin(t["min_cents"] * c.param("small_big_max_multiple", t["ts"]), t["max_cents"])
        t["max_asos"] = t["min_cents"] * c.param("asos_max_multiple", t["ts"])
        return t

    return ctx.prepared("dice_throws", build)  # type: ignore[return-value]


def played_cents(bets: pd.DataFrame) -> np.ndarray:
    """The stake each bet plays: its chips, half of them (rounded down) for a boundary bet (epígraf
    25, V: "representa la meitat del valor de les fitxes col·locades"). The rules and the table
    figures both read it from here."""
    chips = bets["chips_cents"].to_numpy(dtype=np.int64)
    # Halved by a shift of one bit where the bet is a boundary bet, of none elsewhere: an arithmetic
    # shift is floor division by two, negative amounts included (4M bets: 19 -> 8 ms, where every
    # bet's half was worked out and most thrown away).
    return np.right_shift(chips, among(bets["placement"], ("boundary",)).view(np.uint8))


def _bets(ctx: Context) -> pd.DataFrame:
    def build(c: Context) -> pd.DataFrame:
        # Only what several bet rules read: every column is copied to each of millions of bets (a
        # throw's limits, which one rule each reads, are gathered by that rule: `_of_throw`).
        cols = ["table_id", "ts", "result_code", "decided", "settled", "touched"]
        t = _throws(c)
        # Each throw's true result as a code among the bets' targets, so that a bet is judged by
        # comparing codes, and its table as a category: no text copied to millions of bets.
        t = t.assign(result_code=codes_in(t["true_result"], TARGETS).astype(np.int8), decided=(t["true_result"] != "none").to_numpy(dtype=bool),
                     table_id=as_categories(t["table_id"]))
        at = c.round_positions("dice_bets", "throw_id", "dice_throws", t)
        b = join_on_key(c.frame("dice_bets"), t, "throw_id", "throw_id", cols, how="inner", position="throw_pos", at=at)
        b["played"] = pd.Series(played_cents(b), index=b.index, copy=False)
        return b

    return ctx.prepared("dice_bets", build)  # type: ignore[return-value]


def _throw_values(ctx: Context, column: str, at: np.ndarray) -> np.ndarray:
    """A column of `_throws` at the throw positions `at`: a fresh array, the caller's to write."""
    return _throws(ctx)[column].to_numpy()[at]


def _of_throw(ctx: Context, b: pd.DataFrame, column: str) -> pd.Series:
    """A column of each bet's throw (`_throws`), aligned with the bets `b`: gathered for the rule that
    reads it, and freed with its result, rather than held beside millions of bets for the game."""
    return pd.Series(_throw_values(ctx, column, b["throw_pos"].to_numpy()), index=b.index, copy=False)  # a fresh gather: pandas would copy it


def _settlement(ctx: Context, b: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """(expected payout, expected collected) of an ordinary settled throw."""
    wins = is_code(b["target"], TARGETS, b["result_code"].to_numpy())
    pay = ctx.payouts("dice_odds", b["target"], b["played"], wins, b["ts"])
    return pay, b["decided"] & ~wins


def _money(f: pd.DataFrame) -> pd.Series:
    return "payout " + f["payout_cents"].astype(str) + ", collected " + f["collected"].astype(str).str.lower()


@rule(
    "BFR301", "throw-result", "critical", "banca_francesa", (EP, "V", "asos suma tres petit 5, 6 o 7 gran 14, 15 o 16"),
    tables=THROWS,
    en="The recorded result is not the one the dice give",
    ca="El resultat registrat no és el que donen els daus",
)
def throw_result(ctx: Context) -> pd.DataFrame:
    """The result of a settled throw is `asos` on a total of 3, `petit` on 5–7, `gran` on 14–16 and
    `none` (no decision) otherwise.

    Passes: 2 2 3 (7) → petit. Fails: 2 2 3 recorded as none; 1 1 1 recorded as asos.
    """
    t = _throws(ctx)
    bad = t["settled"] & ~equal(t["result"], t["true_result"])
    # A result left empty reads "null": text joined with a missing value would stop the rule.
    observed = lambda f: f["result"].astype(str).fillna("null") + " (" + f["die1"].astype(str) + "+" + f["die2"].astype(str) + "+" + f["die3"].astype(str) + ")"  # noqa: E731
    return hits(t, bad, round_col="throw_id", expected=t["true_result"], observed=observed)


@rule(
    "BFR302", "payout-odds", "critical", "banca_francesa", (EP, "V", "Els asos: 61 vegades el valor de l'aposta. El petit: 1 vegada. El gran: 1 cop"),
    tables=BETS, params=("dice_odds",),
    en="The bet was not paid or collected as the dice say",
    ca="L'aposta no s'ha pagat o recollit com diuen els daus",
)
def payout_odds(ctx: Context) -> pd.DataFrame:
    """On a settled throw whose dice were not touched before the announcement, winners are paid 61 ×
    (asos) or 1 × (petit, gran) the stake played and not collected; losers are collected and paid
    nothing; on `none` nothing is paid or collected. Touched throws are BFR312's.

    Passes: 1,000 on petit, dice 2 2 3 → payout 1,000, not collected. Fails: payout 2,000.
    """
    b = _bets(ctx)
    pay, collect = _settlement(ctx, b)
    # As numpy's arrays: every column here is required, or worked out, and none is missing (4M bets'
    # five comparisons in pandas: some 20 ms).
    wrong = (b["payout_cents"].to_numpy() != pay.to_numpy()) | (b["collected"].to_numpy(dtype=bool) != collect.to_numpy(dtype=bool))
    bad = b["settled"].to_numpy(dtype=bool) & ~b["touched"].to_numpy(dtype=bool) & wrong
    expected = lambda f: "payout " + pay[f.index].astype(str) + ", collected " + collect[f.index].astype(str).str.lower()  # noqa: E731
    return hits(b, bad, round_col="throw_id", item_col="bet_id", expected=expected, observed=_money)


@rule(
    "BFR303", "stake-maximum", "critical", "banca_francesa", (EP, "V", "El màxim de la taula per l'aposta a petit o gran serà igual a 200 vegades el mínim, i el màxim per l'aposta als asos és igual a sis vegades el mínim"),
    tables=BETS + ("tables",), params=("small_big_max_multiple", "asos_max_multiple"),
    en="The stake played exceeds the maximum",
    ca="L'aposta jugada supera el màxim",
)
def stake_maximum(ctx: Context) -> pd.DataFrame:
    """Stake played ≤ `small_big_max_multiple` × min on petit and gran (and ≤ the table's max_cents
    where given) and ≤ `asos_max_multiple` × min on asos.

    Passes: min 500, 3,000 on asos. Fails: min 500, 3,500 on asos; 100,500 on petit.
    """
    b = _bets(ctx)
    at = b["throw_pos"].to_numpy()
    # The asos bets by position: numpy's cut and assignment by a mask of a third of the rows each
    # took several times a gather by position.
    asos = np.flatnonzero((b["target"] == "asos").to_numpy(dtype=bool))
    # Each bet's throw's petit/gran limit, overwritten by the asos limit for the asos bets: one array
    # of a bet each in fresh memory, where two gathers and their `where` took three (4M bets: 96 MB).
    limit = _throw_values(ctx, "max_small_big", at)
    limit[asos] = _throw_values(ctx, "max_asos", at[asos])
    limit = pd.Series(limit, index=b.index, copy=False)
    bad = (b["played"] > limit).fillna(False)
    return hits(b, bad, round_col="throw_id", item_col="bet_id", expected=lambda f: "<= " + limit[f.index].astype("Int64").astype(str), observed=b["played"])


@rule(
    "BFR304", "stake-minimum", "major", "banca_francesa", (EP, "V", "El mínim de les apostes està determinat per l'autorització concedida pel CRAJ"),
    tables=BETS + ("tables",),
    en="The stake played is below the table minimum",
    ca="L'aposta jugada és inferior al mínim de la taula",
)
def stake_minimum(ctx: Context) -> pd.DataFrame:
    """Stake played ≥ the table's min_cents.

    Passes: min 500, stake 500. Fails: min 500, a boundary bet of 800 chips (plays 400).
    """
    b = _bets(ctx)
    minimum = _of_throw(ctx, b, "min_cents")
    bad = (b["played"] < minimum).fillna(False)
    return hits(b, bad, round_col="throw_id", item_col="bet_id", expected=lambda f: ">= " + minimum[f.index].astype("Int64").astype(str), observed=b["played"])


@rule(
    "BFR305", "boundary-bet", "major", "banca_francesa", (EP, "V", "representa la meitat del valor de les fitxes col·locades, el qual no pot ser inferior al doble del mínim ni superior al doble del màxim"),
    tables=BETS + ("tables",), params=("boundary_limit_multiple",),
    en="A boundary bet breaks its rules (petit or gran only, chips within twice the limits)",
    ca="Una aposta al límit no segueix les seves regles (només petit o gran, fitxes dins del doble dels límits)",
)
def boundary_bet(ctx: Context) -> pd.DataFrame:
    """A boundary bet is on petit or gran, plays half its chips, and its chips lie within
    `boundary_limit_multiple` × min and `boundary_limit_multiple` × the petit/gran maximum.

    Passes: min 500, boundary on gran with 2,000 chips. Fails: boundary on asos; 800 chips.
    """
    b = _bets(ctx)
    # The boundary bets' values as arrays, by position among all bets: no subset of the bets' columns
    # is copied (a tenth of 4M bets, their ids' text among them); `hits` takes the offending rows'.
    rows = np.flatnonzero(among(b["placement"], ("boundary",)))
    k = ctx.param_array("boundary_limit_multiple", b["ts"].iloc[rows])
    at = b["throw_pos"].to_numpy()[rows]
    lo, hi = _throw_values(ctx, "min_cents", at) * k, _throw_values(ctx, "max_small_big", at) * k
    chips = b["chips_cents"].to_numpy()[rows]
    wrong_target = ~among(b["target"], ("petit", "gran"))[rows]
    out_of_range = (chips < lo) | (chips > hi)  # a limit unknown (NaN) is never broken
    bad = np.zeros(len(b), dtype=bool)
    bad[rows[wrong_target | out_of_range]] = True

    def boundary_of(f: Offending) -> np.ndarray:
        return np.searchsorted(rows, f.positions)  # each offending bet's place among the boundary bets

    def expected(f: Offending) -> pd.Series:
        at = boundary_of(f)
        limits = "chips " + pd.Series(lo[at]).astype("Int64").astype(str) + "–" + pd.Series(hi[at]).astype("Int64").astype(str)
        return pd.Series(np.where(wrong_target[at], "petit or gran", limits), index=f.index)

    def observed(f: Offending) -> pd.Series:
        return pd.Series(np.where(wrong_target[boundary_of(f)], f["target"].astype(str), "chips " + f["chips_cents"].astype(str)), index=f.index)

    return hits(b, bad, round_col="throw_id", item_col="bet_id", expected=expected, observed=observed)


@rule(
    "BFR306", "null-throw", "critical", "banca_francesa", (EP, "V", "Són considerats llançaments nuls"),
    tables=THROWS,
    en="A null throw was settled instead of void",
    ca="S'ha liquidat un llançament nul en lloc d'anul·lar-lo",
)
def null_throw(ctx: Context) -> pd.DataFrame:
    """A throw with a null_reason (a die touched a foreign object, fell off the table, was defective
    or soiled, not all dice in the cup, one retained, not isolated) is void.

    Passes: null_reason off_table, status void. Fails: null_reason off_table, status settled.
    """
    t = _throws(ctx)
    bad = t["null_reason"].notna() & t["settled"]
    return hits(t, bad, round_col="throw_id", expected="void", observed=lambda f: "settled (" + f["null_reason"].astype(str) + ")")


@rule(
    "BFR307", "void-throw-settlement", "critical", "banca_francesa", (EP, "V", "llançaments nuls"),
    tables=BETS,
    en="A bet on a void throw was paid or collected",
    ca="Una aposta d'un llançament nul s'ha pagat o recollit",
)
def void_throw_settlement(ctx: Context) -> pd.DataFrame:
    """A void throw pays and collects nothing.

    Passes: void throw, payout 0, collected false. Fails: collected true.
    """
    b = _bets(ctx)
    bad = ~b["settled"] & ((b["payout_cents"] != 0) | b["collected"])
    return hits(b, bad, round_col="throw_id", item_col="bet_id", expected="payout 0, collected false", observed=_money)


@rule(
    "BFR308", "dice-replaced-after-fault", "major", "banca_francesa", (EP, "V", "és obligatori, en qualsevol d'aquests casos, la substitució immediata de la terna de daus"),
    tables=THROWS,
    en="The dice set was not replaced after a die fell, was defective or soiled",
    ca="No s'ha substituït la terna després que un dau caigués, fos defectuós o tingués una substància estranya",
)
def dice_replaced_after_fault(ctx: Context) -> pd.DataFrame:
    """After a throw null for `off_table`, `defect` or `foreign_substance`, the table's next throw
    uses another dice set. Reported on the later throw. Where a throw of the table was left out of
    the audit between the two (LOG001, LOG002: known by its time), the pair is not judged; a copy
    of a kept throw (its id, table, time, set, launcher and null reason) is no such throw.

    Passes: throw 7 off_table with set D1, throw 8 with D2. Fails: throw 8 with D1.
    """
    t = _throws(ctx)
    bad = t["has_prev"] & among(t["prev_null_reason"], REPLACE_AFTER) & ~differs_from_previous(t["dice_set_id"])

    def expected(f: Offending) -> pd.Series:
        before = t["dice_set_id"].iloc[f.positions - 1]  # the table's previous throw is the row before
        return "a set other than " + pd.Series(before.to_numpy(), index=f.index).astype(str)

    return hits(t, bad, round_col="throw_id", expected=expected, observed=lambda f: f["dice_set_id"].astype(object))


def _stint_overrun(ctx: Context, column: str) -> pd.DataFrame:
    """Throws at which `column` (the dice set or the launcher) has been in continuous service at the
    table for more than the rotation limit. A stint breaks when the value changes, after a pause
    longer than session_gap_minutes, or at a throw left out of the audit (which may have changed it)."""
    t = _throws(ctx)
    if t.empty:
        return no_hits()
    gap = pd.to_timedelta(ctx.param_array("session_gap_minutes", t["ts"]), unit="m")
    limit = pd.to_timedelta(ctx.param_array("rotation_minutes", t["ts"]), unit="m")
    pause = (t["ts"].diff() > gap).to_numpy(dtype=bool)  # from the table's previous throw, where it is the row before
    new = ~t["has_prev"].to_numpy(dtype=bool) | pause | differs_from_previous(t[column])
    # A stint's throws are consecutive rows of one table, in time order: it starts at its first.
    start = pd.Series(t["ts"].array.take(run_starts(new)), index=t.index, copy=False)
    served = t["ts"] - start
    bad = served > limit
    return hits(t, bad, round_col="throw_id", expected=lambda f: "<= " + pd.Series(limit, index=t.index, copy=False)[f.index].dt.total_seconds().div(60).astype(int).astype(str) + " min",
                observed=lambda f: served[f.index].dt.total_seconds().div(60).round(1).astype(str) + " min since " + iso(start[f.index]))


@rule(
    "BFR309", "dice-set-rotation", "major", "banca_francesa", (EP, "V", "cada terna serà substituïda rotativament, d'hora en hora"),
    tables=THROWS, params=("rotation_minutes", "session_gap_minutes"),
    en="The dice set has been in service at the table longer than allowed",
    ca="La terna de daus fa més temps del permès que és en servei a la taula",
)
def dice_set_rotation(ctx: Context) -> pd.DataFrame:
    """A dice set is not in continuous service at a table for more than `rotation_minutes`: every
    throw past the limit is reported. Service is continuous while the table's consecutive throws use
    the same set with no pause longer than `session_gap_minutes`, and no throw of the table left out
    of the audit between them (it may have used another set: the stint starts again after it).

    Passes: D1 from 21:00 to 21:55, D2 from 21:56. Fails: D1 still in use at 22:01 (and after).
    """
    return _stint_overrun(ctx, "dice_set_id")


@rule(
    "BFR310", "launcher-rotation", "major", "banca_francesa", (EP, "V", "La substitució del crupier llançador dels daus ha de ser feta d'hora en hora"),
    tables=THROWS, params=("rotation_minutes", "session_gap_minutes"),
    en="The launching croupier has been on duty at the table longer than allowed",
    ca="El crupier llançador fa més temps del permès que és de servei a la taula",
)
def launcher_rotation(ctx: Context) -> pd.DataFrame:
    """A launching croupier is not on duty at a table continuously for more than `rotation_minutes`;
    every throw past the limit is reported (stints as for BFR309).

    Passes: L1 from 21:00 to 21:59, L2 from 22:00. Fails: L1 still launching at 22:05.
    """
    return _stint_overrun(ctx, "launcher_id")


def _target_sets() -> np.ndarray:
    """For each set of targets as bits (bit i: TARGETS[i]), its names in alphabetical order,
    "asos and gran at the same step" when more than one."""
    sets = []
    for bits in range(1 << len(TARGETS)):
        names = sorted(t for i, t in enumerate(TARGETS) if bits >> i & 1)
        sets.append(" and ".join(names) + (" at the same step" if len(names) > 1 else ""))
    return np.array(sets, dtype=object)


def _steps(seq: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """(steps, missing) of a bet's collect_seq or paid_seq, as held (`frames.masked_numbers`:
    converting 4M of them to floats with NaN took 10 ms a column)."""
    steps, missing = masked_numbers(seq)
    if missing is None:
        missing = np.isnan(steps) if steps.dtype.kind == "f" else np.zeros(len(steps), dtype=bool)
    return steps, missing


@rule(
    "BFR311", "collect-before-pay", "minor", "banca_francesa", (EP, "V", "El pagament dels premis només es pot iniciar després de recollir totes les apostes perdedores començant sempre per l'aposta dels asos"),
    tables=BETS,
    en="Payments started before every losing bet was collected, or collection did not start with asos",
    ca="S'ha començat a pagar abans de recollir totes les perdedores, o la recollida no ha començat pels asos",
)
def collect_before_pay(ctx: Context) -> pd.DataFrame:
    """In a throw, every collection comes before every payment (collect_seq and paid_seq share one
    sequence), and when an asos bet is collected the first collection is an asos bet. Steps that
    share a number are not ordered (the format gives row order no meaning): a payment at the same
    step as a collection fails, as does another target collected at the first step beside the asos,
    since the log does not show the one before the other.

    Whether the first collection was an asos bet is not judged for a throw some of whose bets were
    left out of the audit (quarantined, LOG001, or an id repeated, LOG002).

    Passes: collect asos (1), collect gran (2), pay petit (3); two asos bets collected at step 1.
    Fails: pay petit (1), collect gran (2); collect gran (1), pay petit (1); collect asos (1) and
    petit (1).
    """
    b = _bets(ctx)
    t = _throws(ctx)
    n = len(t)
    at = b["throw_pos"].to_numpy()
    # The bets collected and those paid, each with its step: a fraction of the 4M bets.
    collect_seq, no_collect = _steps(b["collect_seq"])
    paid_seq, no_pay = _steps(b["paid_seq"])
    col = np.flatnonzero(b["collected"].to_numpy(dtype=bool) & ~no_collect)
    paid = np.flatnonzero((b["payout_cents"] > 0).to_numpy(dtype=bool) & ~no_pay)
    at_col, col_seq = at[col], collect_seq[col].astype("float64")
    # Per throw (by position in `t`), as integers: no id is hashed again.
    last_collect = reduce_by(np.maximum, col_seq, at_col, n, -np.inf)
    first_pay = reduce_by(np.minimum, paid_seq[paid].astype("float64"), at[paid], n, np.inf)
    late = last_collect >= first_pay
    asos = (b["target"] == "asos").to_numpy(dtype=bool)[col]
    has_asos = np.zeros(n, dtype=bool)
    has_asos[at_col[asos]] = True
    # The first collection step of each throw: every bet collected at the lowest collect_seq.
    first_collect = reduce_by(np.minimum, col_seq, at_col, n, np.inf)
    at_first = col_seq == first_collect[at_col]
    other_first = np.zeros(n, dtype=bool)
    other_first[at_col[at_first & ~asos]] = True
    # Which bet came first needs every bet of the throw: a collected asos bet left out (LOG001,
    # LOG002) may be the one collected first.
    known = ctx.items_known("dice_bets", t["throw_id"], lambda: np.bincount(at, minlength=n))
    not_asos_first = has_asos & other_first & known
    bad = late | not_asos_first
    if not bad.any():
        return no_hits()
    sel = t[bad]
    is_late = late[bad]
    tied = (last_collect == first_pay)[bad]
    # The targets collected at each flagged throw's first step, as a set of bits (one a target):
    # a few thousand throws named without a Python call each.
    firsts = col[at_first & bad[at_col]]
    targets = np.zeros(n, dtype=np.int64)
    code = codes_in(b["target"].iloc[firsts], TARGETS).astype(np.int64)  # shifted: no int8
    np.bitwise_or.at(targets, at[firsts], np.where(code >= 0, 1 << np.maximum(code, 0), 0))
    observed = pd.Series(np.select([tied, is_late], ["a payment at the same step as a collection", "a payment before a collection"],
                                   "first collection on " + _target_sets()[targets[bad]]), index=sel.index)
    expected = pd.Series(np.where(is_late, "all collections before payments", "first collection on asos"), index=sel.index)
    return hits(sel, round_col="throw_id", expected=expected, observed=observed)


@rule(
    "BFR312", "touched-dice", "critical", "banca_francesa", (EP, "V", "el crupier s'aixeca, altera o toca els daus sense anunciar la sort guanyadora, el llançament serà vàlid, guanyaran els jugadors i no perdran cap de les altres apostes"),
    tables=BETS, params=("dice_odds",),
    en="Dice touched before the announcement: winners must be paid and no other bet collected",
    ca="Daus tocats abans de l'anunci: s'han de pagar els guanyadors i no recollir cap altra aposta",
)
def touched_dice(ctx: Context) -> pd.DataFrame:
    """When the croupier touched the dice before announcing the result, the throw stands: bets on the
    dice's result are paid as usual and no other bet is collected.

    Passes: touched, dice 5 5 5 (gran): gran paid, petit not collected. Fails: petit collected.
    """
    b = _bets(ctx)
    b = b[b["settled"] & b["touched"]]
    pay, _ = _settlement(ctx, b)
    bad = (b["payout_cents"] != pay) | b["collected"]
    return hits(b, bad, round_col="throw_id", item_col="bet_id", expected=lambda f: "payout " + pay[f.index].astype(str) + ", collected false", observed=_money)


@rule(
    "BFR313", "dice-specification", "major", "banca_francesa", (EP, "II", "igual longitud en les arestes dins dels límits de 12 a 15 mm; suma dels valors de les cares oposades igual a 7"),
    tables=("dice_sets",), params=("dice_edge_min_mm", "dice_edge_max_mm"),
    en="The dice set is out of specification",
    ca="La terna de daus no compleix les especificacions",
)
def dice_specification(ctx: Context) -> pd.DataFrame:
    """Every dice set has `dice_edge_min_mm` ≤ edge_mm ≤ `dice_edge_max_mm` and opposite faces
    summing to 7. Reported on the dice set.

    Passes: 14 mm, opposite faces 7. Fails: 16 mm; opposite faces not summing to 7.
    """
    d = ctx.frame("dice_sets")
    lo, hi = float(ctx.param("dice_edge_min_mm")), float(ctx.param("dice_edge_max_mm"))  # type: ignore[arg-type]
    size = (d["edge_mm"] < lo) | (d["edge_mm"] > hi)
    bad = size | ~d["opposite_faces_sum_7"]
    expected = f"edge {lo:g}–{hi:g} mm, opposite faces sum 7"
    observed = lambda f: "edge " + f["edge_mm"].astype(str) + " mm, opposite faces sum 7 " + f["opposite_faces_sum_7"].astype(str).str.lower()  # noqa: E731
    return hits(d, bad, round_col=None, item_col="dice_set_id", ts_col=None, expected=expected, observed=observed)


@rule(
    "BFR314", "seats", "minor", "banca_francesa", (EP, "IV", "ocupant cada un dels dotze llocs amb què compta cada taula"),
    tables=BETS, params=("table_seats",),
    en="A bet came from a seat the table does not have",
    ca="Una aposta prové d'un lloc que la taula no té",
)
def seats(ctx: Context) -> pd.DataFrame:
    """No bet comes from a seat above `table_seats` (12); standing players have no seat.

    Passes: seat 12. Fails: seat 13.
    """
    b = _bets(ctx)
    limit = ctx.param("table_seats", b["ts"])  # a scalar when it never changed
    bad = (b["seat"] > limit).fillna(False)
    expected = lambda f: "<= " + (limit[f.index].astype(str) if isinstance(limit, pd.Series) else str(limit))  # noqa: E731
    return hits(b, bad, round_col="throw_id", item_col="bet_id", expected=expected, observed=lambda f: f["seat"].astype(object))
