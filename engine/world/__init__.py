"""The simulated world that tool-calling tasks act on, its tools, failure injection and outcome grading.

This package knows nothing of model servers or runners: an agent loop hands each tool call to
:func:`execute` and sends back ``ToolOutcome.content``; a grader calls :func:`grade_episode` with the seed,
the gold actions and the calls the model made, or, to add checks of its own, replays the episode once
(:func:`replay_episode`), runs :func:`world_findings` and its own checks over that :class:`Replay`, and
builds the grade from all their findings (:func:`build_grade`).
"""

from engine.world.diff import changed_paths, flatten_state
from engine.world.episode import WorldEpisode, load_episode
from engine.world.errors import (
    BudgetExceeded,
    InvalidRequest,
    NotFound,
    PolicyViolation,
    ProtectedKey,
    ToolDefinitionError,
    ToolError,
    WorldSpecError,
)
from engine.world.failures import FailureInjection
from engine.world.gates import Finding
from engine.world.grading import PASS_THRESHOLD, WEIGHTS, build_grade, first_gate, grade_episode, world_findings
from engine.world.markdown import compare_markdown, markdown_paths, markdown_problems
from engine.world.replay import Replay, replay_episode, replay_gold
from engine.world.spec import AnswerChecks, CallPattern, GradeSpec, MessageCheck, call_budget
from engine.world.state import WorldState, state_hash
from engine.world.toolkit import Tool, json_schema_for, make_tool, parse_docstring, tool
from engine.world.tools import TOOLS, select_tools
from engine.world.world import GoldAction, ToolOutcome, World, execute

__all__ = [
    "PASS_THRESHOLD",
    "TOOLS",
    "WEIGHTS",
    "AnswerChecks",
    "BudgetExceeded",
    "CallPattern",
    "FailureInjection",
    "Finding",
    "GoldAction",
    "GradeSpec",
    "InvalidRequest",
    "MessageCheck",
    "NotFound",
    "PolicyViolation",
    "ProtectedKey",
    "Replay",
    "Tool",
    "ToolDefinitionError",
    "ToolError",
    "ToolOutcome",
    "World",
    "WorldEpisode",
    "WorldSpecError",
    "WorldState",
    "build_grade",
    "call_budget",
    "changed_paths",
    "compare_markdown",
    "execute",
    "first_gate",
    "flatten_state",
    "grade_episode",
    "json_schema_for",
    "load_episode",
    "make_tool",
    "markdown_paths",
    "markdown_problems",
    "parse_docstring",
    "replay_episode",
    "replay_gold",
    "select_tools",
    "state_hash",
    "tool",
    "world_findings",
]
