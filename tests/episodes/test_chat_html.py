"""The reader of inline chat HTML: markup a chat window renders is read as the Markdown it stands for by the
answer-line and structure readers, and text that only names a tag, code, JSON and documents are read as
written. Each reading has a case it must find and a near case it must leave alone, and a wrong value, a
short list or a line that is no title still fails when written in HTML."""

from __future__ import annotations

import time

import pytest
from pydantic import TypeAdapter

from engine.episodes.answer_line import read_answer_line
from engine.episodes.chat_html import as_markdown, is_markup
from engine.episodes.checks import CheckSpec
from engine.episodes.checks.base import Subject
from engine.episodes.structure import headings, last_line, list_items, sentences, title_line, words

CHECKS = TypeAdapter(CheckSpec)


def run(reply: str, **fields) -> bool:
    return CHECKS.validate_python(fields).run(Subject(reply))[0]


def answer(reply: str) -> str | None:
    line = read_answer_line(reply, "How many loaves were sold? End with 'Answer: <value>'.")
    return None if line is None else line.text


# ------------------------------------------------------------------------------------------------ the reader


@pytest.mark.parametrize("html,markdown", [
    ("<b>Answer:</b> 369", "**Answer:** 369"),
    ("<strong>Answer:</strong> Dana<br>", "**Answer:** Dana"),
    ("Step one.<br>Step two.<br/>Step three.<br />", "Step one.\nStep two.\nStep three."),
    ("<p>First paragraph.</p><p>Second <em>one</em>.</p>", "First paragraph.\n\nSecond *one*."),
    ("Tips:\n<ul>\n<li>Copper tape</li>\n<li>Beer traps</li>\n</ul>", "Tips:\n- Copper tape\n- Beer traps"),
    ("<ol><li>Red</li><li>Blue</li></ol>", "1. Red\n2. Blue"),
    ('<ol start="4"><li>Four</li><li>Five</li></ol>', "4. Four\n5. Five"),
    # Items left open, as HTML allows: the next item or the list's end closes them.
    ("<ul><li>one<li>two</ul>", "- one\n- two"),
    ("<ul><li>Fruit<ul><li>Apple</li><li>Pear</li></ul></li><li>Bread</li></ul>",
     "- Fruit\n  - Apple\n  - Pear\n- Bread"),
    ("<h2>Garden <i>notes</i></h2><p>Water daily.</p>", "## Garden *notes*\n\nWater daily."),
    ("<b> Answer: </b>369", "**Answer:** 369"),
    ("Fish &amp; chips cost &lt;&nbsp;10 <b>euros</b>", "Fish & chips cost < 10 **euros**"),
    ("Run <code>ls -l</code> then <kbd>q</kbd>.<br>", "Run `ls -l` then `q`."),
    ("<pre><code>x = 1\nprint(x)</code></pre><br>", "```\nx = 1\nprint(x)\n```"),
    ('<a href="https://example.org">the docs</a> say <u>so</u>.<br>', "the docs say __so__."),
    ("<b>Title</b><br>\nBody text.", "**Title**\nBody text."),
    ("<b>a\nb</b>", "**a**\n**b**"),
])
def test_markup_reads_as_the_markdown_it_stands_for(html, markdown):
    assert is_markup(html)
    assert as_markdown(html) == markdown


@pytest.mark.parametrize("text", [
    "The <b> tag makes text bold.",  # a tag named, never closed
    "Close the list with </ul> after the last item.",
    'Wrap the title in "<h1>" and the items in "<li>".',  # tags in quotation marks
    "Use `<b>bold</b>` for bold and `<br>` for a break.",  # code spans
    "```html\n<ul>\n<li>a</li>\n</ul>\n```",  # a code fence
    "Use <br> for a line break in HTML.",  # one <br> inside a sentence names it
    "<owner>Dana</owner>",  # tags no chat window renders: data
    "<post>Rye is back! #JuniperBakes</post>",
    '{"summary": "<b>Rye</b> is back", "items": ["<li>a</li>"]}',  # a JSON answer
    "<?xml version=\"1.0\"?>\n<note><b>x</b></note>",  # an XML document
    "<!DOCTYPE html>\n<html><body><p>Hi</p></body></html>",  # an HTML document
    "if a < b and c > d: print(a)",
    "Answer: 369",
])
def test_text_that_only_names_tags_or_is_data_is_read_as_written(text):
    assert not is_markup(text)
    assert as_markdown(text) == text


