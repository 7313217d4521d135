"""The reader of a reply's structure: list items in every marker style, headings and the title line, the
post inside a reply, the last line. Each reading has a case it must find and a near case it must leave
alone."""

from __future__ import annotations

import pytest

from engine.episodes.structure import headings, last_line, list_items, read_post, sentences, title_line


def kinds(text: str) -> list[str]:
    return [i.kind for i in list_items(text)]


@pytest.mark.parametrize("text,kind,n", [
    ("Garden note:\nI. Circle each seedling.\nII. Sink beer traps.\nIII. Water in the morning.", "roman", 3),
    ("Tips:\ni) grit\nii) traps\niii) mornings\niv) copper", "roman", 4),
    ("Garden note: my tips.\na) Copper tape.\nb) Hand-pick at dusk.\nc) A small pond.", "letter", 3),
    ("Tips:\nA. Copper tape.\nB. Beer traps.", "letter", 2),
    # "i" is the ninth letter here, not Roman one: it continues the lettered run.
    ("g) one\nh) two\ni) three\nj) four", "letter", 4),
    ("1. Red\n2. Yellow\n3. Blue", "digit", 3),
    ("(1) Red\n(2) Yellow", "digit", 2),
    ("1️⃣ Eggshells\n2️⃣ Beer traps\n3️⃣ Mornings", "digit", 3),
    ("- one\n* two\n• three\n+ four", "sign", 4),
    ("✅ Eggshells\n✅ Beer traps\n✅ Mornings", "emoji", 3),
    ("🐌 Eggshells round the stems\n🍺 Beer traps\n🌅 Water in the morning", "emoji", 3),
    ("— grit\n— traps", "sign", 2),
    ("One: eggshells.\nTwo: beer traps.\nThree: morning watering.", "word", 3),
    ("First - eggshells\nSecond - beer traps", "word", 2),
])
def test_list_items_are_read_in_every_marker_style(text, kind, n):
    assert kinds(text) == [kind] * n, list_items(text)


@pytest.mark.parametrize("text", [
    "🍞 Something new is rising at Juniper Bakery! 🌾",  # one line opening with an emoji is no list
    "— Ana, head baker",  # a dash before a name
    "A. Lincoln said it first.",  # an initial, not item A of a list
    "I. M. Pei designed it.",
    "One more thing: water early.",  # a number word that opens a sentence
    "Saturday: 10:00-16:00\nSunday: closed",
    "-nospace\n*emphasis*",
    "Ring each seedling with grit. Sink beer traps. Water in the morning.",
])
def test_lines_that_only_look_like_items_are_not_items(text):
    assert list_items(text) == []


def test_a_run_of_letters_or_numerals_needs_consecutive_markers():
    assert kinds("a) grit\nc) traps") == []
    assert kinds("I. grit\nIII. traps") == []
    assert kinds("a) grit\nb) traps\nd) mornings") == ["letter", "letter"]


def test_unmarked_lines_after_a_colon_are_items_only_when_nothing_is_marked():
    text = "Garden note: three tips:\nEggshells round seedlings.\nBeer traps at night.\nMorning watering."
    assert kinds(text) == ["line"] * 3
    assert kinds("Garden note: three tips:\n- Eggshells.\nBeer traps.") == ["sign"]
    assert kinds("Garden note: just one tip:\nEggshells.") == []
    assert kinds("Eggshells round seedlings.\nBeer traps at night.") == []


def test_a_paragraph_written_one_item_a_line_is_a_list():
    # A heading line (no closing stop) then one tip a line, no markers: the request's "one tip per line".
    slugs = ("Garden note: three tips for protecting seedlings from slugs\n"
             "Surround each seedling with a ring of crushed eggshells.\nWater in the morning, not the evening.\n"
             "Set beer traps and empty them every day.")
    items = list_items(slugs)
    assert [i.kind for i in items] == ["line"] * 3 and items[0].text.startswith("Surround")
    # Without a heading, three lines of one item each; set apart from prose by blank lines.
    assert kinds("Garden note: slugs.\n\nEggshell rings\nBeer traps\nMorning watering\n\nGood luck!") == ["line"] * 3
    # Four lines are four items (a check for three then fails on the count, not on the reading).
    assert kinds("Tips for slugs\nEggshells.\nBeer traps.\nMorning watering.\nCopper tape.") == ["line"] * 4


