"""Unit tests of every deterministic check in engine.episodes.checks, and of the validation a task file gets."""

from __future__ import annotations

import json

import pytest
from pydantic import TypeAdapter, ValidationError

from engine.episodes.checks import (
    CHECK_NAMES,
    CheckSpec,
    Subject,
    quote,
    resolve,
    run_checks,
    same,
    same_unordered,
    schema_errors,
    sentences,
    unsure_of,
    words,
)

ADAPTER: TypeAdapter = TypeAdapter(CheckSpec)


def spec(**fields):
    return ADAPTER.validate_python(fields)


def run(reply: str, /, **fields) -> tuple[bool, str]:
    return spec(**fields).run(Subject(reply))


def ok(reply: str, /, **fields) -> bool:
    return run(reply, **fields)[0]


DOC = json.dumps({"a": {"b": [1, 2, 3]}, "items": [{"k": "x", "n": 1}, {"k": "y", "n": 2.5}], "flag": True})

# ---------------------------------------------------------------------------------------------- helpers


def test_every_check_name_is_in_the_union():
    for name in CHECK_NAMES:
        with pytest.raises(ValidationError) as err:
            ADAPTER.validate_python({"check": name, "no_such_field": 1})
        assert "no_such_field" in str(err.value)


def test_unknown_check_name_is_rejected():
    with pytest.raises(ValidationError) as err:
        spec(check="json_valid")
    assert "json_valid" in str(err.value)


def test_resolve_paths_and_wildcards():
    doc = json.loads(DOC)
    assert resolve(doc, "a.b.1") == [("a.b.1", 2)]
    assert [v for _, v in resolve(doc, "items.*.n")] == [1, 2.5]
    assert resolve(doc, "") == [("", doc)]
    with pytest.raises(Exception, match="no key a.c"):
        resolve(doc, "a.c")
    with pytest.raises(Exception, match="no element a.b.7"):
        resolve(doc, "a.b.7")
    with pytest.raises(Exception, match="not a list or object"):
        resolve(doc, "flag.x")


def test_same_is_type_strict():
    assert same(85, 85.0) and not same("85", 85) and not same(True, 1) and not same(0, False)
    assert same({"a": [1, "x"]}, {"a": [1.0, "x"]}) and not same({"a": 1}, {"a": 1, "b": 2})
    assert same(0.1 + 0.2, 0.3, tolerance=1e-9) and not same(0.1 + 0.2, 0.3)
    assert same("ABC", "abc", casefold=True) and not same("ABC", "abc")
    assert same(None, None) and not same(None, 0)
    assert same_unordered([1, 2, 2], [2, 1, 2]) and not same_unordered([1, 2, 2], [1, 1, 2])


def test_words_and_sentences():
    assert words("- one, two — three 4") == ["one,", "two", "three", "4"]
    assert len(sentences("Harbor Sync 3.2 is out. It works! Does it? Yes")) == 4
    assert len(sentences("1. Red\n2. Blue")) == 2
    assert len(sentences("Water boils at 100.5 degrees in some places.")) == 1
    assert sentences("") == []


def test_quote_escapes_control_characters_and_caps_length():
    q = quote("\x1b[2J" + "a" * 200)
    assert "\x1b" not in q and len(q) <= 80 and q.endswith("...")


# ---------------------------------------------------------------------------------------------- JSON


def test_json_only():
    assert ok('{"a": 1}', check="json_only", top="object")
    assert not ok("[1]", check="json_only", top="object")
    assert ok("[1]", check="json_only", top="array")
    assert run('Here you go: {"a": 1}', check="json_only")[1].startswith("not valid JSON")
    assert run('```json\n{"a": 1}\n```', check="json_only") == (False, "the JSON is wrapped in a code fence")
    assert ok('```json\n{"a": 1}\n```', check="json_only", fences_ok=True)
    assert run("   ", check="json_only") == (False, "the reply is empty")


def test_fenced_json_is_still_read_by_value_checks():
    assert ok('```json\n{"a": 1}\n```', check="value_equals", path="a", value=1)
    assert not ok('text {"a": 1}', check="value_equals", path="a", value=1)


def test_json_schema_subset():
    schema = {
        "type": "object",
        "additionalProperties": False,
        "required": ["n", "tags"],
        "properties": {
            "n": {"type": "integer", "minimum": 1},
            "s": {"type": "string", "pattern": "^x"},
            "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "maxItems": 2, "uniqueItems": True},
        },
    }
    assert ok('{"n": 3, "tags": ["a"]}', check="json_schema", schema=schema)
    assert ok('{"n": 3.0, "tags": []}', check="json_schema", schema=schema)
    good, note = run(
        '{"n": "3", "tags": ["c", "c", "a"], "z": 1, "s": "y"}', check="json_schema", schema=schema
    )
    assert not good and "n: expected integer, got string" in note and "more" in note
    errors = schema_errors({"n": 0, "tags": ["a", "a"], "z": 1}, schema)
    assert any("below 1" in e for e in errors) and any("repeats" in e for e in errors)
    assert any("unexpected key" in e for e in errors)
    assert schema_errors({}, schema) == ['(root): missing key "n"', '(root): missing key "tags"']


def test_json_schema_rejects_unknown_keywords_and_bad_patterns_at_load():
    with pytest.raises(ValidationError, match="unsupported keyword"):
        spec(check="json_schema", schema={"type": "object", "oneOf": []})
    with pytest.raises(ValidationError, match="not a valid regular expression"):
        spec(check="json_schema", schema={"properties": {"a": {"pattern": "("}}})
    with pytest.raises(ValidationError, match="unknown type"):
        spec(check="json_schema", schema={"type": "float"})


