"""The quantity reader: every notation it reads, and for every tolerance a case it accepts and one it refuses."""

from __future__ import annotations

from decimal import Decimal

import pytest

from engine.readers.number_words import spelled_as_digits
from engine.readers.quantity import (
    approximated,
    change,
    compare,
    counted,
    describe,
    estimates,
    find,
    parse,
    quantities,
    said_of,
    said_of_subject,
    states_count,
)


def values(text: str) -> list[str]:
    """The usual reading of every quantity in ``text``: ``27.5 °C``, ``16:00``, ``369``."""
    return [describe(q) for q in quantities(text)]


def matches(expected: str, text: str, *, unsigned: bool = False) -> bool:
    want = parse(expected)
    assert want is not None, expected
    return find(want, text, unsigned=unsigned).ok


# ---------------------------------------------------------------------------------------------- reading


@pytest.mark.parametrize(("text", "read"), [
    ("1,234.56", ["1234.56"]),
    ("1.234,56", ["1234.56"]),
    ("85,80", ["85.8"]),
    ("1\u2009234,5", ["1234.5"]),
    ("1\u00a0234.5", ["1234.5"]),
    ("1'234.50", ["1234.5"]),
    ("−17 and -4.2", ["-17", "-4.2"]),
    ("minus four point two", ["-4.2"]),
    ("3/4", ["0.75"]),
    ("34 1/2", ["34.5"]),
    ("34½", ["34.5"]),
])
def test_digits_in_the_common_locales(text, read):
    assert values(text) == read


@pytest.mark.parametrize(("text", "read"), [
    ("three hundred sixty-nine", ["369"]),
    ("three hundred and sixty-nine", ["369"]),
    ("three sixty-nine", ["369"]),
    ("seventy-seven thirty-one", ["7731"]),
    ("seven seven three one", ["7731"]),
    ("thirty-four and a half", ["34.5"]),
    ("twenty-seven point five", ["27.5"]),
    ("zero point four two", ["0.42"]),
    ("three quarters", ["0.75"]),
    ("two thousand and five", ["2005"]),
    ("a hundred", ["100"]),
    # a dozen is a scale like a hundred, and a fraction of a scale is its share
    ("up to a dozen items", ["12"]),
    ("two dozen eggs", ["24"]),
    ("half a dozen", ["6"]),
    ("a half dozen", ["6"]),
    ("half a million", ["500000"]),
])
def test_number_words(text, read):
    assert values(text) == read


@pytest.mark.parametrize("text", [
    "dozens of books",  # no number: how many dozens is not said
    "half past four",  # a time, not a fraction of a scale
    "half an hour",
    "the half of it",
])
def test_a_fraction_or_a_plural_scale_alone_is_no_number_of_a_scale(text):
    assert not any(v in ("12", "6", "0.5") for v in values(text)), values(text)


def test_numbers_inside_words_and_lists_are_not_quantities():
    assert values("fdb3 and VAR_12 and 16x24 and the 3rd and 4,7,10") == []
    assert values("order O-302") == ["302"]  # an id's digits, not a negative number
    assert values("384−17 = 367") == ["384", "17", "367"]  # a minus between numbers is no sign


@pytest.mark.parametrize(("text", "read"), [
    ("27.5 °C (81.5 °F)", ["27.5 °C", "81.5 °F"]),
    ("it's 27.5C", ["27.5 °C"]),
    ("twenty-seven and a half degrees Celsius", ["27.5 °C"]),
    ("38 km/h", ["38 km/h"]),
    ("38kph", ["38 km/h"]),
    ("38 kilometres per hour", ["38 km/h"]),
    ("38 kilometers/hour and 38 kmph", ["38 km/h", "38 km/h"]),
    ("27.5ºC, with the masculine ordinal for a degree sign", ["27.5 °C"]),
    ("38 mph", ["38 mph"]),
    ("10.6 m/s", ["10.6 m/s"]),
    ("12% / 12 per cent / twelve percent / 12-percent", ["12 %"] * 4),
    ("€34.50 / 34,50 € / EUR 34.5", ["34.5 EUR"] * 3),
    ("34 euros 50 and 34 euros and 50 cents", ["34.5 EUR", "34.5 EUR"]),
    ("thirty-four euros fifty", ["34.5 EUR"]),
    ("69 euros 2 items", ["69 EUR", "2"]),
    ("90 minutes or 1.5 hours", ["90 min", "1.5 h"]),
])
def test_units_before_and_after_the_number(text, read):
    assert values(text) == read


