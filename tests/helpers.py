"""Tiny bundles written from inline rows, audited with a chosen set of rules."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from auditor.engine import run_audit
from auditor.loading import load_bundle
from auditor.rules import select_rules
from auditor.ruleset import RULESET_DIR, load_ruleset
from auditor.simulate.writer import write_table

# The shipped sample bundles (`make samples`), which the end-to-end tests audit.
SAMPLES = Path(__file__).resolve().parent.parent / "samples"

T0 = pd.Timestamp("2026-03-02T20:00:00Z")


def at(seconds: float) -> pd.Timestamp:
    return T0 + pd.Timedelta(seconds=seconds)


def write_bundle(path: Path, tables: dict[str, list[dict[str, object]]], fmt: str = "csv") -> Path:
    path.mkdir(parents=True, exist_ok=True)
    for name, rows in tables.items():
        write_table(pd.DataFrame(rows), name, path, fmt)
    return path


def json_record(row: dict[str, object]) -> dict[str, object]:
    """An inline row as a JSONL line holds it: times as ISO 8601 text."""
    return {k: (v.isoformat() if isinstance(v, pd.Timestamp) else v) for k, v in row.items()}


def ruleset_with(path: Path, changes: dict[str, tuple[str, str]]) -> Path:
    """The shipped ruleset with some parameters' text replaced, {name: (old, new)} within each
    parameter's own section, written to `path` (a file) for `load_ruleset`."""
    text = (RULESET_DIR / "decret-455-2025.toml").read_text(encoding="utf-8")
    for name, (old, new) in changes.items():
        start = text.index(f"[parameters.{name}]")
        end = text.find("\n[", start)  # the next section's header, or the end of the file
        end = len(text) if end < 0 else end
        section = text[start:end]
        assert old in section, f"{old!r} is not in the ruleset's [parameters.{name}]"
        text = text[:start] + section.replace(old, new, 1) + text[end:]
    path.write_text(text, encoding="utf-8")
    return path


def audit(path: Path, tables: dict[str, list[dict[str, object]]], select: str, fmt: str = "csv", quarantine_ok: bool = False) -> pd.DataFrame:
    """Findings of the `select`ed rules; fails when an inline row was quarantined, so that a rule
    test can never pass just because its rows never reached the rule."""
    bundle = load_bundle(write_bundle(path, tables, fmt))
    if not quarantine_ok:
        assert bundle.quarantine.empty, bundle.quarantine[["file", "line", "reason"]].to_string()
    return run_audit(bundle, load_ruleset(), select_rules(select), lang="en").findings


def score(cards: str) -> int:
    """A hand's score, for building test coups: A=1, 2-9 face value, T J Q K = 0, modulo 10."""
    return sum(1 if c[0] == "A" else 0 if c[0] in "TJQK" else int(c[0]) for c in cards.split()) % 10


def outcome_of(player: str, banker: str) -> str:
    p, b = score(player), score(banker)
    return "player" if p > b else "banker" if b > p else "tie"


def values(column: pd.Series) -> list[object]:
    """The column as Python values, a missing one (None in object columns, NaN in Arrow text) as None."""
    return [None if pd.isna(v) else v for v in column]


def found(findings: pd.DataFrame, rule: str | None = None) -> list[tuple[object, object]]:
    """(round_id, item_id) of each finding of `rule` (all rules when None)."""
    f = findings if rule is None else findings[findings["rule"] == rule]
    return list(zip(values(f["round_id"]), values(f["item_id"]), strict=True))


# --- chemin de fer ---------------------------------------------------------------------------------

CDF_TABLE = {"table_id": "T1", "game": "chemin_de_fer", "min_cents": 1000, "max_cents": None,
             "authorised_min_cents": 1000, "bank_unlimited": False, "seats": 9}


def coup(coup_id: str = "C1", **kw: object) -> dict[str, object]:
    """A lawful coup: punt 9S 8H (7) stands, banker TC 7D (7) stands, a tie with no stakes."""
    n = int(str(coup_id).lstrip("C") or 1)
    row: dict[str, object] = {
        "coup_id": coup_id, "table_id": "T1", "shoe_id": "S1", "coup_no": n, "ts": at(60 * n), "players_seated": 5,
        "banker_id": "B1", "banker_seat": 1, "bank_event": "initial" if n == 1 else "retained", "bank_cents": 10000,
        "mode": "rules", "player_id": "P2", "player_cards": "9S 8H", "banker_cards": "TC 7D", "third_face_up": None,
        "outcome": "tie", "banker_result_cents": 0, "cagnotte_cents": 0, "garage_cents": 0, "garage_kind": None,
        "bank_after_cents": 10000, "stop_card": False, "status": "settled",
    }
    row.update(kw)
    return row


def won(coup_id: str = "C1", stake: int = 10000, **kw: object) -> tuple[dict[str, object], list[dict[str, object]]]:
    """A coup the banker wins (9 against 7) against one punt of `stake`, 5 % cagnotte."""
    bank = int(kw.pop("bank_cents", 10000))  # type: ignore[arg-type]
    cag = (stake * 5 + 50) // 100
    c = coup(coup_id, banker_cards="TC 9D", outcome="banker", bank_cents=bank, banker_result_cents=stake,
             cagnotte_cents=cag, bank_after_cents=bank + stake - cag, **kw)
    return c, [stake_row(f"{coup_id}-S1", coup_id, amount=stake, result=-stake)]


