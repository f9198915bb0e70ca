"""``jaslog rules``: the rule book on demand, for a dispute at the table or for a program."""

from __future__ import annotations

import sys
from typing import Any

import orjson
import typer

from jaslog.cli.common import console, fail, write_json_line
from jaslog.engine.options import OptionError
from jaslog.games import CATALOGUES, PRESETS, game_of, get_game, parse_option_text, resolve
from jaslog.play.oracle import QueryError, answer

rules_app = typer.Typer(help="The rule book on demand: options, legal plays, winners, roem, "
                        "scores. `--batch` answers JSON Lines queries on stdin.",
                        invoke_without_command=True, no_args_is_help=False)


def _ask(q: dict[str, Any], as_json: bool) -> dict[str, Any]:
    try:
        a = answer(q)
    except QueryError as e:
        fail(str(e))
    if as_json:
        write_json_line(a)
    return a


def _opts(ruleset: str, option: list[str]) -> dict[str, Any]:
    out = {}
    for text in option:
        try:
            k, v = parse_option_text(ruleset, text)
        except OptionError as e:
            fail(str(e))
        out[k] = v
    return out


RULESET = typer.Option("amsterdam", "--ruleset", "-r", help="a preset (see `jaslog rules presets`)")
TRUMP = typer.Option(None, "--trump", "-t", help="trump suit: C D H S (or ♣ ♦ ♥ ♠); "
                     "not for kloepper, whose trumps are permanent")
TRICK = typer.Option("", "--trick", help="cards already in the trick, in play order: AS,7S")
OPTION = typer.Option([], "--option", "-o", help="KEY=VALUE override, repeatable")
JSON = typer.Option(False, "--json", help="answer as one JSON line")


@rules_app.callback()
def rules(ctx: typer.Context,
          batch: bool = typer.Option(False, "--batch",
                                     help="read JSON Lines queries on stdin, answer each")) -> None:
    """The rule book on demand."""
    if batch:
        for n, line in enumerate(sys.stdin.buffer, 1):
            if not line.strip():
                continue
            try:
                out: dict[str, Any] = answer(orjson.loads(line))
            except orjson.JSONDecodeError as e:
                out = {"error": f"line {n}: not valid JSON: {e}"}
            except QueryError as e:
                out = {"error": f"line {n}: {e}"}
            write_json_line(out)
        raise typer.Exit(0)
    if ctx.invoked_subcommand is None:
        console.print("jaslog rules: ask the rule book.\n"
                      "  jaslog rules presets                  the named rule sets\n"
                      "  jaslog rules options -r rotterdam     every option and its value\n"
                      "  jaslog rules legal -t H --trick AS,7S --hand 7H,AD,KC\n"
                      "  jaslog rules winner|points|roem -t H --trick AS,7H,10S,KS\n"
                      "  jaslog rules score --points 90,72 --roem 20,0 --tricks 5,3 --chooser 0\n"
                      "  jaslog rules solve -t H --chooser 0 --leader 0 --hands JH,AS/8S,KS/...\n"
                      "  jaslog rules --batch < queries.jsonl  (JSON Lines in, JSON Lines out)")


@rules_app.command()
def presets(as_json: bool = JSON) -> None:
    """The named rule sets of the rule book (section 7)."""
    if as_json:
        write_json_line({name: p["game"] for name, p in PRESETS.items()})
        return
    for name, p in PRESETS.items():
        console.print(f"{name:24} {p['game']}")


@rules_app.command()
def options(ruleset: str = RULESET, option: list[str] = OPTION, as_json: bool = JSON) -> None:
    """Every option of a ruleset with its value (after any --option overrides)."""
    try:
        values = resolve(ruleset, _opts(ruleset, option))
    except OptionError as e:
        fail(str(e))
    if as_json:
        write_json_line(values)
        return
    catalogue = CATALOGUES[game_of(ruleset)]
    for key, value in values.items():
        o = catalogue[key]
        choices = f"  [dim]({' | '.join(o.choices)})[/]" if o.kind == "choice" else ""
        console.print(f"{key:32} {orjson.dumps(value).decode()}{choices}", soft_wrap=True)


@rules_app.command()
def legal(ruleset: str = RULESET, trump: str | None = TRUMP, trick: str = TRICK,
          hand: str = typer.Option(..., "--hand", help="the player's cards: 7H,AD,KC"),
          option: list[str] = OPTION, as_json: bool = JSON) -> None:
    """The legal cards for the next player, and why."""
    a = _ask({"op": "legal", "ruleset": ruleset, "options": _opts(ruleset, option),
              "trump": trump, "trick": trick, "hand": hand}, as_json)
    if not as_json:
        console.print(f"legal: [bold]{' '.join(a['legal'])}[/]\nwhy:   {a['why']}")


@rules_app.command()
def winner(ruleset: str = RULESET, trump: str | None = TRUMP, trick: str = TRICK,
           as_json: bool = JSON) -> None:
    """Which card of the trick wins (its index in play order, from 0)."""
    a = _ask({"op": "winner", "ruleset": ruleset, "trump": trump, "trick": trick}, as_json)
    if not as_json:
        cards = [c for c in trick.replace(",", " ").split() if c]
        console.print(f"card {a['winner']} ({cards[a['winner']]}) wins the trick")