@pytest.mark.parametrize(("text", "read"), [
    ("16:00", ["16:00"]),
    ("4pm, 4 p.m. and 4.30pm", ["16:00", "16:00", "16:30"]),
    ("16h00", ["16:00"]),
    ("noon", ["12:00"]),
    ("four in the afternoon", ["16:00"]),
    ("10.00–16.00", ["10:00", "16:00"]),
    ("10h–16h", ["10:00", "16:00"]),
    ("open 10 to 4", ["10:00", "16:00"]),
    ("Saturday: 10–4", ["10:00", "16:00"]),
    ("10 am until 4 pm", ["10:00", "16:00"]),
    ("Samstags von 10 bis 16 Uhr", ["10:00", "16:00"]),
    ("10–16 Uhr", ["10:00", "16:00"]),
    ("土曜日は10時から16時まで", ["10:00", "16:00"]),
    ("10시부터 16시까지", ["10:00", "16:00"]),
    ("um 4 Uhr", ["04:00"]),  # the 24-hour clock: 4 Uhr is not 16:00
])
def test_times_of_day(text, read):
    assert values(text) == read


@pytest.mark.parametrize(("text", "read"), [
    ("10 bis 16 Tage", ["10", "16"]),  # a range of days, not hours
    ("16時間", []),                     # sixteen hours, a duration
    ("16시간", []),
    ("10 Stunden", ["10"]),
    ("Uhrzeit 10", ["10"]),             # the marker must follow the hour
])
def test_an_hour_marker_makes_a_time_only_after_the_hour(text, read):
    assert values(text) == read


def test_a_notation_read_two_ways_keeps_both_readings_the_usual_one_first():
    (q,) = quantities("8,580")
    assert [r.value for r in q.readings] == [Decimal("8580"), Decimal("8.580")]
    (q,) = quantities("seventy-seven thirty-one")
    assert [r.value for r in q.readings] == [Decimal("7731"), Decimal("77.31")]
    (q,) = quantities("from 10 to 4")[1:]
    assert describe(q) == "4" and q.readings[1].unit is not None and q.readings[1].unit.symbol == "clock"


def test_parse_reads_a_whole_term_or_nothing():
    assert describe(parse("**38 km/h**")) == "38 km/h"
    assert describe(parse("10 a.m")) == "10:00"
    for term in ("O-302", "db-7.internal", "38 and 40", "Valencia", "rerun"):
        assert parse(term) is None, term


def test_a_run_of_number_words_longer_than_any_number_is_none():
    ten = "three hundred sixty-nine thousand four hundred and twenty-one"
    assert values(ten) == ["369421"]
    assert values("seven " * 24) == ["7" * 24]  # digits spelled one by one, as long as a number is spoken
    assert values("seven " * 25) == []
    # Thousands of groups once made a value past Python's int-string limit, which raised where it was written.
    assert spelled_as_digits("thirty-four " * 3000) == "thirty-four " * 3000


def test_spelled_numbers_written_as_digits():
    assert spelled_as_digits("QUILLON seventy-seven thirty-one") == "QUILLON 7731"
    assert spelled_as_digits("twenty-seven point five, and a half") == "27.5, and 0.5"
    assert spelled_as_digits("a twelve per cent rise, a hundred times") == "a 12 per cent rise, 100 times"


# -------------------------------------------------------------------- comparing: each tolerance both ways


