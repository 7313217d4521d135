"""Errors of the simulated world.

``ToolError`` and its subclasses are the model's business: a tool raises one when it is used wrongly, and the
execute boundary turns it into an error message that the model reads, exactly as a real API would answer.
``WorldSpecError`` is the task author's business: a seed, a tool set, a failure injection or a gold action
that cannot work. It is a ``UserError``, so the command layer reports it with the task and exits with 2.
"""

from __future__ import annotations

from engine.core.errors import UserError


class ToolError(Exception):
    """A tool refused a call. The message is shown to the model, so it says what was wrong and what to do."""

    kind = "tool_error"


class NotFound(ToolError):
    kind = "not_found"


class InvalidRequest(ToolError):
    """The arguments were well typed but make no sense for the current state (wrong status, bad amount)."""

    kind = "invalid_request"


class PolicyViolation(ToolError):
    kind = "policy_violation"


class BudgetExceeded(ToolError):
    kind = "budget_exceeded"


class ProtectedKey(ToolError):
    kind = "protected_key"


class WorldSpecError(UserError):
    """A task's world description cannot work: bad seed state, unknown tool, failing gold action."""


class ToolDefinitionError(TypeError):
    """A tool function cannot be turned into a schema (missing annotation or argument description)."""
