"""Tornejos, annex II (TRN401–TRN408). Dates are calendar dates: an 18th birthday on the start date
is an adult; "a year" is the same calendar date a year later, and 29 February's anniversary in a
common year is 28 February or 1 March as `leap_day_anniversary` says."""

from __future__ import annotations

import numpy as np
import pandas as pd

from auditor.rules.base import Context, hits, rule

EP = "annex II"
T = ("tournaments",)
E = ("tournament_entries", "tournaments")


def _tournaments(ctx: Context) -> pd.DataFrame:
    t = ctx.frame("tournaments")
    return t.assign(ts=t["starts_on"])


def _entries(ctx: Context) -> pd.DataFrame:
    def build(c: Context) -> pd.DataFrame:
        starts = c.frame("tournaments").drop_duplicates("tournament_id").set_index("tournament_id")["starts_on"]
        e = c.frame("tournament_entries")
        # reindex, not map: map fails on an empty frame (every entry quarantined) with datetime values.
        return e.assign(ts=starts.reindex(e["tournament_id"]).to_numpy())

    return ctx.prepared("tournament_entries", build)  # type: ignore[return-value]


def _day(values: pd.Series) -> pd.Series:
    return values.dt.strftime("%Y-%m-%d")


def _leap_day_on_march_1(ctx: Context) -> bool:
    return ctx.param("leap_day_anniversary") == "march_1"


def _years_after(dates: pd.Series, years: np.ndarray, march_1: bool) -> pd.Series:
    """The same calendar date `years` later, or earlier when negative, per row; 29 February's
    anniversary in a common year is 28 February, or 1 March when `march_1`."""
    out = pd.Series(pd.NaT, index=dates.index, dtype=dates.dtype)
    for n in np.unique(years):
        mask = years == n
        out[mask] = dates[mask] + pd.DateOffset(years=int(n))
    if march_1:
        moved = (dates.dt.month == 2) & (dates.dt.day == 29) & (out.dt.day == 28)
        out = out.where(~moved, out + pd.Timedelta(days=1))
    return out


def _latest_birth(on: pd.Series, years: np.ndarray, march_1: bool) -> pd.Series:
    """The last birth date that is `years` old on `on`, the inverse of `_years_after`. With the
    28 February reading, one born 29 February of a leap year is of age on 28 February of a common
    year; with the 1 March reading, not before 1 March, so the plain calendar date is the answer."""
    before = _years_after(on, -years, march_1=False)
    if march_1:
        return before
    leap_day_after = (on.dt.month == 2) & (on.dt.day == 28) & before.dt.is_leap_year
    return before.where(~leap_day_after, before + pd.Timedelta(days=1))


@rule(
    "TRN401", "organisation-costs", "major", "tournament", (EP, "c)", "es pot destinar com a màxim un percentatge del vint-i-cinc (25) per cent a les despeses d'organització"),
    tables=T, params=("max_costs_share",),
    en="Organisation costs exceed the share of fees allowed",
    ca="Les despeses d'organització superen la part de les quotes permesa",
)
def organisation_costs(ctx: Context) -> pd.DataFrame:
    """organisation_costs_cents ≤ `max_costs_share` (25 %) of fees_cents.

    Passes: fees 100,000, costs 25,000. Fails: costs 25,001.
    """
    t = _tournaments(ctx)
    cap = t["fees_cents"] * ctx.param_array("max_costs_share", t["ts"])
    bad = t["organisation_costs_cents"] > cap
    return hits(t, bad, round_col="tournament_id", expected=lambda f: "<= " + _cents(cap[f.index]), observed=t["organisation_costs_cents"])


def _cents(values: pd.Series) -> pd.Series:
    """An amount in cents as text: whole amounts without a decimal point, others to the hundredth."""
    whole = values == np.floor(values)
    return values.round(2).astype(str).where(~whole, values.astype("int64").astype(str))


@rule(
    "TRN402", "fees-to-prizes", "major", "tournament", (EP, "", "La recaptació resultant de les quotes d'inscripció revertirà en els premis"),
    tables=T,
    en="Registration fees were not returned to the players as prizes",
    ca="Les quotes d'inscripció no han revertit en premis",
)
def fees_to_prizes(ctx: Context) -> pd.DataFrame:
    """prizes_cents ≥ fees_cents − organisation_costs_cents.

    Passes: fees 100,000, costs 20,000, prizes 80,000. Fails: prizes 70,000.
    """
    t = _tournaments(ctx)
    due = t["fees_cents"] - t["organisation_costs_cents"]
    return hits(t, t["prizes_cents"] < due, round_col="tournament_id", expected=lambda f: at_least_int(due[f.index]), observed=t["prizes_cents"])


def at_least_int(values: pd.Series) -> pd.Series:
    return ">= " + values.astype(str)


@rule(
    "TRN403", "advance-notice", "major", "tournament", (EP, "", "el casino ha de comunicar-ne la data de la celebració, amb deu dies d'antelació, prop del CRAJ"),
    tables=T, params=("notice_days",),
    en="The CRAJ was not told of the tournament in time",
    ca="No s'ha comunicat el torneig al CRAJ amb l'antelació deguda",
)
def advance_notice(ctx: Context) -> pd.DataFrame:
    """notified_on is at least `notice_days` (10) calendar days before starts_on; a tournament with
    no notified_on was not notified and is reported.

    Passes: starts 2026-03-20, notified 2026-03-10. Fails: notified 2026-03-11; not notified.
    """
    t = _tournaments(ctx)
    deadline = t["starts_on"] - pd.to_timedelta(ctx.param_array("notice_days", t["ts"]), unit="D")
    # NaT compares False: a tournament never notified must be caught explicitly.
    bad = t["notified_on"].isna() | (t["notified_on"] > deadline)
    return hits(t, bad, round_col="tournament_id", expected=lambda f: "<= " + _day(deadline[f.index]),
                observed=lambda f: _day(f["notified_on"]).fillna("not notified"))