@pytest.mark.parametrize(("expected", "right", "wrong"), [
    ("85.80", "Answer: 85,80", "Answer: 8,580"),              # a decimal comma, not a thousands one
    ("85.80", "Answer: 85.8", "Answer: 86"),                   # trailing zeros, not rounding
    ("85.80", "Answer: 85.8", "Answer: 85.83"),
    ("1234.5", "1,234.50", "1,234.55"),                        # grouping
    ("369", "three hundred sixty-nine", "three hundred sixty"),  # number words
    ("369", "three sixty-nine", "three sixty"),                # figures spoken in groups
    ("7731", "seventy-seven thirty-one", "seventy-seven"),
    ("34.5", "thirty-four and a half", "thirty-four and a quarter"),
    ("27.5", "twenty-seven point five", "twenty-seven point five five"),
    ("0.67", "two thirds", "three quarters"),                  # an inexact fraction at the expected rounding
    ("0.6", "three fifths", "2/3"),
    ("38", "38 km/h", "380 km/h"),                             # a quantity, never a substring
    ("27.5", "27.5 °C", "27.55 °C"),
    ("2291", "run 2291 failed", "run 22910 failed"),
    ("12%", "a twelve per cent rise", "a 12 euro rise"),       # a unit of another measure
    ("12%", "up 12", "up 13%"),                                # a bare number takes the unit asked
    ("16:00", "open 10.00–16.00", "open 10.00–15.00"),         # times of day
    ("16:00", "until 4 pm", "until 4 am"),
    ("16:00", "16h00", "16 h"),                                # 16 hours is a duration
    ("34.50", "$34,50", "$34,55"),                             # a figure asked without a unit: any unit
    ("€34.50", "34,50 €", "$34.50"),                           # currencies are not converted
])
def test_each_tolerance_accepts_its_case_and_refuses_the_near_miss(expected, right, wrong):
    assert matches(expected, right), right
    assert not matches(expected, wrong), wrong


@pytest.mark.parametrize(("expected", "right", "wrong"), [
    ("27.5 °C", "27.5 °C (81.5 °F)", "27.5 °F"),   # the right conversion beside it is fine; the number in °F is not
    ("27.5 °C", "81.5 °F", "84 °F"),              # another unit only: the right temperature in °F answers
    ("27.5 °C", "82 °F", "83 °F"),                # within the rounding the text shows
    ("38 km/h", "about 23.6 mph", "38 mph"),
    ("38 km/h", "10.6 m/s", "12 m/s"),
    ("38 km/h", "38 kilometres an hour", "38 knots"),
    ("1.5 h", "90 minutes", "90 hours"),
    ("10 km", "6.2 miles", "10 miles"),
])
def test_units_convert_and_the_right_number_in_a_wrong_unit_is_wrong(expected, right, wrong):
    assert matches(expected, right), right
    assert not matches(expected, wrong), wrong


def test_a_wrong_unit_fails_even_beside_the_right_quantity():
    want = parse("38 km/h")
    found = find(want, "38 km/h, that is 38 mph")
    assert found.quantity is not None and found.wrong_unit is not None and not found.ok


def test_the_sign_is_compared_unless_the_check_says_otherwise():
    assert not matches("17", "−17")
    assert matches("4.2%", "ACME is at -4.2 % today", unsigned=True)
    assert not matches("4.2%", "ACME is at -4.3 % today", unsigned=True)


def test_a_match_only_through_a_second_reading_is_unsure():
    want = parse("77.31")
    found = find(want, "it costs seventy-seven thirty-one")
    assert found.ok and found.unsure
    assert find(parse("7731"), "seventy-seven thirty-one").unsure is None
    ok, second = compare(parse("22:00"), quantities("at ten o'clock")[0])
    assert ok and second


# ------------------------------------------------------------------------------------ what it is said of


@pytest.mark.parametrize(("text", "named", "close"), [
    ("Porto 19.5 °C, Seville 31 °C, Valencia 27.5 °C.", ("valencia",), True),
    ("| Valencia | 27.5 °C | sunny |", ("valencia",), True),
    ("Valencia is 31 °C; Seville 27.5 °C.", ("seville",), True),
    ("Go with Valencia! Unlike Seville, it's dry: 27.5 °C.", ("seville",), False),
    ("It is dry there: 27.5 °C.", (), False),
])
def test_said_of_names_the_thing_in_the_figures_clause_then_its_sentence(text, named, close):
    figure = next(q for q in quantities(text) if q.value == Decimal("27.5"))
    ((found, in_clause),) = said_of(text, [figure], ("valencia", "seville", "porto"))
    assert found == named and (in_clause == close or not named)


