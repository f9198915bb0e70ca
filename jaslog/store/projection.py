"""The round facts: each closed round's result, scores, roem and the rules' verdicts on it,
and its par once solved, kept beside the events (``round_facts``, ``round_par``).

The facts are a *projection* of the log: computed by the game's rules from the fold that
checked the events, when they are appended (after a round ends, a ruling, a correction) or
imported (a batch's games, one call a batch), and read back by :func:`read_round_facts`
(``Store.round_facts``), in the store's order, without folding anything. They are not part
of the hashed log: no hash, signature or certificate covers them, and a store's events alone
say everything they say. So they are kept apart from the log's own tables:

* written insert-only like the log (a round's row of the highest ``seq`` is its facts; a row
  without a ``result`` says the round is gone), but
* rebuilt whole by ``jaslog reindex`` (:func:`rebuild`): ``round_facts`` is dropped and built
  again from the events, a batch of games a transaction, resumably (``jaslog_meta`` says how
  far a build got). Dropping a projection is not an edit of the log: not one event, hash or
  signature is touched, and the same events give the same facts again; what a rebuild
  changes is only what a changed rule of this program computes from them.

What a round's facts are is the game's to say: the result word and scores of its outcome
(``state.outcomes()``), its roem (:attr:`jaslog.engine.game.Game.outcome_roem`), the rules
broken (``state.violations``). Only closed rounds have facts: an open round's are still
changing (an export folds it).

``round_par`` holds a solved round (:func:`jaslog.analysis.rounds.deal_key`): written the
first time ``jaslog export --par`` solves it, read by every export after. Its key is a
digest of the deal the solver was given (hands, plays, rules), so a round the log changed
since is solved again, and a reindex keeps it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson
from sqlalchemy import inspect, select, text
from sqlalchemy.engine import Connection

from jaslog.cards import CARD_TEXT
from jaslog.engine.fold import FoldError, GameFold
from jaslog.games import get_game
from jaslog.play.fold import start_fold
from jaslog.store import engine as eng
from jaslog.store.schema import GAMES, META, ROUND_FACTS, ROUND_PAR

if TYPE_CHECKING:
    from jaslog.analysis.rounds import Solved

#: Games folded and written in one transaction of a rebuild.
BATCH_GAMES = 200
#: ``jaslog_meta``'s key for how far a build of ``round_facts`` got: ``built``, or
#: ``building:<pos>`` (the games up to that ``games.pos`` are in).
STATE_KEY = "round_facts"
BUILT = "built"


@dataclass(frozen=True, slots=True)
class RoundFacts:
    """One closed round's facts (None: the game has no roem / no rule was broken)."""

    round: int
    result: str | None
    recorded: str | None
    score: list[int] | None
    final: list[int] | None
    roem: list[int] | None
    verdicts: list[list[Any]] | None
    detail: list[Any] | None = None  # the game's :attr:`~jaslog.engine.game.Game.round_details`

    def row(self, game: int, seq: int) -> dict[str, Any]:
        return {"game": game, "round": self.round, "seq": seq, "result": self.result,
                "recorded": self.recorded, "score": self.score, "final": self.final,
                "roem": self.roem, "verdicts": self.verdicts, "detail": self.detail}


@dataclass(frozen=True, slots=True)
class StoredRound:
    """A round's facts as the store keeps them, with its par when it was solved."""

    game: str
    round: int
    result: str
    recorded: str | None
    score: list[int] | None
    final: list[int] | None
    roem: list[int] | None
    verdicts: list[list[Any]]
    par: int | None = None
    par_result: str | None = None
    #: what the export's ``rounds`` row reads of the fold (read only when ``detail`` is
    #: asked of :func:`read_round_facts`; not in :meth:`to_json`)
    detail: Any = None

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "round": self.round, "result": self.result,
                "recorded": self.recorded, "score": self.score, "final": self.final,
                "roem": self.roem, "verdicts": self.verdicts, "par": self.par,
                "par_result": self.par_result}


