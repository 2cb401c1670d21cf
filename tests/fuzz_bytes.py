"""A byte-level fuzz of whole audits, run by hand (not collected by pytest: it takes minutes).

Small simulated bundles in CSV, JSONL and Parquet, and a Parquet one cut into hourly parts (audited
--by-partition), each with one file's bytes flipped, inserted, deleted or cut, are audited through
the command line. Whatever the bytes, an audit must end with exit 0 or 1, write summary.json, keep
rows read = rows audited + rows quarantined, and write one JSON object a line of violations.jsonl,
as many as summary.json counts. Each run that does not is printed and its bundle kept. Its first
rounds (2026-12-04) found a CSV header with a carriage return, strings of bad UTF-8 in Parquet and
JSONL, a manifest escaping half a surrogate pair and a part's footer naming a column in bad UTF-8,
each of which ended the audit. The "scalar" mutation (a line made a JSON value but no object) was
added after a probe found pyarrow's JSON reader crashing the process on a row `null`.

    .venv/bin/python tests/fuzz_bytes.py --runs 500 --seed 0 --work /tmp/fuzz

Should the process itself die (exit 139: a crash in a native library), WORK/current.txt names the run
it died in and WORK/run holds its bundle.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
from pathlib import Path

from typer.testing import CliRunner

from auditor.cli import app
from auditor.simulate import simulate
from auditor.simulate.partition import partition

INSERTS = [b'"', b"\n", b"\r", b"\r\n", b",", b"\x00", b"\xe2\x80\xa8", b'{"a":1}', b"-", b"9" * 25, b"\\u0000", b"\\ud800",
           b"null", b"[1,2]", b"1e400", b'"ts":"x",', b"\xff"]
BYTES = b'\x00\n\r",;\\{}[]\xff\xc3:\t \x80'


def sources(work: Path) -> dict[str, Path]:
    """The bundles mutated, simulated once (60 rounds a game, 5 % of them breaches)."""
    made = {}
    for fmt in ("csv", "jsonl", "parquet"):
        made[fmt] = work / "src" / fmt
        if not made[fmt].exists():
            simulate(made[fmt], seed=7, rounds=60, fmt=fmt, plant_rate=0.05)
    made["parts"] = work / "src" / "parts"
    if not made["parts"].exists():
        partition(made["parquet"], made["parts"], "%Y-%m-%dT%H")
    return made


def mutate(data: bytearray, rng: random.Random) -> list[str]:
    """Some bytes of `data` changed in place; what was done, for the report."""
    done = []
    for _ in range(rng.choice([1, 1, 2, 5, 20])):
        if not data:
            break
        at = rng.randrange(len(data))
        op = rng.choice(["flip", "byte", "insert", "delete", "cut", "line", "scalar"])
        if op == "flip":
            data[at] ^= 1 << rng.randrange(8)
        elif op == "byte":
            data[at] = rng.choice(BYTES)
        elif op == "insert":
            data[at:at] = rng.choice(INSERTS)
        elif op == "delete":
            del data[at : at + rng.randrange(1, 40)]
        elif op == "cut":
            del data[at:]
        elif op == "line":  # a line written twice
            end, start = data.find(b"\n", at), data.rfind(b"\n", 0, at)
            if end > 0:
                data[end:end] = data[start:end]
        else:  # a line that is a JSON value but no object (a row `null` crashed pyarrow's JSON reader)
            end, start = data.find(b"\n", at), data.rfind(b"\n", 0, at) + 1
            data[start : end if end >= 0 else len(data)] = rng.choice([b"null", b"null null", b"true", b"[]", b'"s"', b"5"])
        done.append(op)
    return done


def problem_of(bundle: Path, out: Path, by_partition: bool) -> str | None:
    """What is wrong with the audit of `bundle`, or None."""
    args = ["audit", str(bundle), "--out", str(out), "--format", "html,jsonl,junit"] + (["--by-partition"] if by_partition else [])
    result = CliRunner().invoke(app, args)
    if result.exit_code not in (0, 1):
        return f"exit {result.exit_code}: {result.output[-600:]}"
    if not (out / "summary.json").exists():
        return f"exit {result.exit_code} without summary.json: {result.output[-600:]}"
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    totals = summary["totals"]
    if totals["rows_read"] != totals["rows_audited"] + totals["rows_quarantined"]:
        return f"counts do not reconcile: {totals}"
    lines = (out / "violations.jsonl").read_text(encoding="utf-8").splitlines()
    if len(lines) != summary["findings"]["total"] or not all(isinstance(json.loads(line), dict) for line in lines):
        return f"{len(lines)} lines in violations.jsonl for {summary['findings']['total']} findings"
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0, help="the first run's seed; each run's seed is the next")
    parser.add_argument("--work", type=Path, default=Path("/tmp/auditor-fuzz"))
    args = parser.parse_args()
    made = sources(args.work)
    failed = 0
    for seed in range(args.seed, args.seed + args.runs):
        rng = random.Random(seed)
        kind = rng.choice(["csv", "jsonl", "parquet", "parts", "parts"])
        bundle = args.work / "run" / kind
        shutil.rmtree(args.work / "run", ignore_errors=True)
        shutil.copytree(made[kind], bundle)
        victim = rng.choice(sorted(p for p in bundle.rglob("*") if p.is_file()))
        data = bytearray(victim.read_bytes())
        done = mutate(data, rng)
        victim.write_bytes(bytes(data))
        # Written before the audit: a native library's crash ends this process too, and leaves only
        # this file and the bundle in work/run to say which run it was.
        (args.work / "current.txt").write_text(f"seed {seed}: {kind} {victim.relative_to(bundle)} {done}\n", encoding="utf-8")
        problem = problem_of(bundle, args.work / "run" / "out", by_partition=kind == "parts")
        if problem:
            failed += 1
            kept = args.work / f"failed-{seed}"
            shutil.rmtree(kept, ignore_errors=True)
            shutil.copytree(bundle, kept)
            print(f"seed {seed}: {kind} {victim.relative_to(bundle)} {done}: {problem} (bundle kept in {kept})", flush=True)
    print(f"{args.runs} runs from seed {args.seed}: {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
