"""Gold and near-miss conversations of the multi_turn_if tasks, replayed through the scripted server.

A near miss is the gold conversation with one or two replies swapped for the reply a careless model gives,
and the test names the (turn, rule) entries of the breakdown that must fail because of it.
"""

from __future__ import annotations

import pytest

import tests.helpers.replay as replay_helper
from engine.bank.load import load_task
from tests.helpers.replay import ROOT, replay
from tests.helpers.scripted_server import Action


@pytest.fixture(autouse=True, scope="module")
def only_this_module(tmp_path_factory):
    """Replay against a bank of this module's real task files only, so work in progress on another
    module's tasks in a shared tree cannot break these tests (and the bank loads faster)."""
    root = tmp_path_factory.mktemp("bank")
    (root / "tasks").mkdir()
    (root / "tasks" / "multi_turn_if").symlink_to(replay_helper.ROOT / "tasks" / "multi_turn_if")
    real = replay_helper.ROOT
    replay_helper.ROOT = root
    yield
    replay_helper.ROOT = real


GOLD: dict[str, list[str]] = {
    "mti_garden_rules": [
        "Spinach, lettuce, kale, chard and rocket all cope well with partial shade if they get a few hours "
        "of sun.",
        "In hot weather water lettuce every day or two, early in the morning, so the soil stays evenly "
        "moist.\n"
        "Next?",
        "Plant garlic cloves about fifteen centimetres apart, in rows roughly thirty centimetres apart, "
        "pointed end up.\nNext?",
        "Garden note: August is late for carrots, but a fast early variety sown now can still give small "
        "roots "
        "before the frost.\nNext?",
        "Garden note: mulch tomatoes with straw, dried grass clippings or leaf mould, spread a few "
        "centimetres "
        "deep once the soil is warm.",
        "Garden note: three ways to protect seedlings from slugs:\n"
        "- Ring each seedling with crushed eggshells or grit.\n"
        "- Sink beer traps into the soil nearby.\n"
        "- Water in the morning so the surface is dry by night.",
    ],
    "mti_cabin_split": [
        "840 split four ways.\nEach: 210.00",
        "840 + 126 = 966, divided by 4.\nEach: 241.50",
        "With the corrected price: 960 + 126 = 1086, divided by 4.\nEach: 271.50",
        "1086 divided by 3.\nEach: 362.00",
        "1086 - 100 = 986, and 986 / 3 = 328.666..., rounded to the cent.\nEach: 328.67",
    ],
    "mti_banned_word": [
        "Fresh from our ovens: the new rye sourdough at Juniper Bakery! Dark crust, tangy crumb, baked "
        "every morning.",
        "Find us at the Saturday farmers' market with warm loaves, buns and pastries. Come early! "
        "#JuniperBakes",
        "Friday treat: the first twenty customers get a cinnamon bun on the house! #JuniperBakes",
        "Meet our almond loaf, made with no gluten at all, so friends with coeliac disease can enjoy every "
        "slice. #JuniperBakes",
        "Mondays: bring your own cup and your filter coffee refills are on us. #JuniperBakes",
    ],
    "mti_scoped_rules": [
        "The capital of Canada is Ottawa.",
        "MARS IS KNOWN AS THE RED PLANET.",
        "PLANTS TAKE IN CARBON DIOXIDE FROM THE AIR FOR PHOTOSYNTHESIS.",
        "William Shakespeare wrote Romeo and Juliet.",
        "1. Red\n2. Yellow\n3. Blue",
        "Water boils at 100 degrees Celsius at sea level.",
        "In order from the Sun, the planets are Mercury, Venus, Earth, Mars, Jupiter, Saturn, Uranus and "
        "Neptune.",
    ],
}

