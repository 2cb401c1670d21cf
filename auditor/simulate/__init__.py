"""`auditor simulate`: bundles of lawful play for every game, optionally with planted breaches.

Each game has its own random stream derived from the seed, so a bundle is reproducible and adding a
game does not change the others' play.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from auditor.simulate import chemin_de_fer, dice, tournaments, wheel
from auditor.simulate.writer import write_manifest, write_table

GAMES: dict[str, tuple[str, ...]] = {
    "chemin_de_fer": ("cdf", "chemin_de_fer", "CDF"),
    "wheel_of_fortune": ("wheel", "wheel_of_fortune", "WHL"),
    "banca_francesa": ("dice", "banca_francesa", "BFR"),
    "tournament": ("tournaments", "tournament", "TRN"),
}
START = pd.Timestamp("2026-03-02T19:00:00Z")


class SimulateError(ValueError):
    pass


def parse_games(value: str | None) -> list[str]:
    if not value:
        return list(GAMES)
    chosen: list[str] = []
    for token in value.replace(" ", ",").split(","):
        if not token:
            continue
        match = [g for g, names in GAMES.items() if token.lower() in (n.lower() for n in names)]
        if not match:
            raise SimulateError(f"unknown game {token!r} (choose among cdf, wheel, dice, tournaments)")
        chosen.extend(m for m in match if m not in chosen)
    return chosen


@dataclass
class Simulation:
    frames: dict[str, pd.DataFrame]
    planted: list[dict[str, object]]
    wrong_digests: set[str]


def play(seed: int, rounds: int, games: list[str]) -> dict[str, pd.DataFrame]:
    streams = dict(zip(GAMES, np.random.SeedSequence(seed).spawn(len(GAMES)), strict=True))
    frames: dict[str, pd.DataFrame] = {}
    makers = {
        "chemin_de_fer": lambda r: chemin_de_fer.simulate(r, rounds, START),
        "wheel_of_fortune": lambda r: wheel.simulate(r, rounds, START),
        "banca_francesa": lambda r: dice.simulate(r, rounds, START),
        "tournament": lambda r: tournaments.simulate(r, max(5, rounds // 1000), START),
    }
    for game in games:
        for name, frame in makers[game](np.random.default_rng(streams[game])).items():
            frames[name] = pd.concat([frames[name], frame], ignore_index=True) if name in frames else frame
    return frames


def simulate(
    out_dir: Path,
    seed: int = 1,
    rounds: int = 1000,
    games: list[str] | None = None,
    fmt: str = "csv",
    plant_rate: float = 0.0,
    plant_rules: list[str] | None = None,
) -> Simulation:


    if fmt not in ("csv", "jsonl", "parquet"):
        raise SimulateError(f"--format must be csv, jsonl or parquet, not {fmt!r}")
    if not 0 <= plant_rate <= 1:
        raise SimulateError("--plant is a rate between 0 and 1")
    games = games or list(GAMES)
    frames = play(seed, rounds, games)
    sim = Simulation(frames, [], set())
    if plant_rate > 0 or plant_rules:
        from auditor.simulate.plant import plant

        sim = plant(frames, np.random.default_rng(seed + 7919), plant_rate, plant_rules)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = [write_table(frame, name, out_dir, fmt) for name, frame in sim.frames.items()]
    stamps = [f[c] for f in sim.frames.values() for c in ("ts", "ts_open") if c in f and len(f)]
    period = (min(s.min() for s in stamps).strftime("%Y-%m-%d"), max(s.max() for s in stamps).strftime("%Y-%m-%d")) if stamps else ("", "")
    wrong = {p.name for p in written if p.stem in sim.wrong_digests}
    write_manifest(out_dir, "Casino simulat (auditor simulate)", period, written, wrong)
    planted_path = out_dir.parent / f"{out_dir.name}.planted.jsonl"
    with planted_path.open("w", encoding="utf-8") as fh:
        for rec in sorted(sim.planted, key=lambda r: (str(r["rule"]), str(r.get("table_id") or ""), str(r.get("round_id") or ""), str(r.get("item_id") or ""))):
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return sim
