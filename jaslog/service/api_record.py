"""The scorer's pad: a game recorded at the table from a phone (``/record/{game}``).

The pad is a page (``static/record.html``) over four routes; none of them knows a rule of
its own:

* ``GET /api/games/{id}/turn``: whose turn it is, what is legal now (the cards from the
  game's ``seat_view``; the calls, knocks and the like each tried on a copy of the fold),
  the roem the last trick holds (the game's round report), the score sheet and the
  certificate, as the token may see the game;
* ``POST /api/games/{id}/pad/words``: the recorder's words (``kh``, ``pass``, ``fix``,
  ``claim``, ``score 102 60``, ``deal random 7``, ``ruling``...) turned into events by the
  game's recorder, as ``jaslog record`` turns them, with its questions (a hand of a deal,
  "record it anyway?", "retract it?") asked back to the page; nothing is stored;
* ``POST /api/games/{id}/pad/events``: the append of ``POST /api/games/{id}/events``, the
  same code, and beside it who appended (:data:`jaslog.service.db.event_authors`: the
  token's label, outside the hashed events, so the certificate is the same whoever wrote);
* ``GET /record`` and ``GET /record/{id}``: the page itself.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path as PathLib
from typing import Annotated, Any, Literal, get_args, get_origin

from fastapi import APIRouter, Depends, Query
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select

from jaslog.cards import CARD_TEXT, cards_of
from jaslog.engine.fold import FoldError, GameFold
from jaslog.errors import JaslogError
from jaslog.events import EVENT_MODELS, EventError, event_from_dict
from jaslog.games import get_game
from jaslog.play.views import report
from jaslog.record.core import InputError, Recorder, next_item, prepare_one
from jaslog.service import api_games
from jaslog.service.api_games import GamePath, _check_append, _read, view_name
from jaslog.service.api_online import TURN_WAIT_MAX, wait_for_seat
from jaslog.service.auth import Principal
from jaslog.service.core import Service
from jaslog.service.db import event_authors
from jaslog.service.deps import ApiError, principal, responses, service, the_service
from jaslog.service.game_models import AppendIn, AppendOut
from jaslog.service.online import online_of
from jaslog.store.clock import stamp
from jaslog.store.codec import norm_id

router = APIRouter(tags=["record"])

#: The page's files (the service's static folder).
STATIC = PathLib(__file__).resolve().parent / "static"


# ---------------------------------------------------------------------- the page


@router.get("/record", include_in_schema=False)
def new_game_page() -> FileResponse:
    """The pad's "new game" form."""
    return FileResponse(STATIC / "record.html")


@router.get("/record-sw.js", include_in_schema=False)
def pad_worker() -> FileResponse:
    """The pad's service worker (its scope, ``/record/``, is under where it is served): the
    page opens again on a reload with the connection down."""
    return FileResponse(STATIC / "record-sw.js", media_type="application/javascript",
                        headers={"Cache-Control": "no-cache"})


@router.get("/record/{game}", include_in_schema=False)
def pad_page(game: GamePath) -> FileResponse:
    """The pad of one game."""
    return FileResponse(STATIC / "record.html")


# ---------------------------------------------------------------------- whose turn


#: The event types the turn route does not try as ``actions``: a card (``legal`` says which),
#: and what the pad records through the recorder's words (a deal, a claim, a score, a
#: ruling...). Every other type of the game (a call, a knock, a dix) is tried.
NOT_ACTIONS = ("game_started", "dealt", "second_deal", "trump_turned", "play", "sequence", "roem",
            "claim", "ruling", "note", "correction", "irregularity", "round_score", "timeout")


def _literal_choices(model: type[BaseModel]) -> dict[str, tuple[Any, ...]] | None:
    """The fields of an event model besides the common ones, each with the values it takes
    (a ``Literal``); None when a field takes something else (cards, a number)."""
    out: dict[str, tuple[Any, ...]] = {}
    for name, f in model.model_fields.items():
        if name in ("game", "seq", "type", "at", "id", "recorded_at", "seat"):
            continue
        if not f.is_required():
            continue
        if get_origin(f.annotation) is not Literal:
            return None
        out[name] = get_args(f.annotation)
    return out


