"""The log rules LOG002-LOG005 (LOG001 is covered by test_loading)."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import CDF_TABLE, at, audit, cdf, coup, found, stake_row, write_bundle

from auditor.engine import run_audit
from auditor.loading import load_bundle
from auditor.rules import select_rules
from auditor.ruleset import load_ruleset
from auditor.simulate.writer import sha256


def _log(path: Path, code: str):
    return run_audit(load_bundle(path), load_ruleset(), select_rules(code), lang="en").findings


def test_log002_later_duplicates_are_reported_and_quarantined(tmp_path: Path) -> None:
    stakes = [stake_row("S1"), stake_row("S2"), stake_row("S1", player="P9")]
    f = audit(tmp_path, cdf([coup("C1")], stakes), "LOG002", quarantine_ok=True)
    assert found(f) == [("C1", "S1")] and list(f["source"]) == ["cdf_stakes.csv:3"]
    assert "first at cdf_stakes.csv:1" in f.iloc[0]["message"]


def test_log002_counts_only_rows_that_passed_log001_and_spans_files(tmp_path: Path) -> None:
    # Row 1 of the CSV is quarantined (LOG001): the first *audited* S1 is row 2, and the JSONL
    # file's S1 and S2 are later occurrences of ids the CSV holds.
    stakes = [stake_row("S1", amount=-5), stake_row("S1"), stake_row("S2"), stake_row("S1", player="P9")]
    write_bundle(tmp_path, cdf([coup("C1")], stakes))
    write_bundle(tmp_path, {"cdf_stakes": [stake_row("S2", player="P7"), stake_row("S3")]}, fmt="jsonl")
    bundle = load_bundle(tmp_path)
    q = bundle.quarantine.sort_values(["file", "line"])
    assert list(zip(q["rule"], q["file"], q["line"], strict=True)) == [
        ("LOG001", "cdf_stakes.csv", 1), ("LOG002", "cdf_stakes.csv", 4), ("LOG002", "cdf_stakes.jsonl", 1)
    ]
    reasons = dict(zip(q["line"], q["reason"], strict=True))
    assert reasons[4].endswith("first at cdf_stakes.csv:2") and q.iloc[2]["reason"].endswith("first at cdf_stakes.csv:3")
    assert sorted(bundle.frames["cdf_stakes"]["stake_id"]) == ["S1", "S2", "S3"]
    assert sorted(bundle.ids_seen["cdf_coups"].to_pylist()) == ["C1"]
    assert "cdf_stakes" not in bundle.ids_seen  # no record names a stake (LOG003): its ids are not kept
    counts = {f.name: (f.rows_read, f.rows_quarantined) for f in bundle.files}
    assert counts["cdf_stakes.csv"] == (4, 2) and counts["cdf_stakes.jsonl"] == (2, 1)


def test_log003_orphans_and_wrong_game(tmp_path: Path) -> None:
    wheel = CDF_TABLE | {"table_id": "W1", "game": "wheel_of_fortune"}
    tables = {"tables": [CDF_TABLE, wheel], "cdf_coups": [coup("C1"), coup("C2", table_id="W1", shoe_id="X"), coup("C3", table_id="T9", shoe_id="Y")],
              "cdf_stakes": [stake_row("S1", "C1"), stake_row("S2", "C404")]}
    f = audit(tmp_path, tables, "LOG003")
    assert sorted(found(f), key=str) == sorted([("C2", None), ("C3", None), ("C404", "S2")], key=str)


def test_log003_without_tables_file(tmp_path: Path) -> None:
    write_bundle(tmp_path, {"cdf_coups": [coup("C1"), coup("C2")]})
    f = _log(tmp_path, "LOG003")
    assert len(f) == 1 and "no `tables` file" in f.iloc[0]["message"]


def test_log003_when_a_parent_file_cannot_be_read_says_so_once_per_child_file(tmp_path: Path) -> None:
    # The coups file is garbage: its stakes may name coups it holds. One finding per stake file,
    # with the count, not one per stake (a corrupt month of coups would bury LOG001 under millions).
    write_bundle(tmp_path, cdf([coup("C1")], [stake_row("S1", "C1"), stake_row("S2", "C1"), stake_row("S3", "C2")]))
    (tmp_path / "cdf_coups.csv").write_bytes(b"\x00\x01 not a csv at all")
    write_bundle(tmp_path, {"cdf_stakes": [stake_row("S4", "C3")]}, fmt="jsonl")
    f = _log(tmp_path, "LOG003")
    assert sorted(f["source"]) == ["cdf_stakes.csv", "cdf_stakes.jsonl"]
    messages = dict(zip(f["source"], f["message"], strict=True))
    assert "3 record(s) of cdf_stakes name a coup_id not among the cdf_coups read" in messages["cdf_stakes.csv"]
    assert "1 record(s)" in messages["cdf_stakes.jsonl"] and f["round_id"].isna().all()


def test_log004_manifest_digests(tmp_path: Path) -> None:
    write_bundle(tmp_path, cdf([coup("C1")]))
    files = {"tables.csv": "sha256:" + sha256(tmp_path / "tables.csv"), "cdf_coups.csv": "sha256:" + "0" * 64,
             "gone.csv": "sha256:" + "1" * 64, "../../etc/passwd": "sha256:" + "2" * 64}
    (tmp_path / "manifest.json").write_text(json.dumps({"format": "casino-audit-log", "version": 1, "files": files}))
    f = _log(tmp_path, "LOG004")
    assert sorted(f["source"]) == ["../../etc/passwd", "cdf_coups.csv", "gone.csv"]
    assert "outside the bundle" in f.set_index("source").loc["../../etc/passwd", "message"]


def test_log004_manifest_not_json(tmp_path: Path) -> None:
    write_bundle(tmp_path, cdf([coup("C1")]))
    (tmp_path / "manifest.json").write_text("{nope")
    f = _log(tmp_path, "LOG004")
    assert list(f["source"]) == ["manifest.json"]


def test_log005_sequence(tmp_path: Path) -> None:
    coups = [coup("C1"), coup("C2"), coup("C4", coup_no=4), coup("C5", coup_no=5, ts=at(60)), coup("C6", coup_no=5, ts=at(500)),
             coup("C7", shoe_id="S2", coup_no=1, ts=at(900)), coup("C8", shoe_id="S2", coup_no=2, ts=at(960))]
    f = audit(tmp_path, cdf(coups), "LOG005")
    assert found(f) == [("C5", None), ("C4", None), ("C6", None)]
    assert set(f["observed"].astype(str)) >= {"4", "5"}


def test_log005_a_repeated_coup_no_names_the_later_coup_whatever_the_row_order(tmp_path: Path) -> None:
    """Row order carries no meaning: of two coups numbered 2, the repeat is the one dealt later."""
    early, late = coup("C2", ts=at(120)), coup("C9", coup_no=2, ts=at(150))
    for name, twos in (("a", [early, late]), ("b", [late, early])):
        f = audit(tmp_path / name, cdf([coup("C1"), *twos, coup("C3")]), "LOG005")
        assert found(f) == [("C9", None)]
        assert list(f["observed"].astype(str)) == ["2"]


def test_log005_two_coups_with_one_coup_no_at_one_time_the_repeat_is_the_later_id_whatever_the_row_order(tmp_path: Path) -> None:
    first, repeat = coup("C2", ts=at(120)), coup("C9", coup_no=2, ts=at(120))
    for name, twos in (("a", [first, repeat]), ("b", [repeat, first])):
        assert found(audit(tmp_path / name, cdf([coup("C1"), *twos, coup("C3")]), "LOG005")) == [("C9", None)]
