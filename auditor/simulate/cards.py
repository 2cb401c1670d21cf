"""Cards and the drawing rules of chemin de fer, written for the simulator from the regulation
(epígraf 8, VI) independently of the auditor's replay, so that one can check the other."""

from __future__ import annotations

import numpy as np

RANKS = "A23456789TJQK"
SUITS = "SHDC"
DECK = [r + s for r in RANKS for s in SUITS]


def value(card: str) -> int:
    rank = card[0]
    if rank == "A":
        return 1
    if rank in "TJQK":
        return 0
    return int(rank)


def score(cards: list[str]) -> int:
    return sum(value(c) for c in cards) % 10


def new_shoe(rng: np.random.Generator, decks: int = 6) -> list[str]:
    shoe = DECK * decks
    order = rng.permutation(len(shoe))
    return [shoe[i] for i in order]


def punt_must(total: int) -> str:
    """'draw', 'stand' or 'choose' for the punt on two cards (VI a)-c))."""
    if total <= 4:
        return "draw"
    if total == 5:
        return "choose"
    return "stand"


def banker_must(total: int, third: int | None) -> str:
    """The banker's decision in `rules` mode: the punto-banco chart with the two options of VI.

    `third` is the value of the punt's third card, or None when the punt stood.
    """
    if third is None:
        return "draw" if total <= 5 else "stand"
    if total <= 2:
        return "draw"
    if total == 3:
        if third == 8:
            return "stand"
        return "choose" if third == 9 else "draw"
    if total == 4:
        return "draw" if 2 <= third <= 7 else "stand"
    if total == 5:
        if third == 4:
            return "choose"
        return "draw" if 5 <= third <= 7 else "stand"
    if total == 6:
        return "draw" if third in (6, 7) else "stand"
    return "stand"


def half_up(numerator: int, denominator: int) -> int:
    q, r = divmod(numerator, denominator)
    return q + (1 if 2 * r >= denominator else 0)
