"""The command line: thin wrappers over loading, the engine and the writers."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated, cast

import pandas as pd
import typer

from auditor import __version__
from auditor.engine import DEFAULT_WORKERS, AuditResult, audit_bundle
from auditor.i18n import LANGS, label
from auditor.loading import BundleError
from auditor.loading.bundle import manifest_notes, some_of, table_files
from auditor.memory import keep_freed_memory_for
from auditor.progress import Progress
from auditor.report.outputs import build_summary, failing, finding_counts
from auditor.report.write import prepare_outputs, write_outputs
from auditor.report.text import visible
from auditor.rules import REGISTRY, Rule, UnknownRule, get_rule, select_rules
from auditor.ruleset import DEFAULT_RULESET, Ruleset, RulesetError, load_ruleset
from auditor.spill import KEEP, SPILL_ROWS, FindingRuns, SpillError

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Compliance auditor for casino table games under Andorra's Decret 455/2025.",
)
FORMATS = ("html", "jsonl", "junit")
FAIL_ON = ("critical", "major", "minor", "never")


def fail(message: str) -> typer.Exit:
    typer.echo(visible(f"auditor: error: {message}"), err=True)
    return typer.Exit(2)


def _choice(value: str, options: tuple[str, ...], option: str) -> str:
    value = value.strip().lower()
    if value not in options:
        raise fail(f"{option} must be one of {', '.join(options)}, not {value!r}")
    return value


def _formats(value: str) -> list[str]:
    chosen = [v.strip().lower() for v in value.split(",") if v.strip()]
    unknown = [v for v in chosen if v not in FORMATS]
    if unknown:
        raise fail(f"--format: unknown format(s) {', '.join(unknown)} (choose among {', '.join(FORMATS)})")
    return chosen


BY_PARTITION = typer.Option("--by-partition", help="Audit a bundle of Parquet partitions one group of same-named parts at a time (bounded memory).")
BATCH_ROWS = typer.Option(help="With --by-partition: about how many rows each step reads (bounds memory).", min=1)
SPILL = typer.Option("--findings-in-memory", help="Findings held in memory before they are written, sorted, to temporary "
                     "files (in TMPDIR) and merged for the outputs (bounds memory however many there are).", min=1)


def _run(
    bundle: Path, rs: Ruleset, rules: list[Rule], lang: str, tick: Progress, by_partition: bool, batch_rows: int,
    workers: int = DEFAULT_WORKERS, keep: int = KEEP, spill_rows: int = SPILL_ROWS,
) -> tuple[AuditResult, pd.DataFrame | None, dict[str, str | None] | None]:
    """(result, per-table figures, period) of `rules` over the bundle, whole or by partition (the
    figures and period then worked out step by step, and past a bound the findings spilled to disk,
    the first `keep` of each rule and table kept in memory); a bundle that cannot be audited ends
    the command with exit status 2."""
    try:
        if by_partition:
            from auditor.stream import StreamError, audit_by_partition

            if not bundle.is_dir():
                raise BundleError(f"no such bundle directory: {bundle}")
            try:
                return audit_by_partition(bundle, rs, rules, lang=lang, progress=tick, batch_rows=batch_rows, workers=workers, keep=keep,
                                          spill_rows=spill_rows)
            except StreamError as exc:
                raise fail(str(exc)) from None
        keep_freed_memory_for(table_files(bundle))  # a whole audit reuses what it frees, but of large text files (`auditor.memory`)
        found = FindingRuns(rs.timezone, spill_rows, keep)
        return audit_bundle(bundle, rs, rules, lang=lang, progress=tick, workers=workers, found=found), None, None
    except (BundleError, SpillError) as exc:
        raise fail(str(exc)) from None


@app.command()
def audit(
    bundle: Annotated[Path, typer.Argument(help="The bundle directory.")],
    ruleset: Annotated[str, typer.Option(help="Ruleset name (in rulesets/) or TOML file.")] = DEFAULT_RULESET,
    out: Annotated[Path | None, typer.Option(help="Output directory (default: reports/<bundle name>/).")] = None,
    format: Annotated[str, typer.Option("--format", help="Comma-separated: html, jsonl, junit.")] = "html,jsonl",
    select: Annotated[list[str] | None, typer.Option(help="Only these codes or prefixes (CDF, CDF10, LOG001).")] = None,
    ignore: Annotated[list[str] | None, typer.Option(help="Skip these codes or prefixes.")] = None,
    fail_on: Annotated[str, typer.Option(help="critical, major, minor or never.")] = "major",
    lang: Annotated[str, typer.Option(help="Language of messages and report: ca or en.")] = "ca",
    progress: Annotated[bool | None, typer.Option("--progress/--no-progress", help="Progress on stderr (default: when stderr is a terminal).")] = None,
    by_partition: Annotated[bool, BY_PARTITION] = False,
    batch_rows: Annotated[int, BATCH_ROWS] = 2_000_000,
    findings_in_memory: Annotated[int, SPILL] = SPILL_ROWS,
    workers: Annotated[int, typer.Option(help="Threads running rules, two at most: whole, they share a game's rules; by partition, two games at once (1: one rule at a time).", min=1, max=8)] = DEFAULT_WORKERS,
) -> None:
    """Audit a bundle: write violations.jsonl, summary.json and report.html; exit 1 on findings."""
    formats = _formats(format)
    fail_on = _choice(fail_on, FAIL_ON, "--fail-on")
    lang = _choice(lang, LANGS, "--lang")
    try:
        rules = select_rules(select, ignore)
        rs = load_ruleset(ruleset)
    except (UnknownRule, RulesetError) as exc:
        raise fail(str(exc)) from None
    tick = Progress(progress)
    prepared = prepare_outputs(set(formats))
    result, figures, period = _run(bundle, rs, rules, lang, tick, by_partition, batch_rows, workers, spill_rows=findings_in_memory)
    loaded = result.bundle
    target = out or Path("reports") / loaded.name
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise fail(f"cannot write to {target}: {exc}") from None
    tick("writing outputs")
    summary = build_summary(result, fail_on, figures, period)
    prepared.join()
    try:
        write_outputs(result, summary, target, set(formats), lang)
    finally:
        if result.spilled is not None:
            result.spilled.close()
    tick.done()
    n_fail = cast(dict[str, int], summary["verdict"])["findings_at_or_above_fail_on"]
    totals = cast(dict[str, int], summary["totals"])
    for code, error in result.errors.items():
        typer.echo(visible(f"auditor: error: rule {code} could not run: {error}"), err=True)
    idle = [] if result.rules_run and loaded.files else [
        label("no_files", "en") if not loaded.files
        else f"none of the {len(rules)} rule(s) selected could run (" + some_of(sorted(set(result.rules_not_run.values()))) + "): the audit checked nothing"
        if rules else "--select and --ignore leave no rule to run: the audit checked nothing"]
    _notes(loaded.ignored, [*summary["bundle"]["manifest_notes"], *summary["ruleset"]["notes"], *idle, *result.notes])  # type: ignore[index]
    typer.echo(
        f"{loaded.name}: {cast(dict[str, int], summary['findings'])['total']} finding(s), {n_fail} at or above {fail_on}; "
        f"rows read {totals['rows_read']}, audited {totals['rows_audited']}, quarantined {totals['rows_quarantined']}; "
        f"outputs in {target}"
    )
    raise typer.Exit(2 if result.errors else 1 if n_fail else 0)


def _notes(ignored: list[str], notes: list[str]) -> None:
    """What the audit could not take as given, on stderr: files in the bundle that are not part of the
    log format (not read, but not silently), then the manifest's and the ruleset's notes."""
    if ignored:
        notes = [f"{len(ignored)} file(s) not part of the log format were not read: {some_of(ignored)}", *notes]
    for note in notes:
        typer.echo(visible(f"auditor: note: {note}"), err=True)


@app.command()
def validate(
    bundle: Annotated[Path, typer.Argument(help="The bundle directory.")],
    show: Annotated[int, typer.Option(help="Print at most this many findings.")] = 200,
    fail_on: Annotated[str, typer.Option(help="critical, major, minor or never.")] = "major",
    lang: Annotated[str, typer.Option(help="ca or en.")] = "en",
    by_partition: Annotated[bool, BY_PARTITION] = False,
    batch_rows: Annotated[int, BATCH_ROWS] = 2_000_000,
    findings_in_memory: Annotated[int, SPILL] = SPILL_ROWS,
) -> None:
    """Check a bundle against the log format only (LOG001–LOG005); exit 1 when it breaks it."""
    fail_on = _choice(fail_on, FAIL_ON, "--fail-on")
    lang = _choice(lang, LANGS, "--lang")
    tick = Progress()
    result, _, _ = _run(bundle, load_ruleset(DEFAULT_RULESET), select_rules("LOG"), lang, tick, by_partition, batch_rows,
                        keep=max(KEEP, show), spill_rows=findings_in_memory)
    if result.spilled is not None:
        result.spilled.close()  # the lines are not printed: what is kept of each case is
    loaded = result.bundle
    tick.done()
    empty = [] if loaded.files else ["the bundle holds no file of the log format: nothing was checked"]
    _notes(loaded.ignored, [*manifest_notes(loaded.manifest, [f.name for f in loaded.files]), *empty, *result.notes])
    for f in loaded.files:
        status = f"  ERROR {f.error}" if f.error else ""
        typer.echo(visible(f"{f.name}: read {f.rows_read}, audited {f.rows_audited}, quarantined {f.rows_quarantined}{status}"))
    total, _, by_severity = finding_counts(result)
    for row in result.findings.head(show).itertuples(index=False):
        # Cells are quoted in messages: an escape sequence in a log must not drive the terminal.
        typer.echo(visible(f"{row.source or '-'}: {row.rule} {row.message}"))
    if total > show:
        typer.echo(f"... and {total - show} more")
    n_fail = failing(by_severity, fail_on)
    typer.echo(f"{total} finding(s), {n_fail} at or above {fail_on}")
    raise typer.Exit(1 if n_fail else 0)


@app.command("rules")
def list_rules(
    as_json: Annotated[bool, typer.Option("--json", help="A JSON list for machines.")] = False,
) -> None:
    """List every rule: code, name, severity, game, citation."""
    if as_json:
        typer.echo(json.dumps([r.as_dict() for r in REGISTRY.values()], ensure_ascii=False, indent=2))
        return
    for r in REGISTRY.values():
        typer.echo(f"{r.code}  {r.severity:<8}  {r.game:<16}  {r.name:<28}  {r.citation}")


@app.command()
def explain(
    code: Annotated[str, typer.Argument(help="A rule code, e.g. CDF101.")],
    ruleset: Annotated[str, typer.Option(help="Ruleset name or file.")] = DEFAULT_RULESET,
) -> None:
    """Print a rule, the parameters it reads and the regulation text it enforces."""
    from auditor.regulation import article_text

    try:
        rule = get_rule(code)
        rs = load_ruleset(ruleset)
    except (UnknownRule, RulesetError) as exc:
        raise fail(str(exc)) from None
    typer.echo(f"{rule.code} {rule.name} ({rule.severity}, {rule.game})")
    typer.echo(f"Cites: {rule.citation} — {rule.citation.quote}\n")
    typer.echo(rule.doc + "\n")
    if rule.parameters:
        typer.echo(f"Parameters (ruleset {rs.id} {rs.version}):")
        for name in rule.parameters:
            p = rs.param(name)
            values = ", ".join(f"{since}: {value}" for since, value in p.values)
            typer.echo(f"  {name} = {values}\n    {p.description} [{p.reference}]" + (f"\n    note: {p.note}" if p.note else ""))
        typer.echo("")
    text = article_text(rule.citation)
    if text:
        typer.echo("Regulation text:\n" + text)


@app.command()
def simulate(
    out_dir: Annotated[Path, typer.Argument(help="Directory to write the bundle into.")],
    seed: Annotated[int, typer.Option(help="Random seed: the same seed gives the same bundle.")] = 1,
    rounds: Annotated[int, typer.Option(help="Rounds per game (coups, spins, throws).", min=1)] = 1000,
    games: Annotated[str, typer.Option(help="Comma-separated: cdf, wheel, dice, tournaments.")] = "cdf,wheel,dice,tournaments",
    format: Annotated[str, typer.Option("--format", help="csv, jsonl or parquet.")] = "csv",
    plant: Annotated[float, typer.Option("--plant", help="Share of rounds given a planted breach (0-1).")] = 0.0,
    plant_rules: Annotated[str | None, typer.Option("--plant-rules", help="Plant these codes or prefixes (one each if --plant is 0).")] = None,
) -> None:
    """Write a bundle of lawful play, optionally with planted breaches listed in OUT_DIR.planted.jsonl."""
    from auditor.simulate import SimulateError, parse_games
    from auditor.simulate import simulate as run_simulation

    try:
        chosen = parse_games(games)
        rules = [r for r in (plant_rules or "").replace(" ", ",").split(",") if r] or None
        sim = run_simulation(out_dir, seed=seed, rounds=rounds, games=chosen, fmt=format.lower(), plant_rate=plant, plant_rules=rules)
    except SimulateError as exc:
        raise fail(str(exc)) from None
    sizes = ", ".join(f"{name} {len(frame)}" for name, frame in sim.frames.items())
    typer.echo(f"wrote {out_dir}: {sizes}; {len(sim.planted)} planted finding(s) in {out_dir.parent / (out_dir.name + '.planted.jsonl')}")


@app.command()
def version() -> None:
    """Print the auditor's version."""
    typer.echo(__version__)


def main() -> None:
    from auditor.memory import set_up_audit_process

    set_up_audit_process()
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as exc:  # noqa: BLE001 - an audit that did not finish must not exit 1, "findings"
        if os.environ.get("AUDITOR_DEBUG"):
            raise
        typer.echo(visible(f"auditor: error: the audit did not finish: {type(exc).__name__}: {exc} "
                           "(AUDITOR_DEBUG=1 shows where)"), err=True)
        sys.exit(2)
