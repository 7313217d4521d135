"""Where a text names an object of the world: by its identifier, by an alias, or only by description."""

from __future__ import annotations

from engine.world.objects import index_world
from engine.world.state import WorldState
from engine.world.tools import TOOLS

TARGETS = {t.name: (t.effect.on, t.effect.object) for t in TOOLS.values() if t.effect}

WORLD = WorldState.model_validate({
    "orders": {"O-7": {"customer": "Ana", "item": "chair", "unit_price": 5},
               "O-72": {"customer": "Sara Lind", "item": "hiking boots", "unit_price": 5}},
    "kv": {"values": {"offsite.room": "hall_a", "payments.config_version": 7}},
    "files": {"teams/billing.md": "| Nils Eriksen | on-call | n.eriksen@fleet.example |\n"},
    "contacts": {"c1": {"name": "Priya Nair", "email": "priya.nair@fund.example", "team": "risk (lead)"}},
})


def _named(text: str, *kinds: str, calls=()) -> list[tuple[str, list[str], bool]]:
    index = index_world(WORLD, calls, TARGETS)
    low = text.lower()
    return [(low[m.start:m.end], sorted(m.objects), m.exact) for m in index.mentions(low, kinds)]


def test_an_identifier_stands_alone() -> None:
    assert _named("Approved O-72.", "order") == [("o-72", ["O-72"], True)]
    assert _named("Approved O-7, not O-72.", "order") == [("o-7", ["O-7"], True), ("o-72", ["O-72"], True)]
    assert _named("Approved O-720.", "order") == []
    assert _named("I set offsite.room to hall_b.", "key") == [("offsite.room", ["offsite.room"], True)]


def test_aliases_name_an_object_loosely() -> None:
    assert _named("switched the room", "key") == [("room", ["offsite.room"], False)]
    assert _named("bumped config version", "key") == [("config version", ["payments.config_version"], False)]
    # a person by a name the address book or a roster line gives, or by the name part of the address
    assert _named("emailed Priya", "person") == [("priya", ["priya.nair@fund.example"], False)]
    assert _named("emailed Nils Eriksen", "person") == [("nils eriksen", ["n.eriksen@fleet.example"], False)]
    assert _named("wrote to eriksen", "person") == [("eriksen", ["n.eriksen@fleet.example"], False)]
    # only the kinds asked for
    assert _named("emailed Priya about O-72", "person") == [("priya", ["priya.nair@fund.example"], False)]


def test_an_object_a_call_named_is_known_too() -> None:
    sent = [("send_message", {"to": "Risk@Fund.example"})]
    assert _named("emailed risk@fund.example", "person", calls=sent) == [
        ("risk@fund.example", ["risk@fund.example"], True)]
    assert _named("emailed risk@fund.example", "person") == []


def test_a_description_resolves_nothing_but_points_at_candidates() -> None:
    index = index_world(WORLD, (), TARGETS)
    assert index.mentions("bumped the version", ["key"]) == []
    assert index.described("bumped the version", ["key"]) == {("key", "payments.config_version")}
    assert index.described("emailed the risk lead", ["person"]) == {("person", "priya.nair@fund.example")}
    assert index.described("refunded the boots", ["order"]) == {("order", "O-72")}
    assert index.described("emailed the team", ["person"]) == set()  # words every object uses point nowhere