def test_code_inside_markup_is_kept_as_written():
    reply = "<p>Run this:</p>\n```\n<b>not bold</b> &amp;\n```\n<p>Then <code>&lt;b&gt;</code>.</p>"
    out = as_markdown(reply)
    assert "```\n<b>not bold</b> &amp;\n```" in out
    assert "`<b>`" in out  # entities decoded in what the markup holds


# ------------------------------------------------------------------------------------------- answer line


@pytest.mark.parametrize("reply,value", [
    ("So the total is 367 + 2 = 369.<br>\n<b>Answer:</b> 369", "369"),
    ("<p>Dana took it over.</p><p><strong>Answer:</strong> Dana</p>", "Dana"),
    ("Reversed: <code>fdb</code>.<br><b>Answer:</b> <code>fdb3</code>", "fdb3"),
    ("<ul><li>Odile: no</li><li>Tomasz: yes</li></ul><b>Answer: Tomasz</b>", "Tomasz"),
    ("<i>Final answer:</i> 89&nbsp;009<br>", "89 009"),
    ("<h3>Answer</h3>\n<p>369</p>", "369"),
])
def test_an_answer_line_in_html_is_read(reply, value):
    assert answer(reply) == value


@pytest.mark.parametrize("reply,value", [
    ("<b>Answer:</b> 386<br>", "386"),  # a wrong value in markup is still that wrong value
    ("<b>Answer:</b> 369<br><b>Corrected answer:</b> 367", "367"),  # the last answer line stands
])
def test_a_wrong_value_in_html_is_read_as_that_value(reply, value):
    assert answer(reply) == value


def test_a_reply_without_an_answer_line_gets_none_from_markup():
    assert answer("<p>It sold <b>367</b> loaves and packed 2 boxes, <i>369</i> in all.</p>") is None


# ------------------------------------------------------------------------------------------------ lists


@pytest.mark.parametrize("reply,count", [
    ("Garden note: three slug tips:\n<ul>\n<li>Copper tape</li>\n<li>Beer traps</li>\n<li>Eggshells</li>\n</ul>", 3),
    ("<ol><li>Keep Brightwater.</li><li>12% rise.</li><li>Weekly deep clean.</li></ol>", 3),
    ("Summary:<ul><li>one<li>two<li>three</ul>Thanks!", 3),
    ("<ul>\n  <li>\n    Copper tape\n  </li>\n  <li>Beer traps</li>\n</ul>", 2),
])
def test_an_html_list_is_counted_by_its_items(reply, count):
    assert len(list_items(reply)) == count
    assert run(reply, check="list_items", min=count, max=count)


def test_an_html_list_one_item_short_fails_the_count():
    reply = "Garden note: three slug tips:\n<ul>\n<li>Copper tape</li>\n<li>Beer traps</li>\n</ul>"
    assert not run(reply, check="list_items", min=3, max=3)
    assert run(reply, check="list_items", min=2, max=2)


def test_an_html_list_keeps_its_style():
    assert run("<ol><li>a</li><li>b</li></ol>", check="list_items", style="numbered", min=2)
    assert not run("<ul><li>a</li><li>b</li></ul>", check="list_items", style="numbered", min=1)


def test_a_sequence_check_reads_html_items_on_their_lines():
    reply = "The inner planets:<ol><li>Mercury</li><li>Venus</li><li>Earth</li><li>Mars</li></ol>"
    assert run(reply, check="sequence", items=["Mercury", "Venus", "Earth", "Mars"])
    assert not run(reply.replace("Venus", "Pluto"), check="sequence", items=["Mercury", "Venus", "Earth", "Mars"])


