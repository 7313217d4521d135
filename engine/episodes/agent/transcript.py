"""What a stored tools episode says, read once from its turns: the calls in order, the tool messages the
model was sent, how the episode ended and the model's final words."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from engine.core.schema import ToolCall, Turn

# answered: the last reply made no call; max_turns: the loop stopped while the model was still calling;
# no_reply: the model never replied.
Stopped = Literal["answered", "max_turns", "no_reply"]


@dataclass(frozen=True)
class Transcript:
    assistant: tuple[Turn, ...]
    calls: tuple[ToolCall, ...]
    # The loop answers every call with one tool message, in call order.
    tool_messages: tuple[str, ...]
    stopped: Stopped
    final_text: str

    @property
    def text_calls(self) -> int:
        """Calls the client recovered from the reply's text rather than the server's tool-call field."""
        return sum(1 for c in self.calls if c.from_text)


def read_transcript(turns: Sequence[Turn]) -> Transcript:
    assistant = tuple(t for t in turns if t.role == "assistant")
    last = assistant[-1] if assistant else None
    stopped: Stopped = "no_reply" if last is None else "max_turns" if last.tool_calls else "answered"
    return Transcript(
        assistant=assistant,
        calls=tuple(c for t in assistant for c in t.tool_calls),
        tool_messages=tuple(t.content for t in turns if t.role == "tool"),
        stopped=stopped,
        # The model's last reply without a call: with one user message, the reply that ended the episode.
        final_text=next((t.content for t in reversed(assistant) if not t.tool_calls), ""),
    )