@rules_app.command()
def points(ruleset: str = RULESET, trump: str | None = TRUMP, trick: str = TRICK,
           last: bool = typer.Option(False, "--last", help="the last trick (+10)"),
           as_json: bool = JSON) -> None:
    """Card points in a trick."""
    a = _ask({"op": "points", "ruleset": ruleset, "trump": trump, "trick": trick, "last": last},
             as_json)
    if not as_json:
        console.print(f"{a['points']} points")


@rules_app.command()
def roem(ruleset: str = RULESET, trump: str | None = TRUMP, trick: str = TRICK,
         option: list[str] = OPTION, as_json: bool = JSON) -> None:
    """Roem on the table in a complete trick of four cards."""
    a = _ask({"op": "roem", "ruleset": ruleset, "options": _opts(ruleset, option),
              "trump": trump, "trick": trick}, as_json)
    if not as_json:
        console.print(f"{a['roem']} roem" + (f" ({', '.join(a['parts'])})" if a["parts"] else ""))


def _pair(text: str, name: str) -> list[int]:
    try:
        a, b = (int(x) for x in text.split(","))
    except ValueError:
        fail(f"--{name} takes two whole numbers, team 0 then team 1: e.g. 90,72")
    return [a, b]


@rules_app.command()
def score(ruleset: str = RULESET,
          points_: str = typer.Option(..., "--points", help="card points per team: 90,72"),
          roem_: str = typer.Option("0,0", "--roem", help="roem per team: 20,0"),
          tricks: str = typer.Option(..., "--tricks", help="tricks per team: 5,3"),
          chooser: int = typer.Option(..., "--chooser", help="the playing team (0 or 1)"),
          revoke: int | None = typer.Option(None, "--revoke", help="team that revoked"),
          option: list[str] = OPTION, as_json: bool = JSON) -> None:
    """The score of a Klaverjas round from its points, roem and tricks."""
    game = get_game(game_of(ruleset)) if ruleset in PRESETS else None
    if game is not None and game.scoring != "teams":  # the command takes a score per team
        fail(f"`rules score` scores Klaverjas rounds; a {ruleset} deal is scored with --batch: "
             + game.score_example.format(ruleset=ruleset))
    a = _ask({"op": "score", "ruleset": ruleset, "options": _opts(ruleset, option),
              "points": _pair(points_, "points"), "roem": _pair(roem_, "roem"),
              "tricks": _pair(tricks, "tricks"), "chooser_team": chooser,
              "revoke_team": revoke}, as_json)
    if not as_json:
        console.print(f"{a['result']}: {a['score'][0]}–{a['score'][1]}")


def _numbers(text: str | None, name: str) -> list[int] | None:
    if text is None:
        return None
    try:
        return [int(x) for x in text.split(",")]
    except ValueError:
        fail(f"--{name} takes whole numbers separated by commas: e.g. 40,22")


@rules_app.command()
def solve(ruleset: str = RULESET, trump: str | None = TRUMP,
          hands: str = typer.Option(..., "--hands", help="the cards each seat still holds, seat 0 "
                                    "first, seats apart by '/': JH,AS/8S,KS/QC,10C/7D,AC"),
          trick: str = TRICK,
          leader: int = typer.Option(..., "--leader", help="the seat that led (or leads) the trick"),
          chooser: int | None = typer.Option(None, "--chooser", help="klaverjas: the seat that "
                                             "chose trumps"),
          maker: int | None = typer.Option(None, "--maker", help="klaberjass: the maker"),
          queens: str | None = typer.Option(None, "--queens", help="kloepper: the seats of the "
                                            "black-queen side, e.g. 0,2 (default: who holds them)"),
          points_: str | None = typer.Option(None, "--points", help="card points taken so far, "
                                             "per team (klaverjas) or per seat: 40,22"),
          roem_: str | None = typer.Option(None, "--roem", help="klaverjas: roem taken per team"),
          tricks: str | None = typer.Option(None, "--tricks", help="tricks taken so far, per team "
                                            "(klaverjas) or per seat"),
          option: list[str] = OPTION, as_json: bool = JSON) -> None:
    """The par of a position whose hands are known (perfect play), the par after each legal
    card of the seat to play, and the best cards (rule book 9.2)."""
    q: dict[str, Any] = {"op": "solve", "ruleset": ruleset, "options": _opts(ruleset, option),
                         "trump": trump, "leader": leader, "trick": trick,
                         "hands": [[c for c in h.replace(",", " ").split() if c]
                                   for h in hands.split("/")]}
    for key, value in (("chooser", chooser), ("maker", maker), ("queens", _numbers(queens, "queens")),
                       ("points", _numbers(points_, "points")), ("roem", _numbers(roem_, "roem")),
                       ("tricks", _numbers(tricks, "tricks"))):
        if value is not None:
            q[key] = value
    a = _ask(q, as_json)
    if not as_json:
        after = "  ".join(f"{c} {v:+d}" if v else f"{c} 0" for c, v in a["values"].items())
        console.print(f"par {a['par']:+d}" if a["par"] else "par 0")
        console.print(f"best: [bold]{' '.join(a['best'])}[/]" if a["best"] else "the round is over")
        if after:
            console.print(f"after each card: {after}")


def register(app: typer.Typer) -> None:
    app.add_typer(rules_app, name="rules")
