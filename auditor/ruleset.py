"""Rulesets: the legal parameters of the regulation as data, each dated and referenced.

A ruleset is a TOML file (read with the standard library's `tomllib`, which never runs code):

    id = "decret-455-2025"
    version = "1"
    [parameters.cagnotte_rate]
    description = "Deduction for the house on the banker's winnings"
    reference = "Decret 455/2025, epígraf 8, V"
    values = { 2025-12-10 = 0.05 }

A parameter may change over time: `values` maps the date a value takes effect to the value, and an
audited round uses the value in force on its own date (a round dated before the first value uses the
first value). Every parameter is checked at load time against `PARAMETERS`.
"""

from __future__ import annotations

import datetime as dt
import math
import os
import tomllib
import zoneinfo
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from auditor.frames import codes_in

RULESET_DIR = Path(os.environ.get("AUDITOR_RULESETS", Path(__file__).resolve().parent.parent / "rulesets"))
DEFAULT_RULESET = "decret-455-2025"
DEFAULT_TIMEZONE = "Europe/Andorra"


class RulesetError(Exception):
    """The ruleset cannot be used: not found, not TOML, or a parameter is missing or of the wrong form."""


Validator = Callable[[object], str | None]


def _number(low: float | None = None, high: float | None = None, integer: bool = False) -> Validator:
    def check(value: object) -> str | None:
        if isinstance(value, bool) or not isinstance(value, int | float) or (integer and not isinstance(value, int)):
            return "must be " + ("a whole number" if integer else "a number")
        if isinstance(value, float) and not math.isfinite(value):  # TOML's nan passes every bound and would turn a rule off unseen
            return "must be a finite number"
        if isinstance(value, int) and not -(2**63) <= value < 2**63:  # numpy's int64, which the rules compare it with
            return "must be a whole number within 64 bits"
        if low is not None and value < low:
            return f"must be ≥ {low}"
        if high is not None and value > high:
            return f"must be ≤ {high}"
        return None

    return check


def _choice(*options: str) -> Validator:
    def check(value: object) -> str | None:
        return None if value in options else "must be one of " + ", ".join(options)

    return check


def _boolean(value: object) -> str | None:
    return None if isinstance(value, bool) else "must be true or false"


_at_least_zero = _number(0)


def _mapping(keys: tuple[str, ...]) -> Validator:
    def check(value: object) -> str | None:
        if not isinstance(value, dict) or set(value) != set(keys):
            return "must be a table with exactly the keys " + ", ".join(keys)
        if any(_at_least_zero(v) for v in value.values()):
            return "must map each key to a finite number ≥ 0 (whole numbers within 64 bits)"
        return None

    return check


WHEEL_SYMBOLS = ("24", "15", "7", "4", "2", "figura_1", "figura_2")

# Name -> validator: the form every parameter must have, whatever the ruleset file says.
PARAMETERS: dict[str, Validator] = {
    "cagnotte_rate": _number(0, 1),
    "cagnotte_rounding": _choice("half_up", "half_even", "down", "up"),
    "cagnotte_rounding_unit_cents": _number(1, integer=True),
    "cagnotte_tolerance_cents": _number(0, integer=True),
    "cagnotte_on_abonaments": _boolean,
    "bank_max_multiple": _number(1, integer=True),
    "voluntary_garage_multiple": _number(0, integer=True),
    "min_players": _number(0, integer=True),
    "decks": _number(1, integer=True),
    "max_abonaments": _number(0, integer=True),
    "losing_banker_no_carryover": _boolean,
    "void_result_may_be_empty": _boolean,
    "player_optional_5": _boolean,
    "banker_optional_3_vs_9": _boolean,
    "banker_optional_5_vs_4": _boolean,
    "min_revolutions": _number(0),
    "wheel_odds": _mapping(WHEEL_SYMBOLS),
    "wheel_layout": _mapping(WHEEL_SYMBOLS),
    "dice_odds": _mapping(("asos", "petit", "gran")),
    "small_big_max_multiple": _number(1, integer=True),
    "asos_max_multiple": _number(1, integer=True),
    "boundary_limit_multiple": _number(1, integer=True),
    "rotation_minutes": _number(1),
    "session_gap_minutes": _number(0),
    "table_seats": _number(1, integer=True),
    "dice_edge_min_mm": _number(0),
    "dice_edge_max_mm": _number(0),
    "max_costs_share": _number(0, 1),
    "notice_days": _number(0, integer=True),
    "adult_age": _number(0, integer=True),
    "leap_day_anniversary": _choice("february_28", "march_1"),
    "authorisation_max_years": _number(0, integer=True),
}


