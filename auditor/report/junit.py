"""junit.xml: one test case per rule and table, failed with its findings (CI servers show an audit
like a test run). Written with the standard library's ElementTree, which escapes every value."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from auditor.engine import AuditResult
from auditor.figures import table_figures
from auditor.report.outputs import with_none
from auditor.report.text import visible

MAX_LISTED = 200


def write_junit(result: AuditResult, path: Path) -> None:
    findings = result.findings
    tables = sorted(set(table_figures(result.bundle)["table_id"].astype(str)))
    game_of = _games(result)
    by_rule = {code: rows for code, rows in findings.groupby("rule", sort=False)} if len(findings) else {}
    suites = ET.Element("testsuites", name="auditor", tests="0", failures="0")
    total = failures = 0
    for rule in result.rules_run:
        rows = by_rule.get(rule.code, findings.iloc[:0])
        # Each table's findings once, not a scan of the rule's findings per table (a bundle can name
        # thousands of tables).
        per_table = {str(t): f for t, f in rows.groupby("table_id", sort=False)} if len(rows) else {}
        targets = sorted(per_table)
        if rule.game not in ("log", "tournament"):
            relevant = [t for t in tables if game_of.get(t) == rule.game]
            targets = sorted(set(targets) | set(relevant))
        if not targets:
            targets = ["(bundle)"]
        suite = ET.SubElement(suites, "testsuite", name=f"{rule.code} {rule.name}", tests=str(len(targets)))
        suite_failures = 0
        for table in targets:
            mine = per_table.get(table, rows.iloc[:0]) if table != "(bundle)" else rows[rows["table_id"].isna()]
            case = ET.SubElement(suite, "testcase", classname=f"{rule.game}.{rule.code}", name=f"{rule.code} {table}")
            total += 1
            if len(mine):
                suite_failures += 1
                fail = ET.SubElement(case, "failure", message=f"{len(mine)} finding(s): {rule.summary['en']}", type=rule.severity)
                lines = [f"{r.source or '-'} {r.round_id or ''} {r.item_id or ''}: {r.message}" for r in with_none(mine.head(MAX_LISTED)).itertuples()]
                if len(mine) > MAX_LISTED:
                    lines.append(f"... and {len(mine) - MAX_LISTED} more in violations.jsonl")
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
    ET.ElementTree(suites).write(path, encoding="utf-8", xml_declaration=True)


def _games(result: AuditResult) -> dict[str, str]:
    """Each table's game (the first row of a repeated table_id, as the rules take it)."""
    tables = result.bundle.frames.get("tables")
    if tables is None or tables.empty:
        return {}
    first = tables.drop_duplicates("table_id")
    return dict(zip(first["table_id"].astype(str), first["game"].astype(str), strict=True))
