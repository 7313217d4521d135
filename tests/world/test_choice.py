"""The pick a final message commits to, read through the stance reader: each rule has a reply it accepts and
a near miss it refuses."""

from __future__ import annotations

from typing import Any

import pytest

from engine.world.answers import answer_failures
from engine.world.choice import Pick, Picked, candidates, read_pick
from engine.world.episode import WorldEpisode
from engine.world.errors import WorldSpecError
from engine.world.spec import AnswerChecks
from engine.world.state import WorldState

WEATHER: dict[str, Any] = {"weather": {
    "Porto": {"temp_c": 19.5, "condition": "cloudy", "wind_kph": 22},
    "Seville": {"temp_c": 31.0, "condition": "rain showers", "wind_kph": 9},
    "Valencia": {"temp_c": 27.5, "condition": "sunny", "wind_kph": 14},
    "Madrid": {"temp_c": 29.0, "condition": "sunny", "wind_kph": 6},
}}
PICK = Pick(answer="Valencia")


@pytest.fixture
def seed() -> WorldState:
    return WorldState.model_validate(WEATHER)


def test_the_candidates_are_the_records_beside_the_answer_unless_declared(seed):
    assert candidates(PICK, seed) == ["Valencia", "Porto", "Seville", "Madrid"]
    assert candidates(Pick(answer="Valencia", among=["Porto"]), seed) == ["Valencia", "Porto"]


@pytest.mark.parametrize("text", [
    "Valencia: 27.5 °C and sunny. Seville is warmer but has rain showers.",
    "**Valencia** it is: 27.5 °C ☀️\n\nSeville is hotter (31 °C) but has rain showers, and Porto is cooler.",
    "Seville is hotter but has rain showers, so I'd go with Valencia (27.5 °C).",
    "Seville is the warmest but it's raining. So, I'd recommend Valencia at 27.5 °C.",
    "Seville is the warmest at 31°C but it has rain showers, so it's out.\n\nThe final answer is: Valencia, 27.5°C.",
    "Not Seville (rain). Valencia, 27.5 °C.",
    "Seville, 31 °C. Actually, wait: it's raining there, so the answer is Valencia at 27.5 °C.",
])
def test_a_reply_that_commits_to_the_answer_passes(seed, text):
    picked = read_pick(text, PICK, seed)
    assert picked.ok, picked.why
    assert picked.unsure is None


@pytest.mark.parametrize(("text", "why"), [
    # names the right city, recommends another
    ("The warmest place without rain is **Madrid** at 29 °C and sunny, so I'd hold the lunch there. Among the "
     "four you listed, Valencia (27.5 °C, sunny) would be the runner-up.", "picks 'Madrid'"),
    # a retraction to another city
    ("Valencia, 27.5 °C and sunny.\n\nActually, wait — Seville is warmer at 31 °C and the showers are probably "
     "brief, so Seville is the better pick. Final choice: Seville, 31 °C.", "settles on 'Seville'"),
    # a hedge between two candidates
    ("Valencia at 27.5 °C, or maybe Seville if the showers pass.", "without choosing"),
    ("Valencia at 27.5 °C. Or possibly Seville, if the showers clear.", "hedges"),
    # the pick taken back without another
    ("Valencia, 27.5 °C. Actually, that's wrong.", "takes the pick"),
    ("Seville is the warmest at 31 °C, so Seville it is.", "picks 'Seville'"),
])
def test_a_reply_that_does_not_commit_to_the_answer_fails(seed, text, why):
    picked = read_pick(text, PICK, seed)
    assert not picked.ok
    assert why in picked.why


def test_a_second_candidate_offered_later_without_a_revision_is_a_pass_marked_unsure(seed):
    picked = read_pick("Seville is the warmest at 31 °C but it's raining. The warmest dry city is Valencia at "
                       "27.5 °C.", PICK, seed)
    assert picked.ok
    assert picked.unsure is not None and "later without a revision" in picked.unsure
    switched = read_pick("Valencia at 27.5 °C. Seville is warmer but it's raining, so Seville is out.", PICK, seed)
    assert switched.ok and switched.unsure is not None and "concludes on 'Seville'" in switched.unsure


def test_the_pick_is_one_answer_check_beside_the_mentions(seed):
    checks = AnswerChecks(must_mention=["Valencia"], pick=PICK)
    named_not_picked = answer_failures(checks, "Madrid is best at 29 °C. Among yours, Valencia would be second.",
                                       [], seed)
    assert named_not_picked.total == 2
    assert named_not_picked.failures == [
        "the final answer does not pick 'Valencia': picks 'Madrid', not 'Valencia': "
        "'madrid is best at 29 °c.'"]
    assert answer_failures(checks, "Go with Valencia: 27.5 °C and sunny.", [], seed).failures == []


def test_a_pick_with_nothing_to_pick_among_is_a_task_error():
    with pytest.raises(WorldSpecError, match="nothing to be picked among"):
        WorldEpisode.model_validate({"world": {"weather": {"Oslo": {"temp_c": 9.0, "condition": "rain",
                                                                    "wind_kph": 3}}},
                                     "tools": ["get_weather"], "checks": {"pick": {"answer": "Oslo"}}}).check()