@dataclass(frozen=True)
class Parameter:
    name: str
    description: str
    reference: str
    values: tuple[tuple[dt.date, object], ...]  # sorted by the date each takes effect
    note: str = ""

    @property
    def dated(self) -> bool:
        """Whether its value changes over time: a value in force at each row must then be looked up."""
        return len(self.values) > 1

    def at(self, day: dt.date | None = None) -> object:
        if day is None:
            return self.values[-1][1]
        current = self.values[0][1]
        for since, value in self.values:
            if since <= day:
                current = value
        return current


@dataclass(frozen=True)
class Ruleset:
    id: str
    version: str
    title: str
    reference: str
    source: str
    parameters: dict[str, Parameter]
    # Values take effect on a date of the country's calendar: a coup at 00:30 on the day a new value
    # takes effect in Andorra is 23:30 the day before in UTC, and is under the new value.
    timezone: str = DEFAULT_TIMEZONE

    @property
    def in_force_from(self) -> dt.date:
        """The first day any of its values takes effect: play before it is not under this ruleset."""
        return min(p.values[0][0] for p in self.parameters.values())

    def param(self, name: str) -> Parameter:
        try:
            return self.parameters[name]
        except KeyError:
            raise RulesetError(f"ruleset {self.id}: no parameter {name!r}") from None

    def value(self, name: str, when: dt.date | None = None) -> object:
        return self.param(name).at(when)

    def series(self, name: str, when: pd.Series) -> object:
        """The value in force at each timestamp of `when`: a scalar when it never changed."""
        param = self.param(name)
        if not param.dated:
            return param.values[0][1]
        days = self._local(pd.to_datetime(when))
        starts = np.array([np.datetime64(d) for d, _ in param.values], dtype="datetime64[ns]")
        idx = np.searchsorted(starts, days.to_numpy(dtype="datetime64[ns]"), side="right") - 1
        idx = np.clip(idx, 0, len(starts) - 1)
        values = np.array([v for _, v in param.values], dtype=object)
        return pd.Series(values[idx], index=when.index, copy=False).infer_objects()

    def lookup(self, name: str, keys: pd.Series, when: pd.Series | None = None) -> pd.Series:
        """A table-valued parameter looked up per row: e.g. the odds of each bet's symbol (NaN for a
        key the table does not hold)."""
        param = self.param(name)
        if not param.dated or when is None:
            return pd.Series(_map_table(keys, param.values[-1][1] if when is None else param.values[0][1]), index=keys.index, copy=False)
        out = np.full(len(keys), np.nan)
        days = self._local(when)
        for i, (since, table) in enumerate(param.values):
            lo = pd.Timestamp(since) if i else pd.Timestamp.min
            hi = pd.Timestamp(param.values[i + 1][0]) if i + 1 < len(param.values) else pd.Timestamp.max
            mask = ((days >= lo) & (days < hi)).to_numpy(dtype=bool)
            out[mask] = _map_table(keys[mask], table)
        return pd.Series(out, index=keys.index, copy=False)

    def _local(self, when: pd.Series) -> pd.Series:
        """Times as the wall-clock time of the ruleset's country (dates, which have no zone, as they are)."""
        if isinstance(when.dtype, pd.DatetimeTZDtype):
            return when.dt.tz_convert(self.timezone).dt.tz_localize(None)
        return when