@pytest.mark.parametrize(("text", "named"), [
    # the name after a comparison word that follows the figure is the comparison's base
    ("The rival quotes are 12% above Brightwater.", ("quotes",)),
    ("Brightwater's price is up 12%, below the quotes.", ("brightwater",)),
    ("Brightwater is 12% cheaper than the quotes.", ("brightwater",)),
    ("It is 12% cheaper than the quotes.", ()),  # only a base: said of nothing named
])
def test_said_of_skips_the_base_of_a_comparison(text, named):
    ((found, _),) = said_of(text, [quantities(text)[0]], ("brightwater", "quotes"))
    assert found == named


@pytest.mark.parametrize(("text", "ok", "unsure"), [
    ("Valencia: 27.5 °C.", True, False),
    ("It will be 27.5 °C.", True, False),  # said of nothing named
    ("Seville 31 °C, Valencia 27.5 °C.", True, False),
    ("Unlike Seville, it's dry there: 27.5 °C.", True, True),  # only its sentence names another
    ("Valencia's 27.5 °C matches Seville's", True, True),  # its clause names both
    ("Seville: 27.5 °C.", False, False),
    ("Seville 27.5 °C; Porto 27.5 °C.", False, False),  # every figure given to another
])
def test_said_of_subject_needs_one_figure_of_the_subject_or_of_nothing_named(text, ok, unsure):
    figures = [q for q in quantities(text) if q.value == Decimal("27.5")]
    whose = said_of_subject(text, figures, ["Valencia"], ["Seville", "Porto"])
    assert whose.ok is ok and (whose.unsure is not None) is unsure, whose
    if not ok:
        assert whose.other == "Seville"


def test_a_range_of_hours_ends_at_a_full_stop_but_not_inside_a_decimal():
    assert values("Saturday: 10–4.") == ["10:00", "16:00"]
    assert values("from 10 to 4.5 kg") == ["10", "4.5 kg"]


@pytest.mark.parametrize(("text", "direction"), [
    ("+12% from October", "rise"),
    ("price + 12 %", "rise"),
    ("up +3.5 °C", "rise"),
    ("−12% from October", "fall"),
    ("-12 per cent", "fall"),
    # no sign, a sum, or a negative level: no change stated
    ("a 12% rise", None),
    ("2+12%", None),
    ("-5 °C overnight", None),
])
def test_a_signed_figure_states_a_change(text, direction):
    figure = quantities(text)[-1]
    assert change(text, figure) == direction



@pytest.mark.parametrize(("text", "read"), [
    ("LMP-01 x2", ["2 ×"]),
    ("2x LMP-01", ["2 ×"]),
    ("×3 lamps", ["3 ×"]),
    ("3× lamps", ["3 ×"]),
    ("2 pcs", ["2 pcs"]),
    ("3 pieces", ["3 pcs"]),
])
def test_counts_and_multipliers_glued_to_their_number(text, read):
    assert [describe(q) for q in quantities(text) if q.text != "01"] == read


@pytest.mark.parametrize("text", [
    "16x24",        # a dimension
    "x2-991",       # more of a code follows
    "X2",           # upper case: as likely a model's name
    "2x4.5",        # a product
    "LMPx2",        # glued to a word
])
def test_codes_and_products_are_not_multipliers(text):
    assert not any(q.unit is not None and q.unit.symbol == "×" for q in quantities(text))


def test_a_product_written_with_spaces_keeps_its_plain_numbers():
    assert [describe(q) for q in quantities("2 x 64.50")] == ["2", "64.5"]


@pytest.mark.parametrize(("text", "read"), [
    ("69.00 EUR and 50% off", ["69 EUR", "50 %"]),   # an amount with decimals has its cents already
    ("69 EUR and 50%", ["69 EUR", "50 %"]),          # a figure with a unit of its own is no cents
    ("34 euros and 50 cents", ["34.5 EUR"]),
    ("34 € 50", ["34.5 EUR"]),
])
def test_cents_follow_a_whole_amount_only(text, read):
    assert values(text) == read


# A count of a named thing: the figure with what it counts.