def test_value_equals():
    assert ok(DOC, check="value_equals", path="items.1.n", value=2.5)
    assert ok(DOC, check="value_equals", path="flag", value=True)
    assert not ok('{"n": "2.5"}', check="value_equals", path="n", value=2.5)
    assert ok('{"l": [3, 1, 2]}', check="value_equals", path="l", value=[1, 2, 3], unordered=True)
    assert not ok('{"l": [3, 1, 2]}', check="value_equals", path="l", value=[1, 2, 3])
    assert "no key" in run(DOC, check="value_equals", path="nope", value=1)[1]


def test_array_has():
    assert ok(DOC, check="array_has", path="items", item={"k": "y"})
    assert not ok(DOC, check="array_has", path="items", item={"k": "y", "n": 3})
    assert ok(DOC, check="array_has", path="items", item={"k": "z"}, present=False)
    assert not ok(DOC, check="array_has", path="items", item={"k": "x"}, present=False)
    assert ok(DOC, check="array_has", path="a.b", item=2)
    assert not ok(DOC, check="array_has", path="flag", item=2)


def test_value_in_and_type_is():
    assert ok(DOC, check="value_in", path="items.*.k", values=["x", "y"])
    assert not ok(DOC, check="value_in", path="items.*.k", values=["x"])
    assert ok(DOC, check="type_is", path="items.*.n", type="number")
    assert not ok(DOC, check="type_is", path="items.*.n", type="integer")
    assert not ok('{"n": "1"}', check="type_is", path="n", type="number")
    assert not ok('{"n": true}', check="type_is", path="n", type="integer")


def test_date_format_needs_a_real_date_written_as_the_format_writes_it():
    assert ok('{"d": "06.03.2025"}', check="date_format", path="d", format="%d.%m.%Y")
    assert not ok('{"d": "6.3.2025"}', check="date_format", path="d", format="%d.%m.%Y")
    assert not ok('{"d": "30.02.2025"}', check="date_format", path="d", format="%d.%m.%Y")
    assert not ok('{"d": "2025-03-06"}', check="date_format", path="d", format="%d.%m.%Y")
    assert not ok('{"d": 20250306}', check="date_format", path="d", format="%Y%m%d")
    with pytest.raises(ValidationError, match="strftime"):
        spec(check="date_format", path="d", format="DD.MM.YYYY")


def test_count_and_sorted_by():
    assert ok(DOC, check="count", path="a.b", min=3, max=3)
    assert not ok(DOC, check="count", path="a.b", max=2)
    with pytest.raises(ValidationError, match="give min, max or both"):
        spec(check="count", path="a")
    with pytest.raises(ValidationError, match="larger than max"):
        spec(check="count", min=3, max=1)
    assert ok(DOC, check="sorted_by", path="items", keys=["k"])
    assert ok(DOC, check="sorted_by", path="a.b")
    assert not ok(DOC, check="sorted_by", path="a.b", descending=True)
    assert "out of order" in run('[{"d": "b"}, {"d": "a"}]', check="sorted_by", keys=["d"])[1]
    assert "cannot order" in run('[{"d": "b"}, {"e": "a"}]', check="sorted_by", keys=["d"])[1]


# ---------------------------------------------------------------------------------------------- text


def test_word_and_sentence_counts_on_text_and_on_json_strings():
    assert ok("one two three", check="word_count", max=3) and not ok(
        "one two three four", check="word_count", max=3
    )
    assert ok("a b", check="word_count", min=2)
    assert ok(json.dumps({"t": ["a b", "c d e"]}), check="word_count", path="t.*", max=3)
    assert (
        "t.1: 3 words" in run(json.dumps({"t": ["a b", "c d e"]}), check="word_count", path="t.*", max=2)[1]
    )
    assert "not a string" in run('{"t": 5}', check="word_count", path="t", max=2)[1]
    assert ok("One. Two!", check="sentence_count", min=2, max=2)
    assert not ok("One. Two! Three?", check="sentence_count", max=2)


def test_list_items():
    text = "Tips:\n- one\n* two\n• three\n1. four\n2) five\n-nospace"
    assert ok(text, check="list_items", min=5, max=5)
    assert ok(text, check="list_items", style="bullet", min=3, max=3)
    assert ok(text, check="list_items", style="numbered", min=2, max=2)


@pytest.mark.parametrize("text", [
    "Garden note:\nI. Grit.\nII. Beer traps.\nIII. Morning watering.",
    "Garden note: tips.\na) Copper tape.\nb) Hand-pick at dusk.\nc) A pond for frogs.",
    "Garden note:\n🐌 Grit.\n🍺 Beer traps.\n🌅 Morning watering.",
    "Garden note:\nOne: grit.\nTwo: beer traps.\nThree: morning watering.",
])
def test_three_items_in_any_marker_style_are_three_items(text):
    assert ok(text, check="list_items", min=3, max=3)


@pytest.mark.parametrize("text", [
    "Garden note:\nI. Grit.\nII. Beer traps.\nIII. Morning watering.\nIV. Hedgehogs.",
    "Garden note: grit, beer traps and morning watering.",
    "Garden note:\na) Copper tape.\nc) A pond for frogs.",
])
def test_other_than_three_items_is_not_three(text):
    assert not ok(text, check="list_items", min=3, max=3)


def test_numbered_means_ordered_in_any_numbering_and_bullets_are_not_numbered():
    assert ok("I. Red\nII. Yellow\nIII. Blue", check="list_items", style="numbered", min=3, max=3)
    assert ok("a) Red\nb) Yellow\nc) Blue", check="list_items", style="numbered", min=3, max=3)
    assert not ok("- Red\n- Yellow\n- Blue", check="list_items", style="numbered", min=3)
    assert not ok("1. Red\n2. Yellow\n3. Blue", check="list_items", style="bullet", min=1)