def _map_table(keys: pd.Series, table: object) -> np.ndarray:
    """table[key] for every key as float64, through one Arrow hash lookup rather than a Python call per row."""
    assert isinstance(table, dict)
    names = [str(k) for k in table]
    values = np.array([float(v) for v in table.values()] + [np.nan], dtype="float64")
    # -1 (a missing key or one the table lacks) takes the NaN at the end; an enum column is looked
    # up once per category.
    return values[codes_in(keys, names).astype(np.intp, copy=False)]  # int8 codes: numpy's slow casting gather


def _parse_date(key: object, where: str) -> dt.date:
    if isinstance(key, dt.date):
        return key
    try:
        return dt.date.fromisoformat(str(key))
    except ValueError:
        raise RulesetError(f"{where}: {key!r} is not a date YYYY-MM-DD") from None


def parse_ruleset(data: dict[str, object], source: str) -> Ruleset:
    for key in ("id", "version"):
        if not isinstance(data.get(key), str):
            raise RulesetError(f"{source}: `{key}` must be a string")
    raw_params = data.get("parameters")
    if not isinstance(raw_params, dict):
        raise RulesetError(f"{source}: no [parameters] table")
    params: dict[str, Parameter] = {}
    for name, spec in raw_params.items():
        where = f"{source}: parameter {name!r}"
        if name not in PARAMETERS:
            raise RulesetError(f"{where} is not a parameter any rule reads (known: {', '.join(sorted(PARAMETERS))})")
        if not isinstance(spec, dict):
            raise RulesetError(f"{where} must be a table with description, reference and values")
        for key in ("description", "reference"):
            if not isinstance(spec.get(key), str) or not spec[key].strip():
                raise RulesetError(f"{where}: `{key}` must be a non-empty string")
        values = spec.get("values")
        if not isinstance(values, dict) or not values:
            raise RulesetError(f"{where}: `values` must map the date each value takes effect to the value")
        dated: list[tuple[dt.date, object]] = []
        for when, value in values.items():
            day = _parse_date(when, where)
            problem = PARAMETERS[name](value)
            if problem:
                shown = repr(value)
                raise RulesetError(f"{where}, value from {day}: {problem} (got {shown if len(shown) <= 80 else shown[:77] + '...'})")
            dated.append((day, value))
        dated.sort(key=lambda item: item[0])
        params[name] = Parameter(name, spec["description"], spec["reference"], tuple(dated), str(spec.get("note", "")))
    missing = sorted(set(PARAMETERS) - set(params))
    if missing:
        raise RulesetError(f"{source}: missing parameter(s) {', '.join(missing)}")
    timezone = data.get("timezone", DEFAULT_TIMEZONE)
    try:
        zoneinfo.ZoneInfo(str(timezone))
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise RulesetError(f"{source}: `timezone` {timezone!r} is not a known time zone (e.g. Europe/Andorra)") from None
    return Ruleset(
        id=str(data["id"]),
        version=str(data["version"]),
        title=str(data.get("title", "")),
        reference=str(data.get("reference", "")),
        source=source,
        parameters=params,
        timezone=str(timezone),
    )


def load_ruleset(name_or_file: str | Path = DEFAULT_RULESET) -> Ruleset:
    """A ruleset by name (a file in rulesets/) or by path."""
    path = Path(name_or_file)
    if not path.suffix and not path.exists():
        path = RULESET_DIR / f"{name_or_file}.toml"
    if not path.is_file():
        known = sorted(p.stem for p in RULESET_DIR.glob("*.toml")) if RULESET_DIR.is_dir() else []
        raise RulesetError(f"no such ruleset: {name_or_file} (known: {', '.join(known) or 'none'})")
    try:
        data = tomllib.loads(path.read_bytes().decode("utf-8"))
    except (tomllib.TOMLDecodeError, ValueError) as exc:  # ValueError: bad UTF-8, an integer of over 4,300 digits
        raise RulesetError(f"{path}: not valid TOML: {str(exc)[:200]}") from None
    return parse_ruleset(data, str(path.name))
