"""Lawful tournaments (annex II): at most 25 % of fees to organisation, the rest to prizes, the CRAJ
told at least ten days ahead, authorisations of at most a year covering the date, adult, registered,
not excluded participants, casino venues (or an authorised external one)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from auditor.simulate.chemin_de_fer import Columns


def simulate(rng: np.random.Generator, n_tournaments: int, start: pd.Timestamp) -> dict[str, pd.DataFrame]:
    tours, entries = Columns(), Columns()
    day0 = start.tz_localize(None).normalize() if start.tzinfo else start.normalize()
    for i in range(n_tournaments):
        tid = f"TRN{i + 1:04d}"
        starts = day0 + pd.Timedelta(days=int(rng.integers(0, 60)))
        n_entries = int(rng.integers(4, 30))
        fee = int(rng.choice([2000, 5000, 10000]))
        fees = fee * n_entries
        costs = int(fees * float(rng.uniform(0.05, 0.25)))
        prizes = fees - costs + int(rng.choice([0, 0, 10000]))
        auth_from = starts - pd.Timedelta(days=int(rng.integers(20, 200)))
        auth_to = min(auth_from + pd.DateOffset(years=1), starts + pd.Timedelta(days=int(rng.integers(0, 120))))
        external = rng.random() < 0.1
        tours.add(tournament_id=tid, game=str(rng.choice(["chemin_de_fer", "wheel_of_fortune", "banca_francesa"])),
                  starts_on=starts, notified_on=starts - pd.Timedelta(days=int(rng.integers(10, 40))),
                  authorised_from=auth_from, authorised_to=auth_to, venue="external" if external else "casino",
                  external_authorised=True if external else None, fees_cents=fees, organisation_costs_cents=costs, prizes_cents=prizes)
        for j in range(n_entries):
            age_days = int(rng.integers(18 * 366, 80 * 365))
            entries.add(tournament_id=tid, player_id=f"{tid}-E{j + 1:03d}", birth_date=starts - pd.Timedelta(days=age_days),
                        excluded=False, registered=True)
    return {"tournaments": tours.frame(), "tournament_entries": entries.frame()}
