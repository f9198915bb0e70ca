"""The Arrow schemas of the Parquet export: one table per grain, every column documented.

Each table is Hive-partitioned by ``ruleset`` and ``year`` (the year of play as written in
the game's first timestamp; ``__HIVE_DEFAULT_PARTITION__``, read as NULL, when the log has
no times). The partition columns live in the folder names, not in the files: DuckDB, Spark,
Polars and pyarrow add them back when they read the dataset with Hive partitioning.

``python -m jaslog.schemas`` writes these schemas to ``schemas/arrow/<table>.json``.

Grains:

* ``events``: one row per event of the log (the raw record, typed columns plus JSON);
* ``plays``: one row per card played;
* ``tricks``: one row per trick with at least one card;
* ``rounds``: one row per deal;
* ``games``: one row per game;
* ``players``: one row per player per game (the seat, team and what the player did);
* ``violations``: one row per rule broken at the table (revokes, false roem, bids...) and
  per irregularity recorded (category ``irregularity``);
* ``ratings``: one row per player per finished game: the player's rating in the game's
  family after it (derived from every game's ``games`` and ``players`` rows, rebuilt whole by
  every export: :mod:`jaslog.export.ratings`).

A ``correction`` retracts events: they stay in ``events`` (``retracted``), and every other
table holds what the fold holds, as if they had never been recorded. A round recorded by its
score alone (``round_score``) has a ``rounds`` row (``recorded = 'score_only'``) with NULL
in every column its sheet does not fill, and no plays or tricks.

Scores are lists so that every game of the family fits: Klaverjas keeps one entry per team
(``[team 0, team 1]``) plus ``seat_scores`` with one entry per seat; Klaberjass and
Kloepper give one entry per player. Columns that only one game fills (such as
``queens_split`` for Kloepper) are NULL for the others.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pyarrow as pa

#: Version of the dataset layout; a change forces a full re-export.
LAYOUT = "jaslog-export/1"

#: The Hive partition keys, in folder order, with their Arrow types.
PARTITIONS: tuple[tuple[str, pa.DataType, str], ...] = (
    ("ruleset", pa.string(), "The game's preset (amsterdam, rotterdam, ...)"),
    ("year", pa.int32(), "Year of play, as written in the game's first timestamp (NULL: no times)"),
)

TS = pa.timestamp("us", tz="UTC")
INTS = pa.list_(pa.int32())
ROEM_PART = pa.struct([("kind", pa.string()), ("points", pa.int16())])


class Col:
    """A column: name, Arrow type, whether it may be NULL, dictionary-encoded or not, doc."""

    __slots__ = ("dictionary", "doc", "name", "nullable", "type")

    def __init__(self, name: str, type_: pa.DataType, doc: str, *, null: bool = True,
                 dictionary: bool = False) -> None:
        self.name, self.type, self.doc = name, type_, doc
        self.nullable, self.dictionary = null, dictionary

    def field(self) -> pa.Field:
        return pa.field(self.name, self.type, nullable=self.nullable,
                        metadata={"doc": self.doc})


def _game() -> Col:
    return Col("game", pa.string(), "Game id", null=False, dictionary=True)


def _round() -> Col:
    return Col("round", pa.int16(), "Round (deal) number, from 1", null=False)


COLUMNS: dict[str, list[Col]] = {
    "events": [
        _game(),
        Col("seq", pa.int32(), "Position in the game's log, from 0", null=False),
        Col("type", pa.string(), "Event type (game_started, dealt, bid, play, roem, ruling, note...)",
            null=False, dictionary=True),
        Col("event_time", TS, "When it happened (the event's `at`, in UTC), if the log says"),
        Col("round", pa.int16(), "The round the event belongs to (NULL before the first deal; "
            "a ruling's or note's own round; a deal or round_score opens a round)"),
        Col("seat", pa.int8(), "Seat acting (bid, play, roem, note)"),
        Col("card", pa.string(), "The card played, or the card turned for trump", dictionary=True),
        Col("call", pa.string(), "A bid's call: pass, accept or a suit letter", dictionary=True),
        Col("points", pa.int32(), "Roem points claimed (roem events)"),
        Col("id", pa.string(), "The event's UUID, if it has one"),
        Col("retracted", pa.bool_(), "A correction retracted the event: the fold goes on as if "
            "it had never been recorded (leave it out with `WHERE NOT retracted`)", null=False),
        Col("retracted_by", pa.int32(), "Seq of the correction that retracted it"),
        Col("payload", pa.string(), "The whole event as canonical jaslog/1 JSON", null=False),
    ],
    "plays": [
        _game(),
        _round(),
        Col("trick", pa.int8(), "Trick number in the round, from 1", null=False),
        Col("position", pa.int8(), "Position in the trick: 0 led the trick, 3 played last",
            null=False),
        Col("seq", pa.int32(), "Seq of the play event", null=False),
        Col("seat", pa.int8(), "Seat that played", null=False),
        Col("player", pa.string(), "Player id of that seat", null=False, dictionary=True),
        Col("team", pa.int8(), "Team of the seat (Klaverjas: seats 0 and 2 are team 0; "
            "Klaberjass and Kloepper score per player: the seat)", null=False),
        Col("card", pa.string(), "Card played (10H, JC, AS...)", null=False, dictionary=True),
        Col("suit", pa.string(), "Suit letter: C D H S", null=False, dictionary=True),
        Col("rank", pa.string(), "Rank: 7 8 9 10 J Q K A", null=False, dictionary=True),
        Col("trump", pa.string(), "Trump suit letter of the round", dictionary=True),
        Col("is_trump", pa.bool_(), "The card is a trump"),
        Col("legal", pa.bool_(), "The play was legal (NULL while the hands are unknown: a round "
            "recorded without hands is judged when its 32 cards are in)"),
        Col("rule", pa.string(), "Rule the play broke (must_follow_suit, must_trump...), if any",
            dictionary=True),
        Col("won_trick", pa.bool_(), "This card won the trick (NULL while the trick is incomplete)"),
        Col("card_points", pa.int16(), "Card points of this card given the trump suit"),
        Col("trick_points", pa.int16(), "Card points of the whole trick, with the last-trick bonus "
            "(NULL while incomplete)"),
        Col("playing_team", pa.bool_(), "The seat is on the playing side (the side that chose trumps)"),
        Col("declarer", pa.bool_(), "The seat chose trumps"),
        Col("played_at", TS, "When the card was played (UTC), if the log says"),
        Col("loss", pa.int32(), "Points this play cost its side against par (rule book 9.2, "
            "decision 17: the par before it minus the par after it, from the player's side; 0 "
            "for a best card). NULL unless exported with --par, and for the plays of a round "
            "whose hands are not known"),
    ],
    "tricks": [
        _game(),
        _round(),
        Col("trick", pa.int8(), "Trick number in the round, from 1", null=False),
        Col("leader", pa.int8(), "Seat that led", null=False),
        Col("leader_player", pa.string(), "Player who led", null=False, dictionary=True),
        Col("cards", pa.list_(pa.string()), "Cards in play order", null=False),
        Col("complete", pa.bool_(), "All players have played to it", null=False),
        Col("winner", pa.int8(), "Seat that won it (NULL while incomplete)"),
        Col("winner_player", pa.string(), "Player who won it", dictionary=True),
        Col("winner_team", pa.int8(), "Team that won it"),
        Col("trump", pa.string(), "Trump suit letter", dictionary=True),
        Col("points", pa.int16(), "Card points with the last-trick bonus (NULL while incomplete)"),
        Col("roem", pa.int16(), "Roem on the table in the trick"),
        Col("roem_credited", pa.int16(), "Roem credited for the trick: the valid claim (claim mode "
            "`claimed`) or the roem on the table (`auto`)"),
        Col("roem_parts", pa.list_(ROEM_PART), "The combinations on the table: run3, run4, stuk, "
            "four_of_a_kind, four_jacks, three_of_a_kind, with their points under the game's options"),
        Col("playing_team_won", pa.bool_(), "The playing side won the trick"),
        Col("first_seq", pa.int32(), "Seq of the first card", null=False),
        Col("last_seq", pa.int32(), "Seq of the last card", null=False),
    ],
    "rounds": [
        _game(),
        _round(),
        Col("kind", pa.string(), "The game: klaverjas, klaberjass or kloepper", null=False,
            dictionary=True),
        Col("dealer", pa.int8(), "Dealer's seat", null=False),
        Col("dealer_player", pa.string(), "Dealer's player id", null=False, dictionary=True),
        Col("forehand", pa.int8(), "Seat left of the dealer", null=False),
        Col("hands_recorded", pa.bool_(), "The deal event carried the hands (false for a "
            "score-only round)", null=False),
        Col("recorded", pa.string(), "How the round was recorded: played (dealt, bid and played "
            "card by card) or score_only (a round_score event: its score, and only what the "
            "sheet says besides; NULL in every column the sheet leaves unsaid)", null=False,
            dictionary=True),
        Col("trump", pa.string(), "Trump suit letter (NULL: not chosen yet)", dictionary=True),
        Col("trump_method", pa.string(), "Trump selection method of the game: free, utrecht, random, "
            "dealer_must_choose", dictionary=True),
        Col("trump_how", pa.string(), "How trumps were fixed: chosen (a free choice, or the seat the "
            "method names), forced (after all passed), accepted (the turned suit), named (another suit "
            "after the turned one was refused), turned (fixed by a turned card)", dictionary=True),
        Col("passes", pa.int16(), "Pass calls in the bidding (NULL: score-only)"),
        Col("turned", pa.list_(pa.string()), "Cards turned for trump, in order (NULL: "
            "score-only)"),
        Col("declarer", pa.int8(), "Seat that chose trumps (Klaverjas: the chooser)"),
        Col("declarer_player", pa.string(), "Its player id", dictionary=True),
        Col("declarer_position", pa.int8(), "Declarer's seat relative to the dealer: 1 forehand, "
            "2 second, 3 third, 4 the dealer"),
        Col("playing_team", pa.int8(), "Team of the declarer (Klaverjas)"),
        Col("playing_seats", pa.list_(pa.int8()), "Seats of the playing side (NULL: a "
            "score-only round whose sheet does not say them)"),
        Col("first_leader", pa.int8(), "Seat that led to trick 1"),
        Col("tricks_played", pa.int8(), "Complete tricks (NULL: score-only)"),
        Col("complete", pa.bool_(), "All tricks were played (a score-only round: true, the "
            "sheet has its score)", null=False),
        Col("points", INTS, "Card points per team, with the last-trick bonus (NULL: a "
            "score-only round whose sheet does not say them)"),
        Col("roem", INTS, "Roem credited per team (before nat or a revoke moves it; NULL: a "
            "score-only round whose sheet does not say it)"),
        Col("roem_on_table", INTS, "All roem that was in each team's tricks (+ stuk in hand; "
            "NULL: score-only)"),
        Col("tricks_won", INTS, "Tricks won per team (NULL: score-only)"),
        Col("roem_kinds", pa.list_(pa.string()), "Every scoring combination on the table in the "
            "round, one entry per occurrence (run3, run4, stuk, four_of_a_kind, four_jacks, "
            "three_of_a_kind, stuk_in_hand; NULL: score-only)"),
        Col("points_playing", pa.int16(), "Card points of the playing side"),
        Col("points_defending", pa.int16(), "Card points of the defending side"),
        Col("roem_playing", pa.int16(), "Roem credited to the playing side"),
        Col("roem_defending", pa.int16(), "Roem credited to the defending side"),
        Col("result", pa.string(), "How the deal ended. Klaverjas: made, nat, pit (the playing side "
            "took every trick), revoke or unfinished; Klaberjass: made, bete, tie, revoke, annulled "
            "(no maker) or unfinished; Kloepper: queens, others, none (nobody scored), revoke or "
            "unfinished. A score-only round: the sheet's word; else, in Klaverjas, made, nat or pit "
            "as its score shows when the chooser is written; else score_only", null=False,
            dictionary=True),
        Col("made", pa.bool_(), "The playing side made it: Klaverjas made or pit, Klaberjass made "
            "(a tie or bete is not), Kloepper queens (the black-queen side scored); NULL for revoke, "
            "annulled and unfinished deals"),
        Col("result_without_roem", pa.string(), "The result the rules give with no roem for "
            "either side (Klaverjas: NULL unless made, nat or pit; Klaberjass: NULL unless made, bete "
            "or tie; NULL for Kloepper)", dictionary=True),
        Col("revoke_team", pa.int8(), "Team whose revoke decided the round"),
        Col("violations", pa.int16(), "Rules broken in the round (irregularities not counted)",
            null=False),
        Col("score", INTS, "Score per team as played (pit bonus included)", null=False),
        Col("ruled_score", INTS, "The referee's score, if there is a ruling"),
        Col("final_score", INTS, "The score that counts: the ruling's, else as played", null=False),
        Col("seat_scores", INTS, "final_score credited to each seat", null=False),
        Col("score_playing", pa.int32(), "final_score of the playing side"),
        Col("score_defending", pa.int32(), "final_score of the defending side"),
        Col("ruling_reason", pa.string(), "The referee's reason (of the last ruling, the one "
            "that counts)"),
        Col("ruling_seq", pa.int32(), "Seq of the ruling event (the last one)"),
        Col("rulings", pa.int16(), "Rulings on the round: every one is kept, the last counts",
            null=False),
        Col("ruled_after_end", pa.bool_(), "The ruling that counts was made after the game had "
            "ended (NULL: no ruling)"),
        Col("claimed_by", pa.int8(), "Seat that claimed (or conceded) every trick still to "
            "play, ending the round's play (rule book 9.1, decision 13); NULL: no claim"),
        Col("claim_gives", pa.string(), "What the claim gave: rest_to_claimer (a claim) or "
            "rest_to_opponents (a concession)", dictionary=True),
        Col("claim_guaranteed", pa.bool_(), "The solver's verdict on a claim made with the "
            "hands known: its side takes every trick left against every defence (false: the "
            "violation claim_not_guaranteed); NULL for a concession, without hands, or no claim"),
        Col("contract", pa.string(), "Game-specific contract (Klaberjass, Kloepper; NULL for "
            "Klaverjas)", dictionary=True),
        Col("queens_split", pa.bool_(), "Kloepper: the black queens were in two hands"),
        Col("first_seq", pa.int32(), "Seq of the deal event (or of the round_score event)",
            null=False),
        Col("last_seq", pa.int32(), "Seq of the round's last event", null=False),
        Col("started_at", TS, "Time of the deal event"),
        Col("ended_at", TS, "Time of the round's last event"),
        Col("par", pa.int32(), "The round's par (rule book 9.2, decision 16): the final score "
            "difference under perfect play from the first card, seen from the playing side "
            "(Klaverjas: the chooser's team, its score minus the other team's; Klaberjass: the "
            "maker's score minus the other player's; Kloepper: what each player of the "
            "black-queen side scores minus what each of the others scores). NULL unless "
            "exported with --par, and for a round whose hands are not known (recorded without "
            "hands and not played out, score-only, no trumps)"),
        Col("par_result", pa.string(), "The result under perfect play, in the words of "
            "`result`: Klaverjas made, nat or pit; Klaberjass made, tie or bete; Kloepper "
            "queens, others or none. NULL where `par` is", dictionary=True),
    ],
    "games": [
        _game(),
        Col("kind", pa.string(), "The game: klaverjas, klaberjass or kloepper",
            dictionary=True),
        Col("options", pa.string(), "The option overrides of game_started (JSON), NULL for none",
            dictionary=True),
        Col("options_full", pa.string(), "Every option in force (the preset with overrides, JSON)",
            dictionary=True),
        Col("players", pa.list_(pa.string()), "Player ids by seat", null=False),
        Col("first_dealer", pa.int8(), "Seat of the first dealer"),
        Col("meta", pa.string(), "game_started's meta object (JSON)"),
        Col("events", pa.int32(), "Events in the log", null=False),
        Col("last_seq", pa.int32(), "Seq of the last event", null=False),
        Col("rounds", pa.int16(), "Rounds dealt", null=False),
        Col("rounds_complete", pa.int16(), "Rounds over: played out, ruled, or (Klaberjass) "
            "annulled", null=False),
        Col("totals", INTS, "Total per team, with the referee's scores", null=False),
        Col("totals_played", INTS, "Total per team as played", null=False),
        Col("finished", pa.bool_(), "The game is over", null=False),
        Col("winner_team", pa.int8(), "Winning team (NULL: unfinished or a draw)"),
        Col("draw", pa.bool_(), "The game ended in a draw", null=False),
        Col("winners", pa.list_(pa.string()), "Player ids of the winners", null=False),
        Col("violations", pa.int32(), "Rules broken in the game (irregularities not counted)",
            null=False),
        Col("rulings", pa.int16(), "Referee rulings, superseded ones included (not those a "
            "correction retracted)", null=False),
        Col("ok", pa.bool_(), "No violation and no integrity error", null=False),
        Col("error", pa.string(), "The integrity error that stopped the fold (rows hold what was "
            "folded before it)"),
        Col("first_at", TS, "Time of the first event that has one"),
        Col("last_at", TS, "Time of the last event that has one"),
    ],
    "players": [
        _game(),
        Col("player", pa.string(), "Player id", null=False, dictionary=True),
        Col("seat", pa.int8(), "Seat", null=False),
        Col("team", pa.int8(), "Team (Klaverjas: seats 0 and 2 are team 0; Klaberjass, Kloepper: "
            "the seat)"),
        Col("partner", pa.string(), "Partner's player id (Klaverjas)", dictionary=True),
        Col("rounds", pa.int16(), "Complete rounds the player sat in (Klaverjas made, nat, pit, "
            "revoke; Klaberjass made, bete, tie, revoke; Kloepper queens, others, none, revoke; "
            "Klaverjas and Klaberjass also a score-only round whose sheet says such a result and "
            "who chose)", null=False),
        Col("rounds_declarer", pa.int16(), "...in which the player chose trumps (Klaberjass: was "
            "the maker; Kloepper: was on the black-queen side, not as a called ace's holder)",
            null=False),
        Col("rounds_partner", pa.int16(), "...in which the player's partner chose trumps "
            "(Klaberjass: never; Kloepper: held the called ace)", null=False),
        Col("rounds_defending", pa.int16(), "...in which the other side chose trumps (Kloepper: "
            "the player held no black queen)", null=False),
        Col("made_declarer", pa.int16(), "Rounds made as declarer (made as in rounds.made: a "
            "revoke round is never made)", null=False),
        Col("made_partner", pa.int16(), "Rounds made as the declarer's partner", null=False),
        Col("made_against", pa.int16(), "Rounds the other side made while the player defended",
            null=False),
        Col("plays", pa.int16(), "Cards played", null=False),
        Col("revokes", pa.int16(), "Illegal plays", null=False),
        Col("violations", pa.int16(), "Rules broken by this seat (irregularities not counted)",
            null=False),
        Col("tricks_won", pa.int16(), "Tricks this seat won", null=False),
        Col("score", pa.int32(), "Final total of the player's side", null=False),
        Col("won", pa.bool_(), "The player's side won the game (NULL while unfinished)"),
    ],
    "violations": [
        _game(),
        Col("seq", pa.int32(), "Seq of the event that broke the rule (or of the irregularity)",
            null=False),
        Col("round", pa.int16(), "Round, from 1 (NULL: an irregularity recorded before the "
            "first deal)"),
        Col("trick", pa.int8(), "Trick, from 1, if the rule is about a trick"),
        Col("seat", pa.int8(), "Seat that broke it"),
        Col("player", pa.string(), "Its player id", dictionary=True),
        Col("card", pa.string(), "The card, for plays (and an irregularity about one card)",
            dictionary=True),
        Col("cards", pa.list_(pa.string()), "Every card concerned: the card played, or the cards "
            "an irregularity names (NULL: none)"),
        Col("rule", pa.string(), "Rule code (must_follow_suit, roem_false, bid_out_of_turn...); "
            "an irregularity's kind (lead_out_of_turn, play_out_of_turn, exposed_card, misdeal, "
            "wrong_card_count, other)", null=False, dictionary=True),
        Col("category", pa.string(), "play (a revoke), roem or bid; Klaberjass also meld (a "
            "sequence or bella) and dix; Kloepper call and knock; every game claim (a claim of the "
            "rest its side could not make) and irregularity (a fact "
            "of the table the rules do not turn into play, recorded as such: no rule of play "
            "was judged broken)", null=False, dictionary=True),
        Col("message", pa.string(), "The sentence jaslog check prints", null=False),
    ],
    "ratings": [
        Col("game", pa.string(), "The game after which the rating holds", null=False,
            dictionary=True),
        Col("kind", pa.string(), "The game family rated: klaverjas, klaberjass or kloepper",
            null=False, dictionary=True),
        Col("player", pa.string(), "Player id", null=False, dictionary=True),
        Col("at", TS, "When that game ended (its last event's time; NULL: no times)"),
        Col("games", pa.int32(), "Finished games of this family rated so far for the player",
            null=False),
        Col("rating", pa.float64(), "The rating (openskill Plackett-Luce mean; a new player "
            "starts at 25)", null=False),
        Col("uncertainty", pa.float64(), "How unsure the rating is (the standard deviation; "
            "a new player starts at 8.33)", null=False),
        Col("ordinal", pa.float64(), "rating - 3 * uncertainty: what players are ranked by",
            null=False),
    ],
}

TABLES: tuple[str, ...] = tuple(COLUMNS)
#: Tables built from the other tables of a whole snapshot, not game by game: rebuilt whole by
#: every export (never carried over).
DERIVED_TABLES: tuple[str, ...] = ("ratings",)
#: Tables built game by game.
GAME_TABLES: tuple[str, ...] = tuple(t for t in TABLES if t not in DERIVED_TABLES)

SCHEMAS: dict[str, pa.Schema] = {
    name: pa.schema([c.field() for c in cols], metadata={"table": name, "layout": LAYOUT})
    for name, cols in COLUMNS.items()
}

#: Columns written with Parquet dictionary encoding, per table.
DICTIONARY_COLUMNS: dict[str, list[str]] = {
    name: [c.name for c in cols if c.dictionary] for name, cols in COLUMNS.items()
}

#: Timestamp columns: built as RFC 3339 text, cast to UTC timestamps when written.
TIME_COLUMNS: dict[str, list[str]] = {
    name: [c.name for c in cols if c.type == TS] for name, cols in COLUMNS.items()
}


def type_text(t: pa.DataType) -> str:
    return str(t)


def arrow_schema_docs() -> dict[str, dict[str, Any]]:
    """Documentation of every table as JSON documents (``schemas/arrow/<table>.json``)."""
    out: dict[str, dict[str, Any]] = {}
    for name, cols in COLUMNS.items():
        out[f"arrow/{name}.json"] = {
            "title": f"jaslog export: {name}",
            "layout": LAYOUT,
            "table": name,
            "path": f"{name}/ruleset=<ruleset>/year=<year>/part-<version>-<n>.parquet",
            "partitioning": [{"name": n, "type": type_text(t), "description": d}
                             for n, t, d in PARTITIONS],
            "fields": [{"name": c.name, "type": type_text(c.type), "nullable": c.nullable,
                        "dictionary": c.dictionary, "description": c.doc} for c in cols],
        }
    return out


def fingerprint(table: str) -> str:
    """A short hash of a table's columns and types: a change means a full re-export."""
    cols = [(c.name, type_text(c.type), c.nullable) for c in COLUMNS[table]]
    return hashlib.sha256(json.dumps([LAYOUT, cols]).encode()).hexdigest()[:16]
