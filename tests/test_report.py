"""report.html and junit.xml: readable, escaped, bounded."""

from __future__ import annotations

import hashlib
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import CDF_TABLE, SAMPLES, cdf, coup, stake_row, write_bundle
from typer.testing import CliRunner

from auditor.cli import app

HOSTILE = '<script>alert("x")</script></table>"\'&'
runner = CliRunner()


def _hostile_bundle(tmp_path: Path) -> Path:
    table = CDF_TABLE | {"table_id": HOSTILE}
    coups = [coup("C1", table_id=HOSTILE, player_id=HOSTILE, banker_id=HOSTILE, players_seated=2)]
    return write_bundle(tmp_path / "b", cdf(coups, [stake_row("S1", player=HOSTILE, amount=100)], table=table))


def test_hostile_text_is_shown_as_text(tmp_path: Path) -> None:
    bundle = _hostile_bundle(tmp_path)
    result = runner.invoke(app, ["audit", str(bundle), "--out", str(tmp_path / "o"), "--format", "html,jsonl,junit"])
    assert result.exit_code == 1, result.output
    html = (tmp_path / "o" / "report.html").read_text(encoding="utf-8")
    assert "<script" not in html.lower()
    assert "&lt;script&gt;alert(" in html
    assert "</table>&" not in html
    ET.parse(tmp_path / "o" / "junit.xml")  # well-formed whatever the ids hold


def test_the_report_s_values_escaped_as_text_are_the_report_markupsafe_escapes(tmp_path: Path) -> None:
    """The template prints each value escaped by markupsafe's own escaping, as plain text
    (`escaped_as_text`): the report of a hostile bundle is byte for byte the one markupsafe's
    `escape` makes, and the compiled template only ever writes an escaped value out, never uses it
    again (where a plain str would be escaped twice, or taken for markup)."""
    import numpy as np
    import pandas as pd
    from markupsafe import Markup, escape

    from auditor.engine import run_audit
    from auditor.loading import load_bundle
    from auditor.report import html
    from auditor.report.outputs import build_summary
    from auditor.rules import select_rules
    from auditor.ruleset import load_ruleset

    for value in [HOSTILE, "", "plain €", "a\x00b", 5, -2.5, None, Markup("<b>ours</b>"), np.str_("<i>"), pd.NA]:
        assert html._escaped(value) == str(escape(value)), value
    env = html._env()
    code = env.compile(env.loader.get_source(env, "report.html.j2")[0], raw=True)
    before = [code[max(0, m.start() - 6) : m.start()] for m in re.finditer(r"escape\(", code)]
    assert len(before) > 100 and set(before) == {"yield "}

    assert html.template().root_render_func.__globals__["escape"] is html._escaped  # type: ignore[attr-defined]
    own = html._env().get_template("report.html.j2")  # an environment of its own: markupsafe's escape
    assert own.root_render_func.__globals__["escape"] is escape  # type: ignore[attr-defined]
    result = run_audit(load_bundle(_hostile_bundle(tmp_path)), load_ruleset(), select_rules(), lang="en")
    context = html.build_context(result, build_summary(result, "major"), "en")
    report = html.template().render(**context)
    assert report == own.render(**context)
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;&lt;/table&gt;&#34;&#39;&amp;" in report and "<script" not in report


def test_report_has_verdict_article_and_evidence(tmp_path: Path) -> None:
    runner.invoke(app, ["audit", str(SAMPLES / "chemin-de-fer-broken"), "--out", str(tmp_path)])
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "NO CONFORME" in html and "CDF101" in html and "5 per 100" in html
    digest = hashlib.sha256((SAMPLES / "chemin-de-fer-broken" / "cdf_coups.csv").read_bytes()).hexdigest()
    assert "cdf_coups.csv" in html and digest in html
    runner.invoke(app, ["audit", str(SAMPLES / "chemin-de-fer-clean"), "--out", str(tmp_path / "en"), "--lang", "en"])
    en = (tmp_path / "en" / "report.html").read_text(encoding="utf-8")
    assert "COMPLIANT" in en and "Per-table figures" in en and "No findings." in en


