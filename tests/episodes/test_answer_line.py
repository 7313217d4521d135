"""The one reader of `Answer:` lines: each rule has a case that fails without it."""

from __future__ import annotations

import pytest

from engine.episodes.answer_line import read_answer_line
from engine.episodes.knowledge.module import INSTRUCTION

# The request the replies answer: a question of the bank, in English, with the module's instruction.
REQUEST = ("A bakery uses 3 kg of flour per batch of 24 loaves. On Monday it starts with 50 kg of flour and bakes as "
           "many full batches as it can. It sells every loaf except 17, and the loaves that are left are packed "
           "into boxes of 6 (a box is only packed when it is full). How many loaves were sold, plus how many full "
           "boxes of leftover loaves were packed? Give that total." + INSTRUCTION)


def text_of(reply: str) -> str | None:
    line = read_answer_line(reply, REQUEST)
    return None if line is None else line.text


@pytest.mark.parametrize("reply", [
    "Answer: 369",
    "**Answer:** 369",
    "**Answer: 369**",
    "*Answer*: *369*",
    "__Answer__: 369",
    "### Answer: 369",
    "- **Answer:** 369",
    "1. Answer: 369",
    "> Answer: 369",
    "Final answer: 369",
    "FINAL ANSWER: 369",
    "The final answer is: 369",
    "Answer：369",
])
def test_markdown_around_the_label_and_value_is_removed(reply):
    assert text_of(reply) == "369"


def test_a_code_span_is_kept_apart_and_its_backticks_dropped():
    line = read_answer_line("Answer: The program prints `fdb3`.", REQUEST)
    assert line is not None and line.spans == ("fdb3",) and line.text == "The program prints fdb3."


def test_emphasis_inside_words_and_products_survives():
    assert text_of("Answer: a_b_c") == "a_b_c"
    assert text_of("Answer: 2*3*4") == "2*3*4"


@pytest.mark.parametrize("reply", [
    "**Answer:**\n369",
    "### Final Answer\n369",
    "## Answer\n\n369",
    "Answer:\n```\n369\n```",
    "**Final Answer**\n\n369",
    "**Final Answer**\n\n\\[\n\\boxed{369}\n\\]",
])
def test_a_bare_label_takes_its_value_from_the_next_line(reply):
    assert text_of(reply) == "369"


def test_the_last_answer_line_stands():
    assert text_of("Answer: 369\n\nWait, boxes are not loaves.\n\nAnswer: 367") == "367"


@pytest.mark.parametrize(("reply", "value"), [
    # a later label with a qualifier supersedes the earlier answer: the last committed answer wins
    ("Answer: 9082\n\nHmm, wait. Let me reconsider.\n\nCorrected answer: 4471", "4471"),
    ("Answer: 369\nRevised final answer: 367", "367"),
    ("**Answer:** 369\n\nSo my updated answer is: 367", "367"),
    ("Answer: 369\n\n**Corrected Answer**\n367", "367"),
    ("Short answer: 9082", "9082"),
    # a label whose qualifier sets its value aside is no answer line: the earlier answer stands
    ("Answer: 9082\nWrong answer: 4471 (the retired code)", "9082"),
    ("Answer: 9082\n\nPrevious answer: 4471", "9082"),
    ("Answer: 9082\nExample answer: 1234", "9082"),
    ("Answer: 9082\nAlternative answer: 4471", "9082"),  # read as a hedge in the tail (test_stance)
    # a label-like phrase in an aside or a quote is not at the line's start
    ("Answer: 9082\n\n(A corrected answer: 4471 would apply only to the west store.)", "9082"),
    ('Answer: 9082\n\nThe notes say "Corrected answer: 4471" nowhere.', "9082"),
    # more than two words before "answer" is a sentence, not a label
    ("Answer: 9082\nThis is not my answer: 4471", "9082"),
])
def test_the_last_committed_label_wins(reply, value):
    assert text_of(reply) == value


@pytest.mark.parametrize(("reply", "value"), [
    ("Antwort: 9082\n\nHmm, warte. Die Notiz gilt für die Westtür.\n\nKorrigierte Antwort: 4471", "4471"),
    ("Réponse : 9082\n\nAttendez, je relis les notes.\n\nRéponse corrigée : 4471", "4471"),
    ("Der Code lautet 9082.\n\nAntwort: 9082", "9082"),
])
def test_a_later_label_in_the_replys_own_language_supersedes_too(reply, value):
    assert text_of(reply) == value


def test_think_blocks_are_not_the_answer():
    assert text_of("<think>Answer: 369</think>\nAnswer: 367") == "367"
    assert text_of("Answer: 369\n<think>or is it Answer: 367") == "369"


