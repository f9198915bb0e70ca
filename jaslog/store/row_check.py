"""A stored row's event built from its fields checked one by one, each as its model checks it.

Validating a row's fields as a whole (``validate_python`` of the dict of them, then
:func:`jaslog.events.limits.event_problem`) costs what every field's check costs, and most
of those checks are of values met again and again: a card, a call, a seat, a bound number.
:func:`checked_event` builds the event of a row whose type's fields are all of kinds this
module knows (a string, an integer or a literal, a list of them, none of them) from the
type's own core schema: each value is checked by pydantic's own validator of that field's
leaf schema, once for each value met (the answer kept), lists by their length and items, a
field left out by its default; the envelope as :func:`jaslog.store.row_memo.envelope` takes
it. An event so built is the one validation gives (``tests/store/test_row_memo.py`` compares
them over every event of a corpus and odd rows); any value a check does not accept, a type
with a field of another kind (``game_started``'s free JSON), a ``rest`` that is not a JSON
array of the type's fields: None, and the row is validated as before (which says what is
wrong).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
from pydantic import ValidationError
from pydantic_core import SchemaValidator

from jaslog.events import Event
from jaslog.events.limits import event_problem
from jaslog.events.registry import models, on_change
from jaslog.store.compact import CARD_TEXT, Plan

Check = Callable[[Any], bool]
#: A type's fields after the envelope: (name, where (4: seat, 5: card, -1: rest), the check
#: of a value, whether it may be left out).
Fields = tuple[tuple[str, int, Check, bool], ...]
#: A type's model, its fields, and how many values its ``rest`` holds at most.
TypePlan = tuple[type[Event], Fields, int]
#: The most values of a field kept with their answer (a free text has no end of them).
MOST_ANSWERS = 4096

_PLANS: dict[str, TypePlan | None] = {}


def forget() -> None:
    """Drop every type's plan (the registry changed: a model may be another now)."""
    _PLANS.clear()


on_change(forget)


def _leaf(schema: dict[str, Any], config: Any) -> tuple[Check, set[Any] | None]:
    """The check of a string, integer or literal field's value by its own validator, each
    value's answer kept (a value of the type the field takes: an ``int`` is never a
    ``bool``), and, for a field whose values are strings, the set of those accepted (no JSON
    value but a string equals a string, so a list's items are checked by one ``issuperset``)."""
    validator = SchemaValidator(schema, config)
    answers: dict[Any, bool] = {}
    accepted: set[Any] = set()
    kinds = {type(v) for v in schema.get("expected", ())} if schema["type"] == "literal" \
        else {str if schema["type"] == "str" else int}
    strings = kinds == {str}

    def accepts(x: Any) -> bool:
        try:
            out = validator.validate_python(x)
        except ValidationError:
            return False
        return type(out) is type(x) and out == x

    def check(x: Any) -> bool:
        if type(x) not in kinds:
            return accepts(x)
        ok = answers.get(x)
        if ok is None:
            ok = accepts(x)
            if len(answers) < MOST_ANSWERS:
                answers[x] = ok
                if ok:
                    accepted.add(x)
        return ok

    return check, accepted if strings else None


def _check(schema: dict[str, Any], config: Any) -> tuple[Check, set[Any] | None] | None:
    """The check of a field's value by its core schema (``default`` taken off), or None for
    a kind not known here."""
    kind = schema["type"]
    keys = set(schema) - {"type", "metadata", "strict"}
    if kind in ("str", "int", "literal"):
        return _leaf(schema, config)
    if kind == "nullable" and keys == {"schema"}:
        inner = _check(schema["schema"], config)
        if inner is None:
            return None
        check = inner[0]
        return (lambda x: x is None or check(x)), None
    if kind == "list" and keys <= {"items_schema", "min_length", "max_length"}:
        items = _check(schema["items_schema"], config)
        if items is None:
            return None
        item, accepted = items
        lo, hi = schema.get("min_length") or 0, schema.get("max_length")

        def check_list(x: Any) -> bool:
            if type(x) is not list or len(x) < lo or (hi is not None and len(x) > hi):
                return False
            if accepted is not None and accepted.issuperset(x):
                return True
            return all(item(y) for y in x)

        return check_list, None
    return None


def type_plan(name: str, plan: Plan) -> TypePlan | None:
    """How :func:`checked_event` builds an event of type ``name`` (``plan``: its fields'
    columns, :meth:`jaslog.store.compact.Codec.plan`); None when a field is of a kind not
    known here."""
    if name in _PLANS:
        return _PLANS[name]
    model = models().get(name)
    out: TypePlan | None = None
    if model is not None:
        model.model_rebuild()
        schema = model.__pydantic_core_schema__
        if schema.get("type") == "model" and schema["schema"].get("type") == "model-fields":
            out = _fields_plan(model, schema, plan)
    _PLANS[name] = out
    return out