@pytest.mark.parametrize("text", [
    # Three tips in one paragraph are no list.
    "Garden note: three tips. Ring seedlings with eggshells. Water in the morning. Set beer traps.",
    # A heading and a paragraph, on the next line or after a blank one.
    "Garden note: three tips for slugs\nRing seedlings with eggshells. Water in the morning. Set beer traps.",
    "Garden note: three tips for slugs\n\nRing seedlings with eggshells. Water in the morning. Set beer traps.",
    # Two bare sentences on two lines read as a paragraph with a line break as often as a list.
    "Eggshells round seedlings.\nBeer traps at night.",
    # Prose broken across lines runs on: a line without a stop, the next in lower case.
    "Slugs love damp evenings, so the\nbest time to water is the morning and\nthe beds dry out before dusk.",
    # Paragraphs one line each are paragraphs, not lines of one list.
    "Ring seedlings with eggshells.\n\nWater in the morning.\n\nSet beer traps.",
    # A line too long to be one item.
    "Tips\n" + "Ring the seedlings with eggshells and grit and wool, " * 5 + "done.\nWater early.\nSet traps.",
])
def test_prose_is_no_unmarked_list(text):
    assert list_items(text) == []


def test_a_first_line_that_opens_with_a_label_heads_the_lines_after_it():
    # The opening a rule asks for, on a line of its own with a title that ends in a full stop: a heading.
    slugs = ("Garden note: three slug-proofing tips.\nRing each seedling with copper tape.\n"
             "Sink a shallow dish of beer nearby as a trap.\nGo out at dusk with a torch and pick slugs off.")
    items = list_items(slugs)
    assert [i.kind for i in items] == ["line"] * 3 and items[0].text.startswith("Ring")
    # Four real tips under it still read four.
    assert kinds(slugs + "\nSpread grit around the bed.") == ["line"] * 4
    # A first line ending with a colon heads the lines after it, whatever they end with.
    assert kinds("Three tips for slugs:\nCopper tape\nBeer traps.\nGrit") == ["line"] * 3


@pytest.mark.parametrize(("text", "count"), [
    # Every line carries a label: the labels mark items, the first line is one of them.
    ("Tip: ring seedlings with copper.\nTip: sink beer traps.\nTip: pick slugs at dusk.", 3),
    # No label, all lines closed: the first sentence is an item like the others.
    ("Ring seedlings with copper.\nSink beer traps.\nPick slugs at dusk.\nSpread grit.", 4),
    # A colon inside a sentence is no label: more than three words before it.
    ("Slugs hate one thing above all: copper.\nSink beer traps.\nPick slugs at dusk.", 3),
])
def test_a_first_line_without_a_heading_mark_is_an_item(text, count):
    assert kinds(text) == ["line"] * count


def test_two_unmarked_lines_under_a_heading_are_two_items():
    assert kinds("Garden note: two tips for slugs\nRing seedlings with eggshells.\nWater in the morning.") == \
        ["line"] * 2


def test_items_carry_their_text_and_style():
    items = list_items("Tips:\nI. **Grit** round stems.\n- Beer traps.")
    assert [(i.text, i.style) for i in items] == [("Beer traps.", "bullet")]
    items = list_items("II. Beer traps.\nIII. Grit.")
    assert [(i.marker, i.text, i.style) for i in items] == [("II.", "Beer traps.", "numbered"),
                                                             ("III.", "Grit.", "numbered")]


def test_sentences_drop_every_style_of_marker():
    assert sentences("I. Circle each seedling.\nII. Sink beer traps.") == ["Circle each seedling.",
                                                                          "Sink beer traps."]
    assert len(sentences("a) Red\nb) Blue")) == 2


