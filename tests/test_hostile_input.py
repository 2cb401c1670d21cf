"""Malformed, hostile or huge input never crashes the audit and never runs code: every such file
ends as findings (exit 1), or as a clear error when the bundle itself is unusable (exit 2)."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers import CDF_TABLE, cdf, coup, json_record, write_bundle
from typer.testing import CliRunner

from auditor.cli import app
from auditor.report import outputs

runner = CliRunner()


def audit(bundle: Path, out: Path):
    result = runner.invoke(app, ["audit", str(bundle), "--out", str(out), "--format", "html,jsonl,junit"])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


GARBAGE = [
    ("cdf_coups.csv", os.urandom(5000)),
    ("cdf_coups.csv.gz", gzip.compress(os.urandom(5000))),
    ("cdf_coups.jsonl", os.urandom(5000)),
    ("cdf_coups.jsonl.gz", b"\x1f\x8b\x08\x00truncated"),
    ("cdf_coups.parquet", b"PAR1" + os.urandom(3000) + b"PAR1"),
    ("cdf_coups.jsonl", b"[" * 100_000 + b"]" * 100_000 + b"\n"),
    ("cdf_coups.jsonl", b'{"coup_id": {"nested": [1, 2, {"x": null}]}, "bank_cents": 1e400}\n[1, 2]\nnull\n"text"\n'),
    ("cdf_coups.csv", b"coup_id,coup_id\nC1,C2\n"),
    ("cdf_coups.csv", b'coup_id,table_id\n"unterminated,T1\n'),
    ("cdf_coups.csv", b"coup_id,table_id,shoe_id\n" + b"x" * 20_000_000 + b",T1,S1\n"),
]


@pytest.mark.parametrize(("name", "content"), GARBAGE, ids=[f"{n}-{i}" for i, (n, _) in enumerate(GARBAGE)])
def test_garbage_files_become_findings(tmp_path: Path, name: str, content: bytes) -> None:
    write_bundle(tmp_path / "b", cdf([coup("C1")]))
    (tmp_path / "b" / "cdf_coups.csv").unlink()
    (tmp_path / "b" / name).write_bytes(content)
    result = audit(tmp_path / "b", tmp_path / "o")
    assert result.exit_code == 1, result.output
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    for f in summary["files"]:
        assert f["rows_read"] == f["rows_audited"] + f["rows_quarantined"]
    assert summary["findings"]["by_rule"].get("LOG001", 0) >= 1


def test_parquet_with_wrong_column_types(tmp_path: Path) -> None:
    write_bundle(tmp_path / "b", {"tables": [CDF_TABLE]})
    table = pa.table({"coup_id": ["C1", "C2"], "table_id": ["T1", "T1"], "shoe_id": ["S", "S"], "coup_no": [[1], [2]],
                      "ts": ["2026-03-01T20:00:00+00:00", "soon"], "players_seated": [5.0, 5.5]})
    pq.write_table(table, tmp_path / "b" / "cdf_coups.parquet")
    result = audit(tmp_path / "b", tmp_path / "o")
    assert result.exit_code == 1


def test_manifest_that_is_not_an_object_or_escapes_the_bundle(tmp_path: Path) -> None:
    write_bundle(tmp_path / "b", cdf([coup("C1")]))
    (tmp_path / "b" / "manifest.json").write_text(json.dumps(["cdf_coups.csv"]))
    assert audit(tmp_path / "b", tmp_path / "o").exit_code == 1
    (tmp_path / "b" / "manifest.json").write_text(json.dumps({"files": {"/etc/passwd": "sha256:00", "../x": 5}}))
    assert audit(tmp_path / "b", tmp_path / "o2").exit_code == 1


def test_an_empty_bundle_is_audited_with_nothing_found(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = audit(tmp_path / "empty", tmp_path / "o")
    assert result.exit_code == 0
    assert json.loads((tmp_path / "o" / "summary.json").read_text())["files"] == []


def test_a_file_instead_of_a_bundle_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "f.csv").write_text("x")
    result = audit(tmp_path / "f.csv", tmp_path / "o")
    assert result.exit_code == 2 and "not a directory" in result.output


def test_amounts_whose_sums_pass_int64_are_summed_exactly(tmp_path: Path) -> None:
    """Parquet holds any int64: the per-table figures must not wrap around (and nothing crashes)."""
    tables = cdf([coup("C1"), coup("C2")])
    tables["cdf_coups"][0]["cagnotte_cents"] = 2**62
    tables["cdf_coups"][1]["cagnotte_cents"] = 2**62
    write_bundle(tmp_path / "b", tables, fmt="parquet")
    result = audit(tmp_path / "b", tmp_path / "o")
    assert result.exit_code == 1, result.output  # a cagnotte on a tie is a finding
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["tables"][0]["cagnotte_cents"] == 2**63
    assert "92 233 720 368 547 758.08 €" in (tmp_path / "o" / "report.html").read_text()


def test_a_link_to_a_file_outside_the_bundle_is_never_read(tmp_path: Path) -> None:
    # The linked file's bad cells would otherwise be quoted, as LOG001 values, in the report.
    write_bundle(tmp_path / "elsewhere", cdf([coup("C1", bank_event="TOP-SECRET-1")]))
    write_bundle(tmp_path / "b", cdf([coup("C1")]))
    (tmp_path / "b" / "cdf_coups.csv").unlink()
    (tmp_path / "b" / "cdf_coups.csv").symlink_to(tmp_path / "elsewhere" / "cdf_coups.csv")
    result = audit(tmp_path / "b", tmp_path / "o")
    assert result.exit_code == 1
    for name in ("violations.jsonl", "summary.json", "report.html", "junit.xml"):
        assert "TOP-SECRET" not in (tmp_path / "o" / name).read_text(), name
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    linked = next(f for f in summary["files"] if f["name"] == "cdf_coups.csv")
    assert "outside the bundle" in linked["error"] and linked["rows_read"] == 0


def test_a_linked_partition_outside_the_bundle_is_never_read_by_partition(tmp_path: Path) -> None:
    from auditor.simulate import simulate
    from auditor.simulate.partition import partition

    simulate(tmp_path / "flat", seed=5, rounds=400, games=["chemin_de_fer"], fmt="parquet")
    partition(tmp_path / "flat", tmp_path / "parts", "%Y-%m-%dT%H")
    last = sorted((tmp_path / "parts" / "cdf_coups").glob("*.parquet"))[-1]
    secret = tmp_path / "secret.parquet"
    pq.write_table(pa.table({"coup_id": ["C1"], "table_id": ["TOP-SECRET-2"]}), secret)
    last.unlink()
    last.symlink_to(secret)
    for extra in ([], ["--by-partition"]):
        result = runner.invoke(app, ["audit", str(tmp_path / "parts"), "--out", str(tmp_path / "o"), "--format", "jsonl", *extra])
        assert result.exit_code == 1, result.output
        text = (tmp_path / "o" / "violations.jsonl").read_text()
        assert "TOP-SECRET" not in text and "outside the bundle" in text


def test_control_characters_in_a_cell_keep_junit_parseable_and_show_in_the_report(tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    write_bundle(tmp_path / "b", cdf([coup("C1", bank_event="x\x01\x1b[31mRED\x00")]))
    result = audit(tmp_path / "b", tmp_path / "o")
    assert result.exit_code == 1
    ET.parse(tmp_path / "o" / "junit.xml")  # XML 1.0 cannot hold \x01 or \x00
    assert "x\\x01\\x1b[31mRED\\x00" in (tmp_path / "o" / "junit.xml").read_text()
    html = (tmp_path / "o" / "report.html").read_text()
    assert "\x1b" not in html and "\x00" not in html and "x\\x01\\x1b[31mRED\\x00" in html
    found = [json.loads(line) for line in (tmp_path / "o" / "violations.jsonl").read_text().splitlines()]
    assert any(f["observed"] == "x\x01\x1b[31mRED\x00" for f in found)  # the machine-readable value stays exact


def test_unicode_line_separators_in_a_cell_keep_one_finding_a_line(tmp_path: Path) -> None:
    value = "a\u2028b\u2029c\x85d"
    write_bundle(tmp_path / "b", cdf([coup("C1", bank_event=value), coup("C2", bank_event="e\u2028")]))
    result = audit(tmp_path / "b", tmp_path / "o")
    assert result.exit_code == 1
    text = (tmp_path / "o" / "violations.jsonl").read_text(encoding="utf-8")
    found = [json.loads(line) for line in text.splitlines()]  # the way many readers split lines
    assert len(found) == text.count("\n") and "\u2028" not in text
    assert {f["observed"] for f in found if f["rule"] == "LOG001"} >= {value, "e\u2028"}  # the values stay exact


@pytest.mark.parametrize("block", [1, 2, 3, 8, 1 << 20])
def test_line_breaks_are_found_wherever_they_fall_in_the_bytes(monkeypatch: pytest.MonkeyPatch, block: int) -> None:
    # Small blocks put breaks across every edge; the bytes are drawn from the breaks' own pieces.
    monkeypatch.setattr(outputs, "_BLOCK", block)
    rng = np.random.default_rng(block)
    pieces = [b"a", b"\xc2", b"\x85", b"\xe2", b"\x80", b"\xa8", b"\xa9", b"\xc3", b"\n"]
    seen = set()
    for _ in range(3000):
        data = b"".join(pieces[k] for k in rng.integers(0, len(pieces), rng.integers(0, 24)))
        expected = any(brk in data for brk in (b"\xc2\x85", b"\xe2\x80\xa8", b"\xe2\x80\xa9"))
        assert outputs.has_line_breaks(np.frombuffer(data, dtype=np.uint8)) == expected, data
        seen.add(expected)
    assert seen == {True, False}


@pytest.mark.parametrize("name", ["cdf_coups.csv.gz", "cdf_coups.jsonl.gz", "cdf_coups.csv"])
def test_text_beyond_the_size_limit_is_refused_without_reading_it_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv("AUDITOR_MAX_TEXT_BYTES", str(1 << 20))
    write_bundle(tmp_path / "b", cdf([coup("C1")]))
    (tmp_path / "b" / "cdf_coups.csv").unlink()
    body = b"coup_id,table_id\n" + b"0" * (3 << 20)  # a gzip bomb in miniature: 3 MB from a few KB
    (tmp_path / "b" / name).write_bytes(gzip.compress(body) if name.endswith(".gz") else body)
    result = audit(tmp_path / "b", tmp_path / "o")
    assert result.exit_code == 1
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    refused = next(f for f in summary["files"] if f["name"] == name)
    assert "more than 1,048,576 bytes of text" in refused["error"]


def test_a_parquet_file_beyond_the_row_limit_is_refused_from_its_footer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUDITOR_MAX_PARQUET_ROWS", "1000")
    write_bundle(tmp_path / "b", cdf([coup("C1")]))
    (tmp_path / "b" / "cdf_coups.csv").unlink()
    # 5,000 identical rows compress to almost nothing: a Parquet bomb in miniature.
    pq.write_table(pa.table({"coup_id": pa.array(["C1"] * 5000), "bank_cents": pa.array([0] * 5000)}), tmp_path / "b" / "cdf_coups.parquet")
    result = audit(tmp_path / "b", tmp_path / "o")
    assert result.exit_code == 1
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    refused = next(f for f in summary["files"] if f["name"] == "cdf_coups.parquet")
    assert refused["error"].startswith("5,000 rows, more than 1,000") and refused["rows_read"] == 0


@pytest.mark.parametrize(("kind", "reason"), [("deep", "RecursionError"), ("directory", "is not a file"), ("link", "links outside the bundle"),
                                             ("surrogate", "half a surrogate pair")])
def test_a_hostile_manifest_is_a_finding_not_a_crash(tmp_path: Path, kind: str, reason: str) -> None:
    write_bundle(tmp_path / "b", cdf([coup("C1")]))
    manifest = tmp_path / "b" / "manifest.json"
    if kind == "deep":
        manifest.write_text("[" * 100_000 + "]" * 100_000)
    elif kind == "directory":
        manifest.mkdir()
    elif kind == "surrogate":  # valid JSON naming no character: LOG004 ended the audit writing it
        manifest.write_text('{"files": {"cdf_\\ud800coups.csv": "sha256:00"}}')
    else:
        (tmp_path / "secret.json").write_text('{"files": {}}')
        manifest.symlink_to(tmp_path / "secret.json")
    result = audit(tmp_path / "b", tmp_path / "o")
    assert result.exit_code == 1
    text = (tmp_path / "o" / "violations.jsonl").read_text()
    assert '"rule": "LOG004"' in text and reason in text


def test_rules_that_need_an_unreadable_table_say_they_did_not_run(tmp_path: Path) -> None:
    # With tables.csv unreadable no bet has limits to be judged by: CDF103 passing every coup would
    # read as "bank maximum checked, none broken".
    write_bundle(tmp_path / "b", cdf([coup("C1")]))
    (tmp_path / "b" / "tables.csv").write_bytes(b"table_id,game,table_id\nT1,chemin_de_fer,T1\n")
    result = audit(tmp_path / "b", tmp_path / "o")
    assert result.exit_code == 1, result.output
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["rules"]["not_run"]["CDF103"] == "tables could not be read (LOG001)"
    assert "CDF103" not in summary["rules"]["run"] and "CDF101" in summary["rules"]["run"]
    assert "tables could not be read" in (tmp_path / "o" / "report.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("period", [{"from": "yesterday", "to": 5}, ["2026-03-01"], {"from": "2026-03-05", "to": "2026-03-01"},
                                    {"from": "2026-02-30", "to": "2026-03-01"}])
def test_a_manifest_period_that_is_not_two_dates_gives_way_to_the_data(tmp_path: Path, period: object) -> None:
    write_bundle(tmp_path / "b", cdf([coup("C1")]))
    manifest = {"format": "casino-audit-log", "version": 2, "period": period, "files": {}}
    (tmp_path / "b" / "manifest.json").write_text(json.dumps(manifest))
    result = audit(tmp_path / "b", tmp_path / "o")
    bundle = json.loads((tmp_path / "o" / "summary.json").read_text())["bundle"]
    assert bundle["period"]["source"] == "data" and bundle["period"]["from"].startswith("2026-")
    assert len(bundle["manifest_notes"]) == 2 and "this auditor reads casino-audit-log version 1" in result.output
    assert "the period is taken from the round times" in (tmp_path / "o" / "report.html").read_text(encoding="utf-8")


def test_files_the_manifest_does_not_vouch_for_are_noted(tmp_path: Path) -> None:
    # A day of play slipped into a bundle after its manifest was made has no digest to check.
    write_bundle(tmp_path / "b", cdf([coup("C1")]))
    names = sorted(p.name for p in (tmp_path / "b").iterdir())
    listed = {n: "sha256:" + hashlib.sha256((tmp_path / "b" / n).read_bytes()).hexdigest() for n in names if n != "cdf_coups.csv"}
    (tmp_path / "b" / "manifest.json").write_text(json.dumps({"format": "casino-audit-log", "version": 1, "files": listed}))
    result = audit(tmp_path / "b", tmp_path / "o")
    notes = json.loads((tmp_path / "o" / "summary.json").read_text())["bundle"]["manifest_notes"]
    assert notes == ["1 file(s) audited are not listed in the manifest, so no digest vouches for them: cdf_coups.csv"]
    assert "no digest vouches for them: cdf_coups.csv" in result.output
    assert "no digest vouches for them: cdf_coups.csv" in runner.invoke(app, ["validate", str(tmp_path / "b")]).output


@pytest.mark.parametrize("first", ["null", "  null ", "null\r"])
def test_a_jsonl_file_whose_first_line_is_null_is_audited_not_a_crash(tmp_path: Path, first: str) -> None:
    # pyarrow's JSON reader (26.0) ends the process with a segmentation fault on a text whose first
    # row is `null`: the audit died without a word. Run in a child process, so that a crash is a
    # failed test rather than the end of the test run.
    import subprocess
    import sys

    write_bundle(tmp_path / "b", {"tables": [CDF_TABLE]})
    rows = [json.dumps(json_record(coup(f"C{n}"))) for n in (1, 2)]
    (tmp_path / "b" / "cdf_coups.jsonl").write_text("\n".join([first, *rows]) + "\n")
    done = subprocess.run([sys.executable, "-m", "auditor", "audit", str(tmp_path / "b"), "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1, (done.returncode, done.stderr[-500:])
    quarantined = [json.loads(line) for line in (tmp_path / "out" / "violations.jsonl").read_text().splitlines()]
    assert [f["source"] for f in quarantined if f["rule"] == "LOG001"] == ["cdf_coups.jsonl:1"]


def _shoe_coup(n: int) -> str:
    """Coup `n` (from 1) of shoes of 60 coups each, as a JSONL line: lawful play, so that only what
    a test adds to its lines is found."""
    return json.dumps(json_record(coup(f"C{n}", shoe_id=f"S{(n - 1) // 60}", coup_no=(n - 1) % 60 + 1,
                                       bank_event="retained" if (n - 1) % 60 else "initial")))


def test_jsonl_lines_nested_deeper_than_pyarrow_s_stack_are_bad_lines_not_a_crash(tmp_path: Path) -> None:
    # pyarrow's JSON reader (26.0) recurses a level at a time: a line nested 100,000 deep ended the
    # process with a segmentation fault. Such lines are Python's to judge (RecursionError: a bad
    # line), wherever they fall among good ones; a line nested 600 deep in a column the format does
    # not list is read by Python and audited. Run in a child process, so that a crash fails this test only.
    import subprocess
    import sys

    deep = 100_000
    nests = {
        5: "[" * deep + "]" * deep,
        900: '{"a": ' * deep + "1" + "}" * deep,
        1700: '[{"a": ' * (deep // 2) + "1" + "}]" * (deep // 2),
        2500: "[" * 600 + "]" * 600,
    }
    rows = []
    for n in range(1, 3001):
        record = _shoe_coup(n)
        rows.append(record[:-1] + ', "extra": ' + nests[n] + "}" if n in nests else record)
    rows[2999] = rows[2999].replace('"C3000"', "[" * deep + "]" * deep)  # in a column of the format
    write_bundle(tmp_path / "b", {"tables": [CDF_TABLE]})
    (tmp_path / "b" / "cdf_coups.jsonl").write_text("\n".join(rows) + "\n")
    done = subprocess.run([sys.executable, "-m", "auditor", "audit", str(tmp_path / "b"), "--out", str(tmp_path / "out"), "--select", "LOG001"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 1, (done.returncode, done.stderr[-500:])
    found = [json.loads(line) for line in (tmp_path / "out" / "violations.jsonl").read_text().splitlines()]
    assert sorted(f["source"] for f in found) == [f"cdf_coups.jsonl:{n}" for n in (1700, 3000, 5, 900)]
    assert all("RecursionError" in f["message"] for f in found)
    files = {f["name"]: f for f in json.loads((tmp_path / "out" / "summary.json").read_text())["files"]}
    assert (files["cdf_coups.jsonl"]["rows_read"], files["cdf_coups.jsonl"]["rows_audited"]) == (3000, 2996)


@pytest.mark.parametrize(("text", "unfit"), [
    (b'{"a": 1}\n' * 10_000, False),  # each line's own brace: none left over
    (b'{"a": [1, {"b": 2}]}\n' * 10_000, False),  # three a line, 30,000 in all
    (b'{"a": ' + b"[" * 499 + b"]" * 499 + b"}", False),  # 500, its own brace among them
    (b'{"a": 1}\n' * 9 + b'{"a": ' + b"[" * 500 + b"]" * 500 + b"}\n", True),
    (b'{"a": "' + b"[" * 600 + b'"}', True),  # in a string, counted all the same: Python judges it
    (b'{"t": "20:04:05", "u": "21:04:05"}\n' * 5_000, False),  # 5 colons a line, 25,000 in all
    (b'{"a": 1}\n{' + b", ".join(b'"k%d": 1' % i for i in range(10_000)) + b"}", False),
    (b'{"a": 1}\n{' + b", ".join(b'"k%d": 1' % i for i in range(10_001)) + b"}\n", True),
])
def test_a_piece_with_a_line_of_too_many_brackets_or_keys_is_not_for_pyarrow(text: bytes, unfit: bool) -> None:
    from auditor.loading import readers

    data = np.frombuffer(text, dtype=np.uint8)
    assert readers._not_for_pyarrow(data, np.flatnonzero(data == ord("\n"))) is unfit


def test_a_jsonl_line_of_too_many_keys_is_never_handed_to_pyarrow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # pyarrow makes a column of each key: a line of a million (18 MB) took it 28 s and 2.5 GB, and
    # the table of them all took pandas minutes more. Python reads such a line; of its keys only
    # the format's columns are kept.
    import pyarrow.json as pajson

    from auditor.loading import load_bundle, readers

    write_bundle(tmp_path, {"tables": [CDF_TABLE]})
    wide = {**json_record(coup("C1")), **{f"x{i}": i for i in range(20_000)}}
    (tmp_path / "cdf_coups.jsonl").write_text(json.dumps(wide) + "\n" + json.dumps(json_record(coup("C2"))) + "\n")
    read_json = pajson.read_json
    monkeypatch.setattr(readers.pajson, "read_json", lambda source, **kw: pytest.fail("the wide line handed to pyarrow")
                        if b'"x19999"' in source.read() else read_json(source.seek(0) or source, **kw))
    bundle = load_bundle(tmp_path)
    assert bundle.quarantine.empty and list(bundle.frames["cdf_coups"]["coup_id"]) == ["C1", "C2"]
    assert not any(name.startswith("x") for name in bundle.frames["cdf_coups"].columns)


@pytest.mark.parametrize(("text", "found"), [
    (b'{"a": 1}\nnull\n{"a": 2}', True), (b'{"a": 1}\n \t null', True), (b"null", True), (b'{"a": 1}\r\n[1]', True),
    (b'{"a": 1}\n"s"\n', True), (b'{"a": 1}\n\n \r\n{"b": 2}\n', True), (b'  {"a": 1}\n{"a": null}', False),
    (b'{"a": 1}\n  \n{"b": 2}', True), (b'{"a": 1}\n \t', True), (b'{"a": 1}\n\r\n{"b": 2}', True), (b'{"a": 1}\n\n\r\n', False),
    (b'{"a": 1}\n  {"b": 2}\r\n', False),
])
@pytest.mark.parametrize("block", [1, 2, 3, 5, 64 << 20])
def test_no_jsonl_text_with_a_blank_line_or_a_row_that_is_not_an_object_goes_to_pyarrow(tmp_path: Path, text: bytes, found: bool,
                                                                                       block: int) -> None:
    # pyarrow's JSON reader crashes on a row `null` that begins one of its blocks (16 MiB, wherever
    # they fall), and reads a line of blanks as no row, which a line of two objects would make up
    # for: such a line keeps the text from it, found in memory and in a file read a block at a time,
    # a line across two blocks too. Line ends after the last line are no line.
    from auditor.loading import readers

    assert readers._unfit_lines(text, readers._end_of_text(text)) is found
    (tmp_path / "t.jsonl").write_bytes(text)
    shape = readers._text_shape(tmp_path / "t.jsonl", block=block)
    assert shape is not None
    if found:  # never missed; a line of blanks across two blocks may be taken for one (read in memory then)
        assert shape.unfit_lines or shape.starts_blank
        assert not readers._fit_for_arrow(text)
    elif block > len(text) and not shape.starts_blank:
        assert not shape.unfit_lines


def test_a_jsonl_column_whose_values_change_kind_where_pyarrow_starts_a_block_is_audited_not_a_crash(tmp_path: Path) -> None:
    # As when a system starts writing `stop_card` as 0 instead of false mid-file, exactly where pyarrow
    # would start its second block: pyarrow 26 crashed there when handed the whole file (fixed by
    # reading it a block at a time, `readers._read_json`). Run in a child process, so that a crash
    # fails this test only.
    import subprocess
    import sys

    write_bundle(tmp_path / "b", {"tables": [CDF_TABLE]})
    row = json.dumps(json_record(coup("C1"))).replace('"C1"', '"C{:08d}"')
    assert '"stop_card": false' in row
    at = (1 << 24) // (len(row) - len("{:08d}") + 8 + 1)  # the first line of pyarrow's second block
    lines = [row.replace("{:08d}", f"{n:08d}").replace('"stop_card": false', '"stop_card": 0' if n >= at else '"stop_card": false')
             for n in range(at + 2000)]
    (tmp_path / "b" / "cdf_coups.jsonl").write_text("\n".join(lines) + "\n")
    done = subprocess.run([sys.executable, "-m", "auditor", "audit", str(tmp_path / "b"), "--out", str(tmp_path / "out"), "--select", "LOG001"],
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, (done.returncode, done.stderr[-500:])
    files = {f["name"]: f for f in json.loads((tmp_path / "out" / "summary.json").read_text())["files"]}
    coups = files["cdf_coups.jsonl"]
    assert (coups["rows_read"], coups["rows_audited"], coups["error"]) == (at + 2000, at + 2000, None)  # 0 is false, as in CSV


@pytest.mark.parametrize(("lines", "keys", "reused"), [(4_000, 1, False), (60, 2_000, False), (4_000, 3, True)])
def test_jsonl_lines_each_giving_keys_no_other_gives_cost_pyarrow_no_square(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                              lines: int, keys: int, reused: bool) -> None:
    # pyarrow makes a column of every key it meets, each as long as the text it reads: 20,000 lines
    # each giving a key no other gives (1.1 MB) took it 20 s and 5.5 GB, and a 16 MiB piece of such
    # lines would take terabytes. No text pyarrow reads makes more cells than `_MAX_CELLS` (set low
    # here), and the file reads as line by line would: the format's columns, the others ignored.
    # `reused`: the first lines give 300 keys that each later line gives three of, so that the rest
    # of a piece read with the first chunk's columns would make too many cells too.
    import pyarrow.json as pajson

    from auditor.loading import load_bundle, readers

    write_bundle(tmp_path, {"tables": [CDF_TABLE]})
    rows = []
    for n in range(1, lines + 1):
        record = _shoe_coup(n)
        rows.append(record[:-1] + "".join(f', "x{n % 100 if reused else n}_{k}": {k}' for k in range(keys)) + "}")
    (tmp_path / "cdf_coups.jsonl").write_text("\n".join(rows) + "\n")
    monkeypatch.setattr(readers, "_MAX_CELLS", 1 << 20)
    cells: list[int] = []
    read_json = pajson.read_json

    def counted(source: object, **kw: object) -> object:
        table = read_json(source, **kw)
        cells.append(table.num_rows * max(1, len(table.schema.names)))
        return table

    monkeypatch.setattr(readers.pajson, "read_json", counted)
    read = load_bundle(tmp_path)
    assert cells and max(cells) <= 1 << 20
    assert read.quarantine.empty and list(read.frames["cdf_coups"]["coup_id"]) == [f"C{n}" for n in range(1, lines + 1)]
    monkeypatch.setattr(readers, "_read_jsonl_arrow", lambda *_: None)
    pd.testing.assert_frame_equal(read.frames["cdf_coups"], load_bundle(tmp_path).frames["cdf_coups"], check_dtype=False)


@pytest.mark.parametrize("seed", range(20))
def test_chunks_cover_a_piece_in_whole_lines_each_within_the_cell_bound(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """`_chunks` cuts a piece at line ends only, leaves nothing out, and each chunk of more than one
    line holds lines times colons of at most `_MAX_CELLS` (a line alone is bounded by `_MAX_KEYS`)."""
    from auditor.loading import readers

    rng = np.random.default_rng(seed)
    lines = [b"{" + b", ".join(b'"k%d": "a:b"' % k for k in range(int(rng.integers(0, 30)))) + b"}" for _ in range(int(rng.integers(1, 80)))]
    data = b"\n".join(lines) + (b"\n" if seed % 2 else b"")
    monkeypatch.setattr(readers, "_MAX_CELLS", int(rng.choice([1, 10, 100, 1000, 1 << 25])))
    monkeypatch.setattr(readers, "_CHUNK_BYTES", int(rng.choice([1, 7, 50, 1000, 1 << 18])))
    text = np.frombuffer(data, dtype=np.uint8)
    spans = readers._chunks(text, np.flatnonzero(text == ord("\n")))
    assert spans[0][0] == 0 and spans[-1][1] == len(data)
    assert all(a[1] == b[0] and data[b[0] - 1 : b[0]] == b"\n" for a, b in zip(spans, spans[1:], strict=False))
    for start, stop in spans:
        chunk = data[start:stop]
        count = chunk.rstrip(b"\n").count(b"\n") + 1
        assert count == 1 or count * chunk.count(b":") <= readers._MAX_CELLS


def test_jsonl_pieces_whose_chunks_make_too_many_columns_together_are_too_wide(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each chunk within `_MAX_FIELDS` columns, but all of them together beyond it (where no format
    says which columns to drop): putting them together would make each as wide as all, so pyarrow's
    reading gives way (`_TooWide`) to the reading line by line."""
    from auditor.loading import readers

    text = "".join(json.dumps({"id": str(n), f"k{n}": n}) + "\n" for n in range(200)).encode()
    monkeypatch.setattr(readers, "_CHUNK_BYTES", 200)  # a few lines a chunk, a few columns each
    monkeypatch.setattr(readers, "_MAX_FIELDS", 50)
    with pytest.raises(readers._TooWide):
        readers._read_json(text, None)
    monkeypatch.setattr(readers, "_MAX_FIELDS", 1024)
    assert readers._read_json(text, None).num_columns == 201
    monkeypatch.setattr(readers, "_MAX_CELLS", 10_000)  # 201 columns of 200 rows once put together
    with pytest.raises(readers._TooWide):
        readers._read_json(text, None)


