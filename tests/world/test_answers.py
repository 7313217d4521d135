"""Answer checks compare quantities: what a figure measures comes from the seed world, whose it is from its
record. Each rule has a text it accepts and a near miss it refuses."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from engine.readers.units import UNITS
from engine.world.answers import answer_failures, says
from engine.world.figures import figure_of
from engine.world.spec import AnswerChecks
from engine.world.state import Message, WorldState
from engine.world.tools import TOOLS

WEATHER: dict[str, Any] = {
    "weather": {
        "Oslo": {"temp_c": 9.0, "condition": "overcast with strong gusts", "wind_kph": 38},
        "Bergen": {"temp_c": 8.0, "condition": "storm", "wind_kph": 71},
        "Valencia": {"temp_c": 27.5, "condition": "sunny", "wind_kph": 14},
        "Seville": {"temp_c": 31.0, "condition": "rain showers", "wind_kph": 9},
    },
    "quotes": {"ACME": {"price": 41.8, "change_pct": -4.2}, "BOLT": {"price": 12.1, "change_pct": 1.3}},
}


@pytest.fixture
def seed() -> WorldState:
    return WorldState.model_validate(WEATHER)


def test_the_seed_tells_what_a_figure_measures_and_whose_it_is(seed):
    wind = figure_of(seed, Decimal(38), unsigned=True)
    assert wind is not None and wind.unit is not None and wind.unit.symbol == "km/h"
    assert wind.subject == "Oslo" and set(wind.others) == {"Bergen", "Valencia", "Seville"}
    change = figure_of(seed, Decimal("4.2"), unsigned=True)
    assert change is not None and change.unit is not None and change.unit.symbol == "%" and change.subject == "ACME"
    assert figure_of(seed, Decimal("4.2"), unsigned=False) is None      # the seed holds -4.2
    assert figure_of(seed, Decimal("41.8"), unsigned=True) is None      # a price declares no unit


def test_a_figure_two_fields_hold_in_different_units_has_no_unit():
    state = WorldState.model_validate({"weather": {"Oslo": {"temp_c": 14, "condition": "dry", "wind_kph": 14}}})
    assert figure_of(state, Decimal(14), unsigned=True) is None


def test_every_declared_unit_is_one_the_reader_knows():
    # A field declaring a unit the quantity reader does not know would fail every check that names it.
    for model in (WorldState, *{type(v) for v in WorldState.model_validate(WEATHER).weather.values()}):
        for info in model.model_fields.values():
            extra = info.json_schema_extra
            if isinstance(extra, dict) and "unit" in extra:
                assert extra["unit"] in UNITS


def test_declaring_units_changes_no_tool_schema():
    # The unit is grading metadata: it must not reach what the model is sent.
    schemas = str([tool.openai_schema() for tool in TOOLS.values()])
    assert "temp_c" not in schemas and "'unit'" not in schemas


@pytest.mark.parametrize(("term", "right", "wrong"), [
    ("38", "The wind in Oslo is currently **38 km/h**.", "The current wind speed in Oslo is 38 mph."),
    ("38", "Oslo: 38 km/h (about 10.6 m/s).", "Oslo: 380 km/h."),
    ("38", "Oslo wind: about 23.6 mph, below the threshold.", "Oslo wind: about 38.6 mph."),
    ("38", "Oslo wind: 38, under the 40 km/h threshold.", "Oslo 30 km/h; Bergen 38 km/h."),
    ("38", "The wind in Oslo is thirty-eight kilometres per hour.", "The wind in Oslo is thirty-eight knots."),
    ("27.5", "**Valencia** it is: 27.5 °C and sunny", "Valencia is sunny and 31 °C. Seville 27.5 °C has rain."),
    ("27.5", "Valencia, 27.5°C (81.5°F), sunny.", "Valencia, 27.5°F."),
    ("27.5", "Valencia, 81.5 °F and sunny.", "Valencia, 85 °F and sunny."),
    ("27.5", "| Valencia | 27.5 °C | sunny |", "| Valencia | 27.55 °C | sunny |"),
    ("4.2", "ACME is down 4.2% today.", "ACME is down 42% today."),
    ("4.2", "ACME change: -4.2 %", "ACME change: -4.2 USD"),
    ("4.2", "ACME dropped four point two per cent.", "ACME dropped four per cent."),
])
def test_a_figure_term_is_a_quantity(seed, term, right, wrong):
    assert says(right, term, seed).ok, right
    assert not says(wrong, term, seed).ok, wrong


def test_why_a_figure_was_not_found_is_said(seed):
    assert "38 mph" in says("Oslo: 38 mph.", "38", seed).why
    assert "Bergen" in says("Oslo 30 km/h; Bergen 38 km/h.", "38", seed).why


def test_a_figure_only_the_sentence_gives_to_another_record_passes_unsure(seed):
    said = says("Go with Valencia! Unlike Seville, it's dry: 27.5 °C.", "27.5", seed)
    assert said.ok and said.unsure and "Seville" in said.unsure


def test_without_a_seed_a_figure_is_still_a_quantity_and_text_is_still_text():
    assert says("Invoice run 2291 failed", "2291").ok
    assert not says("Invoice run 22910 failed", "2291").ok
    assert says("a twelve percent rise", "12%").ok and not says("a 12 euro rise", "12%").ok
    assert says("Rejected **O-302**.", "O-302").ok and not says("Rejected O-301.", "O-302").ok


def test_answer_failures_count_checks_and_carry_unsure_notes(seed):
    checks = AnswerChecks(must_mention=["Valencia", "27.5"], must_not_mention=["Seville"],
                          messages=[{"to": "ops@x.example", "must_mention": ["38"]}])
    sent = [Message(to="ops@x.example", subject="wind", body="Oslo is at 38 mph")]
    result = answer_failures(checks, "Go with Valencia! Unlike Porto, it's dry: 27.5 °C.", sent, seed)
    assert result.total == 4
    assert len(result.failures) == 1 and "38 mph" in result.failures[0]
    assert result.unsure == []  # Porto is no record of this seed, so nothing contradicts Valencia
    result = answer_failures(checks, "Valencia: 27.5 °C", [Message(to="ops@x.example", subject="", body="38 km/h")],
                             seed)
    assert result.failures == []


def test_a_figure_check_stays_fast_on_a_long_answer(seed):
    import time

    text = "Valencia 27.5 °C, Seville 31 °C; " * 5000  # about 165,000 characters, 5,000 matching figures
    started = time.monotonic()
    assert says(text, "27.5", seed).ok
    assert time.monotonic() - started < 20


def test_only_a_pass_carries_the_unsure_note_into_the_grade():
    from engine.world.grading import grade_episode

    gold = [{"tool": "get_weather", "args": {"city": "Valencia"}}]
    spec = {"tools": ["get_weather"], "checks": {"must_mention": ["Valencia", "27.5"]}}
    calls = [{"id": "c1", "name": "get_weather", "arguments": '{"city": "Valencia"}'}]
    unsure_text = "Go with Valencia! Unlike Seville, it's dry: 27.5 °C."
    passed = grade_episode(WEATHER, gold, calls, spec, final_text=unsure_text)
    assert passed.passed and passed.unsure and "Seville" in passed.unsure
    failed = grade_episode(WEATHER, gold, [], spec, final_text=unsure_text)
    assert not failed.passed and failed.unsure is None