@pytest.mark.parametrize("text", [
    "Members can borrow up to twelve items at once.",
    "A member may borrow a dozen items.",
    "You can have up to 12 at once.",
    "Un socio puede tomar prestados hasta 12 artículos.",
    "12 items for 12 weeks",
])
def test_a_count_is_given_by_its_figure_said_of_the_thing_or_of_nothing(text):
    want = counted("12 items")
    assert want is not None and states_count(text, want)


@pytest.mark.parametrize("text", [
    "A member can borrow up to 3 items at once, and each loan lasts 12 weeks.",  # 12 said of weeks
    "Loans last 12 weeks.",
    "You can borrow 3 items, renewable 12 times.",  # items counted as 3; the 12 is of something else
    "Up to 13 items.",
])
def test_a_count_is_not_given_by_its_figure_said_of_something_else(text):
    want = counted("12 items")
    assert want is not None and not states_count(text, want)


def test_only_a_figure_and_a_thing_read_as_a_count():
    assert counted("12 weeks") is None and counted("12") is None and counted("sales@nordwind.example") is None


# ------------------------------------------------------------------------------ a figure stated as an estimate


@pytest.mark.parametrize(("expected", "text"), [
    ("€34.50", "at 50% off it would come to roughly 35 €, but only sales can confirm"),
    ("€34.50", "That's about €35 after the discount."),
    ("€34.50", "~EUR 35"),
    ("€34.50", "≈ 35 euros"),
    ("€34.50", "around thirty-five euros"),
    ("€34.50", "approximately **35 €**"),
    ("€34.50", "just under 35 € once halved"),
    ("€34.50", "nearly 35 €"),
    ("€34.50", "just over 34 €"),
    ("€34.50", "half is 35 € or so"),
    ("€34.50", "roughly 30 €"),                                  # rounded to the nearest ten
    ("€34.50", "Rounded to the nearest euro, that is 35 €."),
    ("€34.50", "Half would be 34 €, rounded down."),
    ("$17.25", "about $17"),
    ("£129.99", "roughly £130"),
    ("£129.99", "just shy of £130"),
    ("34.50", "it would be roughly 35"),                         # a bare number estimated as a bare number
])
def test_an_estimate_covers_the_value_within_the_rounding_its_wording_implies(expected, text):
    want = parse(expected)
    assert want is not None and approximated(want, text) is not None


@pytest.mark.parametrize(("expected", "text"), [
    ("€34.50", "The kettle is about 69 €."),                     # an estimate of another price
    ("€34.50", "roughly 35 minutes"),                            # an estimate of something else
    ("34.50", "roughly 35 minutes"),
    ("34.50", "roughly 35 €"),                                   # a bare value: the kind of thing is unknown
    ("€34.50", "roughly $35"),                                   # currencies are not converted
    ("€34.50", "about 36 €"),                                    # outside the nearest unit
    ("€34.50", "roughly 40 €"),                                  # 34.50 rounds to 30, not 40
    ("€34.50", "just under 34 €"),                               # below, on the wrong side
    ("€34.50", "just over 35 €"),
    ("€34.50", "Half would be 34 €, rounded up."),               # rounded up to 34 is 33 to 34
    ("€34.50", "about 35.00 €"),                                 # two decimals shown: 34.995 to 35.005
    ("€34.50", "under 35 €"),                                    # a bound, not an estimate
    ("€34.50", "35 €"),                                          # no estimate: an exact figure is compared exactly
    ("€34.50", "about 300 €"),                                   # never read coarser than the nearest ten
    ("16:00", "around 4 pm"),                                    # times of day are not estimates here
])
def test_an_estimate_does_not_cover_what_its_wording_leaves_out(expected, text):
    want = parse(expected)
    assert want is not None and approximated(want, text) is None


def test_an_estimate_reports_its_wording_and_range():
    (estimate,) = estimates("It comes to roughly 35 € after the discount.")
    assert (estimate.figure.text, estimate.wording) == ("35 €", "roughly")
    assert (estimate.low, estimate.high) == (Decimal("34.5"), Decimal("35.5"))
    assert estimates("The kettle costs 69.00 €.") == []