def test_jsonl_lines_each_giving_one_of_many_keys_are_read_by_python(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Lines each giving one of 500 keys the format does not list: pyarrow would make 500 cells a
    line, mostly nulls, where Python reads the key each gives; such a chunk (more than `_SPARSE`
    cells a key) sends the file to the reading line by line, which reads it as pyarrow would."""
    from auditor.loading import load_bundle, readers

    text = "".join(json.dumps({"id": str(n), f"k{n % 500}": n}) + "\n" for n in range(3000)).encode()
    with pytest.raises(readers._TooWide):
        readers._read_json(text, None)
    write_bundle(tmp_path, {"tables": [CDF_TABLE]})
    rows = []
    for n in range(1, 601):
        record = _shoe_coup(n)
        rows.append(record[:-1] + "".join(f', "x{(n * 7 + k) % 500}": {k}' for k in range(3)) + "}")
    (tmp_path / "cdf_coups.jsonl").write_text("\n".join(rows) + "\n")
    monkeypatch.setattr(readers, "_SPARSE", 4)  # three of 500 keys a line, beside the format's 23
    careful: list[int] = []
    read_careful = readers._read_jsonl_careful
    monkeypatch.setattr(readers, "_read_jsonl_careful", lambda data, kept=None: (careful.append(1), read_careful(data, kept))[1])
    read = load_bundle(tmp_path)
    assert careful == [1] and read.quarantine.empty
    assert list(read.frames["cdf_coups"]["coup_id"]) == [f"C{n}" for n in range(1, 601)]
