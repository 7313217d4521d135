"""One tool episode described as data: the seed, the tools offered, the faults, the gold, the grading.

This is the part of a tools task's ``body`` that the world owns. The tools module's own body model can
inherit from :class:`WorldEpisode` and add what the conversation needs (the prompt, the system message).
In YAML::

    world: {account: {budget: 500}, orders: {O-1: {customer: Ana, item: chair, unit_price: 80}}}
    tools: [list_orders, approve_order, reject_order]
    failures:
      - {tool: approve_order, kind: first_call, message: "timeout contacting payments; retry"}
    gold_actions:
      - {tool: approve_order, args: {order_id: O-1}}
      - {tool: approve_order, args: {order_id: O-1}}
    forbidden_tools: [kv_delete]
    checks: {must_mention: [O-1]}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import Field, ValidationError, field_validator

from engine.core.schema import Grade
from engine.world.choice import candidates
from engine.world.errors import WorldSpecError
from engine.world.gates import made_call
from engine.world.grading import grade_episode
from engine.world.replay import CallLike, Replay, fresh_world, replay_episode, replay_gold
from engine.world.spec import GradeSpec
from engine.world.state import WorldState
from engine.world.world import GoldAction, World


class WorldEpisode(GradeSpec):
    world: dict[str, Any] = Field(default_factory=dict)
    gold_actions: list[GoldAction] = Field(default_factory=list)

    @field_validator("world")
    @classmethod
    def _valid_seed(cls, value: dict[str, Any]) -> dict[str, Any]:
        WorldState.model_validate(value)
        return value

    @property
    def optimal(self) -> int:
        """The optimal number of calls: the task's ``optimal_calls``, else one per gold action."""
        return self.optimal_for(len(self.gold_actions))

    def new_world(self) -> World:
        """A fresh world for one trial: the seed, the offered tools, the failure injections."""
        return fresh_world(self.world, self)

    def check(self) -> None:
        """Raise :class:`WorldSpecError` unless the episode can run: known tools, gold that replays and makes
        every required call."""
        self.new_world()
        unknown = [g.tool for g in self.gold_actions if self.tools is not None and g.tool not in self.tools]
        if unknown:
            raise WorldSpecError(f"gold actions use tools the task does not offer: {unknown}")
        pick = self.checks.pick
        if pick is not None and len(candidates(pick, WorldState.model_validate(self.world))) < 2:
            raise WorldSpecError(f"checks.pick: {pick.answer!r} has nothing to be picked among; list the other "
                                 "candidates in 'among' or seed them beside it in the world")
        gold = replay_gold(self.world, self.gold_actions, self)
        made = [o for o in gold.outcomes if not o.error]
        unmade = [p.tool for p in self.required_calls if not any(made_call(p, o) for o in made)]
        if unmade:
            raise WorldSpecError(f"required_calls: the gold actions never make the required {unmade[0]} call; "
                                 "add it to gold_actions or fix its arguments")

    def replay(self, executed_calls: Sequence[CallLike]) -> Replay:
        """The gold and the model's calls, each replayed once from the seed."""
        return replay_episode(self.world, self.gold_actions, executed_calls, self)

    def grade(self, executed_calls: Sequence[CallLike], final_text: str = "") -> Grade:
        return grade_episode(self.world, self.gold_actions, executed_calls, self, final_text=final_text)


def load_episode(data: Mapping[str, Any]) -> WorldEpisode:
    """Validate an episode from a task body, with the error worded for the task author."""
    try:
        episode = WorldEpisode.model_validate(dict(data))
    except ValidationError as exc:
        raise WorldSpecError(f"invalid tool episode: {exc}") from exc
    episode.check()
    return episode
