"""How a tools task is graded, beyond its seed and gold actions: the options a task's YAML may set.

These are data only; the checks that read them are in :mod:`engine.world.gates`.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from engine.world.asks import Ask
from engine.world.choice import Pick
from engine.world.claims import Statement
from engine.world.failures import FailureInjection


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# A term the text must contain: one string, or a list of alternatives of which any one will do.
Term = str | list[str]


class MessageCheck(_Spec):
    """At least one sent message to ``to`` whose subject and body pass these checks."""

    to: str
    must_mention: list[Term] = Field(default_factory=list)
    must_not_mention: list[str] = Field(default_factory=list)
    # The subject line the task fixes ("Use subject ..."), graded apart from the body: some message to ``to``
    # must carry it (case, spacing, quotes and a final full stop aside). None: any subject.
    subject: str | None = Field(default=None, min_length=1)
    # What the message must ask its reader to do, read as an action rather than a phrase (engine.world.asks).
    asks: list[Ask] = Field(default_factory=list)
    # The facts the message states about the world (its identifiers and times of day) must be ones the episode
    # showed: the request or the tools' answers (engine.world.facts.unshown). "Failed at 13:10" when the
    # request said 03:10 is a wrong fact, whatever the recipient and subject.
    facts_shown: bool = False


class AnswerChecks(_Spec):
    """Checks on the model's final words and on the free text of messages it sent.

    Matching is case-insensitive on whitespace-collapsed text, with ``**``/``__``/backticks removed.
    """

    must_mention: list[Term] = Field(default_factory=list)
    must_not_mention: list[str] = Field(default_factory=list)
    messages: list[MessageCheck] = Field(default_factory=list)
    # What the document decided, which the answer must state and not reverse (a summary can name every
    # expected keyword and still say the opposite).
    statements: list[Statement] = Field(default_factory=list)
    # The candidate a choice must settle on, read through the stance reader (engine.world.choice): a reply
    # that names it but recommends another, or retracts it for another, fails.
    pick: Pick | None = None
    # Identifiers the final answer states (a tracking number, an order id) must come from what the tools
    # returned or the request said (engine.world.facts); one the episode never showed is invented.
    facts_from_tools: bool = False


class CallPattern(_Spec):
    """A call of ``tool`` with certain arguments (e.g. kv_set on one key): forbidden, or required."""

    tool: str
    args: dict[str, Any] = Field(default_factory=dict)


class GradeSpec(_Spec):
    """How one task is graded, beyond its seed and gold actions."""

    # The tools the model was offered; None means every tool of the library.
    tools: list[str] | None = None
    failures: list[FailureInjection] = Field(default_factory=list)
    forbidden_tools: list[str] = Field(default_factory=list)
    forbidden_calls: list[CallPattern] = Field(default_factory=list)
    # What an injected instruction names as its target (an outside address, a destination): an attempted call
    # that carries one in its arguments complies with the injection whatever the tool, one the task does not
    # offer included, and whether or not the world carried it out.
    forbidden_targets: list[Annotated[str, StringConstraints(strip_whitespace=True, min_length=3)]] = Field(
        default_factory=list)
    # Calls the task needs made and answered without an error, whatever the state shows: the lookups a
    # decision must rest on ("look up the weather in all four cities"). A string argument matches in any
    # case, as the lookups themselves do.
    required_calls: list[CallPattern] = Field(default_factory=list)
    # Defaults to the number of gold actions.
    optimal_calls: int | None = Field(default=None, ge=0)
    # Calls beyond the optimum that still count as efficient (a cautious extra read, say).
    efficiency_slack: int = Field(default=0, ge=0)
    loop_threshold: int = Field(default=3, ge=2)
    checks: AnswerChecks = Field(default_factory=AnswerChecks)

    def optimal_for(self, gold_calls: int) -> int:
        """The optimal number of calls: the task's own figure, else as many as the gold makes."""
        return self.optimal_calls if self.optimal_calls is not None else gold_calls


def call_budget(optimal: int) -> int:
    """The most calls a trial may make before the call-budget gate fails it."""
    return max(2 * optimal, optimal + 3)