@pytest.mark.parametrize("reply,body", [
    ("Here's the post:\n\nRye is back! #JuniperBakes", "Rye is back! #JuniperBakes"),
    ("Sure! Here is a post for the market:\nRye is back! #JuniperBakes", "Rye is back! #JuniperBakes"),
    ("Rye is back! #JuniperBakes\n\nLet me know if you'd like it shorter!", "Rye is back! #JuniperBakes"),
    ("Post:\n\n> Rye is back!\n> #JuniperBakes", "Rye is back!\n#JuniperBakes"),
    ("Here you go:\n\n\"Rye is back! #JuniperBakes\"", "Rye is back! #JuniperBakes"),
    ("Here you go:\n\n```\nRye is back! #JuniperBakes\n```", "Rye is back! #JuniperBakes"),
])
def test_the_post_is_read_without_its_preamble_and_afterword(reply, body):
    assert read_post(reply).body == body


@pytest.mark.parametrize("reply,lead_in", [
    # A lead-in of any sane length that speaks to the user about the post and ends with a colon.
    ("Sure! Here's an upbeat post for your Saturday farmers' market stall, kept under forty words and ending "
     "with your hashtag as requested:\n\nCatch us at the market! #JuniperBakes",
     "Sure! Here's an upbeat post for your Saturday farmers' market stall"),
    ("Of course. I kept this one short, upbeat and within the limits you set earlier, and it closes with the "
     "hashtag on its own at the end:\n\nRye is back! #JuniperBakes", "Of course. I kept this one short"),
    ("Post:\n\nRye is back! #JuniperBakes", "Post:"),
])
def test_a_lead_in_that_speaks_to_the_user_is_set_apart(reply, lead_in):
    post = read_post(reply)
    assert post.preamble.startswith(lead_in) and post.body.endswith("#JuniperBakes")
    assert not post.body.startswith(lead_in)


@pytest.mark.parametrize("reply", [
    "Rye is back! Come early. #JuniperBakes",
    # A long opening in the brand's voice that ends with a colon is more of the post.
    "Calling all market lovers, we're back at the Saturday farmers' market with the best bakes of the season, "
    "and here's what we are bringing:\n\nRye sourdough and buns. #JuniperBakes",
    # A long opening that neither speaks to the user nor presents the post is the post's own.
    "Juniper Bakery's stall returns to the Saturday farmers' market by the fountain, with rye sourdough, "
    "cinnamon buns and fruit galettes baked that very morning for early risers:\n\nSee you. #JuniperBakes",
    # A lead-in past the sane bound of 60 words is content, however it speaks.
    "Here's your post, " + "and I made sure it is lively, " * 12 + "as you asked:\n\nRye! #JuniperBakes",
    # A colon inside the post's first line is no preamble when nothing follows it.
    "Big news: rye is back! #JuniperBakes",
    # A closing line in the brand's voice is part of the post.
    "Rye is back!\n\nSee you Saturday at the market. #JuniperBakes",
    # A long first line ending in a colon is content, not a preamble.
    "Garden note: slugs are a real nuisance for young plants after rain, so here are three tips that work "
    "well in most gardens, whatever the soil:\n- Grit.",
])
def test_a_post_without_preamble_or_afterword_is_the_whole_reply(reply):
    post = read_post(reply)
    assert post.body == reply.strip() and not post.preamble and not post.afterword


@pytest.mark.parametrize("afterword", [
    # The writer hands the next move to the user, in any wording: the first person singular, the user's wish
    # as a question, a bare condition on it (the hedge of an offer), or the hope that what was written helps.
    "Would you like a shorter version for Twitter?",
    "Do you want me to make it punchier?",
    "Let me know if you'd like a different tone.",
    "Happy to adjust the wording if needed.",
    "Can tweak the tone if you want!",
    "Shall I add allergen details?",
    "Hope this helps!",
    "Great choice. Would you prefer a version for Instagram too?",
    "**Want it punchier? I can tighten it.**",
    "Happy to write more, should you need them.",
])
def test_a_closing_line_to_the_user_is_no_part_of_the_post(afterword):
    post = read_post("Rye is back at Juniper Bakery, warm every morning! #JuniperBakes\n\n" + afterword)
    assert (post.body, post.afterword) == ("Rye is back at Juniper Bakery, warm every morning! #JuniperBakes",
                                           afterword)


def test_two_closing_remarks_are_both_set_aside():
    post = read_post("Rye is back! #JuniperBakes\n\nWould you like a longer one?\n\nHope this helps!")
    assert (post.body, post.afterword) == ("Rye is back! #JuniperBakes",
                                           "Would you like a longer one?\n\nHope this helps!")