def test_unmarked_lines_count_as_items_but_say_so():
    outcome = run("Tips:\nGrit.\nBeer traps.\nMornings.", check="list_items", min=3, max=3)
    assert outcome[0] and "unmarked lines" in unsure_of(outcome)
    assert unsure_of(run("Tips:\n- Grit.\n- Traps.\n- Mornings.", check="list_items", min=3)) is None


def test_banned_words_match_whole_words_and_hyphenated_compounds():
    assert not ok("Our gluten-free loaf", check="banned_words", words=["free"])
    assert not ok("FREE buns!", check="banned_words", words=["free"])
    assert ok("Feel at home; freedom; retry_free", check="banned_words", words=["free"])
    # "-ly" makes the adverb of the same word: "freely" is "free" in another form.
    assert not ok("Feel freely at home", check="banned_words", words=["free"])
    assert ok("FREE buns!", check="banned_words", words=["free"], case_sensitive=True)
    assert "gluten-free" in run("Our gluten-free loaf", check="banned_words", words=["free"])[1]


def test_word_hits():
    assert ok("el perro y la casa de que", check="word_hits", words=["el", "la", "y", "de", "que"], min=5)
    assert not ok("the dog and the house", check="word_hits", words=["el", "la"], min=1)
    assert not ok("the the", check="word_hits", words=["the"], max=1)


def test_contains_and_not_contains():
    assert ok("keep 1,500 and 40%", check="contains", all=["1,500", "40%"])
    assert run("keep 1.500", check="contains", all=["1,500", "40%"]) == (False, 'missing ["1,500", "40%"]')
    assert ok("HARBOR", check="contains", all=["harbor"], case_sensitive=False)
    assert not ok("1.500", check="not_contains", any=["1.500"])
    assert ok("Cake", check="not_contains", any=["cake"])
    assert not ok("Cake", check="not_contains", any=["cake"], case_sensitive=False)


def test_contains_reads_compatibility_forms_and_the_accepted_forms_of_an_answer():
    gas = {"check": "contains", "all": [["carbon dioxide", "CO2"]], "case_sensitive": False}
    # A subscript digit is the digit (NFKC), in either case; the name itself holds too.
    assert ok("PLANTS TAKE IN **CO₂** FROM THE AIR.", **gas)
    assert ok("Plants take in co2.", **gas) and ok("Plants take in Carbon Dioxide.", **gas)
    # Another gas, or carbon monoxide's formula, is none of the accepted forms.
    assert run("Plants take in oxygen.", **gas) == (False, 'missing ["carbon dioxide"]')
    assert not ok("PLANTS TAKE IN CO FROM THE AIR.", **gas)
    assert not ok("Plants take in carbon monoxide.", **gas)
    # Each entry must hold: a string entry beside a list of forms.
    assert not ok("CO₂", check="contains", all=[["carbon dioxide", "CO2"], "air"], case_sensitive=False)
    # Full-width characters read as their ASCII forms, case-sensitive too; a no-break space is a space.
    assert ok("Ｎｅｘｔ?", check="contains", all=["Next?"])
    assert not ok("40\u00a0%", check="not_contains", any=["40 %"])
    with pytest.raises(ValueError):
        run("x", check="contains", all=[[]])


@pytest.mark.parametrize(("reply", "held"), [
    ("At sea level, water boils at one hundred degrees Celsius.", True),
    ("WATER BOILS AT 100 DEGREES.", True),  # the unit the question named, left implicit
    ("It boils at 212 °F.", False),  # the same temperature, but not in the scale asked
    ("It boils at 100 °F.", False),  # the right number in a wrong unit
    ("It boils at 100 °C (100 °F).", False),  # contradicts itself
    ("It boils at 1000 °C.", False),  # not found inside another number
    ("It boils at ninety degrees Celsius.", False),
])
def test_quantity_compares_values_and_units_not_digits(reply, held):
    assert ok(reply, check="quantity", quantity="100 °C") is held


def test_quantity_converted_accepts_another_unit_of_the_same_measure_only():
    assert ok("It boils at 212 °F.", check="quantity", quantity="100 °C", converted=True)
    assert not ok("It boils at 100 °F.", check="quantity", quantity="100 °C", converted=True)
    assert not ok("It boils at 100 km/h.", check="quantity", quantity="100 °C", converted=True)


def test_quantity_must_be_one_readable_quantity():
    with pytest.raises(ValidationError, match="not one quantity"):
        spec(check="quantity", quantity="about a hundred or so degrees")


def test_regex():
    assert not ok("ten cm", check="regex", pattern=r"\d")
    assert ok("ten cm", check="regex", pattern=r"\d", expect="absent")
    assert run("10 cm", check="regex", pattern=r"\d", expect="absent", meaning="a digit") == (
        False,
        'a digit: found "1"',
    )
    assert ok("x\n- item", check="regex", pattern=r"^- ", flags=["multiline"])
    assert not ok("x\n- item", check="regex", pattern=r"^- ")
    with pytest.raises(ValidationError, match="not a valid regular expression"):
        spec(check="regex", pattern="[a-")


