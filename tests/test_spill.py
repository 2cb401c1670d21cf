"""Findings spilled to disk by the partition audit: the outputs are those of the findings held in
memory, byte for byte, and what stays in memory is bounded by the cases, not the findings."""

from __future__ import annotations

import json
import random
import tempfile
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
from helpers import SAMPLES
from typer.testing import CliRunner

from auditor.cli import app
from auditor.engine import FINDING_COLUMNS, sorted_findings
from auditor.report import html, junit
from auditor.report.outputs import first_of_cases, violation_lines
from auditor.rules import select_rules
from auditor.ruleset import load_ruleset
from auditor.schema import REPORTED_ON
from auditor.spill import KEEP, FindingRuns, per_day
from auditor.stream import audit_by_partition, layout

BY_DAY = SAMPLES / "casino-month-by-day"
runner = CliRunner()

# Texts whose order as bytes a join of them could get wrong: a text, the same with a NUL after it,
# with more after the NUL, with more and no NUL; missing (sorts as ""); and the empty text.
HOSTILE = ["a", "a\x00", "a\x00b", "ab", None, "", "\x00", "é", "a\u2028"]


def findings_frame(n: int, seed: int) -> pd.DataFrame:
    """`n` findings, typed as the engine types them, whose keys tie often and hold `HOSTILE` texts."""
    rng = random.Random(seed)
    rules = [("CDF101", "cagnotte-rate", "major", "chemin_de_fer"), ("WHL208", "late-bet", "critical", "wheel_of_fortune"),
             ("LOG001", "malformed-row", "major", "log")]
    rows = []
    for i in range(n):
        code, name, severity, game = rng.choice(rules)
        day = rng.choice(["2026-03-01", "2026-03-02"])
        rows.append({
            "rule": code, "name": name, "severity": severity, "game": game,
            "table_id": rng.choice(["T1", "T2", None, "T1\x00"]), "round_id": rng.choice(HOSTILE), "item_id": rng.choice(HOSTILE),
            "ts": rng.choice([f"{day}T22:00:00+00:00", f"{day}T23:30:00+00:00", None]),
            "expected": rng.choice([2500, "2500", None, 1.5]), "observed": rng.choice([2000, "late", None]),
            "message": rng.choice(["m", "m\x00", "m\u2028n"]), "citation": "Decret 455/2025, epígraf 8, V",
            "source": rng.choice(["cdf_coups.csv:3", "cdf_coups.csv:12", f"x.csv:{i}"]),
        })
    frame = pd.DataFrame(rows, columns=FINDING_COLUMNS)
    for col in ("rule", "name", "severity", "game", "citation"):
        frame[col] = frame[col].astype("category")
    for col in ("table_id", "round_id", "item_id", "ts", "message", "source"):
        frame[col] = frame[col].astype("str")
    return frame


def parts_of(frame: pd.DataFrame, sizes: list[int]) -> list[pd.DataFrame]:
    at, parts = 0, []
    for size in sizes:
        parts.append(frame.iloc[at : at + size].reset_index(drop=True))
        at += size
    return parts


@pytest.mark.parametrize(("seed", "spill_rows", "merge_rows"), [(1, 1, 1), (2, 7, 50), (3, 40, 3), (4, 10_000, 100)])
def test_the_merged_runs_are_the_lines_of_the_findings_sorted_in_memory(seed: int, spill_rows: int, merge_rows: int) -> None:
    frame = findings_frame(300, seed)
    sizes = [random.Random(seed).randint(0, 40) for _ in range(20)]
    sizes.append(300 - sum(sizes))
    expected = violation_lines(sorted_findings(parts_of(frame, sizes)))
    runs = FindingRuns("Europe/Andorra", spill_rows=spill_rows, keep=3)
    for part in parts_of(frame, sizes):
        runs.add(part)
    first, spilled = runs.finish()
    if spill_rows > 300:  # never past the bound: all in memory, sorted
        assert spilled is None and violation_lines(first).equals(expected)
        return
    assert spilled is not None and len(spilled.runs) > 1
    got = b"".join(line.as_py().encode() for lines in spilled.lines(merge_rows=merge_rows) for line in lines)
    assert got == b"".join(line.as_py().encode() for line in expected)
    whole = sorted_findings([frame])
    # Kept: the first three of each (rule, table), in the findings' order.
    assert violation_lines(first).equals(violation_lines(first_of_cases(whole, 3)))
    tally = spilled.tally
    assert tally.total == 300
    assert tally.by_rule == Counter(frame["rule"].astype(str))
    assert tally.by_severity == Counter(frame["severity"].astype(str))
    assert tally.by_case == Counter((str(r), None if pd.isna(t) else str(t)) for r, t in zip(frame["rule"], frame["table_id"], strict=True))
    assert tally.days() == per_day(frame["ts"], "Europe/Andorra")
    spilled.close()
    assert not any(run.exists() for run in spilled.runs)


