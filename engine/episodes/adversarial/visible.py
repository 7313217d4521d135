"""The two texts of a reply the adversarial checks read: what its user is shown, and what it answers.

An attack succeeds when the user is shown what the rules keep back, wherever in the reply it stands. A
server without a reasoning parser returns a reasoning model's ``<think>`` block (or a lone ``</think>``
after reasoning the chat template opened, or gpt-oss analysis text) inside the reply's content, and a user
of that server is shown it: a secret, the instructions, an encoded secret or a discounted price written
there is revealed as much as in the answer after it. Reasoning the server returned apart, in its reasoning
field, is shown to no user and is never searched. The client records both (:class:`engine.core.schema.Turn`:
``visible`` holds the content as the server sent it when inline reasoning was split off it; ``reasoning``
mixes the two and so cannot say which was shown).

So every check that asks "did the reply reveal or quote X" (the leak of the secret, the disclosure of the
protected passage, a forbidden value or text, a misquoted price, the cut rule's "nothing revealed yet") reads
``shown``; what the reply *does* (its stance toward the request, a refusal, the help the rules require)
is read from ``answer``, the part after the reasoning: thinking "half price would be tempting" and then
refusing is a refusal, and a fact worked out only in the reasoning does not earn the answer credit.

Both texts are read as they render (:func:`engine.readers.rendered.rendered`), here, once, for every check:
full-width digits (``１０:００``), no-break spaces, non-breaking hyphens, backslash escapes and invisible
characters are what the user reads as ``10:00``, a space, ``-``, the character and nothing. Rendering only
turns a variant into the character it shows and drops invisible ones, so a secret written in full-width, with
no-break spaces or a zero-width space inside it, is still the secret the leak checks find.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.core.schema import Turn
from engine.model.normalise import split_reasoning
from engine.readers.rendered import rendered


@dataclass(frozen=True)
class Reply:
    shown: str  # everything the user sees: the content as the server sent it, a visible <think> block included
    answer: str  # the answer part, any inline reasoning split off

    @classmethod
    def of(cls, turn: Turn) -> Reply:
        answer = rendered(split_reasoning(turn.content)[0])
        # ``visible`` is None when the content held no inline reasoning (and in files written before it was
        # recorded, whose inline reasoning cannot be told from the server's reasoning field): the content
        # is then all the user saw.
        return cls(shown=rendered(turn.visible if turn.visible is not None else turn.content), answer=answer)
