"""Per-table money figures: sums are exact integers, whatever the amounts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from auditor.figures import _sums_by, combine_figures
from helpers import SAMPLES, cdf, coup, lost, won, write_bundle


def _naive(codes: np.ndarray, cents: np.ndarray, n: int) -> list[int]:
    out = [0] * n
    for c, v in zip(codes.tolist(), cents.tolist(), strict=True):
        out[c] += v
    return out


@pytest.mark.parametrize("seed", range(20))
def test_sums_per_table_are_exact(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 6))
    size = int(rng.integers(0, 200))
    codes = rng.integers(0, n, size)
    # Ordinary stakes, signed results, and amounts large enough that float64 would round them; one
    # set of them summed beside another, as a table's staked and paid are.
    scale = [10**4, 10**9, 2**60][seed % 3]
    cents = rng.integers(-scale, scale, size, dtype=np.int64)
    small = rng.integers(0, 10**4, size, dtype=np.int64)
    sums = _sums_by(codes, {"cents": cents, "small": small}, n)
    assert sums["cents"].tolist() == _naive(codes, cents, n) and sums["small"].tolist() == _naive(codes, small, n)


def test_a_table_without_items_sums_to_zero() -> None:
    assert _sums_by(np.array([1, 1]), {"a": np.array([5, 7], dtype=np.int64)}, 3)["a"].tolist() == [0, 12, 0]
    assert _sums_by(np.array([], dtype=np.int64), {"a": np.array([], dtype=np.int64)}, 2)["a"].tolist() == [0, 0]


def test_parts_of_a_bundle_combine_exactly_even_past_int64() -> None:
    def part(staked: int) -> pd.DataFrame:
        return pd.DataFrame({"table_id": ["T1"], "game": ["wheel_of_fortune"], "rounds": [3], "staked_cents": [staked],
                             "paid_cents": [0], "cagnotte_cents": [0], "house_result_cents": [-staked]})

    ordinary = combine_figures([part(1_000), part(2_500)])
    assert ordinary["staked_cents"].tolist() == [3_500] and ordinary["staked_cents"].dtype == "int64"
    assert ordinary["rounds"].tolist() == [6]
    huge = combine_figures([part(2**62), part(2**62)])
    assert huge["staked_cents"].tolist() == [2**63] and huge["house_result_cents"].tolist() == [-(2**63)]
    assert combine_figures([]).empty


def test_figures_worked_out_beside_the_rules_are_the_bundles_own() -> None:
    from auditor.engine import run_audit
    from auditor.figures import GAME_FIGURES, table_figures
    from auditor.loading import load_bundle
    from auditor.rules import select_rules
    from auditor.ruleset import load_ruleset

    bundle = load_bundle(SAMPLES / "casino-month")
    result = run_audit(bundle, load_ruleset(), select_rules(), workers=2)
    # Each game's computed in the thread of its rules, then put together, before any output asks.
    assert all(("figures", game) in bundle._derived for game in GAME_FIGURES) and "table_figures" in bundle._derived
    pd.testing.assert_frame_equal(table_figures(result.bundle), table_figures(load_bundle(bundle.path)))


def test_chemin_de_fer_figures_sum_stakes_and_winnings_exactly(tmp_path: Path) -> None:
    """What the punts staked and what winning stakes received, per table, as exact integers: a
    result past 2**53 cents is not rounded, a losing stake's result adds nothing to what was paid,
    and a stake of a void coup without a result counts as staked, never as paid."""
    from auditor.figures import table_figures
    from auditor.loading import load_bundle

    big = 10**17 + 1  # past 2**53 (float64 would drop the 1), within the format's 18 digits
    c1, _ = lost("C1", stake=big, bank_cents=big)
    c2, _ = won("C2", stake=3000, bank_cents=10000)
    path = write_bundle(tmp_path / "b", cdf([c1, c2, coup("C3", status="void")], []))
    # Written as the file holds it: pandas would make a column of integers and None floats.
    (path / "cdf_stakes.csv").write_text("stake_id,coup_id,player_id,seat,kind,amount_cents,result_cents\n"
                                         f"S1,C1,P2,2,punt,{big},{big}\nS2,C2,P2,2,punt,3000,-3000\nS3,C3,P2,2,punt,700,\n")
    bundle = load_bundle(path)
    assert len(bundle.frames["cdf_stakes"]) == 3 and bundle.quarantine.empty
    figures = table_figures(bundle)
    assert figures[["table_id", "rounds", "staked_cents", "paid_cents"]].to_dict("records") == [
        {"table_id": "T1", "rounds": 3, "staked_cents": big + 3000 + 700, "paid_cents": big}]
