"""What the reader and the writer share: the words of the notation, the order of each event's
fields, and cards, calls and suits read leniently.

>>> card("t♥"), card("10h"), card("♥J"), card("XX")
('10H', '10H', 'JH', None)
>>> call("Hearts"), call("PASS"), call("♠")
('H', 'pass', 'S')
"""

from __future__ import annotations

import re

from jaslog.cards import CARD_TEXT, parse_card

#: The envelope's fields, in canonical order (``jaslog.events.Event``).
ENVELOPE = ("game", "seq", "type", "at", "id", "recorded_at")

#: Each event type's own fields after the envelope, in canonical order (the models' order in
#: ``jaslog.events``; a test keeps the two equal).
FIELDS: dict[str, tuple[str, ...]] = {
    "game_started": ("ruleset", "options", "seats", "dealer", "meta"),
    "dealt": ("hands", "dealer", "turn_up", "stock"),
    "trump_turned": ("card",),
    "bid": ("seat", "call"),
    "play": ("seat", "card"),
    "roem": ("seat", "points"),
    "claim": ("seat", "gives"),
    "ruling": ("round", "score", "reason"),
    "note": ("text", "seat", "round"),
    "second_deal": ("hands", "bottom"),
    "dix": ("seat",),
    "sequence": ("seat", "cards"),
    "bella": ("seat",),
    "partner_call": ("seat", "call"),
    "knock": ("seat",),
    "knock_back": ("seat",),
    "correction": ("retracts", "reason"),
    "irregularity": ("kind", "seat", "cards", "text"),
    "round_score": ("round", "score", "chooser", "trump", "points", "roem", "result"),
    "timeout": ("seat", "seconds"),
    "deal_committed": ("round", "commit"),
    "nonce": ("round", "seat", "nonce"),
    "deal_revealed": ("round", "seed"),
}

#: Statement keywords as read (lower case, ``-`` and ``_`` dropped) and the event each opens
#: (``concede``: a claim of the rest for the others); ``second`` and ``knock`` may take a
#: second word (``Second deal``, ``Knock back``).
KEYWORDS: dict[str, str] = {
    "deal": "dealt", "dealt": "dealt", "seconddeal": "second_deal", "second": "second_deal",
    "turn": "trump_turned", "turned": "trump_turned", "trumpturned": "trump_turned",
    "bid": "bid", "bids": "bid",
    "roem": "roem", "bella": "bella", "dix": "dix", "sequence": "sequence",
    "call": "partner_call", "partner": "partner_call", "partnercall": "partner_call",
    "knock": "knock", "knockback": "knock_back",
    "note": "note", "ruling": "ruling", "correction": "correction", "fix": "correction",
    "irregularity": "irregularity", "score": "round_score", "roundscore": "round_score",
    "timeout": "timeout", "event": "event",
    "commit": "deal_committed", "dealcommitted": "deal_committed", "nonce": "nonce",
    "reveal": "deal_revealed", "dealrevealed": "deal_revealed",
    # a claim of the rest, and a concession (a claim that gives the rest to the others)
    "claim": "claim", "claims": "claim", "concede": "concede", "concedes": "concede",
}

#: The word the writer gives each statement.
WORDS = {"dealt": "Deal", "second_deal": "Second deal", "trump_turned": "Turn", "bid": "Bid",
         "roem": "Roem", "bella": "Bella", "dix": "Dix", "sequence": "Sequence",
         "partner_call": "Call", "knock": "Knock", "knock_back": "Knock back", "note": "Note",
         "ruling": "Ruling", "correction": "Correction", "irregularity": "Irregularity",
         "round_score": "Score", "timeout": "Timeout", "event": "Event",
         "deal_committed": "Commit", "nonce": "Nonce", "deal_revealed": "Reveal"}
#: How the writer words a claim by what it gives.
CLAIM_WORDS = {"rest_to_claimer": "Claim", "rest_to_opponents": "Concede"}

