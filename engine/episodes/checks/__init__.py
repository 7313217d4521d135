"""Deterministic instruction checks shared by the format and multi_turn_if modules.

A task file names its checks as data (``{check: value_equals, path: total, value: 4040}``); this module
turns each entry into a small pydantic object with a ``run`` method. Validation happens when the bank
loads, so a misspelt check name, a bad regular expression or an unknown JSON-schema keyword is an error
that names the task file and the field, never a surprise in the middle of a run.

Every check reads only the text of one reply (``Subject``). Notes describing a failure quote the model's
output through ``json.dumps`` with ASCII escaping and a length cap: model output is hostile, and a note ends
up in result files and terminals.

Paths into parsed JSON are dotted: ``lines.0.qty``; ``*`` stands for every element of a list or every value
of an object (``lines.*.qty``); an empty path is the whole document.

One family of checks a file: ``base`` (the reply, the outcome, the bases), ``values`` (JSON values and
paths), ``json_checks`` and ``schema`` (the JSON), ``form`` (the text's form), ``mentions`` (what it
mentions), ``quantities`` (the numbers it states), ``lists`` (the items it lists), ``registry`` (the union
of every check and running them). This package exports them all.
"""

from __future__ import annotations

from engine.episodes.checks.base import (
    OK,
    Bounded,
    CheckBase,
    JsonCheck,
    Outcome,
    Subject,
    TextCheck,
    quote,
    unsure_of,
    word_pattern,
)
from engine.episodes.checks.form import (
    EndsWith,
    Headings,
    LetterCase,
    Regex,
    SentenceCount,
    StartsWith,
    WordCount,
)
from engine.episodes.checks.json_checks import (
    ArrayHas,
    Count,
    DateFormat,
    JsonOnly,
    SortedBy,
    TypeIs,
    ValueEquals,
    ValueIn,
)
from engine.episodes.checks.lists import InOrder, ItemsMatch, ListItems
from engine.episodes.checks.mentions import BannedWords, Contains, NotContains, SourceOverlap, WordHits
from engine.episodes.checks.quantities import (
    Change,
    FigureOf,
    FiguresFrom,
    LabelledNumber,
    NoNumerals,
    StatesQuantity,
)
from engine.episodes.checks.registry import CHECK_NAMES, AnyOf, CheckSpec, run_checks, unique_labels
from engine.episodes.checks.schema import JsonSchema, schema_errors
from engine.episodes.checks.values import JSON_TYPES, PathError, has_type, resolve, same, same_unordered

# The structure reader's names that callers read through this package.
from engine.episodes.structure import plain_text, sentences, words

__all__ = [
    "AnyOf",
    "ArrayHas",
    "BannedWords",
    "Bounded",
    "CHECK_NAMES",
    "Change",
    "CheckBase",
    "CheckSpec",
    "Contains",
    "Count",
    "DateFormat",
    "EndsWith",
    "FigureOf",
    "FiguresFrom",
    "Headings",
    "InOrder",
    "ItemsMatch",
    "JSON_TYPES",
    "JsonCheck",
    "JsonOnly",
    "JsonSchema",
    "LabelledNumber",
    "LetterCase",
    "ListItems",
    "NoNumerals",
    "NotContains",
    "OK",
    "Outcome",
    "PathError",
    "Regex",
    "SentenceCount",
    "SortedBy",
    "SourceOverlap",
    "StartsWith",
    "StatesQuantity",
    "Subject",
    "TextCheck",
    "TypeIs",
    "ValueEquals",
    "ValueIn",
    "WordCount",
    "WordHits",
    "has_type",
    "plain_text",
    "quote",
    "resolve",
    "run_checks",
    "same",
    "same_unordered",
    "schema_errors",
    "sentences",
    "unique_labels",
    "unsure_of",
    "word_pattern",
    "words",
]
