"""Turn what different servers send into one shape: reasoning apart from the answer.

Servers disagree on where reasoning goes (``reasoning_content``, ``reasoning``, inline ``<think>``). Graders must
only ever see the answer, so this runs on every reply; tool calls a model wrote as text are read apart, by
:mod:`engine.model.textcalls`.

Every step is a forward scan with ``str.find`` (or a regular expression whose matches cannot overlap), so a
reply of any length is read in time proportional to its length: ``--stop-loops`` runs this on a growing stream.
"""

from __future__ import annotations

import re

# gpt-oss's harmony format with its special tokens left in (a server with no reasoning parser). Each match
# ends at the next channel marker at the latest, so matches never overlap and a scan is linear.
_HARMONY_ANALYSIS = re.compile(
    r"<\|channel\|>\s*analysis\s*<\|message\|>(.*?)(?:<\|end\|>|(?=<\|start\|>)|(?=<\|channel\|>)|$)",
    re.DOTALL,
)
_HARMONY_FINAL = re.compile(
    r"<\|channel\|>\s*final\s*<\|message\|>(.*?)(?:<\|return\|>|<\|end\|>|$)", re.DOTALL
)
_HARMONY_TOKEN = re.compile(r"<\|(?:start|end|return|channel|message)\|>")
_OPEN, _CLOSE = "<think>", "</think>"
_SEED_OPEN, _SEED_CLOSE = "<seed:think>", "</seed:think>"
# Chat-template end markers a server left in the text (``<|im_end|>``, ``<|eot_id|>``, ``<|end|>``,
# ``<|endoftext|>``, ``<end_of_turn>``, ``</s>``): read by their shape, a special token whose name begins
# with end / eot / eom / eos, and only where they end the reply, so other markers (a text tool call's
# ``<|tool_call_end|>``) stay for :mod:`engine.model.textcalls`. The scan looks at the reply's last 400
# characters only.
# A turn the template opened after the answer and left empty (``<|im_end|>\n<|im_start|>assistant``) is debris
# of the same kind, dropped with them.
_END_TOKENS = re.compile(r"(?:\s*(?:<\|(?:im_)?(?:end|eot|eom|eos)[a-z_]{0,16}\|>|<(?:end|eot|eos)_[a-z_]{1,16}>"
                         r"|</s>|<\|im_start\|>[a-z]{0,16}|<start_of_turn>[a-z]{0,16}"
                         r"|<\|start_header_id\|>[a-z]{0,16}<\|end_header_id\|>))+\s*\Z")
# The mirror at the start: the template's role header for the answer, leaked by a server that printed the
# turn's opening (``<|im_start|>assistant``, ``<|start_header_id|>assistant<|end_header_id|>``,
# ``<start_of_turn>model``, ``<|assistant|>``, or with the special tokens stripped, a first line that is only
# "assistant" or "model"). Read by its shape, a first line that is nothing but the role: a special token is
# never the model's prose, so it goes even with the text on its line; the bare word goes only when a line break
# and more text follow it, so "Assistant: Dana", "Model: X-200", a sentence that begins with the word and a
# reply that is only the word stay. An optional begin-of-text token may come first.
# The whitespace before the header and after it is skipped in code (:func:`_unwrapped`), not by the pattern:
# two runs of ``\s*`` side by side (before and after the optional token, or ``[ \t]*\n?`` then ``\s*`` after
# the header) split a long run of blanks in every way, quadratic: a reply of sixty thousand spaces took a minute.
_ROLE = r"(?:assistant|model)"
_ROLE_HEADER = re.compile(
    r"(?:<\|begin_of_text\|>|<bos>|<s>)?\s*"
    r"(?:<\|im_start\|>[ \t]*" + _ROLE + r"(?![\w-])|<\|start_header_id\|>[ \t]*" + _ROLE
    + r"[ \t]*<\|end_header_id\|>|<start_of_turn>[ \t]*" + _ROLE + r"(?![\w-])|<\|" + _ROLE + r"\|>"
    r"|" + _ROLE + r"[ \t]*\n)",
    re.IGNORECASE,
)
# Hunyuan's answer block: the whole answer between ``<answer>`` and ``</answer>`` (the close may be cut off).
_ANSWER_BLOCK = re.compile(r"\A\s*<answer>(.*?)(?:</answer>\s*)?\Z", re.DOTALL)


