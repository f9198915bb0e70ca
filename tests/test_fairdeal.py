"""The deal anyone can check (rule book 9.3, decisions 20-21), on logs of every game.

A log deals every round from a committed seed and the seats' nonces; :func:`check_deals`
finds it fair, and finds each way of cheating: a seed that is not the committed one, a card
moved between hands, a commit after the deal, a nonce after the deal, a round never revealed.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

import pytest

from jaslog.engine.fairdeal import commit_of, deck, nonce_problem, seed_from_text
from jaslog.games import GAMES, get_game
from jaslog.play.fairdeal import check_deals

PRESET = {"klaverjas": "amsterdam", "klaberjass": "klaberjass-2p", "kloepper": "kloepper"}


def fair_log(name: str, rounds: int = 2, nonces: tuple[str, ...] = ("n0", "", "lucky 7", "x")
             ) -> list[dict[str, Any]]:
    """A log of ``rounds`` rounds, each committed, dealt from its deck and revealed."""
    game = get_game(name)
    seats = [f"p{i}" for i in range(game.players)]
    log: list[dict[str, Any]] = [{"seq": 0, "type": "game_started", "ruleset": PRESET[name],
                                  "seats": seats, "dealer": 0}]
    for n in range(1, rounds + 1):
        seed = hashlib.sha256(f"seed {name} {n}".encode()).digest()
        dealer = (n - 1) % game.players
        log.append({"type": "deal_committed", "round": n, "commit": commit_of(seed)})
        sent = list(nonces[:game.players])
        for seat, nonce in enumerate(sent):
            if nonce:
                log.append({"type": "nonce", "round": n, "seat": seat, "nonce": nonce})
        dealt = game.deal_from_deck(deck(seed, "g1", n, sent, game.pack), dealer)
        for kind, fields in dealt.items():
            log.append({"type": kind, **({"dealer": dealer} if kind == "dealt" else {}), **fields})
        log.append({"type": "deal_revealed", "round": n, "seed": seed.hex()})
    for i, e in enumerate(log):
        e["seq"] = i
    return log


def first(log: list[dict[str, Any]], type_: str, round_no: int = 1) -> dict[str, Any]:
    return [e for e in log if e["type"] == type_][round_no - 1]


@pytest.mark.parametrize("name", list(GAMES))
class TestEveryGame:
    def test_a_fair_log_checks_out(self, name: str) -> None:
        report = check_deals("g1", fair_log(name))
        assert (report.checked, report.pending, report.problems) == ([1, 2], [], [])
        assert report.fair

    def test_every_hand_is_the_pack_shared_out(self, name: str) -> None:
        game = get_game(name)
        hands = first(fair_log(name), "dealt")["hands"]
        assert len(hands) == game.players
        cards = [c for h in hands for c in h]
        assert len(cards) == len(set(cards)) and set(cards) <= set(game.pack)

    def test_a_seed_that_is_not_the_committed_one(self, name: str) -> None:
        log = fair_log(name)
        first(log, "deal_revealed")["seed"] = "00" * 32
        [p] = check_deals("g1", log).problems
        assert (p.code, p.round) == ("deal_not_fair", 1) and "SHA-256" in p.message

    def test_a_card_moved_from_one_hand_to_another(self, name: str) -> None:
        log = fair_log(name)
        hands = first(log, "dealt", 2)["hands"]
        hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
        problems = check_deals("g1", log).problems
        assert [(p.code, p.round) for p in problems] == [("deal_not_fair", 2)]
        assert hands[0][0] in problems[0].message

    def test_other_nonces_give_another_deck(self, name: str) -> None:
        log = fair_log(name)
        first(log, "nonce")["nonce"] = "changed"
        assert [p.round for p in check_deals("g1", log).problems] == [1]

    def test_a_commit_after_the_deal(self, name: str) -> None:
        log = fair_log(name, nonces=("", "", "", ""))
        i = log.index(first(log, "deal_committed"))
        commit = log.pop(i)
        log.insert(i + 1, commit)  # after the dealt event
        assert any("after the deal" in p.message for p in check_deals("g1", log).problems)

    def test_a_nonce_after_the_deal(self, name: str) -> None:
        log = fair_log(name)
        log.insert(log.index(first(log, "deal_revealed")),
                   {"seq": 99, "type": "nonce", "round": 1, "seat": 1, "nonce": "late"})
        assert any("nonce" in p.message for p in check_deals("g1", log).problems)

    def test_a_round_not_yet_revealed_is_pending_and_one_never_revealed_is_not_fair(
            self, name: str) -> None:
        log = fair_log(name)
        log.remove(first(log, "deal_revealed", 2))
        report = check_deals("g1", log)
        assert (report.checked, report.pending, report.problems) == ([1], [2], [])
        log.remove(first(log, "deal_revealed", 1))
        report = check_deals("g1", log)
        assert [(p.round, "never revealed" in p.message) for p in report.problems] == [(1, True)]


def test_the_deck_function_is_the_rule_books() -> None:
    """Five lines anyone can run give the same deck (docs/fair-deal.md)."""
    seed, game, round_no, nonces = bytes(range(32)), "club-7", 3, ["a", "", "b", ""]
    pack = get_game("klaverjas").pack
    by_hand = sorted(pack, key=lambda card: hmac.new(
        seed, f"{game}|{round_no}|{'|'.join(nonces)}|{card}".encode(), hashlib.sha256).hexdigest())
    assert deck(seed, game, round_no, nonces, pack) == by_hand
    # pinned: a change to the deck function would fail every dealt game's check
    assert by_hand[:8] == ["JS", "AC", "8H", "QD", "10C", "KC", "QS", "QC"]
    assert commit_of(seed) == hashlib.sha256(seed).hexdigest()


def test_seed_and_nonce_texts() -> None:
    assert seed_from_text("ab" * 32) == bytes([0xAB]) * 32
    assert seed_from_text("ab" * 31) is None and seed_from_text("zz" * 32) is None
    assert nonce_problem("x" * 64) is None
    assert nonce_problem("x" * 65) is not None and nonce_problem("é") is not None