def facts_of(fold: GameFold) -> list[RoundFacts]:
    """The facts of every closed round of a folded game, in order.

    >>> from jaslog.play.sim import simulate_game
    >>> from jaslog.play.fold import fold
    >>> from jaslog.events import event_from_dict
    >>> f = fold(event_from_dict(e) for e in simulate_game("p", seed=3))
    >>> first = facts_of(f)[0]
    >>> first.round, first.result in ("made", "nat", "pit"), len(first.final), len(first.roem)
    (1, True, 2, 2)
    """
    state = fold.state
    rounds = state.rounds
    if not rounds:
        return []
    game = get_game(fold.game)
    roem = game.outcome_roem
    outcomes = state.outcomes()
    details = game.round_details(state, outcomes) if game.round_details is not None \
        else [None] * len(rounds)
    broken: dict[int, list[list[Any]]] = {}
    for v in state.violations:
        broken.setdefault(v.round, []).append(
            [v.seq, v.rule, CARD_TEXT[v.card] if v.card is not None else None])
    out = []
    for r, o, detail in zip(rounds, outcomes, details, strict=True):
        if not r.closed:
            continue
        out.append(RoundFacts(r.number, o.result,
                              "score_only" if r.score_only is not None else "played",
                              [int(x) for x in o.score], [int(x) for x in o.final],
                              roem(o) if roem is not None else None,
                              sorted(broken[r.number], key=lambda v: v[0])
                              if r.number in broken else None, detail))
    return out


# ---------------------------------------------------------------------- writing


def _positions(conn: Connection, games: Iterable[str]) -> dict[str, int]:
    ids = sorted(set(games))
    if not ids:
        return {}
    return {r.id: int(r.pos) for r in conn.execute(
        select(GAMES.c.id, GAMES.c.pos).where(GAMES.c.id.in_(ids)))}


def _latest(conn: Connection, pos: int) -> dict[int, RoundFacts]:
    """The stored facts of game ``pos``, by round (a gone round's without a result).

    Read through the driver's own cursor (an append that ends a round reads them: at a
    tenth of the cost through SQLAlchemy's execution and its rows), its JSON columns decoded
    as :func:`read_round_facts` decodes them."""
    with eng.raw_cursor(conn) as cur:
        cur.execute("SELECT round, result, recorded, score, final, roem, verdicts, detail FROM "
                    f"round_facts WHERE game = {eng.param_mark(conn.dialect.name)} "
                    "ORDER BY round, seq", (pos,))
        rows = cur.fetchall()
    out: dict[int, RoundFacts] = {}
    for number, result, recorded, score, final, roem, verdicts, detail in rows:
        out[number] = RoundFacts(number, result, recorded, _json(score), _json(final),
                                 _json(roem), _json(verdicts), _json(detail))
    return out


def note_facts(conn: Connection, items: Sequence[tuple[str, int, list[RoundFacts], bool]],
               positions: Mapping[str, int] | None = None) -> int:
    """Write the facts of the games of ``items`` in the caller's write transaction (one call
    a batch): ``(game, seq, facts, new)``, ``seq`` the game's last event, ``new`` for a game
    with no facts stored yet (stored by this same transaction). Only a round whose facts
    differ from its stored ones gets a row, and a stored round no longer among them a row
    that says it is gone. ``positions``: each game's ``games.pos`` when the caller has them
    (an append has its game's, its events' key), else they are read. Returns the rows
    written."""
    if not items:
        return 0
    games = {g for g, _, _, _ in items}
    pos = {g: positions[g] for g in games} if positions is not None and games <= positions.keys() \
        else _positions(conn, games)
    rows: list[dict[str, Any]] = []
    for game, seq, facts, new in items:
        p = pos.get(game)
        if p is None:
            continue
        before = {} if new else _latest(conn, p)
        now = set()
        for f in facts:
            now.add(f.round)
            if before.get(f.round) != f:
                rows.append(f.row(p, seq))
        for number, f in before.items():
            if number not in now and f.result is not None:
                rows.append(RoundFacts(number, None, None, None, None, None, None).row(p, seq))
    if rows and conn.dialect.name == "sqlite":
        _insert_facts(conn, rows)
    elif rows:
        conn.execute(ROUND_FACTS.insert(), rows)
    return len(rows)