def test_starts_and_ends_with():
    assert ok("  Garden note: hi", check="starts_with", text="Garden note:")
    # Emphasis is rendered before a text check reads the reply: a bold or heading opening still opens it.
    assert ok("**Garden note:** hi", check="starts_with", text="Garden note:")
    assert ok("## Garden note: hi", check="starts_with", text="Garden note:")
    assert not ok("Note: **Garden note:** hi", check="starts_with", text="Garden note:")
    assert ok("Hi\n**#JuniperBakes**", check="ends_with", text="#JuniperBakes")
    assert ok("garden NOTE: hi", check="starts_with", text="Garden note:", case_sensitive=False)
    assert ok("Hi\nNext?\n", check="ends_with", text="Next?")
    assert not ok("Hi\nNext? 🙂", check="ends_with", text="Next?")


def test_a_sign_off_line_must_be_its_own_last_line():
    args = {"check": "ends_with", "text": "Next?", "line": True}
    assert ok("Mulch with straw.\nNext?", **args) and ok("Mulch with straw.\n\n**Next?**  \n", **args)
    assert not ok("Mulch with straw. Next?", **args)
    assert ok("Mulch with straw. Next?", check="ends_with", text="Next?")
    assert "the last line reads" in run("Mulch.\nNext? Or not.", **args)[1]


@pytest.mark.parametrize("reply", [
    "Garden note: Understood, I'll drop the “Next?” sign-off. Use straw.",
    'Garden note: no more "Next?" lines.\nMulch with straw.',
    "Mulch with straw.\nNext? Not any more.",
    "Next?\nMulch with straw.",
    "Mulch with straw; what comes next?!",
])
def test_a_cancelled_ending_may_be_named_but_not_ended_with(reply):
    assert ok(reply, check="ends_with", text="Next?", expect="absent")


@pytest.mark.parametrize("reply", [
    "Mulch with straw.\nNext?",
    "Mulch with straw.\n\n**Next?**  \n",
    "Mulch with straw.\n_Next?_",
    "Mulch with straw.\n### Next?",
    "Mulch with straw. Next?",
    "Mulch with straw.\nＮｅｘｔ?",
])
def test_a_reply_still_ending_with_the_cancelled_sign_off_fails(reply):
    outcome = run(reply, check="ends_with", text="Next?", expect="absent")
    assert not outcome[0] and "still ends with" in outcome[1]
    # As a line of its own only, the same-line ending is left to the sentence.
    assert ok("Mulch with straw. Next?", check="ends_with", text="Next?", line=True, expect="absent")


def test_a_rule_about_the_post_reads_the_post():
    post = "Rye is back at Juniper Bakery, warm every morning! #JuniperBakes"
    reply = "Here's the post for the market, written to your rules:\n\n" + post
    words = {"check": "word_count", "max": 10}
    assert not ok(reply, **words)
    outcome = run(reply, **words, of="post")
    assert outcome[0] and "set aside" in unsure_of(outcome)
    # The post itself over the limit still fails, whatever surrounds it.
    assert not ok("Here's the post:\n\n" + post + " Come early and bring friends!", **words, of="post")
    ending = {"check": "ends_with", "text": "#JuniperBakes", "of": "post"}
    assert ok(post + "\n\nLet me know if you'd like it shorter!", **ending)
    assert not ok(post + "\n\nSee you at the market!", **ending)
    assert not ok("Here's the post:\n\n#JuniperBakes Rye is back!", **ending)
    with pytest.raises(ValidationError, match="of: post"):
        spec(check="word_count", max=3, path="title", of="post")


@pytest.mark.parametrize("check", [{"check": "word_count", "max": 39}, {"check": "ends_with", "text": "#JuniperBakes"},
                                   {"check": "banned_words", "words": ["free"]}])
def test_a_rule_about_the_post_fails_where_the_reply_holds_none(check):
    # The reply only speaks to the user about the post it will write: every rule about the post fails,
    # unsure where a sentence the reading set aside could have been the post's own.
    promise = "Sure! I'll write the Monday post next. Shall I keep it playful? #JuniperBakes"
    outcome = run(promise, **check, of="post")
    assert not outcome[0] and outcome[1].startswith("no post in the reply") and unsure_of(outcome) is None
    guess = ("Bring-your-own-cup Mondays are a lovely way to cut waste. I'll put together a post about them. "
             "Would you like it playful? #JuniperBakes")
    outcome = run(guess, **check, of="post")
    assert not outcome[0] and "could be the post's own" in unsure_of(outcome)
    # An empty post (an empty fence behind a lead-in) is no post either.
    assert run("Here's the post:\n\n```\n```", **check, of="post")[1] == "no post in the reply"
    # The same reply read whole, by a rule about the reply, is checked as written.
    assert ok(promise, **check)


@pytest.mark.parametrize("offer", ["Would you like a shorter version for Twitter?",
                                   "Happy to adjust the wording if needed.", "Hope this helps!"])
def test_a_rule_about_the_post_is_checked_without_the_offer_after_it(offer):
    post = "Rye is back at Juniper Bakery, warm every morning! #JuniperBakes"
    ending = {"check": "ends_with", "text": "#JuniperBakes", "of": "post"}
    outcome = run(post + "\n\n" + offer, **ending)
    # Held once the offer is set aside, and said so: a judge may look.
    assert outcome[0] and "set aside" in unsure_of(outcome)
    # A post that breaks the rule still fails once the offer is cut: it is over the word limit, or the
    # hashtag is not its last text.
    assert not ok(post + " Come early and bring friends!\n\n" + offer, check="word_count", max=10, of="post")
    assert not ok("#JuniperBakes Rye is back at Juniper Bakery!\n\n" + offer, **ending)
    # An offer that holds the banned word still breaks a ban on the whole reply ("everything you write").
    assert not ok(post + "\n\nFeel free to ask if you'd like changes.", check="banned_words", words=["free"])


