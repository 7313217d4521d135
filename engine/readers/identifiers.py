"""Addresses and identifiers found as whole tokens: an email, a URL, a phone number, a host name, an order id.

A required contact is not given by a longer one that contains it: ``sales@nordwind.example.com`` is another
address than ``sales@nordwind.example``, ``O-2011`` another order than ``O-201``, ``db-17.internal`` another
host than ``db-7.internal``. So a term that is an identifier (:func:`is_identifier`) is found only where the
text does not carry it on at either end: the character next to it may not be a letter or digit, nor a
character the identifier's kind is built of (dots, hyphens, ``@`` ...) that has a letter or digit beyond it.
What wraps a token in prose and markup is no part of it and is allowed: sentence punctuation after it
(``sales@nordwind.example.``), brackets and quotes, Markdown and HTML (``[x](mailto:x)``,
``<a href="mailto:x">x</a>``), angle brackets (``<x>``).
"""

from __future__ import annotations

import re

# The characters each kind of identifier is built of besides letters and digits: one of them next to the
# term, followed by a letter or digit, continues the token.
_EMAIL = frozenset("._%+-@")
_URL = frozenset("._-~/?#=&%+:@")
_OTHER = frozenset("._-@")


def is_identifier(term: str) -> bool:
    """Whether ``term`` names one thing by its spelling (an email, a URL, a code with digits such as
    ``O-302`` or ``db-7.internal``, a phone number), rather than being a word or a phrase: it holds an ``@``,
    a ``://`` or a digit."""
    return bool(term.strip()) and ("@" in term or "://" in term or any(c.isdigit() for c in term))


def _joiners(term: str) -> frozenset[str]:
    if "://" in term or term.lower().startswith("www."):
        return _URL
    if "@" in term:
        return _EMAIL
    return _OTHER | frozenset(c for c in term if not c.isalnum() and not c.isspace())


def _carries_on(text: str, at: int, step: int, joiners: frozenset[str]) -> bool:
    """Whether the token goes on from ``at`` (the first character outside the match) in direction ``step``."""
    if not 0 <= at < len(text):
        return False
    c = text[at]
    if c.isalnum():
        return True
    beyond = at + step
    return c in joiners and 0 <= beyond < len(text) and text[beyond].isalnum()


def mentions(text: str, term: str) -> bool:
    """Whether ``text`` holds identifier ``term`` as a whole token (case-insensitive; both already
    normalised the same way by the caller)."""
    needle = term.strip().lower()
    hay = text.lower()
    if not needle:
        return False
    joiners = _joiners(needle)
    for m in re.finditer(re.escape(needle), hay):
        before = needle[0].isalnum() and _carries_on(hay, m.start() - 1, -1, joiners)
        after = needle[-1].isalnum() and _carries_on(hay, m.end(), 1, joiners)
        if not before and not after:
            return True
    return False
