"""Writing every output an audit asks for, in one place for the command line and the benchmark."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from auditor.engine import AuditResult
from auditor.memory import collector_paused
from auditor.report.outputs import write_summary, write_violations_behind
from auditor.report.whole import remove_outputs

# Each output's file in the folder: summary.json always, the others as `--format` asks.
OUTPUT_FILES = {"summary": "summary.json", "jsonl": "violations.jsonl", "junit": "junit.xml", "html": "report.html"}


def write_outputs(result: AuditResult, summary: dict[str, object], target: Path, formats: set[str], lang: str) -> None:
    """summary.json, then violations.jsonl, junit.xml and report.html as `formats` asks, one after
    another, the cycle collector paused (`collector_paused`); the rows the report shows as evidence
    are looked up first, in threads beside the others (`html.Evidence`: searches of whole tables in
    Arrow and numpy, which let go of the interpreter's lock), and violations.jsonl's lines are
    written by a thread of their own while the next outputs are made (`write_violations_behind`: the
    kernel's work, which lets go of the lock too). (The report rendered in a thread beside the others
    was measured no faster: building the JSON lines holds the interpreter's lock for much of its
    time, and the two contended; so was making the lines in a thread, not only writing them.)
    Each output is written whole or not at all (`auditor.report.whole`); when one fails, those this
    audit did not finish are removed where an earlier audit had left them, and the error is raised."""
    path = {kind: target / name for kind, name in OUTPUT_FILES.items() if kind == "summary" or kind in formats}
    done: list[Path] = []
    try:
        with collector_paused(), ThreadPoolExecutor(max_workers=1, thread_name_prefix="violations") as writer:
            evidence = None
            if "html" in formats:
                from auditor.report.html import Evidence

                evidence = Evidence(result)  # its lookups run beside the outputs written before the report
            write_summary(summary, path["summary"])
            done.append(path["summary"])
            written = write_violations_behind(result, path["jsonl"], writer) if "jsonl" in formats else None
            try:
                if "junit" in formats:
                    from auditor.report.junit import write_junit

                    write_junit(result, path["junit"])
                    done.append(path["junit"])
                if evidence is not None:
                    from auditor.report.html import write_html

                    write_html(result, summary, path["html"], lang, evidence=evidence)
                    done.append(path["html"])
            finally:
                if written is not None:
                    written()
                    done.append(path["jsonl"])
    except BaseException:
        # Each output is written whole or not at all; one this audit did not finish may still be there
        # from an earlier audit into the same folder, and is removed: the folder never holds one
        # audit's summary beside another's findings.
        remove_outputs([p for p in path.values() if p not in done])
        raise


def prepare_outputs(formats: set[str]) -> threading.Thread:
    """Import and compile what the outputs of `formats` need whatever the audit finds (the report's
    modules, its template, the articles the rules cite: 0.12 s), in a thread started beside the
    audit, where the load leaves the interpreter mostly free, rather than on the audit's one busy
    thread at its end. Join it before `write_outputs`. An error here is left for the outputs to meet
    and report themselves."""

    def prepare() -> None:
        try:
            if "junit" in formats:
                import auditor.report.junit  # noqa: F401
            if "html" in formats:
                from auditor.report.html import prepare as prepare_report

                prepare_report()
        except Exception:  # noqa: BLE001, S110 - write_outputs meets the same error where it is reported
            pass

    # Not a daemon: where the audit ends at once (no such bundle), the interpreter waits for it (at
    # most its 0.12 s) rather than stopping it halfway through an import as it shuts down.
    thread = threading.Thread(target=prepare, name="prepare-outputs", daemon=False)
    thread.start()
    return thread