@pytest.mark.parametrize("reply,held", [
    ("> Rye is back at Juniper Bakery, warm every morning! #JuniperBakes\n\n(9 words.)", True),
    ("(9 words.)\n\n> Rye is back at Juniper Bakery, warm every morning! #JuniperBakes", True),
    ("> Rye is back at Juniper Bakery, warm every morning! #JuniperBakes\n>\n> (9 words.)", False),
    ("> Rye is back! #JuniperBakes Warm every morning at Juniper Bakery.\n\n(10 words.)", False),
    ("> End every post with #JuniperBakes\n\nRye is back at Juniper Bakery, warm every morning, so do come early "
     "and bring a friend along.", False),
])
def test_a_rule_about_the_post_reads_a_quoted_post_without_the_note_beside_it(reply, held):
    assert ok(reply, check="ends_with", text="#JuniperBakes", of="post") is held


def test_a_quoted_post_is_counted_without_the_note_beside_it():
    post = "> " + " ".join(["bake"] * 38) + " #JuniperBakes"
    assert ok(post + "\n\n(39 words, under the limit.)", check="word_count", max=39, of="post")
    assert not ok(post.replace("bake", "bake bake", 1) + "\n\n(40 words.)", check="word_count", max=39, of="post")


@pytest.mark.parametrize("reply,held,sure", [
    ("**Resumen del incidente**\n\nHarbor Sync 3.2 ya está disponible. Las subidas se reanudan.", False, True),
    ("Resumen semanal\n\nHarbor Sync 3.2 ya está disponible. Las subidas se reanudan.", False, False),
    ("**Harbor Sync 3.2 ya está disponible.** Las subidas se reanudan. El valor pasa de 200 a 750.", True, True),
    ("Harbor Sync 3.2 ya está disponible. Las subidas se reanudan.", True, True),
])
def test_headings_counts_a_title_line_in_any_markup(reply, held, sure):
    outcome = run(reply, check="headings", max=0)
    assert outcome[0] is held and (unsure_of(outcome) is None) is sure, outcome
    if not held:
        assert "heading lines" in outcome[1]


@pytest.mark.parametrize("reply,held,unsure", [
    ("<post>\nRye is back at Juniper Bakery, warm every morning! #JuniperBakes\n</post>", True, True),
    ("<post>Rye is back! #JuniperBakes Warm every morning at Juniper Bakery.</post>", False, False),
    # Text after the closing tag is outside the post: the check fails, unsure.
    ("<post>Rye is back at Juniper Bakery, warm every morning!</post>\n#JuniperBakes", False, True),
])
def test_a_rule_about_the_post_reads_a_post_wrapped_in_tags(reply, held, unsure):
    outcome = run(reply, check="ends_with", text="#JuniperBakes", of="post")
    assert outcome[0] is held and (unsure_of(outcome) is not None) is unsure, outcome


def test_letter_case():
    assert ok("MARS, 4TH PLANET.", check="letter_case", case="upper")
    assert not ok("Mars.", check="letter_case", case="upper")
    assert not ok("1234", check="letter_case", case="upper")
    assert ok("all lower 1", check="letter_case", case="lower")
    assert not ok("All", check="letter_case", case="lower")
    assert ok("Shakespeare", check="letter_case", case="mixed")
    assert not ok("SHAKESPEARE", check="letter_case", case="mixed")


def test_labelled_number():
    assert ok("work\nEach: 271.50", check="labelled_number", label="Each", value=271.5, decimals=2)
    assert not ok("Each: 271.5", check="labelled_number", label="Each", decimals=2)
    assert not ok("Each: 241.50", check="labelled_number", label="Each", value=271.5)
    assert not ok("Each: $271.50", check="labelled_number", label="Each")
    assert "the last line" in run("Each: 271.50\nBye!", check="labelled_number", label="Each")[1]
    assert ok("Each: 271.50\nBye!", check="labelled_number", label="Each", last_line=False, value=271.5)
    assert not ok("", check="labelled_number", label="Each")


# ---------------------------------------------------------------------------------------------- running


def test_run_checks_names_entries_uniquely_and_keeps_order():
    checks = [
        spec(check="json_only"),
        spec(check="value_equals", path="n", value=1),
        spec(check="value_equals", path="n", value=2),
        spec(check="word_count", id="short", max=9),
    ]
    out = run_checks('{"n": 1}', checks)
    assert list(out) == ["json_only", "value_equals:n", "value_equals:n#2", "short"]
    assert [r[0] for r in out.values()] == [True, True, False, True]


def test_checks_are_deterministic():
    checks = [
        spec(check="json_schema", schema={"type": "object", "required": ["a", "b"]}),
        spec(check="banned_words", words=["x", "y"]),
    ]
    assert run_checks('{"c": "x y"}', checks) == run_checks('{"c": "x y"}', checks)


# ---------------------------------------------------------------------------------------------- reading


def test_plain_text_removes_emphasis_but_keeps_code_lists_and_identifiers():
    from engine.episodes.checks import plain_text

    assert plain_text("**Each:** 210.00") == "Each: 210.00"
    assert plain_text("_Garden note:_ *mulch* ***both***") == "Garden note: mulch both"
    assert plain_text("`retry_backoff_ms` and retry_backoff_ms and `**x**`") == (
        "`retry_backoff_ms` and retry_backoff_ms and `**x**`")
    assert plain_text("- one *two*\n* three") == "- one two\n* three"
    assert plain_text("# Title\n#JuniperBakes") == "Title\n#JuniperBakes"


