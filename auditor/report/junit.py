"""junit.xml: one test case per rule and table, failed with its findings (CI servers show an audit
like a test run). Written with the standard library's ElementTree, which escapes every value."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pandas as pd

from auditor.engine import AuditResult
from auditor.figures import table_figures
from auditor.report.outputs import CASE, case_counts, first_of_cases, with_none
from auditor.report.text import visible
from auditor.report.whole import written_whole

MAX_LISTED = 200
BUNDLE = "(bundle)"  # the case of a rule's findings that name no table (a file that cannot be read)


def write_junit(result: AuditResult, path: Path) -> None:
    findings = result.findings
    tables = sorted(set(table_figures(result.bundle)["table_id"].astype(str)))
    game_of = _games(result)
    # Spilled, `findings` holds only the first of each case: the counts are the tally's.
    counts = dict(result.spilled.tally.by_case) if result.spilled is not None else case_counts(findings)
    listed = _listed(findings)
    tables_of: dict[str, set[str | None]] = {}
    for code, table in counts:
        tables_of.setdefault(code, set()).add(table)
    suites = ET.Element("testsuites", name="auditor", tests="0", failures="0")
    total = failures = 0
    for rule in result.rules_run:
        named = tables_of.get(rule.code, set())
        found = sorted(t for t in named if t is not None)
        if rule.game not in ("log", "tournament"):
            found = sorted(set(found) | {t for t in tables if game_of.get(t) == rule.game})
        targets: list[str | None] = list(found)
        if None in named or not targets:
            targets.append(None)
        suite = ET.SubElement(suites, "testsuite", name=f"{rule.code} {rule.name}", tests=str(len(targets)))
        suite_failures = 0
        for table in targets:
            case = ET.SubElement(suite, "testcase", classname=f"{rule.game}.{rule.code}", name=f"{rule.code} {BUNDLE if table is None else table}")
            total += 1
            n = counts.get((rule.code, table), 0)
            if n:
                suite_failures += 1
                fail = ET.SubElement(case, "failure", message=f"{n} finding(s): {rule.summary['en']}", type=rule.severity)
                lines = listed[(rule.code, table)]
                if n > MAX_LISTED:
                    lines.append(f"... and {n - MAX_LISTED} more in violations.jsonl")
                fail.text = "\n".join(lines) + f"\n{rule.citation}"
        failures += suite_failures
        suite.set("failures", str(suite_failures))
    suites.set("tests", str(total))
    suites.set("failures", str(failures))
    for element in suites.iter():
        element.attrib = {k: visible(v) for k, v in element.attrib.items()}
        if element.text:
            element.text = visible(element.text)
    ET.indent(suites)
    with written_whole(path) as fh:
        ET.ElementTree(suites).write(fh, encoding="utf-8", xml_declaration=True)


def _listed(findings: pd.DataFrame) -> dict[tuple[str, str | None], list[str]]:
    """For each (rule, table) with findings (table None: they name none), the lines of its first
    MAX_LISTED: one pass over the findings, not a frame per case (4M findings: 6 s)."""
    listed: dict[tuple[str, str | None], list[str]] = {}
    if findings.empty:
        return listed
    first = with_none(first_of_cases(findings, MAX_LISTED)[[*CASE, "source", "round_id", "item_id", "message"]])
    for r in first.itertuples(index=False):
        line = f"{r.source or '-'} {r.round_id or ''} {r.item_id or ''}: {r.message}"
        listed.setdefault((str(r.rule), None if r.table_id is None else str(r.table_id)), []).append(line)
    return listed


def _games(result: AuditResult) -> dict[str, str]:
    """Each table's game (the first row of a repeated table_id, as the rules take it)."""
    tables = result.bundle.frames.get("tables")
    if tables is None or tables.empty:
        return {}
    first = tables.drop_duplicates("table_id")
    return dict(zip(first["table_id"].astype(str), first["game"].astype(str), strict=True))
