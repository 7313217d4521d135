"""LaTeX text markup in prose read as the text it typesets (engine.readers.latex_text)."""

from __future__ import annotations

import time

import pytest

from engine.episodes.structure import plain_text
from engine.readers.latex_text import latex_text


@pytest.mark.parametrize(("raw", "read"), [
    (r"\textbf{Answer:} \texttt{fdb3}", "Answer: fdb3"),
    (r"Water boils at $100\,^{\circ}\mathrm{C}$ at sea level.", "Water boils at 100 °C at sea level."),
    (r"It froze at $-4^\circ$C overnight.", "It froze at -4°C overnight."),
    (r"About 37\degree C in the body.", "About 37° C in the body."),
    (r"\emph{Note:} the \textit{\textbf{total}} is \(12\;\text{kg}\).", "Note: the total is 12 kg."),
    (r"The indices are $1, 3, 5$ and $\operatorname{len}(x) = 3$.", "The indices are 1, 3, 5 and len(x) = 3."),
    (r"$5~\mathrm{km}$ away", "5 km away"),
    (r"Population: $1\,500$", "Population: 1500"),
])
def test_formatting_degrees_spacing_and_plain_math_read_as_text(raw, read):
    assert latex_text(raw) == read


@pytest.mark.parametrize("raw", [
    "I paid $5 and $6 for them.",          # two prices, not a math pair
    r"The ratio is $\frac{1}{2}$ exactly.",  # math that computes stays as written
    r"$x^2 + y_1$",                         # not plain: superscripts and subscripts stay math
    r"Braces stay: \{a, b\} and {c}.",
    "No LaTeX here at all.",
])
def test_what_is_not_text_markup_stays_as_written(raw):
    assert latex_text(raw) == raw


def test_code_spans_and_fences_are_read_as_written():
    raw = "Use `\\textbf{x}` then \\textbf{y}.\n```\n$\\texttt{z}$\n```\n"
    assert latex_text(raw) == "Use `\\textbf{x}` then y.\n```\n$\\texttt{z}$\n```\n"


def test_line_breaks_are_kept():
    raw = "\\textbf{a\nb}\n$1$\n"
    assert latex_text(raw).count("\n") == raw.count("\n")


def test_the_instruction_checks_read_it_through_plain_text():
    assert plain_text(r"Water boils at $100\,^{\circ}\mathrm{C}$.") == "Water boils at 100 °C."


@pytest.mark.parametrize("hostile", ["\\textbf{" * 40_000, "$" * 100_000, "^{" * 50_000, "\\(" * 50_000,
                                     "$a" * 50_000, "^{\\circ" * 20_000])
def test_hostile_runs_cost_linear_time(hostile):
    start = time.monotonic()
    latex_text(hostile)
    assert time.monotonic() - start < 2.0
