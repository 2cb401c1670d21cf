"""The log itself (LOG001–LOG005): the bundle follows the format, ids are unique, records are tied to
their parents, the manifest's digests hold, and coups run in sequence."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from auditor.frames import isin
from auditor.rules.base import Context, hits, no_hits, rule
from auditor.rules.cdf_replay import in_shoe_order, same_shoe_as_previous
from auditor.schema import ITEM_ROUNDS, REPORTED_ON, ROUND_TABLES, TABLES

def _quarantined(ctx: Context, code: str) -> pd.DataFrame:
    q = ctx.bundle.quarantine
    q = q[q["rule"] == code]
    if q.empty:
        return no_hits()
    return pd.DataFrame(
        {
            "table_id": q["table_id"].to_numpy(dtype=object),
            "round_id": q["round_id"].to_numpy(dtype=object),
            "item_id": q["item_id"].to_numpy(dtype=object),
            "ts": pd.NaT,
            "expected": q["column"].to_numpy(dtype=object),
            "observed": q["value"].to_numpy(dtype=object),
            "file": q["file"].to_numpy(dtype=object),
            "line": q["line"].to_numpy(),
            "detail": q["table"].to_numpy(dtype=object) + ": " + q["reason"].to_numpy(dtype=object),
        }
    )


@rule(
    "LOG001", "schema", "major", "log", ("", "", "../spec/log-format.md"), tables=(),
    en="The row breaks the log format and was quarantined",
    ca="La fila no segueix el format del registre i s'ha posat en quarantena",
)
def schema(ctx: Context) -> pd.DataFrame:
    """Every row has the columns, types and values of the log format; one that does not is
    quarantined (left out of every other rule), named by file and line, and counted.

    Passes: ``C1,T1,S1,1,2026-03-01T21:04:05+01:00,...`` (an offset on the timestamp).
    Fails: ``C2,T1,S1,2,2026-03-01T21:05:05,...`` (no UTC offset), ``9S 8X`` (no suit X), a
    negative ``bank_cents``, an unknown ``bank_event``, a file that is not CSV at all.
    """
    return _quarantined(ctx, "LOG001")


@rule(
    "LOG002", "duplicate-id", "major", "log", ("", "", "ids are unique"), tables=(),
    en="The id was already used by an earlier row; this row was quarantined",
    ca="L'identificador ja l'usava una fila anterior; aquesta fila s'ha posat en quarantena",
)
def duplicate_id(ctx: Context) -> pd.DataFrame:
    """Ids (coup_id, stake_id, spin_id, bet_id, throw_id, table_id, dice_set_id, tournament_id) are
    unique in the bundle. Every occurrence after the first, in file order, is reported and
    quarantined, so that no round is audited twice.

    Passes: stakes S1, S2. Fails: stakes S1, S1 (the second is reported).
    """
    return _quarantined(ctx, "LOG002")


def _text(text: str) -> Callable[[pd.DataFrame], pd.Series]:
    """The same detail for every offending row, built for those rows only."""
    return lambda f: pd.Series(text, index=f.index, dtype=object)


@rule(
    "LOG003", "orphan", "major", "log", ("", "", "every record names an existing parent"), tables=(),
    en="The record names a parent that is not in the bundle, or a table of another game",
    ca="El registre fa referència a un pare que no és al lot, o a una taula d'un altre joc",
)
def orphan(ctx: Context) -> pd.DataFrame:
    """Every stake or bet names a round of the bundle, every round (and wheel layout) a table of
    the right game, and every tournament entry a tournament. Ids of quarantined rows count as
    existing, so one bad row is not reported twice. Where the parents cannot be known one file of
    records gets one finding with their count, not one per record: when the parent table has no
    file in the bundle (no `tables` file: rounds cannot be tied to their tables), and when a file
    of it could not be read (LOG001), since the records may name rows of that file.

    Passes: a coup on table T1 with T1 a chemin_de_fer table. Fails: a stake of coup C9 when
    there is no coup C9; a coup on table W1, a wheel_of_fortune table.
    """
    found: list[pd.DataFrame] = []
    tables = ctx.bundle.frames.get("tables")
    for name, audited in ctx.bundle.frames.items():
        round_col, item_col = REPORTED_ON[name]
        for key, parent in TABLES[name].parents:
            frame = audited
            if name in ctx.bundle.unmatched and ITEM_ROUNDS[name] == (key, parent):
                # The items the load set aside are the only ones whose round is not audited.
                frame = ctx.bundle.unmatched[name]
                at = np.full(len(frame), -1)
            elif parent in ctx.bundle.frames:
                at = ctx.bundle.parent_positions(name, key, parent)
            else:
                at = np.full(len(frame), -1)
            if frame.empty:
                continue
            if parent not in ctx.bundle.ids_seen:  # no file of it at all (by partition: in any group)
                found.append(_per_file(frame, np.ones(len(frame), dtype=bool), parent,
                                       f"record(s) of {name} cannot be tied to their {parent}: no `{parent}` file in the bundle"))
                continue
            missing = at < 0
            if missing.any():
                # Not among the audited records: a quarantined one still counts as existing.
                rows = np.flatnonzero(missing)
                missing[rows[isin(frame[key].iloc[rows], ctx.bundle.ids_seen.get(parent, []))]] = False
            if missing.any() and parent in ctx.bundle.unread:
                found.append(_per_file(frame, missing, parent, f"record(s) of {name} name a {key} not among the {parent} read, "
                                       f"and a {parent} file could not be read: whether they are orphans cannot be told"))
            elif missing.any():
                found.append(hits(frame, missing, round_col=round_col, item_col=item_col, ts_col=None,
                                  expected=parent, observed=frame[key],
                                  detail=_text(f"{name}.{key} names no record of {parent}")))
            if parent == "tables" and tables is not None and name in ROUND_TABLES:
                # Each table's game judged once, then looked up by each round's table (1M rounds).
                other = (tables["game"].notna() & (tables["game"] != ROUND_TABLES[name])).to_numpy(dtype=bool)
                wrong = np.zeros(len(frame), dtype=bool)
                wrong[at >= 0] = other[at[at >= 0]]
                if wrong.any():
                    kinds = tables["game"].to_numpy(dtype=object)
                    game = pd.Series(np.where(at >= 0, kinds[np.maximum(at, 0)] if len(kinds) else None, None), index=frame.index, dtype=object)
                    found.append(hits(frame, wrong, round_col=round_col, ts_col=None,
                                      expected=ROUND_TABLES[name], observed=game.astype(object),
                                      detail=_text(f"{name}.{key} names a table of another game")))
    return pd.concat(found, ignore_index=True) if found else no_hits()


def _per_file(frame: pd.DataFrame, rows: np.ndarray, parent: str, what: str) -> pd.DataFrame:
    """One finding per file of `frame` for its `rows` whose parents cannot be known, "<count> <what>":
    calling each an orphan would bury the one real fault (a missing or unreadable file) under
    thousands of findings. Files in their order in the frame, so both ways of auditing agree."""
    picked = frame[rows]
    files = picked["_file"].astype(str)
    first = picked.groupby(files, sort=False).head(1)
    note = first["_file"].astype(str).map(files.value_counts()).astype(str) + " " + what
    return hits(first, round_col=None, ts_col=None, expected=parent, detail=note).assign(table_id=None, line=0)


@rule(
    "LOG004", "manifest-digest", "critical", "log", ("", "", "manifest.json"), tables=(),
    en="A file listed in the manifest is missing or its SHA-256 differs",
    ca="Un fitxer del manifest falta o el seu SHA-256 és diferent",
)
def manifest_digest(ctx: Context) -> pd.DataFrame:
    """Every file that manifest.json lists exists in the bundle and has the SHA-256 it states
    (``"cdf_coups.csv": "sha256:<64 hex>"``). A manifest that is not valid JSON is one finding.
    A name that points outside the bundle is refused, never read.

    Passes: the digest of the file as written. Fails: a file edited after the manifest was made,
    a listed file that is absent.
    """
    bundle = ctx.bundle
    rows: list[dict[str, object]] = []
    if bundle.manifest_error:
        rows.append({"file": "manifest.json", "expected": "valid manifest", "observed": None, "detail": bundle.manifest_error})
    files = (bundle.manifest or {}).get("files", {}) if not bundle.manifest_error else {}
    digests = {f.name: f.sha256 for f in bundle.files}
    from auditor.loading.bundle import inside_bundle, sha256_of

    for name, stated in sorted(files.items()) if isinstance(files, dict) else []:
        want = str(stated).removeprefix("sha256:").lower()
        target = bundle.path / name
        if not inside_bundle(bundle.path, target):
            rows.append({"file": name, "expected": want, "observed": None, "detail": "path outside the bundle"})
            continue
        if not target.is_file():
            rows.append({"file": name, "expected": want, "observed": None, "detail": "listed in the manifest but absent"})
            continue
        have = digests.get(Path(name).as_posix()) or sha256_of(target)
        if have != want:
            rows.append({"file": name, "expected": want, "observed": have, "detail": "SHA-256 differs from the manifest"})
    if not rows:
        return no_hits()
    out = pd.DataFrame(rows)
    out["table_id"] = None
    out["round_id"] = None
    out["item_id"] = None
    out["ts"] = pd.NaT
    out["line"] = 0
    return out


@rule(
    "LOG005", "sequence", "minor", "log", ("", "", "coup_no runs 1, 2, 3 ... within a shoe"), tables=("cdf_coups",),
    en="The coup breaks the run of coup numbers in its shoe, or its time goes backwards",
    ca="La jugada trenca la seqüència de números del sabot, o el seu temps va enrere",
)
def sequence(ctx: Context) -> pd.DataFrame:
    """Within a shoe (table_id, shoe_id), coup_no runs 1, 2, 3 ... without gaps or repeats, and ts
    does not go backwards in coup_no order. The coup that breaks the run is reported.

    Passes: coups 1, 2, 3 at 21:00, 21:01, 21:02. Fails: coups 1, 2, 4 (4 reported, expected 3);
    1, 2, 2 (the 2 dealt later); coup 3 at 20:59 after coup 2 at 21:01.
    """
    coups = ctx.frame("cdf_coups")
    if coups.empty:
        return no_hits()
    c = in_shoe_order(coups, [])
    same = same_shoe_as_previous(c)
    prev_no = c["coup_no"].shift().where(same, 0).astype("int64")
    expected_no = prev_no + 1
    broken = c["coup_no"] != expected_no
    backwards = same & (c["ts"] < c["ts"].shift())
    bad = broken | backwards
    prev_ts = c["ts"].shift()
    # Text is built for the offending coups only.
    iso = lambda t: t.dt.strftime("%Y-%m-%dT%H:%M:%S+00:00").astype(object)  # noqa: E731

    def expected(f: pd.DataFrame) -> pd.Series:
        return expected_no[f.index].astype(object).where(broken[f.index], ">= " + iso(prev_ts[f.index]))

    def observed(f: pd.DataFrame) -> pd.Series:
        return f["coup_no"].astype(object).where(broken[f.index], iso(f["ts"]))

    def detail(f: pd.DataFrame) -> pd.Series:
        numbers = "coup_no " + observed(f).astype(str) + " where " + expected(f).astype(str) + " was due"
        times = "ts " + observed(f).astype(str) + " goes back before " + iso(prev_ts[f.index]).astype(str)
        return numbers.where(broken[f.index], times)

    return hits(c, bad.to_numpy(), round_col="coup_id", expected=expected, observed=observed, detail=detail)
