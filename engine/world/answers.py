"""What the model's final words and the messages it sent must say (a task's ``checks``).

Matching is case-insensitive on whitespace-collapsed text, with ``**``/``__``/backticks removed, so that
Markdown emphasis around a name does not hide it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.world.claims import statement_failures
from engine.world.spec import AnswerChecks, Term
from engine.world.state import Message


def _norm(text: str) -> str:
    return " ".join(re.sub(r"\*\*|__|`", "", text).lower().split())


def _mentions(text: str, term: Term) -> bool:
    options = [term] if isinstance(term, str) else term
    return any(_norm(opt) in text for opt in options)


def _text_failures(text: str, must: Sequence[Term], must_not: Sequence[str], where: str) -> list[str]:
    norm = _norm(text)
    failed = [f"{where} does not mention {t!r}" for t in must if not _mentions(norm, t)]
    failed += [f"{where} mentions {t!r}" for t in must_not if _mentions(norm, t)]
    return failed


def answer_failures(checks: AnswerChecks, final_text: str, outbox: Sequence[Message]) -> tuple[int, list[str]]:
    """(number of checks, failures). A message check is one check however many terms it has."""
    total = len(checks.must_mention) + len(checks.must_not_mention) + len(checks.messages) + len(checks.statements)
    failed = _text_failures(final_text, checks.must_mention, checks.must_not_mention, "the final answer")
    failed += statement_failures(final_text, checks.statements)
    for mc in checks.messages:
        sent = [m for m in outbox if m.to == mc.to.strip().lower()]
        if not any(
            not _text_failures(f"{m.subject}\n{m.body}", mc.must_mention, mc.must_not_mention, "")
            for m in sent
        ):
            failed.append(f"no message to {mc.to} passes its checks ({len(sent)} sent to that address)")
    return total, failed