def test_a_candidate_named_later_only_in_second_place_leaves_the_first_pick_standing(seed):
    picked = read_pick("The warmest option is **Seville** at **31 °C**. There are some rain showers, but they are "
                       "usually brief, so it should still work. Valencia (27.5 °C, sunny) would be the backup.",
                       PICK, seed)
    assert not picked.ok and "only in second place" in picked.why
    runner_up = read_pick("Seville, 31 °C. Valencia is the runner-up.", PICK, seed)
    assert not runner_up.ok


@pytest.mark.parametrize("text", [
    # the answer after the working, with a second place given to another candidate
    "Seville is the warmest but it's raining. The warmest dry city is Valencia at 27.5 °C; Porto is the backup.",
    # "alternative" after the first candidate was ruled out is the answer, not a second place
    "Seville is the warmest but it has rain showers. The best alternative is Valencia at 27.5 °C.",
])
def test_a_later_answer_that_gives_second_place_to_another_still_passes(seed, text):
    picked = read_pick(text, PICK, seed)
    assert picked.ok, picked.why


@pytest.mark.parametrize(("text", "why"), [
    # An opening phrase puts the candidates in asides; the conclusion "so I recommend Seville" is the pick,
    # and the expected city named after it only in second place does not replace it (batch b6).
    ("Based on the current weather, the warmest city is Seville at 31.0°C, so I recommend Seville for the "
     "outdoor team lunch. Valencia (27.5°C) would be a good second choice.", "only in second place"),
    ("Based on the current weather, the warmest city is Seville at 31.0°C, so I recommend Seville.",
     "picks 'Seville'"),
    # A second place with no first pick stated answers nothing.
    ("Valencia (27.5 °C) would be a good second choice.", "only in second place"),
])
def test_a_pick_concluded_after_an_opening_phrase_is_read_and_a_second_place_is_no_pick(seed, text, why):
    picked = read_pick(text, PICK, seed)
    assert not picked.ok and why in picked.why, picked


@pytest.mark.parametrize("text", [
    "Based on the current weather, Seville is warmest but rainy, so I recommend Valencia (27.5 °C).",
    "Having checked all four, Seville has rain showers, so Valencia at 27.5 °C is the pick.",
    # A sentence that gives another city second place is passed over; the pick comes after it.
    "Seville would be the backup if the showers clear. The warmest dry city is Valencia at 27.5 °C.",
])
def test_a_pick_concluded_after_an_opening_phrase_passes(seed, text):
    picked = read_pick(text, PICK, seed)
    assert picked.ok, picked.why


# A list or table of what was looked up, one candidate a line, is a report, not a pick: the pick is read from
# the prose around it (before, the list's first line, Porto, was taken as the pick and a later Valencia row
# as the answer, so a recommendation of Seville passed).
LISTED = "Here is the current weather:\n- Porto: 19.5°C, cloudy\n- Seville: 31.0°C, rain showers\n" \
         "- Valencia: 27.5°C, sunny\n- Madrid: 29.0°C, sunny\n\n"
TABLE = "| City | Temp |\n|---|---|\n| Porto | 19,5 °C |\n| Seville | 31,0 °C |\n| Valencia | 27,5 °C |\n\n"


@pytest.mark.parametrize("text,good", [
    (LISTED + "The warmest city is **Seville at 31.0°C**, so I recommend Seville for the team lunch.", False),
    (TABLE + "Go with Seville, 31 °C.", False),
    (LISTED + "Seville is warmest but rainy, so I recommend Valencia at 27.5 °C.", True),
    (TABLE + "**Pick: Valencia — 27,5 °C and sunny.**", True),
])
def test_a_list_of_the_lookups_is_no_pick(seed, text, good):
    picked = read_pick(text, PICK, seed)
    assert picked.ok is good, picked
    assert "Porto" not in picked.why


def test_a_list_is_still_read_when_no_prose_picks(seed):
    # A ranking with nothing around it is read line by line, as before the rule: its first line is the pick,
    # and a later line with the answer is read as working then answer, marked unsure.
    assert read_pick("1. Valencia: 27.5 °C\n2. Madrid: 29 °C", PICK, seed) == Picked(True)
    later = read_pick("1. Madrid: 29 °C\n2. Valencia: 27.5 °C", PICK, seed)
    assert later.ok and "picks 'Madrid' first" in (later.unsure or "")


# A correction that rules the first pick out and names other candidates in its working settles on what it
# concludes with, not on the last candidate its first sentence names.
@pytest.mark.parametrize("text,good", [
    ("Seville is the warmest at 31 °C, so Seville. Actually, wait — Seville has rain showers, so it's out, and "
     "Porto's clouds are no rain. The warmest dry city is Valencia.\n\nFinal choice: Valencia, 27.5 °C.", True),
    ("Seville is the warmest at 31 °C, so Seville. Actually, wait — Seville has rain showers, so it's out, and "
     "Valencia is sunny at 27.5 °C.\n\nFinal choice: Madrid, 29 °C.", False),
    # A correction with no later conclusion keeps the candidate it names.
    ("Seville is the warmest at 31 °C. Actually, wait: the pick is Madrid.", False),
])
def test_a_correction_settles_on_what_it_concludes_with(seed, text, good):
    picked = read_pick(text, PICK, seed)
    assert picked.ok is good, picked