def test_boxed_is_read_on_the_line_and_alone():
    assert text_of("**Answer:** $\\boxed{369}$") == "369"
    assert text_of("So the saving is $\\boxed{85.80}$.") == "85.80"
    assert text_of("Answer: \\boxed{\\text{fdb3}}") == "fdb3"


def test_no_answer_line_and_no_box_is_none():
    assert read_answer_line("I think it is 369.", REQUEST) is None
    assert read_answer_line("The answer is somewhere above", REQUEST) is None


def test_a_bold_phrase_that_is_not_the_label_alone_is_no_heading():
    assert read_answer_line("**Final answer below**\n369", REQUEST) is None


def test_the_text_after_the_answer_is_kept_for_the_stance_reader():
    line = read_answer_line("Working.\nAnswer: 369\n\nActually, wait: it is 367.", REQUEST)
    assert line is not None and line.text == "369" and line.tail.strip() == "Actually, wait: it is 367."
    boxed = read_answer_line("So $\\boxed{369}$.\nOr 367 if boxes do not count.", REQUEST)
    assert boxed is not None and boxed.text == "369" and boxed.tail == "Or 367 if boxes do not count."


@pytest.mark.parametrize("reply, value, label", [
    ("Zunächst hat Priya übernommen, dann Dana.\n\nAntwort: Dana", "Dana", "Antwort"),
    ("原子塔位于布鲁塞尔，所以他去过比利时。\n\n答案：Tomasz", "Tomasz", "答案"),
    ("VAR_TNXJV = 89009 입니다.\n\n답: 89009", "89009", "답"),
    ("Le total est calculé ainsi.\n\n**Réponse :** 369\n\nBonne journée", "369", "Réponse"),
])
def test_a_label_in_the_replys_own_language_is_read_by_its_shape(reply, value, label):
    line = read_answer_line(reply, REQUEST)
    assert line is not None and line.text == value
    assert line.how is not None and label in line.how


@pytest.mark.parametrize("reply", [
    "Um 10:05 hat Dana die Aufgabe übernommen.\nPriya war einverstanden und Luis hat es notiert, danke.",
    "Hier ist die Rechnung.\nSchritt 3: 12 * 4 = 48\nDas war es schon, viel Erfolg beim Lernen und Rechnen.",
    "Antwort: Dana\nweiter\nnoch mehr\nund noch mehr Text",  # a label not on the last two lines
])
def test_no_label_shape_on_the_last_lines_is_no_answer(reply):
    line = read_answer_line(reply, REQUEST)
    assert line is None or line.how is None and line.text == "Dana"


def test_an_english_label_anywhere_wins_over_a_foreign_one_at_the_end():
    line = read_answer_line("Answer: 367\n\nAntwort: 369", REQUEST)
    assert line is not None and line.text == "367" and line.how is None


@pytest.mark.parametrize("reply, value", [("Dana", "Dana"), ("10:3,8:1,4:1,3:1", "10:3,8:1,4:1,3:1"),
                                          ("**89\u00a0009**", "89\u00a0009")])
def test_a_reply_that_is_only_the_value_is_the_value(reply, value):
    line = read_answer_line(reply, REQUEST)
    assert line is not None and line.text == value and line.how is not None


@pytest.mark.parametrize("reply", ["I think it is 369.", "Dana\nPriya", "The owner after the handover is Dana"])
def test_a_sentence_or_two_lines_is_not_a_bare_value(reply):
    assert read_answer_line(reply, REQUEST) is None


@pytest.mark.parametrize("reply", [
    # another label in the request's own language is not a translation of "Answer"
    "It bakes 16 batches, so 384 loaves; 367 are sold and the 17 left fill 2 boxes.\n\n**Total: 369**\n\n"
    "Let me know if you would like the steps broken down.",
    "The loop skips the odd numbers above five, so the sevens are never counted.\n\nOutput: 10:3,8:1,4:1,3:1",
])
def test_another_label_in_the_requests_language_is_no_answer_line(reply):
    assert read_answer_line(reply, REQUEST) is None


@pytest.mark.parametrize("reply", [
    "Antwort: 9082",
    "Chain: VAR_VSPGJ ← VAR_FRFDB ← VAR_GXLNP ← VAR_JQTDJ ← VAR_RQQNL\n\nResult: 89009",
    '`words[1::2]` → ["birch", "delta", "fjord"]\nreversed → ["fjord", "delta", "birch"]\nlen → 3\n\nResult: fdb3',
])
def test_a_label_with_too_little_prose_to_show_another_language_is_no_answer_line(reply):
    # Another language must be shown; too little prose is presumed the request's, where the label is "Answer".
    assert read_answer_line(reply, REQUEST) is None