def test_large_audits_are_capped_per_rule(tmp_path: Path) -> None:
    coups = [coup(f"C{i}", players_seated=3) for i in range(1, 251)]
    bundle = write_bundle(tmp_path / "b", cdf(coups))
    runner.invoke(app, ["audit", str(bundle), "--out", str(tmp_path / "o"), "--lang", "en", "--select", "CDF120"])
    html = (tmp_path / "o" / "report.html").read_text(encoding="utf-8")
    assert "Showing 100 of 250" in html
    assert html.count('<td class="mono">C') <= 100


def test_junit_has_a_case_per_rule_and_table(tmp_path: Path) -> None:
    runner.invoke(app, ["audit", str(SAMPLES / "wheel-broken"), "--out", str(tmp_path), "--format", "junit"])
    root = ET.parse(tmp_path / "junit.xml").getroot()
    cases = root.findall(".//testcase")
    assert int(root.get("tests")) == len(cases) > 12
    failed = {c.get("classname") for c in cases if c.find("failure") is not None}
    assert {f"wheel_of_fortune.WHL2{n:02d}" for n in range(2, 13)} <= failed


@pytest.mark.parametrize("sample", ["malformed-log", "dice-broken", "casino-month"])
def test_junit_failures_hold_every_finding_including_those_that_name_no_table(tmp_path: Path, sample: str) -> None:
    import json
    import re

    runner.invoke(app, ["audit", str(SAMPLES / sample), "--out", str(tmp_path), "--format", "junit,jsonl"])
    findings = [json.loads(line) for line in (tmp_path / "violations.jsonl").read_text(encoding="utf-8").splitlines()]
    failures = ET.parse(tmp_path / "junit.xml").getroot().findall(".//failure")
    counted = sum(int(re.match(r"(\d+) finding", f.get("message")).group(1)) for f in failures)  # type: ignore[arg-type, union-attr]
    assert counted == len(findings)
    unnamed = [f for f in findings if f["table_id"] is None]
    assert unnamed  # each of these samples has some: an unreadable file, a dice set
    bundle_text = "".join(c.find("failure").text for c in ET.parse(tmp_path / "junit.xml").getroot().iter("testcase")  # type: ignore[union-attr, misc]
                          if c.get("name", "").endswith("(bundle)") and c.find("failure") is not None)
    assert all(f["source"] in bundle_text for f in unnamed)


@pytest.mark.parametrize("sample", ["malformed-log", "casino-month"])
def test_report_shows_every_rule_with_findings_and_its_total(tmp_path: Path, sample: str) -> None:
    import json
    import re

    runner.invoke(app, ["audit", str(SAMPLES / sample), "--out", str(tmp_path)])
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    shown = {m[0]: int(m[1]) for m in re.findall(r'<details class="rule" id="(\w+)".*?<summary>.*? — (\d+)</summary>', html, re.S)}
    by_rule = json.loads((tmp_path / "summary.json").read_text())["findings"]["by_rule"]
    assert shown == by_rule and sum(shown.values()) == len((tmp_path / "violations.jsonl").read_text().splitlines())


def test_every_report_label_exists_in_both_languages() -> None:
    import re

    from auditor.i18n import LABELS

    source = (Path(__file__).resolve().parent.parent / "auditor" / "report" / "html.py").read_text()
    template = (Path(__file__).resolve().parent.parent / "auditor" / "report" / "templates" / "report.html.j2").read_text()
    used = set(re.findall(r'\("(ev_\w+)"', source)) | set(re.findall(r"L\.(\w+)", template))
    assert used and used <= set(LABELS), used - set(LABELS)
    assert all(set(LABELS[k]) >= {"ca", "en"} for k in used)


