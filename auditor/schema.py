"""The log bundle format, version 1 (../shared/spec/log-format.md), as data.

Every table, column, type, enum and requirement of the contract is declared here once; the loader
validates against it and the simulator writes from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

ColumnType = Literal["str", "int", "float", "bool", "timestamp", "date", "enum", "cards"]
# "settled": required only when the row's status is `settled`.
Requirement = Literal["req", "opt", "settled"]

GAMES = ("chemin_de_fer", "wheel_of_fortune", "banca_francesa")
RANKS = "A23456789TJQK"  # a card's first byte, in rank order (A, 2-9, T, J, Q, K)
SUITS = "SHDC"  # its second byte
CARD_PATTERN = r"[A2-9TJQK][SHDC]( [A2-9TJQK][SHDC]){1,2}"


@dataclass(frozen=True)
class Column:
    name: str
    type: ColumnType
    req: Requirement = "opt"
    values: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    # Text of few distinct values (a round's table, shoe, banker, dice set, launcher, a stake's or
    # bet's player): held as a Categorical where the reader gives one (Parquet text in a big file,
    # `readers.DICTIONARY_ROWS`), a code a row instead of its text; as text otherwise (CSV, JSONL,
    # small files). 4M bets' players: 16 MB of codes for 72 MB of text. Whoever reads such a column
    # takes it in either form: `frames`' lookups (`isin`, `positions`, `differs_from_previous`,
    # `text_array`) do, and `test_columns_read_as_categories_give_the_same_outputs_as_text` audits
    # the samples both ways. The month's round tables so held (2026-12-04, eight alternating pairs):
    # whole audit 4.02 -> 3.72 s (median), peak 1.61 -> 1.50 GiB, the same outputs.
    held_as_codes: bool = False

    @property
    def signed(self) -> bool:
        return self.name in SIGNED_MONEY


@dataclass(frozen=True)
class Table:
    name: str
    game: str
    columns: tuple[Column, ...]
    id_column: str | None = None
    # (column, parent table) pairs checked by LOG003.
    parents: tuple[tuple[str, str], ...] = field(default=())

    def column(self, name: str) -> Column:
        for col in self.columns:
            if col.name == name:
                return col
        raise KeyError(name)

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]


SIGNED_MONEY = frozenset({"banker_result_cents", "result_cents"})

C = Column
TABLES: dict[str, Table] = {
    t.name: t
    for t in (
        Table(
            "tables",
            "log",
            (
                C("table_id", "str", "req"),
                C("game", "enum", "req", GAMES),
                C("min_cents", "int", "req"),
                C("max_cents", "int"),
                C("authorised_min_cents", "int"),
                C("bank_unlimited", "bool"),
                C("seats", "int", minimum=0),
            ),
            id_column="table_id",
        ),
        Table(
            "cdf_coups",
            "chemin_de_fer",
            (
                C("coup_id", "str", "req"),
                C("table_id", "str", "req", held_as_codes=True),
                C("shoe_id", "str", "req", held_as_codes=True),
                C("coup_no", "int", "req", minimum=1),
                C("ts", "timestamp", "req"),
                C("players_seated", "int", "req", minimum=0),
                C("banker_id", "str", "req", held_as_codes=True),
                C("banker_seat", "int", minimum=0),
                C(
                    "bank_event",
                    "enum",
                    "req",
                    ("initial", "retained", "rotation", "auction", "reacquired", "shoe_carryover"),
                ),
                C("bank_cents", "int", "req"),
                C("mode", "enum", "req", ("rules", "free")),
                C("player_id", "str", "req", held_as_codes=True),
                C("player_cards", "cards", "req"),
                C("banker_cards", "cards", "req"),
                C("third_face_up", "bool"),
                C("outcome", "enum", "settled", ("banker", "player", "tie")),
                C("banker_result_cents", "int", "req"),
                C("cagnotte_cents", "int", "req"),
                C("garage_cents", "int", "req"),
                C("garage_kind", "enum", "opt", ("voluntary", "compulsory", "improper")),
                C("bank_after_cents", "int", "req"),
                C("stop_card", "bool", "req"),
                C("status", "enum", "req", ("settled", "void")),
            ),
            id_column="coup_id",
            parents=(("table_id", "tables"),),
        ),
        Table(
            "cdf_stakes",
            "chemin_de_fer",
            (
                C("stake_id", "str", "req"),
                C("coup_id", "str", "req"),
                C("player_id", "str", "req", held_as_codes=True),
                C("seat", "int", minimum=0),
                C("kind", "enum", "req", ("punt", "banc", "banc_amb_la_taula", "banc_seguit", "abonament")),
                C("amount_cents", "int", "req"),
                # Required for settled coups; the status lives on the coup, so the loader checks it there.
                C("result_cents", "int", "opt"),
            ),
            id_column="stake_id",
            parents=(("coup_id", "cdf_coups"),),
        ),
        Table(
            "wheel_layouts",
            "wheel_of_fortune",
            (
                C("table_id", "str", "req"),
                C("slot", "int", "req", minimum=0, maximum=53),
                C("symbol", "enum", "req", ("24", "15", "7", "4", "2", "figura_1", "figura_2")),
            ),
            parents=(("table_id", "tables"),),
        ),
        Table(
            "wheel_spins",
            "wheel_of_fortune",
            (
                C("spin_id", "str", "req"),
                C("table_id", "str", "req", held_as_codes=True),
                C("croupier_id", "str", held_as_codes=True),
                C("ts_open", "timestamp", "req"),
                C("ts_no_more_bets", "timestamp", "req"),
                C("ts_stop", "timestamp", "req"),
                C("ts_settled", "timestamp", "req"),
                C("revolutions", "float", "req", minimum=0),
                C("stop_slot", "int", minimum=0, maximum=53),
                C("on_pivot", "bool", "req"),
                C("obstructed", "bool", "req"),
                C("symbol", "str"),
                C("status", "enum", "req", ("settled", "void")),
            ),
            id_column="spin_id",
            parents=(("table_id", "tables"),),
        ),
        Table(
            "wheel_bets",
            "wheel_of_fortune",
            (
                C("bet_id", "str", "req"),
                C("spin_id", "str", "req"),
                C("player_id", "str", "req", held_as_codes=True),
                C("symbol", "enum", "req", ("24", "15", "7", "4", "2", "figura_1", "figura_2")),
                C("stake_cents", "int", "req"),
                C("ts_placed", "timestamp", "req"),
                C("ts_withdrawn", "timestamp"),
                C("payout_cents", "int", "req"),
                C("stake_returned", "bool", "req"),
                C("paid_seq", "int", minimum=1),
            ),
            id_column="bet_id",
            parents=(("spin_id", "wheel_spins"),),
        ),
        Table(
            "dice_throws",
            "banca_francesa",
            (
                C("throw_id", "str", "req"),
                C("table_id", "str", "req", held_as_codes=True),
                C("ts", "timestamp", "req"),
                C("dice_set_id", "str", "req", held_as_codes=True),
                C("launcher_id", "str", "req", held_as_codes=True),
                C("die1", "int", "settled", minimum=1, maximum=6),
                C("die2", "int", "settled", minimum=1, maximum=6),
                C("die3", "int", "settled", minimum=1, maximum=6),
                C(
                    "null_reason",
                    "enum",
                    "opt",
                    (
                        "foreign_object",
                        "off_table",
                        "defect",
                        "foreign_substance",
                        "not_all_in_cup",
                        "retained_in_cup",
                        "not_isolated",
                    ),
                ),
                C("touched_before_announce", "bool"),
                C("result", "enum", "settled", ("asos", "petit", "gran", "none")),
                C("status", "enum", "req", ("settled", "void")),
            ),
            id_column="throw_id",
            parents=(("table_id", "tables"),),
        ),
        Table(
            "dice_bets",
            "banca_francesa",
            (
                C("bet_id", "str", "req"),
                C("throw_id", "str", "req"),
                C("player_id", "str", "req", held_as_codes=True),
                C("seat", "int", minimum=0),
                C("target", "enum", "req", ("asos", "petit", "gran")),
                C("placement", "enum", "req", ("normal", "boundary")),
                C("chips_cents", "int", "req"),
                C("payout_cents", "int", "req"),
                C("collected", "bool", "req"),
                C("collect_seq", "int", minimum=1),
                C("paid_seq", "int", minimum=1),
            ),
            id_column="bet_id",
            parents=(("throw_id", "dice_throws"),),
        ),
        Table(
            "dice_sets",
            "banca_francesa",
            (
                C("dice_set_id", "str", "req"),
                C("edge_mm", "float", "req", minimum=0),
                C("opposite_faces_sum_7", "bool", "req"),
                C("same_colour", "bool"),
                C("numbered", "bool"),
            ),
            id_column="dice_set_id",
        ),
        Table(
            "tournaments",
            "tournament",
            (
                C("tournament_id", "str", "req"),
                C("game", "str", "req"),
                C("starts_on", "date", "req"),
                C("notified_on", "date"),
                C("authorised_from", "date"),
                C("authorised_to", "date"),
                C("venue", "enum", "req", ("casino", "external")),
                C("external_authorised", "bool"),
                C("fees_cents", "int", "req"),
                C("organisation_costs_cents", "int", "req"),
                C("prizes_cents", "int", "req"),
            ),
            id_column="tournament_id",
        ),
        Table(
            "tournament_entries",
            "tournament",
            (
                C("tournament_id", "str", "req"),
                C("player_id", "str", "req"),
                C("birth_date", "date", "req"),
                C("excluded", "bool", "req"),
                C("registered", "bool", "req"),
            ),
            parents=(("tournament_id", "tournaments"),),
        ),
    )
}

# The game of the tables that no one game owns (`tables`, whose rows each game's rounds name): a whole
# audit loads them first and keeps them while it audits the games in turn (`BundleLoad.turns`).
SHARED_GAME = "log"

# The tables whose ids other tables name (LOG003): the only ones whose ids the audit keeps beside
# their frames (every id read, quarantined rows' included). A bet's id is named by nothing: keeping
# its table's millions of distinct ids cost a copy of them whenever they are not in order.
NAMED_BY_OTHERS: frozenset[str] = frozenset(parent for t in TABLES.values() for _, parent in t.parents)

# Each item table: the column that names its round, and the round table. An item is judged with its
# round, so one whose round is not audited is set aside at load (`Bundle.unmatched`).
ITEM_ROUNDS: dict[str, tuple[str, str]] = {
    "cdf_stakes": ("coup_id", "cdf_coups"),
    "wheel_bets": ("spin_id", "wheel_spins"),
    "dice_bets": ("throw_id", "dice_throws"),
}
# The round tables that items name: a round id on two of their rows leaves its items' round untold.
ROUND_TABLES_OF_ITEMS: frozenset[str] = frozenset(parent for _, parent in ITEM_ROUNDS.values())

# A round table names the game its table must be of (LOG003).
ROUND_TABLES: dict[str, str] = {
    "cdf_coups": "chemin_de_fer",
    "wheel_spins": "wheel_of_fortune",
    "wheel_layouts": "wheel_of_fortune",
    "dice_throws": "banca_francesa",
}

# Which table holds the status that makes a child's "req for settled" column required.
SETTLED_VIA_PARENT: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "cdf_stakes": ("coup_id", "cdf_coups", ("result_cents",)),
}

# The (round, item) columns a finding on a row of each table names, as the rule catalogue says.
REPORTED_ON: dict[str, tuple[str | None, str | None]] = {
    "tables": (None, None),
    "cdf_coups": ("coup_id", None),
    "cdf_stakes": ("coup_id", "stake_id"),
    "wheel_layouts": (None, None),
    "wheel_spins": ("spin_id", None),
    "wheel_bets": ("spin_id", "bet_id"),
    "dice_throws": ("throw_id", None),
    "dice_bets": ("throw_id", "bet_id"),
    "dice_sets": (None, "dice_set_id"),
    "tournaments": ("tournament_id", None),
    "tournament_entries": ("tournament_id", "player_id"),
}

# The order each round table is replayed in, a table's rounds in time: the sequence rules read rounds
# in it, and the audit by partition carries each part's last rounds over in it, so both must use this
# one. Two rounds of a table at one time are taken in id order, so that the findings of a bundle do
# not depend on the order its rows were written in (the format gives row order no meaning); file
# order is left only for rows that repeat an id (LOG002's).
REPLAY_ORDER: dict[str, list[str]] = {
    "cdf_coups": ["table_id", "ts", "shoe_id", "coup_no", "coup_id", "_file", "_line"],
    "wheel_spins": ["table_id", "ts_open", "ts_no_more_bets", "spin_id", "_file", "_line"],
    "dice_throws": ["table_id", "ts", "throw_id", "_file", "_line"],
}