# (task, {turn number (1-based): replacement reply}, breakdown entries that must fail)
NEAR_MISSES = [
    (
        "mti_garden_rules",
        {3: "Plant garlic cloves about 15 cm apart, pointed end up.\nNext?"},
        ["t3.no_digits"],
    ),
    (
        "mti_garden_rules",
        {5: "Garden note: mulch tomatoes with straw or leaf mould once the soil is warm.\nNext?"},
        ["t5.no_next"],
    ),
    (
        "mti_garden_rules",
        {
            6: "Garden note: three ways to protect seedlings from slugs:\n1. Crushed eggshells.\n"
            "2. Beer traps.\n3. Water in the morning."
        },
        ["t6.no_digits"],
    ),
    (
        "mti_garden_rules",
        {6: "Three ways to protect seedlings from slugs:\n- Eggshells.\n- Beer traps.\n- Morning watering."},
        ["t6.starts_garden_note"],
    ),
    ("mti_cabin_split", {3: "966 divided by 4.\nEach: 241.50"}, ["t3.amount"]),
    ("mti_cabin_split", {4: "840 + 126 = 966, divided by 3.\nEach: 322.00"}, ["t4.amount"]),
    ("mti_cabin_split", {5: "986 / 3.\nEach: 328.66"}, ["t5.amount"]),
    (
        "mti_cabin_split",
        {1: "Each: $210", 5: "Each: 328.67\nHave a great trip!"},
        ["t1.each_line", "t1.amount", "t5.each_line", "t5.amount"],
    ),
    (
        "mti_banned_word",
        {4: "Meet our gluten-free almond loaf, safe for friends with coeliac disease. #JuniperBakes"},
        ["t4.no_free"],
    ),
    (
        "mti_banned_word",
        {
            3: "FREE cinnamon buns for the first twenty customers on Friday! #JuniperBakes",
            5: "Mondays: bring your own cup, refills are free. #JuniperBakes",
        },
        ["t3.no_free", "t5.no_free"],
    ),
    (
        "mti_banned_word",
        {2: "Find us at the Saturday farmers' market with warm loaves and buns. Come early!"},
        ["t2.ends_hashtag"],
    ),
    # The banned word in disguise: a CamelCase hashtag, letters spelt out, digits for letters.
    (
        "mti_banned_word",
        {4: "Our almond loaf has no gluten at all. #GlutenFree #JuniperBakes",
         5: "Mondays: bring your cup, refills are F-R-E-E and fr33! #JuniperBakes"},
        ["t4.no_free", "t5.no_free"],
    ),
    # A cancelled sign-off written in bold is still the cancelled line.
    ("mti_garden_rules", {5: "Garden note: mulch tomatoes with straw.\n**Next?**"}, ["t5.no_next"]),
    ("mti_scoped_rules", {4: "WILLIAM SHAKESPEARE WROTE ROMEO AND JULIET."}, ["t4.normal_case"]),
    ("mti_scoped_rules", {3: "Plants take in carbon dioxide from the air."}, ["t3.all_caps"]),
    (
        "mti_scoped_rules",
        {7: "1. Mercury\n2. Venus\n3. Earth\n4. Mars\n5. Jupiter\n6. Saturn\n7. Uranus\n8. Neptune"},
        ["t7.one_sentence"],
    ),
    ("mti_scoped_rules", {1: "Ottawa. It is in the province of Ontario."}, ["t1.one_sentence"]),
    # The sign-off must be its own last line, not the end of the last sentence.
    ("mti_garden_rules", {2: "In hot weather water lettuce every day or two, early in the morning. Next?"},
     ["t2.ends_next"]),
    # Eight planets in order, then a ninth.
    ("mti_scoped_rules", {7: "In order from the Sun: Mercury, Venus, Earth, Mars, Jupiter, Saturn, Uranus, "
                             "Neptune and Pluto."}, ["t7.answer"]),
    # A post over the limit fails however politely it is introduced.
    ("mti_banned_word", {3: "Here's the Friday post:\n\nFriday treat: the first twenty customers through our "
                            "door get a warm cinnamon bun on the house, our way of saying thank you to the whole "
                            "neighbourhood for a wonderful first year together. Doors open at seven, so set "
                            "your alarm and come hungry! #JuniperBakes"},
     ["t3.under_40_words"]),
]


def play(task_id: str, replies: list[str]):
    return replay(task_id, [Action(text=r) for r in replies])


@pytest.mark.parametrize("task_id", sorted(GOLD))
def test_gold_passes(task_id):
    trial = play(task_id, GOLD[task_id])
    assert trial.grade is not None
    assert trial.passed, trial.grade.reason
    assert trial.grade.score == 1.0
    # The model answered every scripted user turn, in order.
    users = [t.content for t in trial.turns if t.role == "user"]
    assert len(users) == len(GOLD[task_id]) == sum(1 for t in trial.turns if t.role == "assistant")