def test_every_rule_says_what_must_hold_in_catalan() -> None:
    from auditor.rules import REGISTRY
    from auditor.rules.catalan import HOLDS_CA

    assert set(HOLDS_CA) == set(REGISTRY)


def test_evidence_shows_each_hand_with_its_total(tmp_path: Path) -> None:
    coups = [coup("C1", players_seated=2, player_cards="AS 2H 3D", banker_cards="KC 9D"),
             coup("C2", players_seated=2, player_cards="9S 8H", banker_cards="5C QD")]
    bundle = write_bundle(tmp_path / "b", cdf(coups))
    runner.invoke(app, ["audit", str(bundle), "--out", str(tmp_path / "o"), "--select", "CDF120"])
    html = (tmp_path / "o" / "report.html").read_text(encoding="utf-8")
    assert "AS 2H 3D (6)" in html and "KC 9D (9)" in html and "9S 8H (7)" in html and "5C QD (5)" in html


def test_visible_escapes_controls_and_invisible_formatting_but_keeps_text() -> None:
    from auditor.report.text import visible

    assert visible("C1\u202eKO\u200b") == "C1\\u202eKO\\u200b"  # an id that would display as another one
    assert visible("\x00\x1b[2J\x85") == "\\x00\\x1b[2J\\x85"
    assert visible("Banca francesa: l·l, à, ç, €\tA\nB\r\n") == "Banca francesa: l·l, à, ç, €\tA\nB\r\n"


def test_visible_escapes_every_unshowable_character_even_among_printable_text() -> None:
    """visible() skips its search in text Python calls printable: that is safe only while every
    character it escapes is one Python does not call printable, whichever character it is."""
    import sys

    from auditor.report.text import _UNSHOWABLE, visible

    every = "".join(map(chr, range(sys.maxunicode + 1)))
    escaped = _UNSHOWABLE.findall(every)
    assert escaped and not any(c.isprintable() for c in escaped)
    for c in escaped:
        assert visible("C1" + c) != "C1" + c and "\\" in visible("€ " + c)


def test_the_period_from_the_data_is_in_andorran_calendar_days(tmp_path: Path) -> None:
    import json

    from helpers import at

    # 20:00 UTC on 2 March and 23:30 UTC (00:30 on 3 March in Andorra): the night runs into the 3rd.
    write_bundle(tmp_path / "b", cdf([coup("C1", ts=at(0)), coup("C2", coup_no=2, ts=at(3.5 * 3600))]))
    runner.invoke(app, ["audit", str(tmp_path / "b"), "--out", str(tmp_path / "o"), "--format", "jsonl"])
    period = json.loads((tmp_path / "o" / "summary.json").read_text())["bundle"]["period"]
    assert period == {"from": "2026-03-02", "to": "2026-03-03", "source": "data"}


def test_a_bundle_of_thousands_of_tables_keeps_the_report_light(tmp_path: Path) -> None:
    from auditor.report.html import PER_TABLE

    n = PER_TABLE + 50
    from helpers import at

    rows = [{"table_id": f"T{i:05d}", "game": "wheel_of_fortune", "min_cents": 500, "max_cents": 50000} for i in range(n)]
    spins = [{"spin_id": f"S{i}", "table_id": f"T{i:05d}", "ts_open": at(0), "ts_no_more_bets": at(20), "ts_stop": at(40), "ts_settled": at(50),
              "revolutions": 5.0, "stop_slot": None, "on_pivot": False, "obstructed": False, "symbol": None, "status": "void"} for i in range(n)]
    write_bundle(tmp_path / "b", {"tables": rows, "wheel_spins": spins})
    result = runner.invoke(app, ["audit", str(tmp_path / "b"), "--out", str(tmp_path / "o"), "--format", "html,junit", "--lang", "en"])
    assert result.exit_code == 0, result.output
    html = (tmp_path / "o" / "report.html").read_text()
    assert f"Showing {PER_TABLE} of {n} tables" in html and "T00499" in html and "T00500" not in html
    assert f"<dd>{n}</dd>" in html