@pytest.mark.parametrize(("reply", "value"), [("答案：9082", "9082"), ("Es ist Dana.\n\nAntwort: Dana", "Dana")])
def test_a_short_reply_that_shows_its_language_keeps_its_label(reply, value):
    line = read_answer_line(reply, REQUEST)
    assert line is not None and line.text == value and line.how is not None


@pytest.mark.parametrize("reply", ["```\nfdb3\n```", "$$\n369\n$$"])
def test_a_value_alone_in_a_fence_of_its_own_is_a_bare_value(reply):
    line = read_answer_line(reply, REQUEST)
    assert line is not None and line.how is not None and line.text in {"fdb3", "369"}


@pytest.mark.parametrize("reply", ['```json\n{"VAR_VSPGJ": 89009}\n```', '{"answer": 369}',
                                   "Here it is:\n```\nfdb3\n```"])
def test_a_record_or_a_fence_after_a_lead_in_is_no_bare_value(reply):
    assert read_answer_line(reply, REQUEST) is None


@pytest.mark.parametrize("reply", [
    # a record in a fence holds the right value as data under a key, never on an answer line
    '```yaml\naction_item: vendor contract renewal\nprevious_owner: Priya\nowner: Dana\nchanged_at: "10:05:45"\n```',
    "```yaml\nowner: Dana\n```",
    "```\nowner: Dana",  # a fence left open runs to the end of the reply
    '```json\n{\n  "owner": "Dana"\n}\n```',
    "```xml\n<owner>Dana</owner>\n```",
    "~~~\nEigentümerin: Dana\n~~~",
    "Zunächst hat Priya übernommen, dann Dana.\n\n```\nAntwort: Dana\n```",
])
def test_a_line_inside_a_code_fence_is_data_not_a_label(reply):
    assert read_answer_line(reply, REQUEST) is None


@pytest.mark.parametrize(("reply", "value"), [
    ("Zunächst hat Priya übernommen, dann Dana.\n\nAntwort: Dana", "Dana"),  # the same label outside a fence
    ("```\nDana\n```", "Dana"),  # a value alone in its own fence
    ("```text\n10:3,8:1,4:1,3:1\n```", "10:3,8:1,4:1,3:1"),  # colons without a space: a value, not a key
    ("```\nAnswer: 9082\n```", "9082"),  # an English answer line in a fence is still the answer line
    ("```yaml\nowner: Priya\n```\n\nAnswer: Dana", "Dana"),
])
def test_a_fence_hides_no_answer_line_and_no_bare_value(reply, value):
    line = read_answer_line(reply, REQUEST)
    assert line is not None and line.text == value


@pytest.mark.parametrize("reply", [
    "✅ Answer: 85.80",
    "👉🏽 **Answer:** 85.80",
    "➡️ Answer: 85.80",
    "- 🔹 Answer: 85.80",
    "★★ Final answer: 85.80",
    "✔Answer: 85.80",
    "Working...\n\n🎯 **Final Answer:** 85.80\n",
])
def test_emoji_and_symbols_before_the_label_read_as_a_bullet(reply):
    line = read_answer_line(reply, INSTRUCTION)
    assert line is not None and line.text == "85.80"


def test_a_wrong_value_behind_an_emoji_is_still_that_value():
    line = read_answer_line("✅ Answer: 84.80", INSTRUCTION)
    assert line is not None and line.text == "84.80"


def test_a_qualifier_behind_an_emoji_still_decides_the_label():
    # "Wrong answer:" gives no answer line, emoji or not; the last committing line stands.
    line = read_answer_line("Answer: 85.80\n\n❌ Wrong answer: 4471", INSTRUCTION)
    assert line is not None and line.text == "85.80"
    assert read_answer_line("❌ Wrong answer: 4471\nAnd more text here.", INSTRUCTION) is None


def test_a_symbol_inside_a_sentence_makes_no_label():
    assert read_answer_line("I think ✅ the answer: maybe 85.80 or 90, hard to say here.", INSTRUCTION) is None


@pytest.mark.parametrize(("reply", "value"), [
    (r"\textbf{Answer:} \texttt{fdb3}", "fdb3"),
    (r"\textit{Final answer:} $\mathbf{369}$", "369"),
    ("Working.\n\n\\emph{Answer:}\n\\texttt{Dana}", "Dana"),
    (r"Answer: $\boxed{\text{fdb3}}$", "fdb3"),
])
def test_latex_text_markup_around_label_and_value(reply, value):
    line = read_answer_line(reply, INSTRUCTION)
    assert line is not None and line.text == value


def test_latex_markup_without_a_label_gives_no_answer_line():
    assert read_answer_line("The program prints \\texttt{fdb3} after the loop runs over the slice.",
                            INSTRUCTION) is None
