"""LaTeX text markup in a reply's prose, read as the text it typesets.

Some models write their prose in LaTeX: ``\\textbf{Answer:} \\texttt{fdb3}``, ``Water boils at
$100\\,^{\\circ}\\mathrm{C}$``. A reader of the rendered page sees ``Answer: fdb3`` and ``100 °C``; the prose
readers (the answer line, the instruction and quantity checks, through
:func:`engine.episodes.structure.prose`) read that text, through :func:`latex_text`:

- a formatting command reads as its argument: a backslash command of the ``\\text…`` or ``\\math…`` family
  (``\\textbf``, ``\\texttt``, ``\\text``, ``\\mathrm``, ``\\mathbf``, ``\\mathbb`` …) or one of the few others
  whose only job is to style one braced argument (``\\emph``, ``\\operatorname``, ``\\underline``, ``\\mbox``,
  ``\\bm``, ``\\boldsymbol``). Read by shape, not by a list of every style: a command of those families
  followed by a brace. A command that computes (``\\frac{1}{2}``, ``\\sqrt{2}``) stays as written;
- a degree sign (``^{\\circ}``, ``^\\circ``, ``\\degree``, ``\\textdegree``) reads ``°``;
- a spacing command (``\\,``, ``\\;``, ``\\:``, ``\\ ``, ``\\quad``, ``\\qquad``) reads as a space, the negative
  space ``\\!`` as nothing, and a thin space between two digits (``1\\,500``, grouping thousands) as nothing;
- inline math (``$…$``, ``\\(…\\)``) whose content, read so, is plain (no backslash command, no ``^``, ``_``
  or brace left) loses its delimiters, and a ``~`` (a tie) in it reads as a space: ``$1, 3, 5$`` is
  ``1, 3, 5``. A dollar pair is math only as Pandoc reads it: a non-space after the opening ``$``, a
  non-space before the closing one and no digit after it, so ``$5 and $6`` stays two prices. Display
  math (``$$``, ``\\[``) and ``\\boxed{}`` are left to the answer line, which reads them as the answer.

Code is read as written (code fences and spans, :func:`engine.readers.rendered.code_ranges`), and so are
the answers this is no reading of: code, the JSON the format module parses, and a task's ``regex`` on the
raw text. Each step is one pass over the text (the braces matched with a stack), so a hostile reply (a long
run of ``\\textbf{``, of ``$``, of ``^{``) costs time linear in its length; no line break is added or
removed, so line numbers hold.
"""

from __future__ import annotations

import re

from engine.readers.rendered import code_ranges

# A formatting command and its opening brace: the \text… and \math… families and the few others that only
# style their one argument.
_FORMAT = re.compile(
    r"\\(?:text[a-z]*|math[a-z]*|emph|operatorname\*?|underline|mbox|hbox|bm|boldsymbol)\s*\{")
# A degree sign in its LaTeX spellings (an empty group before ^ is a common way to attach it).
_DEGREE = re.compile(r"(?:\{\})?\^\s*(?:\{\s*\\circ\s*\}|\\circ(?![A-Za-z]))|\\(?:text)?degree(?![A-Za-z])(?:\{\})?")
# Spacing commands: the ones that read as a space, and the negative thin space, which reads as nothing.
_SPACE = re.compile(r"(?<=\d)\\,(?=\d)|(?P<space>\\(?:[,;: ]|q?quad(?![A-Za-z])))|\\!")
# Inline math, once its commands are read: content holding no backslash, caret, underscore or brace (so a
# failed match stops at the next one: linear), on one line. Dollars as Pandoc pairs them.
_PLAIN = r"[^\\^_{}$\n]"
_INLINE = re.compile(
    rf"(?<![\\$])\$(?![\s$])(?P<dollar>{_PLAIN}*?)(?<=[^\s\\])\$(?![$\d])"
    rf"|\\\((?P<paren>{_PLAIN}*)\\\)")


def latex_text(text: str) -> str:
    """``text`` with LaTeX text markup read as the text it typesets (see the module's notes); code as written."""
    if "\\" not in text and "$" not in text:
        return text
    pieces: list[str] = []
    at = 0
    for start, end in code_ranges(text):
        pieces += [_read(text[at:start]), text[start:end]]
        at = end
    pieces.append(_read(text[at:]))
    return "".join(pieces)


def _read(text: str) -> str:
    if "\\" in text:
        text = _DEGREE.sub("°", text)
        text = _unwrap(text)
        text = _SPACE.sub(lambda m: " " if m.group("space") else "", text)
    if "$" in text or "\\(" in text:
        text = _INLINE.sub(lambda m: (m.group("dollar") if m.group("dollar") is not None
                                      else m.group("paren")).replace("~", " "), text)
    return text


def _unwrap(text: str) -> str:
    """Each formatting command's argument in place of the command: its opening and matching closing brace
    dropped, other braces kept. One pass with a stack of the open braces (a brace left open reads to the end),
    so nesting costs nothing extra."""
    out: list[str] = []
    stack: list[bool] = []  # for each open brace: whether it is a formatting command's, to drop its closer
    at = 0
    for m in re.finditer(r"\\[{}]|(?P<format>" + _FORMAT.pattern + r")|\{|\}", text):
        out.append(text[at:m.start()])
        token = m.group(0)
        at = m.end()
        if m.group("format"):
            stack.append(True)
        elif token == "{":
            stack.append(False)
            out.append(token)
        elif token == "}":
            if not (stack and stack.pop()):
                out.append(token)
        else:
            out.append(token)  # an escaped brace, \{ or \}: a literal brace, never a group
    out.append(text[at:])
    return "".join(out)
