"""The simulator and the auditor agree: lawful play gives no finding, planted breaches are all found
and nothing else is. The simulator plays from the regulation with code of its own."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from helpers import values

from auditor.engine import run_audit
from auditor.loading import load_bundle
from auditor.rules import REGISTRY, select_rules
from auditor.ruleset import load_ruleset
from auditor.simulate import simulate


def _audit(path: Path) -> Counter:
    f = run_audit(load_bundle(path), load_ruleset(), select_rules(), lang="en").findings
    return Counter(zip(f["rule"], values(f["table_id"]), values(f["round_id"]), values(f["item_id"]), strict=True))


@pytest.mark.parametrize(("seed", "fmt"), [(1, "csv"), (2, "parquet"), (3, "jsonl"), (4, "parquet")])
def test_unplanted_play_has_no_finding(tmp_path: Path, seed: int, fmt: str) -> None:
    simulate(tmp_path / "b", seed=seed, rounds=2500, fmt=fmt)
    assert _audit(tmp_path / "b") == Counter()


@pytest.mark.parametrize(("seed", "fmt", "rate"), [(5, "csv", 0.0), (6, "parquet", 0.0), (7, "jsonl", 0.0), (8, "parquet", 0.01), (9, "csv", 0.02)])
def test_planted_breaches_are_exactly_what_is_found(tmp_path: Path, seed: int, fmt: str, rate: float) -> None:
    sim = simulate(tmp_path / "b", seed=seed, rounds=3000, fmt=fmt, plant_rate=rate, plant_rules=None if rate else list(REGISTRY))
    planted = Counter((p["rule"], p["table_id"], p["round_id"], p["item_id"]) for p in sim.planted)
    assert len({k[0] for k in planted}) >= 60
    assert _audit(tmp_path / "b") == planted


def test_every_rule_has_a_planter() -> None:
    from auditor.simulate.plant import PLANTERS

    assert set(PLANTERS) == set(REGISTRY)


@pytest.mark.parametrize("seed", [3, 4])
def test_dense_planting_keeps_every_planted_breach_true(tmp_path: Path, seed: int) -> None:
    """At one breach every other coup, plants land in the same shoes: a card-count breach (CDF121)
    must not be undone by a later plant changing the cards dealt before it."""
    sim = simulate(tmp_path / "b", seed=seed, rounds=3000, games=["chemin_de_fer"], fmt="parquet", plant_rate=0.5)
    planted = Counter((p["rule"], p["table_id"], p["round_id"], p["item_id"]) for p in sim.planted)
    assert sum(1 for k in planted if k[0] == "CDF121") > 5
    assert _audit(tmp_path / "b") == planted


def _keys(path: Path) -> Counter:
    f = run_audit(load_bundle(path), load_ruleset(), select_rules(), lang="en").findings
    f = f[f["rule"] != "LOG004"]  # the copy has no manifest
    return Counter(zip(f["rule"], values(f["table_id"]), values(f["round_id"]), values(f["item_id"]), f["expected"].astype(str), f["observed"].astype(str), strict=True))


@pytest.mark.parametrize("seed", [21, 22])
def test_row_order_and_file_format_carry_no_meaning(tmp_path: Path, seed: int) -> None:
    """The log format says order comes from the columns, never from rows: the same play with every
    table's rows shuffled, each table in another format (CSV with every cell quoted among them),
    gives the same findings."""
    from auditor.simulate.writer import write_table

    sim = simulate(tmp_path / "a", seed=seed, rounds=600, fmt="parquet", plant_rate=0.05)
    rng = np.random.default_rng(seed)
    (tmp_path / "b").mkdir()
    for i, (name, frame) in enumerate(sorted(sim.frames.items())):
        shuffled = frame.iloc[rng.permutation(len(frame))].reset_index(drop=True)
        fmt, quote_all = (("csv", False), ("csv", True), ("jsonl", False), ("parquet", False))[(i + seed) % 4]
        write_table(shuffled, name, tmp_path / "b", fmt, quote_all=quote_all)
    original = _keys(tmp_path / "a")
    assert len({k[0] for k in original}) >= 40
    assert _keys(tmp_path / "b") == original