@pytest.mark.parametrize("spill_rows", [None, 7])
def test_the_ids_kept_are_those_of_the_findings_held_and_the_first_spilled(spill_rows: int | None) -> None:
    """What a turn's let-go keeps rows of: each round and item id of the findings held, and of the
    first KEEP of each case spilled, once, missing ids none."""
    frame = findings_frame(60, 5)
    runs = FindingRuns("Europe/Andorra", spill_rows=spill_rows, keep=3)
    for part in parts_of(frame, [20, 20, 20]):
        runs.add(part)
    rounds, items = runs.kept_ids()
    shown = [*runs.pending, *([runs.first] if runs.first is not None else [])]
    for got, column in ((rounds, "round_id"), (items, "item_id")):
        expected = set().union(*(set(p[column].dropna()) for p in shown))
        assert sorted(got.to_pylist()) == sorted(expected) and len(got) == len(expected)
    assert runs.spilled == (spill_rows is not None)


def test_what_is_kept_covers_what_the_outputs_show() -> None:
    """The report shows the first PER_RULE findings of a rule, junit.xml the first MAX_LISTED of a
    rule and table: each is among the first KEEP of its rule and table only if KEEP is as many."""
    assert html.PER_RULE <= KEEP and junit.MAX_LISTED <= KEEP


def outputs(out: Path) -> dict[str, bytes]:
    got = {name: (out / name).read_bytes() for name in ("violations.jsonl", "summary.json", "junit.xml")}
    # Only the report's generation time may differ.
    got["report.html"] = b"\n".join(line for line in (out / "report.html").read_bytes().splitlines() if b" UTC" not in line)
    return got


@pytest.mark.parametrize(("bundle", "how"), [(BY_DAY, ["--by-partition", "--batch-rows", "3000"]), (SAMPLES / "casino-month", []),
                                            (SAMPLES / "casino-month", ["--workers", "1"]), (SAMPLES / "malformed-log", [])])
def test_an_audit_spilling_every_finding_writes_the_outputs_of_one_that_does_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bundle: Path, how: list[str],
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    common = ["audit", str(bundle), *how, "--format", "html,jsonl,junit", "--lang", "en"]
    held = runner.invoke(app, [*common, "--out", str(tmp_path / "held")])
    spilled = runner.invoke(app, [*common, "--out", str(tmp_path / "spilled"), "--findings-in-memory", "1"])
    assert held.exit_code == spilled.exit_code == 1, spilled.output
    assert held.stdout.replace("held", "spilled") == spilled.stdout
    assert outputs(tmp_path / "held") == outputs(tmp_path / "spilled")
    assert json.loads((tmp_path / "spilled" / "summary.json").read_text())["findings"]["total"] > 20
    assert list((tmp_path / "tmp").iterdir()) == []  # the runs are removed once written out


@pytest.mark.parametrize(("bundle", "how"), [(BY_DAY, ["--by-partition", "--batch-rows", "3000"]), (SAMPLES / "malformed-log", [])])
def test_validate_prints_the_same_when_its_findings_are_spilled(bundle: Path, how: list[str]) -> None:
    common = ["validate", str(bundle), *how, "--show", "1"]
    held = runner.invoke(app, common)
    spilled = runner.invoke(app, [*common, "--findings-in-memory", "1"])
    assert held.exit_code == spilled.exit_code
    assert held.stdout == spilled.stdout and "more" in held.stdout


