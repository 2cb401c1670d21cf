"""The audit by partition reports exactly what the whole-bundle audit reports, partition edges
cutting through shoes, banker stints, dice rotations and payouts included."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from auditor.cli import app
from auditor.simulate import simulate
from auditor.simulate.partition import partition

runner = CliRunner()


def audit_both(bundle: Path, out: Path, rows: tuple[str, ...] = ("1",), exit_code: int = 1) -> dict[str, Result]:
    """Audit `bundle` whole (into out/w) and by partition at each step size (into out/p<rows>): the
    same exit status, `exit_code`, and the same violations.jsonl and summary.json, byte for byte.
    The runs by partition, by step size."""
    whole = runner.invoke(app, ["audit", str(bundle), "--out", str(out / "w"), "--format", "jsonl"])
    assert whole.exit_code == exit_code, whole.output
    runs: dict[str, Result] = {}
    for size in rows:
        runs[size] = runner.invoke(app, ["audit", str(bundle), "--out", str(out / f"p{size}"), "--format", "jsonl", "--by-partition", "--batch-rows", size])
        assert runs[size].exit_code == exit_code, runs[size].output
        for name in ("violations.jsonl", "summary.json"):
            assert (out / "w" / name).read_bytes() == (out / f"p{size}" / name).read_bytes(), (name, size)
    return runs


def chemin_de_fer_by_day(bundle: Path, days: dict[str, dict[str, list[dict[str, object]]]]) -> Path:
    """A bundle of chemin de fer tables cut by day (`days`: table -> day -> rows), one file a day in
    a folder a table, beside the helpers' gaming table."""
    import pandas as pd
    from helpers import CDF_TABLE

    for table, parts in days.items():
        (bundle / table).mkdir(parents=True)
        for day, rows in parts.items():
            pd.DataFrame(rows).to_parquet(bundle / table / f"{day}.parquet", index=False)
    pd.DataFrame([CDF_TABLE]).to_parquet(bundle / "tables.parquet", index=False)
    return bundle


def rules_and_rounds(out: Path) -> list[tuple[str, str | None]]:
    """(rule, round_id) of each finding in `out`'s violations.jsonl, in its order."""
    return [(v["rule"], v["round_id"]) for v in map(json.loads, (out / "violations.jsonl").read_text().splitlines())]


@pytest.mark.parametrize(("seed", "period", "own_time"), [(41, "%Y-%m-%dT%H", False), (42, "%Y-%m-%d", False), (44, "%Y-%m-%dT%H", True)])
def test_by_partition_equals_whole(tmp_path: Path, seed: int, period: str, own_time: bool) -> None:
    simulate(tmp_path / "flat", seed=seed, rounds=6000, fmt="parquet", plant_rate=0.02)
    partition(tmp_path / "flat", tmp_path / "parts", period, items_by_own_time=own_time)
    assert len(list((tmp_path / "parts" / "cdf_coups").glob("*.parquet"))) >= 2
    if own_time:  # wheel bets filed by the hour they were placed: some in another part than their spin
        import pandas as pd

        spins = {s: p.name for p in (tmp_path / "parts" / "wheel_spins").glob("*.parquet") for s in pd.read_parquet(p)["spin_id"]}
        filed = [(spins.get(s), p.name) for p in (tmp_path / "parts" / "wheel_bets").glob("*.parquet") for s in pd.read_parquet(p)["spin_id"]]
        assert sum(home is not None and home != part for home, part in filed) > 10
    audit_both(tmp_path / "parts", tmp_path, rows=("2000000", "1"))  # one big step, and one part group a step
    assert len((tmp_path / "w" / "violations.jsonl").read_text().splitlines()) > 100


def test_by_partition_refuses_a_flat_bundle(tmp_path: Path) -> None:
    simulate(tmp_path / "flat", seed=1, rounds=300, games=["chemin_de_fer"], fmt="parquet")
    result = runner.invoke(app, ["audit", str(tmp_path / "flat"), "--out", str(tmp_path / "o"), "--by-partition"])
    assert result.exit_code == 2 and "not partitioned" in result.output


def test_duplicates_and_orphans_across_parts(tmp_path: Path) -> None:
    import pandas as pd

    simulate(tmp_path / "flat", seed=7, rounds=3000, games=["chemin_de_fer"], fmt="parquet")
    partition(tmp_path / "flat", tmp_path / "parts", "%Y-%m-%dT%H")
    parts = sorted((tmp_path / "parts" / "cdf_stakes").glob("*.parquet"))
    first, last = pd.read_parquet(parts[0]), pd.read_parquet(parts[-1])
    copied = first.iloc[[0]].copy()
    orphan = first.iloc[[1]].assign(stake_id="S-ORPHAN", coup_id="C-NOWHERE")
    pd.concat([last, copied, orphan], ignore_index=True).to_parquet(parts[-1], index=False)
    audit_both(tmp_path / "parts", tmp_path)
    text = (tmp_path / "p1" / "violations.jsonl").read_text()
    assert f'"source": "cdf_stakes/{parts[-1].name}:{len(last) + 1}"' in text and f"first at cdf_stakes/{parts[0].name}:1" in text
    assert "S-ORPHAN" in text