def test_text_checks_read_through_emphasis_and_regex_reads_markdown():
    assert ok("Split it.\n**Each: 241.50**", check="labelled_number", label="Each", value=241.5, decimals=2)
    assert ok("Plants take in carbon **dioxide**.", check="contains", all=["carbon dioxide"])
    assert not ok("Tomatoes.\n**Next?**", check="not_contains", any=["Next?"])
    assert not ok("## Summary\nTexto.", check="regex", pattern=r"^\s*#", flags=["multiline"], expect="absent")


@pytest.mark.parametrize("text,n", [
    ("Water boils at 100 °C (i.e. 212 °F) at sea level.", 1),
    ("Kale, e.g. the curly kind, and chard etc. cope with shade.", 1),
    ("Dr. Smith met Mr. Jones vs. Ms. Lee.", 1),
    ("J. K. Rowling wrote it.", 1),
    ("It costs approx. three euros.", 1),
    ("Harbor Sync 3.2 and v1.2.3 are out.", 1),
    ("We open at 10 a.m. on Saturday.", 1),
    ("We open at 10 a.m. Come early.", 2),
    ("Bring tools, gloves, etc. Then start.", 2),
    ("**One.** Two.", 2),
])
def test_sentence_splitting_knows_abbreviations_initials_and_decimals(text, n):
    assert len(sentences(text)) == n, sentences(text)


@pytest.mark.parametrize("text", [
    "#cheapflights to Rome", "Cheap-ish seats", "CHEAP seats", "cheaper seats", "#CheapFlights",
    "C-H-E-A-P seats", "c h e a p", "ch3ap seats", "сheap (a Cyrillic c)", "**cheap**", "cheaply made",
])
def test_banned_words_see_disguises(text):
    assert not ok(text, check="banned_words", words=["cheap"]), text


@pytest.mark.parametrize("text", [
    "cheapskate", "a cheque", "#CheapskateClub", "Feel at home; freedom; retry_free", "#FreedomFries",
])
def test_banned_words_leave_other_words_alone(text):
    assert ok(text, check="banned_words", words=["cheap", "free"]), text


@pytest.mark.parametrize("text", [
    "Mulch with straw.\nNext?", "Mulch.\n**NEXT?**", "Mulch.\nnext ?", "Mulch. Next? Tell me.",
])
def test_a_banned_phrase_is_found_in_any_case_spacing_and_emphasis(text):
    assert not ok(text, check="banned_words", words=["Next?"]), text


@pytest.mark.parametrize("text", ["Next spring, mulch again.", "What comes next is mulching.", "Nextdoor?"])
def test_a_banned_phrase_needs_its_punctuation_and_whole_words(text):
    assert ok(text, check="banned_words", words=["Next?"]), text


@pytest.mark.parametrize("text,banned", [
    ("Refills Free Of Charge!", "free of charge"), ("refills free-of-charge", "free of charge"),
    ("#FreeOfCharge", "free of charge"), ("a bun on the house", "on the house"),
    ("Buns: ON  THE  HOUSE", "on the house"), ("costs nothing at all", "cost nothing"),
])
def test_a_banned_phrase_is_found_by_its_words_in_any_form(text, banned):
    assert not ok(text, check="banned_words", words=[banned]), text


def test_a_banned_phrase_needs_all_its_words_in_order():
    assert ok("the house is free of dust", check="banned_words", words=["on the house"])
    assert ok("charge is free", check="banned_words", words=["free of charge"])


def test_short_banned_words_match_only_as_written():
    # "the" and "and" are inside many words of other languages (Spanish "andes", "perfiles" holds "files").
    assert ok("los perfiles y las andanzas", check="banned_words", words=["the", "and", "files"])
    assert not ok("los files", check="banned_words", words=["files"])
    assert not ok("The upgrade", check="banned_words", words=["the"])


# ---------------------------------------------------------------------------------------------- sequence

PLANETS = ["Mercury", "Venus", "Earth", "Mars", "Jupiter", "Saturn", "Uranus", "Neptune"]


@pytest.mark.parametrize("text", [
    "In order from the Sun, the planets are Mercury, Venus, Earth, Mars, Jupiter, Saturn, Uranus and Neptune.",
    "Starting from the Sun: Mercury, Venus, Earth, Mars, Jupiter, Saturn, Uranus, and Neptune.",
    "mercury → venus → earth → mars → jupiter → saturn → uranus → neptune",
    "1. Mercury\n2. Venus\n3. Earth\n4. Mars\n5. Jupiter\n6. Saturn\n7. Uranus\n8. Neptune",
    "Mercury, Venus, Earth (our home), Mars, Jupiter, Saturn, Uranus and Neptune, in that order.",
    "Mercury, Venus, Earth, Mars, Jupiter, Saturn, Uranus and Neptune. Pluto is now a dwarf planet.",
])
def test_the_eight_planets_in_order_hold(text):
    assert ok(text, check="sequence", items=PLANETS), run(text, check="sequence", items=PLANETS)


@pytest.mark.parametrize("text,why", [
    ("Mercury, Venus, Earth, Mars, Jupiter, Saturn, Uranus, Neptune and Pluto.", "Pluto"),
    ("1. Mercury\n2. Venus\n3. Earth\n4. Mars\n5. Jupiter\n6. Saturn\n7. Uranus\n8. Neptune\n9. Pluto", "Pluto"),
    ("Mercury, Venus, Earth, the Moon, Mars, Jupiter, Saturn, Uranus and Neptune.", "the Moon"),
    ("From the Sun: Mercury, Earth, Venus, Mars, Jupiter, Saturn, Uranus and Neptune.", "Earth"),
    ("Mercury, Venus, Earth, Mars, Jupiter, Saturn and Uranus.", "Neptune"),
])
def test_a_ninth_planet_a_missing_one_or_a_swap_fails(text, why):
    good, note = run(text, check="sequence", items=PLANETS)
    assert not good and why in note, note
    if why == "Pluto":
        assert ok(text, check="sequence", items=PLANETS, exclusive=False)