def taken_types(fold: GameFold) -> list[str]:
    """The event types this game's fold takes (its handlers'), in the event format's order."""
    handled = {getattr(cls, "model_fields", {}).get("type") for cls in type(fold).dispatch}
    names: set[str] = set()
    for f in handled:
        if f is not None and get_origin(f.annotation) is Literal:
            names.update(get_args(f.annotation))
    return [t for t in EVENT_MODELS if t in names]


def _tried(fold: GameFold, fields: dict[str, Any]) -> tuple[bool, list[str]]:
    """Whether the fold takes event ``fields`` now (tried on a copy) and the rules it breaks."""
    trial = copy.deepcopy(fold)
    before = len(trial.state.violations)
    try:
        trial.apply(event_from_dict({"game": fold.game_id, "seq": fold.next_seq, **fields}))
    except (FoldError, EventError, ValueError):
        return False, []
    return True, [v.rule for v in trial.state.violations[before:]]


def actions_now(fold: GameFold) -> list[dict[str, Any]]:
    """Every call, knock and the like the rules take now, each tried on a copy of the fold:
    the event's fields and ``breaks`` (the rules it would break: empty when legal). A field
    that is one of a list of words (a bid's call) is tried word by word from the seat due; an
    event of a seat alone (a knock) from every seat."""
    _kind, due = fold.state.expected()
    out: list[dict[str, Any]] = []
    for t in taken_types(fold):
        if t in NOT_ACTIONS:
            continue
        choices = _literal_choices(EVENT_MODELS[t])
        if choices is None:
            continue
        if len(choices) > 1:
            continue  # no event of the format has two such fields
        if choices:
            if due is None:
                continue
            name, values = next(iter(choices.items()))
            for v in values:
                ok, broken = _tried(fold, {"type": t, "seat": due, name: v})
                if ok:
                    out.append({"type": t, "seat": due, name: v, "breaks": broken})
        else:
            for seat in range(len(fold.seats)):
                ok, broken = _tried(fold, {"type": t, "seat": seat})
                if ok:
                    out.append({"type": t, "seat": seat, "breaks": broken})
    return out


def calls_of(fold: GameFold, seat: int) -> list[dict[str, Any]]:
    """The calls ``seat`` may make now, as the events to send: each event of the game that
    takes a word (a bid's call, a partner call) tried word by word on a copy of the fold,
    those the rules take without breaking a rule. None when the rules do not expect the
    seat to act, or expect a card (``legal`` says which) or a deal."""
    kind, due = fold.state.expected()
    if due != seat or kind in ("play", "deal", "over"):
        return []
    out: list[dict[str, Any]] = []
    for t in taken_types(fold):
        if t in NOT_ACTIONS:
            continue
        choices = _literal_choices(EVENT_MODELS[t])
        if not choices or len(choices) > 1:
            continue
        name, values = next(iter(choices.items()))
        for v in values:
            ok, broken = _tried(fold, {"type": t, "seat": seat, name: v})
            if ok and not broken:
                out.append({"type": t, "seat": seat, name: v})
    return out


