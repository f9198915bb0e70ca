"""Options and presets: how a game declares its rule variants (rule book section 7).

Every option has a dotted key exactly as the rule book writes it (``free.start``,
``roem.four_kind_ranks``) and a kind that says which values it takes. A game declares its
catalogue of options and its named presets (``jaslog.games.<game>.options``); a preset is
the game plus a value for every option, and a game's options are its preset with any
per-game overrides applied (:func:`resolve_preset`).

>>> cat = catalogue(Option("game", "choice", ("demo",)), Option("bonus", "int"))
>>> resolve_preset(cat, "demo-1", {"game": "demo", "bonus": 10}, {"bonus": 20})
{'game': 'demo', 'bonus': 20}
>>> resolve_preset(cat, "demo-1", {"game": "demo", "bonus": 10}, {"bonus": -1})
Traceback (most recent call last):
...
jaslog.engine.options.OptionError: option 'bonus' must be a whole number from 0 to 1000, not -1

Values given as text (``--option roem.four_kind_ranks=A,K,Q,10``) are read by
:func:`parse_value`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from jaslog.cards import RANK_TEXT, CardError, card_text, parse_card
from jaslog.errors import JaslogError


class OptionError(JaslogError, ValueError):
    """An unknown preset, an unknown option, or a value the option does not take."""

    code = "bad_options"


#: Bounds of a game's length: deals, and target points.
MOST_DEALS = 1000
MOST_TARGET = 100_000


@dataclass(frozen=True)
class Option:
    key: str
    kind: str  # choice | int | bool | ranks | cards | game_end | json | choices
    choices: tuple[str, ...] = ()
    help: str = ""
    #: The largest value an ``int`` option takes (points: a value beyond any real rule, and
    #: small enough for every total to fit the store's and the export's integer columns).
    most: int = 1000

    def check(self, value: Any) -> Any:
        """The value in canonical form, or an :class:`OptionError` that says why not."""
        k = self.key
        if self.kind == "choice":
            if not isinstance(value, str) or value not in self.choices:
                raise OptionError(
                    f"option {k!r} must be one of {', '.join(self.choices)}, not {value!r}")
            return value
        if self.kind == "choices":
            if not isinstance(value, list) or not value or any(v not in self.choices for v in value):
                raise OptionError(
                    f"option {k!r} must be a list drawn from {', '.join(self.choices)}, not {value!r}")
            return list(dict.fromkeys(value))
        if self.kind == "int":
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= self.most:
                raise OptionError(f"option {k!r} must be a whole number from 0 to {self.most}, "
                                  f"not {value!r}")
            return value
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise OptionError(f"option {k!r} must be true or false, not {value!r}")
            return value
        if self.kind == "ranks":
            if not isinstance(value, list):
                raise OptionError(f"option {k!r} must be a list of ranks, not {value!r}")
            out = []
            for v in value:
                r = {"T": "10"}.get(str(v).upper(), str(v).upper())
                if r not in RANK_TEXT:
                    raise OptionError(f"option {k!r}: {v!r} is not a rank (7 8 9 10 J Q K A)")
                out.append(r)
            return sorted(set(out), key=RANK_TEXT.index, reverse=True)
        if self.kind == "cards":
            if not isinstance(value, list):
                raise OptionError(f"option {k!r} must be a list of cards, not {value!r}")
            try:
                return [card_text(parse_card(str(v), lenient=True)) for v in value]
            except CardError as e:
                raise OptionError(f"option {k!r}: {e}") from None
        if self.kind == "game_end":
            ok = isinstance(value, dict) and set(value) == {"type", value.get("type") and (
                "count" if value.get("type") == "deals" else "points")}
            if ok and value["type"] == "deals":
                n = value["count"]
                ok = isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= MOST_DEALS
            elif ok and value["type"] == "target":
                n = value["points"]
                ok = isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= MOST_TARGET
            else:
                ok = False
            if not ok:
                raise OptionError(
                    f"option {k!r} must be {{\"type\": \"deals\", \"count\": N}} (N from 1 to "
                    f"{MOST_DEALS}) or {{\"type\": \"target\", \"points\": N}} (N from 1 to "
                    f"{MOST_TARGET}), not {value!r}")
            return dict(value)
        if self.kind == "json":
            return value
        raise AssertionError(self.kind)


def catalogue(*items: Option) -> dict[str, Option]:
    """A game's catalogue: its options by key, in the order given."""
    return {o.key: o for o in items}


