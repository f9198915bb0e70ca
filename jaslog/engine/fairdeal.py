"""A deal anyone can check: commit, contribute, reveal (rule book 9.3, decisions 20-21).

Before a round's cards are dealt the server draws a secret seed of 32 random bytes and
publishes its commit, the lowercase hex SHA-256 of the seed. Each seat may add a nonce. The
deck is then the pack's cards sorted by the lowercase hex HMAC-SHA256, keyed by the seed, of
``GAME|ROUND|N0|N1|...|CARD`` (the nonces in seat order, an empty text for a seat that sent
none), smallest first; the game deals from that deck in its documented order
(:meth:`jaslog.engine.game.Game.deal_from_deck`). When the round ends the seed is revealed,
and anyone can recompute the deck and compare it with the cards dealt.

Everything here is pure: drawing the seed from the operating system is the service's job.

>>> seed = bytes(range(32))
>>> commit_of(seed)[:16]
'630dcd2966c43366'
>>> deck(seed, "g1", 1, ["", "abc"], ["7C", "8C", "9C"])
['8C', '9C', '7C']
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Sequence

#: How many bytes a seed has, and how many hex digits its text.
SEED_BYTES = 32
#: The most characters a nonce may have (printable ASCII, 1 to 64).
MOST_NONCE = 64


def commit_of(seed: bytes) -> str:
    """The commit to ``seed``: the lowercase hex SHA-256 of its bytes.

    >>> commit_of(b"\\x00" * 32)
    '66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925'
    """
    return hashlib.sha256(seed).hexdigest()


def seed_from_text(text: str) -> bytes | None:
    """A revealed seed's bytes from its 64 hex digits, or None when ``text`` is not one.

    >>> seed_from_text("00" * 32) == bytes(32), seed_from_text("xyz")
    (True, None)
    """
    if len(text) != 2 * SEED_BYTES:
        return None
    try:
        return bytes.fromhex(text)
    except ValueError:
        return None


def nonce_problem(nonce: str) -> str | None:
    """Why ``nonce`` is not a nonce (1 to 64 printable ASCII characters), or None.

    >>> nonce_problem("lucky-7"), nonce_problem("")
    (None, 'a nonce has 1 to 64 printable ASCII characters, not 0')
    >>> nonce_problem("a|b")
    "a nonce may not hold '|' (it separates the deck's message)"
    """
    if not 1 <= len(nonce) <= MOST_NONCE:
        return f"a nonce has 1 to {MOST_NONCE} printable ASCII characters, not {len(nonce)}"
    bad = next((c for c in nonce if not (" " <= c <= "~")), None)
    if bad is not None:
        return f"a nonce has printable ASCII characters only, not {bad!r}"
    if "|" in nonce:
        return "a nonce may not hold '|' (it separates the deck's message)"
    return None


def card_key(seed: bytes, game: str, round_no: int, nonces: Sequence[str], card: str) -> str:
    """The sort key of ``card``: the lowercase hex HMAC-SHA256 of
    ``GAME|ROUND|N0|...|CARD`` with the seed as key."""
    message = "|".join([game, str(round_no), *nonces, card]).encode("utf-8")
    return hmac.new(seed, message, hashlib.sha256).hexdigest()


def deck(seed: bytes, game: str, round_no: int, nonces: Sequence[str],
         pack: Iterable[str]) -> list[str]:
    """The pack's cards (canonical text) in the order the seed and the nonces give: sorted
    by :func:`card_key`, smallest first. ``nonces`` has one text per seat, empty for a seat
    that sent none."""
    return sorted(pack, key=lambda c: card_key(seed, game, round_no, nonces, c))