def _last_trick_roem(rounds: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The roem the last completed trick holds (the game's round report says; None when
    the game has no roem, or no trick is complete)."""
    if not rounds:
        return None
    done = [t for t in rounds[-1].get("tricks") or [] if t.get("winner") is not None]
    if not done:
        return None
    t = done[-1]
    held = t.get("roem_on_table", t.get("roem"))
    if held is None:
        return None
    return {"trick": len(done), "winner": t["winner"], "points": held}


def _sheet(rep: dict[str, Any]) -> list[dict[str, Any]]:
    """The score sheet's lines: each round over, its score, the ruling that counts, the
    score that counts (``final``) and the running totals, as the audit gives them."""
    lines = []
    for r in rep.get("rounds") or []:
        if r.get("result") in (None, "unfinished"):
            continue  # the round being played has no line yet
        lines.append({"round": r.get("round"), "score": r.get("score"),
                      "final": r.get("final") or r.get("score"), "result": r.get("result"),
                      "ruling": r.get("ruling"), "totals": r.get("totals")})
    return lines


def _authors(svc: Service, game: str, since: int) -> dict[int, str]:
    with svc.tokens.engine.connect() as conn:
        rows = conn.execute(select(event_authors.c.seq, event_authors.c.by).where(
            event_authors.c.game == game, event_authors.c.seq >= since)).all()
    return {int(r[0]): str(r[1]) for r in rows}


def turn_of(svc: Service, who: Principal, game: str) -> dict[str, Any]:
    head, tl, s = _read(svc, who, game)
    if s.public:
        raise ApiError(403, "not_visible", f"the pad shows the round being played: a {who.role} "
                       "token sees finished rounds only; the table's scorer, a referee or a "
                       "seat sees it", game=game)
    fold = tl.fold
    if fold is None:
        raise ApiError(422, "not_folded", f"game {game} does not fold: {tl.error}", game=game)
    g = get_game(fold.game)
    hidden = not s.full and tl.live_round is not None
    fr = g.frame(fold, s.seat, hidden, fold)
    rep = report(tl, s)
    writer = _may_write(svc, who, game)
    recent = []
    shown = [e for e in tl.events[max(1, len(tl.events) - 12):]]
    by = _authors(svc, game, shown[0].seq if shown else 0)
    pack = get_game(fold.game).adapter("record").RECORDER.pack
    rec: Recorder | None = None
    if s.full:  # its words (a copy of the fold) only for whoever records: a seat reads
        with svc.pool.get() as store:
            rec = _recorder(store, game, fold)
    for e in shown:
        gone = e.seq in fold.retracted
        recent.append({"seq": e.seq, "type": e.type, "said": rec.said(e) if rec else e.type,
                       "retracted": gone, "by": by.get(e.seq)})
    last = fold.latest_actions(1)
    h = svc.header(game)
    return {
        "game": game, "kind": fold.game, "title": g.title, "ruleset": h.ruleset,
        "seats": list(h.seats), "players": g.players, "scoring": g.scoring,
        "round_word": g.round_word, "pack": [CARD_TEXT[c] for c in cards_of(pack)],
        "view": view_name(s), "seat": s.seat,
        "may_record": writer, "next_seq": head.next_seq, "expects": fr["expects"],
        "turn": fr["turn"], "round": fr["round"], "trick": fr["trick"], "dealer": fr["dealer"],
        "trump": fr["trump"], "hands": fr["hands"], "counts": fr["counts"],
        "hands_known": fr["hands_known"], "legal": fr["legal"], "table": fr["table"],
        "trick_complete": fr["trick_complete"], "trick_winner": fr["trick_winner"],
        "bids": fr["bids"], "extra": fr.get("extra", {}),
        "actions": actions_now(fold) if s.full and writer else [],
        "calls": calls_of(fold, s.seat) if s.seat is not None
        and (writer or (who.role == "seat" and who.game == game)) else [],
        "accepted": rec.accepted_now() if rec is not None and writer else [],
        "types": taken_types(fold),
        "roem": _last_trick_roem(rep["rounds"]) if s.full else None,
        "fix": {"seq": last[0], "said": rec.said(fold.log[last[0]])}
        if last and rec is not None else None,
        "sheet": _sheet(rep), "totals": rep.get("totals"), "finished": rep.get("finished"),
        "winner": rep.get("winner"),
        "certificate": head.certificate if s.full else None, "recent": recent,
        "now": stamp(svc.clock()),
    }


def _recorder(store: Any, game: str, fold: GameFold) -> Recorder:
    """The game's recorder (its ``record`` adapter) on a copy of the fold at the head."""
    cls: type[Recorder] = get_game(fold.game).adapter("record").RECORDER
    return cls(store, game, stamp=False, fold=copy.deepcopy(fold))


def _may_write(svc: Service, who: Principal, game: str) -> bool:
    try:
        _check_append(svc, who, game, [{"type": "note", "text": "?"}])
    except ApiError:
        return False
    return True


@router.get("/api/games/{game}/turn", responses=responses(401, 403, 404, 422))
async def get_turn(game: GamePath, wait: Annotated[float | None, Query(
                       gt=0, le=TURN_WAIT_MAX, description=(
                           "a seat's token: wait up to this many seconds until the seat has "
                           "something to do (its move, its nonce, the game over) or, with "
                           "after, until the game has moved on"))] = None,
                   after: Annotated[int | None, Query(ge=0, le=1_000_000_000, description=(
                       "with wait: the next_seq the caller has seen"))] = None,
                   svc: Service = Depends(the_service),
                   who: Principal = Depends(principal)) -> dict[str, Any]:
    """The scorer's pad's view of the table: whose turn (``expects``, ``turn``), what is
    legal now (``legal`` cards; ``actions``: the calls, knocks and the like the rules take,
    each with the rules it would break; ``accepted``: what the recorder takes now, in its
    words), the roem the last trick holds, the score sheet,
    the certificate and the last events with who recorded them; as the token may see the
    game (a seat: its own hand, and ``calls``: the calls the rules let it make now; the
    public: refused, 403). A seat's page waits for its turn with ``wait`` (a long poll)."""
    if wait is not None:
        await wait_for_seat(svc, who, game, wait, after)
    return await run_in_threadpool(turn_of, svc, who, game)


# ---------------------------------------------------------------------- words


class WordsIn(BaseModel):
    """A line as ``jaslog record`` takes it, and the answers to the questions it asks."""

    model_config = ConfigDict(extra="forbid")
    text: str = Field(max_length=2000, description="what the scorer typed (or tapped)")
    answers: list[Annotated[str, Field(max_length=2000)]] = Field(
        default_factory=list, max_length=32,
        description="the answers to the recorder's questions, in the order it asks them")
    expected_seq: int | None = Field(None, ge=0, le=1_000_000_000,
                                     description="the seq the page believes is next")


class _Asked(Exception):
    """The recorder asked a question the page has not answered yet."""

    def __init__(self, prompt: str) -> None:
        super().__init__(prompt)
        self.prompt = prompt


def _scripted(answers: list[str]) -> Callable[[str], str]:
    queue = list(answers)

    def ask(prompt: str) -> str:
        if not queue:
            raise _Asked(prompt)
        return queue.pop(0)

    return ask


def words_to_events(svc: Service, who: Principal, game: str, body: WordsIn) -> dict[str, Any]:
    """The recorder's events for ``body.text`` (nothing stored), or its next question."""
    head, tl, _ = _read(svc, who, game)
    if body.expected_seq is not None and body.expected_seq != head.next_seq:
        raise ApiError(409, "conflict", f"game {game} is at seq {head.next_seq}, not "
                       f"{body.expected_seq}: someone else recorded meanwhile", game=game,
                       expected=body.expected_seq, actual=head.next_seq)
    _check_append(svc, who, game, [{"type": "note", "text": "?"}])
    shown: list[str] = []

    def show(x: Any) -> None:
        shown.append(str(getattr(x, "plain", x)))

    # the line itself is the recorder's first answer; its questions take the answers given
    ask = _scripted([body.text, *body.answers])
    with svc.pool.get() as store:
        assert tl.fold is not None
        rec = _recorder(store, game, tl.fold)
        try:
            item = next_item(rec, ask, show)
            if isinstance(item, str):
                if item == "nothing":
                    return {"game": game, "events": [], "shown": shown}
                raise ApiError(422, "bad_input", f"{body.text!r} is not recorded from the pad "
                               f"({item}): send the words of an event", game=game)
            if item is None:
                raise ApiError(422, "bad_input", shown[-1].lstrip("✗ ") if shown else
                               f"{body.text!r}: not something the recorder knows", game=game)
            prepared = prepare_one(rec, item, ask, show)
        except _Asked as q:
            return {"game": game, "ask": q.prompt, "shown": shown}
        except InputError as e:
            raise ApiError(422, "bad_input", str(e), game=game) from None
        except EOFError:  # 'quit' given as an answer: nothing to record
            return {"game": game, "events": [], "shown": shown, "declined": True}
        except JaslogError as e:
            raise ApiError(422, getattr(e, "code", "bad_input"), str(e), game=game) from None
        except (ValueError, LookupError) as e:  # what the words cannot be an event of
            raise ApiError(422, "bad_input", f"{body.text[:80]!r}: {e}", game=game) from None
    if prepared is None:
        return {"game": game, "events": [], "shown": shown, "declined": True}
    events = prepared if isinstance(prepared, list) else [prepared]
    _check_append(svc, who, game, events)
    out = [{k: v for k, v in e.items() if k not in ("game", "seq")} for e in events]
    return {"game": game, "events": out, "shown": shown, "expected_seq": head.next_seq}


@router.post("/api/games/{game}/pad/words", responses=responses(400, 401, 403, 404, 409, 422))
def post_words(game: GamePath, body: WordsIn, svc: Service = Depends(service),
               who: Principal = Depends(principal)) -> dict[str, Any]:
    """What ``jaslog record`` makes of a line, as events to append (nothing is stored):
    ``{"events": [...]}``; or the question it asks next (``{"ask": "..."}``: send the line
    again with the answers so far in ``answers``); ``declined`` when an answer said no.
    A line the recorder refuses is 422 ``bad_input`` with its sentence."""
    return words_to_events(svc, who, game, body)


# ---------------------------------------------------------------------- appending


def _seq_of_ids(svc: Service, game: str) -> dict[str, int]:
    """The seq of every stored event of ``game`` that has an id, by its id (canonical)."""
    _, tl = svc.timeline(game)
    return {str(norm_id(e.id)): e.seq for e in tl.events if e.id is not None}


def record_authors(svc: Service, who: Principal, game: str, events: list[dict[str, Any]],
                   appended: int, next_seq: int) -> None:
    """Who appended ``events``: the token's label beside each, in the service's own table
    (never inside the hashed event). Each is found by its id where it is stored (a retry of
    an old batch included); without an id, the ``appended`` last ones are the new seqs up
    to ``next_seq``. An event that has its row keeps it; a retry whose first answer was
    lost, or whose row was not written, gets it now."""
    where = _seq_of_ids(svc, game)
    new = range(next_seq - appended, next_seq)
    placed: dict[int, dict[str, Any]] = {}
    for i, e in enumerate(events):
        eid = e.get("id")
        try:
            seq = where.get(str(norm_id(eid))) if isinstance(eid, str) else None
        except ValueError:
            seq = None
        if seq is None and i >= len(events) - appended:
            seq = new[i - (len(events) - appended)]
        if seq is not None:
            placed[seq] = e
    if not placed:
        return
    by = (who.label or f"{who.role} token {who.token_id}")[:200]
    at = stamp(svc.clock())
    with svc.tokens.engine.begin() as conn:
        have = {int(r[0]) for r in conn.execute(select(event_authors.c.seq).where(
            event_authors.c.game == game, event_authors.c.seq.in_(list(placed))))}
        rows = [{"game": game, "seq": seq, "event_id": e.get("id"), "by": by,
                 "token_id": who.token_id, "role": who.role, "at": at}
                for seq, e in sorted(placed.items()) if seq not in have]
        if rows:
            conn.execute(event_authors.insert(), rows)


@router.post("/api/games/{game}/pad/events", response_model=AppendOut,
             responses=responses(400, 401, 403, 404, 409, 422))
async def pad_append(game: GamePath, body: AppendIn, svc: Service = Depends(service),
                     who: Principal = Depends(principal)) -> dict[str, Any]:
    """``POST /api/games/{id}/events``, the same checks and the same append, with who
    appended (the token's label) kept beside the events stored (``by`` in
    ``GET /api/games/{id}/turn``'s ``recent``; not part of any hash)."""
    out = await api_games.appended(game, body, svc, who)
    if await run_in_threadpool(online_of(svc).clock_of, game) is not None:
        return out  # an online game's append says who appended it itself
    await run_in_threadpool(record_authors, svc, who, game, body.events, int(out["appended"]),
                            int(out["next_seq"]))
    return out


__all__ = ["WordsIn", "actions_now", "router", "taken_types", "turn_of", "words_to_events"]