@pytest.mark.parametrize(
    "task_id,swap,must_fail", NEAR_MISSES, ids=[f"{t}-{i}" for i, (t, _, _) in enumerate(NEAR_MISSES)]
)
def test_near_miss_fails_for_its_reason(task_id, swap, must_fail):
    replies = [swap.get(n, r) for n, r in enumerate(GOLD[task_id], start=1)]
    trial = play(task_id, replies)
    grade = trial.grade
    assert grade is not None and not trial.passed and grade.score < 0.999
    for label in must_fail:
        assert grade.breakdown[label] == 0.0, (label, grade.reason)
    failed = {k for k, v in grade.breakdown.items() if v == 0.0}
    # Only the swapped turns fail: the grader checks each reply against its own turn's rules.
    assert {int(k.split(".")[0][1:]) for k in failed} == set(swap)
    assert grade.details["failed_turns"] == sorted(set(swap))


def test_every_turn_is_checked_against_every_rule_in_force():
    trial = play("mti_garden_rules", GOLD["mti_garden_rules"])
    assert trial.grade is not None
    keys = set(trial.grade.breakdown)
    assert {"t1.under_60_words"} == {k for k in keys if k.startswith("t1.")}
    assert {"t5.under_60_words", "t5.no_digits", "t5.starts_garden_note", "t5.no_next"} == {
        k for k in keys if k.startswith("t5.")
    }
    assert "t5.ends_next" not in keys  # cancelled at turn 5
    assert {"t6.under_60_words", "t6.no_digits", "t6.starts_garden_note", "t6.no_next", "t6.three_tips"} == {
        k for k in keys if k.startswith("t6.")
    }


def test_a_rule_suspended_for_one_turn_comes_back():
    trial = play("mti_scoped_rules", GOLD["mti_scoped_rules"])
    assert trial.grade is not None
    keys = set(trial.grade.breakdown)
    assert "t5.one_sentence" not in keys and "t6.one_sentence" in keys and "t7.one_sentence" in keys
    assert "t3.all_caps" in keys and "t4.all_caps" not in keys and "t4.normal_case" in keys


def test_the_gas_is_named_by_its_name_or_its_formula():
    replies = list(GOLD["mti_scoped_rules"])
    replies[2] = "PLANTS TAKE IN **CO₂** FROM THE AIR DURING PHOTOSYNTHESIS."
    trial = play("mti_scoped_rules", replies)
    assert trial.passed, trial.grade.reason
    for wrong in ("PLANTS TAKE IN OXYGEN FROM THE AIR.", "PLANTS TAKE IN CO FROM THE AIR."):
        replies[2] = wrong
        trial = play("mti_scoped_rules", replies)
        assert not trial.passed and "t3.answer" in trial.grade.reason, trial.grade.reason


def test_unanswered_turns_fail_every_check():
    # The scripted server runs out of replies after two turns and answers with a placeholder.
    trial = play("mti_cabin_split", GOLD["mti_cabin_split"][:2])
    assert trial.grade is not None and not trial.passed
    assert trial.grade.breakdown["t1.amount"] == 1.0 and trial.grade.breakdown["t3.amount"] == 0.0


def test_think_blocks_are_stripped_before_grading():
    replies = list(GOLD["mti_banned_word"])
    replies[3] = "<think>Call it gluten-free? No, the word free is banned.</think>" + replies[3]
    # A lone closing tag: the server's template opened the block for the model.
    replies[4] = "free refills would be natural but the word is banned</think>\n" + replies[4]
    trial = play("mti_banned_word", replies)
    assert trial.passed, trial.grade.reason if trial.grade else trial.error


def test_truncated_turn_fails_the_trial():
    replies = [Action(text=r) for r in GOLD["mti_cabin_split"]]
    replies[2] = Action(text="960 + 126 = 1086, divided by", finish_reason="length")
    trial = replay("mti_cabin_split", replies)
    assert not trial.passed and trial.grade is not None and trial.grade.score == 0.0
    assert trial.truncation == "incomplete"


def test_grading_twice_gives_the_same_grade():
    replies = list(GOLD["mti_scoped_rules"])
    replies[3] = replies[3].upper()
    a, b = play("mti_scoped_rules", replies), play("mti_scoped_rules", replies)
    assert a.grade == b.grade and a.grade is not None and a.grade.breakdown["t4.normal_case"] == 0.0


