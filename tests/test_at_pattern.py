"""The ``at`` field is checked by one regular expression inside pydantic-core (no Python call per
event). It must accept exactly what the rule it replaced accepted: the RFC 3339 shape *and*
what ``datetime.fromisoformat`` reads as a real date and time. Checked here case by case:
every month and day for years of every leap-year kind, every year on 29 February, every hour,
minute and second, every offset, and random mutations (including non-ASCII digits)."""

from __future__ import annotations

import json
import random
import re
from datetime import datetime

import pytest

from jaslog.events import AT_PATTERN, RFC3339, EventError, parse_event

PATTERN = re.compile(AT_PATTERN)


def reference(v: str) -> bool:
    """The rule as it was written before: the RFC 3339 regex, then fromisoformat."""
    if not RFC3339.match(v):
        return False
    try:
        datetime.fromisoformat(v.replace("z", "Z").replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def agrees(v: str) -> None:
    assert bool(PATTERN.fullmatch(v)) == reference(v), v


YEARS = ["0000", "0001", "0004", "0100", "0400", "1600", "1700", "1900", "1996", "2000", "2023",
         "2024", "2100", "2400", "9996", "9999"]


def test_every_date_shape() -> None:
    for y in YEARS:
        for mo in range(100):
            for d in range(100):
                agrees(f"{y}-{mo:02d}-{d:02d}T12:00:00Z")
    for year in range(10000):
        for md in ("02-29", "02-28", "01-01", "00-01"):
            agrees(f"{year:04d}-{md}T00:00:00Z")


@pytest.mark.soak
def test_every_date_shape_in_forty_random_years() -> None:
    """The same for forty random years: more of the leap-year kinds ``YEARS`` has."""
    for y in [f"{y:04d}" for y in random.Random(1).sample(range(10000), 40)]:
        for mo in range(100):
            for d in range(100):
                agrees(f"{y}-{mo:02d}-{d:02d}T12:00:00Z")


def test_every_time_and_offset() -> None:
    for h in range(100):
        for mi in range(100):
            agrees(f"2026-01-05T{h:02d}:{mi:02d}:59Z")
            agrees(f"2026-01-05T{h:02d}:{mi:02d}:60z")
            agrees(f"2026-01-05T10:00:00+{h:02d}:{mi:02d}")
            agrees(f"2026-01-05 10:00:00-{h:02d}:{mi:02d}")
    for s in range(100):
        agrees(f"2026-01-05T23:59:{s:02d}Z")
    for zone in ("Z", "z", "+00:00", "", "+0000", "UTC", "+00", "Zz"):
        for sep in "Tt x":
            for frac in ("", ".", ".0", ".123456", ".1234567890123456789", ".\u0663", ".1a"):
                agrees(f"2026-01-05{sep}10:00:00{frac}{zone}")


def test_random_mutations() -> None:
    rng = random.Random(7)
    alphabet = "0123456789-:TtZz +.\u0663\uff12a\n"
    bases = ["2026-02-28T23:59:59Z", "2024-02-29t00:00:00.5+23:59", "2000-12-31 10:10:10-22:99",
             "0001-01-01T00:00:00z"]
    for _ in range(60_000):
        b = list(rng.choice(bases))
        for _ in range(rng.randrange(1, 4)):
            i = rng.randrange(len(b))
            op = rng.randrange(3)
            if op == 0:
                b[i] = rng.choice(alphabet)
            elif op == 1:
                b.insert(i, rng.choice(alphabet))
            elif len(b) > 1:
                del b[i]
        agrees("".join(b))


@pytest.mark.parametrize("at", [
    "2026-11-30T20:15:00Z", "2024-02-29T00:00:00z", "2000-02-29 23:59:59.999999999+23:59",
    "2026-01-05T10:00:00-22:99", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z",
    "2023-02-29T10:00:00Z", "1900-02-29T10:00:00Z", "0000-01-01T00:00:00Z",
    "2026-01-05T24:00:00Z", "2026-01-05T10:00:60Z", "2026-01-05T10:00:00+23:60",
    "2026-01-05T10:00:00", "\uff12026-01-05T10:00:00Z", "2026-01-05T10:00:00Z\n", "yesterday",
])
def test_the_parser_itself_agrees(at: str) -> None:
    """Through pydantic-core's own regex engine, with the same messages as before."""
    line = json.dumps({"game": "g", "seq": 1, "type": "play", "seat": 1, "card": "7H",
                       "at": at}).encode()
    if reference(at):
        assert parse_event(line).at == at
        return
    with pytest.raises(EventError) as e:
        parse_event(line)
    what = "not an RFC 3339 time" if not RFC3339.match(at) else "not a real date and time"
    assert what in str(e.value) and str(e.value).startswith("field 'at': ")
