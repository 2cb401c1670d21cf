"""The registry: every rule of the catalogue, found by its code.

Rules are defined in one module per game; importing them here is the whole registration. An
unknown code is refused with `UnknownRule`, never ignored.
"""

from __future__ import annotations

from auditor.rules import log  # noqa: F401  (registers LOG rules)
from auditor.rules import chemin_de_fer, dice, tournaments, wheel  # noqa: F401
from auditor.rules.base import SEVERITY_RANK, Rule, defined_rules

REGISTRY: dict[str, Rule] = dict(sorted(defined_rules().items()))
GAME_ORDER = ("log", "chemin_de_fer", "wheel_of_fortune", "banca_francesa", "tournament")


class UnknownRule(ValueError):
    def __init__(self, token: str) -> None:
        super().__init__(f'no such rule: "{token}" (see `auditor rules` for the codes)')
        self.token = token


def get_rule(code: str) -> Rule:
    try:
        return REGISTRY[code.strip().upper()]
    except KeyError:
        raise UnknownRule(code) from None


def _tokens(codes: str | list[str] | None) -> list[str]:
    if not codes:
        return []
    items = [codes] if isinstance(codes, str) else codes
    return [t.strip().upper() for item in items for t in item.replace(" ", ",").split(",") if t.strip()]


def _matching(token: str) -> list[str]:
    matched = [code for code in REGISTRY if code.startswith(token)]
    if not matched:
        raise UnknownRule(token)
    return matched


def select_rules(select: str | list[str] | None = None, ignore: str | list[str] | None = None) -> list[Rule]:
    """Rules chosen by codes or prefixes (`CDF`, `CDF10`, `LOG001`); every token must match a rule."""
    chosen = set(REGISTRY)
    wanted = _tokens(select)
    if wanted:
        chosen = {code for token in wanted for code in _matching(token)}
    for token in _tokens(ignore):
        chosen -= set(_matching(token))
    return [REGISTRY[code] for code in sorted(chosen)]


__all__ = ["REGISTRY", "SEVERITY_RANK", "Rule", "UnknownRule", "get_rule", "select_rules", "GAME_ORDER"]