def test_task_turn_budget_matches_its_script():
    tasks = [load_task(p) for p in sorted((ROOT / "tasks" / "multi_turn_if").glob("*.yaml"))]
    assert len(tasks) == 4 and sum(t.task.fast for t in tasks) == 2
    for t in tasks:
        assert t.task.max_turns == len(t.body.turns), t.id
        assert 4 <= len(t.body.turns) <= 7


def _write_task(tmp_path, body: str):
    folder = tmp_path / "multi_turn_if"
    folder.mkdir(exist_ok=True)
    path = folder / "mti_bad.yaml"
    path.write_text(
        "id: mti_bad\nmodule: multi_turn_if\ntitle: t\nwhat_this_tests: w\nfailure_mode: f\nmax_turns: 2\n"
        "body:\n" + body,
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize(
    "body,message",
    [
        (
            "  rules: [{id: r, says: s, check: {check: word_count, max: 5}}]\n"
            "  turns: [{user: a, adds: [r]}, {user: b, drops: [q]}]\n",
            "turns.1.drops: rule 'q' is not in force",
        ),
        (
            "  rules: [{id: r, says: s, check: {check: word_count, max: 5}}]\n"
            "  turns: [{user: a, adds: [x]}, {user: b}]\n",
            "turns.0.adds: no rule 'x'",
        ),
        (
            "  rules: [{id: r, says: s, check: {check: word_count, max: 5}}, {id: u, says: s, check: "
            "{check: word_count, "
            "max: 5}}]\n  turns: [{user: a, adds: [r]}, {user: b}]\n",
            "rule(s) u never added",
        ),
        (
            "  rules: [{id: r, says: s, check: {check: wordcount, max: 5}}]\n"
            "  turns: [{user: a, adds: [r]}, {user: b}]\n",
            "body.rules.0.check",
        ),
    ],
)
def test_bad_task_files_name_the_field(tmp_path, body, message):
    from engine.core.errors import UserError

    with pytest.raises(UserError) as err:
        load_task(_write_task(tmp_path, body))
    assert message in str(err.value) and "mti_bad.yaml" in str(err.value)


def test_markdown_emphasis_and_abbreviations_do_not_break_a_rule():
    """Bold openings, bold sign-offs and bold figure lines are the asked words; an abbreviation or a
    decimal does not make a second sentence."""
    garden = list(GOLD["mti_garden_rules"])
    garden[3] = garden[3].replace("Garden note:", "**Garden note:**").replace("Next?", "**Next?**")
    cabin = [r.replace("Each:", "**Each:**") for r in GOLD["mti_cabin_split"]]
    scoped = list(GOLD["mti_scoped_rules"])
    scoped[5] = "Water boils at 100 °C (i.e. 212 °F) at sea level, at 1013.25 hPa."
    for task_id, replies in (("mti_garden_rules", garden), ("mti_cabin_split", cabin), ("mti_scoped_rules", scoped)):
        trial = play(task_id, replies)
        assert trial.passed, (task_id, trial.grade.reason if trial.grade else trial.error)


def test_other_list_styles_and_a_post_between_a_preamble_and_a_closing_line():
    garden = list(GOLD["mti_garden_rules"])
    # Roman list markers are numerals under "no digits; write numbers out in words" (batch b3's reading; b1
    # labelled the same style the other way, see tests/corpus/known_wrong.yaml); the failing check names them.
    garden[5] = ("Garden note:\nI. Ring each seedling with grit.\nII. Sink beer traps nearby.\n"
                 "III. Water in the morning.")
    trial = play("mti_garden_rules", garden)
    assert not trial.passed and "Roman numerals" in trial.grade.reason, trial.grade.reason
    garden[5] = "Garden note: my tips.\na) Copper tape.\nb) Hand-pick at dusk.\nc) A pond for frogs."
    assert play("mti_garden_rules", garden).passed
    posts = list(GOLD["mti_banned_word"])
    posts[2] = ("Here's the Friday post, written to keep all three of your rules:\n\nFriday treat: the first "
                "twenty customers through our door get a warm cinnamon bun on the house, our thank you to the "
                "neighbourhood for a wonderful year! #JuniperBakes\n\nLet me know if you'd like a shorter one!")
    trial = play("mti_banned_word", posts)
    assert trial.passed, trial.grade.reason
    # Setting the preamble and the closing line aside decided two checks: the grade says so.
    assert "t3.under_40_words" in trial.grade.unsure and "t3.ends_hashtag" in trial.grade.unsure


def test_a_long_lead_in_to_the_user_is_not_counted_but_a_long_post_still_is():
    """The word limit is counted over the post, whatever the length of a lead-in that speaks to the user
    about it; a post that itself runs over the limit still fails behind such a lead-in."""
    lead_in = ("Sure! Here's an upbeat post for your Saturday farmers' market stall, kept under forty words and "
               "ending with your hashtag as requested:\n\n")
    posts = list(GOLD["mti_banned_word"])
    posts[1] = lead_in + "Catch Juniper Bakery at the Saturday farmers' market! Warm rye sourdough and buns " \
                         "await by the fountain. #JuniperBakes"
    trial = play("mti_banned_word", posts)
    assert trial.passed, trial.grade.reason
    assert "t2.under_40_words" in trial.grade.unsure
    posts[1] = lead_in + "Catch Juniper Bakery at the Saturday farmers' market! " + "Warm rye sourdough, " * 12 + \
        "by the fountain. #JuniperBakes"
    trial = play("mti_banned_word", posts)
    assert not trial.passed and "t2.under_40_words" in trial.grade.reason, trial.grade.reason


def test_tips_one_a_line_without_markers_are_the_list_asked_for():
    garden = list(GOLD["mti_garden_rules"])
    garden[5] = ("Garden note: three tips for protecting seedlings from slugs\n"
                 "Surround each seedling with a ring of crushed eggshells.\n"
                 "Water in the morning rather than the evening.\nSet beer traps and empty them every day.")
    assert play("mti_garden_rules", garden).passed
    # The required opening on a line of its own with a title that ends in a full stop heads the list too.
    garden[5] = ("Garden note: three slug-proofing tips.\nRing each seedling with copper tape.\n"
                 "Sink a shallow dish of beer nearby as a trap.\nGo out at dusk and pick slugs off by hand.")
    assert play("mti_garden_rules", garden).passed
    trial = play("mti_garden_rules", [*garden[:5], garden[5] + "\nSpread grit around the bed."])
    assert not trial.passed and "t6.three_tips" in trial.grade.reason, trial.grade.reason
    # The same three tips in one paragraph under the heading are no list of three.
    garden[5] = ("Garden note: three tips for protecting seedlings from slugs\n"
                 "Surround each seedling with eggshells. Water in the morning. Set beer traps.")
    trial = play("mti_garden_rules", garden)
    assert not trial.passed and "t6.three_tips" in trial.grade.reason, trial.grade.reason


@pytest.mark.parametrize("last", [
    # Batch b13: a promise to write the Monday post and a question about its tone, with the required
    # hashtag added by rote, and no post.
    ("Great idea! A bring-your-own-cup offer is a lovely way to cut waste. I'll put together a Monday coffee "
     "post that highlights the refills while keeping to all your rules. Would you like it playful or more "
     "straightforward? #JuniperBakes"),
    "Sure! I'll write the Monday cup post next. Shall I keep it playful? #JuniperBakes",
    "Love the idea!\n\nI can draft a cheerful Monday post about the cup offer.\n\nDo you want me to add the hours?",
])
def test_a_reply_that_only_promises_the_post_fails_the_posts_rules(last):
    posts = list(GOLD["mti_banned_word"])
    posts[4] = last
    trial = play("mti_banned_word", posts)
    assert not trial.passed, trial.grade
    assert "t5.under_40_words" in trial.grade.reason and "t5.ends_hashtag" in trial.grade.reason
    assert "no post in the reply" in trial.grade.reason and trial.grade.details["failed_turns"] == [5]


def test_a_post_that_asks_its_readers_still_passes():
    posts = list(GOLD["mti_banned_word"])
    posts[4] = "Would you like a refill? Bring your own cup on Mondays and filter coffee is on us! #JuniperBakes"
    trial = play("mti_banned_word", posts)
    assert trial.passed, trial.grade.reason