# ------------------------------------------------------------------------------------- headings and title


@pytest.mark.parametrize("reply", [
    "<b>Harbor Sync 3.2: novedades</b><br>\nHarbor Sync 3.2 ya está disponible. Las subidas se reanudan.",
    "<strong>Resumen</strong><br><br>Harbor Sync 3.2 ya está disponible.",
    "<h2>Resumen</h2><p>Harbor Sync 3.2 ya está disponible.</p>",
    "<p><b>Weekly summary</b></p><p>Sync resumes after a lost connection.</p>",
])
def test_an_html_title_line_is_a_title_line(reply):
    assert title_line(reply) is not None
    assert not run(reply, check="headings", max=0)


@pytest.mark.parametrize("reply", [
    "<b>Note:</b> Harbor Sync 3.2 ships on Monday.<br>Uploads resume after a lost connection.",
    "<b>Harbor Sync 3.2 ya está disponible.</b><br>Las subidas se reanudan tras una conexión perdida.",
    "Harbor Sync 3.2 is out, with <b>resumable uploads</b>.<br>The default backoff is now 750 ms.",
    "<p>Harbor Sync 3.2 ya está disponible y las subidas se reanudan.</p>",
])
def test_bold_that_is_no_title_line_is_not_one(reply):
    assert title_line(reply) is None
    assert run(reply, check="headings", max=0)


def test_html_headings_further_down_are_counted():
    reply = "<p>Intro text here.</p><h3>Setup</h3><p>Install it.</p><h3>Use</h3><p>Run it.</p>"
    assert [h.text for h in headings(reply)] == ["Setup", "Use"]


# ------------------------------------------------------------------------------ the other prose readers


def test_sentences_words_and_the_last_line_read_through_markup():
    reply = "<p>Water lettuce every morning.</p><p>Keep the soil moist.</p>\n<b>Next?</b>"
    assert sentences(reply) == ["Water lettuce every morning.", "Keep the soil moist.", "Next?"]
    assert last_line(reply) == "Next?"
    assert run(reply, check="ends_with", text="Next?", line=True)
    assert not run(reply.replace("<b>Next?</b>", "<b>Next?</b> Anything else"), check="ends_with",
                   text="Next?", line=True)
    # Tags are no words: "<ul>" on a line of its own was counted as one.
    assert run("<ul>\n<li>one two</li>\n<li>three</li>\n</ul>", check="word_count", max=3)
    assert len(words(as_markdown("<ul>\n<li>one two</li>\n</ul>"))) == 2


def test_a_rule_about_the_start_reads_through_bold_markup():
    assert run("<b>Garden note:</b> mulch with straw.", check="starts_with", text="Garden note:")
    assert not run("<b>Note:</b> mulch with straw.", check="starts_with", text="Garden note:")


# ------------------------------------------------------------------------------------------ hostile text

N = 100_000


@pytest.mark.parametrize("name,text", [
    ("lt_run", "<" * N),
    ("unclosed", "<b>a " * (N // 5)),
    ("nested", "<b>" * N + "x" + "</b>" * N),
    ("nested_mixed", "<b><i><u>" * (N // 3) + "x" + "</u></i></b>" * (N // 3)),
    ("nested_lists", "<ul><li>a" * (N // 2) + "</li></ul>" * (N // 2)),
    ("open_items", "<li>x" * N),
    ("long_attributes", ("<b " + "x" * 290) * (N // 100)),
    ("breaks", "<br>" * N),
    ("entities", "<b>a</b>" + "&amp;" * N),
])
def test_the_reader_is_linear_on_hostile_text(name, text):
    as_markdown.cache_clear()
    started = time.perf_counter()
    out = as_markdown(text)
    read_answer_line(text, "")
    list_items(text)
    headings(text)
    assert isinstance(out, str)
    assert time.perf_counter() - started < 20.0, name