#: The tags of a game's ``game_started`` and of the section, by their key as read (lower case,
#: ``-`` and ``_`` dropped); every other tag is a ``meta`` entry.
TAGS = {"game": "Game", "ruleset": "Ruleset", "options": "Options", "seats": "Seats",
        "dealer": "Dealer", "at": "At", "recordedat": "RecordedAt", "id": "Id", "seq": "Seq",
        "meta": "Meta"}

CALLS = ("pass", "accept", "take", "schmeiss", "annul", "play")
SUITS = "CDHS"
_SUIT_WORDS = {"c": "C", "d": "D", "h": "H", "s": "S", "♣": "C", "♦": "D", "♥": "H", "♠": "S",
               "♧": "C", "♢": "D", "♡": "H", "♤": "S", "clubs": "C", "diamonds": "D",
               "hearts": "H", "spades": "S"}
IRREGULARITY_KINDS = ("lead_out_of_turn", "play_out_of_turn", "exposed_card", "misdeal",
                      "wrong_card_count", "other")
PARTNER_CALLS = ("AC", "AD", "AH", "AS", "alone")

#: A word the writer can leave bare (a ``result``): else it is written as a JSON string.
BARE = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")

_CARDS: dict[str, str | None] = {t: t for t in CARD_TEXT}
_TURNED_RANKS = {"2", "3", "4", "5", "6"}


def norm(word: str) -> str:
    """A keyword as compared: lower case, without ``-`` and ``_``.

    >>> norm("Knock-Back"), norm("second_deal")
    ('knockback', 'seconddeal')
    """
    return word.lower().replace("-", "").replace("_", "")


def card(text: str) -> str | None:
    """The canonical text of a card written leniently (``T`` or ``10``, any case, a suit
    letter or symbol, the suit first or last), or None."""
    got = _CARDS.get(text, "")
    if got != "":
        return got
    try:
        c: str | None = CARD_TEXT[parse_card(text, lenient=True)] if len(text) <= 4 else None
    except ValueError:
        c = None
    if len(_CARDS) < 10_000:  # a cache of what was read, bounded against odd input
        _CARDS[text] = c
    return c


def turned_card(text: str) -> str | None:
    """A card of the separate pack that proposes trumps (ranks 2 to A), or None.

    >>> turned_card("4h"), turned_card("jh"), turned_card("1H")
    ('4H', 'JH', None)
    """
    c = card(text)
    if c is not None:
        return c
    t = text.upper()
    if len(t) == 2 and t[0] in _TURNED_RANKS:
        s = _SUIT_WORDS.get(t[1].lower())
        if s is not None:
            return t[0] + s
    return None


def suit(text: str) -> str | None:
    """A suit letter from a letter, a symbol or an English name, any case, or None.

    >>> suit("h"), suit("♣"), suit("Spades"), suit("x")
    ('H', 'C', 'S', None)
    """
    return _SUIT_WORDS.get(text.lower())


def call(text: str) -> str | None:
    """A bid's call (``pass``, ``take``... or a suit letter), or None.

    >>> call("Schmeiss"), call("d"), call("double")
    ('schmeiss', 'D', None)
    """
    low = text.lower()
    if low in CALLS:
        return low
    return suit(text)


def irregularity_kind(text: str) -> str | None:
    """An irregularity's kind, with ``-`` or ``_`` between its words, any case, or None.

    >>> irregularity_kind("Exposed-Card"), irregularity_kind("dropped")
    ('exposed_card', None)
    """
    k = text.lower().replace("-", "_")
    return k if k in IRREGULARITY_KINDS else None


def partner_call(text: str) -> str | None:
    """A Kloepper partner call: an ace (``AS``, ``a♠``...) or ``alone``, or None.

    >>> partner_call("a♠"), partner_call("ALONE"), partner_call("KS")
    ('AS', 'alone', None)
    """
    if text.lower() == "alone":
        return "alone"
    c = card(text)
    return c if c in PARTNER_CALLS else None
