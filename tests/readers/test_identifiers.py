"""An address or identifier is found as a whole token, not as a substring of a longer one."""

from __future__ import annotations

import pytest

from engine.readers.identifiers import is_identifier, mentions
from engine.world.answers import says

EMAIL = "sales@nordwind.example"


@pytest.mark.parametrize("text", [
    "Discounts are handled by our sales team at sales@nordwind.example.",
    "Please write to sales@nordwind.example, they will help.",
    "Contact: <sales@nordwind.example>",
    "Email [sales@nordwind.example](mailto:sales@nordwind.example)!",
    'Write to <a href="mailto:sales@nordwind.example">sales@nordwind.example</a>.',
    "Reach them at **sales@nordwind.example** (the sales team).",
    "SALES@Nordwind.Example is the address.",
    "the address is `sales@nordwind.example`;",
    "Email: mailto:sales@nordwind.example?subject=Discount",
    "(sales@nordwind.example)",
])
def test_the_whole_address_in_any_wrapping_is_given(text):
    assert says(text, EMAIL).ok


@pytest.mark.parametrize("text", [
    "Discounts are handled by our sales team at sales@nordwind.example.com.",
    "Please email sales@nordwind.example.org and the team will help.",
    "Write to presales@nordwind.example for discounts.",
    "Write to eu.sales@nordwind.example for discounts.",
    "Write to sales@nordwind.example-shop.de for discounts.",
    "The sales team (sales at nordwind) handles discounts.",
])
def test_a_longer_or_other_address_does_not_give_it(text):
    assert not says(text, EMAIL).ok


@pytest.mark.parametrize("text, term, given", [
    ("The first order to ship is O-201.", "O-201", True),
    ("Ship O-201/O-302 together.", "O-302", True),
    ("Ship O-201/O-302 together.", "O-201", True),
    ("Orders O-2011 and O-3020 are pending.", "O-201", False),
    ("Orders O-2011 and O-3020 are pending.", "O-302", False),
    ("Order NO-201 is a note, not an order.", "O-201", False),
    ("Order O-201-B is a back order.", "O-201", False),
    ("The database is db-7.internal:5432.", "db-7.internal", True),
    ("The database is db-17.internal.", "db-7.internal", False),
    ("The database is db-7.internal.corp.", "db-7.internal", False),
    ("Docs: https://x.test/docs.", "https://x.test/docs", True),
    ("Docs: https://x.test/docs/v2", "https://x.test/docs", False),
    ("Call +1 555 0100 today.", "+1 555 0100", True),
    ("Call +1 555 01009 today.", "+1 555 0100", False),
])
def test_an_identifier_is_matched_as_a_whole_token(text, term, given):
    assert mentions(text, term) is given


def test_words_and_quantities_are_not_identifiers():
    # Words keep their plain match ("Brightwater's" gives Brightwater); quantities go to the quantity reader.
    assert not is_identifier("Brightwater")
    assert says("Brightwater's offer stands.", "Brightwater").ok
    assert is_identifier("O-302") and is_identifier(EMAIL) and is_identifier("https://x.test")
    assert says("Usage rose 12 percent.", "12%").ok