def test_the_per_day_chart_counts_findings_at_whole_and_fractional_seconds(tmp_path: Path) -> None:
    from helpers import at

    from auditor.engine import run_audit
    from auditor.loading import load_bundle
    from auditor.report.html import build_context
    from auditor.report.outputs import build_summary
    from auditor.rules import select_rules
    from auditor.ruleset import load_ruleset

    # Three players (CDF120) at 20:00:00 UTC, and at 23:30:00.25 UTC: 00:30 on the 3rd in Andorra.
    # Parsing the times as one inferred format dropped the one with a fraction from the chart.
    coups = [coup("C1", ts=at(0), players_seated=3), coup("C2", coup_no=2, ts=at(3.5 * 3600 + 0.25), players_seated=3)]
    write_bundle(tmp_path / "b", cdf(coups), fmt="parquet")  # Parquet keeps the fraction
    result = run_audit(load_bundle(tmp_path / "b"), load_ruleset(), select_rules("CDF120"), lang="en")
    assert list(result.findings["ts"]) == ["2026-03-02T20:00:00+00:00", "2026-03-02T23:30:00.250000+00:00"]
    context = build_context(result, build_summary(result, "major"), "en")
    assert {bar["label"]: bar["value"] for bar in context["per_day"]} == {"2026-03-02": 1, "2026-03-03": 1}


def test_the_report_prepared_beside_the_audit_is_the_one_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The template compiled ahead, beside the audit, is the one the report is rendered with; an
    error while preparing stays in its thread, silent, for the outputs to meet and report."""
    from auditor.report import html
    from auditor.report.write import prepare_outputs

    html.template.cache_clear()
    prepare_outputs({"html", "jsonl"}).join()
    assert html.template.cache_info().currsize == 1
    hits = html.template.cache_info().hits
    assert runner.invoke(app, ["audit", str(SAMPLES / "dice-broken"), "--out", str(tmp_path / "o")]).exit_code == 1
    assert html.template.cache_info().hits > hits and html.template.cache_info().currsize == 1

    raised: list[object] = []
    monkeypatch.setattr("threading.excepthook", raised.append)
    monkeypatch.setattr(html, "prepare", lambda: 1 / 0)
    prepare_outputs({"html"}).join()
    assert raised == []


def test_the_evidence_looked_up_ahead_is_the_evidence_shown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rows the report shows as evidence, looked up beside the other outputs (`Evidence`, as
    `write_outputs` does), give the report that looking them up in place gives; and a lookup that
    fails makes the report fail where it is written, not vanish in its thread."""
    from auditor.engine import run_audit
    from auditor.loading import load_bundle
    from auditor.report import html
    from auditor.report.outputs import build_summary
    from auditor.report.write import write_outputs
    from auditor.rules import select_rules
    from auditor.ruleset import load_ruleset

    result = run_audit(load_bundle(SAMPLES / "casino-month"), load_ruleset(), select_rules(), lang="en")
    summary = build_summary(result, "major")
    ahead = html.Evidence(result, per_rule=3)
    assert len(ahead.shown) and ahead.shown.groupby("rule").size().max() == 3

    def undated(report: str) -> str:  # the minute the report was made aside
        return re.sub(r"<dd>\d{4}-\d\d-\d\d \d\d:\d\d UTC · ", "<dd>", report)

    in_place = undated(html.render(result, summary, "en", per_rule=3))
    assert "<li><span>punt</span>" in in_place and "<li><span>stake</span>" in in_place  # a coup's hands, a stake
    assert undated(html.render(result, summary, "en", evidence=ahead)) == in_place
    assert undated(html.render(result, summary, "en", per_rule=4)) != in_place  # the comparison can fail

    (tmp_path / "o").mkdir()
    write_outputs(result, summary, tmp_path / "o", {"html", "jsonl"}, "en")
    written = (tmp_path / "o" / "report.html").read_text(encoding="utf-8")
    assert written.count("</html>") == 1
    assert undated(written) == undated(html.render(result, summary, "en"))  # streamed, the report rendered whole
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == ["report.html", "summary.json", "violations.jsonl"]

    def lost(*_args: object) -> dict[str, dict[str, object]]:
        raise OSError("lookup failed")

    monkeypatch.setattr(html, "_lookup", lost)
    (tmp_path / "p").mkdir()
    with pytest.raises(OSError, match="lookup failed"):
        write_outputs(result, summary, tmp_path / "p", {"html", "jsonl"}, "en")
    assert (tmp_path / "p" / "violations.jsonl").exists() and not (tmp_path / "p" / "report.html").exists()
    assert sorted(p.name for p in (tmp_path / "p").iterdir()) == ["summary.json", "violations.jsonl"]  # no partial file