#: The columns of ``round_facts`` in the order :func:`_insert_facts` writes them.
_FACT_COLUMNS = ("game", "round", "seq", "result", "recorded", "score", "final", "roem",
                 "verdicts", "detail")


def _json_writer() -> Callable[[Any], str]:
    """``json.dumps`` with its defaults (the text SQLAlchemy's ``JSON`` type writes), its C
    encoder made once: ``json.dumps`` makes one at every call, which costs more than encoding
    a round's small lists (about 2.7 against 1 µs a value); where there is no C encoder,
    ``json.dumps`` itself.

    >>> _json_writer()([1, None, "nat", [True, "é"]]) == json.dumps([1, None, "nat", [True, "é"]])
    True
    """
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return json.dumps
    encode = make(None, json.JSONEncoder().default, json.encoder.encode_basestring_ascii, None,
                  ": ", ", ", False, False, True)

    def dumps(value: Any) -> str:
        return "".join(encode(value, 0))

    return dumps


#: A round's JSON columns as :func:`_insert_facts` writes them.
json_text = _json_writer()


def fact_values(seq: int, facts: Iterable[RoundFacts]) -> list[tuple[Any, ...]]:
    """The ``round_facts`` values of a game's ``facts`` after its key (the columns of
    :data:`_FACT_COLUMNS` but the first), as of its event ``seq``, each JSON column as its text
    (None as ``null``, ``detail``'s as SQL NULL, as its column declares); what an import's
    batch writes for a new game on SQLite, worked out before its write transaction.

    >>> fact_values(9, [RoundFacts(1, "made", "played", [90, 72], [90, 72], [0, 0], None)])
    [(1, 9, 'made', 'played', '[90, 72]', '[90, 72]', '[0, 0]', 'null', None)]
    """
    dumps = json_text
    return [(f.round, seq, f.result, f.recorded, dumps(f.score), dumps(f.final), dumps(f.roem),
             dumps(f.verdicts), None if f.detail is None else dumps(f.detail)) for f in facts]


def insert_fact_values(conn: Connection, rows: list[tuple[Any, ...]]) -> None:
    """``rows`` (each a game's key, then :func:`fact_values`) inserted into a SQLite store's
    ``round_facts`` through the driver's own cursor, in the caller's transaction."""
    if not rows:
        return
    marks = ", ".join("?" * len(_FACT_COLUMNS))
    with eng.raw_cursor(conn) as cur:
        cur.executemany(f"INSERT INTO round_facts ({', '.join(_FACT_COLUMNS)}) "
                        f"VALUES ({marks})", rows)


def _insert_facts(conn: Connection, rows: list[dict[str, Any]]) -> None:
    """``rows`` inserted into a SQLite store's ``round_facts`` through the driver's own cursor
    (an import writes some sixteen rows a game: through SQLAlchemy's execution, which
    serializes each JSON value in its own call, a seventh of an import's writing), each JSON
    column the text SQLAlchemy's ``JSON`` type writes (:func:`fact_values`)."""
    dumps = json_text
    insert_fact_values(conn, [
        (r["game"], r["round"], r["seq"], r["result"], r["recorded"], dumps(r["score"]),
         dumps(r["final"]), dumps(r["roem"]), dumps(r["verdicts"]),
         None if r["detail"] is None else dumps(r["detail"])) for r in rows])


# ---------------------------------------------------------------------- reading