@pytest.mark.parametrize("last", [
    # The post's own last line speaking to its readers stays the post's: in the brand's voice, as a bare
    # invitation or question with no wish of the user's in it, or a condition with its own object.
    "Let us know what you think in the comments!",
    "Come by Saturday!",
    "Will you be there?",
    "Need a gift?",
    "Grab a loaf if you need one!",
    "Come early if you want a warm one.",
    "Do you want the crust? Come early.",
    "Would you like a taste? Visit our stall.",
    "Feel like a treat? Stop by today!",
    # The marks of a post keep a line in it whatever else it says.
    "Would you like a slice? #JuniperBakes",
    "Hope this Monday is a good one! @juniperbakery",
    # A paragraph of several lines, or past 30 words, is more of the post.
    "Would you like a shorter version?\nSee you soon!",
    "Would you like " + "crusty tangy " * 15 + "bread if needed?",
])
def test_a_last_line_to_the_posts_readers_stays_in_the_post(last):
    reply = "Rye is back at Juniper Bakery, warm every morning!\n\n" + last
    post = read_post(reply)
    assert post.body == reply and not post.afterword


@pytest.mark.parametrize("reply,body,afterword", [
    # Rules around the post and a follow-up offer after the closing one: the post lies between the rules.
    ("Here's your post:\n\n---\n\nRye is back! #JuniperBakes\n\n---\n\nWant a shorter version too?",
     "Rye is back! #JuniperBakes", "Want a shorter version too?"),
    ("Sure, a fresh one for Monday.\n\n***\n\nBYO cup! #JuniperBakes\n\n***\n\nI can add emoji if you like.",
     "BYO cup! #JuniperBakes", "I can add emoji if you like."),
    # A note set apart in brackets after the closing rule is an aside too.
    ("---\n\nRye is back! #JuniperBakes\n\n---\n\n(4 words.)", "Rye is back! #JuniperBakes", "(4 words.)"),
    # A closing rule with nothing after it is decoration.
    ("Post:\n\n___\n\nRye is back! #JuniperBakes\n\n___", "Rye is back! #JuniperBakes", ""),
])
def test_horizontal_rules_bound_the_post(reply, body, afterword):
    post = read_post(reply)
    assert (post.body, post.afterword) == (body, afterword)


@pytest.mark.parametrize("reply,body", [
    # What follows the last rule is more of the post (no question, no first person): the rule closes nothing.
    ("Rye is back!\n\n---\n\nSee you Saturday. #JuniperBakes",
     "Rye is back!\n\n---\n\nSee you Saturday. #JuniperBakes"),
    # A long paragraph after the rule is no aside, even when it ends with a question.
    ("Rye is back!\n\n---\n\n" + "Crusty and tangy, " * 12 + "who's in?",
     "Rye is back!\n\n---\n\n" + "Crusty and tangy, " * 12 + "who's in?"),
    # A line of dashes under text underlines a heading (Markdown's setext heading), no rule.
    ("Rye is back\n---\nWant one?", "Rye is back\n---\nWant one?"),
])
def test_rules_that_do_not_close_the_post_keep_what_follows(reply, body):
    post = read_post(reply)
    assert post.body == body and not post.afterword


POST = "Rye is back at Juniper Bakery, slow-fermented and tangy, warm every morning! #JuniperBakes"
QUOTED = "> " + POST


@pytest.mark.parametrize("reply,afterword,preamble", [
    # A block quote holds the post; a note set apart in brackets or italics, after or before it, is no part.
    (QUOTED + "\n\n(13 words, ends with the hashtag.)", "(13 words, ends with the hashtag.)", ""),
    (QUOTED + "\n\n[Word count: 13]", "[Word count: 13]", ""),
    (QUOTED + "\n\n*13 words, hashtag last.*", "*13 words, hashtag last.*", ""),
    ("(13 words, under the limit.)\n\n" + QUOTED, "", "(13 words, under the limit.)"),
    # A lead-in and a follow-up offer around the quote.
    ("Here's the post:\n\n" + QUOTED + "\n\nWant a shorter version too?", "Want a shorter version too?",
     "Here's the post:"),
    ("I kept it short, as you asked.\n\n" + QUOTED + "\n\n(13 words.)", "(13 words.)",
     "I kept it short, as you asked."),
])
def test_a_block_quote_with_commentary_outside_it_bounds_the_post(reply, afterword, preamble):
    post = read_post(reply)
    assert (post.body, post.afterword, post.preamble) == (POST, afterword, preamble)