def test_a_streamed_report_is_every_piece_in_order_or_nothing(tmp_path: Path) -> None:
    """report.html is written a batch of the template's pieces at a time (`write_streamed`): every
    piece in order, runs of empty pieces longer than a batch included; a render that fails halfway
    leaves the report that was there, and no partial file."""
    from auditor.report.html import write_streamed

    pieces = ["<p>", "", "", "", "", "", "é €", "", "</p>", "\n"]
    path = tmp_path / "report.html"
    write_streamed(iter(pieces), path, at_once=2)
    assert path.read_text(encoding="utf-8") == "".join(pieces)
    write_streamed(iter([]), path)
    assert path.read_bytes() == b""

    path.write_text("the last audit's report", encoding="utf-8")

    def broken() -> Iterator[str]:
        yield "<p>half"
        raise RuntimeError("a filter failed")

    with pytest.raises(RuntimeError, match="a filter failed"):
        write_streamed(broken(), path, at_once=1)
    assert path.read_text(encoding="utf-8") == "the last audit's report"
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]


def test_violations_written_a_chunk_behind_are_the_lines_written_in_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """violations.jsonl written by a thread of its own while the next chunk, then the report, is
    made (`write_violations_behind`, as `write_outputs` writes it) holds the bytes written in place,
    however many chunks; a write that fails is raised by the caller, last chunk or not, and one
    chunk that cannot be made is raised after the write before it."""
    from concurrent.futures import ThreadPoolExecutor

    from auditor.engine import run_audit
    from auditor.loading import load_bundle
    from auditor.report import outputs
    from auditor.rules import select_rules
    from auditor.ruleset import load_ruleset

    result = run_audit(load_bundle(SAMPLES / "casino-month"), load_ruleset(), select_rules(), lang="en")
    monkeypatch.setattr(outputs, "WRITE_ROWS", 7)
    assert len(result.findings) > 3 * 7  # several chunks
    outputs.write_violations(result, tmp_path / "in_place.jsonl")
    with ThreadPoolExecutor(max_workers=1) as writer:
        outputs.write_violations_behind(result, tmp_path / "behind.jsonl", writer)()
    assert (tmp_path / "behind.jsonl").read_bytes() == (tmp_path / "in_place.jsonl").read_bytes()

    def chunks(*parts: object) -> None:
        monkeypatch.setattr(outputs, "violation_chunks", lambda _result: iter(parts))

    for parts in ([b"a\n", "not bytes", b"c\n"], [b"a\n", b"b\n", "not bytes"]):  # a failing write, then the last one
        chunks(*parts)
        with ThreadPoolExecutor(max_workers=1) as writer, pytest.raises(TypeError):
            outputs.write_violations_behind(result, tmp_path / "failed.jsonl", writer)()
        assert not (tmp_path / "failed.jsonl").exists() and not (tmp_path / ".failed.jsonl.partial").exists()

    def unmade(_result: object) -> Iterator[bytes]:
        yield b"a\n"
        raise ValueError("a chunk could not be made")

    monkeypatch.setattr(outputs, "violation_chunks", unmade)
    (tmp_path / "unmade.jsonl").write_bytes(b"the last audit's findings\n")
    with ThreadPoolExecutor(max_workers=1) as writer, pytest.raises(ValueError, match="could not be made"):
        outputs.write_violations_behind(result, tmp_path / "unmade.jsonl", writer)
    # The write before it done and the file closed, then put aside: no file cut short, none beside.
    assert (tmp_path / "unmade.jsonl").read_bytes() == b"the last audit's findings\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["behind.jsonl", "in_place.jsonl", "unmade.jsonl"]


