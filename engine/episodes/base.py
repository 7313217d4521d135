"""What every module provides, and the conversation object modules drive.

A module is a plain object with its ``spec`` (name, label, weights, judge policy, capabilities: see
``engine.episodes.spec``), a pydantic model for its task ``body``, an async ``run`` that plays one episode
against the model, and a ``grade`` that judges a finished transcript. ``grade`` depends only on
the task and the stored turns, so ``rescore`` can regrade old result files without calling a model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from pydantic import BaseModel

from engine.core.errors import Truncated
from engine.core.schema import AssistantTurn, Grade, Task, Turn
from engine.episodes.spec import ModuleSpec
from engine.model.textcheck import truncation_class
from engine.sandbox.handle import SandboxHandle

if TYPE_CHECKING:
    from engine.model.client import ChatClient


# A module's task body: the pydantic model it validates ``body`` of its task files with (``Module.body_model``).
BodyT = TypeVar("BodyT", bound=BaseModel)


@dataclass(frozen=True)
class LoadedTask(Generic[BodyT]):
    """A validated task: the shared fields, the module's parsed body, and the stable hash. A module's methods
    take ``LoadedTask[ItsBody]``, so ``task.body`` is typed where it is read."""

    task: Task
    body: BodyT
    hash: str
    path: str

    @property
    def id(self) -> str:
        return self.task.id


@dataclass
class Env:
    """What an episode may use besides the model: run settings and, for code, the sandbox."""

    max_tokens: int | None = None
    seed: int | None = None
    sandbox: SandboxHandle | None = None
    extras: dict[str, Any] = field(default_factory=dict)
    # What the episode did besides talking, in order, for its grade to read instead of doing it again (the
    # code module's sandbox run of each attempt). The runner gives each trial an empty one; a stored
    # transcript regraded (rescore, the task probe) has none (None), and its grade does the work again.
    record: list[object] | None = None


class Module(Protocol[BodyT]):
    """A module over its task body ``BodyT``: the registry holds ``Module[Any]``, each module is a
    ``Module[ItsBody]``."""

    # Read-only members: a module sets them as plain class attributes (body_model = ItsBody), which a
    # mutable protocol attribute would reject.
    @property
    def spec(self) -> ModuleSpec: ...

    # Bumped when the grader or the task format changes meaning; part of every task hash of the module.
    @property
    def version(self) -> str: ...

    @property
    def body_model(self) -> type[BodyT]: ...

    # The conversation's system message, decided before it starts and written once (``Conversation``):
    # no episode rewrites it.
    def system_prompt(self, task: LoadedTask[BodyT]) -> str | None: ...

    async def run(self, task: LoadedTask[BodyT], convo: Conversation, env: Env) -> None: ...

    def grade(self, task: LoadedTask[BodyT], turns: list[Turn], env: Env) -> Grade: ...

    def required_context(self, task: LoadedTask[BodyT]) -> int: ...


def estimate_tokens(text: str) -> int:
    """A deliberately generous token estimate (3 characters a token) for the context-fit check."""
    return len(text) // 3 + 1


def default_system_prompt(task: LoadedTask) -> str | None:
    """The system message of a module that adds nothing to it: the task file's own, if any."""
    return task.task.system


def default_required_context(task: LoadedTask) -> int:
    """Prompt material of the task file plus the completion budget of every turn it may take."""
    material = json.dumps(task.task.body, ensure_ascii=False) + (task.task.system or "")
    return estimate_tokens(material) + task.task.max_tokens * min(task.task.max_turns, 4) + 256


class Conversation:
    """The growing message list of one trial, and the only way a module talks to the model.

    Every message is kept as a ``Turn`` so the result file holds the whole transcript, including the turns
    before a failure; the client reads the same list (``engine.model.client.wire_messages`` writes it in the
    wire's shape) and its reply is appended as it comes. The system message is the module's
    (``Module.system_prompt``), written here once, first. A reply cut off by the token limit ends the episode
    as a model failure, unless the module gives another attempt after it (``go_on_after_cut``, decided by
    :func:`engine.episodes.cut.goes_on_after_cut`): then the cut reply is returned like any other, for the
    module to count as an attempt that failed.
    """

    def __init__(self, client: ChatClient, task: LoadedTask, env: Env, *, system: str | None):
        self.client = client
        self.task = task
        self.env = env
        self.turns: list[Turn] = []
        if system:
            self.turns.append(Turn(role="system", content=system))

    def add(self, role: str, content: str) -> None:
        self.turns.append(Turn(role=role, content=content))  # type: ignore[arg-type]

    def add_tool_result(self, call_id: str, name: str, content: str, *, injected_failure: bool) -> None:
        """A tool's answer, recorded with whether the task's failure injection gave it instead of the tool."""
        self.turns.append(Turn(role="tool", tool_call_id=call_id, name=name, content=content,
                               injected_failure=injected_failure))

    async def ask(
        self,
        *,
        tools: list[dict[str, Any]] | None = None,
        tool_choice: str | dict[str, Any] | None = None,
        go_on_after_cut: bool = False,
    ) -> AssistantTurn:
        """The model's reply to the conversation so far, stored as the client returned it (the client turns
        the turns into the wire format; nothing is rebuilt here). A reply cut by the token limit raises its
        truncation, unless ``go_on_after_cut``: then it is returned, and the module decides."""
        reply = await self.client.chat(
            self.turns, tools=tools, tool_choice=tool_choice, max_tokens=self.max_tokens, seed=self.env.seed
        )
        self.turns.append(reply)
        cut = self.truncation(reply)
        if cut is not None and not go_on_after_cut:
            raise cut
        return reply

    @property
    def max_tokens(self) -> int:
        return self.env.max_tokens or self.task.task.max_tokens

    def truncation(self, reply: Turn) -> Truncated | None:
        """The model failure a reply cut by the token limit ends the episode with; None when it was not cut.
        A module that went on after a cut raises this when the episode ends on that reply after all (its code
        passed), so that the trial is graded by the one cut rule."""
        if reply.finish_reason != "length":
            return None
        text = reply.content or reply.reasoning or ""
        kind = truncation_class(text)
        what = "spent the whole budget reasoning" if not reply.content and reply.reasoning else "ran out"
        return Truncated(f"the reply {what} at max_tokens={self.max_tokens} ({kind})", kind)


def last_assistant_text(turns: list[Turn]) -> str:
    for t in reversed(turns):
        if t.role == "assistant":
            return t.content
    return ""