#: What :func:`plain_copy` copies (a dict, a list, a tuple); any other value is shared.
_NESTED = (dict, list, tuple)


def plain_copy(value: Any) -> Any:
    """A deep copy of JSON data (dicts, lists, tuples, scalars), as writing it as JSON and
    reading it back gives it (a tuple comes back a list), without the JSON: a preset is
    copied for every game started, and the round trip took half of starting a fold.

    >>> p = {"game_end": {"type": "deals", "count": 16}, "ranks": ("A", "K")}
    >>> c = plain_copy(p)
    >>> c == json.loads(json.dumps(p)), c["game_end"] is p["game_end"]
    (True, False)
    """
    if isinstance(value, dict):  # (a scalar is taken as it is, without a call)
        return {k: plain_copy(v) if isinstance(v, _NESTED) else v for k, v in value.items()}
    if isinstance(value, _NESTED):
        return [plain_copy(v) if isinstance(v, _NESTED) else v for v in value]
    return value



def resolve_preset(options: Mapping[str, Option], ruleset: str, preset: Mapping[str, Any],
                   overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The full, checked options of a game: ``preset`` with ``overrides`` applied, each
    override checked against the game's catalogue ``options``."""
    game = preset["game"]
    out = plain_copy(preset)  # shares no dict or list with the preset
    for key, value in (overrides or {}).items():
        opt = options.get(key)
        if opt is None:
            raise OptionError(f"unknown option {key!r} for {game} (see `jaslog rules options`)")
        if key == "game":
            raise OptionError("option 'game' is fixed by the ruleset")
        out[key] = opt.check(value)
    return out


def parse_value(opt: Option | None, key: str, raw: str) -> Any:
    """The value of option ``opt`` (``key``) typed as text on a command line, checked.

    >>> parse_value(Option("game_end", "game_end"), "game_end", "target:1500")
    {'type': 'target', 'points': 1500}
    >>> parse_value(Option("roem.four_kind_ranks", "ranks"), "roem.four_kind_ranks", "A,K,Q,T,9")
    ['A', 'K', 'Q', '10', '9']
    """
    if opt is None:
        raise OptionError(f"unknown option {key!r} (see `jaslog rules options`)")
    value: Any = raw
    if raw[:1] in "[{":
        try:
            value = json.loads(raw)
        except ValueError:
            raise OptionError(f"option {key!r}: {raw!r} is not valid JSON") from None
    elif opt.kind == "int":
        if not raw.isdigit():
            raise OptionError(f"option {key!r} must be a whole number from 0 to {opt.most}, "
                              f"not {raw!r}")
        value = int(raw)
    elif opt.kind == "bool":
        low = raw.lower()
        if low not in ("true", "false", "yes", "no", "1", "0", "on", "off"):
            raise OptionError(f"option {key!r} must be true or false, not {raw!r}")
        value = low in ("true", "yes", "1", "on")
    elif opt.kind in ("ranks", "cards", "choices"):
        value = [v for v in raw.replace(" ", ",").split(",") if v]
    elif opt.kind == "game_end":
        kind, _, n = raw.partition(":")
        if kind not in ("deals", "target") or not n.isdigit():
            raise OptionError(f"option {key!r} takes deals:N or target:N, not {raw!r}")
        value = {"type": kind, ("count" if kind == "deals" else "points"): int(n)}
    return opt.check(value)