@pytest.mark.parametrize(("failing", "finished"), [
    ("report", ["junit.xml", "summary.json", "violations.jsonl"]),
    ("violations' lines", ["summary.json"]),  # made on the audit's thread, before junit and the report
    ("violations' last write", ["junit.xml", "report.html", "summary.json"]),  # in its thread, waited for last
])
def test_outputs_that_fail_leave_no_file_cut_short_and_none_of_an_earlier_audit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                                 failing: str, finished: list[str]) -> None:
    """Every output is written whole or not at all (`auditor.report.whole`). When one fails, the
    outputs this audit finished stay; those it did not finish are absent, even where an earlier
    audit into the same folder had left its own: the folder never pairs one audit's summary with
    another's findings or report."""
    from auditor.engine import run_audit
    from auditor.loading import load_bundle
    from auditor.report import html, outputs
    from auditor.report.outputs import build_summary
    from auditor.report.write import write_outputs
    from auditor.rules import select_rules
    from auditor.ruleset import load_ruleset

    result = run_audit(load_bundle(SAMPLES / "wheel-broken"), load_ruleset(), select_rules(), lang="en")
    assert len(result.findings)
    summary = build_summary(result, "major")
    for name in ["junit.xml", "report.html", "summary.json", "violations.jsonl"]:
        (tmp_path / name).write_text("an earlier audit's output", encoding="utf-8")

    def lost(*_args: object) -> dict[str, dict[str, object]]:
        raise OSError("lookup failed")

    def unmade(_result: object) -> Iterator[object]:
        yield b'{"rule": "WHL201"}\n'
        raise OSError("a line could not be made")

    def unwritten(_result: object) -> Iterator[object]:
        yield b'{"rule": "WHL201"}\n'
        yield "not bytes: the file's write fails"

    if failing == "report":
        monkeypatch.setattr(html, "_lookup", lost)
    else:
        monkeypatch.setattr(outputs, "violation_chunks", unmade if failing == "violations' lines" else unwritten)
    with pytest.raises((OSError, TypeError)):
        write_outputs(result, summary, tmp_path, {"html", "jsonl", "junit"}, "en")

    assert sorted(p.name for p in tmp_path.iterdir()) == finished
    for name in finished:
        assert (tmp_path / name).read_text(encoding="utf-8") != "an earlier audit's output"
    assert json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))["findings"]["total"] == len(result.findings)


