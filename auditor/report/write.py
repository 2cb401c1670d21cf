"""Writing every output an audit asks for, in one place for the command line and the benchmark."""

from __future__ import annotations

from pathlib import Path

from auditor.engine import AuditResult
from auditor.memory import collector_paused
from auditor.report.outputs import write_summary, write_violations


def write_outputs(result: AuditResult, summary: dict[str, object], target: Path, formats: set[str], lang: str) -> None:
    """summary.json, then violations.jsonl, junit.xml and report.html as `formats` asks, one after
    another, the cycle collector paused (`collector_paused`). (The report rendered in a thread beside
    the others was measured no faster: building the JSON lines holds the interpreter's lock for much
    of its time, and the two contended.)"""
    with collector_paused():
        write_summary(summary, target / "summary.json")
        if "jsonl" in formats:
            write_violations(result.findings, target / "violations.jsonl")
        if "junit" in formats:
            from auditor.report.junit import write_junit

            write_junit(result, target / "junit.xml")
        if "html" in formats:
            from auditor.report.html import write_html

            write_html(result, summary, target / "report.html", lang)
