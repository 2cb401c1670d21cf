"""Per-table money figures for the summary and the report: rounds, staked, paid, cagnotte, house result.

chemin de fer: players play against the banker, so the house's result is the cagnotte it collected;
"paid" is what winning stakes received. Wheel and dice: the house is the counterparty, its result is
what it collected from losing bets minus what it paid to winners. Void rounds count as rounds.
Items are tied to their round's table through the bundle's one lookup of each item's round (shared
with the rules) and summed as integers per table code, so money stays exact.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from auditor.frames import largest_magnitude, sums_by_each
from auditor.loading import Bundle
from auditor.rules.dice import played_cents

FIGURE_COLUMNS = ["table_id", "game", "rounds", "staked_cents", "paid_cents", "cagnotte_cents", "house_result_cents"]


def _sums_by(codes: np.ndarray, amounts: dict[str, np.ndarray], n: int, nonnegative: bool = False) -> dict[str, np.ndarray]:
    """Integer sums of each of `amounts` per table code: money is summed exactly, never rounded nor
    wrapped: as int64 (`frames.sums_by_each`, all in one pass) where no sum can pass it, else as
    Python integers (hostile amounts). `nonnegative`: no code is negative (`frames.sums_by`)."""
    fits = {name: cents for name, cents in amounts.items() if largest_magnitude(cents) * len(cents) < 2**63}
    out = dict(zip(fits, sums_by_each(codes, list(fits.values()), n, nonnegative=nonnegative), strict=True))
    for name, cents in amounts.items():
        if name not in fits:
            exact = pd.Series(cents.astype(object)).groupby(codes).sum()  # Python integers: no wrap-around
            out[name] = exact.reindex(range(n), fill_value=0).to_numpy(dtype=object)
    return out


def _int_column(values: pd.Series) -> pd.Series:
    """int64 where every value fits, else Python integers (a hostile log's sums must not wrap)."""
    ints = [int(v) for v in values]
    if all(-(2**63) <= v < 2**63 for v in ints):
        return pd.Series(ints, index=values.index, dtype="int64")
    return pd.Series(ints, index=values.index, dtype=object)


def combine_figures(parts: list[pd.DataFrame]) -> pd.DataFrame:
    """One row per table from the figures of several parts of a bundle, summed exactly."""
    parts = [p for p in parts if len(p)]
    if not parts:
        return pd.DataFrame(columns=FIGURE_COLUMNS)
    both = pd.concat(parts, ignore_index=True)
    money = FIGURE_COLUMNS[2:]
    both[money] = both[money].astype(object)
    out = both.groupby(["table_id", "game"], as_index=False)[money].sum()[FIGURE_COLUMNS]
    for col in money:
        out[col] = _int_column(out[col])
    return out.sort_values(["game", "table_id"]).reset_index(drop=True)


def _cents(values: pd.Series | np.ndarray) -> np.ndarray:
    """Amounts as int64, missing as 0: a plain int64 column (a required amount) as it is, uncopied."""
    if isinstance(values, np.ndarray):
        return values
    if values.dtype == np.int64:
        return values.to_numpy()
    return values.fillna(0).to_numpy(dtype="int64")


def _per_table(rounds: pd.DataFrame, where: np.ndarray | None, items: pd.DataFrame | None, game: str,
               amounts: dict[str, pd.Series | np.ndarray], round_amounts: dict[str, pd.Series] | None = None) -> pd.DataFrame:
    """`where`: each item's row position in `rounds` (-1 for none), from `Bundle.parent_positions`."""
    ids = rounds["table_id"]
    # A Categorical is factorised by its codes (its tables' names looked at once each, unused ones left out).
    codes, tables = pd.factorize(ids if isinstance(ids.dtype, pd.CategoricalDtype) else ids.astype(str))
    n = len(tables)
    out: dict[str, object] = {"table_id": np.asarray(tables, dtype=object), "game": game,
                              "rounds": np.bincount(codes, minlength=n)}
    out.update(_sums_by(codes, {name: _cents(values) for name, values in (round_amounts or {}).items()}, n))
    if items is not None and where is not None and len(items) and amounts:
        # Told by a least value and the rounds' codes once, not by a mask of every item and a check
        # of their codes for each sum (4M bets: 15 -> 4 ms).
        every = bool(where.min() >= 0)
        known = None if every else where >= 0
        item_codes = codes[where] if known is None else codes[where[known]]
        nonnegative = bool(codes.min() >= 0)
        cents = {name: _cents(values) for name, values in amounts.items()}
        out.update(_sums_by(item_codes, {name: c if known is None else c[known] for name, c in cents.items()}, n, nonnegative))
    return pd.DataFrame(out)


def table_figures(bundle: Bundle) -> pd.DataFrame:
    """One row per table: what the summary, the report and junit show (computed once per bundle)."""
    return bundle.derived("table_figures", lambda: _combined([game_figures(bundle, game) for game in GAME_FIGURES]))


def game_figures(bundle: Bundle, game: str) -> pd.DataFrame | None:
    """One game's rows of `table_figures`, None when the bundle has no rounds of it (computed once per
    bundle: each game's by the thread that audited it, as its rules end)."""
    return bundle.derived(("figures", game), lambda: GAME_FIGURES[game](bundle.frames, bundle))


def _combined(parts: list[pd.DataFrame | None]) -> pd.DataFrame:
    found = [p for p in parts if p is not None]
    if not found:
        return pd.DataFrame(columns=FIGURE_COLUMNS)
    out = pd.concat(found, ignore_index=True).reindex(columns=FIGURE_COLUMNS).fillna(0)
    for col in FIGURE_COLUMNS[2:]:
        out[col] = _int_column(out[col])
    out["table_id"] = out["table_id"].astype(str)
    return out.sort_values(["game", "table_id"]).reset_index(drop=True)


def _chemin_de_fer(f: dict[str, pd.DataFrame], bundle: Bundle) -> pd.DataFrame | None:
    if "cdf_coups" not in f or not len(f["cdf_coups"]):
        return None
    coups, stakes = f["cdf_coups"], f.get("cdf_stakes")
    amounts = {}
    if stakes is not None:
        # Integers throughout: through float64, a result past 2**53 cents was rounded (and 2M
        # stakes' cast, fill and clip took 30 ms, numpy's maximum 3).
        amounts = {"staked_cents": stakes["amount_cents"], "paid_cents": np.maximum(_cents(stakes["result_cents"]), 0)}
    where = bundle.parent_positions("cdf_stakes", "coup_id", "cdf_coups") if stakes is not None else None
    part = _per_table(coups, where, stakes, "chemin_de_fer", amounts, {"cagnotte_cents": coups["cagnotte_cents"]})
    part["house_result_cents"] = part["cagnotte_cents"]
    return part


def _wheel(f: dict[str, pd.DataFrame], bundle: Bundle) -> pd.DataFrame | None:
    if "wheel_spins" not in f or not len(f["wheel_spins"]):
        return None
    bets = f.get("wheel_bets")
    amounts: dict[str, pd.Series | np.ndarray] = {}
    if bets is not None:
        # Arrays, not Series: each pandas step over 4M bets is a copy and an index of its own.
        stake, paid = _cents(bets["stake_cents"]), _cents(bets["payout_cents"])
        # The stake where it was not returned: a product by the mask, np.where's answer for integers
        # without its branch on each bet (4M bets: 16 -> 7 ms).
        lost = stake * ~bets["stake_returned"].to_numpy(dtype=bool)
        amounts = {"staked_cents": stake, "paid_cents": paid, "house_result_cents": lost - paid}
    where = bundle.parent_positions("wheel_bets", "spin_id", "wheel_spins") if bets is not None else None
    return _per_table(f["wheel_spins"], where, bets, "wheel_of_fortune", amounts)


def _dice(f: dict[str, pd.DataFrame], bundle: Bundle) -> pd.DataFrame | None:
    if "dice_throws" not in f or not len(f["dice_throws"]):
        return None
    bets = f.get("dice_bets")
    amounts: dict[str, pd.Series | np.ndarray] = {}
    if bets is not None:
        played, paid = played_cents(bets), _cents(bets["payout_cents"])
        lost = played * bets["collected"].to_numpy(dtype=bool)  # as the wheel's (4M bets: 12 -> 6 ms)
        amounts = {"staked_cents": played, "paid_cents": paid, "house_result_cents": lost - paid}
    where = bundle.parent_positions("dice_bets", "throw_id", "dice_throws") if bets is not None else None
    return _per_table(f["dice_throws"], where, bets, "banca_francesa", amounts)


# In the order the figures have always been put together (the rows are then sorted by game and table).
GAME_FIGURES: dict[str, Callable[[dict[str, pd.DataFrame], Bundle], pd.DataFrame | None]] = {
    "chemin_de_fer": _chemin_de_fer, "wheel_of_fortune": _wheel, "banca_francesa": _dice,
}
