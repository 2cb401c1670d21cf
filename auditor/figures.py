"""Per-table money figures for the summary and the report: rounds, staked, paid, cagnotte, house result.

chemin de fer: players play against the banker, so the house's result is the cagnotte it collected;
"paid" is what winning stakes received. Wheel and dice: the house is the counterparty, its result is
what it collected from losing bets minus what it paid to winners. Void rounds count as rounds.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from auditor.loading import Bundle

FIGURE_COLUMNS = ["table_id", "game", "rounds", "staked_cents", "paid_cents", "cagnotte_cents", "house_result_cents"]


def _per_table(rounds: pd.DataFrame, round_id: str, items: pd.DataFrame | None, game: str, amounts: dict[str, pd.Series]) -> pd.DataFrame:
    base = rounds.groupby("table_id", observed=True).size().rename("rounds").to_frame()
    if items is not None and len(items):
        where = pd.Index(rounds[round_id]).get_indexer(items[round_id])
        keyed = pd.DataFrame({k: v for k, v in amounts.items()})
        tables = rounds["table_id"].to_numpy(dtype=object)
        keyed["table_id"] = np.where(where >= 0, tables[np.maximum(where, 0)], None)
        sums = keyed.groupby("table_id", observed=True).sum()
        base = base.join(sums, how="left")
    base = base.fillna(0)
    base["game"] = game
    return base.reset_index()


def table_figures(bundle: Bundle) -> pd.DataFrame:
    parts: list[pd.DataFrame] = []
    f = bundle.frames
    if "cdf_coups" in f and len(f["cdf_coups"]):
        coups, stakes = f["cdf_coups"], f.get("cdf_stakes")
        amounts = {}
        if stakes is not None:
            res = stakes["result_cents"].astype("float64").fillna(0)
            amounts = {"staked_cents": stakes["amount_cents"], "paid_cents": res.clip(lower=0)}
        part = _per_table(coups, "coup_id", stakes, "chemin_de_fer", amounts)
        cag = coups.groupby("table_id", observed=True)["cagnotte_cents"].sum()
        part["cagnotte_cents"] = part["table_id"].map(cag).fillna(0)
        part["house_result_cents"] = part["cagnotte_cents"]
        parts.append(part)
    if "wheel_spins" in f and len(f["wheel_spins"]):
        bets = f.get("wheel_bets")
        amounts = {}
        if bets is not None:
            lost = bets["stake_cents"].where(~bets["stake_returned"], 0)
            amounts = {"staked_cents": bets["stake_cents"], "paid_cents": bets["payout_cents"], "house_result_cents": lost - bets["payout_cents"]}
        parts.append(_per_table(f["wheel_spins"], "spin_id", bets, "wheel_of_fortune", amounts))
    if "dice_throws" in f and len(f["dice_throws"]):
        bets = f.get("dice_bets")
        amounts = {}
        if bets is not None:
            played = bets["chips_cents"].where(bets["placement"] != "boundary", bets["chips_cents"] // 2)
            lost = played.where(bets["collected"], 0)
            amounts = {"staked_cents": played, "paid_cents": bets["payout_cents"], "house_result_cents": lost - bets["payout_cents"]}
        parts.append(_per_table(f["dice_throws"], "throw_id", bets, "banca_francesa", amounts))
    if not parts:
        return pd.DataFrame(columns=FIGURE_COLUMNS)
    out = pd.concat(parts, ignore_index=True).reindex(columns=FIGURE_COLUMNS).fillna(0)
    for col in FIGURE_COLUMNS[2:]:
        out[col] = out[col].astype("int64")
    out["table_id"] = out["table_id"].astype(str)
    return out.sort_values(["game", "table_id"]).reset_index(drop=True)