def _fields_plan(model: type[Event], schema: Any, plan: Plan) -> TypePlan | None:
    config = schema.get("config")
    fields = schema["schema"]["fields"]
    if list(fields) != list(model.model_fields) or [n for n, _, _ in plan] != \
            list(model.model_fields)[3:] or list(fields)[:6] != \
            ["game", "seq", "type", "at", "id", "recorded_at"]:
        return None
    out: list[tuple[str, int, Check, bool]] = []
    n_rest = 0
    for name, slot, _ in plan[3:]:
        s = fields[name]["schema"]
        optional = s["type"] == "default"
        if optional:
            if s.get("default", ...) is not None or set(s) - {"type", "schema", "default",
                                                                 "metadata"}:
                return None
            s = s["schema"]
        check = _check(s, config)
        if check is None or slot in (1, 2, 3):
            return None
        out.append((name, slot, check[0], optional))
        n_rest += slot < 0
    return model, tuple(out), n_rest


_set = object.__setattr__


def _rest_values(rest: bytes | None, n_rest: int) -> Any:
    """The values of a row's ``rest`` (a JSON array of at most ``n_rest`` of them; none when
    ``rest`` is NULL), or None when it is not one."""
    if rest is None:
        return ()
    try:
        values = orjson.loads(rest)
    except orjson.JSONDecodeError:
        return None
    if type(values) is not list or len(values) > n_rest:
        return None
    return values


def _fields_fit(fields: tuple[tuple[str, int, Check, bool], ...], values: Any, seat: Any,
                card: Any, d: dict[str, Any] | None, given: set[str] | None) -> bool:
    """Whether every field of a row passes its check (its value from ``values`` in order,
    or the row's ``seat`` or ``card``; none missing that may not be), each value set in
    ``d`` (and its name added to ``given``, unless NULL) when ``d`` is given."""
    i = 0
    n = len(values)
    for fname, slot, check, optional in fields:
        if slot < 0:
            v = values[i] if i < n else None
            i += 1
        elif slot == 4:
            v = seat
            if v is not None and type(v) is not int:
                return False
        else:
            if card is None:
                v = None
            elif type(card) is int and 0 <= card < 32:
                v = CARD_TEXT[card]
            else:
                return False
        if v is None:
            if not optional:
                return False
            if d is not None:
                d[fname] = None
            continue
        if not check(v):
            return False
        if d is not None and given is not None:
            d[fname] = v
            given.add(fname)
    return True


def checked_event(tp: TypePlan, name: str, game: str, seq: int, at: str | None, eid: str | None,
                  rec: str | None, seat: Any, card: Any, rest: bytes | None) -> Event | None:
    """The event of a row of type ``name`` (its plan ``tp``) whose envelope was taken
    (``game``, ``seq`` and the texts of ``at``, ``id`` and ``recorded_at``), or None when a
    value is not one its check accepts."""
    model, fields, n_rest = tp
    values = _rest_values(rest, n_rest)
    if values is None:
        return None
    d: dict[str, Any] = {"game": game, "seq": seq, "type": name, "at": at, "id": eid,
                         "recorded_at": rec}
    given = {"game", "seq", "type"}
    if at is not None:
        given.add("at")
    if eid is not None:
        given.add("id")
    if rec is not None:
        given.add("recorded_at")
    if not _fields_fit(fields, values, seat, card, d, given):
        return None
    e = model.__new__(model)
    _set(e, "__dict__", d)
    _set(e, "__pydantic_fields_set__", given)
    _set(e, "__pydantic_extra__", None)
    _set(e, "__pydantic_private__", None)
    return e if event_problem(e) is None else None


def fields_pass(tp: TypePlan, seat: Any, card: Any, rest: bytes | None) -> bool:
    """Whether a row's fields pass the checks :func:`checked_event` makes of them (``rest``
    a JSON array of at most the type's values in ``rest``, each value one its field's check
    accepts, none missing that may not be), with no event built: for a type whose fields
    :func:`jaslog.events.limits.event_problem` does not read (not in
    :data:`jaslog.events.limits.FIELDS_LIMITED`), of a row whose envelope was taken, this
    is whether :func:`checked_event` gives an event."""
    _model, fields, n_rest = tp
    values = _rest_values(rest, n_rest)
    return values is not None and _fields_fit(fields, values, seat, card, None, None)