def lost(coup_id: str = "C1", stake: int = 10000, **kw: object) -> tuple[dict[str, object], list[dict[str, object]]]:
    """A coup the punt wins (7 against 5)."""
    bank = int(kw.pop("bank_cents", 10000))  # type: ignore[arg-type]
    c = coup(coup_id, banker_cards="TC 5D TH", third_face_up=True, outcome="player", bank_cents=bank,
             banker_result_cents=-stake, bank_after_cents=bank - stake, **kw)
    return c, [stake_row(f"{coup_id}-S1", coup_id, amount=stake, result=stake)]


def stake_row(stake_id: str, coup_id: str = "C1", player: str = "P2", seat: int | None = 2, kind: str = "punt",
              amount: int = 1000, result: int = 0) -> dict[str, object]:
    return {"stake_id": stake_id, "coup_id": coup_id, "player_id": player, "seat": seat, "kind": kind,
            "amount_cents": amount, "result_cents": result}


def cdf(coups: list[dict[str, object]], stakes: list[dict[str, object]] | None = None, table: dict[str, object] | None = None) -> dict[str, list[dict[str, object]]]:
    out: dict[str, list[dict[str, object]]] = {"tables": [table or CDF_TABLE], "cdf_coups": coups}
    if stakes is not None:
        out["cdf_stakes"] = stakes
    return out


# --- wheel -------------------------------------------------------------------------------------------

WHEEL_TABLE = {"table_id": "W1", "game": "wheel_of_fortune", "min_cents": 500, "max_cents": 50000,
               "authorised_min_cents": 500, "bank_unlimited": None, "seats": 7}
LAYOUT = ["24"] * 24 + ["15"] * 15 + ["7"] * 7 + ["4"] * 4 + ["2"] * 2 + ["figura_1", "figura_2"]


def layout(table_id: str = "W1", symbols: list[str] | None = None) -> list[dict[str, object]]:
    return [{"table_id": table_id, "slot": i, "symbol": s} for i, s in enumerate(symbols or LAYOUT)]


def spin(spin_id: str = "W1-1", n: int = 1, slot: int = 40, **kw: object) -> dict[str, object]:
    """A lawful spin: opens at n minutes, stops on `slot` (slot 40 is `7` in LAYOUT)."""
    t = 120 * n
    row: dict[str, object] = {"spin_id": spin_id, "table_id": "W1", "croupier_id": "K1", "ts_open": at(t), "ts_no_more_bets": at(t + 20),
                              "ts_stop": at(t + 40), "ts_settled": at(t + 60), "revolutions": 5.5, "stop_slot": slot, "on_pivot": False,
                              "obstructed": False, "symbol": LAYOUT[slot], "status": "settled"}
    row.update(kw)
    return row


def bet(bet_id: str, spin_id: str = "W1-1", symbol: str = "7", stake: int = 1000, n: int = 1, **kw: object) -> dict[str, object]:
    row: dict[str, object] = {"bet_id": bet_id, "spin_id": spin_id, "player_id": "J1", "symbol": symbol, "stake_cents": stake,
                              "ts_placed": at(120 * n + 5), "ts_withdrawn": None, "payout_cents": 0, "stake_returned": False, "paid_seq": None}
    row.update(kw)
    return row


def wheel(spins: list[dict[str, object]], bets: list[dict[str, object]] | None = None, layouts: list[dict[str, object]] | None = None) -> dict[str, list[dict[str, object]]]:
    out: dict[str, list[dict[str, object]]] = {"tables": [WHEEL_TABLE], "wheel_layouts": layouts or layout(), "wheel_spins": spins}
    if bets is not None:
        out["wheel_bets"] = bets
    return out


# --- dice --------------------------------------------------------------------------------------------

DICE_TABLE = {"table_id": "D1", "game": "banca_francesa", "min_cents": 500, "max_cents": 100000,
              "authorised_min_cents": 500, "bank_unlimited": None, "seats": 12}


def throw(throw_id: str = "T1", minute: float = 1, dice: tuple[int, int, int] = (2, 2, 3), **kw: object) -> dict[str, object]:
    total = sum(dice)
    result = "asos" if total == 3 else "petit" if 5 <= total <= 7 else "gran" if 14 <= total <= 16 else "none"
    row: dict[str, object] = {"throw_id": throw_id, "table_id": "D1", "ts": at(60 * minute), "dice_set_id": "DS1", "launcher_id": "L1",
                              "die1": dice[0], "die2": dice[1], "die3": dice[2], "null_reason": None, "touched_before_announce": False,
                              "result": result, "status": "settled"}
    row.update(kw)
    return row


def dbet(bet_id: str, throw_id: str = "T1", target: str = "petit", chips: int = 1000, **kw: object) -> dict[str, object]:
    row: dict[str, object] = {"bet_id": bet_id, "throw_id": throw_id, "player_id": "J1", "seat": 1, "target": target, "placement": "normal",
                              "chips_cents": chips, "payout_cents": 0, "collected": False, "collect_seq": None, "paid_seq": None}
    row.update(kw)
    return row


def dice(throws: list[dict[str, object]], bets: list[dict[str, object]] | None = None, sets: list[dict[str, object]] | None = None) -> dict[str, list[dict[str, object]]]:
    out: dict[str, list[dict[str, object]]] = {"tables": [DICE_TABLE], "dice_throws": throws}
    if bets is not None:
        out["dice_bets"] = bets
    if sets is not None:
        out["dice_sets"] = sets
    return out