# ---------------------------------------------------------------------------------------------- fidelity


@pytest.mark.parametrize("text,good", [
    ("pasa de 200 a 750", True), ("sube de 200 ms a 750 ms", True), ("ahora 750 (antes 200)", True),
    ("200 → 750", True), ("goes from 200 to 750", True),
    ("un valor de 750 en lugar de 200", True), ("now 750 instead of 200", True),
    ("pasa de 750 a 200", False), ("un valor de 200 en lugar de 750", False), ("de 750 hasta 200", False),
    ("baja a 200 desde 750", False), ("es 750 y 200", False), ("de 200", False),
])
def test_change_keeps_its_direction(text, good):
    assert ok(text, check="change", before="200", after="750") is good


def test_figures_from_rejects_invented_and_altered_figures():
    source = "Version 3.2 cut failures by 40% for 1,500 teams."
    assert ok("La 3.2 redujo un 40% para 1,500 equipos.", check="figures_from", source=source)
    assert not ok("La 3.2 redujo un 60% los fallos.", check="figures_from", source=source)
    assert not ok("para 1.500 equipos", check="figures_from", source=source)


def test_source_overlap_finds_a_phrase_left_untranslated_but_not_the_names_to_copy():
    source = "Thanks to Ingrid Solberg, failed nightly jobs dropped. Use `--dry-run`."
    args = {"check": "source_overlap", "source": source, "keep": ["Ingrid Solberg"]}
    assert ok("Gracias a Ingrid Solberg, bajaron los fallos. Use `--dry-run`.", **args)
    assert "failed nightly" in run("Gracias a Ingrid Solberg, bajaron los failed nightly jobs.", **args)[1]


def test_items_match_needs_each_agreed_item_and_nothing_else():
    items = {"canary": "canary", "runbook": "runbook"}
    assert ok('{"a": ["Add a **canary** stage", "Write the runbook"]}', check="items_match", path="a", items=items)
    assert not ok('{"a": ["Add a canary stage", "Buy cake"]}', check="items_match", path="a", items=items)
    assert not ok('{"a": ["canary", "runbook", "Buy cake"]}', check="items_match", path="a", items=items)
    assert ok('{"a": ["canary", "runbook", "cake"]}', check="items_match", path="a", items=items, exclusive=False)
    with pytest.raises(ValidationError, match="items.x"):
        spec(check="items_match", path="a", items={"x": "("})


def test_items_match_reads_concepts_in_any_order_and_form():
    items = {"canary": [["canary"]], "runbook": [["roll back", "revert"], ["runbook", "procedure", "steps"]]}
    for wording in ("Create runbook for rolling back config", "write up rollback steps", "Run book: revert config"):
        reply = json.dumps({"a": ["Add a canary stage", wording]})
        assert run(reply, check="items_match", path="a", items=items) == (True, "")


def test_items_match_concepts_half_named_fail_unsure_and_another_concept_fails_sure():
    items = {"canary": [["canary"]], "runbook": [["roll back", "revert"], ["runbook", "procedure", "steps"]]}
    half = run(json.dumps({"a": ["Add a canary stage", "Roll back config v88"]}),
               check="items_match", path="a", items=items)
    assert not half[0] and "runbook" in unsure_of(half)
    other = run(json.dumps({"a": ["Add a canary stage", "Alert on gateway errors"]}),
                check="items_match", path="a", items=items)
    assert not other[0] and unsure_of(other) is None
    with pytest.raises(ValidationError):
        spec(check="items_match", path="a", items={"x": [[]]})


@pytest.mark.parametrize("reply", [
    "Garden note:\nI. Copper rings.\nII. Beer traps.\nIII. Water in the morning.",
    "Garden note:\n① Copper rings.\n② Beer traps.\n③ Water in the morning.",
    "Space them ten cm apart, about ２ spans.",  # full-width digit
    "Use compost to a depth of 5 cm.",
    "Mulch about a metre².",  # superscript
    "Plant them ½ a hand apart.",
    "Chapter Ⅳ of the manual.",  # a Roman numeral character
])
def test_no_numerals_fails_on_every_numeral(reply):
    assert not ok(reply, check="no_numerals")


@pytest.mark.parametrize("reply", [
    "I think three tips will do. I water in the morning.",
    "Garden note: tomatoes like Vitamin C rich compost? No, but they like potash.",
    "Garden note:\n- Copper rings.\n- Beer traps.\n- Water in the morning.",
    "Garden note:\nA. Copper rings.\nB. Beer traps.\nC. Water in the morning.",
    "Plant them fifteen centimetres apart; 三 is a word in Chinese.",
])
def test_no_numerals_lets_words_letters_and_pronouns_through(reply):
    assert ok(reply, check="no_numerals")


FAILED_JOBS = [["fallo", "fallido", "error"], ["trabajo", "tarea", "ejecución"]]


@pytest.mark.parametrize("reply", [
    "El valor pasa de 200 a 750, lo que redujo un 40% los trabajos nocturnos fallidos en nuestras pruebas.",
    "Con lo que los trabajos nocturnos fallidos bajaron un 40% en nuestras pruebas.",
    "Eso bajó un 40% los fallos de las tareas nocturnas.",
    "Un cambio que recortó en un 40% las ejecuciones nocturnas fallidas.",
])
def test_figure_of_holds_when_the_figure_is_said_of_the_subject(reply):
    assert run(reply, check="figure_of", figure="40%", language="es", subject=FAILED_JOBS) == (True, "")


