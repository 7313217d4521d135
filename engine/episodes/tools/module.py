"""tools: multi-step episodes on a simulated backend, graded on the state the model leaves behind.

The episode (``run``) is the agent loop (:mod:`engine.episodes.agent.loop`) on the task's world with the
user's one request, under the agent's system message (:mod:`engine.episodes.agent.prompt`). Calls that the
client recovered from the reply's text are executed like any other and flagged.

The grade (``grade``) is a pure function of the task and the stored turns: it reads the turns once
(:mod:`engine.episodes.agent.transcript`), replays the episode once from the seed (the gold on one world, the
recorded calls on another; failure injection depends only on the call order, so the replay meets the same
faults the episode met), runs the world's checks and the agent's own (:mod:`engine.episodes.agent.gates`)
over that one replay, and builds the grade from their findings. On top of the world's gates (forbidden tool,
call budget) the agent adds two that no appeal may cross: ``loop`` (one identical call repeated
``loop_threshold`` times) and ``premature_stop`` (the model ended the episode itself without acting). Every
gate zeros the score and keeps the breakdown.
"""

from __future__ import annotations

import json

from pydantic import Field, model_validator

from engine.core.schema import Grade, Turn
from engine.episodes.agent.gates import (
    left_undone,
    loop_gate,
    malformed_calls,
    premature_stop,
    replay_mismatch,
    transcript_facts,
)
from engine.episodes.agent.loop import run_agent
from engine.episodes.agent.prompt import system_prompt
from engine.episodes.agent.transcript import read_transcript
from engine.episodes.base import Conversation, Env, LoadedTask, estimate_tokens
from engine.episodes.spec import ModuleSpec, ModuleWeights
from engine.episodes.structure import closed_sentences, whole_before_cut
from engine.model.textcalls import opens_call
from engine.world import (
    Finding,
    Replay,
    WorldEpisode,
    WorldSpecError,
    build_grade,
    call_budget,
    first_gate,
    world_findings,
)


class ToolsBody(WorldEpisode):
    """A tools task: the world episode (seed, tools, faults, gold, grading) plus the user's request."""

    prompt: str = Field(min_length=1)

    @model_validator(mode="after")
    def _playable(self) -> ToolsBody:
        if not self.tools:
            raise ValueError("'tools' must list the tools the model is offered (at least one)")
        unoffered = sorted(set(self.forbidden_tools) - set(self.tools))
        if unoffered:
            raise ValueError(f"forbidden_tools {unoffered} are not offered, so the gate could never fire; "
                             "add them to 'tools' or remove them")
        try:
            self.check()
        except WorldSpecError as exc:
            raise ValueError(str(exc)) from exc
        return self


class Tools:
    spec = ModuleSpec(
        name="tools", label="Tools", bank_tasks=13, judge="movable",
        uses_tools=True, runs_code=False, weights=ModuleWeights(balanced=0.30, agentic=0.38, coding=0.28),
    )
    version = "1"
    body_model = ToolsBody

    def system_prompt(self, task: LoadedTask[ToolsBody]) -> str | None:
        # The task's own system message (if any) goes first; the agent's instructions follow it, in one
        # message, since some chat templates refuse a second system message.
        return system_prompt(task.body.new_world(), task.task.system)

    async def run(self, task: LoadedTask[ToolsBody], convo: Conversation, env: Env) -> None:
        await run_agent(convo, task.body.new_world(), [task.body.prompt], task.task.max_turns)

    def grade(self, task: LoadedTask[ToolsBody], turns: list[Turn], env: Env) -> Grade:
        body = task.body
        seen = read_transcript(turns)
        replay = body.replay(seen.calls)
        by_world = self._world_findings(task, seen.final_text, replay)
        untouched = left_undone(replay)
        malformed = malformed_calls(seen, replay)
        found = {
            **by_world,
            "transcript": transcript_facts(seen),
            "malformed": Finding(details={"malformed_calls": malformed}),
            "loop": loop_gate(by_world["no_loop"], body.loop_threshold),
            "premature_stop": premature_stop(seen, replay, untouched, body.optimal),
            "replay_mismatch": replay_mismatch(seen, replay),
        }
        gate = first_gate(found)
        notes = []
        # A premature stop's reason already names the first change never made.
        if untouched and (gate is None or gate.gate != "premature_stop"):
            notes.append(f"{len(untouched)} requested change(s) left untouched")
        if seen.stopped == "max_turns":
            notes.append(f"ran out of turns ({task.task.max_turns}) without a final answer")
        if malformed:
            notes.append(f"{len(malformed)} malformed call(s)")
        if seen.text_calls:
            notes.append(f"{seen.text_calls} call(s) written as text")
        return build_grade(found, notes)

    def _world_findings(self, task: LoadedTask[ToolsBody], final_text: str, replay: Replay) -> dict[str, Finding]:
        # What the model was told before it acted: an identifier from here is not invented.
        told = f"{self.system_prompt(task)}\n{task.body.prompt}"
        return world_findings(replay, task.body, final_text, told)

    def before_cut(self, task: LoadedTask[ToolsBody], turns: list[Turn]) -> list[Turn]:
        """A cut final message as the grader reads it (:mod:`engine.episodes.cut`): only what it wrote whole,
        the sentence the cut fell in dropped (:func:`engine.episodes.structure.whole_before_cut`)."""
        last = turns[-1]
        return [*turns[:-1], last.model_copy(update={"content": whole_before_cut(last.content)})]

    def complete_before_cut(self, task: LoadedTask[ToolsBody], turns: list[Turn]) -> bool:
        """A cut final message is complete when what it wrote whole before the sentence the cut fell in, read
        in the sentences it closed (:func:`engine.episodes.structure.closed_sentences`), already passes every
        answer check of the task (the figure, the choice, the stance it must state, and the messages sent):
        the cut then took only what followed the answer (an aside, a sign-off, an offer of more help). The
        cut reply makes no call, structured or written as text (a cut call was still acting), and at least
        one sentence of it is whole. The grade then reads that whole part like any final message, its claims
        held to the log (:meth:`before_cut`)."""
        last = turns[-1] if turns else None
        if last is None or last.role != "assistant" or last.tool_calls or opens_call(last.content):
            return False
        whole = self.before_cut(task, turns)
        if not whole[-1].content:
            return False
        # The answer must be stated in sentences the model closed: a list of figures before "Now I need to
        # check which cities are dry." reports working whose conclusion the cut took.
        seen = read_transcript(whole)
        stated = closed_sentences(seen.final_text)
        found = self._world_findings(task, stated, task.body.replay(seen.calls))["answer_checks"]
        return not found.details["check_failures"]

    def required_context(self, task: LoadedTask[ToolsBody]) -> int:
        """System message, tool schemas (sent again in ``tools``), the request, the state read back up to
        twice through tool results, a small envelope per budgeted call, and two replies' worth of tokens."""
        body = task.body
        world = body.new_world()
        schemas = json.dumps(world.tool_schemas(), ensure_ascii=False)
        fixed = system_prompt(world, task.task.system) + schemas + body.prompt
        state = json.dumps(body.world, ensure_ascii=False)
        budget = call_budget(body.optimal)
        return (estimate_tokens(fixed) + 2 * estimate_tokens(state) + 40 * budget
                + 2 * task.task.max_tokens + 256)


MODULE = Tools()
