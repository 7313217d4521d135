"""``ModuleSpec``: what the rest of the bench knows about a module, declared once beside its implementation.

Each ``engine/episodes/<name>/module.py`` declares one frozen spec; the registry (``engine.episodes``) collects
them, and every later stage reads them there: scoring its weights and bank counts, the judge its policy, the
board and the site its label and order, the runner its capabilities, the result schema its name.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

# What the judge may do with a module's trials (site_src/methodology/judge.md):
#   never_sent  exact checks leave nothing to appeal, so its trials are never shown to the judge;
#   advisory    sent, and what the judge said is recorded, but the verdict stands;
#   movable     the verdict may move under the appeal thresholds of engine/analysis/judge/rules.py.
JudgePolicy = Literal["never_sent", "advisory", "movable"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ModuleWeights(_Frozen):
    """The module's share of the headline under each weight preset; the field names are the presets.

    Over the registry each preset's shares sum to 1 (a test checks it)."""

    balanced: float = Field(gt=0, lt=1)
    agentic: float = Field(gt=0, lt=1)
    coding: float = Field(gt=0, lt=1)


class ModuleSpec(_Frozen):
    # The folder of the implementation and of the tasks (engine/episodes/<name>/, tasks/<name>/), and the
    # ``module`` of every task and trial record.
    name: str = Field(pattern=r"^[a-z][a-z_]*$")
    # The short display name: the board's column heads, the radar's spokes.
    label: str = Field(min_length=1)
    weights: ModuleWeights
    # How many tasks the module has in the full bank. The weight caps are measured against these shares, and
    # scoring does no I/O, so the count is declared here (a test keeps it equal to tasks/<name>/).
    bank_tasks: int = Field(ge=1)
    judge: JudgePolicy
    # Some task sends tools, so preflight checks that the server supports them.
    uses_tools: bool
    # grade() runs the model's code in the sandbox, so the runner grades it in a thread.
    runs_code: bool
