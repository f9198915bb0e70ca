"""One root for every error jaslog raises: :class:`JaslogError`, with a stable ``code``.

A caller that wants to survive anything jaslog can say about bad input catches
``JaslogError`` (never ``Exception``); ``code`` names the rule or the kind of failure for
programs (``not_your_turn``, ``bad_options``, ``conflict``) and ``str(e)`` is the sentence
for people. Each subclass sets a default ``code``; an error that names a rule sets its own.

>>> from jaslog.cards import CardError, parse_card
>>> try:
...     parse_card("1X")
... except JaslogError as e:
...     print(type(e).__name__, e.code)
CardError bad_card
"""

from __future__ import annotations


class JaslogError(Exception):
    """The root of every error jaslog raises on purpose."""

    #: the stable name of what went wrong (a subclass or an instance sets its own)
    code: str = "error"