@rule(
    "TRN404", "authorisation-period", "major", "tournament", (EP, "", "La vigència de l'autorització del torneig podrà ser referida a un període màxim d'un any"),
    tables=T, params=("authorisation_max_years", "leap_day_anniversary"),
    en="The authorisation is missing, longer than allowed, or does not cover the tournament's date",
    ca="L'autorització falta, és més llarga del permès o no cobreix la data del torneig",
)
def authorisation_period(ctx: Context) -> pd.DataFrame:
    """authorised_to is no later than the same calendar date `authorisation_max_years` after
    authorised_from (from 29 February, as `leap_day_anniversary` says), and starts_on lies between
    them (both included). No authorisation recorded (either date null) is a finding.

    Passes: 2026-01-01 to 2026-12-31, starts 2026-03-20. Fails: 2026-01-01 to 2027-01-02; starts
    2027-02-01; no dates.
    """
    t = _tournaments(ctx)
    latest = _years_after(t["authorised_from"], ctx.param_array("authorisation_max_years", t["ts"]), _leap_day_on_march_1(ctx))
    missing = t["authorised_from"].isna() | t["authorised_to"].isna()
    too_long = (t["authorised_to"] > latest).fillna(False)
    outside = ((t["starts_on"] < t["authorised_from"]) | (t["starts_on"] > t["authorised_to"])).fillna(False)
    bad = missing | too_long | outside

    def observed(f: pd.DataFrame) -> pd.Series:
        span = _day(f["authorised_from"]).fillna("?") + " to " + _day(f["authorised_to"]).fillna("?")
        return span.where(~missing[f.index], "no authorisation recorded") + ", starts " + _day(f["starts_on"])

    expected = lambda f: pd.Series(np.where(too_long[f.index], "at most until " + _day(latest[f.index]).fillna("?"), "an authorisation covering the start date"), index=f.index)  # noqa: E731
    return hits(t, bad, round_col="tournament_id", expected=expected, observed=observed)


@rule(
    "TRN405", "adult-participants", "critical", "tournament", (EP, "", "Les persones participants han de ser majors d'edat"),
    tables=E, params=("adult_age", "leap_day_anniversary"),
    en="A participant was a minor on the tournament's start date",
    ca="Un participant era menor d'edat el dia d'inici del torneig",
)
def adult_participants(ctx: Context) -> pd.DataFrame:
    """Every entry is `adult_age` (18) or older on starts_on: the 18th birthday falls on or before the
    start date. Born 29 February: of age on 28 February of a common 18th year, or on 1 March with
    `leap_day_anniversary = "march_1"`.

    Passes: born 2008-03-20, starts 2026-03-20. Fails: born 2008-03-21.
    """
    e = _entries(ctx)
    age = ctx.param_array("adult_age", e["ts"])
    march_1 = _leap_day_on_march_1(ctx)
    adult_on = _years_after(e["birth_date"], age, march_1)
    bad = (adult_on > e["ts"]).fillna(False)
    latest = _latest_birth(e["ts"], age, march_1)
    return hits(e, bad, round_col="tournament_id", item_col="player_id", expected=lambda f: "born on or before " + _day(latest[f.index]),
                observed=lambda f: "born " + _day(f["birth_date"]))


@rule(
    "TRN406", "excluded-participants", "critical", "tournament", (EP, "", "no han d'estar afectades per les limitacions previstes en la Llei 14/2024"),
    tables=E,
    en="A participant subject to the limitations of Llei 14/2024 took part",
    ca="Ha participat una persona afectada per les limitacions de la Llei 14/2024",
)
def excluded_participants(ctx: Context) -> pd.DataFrame:
    """No entry is `excluded` (self-excluded or otherwise barred by Llei 14/2024).

    Passes: excluded false. Fails: excluded true.
    """
    e = _entries(ctx)
    return hits(e, e["excluded"], round_col="tournament_id", item_col="player_id", expected=False, observed=True)


@rule(
    "TRN407", "registered-participants", "major", "tournament", (EP, "", "amb l'esment persona usuària de torneig"),
    tables=E,
    en="A participant was not registered at admission as a tournament user",
    ca="Un participant no s'havia registrat a l'admissió com a persona usuària de torneig",
)
def registered_participants(ctx: Context) -> pd.DataFrame:
    """Every entry is `registered` at admission as "persona usuària de torneig".

    Passes: registered true. Fails: registered false.
    """
    e = _entries(ctx)
    return hits(e, ~e["registered"], round_col="tournament_id", item_col="player_id", expected=True, observed=False)


@rule(
    "TRN408", "external-venue", "major", "tournament", (EP, "", "excepcionalment se'n pot autoritzar la celebració en instal·lacions alienes"),
    tables=T,
    en="A tournament at an external venue without the exceptional authorisation",
    ca="Un torneig en instal·lacions alienes sense l'autorització excepcional",
)
def external_venue(ctx: Context) -> pd.DataFrame:
    """A tournament whose venue is `external` has external_authorised true (null counts as false).

    Passes: external, authorised. Fails: external, external_authorised null.
    """
    t = _tournaments(ctx)
    bad = (t["venue"] == "external") & ~t["external_authorised"].fillna(False).astype(bool)
    return hits(t, bad, round_col="tournament_id", expected=True, observed=lambda f: f["external_authorised"].astype(object).where(f["external_authorised"].notna(), None))
