"""The concept reader: concepts named in any order and any form of their words, and nothing else."""

from __future__ import annotations

import pytest

from engine.readers.concepts import find_term, match, same_word, tokens

RUNBOOK = [["roll back", "revert"], ["runbook", "procedure", "steps", "document"]]


@pytest.mark.parametrize("text", [
    "Write a runbook for config rollback",
    "Create runbook for rolling back config",
    "write up rollback steps",
    "Document the roll-back procedure",
    "Write a run book for config rollbacks",
    "Documentation for reverting config pushes",
    "Rolled-back configs need a procedure",
])
def test_every_wording_of_both_concepts_matches(text):
    assert match(text, RUNBOOK).full


@pytest.mark.parametrize("text", [
    "Roll back config v88",  # the rollback itself, not a runbook for it
    "Write a runbook for scaling the gateway",  # a runbook about something else
])
def test_one_concept_of_two_is_partial_not_a_match(text):
    found = match(text, RUNBOOK)
    assert not found.full and found.partial


@pytest.mark.parametrize("text", ["Add a canary stage for config pushes", "Dana buys the cake", "Rolling stones"])
def test_a_different_concept_does_not_match(text):
    found = match(text, RUNBOOK)
    assert not found.full and not found.partial


@pytest.mark.parametrize(("token", "word"), [
    ("rolling", "roll"), ("rolled", "roll"), ("running", "run"), ("writing", "write"), ("rated", "rate"),
    ("copies", "copy"), ("documentation", "document"), ("steps", "step"), ("alerts", "alert"),
])
def test_english_forms(token, word):
    assert same_word(token, word)


@pytest.mark.parametrize(("token", "word"), [
    ("rollercoaster", "roll"), ("runway", "run"), ("documentary", "document"), ("cupboard", "cup"), ("mug", "cup"),
    ("stepping", "stop"),
])
def test_other_words_are_not_forms(token, word):
    assert not same_word(token, word)


@pytest.mark.parametrize(("token", "word"), [
    ("fallidas", "fallido"), ("fallos", "fallo"), ("trabajos", "trabajo"), ("tareas", "tarea"),
    ("ejecuciones", "ejecucion"), ("errores", "error"),
])
def test_spanish_forms(token, word):
    assert same_word(token, word, "es")


def test_spanish_forms_are_not_english_ones():
    assert not same_word("subidas", "fallido", "es")
    assert not same_word("trabajando", "trabajo", "es")


def test_tokens_fold_case_and_accents_and_split_hyphens():
    assert tokens("Ejecución roll-back_x") == ["ejecucion", "roll", "back", "x"]


def test_compound_found_written_apart_or_together():
    assert find_term(tokens("a run book"), "runbook") is not None
    assert find_term(tokens("the rollbacks"), "roll back") is not None
    assert find_term(tokens("roll the dice back"), "roll back") is None


def test_a_long_hostile_text_is_read_in_bounded_time():
    import time

    started = time.perf_counter()
    for text in ("roll " * 50_000, "a" * 250_000, "run-" * 60_000):
        match(text, RUNBOOK)
    assert time.perf_counter() - started < 10.0
