"""Split a bundle's round and item tables into Parquet partitions: each round by the period of its
time (a day by default), each stake or bet with its round, or, as a system that files every record
by its own time would, a bet that has a time of its own (a wheel bet's ts_placed) by that time. Used
to make partitioned bundles for the audit by partition, its tests and its benchmark."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd

from auditor.loading import load_bundle
from auditor.simulate.writer import write_table

ROUNDS = {"cdf_coups": ("coup_id", "ts", "cdf_stakes"), "wheel_spins": ("spin_id", "ts_open", "wheel_bets"),
          "dice_throws": ("throw_id", "ts", "dice_bets")}
OWN_TIME = {"wheel_bets": "ts_placed"}  # stakes and dice bets have no time but their round's


def partition(source: Path, target: Path, period: str = "%Y-%m-%d", items_by_own_time: bool = False) -> None:
    """Write `source` (any format) as `target` with partitioned round and item tables;
    `items_by_own_time`: a bet with a time of its own is filed by it, not with its round."""
    bundle = load_bundle(source)
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    done: set[str] = set()
    for table, (key, ts, items) in ROUNDS.items():
        rounds = bundle.frames.get(table)
        if rounds is None:
            continue
        when = rounds[ts].dt.strftime(period)
        every_item = [f for f in (bundle.frames.get(items), bundle.unmatched.get(items)) if f is not None]  # orphans too
        item_frame = pd.concat(every_item, ignore_index=True) if every_item else None
        for name, frame, keys in ((table, rounds, when), (items, item_frame, None)):
            if frame is None:
                continue
            if keys is None:
                keys = frame[key].map(dict(zip(rounds[key], when, strict=True))).fillna("unmatched")
                if items_by_own_time and name in OWN_TIME:
                    own = frame[OWN_TIME[name]].dt.strftime(period)
                    keys = keys.where((keys == "unmatched") | own.isna(), own)
            (target / name).mkdir()
            for value, part in frame.drop(columns=["_file", "_line"]).groupby(keys.to_numpy(), sort=True):
                path = write_table(part.reset_index(drop=True), name, target / name, "parquet")
                path.rename(target / name / f"{value}.parquet")
            done.add(name)
    for name, frame in bundle.frames.items():
        if name not in done:
            write_table(frame.drop(columns=["_file", "_line"]), name, target, "parquet")