def test_a_post_quoted_over_several_paragraphs_is_read_whole():
    reply = "> Rye is back!\n>\n> Warm every morning. #JuniperBakes\n\n> Come early.\n\n(9 words.)"
    post = read_post(reply)
    assert post.body == "Rye is back!\n\nWarm every morning. #JuniperBakes\n\nCome early." and post.afterword


@pytest.mark.parametrize("reply,body_ends", [
    # The note inside the quote is part of what the quote holds.
    (QUOTED + "\n>\n> (13 words.)", "(13 words.)"),
    # The hashtag is not last inside the quote: the note outside is set aside, the post still ends otherwise.
    ("> Rye is back! #JuniperBakes Warm every morning, so come early.\n\n(11 words.)", "come early."),
    # A quote of the user's request with the post written after it: the quote is not the post.
    ("> Keep every post under 40 words, and end every post with #JuniperBakes\n\n"
     "Mondays just got better! Bring your own cup and refill your filter coffee at no charge. ☕", "☕"),
    ("> when are you open on Saturdays?\n\nSaturday: 10:00-16:00.", "10:00-16:00."),
    # A quoted request and a post after it that ends with a question: more words outside the quote than in.
    ("> End every post with #JuniperBakes\n\nMondays just got better: bring your own cup and refill your filter "
     "coffee at no charge. Who's joining us?", "Who's joining us?"),
    # Two quotes with text between them: no one quote holds the post.
    ("> Rye is back! #JuniperBakes\n\n(5 words.)\n\n> Buns on Friday! #JuniperBakes\n\n(5 words.)",
     "(5 words.)"),
])
def test_a_quote_that_does_not_hold_the_post_whole_is_no_bound(reply, body_ends):
    assert read_post(reply).body.endswith(body_ends)


def test_last_line_reads_through_emphasis():
    assert last_line("Mulch with straw.\n**Next?**\n\n") == "Next?"
    assert last_line("Mulch with straw. Next?") == "Mulch with straw. Next?"
    assert last_line("") == ""


SUMMARY = ("Harbor Sync 3.2 ya está disponible y las subidas se reanudan tras una conexión perdida. El valor por "
           "defecto de `retry_backoff_ms` pasa de 200 a 750.")


@pytest.mark.parametrize("title,how", [
    ("**Resumen del incidente**", "emphasis"),
    ("__Title__", "emphasis"),
    ("*Resumen*", "emphasis"),
    ("***Resumen semanal***", "emphasis"),
    ("**Harbor Sync 3.2: resumen de la versión**", "emphasis"),
    ("**Resumen:**", "emphasis"),  # a bold label standing alone above the prose
    ("_¿Qué hay de nuevo en la versión 3.2?_", "emphasis"),
    # Chat HTML reads as the Markdown it stands for (engine/episodes/chat_html.py).
    ("<u>Resumen</u>", "emphasis"),
    ("<h2>Resumen</h2>", "atx"),
    ("<b>Resumen</b><br>", "emphasis"),
    ("## Resumen", "atx"),
    ("Resumen semanal", "plain"),
    ("Novedades de Harbor Sync 3.2", "plain"),
    ("Weekly summary 🗞️", "plain"),
])
def test_a_title_line_above_the_prose_is_read_in_any_markup(title, how):
    found = title_line(title + "\n\n" + SUMMARY)
    assert found is not None and found.how == how and found.line == 0, found


@pytest.mark.parametrize("reply", [
    "**Resumen del incidente**\n" + SUMMARY,  # a marked title needs only a line of its own
    "Resumen\n=======\n" + SUMMARY,  # an underlined (setext) heading
    "\n\n  *Resumen*  \n\n" + SUMMARY,  # blank lines and spaces before it
])
def test_a_marked_title_on_a_line_of_its_own_is_a_title(reply):
    assert title_line(reply) is not None