def test_a_duplicate_of_a_quarantined_row_is_not_a_duplicate(tmp_path: Path) -> None:
    import pandas as pd

    simulate(tmp_path / "flat", seed=8, rounds=2000, games=["wheel_of_fortune"], fmt="parquet")
    partition(tmp_path / "flat", tmp_path / "parts", "%Y-%m-%dT%H")
    parts = sorted((tmp_path / "parts" / "wheel_bets").glob("*.parquet"))
    first, last = pd.read_parquet(parts[0]), pd.read_parquet(parts[-1])
    bad = first.copy()
    bad.loc[0, "stake_cents"] = -100  # the first occurrence breaks the format (LOG001) ...
    bad.to_parquet(parts[0], index=False)
    pd.concat([last, first.iloc[[0, 1]]], ignore_index=True).to_parquet(parts[-1], index=False)  # ... its copy is then the first clean one
    audit_both(tmp_path / "parts", tmp_path)
    text = (tmp_path / "p1" / "violations.jsonl").read_text()
    assert text.count('"rule": "LOG002"') == 1 and text.count('"rule": "LOG001"') == 1


def test_an_unreadable_round_part_makes_the_same_orphan_findings_as_the_whole_audit(tmp_path: Path) -> None:
    simulate(tmp_path / "flat", seed=9, rounds=2000, games=["wheel_of_fortune"], fmt="parquet")
    partition(tmp_path / "flat", tmp_path / "parts", "%Y-%m-%dT%H")
    spins = sorted((tmp_path / "parts" / "wheel_spins").glob("*.parquet"))
    spins[len(spins) // 2].write_bytes(b"PAR1 torn in transfer")
    audit_both(tmp_path / "parts", tmp_path)
    text = (tmp_path / "p1" / "violations.jsonl").read_text()
    # The bets of the torn hour: one finding for their file, not one per bet.
    assert text.count('"rule": "LOG003"') == 1 and "whether they are orphans cannot be told" in text


def test_ids_of_bad_utf8_in_a_part_are_quarantined_as_whole(tmp_path: Path) -> None:
    """A bet whose id, spin or player is not UTF-8 (a string column Parquet's reader does not check)
    is set aside by both audits alike; the audit by partition ended on one before."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    simulate(tmp_path / "flat", seed=9, rounds=2000, games=["wheel_of_fortune"], fmt="parquet")
    partition(tmp_path / "flat", tmp_path / "parts", "%Y-%m-%dT%H")
    part = sorted((tmp_path / "parts" / "wheel_bets").glob("*.parquet"))[1]
    table = pq.read_table(part)
    for column, row in (("bet_id", 0), ("spin_id", 1), ("player_id", 2)):
        cells = [v.encode() for v in table[column].to_pylist()]
        cells[row] = cells[row][:2] + b"\xff" + cells[row][2:]
        table = table.set_column(table.schema.get_field_index(column), column, pa.array(cells, pa.binary()).view(pa.string()))
    pq.write_table(table, part)
    audit_both(tmp_path / "parts", tmp_path)
    text = (tmp_path / "p1" / "violations.jsonl").read_text()
    assert text.count("not UTF-8 text at byte 3") == 3


def test_a_part_whose_footer_names_a_column_in_bad_utf8_is_unreadable_as_whole(tmp_path: Path) -> None:
    # Sizing the steps read every part's footer and let the UnicodeDecodeError end the audit.
    import pyarrow.parquet as pq

    simulate(tmp_path / "flat", seed=9, rounds=2000, games=["wheel_of_fortune"], fmt="parquet")
    partition(tmp_path / "flat", tmp_path / "parts", "%Y-%m-%dT%H")
    part = sorted((tmp_path / "parts" / "wheel_bets").glob("*.parquet"))[1]
    pq.write_table(pq.read_table(part), part, store_schema=False)
    part.write_bytes(part.read_bytes().replace(b"symbol", b"symb\xe1l"))
    audit_both(tmp_path / "parts", tmp_path)
    assert "file cannot be audited" in (tmp_path / "p1" / "violations.jsonl").read_text()


def test_a_coup_under_another_shoe_at_a_part_edge_does_not_end_the_shoe(tmp_path: Path) -> None:
    """Shoe S1's stop card comes out in coup 3; coup 5, the last of its hour, is recorded under a
    shoe SX (LOG005 reports it) and banker. The next hour's coups 6 and 7 of S1 still follow the stop card
    (CDF122): the context keeps every shoe dealt from since S1 began, not only the last shoe_id."""
    from helpers import CDF_TABLE, at, cdf, coup, write_bundle

    minutes = {1: 50, 2: 52, 3: 54, 4: 56, 5: 58, 6: 62, 7: 64}
    coups = [coup(f"C{n}", ts=at(60 * m), stop_card=(n == 3)) for n, m in minutes.items()]
    coups[4].update(shoe_id="SX", banker_id="B2")  # a banker of its own: the stint does not carry S1 over either
    write_bundle(tmp_path / "flat", cdf(coups, table=CDF_TABLE))
    partition(tmp_path / "flat", tmp_path / "parts", "%Y-%m-%dT%H")
    assert len(list((tmp_path / "parts" / "cdf_coups").glob("*.parquet"))) == 2
    audit_both(tmp_path / "parts", tmp_path)
    found = [(v["rule"], v["round_id"]) for v in map(json.loads, (tmp_path / "p1" / "violations.jsonl").read_text().splitlines())]
    assert sorted(found) == [("CDF122", "C4"), ("CDF122", "C6"), ("CDF122", "C7"), ("LOG005", "C5"), ("LOG005", "C6")]


def test_stakes_and_bets_filed_in_another_part_than_their_round(tmp_path: Path) -> None:
    """A bet placed after midnight on a spin that opened before it is filed under the next day; a
    system may file a bet a part early too. Each is audited with its round: judged with part of its
    stakes, a coup's bank would not balance (CDF110), and a throw's payments could not be ordered."""
    import pandas as pd

    simulate(tmp_path / "flat", seed=43, rounds=3000, fmt="parquet", plant_rate=0.02)
    partition(tmp_path / "flat", tmp_path / "parts", "%Y-%m-%dT%H")
    moved = 0
    for items, rounds, key in (("cdf_stakes", "cdf_coups", "coup_id"), ("wheel_bets", "wheel_spins", "spin_id"), ("dice_bets", "dice_throws", "throw_id")):
        names = sorted(p.name for p in (tmp_path / "parts" / rounds).glob("*.parquet"))
        frames = {name: pd.read_parquet(tmp_path / "parts" / items / name) for name in names}
        for before, after in zip(names, names[1:]):
            last = pd.read_parquet(tmp_path / "parts" / rounds / before).sort_values("table_id").groupby("table_id").tail(2)[key]
            first = pd.read_parquet(tmp_path / "parts" / rounds / after).groupby("table_id").head(1)[key]
            late, early = frames[before][key].isin(last), frames[after][key].isin(first)
            moved += int(late.sum() + early.sum())
            frames[before], frames[after] = (
                pd.concat([frames[before][~late], frames[after][early]], ignore_index=True),
                pd.concat([frames[before][late], frames[after][~early]], ignore_index=True),
            )
        broken = frames[names[1]].index[0]  # a row read with another group than its own part's: still counted in its part
        column = "result_cents" if items == "cdf_stakes" else "payout_cents"
        frames[names[1]][column] = frames[names[1]][column].astype("Int64")
        frames[names[1]].loc[broken, column] = None
        for name, frame in frames.items():
            frame.to_parquet(tmp_path / "parts" / items / name, index=False)
    assert moved > 100
    audit_both(tmp_path / "parts", tmp_path, rows=("2000000", "1"))
    files = {f["name"]: f for f in json.loads((tmp_path / "p1" / "summary.json").read_text())["files"]}
    for items in ("cdf_stakes", "wheel_bets", "dice_bets"):
        second = sorted(n for n in files if n.startswith(items + "/"))[1]
        assert files[second]["rows_quarantined"] >= 1, second


def test_parts_holding_their_ids_as_a_dictionary_or_as_numbers(tmp_path: Path) -> None:
    """The first pass takes text ids straight from Arrow; a part whose ids are a Parquet dictionary
    (as pandas writes a Categorical) or numbers goes through the load's own conversion, so that
    both passes see the same ids: duplicates, orphans and items filed away are found as whole."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    simulate(tmp_path / "flat", seed=45, rounds=3000, fmt="parquet", plant_rate=0.02)
    partition(tmp_path / "flat", tmp_path / "parts", "%Y-%m-%dT%H")
    spins = sorted((tmp_path / "parts" / "wheel_spins").glob("*.parquet"))
    bets = sorted((tmp_path / "parts" / "wheel_bets").glob("*.parquet"))
    frame = pd.read_parquet(spins[1])
    frame.assign(spin_id=frame["spin_id"].astype("category"), table_id=frame["table_id"].astype("category")).to_parquet(spins[1], index=False)
    frame = pd.read_parquet(bets[2])
    frame.assign(spin_id=frame["spin_id"].astype("category")).to_parquet(bets[2], index=False)
    # Ids written as numbers: text the load types as the digits ("7"), unlike every other part's.
    table = pq.read_table(bets[3])
    pq.write_table(table.set_column(table.schema.get_field_index("bet_id"), "bet_id", pa.array(range(table.num_rows), type=pa.int64())), bets[3])
    assert pa.types.is_dictionary(pq.read_table(spins[1]).schema.field("spin_id").type)
    audit_both(tmp_path / "parts", tmp_path, rows=("2000000", "1"))


def test_parts_named_differently_in_each_table(tmp_path: Path) -> None:
    """Spark writes `day=.../part-00000-<uuid>.parquet`, a name of its own in every table, and a
    `_SUCCESS` marker: no group holds a round table's part with its items', yet every stake and bet
    is audited with its round."""
    simulate(tmp_path / "flat", seed=45, rounds=2000, fmt="parquet", plant_rate=0.02)
    partition(tmp_path / "flat", tmp_path / "parts", "%Y-%m-%dT%H")
    for table in (p for p in (tmp_path / "parts").iterdir() if p.is_dir()):
        for n, part in enumerate(sorted(table.glob("*.parquet"))):
            (table / f"day={part.stem}").mkdir()
            part.rename(table / f"day={part.stem}" / f"part-{n:05d}-{table.name}.c000.snappy.parquet")
        (table / "_SUCCESS").write_text("")
    audit_both(tmp_path / "parts", tmp_path)


def test_round_parts_that_keep_their_table_id_in_directory_names(tmp_path: Path) -> None:
    """Round tables written as pyarrow writes a dataset partitioned by day and table
    (`cdf_coups/day=.../table_id=.../<uuid>-0.parquet`, no table_id in the files): by partition as
    whole, and both find what the audit of the same parts with table_id in them finds."""
    import pyarrow.parquet as pq

    simulate(tmp_path / "flat", seed=46, rounds=2000, fmt="parquet", plant_rate=0.02)
    partition(tmp_path / "flat", tmp_path / "parts", "%Y-%m-%dT%H")
    held = runner.invoke(app, ["audit", str(tmp_path / "parts"), "--out", str(tmp_path / "held"), "--format", "jsonl"])
    assert held.exit_code == 1, held.output
    for table in ("cdf_coups", "wheel_spins", "dice_throws"):
        for part in sorted((tmp_path / "parts" / table).glob("*.parquet")):
            pq.write_to_dataset(pq.read_table(part), tmp_path / "parts" / table / f"day={part.stem}", partition_cols=["table_id"])
            part.unlink()
    spins = next((tmp_path / "parts" / "wheel_spins").rglob("*.parquet"))
    assert spins.parent.name.startswith("table_id=") and "table_id" not in pq.read_schema(spins).names
    audit_both(tmp_path / "parts", tmp_path)
    assert rules_and_rounds(tmp_path / "w") == rules_and_rounds(tmp_path / "held")
    assert len(rules_and_rounds(tmp_path / "w")) > 50


def test_tournament_entries_filed_under_another_day_than_their_tournament(tmp_path: Path) -> None:
    """Every table written a file a day: a tournament under the day it starts, its entries under the
    days players registered. The small tables are read whole however they are stored, so each
    entry is judged with its tournament (TRN405-TRN407) as in the whole audit."""
    import pandas as pd

    simulate(tmp_path / "flat", seed=46, rounds=1500, fmt="parquet", plant_rate=0.05)
    partition(tmp_path / "flat", tmp_path / "parts", "%Y-%m-%d")
    tours = pd.read_parquet(tmp_path / "parts" / "tournaments.parquet")
    entries = pd.read_parquet(tmp_path / "parts" / "tournament_entries.parquet")
    starts = pd.to_datetime(entries["tournament_id"].map(dict(zip(tours["tournament_id"], tours["starts_on"], strict=True))))
    for name, frame, day in (("tournaments", tours, pd.to_datetime(tours["starts_on"])), ("tournament_entries", entries, starts - pd.Timedelta(days=12))):
        (tmp_path / "parts" / f"{name}.parquet").unlink()
        (tmp_path / "parts" / name).mkdir()
        for key, part in frame.groupby(day.dt.strftime("%Y-%m-%d").to_numpy()):
            part.to_parquet(tmp_path / "parts" / name / f"{key}.parquet", index=False)
    audit_both(tmp_path / "parts", tmp_path)
    assert any(rule in (tmp_path / "p1" / "violations.jsonl").read_text() for rule in ("TRN405", "TRN406", "TRN407"))


def test_parts_numbered_without_padding_are_read_in_number_order(tmp_path: Path) -> None:
    """pyarrow and Dask number their parts `part-0`, `part-1`, ... `part-10`: read by name, part-10
    would come before part-2 and the replay would run backwards across those edges."""
    simulate(tmp_path / "flat", seed=47, rounds=3000, fmt="parquet", plant_rate=0.02)
    partition(tmp_path / "flat", tmp_path / "parts", "%Y-%m-%dT%H")
    tables = [p for p in (tmp_path / "parts").iterdir() if p.is_dir()]
    hours = sorted({p.name for table in tables for p in table.glob("*.parquet")})  # "unmatched" (orphans) last
    for table in tables:
        for n, name in enumerate(hours):
            if (table / name).exists():
                (table / name).rename(table / f"part-{n}.parquet")
    assert len(hours) > 11  # part-10 and part-11 sort before part-2 by name
    audit_both(tmp_path / "parts", tmp_path)
    # The whole audit, which sorts every round by time, agrees with the bundle before it was cut.
    flat = runner.invoke(app, ["audit", str(tmp_path / "flat"), "--out", str(tmp_path / "f"), "--format", "jsonl"])
    assert flat.exit_code == 1
    rules = lambda out: sorted(line.split('"rule": "')[1][:6] for line in (tmp_path / out / "violations.jsonl").read_text().splitlines())  # noqa: E731
    assert [r for r in rules("f") if r not in ("LOG001", "LOG002", "LOG004")] == rules("p1")


@pytest.mark.parametrize(("seed", "naming"), [(1, "{i:03d}.parquet"), (2, "part-{i}.parquet"), (3, "day={i:02d}/part-00000-{table}.parquet")])
def test_random_cuts_audit_by_partition_as_whole(tmp_path: Path, seed: int, naming: str) -> None:
    """Rounds cut into parts at random times, one in thirty filed a part late, an item in six filed a
    part early or late, parts named three ways: every step size gives the whole audit's findings
    and summary."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    simulate(tmp_path / "flat", seed=seed, rounds=800, fmt="parquet", plant_rate=0.03)
    for rounds, (key, ts, items) in {"cdf_coups": ("coup_id", "ts", "cdf_stakes"), "wheel_spins": ("spin_id", "ts_open", "wheel_bets"),
                                      "dice_throws": ("throw_id", "ts", "dice_bets")}.items():
        r, it = (pd.read_parquet(tmp_path / "flat" / f"{t}.parquet") for t in (rounds, items))
        cuts = np.sort(rng.choice(np.arange(1, len(r)), size=9, replace=False))
        rank = r[ts].rank(method="first").to_numpy().astype(int) - 1  # each round's place in time
        part = np.minimum(np.searchsorted(cuts, rank, side="right") + (rng.random(len(r)) < 1 / 30), 9)
        filed = it[key].map(dict(zip(r[key], part, strict=True))).fillna(10).to_numpy(dtype=int)
        filed = np.clip(filed + rng.choice([0, 0, 0, 0, 1, -1], size=len(it)), 0, 10)
        for table, frame, where in ((rounds, r, part), (items, it, filed)):
            (tmp_path / "flat" / f"{table}.parquet").unlink()
            for i in np.unique(where):
                path = tmp_path / "flat" / table / naming.format(i=int(i), table=table)
                path.parent.mkdir(parents=True, exist_ok=True)
                frame[where == i].to_parquet(path, index=False)
    (tmp_path / "flat" / "manifest.json").unlink()
    audit_both(tmp_path / "flat", tmp_path, rows=("1", "700", "2000000"))


def test_a_round_filed_late_is_audited_with_the_group_of_its_time(tmp_path: Path) -> None:
    """A coup that arrived late and was written with the next hour's goes back to its hour's group,
    so its table is replayed in time order as in the whole audit. One filed two hours late is
    farther than a step goes back: it stays, and a note on stderr names it, since the hour before
    was judged without it. A bundle filed in time gets no note."""
    import pandas as pd

    simulate(tmp_path / "flat", seed=48, rounds=2500, games=["chemin_de_fer"], fmt="parquet")
    partition(tmp_path / "flat", tmp_path / "parts", "%Y-%m-%dT%H")
    days = sorted((tmp_path / "parts" / "cdf_coups").glob("*.parquet"))
    assert len(days) >= 6
    in_time = runner.invoke(app, ["audit", str(tmp_path / "parts"), "--out", str(tmp_path / "a"), "--by-partition", "--batch-rows", "1"])
    assert "filed in a later part" not in in_time.stderr

    def file_late(day: int, days_late: int) -> int:
        coups, later = pd.read_parquet(days[day]), pd.read_parquet(days[day + days_late])
        late = coups["coup_id"].isin(coups.groupby("table_id")["coup_id"].nth(2))  # the third coup of each table
        pd.concat([later, coups[late]], ignore_index=True).to_parquet(days[day + days_late], index=False)
        coups[~late].to_parquet(days[day], index=False)
        return int(late.sum())

    assert file_late(2, 1) >= 1
    parts = audit_both(tmp_path / "parts", tmp_path, exit_code=0)["1"]  # lawful play: no false LOG005
    assert "filed in a later part" not in parts.stderr
    moved = file_late(4, 2)
    farther = runner.invoke(app, ["audit", str(tmp_path / "parts"), "--out", str(tmp_path / "f"), "--by-partition", "--batch-rows", "1"])
    assert farther.exit_code in (0, 1), farther.output
    assert f"{moved} round(s) of cdf_coups are filed in a later part" in farther.stderr


def test_a_step_reads_early_only_the_parts_that_hold_rows_it_audits(tmp_path: Path) -> None:
    """Bets placed after the hour their spin opened in are filed under the next hour. A step of
    several hours reads the next step's first hour with it, for those bets, and not the next
    step's other hours: memory holds a step and a part, not two steps."""
    import re

    import pandas as pd

    simulate(tmp_path / "flat", seed=44, rounds=3000, games=["wheel_of_fortune"], fmt="parquet")
    partition(tmp_path / "flat", tmp_path / "parts", "%Y-%m-%dT%H", items_by_own_time=True)
    hours = sorted((tmp_path / "parts" / "wheel_spins").glob("*.parquet"))
    rows = sum(len(pd.read_parquet(p)) for table in ("wheel_spins", "wheel_bets") for p in (tmp_path / "parts" / table).glob("*.parquet"))
    step = str(rows // 3)  # three steps of several hours each
    assert len(hours) >= 15
    audit_both(tmp_path / "parts", tmp_path, rows=(step,), exit_code=0)
    run = runner.invoke(app, ["audit", str(tmp_path / "parts"), "--out", str(tmp_path / "pp"), "--by-partition", "--batch-rows", step, "--progress"])
    early = [int(n) for n in re.findall(r"wheel_bets: (\d+) later part\(s\) read now", run.stderr)]
    assert early and set(early) == {1}, run.stderr


def test_validate_by_partition_says_what_validate_says_of_the_whole_bundle(tmp_path: Path) -> None:
    """`validate --by-partition` checks a bundle too big to hold against the log format: the same
    lines (files in the same order, the same findings) and exit status as `validate` of it whole."""
    import pandas as pd

    simulate(tmp_path / "flat", seed=12, rounds=1500, games=["chemin_de_fer", "banca_francesa"], fmt="parquet", plant_rate=0.02)
    partition(tmp_path / "flat", tmp_path / "parts", "%Y-%m-%dT%H")
    parts = sorted((tmp_path / "parts" / "dice_bets").glob("*.parquet"))
    first, last = pd.read_parquet(parts[0]), pd.read_parquet(parts[-1])
    first.loc[0, "chips_cents"] = -5  # LOG001
    first.to_parquet(parts[0], index=False)
    pd.concat([last, first.iloc[[1]]], ignore_index=True).to_parquet(parts[-1], index=False)  # LOG002 across parts
    whole = runner.invoke(app, ["validate", str(tmp_path / "parts"), "--show", "1000"])
    by_parts = runner.invoke(app, ["validate", str(tmp_path / "parts"), "--show", "1000", "--by-partition", "--batch-rows", "1"])
    assert whole.exit_code == by_parts.exit_code == 1, whole.output
    assert "LOG001" in whole.stdout and "LOG002" in whole.stdout and f"dice_bets/{parts[-1].name}: read {len(last) + 1}" in whole.stdout
    assert by_parts.stdout == whole.stdout


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
@pytest.mark.parametrize("tz", ["UTC", "Europe/Andorra", "+05:30"])
def test_round_times_taken_from_arrow_are_those_the_load_parses(unit: str, tz: str) -> None:
    """The first pass takes a part's round times from Arrow's integers where Parquet holds instants:
    the same nanoseconds as the load's own parse gives, nulls and times outside 1678-2261 as no time."""
    import numpy as np
    import pyarrow as pa

    from auditor.loading.readers import parquet_frame
    from auditor.schema import TABLES
    from auditor.stream import NO_TIME, _nanoseconds, _times_as_read

    column = TABLES["wheel_spins"].column("ts_open")
    per_second = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}[unit]
    seconds = [0, 1_780_000_000, -9_214_000_000, -9_300_000_000, 9_224_000_000, 9_300_000_000, 1_780_000_000]  # 1678-2262 at ns
    ticks = [s * per_second + (7 if unit != "s" else 0) for s in seconds if unit != "ns" or abs(s) < 9_223_000_000]
    values = pa.chunked_array([pa.array(ticks[:3], pa.timestamp(unit, tz=tz)), pa.array([None, *ticks[3:]], pa.timestamp(unit, tz=tz))])
    expected = _nanoseconds(parquet_frame(pa.table({"ts_open": values}))["ts_open"], column)
    got = _times_as_read(values, column)
    assert got.tolist() == expected.tolist()
    assert (got == NO_TIME).sum() == 1 + (3 if unit != "ns" else 0) and got.dtype == np.int64


def test_a_stake_quarantined_a_part_before_its_coup_leaves_the_coup_unsummed_as_whole(tmp_path: Path) -> None:
    """A stake filed under the day before its coup's, with an unreadable amount, is read (and
    quarantined) with an earlier group than its coup is audited in: the coup's stakes are still
    known to be incomplete there, and CDF110 does not sum them, as in the whole audit."""
    import pandas as pd
    from helpers import CDF_TABLE, stake_row, won

    c1, s1 = won("C1")
    c2, _ = won("C2", stake=12000, bank_cents=c1["bank_after_cents"], bank_event="retained", ts=pd.Timestamp("2026-03-02T21:00:00Z"))
    s2 = [stake_row("C2-S1", "C2", amount=10000, result=-10000), stake_row("C2-S2", "C2", player="P3", seat=3, amount="x", result=-2000)]  # type: ignore[arg-type]
    bundle = tmp_path / "parts"
    for table, days in {"cdf_coups": {"2026-03-01": [c1], "2026-03-02": [c2]},
                        "cdf_stakes": {"2026-03-01": [*s1, s2[1]], "2026-03-02": [s2[0]]}}.items():
        (bundle / table).mkdir(parents=True)
        for day, rows in days.items():
            frame = pd.DataFrame(rows)
            if table == "cdf_stakes":
                frame["amount_cents"] = frame["amount_cents"].astype(str)
            frame.to_parquet(bundle / table / f"{day}.parquet", index=False)
    pd.DataFrame([CDF_TABLE]).to_parquet(bundle / "tables.parquet", index=False)
    audit_both(bundle, tmp_path, rows=("2000000", "1"))
    rules = [json.loads(line)["rule"] for line in (tmp_path / "p1" / "violations.jsonl").read_text().splitlines()]
    assert rules == ["LOG001"]


def test_a_coup_id_written_again_in_a_later_part_sets_its_stakes_aside_as_whole(tmp_path: Path) -> None:
    """A coup of the last part logged under the id of a coup of the first: the stakes naming that id
    may be either's, so neither coup's stakes are judged, whether the first part's group knows of the
    later repeat or not (the first pass over every part's ids tells it)."""
    import pandas as pd

    simulate(tmp_path / "flat", seed=12, rounds=2000, games=["chemin_de_fer"], fmt="parquet")
    partition(tmp_path / "flat", tmp_path / "parts", "%Y-%m-%dT%H")
    parts = sorted((tmp_path / "parts" / "cdf_coups").glob("*.parquet"))
    first, last = pd.read_parquet(parts[0]), pd.read_parquet(parts[-1])
    last.loc[len(last) - 1, "coup_id"] = first.loc[0, "coup_id"]
    last.to_parquet(parts[-1], index=False)
    # A stake of the later coup, filed with it: judged against the first coup it would be over its bank (CDF106).
    stakes = sorted((tmp_path / "parts" / "cdf_stakes").glob("*.parquet"))
    later = pd.read_parquet(stakes[-1])
    extra = later.iloc[[0]].assign(stake_id="S-LATER", coup_id=first.loc[0, "coup_id"], amount_cents=int(first.loc[0, "bank_cents"]) + 1)
    pd.concat([later, extra], ignore_index=True).to_parquet(stakes[-1], index=False)
    audit_both(tmp_path / "parts", tmp_path, rows=("2000000", "1"))
    text = (tmp_path / "p1" / "violations.jsonl").read_text()
    assert text.count('"rule": "LOG002"') == 1 and "S-LATER" not in text


def test_a_coup_written_again_cell_for_cell_in_a_later_part_keeps_its_stakes_as_whole(tmp_path: Path) -> None:
    """A coup of the first part written again, cell for cell, in the last (a file delivered twice):
    one coup, whose stakes are still its own and judged, as in the whole audit, though the first
    part's group is audited before the copy is read. A coup id reused for another coup still sets
    that id's stakes aside."""
    import pandas as pd

    simulate(tmp_path / "flat", seed=12, rounds=2000, games=["chemin_de_fer"], fmt="parquet")
    partition(tmp_path / "flat", tmp_path / "parts", "%Y-%m-%dT%H")
    parts = sorted((tmp_path / "parts" / "cdf_coups").glob("*.parquet"))
    first, last = pd.read_parquet(parts[0]), pd.read_parquet(parts[-1])
    reused = last.iloc[[len(last) - 1]].assign(coup_id=first.loc[1, "coup_id"])
    pd.concat([last, first.iloc[[0]], reused], ignore_index=True).to_parquet(parts[-1], index=False)
    # A stake of each of those coups over its bank (CDF106): judged for the copied coup only.
    stakes = sorted((tmp_path / "parts" / "cdf_stakes").glob("*.parquet"))
    early = pd.read_parquet(stakes[0])
    extra = [early.iloc[[0]].assign(stake_id=f"S-OVER-{n}", coup_id=first.loc[n, "coup_id"], amount_cents=int(first.loc[n, "bank_cents"]) + 1)
             for n in (0, 1)]
    pd.concat([early, *extra], ignore_index=True).to_parquet(stakes[0], index=False)
    audit_both(tmp_path / "parts", tmp_path, rows=("2000000", "1"))
    text = (tmp_path / "p1" / "violations.jsonl").read_text()
    assert text.count('"rule": "LOG002"') == 2 and "S-OVER-0" in text and "S-OVER-1" not in text


def test_a_shoe_whose_last_coup_was_quarantined_a_part_before_is_not_judged_across_as_whole(tmp_path: Path) -> None:
    """The last coup of shoe S1, won by its banker, is quarantined with the first day's part; the
    next day's coup 1 of S2 carries that bank over. The coup before it in the audit, C1, was lost by
    the same banker but was not the shoe's last (no stop card): CDF112 does not judge the pair, by
    partition as whole, since the quarantined coup is known from its own group on."""
    import pandas as pd
    from helpers import coup, lost, won

    c1, s1 = lost("C1")
    c2, s2 = won("C2", stop_card=True, bank_event="rotation")
    c2["cagnotte_cents"] = -5  # LOG001: a negative amount
    c3 = coup("C3", shoe_id="S2", coup_no=1, bank_event="shoe_carryover", ts=pd.Timestamp("2026-03-02T21:00:00Z"))
    bundle = chemin_de_fer_by_day(tmp_path / "parts", {"cdf_coups": {"2026-03-01": [c1, c2], "2026-03-02": [c3]}, "cdf_stakes": {"2026-03-01": s1 + s2}})
    audit_both(bundle, tmp_path, rows=("2000000", "1"))
    assert rules_and_rounds(tmp_path / "p1") == [("LOG001", "C2")]


def test_a_coup_quarantined_at_a_later_time_leaves_an_earlier_shoe_end_judged_as_whole(tmp_path: Path) -> None:
    """C1, lost by banker B1 with no stop card, then coup 1 of shoe S2 carrying the bank over (CDF112
    breached) on the first day; a coup of the same table quarantined on the next day, at a time far
    after that shoe's end, cannot have been S1's last: the pair is judged, by partition as whole,
    whether the quarantined coup is read with the same group or a later one."""
    import pandas as pd
    from helpers import coup, lost

    c1, s1 = lost("C1")
    c3 = coup("C3", shoe_id="S2", coup_no=1, bank_event="shoe_carryover", ts=c1["ts"] + pd.Timedelta(minutes=2))  # type: ignore[operator]
    bad = coup("C9", shoe_id="S2", coup_no=9, cagnotte_cents=-5, ts=pd.Timestamp("2026-03-02T21:00:00Z"))  # LOG001
    bundle = chemin_de_fer_by_day(tmp_path / "parts", {"cdf_coups": {"2026-03-01": [c1, c3], "2026-03-02": [bad]}, "cdf_stakes": {"2026-03-01": s1}})
    audit_both(bundle, tmp_path, rows=("2000000", "1"))
    assert sorted(rules_and_rounds(tmp_path / "p1")) == [("CDF112", "C3"), ("LOG001", "C9")]


def test_a_tables_reads_joined_keep_each_rows_file_named_in_part_order() -> None:
    """The context, rows read early and a group's own, each naming its files by categories of its
    own, joined: every row still names its own file, and the files are listed in part order (as
    the whole audit's load lists them, `part-2` before `part-10`), never turned into text a row."""
    import pandas as pd

    from auditor.stream import _concat

    context = pd.DataFrame({"n": [1, 2], "_file": pd.Categorical(["t/part-10.parquet", "t/part-2.parquet"])})
    own = pd.DataFrame({"n": [3], "_file": pd.Categorical(["t/part-3.parquet"])})
    joined = _concat(context, None, own)
    assert list(joined["n"]) == [1, 2, 3]
    assert list(joined["_file"]) == ["t/part-10.parquet", "t/part-2.parquet", "t/part-3.parquet"]
    assert list(joined["_file"].cat.categories) == ["t/part-2.parquet", "t/part-3.parquet", "t/part-10.parquet"]
