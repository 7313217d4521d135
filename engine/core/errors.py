"""Error classes that decide how a failure is counted.

``InfraError`` is the server's or the network's fault: retried, then recorded and excluded from scores.
``ModelFailure`` is the model's fault: recorded and counted as a failed trial.
``UserError`` is bad input from the person running the bench: a clear message and exit code 2.
"""

from __future__ import annotations


class BenchError(Exception):
    """Base of every error the engine raises on purpose."""


class UserError(BenchError):
    """Bad input: a file, a flag or a setting. The message says what, where, and how to fix it."""


class InfraError(BenchError):
    """The server or network failed; not the model's fault. ``retryable`` says whether waiting may help."""

    def __init__(self, message: str, *, retryable: bool = True, retry_after: float | None = None):
        super().__init__(message)
        self.retryable = retryable
        self.retry_after = retry_after


class ModelFailure(BenchError):
    """The model produced something that fails the trial outright (not a wrong answer, which graders judge)."""

    kind = "model_failure"


class ContextOverflow(ModelFailure):
    """The conversation no longer fits the served context window. Final: never retried."""

    kind = "context_overflow"


class ToolCallParseFailure(ModelFailure):
    """The server could not parse the tool-call JSON the model wrote (a 500 that says so)."""

    kind = "tool_call_parse"


class Truncated(ModelFailure):
    """The reply ran out of tokens. ``truncation`` is ``degenerate`` (it was looping) or ``incomplete``."""

    kind = "truncated"

    def __init__(self, message: str, truncation: str):
        super().__init__(message)
        self.truncation = truncation
