"""Regenerate samples/: a clean and a broken bundle per game, all games together, and a bundle whose
log is malformed in every way LOG001-LOG005 know. Run with `make samples`; the output is committed."""

from __future__ import annotations

import gzip
import io
import json
import shutil
from pathlib import Path

from auditor.simulate import simulate
from auditor.simulate.partition import partition
from auditor.simulate.writer import sha256

ROOT = Path(__file__).resolve().parents[2] / "samples"
GAMES = {"chemin-de-fer": ("chemin_de_fer", "CDF", 1500), "wheel": ("wheel_of_fortune", "WHL", 800),
         "dice": ("banca_francesa", "BFR", 1200), "tournaments": ("tournament", "TRN", 6000)}


def _malformed(target: Path) -> None:
    """A small lawful CSV bundle, then corrupted by hand: each corruption is listed in EXPECTED."""
    simulate(target, seed=404, rounds=400, games=["chemin_de_fer", "wheel_of_fortune"], fmt="csv")
    (target.parent / f"{target.name}.planted.jsonl").unlink()
    coups = (target / "cdf_coups.csv").read_text(encoding="utf-8").splitlines()
    header = coups[0].split(",")
    col = {name: i for i, name in enumerate(header)}

    def edit(line_no: int, column: str, value: str) -> None:
        cells = coups[line_no].split(",")
        cells[col[column]] = value
        coups[line_no] = ",".join(cells)

    edit(3, "ts", "2026-03-02T19:05:00")          # no UTC offset
    edit(5, "player_cards", "9S 8X")              # malformed card
    edit(7, "bank_event", "stolen")               # unknown enum
    edit(9, "bank_cents", "-100")                 # negative money
    edit(11, "coup_no", "three")                  # wrong type
    edit(13, "banker_id", "")                     # missing required cell
    coups[15] = coups[15] + ",extra"              # wrong number of cells
    coups.append(coups[20])                       # duplicate coup_id (LOG002)
    (target / "cdf_coups.csv").write_text("\n".join(coups) + "\n", encoding="utf-8")
    with (target / "wheel_bets.csv").open("a", encoding="utf-8") as fh:
        fh.write("WB-ORPHAN,W-NOPE,PX,7,500,2026-03-02T19:00:00+00:00,,0,false,\n")  # orphan (LOG003)
    (target / "dice_throws.parquet").write_bytes(b"PAR1 this is not a parquet file")  # unreadable file
    # gzip: a table read from .csv.gz; mtime=0 keeps the sample byte-for-byte reproducible.
    with gzip.GzipFile(target / "tournaments.csv.gz", "wb", mtime=0) as raw, io.TextIOWrapper(raw, encoding="utf-8") as fh:
        fh.write("tournament_id,game,starts_on,notified_on,authorised_from,authorised_to,venue,external_authorised,fees_cents,organisation_costs_cents,prizes_cents\n")
        fh.write("T-OK,chemin_de_fer,2026-04-01,2026-03-01,2026-01-01,2026-12-31,casino,,100000,20000,80000\n")
        fh.write("T-BAD,chemin_de_fer,2026-04-31,2026-03-01,2026-01-01,2026-12-31,casino,,100000,20000,80000\n")  # no 31 April
    manifest = json.loads((target / "manifest.json").read_text())
    manifest["files"] = {name: f"sha256:{sha256(target / name)}" for name in sorted(manifest["files"]) if (target / name).exists()}
    manifest["files"]["wheel_spins.csv"] = "sha256:" + "0" * 64   # digest mismatch (LOG004)
    manifest["files"]["cdf_stakes_old.csv"] = "sha256:" + "1" * 64  # listed, absent (LOG004)
    (target / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")


def main(root: Path = ROOT) -> None:
    if root.exists():
        for entry in root.iterdir():
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    root.mkdir(exist_ok=True)
    for name, (game, prefix, rounds) in GAMES.items():
        simulate(root / f"{name}-clean", seed=2026, rounds=rounds, games=[game], fmt="csv")
        (root / f"{name}-clean.planted.jsonl").unlink()
        simulate(root / f"{name}-broken", seed=2027, rounds=rounds, games=[game], fmt="csv", plant_rules=[prefix])
    simulate(root / "casino-month", seed=7, rounds=1500, fmt="parquet", plant_rate=0.004)
    # The same play split into Parquet parts by day, for `audit --by-partition`; a wheel bet by the
    # day it was placed, so that a bet placed after midnight is filed apart from its spin.
    partition(root / "casino-month", root / "casino-month-by-day", items_by_own_time=True)
    _malformed(root / "malformed-log")
    print(f"samples written to {root}")


if __name__ == "__main__":
    main()