def test_figure_of_fails_a_figure_said_of_something_else():
    wrong = run("El valor pasa de 200 a 750, lo que aceleró un 40% las subidas nocturnas, y los equipos actualizan.",
                check="figure_of", figure="40%", language="es", subject=FAILED_JOBS)
    assert not wrong[0] and "subidas" in wrong[1] and unsure_of(wrong) is None
    half = run("Lo que redujo un 40% los trabajos nocturnos.",
               check="figure_of", figure="40%", language="es", subject=FAILED_JOBS)
    assert not half[0] and "fallo" in unsure_of(half)
    assert not ok("Lo que redujo un 60% los trabajos fallidos.",
                  check="figure_of", figure="40%", language="es", subject=FAILED_JOBS)


def test_figure_of_in_the_sentence_but_not_the_clause_holds_unsure():
    outcome = run("Los trabajos fallidos, según nuestras pruebas, bajaron un 40%.",
                  check="figure_of", figure="40%", language="es", subject=FAILED_JOBS)
    assert outcome[0] and "sentence" in unsure_of(outcome)
    with pytest.raises(ValidationError):
        spec(check="figure_of", figure="forty-ish things", subject=FAILED_JOBS)


# ---------------------------------------------------------------------------------------------- any_of

# A permitted form ("a numbered list is fine instead of a sentence") and the form the standing rule asks for.
EITHER_FORM = {"check": "any_of", "options": [
    {"check": "list_items", "style": "numbered", "min": 3, "max": 3},
    {"check": "sentence_count", "min": 1, "max": 1},
]}


@pytest.mark.parametrize("reply", [
    "1. Red\n2. Yellow\n3. Blue",
    "The three primary colours of paint are **red**, **yellow** and **blue**.",
])
def test_any_of_accepts_each_permitted_form(reply):
    assert ok(reply, **EITHER_FORM)


@pytest.mark.parametrize("reply", [
    # Neither form: two sentences, no list.
    "The primary colours are red, yellow and blue. Mixing them gives the rest.",
    # A bulleted list is neither the numbered list permitted nor one sentence.
    "- Red\n- Yellow\n- Blue",
    # A numbered list of four.
    "1. Red\n2. Yellow\n3. Blue\n4. Green",
])
def test_any_of_fails_a_reply_in_neither_form(reply):
    held, note = run(reply, **EITHER_FORM)
    assert not held and note.startswith("none of the permitted forms") and "sentences" in note


def test_any_of_keeps_the_unsure_of_the_option_that_held():
    outcome = spec(check="any_of", options=[
        {"check": "word_count", "max": 3},
        {"check": "ends_with", "text": "#JuniperBakes", "of": "post"},
    ]).run(Subject("Here's the post:\nRye is back at the bakery! #JuniperBakes\n\nI can make it shorter."))
    assert outcome[0] and unsure_of(outcome)


def test_any_of_needs_two_options_each_a_known_check():
    with pytest.raises(ValidationError):
        spec(check="any_of", options=[{"check": "word_count", "max": 3}])
    with pytest.raises(ValidationError):
        spec(check="any_of", options=[{"check": "word_count", "max": 3}, {"check": "no_such_check"}])


# A string to find that holds a Markdown mark is a rule about the characters written (the backticks a note
# asked to keep): it is matched against the text as written, typographic variants rendered, no HTML read as
# Markdown and no emphasis removed.
CODE_KEPT = {"check": "contains", "all": ["`--dry-run`", "`retry_backoff_ms`"]}


@pytest.mark.parametrize("reply", [
    "La bandera `--dry-run` es nueva y `retry_backoff_ms` pasa a 750.",
    "**Nuevo:** `--dry-run`; <b>importante</b>: `retry_backoff_ms` sube a 750.",
    "<p>Use `--dry-run` first.</p><p>Then raise `retry_backoff_ms`.</p>",
    "***`--dry-run`*** and _`retry_backoff_ms`_ are both there.",
    "`--dry-run`\u00a0shows the changes; `retry_backoff_ms`\u200b is 750.",
])
def test_contains_a_marked_string_holds_where_the_marks_are_written(reply):
    assert ok(reply, **CODE_KEPT)


@pytest.mark.parametrize("reply", [
    "El indicador <code>--dry-run</code> y <code>retry_backoff_ms</code> cambian.",
    "Pulse <kbd>--dry-run</kbd>; el valor `retry_backoff_ms` sube.",
    "Try <samp>--dry-run</samp> and <tt>retry_backoff_ms</tt>.",
    "La opción --dry-run y retry_backoff_ms, sin comillas.",
    "La opción '--dry-run' y \"retry_backoff_ms\" entre comillas.",
    "<pre>--dry-run</pre> `retry_backoff_ms`",
])
def test_contains_a_marked_string_fails_where_html_or_nothing_stands_for_the_marks(reply):
    assert not ok(reply, **CODE_KEPT)


def test_a_marked_string_is_read_as_written_for_not_contains_too_and_unmarked_strings_still_render():
    assert not ok("Run `--force` now.", check="not_contains", any=["`--force`"])
    assert ok("Run <code>--force</code> now.", check="not_contains", any=["`--force`"])
    assert ok("**Note:** kept", check="contains", all=["Note: kept"])  # unmarked: emphasis read through
    assert ok("**Note:** kept", check="contains", all=["**Note:**"])
    assert not ok("<b>Note:</b> kept", check="contains", all=["**Note:**"])
    # A string without marks reads the rendered text: the HTML's words and the emphasised name are found.
    assert ok("Harbor <b>Sync</b> 3.2 by Ingrid **Solberg**", check="contains", all=["Harbor Sync", "Ingrid Solberg"])
