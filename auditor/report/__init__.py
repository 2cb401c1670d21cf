"""Writing an audit's outputs: violations.jsonl, summary.json, report.html, junit.xml."""
