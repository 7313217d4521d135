"""The agent reader: which "by" phrases name someone other than the writer, in varied wordings, beside the
"by" phrases of amount, means, time and manner that leave the act with the writer."""

from __future__ import annotations

import pytest

from engine.readers.agent import by_phrase


@pytest.mark.parametrize(("after_verb", "words"), [
    (" to 7 by Jonas, not touched again", "Jonas"),  # after the complement
    (" by Jonas", "Jonas"),  # right after the verb
    (" earlier to 8 by Priya Nair.", "Priya Nair"),
    (" to true by the on-call yesterday", "the on-call yesterday"),
    (" by our sales team", "our sales team"),
    (" to 9 by someone else before I looked", "someone else before I looked"),
    (" by SRE last night", "SRE last night"),
    (" by one of the admins", "one of the admins"),
    (" by another agent (run 41)", "another agent"),
])
def test_a_by_phrase_naming_a_person_or_team_is_another_agent(after_verb: str, words: str) -> None:
    found = by_phrase(after_verb)
    assert found is not None and found.words == words and not found.bare


@pytest.mark.parametrize("after_verb", [
    " by 5",  # an amount
    " by one",
    " to 8 by 10%",
    " by two steps",
    " it to 7 by editing the file",  # a means
    " to 8 by calling kv_set",
    " to 8 by kv_set",
    " by payments.sync",
    " to 8 by Friday",  # a time
    " by Mon.",
    " by 17:00",
    " by 5pm today",
    " by the end of the week",
    " by the time I checked",
    " by me",  # the writer
    " by us, as asked",
    " to 8, approved by Jonas",  # a "by" of another clause
    " to 8 (requested by Jonas)",
    " to 8",  # none at all
])
def test_a_by_phrase_of_amount_means_time_or_the_writer_names_no_other_agent(after_verb: str) -> None:
    assert by_phrase(after_verb) is None, by_phrase(after_verb)


@pytest.mark.parametrize("after_verb", [" by hand", " to 8 by mistake", " by email to Nils", " by finance"])
def test_a_bare_lower_case_noun_is_left_to_the_caller(after_verb: str) -> None:
    found = by_phrase(after_verb)
    assert found is not None and found.bare