def read_round_facts(conn: Connection, games: Sequence[str] | None = None, *,
                     detail: bool = False) -> Iterator[StoredRound]:
    """Every stored round's facts (of ``games`` only, when given), in the store's order (the
    games as they were stored, their rounds in order), with its par when a ``round_par``
    row holds one (the latest solved); with ``detail``, its ``detail`` too (when the store
    keeps the column)."""
    detail = detail and facts_detailed(conn)
    q = text(
        "SELECT g.id, f.round, f.result, f.recorded, f.score, f.final, f.roem, f.verdicts, "
        "p.par, p.par_result" + (", f.detail" if detail else "") + " FROM round_facts f "
        "JOIN games g ON g.pos = f.game "
        "LEFT JOIN round_par p ON p.game = f.game AND p.round = f.round AND p.seq = "
        "(SELECT max(p2.seq) FROM round_par p2 WHERE p2.game = f.game AND p2.round = f.round) "
        "WHERE f.seq = (SELECT max(f2.seq) FROM round_facts f2 WHERE f2.game = f.game "
        "AND f2.round = f.round)"
        + (" AND g.id IN :ids" if games is not None else "")
        + " ORDER BY f.game, f.round")
    params: dict[str, Any] = {}
    if games is not None:
        from sqlalchemy import bindparam

        q = q.bindparams(bindparam("ids", expanding=True))
        params["ids"] = list(games)
        if not params["ids"]:
            return
    last: tuple[str, int] | None = None
    for r in conn.execution_options(yield_per=2000).execute(q, params):
        key = (r[0], r[1])
        if key == last:  # two par rows of one seq: the first is as good
            continue
        last = key
        if r[2] is None:  # gone
            continue
        yield StoredRound(r[0], r[1], r[2], r[3], _json(r[4]), _json(r[5]), _json(r[6]),
                          _json(r[7]) or [], r[8], r[9], _json(r[10]) if detail else None)


def _json(v: Any) -> Any:
    """A JSON column's value as read: text on SQLite (parsed here), parsed on PostgreSQL."""
    return orjson.loads(v) if isinstance(v, str | bytes) else v


# ---------------------------------------------------------------------- par




def stored_pars(conn: Connection, games: Sequence[str]
                ) -> dict[str, dict[tuple[int, bytes], tuple[int, str | None, list[Any]]]]:
    """The solved rounds of ``games``: by game, ``(round, deal key) -> (par, par result,
    losses)`` (none for a store without ``round_par``)."""
    out: dict[str, dict[tuple[int, bytes], tuple[int, str | None, list[Any]]]] = {}
    if not games or not inspect(conn).has_table("round_par"):
        return out
    p = ROUND_PAR.c
    q = (select(GAMES.c.id, p.round, p.deal, p.par, p.par_result, p.losses)
         .join(GAMES, GAMES.c.pos == p.game).where(GAMES.c.id.in_(list(games))))
    for r in conn.execute(q):
        out.setdefault(r.id, {})[(r.round, bytes(r.deal))] = (r.par, r.par_result, r.losses)
    return out


def note_pars(conn: Connection, solved: Sequence[tuple[str, int, Solved]]) -> int:
    """Store solved rounds ``(game, seq, solved)`` in the caller's write transaction; one
    already stored (another export solved it meanwhile) is left as it is. Returns how many
    were written."""
    if not solved:
        return 0
    pos = _positions(conn, (g for g, _, _ in solved))
    p = ROUND_PAR.c
    have = {(r.game, r.round, bytes(r.deal)) for r in conn.execute(
        select(p.game, p.round, p.deal).where(p.game.in_(sorted(set(pos.values())))))}
    rows = []
    for game, seq, (number, key, par, result, losses) in solved:
        g = pos.get(game)
        if g is None or (g, number, key) in have:
            continue
        have.add((g, number, key))
        rows.append({"game": g, "round": number, "deal": key, "seq": seq, "par": par,
                     "par_result": result, "losses": losses})
    if rows:
        conn.execute(ROUND_PAR.insert(), rows)
    return len(rows)


