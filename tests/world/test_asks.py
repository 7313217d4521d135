"""What a message asks its reader to do: an action in any of its shapes, not negated."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from engine.world.asks import Ask, asks_for

RERUN = Ask(verbs=["run", "start", "kick off", "trigger"], again=True)

ASKED = [
    "Invoice run 2291 failed at 03:10 and needs a rerun.",
    "Invoice run 2291 failed at 03:10 and needs to be re-run.",
    "Hi Nils, invoice run 2291 failed at 03:10. Please run it again when you can.",
    "Could you kick it off again?",
    "Could you kick off a rerun?",
    "The run has to be restarted this morning.",
    "Please retry the run.",
    "Please trigger 2291 once more.",
]

NOT_ASKED = [
    "Heads-up: invoice run 2291 failed at 03:10. No action needed from you for now.",
    "No need to run it again, it recovered on its own.",
    "Please do not rerun it before finance has checked.",
    "Invoice run 2291 failed again at 03:10.",  # a report of failing again, not a request
    "Invoice run 2291 failed. Please run the checks.",  # the action, but not again
    "Please have a look at run 2291.",
]


@pytest.mark.parametrize("text", ASKED)
def test_a_request_in_any_words_is_read(text: str) -> None:
    assert asks_for(text, RERUN)


@pytest.mark.parametrize("text", NOT_ASKED)
def test_a_negated_missing_or_unrepeated_action_is_not_a_request(text: str) -> None:
    assert not asks_for(text, RERUN)


def test_an_action_without_again_takes_any_form() -> None:
    escalate = Ask(verbs=["escalate"])
    assert asks_for("Could you escalate this to finance?", escalate)
    assert asks_for("This needs escalating.", escalate)
    assert not asks_for("Don't escalate this yet.", escalate)


def test_an_ask_is_verbs_in_letters() -> None:
    with pytest.raises(ValidationError):
        Ask(verbs=["re-run!"])
    with pytest.raises(ValidationError):
        Ask(verbs=[])
    assert Ask(verbs=["Kick  Off"]).verbs == ["kick off"]
