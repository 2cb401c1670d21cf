"""End to end through the command line, on the shipped samples."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
from helpers import SAMPLES, cdf, coup, write_bundle
from typer.testing import CliRunner

from auditor.cli import app
from auditor.rules import REGISTRY

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, [str(a) for a in args])


def findings(out: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (out / "violations.jsonl").read_text(encoding="utf-8").splitlines()]


def keyed(records: list[dict[str, object]]) -> Counter:
    return Counter((r["rule"], r.get("table_id"), r.get("round_id"), r.get("item_id")) for r in records)


@pytest.mark.parametrize("name", ["chemin-de-fer-clean", "wheel-clean", "dice-clean", "tournaments-clean"])
def test_clean_samples_have_no_finding(tmp_path: Path, name: str) -> None:
    result = run("audit", SAMPLES / name, "--out", tmp_path)
    assert result.exit_code == 0, result.output
    assert findings(tmp_path) == []
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["verdict"]["compliant"] is True and summary["totals"]["rows_quarantined"] == 0
    assert (tmp_path / "report.html").exists()


@pytest.mark.parametrize(("name", "prefix"), [("chemin-de-fer-broken", "CDF"), ("wheel-broken", "WHL"), ("dice-broken", "BFR"), ("tournaments-broken", "TRN"), ("casino-month", None)])
def test_broken_samples_give_exactly_the_planted_breaches(tmp_path: Path, name: str, prefix: str | None) -> None:
    result = run("audit", SAMPLES / name, "--out", tmp_path, "--fail-on", "minor")
    assert result.exit_code == 1, result.output
    planted = [json.loads(line) for line in (SAMPLES / f"{name}.planted.jsonl").read_text().splitlines()]
    assert keyed(findings(tmp_path)) == keyed(planted)
    if prefix:
        codes = {c for c in REGISTRY if c.startswith(prefix)}
        assert {r["rule"] for r in planted} == codes, "the broken sample breaks every rule of its game"


def test_malformed_log_reports_each_row_and_reconciles(tmp_path: Path) -> None:
    result = run("audit", SAMPLES / "malformed-log", "--out", tmp_path)
    assert result.exit_code == 1, result.output
    got = {(r["rule"], r["source"]) for r in findings(tmp_path)}
    for line in (3, 5, 7, 9, 11, 13, 15):
        assert ("LOG001", f"cdf_coups.csv:{line}") in got
    assert ("LOG002", "cdf_coups.csv:401") in got
    assert ("LOG001", "dice_throws.parquet") in got
    assert ("LOG001", "tournaments.csv.gz:2") in got
    assert {("LOG004", "wheel_spins.csv"), ("LOG004", "cdf_stakes_old.csv")} <= got
    assert any(r == "LOG003" and s.startswith("wheel_bets.csv:") for r, s in got)
    summary = json.loads((tmp_path / "summary.json").read_text())
    for f in summary["files"]:
        assert f["rows_read"] == f["rows_audited"] + f["rows_quarantined"], f
    quarantined = sum(f["rows_quarantined"] for f in summary["files"])
    assert quarantined == summary["totals"]["rows_quarantined"] == 9


def test_validate_reports_format_problems_only(tmp_path: Path) -> None:
    result = run("validate", SAMPLES / "malformed-log")
    assert result.exit_code == 1
    assert "cdf_coups.csv:3: LOG001" in result.output and "CDF" not in result.output.replace("cdf_", "")
    assert run("validate", SAMPLES / "wheel-clean").exit_code == 0


def test_two_audits_are_byte_identical(tmp_path: Path) -> None:
    for out in ("a", "b"):
        assert run("audit", SAMPLES / "casino-month", "--out", tmp_path / out, "--format", "jsonl").exit_code == 1
    for name in ("violations.jsonl", "summary.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_violations_are_sorted_and_complete(tmp_path: Path) -> None:
    run("audit", SAMPLES / "casino-month", "--out", tmp_path, "--format", "jsonl")
    rows = findings(tmp_path)
    fields = ["rule", "name", "severity", "game", "table_id", "round_id", "item_id", "ts", "expected", "observed", "message", "citation", "source"]
    assert all(list(r) == fields for r in rows)
    keys = [tuple(str(r[k] or "") for k in ("game", "table_id", "ts", "round_id", "rule", "item_id")) for r in rows]
    assert keys == sorted(keys)


@pytest.mark.parametrize(("args", "code"), [
    (["--fail-on", "never"], 0), (["--fail-on", "critical"], 1), (["--select", "CDF134"], 0), (["--select", "CDF134", "--fail-on", "minor"], 1),
    (["--ignore", "CDF"], 0), (["--select", "CDF999"], 2), (["--ignore", "XYZ"], 2), (["--ruleset", "nope"], 2), (["--format", "pdf"], 2),
    (["--lang", "fr"], 2), (["--fail-on", "sometimes"], 2),
])
def test_exit_statuses(tmp_path: Path, args: list[str], code: int) -> None:
    result = run("audit", SAMPLES / "chemin-de-fer-broken", "--out", tmp_path, *args)
    assert result.exit_code == code, result.output


def test_unknown_code_is_named(tmp_path: Path) -> None:
    result = run("audit", SAMPLES / "wheel-clean", "--out", tmp_path, "--select", "WHL999")
    assert result.exit_code == 2 and "WHL999" in result.output


def test_missing_bundle_and_malformed_ruleset(tmp_path: Path) -> None:
    assert run("audit", tmp_path / "nowhere", "--out", tmp_path).exit_code == 2
    bad = tmp_path / "bad.toml"
    bad.write_text("id = 'x'\nversion = '1'\n[parameters.cagnotte_rate]\ndescription='d'\nreference='r'\nvalues={2025-12-10 = 'lots'}\n")
    result = run("audit", SAMPLES / "wheel-clean", "--out", tmp_path, "--ruleset", bad)
    assert result.exit_code == 2 and "cagnotte_rate" in result.output


def test_rules_json_lists_the_whole_catalogue() -> None:
    result = run("rules", "--json")
    assert result.exit_code == 0
    rules = json.loads(result.output)
    assert len(rules) == 68 and {"code", "name", "severity", "game", "citation"} <= set(rules[0])
    assert {r["code"] for r in rules} == set(REGISTRY)


def test_explain_prints_rule_parameters_and_catalan_text() -> None:
    result = run("explain", "cdf101")
    assert result.exit_code == 0
    assert "cagnotte-rate" in result.output and "cagnotte_rate = 2025-12-10: 0.05" in result.output
    assert "5 per 100" in result.output
    assert run("explain", "CDF999").exit_code == 2


def test_simulate_writes_bundle_and_planted_list(tmp_path: Path) -> None:
    assert "--plant-rules" in run("simulate", "--help").output
    out = tmp_path / "sim"
    result = run("simulate", out, "--seed", "3", "--rounds", "300", "--games", "cdf,wheel", "--format", "parquet", "--plant-rules", "WHL202")
    assert result.exit_code == 0, result.output
    assert (out / "cdf_coups.parquet").exists() and (out / "manifest.json").exists()
    planted = (tmp_path / "sim.planted.jsonl").read_text().splitlines()
    assert [json.loads(p)["rule"] for p in planted] == ["WHL202"]
    assert run("simulate", out, "--games", "poker").exit_code == 2


def test_no_progress_noise_when_not_a_terminal(tmp_path: Path) -> None:
    result = runner.invoke(app, ["audit", str(SAMPLES / "wheel-clean"), "--out", str(tmp_path)])
    assert "[" not in result.output.split("\n")[0][:3]


def test_workers_give_the_same_findings(tmp_path: Path) -> None:
    for out, workers in (("one", "1"), ("two", "2")):
        run("audit", SAMPLES / "casino-month", "--out", tmp_path / out, "--format", "jsonl", "--workers", workers)
    assert (tmp_path / "one" / "violations.jsonl").read_bytes() == (tmp_path / "two" / "violations.jsonl").read_bytes()


def test_partitioned_sample_audited_by_partition_equals_whole(tmp_path: Path) -> None:
    bundle = SAMPLES / "casino-month-by-day"
    assert run("audit", bundle, "--out", tmp_path / "w", "--format", "jsonl").exit_code == 1
    assert run("audit", bundle, "--out", tmp_path / "p", "--format", "jsonl", "--by-partition", "--batch-rows", "1").exit_code == 1
    for name in ("violations.jsonl", "summary.json"):
        assert (tmp_path / "w" / name).read_bytes() == (tmp_path / "p" / name).read_bytes()


@pytest.mark.parametrize(("name", "how"), [("casino-month", []), ("casino-month-by-day", []), ("casino-month-by-day", ["--by-partition", "--batch-rows", "2000"])])
def test_columns_read_as_categories_give_the_same_outputs_as_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, how: list[str]) -> None:
    """A big Parquet file's enums and text held as codes are read as categories (a month's, from
    `readers.DICTIONARY_ROWS` rows a file); the samples' files are smaller, so every rule, figure and
    output meets those columns as text here unless the bound is lowered. Both readings must give the
    same violations, summary and report (its evidence shows every cell of a reported row), byte for
    byte but for the minute the report was written."""
    from auditor.loading import readers
    from auditor.loading.bundle import load_bundle

    assert run("audit", SAMPLES / name, *how, "--out", tmp_path / "text", "--format", "jsonl,html").exit_code == 1
    monkeypatch.setattr(readers, "DICTIONARY_ROWS", 0)
    frames = load_bundle(SAMPLES / name).frames
    assert all(isinstance(frames[t][c].dtype, pd.CategoricalDtype) for t, c in [("cdf_coups", "status"), ("cdf_coups", "table_id"), ("cdf_stakes", "player_id"), ("wheel_bets", "player_id"), ("dice_throws", "launcher_id")])
    assert run("audit", SAMPLES / name, *how, "--out", tmp_path / "codes", "--format", "jsonl,html").exit_code == 1
    for out in ("violations.jsonl", "summary.json"):
        assert (tmp_path / "codes" / out).read_bytes() == (tmp_path / "text" / out).read_bytes(), out
    written = re.compile(r"<dd>\d{4}-\d\d-\d\d \d\d:\d\d UTC · auditor ")
    reports = [written.sub("", (tmp_path / out / "report.html").read_text(encoding="utf-8")) for out in ("codes", "text")]
    assert reports[0] == reports[1]


def test_make_samples_reproduces_the_committed_samples(tmp_path: Path) -> None:
    """The shipped samples are what `make samples` writes: a change to the simulator that moves them
    must regenerate them. Parquet bytes (and the digests of bundles holding Parquet) depend on the
    pyarrow version, so those are compared by presence only."""
    from auditor.simulate.samples import main

    main(tmp_path / "samples")
    committed = {p.relative_to(SAMPLES): p for p in SAMPLES.rglob("*") if p.is_file()}
    regenerated = {p.relative_to(tmp_path / "samples"): p for p in (tmp_path / "samples").rglob("*") if p.is_file()}
    assert set(regenerated) == set(committed)
    for rel, path in committed.items():
        holds_parquet = any(path.parent.rglob("*.parquet"))
        if rel.suffix == ".parquet" or (rel.name == "manifest.json" and holds_parquet):
            continue
        assert regenerated[rel].read_bytes() == path.read_bytes(), rel


def test_validate_never_prints_a_cell_s_escape_sequence_to_the_terminal(tmp_path: Path) -> None:
    write_bundle(tmp_path / "b", cdf([coup("C1", bank_event="\x1b]0;pwned\x07\x1b[2J")]))
    result = runner.invoke(app, ["validate", str(tmp_path / "b")])
    assert result.exit_code == 1
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "\\x1b]0;pwned\\x07" in result.output


def test_audit_help_states_the_defaults_it_promises() -> None:
    # Rich reads "[...]" in help text as markup and drops it: the default output directory vanished.
    result = runner.invoke(app, ["audit", "--help"], env={"COLUMNS": "300", "NO_COLOR": "1"})
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    assert "(default: reports/<bundle name>/)" in text
    assert "(default: when stderr is a terminal)" in text


def test_an_audit_that_cannot_finish_exits_2_not_1(tmp_path: Path) -> None:
    # Exit 1 means "findings" to a CI pipeline: a crash (here: the report cannot be written) must
    # not read as an audit that ran and found something.
    import subprocess
    import sys

    (tmp_path / "out" / "report.html").mkdir(parents=True)
    done = subprocess.run([sys.executable, "-m", "auditor", "audit", str(SAMPLES / "dice-clean"), "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 2, done.stderr
    assert "the audit did not finish: IsADirectoryError" in done.stderr and "Traceback" not in done.stderr
    # The outputs finished stay, the directory in the report's way is left as it is, nothing half-written.
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["report.html", "summary.json", "violations.jsonl"]
    assert (tmp_path / "out" / "report.html").is_dir()


def test_an_audit_that_ran_no_rule_says_it_checked_nothing(tmp_path: Path) -> None:
    ignored = runner.invoke(app, ["audit", str(SAMPLES / "dice-clean"), "--out", str(tmp_path / "a"), "--ignore", "LOG,CDF,WHL,BFR,TRN"])
    assert ignored.exit_code == 0 and "leave no rule to run: the audit checked nothing" in ignored.stderr
    assert "l'auditoria no ha comprovat res" in (tmp_path / "a" / "report.html").read_text(encoding="utf-8").replace("&#39;", "'")
    absent = runner.invoke(app, ["audit", str(SAMPLES / "dice-clean"), "--out", str(tmp_path / "b"), "--select", "TRN"])
    assert absent.exit_code == 0 and "none of the 8 rule(s) selected could run (no tournament" in absent.stderr
    some = runner.invoke(app, ["audit", str(SAMPLES / "dice-clean"), "--out", str(tmp_path / "c"), "--select", "BFR301"])
    assert "checked nothing" not in some.stderr


def test_an_empty_bundle_says_no_play_was_audited(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    result = runner.invoke(app, ["audit", str(tmp_path / "b"), "--out", str(tmp_path / "o"), "--lang", "en"])
    assert result.exit_code == 0 and "the bundle holds no file of the log format: no play was audited" in result.stderr
    assert "no play was audited" in (tmp_path / "o" / "report.html").read_text(encoding="utf-8")
    checked = runner.invoke(app, ["validate", str(tmp_path / "b")])
    assert checked.exit_code == 0 and "holds no file of the log format: nothing was checked" in checked.stderr