def test_a_write_that_fails_names_the_output_and_leaves_what_was_there(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A write that fails as a full disk fails ("No space left on device", an OSError naming no
    file) is raised as one naming the output, so that the audit's error says which file it could
    not write; the output is left as it was and no partial file stays. Other errors are raised as
    they are. The same for violations.jsonl written by its own thread."""
    import errno
    from concurrent.futures import ThreadPoolExecutor

    from auditor.report import outputs
    from auditor.report.whole import Whole, written_whole

    path = tmp_path / "summary.json"
    path.write_text("the last audit's summary", encoding="utf-8")
    with pytest.raises(OSError) as raised, written_whole(path) as fh:
        fh.write(b"{")
        raise OSError(errno.ENOSPC, "No space left on device")
    assert raised.value.errno == errno.ENOSPC and raised.value.filename == str(path)
    assert "No space left on device" in str(raised.value) and str(path) in str(raised.value)
    with pytest.raises(TypeError, match="not an OSError"), written_whole(path):
        raise TypeError("not an OSError")
    assert path.read_text(encoding="utf-8") == "the last audit's summary"
    assert [p.name for p in tmp_path.iterdir()] == ["summary.json"]

    class FullDisk:  # a file whose second write finds the disk full
        def __init__(self, real: object) -> None:
            self.real, self.writes = real, 0

        def write(self, data: bytes) -> int:
            self.writes += 1
            if self.writes == 2:
                raise OSError(errno.ENOSPC, "No space left on device")
            return self.real.write(data)  # type: ignore[attr-defined, no-any-return]

        def close(self) -> None:
            self.real.close()  # type: ignore[attr-defined]

    class FillingUp(Whole):
        def __init__(self, path: Path) -> None:
            super().__init__(path)
            self.file = FullDisk(self.file)  # type: ignore[assignment]

    monkeypatch.setattr(outputs, "Whole", FillingUp)
    monkeypatch.setattr(outputs, "violation_chunks", lambda _result: iter([b"a\n", b"b\n"]))
    target = tmp_path / "violations.jsonl"
    with ThreadPoolExecutor(max_workers=1) as writer, pytest.raises(OSError) as raised:
        outputs.write_violations_behind(None, target, writer)()  # type: ignore[arg-type]
    assert raised.value.filename == str(target) and raised.value.errno == errno.ENOSPC
    assert sorted(p.name for p in tmp_path.iterdir()) == ["summary.json"]


def test_violation_lines_of_enum_columns_are_json_dumps_of_each_finding() -> None:
    """A finding's enum fields (rule, name, severity, game, citation: Categoricals) are written as
    json.dumps writes their text, each name once and every row's taken by its code: hostile names,
    missing values and names no row uses included."""
    import pandas as pd

    from auditor.engine import FINDING_COLUMNS
    from auditor.report.outputs import violation_lines

    names = ['say "hi"', "back\\slash", "tab\there", "bell\x07", "línia\u2028nova", "plain"]
    codes = [0, 1, 2, 3, 4, -1, 0, 3]
    n = len(codes)
    frame = pd.DataFrame({c: pd.Series([f"{c}{i}" for i in range(n)], dtype="str") for c in FINDING_COLUMNS})
    for c in ("rule", "name", "severity", "citation"):
        frame[c] = pd.Categorical.from_codes(codes, categories=[*names, f"{c} unused"])
    frame["game"] = pd.Categorical.from_codes([0, 1, 0, 1, -1, 0, 1, 0], categories=["wheel", "dice"])
    lines = violation_lines(frame).to_pylist()
    records = frame.astype(object).where(frame.notna(), None).to_dict("records")
    expected = [json.dumps(r, ensure_ascii=False).replace("\u2028", "\\u2028") + "\n" for r in records]
    assert lines == expected
    assert [json.loads(line)["rule"] for line in lines] == [names[c] if c >= 0 else None for c in codes]


def test_amounts_print_as_euros_grouped_by_thousands_whatever_their_kind() -> None:
    import numpy as np
    import pandas as pd

    from auditor.report.html import money

    cases = {123456789: "1 234 567.89 €", -5: "−0.05 €", 0: "0.00 €", 100: "1.00 €", -100000: "−1 000.00 €",
             10**20 + 7: "1 000 000 000 000 000 000.07 €"}
    for _ in range(2):  # made once a value, then given again
        for cents, shown in cases.items():
            assert money(cents) == money(np.int64(cents) if abs(cents) < 2**63 else cents) == shown
    assert [money(v) for v in (None, pd.NA, "x", float("nan"))] == ["—"] * 4