@pytest.mark.parametrize("reply", [
    SUMMARY,  # one paragraph
    SUMMARY + "\n\n" + SUMMARY,  # two paragraphs
    # A bold first sentence for emphasis, inside the paragraph or as a whole sentence on its own line.
    "**Harbor Sync 3.2 ya está disponible.** " + SUMMARY,
    "**Harbor Sync 3.2 ya está disponible.**\n\n" + SUMMARY,
    "*Ya está aquí* Harbor Sync 3.2, con subidas que se reanudan. El valor pasa de 200 a 750.",
    # A short first sentence that ends with a full stop, in the paragraph or as a paragraph of its own.
    "Ya está aquí. " + SUMMARY,
    "Harbor Sync 3.2 ya está aquí.\n\n" + SUMMARY,
    "¡Harbor Sync 3.2 ya está aquí!\n\n" + SUMMARY,
    "Hi there! 👋\n\n" + SUMMARY,
    # A bold phrase holding two sentences is emphasis, not a title.
    "**Ya está aquí. Y trae novedades**\n\n" + SUMMARY,
    # A greeting, a lead-in and a line that speaks to the user are no title; nor a labelled value.
    "Hola equipo,\n\n" + SUMMARY,
    "Aquí tienes el resumen:\n\n" + SUMMARY,
    "Here's a quick summary of the release\n\n" + SUMMARY,
    "Answer: 369\n\n" + SUMMARY,
    # A short line with no blank line after it is the start of a paragraph written across lines.
    "Harbor Sync 3.2 ya está disponible\ny las subidas se reanudan tras una conexión perdida.",
    # A line alone with nothing after it, a list item, a hashtag, a quote and a code block are no title.
    "**Resumen del incidente**",
    "- Resumen\n\n" + SUMMARY,
    "#JuniperBakes\n\n" + SUMMARY,
    "> Resumen\n\n" + SUMMARY,
    "```\nResumen\n\nfoo bar baz qux\n```",
    # Two bold spans on one line are two spans, not a line wholly in bold (a bare title needs no stop).
    "**Harbor** ya está **disponible.**\n\n" + SUMMARY,
])
def test_no_title_line_is_read_into_prose(reply):
    assert title_line(reply) is None, title_line(reply)


def test_headings_further_down_need_markup():
    reply = SUMMARY + "\n\n**Qué cambia**\n\n" + SUMMARY + "\n\n### Detalles\n" + SUMMARY
    assert [h.text for h in headings(reply)] == ["Qué cambia", "Detalles"]
    # A bare short line further down is as often a label, a figure or a sign-off: no heading.
    assert headings(SUMMARY + "\n\nMonthly pass 96.00\n\n" + SUMMARY) == []
    assert headings(SUMMARY + "\n\n**Saludos**") == []  # nothing follows it


TAGGED = "Rye is back at Juniper Bakery, warm every morning! #JuniperBakes"


@pytest.mark.parametrize("reply", [
    "<post>\n" + TAGGED + "\n</post>",  # tags on their own lines
    "<post>" + TAGGED + "</post>",  # inline
    '<tweet id="1">' + TAGGED + "</tweet>",  # any one tag name, with attributes
    "<Answer>\n" + TAGGED + "\n</answer>",
    "Here's the post:\n\n<post>\n" + TAGGED + "\n</post>\n\nWant another?",  # a lead-in and an offer
    "<post>\n" + TAGGED + "\n</post>\n\n(9 words.)",
    "```\n<post>\n" + TAGGED + "\n</post>\n```",  # tags inside a fence
    "---\n<post>" + TAGGED + "</post>\n---",  # tags between rules
])
def test_a_pair_of_tags_bounds_the_post(reply):
    post = read_post(reply)
    assert post.body == TAGGED and post.unsure is None, post


def test_tags_inside_the_post_are_its_own():
    reply = "<post>Our <b>rye</b> is back, warm every morning! #JuniperBakes</post>"
    assert read_post(reply).body == "Our <b>rye</b> is back, warm every morning! #JuniperBakes"