def split_reasoning(content: str) -> tuple[str, str | None]:
    """Return (answer, reasoning) from content that may hold inline reasoning.

    Handles balanced ``<think>…</think>`` blocks (Seed-OSS's ``<seed:think>`` read as the same), a lone
    ``</think>`` (the template opened the block for the model, so everything before the last one is
    reasoning), an unclosed ``<think>`` (the model never finished
    thinking: everything after it is reasoning) and gpt-oss analysis text leaked by a server without a
    reasoning parser, either as plain ``analysis…assistantfinal`` or with its ``<|channel|>`` tokens still in.
    Chat-template end markers that close the answer and a role header that opens it are dropped, and an
    answer wrapped whole in
    ``<answer>…</answer>`` (Hunyuan) is unwrapped.
    """
    parts: list[str] = []
    if _SEED_OPEN in content or _SEED_CLOSE in content:
        # Seed-OSS writes the same block under its own tag name.
        content = content.replace(_SEED_OPEN, _OPEN).replace(_SEED_CLOSE, _CLOSE)
    if "<|channel|>" in content:
        content = _harmony(content, parts)
    text = _think_blocks(content, parts)
    if _CLOSE in text:
        before, _, text = text.rpartition(_CLOSE)
        parts.append(before.replace(_OPEN, "").strip())
    if _OPEN in text:
        text, _, after = text.partition(_OPEN)
        parts.append(after.strip())
    text = _gpt_oss_plain(text, parts)
    reasoning = "\n\n".join(p for p in parts if p) or None
    return _unwrapped(text).strip(), reasoning


def _unwrapped(text: str) -> str:
    """The answer without the template's role header before it, its end markers after it and an ``<answer>``
    block around it."""
    # After the leading blanks (``str.isspace`` is what ``\s`` matches); a header counts only with text after it.
    header = _ROLE_HEADER.match(text, len(text) - len(text.lstrip()))
    if header and (after := text[header.end():].lstrip()):
        text = after
    end = _END_TOKENS.search(text[-400:])
    if end:
        text = text[: len(text) - 400 + end.start()] if len(text) > 400 else text[: end.start()]
    block = _ANSWER_BLOCK.match(text)
    if block and "<answer>" not in block.group(1):
        return block.group(1)
    return text


def _think_blocks(text: str, parts: list[str]) -> str:
    """``text`` without its balanced ``<think>…</think>`` blocks (each the nearest close after its open);
    their insides go to ``parts``. A ``<think>`` with no close after it ends the search: none follows."""
    kept: list[str] = []
    at = 0
    while (start := text.find(_OPEN, at)) >= 0:
        end = text.find(_CLOSE, start + len(_OPEN))
        if end < 0:
            break
        kept.append(text[at:start])
        parts.append(text[start + len(_OPEN):end].strip())
        at = end + len(_CLOSE)
    if at == 0:
        return text
    kept.append(text[at:])
    return "".join(kept)


def _gpt_oss_plain(text: str, parts: list[str]) -> str:
    """gpt-oss with its special tokens stripped: ``analysis…assistantfinal`` at the very start."""
    lead = len(text) - len(text.lstrip())
    if not text.startswith("analysis", lead):
        return text
    end = text.find("assistantfinal", lead + len("analysis"))
    if end < 0:
        return text
    parts.append(text[lead + len("analysis"):end].strip())
    return text[end + len("assistantfinal"):]


def _harmony(content: str, parts: list[str]) -> str:
    """Keep the final channel of leaked gpt-oss harmony text as the answer; analysis goes to reasoning."""
    parts.extend(m.group(1).strip() for m in _HARMONY_ANALYSIS.finditer(content))
    finals = [m.group(1) for m in _HARMONY_FINAL.finditer(content)]
    if finals:
        return "".join(finals)
    # Analysis only (the budget ran out before the final channel): no answer at all.
    rest = _HARMONY_TOKEN.sub("", _HARMONY_ANALYSIS.sub("", content)).strip()
    return "" if rest == "assistant" else rest
