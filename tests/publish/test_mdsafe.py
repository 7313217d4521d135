"""Text from a pull request stays text in the Markdown job summary, on the line it was placed on."""

from __future__ import annotations

import html
import re

import pytest
from markdown_it import MarkdownIt

from engine.publish.mdsafe import md_code, md_text

# CommonMark with GitHub's tables and strikethrough; the parser rich already depends on.
MD = MarkdownIt("commonmark").enable(["table", "strikethrough"])
PAYLOADS = [
    "![x](https://e.example/p.png)",
    "[click](javascript:alert(1))",
    "`code` span",
    "<img src=x onerror=alert(1)>",
    "&lt;entity &amp; &#60;",
    "a | b | c",
    "**bold** and _em_ and *em*",
    "<https://e.example/autolink>",
    "~~strike~~",
    "back\\slash \\` done",
]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_markup_renders_as_the_text_it_was(payload: str) -> None:
    rendered = MD.render(f"- {md_text(payload)}\n")
    assert set(re.findall(r"</?([a-z0-9]+)", rendered)) == {"ul", "li"}, rendered
    assert html.unescape(re.sub(r"<[^>]+>", "", rendered)).strip() == payload


@pytest.mark.parametrize("payload", ["https://e.example/x", "www.e.example", "me@e.example", "$x^2$"])
def test_what_only_github_would_link_or_typeset_is_broken_up(payload: str) -> None:
    # GitHub also links bare addresses and typesets $math$: an escape inside each keeps them text.
    escaped = md_text(payload)
    assert payload not in escaped and escaped.replace("\\", "") == payload


def test_a_value_never_starts_a_line_of_its_own() -> None:
    text = md_text("name\n::error title=x::pwned\r\n::warning::y\u2028z\u202e")
    assert "\n" not in text and "\r" not in text and "\u2028" not in text and "\u202e" not in text
    assert "\\\\u000a" in text and "\\\\u202e" in text


def test_long_values_are_clipped() -> None:
    assert len(md_text("x" * 10_000)) == 2_000


def test_a_code_span_only_where_it_is_literal() -> None:
    assert md_code("results/reference/qwen3:8b_raw_results.json") == "`results/reference/qwen3:8b_raw_results.json`"
    assert md_code("a`b") == "a\\`b"
    assert md_code("a\nb") == "a\\\\u000ab"