@pytest.mark.parametrize("reply,body_ends,unsure", [
    # The hashtag inside the tags but not last inside them.
    ("<post>\nRye is back! #JuniperBakes Warm every morning, come early.\n</post>", "come early.", False),
    # Text after the closing tag that is no remark to the user is outside the post the tags mark; the
    # reading says it is unsure.
    ("<post>Rye is back at Juniper Bakery, warm every morning!</post>\n#JuniperBakes", "morning!", True),
    # Two different tag pairs, or two posts: no one pair bounds the post, the reply is read whole.
    ("<post>Rye is back at Juniper Bakery!</post>\n<hashtags>#JuniperBakes</hashtags>", "</hashtags>", False),
    ("<post>Rye is back! #JuniperBakes</post>\n<post>Buns on Friday! #JuniperBakes</post>", "</post>", False),
    # A label in a tag above the post holds fewer words than the text outside it: not the post.
    ("<b>Monday post</b>\n\n" + TAGGED, "#JuniperBakes", False),
])
def test_tags_that_do_not_wrap_the_post_whole(reply, body_ends, unsure):
    post = read_post(reply)
    assert post.body.endswith(body_ends) and (post.unsure is not None) is unsure, post


@pytest.mark.parametrize("reply", [
    # The whole reply speaks to the user about the post it will write: a promise and a question, no post,
    # even with the required hashtag added by rote (batch b13).
    "Great idea! A bring-your-own-cup offer is a lovely way to cut waste. I'll put together a Monday coffee "
    "post that highlights the refills while keeping to all your rules. Would you like it playful or more "
    "straightforward? #JuniperBakes",
    "Sure! I'll write a Monday coffee post for you. Would you prefer it short and punchy?",
    "Happy to help! I can draft the almond loaf post right away. Do you want me to mention the price?",
    "Here's what I'm thinking: a cheerful post about bringing your own cup. Shall I go ahead?",
    "Before I write it, could you tell me whether the offer runs all day? Once I know, I'll draft the post.",
    "Got it! I'll keep every post under 40 words and end it with #JuniperBakes.",
    # Over several paragraphs, and behind a lead-in.
    "Great idea!\n\nI'll put together a post about the Monday refills.\n\nWould you like a playful tone?",
    "Sure, here's my plan:\n\nI'm going to write a short, upbeat post about refills. Shall I add the hours?",
    "**Love it!** I'd suggest a warm, friendly tone for this one. Let me know if that works for you.",
])
def test_a_reply_that_only_speaks_to_the_user_about_the_post_holds_none(reply):
    post = read_post(reply)
    assert post.body == "" and post.afterword, post


def test_the_reading_is_unsure_when_a_sentence_could_be_the_posts():
    reply = ("Bring-your-own-cup Mondays are a lovely way to cut waste. I'll put together a post about them. "
             "Would you like it playful?")
    assert read_post(reply).unsure and read_post(reply).body == ""
    assert read_post("Sure! I'll write it now. Would you like it playful?").unsure is None


@pytest.mark.parametrize("reply", [
    # A post that asks its readers: no act of the writer's in it.
    "Would you like a free coffee? Bring your cup on Monday! #JuniperBakes",
    "Bring your own cup on Mondays and your refills are on the house. Would you like yours with oat milk? "
    "#JuniperBakes",
    # The brand's voice is the post's, whatever else it says.
    "Come visit Juniper Bakery at the Saturday farmers' market! We'll have bread, pastries and more. #JuniperBakes",
    "I'll say it: our rye is the best in town. Would you like to try it? #JuniperBakes",
    # A baker's own voice saying what the baker did, or will do, to the post's readers.
    "I just pulled fresh rye from the oven! Would you like a slice? #JuniperBakes",
    "Mondays are for coffee! I'll be pouring refills all morning, so bring your own cup. See you there? "
    "#JuniperBakes",
    "Rye is back! I'll save you a loaf if you come early. Crusty, tangy and warm. Find us by the fountain.",
    "I'll be live at nine! Want to watch? https://juniper.example/live",
    # A post set apart from a closing remark to the user: the post stays, the remark goes.
    "Rye is back at Juniper Bakery, warm every morning! #JuniperBakes\n\nShall I make it longer?\n\nLet me know!",
])
def test_a_post_that_speaks_to_its_readers_is_a_post(reply):
    assert read_post(reply).body, read_post(reply)