# ---------------------------------------------------------------------- rebuilding


def facts_detailed(conn: Connection) -> bool:
    """Whether ``round_facts`` has its ``detail`` column (a store whose facts were built
    before it had none: they are built again when it is opened to write)."""
    if conn.dialect.name == "sqlite":
        return any(r[1] == "detail" for r in conn.exec_driver_sql(
            "PRAGMA table_info(round_facts)"))
    return any(c["name"] == "detail" for c in inspect(conn).get_columns("round_facts")) \
        if inspect(conn).has_table("round_facts") else False


def build_state(conn: Connection) -> str | None:
    """How far a build of ``round_facts`` got (``built``, ``building:<pos>``; None: the
    store has never built it)."""
    v = conn.execute(select(META.c.value).where(META.c.key == STATE_KEY)).scalar()
    return None if v is None else str(v)


def _set_state(conn: Connection, value: str) -> None:
    if build_state(conn) is None:
        conn.execute(META.insert(), [{"key": STATE_KEY, "value": value}])
    else:
        conn.execute(META.update().where(META.c.key == STATE_KEY).values(value=value))


def start_build(conn: Connection) -> None:
    """A fresh build: ``round_facts`` dropped and made again, empty (the projection only:
    the log's tables are not touched)."""
    if inspect(conn).has_table("round_facts"):
        ROUND_FACTS.drop(conn)
    ROUND_FACTS.create(conn)
    _set_state(conn, "building:-1")


def rebuild(store: Any, *, resume: bool = True, games: int | None = None,
            progress: Callable[[int], None] | None = None,
            on_total: Callable[[int], None] | None = None) -> bool:
    """Build ``round_facts`` again from the store's events, :data:`BATCH_GAMES` games a
    transaction in the store's order; True when done. ``resume``: go on from where an
    interrupted build stopped (else, and when none was, start afresh); ``games``: build that
    many games at most, then stop (False: the next call goes on). A game whose log no
    longer folds keeps the facts of the rounds folded before the error. ``progress`` is told
    the games of each batch; ``on_total``, once, how many games there are to build."""
    with eng.write_tx(store.engine) as conn:
        state = build_state(conn)
        if not (resume and state is not None and state.startswith("building:")):
            start_build(conn)
            state = "building:-1"
        after = int(state.split(":", 1)[1])
        if on_total is not None:
            on_total(int(conn.execute(text("SELECT count(*) FROM games WHERE pos > :a"),
                                      {"a": after}).scalar_one()))
    done = 0
    while True:
        most = BATCH_GAMES if games is None else min(BATCH_GAMES, games - done)
        if most <= 0:
            return False
        with eng.write_tx(store.engine) as conn:
            state = build_state(conn)  # (another process may have built some meanwhile)
            if state is None or not state.startswith("building:"):
                return state == BUILT
            after = int(state.split(":", 1)[1])
            batch = [(r.id, int(r.pos)) for r in conn.execute(
                select(GAMES.c.id, GAMES.c.pos).where(GAMES.c.pos > after)
                .order_by(GAMES.c.pos).limit(most))]
            if not batch:
                _set_state(conn, BUILT)
                return True
            items = []
            for gid, events in store._readable_games(conn, [g for g, _ in batch]):
                fold = _fold_far(events)
                if fold is not None:
                    items.append((gid, events[-1].seq, facts_of(fold), False))
            note_facts(conn, items)  # (an append during the build may have written some)
            after = batch[-1][1]
            _set_state(conn, f"building:{after}")
        done += len(batch)
        if progress is not None:
            progress(len(batch))


def _fold_far(events: Sequence[Any]) -> GameFold | None:
    """The fold of ``events`` as far as they fold (None: not even the first)."""
    try:
        f = start_fold(events[0])
    except FoldError:
        return None
    for e in events[1:]:
        try:
            f.apply(e)
        except FoldError:
            break
    return f