def test_spilled_findings_keep_only_the_evidence_of_those_kept(tmp_path: Path) -> None:
    result, _, _ = audit_by_partition(BY_DAY, load_ruleset(), select_rules(), batch_rows=3000, spill_rows=1, keep=1)
    assert result.spilled is not None
    total = result.spilled.tally.total
    assert len(result.findings) < total  # one of each rule and table, not all
    rounds = set(result.findings["round_id"].dropna())
    items = set(result.findings["item_id"].dropna())
    held = 0
    for table, (round_col, item_col) in REPORTED_ON.items():
        frame = result.bundle.frames.get(table)
        if frame is None or not round_col or table not in layout(BY_DAY).parts:  # an unpartitioned table is whole
            continue
        ids = set(frame[item_col or round_col].astype(str))
        assert ids <= (items if item_col else rounds), table
        held += len(frame)
    assert held  # the kept findings' rounds are there for the report to show
    result.spilled.close()


@pytest.mark.parametrize("how", [["--by-partition"], [], ["--workers", "1"]])
def test_a_spill_that_cannot_be_written_stops_the_audit_clearly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: list[str]) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "no-such-dir"))
    got = runner.invoke(app, ["audit", str(BY_DAY), *how, "--out", str(tmp_path / "out"), "--findings-in-memory", "1"])
    assert got.exit_code == 2
    assert "cannot write the findings past 1" in got.stderr and "no-such-dir" in got.stderr and "TMPDIR" in got.stderr


def test_a_whole_audit_spills_past_its_bound_from_the_games_threads() -> None:
    from auditor.engine import audit_bundle

    ruleset = load_ruleset()
    result = audit_bundle(SAMPLES / "casino-month", ruleset, select_rules(), found=FindingRuns(ruleset.timezone, spill_rows=10, keep=1))
    assert result.spilled is not None and len(result.spilled.runs) > 2
    assert result.spilled.tally.total > len(result.findings)  # one of each rule and table kept
    held = audit_bundle(SAMPLES / "casino-month", ruleset, select_rules())
    assert held.spilled is None
    assert b"".join(line.as_py().encode() for lines in result.spilled.lines() for line in lines) == b"".join(
        line.as_py().encode() for line in violation_lines(held.findings))
    result.spilled.close()


def test_findings_per_day_are_counted_in_the_casino_s_calendar_however_their_times_are_written() -> None:
    """A finding's day is its time's date in the ruleset's zone (a night's play one day, summer time
    from the last Sunday of March): the times the findings write (UTC, whole or fractional seconds)
    are read by Arrow; other ISO forms, a missing time and a time no one can read give what pandas'
    reading of each gives (the unreadable one in no day)."""
    from auditor.spill import _per_day_parsed

    written = pd.Series(["2026-03-28T22:59:59.999999+00:00", "2026-03-28T23:00:00+00:00",  # 23:59:59, then 00:00 in Andorra
                         "2026-03-29T21:59:59+00:00", "2026-03-29T22:00:00.5+00:00",  # summer time: 23:59:59, then 00:00:00.5
                         None, "1969-12-31T22:59:59.5+00:00"], dtype="str")  # 23:59:59.5 in Andorra
    assert per_day(written, "Europe/Andorra") == {"1969-12-31": 1, "2026-03-28": 1, "2026-03-29": 2, "2026-03-30": 1}
    assert per_day(written, "Europe/Andorra") == _per_day_parsed(written, "Europe/Andorra")
    assert per_day(written, "UTC") == {"1969-12-31": 1, "2026-03-28": 2, "2026-03-29": 2}
    other = pd.Series(["2026-03-28T23:30:00Z", "2026-03-29T01:30:00+02:00", "not a time"], dtype="str")
    assert per_day(other, "Europe/Andorra") == _per_day_parsed(other, "Europe/Andorra") == {"2026-03-29": 2}
    assert per_day(pd.Series([], dtype="str"), "Europe/Andorra") == {}
